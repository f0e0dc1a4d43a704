# expect: 0 info V-1 not described by `kreport help formats`
import _lib
c = _lib.capture()
open(c.file("notes.txt"), "w").write("hand-written notes\n")
