# expect: 1 warning V-8 line 0: unknown PC
# (also V-10: the record no longer counts for its row)
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
c.edit(W, lambda w: w["wave"]["instructions"][8].__setitem__(4, 0))
