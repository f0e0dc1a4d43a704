# expect: 1 error V-8a stall 8 > duration 4
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
c.edit(W, lambda w: w["wave"]["instructions"][8].__setitem__(2, 8))
