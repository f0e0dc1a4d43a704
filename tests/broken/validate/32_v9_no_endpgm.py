# expect: 1 warning V-9 not s_endpgm
# The s_endpgm record is lost (counts kept consistent).
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
def drop(w):
    w["wave"]["instructions"].pop()
    w["num_insts"] = w["num_stitched"] = len(w["wave"]["instructions"])
c.edit(W, drop)
