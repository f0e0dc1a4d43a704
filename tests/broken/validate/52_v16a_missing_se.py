# expect: 0 warning V-16a SE1 has waves or occupancy rows but no samples
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
c.edit("realtime.json", lambda r: r.pop("SE1"))
