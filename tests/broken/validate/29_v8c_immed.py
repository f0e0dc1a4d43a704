# expect: 1 warning V-8c IMMED record with stall 596 != duration 600
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
c.edit(W, lambda w: w["wave"]["instructions"][6].__setitem__(2, 596))
