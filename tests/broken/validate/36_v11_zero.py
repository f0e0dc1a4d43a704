# expect: 0 info V-11 1 timeline entry of duration 0
# A zero-length entry inserted (sums unchanged): information, not an error
# (rocprofv3 writes such entries in real captures, docs/validate.md V-11).
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
c.edit(W, lambda w: w["wave"]["timeline"].insert(3, [2, 0]))
