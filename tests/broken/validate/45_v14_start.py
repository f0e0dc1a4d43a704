# expect: 3 load occupancy.json
# start outside {0, 1} is rejected by the loader.
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
c.edit("occupancy.json", lambda o: o["0"][0].__setitem__(4, 2))
