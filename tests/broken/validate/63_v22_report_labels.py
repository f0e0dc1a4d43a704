# expect: 0 info V-22 REPORT.md line 3: calls state 1 EXEC
# layout: example
# path: .
# A hand-written report with the hub's off-by-one state names (docs/formats.md#timeline).
import _lib, os
with open(os.path.join(_lib.root(), "REPORT.md"), "w") as f:
    f.write("# Report\n\nTimeline state mapping: `1=EXEC`, `2=WAIT`, `3=STALL`, `4=SLEEP`.\n")
