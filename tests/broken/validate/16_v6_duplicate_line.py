# expect: 3 load code.json
# Duplicate LineNumbers are an input error (docs/formats.md#label-rows).
import _lib
c = _lib.capture()
c.edit("code.json", lambda f: f["code"][4].__setitem__(2, 3))
