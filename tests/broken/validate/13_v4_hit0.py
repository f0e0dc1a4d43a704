# expect: 1 error V-4 Hit 0 but Latency/Stall/Idle 4/0/0
# Row 13 is skipped by the branch: Hit 0.
import _lib
c = _lib.capture()
c.edit("code.json", lambda f: f["code"][13].__setitem__(7, 4))
