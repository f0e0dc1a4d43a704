# expect: 0 warning V-6 not above the previous row
import _lib
c = _lib.capture()
def swap(f):
    f["code"][9], f["code"][10] = f["code"][10], f["code"][9]
c.edit("code.json", swap)
