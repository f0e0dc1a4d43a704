# expect: 0 warning V-13 missing: state 4 (STALL)
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
c.remove("wstates4.json")
