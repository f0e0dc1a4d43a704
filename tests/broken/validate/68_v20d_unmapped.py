# expect: 0 warning V-20d 0/45 instruction rows are source-mapped and neither README.md nor REPORT.md says why
# layout: example
# path: .
# A capture of a kernel compiled without line tables: every Source of the
# small capture empty (hub AGENTS.md Step 7a); the synth README has no
# source mapping note.
import _lib, os
c = _lib.Capture(os.path.join(_lib.root(), "att_viewer", "small", "ui_output_agent_24601_dispatch_14"))
def clear(code):
    for row in code["code"]:
        row[3] = ""
c.edit("code.json", clear)
c.remove("snapshots.json")
for name in ("source_0_synth_kernel.py", "source_1_synth_ops.py"):
    c.remove(name)
