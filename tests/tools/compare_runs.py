#!/usr/bin/env python3
"""Run directories for the `kreport compare` tests, written from small tables
whose verdict follows from docs/compare.md's rules by hand (tests/golden/compare/README.md
gives the derivation of each case).

usage: compare_runs.py OUTDIR            writes OUTDIR/<case>/{best,cand}
       compare_runs.py --aa TRACE OUTDIR  A/A pairs from a real kernel trace

Each side is a run directory in docs/compare.md#discovery's shape: bench/<csv>,
prof/<prefix>_kernel_trace.csv, prof/<prefix>_agent_info.csv, run.meta.
Timing: one trace segment per benchmark row (k = 1), a framework kernel
between segments, CALLS calls per segment of which the first is cold (12 %
slower). Warm call i of a row takes base × factor × (1 + JITTER[i]) ns; the
candidate uses the jitter list reversed, so equal factors give equal
multisets of call times."""
import csv
import os
import sys

TRACE_HEADER = ["Kind", "Agent_Id", "Queue_Id", "Stream_Id", "Thread_Id", "Dispatch_Id", "Kernel_Id", "Kernel_Name",
                "Correlation_Id", "Start_Timestamp", "End_Timestamp", "LDS_Block_Size", "Scratch_Size", "VGPR_Count",
                "Accum_VGPR_Count", "SGPR_Count", "Workgroup_Size_X", "Workgroup_Size_Y", "Workgroup_Size_Z",
                "Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z"]
JITTER = [-0.003, 0.002, -0.001, 0.004, 0.0, -0.002, 0.001, 0.003]   # ±0.4 %, spread 0.7 %
SEPARATOR = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >(int)"
COLD = 1.12


def write_trace(path, dispatches):
    """dispatches: (kernel name, duration ns, vgpr) in order; starts 4 us apart."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    t = 2011851578225778
    kernel_ids = {}
    with open(path, "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
        w.writerow(TRACE_HEADER)
        for i, (name, dur, vgpr) in enumerate(dispatches, 1):
            dur = int(round(dur))
            w.writerow(["KERNEL_DISPATCH", "Agent 2", 1, 0, 635704, i, kernel_ids.setdefault(name, len(kernel_ids) + 1), name, i,
                        t, t + dur, 16384, 0, vgpr, 0, 48, 256, 1, 1, 131072, 1, 1])
            t += dur + 4000


def write_agent_info(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
        w.writerow(["Node_Id", "Logical_Node_Id", "Agent_Type", "Cu_Count", "Gpu_Id", "Location_Id",
                    "Drm_Render_Minor", "Name", "Product_Name"])
        w.writerow([0, 0, "CPU", 0, 0, 0, 0, "AMD EPYC", "AMD EPYC"])
        w.writerow([2, 2, "GPU", 256, 51234, 1024, 128, "gfx950", "AMD Instinct MI350X"])


def write_csv(path, header, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        for r in rows:
            w.writerow(r)


def write_meta(path, items):
    with open(path, "w") as f:
        for k, v in items:
            f.write(f"{k}={v}\n")


BENCH_HEADER = ["block_size", "query_length", "num_heads", "us_gluon", "err_gluon", "us_flydsl_ps", "err_flydsl_ps",
                "flydsl_ps_max_diff", "flydsl_ps_max_diff_thr"]


def configs(qlens=(1, 2)):
    return [(bs, q, nh) for bs in (16, 1024) for q in qlens for nh in ("(8, 1)", "(16, 1)")]


def base_us(bs, q, nh):
    """Per-row base GPU time (µs): block 16 rows slower than block 1024 rows, more heads slower."""
    b = (59.5 + 8.0 * (q - 1)) if bs == 16 else (45.1 + 5.5 * (q - 1))
    return b * (1.2 if nh == "(16, 1)" else 1.0)


def kernels_for(bs, two_kernels):
    if not two_kernels:
        return [("pa_decode_ps_kernel_0", 1.0)]
    if bs == 16:
        return [("pa_decode_ps_kernel_0", 0.8), ("pa_decode_sw_reduce_kernel_0", 0.2)]
    return [("pa_decode_metadata_kenrel_0", 0.85), ("pa_ps_reduce_kernel_0", 0.15)]


def side(root, rows, factor, cand, calls=9, two_kernels=False, script=None, err=None, meta=(), vgpr=96,
         warm=None):
    """rows: configs; factor(cfg) → GPU time factor; script(cfg) → us_flydsl_ps factor; err(cfg) → err value."""
    dispatches, bench = [], []
    jit = list(reversed(JITTER)) if cand else JITTER
    for cfg in rows:
        bs, q, nh = cfg
        base = base_us(*cfg) * 1000.0 * factor(cfg)
        times = warm(cfg, cand) if warm else [base * COLD] + [base * (1 + jit[i % len(jit)]) for i in range(calls - 1)]
        for t in times:
            for name, share in kernels_for(bs, two_kernels):
                dispatches.append((name, t * share, vgpr))
        dispatches.append((SEPARATOR, 7000, 16))
        gpu = base_us(*cfg)
        s = script(cfg) if script else factor(cfg)
        e = err(cfg) if err else 0
        bench.append([bs, q, nh, f"{gpu * 1.2:.2f}", 0, f"{gpu * 1.13 * s:.2f}", e,
                      "0.1875" if e else "0.0078125", "0.0039"])
    write_csv(os.path.join(root, "bench", "run_pa_decode_ps_test.block_size_16.csv"), BENCH_HEADER, bench)
    write_trace(os.path.join(root, "prof", "discover_kernel_trace.csv"), dispatches)
    write_agent_info(os.path.join(root, "prof", "discover_agent_info.csv"))
    write_meta(os.path.join(root, "run.meta"), meta)


def case(out, name, **kw):
    best_kw = {k: v for k, v in kw.items() if not k.startswith("c_")}
    best_kw.setdefault("factor", lambda c: 1.0)
    cand_kw = dict(best_kw)
    for k, v in kw.items():
        if k.startswith("c_"):
            cand_kw[k[2:]] = v
    side(os.path.join(out, name, "best"), cand=False,
         meta=[("commit", "a1b2c3d"), ("exit_code", "0"), ("command", "python tests/kernels/test_pa.py")],
         **{k: v for k, v in best_kw.items() if k != "meta"})
    side(os.path.join(out, name, "cand"), cand=True, **cand_kw)


CAND_META = [("commit", "3f9c2ab"), ("exit_code", "0"), ("command", "python tests/kernels/test_pa.py"),
             ("started", "2026-06-12T14:03"), ("attempt", "14"),
             ("hypothesis", "issue next partition's K loads before softmax"),
             ("files", "kernels/attention/pa_decode_fp8.py")]


def make_all(out):
    rows = configs()
    one = lambda f: (lambda c: f)
    # keep: every call 5 % faster (all candidate values below all BEST values).
    case(out, "keep", rows=rows, c_factor=one(0.95), meta=CAND_META)
    # tie: the same multiset of call times per row.
    case(out, "tie", rows=rows, c_factor=one(1.0), meta=CAND_META)
    # discard: every call 3 % slower; the script metric says 0.6 % faster.
    case(out, "discard", rows=rows, c_factor=one(1.03), c_script=one(0.994), c_vgpr=132, meta=CAND_META)
    # tie (faster): 0.5 % faster, jitter 10x smaller, so every candidate call is below every BEST call.
    small = lambda cfg, cand: [base_us(*cfg) * 1000 * (0.995 if cand else 1.0) * (COLD if i == 0 else
                               1 + (list(reversed(JITTER)) if cand else JITTER)[(i - 1) % 8] / 10) for i in range(9)]
    case(out, "tie_faster", rows=rows, warm=small, meta=CAND_META)
    # inconclusive: docs/compare.md#worked-examples, one config, 6 calls per side (the first cold).
    b64 = [35.0, 30.42, 30.31, 30.55, 30.38, 31.90]
    c64 = [35.0, 29.95, 30.10, 30.62, 29.88, 30.01]
    case(out, "inconclusive", rows=[(16, 1, "(8, 1)")], warm=lambda cfg, cand: [x * 1000 for x in (c64 if cand else b64)],
         c_script=one(0.986), meta=CAND_META)
    # split: block 1024 with query_length 1, 2 improve (−9 %, −4 %), query_length 3 regresses (+3 %), block 16 ties.
    rows3 = configs((1, 2, 3))
    f = {(1024, 1): 0.91, (1024, 2): 0.96, (1024, 3): 1.03}
    case(out, "split", rows=rows3, two_kernels=True, c_factor=lambda c: f.get((c[0], c[1]), 1.0), meta=CAND_META)
    # gate: the keep data, but err_flydsl_ps = 1 on row (16, 2, (16, 1)) and the harness exited 1.
    case(out, "gate", rows=rows, c_factor=one(0.95), c_err=lambda c: 1 if c == (16, 2, "(16, 1)") else 0,
         meta=[m if m[0] != "exit_code" else ("exit_code", "1") for m in CAND_META])


def make_aa(trace, out):
    """Two A/A pairs from one real kernel trace: its rows split into the first and
    second half of the file, and into odd and even rows."""
    with open(trace, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    halves = {"aa_halves": (body[:len(body) // 2], body[len(body) // 2:]),
              "aa_alternate": (body[0::2], body[1::2])}
    for name, (a, b) in halves.items():
        for sname, part in (("best", a), ("cand", b)):
            path = os.path.join(out, name, sname, "discover_kernel_trace.csv")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", newline="") as f:
                w = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
                w.writerow(header)
                for r in part:
                    w.writerow([int(x) if x.isdigit() else x for x in r])


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--aa":
        make_aa(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 2:
        make_all(sys.argv[1])
    else:
        sys.exit(__doc__)
