# expect: 3 load discover_kernel_trace.csv
# layout: example
# path: att_viewer/small
# A kernel_trace row with one field missing (docs/formats.md#rocprofv3-csvs).
import _lib, os
p = os.path.join(_lib.root(), "compute_viewer", "discover_kernel_trace.csv")
lines = open(p).read().split("\n")
lines[1] = lines[1].rsplit(",", 1)[0]
open(p, "w").write("\n".join(lines))
