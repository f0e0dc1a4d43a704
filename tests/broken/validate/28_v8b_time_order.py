# expect: 1 warning V-8b not after the previous record
# Record 9 moved back to record 8's time (also V-10: the next record's gap grows).
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
c.edit(W, lambda w: w["wave"]["instructions"][9].__setitem__(0, w["wave"]["instructions"][8][0]))
