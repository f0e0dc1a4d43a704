/* load_wstates.h — wstates<k>.json, k = 0..4 (docs/formats.md#wave-state-curves).
 *
 * {"name": "wstates1.json", "state": [counts], "time": [cycles]}: fills
 * c->wstates[k] (present = 1); `state` values are int64, `time` values
 * uint64, and both arrays must have the same length. Allocates in c->arena. */
#ifndef KR_BUNDLE_LOAD_WSTATES_H
#define KR_BUNDLE_LOAD_WSTATES_H

#include <stddef.h>

#include "bundle/model.h"
#include "common/err.h"

int bundle_parse_wstates(kr_capture *c, unsigned k, const char *data, size_t len, const char *fname, kr_err *err);

#endif
