# expect: 1 error V-11 duration 0
# A zero-length entry inserted (sums unchanged).
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
c.edit(W, lambda w: w["wave"]["timeline"].insert(3, [2, 0]))
