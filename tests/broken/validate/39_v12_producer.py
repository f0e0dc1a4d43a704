# expect: 0 warning V-12 stored [7, [1, 2, 4]] != recomputed [7, [1, 2, 3]]
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
c.edit(W, lambda w: w["wave"]["waitcnt"][0][1][2].__setitem__(0, 4))
