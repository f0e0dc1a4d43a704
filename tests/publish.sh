#!/bin/bash
# publish.sh — the publishing commands around an example folder:
#
# 1. validate's publishing checks on the synth example: the V-20e tail
#    percentage recomputed here from occupancy.json and realtime.json
#    (§6.3, §7.4) with python.
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
#    pa_mqa_logits_fp4's README lists but the folder lacks (FORMATS §11.2,
#    V-20), reports no error; index figures against FORMATS.md's reference
#    tables (timeline sums, mapping, §12.4/§12.5 limiters) and the top stall
#    bucket recomputed from code.json.
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
    # The files its README lists that the folder lacks (FORMATS §9, §11.2;
    # the Python sources are left out of the fixtures).
    for f in small_results.json big_results.json pa_mqa_logits_fp4.py test_pa_mqa_logits_fp4.py; do
        grep -q "^warning V-20 README.md: names $f, which is not in the example folder" "$T/v.pa" && ok ||
            bad "pa_mqa: README name $f not reported missing"
    done
    grep -q "^warning V-20 compute_viewer/big_results.json: missing" "$T/v.pa" && ok || bad "pa_mqa: big_results.json"
    # 0/726 rows mapped (FORMATS facts table); its README has a source mapping note.
    grep -q "^info V-20d att_viewer/big/ui_output_agent_55351_dispatch_426: 0/726 instruction rows are source-mapped; README.md" \
        "$T/v.pa" && ok || bad "pa_mqa: V-20d"
    # big: 507 workgroups on 256 CUs (FORMATS §10.2, §12.5), no tail: no V-20e.
    grep -q "V-20e" "$T/v.pa" && bad "pa_mqa: unexpected V-20e" || ok
    "$BIN" validate -j 2 "$HUB/examples/flash_attn_func" >"$T/v.fl" 2>&1
    [ $? = 0 ] && ! grep -q "^error" "$T/v.fl" && ok || bad "validate flash_attn_func"
    # 58550 has no results.json (FORMATS §9.3): its label's results.json is another run's.
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
# FORMATS.md facts tables: timeline sums by state 1/2/3/4, mapped k/N.
assert pa["primary"] == {"label": "big", "folder": "ui_output_agent_55351_dispatch_426"}
w = pa["wave_state_cycles"]
assert [w["idle"], w["exec"], w["wait"], w["stall"]] == [992, 795648, 465108, 340436], w
assert pa["source_mapping"] == {"mapped_rows": 0, "instruction_rows": 726}
assert pa["limiter"] == {"limiter": "vgpr", "waves_per_simd": 5}          # §12.5
assert pa["kernel"] == "pa_mqa_logits_fp4_kernel_0" and pa["target"] == "gfx950"
# flash: the primary is the capture with the most waves (8: 58550).
assert fl["primary"]["folder"] == "ui_output_agent_58550_dispatch_44_after_loc_fix"
w = fl["wave_state_cycles"]
assert [w["idle"], w["exec"], w["wait"], w["stall"]] == [1788, 180416, 126860, 58912], w
assert fl["source_mapping"] == {"mapped_rows": 2069, "instruction_rows": 2069}
assert fl["limiter"] == {"limiter": "vgpr", "waves_per_simd": 2}          # §12.4
# Top stall bucket of pa_mqa big recomputed from code.json: s_waitcnt rows
# naming vmcnt but no LDS/scalar counter, over kept rows (LineNumber != 0).
code = json.load(open(os.path.join(hub, "examples/pa_mqa_logits_fp4/att_viewer/big/ui_output_agent_55351_dispatch_426/code.json")))["code"]
kept = [r for r in code if r[2] != 0]
total = sum(r[8] for r in kept)
vm = sum(r[8] for r in kept if r[0].startswith("s_waitcnt") and "vmcnt" in r[0] and "lgkmcnt" not in r[0])
assert pa["top_stall"] == {"bucket": "wait_vmcnt", "cycles": vm, "total_stall": total}, (pa["top_stall"], vm, total)
assert total == 791816                                                    # FORMATS: Σ Stall
EOF
    then ok; else bad "index figures on the real hub"; fi
fi

echo "publish.sh: $pass passed, $fail failed"
[ $fail = 0 ]
