/* json_util.c — see json_util.h. */
#include "bundle/json_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/limits.h"

void bundle_jctx_init(bundle_jctx *j, const char *fname, kr_err *err)
{
    j->fname = fname;
    j->err = err;
    j->path[0] = '$';
    j->path[1] = '\0';
    j->len = 1;
}

static void jappend(bundle_jctx *j, const char *s, size_t n)
{
    size_t room = sizeof j->path - 1 - j->len;
    if (n > room)
        n = room;
    memcpy(j->path + j->len, s, n);
    j->len += n;
    j->path[j->len] = '\0';
}

static int plain_key(const char *key)
{
    if (!*key)
        return 0;
    for (const char *p = key; *p; p++) {
        char ch = *p;
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_'))
            return 0;
    }
    return 1;
}

/* Appends key in path syntax: .key or ["k\"ey"] (control bytes as \u00XX). */
static void append_key(bundle_jctx *j, const char *key, size_t n)
{
    char tmp[8];
    jappend(j, "[\"", 2);
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)key[i];
        if (ch == '"' || ch == '\\') {
            tmp[0] = '\\';
            tmp[1] = (char)ch;
            jappend(j, tmp, 2);
        } else if (ch < 0x20) {
            snprintf(tmp, sizeof tmp, "\\u%04x", ch);
            jappend(j, tmp, 6);
        } else {
            jappend(j, (const char *)&key[i], 1);
        }
    }
    jappend(j, "\"]", 2);
}

size_t bundle_jpush_key(bundle_jctx *j, const char *key)
{
    size_t mark = j->len;
    if (plain_key(key)) {
        jappend(j, ".", 1);
        jappend(j, key, strlen(key));
    } else {
        append_key(j, key, strlen(key));
    }
    return mark;
}

size_t bundle_jpush_index(bundle_jctx *j, size_t i)
{
    /* Called once per array element on hot paths: no printf. */
    size_t mark = j->len;
    char tmp[32];
    char *p = tmp + sizeof tmp;
    *--p = ']';
    do {
        *--p = (char)('0' + i % 10);
        i /= 10;
    } while (i);
    *--p = '[';
    jappend(j, p, (size_t)(tmp + sizeof tmp - p));
    return mark;
}

void bundle_jpop(bundle_jctx *j, size_t mark)
{
    if (mark < j->len) {
        j->len = mark;
        j->path[mark] = '\0';
    }
}

int bundle_jerr(bundle_jctx *j, const char *fmt, ...)
{
    char msg[sizeof j->err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return kr_err_set(j->err, KR_INPUT, j->fname, j->path, "%s", msg);
}

/* ---- locating a parse error: the JSON path of a byte offset ---- */

typedef struct {
    char is_obj;
    char want_key;           /* object: the next string is a key */
    size_t index;            /* array: current element */
    const char *key;         /* object: raw key text (between the quotes) */
    size_t key_len;
} scan_frame;

/* Rebuilds the container path of data[0, pos) by a tolerant scan (the text
 * before a jansson error position is valid JSON up to that point). */
static void path_at(const char *data, size_t pos, bundle_jctx *j, char *last_key, size_t cap)
{
    enum { DEPTH = 64 };
    scan_frame st[DEPTH];
    size_t depth = 0, overflow = 0;
    size_t i = 0;
    while (i < pos) {
        char ch = data[i];
        if (ch == '"') {
            size_t start = ++i;
            while (i < pos && data[i] != '"') {
                if (data[i] == '\\')
                    i++;
                i++;
            }
            size_t end = i < pos ? i : pos;
            if (!overflow && depth && st[depth - 1].is_obj && st[depth - 1].want_key) {
                st[depth - 1].key = data + start;
                st[depth - 1].key_len = end - start;
                st[depth - 1].want_key = 0;
            }
            i++;
            continue;
        }
        if (ch == '{' || ch == '[') {
            if (depth < DEPTH && !overflow) {
                st[depth].is_obj = ch == '{';
                st[depth].want_key = ch == '{';
                st[depth].index = 0;
                st[depth].key = NULL;
                st[depth].key_len = 0;
                depth++;
            } else {
                overflow++;
            }
        } else if (ch == '}' || ch == ']') {
            if (overflow)
                overflow--;
            else if (depth)
                depth--;
        } else if (ch == ',' && !overflow && depth) {
            if (st[depth - 1].is_obj) {
                st[depth - 1].want_key = 1;
                st[depth - 1].key = NULL;
            } else {
                st[depth - 1].index++;
            }
        }
        i++;
    }
    last_key[0] = '\0';
    for (size_t d = 0; d < depth; d++) {
        if (st[d].is_obj) {
            if (!st[d].key)
                break;
            size_t n = st[d].key_len < cap - 1 ? st[d].key_len : cap - 1;
            memcpy(last_key, st[d].key, n);
            last_key[n] = '\0';
            bundle_jpush_key(j, last_key);
        } else {
            bundle_jpush_index(j, st[d].index);
        }
    }
}

/* Offset of the first '[' or '{' nested deeper than KR_MAX_JSON_DEPTH
 * (strings skipped), or len when there is none. */
static size_t too_deep_at(const char *data, size_t len)
{
    size_t depth = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = data[i];
        if (ch == '"') {
            for (i++; i < len && data[i] != '"'; i++)
                if (data[i] == '\\')
                    i++;
        } else if (ch == '[' || ch == '{') {
            if (++depth > KR_MAX_JSON_DEPTH)
                return i;
        } else if ((ch == ']' || ch == '}') && depth) {
            depth--;
        }
    }
    return len;
}

int bundle_json_parse(const char *data, size_t len, const char *fname, json_t **out, kr_err *err)
{
    json_error_t je;
    size_t deep = too_deep_at(data, len);
    *out = json_loadb(data, len, JSON_REJECT_DUPLICATES, &je);
    bundle_jctx j;
    bundle_jctx_init(&j, fname, err);
    size_t pos = *out ? len : (je.position < 0 ? 0 : (size_t)je.position);
    if (pos > len)
        pos = len;
    if (deep < len && deep <= pos) {
        /* Nesting is limited before anything else reads the tree. */
        json_decref(*out);
        *out = NULL;
        char key[256];
        path_at(data, deep, &j, key, sizeof key);
        int line = 1, col = 1;
        for (size_t i = 0; i < deep; i++, col++)
            if (data[i] == '\n')
                line++, col = 0;
        return bundle_jerr(&j, "nesting deeper than KR_MAX_JSON_DEPTH (%d) (line %d, column %d)",
                           KR_MAX_JSON_DEPTH, line, col);
    }
    if (*out)
        return 0;
    char key[256];
    path_at(data, pos, &j, key, sizeof key);
    if (json_error_code(&je) == json_error_duplicate_key)      /* the key just read */
        return bundle_jerr(&j, "duplicate key \"%s\" (line %d, column %d)", key, je.line, je.column);
    return bundle_jerr(&j, "invalid JSON: %s (line %d, column %d)", je.text, je.line, je.column);
}

/* ---- values ---- */

void bundle_jv_of(const json_t *v, bundle_jv *out)
{
    out->i = 0;
    out->str = NULL;
    out->len = 0;
    switch (json_typeof(v)) {
    case JSON_OBJECT: out->type = BUNDLE_JT_OBJECT; break;
    case JSON_ARRAY: out->type = BUNDLE_JT_ARRAY; break;
    case JSON_STRING:
        out->type = BUNDLE_JT_STRING;
        out->str = json_string_value(v);
        out->len = json_string_length(v);
        break;
    case JSON_INTEGER:
        out->type = BUNDLE_JT_INTEGER;
        out->i = (int64_t)json_integer_value(v);
        break;
    case JSON_REAL: out->type = BUNDLE_JT_REAL; break;
    case JSON_TRUE: out->type = BUNDLE_JT_TRUE; break;
    case JSON_FALSE: out->type = BUNDLE_JT_FALSE; break;
    default: out->type = BUNDLE_JT_NULL; break;
    }
}

int bundle_jv_scan(bundle_scan *s, bundle_jv *out)
{
    out->i = 0;
    out->str = NULL;
    out->len = 0;
    int c = bundle_scan_peek(s);
    switch (c) {
    case '{': out->type = BUNDLE_JT_OBJECT; return bundle_scan_skip(s);
    case '[': out->type = BUNDLE_JT_ARRAY; return bundle_scan_skip(s);
    case '"': out->type = BUNDLE_JT_STRING; return bundle_scan_string(s, &out->str, &out->len, NULL);
    case 't': out->type = BUNDLE_JT_TRUE; return bundle_scan_skip(s);
    case 'f': out->type = BUNDLE_JT_FALSE; return bundle_scan_skip(s);
    case 'n': out->type = BUNDLE_JT_NULL; return bundle_scan_skip(s);
    default: {
        bundle_scan_num n;
        int rc = bundle_scan_number(s, &n);
        if (rc)
            return rc;
        if (n.is_int) {
            out->type = BUNDLE_JT_INTEGER;
            /* mag <= 2^63 for negatives, <= 2^63 - 1 otherwise */
            out->i = n.neg ? (n.mag ? (int64_t)(0 - (n.mag - 1)) - 1 : 0) : (int64_t)n.mag;
        } else {
            out->type = BUNDLE_JT_REAL;
        }
        return 0;
    }
    }
}

const char *bundle_jv_kind(const bundle_jv *v)
{
    switch (v->type) {
    case BUNDLE_JT_OBJECT: return "an object";
    case BUNDLE_JT_ARRAY: return "an array";
    case BUNDLE_JT_STRING: return "a string";
    case BUNDLE_JT_INTEGER: return "an integer";
    case BUNDLE_JT_REAL: return "a real number";
    case BUNDLE_JT_TRUE:
    case BUNDLE_JT_FALSE: return "a boolean";
    default: return "null";
    }
}

int bundle_jv_i64(bundle_jctx *j, const bundle_jv *v, int64_t *out)
{
    if (v->type != BUNDLE_JT_INTEGER)
        return bundle_jerr(j, "expected an integer, found %s", bundle_jv_kind(v));
    *out = v->i;
    return 0;
}

int bundle_jv_u64(bundle_jctx *j, const bundle_jv *v, uint64_t *out)
{
    if (v->type != BUNDLE_JT_INTEGER)
        return bundle_jerr(j, "expected a non-negative integer, found %s", bundle_jv_kind(v));
    if (v->i < 0)
        return bundle_jerr(j, "expected a non-negative integer, found %lld", (long long)v->i);
    *out = (uint64_t)v->i;
    return 0;
}

int bundle_jv_range(bundle_jctx *j, const bundle_jv *v, int64_t lo, int64_t hi, int64_t *out)
{
    if (v->type != BUNDLE_JT_INTEGER)
        return bundle_jerr(j, "expected an integer in [%lld, %lld], found %s",
                           (long long)lo, (long long)hi, bundle_jv_kind(v));
    if (v->i < lo || v->i > hi)
        return bundle_jerr(j, "expected an integer in [%lld, %lld], found %lld",
                           (long long)lo, (long long)hi, (long long)v->i);
    *out = v->i;
    return 0;
}

int bundle_jv_str(bundle_jctx *j, const bundle_jv *v, const char **out, size_t *len)
{
    if (v->type != BUNDLE_JT_STRING)
        return bundle_jerr(j, "expected a string, found %s", bundle_jv_kind(v));
    if (v->len > KR_MAX_STRING_BYTES)
        return bundle_jerr(j, "string of %zu bytes exceeds KR_MAX_STRING_BYTES (%u)",
                           v->len, (unsigned)KR_MAX_STRING_BYTES);
    *out = v->str;
    if (len)
        *len = v->len;
    return 0;
}

/* ---- DOM getters ---- */

const char *bundle_json_kind(const json_t *v)
{
    bundle_jv x;
    bundle_jv_of(v, &x);
    return bundle_jv_kind(&x);
}

int bundle_jexpect_object(bundle_jctx *j, const json_t *v)
{
    if (json_is_object(v))
        return 0;
    return bundle_jerr(j, "expected an object, found %s", bundle_json_kind(v));
}

int bundle_jexpect_array(bundle_jctx *j, const json_t *v)
{
    if (json_is_array(v))
        return 0;
    return bundle_jerr(j, "expected an array, found %s", bundle_json_kind(v));
}

int bundle_jexpect_array_n(bundle_jctx *j, const json_t *v, size_t n, const char *what)
{
    if (!json_is_array(v))
        return bundle_jerr(j, "expected %s, found %s", what, bundle_json_kind(v));
    if (json_array_size(v) != n)
        return bundle_jerr(j, "expected %s, found an array of %zu elements", what, json_array_size(v));
    return 0;
}

int bundle_jmember(bundle_jctx *j, const json_t *obj, const char *key, int required, json_t **out)
{
    *out = json_object_get(obj, key);
    if (!*out && required)
        return bundle_jerr(j, "missing key \"%s\"", key);
    return 0;
}

int bundle_jget_i64(bundle_jctx *j, const json_t *v, int64_t *out)
{
    bundle_jv x;
    bundle_jv_of(v, &x);
    return bundle_jv_i64(j, &x, out);
}

int bundle_jget_u64(bundle_jctx *j, const json_t *v, uint64_t *out)
{
    bundle_jv x;
    bundle_jv_of(v, &x);
    return bundle_jv_u64(j, &x, out);
}

int bundle_jget_range(bundle_jctx *j, const json_t *v, int64_t lo, int64_t hi, int64_t *out)
{
    bundle_jv x;
    bundle_jv_of(v, &x);
    return bundle_jv_range(j, &x, lo, hi, out);
}

int bundle_jget_str(bundle_jctx *j, const json_t *v, const char **out, size_t *len)
{
    bundle_jv x;
    bundle_jv_of(v, &x);
    return bundle_jv_str(j, &x, out, len);
}

int bundle_jget_bool(bundle_jctx *j, const json_t *v, int *out)
{
    if (!json_is_boolean(v))
        return bundle_jerr(j, "expected a boolean, found %s", bundle_json_kind(v));
    *out = json_is_true(v);
    return 0;
}

int bundle_jkey_i64(bundle_jctx *j, const json_t *obj, const char *key, int required, int64_t *out)
{
    json_t *v;
    int rc = bundle_jmember(j, obj, key, required, &v);
    if (rc || !v)
        return rc;
    size_t m = bundle_jpush_key(j, key);
    rc = bundle_jget_i64(j, v, out);
    if (!rc)
        bundle_jpop(j, m);
    return rc;
}

int bundle_jkey_u64(bundle_jctx *j, const json_t *obj, const char *key, int required, uint64_t *out)
{
    json_t *v;
    int rc = bundle_jmember(j, obj, key, required, &v);
    if (rc || !v)
        return rc;
    size_t m = bundle_jpush_key(j, key);
    rc = bundle_jget_u64(j, v, out);
    if (!rc)
        bundle_jpop(j, m);
    return rc;
}

int bundle_jkey_str(bundle_jctx *j, const json_t *obj, const char *key, int required, const char **out)
{
    json_t *v;
    int rc = bundle_jmember(j, obj, key, required, &v);
    if (rc || !v)
        return rc;
    size_t m = bundle_jpush_key(j, key);
    rc = bundle_jget_str(j, v, out, NULL);
    if (!rc)
        bundle_jpop(j, m);
    return rc;
}

int bundle_err_prefix(kr_err *err, int rc, const char *what)
{
    char msg[sizeof err->msg];
    size_t w = strlen(what);
    if (w + 2 >= sizeof msg)
        return rc;
    memcpy(msg, what, w);
    msg[w] = ':';
    msg[w + 1] = ' ';
    size_t room = sizeof msg - w - 3;
    size_t n = strnlen(err->msg, room);
    memcpy(msg + w + 2, err->msg, n);
    msg[w + 2 + n] = '\0';
    memcpy(err->msg, msg, w + 3 + n);
    return rc;
}

int bundle_decimal_key(const char *key, uint64_t max, uint64_t *out)
{
    if (!*key)
        return 0;
    uint64_t v = 0;
    for (const char *p = key; *p; p++) {
        if (*p < '0' || *p > '9')
            return 0;
        unsigned d = (unsigned)(*p - '0');
        if (d > max || v > (max - d) / 10)
            return 0;
        v = v * 10 + d;
    }
    *out = v;
    return 1;
}

int bundle_plain_file_name(const char *s)
{
    if (!s || !*s || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
        return 0;
    return strchr(s, '/') == NULL && strchr(s, '\\') == NULL;
}

/* ---- pass 1 of a streaming load ---- */

static int jtop_push(bundle_jtop *t, size_t *cap, const char *key, size_t len)
{
    if (t->n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 8;
        bundle_jtop_member *m = realloc(t->m, ncap * sizeof *m);
        if (!m)
            return -1;
        t->m = m;
        *cap = ncap;
    }
    bundle_jtop_member *m = &t->m[t->n];
    if (!(m->key = malloc(len + 1)))
        return -1;
    memcpy(m->key, key, len);
    m->key[len] = '\0';
    m->key_len = len;
    m->value = NULL;
    m->count = 0;
    t->n++;
    return 0;
}

/* Skips an array value, counting its elements. */
static int skip_count(bundle_scan *s, size_t *count)
{
    bundle_scan_arr a;
    if (bundle_scan_array_open(s, &a, NULL))
        return KR_INPUT;
    size_t n = 0;
    int r;
    while ((r = bundle_scan_array_next(s, &a)) == 1) {
        if (bundle_scan_skip(s))
            return KR_INPUT;
        n++;
    }
    *count = n;
    return r < 0 ? KR_INPUT : 0;
}

int bundle_jtop_read(bundle_scan *s, bundle_jtop *t)
{
    t->is_object = 0;
    t->m = NULL;
    t->n = 0;
    size_t cap = 0;
    int c = bundle_scan_peek(s);
    if (c == '[') {
        size_t n;
        if (skip_count(s, &n) || bundle_scan_finish(s))
            goto rejected;
        return 0;
    }
    if (c != '{')
        goto rejected;
    t->is_object = 1;
    bundle_scan_obj o;
    if (bundle_scan_object_open(s, &o, NULL))
        goto rejected;
    for (;;) {
        const char *key;
        size_t len;
        int r = bundle_scan_object_key(s, &o, &key, &len);
        if (r < 0)
            goto rejected;
        if (r == 0)
            break;
        if (bundle_scan_key_unique(s, &o, key, len))
            goto rejected;
        if (jtop_push(t, &cap, key, len))
            return kr_err_set(s->err, KR_INTERNAL, s->fname, NULL, "out of memory");
        bundle_jtop_member *m = &t->m[t->n - 1];
        c = bundle_scan_peek(s);
        m->value = s->p;
        if (c == '[' ? skip_count(s, &m->count) : bundle_scan_skip(s))
            goto rejected;
    }
    if (bundle_scan_finish(s))
        goto rejected;
    return 0;

rejected:
    if (s->err && s->err->code == KR_INTERNAL)
        return KR_INTERNAL;
    /* The scanner refused the text: jansson decides, and its message is the
     * one the DOM loader gives. */
    {
        json_t *root;
        kr_err jerr;
        kr_err_clear(&jerr);
        if (bundle_json_parse(s->base, (size_t)(s->end - s->base), s->fname, &root, &jerr) == 0) {
            json_decref(root);
            kr_err_clear(s->err);
            return BUNDLE_JTOP_FALLBACK;
        }
        if (s->err)
            *s->err = jerr;
        return jerr.code;
    }
}

const bundle_jtop_member *bundle_jtop_get(const bundle_jtop *t, const char *key)
{
    size_t len = strlen(key);
    for (size_t i = 0; i < t->n; i++)
        if (t->m[i].key_len == len && memcmp(t->m[i].key, key, len) == 0)
            return &t->m[i];
    return NULL;
}

void bundle_jtop_seek(bundle_scan *s, const bundle_jtop_member *m)
{
    s->p = m->value;
    s->depth = 0;
}

void bundle_jtop_free(bundle_jtop *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->m[i].key);
    free(t->m);
    t->m = NULL;
    t->n = 0;
}
