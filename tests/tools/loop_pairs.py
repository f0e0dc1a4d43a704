#!/usr/bin/env python3
"""BEST/CANDIDATE run directories in the layouts real optimization loops
write (docs/compare.md), each with the verdict it must get stated up front.

usage: loop_pairs.py OUTDIR [HUB]            writes OUTDIR/<case>/{best,cand} and
                                              OUTDIR/cases.tsv (case, verdict, args)
       loop_pairs.py --study OUTDIR N LAYOUT CHANGE [HUB]
                                              N pairs of one layout with a true change
                                              (0 for A/A), seeds 1..N

Call times are real warm calls resampled: with HUB (the hub fixture), the
warm dispatch durations of pa_mqa_logits_fp4_kernel_0 and
flash_attn_func_kernel_0 (the first dispatch of each timed loop left out),
each divided by its kernel's median, so one pool of relative times; without
it, a fixed list of relative jitters. A row's call i takes base(row) x
change x pool[random]; BEST and CANDIDATE draw independently (seeded), so
equal changes are A/A pairs."""
import csv
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_runs import write_agent_info, write_csv, write_meta, TRACE_HEADER  # noqa: E402

FALLBACK_POOL = [1.0, 0.997, 1.004, 0.999, 1.012, 0.995, 1.002, 1.001, 0.998, 1.006, 1.03, 0.996]
FW = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >(int)"


def hub_pool(hub):
    """Relative warm call times of the hub's two timed loops."""
    pool = []
    if not hub:
        return list(FALLBACK_POOL)
    for ex, kernel in (("pa_mqa_logits_fp4", "pa_mqa_logits_fp4_kernel_0"), ("flash_attn_func", "flash_attn_func_kernel_0")):
        path = os.path.join(hub, "examples", ex, "compute_viewer", "discover_kernel_trace.csv")
        if not os.path.exists(path):
            return list(FALLBACK_POOL)
        rows = sorted(csv.DictReader(open(path, newline="")), key=lambda r: int(r["Start_Timestamp"]))
        seg, prev_target = [], False
        durs = []
        for r in rows:
            is_t = r["Kernel_Name"] == kernel
            if is_t:
                d = int(r["End_Timestamp"]) - int(r["Start_Timestamp"])
                if prev_target:
                    seg.append(d)
                else:
                    seg = []          # first dispatch of a run of calls: cold, left out
                    durs.append(seg)
            prev_target = is_t or (prev_target and r["Kernel_Name"].startswith("__amd_rocclr_"))
        warm = sorted(d for s in durs for d in s)
        med = warm[len(warm) // 2]
        pool += [d / med for d in warm]
    return pool


class Trace:
    def __init__(self):
        self.rows = []
        self.t = 2011851578225778
        self.ids = {}                # Kernel_Id per name, as rocprofv3 numbers code objects' kernels

    def add(self, name, dur, vgpr=96):
        dur = int(round(dur))
        i = len(self.rows) + 1
        kid = self.ids.setdefault(name, len(self.ids) + 1)
        self.rows.append(["KERNEL_DISPATCH", "Agent 2", 1, 0, 635704, i, kid, name, i, self.t, self.t + dur,
                          16384, 0, vgpr, 0, 48, 256, 1, 1, 131072, 1, 1])
        self.t += dur + 3000

    def write(self, path, header=TRACE_HEADER, drop=()):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        keep = [i for i, h in enumerate(TRACE_HEADER) if h not in drop]
        with open(path, "w", newline="") as f:
            w = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
            w.writerow([header[i] for i in keep])
            for r in self.rows:
                w.writerow([r[i] for i in keep])


def shapes(n):
    return [(bs, q, nh) for bs in (16, 1024) for q in (1, 2, 3) for nh in ("(8, 1)", "(16, 1)")][:n]


def base_us(cfg):
    bs, q, nh = cfg
    b = (59.5 + 8.0 * (q - 1)) if bs == 16 else (45.1 + 5.5 * (q - 1))
    return b * (1.2 if nh == "(16, 1)" else 1.0)


def calls(rng, pool, base, change, n):
    return [base * 1000 * change * rng.choice(pool) for _ in range(n)]


def median(v):
    v = sorted(v)
    return (v[len(v) // 2] + v[(len(v) - 1) // 2]) / 2


META = [("exit_code", "0"), ("command", "python tests/kernels/test_pa.py")]


def testpa_side(root, rng, pool, change, *, rows=8, ncalls=9, two=False, ref=None, rename=None, extra=None,
                check_fail=None, err_cols=False, dialect=None, replicates=1, script=None, drop_row=None):
    """test_pa-like: bench CSV + kernel trace. change(cfg) is the factor of the
    kernel under work; ref: the reference kernel's factor (timed in its own loop
    per row, like test_pa's Gluon); two: a reduce kernel once per call; extra:
    (name, share) of a kernel moved into each call on this side."""
    cfgs = shapes(rows)
    for rep in range(replicates):
        tr = Trace()
        bench = []
        for cfg in cfgs:
            tr.add(FW, 7000, 16)
            if ref is not None:
                for t in calls(rng, pool, base_us(cfg) * 1.2, ref, ncalls):
                    tr.add("_gluon_pa_decode_kernel", t)
                tr.add(FW, 5000, 16)
            main = rename or "pa_decode_ps_kernel_0"
            ts = calls(rng, pool, base_us(cfg), change(cfg), ncalls)
            for t in ([] if drop_row is not None and cfgs.index(cfg) == drop_row else ts):
                if two:
                    tr.add(main, t * 0.8)
                    tr.add("pa_decode_sw_reduce_kernel_0", t * 0.2)
                elif extra:
                    tr.add(main, t * (1 - extra[1]))
                    tr.add(extra[0], t * extra[1])
                else:
                    tr.add(main, t)
            us = median(ts[1:] or ts) / 1000 * 1.13
            row = [cfg[0], cfg[1], cfg[2], f"{base_us(cfg) * 1.2:.3f}", 0, f"{us * (script(cfg) if script else 1):.3f}", 0]
            if err_cols:
                row += [f"{rng.uniform(1e-3, 9e-3):.5f}", f"{rng.uniform(0.99, 0.9999):.5f}"]
            bench.append(row)
        header = ["block_size", "query_length", "num_heads", "us_gluon", "err_gluon", "us_flydsl_ps", "err_flydsl_ps"]
        if err_cols:
            header += ["max_err", "min_cos"]
        if check_fail is not None:
            header.append("Check")
            for i, r in enumerate(bench):
                r.append("FAIL" if i == check_fail else "PASS")
        sub = f"run_{rep + 1}" if replicates > 1 else ""
        write_csv(os.path.join(root, sub, "bench", "run_pa_decode_ps_test.csv"), header, bench)
        th = TRACE_HEADER
        drop = ()
        if dialect == "rocpd":
            th = [h if h in ("Kind", "Kernel_Name") else h[0] + h[1:].lower() for h in TRACE_HEADER]
        elif dialect == "pre11":
            drop = ("Dispatch_Id",)
        tr.write(os.path.join(root, sub, "prof", "host_1234_kernel_trace.csv"), th, drop)
        write_agent_info(os.path.join(root, sub, "prof", "host_1234_agent_info.csv"))
    write_meta(os.path.join(root, "run.meta"), META)


HARNESS_HEADER = ["run_id", "shape_id", "model", "stage", "dtype", "op_type", "args", "provider", "provider_detail",
                  "candidate_commit", "correct", "correctness_error", "benchmark_status", "median_us", "p10_us", "p90_us",
                  "mean_us", "std_us", "min_us", "effective_gbps", "effective_tflops", "repeat_iters"]


def harness_side(root, rng, pool, change, *, nshapes=8, traces=True, commit="abc1234", ref_change=1.0, reps=25,
                 correct_fail=None, ref_commit="", jsonl=False):
    rows = []
    for i in range(nshapes):
        m = 256 * (i + 1)
        shape = "%016x" % (0x9e3779b97f4a7c15 * (i + 1) % (1 << 64))
        args = json.dumps({"M": m, "N": 4096})
        for prov, ch in (("flydsl", change), ("aiter", ref_change)):
            base = 20.0 + 3.0 * i if prov == "flydsl" else 22.0 + 3.0 * i
            ts = sorted(calls(rng, pool, base, ch, reps))
            med = median(ts) / 1000
            ok = not (prov == "flydsl" and correct_fail == i)
            rows.append([f"run-{rng.randrange(1 << 30)}", f"sha1:{shape}", "llama3-8b", "decode", "bf16", "rmsnorm", args, prov,
                         prov, commit if prov == "flydsl" else ref_commit, "True" if ok else "False", f"{rng.uniform(0, 1e-3):.6f}",
                         "ok" if ok else "incorrect", f"{med:.4f}", f"{ts[len(ts) // 10] / 1000:.4f}",
                         f"{ts[len(ts) * 9 // 10] / 1000:.4f}", f"{sum(ts) / len(ts) / 1000:.4f}", "0.01",
                         f"{ts[0] / 1000:.4f}", f"{2e3 / med:.2f}", f"{1e2 / med:.3f}", reps])
            if traces and prov == "flydsl":
                tr = Trace()
                tr.add(FW, 4000, 16)
                for t in calls(rng, pool, base, ch, 10):
                    tr.add("rmsnorm_kernel_0", t)
                tr.write(os.path.join(root, "profiles", shape, prov, "host", "4242_kernel_trace.csv"))
                write_agent_info(os.path.join(root, "profiles", shape, prov, "host", "4242_agent_info.csv"))
    if jsonl:                        # the JSON Lines twin alone, as the runner also writes it
        conv = lambda h, v: (v == "True") if h == "correct" else (float(v) if h.endswith(("_us", "_gbps", "_tflops")) else v)
        with open(os.path.join(root, "benchmark_results.jsonl"), "w") as f:
            for r in rows:
                f.write(json.dumps({h: conv(h, v) for h, v in zip(HARNESS_HEADER, r)}) + "\n")
    else:
        write_csv(os.path.join(root, "benchmark_results.csv"), HARNESS_HEADER, rows)


def tflops_side(root, rng, pool, change, *, nshapes=12, check_fail=None, trace=False, replicates=1, check=True):
    """The general operator framework: Forward TFLOPS per shape with a Check
    column. change: a factor of the kernel time, or a function of the shape index."""
    for rep in range(replicates):
        rows = []
        tr = Trace()
        for i in range(nshapes):
            seq = 512 * (i + 1)
            ts = calls(rng, pool, 100.0 + 10 * i, change(i) if callable(change) else change, 20)
            med = median(ts) / 1000
            flops = 4 * 16 * seq * seq * 128
            rows.append([16, seq, 128, "bf16", f"{flops / (med * 1e-6) / 1e12:.3f}",
                         "FAIL" if check_fail == i else "PASS"])
            if trace:
                tr.add(FW, 3000, 16)
                for t in ts:
                    tr.add("flash_attn_func_kernel_0", t)
        sub = f"run_{rep + 1}" if replicates > 1 else ""
        header = ["batch", "seqlen", "head_dim", "dtype", "Forward TFLOPS", "Check"]
        if not check:
            header, rows = header[:-1], [r[:-1] for r in rows]
        write_csv(os.path.join(root, sub, "results.csv"), header, rows)
        if trace:
            tr.write(os.path.join(root, sub, "prof", "host_99_kernel_trace.csv"))
            write_agent_info(os.path.join(root, sub, "prof", "host_99_agent_info.csv"))


def pair(out, name, fn, best_kw, cand_kw, seed):
    rb, rc = random.Random(seed * 2 + 1), random.Random(seed * 2 + 2)
    fn(os.path.join(out, name, "best"), rb, POOL, **best_kw)
    fn(os.path.join(out, name, "cand"), rc, POOL, **cand_kw)


def const(f):
    return lambda cfg: f


# (case, expected verdict_text, extra compare arguments): the answer is stated before anything is computed.
CASES = [
    ("testpa_keep", "keep", []),
    ("testpa_tie", "tie", []),
    ("testpa_discard", "discard", []),
    ("two_kernel_auto_keep", "keep", []),
    ("two_kernel_pinned_keep", "keep", ["--kernel", "^pa_decode_ps_kernel_0$"]),
    ("reference_beside_keep", "keep", []),
    ("reference_beside_aa", "fail (ambiguous target)", []),
    ("reference_beside_pinned_tie", "tie", ["--kernel", "^pa_decode_ps_kernel_0$"]),
    ("check_fail", "fail (gate)", []),
    ("tflops_keep", "keep (benchmark)", []),
    ("tflops_discard", "discard (benchmark)", []),
    ("tflops_few_rows", "inconclusive (benchmark)", []),
    ("tflops_trace_keep", "keep", []),
    ("tflops_replicates_keep", "keep (benchmark)", []),
    ("harness_keep", "keep", []),
    ("harness_nocommit_ambiguous", "fail (ambiguous target)", []),
    ("harness_provider_option", "keep", ["--provider", "flydsl"]),
    ("harness_nocommit_traced", "keep", []),
    ("harness_all_commits", "keep", []),
    ("harness_jsonl_keep", "keep", []),
    ("harness_gate_fail", "fail (gate)", []),
    ("harness_notrace_keep", "keep (benchmark)", []),
    ("replicates_keep", "keep", []),
    ("renamed_kernel_keep", "keep", []),
    ("moved_work_discard", "discard", []),
    ("error_columns_tie", "tie", []),
    ("rocpd_casing_keep", "keep", []),
    ("pre11_keep", "keep", []),
    ("one_call_per_row", "inconclusive", []),
    ("tflops_severe_unconfirmed", "inconclusive (benchmark)", []),
    ("tflops_severe_replicates_split", "split (benchmark)", ["--class-by", "seqlen"]),
    ("nogate_refused", "inconclusive (benchmark)", []),
    ("nogate_accepted", "keep (benchmark)", ["--gate", "none"]),
    ("trace_misses_a_row", "inconclusive", []),
]


def make_all(out):
    s = 0
    def nxt():
        nonlocal s
        s += 1
        return s
    faster, slower = const(0.95), const(1.05)
    pair(out, "testpa_keep", testpa_side, dict(change=const(1.0)), dict(change=faster), nxt())
    pair(out, "testpa_tie", testpa_side, dict(change=const(1.0)), dict(change=const(1.0)), 7)
    pair(out, "testpa_discard", testpa_side, dict(change=const(1.0)), dict(change=slower), nxt())
    pair(out, "two_kernel_auto_keep", testpa_side, dict(change=const(1.0), two=True), dict(change=faster, two=True), nxt())
    pair(out, "two_kernel_pinned_keep", testpa_side, dict(change=const(1.0), two=True), dict(change=faster, two=True), nxt())
    pair(out, "reference_beside_keep", testpa_side, dict(change=const(1.0), ref=1.0), dict(change=const(0.947), ref=1.0), nxt())
    pair(out, "reference_beside_aa", testpa_side, dict(change=const(1.0), ref=1.0), dict(change=const(1.0), ref=1.0), 7)
    pair(out, "reference_beside_pinned_tie", testpa_side, dict(change=const(1.0), ref=1.0), dict(change=const(1.0), ref=0.95), 7)
    pair(out, "check_fail", testpa_side, dict(change=const(1.0), check_fail=-1), dict(change=faster, check_fail=3), nxt())
    pair(out, "tflops_keep", tflops_side, dict(change=1.0), dict(change=0.952), nxt())
    pair(out, "tflops_discard", tflops_side, dict(change=1.0), dict(change=1.05), nxt())
    pair(out, "tflops_few_rows", tflops_side, dict(change=1.0, nshapes=4), dict(change=0.95, nshapes=4), nxt())
    pair(out, "tflops_trace_keep", tflops_side, dict(change=1.0, trace=True), dict(change=0.95, trace=True), nxt())
    pair(out, "tflops_replicates_keep", tflops_side, dict(change=1.0, nshapes=4, replicates=3),
         dict(change=0.95, nshapes=4, replicates=3), nxt())
    pair(out, "harness_keep", harness_side, dict(change=1.0), dict(change=0.95), nxt())
    pair(out, "harness_nocommit_ambiguous", harness_side, dict(change=1.0, commit="", traces=False),
         dict(change=0.95, commit="", traces=False), nxt())
    pair(out, "harness_nocommit_traced", harness_side, dict(change=1.0, commit=""), dict(change=0.95, commit=""), nxt())
    pair(out, "harness_jsonl_keep", harness_side, dict(change=1.0, jsonl=True), dict(change=0.95, jsonl=True), nxt())
    pair(out, "harness_all_commits", harness_side, dict(change=1.0, commit="a1", ref_commit="a1"),
         dict(change=0.95, commit="b2", ref_commit="a1"), nxt())
    pair(out, "harness_provider_option", harness_side, dict(change=1.0, commit=""), dict(change=0.95, commit=""), nxt())
    pair(out, "harness_gate_fail", harness_side, dict(change=1.0), dict(change=0.95, correct_fail=2), nxt())
    pair(out, "harness_notrace_keep", harness_side, dict(change=1.0, traces=False), dict(change=0.95, traces=False), nxt())
    pair(out, "replicates_keep", testpa_side, dict(change=const(1.0), replicates=3), dict(change=faster, replicates=3), nxt())
    pair(out, "renamed_kernel_keep", testpa_side, dict(change=const(1.0)), dict(change=faster, rename="pa_decode_ps_v2_kernel_0"), nxt())
    pair(out, "moved_work_discard", testpa_side, dict(change=const(1.0)),
         dict(change=const(1.05), extra=("void at::native::copy_kernel<float>(float*)", 0.25)), nxt())
    pair(out, "error_columns_tie", testpa_side, dict(change=const(1.0), err_cols=True), dict(change=const(1.0), err_cols=True), 7)
    pair(out, "rocpd_casing_keep", testpa_side, dict(change=const(1.0), dialect="rocpd"), dict(change=faster, dialect="rocpd"), nxt())
    pair(out, "pre11_keep", testpa_side, dict(change=const(1.0), dialect="pre11"), dict(change=faster, dialect="pre11"), nxt())
    pair(out, "one_call_per_row", testpa_side, dict(change=const(1.0), ncalls=1), dict(change=faster, ncalls=1), nxt())
    severe = lambda i: 1.08 if i == 5 else 0.95
    pair(out, "tflops_severe_unconfirmed", tflops_side, dict(change=1.0), dict(change=severe), nxt())
    pair(out, "tflops_severe_replicates_split", tflops_side, dict(change=1.0, replicates=3), dict(change=severe, replicates=3), nxt())
    pair(out, "nogate_refused", tflops_side, dict(change=1.0, check=False), dict(change=0.95, check=False), nxt())
    pair(out, "nogate_accepted", tflops_side, dict(change=1.0, check=False), dict(change=0.95, check=False), nxt())
    # CANDIDATE's trace lacks the slowest row's calls (the CSV still has it): pooled, the
    # unchanged code would look about 8 % faster.
    pair(out, "trace_misses_a_row", testpa_side, dict(change=const(1.0)), dict(change=const(1.0), drop_row=3), nxt())
    with open(os.path.join(out, "cases.tsv"), "w") as f:
        for name, verdict, args in CASES:
            f.write("\t".join([name, verdict] + args) + "\n")


LAYOUTS = {
    "testpa": lambda root, rng, ch: testpa_side(root, rng, POOL, const(ch)),
    "harness": lambda root, rng, ch: harness_side(root, rng, POOL, ch),
    "benchmark": lambda root, rng, ch: tflops_side(root, rng, POOL, ch),
}


def study(out, n, layout, change):
    for i in range(1, n + 1):
        rb, rc = random.Random(1000003 * i + 11), random.Random(1000003 * i + 12)
        LAYOUTS[layout](os.path.join(out, f"p{i}", "best"), rb, 1.0)
        LAYOUTS[layout](os.path.join(out, f"p{i}", "cand"), rc, change)


POOL = FALLBACK_POOL
if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) >= 5 and a[0] == "--study":
        POOL = hub_pool(a[5] if len(a) > 5 else None)
        study(a[1], int(a[2]), a[3], float(a[4]))
    elif len(a) in (1, 2):
        POOL = hub_pool(a[1] if len(a) > 1 else None)
        make_all(a[0])
    else:
        sys.exit(__doc__)
