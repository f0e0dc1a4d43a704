# expect: 1 error V-8a category 13 outside 0..12
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
c.edit(W, lambda w: w["wave"]["instructions"][8].__setitem__(1, 13))
