#!/bin/bash
# examples/synth_gfx950 holds what `kreport analyze` makes of the project's
# own example (REPORT.md, analysis.json, hotspots.csv, source_lines.csv,
# report.html).
# 1. Regenerating them must give the committed bytes.
# 2. The committed analysis.json must carry the answers known by construction
#    (examples/README.md derives them by hand from the generator's formulas).
set -u
bin="$KR_BIN"; src="$KR_SRC"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok()  { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL: $*"; }
ex=examples/synth_gfx950
cd "$src" || exit 1
if "$bin" analyze "$ex" -o "$tmp/out" -q; then ok; else bad "analyze failed"; fi
for f in REPORT.md analysis.json hotspots.csv source_lines.csv report.html; do
    if cmp -s "$ex/$f" "$tmp/out/$f"; then ok; else
        bad "$ex/$f differs from a fresh run (regenerate: kreport analyze $ex -o $ex --force)"
        diff "$ex/$f" "$tmp/out/$f" | head -10
    fi
done
python3 - "$ex/analysis.json" <<'PY' && ok || bad "hand-derived answers"
import json, sys
d = json.load(open(sys.argv[1]))
caps = {c["capture"]["label"]: c for c in d["captures"]}
# examples/README.md, "What it shows (answers by construction)"
want = {
    "small": dict(records=568, latency=24096, stall=19264, idle=1040,
                  states=(272, 3296, 20960, 416), row37=(24, 8928), row7_stall=4896, waves=8, iters=3),
    "big": dict(records=3616, latency=142080, stall=115456, idle=5696,
                states=(1088, 21248, 121088, 2816), row37=(192, 71424), row7_stall=19584, waves=32, iters=6),
}
errors = []
def check(what, got, exp):
    if got != exp:
        errors.append(f"{what}: {got} != {exp}")
for label, w in want.items():
    c = caps[label]
    t = c["totals"]
    check(f"{label} records", t["records"], w["records"])
    check(f"{label} hit", t["hit"], w["records"])
    check(f"{label} latency", t["latency"], w["latency"])
    check(f"{label} stall", t["stall"], w["stall"])
    check(f"{label} idle", t["idle"], w["idle"])
    ws = c["wave_states"]
    check(f"{label} states", (ws["idle"], ws["exec"], ws["wait"], ws["stall"]), w["states"])
    check(f"{label} waves", c["capture"]["waves"], w["waves"])
    rows = {h["row"]: h for h in c["hotspots"]["by_stall"]}
    check(f"{label} row 37", (rows[37]["hit"], rows[37]["stall"]), w["row37"])
    check(f"{label} row 7 stall", rows[7]["stall"], w["row7_stall"])
    check(f"{label} clock", round(c["capture"]["clock_mhz"], 6), 2100.0)
    o = c["occupancy"]
    check(f"{label} vgpr reported", o["vgpr_reported"], 48)
    check(f"{label} vgpr total", o["vgpr_total"], 96)
    check(f"{label} waves/SIMD", o["waves_per_simd"], 5)
    check(f"{label} limiter", o["limiter"], ["vgpr"])
    check(f"{label} next step", o["next_step"]["vgpr_max"], 80)
    check(f"{label} target", c["target"], "gfx950")
    # waits (synth/synth.c): the main wait (row 37) is released by the loop's
    # buffer load (row 28) alone, 9 records and 88 cycles after it issued;
    # its stall 320 + 40 (j mod 3) + 8 s is the exposed latency (p50 368).
    wt = {x["row"]: x for x in c["waits"]["waits"]}
    check(f"{label} links source", c["waits"]["links_source"], "stored")
    m = wt[37]
    check(f"{label} row 37 producers", [(p["row"], p["waited"], p["critical"]) for p in m["producers"]],
          [(28, w["row37"][0], w["row37"][0])])
    check(f"{label} row 37 attributed", m["attributed_stall"], w["row37"][1])
    check(f"{label} row 37 distance", (m["distance_instructions"]["min"], m["distance_instructions"]["max"],
                                       m["distance_cycles"]["min"], m["distance_cycles"]["max"]), (9, 9, 88, 88))
    e = m["exposed_latency"]
    check(f"{label} row 37 exposed", (e["min"], e["p50"], e["max"]), (320, 368, 424))
    check(f"{label} row 7 producer", wt[7]["producers"][0]["row"], 3)
    # phases: one loop (rows 28-41), I iterations on every wave, iteration
    # j of a wave on SIMD s costs 432 + 40 (j mod 3) + 8 s
    ph = c["phases"]
    check(f"{label} loops", [(l["head_row"], l["tail_row"], l["depth"]) for l in ph["loops"]], [(28, 41, 0)])
    lp = ph["loops"][0]
    check(f"{label} iterations per wave", sorted({x["iterations"] for x in lp["per_wave"]}), [w["iters"]])
    check(f"{label} waves in the loop", lp["waves_entered"], w["waves"])
    check(f"{label} phases", [(x["kind"], x["first_row"], x["last_row"]) for x in ph["phases"]],
          [("prologue", 1, 27), ("loop", 28, 41), ("epilogue", 42, 45)])
    check(f"{label} phase hits", [x["hit"] for x in ph["phases"]],
          [25 * w["waves"], 14 * w["waves"] * w["iters"], 4 * w["waves"]])
    fi, st = lp["first_iteration_cycles"], lp["steady_iteration_cycles"]
    check(f"{label} first iteration", (fi["n"], fi["min"], fi["max"]), (w["waves"], 432, 456))
    check(f"{label} steady state", (st["n"], st["max"]), (w["waves"] * (w["iters"] - 1), 536))
    check(f"{label} main loop", ph["main_loop"], 0)
    # speed of light: the example has no counter collection; the device is
    # the agents' "AMD Instinct MI350X" (templates/hw.json: matrix BF16
    # 2306.9 TFLOP/s, HBM 8000 GB/s → ridge 288.3625 FLOP/byte); the ISA's
    # bf16 and f8f6f4 MFMAs have equal Hit, the earlier type (bf16) wins.
    # Saturation: 65536 / 256 = 256 workgroups on 256 CUs, 5 waves/SIMD =
    # 5 workgroups/CU → 1280 slots, one round, 1 − 256/1280 = 80 % idle.
    rf, sat = c["roofline"], c["saturation"]
    check(f"{label} device", rf["device"], "MI350X")
    check(f"{label} counters", c["counters"]["present"], False)
    check(f"{label} no work", (rf["flops"], rf["bytes"], rf["bound"], rf["target"]), (None, None, None, None))
    check(f"{label} ceiling", (rf["ceiling"], rf["ceiling_source"]), ("matrix_bf16", "isa"))
    check(f"{label} ridge", round(rf["ridge"], 6), 288.3625)
    check(f"{label} saturation", (sat["workgroups"], sat["cu_count"], sat["wg_per_cu_limit"], sat["slots"],
                                  sat["rounds"], round(sat["tail_fraction"], 12), sat["verdict"]),
          (256, 256, 5, 1280, 1, 0.8, "underfilled"))
    # summary (docs/findings.md): the grid fills 256 / 1280 slots
    # (grid_underfill, info: not fewer workgroups than CUs); the wait at row 7
    # waits on the s_load of row 3, a kernel-argument load from s[0:1], and
    # holds row7_stall / stall = 19584 / 115456 = 17.0 % (big), 4896 / 19264
    # = 25.4 % (small) >= 10 %: kernarg_wait. Every row but the two never
    # reached ran, no wave exits early: representative. The largest stall
    # group is the vector loads' waits (rows 17, 21 and 37), so the bound;
    # the grid leaves 80 % of the slots idle, the first action.
    sm = c["summary"]
    check(f"{label} findings", [(x["code"], x["severity"]) for x in sm["findings"]],
          [("grid_underfill", "info"), ("kernarg_wait", "warning")])
    fd = {x["code"]: x for x in sm["findings"]}
    check(f"{label} slot fill", fd["grid_underfill"]["value"], 256 / 1280)
    check(f"{label} kernarg share", round(fd["kernarg_wait"]["value"], 9), round(w["row7_stall"] / w["stall"], 9))
    check(f"{label} kernarg rows", fd["kernarg_wait"]["vaddrs"], [6416])
    check(f"{label} representative", sm["representative"], True)
    check(f"{label} bound", sm["bound"]["code"], "vmem_load")
    check(f"{label} actions", [x["code"] for x in sm["actions"]], ["grid_underfill", "vmem_load", "kernarg"])
    check(f"{label} first action share", round(sm["actions"][0]["share"], 12), 0.8)
for e in errors:
    print(e)
sys.exit(1 if errors else 0)
PY
echo "examples: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
