# expect: 0 warning V-15 matches no wave file
# The target-CU end of wave se0_sm0 (183028) moved by 4 cycles.
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
def occ(o):
    for r in o["0"]:
        if r[0] == 183028 and r[1:5] == [1, 0, 0, 0]:
            r[0] += 4
c.edit("occupancy.json", occ)
