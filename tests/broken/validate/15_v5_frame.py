# expect: 0 warning V-5 Source frame "synth_kernel.py" has no :line >= 1
import _lib
c = _lib.capture()
c.edit("code.json", lambda f: f["code"][4].__setitem__(3, "synth_kernel.py"))
