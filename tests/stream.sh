#!/bin/bash
# Streaming and progress (docs/architecture.md#streaming): `kreport analyze`
# streams the waves through the analyses while they load; its outputs must
# equal those of the in-memory path (--in-memory: every wave loaded whole,
# then analyzed) byte for byte, at -j 1 and -j 2, on the hub captures and on
# generated multi-SE bundles (one with several waves per (SE, SIMD) scope).
# The progress bar goes to stderr only: silent when stderr is not a
# terminal, shown with --progress, never with --quiet or --no-progress, and
# stdout never carries it.
set -u
bin="${KR_BIN:-}"
hub="${KR_HUB:-}"
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
    echo "stream.sh: KR_BIN not set or not executable, skipped"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "stream.sh: $*"; }

# same_outputs CAPTURE: streamed -j1 / -j2 vs in-memory -j1, every format
same_outputs() {
    local cap=$1 name
    name=$(basename "$cap")
    if ! "$bin" analyze "$cap" -o "$tmp/mem" --force -q -j 1 --in-memory 2>"$tmp/err"; then
        bad "$name: in-memory analyze failed: $(head -c 300 "$tmp/err")"
        return
    fi
    for j in 1 2; do
        if ! "$bin" analyze "$cap" -o "$tmp/str$j" --force -q -j $j 2>"$tmp/err"; then
            bad "$name: streamed analyze -j $j failed: $(head -c 300 "$tmp/err")"
            continue
        fi
        for f in analysis.json REPORT.md hotspots.csv source_lines.csv report.html; do
            if cmp -s "$tmp/mem/$f" "$tmp/str$j/$f"; then ok; else bad "$name: $f streamed (-j $j) differs from in-memory"; fi
        done
    done
}

# 1. the hub captures
if [ -n "$hub" ] && [ -d "$hub/examples" ]; then
    for cap in "$hub"/examples/*/att_viewer/*/ui_output_*; do
        [ -d "$cap" ] && same_outputs "$cap"
    done
else
    echo "stream.sh: hub fixtures not found (KR_HUB), hub part skipped"
fi

# 2. generated bundles: 16 waves on 4 SEs (one wave per scope) and 40 waves
#    (two or three per (SE, SIMD) scope), jittered
"$bin" synth "$tmp/g16" --waves 16 --iterations 5 --seed 3 -q || bad "synth g16 failed"
"$bin" synth "$tmp/g40" --waves 40 --iterations 4 --seed 7 -q || bad "synth g40 failed"
for g in "$tmp/g16" "$tmp/g40"; do
    for cap in "$g"/ui_output_*; do
        [ -d "$cap" ] && same_outputs "$cap"
    done
done
cap=$(ls -d "$tmp"/g40/ui_output_* | head -1)
se=$(ls "$cap" | grep -c '^se.*_wv.*\.json$')
[ "$se" = 40 ] && ok || bad "g40 has $se wave files, expected 40"

# 2b. a wave file whose own SE differs from filenames.json (validate flags
#     it): the loader's groups are then not the scopes hidden latency uses,
#     and analyze falls back to a whole load; the outputs still agree
cp -r "$cap" "$tmp/moved"
f=$(ls "$tmp/moved"/se0_sm0_*_wv*.json | head -1)
sed -i 's/"name":"SE0"/"name":"SE1"/' "$f"
grep -q '"name":"SE1"' "$f" && ok || bad "could not edit $f"
same_outputs "$tmp/moved"

# 2c. a loop whose back edge names a label instead of an offset: its loop is
#     found only in the streams, so the records are kept and analyzed whole
#     at the end (analyzer/stream.h); the outputs still agree
cp -r "$cap" "$tmp/label"
sed -i 's/"s_cbranch_scc1 65514"/"s_cbranch_scc1 BB0_3"/' "$tmp/label/code.json"
grep -q 'BB0_3' "$tmp/label/code.json" && ok || bad "could not edit the back edge in code.json"
same_outputs "$tmp/label"

# 3. progress: silent by default off a terminal; --progress draws on stderr;
#    --quiet and --no-progress win; stdout (Markdown to stdout) stays clean
"$bin" analyze "$cap" -j 2 >"$tmp/out" 2>"$tmp/err"
grep -Eq '[0-9]+/[0-9]+ files' "$tmp/err" && bad "progress drawn although stderr is not a terminal" || ok
"$bin" analyze "$cap" -j 2 --progress >"$tmp/out" 2>"$tmp/err"
grep -q '40/40 files' "$tmp/err" && ok || bad "--progress: no final '40/40 files' line on stderr: $(head -c 300 "$tmp/err")"
grep -Eq '[0-9]+/[0-9]+ files' "$tmp/out" && bad "--progress wrote to stdout" || ok
head -1 "$tmp/out" | grep -q '^# ' && ok || bad "--progress: stdout is not the Markdown report"
for flag in --quiet --no-progress; do
    "$bin" analyze "$cap" -j 2 --progress $flag >"$tmp/out" 2>"$tmp/err"
    grep -Eq '[0-9]+/[0-9]+ files' "$tmp/err" && bad "$flag still drew the progress bar" || ok
done
# on a terminal (script(1) gives one) the bar appears for runs over a
# second only: a small capture stays silent
if command -v script >/dev/null 2>&1; then
    script -qec "'$bin' analyze '$cap' -o '$tmp/tty' --force -j 2" /dev/null >"$tmp/tty.log" 2>&1
    grep -Eq '[0-9]+/[0-9]+ files' "$tmp/tty.log" && bad "progress drawn on a terminal for a short run" || ok
fi

echo "stream.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]
