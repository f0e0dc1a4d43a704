/* json_dump.h — the bytes of analysis.json from its jansson DOM, without
 * json_dumps.
 *
 * rep_json_dump appends exactly what json_dumps(root, JSON_INDENT(2) |
 * JSON_REAL_PRECISION(10)) returns (JSON_PRESERVE_ORDER changes nothing in
 * jansson 2.14: objects keep insertion order) — the same indentation,
 * escapes, integer and real formatting, and the same failure on a string
 * that is not valid UTF-8 — but writes straight into the caller's buffer.
 * jansson's generic dumper costs about 70 instructions per output byte;
 * this one a fraction of that. tests/unit/test_rep_json_dump.c compares the
 * two on every analysis DOM shape and on generated values. */
#ifndef KR_REPORT_JSON_DUMP_H
#define KR_REPORT_JSON_DUMP_H

#include <jansson.h>

#include "common/buf.h"

/* 0, or -1 (out left as it was) when json_dumps would return NULL: root is
 * not an object or an array, or a string is not valid UTF-8. */
int rep_json_dump(const json_t *root, kr_buf *out);

#endif
