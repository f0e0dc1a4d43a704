# expect: 0 warning V-2a version "2.0.0", expected "3.0.0"
import _lib
c = _lib.capture()
c.edit("filenames.json", lambda f: f.__setitem__("version", "2.0.0"))
