# expect: 1 error V-2 begin/end 180012/183100 != 180016/183100 in filenames.json
import _lib
c = _lib.capture()
c.edit("filenames.json", lambda f: f["wave_filenames"]["0"]["1"]["0"]["0"].__setitem__(1, 180016))
