/* json_util.h — helpers shared by the small-file loaders.
 *
 * The capture's small files (filenames.json, code.json, wstates, occupancy,
 * realtime, snapshots; docs/formats.md#capture-folder, docs/formats.md#wave-state-curves) are parsed with jansson into a
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

#include "bundle/scan.h"
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

/* ---- one value, from a DOM node or from the streaming scanner ----
 *
 * code.json and occupancy.json are walked with the streaming scanner
 * (bundle/scan.h) instead of a DOM; their values are checked by the same
 * bundle_jv_* functions the DOM getters above use, so both walks report the
 * same messages at the same JSON paths. */
typedef enum bundle_jtype {
    BUNDLE_JT_OBJECT, BUNDLE_JT_ARRAY, BUNDLE_JT_STRING, BUNDLE_JT_INTEGER,
    BUNDLE_JT_REAL, BUNDLE_JT_TRUE, BUNDLE_JT_FALSE, BUNDLE_JT_NULL
} bundle_jtype;

typedef struct bundle_jv {
    bundle_jtype type;
    int64_t i;               /* BUNDLE_JT_INTEGER */
    const char *str;         /* BUNDLE_JT_STRING, decoded; from a scanner valid */
    size_t len;              /* until it reads the next string */
} bundle_jv;

void bundle_jv_of(const json_t *v, bundle_jv *out);
/* Reads (consumes) the next value of text the scanner already validated
 * (bundle_jtop_read); containers are skipped. 0, or the scanner's error. */
int bundle_jv_scan(bundle_scan *s, bundle_jv *out);
/* Same words as bundle_json_kind. */
const char *bundle_jv_kind(const bundle_jv *v);
int bundle_jv_i64(bundle_jctx *j, const bundle_jv *v, int64_t *out);
int bundle_jv_u64(bundle_jctx *j, const bundle_jv *v, uint64_t *out);
int bundle_jv_range(bundle_jctx *j, const bundle_jv *v, int64_t lo, int64_t hi, int64_t *out);
int bundle_jv_str(bundle_jctx *j, const bundle_jv *v, const char **out, size_t *len);

/* ---- pass 1 of a streaming load: validate, list the top level ----
 *
 * bundle_jtop_read validates the whole text with the scanner (what
 * json_loadb with JSON_REJECT_DUPLICATES accepts) and lists the members of a
 * top-level object in file order: decoded key, where the value starts and,
 * for an array value, its element count. The loader then walks the values it
 * wants (bundle_jtop_seek) knowing the text is well formed, in the order its
 * DOM reference walks them, so errors keep their precedence.
 *
 * When the scanner rejects the text, jansson parses it again: a rejection
 * is reported with jansson's exact message (the one bundle_json_parse gives)
 * and KR_INPUT; when jansson accepts what only the scanner's own limits
 * refuse (nesting deeper than KR_MAX_JSON_DEPTH in a member the loader
 * ignores), BUNDLE_JTOP_FALLBACK is returned and the loader runs its jansson
 * reference instead. Either way the accepted inputs and the messages are
 * exactly those of the DOM loader. */
#define BUNDLE_JTOP_FALLBACK (-1)

typedef struct bundle_jtop_member {
    char *key;               /* decoded, NUL-terminated */
    size_t key_len;
    const char *value;       /* first byte of the value */
    size_t count;            /* elements of an array value, else 0 */
} bundle_jtop_member;

typedef struct bundle_jtop {
    int is_object;           /* 0: the top level is an array */
    bundle_jtop_member *m;   /* members of a top-level object, file order */
    size_t n;
} bundle_jtop;

/* s was set up with bundle_scan_init over the whole text. */
int bundle_jtop_read(bundle_scan *s, bundle_jtop *t);
/* The member named key, or NULL. */
const bundle_jtop_member *bundle_jtop_get(const bundle_jtop *t, const char *key);
/* Places the scanner at a member's value. */
void bundle_jtop_seek(bundle_scan *s, const bundle_jtop_member *m);
void bundle_jtop_free(bundle_jtop *t);

/* Prefixes err->msg with "<what>: " (e.g. the column name); returns rc. */
int bundle_err_prefix(kr_err *err, int rc, const char *what);

/* Decimal key ("0", "17"): 1 and *out on success, 0 when not all digits,
 * empty, or above max. */
int bundle_decimal_key(const char *key, uint64_t max, uint64_t *out);

/* 1 if s is a plain file name inside a folder: non-empty, no '/', no '\\',
 * not "." or ".." (NUL cannot occur in a C string). docs/formats.md#wave-index, docs/formats.md#snapshot-safety. */
int bundle_plain_file_name(const char *s);

#endif
