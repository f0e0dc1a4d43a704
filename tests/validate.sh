#!/bin/bash
# validate.sh — `kreport validate` end to end.
#
# 1. Goldens: a `kreport synth` capture and example bundle, validated as text
#    and JSON, compared byte for byte with tests/golden/validate/ (temporary
#    paths replaced by <DIR>; how each line was checked: tests/golden/README.md).
# 2. Broken captures: every tests/broken/validate/NN_*.py applies one defect
#    to a fresh copy of the synth bundle; the case header names the exit code
#    and the finding (severity, check id, message text) that must appear.
# 3. Usage errors.
# 4. The real hub captures (skipped when absent): no error finding, warnings
#    only V-18a and V-21 (docs/validate.md), Σ Hit = record count (recomputed here
#    from the files with python), exit 0.
#
# Env: KR_BIN (kreport), KR_SRC (source tree), KR_HUB (hub fixtures).
set -u
export PYTHONDONTWRITEBYTECODE=1   # no __pycache__ in the source tree
BIN=${KR_BIN:?KR_BIN not set}
SRC=${KR_SRC:?KR_SRC not set}
GOLD=$SRC/tests/golden/validate
CASES=$SRC/tests/broken/validate
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

"$BIN" synth -q "$T/cap" >/dev/null || { echo "FAIL: kreport synth (capture)"; exit 1; }
"$BIN" synth -q --layout example "$T/ex" >/dev/null || { echo "FAIL: kreport synth (example)"; exit 1; }
CAP=$(ls -d "$T"/cap/ui_output_*)

# ---- 1. goldens ----
golden() {   # name, expected exit, args...
    local name=$1 want=$2
    shift 2
    local out="$T/out.$name" rc
    "$BIN" validate "$@" >"$out.raw" 2>"$out.err"
    rc=$?
    sed "s#$T#<DIR>#g" "$out.raw" >"$out"
    if [ "$rc" != "$want" ]; then bad "golden $name: exit $rc, expected $want"; cat "$out.err"; return; fi
    if [ -n "${KR_UPDATE_GOLDEN:-}" ]; then cp "$out" "$GOLD/$name"; fi
    if diff -u "$GOLD/$name" "$out"; then ok; else bad "golden $name differs"; fi
}
golden capture.txt 0 "$CAP"
golden capture.json 0 --json "$CAP"
golden example.txt 0 "$T/ex"
golden example.json 0 --json "$T/ex"
golden capture_quiet.txt 0 -q "$CAP"
golden capture_max1.txt 0 --max 1 "$CAP"
# The JSON is well-formed and its counts agree with the finding lists.
if python3 - "$T/out.example.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "kreport.validate" and d["schema_version"] == 1
assert len(d["captures"]) == 2
for c in d["captures"]:
    assert set(c) == {"path", "folder", "errors", "warnings", "infos", "findings"}
    for sev, key in (("error", "errors"), ("warning", "warnings"), ("info", "infos")):
        assert c[key] == sum(1 for f in c["findings"] if f["severity"] == sev), (c["folder"], sev)
    for f in c["findings"]:
        assert set(f) == {"id", "severity", "location", "message"}
assert [e["name"] for e in d["examples"]] == ["ex"]
assert set(d["examples"][0]) == {"path", "name", "errors", "warnings", "infos", "findings"}
EOF
then ok; else bad "validate --json structure"; fi

# ---- 2. broken captures ----
for case in "$CASES"/[0-9]*.py; do
    name=$(basename "$case" .py)
    layout=$(sed -n 's/^# layout: *//p' "$case")
    path=$(sed -n 's/^# path: *//p' "$case")
    args=$(sed -n 's/^# args: *//p' "$case")
    optional=$(sed -n 's/^# optional: *//p' "$case")
    dir="$T/case.$name"
    mkdir -p "$dir"
    if [ "$layout" = example ]; then
        cp -r "$T/ex" "$dir/root"
        root="$dir/root"
        target="$root/$path"
        # a capture folder, an example root (att_viewer/), or the one capture below
        [ -f "$target/filenames.json" ] || [ -d "$target/att_viewer" ] ||
            target=$(ls -d "$target"/ui_output_* | head -1)
    else
        root="$dir"
        cp -r "$CAP" "$dir/"
        target="$dir/$(basename "$CAP")"
    fi
    if ! PYTHONPATH="$CASES" python3 "$case" "$target" "$root"; then
        bad "$name: the case script failed"
        continue
    fi
    args=${args//\{ROOT\}/$root}
    # shellcheck disable=SC2086
    "$BIN" validate $args "$target" >"$dir/out" 2>"$dir/err"
    rc=$?
    while read -r want sev id text; do
        if [ "$rc" != "$want" ]; then
            bad "$name: exit $rc, expected $want"
            cat "$dir/out" "$dir/err"
            continue
        fi
        if [ "$sev" = load ]; then
            # "kreport: <path of the file>:<where>: <message>" on stderr, nothing on stdout
            if grep -q "^kreport: [^ ]*$id" "$dir/err" && [ "$(wc -l <"$dir/err")" = 1 ]; then ok
            else bad "$name: expected one load error naming $id"; cat "$dir/err"; fi
            continue
        fi
        if grep -F -- "$sev $id " "$dir/out" | grep -q -F -- "$text"; then
            ok
        elif [ -n "$optional" ]; then
            echo "SKIP $name: $sev $id not reported ($optional)"
        else
            bad "$name: no '$sev $id ... $text' finding"
            cat "$dir/out"
        fi
    done < <(sed -n 's/^# expect: *//p' "$case")
done

# ---- 3. usage ----
"$BIN" validate >/dev/null 2>&1
[ $? = 2 ] && ok || bad "validate without PATH should exit 2"
"$BIN" validate --bogus "$CAP" >/dev/null 2>&1
[ $? = 2 ] && ok || bad "validate --bogus should exit 2"
"$BIN" validate "$T/nonexistent" >/dev/null 2>"$T/err.none"
[ $? = 3 ] && grep -q "^kreport: $T/nonexistent" "$T/err.none" && ok || bad "missing PATH should exit 3"

# ---- 4. the real captures ----
HUB=${KR_HUB:-}
if [ -z "$HUB" ] || [ ! -d "$HUB/examples" ]; then
    echo "validate.sh: hub fixtures absent, skipping the real-capture part"
else
    for d in "$HUB"/examples/*/att_viewer/*/ui_output_*; do
        n=$(basename "$d")
        "$BIN" validate "$d" >"$T/hub.$n" 2>&1
        rc=$?
        [ $rc = 0 ] && ok || { bad "hub $n: exit $rc"; cat "$T/hub.$n"; }
        if grep -q "^error " "$T/hub.$n"; then bad "hub $n: error findings"; grep "^error " "$T/hub.$n"; else ok; fi
        other=$(grep "^warning " "$T/hub.$n" | grep -v -e "^warning V-18a " -e "^warning V-21 ")
        [ -z "$other" ] && ok || bad "hub $n: unexpected warnings: $other"
        grep -q "^warning V-21 " "$T/hub.$n" && ok || bad "hub $n: V-21 under-report not flagged"
        case $n in
            *32235_dispatch_44) grep -q "^warning V-18a " "$T/hub.$n" && bad "hub $n: V-18a" || ok ;;
            *) grep -q "^warning V-18a " "$T/hub.$n" && ok || bad "hub $n: V-18a missing" ;;
        esac
        # Σ Hit of code.json = number of records in the wave files (no truncation).
        if python3 - "$d" <<'EOF'
import json, os, sys
d = sys.argv[1]
hits = sum(r[6] for r in json.load(open(os.path.join(d, "code.json")))["code"])
fn = json.load(open(os.path.join(d, "filenames.json")))["wave_filenames"]
records = 0
for se in fn.values():
    for simd in se.values():
        for slot in simd.values():
            for entry in slot.values():
                w = json.load(open(os.path.join(d, entry[0])))
                records += len(w["wave"]["instructions"] or [])
assert hits == records, (hits, records)
EOF
        then ok; else bad "hub $n: sum of Hit != records"; fi
    done
fi

echo "validate.sh: $pass passed, $fail failed"
[ $fail = 0 ]
