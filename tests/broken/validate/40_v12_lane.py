# expect: 0 warning V-12 second element other than 0
# optional: the wave loader must count non-zero lanes (kr_wave.waitcnt_nonzero_lanes)
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
c.edit(W, lambda w: w["wave"]["waitcnt"][0][1][0].__setitem__(1, 3))
