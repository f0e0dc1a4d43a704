# expect: 1 error V-10 Hit 9 != 8 recomputed from wave files
# Row 12 runs once per wave: Hit 8 with 8 waves.
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
c.edit("code.json", lambda f: f["code"][12].__setitem__(6, 9))
