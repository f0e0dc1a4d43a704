/* json_dump.c — see json_dump.h. Mirrors jansson 2.14's dump.c (do_dump,
 * dump_indent, dump_string) and strconv.c (jsonp_dtostr, the snprintf
 * variant) for the flags analysis.json is written with. */
#include "report/json_dump.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { INDENT = 2, PRECISION = 10, STAGE = 4096 };

/* Output is staged in a fixed block and appended to the buffer in pieces. */
typedef struct writer {
    kr_buf *out;
    size_t n;
    char point;              /* the locale's decimal point, as jansson sees it */
    char stage[STAGE];
} writer;

static void flush(writer *w)
{
    kr_buf_append(w->out, w->stage, w->n);
    w->n = 0;
}

static void put(writer *w, const char *s, size_t n)
{
    if (n > STAGE - w->n) {
        flush(w);
        if (n > STAGE) {
            kr_buf_append(w->out, s, n);
            return;
        }
    }
    memcpy(w->stage + w->n, s, n);
    w->n += n;
}

static void putc_(writer *w, char c)
{
    if (w->n == STAGE)
        flush(w);
    w->stage[w->n++] = c;
}

/* dump_indent with an indentation: a newline and depth * INDENT spaces. */
static void indent(writer *w, int depth)
{
    static const char spaces[] = "                                ";
    putc_(w, '\n');
    size_t n = (size_t)depth * INDENT;
    while (n) {
        size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
        put(w, spaces, k);
        n -= k;
    }
}

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

/* dump_string without JSON_ENSURE_ASCII and JSON_ESCAPE_SLASH. */
static int string(writer *w, const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str, *end = s + len, *run = s;
    putc_(w, '"');
    while (s < end) {
        unsigned c = *s;
        if (c >= 0x80) {
            size_t n = utf8_len(s, (size_t)(end - s));
            if (!n)
                return -1;
            s += n;
            continue;
        }
        if (c != '\\' && c != '"' && c >= 0x20) {
            s++;
            continue;
        }
        put(w, (const char *)run, (size_t)(s - run));
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
    return 0;
}

static void integer(writer *w, json_int_t v)
{
    char b[24], *p = b + sizeof b;
    /* magnitude as unsigned, so INT64_MIN is exact */
    unsigned long long m = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do {
        *--p = (char)('0' + m % 10);
        m /= 10;
    } while (m);
    if (v < 0)
        *--p = '-';
    put(w, p, (size_t)(b + sizeof b - p));
}

/* jsonp_dtostr (snprintf variant) with precision 10. */
static int real(writer *w, double value)
{
    char buffer[100];
    int ret = snprintf(buffer, sizeof buffer, "%.*g", PRECISION, value);
    if (ret < 0 || (size_t)ret >= sizeof buffer)
        return -1;
    size_t length = (size_t)ret;
    if (w->point != '.') {
        char *pos = strchr(buffer, w->point);
        if (pos)
            *pos = '.';
    }
    if (!strchr(buffer, '.') && !strchr(buffer, 'e')) {
        if (length + 3 >= sizeof buffer)
            return -1;
        buffer[length] = '.';
        buffer[length + 1] = '0';
        buffer[length + 2] = '\0';
        length += 2;
    }
    /* no '+' and no leading zeros in the exponent */
    char *start = strchr(buffer, 'e');
    if (start) {
        start++;
        char *end = start + 1;
        if (*start == '-')
            start++;
        while (*end == '0')
            end++;
        if (end != start) {
            memmove(start, end, length - (size_t)(end - buffer));
            length -= (size_t)(end - start);
        }
    }
    put(w, buffer, length);
    return 0;
}

static int value(writer *w, const json_t *v, int depth)
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
        indent(w, depth + 1);
        for (size_t i = 0; i < n; i++) {
            if (value(w, json_array_get(v, i), depth + 1))
                return -1;
            if (i < n - 1) {
                putc_(w, ',');
                indent(w, depth + 1);
            } else {
                indent(w, depth);
            }
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
        indent(w, depth + 1);
        while (iter) {
            void *next = json_object_iter_next((json_t *)v, iter);
            const char *key = json_object_iter_key(iter);
            if (string(w, key, json_object_iter_key_len(iter)))
                return -1;
            put(w, ": ", 2);
            if (value(w, json_object_iter_value(iter), depth + 1))
                return -1;
            if (next) {
                putc_(w, ',');
                indent(w, depth + 1);
            } else {
                indent(w, depth);
            }
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
    writer *w = malloc(sizeof *w);
    if (!w) {
        out->oom = 1;
        return -1;
    }
    char probe[8];
    snprintf(probe, sizeof probe, "%#.0f", 1.0);       /* "1." in the current locale */
    w->out = out;
    w->n = 0;
    w->point = probe[1];
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
