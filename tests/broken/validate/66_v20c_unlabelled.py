# expect: 0 warning V-20c capture has no label: move it to att_viewer/<label>/
# layout: example
# path: .
# The big capture sits directly under att_viewer/ instead of att_viewer/big/.
import _lib, os
av = os.path.join(_lib.root(), "att_viewer")
os.rename(os.path.join(av, "big", "ui_output_agent_40963_dispatch_38"),
          os.path.join(av, "ui_output_agent_40963_dispatch_38"))
os.rmdir(os.path.join(av, "big"))
