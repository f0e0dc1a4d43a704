# expect: 0 warning V-17 category SALU not allowed for v_lshlrev_b32_e32 (VALU)
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
c.edit(W, lambda w: w["wave"]["instructions"][8].__setitem__(1, 2))
