# expect: 3 load code.json
# A row shorter than the header is an input error (docs/formats.md#code-columns).
import _lib
c = _lib.capture()
c.edit("code.json", lambda f: f["code"][3].pop())
