#!/bin/bash
# outputs.sh — output files are atomic, never clobbered without --force, and
# unwritable or full locations fail with exit 4 and a message.
#
# 1. Clobbering: a second run into the same -o DIR refuses (exit 4, files
#    unchanged), also when only one of the outputs exists (nothing else is
#    created); --force replaces them.
# 2. Failed runs leave nothing: an input error creates no file; a rename that
#    fails (a directory where analysis.json goes) removes what the run had
#    already put in place and every temp file.
# 3. Interrupted runs: SIGINT / SIGTERM at many points of a run never leave a
#    partial output or a temp file (the handler of kr_outfile_signals removes
#    temps); SIGKILL cannot be handled, but an output that exists is whole
#    (written to a temp file, renamed into place).
# 4. Read-only locations. Running as root (CI) chmod does not stop writes, so
#    the test uses places no user can write: /proc/self (an existing
#    directory that refuses new files), a path under /proc that cannot be
#    created, a regular file where the directory should be, a path below a
#    regular file; as non-root also a chmod 555 directory; and, when
#    `unshare -rm` works (user + mount namespace), a read-only bind mount
#    (EROFS) and a 16 KiB tmpfs (ENOSPC, a full disk).
# 5. Standard output: `> /dev/full` fails with exit 4 and a message for
#    analyze (md and json), info, validate and help.
#
# Env: KR_BIN (kreport).
set -u
BIN=${KR_BIN:?KR_BIN not set}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
expect() {   # name want_rc got_rc errfile want_substring
    if [ "$3" = "$2" ] && { [ -z "$5" ] || grep -qF -- "$5" "$4"; }; then ok; else
        bad "$1: exit $3 (want $2), stderr: $(head -3 "$4" | tr '\n' '|') (want '$5')"
    fi
}
no_temps() {  # name dir
    if [ -d "$2" ] && ls -A "$2" | grep -q '\.tmp\.'; then bad "$1: temp files left: $(ls -A "$2" | tr '\n' ' ')"; else ok; fi
}
sums() { (cd "$1" && cksum * 2>/dev/null | sort); }

"$BIN" synth -q "$T/base" || { echo "FAIL: synth"; exit 1; }
cap=$(ls -d "$T"/base/ui_output_*)
ALL="REPORT.md analysis.json hotspots.csv report.html source_lines.csv"

# ---- 1. clobbering -------------------------------------------------------
out=$T/o1
"$BIN" analyze "$cap" -o "$out" -q 2>"$T/err"; rc=$?
expect first_run 0 $rc "$T/err" ""
before=$(sums "$out")
"$BIN" analyze "$cap" -o "$out" -q 2>"$T/err"; rc=$?
expect no_clobber 4 $rc "$T/err" "kreport analyze: $out/REPORT.md: exists; use --force to overwrite"
[ "$(sums "$out")" = "$before" ] && ok || bad "no_clobber: outputs changed"
no_temps no_clobber "$out"
# Only the second output exists: nothing else may appear.
out=$T/o2; mkdir -p "$out"; echo keep > "$out/analysis.json"
"$BIN" analyze "$cap" -o "$out" -q 2>"$T/err"; rc=$?
expect no_clobber_one 4 $rc "$T/err" "$out/analysis.json: exists; use --force to overwrite"
[ "$(ls -A "$out")" = analysis.json ] && [ "$(cat "$out/analysis.json")" = keep ] && ok ||
    bad "no_clobber_one: dir holds $(ls -A "$out" | tr '\n' ' ')"
"$BIN" analyze "$cap" -o "$out" -q --force 2>"$T/err"; rc=$?
expect force 0 $rc "$T/err" ""
for f in $ALL; do [ -s "$out/$f" ] && ok || bad "force: $f missing"; done
[ "$(head -c 1 "$out/analysis.json")" = "{" ] && ok || bad "force: analysis.json not replaced"

# ---- 2. failed runs leave nothing ----------------------------------------
mkdir -p "$T/broken"; cp -r "$cap" "$T/broken/"; bcap=$(ls -d "$T"/broken/ui_output_*)
printf '{"code":[' > "$bcap/code.json"
"$BIN" analyze "$bcap" -o "$T/o3" -q 2>"$T/err"; rc=$?
expect input_error 3 $rc "$T/err" "code.json"
[ -z "$(ls -A "$T/o3" 2>/dev/null)" ] && ok || bad "input_error: wrote $(ls -A "$T/o3" | tr '\n' ' ')"
out=$T/o4; mkdir -p "$out/analysis.json/x"
"$BIN" analyze "$cap" -o "$out" -q --force 2>"$T/err"; rc=$?
expect rename_fails 4 $rc "$T/err" "$out/analysis.json: cannot rename into place"
[ "$(ls -A "$out")" = analysis.json ] && ok || bad "rename_fails: dir holds $(ls -A "$out" | tr '\n' ' ')"

# ---- 3. interrupted runs ---------------------------------------------------
"$BIN" synth -q --size-mb 8 "$T/bigcap" || { echo "FAIL: synth --size-mb"; exit 1; }
big=$(ls -d "$T"/bigcap/ui_output_*)
"$BIN" analyze "$big" -o "$T/ref" -q -j1 || bad "reference run failed"
interrupted=0
for sig in INT TERM KILL; do
    for delay in 0.01 0.05 0.1 0.2 0.3 0.4 0.6 0.8; do
        out=$T/int_${sig}_$delay
        "$BIN" analyze "$big" -o "$out" -q -j1 2>/dev/null & pid=$!
        sleep "$delay"; kill -s "$sig" "$pid" 2>/dev/null && interrupted=$((interrupted + 1))
        wait "$pid" 2>/dev/null
        for f in $ALL; do
            [ -e "$out/$f" ] || continue
            cmp -s "$out/$f" "$T/ref/$f" && ok || bad "$sig after ${delay}s: partial $f"
        done
        [ "$sig" = KILL ] || no_temps "$sig after ${delay}s" "$out"
    done
done
echo "outputs: $interrupted runs interrupted"

# ---- 4. read-only locations ------------------------------------------------
"$BIN" analyze "$cap" -o /proc/self -q 2>"$T/err"; rc=$?
expect proc_dir 4 $rc "$T/err" "kreport analyze: /proc/self/REPORT.md: cannot create:"
"$BIN" analyze "$cap" -o /proc/kreport-cannot-exist/out -q 2>"$T/err"; rc=$?
expect proc_mkdir 4 $rc "$T/err" "kreport analyze: /proc/kreport-cannot-exist: cannot create directory:"
echo x > "$T/afile"
"$BIN" analyze "$cap" -o "$T/afile" -q 2>"$T/err"; rc=$?
expect file_as_dir 4 $rc "$T/err" "kreport analyze: $T/afile: not a directory"
"$BIN" analyze "$cap" -o "$T/afile/sub" -q 2>"$T/err"; rc=$?
expect below_file 4 $rc "$T/err" "kreport analyze: $T/afile/sub: cannot create directory: Not a directory"
if [ "$(id -u)" != 0 ]; then
    mkdir -p "$T/ro"; chmod 555 "$T/ro"
    "$BIN" analyze "$cap" -o "$T/ro" -q 2>"$T/err"; rc=$?
    expect chmod_ro 4 $rc "$T/err" "$T/ro/REPORT.md: cannot create: Permission denied"
    chmod 755 "$T/ro"
fi
if unshare -rm true 2>/dev/null; then
    mkdir -p "$T/rodir" "$T/small"
    unshare -rm sh -c 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && exec "$2" analyze "$3" -o "$1" -q' \
        sh "$T/rodir" "$BIN" "$cap" 2>"$T/err"; rc=$?
    expect ro_bind 4 $rc "$T/err" "$T/rodir/REPORT.md: cannot create: Read-only file system"
    unshare -rm sh -c 'mount -t tmpfs -o size=16k tmpfs "$1" && "$2" analyze "$3" -o "$1" -q; rc=$?; ls -A "$1" > "$4"; exit $rc' \
        sh "$T/small" "$BIN" "$cap" "$T/left" 2>"$T/err"; rc=$?
    expect full_disk 4 $rc "$T/err" "write failed: No space left on device"
    [ ! -s "$T/left" ] && ok || bad "full_disk: left $(tr '\n' ' ' < "$T/left")"
else
    echo "outputs: unshare -rm unavailable: read-only bind mount and full tmpfs cases skipped"
fi

# ---- 5. standard output to a full device ----------------------------------
for args in "analyze $cap" "analyze $cap --format json" "info $cap" "info $cap --json" "validate $cap" "--help"; do
    # shellcheck disable=SC2086
    "$BIN" $args > /dev/full 2>"$T/err"; rc=$?
    expect "'$args' > /dev/full" 4 $rc "$T/err" "cannot write to standard output"
done

echo "outputs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
