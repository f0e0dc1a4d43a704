# expect: 0 warning V-13 recomputed from the timelines
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
c.edit("wstates2.json", lambda s: s["state"].__setitem__(3, s["state"][3] + 1))
