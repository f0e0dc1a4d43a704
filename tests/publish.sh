#!/bin/bash
# publish.sh — the publishing commands around an example folder:
#
# 1. validate's publishing checks on the synth example: the V-20e tail
#    percentage recomputed here from occupancy.json and realtime.json
#    (docs/occupancy.md#resident-waves, docs/formats.md#se-alignment) with python.
# 2. `kreport new-example` on a synth run directory: the canonical layout,
#    the empty shell dropped and named, README.md listing exactly the files
#    present, REPORT.md equal to `kreport analyze EXAMPLE --format md`, a
#    clean validate (no error), the existing-target and all-shells refusals
#    (nothing written).
# 3. `kreport index` on a hub copy: missing markers (exit 3, README
#    untouched), the table between the markers and kernels.json, the rest
#    of README.md byte-identical, a second run "no change" with identical
#    bytes, --check.
# 4. The real hub (skipped when absent): validate names the files
#    pa_mqa_logits_fp4's README lists but the folder lacks (docs/formats.md#example-folders,
#    V-20), reports no error; index figures against docs/formats.md's reference
#    tables (timeline sums, mapping, docs/occupancy.md#worked-examples limiters) and the top stall
#    bucket recomputed from code.json.
# 5. `kreport new-example small_run=small big_run=big -o EX`: both labels
#    laid out, README.md rows recomputed here from the wave files (waves =
#    wave files, records = sum of wave.instructions), validate with no
#    error (only the expected V-20e / V-21 warnings), REPORT.md with a
#    small and a big column; usage errors (duplicate label, --label with
#    several runs).
# 6. `--into EX`: a discovery run (no captures: CSVs only) and a third
#    label added in place; a label the example holds refused (exit 4, the
#    example byte-identical), replaced with --force; a hand-written
#    README.md refused without --force.
# 7. validate on an archived example with two identical capture folders
#    reports V-20b (member bytes hashed), as on the folder.
# 8. compare on a run directory whose captures are in a .tar.gz inside it:
#    the captures are read in place and paired; a hostile archive inside a
#    run directory fails with exit 3 naming it.
#
# Env: KR_BIN (kreport), KR_HUB (hub fixtures).
set -u
export PYTHONDONTWRITEBYTECODE=1
BIN=${KR_BIN:?KR_BIN not set}
T=$(mktemp -d)
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
fail=0
pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

"$BIN" synth -q --layout example "$T/ex" >/dev/null || { echo "FAIL: kreport synth"; exit 1; }
"$BIN" synth -q --layout run "$T/run" >/dev/null || { echo "FAIL: kreport synth --layout run"; exit 1; }

# ---- 1. V-20e on the synth example ----
"$BIN" validate -j 2 "$T/ex" >"$T/v.ex" 2>&1
[ $? = 0 ] && ok || bad "validate synth example exit"
pct=$(sed -n 's/^warning V-20e att_viewer\/big\/[^:]*: primary capture does not fill the GPU: an achieved-occupancy tail, the traced CU below half its peak for \([0-9]*\)% of the dispatch.*/\1/p' "$T/v.ex")
want=$(python3 - "$T"/ex/att_viewer/big/ui_output_* <<'EOF'
import collections, glob, json, os, sys
d = sys.argv[1]
occ = json.load(open(os.path.join(d, "occupancy.json")))
rt = json.load(open(os.path.join(d, "realtime.json")))
base = rt["SE0"][0][0]
off = {int(k[2:]): base - v[0][0] for k, v in rt.items() if k.startswith("SE")}
cus = collections.Counter(json.load(open(f))["wave"]["cu"] for f in glob.glob(os.path.join(d, "se*_sm*_sl*_wv*.json")))
target = sorted(cus.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
rows = {int(se): [(r[0] + off[int(se)], r[1], r[4]) for r in v] for se, v in occ.items() if se.isdigit()}
allr = [r for v in rows.values() for r in v]
first = min(r[0] for r in allr if r[2] == 1)
last = max(r[0] for r in allr if r[2] == 0)
low = tot = 0
for se, v in rows.items():
    ev = sorted([r for r in v if r[1] == target], key=lambda r: (r[0], r[2]))
    if not ev:
        continue
    res = peak = 0
    pts = [(first, 0)]
    for t, cu, start in ev:
        res += 1 if start else -1
        peak = max(peak, res)
        pts.append((t, res))
    pts.append((last, None))
    low += sum(t1 - t0 for (t0, r0), (t1, _) in zip(pts, pts[1:]) if 2 * r0 < peak)
    tot += last - first
print(round(100 * low / tot))
EOF
)
[ -n "$pct" ] && [ "$pct" = "$want" ] && ok || bad "V-20e tail: validate says '$pct'%, recomputed $want%"

# ---- 2. new-example ----
"$BIN" new-example -j 2 "$T/run" -o "$T/out/newex" --label big 2>"$T/err.new"
[ $? = 0 ] && ok || { bad "new-example exit"; cat "$T/err.new"; }
grep -q "dropped $T/run/ui_output_agent_24601_dispatch_12: empty shell" "$T/err.new" && ok ||
    bad "the dropped empty shell is not named"
for f in README.md REPORT.md att_viewer/big/ui_output_agent_24601_dispatch_14/code.json \
    compute_viewer/big_results.json compute_viewer/big_agent_info.csv compute_viewer/big_kernel_trace.csv; do
    [ -f "$T/out/newex/$f" ] && ok || bad "new-example: $f missing"
done
[ ! -e "$T/out/newex/att_viewer/big/ui_output_agent_24601_dispatch_12" ] && ok || bad "empty shell copied"
ls -a "$T/out" | grep -q '^\.kreport' && bad "temporary folder left beside the example" || ok
diff -r "$T/run/ui_output_agent_24601_dispatch_14" "$T/out/newex/att_viewer/big/ui_output_agent_24601_dispatch_14" \
    >/dev/null && ok || bad "capture copy differs"
cmp -s "$T/run/out_results.json" "$T/out/newex/compute_viewer/big_results.json" && ok || bad "results.json copy"
# README lists exactly the files and capture folders present.
if python3 - "$T/out/newex" <<'EOF'
import os, re, sys
root = sys.argv[1]
text = open(os.path.join(root, "README.md")).read()
listed = set(re.findall(r"^- `([^`]+)`$", text, re.M))
present = {"REPORT.md"}
for d, dirs, files in os.walk(root):
    rel = os.path.relpath(d, root)
    if os.path.exists(os.path.join(d, "filenames.json")):
        present.add(rel + "/")
        dirs[:] = []
        continue
    present.update(os.path.join(rel, f) if rel != "." else f for f in files)
present.discard("README.md")
assert listed == present, (listed ^ present)
assert "`ui_output_agent_24601_dispatch_12`" in text   # named as dropped
assert "| `att_viewer/big/ui_output_agent_24601_dispatch_14/` | 8 | 568 | 42/45 |" in text
EOF
then ok; else bad "new-example README.md file list"; fi
(cd "$T/out" && "$BIN" analyze -q -j 2 newex --format md) >"$T/report.md" 2>/dev/null
cmp -s "$T/report.md" "$T/out/newex/REPORT.md" && ok || bad "REPORT.md differs from kreport analyze EXAMPLE --format md"
"$BIN" validate -q -j 2 "$T/out/newex" >"$T/v.new" 2>&1
[ $? = 0 ] && ! grep -q "^error" "$T/v.new" && ok || { bad "validate of the new example"; cat "$T/v.new"; }
"$BIN" pack -q "$T/out/newex" -o "$T/newex.tar.zst" && ok || bad "pack of the new example"
"$BIN" new-example -q "$T/run" -o "$T/out/newex" --label big 2>"$T/err.exists"
[ $? = 4 ] && grep -q "exists" "$T/err.exists" && ok || bad "new-example over an existing folder should exit 4"
mkdir -p "$T/shells"
cp -r "$T/run/ui_output_agent_24601_dispatch_12" "$T/shells/"
"$BIN" new-example -q "$T/shells" -o "$T/out/none" 2>"$T/err.shells"
[ $? = 3 ] && grep -q "empty shell" "$T/err.shells" && [ ! -e "$T/out/none" ] && ok ||
    { bad "a run with only empty shells should exit 3 and write nothing"; cat "$T/err.shells"; }
ls -a "$T/out" | grep -q '^\.kreport' && bad "temporary folder left after a failure" || ok
"$BIN" new-example "$T/run" >/dev/null 2>&1
[ $? = 2 ] && ok || bad "new-example without -o should exit 2"

# ---- 3. index on a synthetic hub ----
mkdir -p "$T/hub/examples"
cp -r "$T/ex" "$T/hub/examples/synth_kernel"
cp -r "$T/out/newex" "$T/hub/examples/newex"
printf '# Hub\n\n## Examples\n\n| hand | table |\n\n## Later\n\nkept text\n' >"$T/hub/README.md"
cp "$T/hub/README.md" "$T/readme.orig"
"$BIN" index -q "$T/hub" 2>"$T/err.idx"
[ $? = 3 ] && grep -q "<!-- kreport:index:begin -->" "$T/err.idx" && cmp -s "$T/hub/README.md" "$T/readme.orig" &&
    [ ! -e "$T/hub/kernels.json" ] && ok || bad "index without markers should exit 3 and write nothing"
printf '# Hub\n\n## Examples\n\n<!-- kreport:index:begin -->\nold row\n<!-- kreport:index:end -->\n\n## Later\n\nkept text\n' \
    >"$T/hub/README.md"
"$BIN" index -q -j 2 "$T/hub" && ok || bad "index exit"
cp "$T/hub/README.md" "$T/r1"
cp "$T/hub/kernels.json" "$T/k1"
"$BIN" index -j 2 "$T/hub" 2>"$T/err.idx2" && grep -q "no change" "$T/err.idx2" && ok || bad "second index run should say no change"
cmp -s "$T/hub/README.md" "$T/r1" && cmp -s "$T/hub/kernels.json" "$T/k1" && ok || bad "second index run changed bytes"
"$BIN" index --check -q "$T/hub" && ok || bad "index --check on an up-to-date hub"
echo "edit" >>"$T/hub/kernels.json"
"$BIN" index --check -q "$T/hub" 2>/dev/null
[ $? = 1 ] && ok || bad "index --check should exit 1 when out of date"
"$BIN" index -q "$T/hub" && cmp -s "$T/hub/kernels.json" "$T/k1" && ok || bad "index should restore kernels.json"
if python3 - "$T/hub" <<'EOF'
import json, sys
hub = sys.argv[1]
text = open(hub + "/README.md").read()
head, rest = text.split("<!-- kreport:index:begin -->\n")
table, tail = rest.split("<!-- kreport:index:end -->")
assert head == "# Hub\n\n## Examples\n\n" and tail == "\n\n## Later\n\nkept text\n", "text outside the markers changed"
rows = [l for l in table.splitlines() if l.startswith("| [")]
assert [r.split("`")[1] for r in rows] == ["examples/newex", "examples/synth_kernel"], rows
k = json.load(open(hub + "/kernels.json"))
assert k["schema"] == "kreport.index" and k["schema_version"] == 1
ex = {e["example"]: e for e in k["examples"]}
s = ex["synth_kernel"]
# synth example (tests/golden/README.md): primary = big (W=32, 3616 records),
# kernel synth_kernel_0, gfx950, 42/45 rows mapped, 2 captures.
assert s["kernel"] == "synth_kernel_0" and s["target"] == "gfx950" and s["captures"] == 2
assert s["primary"] == {"label": "big", "folder": "ui_output_agent_40963_dispatch_38"}
assert s["source_mapping"] == {"mapped_rows": 42, "instruction_rows": 45}
n = ex["newex"]
assert n["captures"] == 1 and n["primary"]["folder"] == "ui_output_agent_24601_dispatch_14"
# wave-state cycles: sums of the wave files' timelines, recomputed here
import glob, os
for name, e in ex.items():
    d = os.path.join(hub, "examples", name, "att_viewer", e["primary"]["label"], e["primary"]["folder"])
    sums = [0] * 5
    for f in glob.glob(os.path.join(d, "se*_sm*_sl*_wv*.json")):
        for state, cycles in json.load(open(f))["wave"]["timeline"] or []:
            sums[state] += cycles
    w = e["wave_state_cycles"]
    assert [w["idle"], w["exec"], w["wait"], w["stall"]] == sums[1:], (name, w, sums)
EOF
then ok; else bad "index table / kernels.json"; fi

# ---- 4. the real hub ----
HUB=${KR_HUB:-}
if [ -z "$HUB" ] || [ ! -d "$HUB/examples" ]; then
    echo "publish.sh: hub fixtures absent, skipping the real-hub part"
else
    PA="$HUB/examples/pa_mqa_logits_fp4"
    "$BIN" validate -j 2 "$PA" >"$T/v.pa" 2>&1
    [ $? = 0 ] && ok || bad "validate pa_mqa_logits_fp4 exit"
    grep -q "^error" "$T/v.pa" && bad "pa_mqa: error findings" || ok
    # The files its README lists that the folder lacks (docs/formats.md#results-json, docs/formats.md#example-folders;
    # the Python sources are left out of the fixtures).
    for f in small_results.json big_results.json pa_mqa_logits_fp4.py test_pa_mqa_logits_fp4.py; do
        grep -q "^warning V-20 README.md: names $f, which is not in the example folder" "$T/v.pa" && ok ||
            bad "pa_mqa: README name $f not reported missing"
    done
    grep -q "^warning V-20 compute_viewer/big_results.json: missing" "$T/v.pa" && ok || bad "pa_mqa: big_results.json"
    # 0/726 rows mapped (the hub capture's code.json); its README has a source mapping note.
    grep -q "^info V-20d att_viewer/big/ui_output_agent_55351_dispatch_426: 0/726 instruction rows are source-mapped; README.md" \
        "$T/v.pa" && ok || bad "pa_mqa: V-20d"
    # big: 507 workgroups on 256 CUs (docs/formats.md#kernel-trace-csv, docs/occupancy.md#worked-examples), no tail: no V-20e.
    grep -q "V-20e" "$T/v.pa" && bad "pa_mqa: unexpected V-20e" || ok
    "$BIN" validate -j 2 "$HUB/examples/flash_attn_func" >"$T/v.fl" 2>&1
    [ $? = 0 ] && ! grep -q "^error" "$T/v.fl" && ok || bad "validate flash_attn_func"
    # 58550 has no results.json (docs/formats.md#joining-a-capture): its label's results.json is another run's.
    grep -q "^warning V-20f compute_viewer/small_results.json: has no GPU agent with handle 58550" "$T/v.fl" && ok ||
        bad "flash: V-20f for 58550"

    mkdir -p "$T/realhub/examples"
    cp -r "$HUB/examples/." "$T/realhub/examples/"
    chmod -R u+w "$T/realhub"
    printf '# hub\n\n<!-- kreport:index:begin -->\n<!-- kreport:index:end -->\n' >"$T/realhub/README.md"
    "$BIN" index -q -j 2 "$T/realhub" && ok || bad "index on the real hub"
    if python3 - "$T/realhub" <<'EOF'
import json, os, sys
hub = sys.argv[1]
k = {e["example"]: e for e in json.load(open(hub + "/kernels.json"))["examples"]}
pa, fl = k["pa_mqa_logits_fp4"], k["flash_attn_func"]
# docs/formats.md facts tables: timeline sums by state 1/2/3/4, mapped k/N.
assert pa["primary"] == {"label": "big", "folder": "ui_output_agent_55351_dispatch_426"}
w = pa["wave_state_cycles"]
assert [w["idle"], w["exec"], w["wait"], w["stall"]] == [992, 795648, 465108, 340436], w
assert pa["source_mapping"] == {"mapped_rows": 0, "instruction_rows": 726}
assert pa["limiter"] == {"limiter": "vgpr", "waves_per_simd": 5}          # docs/occupancy.md#worked-examples
assert pa["kernel"] == "pa_mqa_logits_fp4_kernel_0" and pa["target"] == "gfx950"
# flash: the primary is the capture with the most waves (8: 58550).
assert fl["primary"]["folder"] == "ui_output_agent_58550_dispatch_44_after_loc_fix"
w = fl["wave_state_cycles"]
assert [w["idle"], w["exec"], w["wait"], w["stall"]] == [1788, 180416, 126860, 58912], w
assert fl["source_mapping"] == {"mapped_rows": 2069, "instruction_rows": 2069}
assert fl["limiter"] == {"limiter": "vgpr", "waves_per_simd": 2}          # docs/occupancy.md#worked-examples
# Top stall bucket of pa_mqa big recomputed from code.json: s_waitcnt rows
# naming vmcnt but no LDS/scalar counter, over kept rows (LineNumber != 0).
code = json.load(open(os.path.join(hub, "examples/pa_mqa_logits_fp4/att_viewer/big/ui_output_agent_55351_dispatch_426/code.json")))["code"]
kept = [r for r in code if r[2] != 0]
total = sum(r[8] for r in kept)
vm = sum(r[8] for r in kept if r[0].startswith("s_waitcnt") and "vmcnt" in r[0] and "lgkmcnt" not in r[0])
assert pa["top_stall"] == {"bucket": "wait_vmcnt", "cycles": vm, "total_stall": total}, (pa["top_stall"], vm, total)
assert total == 791816                                                    # Σ Stall of code.json
EOF
    then ok; else bad "index figures on the real hub"; fi
fi

M=$T/multi
mkdir -p "$M"
"$BIN" synth -q --layout run --waves 4 "$M/small_run" >/dev/null || { echo "FAIL: synth small"; exit 1; }
"$BIN" synth -q --layout run --waves 8 "$M/big_run" >/dev/null || { echo "FAIL: synth big"; exit 1; }
"$BIN" synth -q --layout run --waves 6 "$M/mid_run" >/dev/null || { echo "FAIL: synth mid"; exit 1; }
cp -r "$T/ex" "$M/synth_ex"
mkdir -p "$M/disc"
cp "$M"/synth_ex/compute_viewer/discover_* "$M/disc/"

# Expected README rows, from the wave files themselves.
rows() {
    python3 - "$@" <<'EOF'
import glob, json, os, sys
for spec in sys.argv[1:]:
    label, d = spec.split("=", 1)
    for cap in sorted(glob.glob(os.path.join(d, "ui_output_*"))):
        waves = glob.glob(os.path.join(cap, "se*_sm*_sl*_wv*.json"))
        if not waves:
            continue
        recs = sum(len(json.load(open(w))["wave"]["instructions"]) for w in waves)
        code = json.load(open(os.path.join(cap, "code.json")))["code"]
        ins = [r for r in code if not str(r[0]).startswith(";")]
        mapped = sum(1 for r in ins if r[3])
        print(f"| `att_viewer/{label}/{os.path.basename(cap)}/` | {len(waves)} | {recs} | {mapped}/{len(ins)} |")
EOF
}

# ---- 5. new-example: two runs, one example ----
"$BIN" new-example -j 2 "$M/small_run=small" "$M/big_run=big" -o "$M/out/ex" 2>"$M/err.new"
[ $? = 0 ] && ok || { bad "new-example with two runs"; cat "$M/err.new"; }
for f in att_viewer/small/ui_output_agent_24601_dispatch_14/code.json att_viewer/big/ui_output_agent_24601_dispatch_14/code.json \
    compute_viewer/small_results.json compute_viewer/big_results.json compute_viewer/small_kernel_trace.csv \
    compute_viewer/big_agent_info.csv README.md REPORT.md; do
    [ -f "$M/out/ex/$f" ] && ok || bad "two runs: $f missing"
done
[ ! -e "$M/out/ex/att_viewer/small/ui_output_agent_24601_dispatch_12" ] && ok || bad "empty shell copied"
rows big="$M/big_run" small="$M/small_run" >"$M/rows.want"
[ "$(wc -l <"$M/rows.want")" = 2 ] && ok || bad "expected two capture rows"
grep '^| `att_viewer/' "$M/out/ex/README.md" >"$M/rows.got"
diff "$M/rows.want" "$M/rows.got" >/dev/null && ok || { bad "README capture rows"; diff "$M/rows.want" "$M/rows.got"; }
grep -q '`ui_output_agent_24601_dispatch_12` (big), `ui_output_agent_24601_dispatch_12` (small)' "$M/out/ex/README.md" &&
    ok || bad "dropped shells of both runs named in README.md"
"$BIN" validate -j 2 "$M/out/ex" >"$M/v.ex" 2>&1
[ $? = 0 ] && ok || { bad "validate of the two-run example"; cat "$M/v.ex"; }
unexpected=$(grep -E '^(error|warning) ' "$M/v.ex" | grep -v -E '^warning (V-20e|V-21) ')
[ -z "$unexpected" ] && ok || bad "unexpected findings: $unexpected"
grep -q '^| fact | big | small |$' "$M/out/ex/REPORT.md" && ok || bad "REPORT.md has no big and small columns"
(cd "$M/out" && "$BIN" analyze -q -j 2 ex --format md) >"$M/report.md" 2>/dev/null
cmp -s "$M/report.md" "$M/out/ex/REPORT.md" && ok || bad "REPORT.md differs from kreport analyze EXAMPLE --format md"
"$BIN" new-example -q "$M/small_run=a" "$M/big_run=a" -o "$M/out/dup" 2>/dev/null
[ $? = 2 ] && [ ! -e "$M/out/dup" ] && ok || bad "a label given twice should exit 2"
"$BIN" new-example -q --label x "$M/small_run" "$M/big_run" -o "$M/out/dup" 2>/dev/null
[ $? = 2 ] && ok || bad "--label with several runs should exit 2"
ls -a "$M/out" | grep -q '^\.kreport' && bad "temporary folder left beside the example" || ok

# ---- 6. new-example --into ----
"$BIN" new-example -q -j 2 --into "$M/out/ex" "$M/mid_run=mid" "$M/disc=discover" 2>"$M/err.into"
[ $? = 0 ] && ok || { bad "new-example --into"; cat "$M/err.into"; }
for f in discover_kernel_trace.csv discover_kernel_stats.csv discover_domain_stats.csv discover_agent_info.csv; do
    cmp -s "$M/disc/$f" "$M/out/ex/compute_viewer/$f" && ok || bad "--into: discovery $f"
done
[ ! -e "$M/out/ex/att_viewer/discover" ] && ok || bad "a run without captures must not make an att_viewer label"
diff -r "$M/small_run/ui_output_agent_24601_dispatch_14" "$M/out/ex/att_viewer/small/ui_output_agent_24601_dispatch_14" \
    >/dev/null && ok || bad "--into lost the existing small capture"
rows big="$M/big_run" mid="$M/mid_run" small="$M/small_run" >"$M/rows.want"
grep '^| `att_viewer/' "$M/out/ex/README.md" >"$M/rows.got"
diff "$M/rows.want" "$M/rows.got" >/dev/null && ok || { bad "README rows after --into"; diff "$M/rows.want" "$M/rows.got"; }
grep -q '^- `compute_viewer/discover_kernel_trace.csv`$' "$M/out/ex/README.md" && ok || bad "README lists the discovery CSV"
(cd "$M/out" && "$BIN" analyze -q -j 2 ex --format md) >"$M/report.md" 2>/dev/null
cmp -s "$M/report.md" "$M/out/ex/REPORT.md" && ok || bad "REPORT.md not regenerated for the whole example"
grep -q '^| fact | big | mid | small |$' "$M/out/ex/REPORT.md" && ok || bad "REPORT.md lacks the mid column"
"$BIN" validate -q -j 2 "$M/out/ex" >/dev/null 2>&1 && ok || bad "validate after --into"
cp -r "$M/out/ex" "$M/ex.before"
"$BIN" new-example -q --into "$M/out/ex" "$M/mid_run=big" 2>"$M/err.coll"
[ $? = 4 ] && grep -q "already holds label 'big'" "$M/err.coll" && ok || { bad "label collision should exit 4"; cat "$M/err.coll"; }
diff -r "$M/ex.before" "$M/out/ex" >/dev/null && ok || bad "a refused --into changed the example"
"$BIN" new-example -q -j 2 --force --into "$M/out/ex" "$M/mid_run=big" 2>/dev/null && ok || bad "--force --into"
diff -r "$M/mid_run/ui_output_agent_24601_dispatch_14" "$M/out/ex/att_viewer/big/ui_output_agent_24601_dispatch_14" \
    >/dev/null && ok || bad "--force did not replace the big capture"
cmp -s "$M/mid_run/out_results.json" "$M/out/ex/compute_viewer/big_results.json" && ok || bad "--force: big_results.json"
ls -a "$M/out" | grep -q 'kreport' && bad "temporary or old folder left after --into" || ok
"$BIN" new-example -q --into "$M/synth_ex" "$M/mid_run=mid" 2>"$M/err.hand"
[ $? = 4 ] && grep -q "README.md was not written by kreport new-example" "$M/err.hand" && ok ||
    { bad "a hand-written README.md should be refused"; cat "$M/err.hand"; }
"$BIN" new-example -q --into "$M/small_run" "$M/mid_run=mid" 2>/dev/null
[ $? = 3 ] && ok || bad "--into a folder that is no example should exit 3"

# ---- 7. V-20b on an archived example ----
cp -r "$M/synth_ex" "$M/dupex"
cp -r "$M/dupex/att_viewer/big/ui_output_agent_40963_dispatch_38" "$M/dupex/att_viewer/big/ui_output_agent_40963_dispatch_39"
"$BIN" validate -j 2 "$M/dupex" >"$M/v.dir" 2>&1
grep -q '^error V-20b att_viewer/big/ui_output_agent_40963_dispatch_39: has the same files as att_viewer/big/ui_output_agent_40963_dispatch_38' "$M/v.dir" &&
    ok || bad "V-20b on the folder"
tar -C "$M" -czf "$M/dupex.tar.gz" dupex
"$BIN" validate -j 2 "$M/dupex.tar.gz" >"$M/v.arc" 2>&1
[ $? = 1 ] && ok || bad "validate of the archived example should exit 1"
grep -q '^error V-20b att_viewer/big/ui_output_agent_40963_dispatch_39: has the same files as att_viewer/big/ui_output_agent_40963_dispatch_38' "$M/v.arc" &&
    ok || { bad "V-20b on the archive"; grep V-20 "$M/v.arc"; }
grep -c '^error V-20b' "$M/v.arc" | grep -qx 1 && ok || bad "V-20b once"
tar -C "$M" -czf "$M/synth_ex.tar.gz" synth_ex
"$BIN" validate -q -j 2 "$M/synth_ex.tar.gz" >"$M/v.clean" 2>&1
! grep -q 'V-20b' "$M/v.clean" && ok || bad "V-20b on an archived example without duplicates"

# ---- 8. archives inside a run directory (compare) ----
cp -r "$M/big_run" "$M/best"
cp -r "$M/big_run" "$M/cand"
mkdir "$M/cand/att"
mv "$M"/cand/ui_output_* "$M/cand/att/"
tar -C "$M/cand" -czf "$M/cand/caps.tar.gz" att
rm -rf "$M/cand/att"
"$BIN" compare -q -j 2 "$M/best" "$M/cand" -o "$M/cmp" 2>"$M/err.cmp"
[ $? = 0 ] && ok || { bad "compare with captures in an archive"; cat "$M/err.cmp"; }
python3 - "$M/cmp/compare.json" <<'EOF' && ok || bad "captures inside caps.tar.gz not read in place"
import json, sys
d = json.load(open(sys.argv[1]))
files = {(f["kind"], f["path"]) for f in d["candidate"]["files"]}
assert ("capture", "caps.tar.gz/att/ui_output_agent_24601_dispatch_14") in files, files
assert ("capture_shell", "caps.tar.gz/att/ui_output_agent_24601_dispatch_12") in files, files
pairs = d["trace"]["pairs"]
assert len(pairs) == 1 and pairs[0]["candidate_capture"] == "caps.tar.gz/att/ui_output_agent_24601_dispatch_14", pairs
# the capture read from the archive has the same records as the folder
assert pairs[0]["totals"]["records"]["best"] == pairs[0]["totals"]["records"]["candidate"], pairs[0]["totals"]
EOF
cp -r "$M/big_run" "$M/evilrun"
python3 - "$M/evilrun/bad.tar" <<'EOF'
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w") as t:
    data = b"x"
    i = tarfile.TarInfo("../escape.txt"); i.size = len(data)
    t.addfile(i, io.BytesIO(data))
EOF
"$BIN" compare -q "$M/best" "$M/evilrun" -o "$M/cmp2" 2>"$M/err.evil"
[ $? = 3 ] && grep -q 'bad.tar' "$M/err.evil" && grep -q '\.\.' "$M/err.evil" && [ ! -e "$M/cmp2" ] && ok ||
    { bad "a hostile archive in a run directory should exit 3 naming it"; cat "$M/err.evil"; }

echo "publish.sh: $pass passed, $fail failed"
[ $fail = 0 ]
