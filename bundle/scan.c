/* scan.c — see scan.h. The grammar is RFC 8259; where RFC 8259 leaves
 * room (number range, "\u0000", duplicate keys) the rules are jansson's, so
 * the scanner and the jansson reference accept exactly the same files. */
#include "bundle/scan.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/limits.h"

struct bundle_scan_key {
    uint32_t object;         /* 0 = empty slot (object ids start at 1) */
    uint32_t hash;
    size_t off, len;         /* bytes in key_bytes */
};

void bundle_scan_init(bundle_scan *s, const char *data, size_t len, const char *fname, kr_err *err)
{
    memset(s, 0, sizeof *s);
    kr_err_clear(err);
    s->base = s->p = data;
    s->end = data + len;
    s->fname = fname ? fname : "";
    s->err = err;
    s->next_object = 1;
    /* The fast tuple path needs a non-digit byte after it to stop its digit
     * loops; valid files end with '}' so this is the last byte or close. */
    const char *stop = s->end;
    while (stop > data && (unsigned)(unsigned char)stop[-1] - '0' < 10)
        stop--;
    stop--;                  /* last non-digit byte, or data - 1 */
    if (stop >= data && (size_t)(stop - data) > BUNDLE_SCAN_FAST_SPAN)
        s->fast_end = stop - BUNDLE_SCAN_FAST_SPAN;
    else
        s->fast_end = data;  /* fast path never taken */
}

void bundle_scan_free(bundle_scan *s)
{
    free(s->tmp);
    free(s->keys);
    free(s->key_bytes);
    s->tmp = NULL;
    s->keys = NULL;
    s->key_bytes = NULL;
    s->tmp_cap = s->keys_cap = s->nkeys = s->key_len = s->key_cap = 0;
}

void bundle_scan_linecol(const char *base, const char *at, size_t *line, size_t *col)
{
    size_t l = 1, c = 1;
    for (const char *q = base; q < at; q++) {
        unsigned char b = (unsigned char)*q;
        if (b == '\n') {
            l++;
            c = 1;
        } else if (b < 0x80 || b > 0xBF) {
            c++;             /* continuation bytes do not start a character */
        }
    }
    *line = l;
    *col = c;
}

int bundle_scan_fail(bundle_scan *s, const char *at, const char *fmt, ...)
{
    if (s->err && s->err->code)
        return s->err->code;             /* the first error wins */
    if (at < s->base)
        at = s->base;
    if (at > s->end)
        at = s->end;
    size_t line, col;
    bundle_scan_linecol(s->base, at, &line, &col);
    char where[64];
    snprintf(where, sizeof where, "%zu:%zu", line, col);
    char msg[sizeof s->err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return kr_err_set(s->err, KR_INPUT, s->fname, where, "%s", msg);
}

static int scan_oom(bundle_scan *s)
{
    if (s->err && s->err->code)
        return s->err->code;
    return kr_err_set(s->err, KR_INTERNAL, s->fname, NULL, "out of memory");
}

/* "what" with " in " prefix for messages, or "". */
static const char *in_what(const char *what, char *buf, size_t cap)
{
    if (!what || !*what)
        return "";
    snprintf(buf, cap, " in %.250s", what);
    return buf;
}

static const char *describe(bundle_scan *s, const char *at, char *buf, size_t cap)
{
    if (at >= s->end)
        return "end of input";
    unsigned char c = (unsigned char)*at;
    if (c >= 0x20 && c < 0x7f)
        snprintf(buf, cap, "'%c'", c);
    else
        snprintf(buf, cap, "byte 0x%02x", c);
    return buf;
}

/* ---- containers ---- */

static int open_container(bundle_scan *s, char open, const char *what)
{
    int c = bundle_scan_peek(s);
    if (c != (unsigned char)open) {
        char b1[300], b2[32];
        return bundle_scan_fail(s, s->p, "expected %s%s, found %s",
                                open == '{' ? "object" : "array", in_what(what, b1, sizeof b1),
                                describe(s, s->p, b2, sizeof b2));
    }
    if (s->depth >= KR_MAX_JSON_DEPTH)
        return bundle_scan_fail(s, s->p, "nesting deeper than KR_MAX_JSON_DEPTH (%d)", KR_MAX_JSON_DEPTH);
    s->depth++;
    s->p++;
    return 0;
}

int bundle_scan_object_open(bundle_scan *s, bundle_scan_obj *o, const char *what)
{
    o->id = s->next_object++;
    o->count = 0;
    o->key_at = NULL;
    o->what = what;
    return open_container(s, '{', what);
}

int bundle_scan_object_key(bundle_scan *s, bundle_scan_obj *o, const char **key, size_t *len)
{
    char b1[300], b2[32];
    int c = bundle_scan_peek(s);
    if (o->count) {
        if (c == '}') {
            s->p++;
            s->depth--;
            return 0;
        }
        if (c != ',') {
            bundle_scan_fail(s, s->p, "expected ',' or '}'%s, found %s",
                             in_what(o->what, b1, sizeof b1), describe(s, s->p, b2, sizeof b2));
            return -1;
        }
        s->p++;
        c = bundle_scan_peek(s);
        if (c != '"') {
            bundle_scan_fail(s, s->p, "expected a key string%s, found %s",
                             in_what(o->what, b1, sizeof b1), describe(s, s->p, b2, sizeof b2));
            return -1;
        }
    } else {
        if (c == '}') {
            s->p++;
            s->depth--;
            return 0;
        }
        if (c != '"') {
            bundle_scan_fail(s, s->p, "expected a key string or '}'%s, found %s",
                             in_what(o->what, b1, sizeof b1), describe(s, s->p, b2, sizeof b2));
            return -1;
        }
    }
    o->key_at = s->p;
    if (bundle_scan_string(s, key, len, o->what))
        return -1;
    if (bundle_scan_peek(s) != ':') {
        bundle_scan_fail(s, s->p, "expected ':' after key%s, found %s",
                         in_what(o->what, b1, sizeof b1), describe(s, s->p, b2, sizeof b2));
        return -1;
    }
    s->p++;
    o->count++;
    return 1;
}

static uint32_t key_hash(uint32_t object, const char *key, size_t len)
{
    uint32_t h = 2166136261u ^ object;      /* FNV-1a over the object id and key */
    h *= 16777619u;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)key[i];
        h *= 16777619u;
    }
    return h;
}

static int keys_grow(bundle_scan *s)
{
    size_t cap = s->keys_cap ? s->keys_cap * 2 : 64;
    bundle_scan_key *t = calloc(cap, sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < s->keys_cap; i++) {
        bundle_scan_key *k = &s->keys[i];
        if (!k->object)
            continue;
        size_t j = k->hash & (cap - 1);
        while (t[j].object)
            j = (j + 1) & (cap - 1);
        t[j] = *k;
    }
    free(s->keys);
    s->keys = t;
    s->keys_cap = cap;
    return 0;
}

int bundle_scan_key_unique(bundle_scan *s, bundle_scan_obj *o, const char *key, size_t len)
{
    if ((s->nkeys + 1) * 2 > s->keys_cap && keys_grow(s))
        return scan_oom(s);
    uint32_t h = key_hash(o->id, key, len);
    size_t j = h & (s->keys_cap - 1);
    for (; s->keys[j].object; j = (j + 1) & (s->keys_cap - 1)) {
        bundle_scan_key *k = &s->keys[j];
        if (k->object == o->id && k->hash == h && k->len == len &&
            (len == 0 || memcmp(s->key_bytes + k->off, key, len) == 0)) {
            char b1[300];
            return bundle_scan_fail(s, o->key_at, "duplicate key \"%.*s\"%s",
                                    (int)(len > 200 ? 200 : len), key, in_what(o->what, b1, sizeof b1));
        }
    }
    if (s->key_len + len > s->key_cap) {
        size_t cap = s->key_cap ? s->key_cap : 256;
        while (cap < s->key_len + len)
            cap *= 2;
        char *t = realloc(s->key_bytes, cap);
        if (!t)
            return scan_oom(s);
        s->key_bytes = t;
        s->key_cap = cap;
    }
    if (len)
        memcpy(s->key_bytes + s->key_len, key, len);
    s->keys[j].object = o->id;
    s->keys[j].hash = h;
    s->keys[j].off = s->key_len;
    s->keys[j].len = len;
    s->key_len += len;
    s->nkeys++;
    return 0;
}

int bundle_scan_array_open(bundle_scan *s, bundle_scan_arr *a, const char *what)
{
    a->count = 0;
    a->what = what;
    return open_container(s, '[', what);
}

int bundle_scan_array_next_slow(bundle_scan *s, bundle_scan_arr *a)
{
    int c = bundle_scan_peek(s);
    if (c == ']') {
        s->p++;
        s->depth--;
        return 0;
    }
    if (a->count) {
        if (c != ',') {
            char b1[300], b2[32];
            bundle_scan_fail(s, s->p, "expected ',' or ']'%s, found %s",
                             in_what(a->what, b1, sizeof b1), describe(s, s->p, b2, sizeof b2));
            return -1;
        }
        s->p++;
        /* A ']' right after ',' (trailing comma) fails in the element's parser. */
        bundle_scan_peek(s);
    }
    a->count++;
    return 1;
}

/* ---- scalars ---- */

static int literal(bundle_scan *s, const char *word, size_t n)
{
    if ((size_t)(s->end - s->p) >= n && memcmp(s->p, word, n) == 0) {
        s->p += n;
        return 1;
    }
    return 0;
}

int bundle_scan_null(bundle_scan *s)
{
    if (bundle_scan_peek(s) != 'n')
        return 0;
    return literal(s, "null", 4);
}

static int is_digit(const char *p, const char *end)
{
    return p < end && (unsigned)(unsigned char)*p - '0' < 10;
}

int bundle_scan_number(bundle_scan *s, bundle_scan_num *n)
{
    const char *p = s->p, *end = s->end;
    n->at = p;
    n->is_int = 1;
    n->neg = 0;
    n->mag = 0;
    if (p < end && *p == '-') {
        n->neg = 1;
        p++;
    }
    if (!is_digit(p, end))
        return bundle_scan_fail(s, n->at, "invalid number");
    int overflow = 0;
    if (*p == '0') {
        p++;
        if (is_digit(p, end))
            return bundle_scan_fail(s, n->at, "invalid number (leading zero)");
    } else {
        uint64_t mag = 0;
        const uint64_t limit = (uint64_t)INT64_MAX + n->neg;   /* 2^63 for negatives */
        while (is_digit(p, end)) {
            unsigned d = (unsigned)(unsigned char)*p - '0';
            if (mag > (limit - d) / 10)
                overflow = 1;
            else
                mag = mag * 10 + d;
            p++;
        }
        n->mag = mag;
    }
    if (p < end && *p == '.') {
        p++;
        if (!is_digit(p, end))
            return bundle_scan_fail(s, n->at, "invalid number (digit expected after '.')");
        while (is_digit(p, end))
            p++;
        n->is_int = 0;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (!is_digit(p, end))
            return bundle_scan_fail(s, n->at, "invalid number (digit expected in exponent)");
        while (is_digit(p, end))
            p++;
        n->is_int = 0;
    }
    if (n->is_int) {
        if (overflow)
            return bundle_scan_fail(s, n->at, "integer out of the 64-bit signed range");
    } else {
        /* A real is accepted unless it overflows a double (as strtod sees it). */
        size_t len = (size_t)(p - n->at);
        char stackbuf[128];
        char *buf = len < sizeof stackbuf ? stackbuf : malloc(len + 1);
        if (!buf)
            return scan_oom(s);
        memcpy(buf, n->at, len);
        buf[len] = '\0';
        errno = 0;
        double v = strtod(buf, NULL);
        int bad = errno == ERANGE && (v > 1.0 || v < -1.0);
        if (buf != stackbuf)
            free(buf);
        if (bad)
            return bundle_scan_fail(s, n->at, "real number out of range");
        n->mag = 0;
    }
    s->p = p;
    return 0;
}

static int expected_integer(bundle_scan *s, const char *at, const char *path)
{
    char b[32];
    return bundle_scan_fail(s, at, "expected integer%s%s, found %s", *path ? " in " : "", path,
                            describe(s, at, b, sizeof b));
}

/* Reads an integer token at the next position; 0 on success. path names
 * the value in messages. */
static int read_integer(bundle_scan *s, bundle_scan_num *n, const char *path)
{
    int c = bundle_scan_peek(s);
    if (c != '-' && (c < '0' || c > '9'))
        return expected_integer(s, s->p, path);
    if (bundle_scan_number(s, n))
        return KR_INPUT;
    if (!n->is_int)
        return bundle_scan_fail(s, n->at, "expected integer%s%s, found a real number",
                                *path ? " in " : "", path);
    return 0;
}

int bundle_scan_uint(bundle_scan *s, uint64_t max, uint64_t *out, const char *pathfmt, ...)
{
    /* Common case first: plain digits, no formatting of the path. */
    bundle_scan_num n;
    int c = bundle_scan_peek(s);
    const char *at = s->p;
    if (c >= '0' && c <= '9') {
        int rc = bundle_scan_number(s, &n);
        if (rc)
            return rc;
        if (n.is_int && n.mag <= max) {
            *out = n.mag;
            return 0;
        }
        s->p = at;
    }
    char path[256];
    va_list ap;
    va_start(ap, pathfmt);
    vsnprintf(path, sizeof path, pathfmt, ap);
    va_end(ap);
    if (read_integer(s, &n, path))
        return KR_INPUT;
    if (n.neg && n.mag)
        return bundle_scan_fail(s, n.at, "expected a non-negative integer in %s", path);
    if (n.mag > max)
        return bundle_scan_fail(s, n.at, "integer out of range in %s (maximum %llu)", path,
                                (unsigned long long)max);
    *out = n.mag;
    return 0;
}

int bundle_scan_sint(bundle_scan *s, int64_t min, int64_t max, int64_t *out, const char *pathfmt, ...)
{
    bundle_scan_num n;
    int c = bundle_scan_peek(s);
    const char *at = s->p;
    int64_t v = 0;
    if (c == '-' || (c >= '0' && c <= '9')) {
        int rc = bundle_scan_number(s, &n);
        if (rc)
            return rc;
        if (n.neg)
            v = n.mag ? (int64_t)(0 - (n.mag - 1)) - 1 : 0;     /* mag <= 2^63 */
        else
            v = (int64_t)n.mag;
        if (n.is_int && v >= min && v <= max) {
            *out = v;
            return 0;
        }
        s->p = at;
    }
    char path[256];
    va_list ap;
    va_start(ap, pathfmt);
    vsnprintf(path, sizeof path, pathfmt, ap);
    va_end(ap);
    if (read_integer(s, &n, path))
        return KR_INPUT;
    return bundle_scan_fail(s, n.at, "integer out of range in %s (%lld..%lld)", path, (long long)min,
                            (long long)max);
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int hex4(const char *p, const char *end)
{
    if (end - p < 4)
        return -1;
    int v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval((unsigned char)p[i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* Length of a valid UTF-8 sequence starting at p (2..4), or 0 (jansson's
 * utf8_check_first/utf8_check_full rules: no overlongs, no surrogates,
 * nothing above U+10FFFF). */
static size_t utf8_seq(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    size_t n;
    uint32_t v;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        v = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        v = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        v = c & 0x07;
    } else {
        return 0;
    }
    if ((size_t)(end - p) < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if (p[i] < 0x80 || p[i] > 0xBF)
            return 0;
        v = (v << 6) | (p[i] & 0x3F);
    }
    if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    if ((n == 3 && v < 0x800) || (n == 4 && v < 0x10000))
        return 0;
    return n;
}

static int tmp_reserve(bundle_scan *s, size_t need)
{
    if (need <= s->tmp_cap)
        return 0;
    size_t cap = s->tmp_cap ? s->tmp_cap : 64;
    while (cap < need)
        cap *= 2;
    char *t = realloc(s->tmp, cap);
    if (!t)
        return -1;
    s->tmp = t;
    s->tmp_cap = cap;
    return 0;
}

static size_t utf8_put(char *o, uint32_t v)
{
    if (v < 0x80) {
        o[0] = (char)v;
        return 1;
    }
    if (v < 0x800) {
        o[0] = (char)(0xC0 | (v >> 6));
        o[1] = (char)(0x80 | (v & 0x3F));
        return 2;
    }
    if (v < 0x10000) {
        o[0] = (char)(0xE0 | (v >> 12));
        o[1] = (char)(0x80 | ((v >> 6) & 0x3F));
        o[2] = (char)(0x80 | (v & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (v >> 18));
    o[1] = (char)(0x80 | ((v >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((v >> 6) & 0x3F));
    o[3] = (char)(0x80 | (v & 0x3F));
    return 4;
}

int bundle_scan_string(bundle_scan *s, const char **str, size_t *len, const char *what)
{
    char b1[300], b2[32];
    if (bundle_scan_peek(s) != '"')
        return bundle_scan_fail(s, s->p, "expected string%s, found %s", in_what(what, b1, sizeof b1),
                                describe(s, s->p, b2, sizeof b2));
    const char *open = s->p;
    const unsigned char *start = (const unsigned char *)s->p + 1;
    const unsigned char *end = (const unsigned char *)s->end;
    const unsigned char *p = start;
    /* Plain run: no escapes, ASCII. */
    while (p < end && *p != '"' && *p != '\\' && *p >= 0x20 && *p < 0x80)
        p++;
    if (p < end && *p == '"') {
        *str = (const char *)start;
        *len = (size_t)(p - start);
        s->p = (const char *)p + 1;
        return 0;
    }
    /* Pass 1: validate UTF-8 and escapes, find the closing quote. */
    int escaped = 0;
    for (;;) {
        if (p >= end)
            return bundle_scan_fail(s, open, "unterminated string");
        unsigned c = *p;
        if (c == '"')
            break;
        if (c < 0x20)
            return bundle_scan_fail(s, (const char *)p, "control character 0x%02x in string", c);
        if (c >= 0x80) {
            size_t n = utf8_seq(p, end);
            if (!n)
                return bundle_scan_fail(s, (const char *)p, "invalid UTF-8 byte 0x%02x in string", c);
            p += n;
            continue;
        }
        if (c != '\\') {
            p++;
            continue;
        }
        escaped = 1;
        const unsigned char *esc = p++;
        if (p >= end)
            return bundle_scan_fail(s, open, "unterminated string");
        switch (*p) {
        case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
            p++;
            continue;
        case 'u':
            break;
        default:
            return bundle_scan_fail(s, (const char *)esc, "invalid escape '\\%c' in string",
                                    *p >= 0x20 && *p < 0x7f ? *p : '?');
        }
        int v = hex4((const char *)p + 1, (const char *)end);
        if (v < 0)
            return bundle_scan_fail(s, (const char *)esc, "invalid \\u escape in string");
        p += 5;
        if (v >= 0xD800 && v <= 0xDBFF) {
            int lo = (end - p >= 2 && p[0] == '\\' && p[1] == 'u')
                         ? hex4((const char *)p + 2, (const char *)end) : -2;
            if (lo == -1)
                return bundle_scan_fail(s, (const char *)p, "invalid \\u escape in string");
            if (lo < 0xDC00 || lo > 0xDFFF)
                return bundle_scan_fail(s, (const char *)esc, "unpaired surrogate \\u%04X in string", v);
            p += 6;
        } else if (v >= 0xDC00 && v <= 0xDFFF) {
            return bundle_scan_fail(s, (const char *)esc, "unpaired surrogate \\u%04X in string", v);
        } else if (v == 0) {
            return bundle_scan_fail(s, (const char *)esc, "\\u0000 is not allowed in strings");
        }
    }
    const unsigned char *close = p;
    s->p = (const char *)close + 1;
    if (!escaped) {
        *str = (const char *)start;
        *len = (size_t)(close - start);
        return 0;
    }
    /* Pass 2: decode (already validated; never longer than the source). */
    if (tmp_reserve(s, (size_t)(close - start) + 1))
        return scan_oom(s);
    char *o = s->tmp;
    for (p = start; p < close;) {
        if (*p != '\\') {
            *o++ = (char)*p++;
            continue;
        }
        p++;
        switch (*p++) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        default: {                   /* 'u' */
            uint32_t cp = (uint32_t)hex4((const char *)p, (const char *)close);
            p += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                uint32_t lo = (uint32_t)hex4((const char *)p + 2, (const char *)close);
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                p += 6;
            }
            o += utf8_put(o, cp);
            break;
        }
        }
    }
    *str = s->tmp;
    *len = (size_t)(o - s->tmp);
    return 0;
}

int bundle_scan_skip(bundle_scan *s)
{
    char b[32];
    int c = bundle_scan_peek(s);
    switch (c) {
    case '{': {
        bundle_scan_obj o;
        if (bundle_scan_object_open(s, &o, NULL))
            return KR_INPUT;
        const char *key;
        size_t len;
        int r;
        while ((r = bundle_scan_object_key(s, &o, &key, &len)) == 1) {
            if (bundle_scan_key_unique(s, &o, key, len) || bundle_scan_skip(s))
                return s->err ? s->err->code : KR_INPUT;
        }
        return r < 0 ? (s->err ? s->err->code : KR_INPUT) : 0;
    }
    case '[': {
        bundle_scan_arr a;
        if (bundle_scan_array_open(s, &a, NULL))
            return KR_INPUT;
        int r;
        while ((r = bundle_scan_array_next(s, &a)) == 1)
            if (bundle_scan_skip(s))
                return s->err ? s->err->code : KR_INPUT;
        return r < 0 ? (s->err ? s->err->code : KR_INPUT) : 0;
    }
    case '"': {
        const char *str;
        size_t len;
        return bundle_scan_string(s, &str, &len, NULL);
    }
    case 't':
        if (literal(s, "true", 4))
            return 0;
        break;
    case 'f':
        if (literal(s, "false", 5))
            return 0;
        break;
    case 'n':
        if (literal(s, "null", 4))
            return 0;
        break;
    case -1:
        return bundle_scan_fail(s, s->p, "unexpected end of input, expected a value");
    default:
        if (c == '-' || (c >= '0' && c <= '9')) {
            bundle_scan_num n;
            return bundle_scan_number(s, &n);
        }
        break;
    }
    return bundle_scan_fail(s, s->p, "expected a value, found %s", describe(s, s->p, b, sizeof b));
}

int bundle_scan_finish(bundle_scan *s)
{
    char b[32];
    if (bundle_scan_peek(s) != -1)
        return bundle_scan_fail(s, s->p, "expected end of input, found %s", describe(s, s->p, b, sizeof b));
    return 0;
}

int bundle_scan_uint_tuple_slow(bundle_scan *s, int n, const uint64_t *max, uint64_t *out,
                                const char *what, size_t index)
{
    char path[300];
    snprintf(path, sizeof path, "%.200s[%zu]", what, index);
    bundle_scan_arr a;
    if (bundle_scan_array_open(s, &a, path))
        return KR_INPUT;
    for (int k = 0; k < n; k++) {
        int r = bundle_scan_array_next(s, &a);
        if (r < 0)
            return KR_INPUT;
        if (r == 0)
            return bundle_scan_fail(s, s->p - 1, "expected %d integers in %s, found %d", n, path, k);
        if (bundle_scan_uint(s, max[k], &out[k], "%s[%d]", path, k))
            return KR_INPUT;
    }
    int c = bundle_scan_peek(s);
    if (c == ',')
        return bundle_scan_fail(s, s->p, "expected %d integers in %s, found more", n, path);
    if (bundle_scan_array_next(s, &a) != 0)
        return KR_INPUT;
    return 0;
}
