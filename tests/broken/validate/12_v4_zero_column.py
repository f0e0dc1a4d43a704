# expect: 1 error V-4 column _ is 1, expected 0
import _lib
c = _lib.capture()
c.edit("code.json", lambda f: f["code"][3].__setitem__(1, 1))
