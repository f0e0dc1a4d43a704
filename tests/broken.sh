#!/bin/bash
# The broken-input corpus: every case applies one defect to a freshly
# generated capture (tests/broken/cases.tsv, tests/broken/mutate.py) and
# requires exit status 3, the exact first line of stderr listed in
# tests/broken/expected.txt (reviewed by hand), and no output file.
set -u
bin="$KR_BIN"; src="$KR_SRC"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" synth "$tmp/base" -q || { echo "broken: synth failed"; exit 1; }
base="$tmp/base/ui_output_agent_24601_dispatch_14"
pass=0 fail=0
: > "$tmp/actual.txt"
while IFS=$'\t' read -r name cmd file op arg _; do
    case "$name" in ''|'#'*) continue ;; esac
    cap="$tmp/cases/$name/ui_output_agent_24601_dispatch_14"
    mkdir -p "$tmp/cases/$name"
    cp -r "$base" "$cap"
    python3 "$src/tests/broken/mutate.py" "$cap" "$file" "$op" "$arg" || { echo "broken: $name: mutation failed"; fail=$((fail+1)); continue; }
    if [ "$cmd" = analyze ]; then
        "$bin" analyze "$cap" -o "$tmp/cases/$name/out" -q 2>"$tmp/err" >/dev/null; rc=$?
        [ -e "$tmp/cases/$name/out/REPORT.md" ] && { echo "broken: $name: REPORT.md written"; fail=$((fail+1)); }
    else
        "$bin" "$cmd" "$cap" 2>"$tmp/err" >/dev/null; rc=$?
    fi
    line=$(head -1 "$tmp/err" | sed "s|$tmp/cases/$name/ui_output_agent_24601_dispatch_14|CAP|g")
    printf '%s\t%s\t%s\n' "$name" "$rc" "$line" >> "$tmp/actual.txt"
    want=$(grep -P "^$name\t" "$src/tests/broken/expected.txt" | head -1)
    got=$(printf '%s\t%s\t%s' "$name" "$rc" "$line")
    if [ "$rc" = 3 ] && [ "$want" = "$got" ]; then pass=$((pass+1)); else
        fail=$((fail+1)); echo "broken: $name: got [$got]"; echo "broken: $name: want [$want]"
    fi
done < "$src/tests/broken/cases.tsv"
[ -n "${KR_BROKEN_ACTUAL:-}" ] && cp "$tmp/actual.txt" "$KR_BROKEN_ACTUAL"
echo "broken: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
