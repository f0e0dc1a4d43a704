# expect: 0 warning V-16 do not increase together
# SE2's realtime values swapped: the shader clock rises while realtime falls.
import _lib
c = _lib.capture()
W = "se0_sm0_sl0_wv0.json"
def rt(r):
    a, b = r["SE2"]
    a[1], b[1] = b[1], a[1]
c.edit("realtime.json", rt)
