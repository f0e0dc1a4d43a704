#!/usr/bin/env python3
"""Independent recomputation of a `kreport compare` result on the run
directories written by compare_runs.py (docs/compare.md#deciding-metric, docs/compare.md#overall-verdict), by brute
force: every pairwise difference is materialized and sorted, the exact null
distribution of U is counted with integers, the verdict rules are applied
from the table in docs/compare.md. Checks the global group and every class group
(n, r, lo, hi, p, outcome) and the verdict in compare.json.

usage: compare_check.py CASE_DIR COMPARE_JSON [KERNEL_PREFIX]
exit 1 with a message on the first difference."""
import csv
import json
import math
import sys
from functools import lru_cache

THETA, ALPHA = 0.01, 0.05
SEPARATOR_PREFIX = "void at::native::"


def read_trace(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return [(r["Kernel_Name"], int(r["End_Timestamp"]) - int(r["Start_Timestamp"])) for r in rows]


def calls_per_row(trace, prefix):
    """Segments separated by a framework kernel; a call starts at each dispatch
    of the segment's first kernel; returns a list of segments of call times."""
    segs, cur, first, call = [], [], None, None
    for name, dur in trace:
        if name.startswith(prefix):
            if first is None:
                first = name
            if name == first:
                if call is not None:
                    cur.append(call)
                call = 0
            call += dur
        else:
            if call is not None:
                cur.append(call)
            if cur:
                segs.append(cur)
            cur, first, call = [], None, None
    if call is not None:
        cur.append(call)
    if cur:
        segs.append(cur)
    return segs


@lru_cache(maxsize=None)
def count(m, n, u):
    """Arrangements of m X and n Y with U = u (Y above X pairs)."""
    if u < 0:
        return 0
    if m == 0 or n == 0:
        return 1 if u == 0 else 0
    return count(m - 1, n, u - n) + count(m, n - 1, u)


def shift(x, y):
    d = sorted(b - a for a in x for b in y)
    N = len(d)
    hl = d[N // 2] if N % 2 else (d[N // 2 - 1] + d[N // 2]) / 2
    u = sum(1 for a in x for b in y if b > a) + 0.5 * sum(1 for a in x for b in y if b == a)
    m, n = len(x), len(y)
    if N <= 2500:
        total = math.comb(m + n, m)
        cdf, acc = [], 0
        for v in range(N + 1):
            acc += count(m, n, v)
            cdf.append(acc / total)
        k = 0
        for v in range(N + 1):
            if cdf[v] <= ALPHA / 2 + 1e-12:
                k = v + 1
            else:
                break
        t = math.ceil(min(u, N - u))
        p = min(1.0, 2 * cdf[t])
    else:
        pooled = sorted(x + y)
        ties, i = 0, 0
        while i < len(pooled):
            j = i
            while j < len(pooled) and pooled[j] == pooled[i]:
                j += 1
            t = j - i
            ties += t ** 3 - t
            i = j
        NN = m + n
        mu = N / 2
        sigma = math.sqrt(N / 12 * ((NN + 1) - ties / (NN * (NN - 1))))
        z = 1.959963984540054
        k = max(0, math.floor(mu - 0.5 - z * sigma) + 1)
        zz = max(0.0, (abs(u - mu) - 0.5) / sigma)
        p = min(1.0, math.erfc(zz / math.sqrt(2)))
    lo = d[k - 1] if k else None
    hi = d[N - k] if k else None
    return hl, lo, hi, p, k


def outcome(r, lo, hi, bounded):
    if not bounded:
        return "inconclusive"
    if hi < 0 and r <= -THETA:
        return "improved"
    if lo > 0 and r >= THETA:
        return "regressed"
    if hi < 0:
        return "tie_faster"
    if lo > 0:
        return "tie_slower"
    if lo >= -THETA and hi <= THETA:
        return "tie"
    return "inconclusive"


def group(best_rows, cand_rows, rows):
    """best_rows/cand_rows: row → warm call times; rows: the group's rows."""
    x, y = [], []
    for r in rows:
        logs = sorted(math.log(t) for t in best_rows[r])
        n = len(logs)
        med = logs[n // 2] if n % 2 else (logs[n // 2 - 1] + logs[n // 2]) / 2
        x += [math.log(t) - med for t in best_rows[r]]
        y += [math.log(t) - med for t in cand_rows[r]]
    hl, lo, hi, p, k = shift(x, y)
    bounded = k > 0 and len(x) >= 4 and len(y) >= 4
    r = math.exp(hl) - 1
    lo = math.exp(lo) - 1 if k else None
    hi = math.exp(hi) - 1 if k else None
    return {"n_best": len(x), "n_candidate": len(y), "r": r, "lo": lo, "hi": hi, "p": p,
            "outcome": outcome(r, lo, hi, bounded)}


def near(a, b, what):
    if a is None or b is None:
        if a is not b:
            sys.exit(f"compare_check: {what}: {a} vs {b}")
        return
    if abs(a - b) > 1e-9 * max(1.0, abs(a)):
        sys.exit(f"compare_check: {what}: recomputed {a!r}, compare.json {b!r}")


def main():
    case, js = sys.argv[1], json.load(open(sys.argv[2]))
    prefix = sys.argv[3] if len(sys.argv) > 3 else "pa_"
    bench = {}
    for side in ("best", "cand"):
        with open(f"{case}/{side}/bench/run_pa_decode_ps_test.block_size_16.csv", newline="") as f:
            bench[side] = list(csv.DictReader(f))
    gate_fail = any(float(r[c]) != 0 for r in bench["cand"] for c in r if c.startswith("err_"))
    if gate_fail:
        if js["verdict"] != "fail" or js["fail_kind"] != "gate":
            sys.exit(f"compare_check: gate failure expected, got {js['verdict']}")
        if js["timing"]["global"]["evaluated"]:
            sys.exit("compare_check: GPU time must be 'not evaluated' after a gate failure")
        print("compare_check: fail (gate) as recomputed")
        return
    segs = {s: calls_per_row(read_trace(f"{case}/{s}/prof/discover_kernel_trace.csv"), prefix) for s in ("best", "cand")}
    nrows = len(bench["best"])
    assert len(segs["best"]) == nrows == len(segs["cand"]), "one segment per row expected"
    warm = {s: {i: segs[s][i][1:] for i in range(nrows)} for s in segs}
    key = lambda r: (r["block_size"], r["query_length"])
    classes = []
    for i, r in enumerate(bench["best"]):
        if key(r) not in classes:
            classes.append(key(r))
    g = group(warm["best"], warm["cand"], list(range(nrows)))
    jg = js["timing"]["global"]
    for f in ("r", "lo", "hi", "p"):
        near(g[f], jg[f], f"global {f}")
    if (g["n_best"], g["n_candidate"], g["outcome"]) != (jg["n_best"], jg["n_candidate"], jg["outcome"]):
        sys.exit(f"compare_check: global {g} vs {jg}")
    outs = []
    for ci, ck in enumerate(classes):
        rows = [i for i, r in enumerate(bench["best"]) if key(r) == ck]
        c = group(warm["best"], warm["cand"], rows)
        jc = js["classes"][ci]
        if jc["label"] != f"block_size={ck[0]}, query_length={ck[1]}":
            sys.exit(f"compare_check: class {ci} is {jc['label']}")
        for f in ("r", "lo", "hi", "p"):
            near(c[f], jc[f], f"class {jc['label']} {f}")
        if c["outcome"] != jc["outcome"]:
            sys.exit(f"compare_check: class {jc['label']}: {c['outcome']} vs {jc['outcome']}")
        outs.append(c["outcome"])
    # docs/compare.md#overall-verdict, steps 3-5 without --target-class or --prev.
    if "improved" in outs and "regressed" in outs:
        verdict = "split"
    elif g["outcome"] == "regressed" or "regressed" in outs:
        verdict = "discard"
    elif g["outcome"] == "improved":
        verdict = "keep"
    elif g["outcome"] == "inconclusive":
        verdict = "inconclusive"
    else:
        verdict = "tie"
    if verdict != js["verdict"]:
        sys.exit(f"compare_check: verdict {verdict} recomputed, {js['verdict']} in compare.json")
    print(f"compare_check: {verdict}; global r {g['r'] * 100:+.3f} % [{(g['lo'] or 0) * 100:+.3f}, "
          f"{(g['hi'] or 0) * 100:+.3f}], p {g['p']:.3g}; {len(classes)} classes as recomputed")


if __name__ == "__main__":
    main()
