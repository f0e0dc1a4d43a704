/* json_dump.h — the bytes of analysis.json: a dumper for jansson DOMs and a
 * streaming writer that produces the same bytes without building one.
 *
 * rep_json_dump appends exactly what json_dumps(root, JSON_INDENT(2) |
 * JSON_REAL_PRECISION(10)) returns (JSON_PRESERVE_ORDER changes nothing in
 * jansson 2.14: objects keep insertion order) — the same indentation,
 * escapes, integer and real formatting, and the same failure on a string
 * that is not valid UTF-8 — but writes straight into the caller's buffer.
 *
 * rep_jw is a writer the section renderers call once per value. In text
 * mode it appends those same bytes as the calls arrive (no tree, no hash
 * tables, no frees); in tree mode it builds the jansson value those calls
 * describe, for callers that want a json_t (rep_json_<module>). One
 * description of each section serves both, so they cannot drift.
 *
 * Value calls take the member key inside an object and NULL inside an
 * array (or for the root). Each mirrors the jansson call it replaces:
 *   rep_jw_uint   rep_jint: integer clamped to INT64_MAX
 *   rep_jw_int    json_integer
 *   rep_jw_real   json_real: NaN and infinities write nothing (json_real
 *                 returns NULL, so json_object_set_new drops the member)
 *   rep_jw_str    rep_jstr: "" for NULL; bytes of invalid UTF-8 become '?'
 *   rep_jw_sym    json_string: NULL or invalid UTF-8 writes nothing
 *   rep_jw_share  rep_jshare: part / whole, null when whole is 0
 *   rep_jw_json   an existing jansson value (reference stolen)
 * As with json_object_set_new, a member whose key is NULL or not UTF-8 is
 * dropped (an object or array with everything written into it); keys
 * inside arrays are ignored. One difference: text mode cannot take back a
 * key written twice in one object, where jansson keeps the later value, so
 * a description never repeats a key.
 *
 * Numbers are formatted by report/numtext.h, without printf.
 *
 * tests/unit/test_rep_json_write.c checks text mode against json_dumps of
 * tree mode (hand-written, generated and real analyses);
 * tests/unit/test_rep_json_dump.c checks rep_json_dump and the number
 * formatting against json_dumps and printf. */
#ifndef KR_REPORT_JSON_DUMP_H
#define KR_REPORT_JSON_DUMP_H

#include <stdint.h>

#include <jansson.h>

#include "common/buf.h"

/* 0, or -1 (out left as it was) when json_dumps would return NULL: root is
 * not an object or an array, or a string is not valid UTF-8. */
int rep_json_dump(const json_t *root, kr_buf *out);

enum { REP_JW_DEPTH = 48, REP_JW_STAGE = 4096 };

typedef struct rep_jw {
    int tree;                          /* 1: builds a jansson value */
    int depth;                         /* open containers */
    int skip;                          /* open containers being dropped */
    int failed;                        /* too deep, or an embedded value did not dump */
    json_t *root;                      /* tree mode: the value built */
    json_t *open[REP_JW_DEPTH];        /* tree mode: the open containers */
    unsigned char members[REP_JW_DEPTH];   /* text mode: the container has a member */
    unsigned char array[REP_JW_DEPTH];     /* text mode: the container is an array */
    kr_buf *out;                       /* text mode: the destination */
    size_t n;                          /* text mode: staged bytes */
    char stage[REP_JW_STAGE];
} rep_jw;

/* Text mode: bytes go to out (appended). Finish with rep_jw_text_end. */
void rep_jw_text(rep_jw *w, kr_buf *out);
/* Flushes; 0, or -1 when the writer failed (out's new bytes are then
 * unspecified; callers treat the document as not written). */
int rep_jw_text_end(rep_jw *w);
/* Tree mode. rep_jw_tree_end returns the value built (NULL when nothing
 * was written) and releases anything left open. */
void rep_jw_tree(rep_jw *w);
json_t *rep_jw_tree_end(rep_jw *w);

void rep_jw_obj(rep_jw *w, const char *key);       /* opens an object */
void rep_jw_arr(rep_jw *w, const char *key);       /* opens an array */
void rep_jw_end(rep_jw *w);                        /* closes the innermost */
void rep_jw_null(rep_jw *w, const char *key);
void rep_jw_bool(rep_jw *w, const char *key, int v);
void rep_jw_int(rep_jw *w, const char *key, int64_t v);
void rep_jw_uint(rep_jw *w, const char *key, uint64_t v);
void rep_jw_real(rep_jw *w, const char *key, double v);
void rep_jw_str(rep_jw *w, const char *key, const char *s);
void rep_jw_sym(rep_jw *w, const char *key, const char *s);
void rep_jw_share(rep_jw *w, const char *key, uint64_t part, uint64_t whole);
void rep_jw_json(rep_jw *w, const char *key, json_t *v);
/* The value when known (a real also only when finite), else null. */
void rep_jw_str_or_null(rep_jw *w, const char *key, const char *s);   /* known: s != NULL */
void rep_jw_int_or_null(rep_jw *w, const char *key, int known, int64_t v);
void rep_jw_uint_or_null(rep_jw *w, const char *key, int known, uint64_t v);
void rep_jw_real_or_null(rep_jw *w, const char *key, int known, double v);

#endif
