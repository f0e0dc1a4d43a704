# expect: 0 info V-11a first entry [2, 28]
# (also V-13: the wstates curves no longer match)
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
c.edit(W, lambda w: w["wave"]["timeline"][0].__setitem__(0, 2))
