# expect: 0 info V-1 not described by FORMATS.md
import _lib
c = _lib.capture()
open(c.file("notes.txt"), "w").write("hand-written notes\n")
