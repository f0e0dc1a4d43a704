# expect: 0 info V-1 empty shell
# An empty shell (docs/formats.md#capture-files): "wave_filenames": null, "code": null, no wave,
# wstates, snapshot or source files.
import _lib
c = _lib.capture()
c.edit("filenames.json", lambda f: f.__setitem__("wave_filenames", None))
c.edit("code.json", lambda f: f.__setitem__("code", None))
for name in c.waves() + ["wstates1.json", "wstates2.json", "wstates3.json", "wstates4.json",
                         "snapshots.json", "source_0_synth_kernel.py", "source_1_synth_ops.py"]:
    c.remove(name)
