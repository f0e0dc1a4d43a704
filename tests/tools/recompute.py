#!/usr/bin/env python3
"""Independent recomputation of analysis.json figures from the raw capture
files (docs/formats.md#code-table, docs/formats.md#per-row-sums, docs/formats.md#timeline, docs/hotspots.md#hub-analyzer), written without looking at kreport's
C code. usage: recompute.py CAPTURE_DIR ANALYSIS_JSON [LABEL]
Exits 1 and prints every mismatch."""
import glob
import json
import os
import sys

HUB_RULES = [  # docs/hotspots.md#hub-analyzer, first match wins
    ("vmem_wait", lambda a: "s_waitcnt" in a and "vmcnt" in a),
    ("lds_smem_wait", lambda a: "s_waitcnt" in a and "lgkmcnt" in a),
    ("exp_wait", lambda a: "s_waitcnt" in a and "expcnt" in a),
    ("waitcnt", lambda a: "s_waitcnt" in a),
    ("barrier", lambda a: "s_barrier" in a or "s_wait_idle" in a),
    ("vmem_load", lambda a: any(s in a for s in ("buffer_load", "global_load", "flat_load"))),
    ("vmem_store", lambda a: "buffer_store" in a or "global_store" in a),
    ("lds", lambda a: "ds_read" in a or "ds_write" in a),
    ("smem", lambda a: "s_load" in a or "s_store" in a),
    ("mfma_fma", lambda a: "v_mfma" in a or "v_fma" in a),
    ("other", lambda a: True),
]


def main():
    cap, analysis = sys.argv[1], sys.argv[2]
    label = sys.argv[3] if len(sys.argv) > 3 else None
    doc = json.load(open(analysis))
    if "captures" in doc:
        doc = [c for c in doc["captures"] if c["capture"]["label"] == label][0]
    code = json.load(open(os.path.join(cap, "code.json")))
    hdr = [h.strip() for h in code["header"].split(",")] if isinstance(code["header"], str) else code["header"]
    col = {h: i for i, h in enumerate(hdr)}
    rows = code["code"] or []
    instr = [r for r in rows if not r[col["ISA"]].startswith(";")]
    bad = []

    def eq(what, got, want):
        if got != want:
            bad.append(f"{what}: analysis.json has {got}, recomputed {want}")

    t = doc["totals"]
    eq("totals.rows", t["rows"], len(instr))
    for key, name in (("hit", "Hit"), ("latency", "Latency"), ("stall", "Stall"), ("idle", "Idle")):
        eq(f"totals.{key}", t[key], sum(r[col[name]] for r in instr))

    # Wave files: records and the timeline state sums (raw), docs/formats.md#timeline.
    names = json.load(open(os.path.join(cap, "filenames.json")))["wave_filenames"] or {}
    files = []
    for se in names.values():
        for simd in se.values():
            for slot in simd.values():
                for entry in slot.values():
                    files.append(entry[0])
    records = 0
    states = [0] * 5
    for f in files:
        w = json.load(open(os.path.join(cap, f)))["wave"]
        records += len(w["instructions"] or [])
        for s, c in w["timeline"] or []:
            states[s] += c
    eq("totals.records", t["records"], records)
    for i, key in enumerate(("empty", "idle", "exec", "wait", "stall")):
        eq(f"wave_states.{key}", doc["wave_states"][key], states[i])

    # Hub buckets, docs/hotspots.md#hub-analyzer: kept rows = LineNumber != 0.
    buckets = {}
    order = []
    for r in rows:
        if r[col["LineNumber"]] == 0 or r[col["Stall"]] <= 0:
            continue
        a = r[col["ISA"]].lower()
        b = next(name for name, test in HUB_RULES if test(a))
        if b not in buckets:
            order.append(b)
        buckets[b] = buckets.get(b, 0) + r[col["Stall"]]
    want = sorted(order, key=lambda b: -buckets[b])  # stable: first seen wins ties
    got = [(x["bucket"], x["stall"]) for x in doc["stall_buckets"]]
    eq("stall_buckets", got, [(b, buckets[b]) for b in want])

    # Mapping k/N, docs/formats.md#mapped-rows.
    eq("mapping.rows", doc["mapping"]["rows"], len(instr))
    eq("mapping.mapped", doc["mapping"]["mapped"], sum(1 for r in instr if r[col["Source"]]))
    for line in bad:
        print(f"{cap}: {line}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
