# expect: 0 warning V-2b cu 2 != 1
import _lib
c = _lib.capture()
c.edit("se1_sm3_sl0_wv0.json", lambda w: w["wave"].__setitem__("cu", 2))
