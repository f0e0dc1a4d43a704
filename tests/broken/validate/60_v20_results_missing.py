# expect: 0 warning V-20 missing: no results.json for label big
# layout: example
# path: .
# The big run's results.json is gone (the README still names it).
import _lib, os
os.remove(os.path.join(_lib.root(), "compute_viewer", "big_results.json"))
