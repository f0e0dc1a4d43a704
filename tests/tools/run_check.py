#!/usr/bin/env python3
"""Checks the "run" object of an analysis.json written by `kreport analyze RUN`
against the answers run_dirs.py computed from the construction.

usage: run_check.py EXPECTED.json CASE ANALYSIS.json
Prints one line per mismatch and exits 1 when there is any."""
import json
import math
import sys


def main(exp_path, case, path):
    every = json.load(open(exp_path))
    exp = every["twoloops" if case == "twoloops_pinned" else case]
    run = json.load(open(path))["run"]
    bad = []

    def eq(what, got, want):
        if isinstance(want, float):
            ok = isinstance(got, (int, float)) and math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-9)
        else:
            ok = got == want
        if not ok:
            bad.append(f"{case}: {what}: got {got!r}, want {want!r}")

    if case in ("testpa", "gatefail"):
        t = run["target"]
        eq("target", t["names"], ["pa_decode_ps_kernel_0"])
        eq("ambiguous", t["ambiguous"], False)
        k = [x for x in run["timing"]["kernels"] if x["name"] == "pa_decode_ps_kernel_0"][0]
        eq("dispatches", k["dispatches"], every["testpa"]["dispatches"])
    if case == "testpa":
        t = run["target"]
        k = [x for x in run["timing"]["kernels"] if x["name"] == "pa_decode_ps_kernel_0"][0]
        eq("total_us", run["timing"]["total_us"], exp["total_us"])
        eq("share", k["share"], exp["share"])
        eq("calls", t["calls"]["calls"], exp["calls"])
        eq("segments", t["calls"]["segments"], exp["segments"])
        eq("warm n", t["calls"]["warm"]["n"], exp["warm_n"])
        eq("warm median", t["calls"]["warm"]["median_us"], exp["warm_median_us"])
        eq("warm mean", t["calls"]["warm"]["mean_us"], exp["warm_mean_us"])
        eq("row aligned", t["row_aligned"], True)
        b = run["benchmark"]
        eq("class_by", b["class_by"], ["block_size", "query_length"])
        eq("metric", b["metric"], "us_flydsl_ps")
        eq("metric mean", b["metric_stats"]["mean"], exp["metric_mean"])
        got = {c["label"]: c for c in b["classes"]}
        eq("classes", sorted(got), sorted(exp["classes"]))
        for label, want in exp["classes"].items():
            c = got.get(label)
            if not c:
                continue
            eq(f"{label} rows", c["rows"], want["rows"])
            eq(f"{label} n", c["gpu"]["n"], want["n"])
            eq(f"{label} median", c["gpu"]["median_us"], want["median_us"])
            eq(f"{label} mean", c["gpu"]["mean_us"], want["mean_us"])
            eq(f"{label} metric", c["metric"]["mean"], want["metric_mean"])
        eq("gate", (run["gate"]["status"], run["gate"]["source"]), ("pass", "default"))
        r = run["row"]
        eq("row gpu", r["gpu_time_us"], exp["row_gpu"])
        eq("row metric", r["metric_mean"], exp["row_metric"])
        cells = [c.strip() for c in r["text"].strip("|").split("|")]
        eq("row cells", cells, ["2026-06-12", "3f9c2ab", "baseline", "python tests/kernels/test_pa.py", "global",
                                "pa_decode_ps_kernel_0", exp["row_metric"], exp["row_gpu"], "—",
                                "issue next partition's K loads before softmax"])
    elif case == "benchonly":
        eq("timing", run["timing"]["has_trace"], False)
        eq("target", run["target"], None)
        eq("metric mean", run["benchmark"]["metric_stats"]["mean"], exp["metric_mean"])
        eq("gate", run["gate"]["status"], "pass")
        cells = [c.strip() for c in run["row"]["text"].strip("|").split("|")]
        eq("row kernel/metric/gpu", cells[5:8], ["—", f"{exp['metric_mean']:.1f}", "—"])
    elif case == "gatefail":
        g = run["gate"]
        eq("gate status", g["status"], "fail")
        eq("fails", [(f["row"], f["line"], f["column"], f["value"]) for f in g["fails"]],
           [(exp["row"], exp["line"], "err_flydsl_ps", "1")])
    elif case == "twoloops":
        t = run["target"]
        eq("ambiguous", t["ambiguous"], True)
        c = {x["name"]: x for x in t["candidates"]}
        eq("candidates", sorted(c), ["kernel_a_0", "kernel_b_0"])
        if len(c) == 2:
            eq("a median", c["kernel_a_0"]["calls"]["warm"]["median_us"], exp["a_median_us"])
            eq("b median", c["kernel_b_0"]["calls"]["warm"]["median_us"], exp["b_median_us"])
            eq("a warm", c["kernel_a_0"]["calls"]["warm_calls"], exp["a_warm"])
            eq("b flag", c["kernel_b_0"]["flag"], "--kernel '^kernel_b_0$'")
    elif case == "twoloops_pinned":
        t = run["target"]
        eq("names", t["names"], ["kernel_b_0"])
        eq("how", t["how"], "option")
        eq("ambiguous", t["ambiguous"], False)
        eq("b median", t["calls"]["warm"]["median_us"], exp["b_median_us"])
    elif case == "hub":
        t = run["target"]
        eq("target", t["names"], ["flydsl_rmsnorm_kernel_0"])
        eq("warm n", t["calls"]["warm"]["n"], exp["warm_n"])
        eq("warm median", t["calls"]["warm"]["median_us"], exp["warm_median_us"])
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
