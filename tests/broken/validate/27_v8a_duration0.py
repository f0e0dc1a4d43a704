# expect: 1 warning V-8a duration 0
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
c.edit(W, lambda w: w["wave"]["instructions"][8].__setitem__(3, 0))
