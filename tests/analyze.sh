#!/bin/bash
# kreport analyze end to end: outputs, schema, exit codes, atomic writes,
# and every number checked against an independent recomputation on the real
# captures under ../shared/fixtures/hub (skipped with a message if absent).
set -u
bin="$KR_BIN"; src="$KR_SRC"; hub="${KR_HUB:-}"
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
pass=0 fail=0
ok()   { pass=$((pass+1)); }
bad()  { fail=$((fail+1)); echo "FAIL: $*"; }
expect_rc() {  # want cmd...
    local want=$1; shift
    "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
    if [ "$rc" = "$want" ]; then ok; else bad "exit $rc (want $want): $* :: $(head -c 300 "$tmp/err")"; fi
}
schema="$src/report/schema/analysis.schema.json"
check="$src/tests/tools/schema_check.py"

# The project's example: all outputs, valid against the schema.
ex="$src/examples/synth_gfx950"
if [ -d "$ex" ]; then
    expect_rc 0 "$bin" analyze "$ex" -o "$tmp/ex" -q
    for f in REPORT.md analysis.json hotspots.csv source_lines.csv; do
        [ -s "$tmp/ex/$f" ] && ok || bad "example: $f missing"
    done
    python3 "$check" "$schema" "$tmp/ex/analysis.json" && ok || bad "example analysis.json does not match the schema"
    # Existing outputs are never clobbered without --force (exit 4), and stay unchanged.
    cp "$tmp/ex/REPORT.md" "$tmp/before.md"
    expect_rc 4 "$bin" analyze "$ex" -o "$tmp/ex"
    cmp -s "$tmp/before.md" "$tmp/ex/REPORT.md" && ok || bad "REPORT.md changed by a refused run"
    expect_rc 0 "$bin" analyze "$ex" -o "$tmp/ex" --force -q
else
    bad "examples/synth_gfx950 missing"
fi

# Parsing and the analyses run on several threads: outputs must not depend
# on how many.
if [ -d "$ex" ]; then
    for j in 1 3; do
        expect_rc 0 "$bin" analyze "$ex" -o "$tmp/j$j" -j "$j" -q
    done
    diff -r "$tmp/j1" "$tmp/j3" >/dev/null && ok || bad "outputs differ between -j 1 and -j 3"
fi

# The schema check itself fails on an undeclared key.
python3 - "$tmp/ex/analysis.json" "$tmp/undeclared.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
target = d["captures"][0] if "captures" in d else d
target["totals"]["not_in_schema"] = 1
json.dump(d, open(sys.argv[2], "w"))
PY
python3 "$check" "$schema" "$tmp/undeclared.json" >/dev/null && bad "schema check accepted an undeclared key" || ok

# Usage and input errors.
expect_rc 2 "$bin" analyze
expect_rc 2 "$bin" analyze "$tmp" --format nope
expect_rc 2 "$bin" analyze "$tmp" --format all
expect_rc 3 "$bin" analyze "$tmp/does-not-exist"
expect_rc 3 "$bin" analyze "$tmp"
grep -q "not a capture folder" "$tmp/err" && ok || bad "message for a non-capture folder"

# An unwritable output directory: exit 4 and nothing left behind.
if [ -d "$ex" ] && [ "$(id -u)" != 0 ]; then
    mkdir "$tmp/ro"; chmod a-w "$tmp/ro"
    expect_rc 4 "$bin" analyze "$ex" -o "$tmp/ro"
    [ -z "$(ls -A "$tmp/ro")" ] && ok || bad "files left in a read-only directory"
fi
# A run that fails on input leaves no output at all.
if [ -d "$ex" ]; then
    cap=$(dirname "$(find "$ex/att_viewer" -name filenames.json | sort | head -1)")
    cp -r "$cap" "$tmp/broken"
    printf '{"code": [' > "$tmp/broken/code.json"
    expect_rc 3 "$bin" analyze "$tmp/broken" -o "$tmp/never"
    [ ! -e "$tmp/never/REPORT.md" ] && ok || bad "REPORT.md written for a failed run"
    grep -q "code.json" "$tmp/err" && ok || bad "error does not name code.json"
fi

# Real captures: schema + independent recomputation of totals, wave states,
# hub buckets and mapping.
if [ -n "$hub" ] && [ -d "$hub/examples" ]; then
    for cap in "$hub"/examples/*/att_viewer/*/ui_output_*; do
        name=$(basename "$cap")
        expect_rc 0 "$bin" analyze "$cap" -o "$tmp/$name" -q
        python3 "$check" "$schema" "$tmp/$name/analysis.json" && ok || bad "$name: schema"
        python3 "$src/tests/tools/recompute.py" "$cap" "$tmp/$name/analysis.json" && ok || bad "$name: recomputation differs"
    done
    for exdir in "$hub"/examples/*/; do
        name=$(basename "$exdir")
        expect_rc 0 "$bin" analyze "$exdir" -o "$tmp/ex_$name" -q
        python3 "$check" "$schema" "$tmp/ex_$name/analysis.json" && ok || bad "$name: schema (example)"
        n=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['captures']))" "$tmp/ex_$name/analysis.json")
        want=$(find "$exdir/att_viewer" -name filenames.json | wc -l)
        [ "$n" = "$want" ] && ok || bad "$name: $n captures in analysis.json, $want on disk"
    done
else
    echo "analyze: hub fixture not found; real-capture checks skipped"
fi

echo "analyze: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
