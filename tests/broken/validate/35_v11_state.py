# expect: 1 error V-11 state 7 outside 0..4
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
c.edit(W, lambda w: w["wave"]["timeline"][3].__setitem__(0, 7))
