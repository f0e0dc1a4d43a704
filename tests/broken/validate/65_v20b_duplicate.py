# expect: 1 error V-20b has the same files as att_viewer/medium/ui_output_agent_24601_dispatch_14: keep one
# layout: example
# path: .
# The small capture published twice, under a second label.
import _lib, os, shutil
src = os.path.join(_lib.root(), "att_viewer", "small", "ui_output_agent_24601_dispatch_14")
shutil.copytree(src, os.path.join(_lib.root(), "att_viewer", "medium", "ui_output_agent_24601_dispatch_14"))
