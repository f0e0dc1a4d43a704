# expect: 0 info V-20e primary capture is underfilled: an achieved-occupancy tail, the traced CU below half its peak for 35% of the dispatch; REPORT.md marks it so
# layout: example
# path: .
# The synth big capture has a low-occupancy tail (35 %, the occupancy
# analysis of analysis.json); a REPORT.md line naming big and "underfilled"
# turns the V-20e warning into an info.
import _lib, os
with open(os.path.join(_lib.root(), "REPORT.md"), "w") as f:
    f.write("# Report\n\n| big | underfilled by design: the sampled CU drains early |\n")
