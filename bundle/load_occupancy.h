/* load_occupancy.h — occupancy.json (docs/formats.md#occupancy-events).
 *
 * Decimal SE keys → rows [time, cu, simd, slot, start, kernel id] of 6 or 11
 * integers (other lengths are input errors; positions 6-10 are type-checked
 * and dropped); start must be 0 or 1, simd and slot must fit uint8, cu and
 * kernel id uint32. `dispatches` (decimal id → name) and `version` are kept,
 * `events` is accepted and ignored, any other key is an error. Fills
 * c->occupancy (SEs and dispatches sorted by number, rows in file order;
 * row_width 11 if any row has 11 integers, else 6, 0 with no rows).
 * Allocates in c->arena. */
#ifndef KR_BUNDLE_LOAD_OCCUPANCY_H
#define KR_BUNDLE_LOAD_OCCUPANCY_H

#include <stddef.h>

#include "bundle/model.h"
#include "common/err.h"

int bundle_parse_occupancy(kr_capture *c, const char *data, size_t len, const char *fname, kr_err *err);
/* The jansson DOM reference: the same accepted inputs, model and messages
 * (bundle_parse_occupancy streams the text with the scanner instead). */
int bundle_parse_occupancy_jansson(kr_capture *c, const char *data, size_t len, const char *fname, kr_err *err);

#endif
