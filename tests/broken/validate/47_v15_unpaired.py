# expect: 0 warning V-15 start never ended
# The end row of CU 0, SIMD 1 on SE0 is gone.
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
def occ(o):
    o["0"] = [r for r in o["0"] if not (r[1] == 0 and r[2] == 1 and r[4] == 0)]
c.edit("occupancy.json", occ)
