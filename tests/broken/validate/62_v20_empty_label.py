# expect: 0 warning V-20 holds no capture folder
# layout: example
# path: .
import _lib, os
os.makedirs(os.path.join(_lib.root(), "att_viewer", "medium"))
