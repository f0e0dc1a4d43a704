#!/usr/bin/env python3
"""Builds a rocpd database (what rocprofv3 writes as <pid>_results.db since
ROCm 7.0) from rocprofv3 CSVs, with the schema SQL of tests/rocpd/.

    mkrocpd.py OUT.db --schema {3,3.0.3,4.1.0} --trace KERNEL_TRACE.csv
               --agents AGENT_INFO.csv [--counters COUNTER_COLLECTION.csv]
               [--handle LOGICAL=HANDLE]... [--runs N] [--halves] [--spm] [--page-size N]

Every kernel-trace row becomes a dispatch (with its kernel symbol, event and,
for schema 4, track), every agent_info row an agent whose extdata holds the
row's columns in lower case (cu_count, ...), every counter row a rocpd_pmc_event
value. --handle gives the GPU agent of that logical index an extdata id.handle.
--runs N spreads the dispatches over N runs (uuids) as a merged file holds
them. --halves writes every counter value as two rows of half the value (the
per-dimension rows rocprofv3 writes; a reader must sum them). --spm adds SPM
sample rows (schema 3.0.3 and later) that a reader must leave out.
--page-size 512 makes small files (fuzz seeds).
"""
import argparse
import csv
import json
import os
import sqlite3
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMAS = os.path.join(HERE, "..", "rocpd")


def rows(path):
    with open(path, newline="") as f:
        r = csv.reader(f)
        header = [h.lower() for h in next(r)]
        return [dict(zip(header, row)) for row in r]


def num(s):
    try:
        return int(s)
    except ValueError:
        return s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--schema", required=True, choices=["3", "3.0.3", "4.1.0"])
    ap.add_argument("--trace", required=True)
    ap.add_argument("--agents", required=True)
    ap.add_argument("--counters")
    ap.add_argument("--handle", action="append", default=[])
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--halves", action="store_true")
    ap.add_argument("--spm", action="store_true")
    ap.add_argument("--page-size", type=int)
    a = ap.parse_args()

    sql = open(os.path.join(SCHEMAS, "schema_%s.sql" % a.schema)).read()
    handles = {int(k): int(v) for k, v in (h.split("=") for h in a.handle)}
    trace = rows(a.trace)
    agents = rows(a.agents)
    counters = rows(a.counters) if a.counters else []
    v4 = a.schema.startswith("4")
    if os.path.exists(a.out):
        os.unlink(a.out)
    db = sqlite3.connect(a.out)
    if a.page_size:
        db.execute("PRAGMA page_size = %d" % a.page_size)
    per_run = (len(trace) + a.runs - 1) // a.runs
    for run in range(a.runs):
        uuid = "0198a1b2-c3d4-7e5f-8a9b-%012x" % (run + 1)
        suffix = "_" + uuid.replace("-", "_")
        guid = "guid-%d" % (run + 1)
        db.executescript(sql.replace("{{uuid}}", suffix).replace("{{guid}}", guid))

        def t(name):
            return '"%s%s"' % (name, suffix)

        db.execute("INSERT INTO %s (hash, machine_id, hostname) VALUES (1, 'm', 'host')" % t("rocpd_info_node"))
        db.execute("INSERT INTO %s (nid, pid, command) VALUES (1, 4242, 'python3 test.py')" % t("rocpd_info_process"))
        agent_row = {}
        for g in agents:
            logical = int(g["logical_node_id"])
            ext = {k: num(v) for k, v in g.items()}
            if logical in handles:
                ext["id"] = {"handle": handles[logical]}
            name_col = "generic_name" if v4 else "name"
            cur = db.execute(
                "INSERT INTO %s (nid, pid, type, absolute_index, logical_index, type_index, %s, model_name, "
                "vendor_name, product_name, extdata) VALUES (1, 1, ?, ?, ?, 0, ?, ?, ?, ?, ?)" % (t("rocpd_info_agent"), name_col),
                (g["agent_type"], int(g["node_id"]), logical, g["name"], g.get("model_name", ""),
                 g.get("vendor_name", ""), g["product_name"], json.dumps(ext)))
            agent_row[logical] = cur.lastrowid
        db.execute("INSERT INTO %s (nid, pid, uri) VALUES (1, 1, 'memory://4242')" % t("rocpd_info_code_object"))
        part = trace[run * per_run:(run + 1) * per_run]
        symbols = {}
        for d in part:
            kid = int(d["kernel_id"])
            if kid in symbols:
                continue
            symbols[kid] = True
            lds = d.get("lds_block_size", d.get("group_segment_size"))
            scratch = d.get("scratch_size", d.get("private_segment_size"))
            db.execute(
                "INSERT INTO %s (id, nid, pid, code_object_id, kernel_name, display_name, group_segment_size, "
                "private_segment_size, sgpr_count, arch_vgpr_count, accum_vgpr_count) "
                "VALUES (?, 1, 1, 1, ?, ?, ?, ?, ?, ?, ?)" % t("rocpd_info_kernel_symbol"),
                (kid, d["kernel_name"] + ".kd", d["kernel_name"], int(lds), int(scratch), int(d["sgpr_count"]),
                 int(d["vgpr_count"]), int(d["accum_vgpr_count"])))
        tracks = {}
        event_of = {}
        for d in part:
            agent = int(d["agent_id"].split()[-1])
            queue = int(d.get("queue_id", 1))
            ev = db.execute("INSERT INTO %s (correlation_id) VALUES (?)" % t("rocpd_event"),
                            (int(d["correlation_id"]),)).lastrowid
            event_of[int(d["dispatch_id"])] = (ev, agent_row[agent])
            lds = int(d.get("lds_block_size", d.get("group_segment_size")))
            scratch = int(d.get("scratch_size", d.get("private_segment_size")))
            dims = [int(d[k]) for k in ("workgroup_size_x", "workgroup_size_y", "workgroup_size_z",
                                        "grid_size_x", "grid_size_y", "grid_size_z")]
            if v4:
                key = (agent, queue)
                if key not in tracks:
                    tracks[key] = db.execute(
                        "INSERT INTO %s (nid, pid, agent_id, queue_id, stream_id) VALUES (1, 1, ?, ?, 1)" % t("rocpd_track"),
                        (agent_row[agent], queue)).lastrowid
                db.execute(
                    "INSERT INTO %s (track_id, kernel_id, dispatch_id, start, end, private_segment_size, "
                    "group_segment_size, workgroup_size_x, workgroup_size_y, workgroup_size_z, grid_size_x, "
                    "grid_size_y, grid_size_z, event_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                    % t("rocpd_kernel_dispatch"),
                    [tracks[key], int(d["kernel_id"]), int(d["dispatch_id"]), int(d["start_timestamp"]),
                     int(d["end_timestamp"]), scratch, lds] + dims + [ev])
            else:
                db.execute(
                    "INSERT INTO %s (nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id, stream_id, start, "
                    "end, private_segment_size, group_segment_size, workgroup_size_x, workgroup_size_y, "
                    "workgroup_size_z, grid_size_x, grid_size_y, grid_size_z, event_id) "
                    "VALUES (1, 1, 1, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)" % t("rocpd_kernel_dispatch"),
                    [agent_row[agent], int(d["kernel_id"]), int(d["dispatch_id"]), queue, int(d["start_timestamp"]),
                     int(d["end_timestamp"]), scratch, lds] + dims + [ev])
        pmc = {}
        for c in counters:
            did = int(c["dispatch_id"])
            if did not in event_of:
                continue
            ev, agent = event_of[did]
            name = c["counter_name"]
            if name not in pmc:
                pmc[name] = db.execute(
                    "INSERT INTO %s (nid, pid, agent_id, target_arch, name, symbol) VALUES (1, 1, ?, 'GPU', ?, ?)"
                    % t("rocpd_info_pmc"), (agent, name, name)).lastrowid
            value = float(c["counter_value"])
            parts = [value / 2, value / 2] if a.halves else [value]
            for v in parts:
                db.execute("INSERT INTO %s (event_id, pmc_id, value) VALUES (?, ?, ?)" % t("rocpd_pmc_event"),
                           (ev, pmc[name], v))
            if a.spm:
                db.execute("INSERT INTO %s (event_id, pmc_id, value, sample_id) VALUES (?, ?, 1e9, 1)"
                           % t("rocpd_pmc_event"), (ev, pmc[name]))
    db.commit()
    db.close()


if __name__ == "__main__":
    sys.exit(main())
