# expect: 3 load occupancy.json
# Rows must have 6 or 11 integers (docs/formats.md#occupancy-events).
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
c.edit("occupancy.json", lambda o: o["0"][0].append(0))
