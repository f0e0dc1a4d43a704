# expect: 0 info V-16a absent: no time conversion
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
c.remove("realtime.json")
