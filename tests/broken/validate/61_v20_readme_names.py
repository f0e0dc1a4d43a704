# expect: 0 warning V-20 names input_trace.yaml, which is not in the example folder
# layout: example
# path: .
import _lib, os
with open(os.path.join(_lib.root(), "README.md"), "a") as f:
    f.write("\nThe rocprofv3 input is `source/input_trace.yaml`.\n")
