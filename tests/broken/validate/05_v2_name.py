# expect: 1 error V-2 name "SE3" != "SE1"
import _lib
c = _lib.capture()
c.edit("se1_sm2_sl0_wv0.json", lambda w: w.__setitem__("name", "SE3"))
