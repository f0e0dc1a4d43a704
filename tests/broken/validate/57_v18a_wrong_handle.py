# expect: 0 warning V-18a no GPU agent with handle
# layout: example
# path: att_viewer/big
# args: --results {ROOT}/compute_viewer/small_results.json
# The small run's results.json given for the big capture (another agent handle).
import _lib
