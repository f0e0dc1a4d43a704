# expect: 0 warning V-7 line 99999 beyond the
import _lib
c = _lib.capture()
c.edit("code.json", lambda f: f["code"][4].__setitem__(3, "/synth/kernels/synth_kernel.py:99999"))
