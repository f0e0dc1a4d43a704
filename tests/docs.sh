#!/bin/bash
# The documentation is one text: every docs/TOPIC.md is what `kreport help
# TOPIC` prints, byte for byte; every topic the reports and the code cite
# exists; every link between the docs lands on a file and a heading; every
# validate check the code can emit is documented in docs/validate.md; and no
# file of the project cites a document the repository does not hold.
set -u
src="$KR_SRC"; bin="$KR_BIN"
pass=0 fail=0
ok()  { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*"; }
cd "$src" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Each topic file: titled with its name, printed verbatim by `kreport help`.
for f in docs/*.md; do
    t=$(basename "$f" .md)
    [ "$t" = README ] && continue
    [ "$(head -1 "$f")" = "# $t" ] && ok || bad "$f: first line is not '# $t'"
    "$bin" help "$t" > "$tmp/out" 2>"$tmp/err" || { bad "kreport help $t failed: $(cat "$tmp/err")"; continue; }
    if cli=$("$bin" "$t" --help 2>/dev/null); then
        # a command and a topic: the options, a blank line, then the topic
        { printf '%s\n\n' "$cli"; cat "$f"; } | cmp -s - "$tmp/out" && ok || bad "kreport help $t is not its options + $f"
    else
        cmp -s "$f" "$tmp/out" && ok || bad "kreport help $t differs from $f"
    fi
done
"$bin" help no-such-topic >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "an unknown topic does not exit 2"

# The topics the reports cite (the contract with the report sections).
for t in wave-states instruction-classes stalls hotspots waits hidden-latency phases sources \
         occupancy roofline findings capture compare validate limits formats outputs sweep; do
    [ -f "docs/$t.md" ] && ok || bad "topic $t has no docs/$t.md"
done

# Every `kreport help X` written anywhere in the project names a topic or command.
grep -rhoE 'kreport help [a-z][a-z-]*' --include='*.c' --include='*.h' --include='*.md' --include='*.sh' \
    analyzer bundle cli common report synth templates docs README.md examples 2>/dev/null |
    awk '{print $3}' | sort -u | while read -r t; do
        case "$t" in CMD|TOPIC) continue ;; esac
        if "$bin" help "$t" >/dev/null 2>&1; then echo ok; else echo "bad kreport help $t: no such topic"; fi
    done > "$tmp/cites"
while read -r r; do [ "$r" = ok ] && ok || bad "$r"; done < "$tmp/cites"

# Links between docs: [text](file.md) and [text](file.md#anchor), GitHub anchors.
python3 - "$src/docs" > "$tmp/links" <<'PY'
import os, re, sys
d = sys.argv[1]
def anchors(path):
    out = set()
    for line in open(path, encoding="utf-8"):
        m = re.match(r"#+ (.*)", line)
        if m:
            a = m.group(1).strip().lower()
            a = re.sub(r"[^\w\- ]", "", a).replace(" ", "-")
            out.add(a)
    return out
for f in sorted(os.listdir(d)):
    if not f.endswith(".md"):
        continue
    text = open(os.path.join(d, f), encoding="utf-8").read()
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if "://" in target:
            continue
        file, _, anchor = target.partition("#")
        path = os.path.join(d, file or f)
        if not os.path.exists(path):
            print(f"bad {f}: link to missing {target}")
        elif anchor and anchor not in anchors(path):
            print(f"bad {f}: link to missing heading {target}")
        else:
            print("ok")
PY
while read -r r; do [ "$r" = ok ] && ok || bad "$r"; done < "$tmp/links"

# Every validate check the code emits is documented.
grep -rhoE '"V-[0-9]+[a-z]?"' analyzer bundle cli | tr -d '"' | sort -u > "$tmp/ids"
while read -r id; do
    grep -q "^| $id |" docs/validate.md && ok || bad "$id is emitted but not in docs/validate.md"
done < "$tmp/ids"
# No file of the project cites a document the repository does not hold (the
# project's reference documents had these names; their facts live in docs/
# now), and none speaks of its development history.
git ls-files -z 2>/dev/null | xargs -0 grep -nIE 'FORMATS(\.md)?|LOOP\.md|ARCHITECTURE\.md|STYLE\.md|DEVELOPERS\.md|§' \
    -- 2>/dev/null | grep -v '^tests/docs.sh:' > "$tmp/cites" || true
[ ! -s "$tmp/cites" ] && ok || bad "citations of documents outside the repository: $(head -5 "$tmp/cites")"
git ls-files -z 2>/dev/null | xargs -0 grep -nIiE '\b(development|coding) (round|session)s?\b|\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|this|previous|next|earlier) session\b' \
    -- 2>/dev/null | grep -v '^tests/docs.sh:' > "$tmp/history" || true
[ ! -s "$tmp/history" ] && ok || bad "development history: $(head -5 "$tmp/history")"
echo "docs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
