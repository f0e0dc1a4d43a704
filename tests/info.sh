#!/bin/bash
# info.sh — `kreport info` end to end.
#
# 1. Goldens: a `kreport synth` capture and example bundle, as text and JSON,
#    compared byte for byte with tests/golden/info/ (temporary paths replaced
#    by <DIR>; every number is derived in tests/golden/README.md).
# 2. Files present / missing / extra on edited copies.
# 3. Usage and load errors.
# 4. The real hub captures (skipped when absent): every figure of the
#    docs/formats.md facts table (waves, static, records, mapped, span raw and
#    aligned, measured clock) and the target.
#
# Env: KR_BIN (kreport), KR_SRC (source tree), KR_HUB (hub fixtures).
set -u
export PYTHONDONTWRITEBYTECODE=1   # no __pycache__ in the source tree
BIN=${KR_BIN:?KR_BIN not set}
SRC=${KR_SRC:?KR_SRC not set}
GOLD=$SRC/tests/golden/info
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
has() {   # file, exact line
    if grep -q -x -F -- "$2" "$1"; then ok; else bad "$1: no line '$2'"; cat "$1"; fi
}

"$BIN" synth -q "$T/cap" >/dev/null || { echo "FAIL: kreport synth (capture)"; exit 1; }
"$BIN" synth -q --layout example "$T/ex" >/dev/null || { echo "FAIL: kreport synth (example)"; exit 1; }
CAP=$(ls -d "$T"/cap/ui_output_*)

# ---- 1. goldens ----
golden() {   # name, args...
    local name=$1
    shift
    local out="$T/out.$name" rc
    "$BIN" info "$@" >"$out.raw" 2>"$out.err"
    rc=$?
    sed "s#$T#<DIR>#g" "$out.raw" >"$out"
    if [ "$rc" != 0 ]; then bad "golden $name: exit $rc"; cat "$out.err"; return; fi
    if [ -n "${KR_UPDATE_GOLDEN:-}" ]; then cp "$out" "$GOLD/$name"; fi
    if diff -u "$GOLD/$name" "$out"; then ok; else bad "golden $name differs"; fi
}
golden capture.txt "$CAP"
golden capture.json --json "$CAP"
golden example.txt "$T/ex"
golden example.json --json "$T/ex"
if python3 - "$T/out.example.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "kreport.info" and d["schema_version"] == 1
assert [c["label"] for c in d["captures"]] == ["big", "small"]
for c in d["captures"]:
    assert c["records"] == c["waves"] * (29 + 14 * {"small": 3, "big": 6}[c["label"]])
EOF
then ok; else bad "info --json structure"; fi

# ---- 2. files ----
cp -r "$CAP" "$T/files"
F="$T/files"
rm "$F/wstates4.json" "$F/realtime.json" "$F/source_1_synth_ops.py"
echo notes >"$F/notes.txt"
"$BIN" info "$F" >"$T/files.out" 2>&1
has "$T/files.out" "files present: filenames.json, code.json, 8 wave files, wstates1.json, wstates2.json, wstates3.json, occupancy.json, snapshots.json, source_0_synth_kernel.py"
has "$T/files.out" "files missing: wstates4.json, realtime.json, source_1_synth_ops.py"
has "$T/files.out" "files extra: notes.txt"
has "$T/files.out" "span: 3968 cycles raw, not aligned (no realtime.json)"

# An empty shell (docs/formats.md#capture-files): no waves, no span, the clock still known.
cp -r "$CAP" "$T/shell"
PYTHONPATH="$SRC/tests/broken/validate" python3 "$SRC/tests/broken/validate/01_v1_empty_shell.py" "$T/shell" "$T" ||
    bad "empty shell script"
"$BIN" info "$T/shell" >"$T/shell.out" 2>&1
has "$T/shell.out" "kernel: none (no label row)"
has "$T/shell.out" "waves: 0"
has "$T/shell.out" "records: 0"
has "$T/shell.out" "span: none (no waves), clock 2100.00 MHz"
has "$T/shell.out" "files present: filenames.json, code.json, occupancy.json, realtime.json"

# --results: the example's small results.json given explicitly to a copy.
"$BIN" info --results "$T/ex/compute_viewer/small_results.json" "$CAP" >"$T/res.out" 2>&1
has "$T/res.out" "gfxip: 9 (target gfx950, from results.json agent 24601)"
has "$T/res.out" "results: $T/ex/compute_viewer/small_results.json"
# --target overrides detection.
"$BIN" info --target gfx942 "$CAP" >"$T/tgt.out" 2>&1
has "$T/tgt.out" "gfxip: 9 (target gfx942, from --target)"

# ---- 3. usage and load errors ----
"$BIN" info >/dev/null 2>&1
[ $? = 2 ] && ok || bad "info without PATH should exit 2"
cp -r "$CAP" "$T/broken"
printf '{"code": [' >"$T/broken/code.json"
"$BIN" info "$T/broken" >/dev/null 2>"$T/broken.err"
rc=$?
[ $rc = 3 ] && grep -q "^kreport: $T/broken/code.json:" "$T/broken.err" && ok ||
    { bad "truncated code.json: exit $rc"; cat "$T/broken.err"; }

# ---- 4. the real captures (docs/formats.md facts table) ----
HUB=${KR_HUB:-}
if [ -z "$HUB" ] || [ ! -d "$HUB/examples" ]; then
    echo "info.sh: hub fixtures absent, skipping the real-capture part"
else
    E=$HUB/examples
    check() {   # dir, kernel, target line, waves, static, records, mapped, span line
        local out="$T/hub.$(basename "$1")"
        "$BIN" info "$1" >"$out" 2>&1 || { bad "info $1 failed"; cat "$out"; return; }
        has "$out" "kernel: $2"
        has "$out" "$3"
        has "$out" "waves: $4"
        has "$out" "static instructions: $5"
        has "$out" "records: $6"
        has "$out" "source mapping: $7"
        has "$out" "$8"
    }
    check "$E/pa_mqa_logits_fp4/att_viewer/small/ui_output_agent_32435_dispatch_197" pa_mqa_logits_fp4_kernel_0 \
        "gfxip: 9 (target gfx950, from small_agent_info.csv)" 4 726 1576 0/726 \
        "span: 5240 cycles raw, 5240 aligned, 2.37 us at 2213.25 MHz"
    check "$E/pa_mqa_logits_fp4/att_viewer/big/ui_output_agent_55351_dispatch_426" pa_mqa_logits_fp4_kernel_0 \
        "gfxip: 9 (target gfx950, from big_agent_info.csv)" 32 726 165632 0/726 \
        "span: 58152 cycles raw, 56016 aligned, 26.08 us at 2147.61 MHz"
    check "$E/flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44" flash_attn_func_kernel_0 \
        "gfxip: 9 (target gfx950, from results.json agent 32235)" 4 2069 26412 2069/2069 \
        "span: 55192 cycles raw, 55192 aligned, 25.21 us at 2188.95 MHz"
    check "$E/flash_attn_func/att_viewer/small/ui_output_agent_58550_dispatch_44_after_loc_fix" flash_attn_func_kernel_0 \
        "gfxip: 9 (target gfx950, from small_agent_info.csv)" 8 2069 43360 2069/2069 \
        "span: 54668 cycles raw, 54676 aligned, 24.96 us at 2190.93 MHz"
    has "$T/hub.ui_output_agent_32235_dispatch_44" "shader engines: 4 (SE0..SE3; waves on SE3)"
    has "$T/hub.ui_output_agent_55351_dispatch_426" "shader engines: 4 (SE0..SE3; waves on SE0..SE3)"
    has "$T/hub.ui_output_agent_32235_dispatch_44" "files present: filenames.json, code.json, 4 wave files, wstates1.json, wstates2.json, wstates3.json, wstates4.json, occupancy.json, realtime.json, snapshots.json, source_0_flash_attn_func.py, source_1_numeric.py"
    has "$T/hub.ui_output_agent_32435_dispatch_197" "files missing: none"
fi

echo "info.sh: $pass passed, $fail failed"
[ $fail = 0 ]
