# expect: 3 load realtime.json
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
c.edit("realtime.json", lambda r: r["SE0"][0].append(1))
