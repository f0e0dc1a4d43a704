/* scan.h — the streaming JSON scanner behind the wave-file loader
 * (FORMATS.md §4; ARCHITECTURE.md "Speed").
 *
 * A pull tokenizer over one in-memory buffer: the caller asks for the value
 * it expects next (object, array, integer, string) and the scanner checks it
 * and advances. There is no DOM and no allocation per value; decoded strings
 * with escapes go to one scratch buffer, keys of unknown members to one key
 * table (for duplicate detection). Validation is strict RFC 8259 and accepts
 * exactly what jansson 2.14 (json_loadb, JSON_REJECT_DUPLICATES) accepts:
 * strict UTF-8 everywhere, no "\u0000", no lone surrogates, no leading zeros,
 * no trailing commas, integers within int64, reals that do not overflow a
 * double, no duplicate keys in any object. Nesting deeper than
 * KR_MAX_JSON_DEPTH containers is an error.
 *
 * Errors: the first one wins; it is stored in the caller's kr_err with
 * file = fname, where = "line:col" (1-based; the column counts characters,
 * not bytes) and a message saying what was expected, with the JSON path when
 * the caller supplied one. Functions return 0 or KR_INPUT (KR_INTERNAL when
 * memory runs out); iterators return 1 (another element), 0 (closed) or -1
 * (error, err filled).
 *
 * Hot path: bundle_scan_uint_tuple reads a compact "[d,d,...,d]" of
 * non-negative integers with unchecked digit loops; bundle_scan_init finds the
 * last non-digit byte of the buffer and sets fast_end BUNDLE_SCAN_FAST_SPAN
 * bytes before it, so a loop over at most 18-digit numbers that starts below
 * fast_end cannot run past the end. Anything unusual (whitespace, signs, long
 * numbers, errors) falls back to the checked slow path, which gives the same
 * result or the precise error. Loaders may use the same rule for their own
 * compact groups of at most BUNDLE_SCAN_FAST_SPAN - 8 bytes. */
#ifndef KR_BUNDLE_SCAN_H
#define KR_BUNDLE_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/* Bytes a compact tuple may span for the unchecked fast path, and the most
 * integers such a tuple holds (1 + 6 * (18 digits + separator) < 128). */
#define BUNDLE_SCAN_FAST_SPAN 128
#define BUNDLE_SCAN_FAST_TUPLE 6

typedef struct bundle_scan_key bundle_scan_key;

typedef struct bundle_scan {
    const char *base;        /* start of the buffer (positions count from here) */
    const char *p;           /* next byte to read */
    const char *end;         /* one past the last byte */
    const char *fast_end;    /* a tuple starting before this may use the fast path */
    const char *fname;       /* file named in errors */
    kr_err *err;
    int depth;               /* open containers */
    uint32_t next_object;    /* id of the next object opened */
    char *tmp;               /* decoded string with escapes */
    size_t tmp_cap;
    bundle_scan_key *keys;   /* open-addressing table of (object, key) */
    size_t keys_cap, nkeys;
    char *key_bytes;         /* bytes of the keys in the table */
    size_t key_len, key_cap;
} bundle_scan;

typedef struct bundle_scan_obj {
    uint32_t id;             /* for bundle_scan_key_unique */
    size_t count;            /* members read so far */
    const char *key_at;      /* opening quote of the current key */
    const char *what;        /* path for messages, may be NULL */
} bundle_scan_obj;

typedef struct bundle_scan_arr {
    size_t count;            /* elements started so far */
    const char *what;        /* path for messages, may be NULL */
} bundle_scan_arr;

/* A number token. Integers are exact; reals are only classified. */
typedef struct bundle_scan_num {
    const char *at;          /* first byte of the token */
    uint8_t is_int;          /* no fraction, no exponent */
    uint8_t neg;             /* leading '-' (also for -0) */
    uint64_t mag;            /* |value| of an integer, <= 2^63 */
} bundle_scan_num;

/* Clears err. data need not be NUL-terminated; nothing is read past len. */
void bundle_scan_init(bundle_scan *s, const char *data, size_t len, const char *fname, kr_err *err);
void bundle_scan_free(bundle_scan *s);

/* Fills err (KR_INPUT) with the position of `at`; returns KR_INPUT. */
int bundle_scan_fail(bundle_scan *s, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* 1-based line and column (in UTF-8 characters) of `at` inside base. */
void bundle_scan_linecol(const char *base, const char *at, size_t *line, size_t *col);

/* Skips whitespace; returns the next byte (0..255) or -1 at the end. */
static inline int bundle_scan_peek(bundle_scan *s)
{
    const char *p = s->p, *end = s->end;
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    s->p = p;
    return p < end ? (unsigned char)*p : -1;
}

/* Containers. *_open expects the container at the next token. */
int bundle_scan_object_open(bundle_scan *s, bundle_scan_obj *o, const char *what);
/* 1: a member follows, its decoded key in *key and *len (valid until the next
 * string is read), the scanner placed after the ':'; 0: '}' consumed. */
int bundle_scan_object_key(bundle_scan *s, bundle_scan_obj *o, const char **key, size_t *len);
/* Fails with "duplicate key" if o already had this key (for keys the caller
 * does not track itself). */
int bundle_scan_key_unique(bundle_scan *s, bundle_scan_obj *o, const char *key, size_t len);
int bundle_scan_array_open(bundle_scan *s, bundle_scan_arr *a, const char *what);
int bundle_scan_array_next_slow(bundle_scan *s, bundle_scan_arr *a);
/* 1: an element follows (the scanner is at it); 0: ']' consumed. */
static inline int bundle_scan_array_next(bundle_scan *s, bundle_scan_arr *a)
{
    if (a->count && s->p < s->end && *s->p == ',') {
        s->p++;
        a->count++;
        return 1;
    }
    return bundle_scan_array_next_slow(s, a);
}

/* Scalars. */
/* 1 and consumed when the next token is `null`, else 0 (nothing consumed). */
int bundle_scan_null(bundle_scan *s);
/* Any number token (syntax, int64 range, real overflow checked). */
int bundle_scan_number(bundle_scan *s, bundle_scan_num *n);
/* An integer in 0..max (max <= INT64_MAX). The printf-style path names the
 * value in messages ("expected integer in wave.begin"). */
int bundle_scan_uint(bundle_scan *s, uint64_t max, uint64_t *out, const char *pathfmt, ...)
    __attribute__((format(printf, 4, 5)));
/* An integer in min..max. */
int bundle_scan_sint(bundle_scan *s, int64_t min, int64_t max, int64_t *out, const char *pathfmt, ...)
    __attribute__((format(printf, 5, 6)));
/* A string, decoded; *str valid until the next string is read (it may point
 * into the buffer or into the scratch). Not NUL-terminated. */
int bundle_scan_string(bundle_scan *s, const char **str, size_t *len, const char *what);
/* Skips one value of any type, validating it fully. */
int bundle_scan_skip(bundle_scan *s);
/* Only whitespace may follow. */
int bundle_scan_finish(bundle_scan *s);

/* An array of exactly n integers, out[k] in 0..max[k] (max[k] <= INT64_MAX).
 * Messages name the value as what[index][k]. Tuples of up to
 * BUNDLE_SCAN_FAST_TUPLE integers take the fast path. */
int bundle_scan_uint_tuple_slow(bundle_scan *s, int n, const uint64_t *max, uint64_t *out,
                                const char *what, size_t index);
static inline int bundle_scan_uint_tuple(bundle_scan *s, int n, const uint64_t *max, uint64_t *out,
                                         const char *what, size_t index)
{
    const char *p = s->p;
    if (n <= BUNDLE_SCAN_FAST_TUPLE && p < s->fast_end && *p == '[') {
        /* Unchecked reads are safe: the tuple starts at least
         * BUNDLE_SCAN_FAST_SPAN bytes before the last non-digit byte, every
         * digit loop stops at a non-digit, and each accepted number is at most
         * 18 digits, so the whole tuple stays below that byte. */
        p++;
        for (int k = 0; k < n; k++) {
            const char *start = p;
            uint64_t v = 0;
            unsigned d;
            while ((d = (unsigned)(unsigned char)*p - '0') < 10) {
                v = v * 10 + d;
                p++;
            }
            size_t nd = (size_t)(p - start);
            if (nd - 1 >= 18 || (*start == '0' && nd > 1) || v > max[k])
                goto slow;
            if (*p != (k + 1 < n ? ',' : ']'))
                goto slow;
            p++;
            out[k] = v;
        }
        s->p = p;
        return 0;
    }
slow:
    return bundle_scan_uint_tuple_slow(s, n, max, out, what, index);
}

#endif
