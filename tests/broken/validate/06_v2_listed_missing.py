# expect: 3 load se0_sm2_sl0_wv0.json
# A file listed in filenames.json that does not exist is a load error.
import _lib
c = _lib.capture()
c.remove("se0_sm2_sl0_wv0.json")
