#!/bin/bash
# kreport compare on the files real optimization loops write (docs/compare.md):
# BEST/CANDIDATE pairs from tests/tools/loop_pairs.py in every layout (test_pa
# CSV + trace, two-kernel calls pinned and unpinned, a kernel beside its
# reference, per-shape harness traces, TFLOPS + Check with and without a trace,
# replicate runs, rocpd-convert casing, pre-1.1 traces, a renamed kernel, work
# moved into an extra kernel, error-size columns, one call per row, severe rows,
# no gate column). Each case's verdict is stated in loop_pairs.py's CASES before
# anything is computed; the checks below recompute the figures behind them.
# Call times are the hub's real warm calls resampled when the fixture is there.
set -u
bin="$KR_BIN"; src="$KR_SRC"; hub="${KR_HUB:-}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok()  { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*"; }
jq_() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
schema="$src/report/schema/compare.schema.json"
check="$src/tests/tools/schema_check.py"

if [ -n "$hub" ] && [ -f "$hub/examples/pa_mqa_logits_fp4/compute_viewer/discover_kernel_trace.csv" ]; then
    python3 "$src/tests/tools/loop_pairs.py" "$tmp/p" "$hub" || { echo "loop_pairs.py failed"; exit 1; }
else
    echo "loops: hub fixture not found; call times from the fixed jitter list instead of the hub's real warm calls"
    python3 "$src/tests/tools/loop_pairs.py" "$tmp/p" || { echo "loop_pairs.py failed"; exit 1; }
fi
p="$tmp/p"
declare -A exit_of=([keep]=0 [tie]=1 [discard]=1 [inconclusive]=6 [split]=7 [fail]=8)
while IFS=$'\t' read -r name want rest; do
    args=()
    [ -n "$rest" ] && IFS=$'\t' read -ra args <<<"$rest"
    j="$p/$name.json"
    "$bin" compare "$p/$name/best" "$p/$name/cand" --format json "${args[@]}" >"$j" 2>"$tmp/err" \
        || { bad "$name: compare failed: $(head -c 300 "$tmp/err")"; continue; }
    got=$(jq_ "$j" 'd["verdict_text"]')
    [ "$got" = "$want" ] && ok || bad "$name: verdict '$got', want '$want': $(jq_ "$j" 'd["reasons"][0]["text"]' | head -c 400)"
    python3 "$check" "$schema" "$j" >/dev/null && ok || bad "$name: compare.json does not match the schema"
    "$bin" compare "$p/$name/best" "$p/$name/cand" --format json --exit-code "${args[@]}" >/dev/null 2>&1
    rc=$?
    [ "$rc" = "${exit_of[${want%% *}]}" ] && ok || bad "$name: --exit-code $rc for $want"
    # No placeholder numbers and no "more warm calls" where more calls cannot help (docs/compare.md).
    grep -q '"p = -1\|p = -1' "$j" && bad "$name: placeholder p" || ok
done <"$p/cases.tsv"

J() { jq_ "$p/$1.json" "$2"; }
# Two kernels per call, auto-picked: the reduce kernel joins every call (companion); 8 rows x 9 calls,
# the first of each row cold: 64 warm calls a side.
[ "$(J two_kernel_auto_keep 'd["timing"]["target"]["companions"], d["timing"]["global"]["n_best"], d["timing"]["row_aligned"]')" = \
  "(['pa_decode_sw_reduce_kernel_0'], 64, True)" ] && ok || bad "two-kernel auto: companion or call count"
# Pinned to one kernel: the reduce kernel neither breaks a segment nor counts (64 warm calls, 8 segments).
[ "$(J two_kernel_pinned_keep 'd["timing"]["target"]["kernels"], d["timing"]["target"]["untimed_companions"], d["timing"]["global"]["n_best"], d["timing"]["best"]["segments"]')" = \
  "(['pa_decode_ps_kernel_0'], ['pa_decode_sw_reduce_kernel_0'], 64, 8)" ] && ok || bad "two-kernel pinned: $(J two_kernel_pinned_keep 'd["timing"]["best"]')"
# A kernel beside its reference: the one that changed is measured, the reference ties.
[ "$(J reference_beside_keep 'd["timing"]["target"]["kernels"], d["timing"]["target"]["resolved_by_change"], [s["group"]["outcome"] for s in d["timing"]["target"]["candidate_sets"]]')" = \
  "(['pa_decode_ps_kernel_0'], True, ['tie', 'improved'])" ] && ok || bad "reference beside: $(J reference_beside_keep 'd["timing"]["target"]')"
# A/A beside a reference: nothing changed, so nothing tells which kernel is under work: the flags are named.
J reference_beside_aa 'd["reasons"][0]["text"]' | grep -q -- "--kernel '^pa_decode_ps_kernel_0\$'" && ok || bad "ambiguous: flags not named"
[ "$(J reference_beside_aa 'd["fail_kind"], d["exit_code"]')" = "('ambiguous_target', 8)" ] && ok || bad "ambiguous: fail kind"
# Check=FAIL on the 4th row: the gate names Check, row 4.
[ "$(J check_fail '[(f["column"], f["row"], f["value"]) for f in d["gate"]["failures"]]')" = "[('Check', 4, 'FAIL')]" ] \
    && ok || bad "Check gate: $(J check_fail 'd["gate"]')"
# TFLOPS: higher is better, compared as 1/x; the geometric mean of the per-row time-like ratios
# recomputed from the two CSVs.
python3 - "$p/tflops_keep" "$p/tflops_keep.json" <<'PY' && ok || bad "TFLOPS: direction or geometric mean"
import csv, json, math, sys
d = json.load(open(sys.argv[2]))
rd = lambda s: [float(r["Forward TFLOPS"]) for r in csv.DictReader(open(f"{sys.argv[1]}/{s}/results.csv"))]
b, c = rd("best"), rd("cand")
g = math.exp(sum(math.log(x / y) for x, y in zip(b, c)) / len(b)) - 1     # time-like: best / cand
assert d["benchmark"]["metric_direction"] == "higher" and d["script_metric"]["column"] == "Forward TFLOPS", d["benchmark"]
assert d["benchmark"]["method"] == "signed_rank"
assert abs(d["timing"]["global"]["r"] - g) < 1e-9, (d["timing"]["global"]["r"], g)
assert all(y > x for x, y in zip(b, c))            # every row faster: the exact signed-rank p is 2 / 2^12
assert abs(d["timing"]["global"]["p"] - 2 / 2 ** 12) < 1e-12, d["timing"]["global"]["p"]
PY
# Fewer than 6 rows and no replicates: inconclusive, asking for replicates, never for more warm calls.
J tflops_few_rows 'd["reasons"][0]["text"]' | grep -q "replicates" && ok || bad "few rows: no replicate advice"
J tflops_few_rows 'd["reasons"][0]["text"]' | grep -q "warm call" && bad "few rows: asks for warm calls" || ok
[ "$(J tflops_few_rows 'd["need_more"]')" = "None" ] && ok || bad "few rows: need_more is set"
# Replicates (3 runs a side) decide on 4 rows.
[ "$(J tflops_replicates_keep 'd["benchmark"]["method"], d["benchmark"]["replicates"]')" = "('replicates', {'best': 3, 'candidate': 3})" ] \
    && ok || bad "replicates: not pooled"
# The harness: flydsl is under test (it carries the candidate_commit), 8 per-shape traces a side map to their rows.
[ "$(J harness_keep 'd["benchmark"]["provider"], d["benchmark"]["provider_source"], d["timing"]["per_shape_traces"], d["timing"]["row_aligned"], d["benchmark"]["config_columns"]')" = \
  "('flydsl', 'candidate_commit', 16, True, ['shape_id'])" ] && ok || bad "harness: $(J harness_keep 'd["benchmark"]["provider"], d["timing"]["per_shape_traces"]')"
J harness_nocommit_ambiguous 'd["reasons"][0]["text"]' | grep -q -- "--provider flydsl" && ok || bad "harness ambiguous: flag not named"
# Work moved into an extra framework kernel inside each call still counts, and is named.
J moved_work_discard 'd["timing"]["target"]["companions"]' | grep -q "at::native::copy_kernel" && ok || bad "moved work not counted"
# Error-size columns are results: never config, never gate.
[ "$(J error_columns_tie '[c for c in d["benchmark"]["config_columns"] if c in ("max_err", "min_cos")], d["gate"]["columns_candidate"]')" = \
  "([], ['err_flydsl_ps', 'err_gluon'])" ] && ok || bad "error-size columns"
# One call per row: more iterations cannot decide, and no "more warm calls" is promised.
[ "$(J one_call_per_row 'd["more_calls_cannot_decide"], d["need_more"], d["reasons"][0]["id"]')" = "(True, None, 'one_call_per_row')" ] \
    && ok || bad "one call per row: $(J one_call_per_row 'd["reasons"]')"
# A shape 8 % slower while the others gain 5 %: a warning without noise estimate, a split with replicates.
[ "$(J tflops_severe_unconfirmed 'd["benchmark"]["severe_rows"][0].startswith("batch=16, seqlen=3072"), d["benchmark"]["severe_rows_beyond_noise"]')" = "(True, False)" ] \
    && ok || bad "severe row: $(J tflops_severe_unconfirmed 'd["benchmark"]["severe_rows"]')"
[ "$(J tflops_severe_replicates_split 'd["benchmark"]["severe_rows_beyond_noise"], d["reasons"][0]["id"]')" = "(True, 'severe_row')" ] \
    && ok || bad "severe row with replicates"
J nogate_refused 'd["reasons"][0]["text"]' | grep -q -- "--gate COL" && ok || bad "no gate: flag not named"
[ "$(J trace_misses_a_row 'd["reasons"][0]["id"], d["timing"]["best"]["segments"], d["timing"]["candidate"]["segments"]')" = "('rows_not_lined_up', 8, 7)" ] \
    && ok || bad "a trace missing a row: $(J trace_misses_a_row 'd["reasons"]')"

# The same CANDIDATE as a rocpd database (ROCm 7's default output) instead of CSVs, for each
# schema version: the same verdict and figures, and no false "different card" warning.
for v in 3 3.0.3 4.1.0; do
    db="$tmp/db_$v"
    rm -rf "$db" && cp -r "$p/testpa_keep/cand" "$db"
    python3 "$src/tests/tools/mkrocpd.py" "$db/prof/host_1234_results.db" --schema "$v" \
        --trace "$db/prof/host_1234_kernel_trace.csv" --agents "$db/prof/host_1234_agent_info.csv" >/dev/null \
        && rm "$db/prof/host_1234_kernel_trace.csv" "$db/prof/host_1234_agent_info.csv" \
        || { bad "mkrocpd $v failed"; continue; }
    "$bin" compare "$p/testpa_keep/best" "$db" --format json >"$tmp/db.json" 2>"$tmp/err" || { bad "rocpd $v: $(cat "$tmp/err")"; continue; }
    [ "$(jq_ "$tmp/db.json" 'd["verdict_text"], round(d["timing"]["global"]["r"], 12), [w["id"] for w in d["warnings"] if w["id"] == "different_card"]')" = \
      "$(J testpa_keep 'd["verdict_text"], round(d["timing"]["global"]["r"], 12), []')" ] && ok || bad "rocpd $v: verdict or figures differ from the CSV run"
done

# A metric whose direction the name does not tell is refused (usage, exit 2) naming both flags.
"$bin" compare "$p/tflops_keep/best" "$p/tflops_keep/cand" --metric seqlen >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q -- "--higher-is-better" "$tmp/err" && grep -q -- "--lower-is-better" "$tmp/err" && ok || bad "unknown direction: $(cat "$tmp/err")"
"$bin" compare "$p/tflops_keep/best" "$p/tflops_keep/cand" --metric "Forward TFLOPS" --lower-is-better --format json >"$tmp/j" 2>/dev/null
[ "$(jq_ "$tmp/j" 'd["verdict"]')" = "discard" ] && ok || bad "--lower-is-better on TFLOPS: a gain read as a time is a regression"

echo "loops: $pass passed, $fail failed"
[ "$fail" = 0 ]
