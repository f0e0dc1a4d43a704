# expect: 1 info V-4a multiples of 4
# (also V-10: the Idle no longer matches the wave files)
import _lib
c = _lib.capture()
c.edit("code.json", lambda f: f["code"][4].__setitem__(9, 2))
