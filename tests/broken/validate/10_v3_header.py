# expect: 3 load code.json
import _lib
c = _lib.capture()
c.edit("code.json", lambda f: f.__setitem__("header", f["header"].replace("Idle", "Bogus")))
