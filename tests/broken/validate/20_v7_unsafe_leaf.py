# expect: 1 error V-7 unsafe leaf "../../../etc/passwd"
import _lib
c = _lib.capture()
c.edit("snapshots.json", lambda s: s["/"]["synth"]["kernels"].__setitem__("synth_kernel.py", "../../../etc/passwd"))
