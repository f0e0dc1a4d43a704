# expect: 0 warning V-16 frequency absent or 0
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
c.edit("realtime.json", lambda r: r["metadata"].__setitem__("frequency", 0))
