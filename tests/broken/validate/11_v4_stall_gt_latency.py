# expect: 1 error V-4 Stall 4900 > Latency 4896
# Row 7 (s_waitcnt lgkmcnt(0)): Stall = Latency = 4896.
import _lib
c = _lib.capture()
c.edit("code.json", lambda f: f["code"][7].__setitem__(8, 4900))
