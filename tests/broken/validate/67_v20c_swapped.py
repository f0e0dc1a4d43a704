# expect: 0 warning V-20c the small capture has more records (3616) than big/ui_output_agent_24601_dispatch_14 (568): the labels look swapped
# layout: example
# path: .
# small and big exchanged, with their results.json and agent tables (so
# every capture still joins its own run). Records: big W=32 -> 3616, small
# W=8 -> 568 (tests/golden/README.md).
import _lib, os
r = _lib.root()
def swap(a, b):
    os.rename(a, a + ".tmp"); os.rename(b, a); os.rename(a + ".tmp", b)
swap(os.path.join(r, "att_viewer", "small"), os.path.join(r, "att_viewer", "big"))
for kind in ("results.json", "agent_info.csv"):
    swap(os.path.join(r, "compute_viewer", "small_" + kind), os.path.join(r, "compute_viewer", "big_" + kind))
