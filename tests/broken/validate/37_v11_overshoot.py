# expect: 0 warning V-11 by 8 cycles (outside [0, 4])
# The wave ends 8 cycles before its last completion; filenames.json,
# duration and the occupancy end row are moved with it.
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
END = 183028
c.edit(W, lambda w: (w["wave"].__setitem__("end", END - 8), w.__setitem__("duration", 3020)))
c.edit("filenames.json", lambda f: f["wave_filenames"]["0"]["0"]["0"]["0"].__setitem__(2, END - 8))
def occ(o):
    for r in o["0"]:
        if r[0] == END and r[1:5] == [1, 0, 0, 0]:
            r[0] = END - 8
c.edit("occupancy.json", occ)
