# expect: 1 error V-8d num_insts 72 / num_stitched 71 != 71 records
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
c.edit(W, lambda w: w.__setitem__("num_insts", 72))
