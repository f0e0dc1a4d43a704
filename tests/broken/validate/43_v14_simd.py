# expect: 1 error V-14 simd 7 outside 0..3
# A non-target CU's start/end pair moved to SIMD 7.
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
def occ(o):
    for r in o["0"]:
        if r[1] == 0 and r[2] == 0:
            r[2] = 7
c.edit("occupancy.json", occ)
