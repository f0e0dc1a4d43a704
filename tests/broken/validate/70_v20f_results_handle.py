# expect: 0 warning V-20f has no GPU agent with handle 99999 of capture big/ui_output_agent_99999_dispatch_38 (its GPU agents: 40963, 40964
# layout: example
# path: .
# The big capture comes from another run than big_results.json (docs/formats.md#joining-a-capture).
import _lib, os
b = os.path.join(_lib.root(), "att_viewer", "big")
os.rename(os.path.join(b, "ui_output_agent_40963_dispatch_38"), os.path.join(b, "ui_output_agent_99999_dispatch_38"))
