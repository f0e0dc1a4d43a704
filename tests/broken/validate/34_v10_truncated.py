# expect: 1 error V-10 sum of Hit 568 != 567 wave records
# One record missing from a wave file (counts kept consistent): 8 x 71 - 1.
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
def drop(w):
    del w["wave"]["instructions"][10]
    w["num_insts"] = w["num_stitched"] = len(w["wave"]["instructions"])
c.edit(W, drop)
