/* json_util.h — jansson helpers shared by the small-file loaders.
 *
 * The capture's small files (filenames.json, code.json, wstates, occupancy,
 * realtime, snapshots; FORMATS.md §1-§3, §5-§7) are parsed with jansson into a
 * DOM and walked with the typed getters below. A walk carries a bundle_jctx:
 * the file name for errors and the JSON path of the value being read
 * (`$.code[12][6]`, `$.wave_filenames.1.0`), pushed and popped as the walk
 * descends. Every getter fails with KR_INPUT and an error whose `where` is
 * that path. Integers are read as 64-bit integers (never through a double);
 * a real number where an integer is expected is an error. */
#ifndef KR_BUNDLE_JSON_UTIL_H
#define KR_BUNDLE_JSON_UTIL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

typedef struct bundle_jctx {
    const char *fname;       /* file named in errors */
    kr_err *err;
    char path[512];          /* "$..." ; truncated paths stay valid prefixes */
    size_t len;
} bundle_jctx;

void bundle_jctx_init(bundle_jctx *j, const char *fname, kr_err *err);

/* Push ".key" (or `["key"]` when the key is not made of [A-Za-z0-9_]) or
 * "[i]"; both return a mark for bundle_jpop. */
size_t bundle_jpush_key(bundle_jctx *j, const char *key);
size_t bundle_jpush_index(bundle_jctx *j, size_t i);
void bundle_jpop(bundle_jctx *j, size_t mark);

/* KR_INPUT at the current path. */
int bundle_jerr(bundle_jctx *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parses data with JSON_REJECT_DUPLICATES. A syntax error or a duplicate key
 * is reported at the JSON path where it occurred, with line and column in the
 * message: `$.a.b: duplicate key "b" (line 1, column 12)`. *out is the root,
 * to be released with json_decref. */
int bundle_json_parse(const char *data, size_t len, const char *fname, json_t **out, kr_err *err);

/* "an object", "an array", "a string", "an integer", "a real number",
 * "a boolean", "null". */
const char *bundle_json_kind(const json_t *v);

/* Type checks at the current path: "expected an object, found a string". */
int bundle_jexpect_object(bundle_jctx *j, const json_t *v);
int bundle_jexpect_array(bundle_jctx *j, const json_t *v);
/* Array of exactly n elements: "expected an array of 3 elements, found 2". */
int bundle_jexpect_array_n(bundle_jctx *j, const json_t *v, size_t n, const char *what);

/* Member of obj (obj's path is the current path). Missing and required:
 * `missing key "code"`. Missing and optional: *out = NULL, returns 0. */
int bundle_jmember(bundle_jctx *j, const json_t *obj, const char *key, int required, json_t **out);

/* Scalars at the current path. */
int bundle_jget_i64(bundle_jctx *j, const json_t *v, int64_t *out);
int bundle_jget_u64(bundle_jctx *j, const json_t *v, uint64_t *out);      /* >= 0 */
int bundle_jget_range(bundle_jctx *j, const json_t *v, int64_t lo, int64_t hi, int64_t *out);
/* String, at most KR_MAX_STRING_BYTES; *out points into the DOM. */
int bundle_jget_str(bundle_jctx *j, const json_t *v, const char **out, size_t *len);
int bundle_jget_bool(bundle_jctx *j, const json_t *v, int *out);

/* Same, for obj[key] (pushes the key for the error path). Optional members
 * that are absent leave *out unchanged and return 0. */
int bundle_jkey_i64(bundle_jctx *j, const json_t *obj, const char *key, int required, int64_t *out);
int bundle_jkey_u64(bundle_jctx *j, const json_t *obj, const char *key, int required, uint64_t *out);
int bundle_jkey_str(bundle_jctx *j, const json_t *obj, const char *key, int required, const char **out);

/* Prefixes err->msg with "<what>: " (e.g. the column name); returns rc. */
int bundle_err_prefix(kr_err *err, int rc, const char *what);

/* Decimal key ("0", "17"): 1 and *out on success, 0 when not all digits,
 * empty, or above max. */
int bundle_decimal_key(const char *key, uint64_t max, uint64_t *out);

/* 1 if s is a plain file name inside a folder: non-empty, no '/', no '\\',
 * not "." or ".." (NUL cannot occur in a C string). FORMATS.md §1.3, §3.3. */
int bundle_plain_file_name(const char *s);

#endif
