/* scan.h — the streaming JSON scanner behind the wave-file loader
 * (docs/formats.md#wave-files; docs/architecture.md#speed).
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
 * Hot path: bundle_scan_fast_field (and _long) reads a plain non-negative
 * integer and the separator after it with no bounds checks (short numbers
 * byte by byte, longer ones eight digits at a time in one 64-bit word);
 * bundle_scan_uint_tuple reads a compact "[d,d,...,d]" with it. The rule
 * that makes the unchecked reads safe: bundle_scan_init finds the last
 * non-digit byte of the buffer ("stop") and sets fast_end
 * BUNDLE_SCAN_FAST_SPAN bytes before it, so a group that starts below
 * fast_end may read BUNDLE_SCAN_FAST_SPAN bytes from its start. A fast
 * reader touches at most BUNDLE_SCAN_FAST_READ bytes from the number's first
 * byte, so a group of a few numbers stays below stop. Anything
 * unusual (whitespace, signs, leading zeros, 16+ digits, values above the
 * field's maximum, errors) falls back to the checked slow path, which gives
 * the same result or the precise error. Loaders may use the same rule for
 * their own compact groups (see BUNDLE_SCAN_FAST_SPAN). */
#ifndef KR_BUNDLE_SCAN_H
#define KR_BUNDLE_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/err.h"

/* Bytes a group starting below fast_end may read without bounds checks. */
#define BUNDLE_SCAN_FAST_SPAN 128
/* Longest number bundle_scan_fast_field reads, and the bytes it may touch
 * from the number's first byte: two 8-byte loads (digits 1-8 and 9-16),
 * which also cover the byte after the last digit. */
#define BUNDLE_SCAN_FAST_DIGITS 15
#define BUNDLE_SCAN_FAST_READ 16
/* Most integers bundle_scan_uint_tuple reads on the fast path: '[' then up
 * to 6 numbers each followed by one separator, 1 + 6 * 16 = 97 bytes, and
 * the bytes a caller peeks after the tuple stay below BUNDLE_SCAN_FAST_SPAN. */
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

/* ---- unchecked fast path (see the top of this file for the safety rule) ---- */

/* 8 bytes at p, the byte at p in the lowest 8 bits whatever the host order. */
static inline uint64_t bundle_scan_load8(const char *p)
{
    uint64_t x;
    memcpy(&x, p, sizeof x);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    return x;
}

#define BUNDLE_SCAN_B8(b) (0x0101010101010101ull * (uint8_t)(b))

/* a = 8 loaded bytes XOR '0' (a digit byte becomes 0..9). Returns the 0x80
 * bit of every byte that is not a digit; the lowest set bit is exact. A byte
 * is a digit iff its value is <= 9: bytes >= 0x80 flag themselves, bytes
 * 10..0x7f flag through + 0x76 without a carry, bytes 0..9 stay below 0x80
 * without a carry. Only bytes >= 0x8a carry into the next byte, and they
 * are flagged already, so bytes below the first flagged one are exact. */
static inline uint64_t bundle_scan_nondigits(uint64_t a)
{
    return ((a + BUNDLE_SCAN_B8(0x76)) | a) & BUNDLE_SCAN_B8(0x80);
}

/* Value of 8 digits 0..9, the first (most significant) in the lowest byte:
 * combine neighbour bytes into 2-digit, then 4-, then 8-digit lanes with one
 * multiply each ((x * (1 + 10 * 2^8)) >> 8 adds 10 * byte i to byte i + 1's
 * value in byte i; every lane stays below its width, so nothing carries
 * into the lanes kept by the masks; bits lost above bit 63 land only in
 * lanes masked away). */
static inline uint64_t bundle_scan_swar8(uint64_t a)
{
    a = ((a * (1 + (10ull << 8))) >> 8) & 0x00FF00FF00FF00FFull;
    a = ((a * (1 + (100ull << 16))) >> 16) & 0x0000FFFF0000FFFFull;
    return (a * (1 + (10000ull << 32))) >> 32;
}

/* The fast readers below parse a plain integer followed by the byte sep at
 * *pp: 1..BUNDLE_SCAN_FAST_DIGITS digits, no leading zero, value <= max.
 * 1: *out set, *pp after sep; 0: anything else, nothing consumed (the
 * checked path decides). They read at most BUNDLE_SCAN_FAST_READ bytes from
 * *pp without bounds checks: only for positions covered by fast_end. They
 * are always inlined, so a constant max and sep fold into the caller. */

/* Eight digits at a time; p[0] is a digit 1..9 (checked by the caller). */
static inline __attribute__((always_inline)) int bundle_scan_fast_swar(const char **pp, uint64_t max, char sep,
                                                                       uint64_t *out)
{
    static const uint64_t pow10[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
    const char *p = *pp;
    uint64_t a = bundle_scan_load8(p) ^ BUNDLE_SCAN_B8('0');
    uint64_t flags = bundle_scan_nondigits(a);
    uint64_t v;
    unsigned nd;
    if (flags) {
        /* 1..7 digits: shift them to the top bytes, zeros (leading zero
         * digits) below; the bytes after them fall off. */
        unsigned tz = (unsigned)__builtin_ctzll(flags);      /* 8 * nd + 7 */
        nd = tz >> 3;
        v = bundle_scan_swar8(a << (71 - tz));              /* 64 - 8 * nd */
    } else {
        uint64_t b = bundle_scan_load8(p + 8) ^ BUNDLE_SCAN_B8('0');
        flags = bundle_scan_nondigits(b);
        if (!flags)
            return 0;                   /* 16 or more digits */
        unsigned more = (unsigned)__builtin_ctzll(flags) >> 3;     /* 0..7 */
        v = bundle_scan_swar8(a);
        if (more)
            v = v * pow10[more] + bundle_scan_swar8(b << (64 - 8 * more));
        nd = 8 + more;
    }
    if (v > max || p[nd] != sep)
        return 0;
    *out = v;
    *pp = p + nd + 1;
    return 1;
}

/* For fields that are mostly short: one to three digits byte by byte,
 * longer numbers eight digits at a time. */
static inline __attribute__((always_inline)) int bundle_scan_fast_field(const char **pp, uint64_t max, char sep,
                                                                        uint64_t *out)
{
    const char *p = *pp;
    unsigned d0 = (unsigned)(unsigned char)p[0] - '0';
    uint64_t v;
    if (p[1] == sep) {                  /* one digit, the commonest case */
        if (d0 > 9 || d0 > max)
            return 0;
        *out = d0;
        *pp = p + 2;
        return 1;
    }
    if (d0 - 1 > 8)                     /* not a digit, or a leading zero */
        return 0;
    unsigned d1 = (unsigned)(unsigned char)p[1] - '0';
    if (d1 > 9)
        return 0;
    if (p[2] == sep) {
        v = d0 * 10 + d1;
        if (v > max)
            return 0;
        *out = v;
        *pp = p + 3;
        return 1;
    }
    unsigned d2 = (unsigned)(unsigned char)p[2] - '0';
    if (d2 > 9)
        return 0;
    if (p[3] == sep) {
        v = d0 * 100 + d1 * 10 + d2;
        if (v > max)
            return 0;
        *out = v;
        *pp = p + 4;
        return 1;
    }
    return bundle_scan_fast_swar(pp, max, sep, out);
}

/* For fields that are mostly long (timestamps): eight digits at a time.
 * A lone 0 goes to the checked path too (rare in such fields). */
static inline __attribute__((always_inline)) int bundle_scan_fast_field_long(const char **pp, uint64_t max,
                                                                             char sep, uint64_t *out)
{
    if ((unsigned)(unsigned char)**pp - '1' > 8)       /* not a digit 1..9 */
        return 0;
    return bundle_scan_fast_swar(pp, max, sep, out);
}

/* An array of exactly n integers, out[k] in 0..max[k] (max[k] <= INT64_MAX).
 * Messages name the value as what[index][k]. Tuples of up to
 * BUNDLE_SCAN_FAST_TUPLE integers starting below fast_end take the fast
 * path. */
int bundle_scan_uint_tuple_slow(bundle_scan *s, int n, const uint64_t *max, uint64_t *out,
                                const char *what, size_t index);
static inline int bundle_scan_uint_tuple(bundle_scan *s, int n, const uint64_t *max, uint64_t *out,
                                         const char *what, size_t index)
{
    const char *p = s->p;
    if (n <= BUNDLE_SCAN_FAST_TUPLE && p < s->fast_end && *p == '[') {
        /* Unchecked: the tuple starts below fast_end and reads at most
         * 1 + n * BUNDLE_SCAN_FAST_READ bytes (see BUNDLE_SCAN_FAST_TUPLE). */
        p++;
        for (int k = 0; k < n; k++)
            if (!bundle_scan_fast_field(&p, max[k], k + 1 < n ? ',' : ']', &out[k]))
                goto slow;
        s->p = p;
        return 0;
    }
slow:
    return bundle_scan_uint_tuple_slow(s, n, max, out, what, index);
}

#endif
