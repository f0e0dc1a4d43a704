# expect: 0 warning V-18a no results.json for this capture
# The capture layout has no results.json beside the folder.
import _lib
