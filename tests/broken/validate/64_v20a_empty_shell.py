# expect: 1 error V-20a is an empty shell (no waves; rocprofv3 reserves the slot before tracing starts): delete att_viewer/big/ui_output_agent_40963_dispatch_40
# layout: example
# path: .
# A second dispatch folder of the big run that never got waves (hub AGENTS.md
# Gotcha 3): filenames.json and code.json as the writer leaves them (docs/formats.md#capture-files).
import _lib, json, os
d = os.path.join(_lib.root(), "att_viewer", "big", "ui_output_agent_40963_dispatch_40")
os.makedirs(d)
with open(os.path.join(d, "filenames.json"), "w") as f:
    json.dump({"version": "3.0.0", "gfxip": 9, "gfxv": "vega", "wave_filenames": None}, f, separators=(",", ":"))
with open(os.path.join(d, "code.json"), "w") as f:
    json.dump({"version": "3.0.0", "header": "ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle",
               "code": None}, f, separators=(",", ":"))
