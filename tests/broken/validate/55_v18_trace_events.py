# expect: 3 load trace_results.json
# args: --results {ROOT}/trace_results.json
# A rocprof v1/v2 Chrome-trace results.json is rejected (docs/formats.md#results-json).
import json, os, _lib
open(os.path.join(_lib.root(), "trace_results.json"), "w").write(json.dumps({"traceEvents": [{}], "otherData": {}}))
