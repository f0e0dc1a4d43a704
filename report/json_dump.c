/* json_dump.c — see json_dump.h. Mirrors jansson 2.14's dump.c (do_dump,
 * dump_indent, dump_string) for the flags analysis.json is written with;
 * reals come from report/numtext.h (strconv.c's jsonp_dtostr). */
#include "report/json_dump.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/numtext.h"

enum { INDENT = 2, PRECISION = 10 };

/* ---- staging: output is collected in a fixed block, appended in pieces ---- */

static void flush(rep_jw *w)
{
    kr_buf_append(w->out, w->stage, w->n);
    w->n = 0;
}

static void put(rep_jw *w, const char *s, size_t n)
{
    if (n > REP_JW_STAGE - w->n) {
        flush(w);
        if (n > REP_JW_STAGE) {
            kr_buf_append(w->out, s, n);
            return;
        }
    }
    memcpy(w->stage + w->n, s, n);
    w->n += n;
}

/* Room for n more bytes in the stage (n <= REP_JW_STAGE). */
static void reserve(rep_jw *w, size_t n)
{
    if (REP_JW_STAGE - w->n < n)
        flush(w);
}

static void putc_(rep_jw *w, char c)
{
    if (w->n == REP_JW_STAGE)
        flush(w);
    w->stage[w->n++] = c;
}

/* ",\n" and spaces: dump_indent's text, copied in 8-byte pieces, so it
 * holds 8 spaces more than the NL_FAST indent writes that way. */
static const char nl_spaces[] = ",\n                                                                        ";
enum { NL_FAST = 64 };

/* A newline (after a comma when comma) and depth * INDENT spaces. */
static void indent(rep_jw *w, int depth, int comma)
{
    size_t n = (size_t)depth * INDENT;
    const char *from = nl_spaces + !comma;
    if (n <= NL_FAST) {
        size_t len = n + 1 + (size_t)comma;
        reserve(w, len + 8);
        char *o = w->stage + w->n;
        for (size_t i = 0; i < len; i += 8)
            memcpy(o + i, from + i, 8);
        w->n += len;
        return;
    }
    put(w, from, NL_FAST + 1 + (size_t)comma);
    n -= NL_FAST;
    while (n) {
        size_t k = n < NL_FAST ? n : NL_FAST;
        put(w, nl_spaces + 2, k);
        n -= k;
    }
}

/* ---- strings ---- */

/* Length of the UTF-8 sequence at s (jansson's utf8_check_first and
 * utf8_check_full: no overlongs, no surrogates, nothing above U+10FFFF), or
 * 0 when invalid or cut by the end. */
static size_t utf8_len(const unsigned char *s, size_t avail)
{
    unsigned u = s[0];
    size_t n;
    uint32_t v;
    if (u >= 0xC2 && u <= 0xDF) {
        n = 2;
        v = u & 0x1F;
    } else if (u >= 0xE0 && u <= 0xEF) {
        n = 3;
        v = u & 0x0F;
    } else if (u >= 0xF0 && u <= 0xF4) {
        n = 4;
        v = u & 0x07;
    } else {
        return 0;
    }
    if (n > avail)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
        v = (v << 6) + (s[i] & 0x3F);
    }
    if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    if ((n == 2 && v < 0x80) || (n == 3 && v < 0x800) || (n == 4 && v < 0x10000))
        return 0;
    return n;
}

/* 1 when the n bytes at s are valid UTF-8 (jansson's utf8_check_string). */
static int utf8_valid(const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str, *end = s + len;
    while (s < end) {
        if (*s < 0x80) {
            s++;
            continue;
        }
        size_t n = utf8_len(s, (size_t)(end - s));
        if (!n)
            return 0;
        s += n;
    }
    return 1;
}

/* Bytes a string or key holds as they are without any check: printable
 * ASCII but '"' and '\\' (0x7F included, as dump_string writes it). */
static const unsigned char plain_ascii[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

enum { FAST = 256 };         /* longest string the fast paths take */

/* s quoted, straight into the stage, when it is at most FAST bytes of
 * plain ASCII; 0 and the stage as it was otherwise. The caller reserved
 * FAST + 2 bytes. */
static int quoted_fast(rep_jw *w, const char *s)
{
    char *o = w->stage + w->n, *lim = o + 1 + FAST;
    *o++ = '"';
    const unsigned char *u = (const unsigned char *)s;
    while (plain_ascii[*u]) {
        if (o == lim)
            return 0;
        *o++ = (char)*u++;
    }
    if (*u)
        return 0;
    *o++ = '"';
    w->n = (size_t)(o - w->stage);
    return 1;
}

/* 1 when s is at most FAST bytes of plain ASCII. */
static int plain_short(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t n = 0;
    while (plain_ascii[u[n]] && n <= FAST)
        n++;
    return u[n] == '\0' && n <= FAST;
}

/* dump_string without JSON_ENSURE_ASCII and JSON_ESCAPE_SLASH, for text
 * already known to be valid UTF-8. */
static void string_valid(rep_jw *w, const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str, *end = s + len, *run = s;
    putc_(w, '"');
    for (;;) {
        while (s < end && *s >= 0x20 && *s != '"' && *s != '\\')
            s++;
        if (s == end)
            break;
        put(w, (const char *)run, (size_t)(s - run));
        unsigned c = *s;
        char seq[8];
        const char *text = seq;
        size_t tl = 2;
        switch (c) {
        case '\\': text = "\\\\"; break;
        case '"': text = "\\\""; break;
        case '\b': text = "\\b"; break;
        case '\f': text = "\\f"; break;
        case '\n': text = "\\n"; break;
        case '\r': text = "\\r"; break;
        case '\t': text = "\\t"; break;
        default:
            snprintf(seq, sizeof seq, "\\u%04X", c);
            tl = 6;
            break;
        }
        put(w, text, tl);
        run = ++s;
    }
    put(w, (const char *)run, (size_t)(s - run));
    putc_(w, '"');
}

/* dump_string: -1 (and nothing written) when str is not valid UTF-8. */
static int string(rep_jw *w, const char *str, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)str[i] >= 0x80) {
            if (!utf8_valid(str + i, len - i))
                return -1;
            break;
        }
    string_valid(w, str, len);
    return 0;
}

/* ---- numbers (report/numtext.h does the digits) ---- */

static void integer(rep_jw *w, int64_t v)
{
    /* digits end 24 bytes in, so the 8-byte pieces below stay inside b */
    char b[48], *end = b + 24;
    /* magnitude as unsigned, so INT64_MIN is exact */
    unsigned long long m = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    char *p = rep_u64_digits(end, m);
    if (v < 0)
        *--p = '-';
    size_t len = (size_t)(end - p);
    reserve(w, 24 + 8);
    char *o = w->stage + w->n;
    for (size_t i = 0; i < len; i += 8)
        memcpy(o + i, p + i, 8);
    w->n += len;
}

static int real(rep_jw *w, double value)
{
    char b[32];
    size_t n = rep_json_real_text(b, value);
    if (!n)
        return -1;
    put(w, b, n);
    return 0;
}

/* ---- the DOM dumper ---- */

static int value(rep_jw *w, const json_t *v, int depth)
{
    switch (json_typeof(v)) {
    case JSON_NULL: put(w, "null", 4); return 0;
    case JSON_TRUE: put(w, "true", 4); return 0;
    case JSON_FALSE: put(w, "false", 5); return 0;
    case JSON_INTEGER: integer(w, json_integer_value(v)); return 0;
    case JSON_REAL: return real(w, json_real_value(v));
    case JSON_STRING: return string(w, json_string_value(v), json_string_length(v));
    case JSON_ARRAY: {
        size_t n = json_array_size(v);
        putc_(w, '[');
        if (n == 0) {
            putc_(w, ']');
            return 0;
        }
        indent(w, depth + 1, 0);
        for (size_t i = 0; i < n; i++) {
            if (value(w, json_array_get(v, i), depth + 1))
                return -1;
            if (i < n - 1)
                indent(w, depth + 1, 1);
            else
                indent(w, depth, 0);
        }
        putc_(w, ']');
        return 0;
    }
    case JSON_OBJECT: {
        void *iter = json_object_iter((json_t *)v);
        putc_(w, '{');
        if (!iter) {
            putc_(w, '}');
            return 0;
        }
        indent(w, depth + 1, 0);
        while (iter) {
            void *next = json_object_iter_next((json_t *)v, iter);
            const char *key = json_object_iter_key(iter);
            if (string(w, key, json_object_iter_key_len(iter)))
                return -1;
            put(w, ": ", 2);
            if (value(w, json_object_iter_value(iter), depth + 1))
                return -1;
            if (next)
                indent(w, depth + 1, 1);
            else
                indent(w, depth, 0);
            iter = next;
        }
        putc_(w, '}');
        return 0;
    }
    default:
        return -1;
    }
}

int rep_json_dump(const json_t *root, kr_buf *out)
{
    if (!json_is_object(root) && !json_is_array(root))
        return -1;
    rep_jw *w = malloc(sizeof *w);
    if (!w) {
        out->oom = 1;
        return -1;
    }
    rep_jw_text(w, out);
    size_t mark = out->len;
    int rc = value(w, root, 0);
    if (rc == 0)
        flush(w);
    else if (out->data && out->len >= mark) {
        out->len = mark;
        out->data[mark] = '\0';
    }
    free(w);
    return rc;
}

/* ---- the streaming writer ---- */

static void jw_begin(rep_jw *w, int tree, kr_buf *out)
{
    w->tree = tree;
    w->depth = 0;
    w->skip = 0;
    w->failed = 0;
    w->root = NULL;
    w->out = out;
    w->n = 0;
}

void rep_jw_text(rep_jw *w, kr_buf *out)
{
    jw_begin(w, 0, out);
}

int rep_jw_text_end(rep_jw *w)
{
    flush(w);
    return w->failed || w->depth || w->skip ? -1 : 0;
}

void rep_jw_tree(rep_jw *w)
{
    jw_begin(w, 1, NULL);
}

json_t *rep_jw_tree_end(rep_jw *w)
{
    while (w->depth > 0)
        json_decref(w->open[--w->depth]);
    json_t *r = w->root;
    w->root = NULL;
    return r;
}

/* Text mode: the separator, indentation and key before a value; 0 when
 * the value is not written because jansson would refuse its key (NULL or
 * not UTF-8 inside an object). Keys are ignored inside arrays. */
static int member(rep_jw *w, const char *key)
{
    if (w->skip)
        return 0;
    if (w->depth == 0)
        return 1;
    int d = w->depth - 1;
    if (w->array[d]) {
        indent(w, w->depth, w->members[d]);
        w->members[d] = 1;
        return 1;
    }
    if (!key)
        return 0;
    if ((size_t)w->depth * INDENT <= NL_FAST) {
        /* the usual key: written in place, undone when it is not plain */
        reserve(w, sizeof nl_spaces + FAST + 4);
        size_t mark = w->n;
        indent(w, w->depth, w->members[d]);
        if (quoted_fast(w, key)) {
            w->stage[w->n++] = ':';
            w->stage[w->n++] = ' ';
            w->members[d] = 1;
            return 1;
        }
        w->n = mark;
    }
    size_t n = strlen(key);
    if (!utf8_valid(key, n))
        return 0;
    indent(w, w->depth, w->members[d]);
    w->members[d] = 1;
    string_valid(w, key, n);
    put(w, ": ", 2);
    return 1;
}

/* Tree mode: adds v (reference stolen) to the innermost container. */
static void attach(rep_jw *w, const char *key, json_t *v)
{
    if (!v)
        return;
    if (w->skip) {
        json_decref(v);
        return;
    }
    if (w->depth == 0) {
        if (w->root)
            json_decref(w->root);
        w->root = v;
        return;
    }
    json_t *c = w->open[w->depth - 1];
    if (!json_is_object(c))
        json_array_append_new(c, v);
    else if (key)
        json_object_set_new(c, key, v);
    else
        json_decref(v);
}

static void open_(rep_jw *w, const char *key, int array)
{
    if (w->skip || w->depth >= REP_JW_DEPTH) {
        /* inside a container that is not written, or too deep: the
         * contents go nowhere */
        w->failed |= !w->skip;
        w->skip++;
        return;
    }
    if (w->tree) {
        json_t *c = array ? json_array() : json_object();
        attach(w, key, json_incref(c));
        w->open[w->depth] = c;
    } else {
        if (!member(w, key)) {
            w->skip++;
            return;
        }
        putc_(w, array ? '[' : '{');
    }
    w->members[w->depth] = 0;
    w->array[w->depth] = (unsigned char)array;
    w->depth++;
}

void rep_jw_obj(rep_jw *w, const char *key) { open_(w, key, 0); }
void rep_jw_arr(rep_jw *w, const char *key) { open_(w, key, 1); }

void rep_jw_end(rep_jw *w)
{
    if (w->skip) {
        w->skip--;
        return;
    }
    if (w->depth == 0) {
        w->failed = 1;
        return;
    }
    w->depth--;
    if (w->tree) {
        json_decref(w->open[w->depth]);
        return;
    }
    if (w->members[w->depth])
        indent(w, w->depth, 0);
    putc_(w, w->array[w->depth] ? ']' : '}');
}

void rep_jw_null(rep_jw *w, const char *key)
{
    if (w->tree) {
        attach(w, key, json_null());
        return;
    }
    if (member(w, key))
        put(w, "null", 4);
}

void rep_jw_str_or_null(rep_jw *w, const char *key, const char *s)
{
    if (s)
        rep_jw_str(w, key, s);
    else
        rep_jw_null(w, key);
}

void rep_jw_int_or_null(rep_jw *w, const char *key, int known, int64_t v)
{
    if (known)
        rep_jw_int(w, key, v);
    else
        rep_jw_null(w, key);
}

void rep_jw_uint_or_null(rep_jw *w, const char *key, int known, uint64_t v)
{
    if (known)
        rep_jw_uint(w, key, v);
    else
        rep_jw_null(w, key);
}

void rep_jw_real_or_null(rep_jw *w, const char *key, int known, double v)
{
    if (known && isfinite(v))
        rep_jw_real(w, key, v);
    else
        rep_jw_null(w, key);
}

void rep_jw_bool(rep_jw *w, const char *key, int v)
{
    if (w->tree) {
        attach(w, key, json_boolean(v));
        return;
    }
    if (!member(w, key))
        return;
    if (v)
        put(w, "true", 4);
    else
        put(w, "false", 5);
}

void rep_jw_int(rep_jw *w, const char *key, int64_t v)
{
    if (w->tree) {
        attach(w, key, json_integer((json_int_t)v));
        return;
    }
    if (member(w, key))
        integer(w, v);
}

void rep_jw_uint(rep_jw *w, const char *key, uint64_t v)
{
    rep_jw_int(w, key, v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

void rep_jw_real(rep_jw *w, const char *key, double v)
{
    if (!isfinite(v))
        return;
    if (w->tree) {
        attach(w, key, json_real(v));
        return;
    }
    char b[32];
    size_t n = rep_json_real_text(b, v);
    if (!n) {
        w->failed = 1;
        return;
    }
    if (member(w, key))
        put(w, b, n);
}

void rep_jw_share(rep_jw *w, const char *key, uint64_t part, uint64_t whole)
{
    if (whole)
        rep_jw_real(w, key, (double)part / (double)whole);
    else
        rep_jw_null(w, key);
}

/* s with every byte >= 0x80 replaced by '?' (rep_jstr's repair). In text
 * mode the member's key is already written. */
static void str_ascii(rep_jw *w, const char *key, const char *s, size_t len)
{
    char small[256];
    char *c = len < sizeof small ? small : malloc(len + 1);
    if (!c) {
        w->failed = 1;
        return;
    }
    for (size_t i = 0; i < len; i++)
        c[i] = (unsigned char)s[i] >= 0x80 ? '?' : s[i];
    c[len] = '\0';
    if (w->tree)
        attach(w, key, json_stringn(c, len));
    else
        string_valid(w, c, len);
    if (c != small)
        free(c);
}

void rep_jw_str(rep_jw *w, const char *key, const char *s)
{
    if (!s)
        s = "";
    if (!w->tree) {
        if (!member(w, key))
            return;
        reserve(w, FAST + 2);
        if (quoted_fast(w, s))
            return;
        size_t len = strlen(s);
        if (utf8_valid(s, len))
            string_valid(w, s, len);
        else
            str_ascii(w, NULL, s, len);
        return;
    }
    size_t len = strlen(s);
    if (utf8_valid(s, len))
        attach(w, key, json_stringn_nocheck(s, len));
    else
        str_ascii(w, key, s, len);
}

void rep_jw_sym(rep_jw *w, const char *key, const char *s)
{
    if (!s)
        return;
    if (!w->tree && plain_short(s)) {
        if (member(w, key)) {
            reserve(w, FAST + 2);
            quoted_fast(w, s);
        }
        return;
    }
    size_t len = strlen(s);
    if (!utf8_valid(s, len))
        return;
    if (w->tree) {
        attach(w, key, json_stringn_nocheck(s, len));
        return;
    }
    if (member(w, key))
        string_valid(w, s, len);
}

void rep_jw_json(rep_jw *w, const char *key, json_t *v)
{
    if (!v)
        return;
    if (w->tree) {
        attach(w, key, v);
        return;
    }
    if (member(w, key) && value(w, v, w->depth))
        w->failed = 1;
    json_decref(v);
}
