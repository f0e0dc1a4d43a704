#!/bin/bash
# `kreport synth` from the command line: the committed example regenerates
# byte for byte, output is deterministic, exit codes follow docs/architecture.md
# (2 usage, 4 output not writable), and --size-mb produces about N MiB.
set -u
bin="${KR_BIN:-}"
src="${KR_SRC:-}"
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
    echo "synth.sh: KR_BIN not set or not executable, skipped"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "synth.sh: $*"; }
expect_rc() {  # expected-rc description command...
    local want=$1 what=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    if [ "$got" = "$want" ]; then ok; else bad "$what: exit $got, expected $want ($(head -c 300 "$tmp/err"))"; fi
}

# 1. the committed example is exactly what the documented command writes
if [ -n "$src" ] && [ -d "$src/examples/synth_gfx950" ]; then
    expect_rc 0 "regenerate example" "$bin" synth "$tmp/example" --layout example --gfx gfx950 --seed 0 \
        --waves 8 --iterations 3 -q
    if diff -r -x REPORT.md -x analysis.json -x hotspots.csv -x source_lines.csv -x report.html "$src/examples/synth_gfx950" "$tmp/example" >"$tmp/diff"; then ok; else
        bad "examples/synth_gfx950 differs from a fresh generation:"; head -20 "$tmp/diff"
    fi
    # the README's command is the one used above
    if grep -q -- '--layout example --gfx gfx950 --seed 0 --waves 8 --iterations 3' "$src/examples/README.md"; then ok; else
        bad "examples/README.md does not show the generating command"
    fi
else
    echo "synth.sh: examples/synth_gfx950 not found, regeneration check skipped"
fi

# 2. determinism for every layout and target
for args in "--layout capture" "--layout run --gfx gfx942" "--layout example --seed 11 --waves 3 --iterations 2"; do
    # shellcheck disable=SC2086
    expect_rc 0 "synth $args (1)" "$bin" synth "$tmp/d1" $args -q
    # shellcheck disable=SC2086
    expect_rc 0 "synth $args (2)" "$bin" synth "$tmp/d2" $args -q
    if diff -r "$tmp/d1" "$tmp/d2" >/dev/null; then ok; else bad "synth $args is not deterministic"; fi
    rm -rf "$tmp/d1" "$tmp/d2"
done

# 3. the capture layout's folder and summary line
expect_rc 0 "capture layout" "$bin" synth "$tmp/c"
if grep -q "ui_output_agent_24601_dispatch_14: 8 waves x 3 iterations, 568 records" "$tmp/out"; then ok; else
    bad "unexpected summary: $(cat "$tmp/out")"
fi
[ -f "$tmp/c/ui_output_agent_24601_dispatch_14/filenames.json" ] && ok || bad "capture folder missing"

# 4. exit codes
expect_rc 4 "non-empty DIR without --force" "$bin" synth "$tmp/c"
expect_rc 0 "non-empty DIR with --force" "$bin" synth "$tmp/c" --force -q
expect_rc 2 "no DIR" "$bin" synth
expect_rc 2 "two DIRs" "$bin" synth "$tmp/x" "$tmp/y"
expect_rc 2 "bad layout" "$bin" synth "$tmp/x" --layout nope
expect_rc 2 "bad target" "$bin" synth "$tmp/x" --gfx gfx90a
expect_rc 2 "zero waves" "$bin" synth "$tmp/x" --waves 0
expect_rc 2 "too many waves" "$bin" synth "$tmp/x" --waves 129
expect_rc 2 "size and iterations" "$bin" synth "$tmp/x" --size-mb 4 --iterations 9
expect_rc 2 "unknown option" "$bin" synth "$tmp/x" --frobnicate
[ -e "$tmp/x" ] && bad "a usage error created $tmp/x" || ok
: > "$tmp/file"
expect_rc 4 "DIR is a file" "$bin" synth "$tmp/file"
expect_rc 4 "parent is a file" "$bin" synth "$tmp/file/sub"

# 5. --size-mb: wave files total about N MiB (here 8, within 10 %)
expect_rc 0 "size-mb 8" "$bin" synth "$tmp/s" --size-mb 8 -q
total=$(cat "$tmp"/s/ui_output_*/se*_sm*_sl*_wv*.json | wc -c)
lo=$((8 * 1048576 * 9 / 10)) hi=$((8 * 1048576 * 11 / 10))
if [ "$total" -ge "$lo" ] && [ "$total" -le "$hi" ]; then ok; else bad "--size-mb 8 wrote $total bytes of wave files"; fi
n=$(ls "$tmp"/s/ui_output_*/se*_sm*_sl*_wv*.json | wc -l)
[ "$n" = 32 ] && ok || bad "--size-mb without --waves wrote $n waves, expected 32"

echo "synth.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]
