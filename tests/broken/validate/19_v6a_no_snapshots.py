# expect: 0 info V-6a rows have Source but no snapshots.json
import _lib
c = _lib.capture()
for name in ["snapshots.json", "source_0_synth_kernel.py", "source_1_synth_ops.py"]:
    c.remove(name)
