#!/bin/bash
# README.md stays true: its option blocks equal `kreport help CMD`, its first
# two commands are the bootstrap+analyze line and the test line that .ci/run
# runs, and every `kreport ...` example line in it runs with exit status 0.
set -u
src="$KR_SRC"; bin="$KR_BIN"
pass=0 fail=0
ok()  { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*"; }
cd "$src" || exit 1
"$src/scripts/readme-help" --check "$bin" && ok || bad "option blocks out of date"
first=$(awk '/^```sh$/{getline; print; exit}' README.md)
second=$(awk '/^```sh$/{n++; if (n==2) {getline; print; exit}}' README.md)
case "$first" in ./scripts/bootstrap*"kreport analyze examples/"*) ok ;; *) bad "first command is '$first'" ;; esac
[ "$second" = "./scripts/test" ] && ok || bad "second command is '$second'"
grep -q '^\./scripts/test$' .ci/run && ok || bad ".ci/run does not run ./scripts/test"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Example lines: "$ kreport ..." inside the Examples section, run from the repo root.
grep -E '^\$ kreport ' README.md | sed 's/^\$ kreport //' | while read -r line; do
    line=${line//OUT/$tmp\/out}
    # shellcheck disable=SC2086
    if eval "\"$bin\" $line" >/dev/null 2>"$tmp/err"; then echo ok; else echo "bad kreport $line: $(head -c 200 "$tmp/err")"; fi
done > "$tmp/res"
while read -r r; do
    if [ "$r" = ok ]; then ok; else bad "$r"; fi
done < "$tmp/res"
echo "readme: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
