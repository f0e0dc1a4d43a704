#!/bin/bash
# The broken-input corpus: every case applies one defect to a freshly
# generated capture (tests/broken/cases.tsv, tests/broken/mutate.py) and runs
# one command on it. Two kinds of expectation (column 6 of cases.tsv):
#
#   @  a load error: exit status 3, the exact first line of stderr listed in
#      tests/broken/expected.txt (reviewed by hand), and no output file;
#   !  not an input error by design (docs/formats.md says the loader accepts it and
#      validate reports it, or it must simply be ignored): the exit status and
#      a line that must appear in stdout, stderr or the written REPORT.md, and
#      optionally a text that must appear nowhere (stdout, stderr, any output
#      file), listed in tests/broken/findings.txt.
#
# The command column is analyze, validate or info, optionally followed by
# arguments placed after the capture path; {cap} in them is the capture
# folder. In expected lines CAP stands for the capture folder and CASE for
# the folder that holds it. KR_BROKEN_ACTUAL=FILE writes what each case
# printed (for review after a change).
set -u
bin="$KR_BIN"; src="$KR_SRC"
tmp=$(mktemp -d)
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
"$bin" synth "$tmp/base" -q || { echo "broken: synth failed"; exit 1; }
"$bin" synth "$tmp/run" -q --layout run || { echo "broken: synth --layout run failed"; exit 1; }
export KR_BROKEN_RUN="$tmp/run"
base="$tmp/base/ui_output_agent_24601_dispatch_14"
pass=0 fail=0 nexit3=0 nfinding=0
: > "$tmp/actual.txt"
while IFS= read -r row; do
    # Tabs are IFS whitespace (runs would merge empty fields): split on \x1f.
    IFS=$'\x1f' read -r name cmdline file op arg kind _ <<< "${row//$'\t'/$'\x1f'}"
    case "$name" in ''|'#'*) continue ;; esac
    dir="$tmp/cases/$name"
    cap="$dir/ui_output_agent_24601_dispatch_14"
    mkdir -p "$dir"
    cp -r "$base" "$cap"
    python3 "$src/tests/broken/mutate.py" "$cap" "$file" "$op" "$arg" || { echo "broken: $name: mutation failed"; fail=$((fail+1)); continue; }
    read -r -a words <<< "${cmdline//\{cap\}/$cap}"
    cmd=${words[0]}
    extra=("${words[@]:1}")
    out="$dir/out"
    if [ "$cmd" = analyze ]; then
        timeout 60 "$bin" analyze "$cap" -o "$out" -q "${extra[@]}" 2>"$tmp/err" >"$tmp/stdout"; rc=$?
    else
        timeout 60 "$bin" "$cmd" "$cap" "${extra[@]}" 2>"$tmp/err" >"$tmp/stdout"; rc=$?
    fi
    norm() { sed -e "s|$cap|CAP|g" -e "s|$dir|CASE|g"; }
    line=$(head -1 "$tmp/err" | norm)
    printf '%s\t%s\t%s\n' "$name" "$rc" "$line" >> "$tmp/actual.txt"
    if [ "$kind" = '!' ]; then
        nfinding=$((nfinding+1))
        want=$(grep -P "^$name\t" "$src/tests/broken/findings.txt" | head -1)
        IFS=$'\x1f' read -r _ want_rc want_line want_absent <<< "${want//$'\t'/$'\x1f'}"
        { cat "$tmp/stdout" "$tmp/err"; [ -f "$out/REPORT.md" ] && cat "$out/REPORT.md"; } | norm > "$tmp/all"
        ok=1
        [ -n "$want" ] || { echo "broken: $name: no entry in findings.txt"; ok=0; }
        [ "$rc" = "$want_rc" ] || { echo "broken: $name: exit $rc, want $want_rc"; ok=0; }
        grep -qFx -- "$want_line" "$tmp/all" || { echo "broken: $name: no line [$want_line]"; ok=0; }
        if [ -n "${want_absent:-}" ] && { grep -rqF -- "$want_absent" "$tmp/all" || { [ -d "$out" ] && grep -rqF -- "$want_absent" "$out"; }; }; then
            echo "broken: $name: [$want_absent] appears in the output"; ok=0
        fi
        if [ $ok = 0 ]; then
            fail=$((fail+1)); sed 's/^/broken:   | /' "$tmp/all" | head -20
        else
            pass=$((pass+1))
        fi
        continue
    fi
    nexit3=$((nexit3+1))
    if [ "$cmd" = analyze ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
        echo "broken: $name: output written: $(ls -A "$out" | tr '\n' ' ')"; fail=$((fail+1)); continue
    fi
    want=$(grep -P "^$name\t" "$src/tests/broken/expected.txt" | head -1)
    got=$(printf '%s\t%s\t%s' "$name" "$rc" "$line")
    if [ "$rc" = 3 ] && [ "$want" = "$got" ]; then pass=$((pass+1)); else
        fail=$((fail+1)); echo "broken: $name: got [$got]"; echo "broken: $name: want [$want]"
    fi
done < "$src/tests/broken/cases.tsv"
[ -n "${KR_BROKEN_ACTUAL:-}" ] && cp "$tmp/actual.txt" "$KR_BROKEN_ACTUAL"
echo "broken: $pass passed, $fail failed ($nexit3 load errors with exit 3, $nfinding accepted-by-design cases)"
[ "$fail" -eq 0 ]
