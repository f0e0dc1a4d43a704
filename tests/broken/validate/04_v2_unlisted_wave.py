# expect: 1 error V-2 wave file not listed in filenames.json
import _lib
c = _lib.capture()
import shutil
shutil.copy(c.file("se0_sm0_sl0_wv0.json"), c.file("se0_sm0_sl1_wv0.json"))
