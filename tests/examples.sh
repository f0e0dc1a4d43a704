#!/bin/bash
# examples/synth_gfx950 holds what `kreport analyze` makes of the project's
# own example (REPORT.md, analysis.json, hotspots.csv, source_lines.csv).
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
for f in REPORT.md analysis.json hotspots.csv source_lines.csv; do
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
                  states=(272, 3296, 20960, 416), row37=(24, 8928), row7_stall=4896, waves=8),
    "big": dict(records=3616, latency=142080, stall=115456, idle=5696,
                states=(1088, 21248, 121088, 2816), row37=(192, 71424), row7_stall=19584, waves=32),
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
for e in errors:
    print(e)
sys.exit(1 if errors else 0)
PY
echo "examples: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
