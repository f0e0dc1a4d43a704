#!/bin/bash
# archives.sh — archives as input (bundle/archive.h, bundle/source.h).
#
# 1. Round trips: a synthetic capture, example folder and run directory,
#    archived as .tar, .tar.gz, .tgz, .tar.xz, .zip (python3 tarfile /
#    zipfile) and .tar.zst (the zstd program, skipped with a message when
#    absent; tests/unit/test_archive.c writes .tar.zst with libarchive), with
#    the folder at the top of the archive or its contents at the root:
#    `analyze` gives a byte-identical analysis.json, `info --json` and
#    `validate` the same answers, `compare` the same verdict. The same on
#    the hub's example when KR_HUB exists (archived into a temp dir).
# 2. Hostile archives (python3 tarfile / zipfile): absolute and ".." member
#    paths, symbolic links (escaping or not), hard links leaving the root or
#    naming nothing, device files, named pipes, duplicate members, a path
#    both file and directory, an over-long path, a decompression bomb, a
#    truncated archive: exit 3 with the exact message, for analyze, info,
#    validate and compare, and no output directory created.
#
# Env: KR_BIN (kreport), KR_HUB (optional).
set -u
BIN=${KR_BIN:?KR_BIN not set}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# pack FORMAT SRC_DIR ARCHIVE MODE: MODE top = SRC_DIR's folder at the top,
# root = its contents at the archive's root.
pack() {
    python3 - "$@" <<'PY'
import os, sys, tarfile, zipfile
fmt, src, out, mode = sys.argv[1:5]
src = os.path.abspath(src)
base = os.path.basename(src) if mode == "top" else ""
files = []
for d, dirs, names in os.walk(src):
    dirs.sort()
    for n in sorted(names):
        p = os.path.join(d, n)
        files.append((p, os.path.join(base, os.path.relpath(p, src))))
if fmt == "zip":
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for p, a in files:
            z.write(p, a)
else:
    m = {"tar": "w", "tar.gz": "w:gz", "tgz": "w:gz", "tar.xz": "w:xz"}[fmt]
    with tarfile.open(out, m, format=tarfile.PAX_FORMAT) as t:
        t.add(src, arcname=base or ".")
PY
}
have_zstd=0
command -v zstd >/dev/null && have_zstd=1
pack_any() {   # FORMAT SRC ARCHIVE MODE, zst through the zstd program
    if [ "$1" = tar.zst ]; then
        pack tar "$2" "$3.tmp.tar" "$4" && zstd -q -f "$3.tmp.tar" -o "$3" && rm -f "$3.tmp.tar"
    else
        pack "$@"
    fi
}
formats="tar tar.gz tgz tar.xz zip"
if [ $have_zstd = 1 ]; then formats="$formats tar.zst"; else echo "archives: no zstd program, .tar.zst round trip left to test_archive"; fi

# ---- 1. round trips ----
"$BIN" synth -q "$T/cap" && "$BIN" synth -q --layout example "$T/ex" && "$BIN" synth -q --layout run "$T/run" || { echo "synth failed"; exit 1; }
CAP=$(ls -d "$T"/cap/ui_output_*)
capname=$(basename "$CAP")
"$BIN" analyze "$CAP" -o "$T/ref_cap" --format json -q || bad "analyze folder"
"$BIN" analyze "$T/ex" -o "$T/ref_ex" --format json -q || bad "analyze example"
"$BIN" info --json "$CAP" > "$T/ref_info" || bad "info folder"
"$BIN" validate "$T/ex" > "$T/ref_val"; ref_val_rc=$?
"$BIN" compare "$T/run" "$T/run" --format json -o "$T/ref_cmp" -q || bad "compare folders"

mkdir -p "$T/a"
for f in $formats; do
    for mode in top root; do
        # A capture at the root takes its name from the archive's name.
        a="$T/a/$mode/$capname.$f"
        mkdir -p "$T/a/$mode"
        pack_any "$f" "$CAP" "$a" "$mode" || { bad "pack $f $mode"; continue; }
        if "$BIN" analyze "$a" -o "$T/o_$f.$mode" --format json -q; then
            cmp -s "$T/ref_cap/analysis.json" "$T/o_$f.$mode/analysis.json" && ok || bad "capture $f $mode: analysis.json differs"
        else
            bad "capture $f $mode: analyze failed"
        fi
        # info --json names the folder it read: the same up to that path.
        "$BIN" info --json "$a" > "$T/info" || bad "info $f $mode"
        diff <(grep -v '"dir"\|"path"' "$T/ref_info") <(grep -v '"dir"\|"path"' "$T/info") >/dev/null && ok || bad "info $f $mode differs"
    done
    e="$T/a/ex.$f"
    pack_any "$f" "$T/ex" "$e" top || { bad "pack ex $f"; continue; }
    if "$BIN" analyze "$e" -o "$T/e_$f" --format json -q; then
        cmp -s "$T/ref_ex/analysis.json" "$T/e_$f/analysis.json" && ok || bad "example $f: analysis.json differs"
    else
        bad "example $f: analyze failed"
    fi
    "$BIN" validate "$e" > "$T/val"; rc=$?
    [ $rc = $ref_val_rc ] && cmp -s "$T/ref_val" "$T/val" && ok || bad "validate example $f: rc $rc, output differs"
    r="$T/a/run.$f"
    pack_any "$f" "$T/run" "$r" root || { bad "pack run $f"; continue; }
    if "$BIN" compare "$T/run" "$r" --format json -o "$T/c_$f" -q; then
        # Only the side's path differs (it names the archive).
        diff <(grep -v '"path"' "$T/ref_cmp/compare.json") <(grep -v '"path"' "$T/c_$f/compare.json") >/dev/null && ok || bad "compare $f differs"
    else
        bad "compare with run.$f failed"
    fi
done

# The hub's example, archived into the temp dir.
HUB=${KR_HUB:-}
if [ -n "$HUB" ] && [ -d "$HUB/examples/flash_attn_func" ]; then
    hx="$HUB/examples/flash_attn_func"
    "$BIN" analyze "$hx" -o "$T/hub_ref" --format json -q || bad "hub analyze"
    hf=tar.gz
    [ $have_zstd = 1 ] && hf=tar.zst
    pack_any $hf "$hx" "$T/flash_attn_func.$hf" top && "$BIN" analyze "$T/flash_attn_func.$hf" -o "$T/hub_arc" --format json -q \
        && cmp -s "$T/hub_ref/analysis.json" "$T/hub_arc/analysis.json" && ok || bad "hub example as .$hf: analysis.json differs"
else
    echo "archives: hub fixtures absent (KR_HUB), hub round trip skipped"
fi

# ---- 2. hostile archives ----
# hostile NAME KIND: writes $T/h/NAME.tar (or .zip / .tar.gz) holding a valid
# capture folder "cap/" plus the hostile member.
mkdir -p "$T/h"
hostile() {
    python3 - "$CAP" "$T/h" "$1" <<'PY'
import io, os, sys, tarfile, zipfile
cap, out, kind = sys.argv[1:4]
def add_cap(t):
    t.add(cap, arcname="cap")
def member(t, name, typ=tarfile.REGTYPE, data=b"x", link=""):
    i = tarfile.TarInfo(name)
    i.type = typ
    i.linkname = link
    i.size = len(data) if typ == tarfile.REGTYPE else 0
    t.addfile(i, io.BytesIO(data) if typ == tarfile.REGTYPE else None)
path = os.path.join(out, kind + (".zip" if kind.startswith("zip") else ".tar.gz" if kind in ("bomb", "truncated") else ".tar"))
if kind.startswith("zip"):
    with zipfile.ZipFile(path, "w") as z:
        for d, _, names in os.walk(cap):
            for n in names:
                z.write(os.path.join(d, n), os.path.join("cap", os.path.relpath(os.path.join(d, n), cap)))
        if kind == "zip_dotdot":
            z.writestr("cap/../../evil.txt", "x")
        elif kind == "zip_dup":
            import warnings
            warnings.simplefilter("ignore")
            z.writestr("cap/filenames.json", "{}")
    sys.exit(0)
if kind == "bomb":
    # 100 MiB of zeros: gzip brings them to about 100 KiB, a ratio near 1000.
    with tarfile.open(path, "w:gz", compresslevel=9) as t:
        add_cap(t)
        i = tarfile.TarInfo("cap/zeros.json"); i.size = 100 << 20
        class Zeros:
            def __init__(s): s.left = i.size
            def read(s, n=-1):
                n = s.left if n < 0 else min(n, s.left); s.left -= n; return bytes(n)
        t.addfile(i, Zeros())
    sys.exit(0)
if kind == "truncated":
    with tarfile.open(path, "w:gz") as t:
        add_cap(t)
    data = open(path, "rb").read()
    open(path, "wb").write(data[: len(data) // 2])
    sys.exit(0)
with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as t:
    add_cap(t)
    if kind == "absolute":   member(t, "/tmp/kreport_evil.txt")
    elif kind == "dotdot":   member(t, "cap/../../evil.txt")
    elif kind == "symlink_out": member(t, "cap/evil.py", tarfile.SYMTYPE, link="../../../etc/passwd")
    elif kind == "symlink_in":  member(t, "cap/alias.json", tarfile.SYMTYPE, link="code.json")
    elif kind == "hardlink_out": member(t, "cap/evil.py", tarfile.LNKTYPE, link="../../etc/passwd")
    elif kind == "hardlink_none": member(t, "cap/evil.py", tarfile.LNKTYPE, link="cap/nothing.py")
    elif kind == "chardev":  member(t, "cap/tty", tarfile.CHRTYPE)
    elif kind == "fifo":     member(t, "cap/pipe", tarfile.FIFOTYPE)
    elif kind == "dup":      member(t, "cap/code.json", data=b"{}")
    elif kind == "filedir":  member(t, "cap/code.json/x", data=b"{}")
    elif kind == "longpath": member(t, "cap/" + "d" * 1030)
PY
}
# case NAME FILE MESSAGE (after "kreport analyze: FILE: ")
check() {
    local name=$1 file=$2 want=$3
    hostile "$name" || { bad "$name: could not build"; return; }
    local out="$T/h_out_$name"
    "$BIN" analyze "$file" -o "$out" --format json 2> "$T/err"; local rc=$?
    local got
    got=$(head -n 1 "$T/err")
    [ $rc = 3 ] && [ "$got" = "kreport analyze: $file: $want" ] && ok || bad "$name: rc $rc, got '$got', want '$want'"
    [ ! -e "$out" ] && ok || bad "$name: output directory created"
    "$BIN" info "$file" > /dev/null 2>&1; rc=$?
    [ $rc = 3 ] && ok || bad "$name: info rc $rc"
    "$BIN" validate "$file" > /dev/null 2>&1; rc=$?
    [ $rc = 3 ] && ok || bad "$name: validate rc $rc"
    "$BIN" compare "$T/run" "$file" -o "$T/hc_$name" > /dev/null 2>&1; rc=$?
    [ $rc = 3 ] && [ ! -e "$T/hc_$name" ] && ok || bad "$name: compare rc $rc"
}
H=$T/h
check absolute "$H/absolute.tar" "member /tmp/kreport_evil.txt: absolute path refused"
check dotdot "$H/dotdot.tar" 'member cap/../../evil.txt: path leaves the archive root ("..")'
check zip_dotdot "$H/zip_dotdot.zip" 'member cap/../../evil.txt: path leaves the archive root ("..")'
check symlink_out "$H/symlink_out.tar" "member cap/evil.py: symbolic link refused (archives may not hold links; store the file itself)"
check symlink_in "$H/symlink_in.tar" "member cap/alias.json: symbolic link refused (archives may not hold links; store the file itself)"
check hardlink_out "$H/hardlink_out.tar" "member cap/evil.py: hard link to ../../etc/passwd, outside the archive root"
check hardlink_none "$H/hardlink_none.tar" "member cap/evil.py: hard link to cap/nothing.py, which is not a regular file stored in the archive"
check chardev "$H/chardev.tar" "member cap/tty: device file, named pipe or socket refused"
check fifo "$H/fifo.tar" "member cap/pipe: device file, named pipe or socket refused"
check dup "$H/dup.tar" "member cap/code.json: duplicate path"
check zip_dup "$H/zip_dup.zip" "member cap/filenames.json: duplicate path"
check filedir "$H/filedir.tar" "member cap/code.json: both a file and a directory"
# The message shows the first 64 bytes of the path.
check longpath "$H/longpath.tar" "member cap/$(printf 'd%.0s' $(seq 60))...: path longer than KR_MAX_ARCHIVE_PATH (1024 bytes)"
hostile bomb
bsize=$(stat -c %s "$H/bomb.tar.gz")
check bomb "$H/bomb.tar.gz" "member cap/zeros.json: decompressed bytes exceed KR_MAX_ARCHIVE_RATIO (200 times the archive's $bsize bytes): a decompression bomb?"
# A truncated archive: the message comes from libarchive; exit 3 and the archive named.
hostile truncated
"$BIN" analyze "$H/truncated.tar.gz" -o "$T/h_out_trunc" 2> "$T/err"; rc=$?
[ $rc = 3 ] && grep -q "^kreport analyze: $H/truncated.tar.gz: " "$T/err" && [ ! -e "$T/h_out_trunc" ] && ok || bad "truncated: rc $rc, $(head -n 1 "$T/err")"
# A name with an archive suffix that is a folder stays a folder.
mkdir -p "$T/dir.tar" && cp -r "$CAP" "$T/dir.tar/" && "$BIN" analyze "$T/dir.tar/$capname" -o "$T/o_dirtar" --format json -q \
    && cmp -s "$T/ref_cap/analysis.json" "$T/o_dirtar/analysis.json" && ok || bad "folder named *.tar"

echo "archives: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
