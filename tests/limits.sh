#!/bin/bash
# limits.sh — the documented maximums of common/limits.h, end to end.
#
# Every limit must be enforced with an error that names it, and memory must
# stay bounded whatever a file claims: files above a size limit are refused
# before they are read (sparse files, so the test costs no disk), counts
# written in a file (num_insts 10^15, 10^6 listed waves) never size an
# allocation, and many snapshot leaves naming one copy read it once. Each
# run's peak RSS (getrusage of the child) is checked against a bound; the
# bounds are 4x larger in a sanitizer build (KREPORT_SANITIZE in
# $KR_BUILD/CMakeCache.txt), where shadow memory and quarantine add to RSS.
#
# Covered elsewhere, by name: KR_MAX_JSON_DEPTH, KR_MAX_STRING_BYTES,
# KR_MAX_SE and KR_MAX_LINE_NUMBER (tests/broken/cases.tsv: *_deep*,
# code_isa_64k, wave_name_64k, filenames_se_64, code_line_big),
# KR_MAX_CSV_ROWS and KR_MAX_CSV_FIELDS (tests/unit/test_limits.c). Not run:
# KR_MAX_CODE_ROWS, KR_MAX_RECORDS_PER_WAVE and KR_MAX_OCC_ROWS need files of
# gigabytes; their checks count elements as they are read.
#
# Env: KR_BIN (kreport), KR_BUILD (build dir, optional).
set -u
BIN=${KR_BIN:?KR_BIN not set}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
scale=1
grep -q '^KREPORT_SANITIZE:BOOL=ON' "${KR_BUILD:-/nonexistent}/CMakeCache.txt" 2>/dev/null && scale=4
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# run NAME MAX_RSS_MB WANT_RC WANT_TEXT CMD... : exit status, peak RSS and a
# text that the first stderr line (or, with WANT_TEXT prefixed by "out:",
# some stdout line) must contain.
run() {
    local name=$1 max=$(( $2 * scale )) want_rc=$3 want=$4
    shift 4
    local res rc kb first
    res=$(python3 - "$T/stdout" "$@" <<'PY'
import resource, subprocess, sys, time
t = time.time()
with open(sys.argv[1], "wb") as out:
    p = subprocess.run(sys.argv[2:], stdout=out, stderr=subprocess.PIPE)
err = p.stderr.decode(errors="replace").splitlines()
print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "%.1f" % (time.time() - t))
print(err[0] if err else "")
PY
)
    read -r rc kb secs <<< "$(head -1 <<< "$res")"
    first=$(sed -n 2p <<< "$res")
    local mb=$(( kb / 1024 ))
    echo "limits: $name: exit $rc, peak RSS $mb MiB (bound $max), $secs s"
    [ "$rc" = "$want_rc" ] || bad "$name: exit $rc, want $want_rc ($first)"
    [ "$mb" -le "$max" ] || bad "$name: peak RSS $mb MiB above $max MiB"
    case "$want" in
        out:*) grep -qF -- "${want#out:}" "$T/stdout" && ok || bad "$name: no stdout line with '${want#out:}'" ;;
        *) case "$first" in *"$want"*) ok ;; *) bad "$name: stderr '$first' lacks '$want'" ;; esac ;;
    esac
}

"$BIN" synth -q --waves 2 "$T/base" || { echo "FAIL: synth"; exit 1; }
base=$(ls -d "$T"/base/ui_output_*)
fresh() { rm -rf "$T/$1"; mkdir -p "$T/$1"; cp -r "$base" "$T/$1/cap"; echo "$T/$1/cap"; }
wave0() { ls "$1"/se*_sm*.json | head -1; }

# KR_MAX_SMALL_FILE_BYTES: a 512 MiB + 1 code.json is refused unread.
c=$(fresh small)
rm "$c/code.json"; truncate -s $(( (512 << 20) + 1 )) "$c/code.json"
run small_file 64 3 "code.json: file of 536870913 bytes exceeds KR_MAX_SMALL_FILE_BYTES (536870912 bytes)" \
    "$BIN" analyze "$c" -o "$T/small/out" -q

# KR_MAX_FILE_BYTES: a 4 GiB + 1 wave file is refused unread.
c=$(fresh big)
w=$(wave0 "$c"); rm "$w"; truncate -s $(( (4 << 30) + 1 )) "$w"
run wave_file 64 3 "file of 4294967297 bytes exceeds KR_MAX_FILE_BYTES (4294967296 bytes)" \
    "$BIN" analyze "$c" -o "$T/big/out" -q

# KR_MAX_SNAPSHOT_BYTES: a 64 MiB + 1 source copy is not read (a warning, not an error).
c=$(fresh snap)
rm "$c/source_0_synth_kernel.py"; truncate -s $(( (64 << 20) + 1 )) "$c/source_0_synth_kernel.py"
run snapshot_copy 64 0 "" "$BIN" analyze "$c" -o "$T/snap/out" -q
run snapshot_copy_validate 64 0 "out:too large: exceeds KR_MAX_SNAPSHOT_BYTES" "$BIN" validate "$c"

# Counts claimed by a wave file size nothing: num_insts 10^15, a 2^62-cycle wave.
c=$(fresh claims)
python3 - "$(wave0 "$c")" <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["num_insts"] = d["num_stitched"] = 10**15
d["duration"] = d["wave"]["end"] = 2**62
d["wave"]["timeline"][0][1] = 2**61
d["wave"]["instructions"][-1][0] = 2**61
open(p, "w").write(json.dumps(d, separators=(",", ":")))
PY
run huge_claims 64 0 "" "$BIN" analyze "$c" -o "$T/claims/out" -q
run huge_claims_validate 64 1 "out:num_insts" "$BIN" validate "$c"

# filenames.json listing 10^6 waves that do not exist (within KR_MAX_WAVES),
# then KR_MAX_WAVES + 1. Memory is the parsed filenames.json (about 43 MB of
# text) plus one small record per listed wave, not one error per wave.
listing() {   # folder count
    python3 - "$1/filenames.json" "$2" <<'PY'
import json, sys
path, n = sys.argv[1], int(sys.argv[2])
f = json.load(open(path))
per = n // 256 + 1
wf, k = {}, 0
for se in range(4):
    for simd in range(4):
        for slot in range(16):
            d = wf.setdefault(str(se), {}).setdefault(str(simd), {}).setdefault(str(slot), {})
            for i in range(per):
                if k == n:
                    break
                d[str(i)] = ["se%d_sm%d_sl%d_wv%d.json" % (se, simd, slot, i + 1), 100, 200]
                k += 1
f["wave_filenames"] = wf
open(path, "w").write(json.dumps(f, separators=(",", ":")))
PY
}
rm -rf "$T/small" "$T/big" "$T/snap" "$T/claims"
c=$(fresh many); listing "$c" 1000000
run million_waves 1024 3 "se0_sm0_sl0_wv1.json: wave file listed in filenames.json does not exist" \
    "$BIN" analyze "$c" -o "$T/many/out" -q -j2
c=$(fresh toomany); listing "$c" $(( (1 << 20) + 1 ))
run max_waves 1024 3 "more than KR_MAX_WAVES (1048576) wave files" "$BIN" analyze "$c" -o "$T/toomany/out" -q

# 20000 tiny waves (about 200 bytes each, 4 MB in all) with their occupancy
# rows: memory follows the bytes, not a fixed block per wave (this cost about
# 190 MiB when every wave started with room for 256 records).
c=$(fresh tiny)
rm "$c"/se*_sm*.json
python3 - "$c" 20000 <<'PY'
import json, sys
cap, n = sys.argv[1], int(sys.argv[2])
f = json.load(open(cap + "/filenames.json"))
slot, rows = {}, []
for k in range(n):
    name, b = "se0_sm0_sl0_wv%d.json" % k, 1000 + 100 * k
    slot[str(k)] = [name, b, b + 50]
    rows += [[b, 1, 0, 0, 1, 1], [b + 50, 1, 0, 0, 0, 1]]
    with open(cap + "/" + name, "w") as w:
        w.write('{"duration":50,"name":"SE0","num_insts":1,"num_stitched":1,"wave":{"begin":%d,"cu":1,'
                '"end":%d,"id":%d,"simd":0,"slot":0,"instructions":[[%d,11,0,4,45]],"timeline":[[1,4],[3,46]],'
                '"waitcnt":null}}' % (b, b + 50, k, b + 4))
f["wave_filenames"] = {"0": {"0": {"0": slot}}}
open(cap + "/filenames.json", "w").write(json.dumps(f, separators=(",", ":")))
o = json.load(open(cap + "/occupancy.json"))
o["0"] = rows
open(cap + "/occupancy.json", "w").write(json.dumps(o, separators=(",", ":")))
PY
run tiny_waves 96 0 "" "$BIN" analyze "$c" -o "$T/tiny/out" -q -j2
rm -rf "$T/tiny"

# 100000 snapshot leaves naming one 1 MiB copy: the copy is read once.
c=$(fresh leaves)
python3 - "$c" <<'PY'
import json, sys
cap = sys.argv[1]
with open(cap + "/source_0_synth_kernel.py", "a") as f:
    f.write("# padding\n" * (1 << 17))
tree = {"/": {"synth": {"kernels": {"synth_kernel.py": "source_0_synth_kernel.py"},
                        "lib": {"synth_ops.py": "source_1_synth_ops.py"}},
              "many": {"f%d.py" % i: "source_0_synth_kernel.py" for i in range(100000)}}}
open(cap + "/snapshots.json", "w").write(json.dumps(tree, separators=(",", ":")))
PY
run snapshot_leaves 256 0 "" "$BIN" analyze "$c" -o "$T/leaves/out" -q

# KR_MAX_CSV_FIELDS through --results: a kernel_trace.csv header of 4097 fields.
c=$(fresh csv)
python3 - "$T/csv/wide_kernel_trace.csv" <<'PY'
import sys
cols = ["Kind", "Agent_Id", "Queue_Id", "Dispatch_Id", "Kernel_Id", "Kernel_Name", "Correlation_Id",
        "Start_Timestamp", "End_Timestamp"] + ["Extra_%d" % i for i in range(4088)]
open(sys.argv[1], "w").write(",".join('"%s"' % c for c in cols) + "\n")
PY
run csv_fields 64 3 "record exceeds KR_MAX_CSV_FIELDS (4096) fields" \
    "$BIN" analyze "$c" -o "$T/csv/out" -q --results "$T/csv/wide_kernel_trace.csv"

echo "limits: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
