#!/bin/bash
# The sweep recipe of docs/sweep.md, end to end: generated captures listed
# with find, analyzed with GNU parallel and with scripts/sweep-slurm (one
# call per array task, as Slurm would make them), which must give the same
# analysis.json bytes; then `kreport index --analyses` over the results:
# one row per analysis whose figures are recomputed here from each
# analysis.json, idempotent, --check, and exit 3 on a foreign file. Over
# the hub (when present): the index of analysis.json files equals the one
# `kreport index` computes by analyzing the examples itself.
set -u
src="$KR_SRC"; bin="$KR_BIN"; hub="${KR_HUB:-}"
pass=0 fail=0
ok()  { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root="$tmp/captures"
mkdir -p "$root/runA" "$root/runB"
"$bin" synth -q "$root/runA/cap1" --waves 4 &&
"$bin" synth -q "$root/runA/cap2" --waves 12 --iterations 5 --seed 7 &&
"$bin" synth -q "$root/runB/cap3" --gfx gfx942 --waves 2 &&
"$bin" synth -q "$root/ex" --layout example || { bad "synth failed"; exit 1; }
# 1. the list, as docs/sweep.md writes it (the example's captures too)
(cd "$root" && find . -name filenames.json -printf '%h\n' | sort) > "$tmp/list"
n=$(wc -l < "$tmp/list")
[ "$n" -eq 5 ] && ok || bad "list has $n captures, expected 5"

# 2a. GNU parallel (installed by scripts/bootstrap)
if command -v parallel >/dev/null; then
    (cd "$tmp" && parallel -j 2 --joblog sweep.log \
        "$bin analyze $root/{} -o par/{} --format json --force -q -j 1" :::: "$tmp/list") &&
        ok || bad "parallel sweep failed"
    [ "$(find "$tmp/par" -name analysis.json | wc -l)" -eq "$n" ] && ok || bad "parallel wrote no analysis.json for some capture"
else
    echo "sweep: GNU parallel not installed (scripts/bootstrap installs it); its part skipped"
fi
# 2b. the job-array script, one task per line
for i in $(seq 1 "$n"); do
    SLURM_ARRAY_TASK_ID=$i SLURM_CPUS_PER_TASK=1 KREPORT="$bin" \
        "$src/scripts/sweep-slurm" "$root" "$tmp/list" "$tmp/slurm" || bad "sweep-slurm task $i failed"
done
[ "$(find "$tmp/slurm" -name analysis.json | wc -l)" -eq "$n" ] && ok || bad "sweep-slurm wrote no analysis.json for some capture"
if [ -d "$tmp/par" ]; then
    diff -r "$tmp/par" "$tmp/slurm" >/dev/null && ok || bad "parallel and sweep-slurm results differ"
fi
SLURM_ARRAY_TASK_ID=99 KREPORT="$bin" "$src/scripts/sweep-slurm" "$root" "$tmp/list" "$tmp/x" 2>/dev/null
[ $? -eq 2 ] && ok || bad "sweep-slurm past the list's end does not exit 2"
# the example analyzed whole, beside the captures
"$bin" analyze "$root/ex" -o "$tmp/slurm/example" --format json -q || bad "analyze example failed"

# 3. the index, recomputed from each analysis.json
"$bin" index --analyses "$tmp/slurm" -q || bad "index --analyses failed"
python3 - "$tmp/slurm" > "$tmp/check" <<'PY'
import json, os, sys
root = sys.argv[1]
rows = [l for l in open(os.path.join(root, "INDEX.md")) if l.startswith("| [`")]
kj = json.load(open(os.path.join(root, "kernels.json")))
found = sorted(os.path.relpath(d, root) for d, _, fs in os.walk(root) if "analysis.json" in fs)
def check(cond, what):
    print("ok" if cond else "bad " + what)
check(len(rows) == len(found) == len(kj["examples"]), f"{len(rows)} rows, {len(found)} analyses")
check(kj["schema"] == "kreport.index", "kernels.json schema")
for rel, row, e in zip(found, rows, kj["examples"]):
    a = json.load(open(os.path.join(root, rel, "analysis.json")))
    caps = a["captures"] if "captures" in a else [a]
    live = [c for c in caps if c["capture"]["waves"] > 0]
    big = [c for c in live if c["capture"]["label"].split(" ")[0] == "big"]
    p = big[0] if big else max(live, key=lambda c: c["capture"]["waves"])  # max keeps the first of equals
    raw = p["states"]["overall"]["raw"]
    sh = lambda k: "%.1f" % (100.0 * raw[k] / raw["total"])
    top = p["stalls"]["kreport"]["buckets"][0]
    k = p["occupancy_detail"]["kernels"][p["occupancy_detail"]["primary_kernel"]]
    want = (f"| [`{rel}`]({rel}/) | `{p['kernel']}` | {p['target']} | {len(caps)} | "
            f"{sh('EXEC')} / {sh('WAIT')} / {sh('STALL')} / {sh('IDLE')} % | "
            f"`{top['bucket']}` {100.0 * top['stall'] / p['stalls']['total_stall']:.1f} % | "
            f"{k['limiter']}, {k['waves_per_simd']} waves/SIMD | {p['mapping']['mapped']}/{p['mapping']['rows']} |\n")
    check(row == want, f"row of {rel}: {row!r} != {want!r}")
    check(e["example"] == rel and e["wave_state_cycles"]["exec"] == raw["EXEC"]
          and e["top_stall"]["cycles"] == top["stall"] and e["captures"] == len(caps), f"kernels.json entry of {rel}")
PY
while read -r r; do [ "$r" = ok ] && ok || bad "$r"; done < "$tmp/check"
"$bin" index --analyses "$tmp/slurm" 2>"$tmp/err"; [ $? -eq 0 ] && grep -q "no change (6 analyses)" "$tmp/err" && ok || bad "second index: $(cat "$tmp/err")"
"$bin" index --analyses --check "$tmp/slurm" -q && ok || bad "--check on fresh outputs"
"$bin" analyze "$root/$(head -1 "$tmp/list")" -o "$tmp/slurm/late" --format json -q
"$bin" index --analyses --check "$tmp/slurm" 2>/dev/null; [ $? -eq 1 ] && ok || bad "--check misses a new analysis"
echo '{"schema": "other"}' > "$tmp/slurm/late/analysis.json"
"$bin" index --analyses "$tmp/slurm" 2>"$tmp/err"; rc=$?
[ $rc -eq 3 ] && grep -q "late/analysis.json: not a kreport analysis" "$tmp/err" && ok || bad "foreign analysis.json: exit $rc, $(cat "$tmp/err")"
mkdir -p "$tmp/empty"
"$bin" index --analyses "$tmp/empty" 2>/dev/null; [ $? -eq 3 ] && ok || bad "no analysis.json does not exit 3"
[ ! -e "$tmp/empty/INDEX.md" ] && ok || bad "a failed index wrote INDEX.md"

# 4. over the hub: analysis.json files give the rows `kreport index` computes
if [ -n "$hub" ] && [ -d "$hub/examples" ]; then
    mkdir -p "$tmp/hub/examples" "$tmp/res"
    printf '# hub\n<!-- kreport:index:begin -->\n<!-- kreport:index:end -->\n' > "$tmp/hub/README.md"
    for e in "$hub"/examples/*/; do
        name=$(basename "$e")
        ln -s "$(cd "$e" && pwd)" "$tmp/hub/examples/$name"
        "$bin" analyze "$e" -o "$tmp/res/$name" --format json -q || bad "analyze $name failed"
    done
    "$bin" index -q "$tmp/hub" && "$bin" index --analyses -q "$tmp/res" || bad "hub index failed"
    # the same cells after the first; the same kernels.json entries
    diff <(grep '^| \[`' "$tmp/hub/README.md" | cut -d'|' -f3-) <(grep '^| \[`' "$tmp/res/INDEX.md" | cut -d'|' -f3-) &&
        ok || bad "hub rows differ between analyzing and reading analysis.json"
    python3 -c "import json,sys; a=json.load(open(sys.argv[1]))['examples']; b=json.load(open(sys.argv[2]))['examples']; sys.exit(a != b)" \
        "$tmp/hub/kernels.json" "$tmp/res/kernels.json" && ok || bad "hub kernels.json differs"
else
    echo "sweep: hub fixtures not found; the hub comparison is skipped"
fi
echo "sweep: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
