# expect: 0 warning V-7 not readable
import _lib
c = _lib.capture()
c.remove("source_1_synth_ops.py")
