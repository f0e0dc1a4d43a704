#!/bin/bash
# seeds.sh — seed corpora for the libFuzzer targets and a runner for them.
#
#   tests/fuzz/seeds.sh make KREPORT OUT
#       writes OUT/<target>/ seed files: the files of `kreport synth`
#       bundles (capture, run and example layouts, gfx950 and gfx942, 1 and
#       2 waves), hand-written edge cases, and, when the hub is present
#       (KR_HUB, default ../shared/fixtures/hub), small real fragments (the
#       first bytes of real files). OUT should lie outside the source tree:
#       nothing here is committed and no hub file may be copied into it.
#   tests/fuzz/seeds.sh run BUILD OUT SECONDS [TARGET...]
#       runs each fuzz_<TARGET> of BUILD (all when none is named) for
#       SECONDS with OUT/<target> as its corpus (new inputs are added there),
#       a fixed -seed=1 (the same mutations every run, so a CI smoke does
#       not fail at random),
#       tests/fuzz/json.dict for JSON targets, ASan+UBSan as built, at most
#       two at a time (KR_FUZZ_JOBS), nice -n 19. Crash, leak and timeout
#       inputs land in OUT/artifacts/<target>/. Prints one line per target:
#       "fuzz <target>: <executions> execs in <s> s, <result>", and exits 1
#       if any target failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)

seed() {   # seed TARGET NAME < content
    mkdir -p "$out/$1"
    cat > "$out/$1/$2"
}

make_corpus() {
    local bin=$1
    out=$2
    mkdir -p "$out"
    local tmp
    tmp=$(mktemp -d)
    # shellcheck disable=SC2064
    trap "rm -rf '$tmp'" RETURN
    "$bin" synth "$tmp/cap" -q --waves 2 || return 1
    "$bin" synth "$tmp/cap942" -q --waves 1 --gfx gfx942 --iterations 1 || return 1
    "$bin" synth "$tmp/run" -q --layout run --waves 1 --iterations 1 || return 1
    "$bin" synth "$tmp/ex" -q --layout example --waves 1 --iterations 1 || return 1
    local n=0
    for cap in "$tmp"/cap/ui_output_* "$tmp"/cap942/ui_output_* "$tmp"/run/ui_output_*; do
        n=$((n + 1))
        seed filenames "synth_$n.json" < "$cap/filenames.json"
        for t in code code_diff; do seed $t "synth_$n.json" < "$cap/code.json"; done
        seed occupancy "synth_$n.json" < "$cap/occupancy.json"
        seed realtime "synth_$n.json" < "$cap/realtime.json"
        [ -f "$cap/snapshots.json" ] && seed snapshots "synth_$n.json" < "$cap/snapshots.json"
        for w in "$cap"/wstates*.json; do [ -f "$w" ] && seed wstates "synth_${n}_$(basename "$w")" < "$w"; done
        for w in "$cap"/se*_sm*.json; do
            [ -f "$w" ] || continue
            for t in wave wave_jansson wave_diff; do seed $t "synth_${n}_$(basename "$w")" < "$w"; done
        done
    done
    seed results synth_run.json < "$tmp"/run/out_results.json
    seed csv_kernel_trace synth_run.csv < "$tmp"/run/out_kernel_trace.csv
    seed csv_agent_info synth_run.csv < "$tmp"/run/out_agent_info.csv
    seed csv_kernel_stats synth_kernel_stats.csv < "$tmp"/ex/compute_viewer/discover_kernel_stats.csv
    seed csv_kernel_stats synth_domain_stats.csv < "$tmp"/ex/compute_viewer/discover_domain_stats.csv
    seed csv_kernel_trace synth_discover.csv < "$tmp"/ex/compute_viewer/discover_kernel_trace.csv
    for f in "$tmp"/run/*.csv "$tmp"/ex/compute_viewer/*.csv; do seed csv "synth_$(basename "$f")" < "$f"; done
    # rocpd databases (docs/formats.md#rocpd-databases) from the synthetic run's CSVs, one per
    # schema version, small pages so the seeds stay small.
    python3 - "$tmp/run/out_kernel_trace.csv" "$tmp/counters.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["Dispatch_Id", "Kernel_Name", "Counter_Name", "Counter_Value"])
    for r in rows[:2]:
        w.writerow([r["Dispatch_Id"], r["Kernel_Name"], "SQ_WAVES", 64])
PY
    mkdir -p "$out/rocpd"
    for schema in 3 3.0.3 4.1.0; do
        python3 "$src/tests/tools/mkrocpd.py" "$out/rocpd/synth_$schema.db" --schema "$schema" --page-size 512 \
            --trace "$tmp/run/out_kernel_trace.csv" --agents "$tmp/run/out_agent_info.csv" \
            --counters "$tmp/counters.csv" --handle 2=32235 || return 1
    done

    # Hand-written edge cases (docs/formats.md#source-snapshots, docs/formats.md#results-json, docs/formats.md#rocprofv3-csvs).
    seed snapshots edge.json <<'EOF'
{"/":{"x":{"a.py":"source_0_a.py","b.py":"source_5_in","c.py":"source_2_out","d.py":"source_3_abs","e":"../x","f":"source_4_dir","g":"source_6_dangling"}},"a.py":"source_1_b.py","..":{"b.py":"/etc/hostname"}}
EOF
    seed results v1_trace_events.json <<'EOF'
{"traceEvents":[{}],"otherData":{}}
EOF
    seed results minimal.json <<'EOF'
{"rocprofiler-sdk-tool":[{"metadata":{"pid":1},"agents":[{"id":{"handle":32235},"type":2,"name":"gfx950","hive_id":18446744073709551615,"cu_count":256}],"code_objects":[{"code_object_id":1,"agent_id":{"handle":32235},"uri":"file:///x","load_base":0,"load_size":0,"load_delta":0}],"kernel_symbols":[{"kernel_id":1,"code_object_id":1,"kernel_name":"k.kd","kernel_object":5888,"kernel_code_entry_byte_offset":0,"sgpr_count":16,"arch_vgpr_count":8,"accum_vgpr_count":0}],"strings":{"att_filenames":["a.att"],"code_object_snapshot_filenames":[{"key":1,"value":"x"}]},"buffer_records":{"kernel_dispatch":[{"start_timestamp":1,"end_timestamp":2,"dispatch_info":{"agent_id":{"handle":32235},"kernel_id":1,"dispatch_id":44,"workgroup_size":{"x":256,"y":1,"z":1},"grid_size":{"x":512,"y":1,"z":1}}}]},"callback_records":{"counter_collection":[{"dispatch_data":{"dispatch_info":{"dispatch_id":44,"kernel_id":1}},"records":[{"counter_id":3,"value":1.5}]}]},"counters":[{"id":3,"name":"SQ_WAVES"}]}]}
EOF
    seed csv_counter_collection synth.csv <<'EOF'
"Correlation_Id","Dispatch_Id","Agent_Id","Queue_Id","Process_Id","Thread_Id","Grid_Size","Kernel_Id","Kernel_Name","Workgroup_Size","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count","Counter_Name","Counter_Value","Start_Timestamp","End_Timestamp"
1,44,"Agent 2",1,700119,700119,131072,195,"flash_attn_func_kernel_0",256,512,0,124,0,112,"SQ_WAVES",2048.000000,100,200
EOF
    seed csv_counter_collection old.csv <<'EOF'
"Correlation_Id","Dispatch_Id","Agent_Id","Queue_Id","Process_Id","Thread_Id","Grid_Size","Kernel_Id","Kernel_Name","Workgroup_Size","LDS_Block_Size","Scratch_Size","VGPR_Count","SGPR_Count","Counter_Name","Counter_Value"
1,44,2,1,700119,700119,131072,195,"k, with ""quotes""",256,512,0,124,112,"SQ_WAVES",2048
EOF
    seed csv quoted.csv < <(printf '\xef\xbb\xbf"a","b"\r\n"x\ny",2\r\n"",""\n')
    seed bench_csv synth.csv <<'EOF'
block_size,mtp,head_size,us_flydsl,err_flydsl,max_diff
16,1,128,10.5,0,0.001
16,2,128,12.25,0,0.002
32,1,64,8,1,0.5
EOF
    seed bench_csv tuples.csv <<'EOF'
shape,dtype,us_ref,us_new,speedup
"(1, 2)",bf16,3,2,1.5
"(1, 2)",True,NaN,inf,
EOF
    seed wave_diff null_arrays.json <<'EOF'
{"duration":4,"name":"SE2","num_insts":0,"num_stitched":0,"wave":{"begin":0,"cu":1,"end":4,"id":0,"simd":0,"slot":0,"instructions":null,"timeline":null,"waitcnt":null,"extra":{"k":[1,{"x":null}]}}}
EOF

    # The whole-bundle target: a folder as "=== NAME" sections.
    python3 - "$tmp" "$out/bundle" <<'PY'
import os, sys
tmp, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
def sections(cap, extra=()):
    parts = []
    for name in sorted(os.listdir(cap)):
        with open(os.path.join(cap, name), "rb") as f:
            parts.append(b"=== " + name.encode() + b"\n" + f.read())
    for name, data in extra:
        parts.append(b"=== " + name.encode() + b"\n" + data)
    return b"\n".join(parts) + b"\n"
n = 0
for layout in ("cap", "cap942", "run"):
    for d in sorted(os.listdir(os.path.join(tmp, layout))):
        cap = os.path.join(tmp, layout, d)
        if not os.path.isdir(cap):
            continue
        extra = []
        if layout == "run":
            for f in sorted(os.listdir(os.path.join(tmp, layout))):
                p = os.path.join(tmp, layout, f)
                if os.path.isfile(p):
                    extra.append(("^" + f, open(p, "rb").read()))
        n += 1
        open(os.path.join(out, "synth_%d" % n), "wb").write(sections(cap, extra))
# Hostile shapes: a directory where a file should be, symlinks leaving the folder.
base = os.path.join(out, "synth_1")
data = open(base, "rb").read()
open(os.path.join(out, "edge_links"), "wb").write(
    data + b"=== source_9_x.py -> ../../outside.py\n=== wstates0.json/\n=== source_8_y.py -> /etc/hostname\n")
# A wave with "instructions": null (its SIMD then has no records at all).
import re
open(os.path.join(out, "edge_null_insts"), "wb").write(
    re.sub(rb'"instructions":\[\[.*?\]\],"simd"', b'"instructions":null,"simd"', data, count=1))
PY

    # Archives of a small synthetic capture in every format read, and hostile
    # shapes (archive.h); .tar.zst only when the zstd program is there.
    python3 - "$tmp/cap942" "$out/archive" <<'PY'
import io, os, sys, tarfile, zipfile
src, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
cap = [os.path.join(src, d) for d in sorted(os.listdir(src))][0]
for mode, name in (("w", "synth.tar"), ("w:gz", "synth.tar.gz"), ("w:xz", "synth.tar.xz")):
    with tarfile.open(os.path.join(out, name), mode, format=tarfile.PAX_FORMAT) as t:
        t.add(cap, arcname=os.path.basename(cap))
with zipfile.ZipFile(os.path.join(out, "synth.zip"), "w", zipfile.ZIP_DEFLATED) as z:
    for f in sorted(os.listdir(cap)):
        z.write(os.path.join(cap, f), "cap/" + f)
def tar(name, members):
    with tarfile.open(os.path.join(out, name), "w", format=tarfile.PAX_FORMAT) as t:
        for path, typ, link, data in members:
            i = tarfile.TarInfo(path); i.type = typ; i.linkname = link; i.size = len(data)
            t.addfile(i, io.BytesIO(data) if data else None)
R, D, L, H = tarfile.REGTYPE, tarfile.DIRTYPE, tarfile.SYMTYPE, tarfile.LNKTYPE
tar("edge_links.tar", [("cap", D, "", b""), ("cap/a.json", R, "", b"{}"), ("cap/b.json", H, "cap/a.json", b""),
                       ("cap/c", L, "../x", b"")])
tar("edge_paths.tar", [("./cap//a", R, "", b"1"), ("cap/../../b", R, "", b"2"), ("/abs", R, "", b"3")])
tar("edge_dup.tar", [("cap/a", R, "", b"1"), ("cap/a", R, "", b"2"), ("cap/a/b", R, "", b"3")])
PY
    if command -v zstd >/dev/null; then
        zstd -q -c "$out/archive/synth.tar" > "$out/archive/synth.tar.zst"
    fi

    # Small real fragments (first bytes of real files), when the hub is there.
    local hub=${KR_HUB:-$src/../shared/fixtures/hub}
    if [ -d "$hub/examples" ]; then
        local cap
        cap=$(ls -d "$hub"/examples/pa_mqa_logits_fp4/att_viewer/small/ui_output_* 2>/dev/null | head -1)
        if [ -n "$cap" ]; then
            seed filenames real.json < "$cap/filenames.json"
            seed realtime real.json < "$cap/realtime.json"
            seed occupancy real.json < "$cap/occupancy.json"
            for t in code code_diff; do head -c 4096 "$cap/code.json" | seed $t real_head.json; done
            for w in "$cap"/wstates*.json; do seed wstates "real_$(basename "$w")" < "$w"; done
            w=$(ls "$cap"/se*_sm*.json | head -1)
            for t in wave wave_jansson wave_diff; do head -c 2048 "$w" | seed $t real_head.json; done
        fi
        local cv="$hub/examples/flash_attn_func/compute_viewer"
        if [ -d "$cv" ]; then
            head -c 4096 "$cv/discover_kernel_trace.csv" | seed csv_kernel_trace real_head.csv
            seed csv_agent_info real.csv < "$cv/discover_agent_info.csv"
            head -c 2048 "$cv/discover_kernel_stats.csv" | seed csv_kernel_stats real_head.csv
            seed csv_kernel_stats real_domain.csv < "$cv/discover_domain_stats.csv"
            head -c 8192 "$cv/small_results.json" | seed results real_head.json
        fi
    fi
    return 0
}

run_targets() {
    local build=$1 corpus=$2 secs=$3
    shift 3
    local targets=("$@")
    if [ ${#targets[@]} -eq 0 ]; then
        for f in "$build"/fuzz_*; do
            [ -x "$f" ] && targets+=("$(basename "$f" | sed 's/^fuzz_//')")
        done
    fi
    local jobs=${KR_FUZZ_JOBS:-2} fail=0 pids=() names=()
    local logs="$corpus/logs"
    mkdir -p "$logs"
    report() {   # report NAME STATUS
        local name=$1 st=$2 log="$logs/$1.log"
        local execs
        execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
        [ -n "$execs" ] || execs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
        local what="ok"
        if [ "$st" -ne 0 ]; then
            what=$(grep -m1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|SUMMARY|fuzz:' "$log" || echo "exit $st")
            fail=1
        fi
        echo "fuzz $name: ${execs:-0} execs (run of up to $secs s), $what"
        [ "$st" -ne 0 ] && grep -v '^#' "$log" | sed -n '/ERROR\|runtime error\|^fuzz:\|ALARM/,$p' | head -40
    }
    for name in "${targets[@]}"; do
        local bin="$build/fuzz_$name"
        [ -x "$bin" ] || { echo "fuzz $name: no $bin"; fail=1; continue; }
        mkdir -p "$corpus/$name" "$corpus/artifacts/$name"
        local dict=()
        case "$name" in csv*|bench_csv|archive|rocpd) ;; *) dict=(-dict="$here/json.dict") ;; esac
        nice -n 19 "$bin" "${dict[@]}" -seed=1 -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
            -max_len=65536 -print_final_stats=1 -artifact_prefix="$corpus/artifacts/$name/" \
            "$corpus/$name" > "$logs/$name.log" 2>&1 &
        pids+=($!)
        names+=("$name")
        if [ ${#pids[@]} -ge "$jobs" ]; then
            wait "${pids[0]}"; report "${names[0]}" $?
            pids=("${pids[@]:1}"); names=("${names[@]:1}")
        fi
    done
    while [ ${#pids[@]} -gt 0 ]; do
        wait "${pids[0]}"; report "${names[0]}" $?
        pids=("${pids[@]:1}"); names=("${names[@]:1}")
    done
    return $fail
}

case "${1:-}" in
    make) [ $# -eq 3 ] || { echo "usage: $0 make KREPORT OUT" >&2; exit 2; }
          make_corpus "$2" "$3" ;;
    run)  [ $# -ge 4 ] || { echo "usage: $0 run BUILD OUT SECONDS [TARGET...]" >&2; exit 2; }
          b=$2 o=$3 s=$4; shift 4
          run_targets "$b" "$o" "$s" "$@" ;;
    *)    echo "usage: $0 make KREPORT OUT | run BUILD OUT SECONDS [TARGET...]" >&2; exit 2 ;;
esac
