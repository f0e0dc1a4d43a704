#!/bin/bash
# ROCm 7 inputs end to end, on the hub's real captures and CSVs: rocpd
# databases built by tests/tools/mkrocpd.py from those CSVs (every schema
# version of tests/rocpd/) give the same analysis.json as the CSVs, beside a
# capture, in an example and inside an archive; compare gives the same verdict
# and figures through a database as through CSVs; info names the schema;
# validate, new-example and pack accept them; broken databases and a
# rocprof v1/v2 results.csv are refused (exit 3, naming the file); rocpd
# convert's column casing and a kernel trace without Dispatch_Id are read;
# a capture with timeline entries of duration 0 validates and packs.
set -u
bin="$KR_BIN"; src="$KR_SRC"; hub="${KR_HUB:-}"
if [ -z "$hub" ] || [ ! -d "$hub/examples" ]; then echo "rocpd.sh: skipped (no hub fixture at ${hub:-?})"; exit 77; fi
python3 -c 'import sqlite3' 2>/dev/null || { echo "rocpd.sh: skipped (python3 without sqlite3)"; exit 77; }
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
pass=0 fail=0
ok()  { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*"; }
expect_rc() {  # want cmd...
    local want=$1; shift
    "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
    if [ "$rc" = "$want" ]; then ok; else bad "exit $rc (want $want): $* :: $(head -c 400 "$tmp/err")"; fi
}
mk="$src/tests/tools/mkrocpd.py"
pa="$hub/examples/pa_mqa_logits_fp4"
fl="$hub/examples/flash_attn_func"

# Counter values for every dispatch of a kernel (the hub has no
# counter_collection.csv): SQ_WAVES, FETCH_SIZE, WRITE_SIZE, GRBM_GUI_ACTIVE
# from the dispatch id, so the roofline has data on both paths.
counters() {  # trace.csv kernel out.csv
    python3 - "$@" <<'PY'
import csv, sys
trace, kernel, out = sys.argv[1:]
rows = list(csv.DictReader(open(trace)))
with open(out, "w", newline="") as f:
    w = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC)
    w.writerow(["Correlation_Id", "Dispatch_Id", "Agent_Id", "Kernel_Name", "Counter_Name", "Counter_Value",
                "Start_Timestamp", "End_Timestamp"])
    for r in rows:
        if r["Kernel_Name"] != kernel:
            continue
        d = int(r["Dispatch_Id"])
        for name, v in (("SQ_WAVES", 2028), ("FETCH_SIZE", 1000.0 + d), ("WRITE_SIZE", 50.5 + d),
                        ("GRBM_GUI_ACTIVE", 70000 + d)):
            w.writerow([int(r["Correlation_Id"]), d, r["Agent_Id"], kernel, name, v, int(r["Start_Timestamp"]),
                        int(r["End_Timestamp"])])
PY
}

# An example folder holding one capture (a link to the hub's) and the given
# compute_viewer files.
example() {  # dir capture-path files...
    local dir=$1 cap=$2; shift 2
    mkdir -p "$dir/att_viewer/small" "$dir/compute_viewer"
    ln -s "$cap" "$dir/att_viewer/small/$(basename "$cap")"
    [ $# -gt 0 ] && cp "$@" "$dir/compute_viewer/"
}

# analysis.json without the fields that name input files.
strip() {
    python3 - "$1" <<'PY'
import json, sys
def walk(v):
    if isinstance(v, dict):
        return {k: walk(x) for k, x in v.items() if k not in ("inputs", "path", "dir", "command")}
    if isinstance(v, list):
        return [walk(x) for x in v]
    return v
print(json.dumps(walk(json.load(open(sys.argv[1]))), indent=1, sort_keys=True))
PY
}

# ---- analyze: the same figures through CSVs and through every schema ----
for ex in pa fl; do
    if [ $ex = pa ]; then
        dir=$pa; cap=$pa/att_viewer/small/ui_output_agent_32435_dispatch_197; kernel=pa_mqa_logits_fp4_kernel_0
    else
        dir=$fl; cap=$fl/att_viewer/small/ui_output_agent_32235_dispatch_44; kernel=flash_attn_func_kernel_0
    fi
    trace=$dir/compute_viewer/discover_kernel_trace.csv agents=$dir/compute_viewer/small_agent_info.csv
    counters "$trace" "$kernel" "$tmp/$ex.counters.csv"
    cp "$tmp/$ex.counters.csv" "$tmp/${ex}_counter_collection.csv"
    example "$tmp/$ex.csv" "$cap" "$trace" "$agents" "$tmp/${ex}_counter_collection.csv"
    # A results.json beside the flash capture would serve first; these examples hold only CSVs or a database.
    expect_rc 0 "$bin" analyze "$tmp/$ex.csv/att_viewer/small/$(basename "$cap")" -o "$tmp/$ex.csv.out" -q
    strip "$tmp/$ex.csv.out/analysis.json" >"$tmp/$ex.csv.json"
    grep -q '"source": "counters"\|"FETCH_SIZE"' "$tmp/$ex.csv.out/analysis.json" && ok || bad "$ex: counters did not reach analysis.json"
    for schema in 3 3.0.3 4.1.0; do
        d="$tmp/$ex.db$schema"
        example "$d" "$cap"
        extra=()
        [ "$schema" = 3.0.3 ] && extra=(--halves --spm)
        [ "$schema" = 4.1.0 ] && extra=(--runs 2)
        python3 "$mk" "$d/compute_viewer/small_results.db" --schema "$schema" --trace "$trace" --agents "$agents" \
            --counters "$tmp/$ex.counters.csv" "${extra[@]}" || bad "mkrocpd $schema failed"
        expect_rc 0 "$bin" analyze "$d/att_viewer/small/$(basename "$cap")" -o "$d.out" -q
        strip "$d.out/analysis.json" >"$d.json"
        if cmp -s "$tmp/$ex.csv.json" "$d.json"; then ok; else bad "$ex schema $schema: analysis.json differs from the CSVs'"; diff "$tmp/$ex.csv.json" "$d.json" | head -10; fi
        grep -q "small_results.db" "$d.out/REPORT.md" && ok || bad "$ex schema $schema: REPORT.md does not name the database"
        # info says the schema and what the database holds.
        expect_rc 0 "$bin" info "$d/att_viewer/small/$(basename "$cap")"
        grep -q "^rocpd database: .*small_results.db (schema $schema, " "$tmp/out" && ok || bad "$ex schema $schema: info: $(grep rocpd "$tmp/out")"
        n=$(($(wc -l <"$trace") - 1))
        grep -q "; $n dispatches; 4 counters" "$tmp/out" && ok || bad "$ex schema $schema: info counts: $(grep rocpd "$tmp/out")"
        expect_rc 0 "$bin" info --json "$d/att_viewer/small/$(basename "$cap")"
        python3 -c "import json,sys; r=json.load(open('$tmp/out'))['captures'][0]['rocpd']; assert r['schema_version']=='$schema' and r['dispatches']==$n, r" \
            && ok || bad "$ex schema $schema: info --json rocpd"
    done
done

# The whole example read from an archive (the database deserialized in memory).
tar -C "$tmp" -chf "$tmp/pa.db3.tar" pa.db3
expect_rc 0 "$bin" analyze "$tmp/pa.db3.tar" -o "$tmp/arc.out" -q
strip "$tmp/arc.out/analysis.json" >"$tmp/arc.json"
python3 - "$tmp/arc.json" "$tmp/pa.db3.json" <<'PY' && ok || bad "archive: analysis differs from the folder's"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
a = a["captures"][0] if "captures" in a else a
b = b["captures"][0] if "captures" in b else b
keys = ("occupancy", "roofline", "counters", "totals")
assert all(a.get(k) == b.get(k) for k in keys), [k for k in keys if a.get(k) != b.get(k)]
PY

# --results names a database explicitly (it then serves whatever its agents).
mkdir -p "$tmp/lone"
ln -s "$pa/att_viewer/small/ui_output_agent_32435_dispatch_197" "$tmp/lone/ui_output_agent_32435_dispatch_197"
expect_rc 0 "$bin" analyze "$tmp/lone/ui_output_agent_32435_dispatch_197" --results "$tmp/pa.db3/compute_viewer/small_results.db" \
    -o "$tmp/lone.out" -q
python3 - "$tmp/lone.out/analysis.json" "$tmp/pa.db3.out/analysis.json" <<'PY' && ok || bad "--results DB: occupancy differs"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["occupancy"] == b["occupancy"] and a["target"] == b["target"] == "gfx950"
PY

# validate: a capture beside a database, and the example's publishing checks.
expect_rc 0 "$bin" validate "$tmp/pa.db3"
grep -q "V-20 compute_viewer/small_results.json" "$tmp/out" && bad "validate asks for a results.json beside small_results.db" || ok
grep -q "info V-18a\|warning V-18a .*rocpd database (schema 3)" "$tmp/out" && ok || bad "validate: V-18a does not speak of the database: $(grep V-18a "$tmp/out")"
# With the capture's handle in extdata, the agent is found (information only).
python3 "$mk" "$tmp/pa.db3/compute_viewer/small_results.db" --schema 3 --trace "$pa/compute_viewer/discover_kernel_trace.csv" \
    --agents "$pa/compute_viewer/small_agent_info.csv" --handle 2=32435
expect_rc 0 "$bin" validate "$tmp/pa.db3"
grep -q "info V-18a .*has the capture's handle 32435" "$tmp/out" && ok || bad "validate: handle not found: $(grep V-18a "$tmp/out")"
# Another run's database (handles, none the capture's) is not borrowed.
python3 "$mk" "$tmp/pa.db3/compute_viewer/small_results.db" --schema 3 --trace "$pa/compute_viewer/discover_kernel_trace.csv" \
    --agents "$pa/compute_viewer/small_agent_info.csv" --handle 2=11111
expect_rc 0 "$bin" info "$tmp/pa.db3/att_viewer/small/ui_output_agent_32435_dispatch_197"
grep -q "^kernel trace: none" "$tmp/out" && ok || bad "another run's database was attached: $(grep 'kernel trace' "$tmp/out")"
expect_rc 0 "$bin" validate "$tmp/pa.db3"
grep -q "V-20f compute_viewer/small_results.db: has no GPU agent with handle 32435" "$tmp/out" && ok || bad "V-20f for the database: $(grep V-20 "$tmp/out")"

# ---- a rocprofv3 run directory with the default output (ROCm 7) ----
run="$tmp/run7"
mkdir -p "$run/host-1"
cp -rL "$pa/att_viewer/small/ui_output_agent_32435_dispatch_197" "$run/"
python3 "$mk" "$run/host-1/4242_results.db" --schema 3 --trace "$pa/compute_viewer/discover_kernel_trace.csv" \
    --agents "$pa/compute_viewer/small_agent_info.csv"
expect_rc 0 "$bin" info "$run/ui_output_agent_32435_dispatch_197"
grep -q "^kernel trace: .*host-1/4242_results.db" "$tmp/out" && ok || bad "run dir: <host>/<pid>_results.db not found: $(grep 'kernel trace' "$tmp/out")"
# new-example copies it as compute_viewer/<label>_results.db and validate accepts it.
expect_rc 0 "$bin" new-example "$run=small" -o "$tmp/newex" -q
[ -f "$tmp/newex/compute_viewer/small_results.db" ] && ok || bad "new-example: no compute_viewer/small_results.db ($(ls "$tmp/newex/compute_viewer" 2>&1))"
grep -q "compute_viewer/small_results.db" "$tmp/newex/README.md" && ok || bad "new-example: README.md does not list the database"
expect_rc 0 "$bin" validate "$tmp/newex"
grep -q "V-20 compute_viewer/small_results.json" "$tmp/out" && bad "new-example's database not counted by V-20" || ok

# ---- compare: the same pair through CSVs and through databases ----
python3 - "$pa/compute_viewer/discover_kernel_trace.csv" "$tmp/cand_kernel_trace.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h = rows[0]
s, e, k = h.index("Start_Timestamp"), h.index("End_Timestamp"), h.index("Kernel_Name")
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC)
    w.writerow(h)
    for i, r in enumerate(rows[1:]):
        v = [int(x) if x.lstrip("-").isdigit() else x for x in r]
        if r[k] == "pa_mqa_logits_fp4_kernel_0":   # 8 % faster, with a little spread
            v[e] = v[s] + (v[e] - v[s]) * (92 - i % 3) // 100
        w.writerow(v)
PY
for kind in csv db both; do
    for side in best cand; do
        d="$tmp/cmp_$kind/$side/prof"
        mkdir -p "$d"
        t="$pa/compute_viewer/discover_kernel_trace.csv"
        [ $side = cand ] && t="$tmp/cand_kernel_trace.csv"
        # both: `-f csv rocpd` writes the CSVs and the database side by side; the dispatches count once.
        if [ $kind != db ]; then
            cp "$t" "$d/discover_kernel_trace.csv"; cp "$pa/compute_viewer/discover_agent_info.csv" "$d/"
        fi
        if [ $kind != csv ]; then
            python3 "$mk" "$d/4242_results.db" --schema 4.1.0 --trace "$t" --agents "$pa/compute_viewer/discover_agent_info.csv"
        fi
    done
    # No benchmark CSV and no exit status: nothing checks correctness, so --gate none accepts a keep (docs/compare.md).
    (cd "$tmp/cmp_$kind" && "$bin" compare best cand --kernel '^pa_mqa' --gate none --format json >"$tmp/cmp_$kind.json" 2>"$tmp/cmp_$kind.err")
    rc=$?
    [ $rc = 0 ] && ok || bad "compare via $kind failed ($rc): $(head -c 300 "$tmp/cmp_$kind.err")"
done
python3 - "$tmp/cmp_csv.json" "$tmp/cmp_db.json" <<'PY' && ok || bad "compare: verdict or figures differ between CSV and database"
import json, sys
def walk(v):
    if isinstance(v, dict):
        return {k: walk(x) for k, x in v.items() if k not in ("files", "path", "rel", "best_dir", "cand_dir", "identity", "best_identity", "cand_identity")}
    if isinstance(v, list):
        return [walk(x) for x in v]
    return v
a, b = (walk(json.load(open(p))) for p in sys.argv[1:])
assert a["verdict"] == b["verdict"], (a["verdict"], b["verdict"])
if a != b:
    for k in a:
        if a.get(k) != b.get(k):
            print("differs:", k, file=sys.stderr)
    sys.exit(1)
PY
python3 - "$tmp/cmp_csv.json" "$tmp/cmp_both.json" <<'PY' && ok || bad "compare: CSVs and a database side by side count the dispatches twice"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for k in ("verdict", "timing", "trace", "classes"):
    assert a.get(k) == b.get(k), k
PY
python3 -c "import json; d=json.load(open('$tmp/cmp_db.json')); print(d['verdict'])" | grep -q "keep" && ok || bad "compare via database: verdict is not keep"

# ---- refusals: exit 3 naming the file ----
bad_example() {  # name, then the database file to place
    example "$tmp/$1" "$pa/att_viewer/small/ui_output_agent_32435_dispatch_197"
    cp "$2" "$tmp/$1/compute_viewer/small_results.db"
    expect_rc 3 "$bin" analyze "$tmp/$1" -o "$tmp/$1.out" -q
    grep -q "small_results.db" "$tmp/err" && ok || bad "$1: message does not name the file: $(cat "$tmp/err")"
    [ -e "$tmp/$1.out" ] && bad "$1: output written despite the error" || ok
}
printf 'not a database\n' >"$tmp/text.db"
bad_example text "$tmp/text.db"
grep -q "not an SQLite database" "$tmp/err" && ok || bad "text .db: $(cat "$tmp/err")"
python3 -c "import sqlite3; c=sqlite3.connect('$tmp/other.db'); c.execute('CREATE TABLE moz_places (id)'); c.commit()"
bad_example other "$tmp/other.db"
grep -q "not a rocpd database" "$tmp/err" && ok || bad "other tool's .db: $(cat "$tmp/err")"
python3 "$mk" "$tmp/notable.db" --schema 3 --trace "$pa/compute_viewer/discover_kernel_trace.csv" --agents "$pa/compute_viewer/small_agent_info.csv"
python3 -c "
import sqlite3; c=sqlite3.connect('$tmp/notable.db')
n=[r[0] for r in c.execute(\"select name from sqlite_master where name like 'rocpd_kernel_dispatch%'\")]
[c.execute('DROP VIEW IF EXISTS \"%s\"' % x) for x in n if '_0198' not in x]
[c.execute('DROP TABLE \"%s\"' % x) for x in n if '_0198' in x]; c.commit()"
bad_example notable "$tmp/notable.db"
grep -q "without table rocpd_kernel_dispatch_" "$tmp/err" && ok || bad "missing table: $(cat "$tmp/err")"
head -c 20000 "$tmp/notable.db" >"$tmp/cut.db"
bad_example cut "$tmp/cut.db"
# The database is never written: same bytes after all the reading above.
sum1=$(sha256sum "$tmp/pa.db3/compute_viewer/small_results.db" | cut -c1-64)
"$bin" analyze "$tmp/pa.db3" -o "$tmp/again.out" -q
[ "$sum1" = "$(sha256sum "$tmp/pa.db3/compute_viewer/small_results.db" | cut -c1-64)" ] && ok || bad "the database changed"
ls "$tmp/pa.db3/compute_viewer" | grep -q "journal\|wal\|shm" && bad "journal files beside the database" || ok

# ---- CSV dialects ----
# rocpd convert's casing (Lds_Block_Size, Vgpr_Count, ...): the same figures.
python3 - "$pa/compute_viewer/discover_kernel_trace.csv" "$tmp/cased_kernel_trace.csv" "$pa/compute_viewer/small_agent_info.csv" "$tmp/cased_agent_info.csv" <<'PY'
import sys
for src, dst in ((sys.argv[1], sys.argv[2]), (sys.argv[3], sys.argv[4])):
    lines = open(src).read().split("\n", 1)
    head = ",".join('"%s"' % "_".join(p.capitalize() for p in h.strip('"').split("_")) for h in lines[0].split(","))
    open(dst, "w").write(head + "\n" + lines[1])
PY
grep -q '"Lds_Block_Size","Scratch_Size","Vgpr_Count"' "$tmp/cased_kernel_trace.csv" && ok || bad "casing not rewritten"
example "$tmp/cased" "$pa/att_viewer/small/ui_output_agent_32435_dispatch_197" "$tmp/cased_kernel_trace.csv" "$tmp/cased_agent_info.csv"
cp "$tmp/pa_counter_collection.csv" "$tmp/cased/compute_viewer/"
expect_rc 0 "$bin" analyze "$tmp/cased/att_viewer/small/ui_output_agent_32435_dispatch_197" -o "$tmp/cased.out" -q
strip "$tmp/cased.out/analysis.json" >"$tmp/cased.json"
cmp -s "$tmp/pa.csv.json" "$tmp/cased.json" && ok || bad "rocpd convert casing: analysis differs"
# A kernel trace without Dispatch_Id (rocprofv3 before 1.1): read in row order, joined by name.
python3 - "$pa/compute_viewer/discover_kernel_trace.csv" "$tmp/nodisp_kernel_trace.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
i = rows[0].index("Dispatch_Id")
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC)
    for n, r in enumerate(rows):
        r = r[:i] + r[i + 1:]
        w.writerow(r if n == 0 else [int(x) if x.isdigit() else x for x in r])
PY
example "$tmp/nodisp" "$pa/att_viewer/small/ui_output_agent_32435_dispatch_197" "$tmp/nodisp_kernel_trace.csv" "$pa/compute_viewer/small_agent_info.csv"
expect_rc 0 "$bin" info "$tmp/nodisp/att_viewer/small/ui_output_agent_32435_dispatch_197"
grep -q "^kernel trace: .*nodisp_kernel_trace.csv" "$tmp/out" && ok || bad "trace without Dispatch_Id not attached"
expect_rc 0 "$bin" analyze "$tmp/nodisp/att_viewer/small/ui_output_agent_32435_dispatch_197" -o "$tmp/nodisp.out" -q
python3 - "$tmp/nodisp.out/analysis.json" "$tmp/pa.csv.out/analysis.json" <<'PY' && ok || bad "trace without Dispatch_Id: occupancy or kernel time differs"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
a = a["captures"][0] if "captures" in a else a
b = b["captures"][0] if "captures" in b else b
# The same kernel row by name; the capture's dispatch id is never matched against row ordinals.
assert a["occupancy"] == b["occupancy"], (a["occupancy"], b["occupancy"])
assert a["occupancy"]["source"] == "kernel_trace.csv" and a["occupancy"]["vgpr_total"] == 96
PY
# A rocprof v1/v2 results.csv is refused by name, never skipped in silence.
example "$tmp/v1" "$pa/att_viewer/small/ui_output_agent_32435_dispatch_197" "$pa/compute_viewer/small_agent_info.csv"
printf '"Index","KernelName","gpu-id","queue-id","queue-index","pid","tid","grd","wgr","lds","scr","arch_vgpr","accum_vgpr","sgpr","wave_size","sig","obj","DispatchNs","BeginNs","EndNs","CompleteNs"\n0,"k",2,0,0,1,1,256,64,0,0,8,0,16,64,"0x0","0x0",1,2,3,4\n' >"$tmp/v1/compute_viewer/results.csv"
expect_rc 3 "$bin" analyze "$tmp/v1/att_viewer/small/ui_output_agent_32435_dispatch_197" -o "$tmp/v1.out" -q
grep -q "results.csv.*rocprof v1/v2" "$tmp/err" && ok || bad "rocprof v1 results.csv: $(cat "$tmp/err")"

# ---- V-11: timeline entries of duration 0 are information; the capture validates and packs ----
mkdir -p "$tmp/zero/att_viewer/small"
cp -rL "$pa/att_viewer/small/ui_output_agent_32435_dispatch_197" "$tmp/zero/att_viewer/small/"
python3 - "$tmp/zero/att_viewer/small/ui_output_agent_32435_dispatch_197" <<'PY'
import json, glob, sys
f = sorted(glob.glob(sys.argv[1] + "/se*_wv*.json"))[0]
w = json.load(open(f))
w["wave"]["timeline"].insert(2, [2, 0])
json.dump(w, open(f, "w"))
PY
expect_rc 0 "$bin" validate "$tmp/zero"
grep -q "info V-11 .*1 timeline entry of duration 0" "$tmp/out" && ok || bad "V-11 zero: $(grep V-11 "$tmp/out")"
grep -q "^error" "$tmp/out" && bad "V-11 zero: errors: $(grep ^error "$tmp/out")" || ok
expect_rc 0 "$bin" pack "$tmp/zero" -o "$tmp/zero.tar.zst"

echo "rocpd.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]
