/* util.h — small helpers every section renderer uses: numbers and shares as
 * cells (common/fmt.h underneath), capture labels, template prose, and
 * jansson values that never fail (non-UTF-8 text is made ASCII-safe). */
#ifndef KR_REPORT_UTIL_H
#define KR_REPORT_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "report/doc.h"

/* Exact decimal, kept by the document. */
const char *rep_u64(rep_doc *d, uint64_t v);
/* "36.7 %" of part/whole, "n/a" when whole is 0. */
const char *rep_pct(rep_doc *d, uint64_t part, uint64_t whole);
/* kr_fmt_fixed's text of v with `decimals` digits ("n/a" when not
 * finite), kept by the document. */
const char *rep_fixed(rep_doc *d, double v, int decimals);
/* labels[i] escaped for Markdown, or "capture <i+1>". */
const char *rep_label(rep_doc *d, const char *const *labels, size_t i);
/* Appends templates/<name> as a raw block, when it exists. */
void rep_prose(rep_doc *d, const char *name);

/* Integer (clamped to INT64_MAX). */
json_t *rep_jint(uint64_t v);
/* String; bytes that are not valid UTF-8 become '?'; never NULL. */
json_t *rep_jstr(const char *s);
/* part / whole as a real, null when whole is 0. */
json_t *rep_jshare(uint64_t part, uint64_t whole);

#endif
