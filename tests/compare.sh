#!/bin/bash
# kreport compare end to end: goldens for keep / tie / discard / inconclusive /
# split / gate failure on run directories written by tests/tools/compare_runs.py
# (verdicts derived by hand in tests/golden/compare/README.md and recomputed by
# brute force in tests/tools/compare_check.py), exit codes, --row, --prev,
# discovery errors, the schema with an undeclared-key negative case, an A/A
# test on real dispatch timings and the two real flash_attn captures.
# KR_UPDATE_GOLDEN=1 rewrites the goldens (then check them by hand).
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
schema="$src/report/schema/compare.schema.json"
check="$src/tests/tools/schema_check.py"
golden="$src/tests/golden/compare"

python3 "$src/tests/tools/compare_runs.py" "$tmp/runs" || { echo "compare_runs.py failed"; exit 1; }

# ---- goldens, independent recomputation, schema, exit codes ----
declare -A want_exit=([keep]=0 [tie]=1 [discard]=1 [inconclusive]=6 [split]=7 [gate]=8)
declare -A want_verdict=([keep]=keep [tie]=tie [discard]=discard [inconclusive]=inconclusive [split]=split [gate]=fail)
for c in keep tie discard inconclusive split gate; do
    extra=()
    [ "$c" = split ] && extra=(--kernel '^pa_')
    (cd "$tmp/runs/$c" && "$bin" compare best cand -o out -q "${extra[@]}") && ok || bad "$c: compare failed"
    out="$tmp/runs/$c/out"
    if [ "${KR_UPDATE_GOLDEN:-}" = 1 ]; then
        mkdir -p "$golden/$c" && cp "$out/COMPARE.md" "$out/compare.json" "$golden/$c/"
    fi
    for f in COMPARE.md compare.json; do
        if cmp -s "$out/$f" "$golden/$c/$f"; then ok; else bad "$c/$f differs from the golden"; diff "$golden/$c/$f" "$out/$f" | head -20; fi
    done
    python3 "$check" "$schema" "$out/compare.json" && ok || bad "$c: compare.json does not match the schema"
    python3 "$src/tests/tools/compare_check.py" "$tmp/runs/$c" "$out/compare.json" >/dev/null && ok || bad "$c: recomputation differs"
    v=$(jq_ "$out/compare.json" 'd["verdict"]')
    [ "$v" = "${want_verdict[$c]}" ] && ok || bad "$c: verdict $v"
    head -1 "$out/COMPARE.md" | grep -q "^# ${want_verdict[$c]}" && ok || bad "$c: COMPARE.md does not start with the verdict"
    (cd "$tmp/runs/$c" && "$bin" compare best cand --format json --exit-code "${extra[@]}" >/dev/null 2>&1)
    rc=$?
    [ "$rc" = "${want_exit[$c]}" ] && ok || bad "$c: --exit-code gave $rc, want ${want_exit[$c]}"
    (cd "$tmp/runs/$c" && "$bin" compare best cand --format json "${extra[@]}" >/dev/null 2>&1) && ok || bad "$c: exit status without --exit-code is not 0"
    # Deterministic: the same inputs give the same bytes.
    (cd "$tmp/runs/$c" && "$bin" compare best cand --format json "${extra[@]}" >"$tmp/again.json" 2>/dev/null)
    (cd "$tmp/runs/$c" && "$bin" compare best cand --format json "${extra[@]}" >"$tmp/again2.json" 2>/dev/null)
    cmp -s "$tmp/again.json" "$tmp/again2.json" && ok || bad "$c: output not deterministic"
done

# Details the goldens were checked for (README.md of the goldens).
r=$tmp/runs
[ "$(jq_ "$r/inconclusive/out/compare.json" 'd["need_more"]["warm_calls_per_side"], d["need_more"]["calls_per_row"]')" = "(6, 12)" ] \
    && ok || bad "inconclusive: need-more is not 6 warm calls / a run of 12 (docs/compare.md#worked-examples)"
[ "$(jq_ "$r/split/out/compare.json" 'd["split"]["predicate"]')" = "block_size == 1024 && query_length <= 2" ] \
    && ok || bad "split: predicate"
[ "$(jq_ "$r/gate/out/compare.json" '[(f["column"], f["row"], f["class"]) for f in d["gate"]["failures"]]')" = \
  "[('err_flydsl_ps', 4, 'block_size=16, query_length=2')]" ] && ok || bad "gate: failing row not named"
[ "$(jq_ "$r/discard/out/compare.json" 'd["counts_as_regression"], sorted(w["id"] for w in d["warnings"])')" = \
  "(True, ['script_disagrees'])" ] && ok || bad "discard: regression flag / script warning"

# --row: the performance.md rows of docs/compare.md#log-rows, cells derived by hand from the run.meta and the data.
row=$(cd "$r/keep" && "$bin" compare best cand --row --commit 3f9c2ab)
want="| 2026-06-12 | 3f9c2ab | keep | python tests/kernels/test_pa.py | global | pa_decode_ps_kernel_0 | 65.7 | 58.2 | -5.0% | issue next partition's K loads before softmax |"
[ "$row" = "$want" ] && ok || bad "keep row: $row"
row=$(cd "$r/discard" && "$bin" compare best cand --row)
want="| 14 | issue next partition's K loads before softmax | kernels/attention/pa_decode_fp8.py | 69.2 → 68.8 | 61.3 → 63.1 | +3.0% | all 4 classes slower (+3.0..+3.0%); pa_decode_ps_kernel_0 VGPR 96 → 132; script metric disagrees (-0.6%) |"
[ "$row" = "$want" ] && ok || bad "discard row: $row"
row=$(cd "$r/tie" && "$bin" compare best cand --row 2>"$tmp/err")
[ -z "$row" ] && grep -q "no performance.md row" "$tmp/err" && ok || bad "tie printed a row"

# --prev: tie (faster) twice on the same code becomes keep; another BEST is refused.
(cd "$r/tie_faster" && "$bin" compare best cand -o out -q) && ok || bad "tie_faster failed"
[ "$(jq_ "$r/tie_faster/out/compare.json" 'd["verdict_text"]')" = "tie (faster)" ] && ok || bad "tie_faster: not tie (faster)"
(cd "$r/tie_faster" && "$bin" compare best cand --prev out/compare.json -o out2 -q) && ok || bad "--prev run failed"
[ "$(jq_ "$r/tie_faster/out2/compare.json" 'd["verdict"], d["reasons"][0]["id"], d["options"]["prev_status"]')" = \
  "('keep', 'same_direction_twice', 'confirmed')" ] && ok || bad "--prev did not confirm tie (faster)"
(cd "$r/tie_faster" && "$bin" compare best cand --prev out/compare.json --commit 0000000 --format json >"$tmp/p.json" 2>/dev/null)
[ "$(jq_ "$tmp/p.json" 'd["verdict"], d["options"]["prev_status"]')" = "('tie', 'not_confirmed')" ] && ok || bad "--prev with another commit"
(cd "$r/tie_faster" && "$bin" compare ../keep/best cand --prev out/compare.json --format json >"$tmp/p.json" 2>/dev/null)
[ "$(jq_ "$tmp/p.json" 'd["options"]["prev_status"]')" = "refused" ] && ok || bad "--prev for another BEST not refused"

# Replicates (docs/compare.md#statistic): a second BEST trace 0.2 % slower. The per-trace medians of
# the stratified log times differ by log(1.002) = 0.0019980, so s = 0.0019980/√2 and the
# interval is widened by 1.96·√(s²/2) = 1.96 × 0.0019980 / 2 = 0.001958 (log scale).
cp -r "$r/keep" "$tmp/rep"
python3 - "$tmp/rep/best/prof/discover_kernel_trace.csv" "$tmp/rep/best/prof2/discover_kernel_trace.csv" <<'PY'
import csv, os, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
os.makedirs(os.path.dirname(sys.argv[2]))
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
    w.writerow(rows[0])
    for r in rows[1:]:
        r = [int(x) if x.isdigit() else x for x in r]
        r[10] = r[9] + round((r[10] - r[9]) * 1.002)
        w.writerow(r)
PY
(cd "$tmp/rep" && "$bin" compare best cand --format json >"$tmp/j.json" 2>/dev/null)
python3 - "$tmp/j.json" <<'PY' && ok || bad "replicate widening"
import json, sys
d = json.load(open(sys.argv[1]))
g = d["timing"]["global"]
assert d["timing"]["best"]["traces_used"] == 2, d["timing"]["best"]
assert abs(g["replicate_widening"] - 1.96 * 0.0019980 / 2) < 2e-5, g["replicate_widening"]
assert d["verdict"] == "keep", d["verdict"]
PY

# --target-class: the class group decides with the global r < 0 (docs/compare.md#overall-verdict step 5);
# --noise 6: the keep data's −5 % (interval below 0) is then below the threshold: tie (faster).
(cd "$r/keep" && "$bin" compare best cand --target-class block_size=16,mtp=2 --format json >"$tmp/j.json" 2>/dev/null)
[ "$(jq_ "$tmp/j.json" 'd["verdict"], d["reasons"][0]["id"], d["timing"]["target_class"]["rows"], d["timing"]["target_class"]["outcome"]')" = \
  "('keep', 'target_improved', 2, 'improved')" ] && ok || bad "--target-class"
(cd "$r/tie" && "$bin" compare best cand --target-class block_size=16 --format json >"$tmp/j.json" 2>/dev/null)
[ "$(jq_ "$tmp/j.json" 'd["verdict"], d["timing"]["target_class"]["rows"]')" = "('tie', 4)" ] && ok || bad "--target-class on a tie"
(cd "$r/keep" && "$bin" compare best cand --noise 6 --format json >"$tmp/j.json" 2>/dev/null)
[ "$(jq_ "$tmp/j.json" 'd["verdict_text"], d["options"]["noise"]')" = "('tie (faster)', 0.06)" ] && ok || bad "--noise 6"

# ---- fail cases and script-only ----
cp -r "$r/keep" "$tmp/nocsv" && rm -rf "$tmp/nocsv/cand/bench"
(cd "$tmp/nocsv" && "$bin" compare best cand --format json --exit-code >"$tmp/j.json" 2>/dev/null); rc=$?
[ "$rc" = 8 ] && [ "$(jq_ "$tmp/j.json" 'd["fail_kind"]')" = missing_metrics ] && ok || bad "CANDIDATE without CSV: rc $rc"
cp -r "$r/keep" "$tmp/rows" && sed -i '$d' "$tmp/rows/cand/bench/"*.csv
(cd "$tmp/rows" && "$bin" compare best cand --format json >"$tmp/j.json" 2>/dev/null)
[ "$(jq_ "$tmp/j.json" 'd["fail_kind"], [p["id"] for p in d["problems"]]')" = "('invalid', ['config_rows'])" ] && ok || bad "missing row not invalid"
cp -r "$r/keep" "$tmp/cmd" && sed -i 's/^command=.*/command=python tests\/kernels\/test_pa.py --quick/' "$tmp/cmd/cand/run.meta"
(cd "$tmp/cmd" && "$bin" compare best cand --format json >"$tmp/j.json" 2>/dev/null)
[ "$(jq_ "$tmp/j.json" 'd["fail_kind"], [p["id"] for p in d["problems"]]')" = "('invalid', ['command'])" ] && ok || bad "changed command not invalid"
cp -r "$r/keep" "$tmp/script" && rm -rf "$tmp/script/best/prof" "$tmp/script/cand/prof"
(cd "$tmp/script" && "$bin" compare best cand --format json >"$tmp/j.json" 2>/dev/null)
# Without a trace the benchmark metric decides (docs/compare.md): 8 rows all 5 % faster, the
# signed-rank p of 8 positive-side differences is 2/2^8 = 0.0078 < 0.05, geometric mean -5 %: keep.
[ "$(jq_ "$tmp/j.json" 'd["verdict_text"], d["reasons"][0]["id"], round(d["timing"]["global"]["p"], 5)')" = "('keep (benchmark)', 'improved', 0.00781)" ] \
    && ok || bad "benchmark metric did not decide"
(cd "$tmp/script" && "$bin" compare best cand --format json --allow-script-metric >"$tmp/j.json" 2>/dev/null)
[ "$(jq_ "$tmp/j.json" 'd["verdict_text"], d["script_only"]')" = "('keep (benchmark)', True)" ] && ok || bad "--allow-script-metric"
python3 "$check" "$schema" "$tmp/j.json" && ok || bad "script-only compare.json does not match the schema"

# ---- bad input (3), usage (2), output (4) ----
expect_rc 3 "$bin" compare "$tmp/does-not-exist" "$r/keep/cand"
mkdir -p "$tmp/db/best" "$tmp/db/cand"
printf 'SQLite format 3\000rest of a rocpd database' >"$tmp/db/cand/host_1234_results.db"
cp -r "$r/keep/best/." "$tmp/db/best/"
expect_rc 3 "$bin" compare "$tmp/db/best" "$tmp/db/cand"
grep -q "host_1234_results.db" "$tmp/err" && grep -q "SQLite" "$tmp/err" && ok || bad "corrupt .db message: $(cat "$tmp/err")"
cp -r "$r/keep" "$tmp/notrace" && rm -rf "$tmp/notrace/best/prof"
expect_rc 3 "$bin" compare "$tmp/notrace/best" "$tmp/notrace/cand"
grep -q "BEST has no kernel trace" "$tmp/err" && ok || bad "BEST without trace: message"
expect_rc 2 "$bin" compare "$r/keep/best"
expect_rc 2 "$bin" compare "$r/keep/best" "$r/keep/cand" --format pdf
expect_rc 2 "$bin" compare "$r/keep/best" "$r/keep/cand" --noise abc
expect_rc 2 "$bin" compare "$r/keep/best" "$r/keep/cand" --gate '== 0'
expect_rc 2 "$bin" compare "$r/keep/best" "$r/keep/cand" --gate 'nothing_like_this'
expect_rc 2 "$bin" compare "$r/keep/best" "$r/keep/cand" --kernel '('
expect_rc 2 "$bin" compare "$r/keep/best" "$r/keep/cand" --class-by no_such_column
expect_rc 2 "$bin" compare "$r/keep/best" "$r/keep/cand" --metric us_nothing
expect_rc 0 "$bin" compare "$r/keep/best" "$r/keep/cand" --gate 'err_flydsl_ps, flydsl_ps_max_diff <= 0.01' -o "$tmp/o4" -q
expect_rc 4 "$bin" compare "$r/keep/best" "$r/keep/cand" -o "$tmp/o4" -q
expect_rc 0 "$bin" compare "$r/keep/best" "$r/keep/cand" -o "$tmp/o4" -q --force
# A gate on the error magnitude alone fails where it should (row 4 of the gate case has 0.1875).
(cd "$r/gate" && "$bin" compare best cand --gate 'flydsl_ps_max_diff<=0.01' --format json >"$tmp/j.json" 2>/dev/null)
[ "$(jq_ "$tmp/j.json" 'd["gate"]["status"], len(d["gate"]["failures"])')" = "('fail', 1)" ] && ok || bad "--gate on max_diff"

# ---- schema: an undeclared key fails the check ----
python3 - "$r/keep/out/compare.json" "$tmp/undeclared.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["timing"]["global"]["not_in_schema"] = 1
json.dump(d, open(sys.argv[2], "w"))
PY
python3 "$check" "$schema" "$tmp/undeclared.json" >/dev/null && bad "schema check accepted an undeclared key" || ok

# ---- A/A on real dispatch timings: never keep or discard ----
if [ -n "$hub" ] && [ -f "$hub/examples/flash_attn_func/compute_viewer/discover_kernel_trace.csv" ]; then
    python3 "$src/tests/tools/compare_runs.py" --aa "$hub/examples/flash_attn_func/compute_viewer/discover_kernel_trace.csv" "$tmp/aa"
    for c in aa_halves aa_alternate; do
        for k in "" flash_attn_func_kernel_0; do
            args=(); [ -n "$k" ] && args=(--kernel "$k")
            "$bin" compare "$tmp/aa/$c/best" "$tmp/aa/$c/cand" --format json "${args[@]}" >"$tmp/aa.json" 2>"$tmp/err" \
                && ok || bad "A/A $c failed: $(head -c 200 "$tmp/err")"
            v=$(jq_ "$tmp/aa.json" 'd["verdict"]')
            case "$v" in keep|discard) bad "A/A $c ${k:-auto} said $v" ;; *) ok ;; esac
            python3 "$check" "$schema" "$tmp/aa.json" && ok || bad "A/A $c: schema"
        done
    done
    # Alternate rows pinned to the kernel: 9 dispatches split 5/4; after the lone correctness
    # call and the cold first call of the timed loop, 3 warm calls a side: "need >= 4".
    "$bin" compare "$tmp/aa/aa_alternate/best" "$tmp/aa/aa_alternate/cand" --kernel flash_attn_func_kernel_0 --format json >"$tmp/aa.json" 2>/dev/null
    [ "$(jq_ "$tmp/aa.json" 'd["verdict"], d["timing"]["global"]["n_best"], d["timing"]["global"]["n_candidate"]')" = "('inconclusive', 3, 3)" ] \
        && ok || bad "A/A alternate: $(jq_ "$tmp/aa.json" 'd["reasons"]')"
else
    echo "compare: hub fixture not found; A/A on real timings skipped"
fi

# ---- the two real flash_attn small captures: no timing, trace deltas only ----
small="$hub/examples/flash_attn_func/att_viewer/small"
if [ -n "$hub" ] && [ -d "$small/ui_output_agent_32235_dispatch_44" ]; then
    a="$small/ui_output_agent_32235_dispatch_44" b="$small/ui_output_agent_58550_dispatch_44_after_loc_fix"
    expect_rc 6 "$bin" compare "$a" "$b" -o "$tmp/flash" -q --exit-code
    j="$tmp/flash/compare.json"
    python3 "$check" "$schema" "$j" && ok || bad "flash: schema"
    [ "$(jq_ "$j" 'd["verdict"], d["reasons"][0]["id"]')" = "('inconclusive', 'no_kernel_timing')" ] && ok || bad "flash: verdict"
    grep -q "no kernel timing" "$tmp/flash/COMPARE.md" && ok || bad "flash: reason not in COMPARE.md"
    al='d["trace"]["pairs"][0]["alignment"]'
    [ "$(jq_ "$j" "$al[\"method\"], $al[\"best_rows\"], $al[\"candidate_rows\"], $al[\"identical\"], $al[\"paired\"], $al[\"best_only\"], $al[\"candidate_only\"], $al[\"quality\"]")" = \
      "('index', 2069, 2069, 2069, 2069, 0, 0, 1.0)" ] && ok || bad "flash: alignment is not 2069 pairs by index"
    # Mapping quality recomputed from code.json: distinct innermost lines and exp(H) of Hit + Stall per line.
    python3 - "$a" "$b" "$j" <<'PY' && ok || bad "flash: mapping-quality change differs from code.json"
import json, math, sys
def quality(cap):
    rows = [r for r in json.load(open(cap + "/code.json"))["code"] if not r[0].startswith(";")]
    w = {}
    for r in rows:
        if r[3]:
            key = r[3].split(" -> ")[0]          # innermost frame (docs/formats.md#source-chains)
            w[key] = w.get(key, 0) + r[6] + r[8]
    tot = sum(w.values())
    H = -sum(v / tot * math.log(v / tot) for v in w.values() if v)
    return len(rows), sum(1 for r in rows if r[3]), len(w), math.exp(H)
a, b, j = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3]))
m = j["trace"]["pairs"][0]["mapping"]
qa, qb = quality(a), quality(b)
got = (m["rows"]["best"], m["mapped"]["best"], m["distinct_lines"]["best"], m["effective_lines"]["best"])
got2 = (m["rows"]["candidate"], m["mapped"]["candidate"], m["distinct_lines"]["candidate"], m["effective_lines"]["candidate"])
ok = got[:3] == qa[:3] and got2[:3] == qb[:3] and abs(got[3] - qa[3]) < 1e-6 and abs(got2[3] - qb[3]) < 1e-6
ok = ok and qa[2] != qb[2]          # the location fix changed the line attribution
if not ok:
    sys.exit(f"mapping: compare.json {got} / {got2}, code.json {qa} / {qb}")
PY
else
    echo "compare: hub fixture not found; real-capture comparison skipped"
fi

# ---- generated run directories (ATT pass beside the capture) ----
"$bin" synth "$tmp/s1" --layout run -q && "$bin" synth "$tmp/s2" --layout run --seed 3 -q
expect_rc 0 "$bin" compare "$tmp/s1" "$tmp/s2" -o "$tmp/sout" -q
python3 "$check" "$schema" "$tmp/sout/compare.json" && ok || bad "synth runs: schema"
[ "$(jq_ "$tmp/sout/compare.json" 'd["timing"]["best"]["att_pass"], d["timing"]["best"]["dropped_captured_dispatches"], len(d["trace"]["pairs"])')" = "(True, 2, 1)" ] \
    && ok || bad "synth runs: ATT-pass trace or capture pairing"

echo "compare: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
