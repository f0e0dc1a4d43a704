#!/bin/bash
# pack.sh — `kreport pack` and `kreport unpack` end to end.
#
# 1. Reproducible bytes: the same example packed twice, and a copy of it with
#    other mtimes at another path, give identical archives (cmp).
# 2. The archive, read independently with python3 tarfile after `zstd -d`:
#    the root folder first, then <name>/MANIFEST.json, then every file and
#    folder of the example sorted by path; mtime 0, uid/gid 0, empty
#    uname/gname, modes 0755/0644. MANIFEST.json lists exactly the example's
#    files with the size from os.stat and the SHA-256 from hashlib.
# 3. Round trips: unpack gives the same tree (plus MANIFEST.json); packing
#    the unpacked tree gives the same bytes; `kreport analyze` of the archive
#    writes the same outputs as of the folder.
# 4. Refusals: a symbolic link in the example (exit 3, nothing written); an
#    example with a validate error (an empty-shell capture, V-20a: exit 1
#    unless --force); an existing output without --force (exit 4).
# 5. The hostile-archive corpus, generated here: a tampered member, a wrong
#    size, an unlisted member, a listed member that is absent, a member
#    outside the top folder, "..", an absolute path, a symbolic link, no
#    manifest, a foreign manifest format. Each is refused with exit 3 and
#    leaves nothing in the target directory.
#
# Env: KR_BIN (kreport).
set -u
export PYTHONDONTWRITEBYTECODE=1
BIN=${KR_BIN:?KR_BIN not set}
T=$(mktemp -d)
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
fail=0
pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
if ! command -v zstd >/dev/null; then
    echo "pack.sh: the zstd program is needed to read archives independently; skipping"
    exit 77
fi

"$BIN" synth -q --layout example "$T/ex" >/dev/null || { echo "FAIL: kreport synth"; exit 1; }

# ---- 1. reproducible bytes ----
"$BIN" pack -q "$T/ex" -o "$T/a.tar.zst" && ok || bad "pack exit $?"
"$BIN" pack -q "$T/ex" -o "$T/b.tar.zst" && ok || bad "second pack exit $?"
cmp -s "$T/a.tar.zst" "$T/b.tar.zst" && ok || bad "packing twice gave different bytes"
mkdir "$T/elsewhere"
cp -r "$T/ex" "$T/elsewhere/ex"
touch -d '2001-02-03 04:05:06' "$T/elsewhere/ex/README.md"
"$BIN" pack -q "$T/elsewhere/ex" -o "$T/c.tar.zst" && ok || bad "pack of the copy"
cmp -s "$T/a.tar.zst" "$T/c.tar.zst" && ok || bad "a copy with other mtimes at another path gave different bytes"
"$BIN" pack -q "$T/ex" -o "$T/a.tar.zst" 2>"$T/err.exists"
[ $? = 4 ] && grep -q "exists" "$T/err.exists" && ok || bad "existing output without --force should exit 4"
"$BIN" pack -q --force "$T/ex" -o "$T/a.tar.zst" && cmp -s "$T/a.tar.zst" "$T/b.tar.zst" && ok ||
    bad "--force overwrite"

# ---- 2. the archive read independently ----
zstd -q -d -c "$T/a.tar.zst" >"$T/a.tar" || bad "zstd -d failed"
if python3 - "$T/a.tar" "$T/ex" <<'EOF'
import hashlib, json, os, sys, tarfile
tar, root = sys.argv[1], sys.argv[2]
with tarfile.open(tar) as t:
    members = t.getmembers()
    names = [m.name.rstrip("/") for m in members]
    assert names[0] == "ex" and members[0].isdir(), names[:2]
    assert names[1] == "ex/MANIFEST.json", names[1]
    assert names[2:] == sorted(names[2:], key=lambda s: s.encode()), "members not sorted"
    for m in members:
        assert m.mtime == 0 and m.uid == 0 and m.gid == 0, (m.name, m.mtime, m.uid, m.gid)
        assert m.uname == "" and m.gname == "", (m.name, m.uname, m.gname)
        assert m.isdir() or m.isfile(), m.name
        assert m.mode == (0o755 if m.isdir() else 0o644), (m.name, oct(m.mode))
    manifest = json.load(t.extractfile("ex/MANIFEST.json"))
    # every file and folder of the example, and nothing else
    on_disk = set()
    for d, dirs, files in os.walk(root):
        rel = os.path.relpath(d, root)
        base = "ex" if rel == "." else "ex/" + rel
        on_disk.add(base)
        on_disk.update(base + "/" + f for f in files)
    assert set(names) - {"ex/MANIFEST.json"} == on_disk, set(names) ^ on_disk
    for m in members:
        if m.isfile() and m.name != "ex/MANIFEST.json":
            assert t.extractfile(m).read() == open(os.path.join(root, m.name[3:]), "rb").read(), m.name
assert manifest["format"] == "kreport.manifest" and manifest["format_version"] == 1
assert manifest["example"] == "ex"
listed = manifest["members"]
files = sorted(n for n in on_disk if os.path.isfile(os.path.join(root, n[3:])))
assert [e["path"] for e in listed] == files, "manifest member list"
for e in listed:
    p = os.path.join(root, e["path"][3:])
    assert e["size"] == os.stat(p).st_size, e
    assert e["sha256"] == hashlib.sha256(open(p, "rb").read()).hexdigest(), e
# captures: the synth example (tests/golden/README.md): big W=32, 3616
# records; small W=8, 568 records; 42/45 rows mapped; gfx950 from results.json.
caps = {c["label"]: c for c in manifest["captures"]}
assert caps["big"]["folder"] == "ui_output_agent_40963_dispatch_38" and caps["big"]["agent"] == 40963
assert caps["big"]["dispatch"] == 38 and caps["big"]["waves"] == 32 and caps["big"]["records"] == 3616
assert caps["small"]["folder"] == "ui_output_agent_24601_dispatch_14" and caps["small"]["waves"] == 8
assert caps["small"]["records"] == 568
for c in caps.values():
    assert c["mapped_rows"] == 42 and c["instruction_rows"] == 45, c
    assert c["target"] == "gfx950" and c["kernel"] == "synth_kernel_0" and c["empty_shell"] is False
text = json.dumps(manifest)
assert root not in text and "/tmp" not in text, "absolute path in the manifest"
EOF
then ok; else bad "archive structure / manifest"; fi

# ---- 3. round trips ----
"$BIN" unpack -q "$T/a.tar.zst" -C "$T/un" && ok || bad "unpack exit $?"
diff -r -x MANIFEST.json "$T/ex" "$T/un/ex" >/dev/null && ok || bad "unpacked tree differs"
[ -f "$T/un/ex/MANIFEST.json" ] && ok || bad "MANIFEST.json not extracted"
ls -a "$T/un" | grep -q '^\.kreport' && bad "temporary folder left in the target" || ok
"$BIN" pack -q "$T/un/ex" -o "$T/re.tar.zst" && cmp -s "$T/a.tar.zst" "$T/re.tar.zst" && ok ||
    bad "pack of the unpacked tree differs"
"$BIN" unpack -q "$T/a.tar.zst" -C "$T/un" 2>"$T/err.un"
[ $? = 4 ] && grep -q "exists" "$T/err.un" && ok || bad "unpack over an existing folder should exit 4"
echo extra >"$T/un/ex/extra.txt"
"$BIN" unpack -q --force "$T/a.tar.zst" -C "$T/un" && [ ! -e "$T/un/ex/extra.txt" ] && ok ||
    bad "unpack --force should replace the folder"
# From the parent, so the re-run line names the folder as the archive does.
(cd "$T" && "$BIN" analyze -q -j 2 ex -o an.dir) && ok || bad "analyze folder"
if "$BIN" analyze -q -j 2 "$T/a.tar.zst" -o "$T/an.tar" 2>"$T/err.an"; then
    diff -r "$T/an.dir" "$T/an.tar" >/dev/null && ok || bad "analyze of the archive differs from analyze of the folder"
else
    bad "analyze of the archive: $(head -c 300 "$T/err.an")"
fi

# ---- 4. refusals ----
cp -r "$T/ex" "$T/withlink"
ln -s README.md "$T/withlink/link.md"
"$BIN" pack -q "$T/withlink" -o "$T/l.tar.zst" 2>"$T/err.link"
[ $? = 3 ] && grep -q "withlink/link.md: is a symbolic link" "$T/err.link" && [ ! -e "$T/l.tar.zst" ] && ok ||
    { bad "a symbolic link should be refused with exit 3"; cat "$T/err.link"; }
cp -r "$T/ex" "$T/withshell"
shell="$T/withshell/att_viewer/big/ui_output_agent_40963_dispatch_40"
mkdir "$shell"
printf '{"version":"3.0.0","gfxip":9,"gfxv":"vega","wave_filenames":null}' >"$shell/filenames.json"
printf '{"version":"3.0.0","header":["ISA","_","LineNumber","Source","Codeobj","Vaddr","Hit","Latency","Stall","Idle"],"code":null}' \
    >"$shell/code.json"
"$BIN" pack -q "$T/withshell" -o "$T/s.tar.zst" 2>"$T/err.shell"
rc=$?
[ $rc = 1 ] && grep -q "^error V-20a att_viewer/big/ui_output_agent_40963_dispatch_40: is an empty shell" "$T/err.shell" &&
    [ ! -e "$T/s.tar.zst" ] && ok || { bad "an empty shell should refuse the pack (exit $rc)"; cat "$T/err.shell"; }
"$BIN" pack -q --force "$T/withshell" -o "$T/s.tar.zst" 2>/dev/null && [ -s "$T/s.tar.zst" ] && ok ||
    bad "--force should pack despite validate errors"
"$BIN" pack "$T/ex" >/dev/null 2>&1
[ $? = 2 ] && ok || bad "pack without -o should exit 2"
"$BIN" pack -q "$T/ex/att_viewer" -o "$T/x.tar.zst" 2>/dev/null
[ $? = 3 ] && ok || bad "pack of a non-example should exit 3"

# ---- 5. hostile archives ----
python3 - "$T/a.tar" "$T/hostile" <<'EOF'
import hashlib, io, json, os, sys, tarfile
src, out = sys.argv[1], sys.argv[2]
os.makedirs(out)
with tarfile.open(src) as t:
    orig = [(m, t.extractfile(m).read() if m.isfile() else None) for m in t.getmembers()]
manifest = json.loads([d for m, d in orig if m.name == "ex/MANIFEST.json"][0])

def write(name, entries, man=manifest):
    with tarfile.open(os.path.join(out, name + ".tar"), "w", format=tarfile.PAX_FORMAT) as t:
        for m, data in entries:
            if m.name == "ex/MANIFEST.json" and man is not None:
                data = json.dumps(man).encode()
            info = tarfile.TarInfo(m.name)
            info.type, info.mode = m.type, m.mode
            if m.issym():
                info.linkname = m.linkname
            if data is not None:
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
            else:
                t.addfile(info)

def file_entry(name, data):
    m = tarfile.TarInfo(name)
    m.type, m.mode = tarfile.REGTYPE, 0o644
    return (m, data)

readme = next(i for i, (m, d) in enumerate(orig) if m.name == "ex/README.md")
e = list(orig)
d = bytearray(e[readme][1]); d[0] ^= 0x20
e[readme] = (e[readme][0], bytes(d))
write("tampered", e)                                    # same size, other bytes
e = list(orig); e[readme] = (e[readme][0], e[readme][1] + b"x")
man = json.loads(json.dumps(manifest))
write("size", e)                                        # longer than listed
write("unlisted", orig + [file_entry("ex/extra.txt", b"not listed\n")])
man = json.loads(json.dumps(manifest)); man["members"].append({"path": "ex/gone.txt", "size": 1, "sha256": "0" * 64})
write("listed_absent", orig, man)
data = b"x\n"
man = json.loads(json.dumps(manifest))
man["members"].append({"path": "other/x.txt", "size": 2, "sha256": hashlib.sha256(data).hexdigest()})
write("outside", orig + [file_entry("other/x.txt", data)], man)
write("dotdot", orig + [file_entry("ex/../../evil.txt", data)])
write("absolute", orig + [file_entry("/tmp/kreport-evil.txt", data)])
link = tarfile.TarInfo("ex/link"); link.type = tarfile.SYMTYPE; link.linkname = "/etc/passwd"
write("symlink", orig + [(link, None)])
write("no_manifest", [(m, d) for m, d in orig if m.name != "ex/MANIFEST.json"])
man = json.loads(json.dumps(manifest)); man["format"] = "something.else"
write("format", orig, man)
EOF
for case in tampered:SHA-256 size:bytes unlisted:"not listed" listed_absent:"not in the archive" \
    outside:"outside the top folder" dotdot:"" absolute:"" symlink:"" no_manifest:"MANIFEST.json" format:format; do
    name=${case%%:*}
    want=${case#*:}
    dir="$T/h.$name"
    mkdir "$dir"
    "$BIN" unpack -q "$T/hostile/$name.tar" -C "$dir" 2>"$dir.err"
    rc=$?
    if [ $rc = 3 ] && grep -q "^kreport unpack: $T/hostile/$name.tar" "$dir.err" &&
        { [ -z "$want" ] || grep -q -- "$want" "$dir.err"; }; then ok
    else bad "hostile $name: exit $rc"; cat "$dir.err"; fi
    [ -z "$(ls -A "$dir")" ] && ok || { bad "hostile $name left files"; ls -A "$dir"; }
    [ ! -e /tmp/kreport-evil.txt ] && [ ! -e "$T/evil.txt" ] && ok || bad "hostile $name wrote outside"
done
zstd -q "$T/hostile/tampered.tar" -o "$T/hostile/tampered.tar.zst" &&
    "$BIN" unpack -q "$T/hostile/tampered.tar.zst" -C "$T/h.zst" 2>/dev/null
[ $? = 3 ] && ok || bad "tampered .tar.zst should exit 3"

echo "pack.sh: $pass passed, $fail failed"
[ $fail = 0 ]
