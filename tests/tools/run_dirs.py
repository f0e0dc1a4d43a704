#!/usr/bin/env python3
"""Run directories for the `kreport analyze RUN` tests, with their answers
computed from the construction (never read back from the written files).

usage: run_dirs.py OUTDIR     writes OUTDIR/<case>/ and OUTDIR/expected.json

Cases (LOOP.md §2 layouts):
  testpa     test_pa style: bench/<csv>, prof/<prefix>_kernel_trace.csv,
             prof/<prefix>_agent_info.csv, run.meta (the compare tests' CANDIDATE
             of the keep case: 8 rows, 9 calls per row, the first cold)
  benchonly  the same benchmark CSV and run.meta, no trace
  gatefail   testpa with err_flydsl_ps = 1 on row 6 (1024, 1, (16, 1))
  twoloops   two non-framework timed loops of equal weight (an ambiguous pick)
  hub        the hub harness: benchmark_results.csv (shape_id, provider,
             correct, median_us, p10_us, p90_us) and one rocprofv3 trace under
             profiles/<shape hash>/flydsl/<host>/<pid>_kernel_trace.csv
Per-call figures: a call is one dispatch here, so the warm calls of a row are
its dispatches after the first; durations are written rounded to whole ns."""
import json
import os
import shutil
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_runs as cr  # noqa: E402

FACTOR = 0.95


def warm_ns(cfg, factor=FACTOR, cand=True):
    jit = list(reversed(cr.JITTER)) if cand else cr.JITTER
    base = cr.base_us(*cfg) * 1000.0 * factor
    return [int(round(base * (1 + jit[i % len(jit)]))) for i in range(8)]


def cold_ns(cfg, factor=FACTOR):
    return int(round(cr.base_us(*cfg) * 1000.0 * factor * cr.COLD))


def script(cfg, factor=FACTOR):
    """us_flydsl_ps as compare_runs writes it (two decimals)."""
    return float(f"{cr.base_us(*cfg) * 1.13 * factor:.2f}")


def testpa_expected(rows):
    warm = [w for cfg in rows for w in warm_ns(cfg)]
    allc = [c for cfg in rows for c in [cold_ns(cfg)] + warm_ns(cfg)]
    sep = 7000 * len(rows)
    total = sum(allc) + sep
    classes = {}
    for cfg in rows:
        label = f"block_size={cfg[0]}, query_length={cfg[1]}"
        c = classes.setdefault(label, {"rows": 0, "gpu": [], "metric": []})
        c["rows"] += 1
        c["gpu"] += warm_ns(cfg)
        c["metric"].append(script(cfg))
    metric = [script(cfg) for cfg in rows]
    return {
        "target": ["pa_decode_ps_kernel_0"],
        "dispatches": len(allc), "total_us": total / 1000.0, "share": sum(allc) / total,
        "warm_n": len(warm), "warm_median_us": statistics.median(warm) / 1000.0,
        "warm_mean_us": statistics.fmean(warm) / 1000.0, "calls": len(allc), "segments": len(rows),
        "classes": {k: {"rows": v["rows"], "n": len(v["gpu"]), "median_us": statistics.median(v["gpu"]) / 1000.0,
                        "mean_us": statistics.fmean(v["gpu"]) / 1000.0, "metric_mean": statistics.fmean(v["metric"])}
                    for k, v in classes.items()},
        "metric_mean": statistics.fmean(metric),
        "row_gpu": f"{statistics.fmean(warm) / 1000.0:.1f}", "row_metric": f"{statistics.fmean(metric):.1f}",
    }


def write_testpa(root, err=None):
    cr.side(root, cr.configs(), lambda c: FACTOR, cand=True, err=err, meta=cr.CAND_META)


def write_twoloops(root):
    """Two kernels A and B alternate in every row, each 9 dispatches per row; A
    takes 50 us, B 45 us (+ jitter): B's total is 90 % of A's, an ambiguous pick."""
    disp = []
    for r in range(4):
        for i in range(9):
            j = cr.JITTER[i % 8]
            disp.append(("kernel_a_0", 50000 * (1 + j) * (cr.COLD if i == 0 else 1), 64))
        disp.append((cr.SEPARATOR, 7000, 16))
        for i in range(9):
            j = cr.JITTER[(i + 3) % 8]
            disp.append(("kernel_b_0", 45000 * (1 + j) * (cr.COLD if i == 0 else 1), 64))
        disp.append((cr.SEPARATOR, 7000, 16))
    cr.write_trace(os.path.join(root, "prof", "discover_kernel_trace.csv"), disp)
    cr.write_agent_info(os.path.join(root, "prof", "discover_agent_info.csv"))
    a = [int(round(50000 * (1 + cr.JITTER[i % 8]))) for i in range(1, 9)] * 4
    b = [int(round(45000 * (1 + cr.JITTER[(i + 3) % 8]))) for i in range(1, 9)] * 4
    return {"a_median_us": statistics.median(a) / 1000.0, "b_median_us": statistics.median(b) / 1000.0,
            "a_warm": len(a), "b_warm": len(b)}


HUB_HEADER = ["shape_id", "model", "dtype", "provider", "correct", "benchmark_status", "median_us", "p10_us", "p90_us"]


def write_hub(root):
    rows, med = [], {}
    for s, (m, base) in enumerate([("llama", 31.25), ("qwen", 44.5)]):
        for prov, f in (("flydsl", 1.0), ("aiter", 1.1)):
            v = round(base * f, 3)
            med[(s, prov)] = v
            rows.append([f"s{s}", m, "bf16", prov, "True", "ok", f"{v}", f"{v * 0.98:.3f}", f"{v * 1.03:.3f}"])
    cr.write_csv(os.path.join(root, "benchmark_results.csv"), HUB_HEADER, rows)
    # One profiled shape: 6 calls of the FlyDSL kernel, the first cold.
    durs = [int(round(31250 * (cr.COLD if i == 0 else 1 + cr.JITTER[i % 8]))) for i in range(6)]
    cr.write_trace(os.path.join(root, "profiles", "3f2a9c", "flydsl", "host1", "4242_kernel_trace.csv"),
                   [("flydsl_rmsnorm_kernel_0", d, 40) for d in durs])
    return {"warm_median_us": statistics.median(durs[1:]) / 1000.0, "warm_n": 5,
            "metric_mean_flydsl": statistics.fmean(v for (s, p), v in med.items() if p == "flydsl")}


def main(out):
    os.makedirs(out, exist_ok=True)
    rows = cr.configs()
    exp = {}
    write_testpa(os.path.join(out, "testpa"))
    exp["testpa"] = testpa_expected(rows)
    bo = os.path.join(out, "benchonly")
    shutil.copytree(os.path.join(out, "testpa", "bench"), os.path.join(bo, "bench"))
    shutil.copy(os.path.join(out, "testpa", "run.meta"), os.path.join(bo, "run.meta"))
    exp["benchonly"] = {"metric_mean": exp["testpa"]["metric_mean"]}
    bad = (1024, 1, "(16, 1)")
    write_testpa(os.path.join(out, "gatefail"), err=lambda c: 1 if c == bad else 0)
    exp["gatefail"] = {"row": rows.index(bad) + 1, "line": rows.index(bad) + 2}
    exp["twoloops"] = write_twoloops(os.path.join(out, "twoloops"))
    exp["hub"] = write_hub(os.path.join(out, "hub"))
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(exp, f, indent=1)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
