# expect: 1 error V-8d duration 3032 != end - begin = 3028
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
c.edit(W, lambda w: w.__setitem__("duration", 3032))
