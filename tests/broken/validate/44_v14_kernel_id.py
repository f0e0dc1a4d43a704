# expect: 1 error V-14 kernel id 9 is not a key of dispatches
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
c.edit("occupancy.json", lambda o: o["0"][0].__setitem__(5, 9))
