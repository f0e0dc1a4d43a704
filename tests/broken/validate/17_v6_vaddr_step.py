# expect: 0 warning V-6 step not 4, 8, 12 or 16
import _lib
c = _lib.capture()
c.edit("code.json", lambda f: f["code"][10].__setitem__(5, f["code"][10][5] + 2))
