#!/bin/bash
# kreport analyze RUN: run directories written by tests/tools/run_dirs.py
# (test_pa style, benchmark only, a failing gate, an ambiguous pick, the hub
# harness) checked against answers computed from their construction
# (tests/tools/run_check.py), the schema, --row, -o, archives, runs with and
# without captures (kreport synth), usage and input errors, and the hub
# fixture's real kernel traces and capture (docs/occupancy.md#worked-examples, docs/occupancy.md#worked-examples).
set -u
bin="$KR_BIN"; src="$KR_SRC"; hub="${KR_HUB:-}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok()  { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*"; }
expect_rc() {  # want cmd...
    local want=$1; shift
    "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
    if [ "$rc" = "$want" ]; then ok; else bad "exit $rc (want $want): $* :: $(head -c 300 "$tmp/err")"; fi
}
jq_() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
schema="$src/report/schema/analysis.schema.json"
check="$src/tests/tools/schema_check.py"
r="$tmp/runs"
python3 "$src/tests/tools/run_dirs.py" "$r" || { echo "run_dirs.py failed"; exit 1; }

# ---- answers by construction, schema ----
for c in testpa benchonly gatefail twoloops hub; do
    expect_rc 0 "$bin" analyze "$r/$c" --format json
    cp "$tmp/out" "$tmp/$c.json"
    python3 "$src/tests/tools/run_check.py" "$r/expected.json" "$c" "$tmp/$c.json" && ok || bad "$c: figures differ from the construction"
    python3 "$check" "$schema" "$tmp/$c.json" && ok || bad "$c: analysis.json does not match the schema"
done
expect_rc 0 "$bin" analyze "$r/twoloops" --kernel '^kernel_b_0$' --format json
cp "$tmp/out" "$tmp/pinned.json"
python3 "$src/tests/tools/run_check.py" "$r/expected.json" twoloops_pinned "$tmp/pinned.json" && ok || bad "twoloops: --kernel does not pin"
# The hub harness CSV: its figures are checked once discovery reads it as a benchmark CSV (docs/compare.md#hub-harness).
if [ "$(jq_ "$tmp/hub.json" 'd["run"]["benchmark"] is None')" = True ]; then
    echo "analyze_run: benchmark_results.csv (median_us, correct) is not read as a benchmark CSV (no us_* or err_* column): only its trace is checked"
else
    [ "$(jq_ "$tmp/hub.json" 'round(d["run"]["benchmark"]["metric_stats"]["mean"], 6)')" != None ] && ok || bad "hub: no metric"
fi

# ---- REPORT.md: summary first, the row, the capture advice ----
expect_rc 0 "$bin" analyze "$r/testpa"
md="$tmp/out"
head -1 "$md" | grep -qx '# Run testpa — pa_decode_ps_kernel_0' && ok || bad "REPORT.md does not start with the run and its target"
sed -n 3p "$md" | grep -q '^\*\*Target kernel set:\*\* `pa_decode_ps_kernel_0`' && ok || bad "summary is not first"
grep -qF "$(jq_ "$tmp/testpa.json" 'd["run"]["row"]["text"]')" "$md" && ok || bad "REPORT.md lacks the baseline row"
grep -qF -- "--kernel-include-regex '^pa_decode_ps_kernel_0\$'" "$md" && ok || bad "no capture command for the target kernel"
grep -qF 'rocprofv3 --att' "$md" && ok || bad "no rocprofv3 --att command"
grep -q 'cannot tell whether rocprofv3 under-reported' "$md" && ok || bad "gfx950 AGPR 0 without a capture: the under-report is not said to be open"
for sect in '## Kernels' '## Calls of the target kernel set' '## Registers, LDS and occupancy limits' '## Config classes' '## Captures' '## Files'; do
    grep -qx "$sect" "$md" && ok || bad "REPORT.md lacks '$sect'"
done
expect_rc 0 "$bin" analyze "$r/twoloops"
grep -q '^\*\*Target ambiguous:\*\*' "$tmp/out" && ok || bad "ambiguous pick not said"
grep -qF "\`--kernel '^kernel_a_0\$'\`" "$tmp/out" && ok || bad "ambiguous pick: no --kernel flag for kernel_a_0"
expect_rc 0 "$bin" analyze "$r/benchonly"
grep -q '^\*\*No kernel trace\*\*' "$tmp/out" && ok || bad "benchmark-only: the missing trace is not said"
grep -qF 'rocprofv3 --kernel-trace --stats -f csv' "$tmp/out" && ok || bad "benchmark-only: no profiling command"

# ---- --row ----
expect_rc 0 "$bin" analyze "$r/testpa" --row
want=$(jq_ "$tmp/testpa.json" 'd["run"]["row"]["text"]')
[ "$(cat "$tmp/out")" = "$want" ] && ok || bad "--row prints '$(cat "$tmp/out")', analysis.json has '$want'"
[ "$(wc -l <"$tmp/out")" = 1 ] && ok || bad "--row is not one line"
expect_rc 0 "$bin" analyze "$r/testpa" --row --commit abc1234 --note 'first baseline'
cut -d'|' -f3,11 "$tmp/out" | grep -qx ' abc1234 | first baseline ' && ok || bad "--commit/--note not in the row: $(cat "$tmp/out")"
expect_rc 0 "$bin" analyze "$r/testpa" --row -o "$tmp/o1" -q
[ "$(cat "$tmp/out")" = "$want" ] && [ -f "$tmp/o1/REPORT.md" ] && [ -f "$tmp/o1/analysis.json" ] && ok || bad "--row with -o"
cmp -s "$tmp/o1/analysis.json" "$tmp/testpa.json" && ok || bad "-o analysis.json differs from --format json"
[ "$(ls "$tmp/o1" | wc -l)" = 2 ] && ok || bad "-o wrote other files than REPORT.md and analysis.json: $(ls "$tmp/o1")"
expect_rc 4 "$bin" analyze "$r/testpa" -o "$tmp/o1" -q
expect_rc 0 "$bin" analyze "$r/testpa" -o "$tmp/o1" -q --force
# Deterministic.
"$bin" analyze "$r/testpa" --format json >"$tmp/again.json" 2>/dev/null
cmp -s "$tmp/again.json" "$tmp/testpa.json" && ok || bad "output not deterministic"

# ---- an archive of a run ----
(cd "$r" && tar czf "$tmp/testpa.tar.gz" testpa)
expect_rc 0 "$bin" analyze "$tmp/testpa.tar.gz" --format json
cmp -s "$tmp/out" "$tmp/testpa.json" && ok || bad "an archive of the run does not give the folder's analysis.json"

# ---- with and without captures (kreport synth) ----
"$bin" synth "$tmp/syn" --layout run -q || bad "synth --layout run"
cp "$r/testpa/bench/"*.csv "$tmp/syn/"
expect_rc 0 "$bin" analyze "$tmp/syn" -o "$tmp/so" -q
python3 "$check" "$schema" "$tmp/so/analysis.json" && ok || bad "synth run: schema"
[ "$(jq_ "$tmp/so/analysis.json" '[c["status"] for c in d["run"]["captures"]].count("analyzed"), len(d["captures"])')" = "(1, 1)" ] \
    && ok || bad "synth run: the capture of the target is not analyzed"
[ "$(jq_ "$tmp/so/analysis.json" 'd["run"]["target"]["kernels"][0]["register_source"]')" = capture ] && ok || bad "synth run: registers not settled by the capture"
[ "$(jq_ "$tmp/so/analysis.json" 'd["run"]["timing"]["att_pass"]')" = True ] && ok || bad "synth run: the ATT-pass trace is not said"
grep -q 'The analysis of 1 capture follows' "$tmp/so/REPORT.md" && ok || bad "synth run: REPORT.md does not announce the capture analysis"
grep -q '^## Stalls\|^## Where the waves wait\|^## Hotspots\|^## Hot' "$tmp/so/REPORT.md" && ok || bad "synth run: REPORT.md lacks the capture analysis"
! grep -qF 'rocprofv3 --att' "$tmp/so/REPORT.md" && ok || bad "synth run: asks for a capture it has"

# ---- kreport info RUN ----
expect_rc 0 "$bin" info "$r/testpa" "$r/twoloops"
grep -qx "  target        pa_decode_ps_kernel_0: 64 warm calls, median $(jq_ "$r/expected.json" '"%.2f" % d["testpa"]["warm_median_us"]') us" "$tmp/out" \
    && ok || bad "info: target line of testpa: $(grep target "$tmp/out")"
grep -qx '  gate          pass err_\* == 0' "$tmp/out" && ok || bad "info: gate line"
grep -q 'kernel_a_0 (ambiguous: pin it with --kernel)' "$tmp/out" && ok || bad "info: ambiguous pick not said"
expect_rc 0 "$bin" info --json "$r/testpa" "$tmp/syn"
[ "$(jq_ "$tmp/out" '[(x["target"], x["warm_calls"], x["gate"], x["captures"]) for x in d["runs"]], d["captures"]')" \
    = "([('pa_decode_ps_kernel_0', 64, 'pass', 0), ('synth_kernel_0', 10, 'pass', 1)], [])" ] && ok || bad "info --json runs: $(head -c 400 "$tmp/out")"
python3 -c "import json,sys; a=json.load(open(sys.argv[1]))['runs'][0]['warm_median_us']; b=json.load(open(sys.argv[2]))['testpa']['warm_median_us']; sys.exit(abs(a - b) > 1e-9 * b)" \
    "$tmp/out" "$r/expected.json" && ok || bad "info --json: warm median"

# ---- errors ----
mkdir -p "$tmp/empty/sub"
echo "hello" >"$tmp/empty/sub/notes.txt"
expect_rc 3 "$bin" analyze "$tmp/empty"
grep -q 'or a run directory (no benchmark CSV, kernel trace or capture found inside)' "$tmp/err" && ok || bad "empty run: message"
[ ! -s "$tmp/out" ] && ok || bad "empty run: partial output"
expect_rc 2 "$bin" analyze "$r/testpa" --kernel 'x('
expect_rc 2 "$bin" analyze "$r/testpa" --kernel '^no_such_kernel$'
grep -q 'matches no kernel' "$tmp/err" && ok || bad "--kernel matching nothing: message"
expect_rc 2 "$bin" analyze "$r/testpa" --metric no_such_column
expect_rc 2 "$bin" analyze "$r/testpa" --gate 'no_such_*'
expect_rc 2 "$bin" analyze "$r/testpa" --format html
expect_rc 2 "$bin" analyze "$tmp/syn/ui_output_agent_24601_dispatch_14" --row

# ---- the hub fixture: real traces and a real capture ----
if [ -n "$hub" ] && [ -f "$hub/examples/flash_attn_func/compute_viewer/discover_kernel_trace.csv" ]; then
    mkdir -p "$tmp/fa/prof" "$tmp/pa/prof" "$tmp/pa/att"
    cp "$hub/examples/flash_attn_func/compute_viewer/"discover_* "$tmp/fa/prof/"
    cp "$hub/examples/pa_mqa_logits_fp4/compute_viewer/"discover_* "$tmp/pa/prof/"
    ln -s "$hub/examples/pa_mqa_logits_fp4/att_viewer/big" "$tmp/pa/att/big"
    for x in fa pa; do
        expect_rc 0 "$bin" analyze "$tmp/$x" --format json
        cp "$tmp/out" "$tmp/$x.json"
        python3 "$check" "$schema" "$tmp/$x.json" && ok || bad "hub $x: schema"
    done
    # Warm calls recomputed from the trace: segments of the target not broken
    # by another non-helper kernel, the first call of each dropped (docs/compare.md#deciding-metric).
    python3 - "$tmp/fa/prof/discover_kernel_trace.csv" "$tmp/fa.json" flash_attn_func_kernel_0 <<'PY' && ok || bad "hub flash: warm calls differ from the recomputation"
import csv, json, statistics, sys
rows = sorted(csv.DictReader(open(sys.argv[1], newline="")), key=lambda r: int(r["Start_Timestamp"]))
target = sys.argv[3]
segs, cur = [], None
for r in rows:
    n = r["Kernel_Name"]
    if n == target:
        if cur is None:
            cur = []
            segs.append(cur)
        cur.append(int(r["End_Timestamp"]) - int(r["Start_Timestamp"]))
    elif not n.startswith("__amd_rocclr_"):
        cur = None
warm = [x for s in segs for x in s[1:]]
run = json.load(open(sys.argv[2]))["run"]
calls = run["target"]["calls"]
assert run["target"]["names"] == [target], run["target"]["names"]
assert [len(s) for s in segs] == [1, 8], [len(s) for s in segs]       # docs/compare.md#deciding-metric
assert calls["warm_calls"] == len(warm) == 7, calls["warm_calls"]
close = lambda a, b: abs(a - b) <= 1e-9 * abs(b)     # analysis.json keeps 10 significant digits
assert close(calls["warm"]["median_us"], statistics.median(warm) / 1000), calls["warm"]
assert close(calls["warm"]["mean_us"], statistics.fmean(warm) / 1000), calls["warm"]
PY
    # docs/occupancy.md#worked-examples: flash reports arch 124, AGPR 0 on gfx950: without its ISA both readings stand.
    [ "$(jq_ "$tmp/fa.json" '[(k["arch_vgpr"], k["under_report_possible"], k["limits"]["waves_per_simd"], k["limits_if_under_reported"]["v_total"], k["limits_if_under_reported"]["waves_per_simd"]) for k in d["run"]["target"]["kernels"]]')" \
        = "[(124, True, 3, 248, 2)]" ] && ok || bad "hub flash: registers and limits (docs/occupancy.md#worked-examples)"
    # docs/occupancy.md#worked-examples: pa_mqa reports 48 VGPRs; the capture's ISA (v94) shows the under-report: 96, 5 waves, grid 2 per CU.
    [ "$(jq_ "$tmp/pa.json" '[(k["register_source"], k["capture"]["under_report"], k["capture"]["limits"]["v_total"], k["capture"]["limits"]["waves_per_simd"], k["capture"]["limits"]["wg_per_cu_grid"], k["capture"]["limits"]["grid_limited"]) for k in d["run"]["target"]["kernels"]]')" \
        = "[('capture', True, 96, 5, 2, True)]" ] && ok || bad "hub pa_mqa: registers from the capture (docs/occupancy.md#worked-examples)"
    [ "$(jq_ "$tmp/pa.json" 'd["run"]["target"]["names"], d["run"]["target"]["calls"]["warm_calls"]')" = "(['pa_mqa_logits_fp4_kernel_0'], 10)" ] \
        && ok || bad "hub pa_mqa: target or warm calls (docs/compare.md#deciding-metric: segments of 1 and 11)"
    [ "$(jq_ "$tmp/pa.json" 'len(d["captures"])')" = 1 ] && ok || bad "hub pa_mqa: the capture analysis is missing"
else
    echo "analyze_run: hub fixture not found; real traces skipped"
fi

echo "analyze_run: $pass passed, $fail failed"
[ "$fail" = 0 ]
