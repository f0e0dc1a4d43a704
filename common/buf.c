/* buf.c — see buf.h. */
#include "common/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kr_buf_init(kr_buf *b) { b->data = NULL; b->len = b->cap = 0; b->oom = 0; }
void kr_buf_free(kr_buf *b) { free(b->data); kr_buf_init(b); }
void kr_buf_reset(kr_buf *b) { b->len = 0; if (b->data) b->data[0] = '\0'; }

static int grow(kr_buf *b, size_t extra)
{
    if (b->oom)
        return -1;
    if (b->len + extra + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) {
        if (cap > ((size_t)-1) / 2) { b->oom = 1; return -1; }
        cap *= 2;
    }
    char *p = realloc(b->data, cap);
    if (!p) { b->oom = 1; return -1; }
    b->data = p;
    b->cap = cap;
    return 0;
}

void kr_buf_append(kr_buf *b, const void *data, size_t n)
{
    if (grow(b, n))
        return;
    if (n)
        memcpy(b->data + b->len, data, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void kr_buf_puts(kr_buf *b, const char *s) { kr_buf_append(b, s, strlen(s)); }
void kr_buf_putc(kr_buf *b, char c) { kr_buf_append(b, &c, 1); }

void kr_buf_vprintf(kr_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0 || grow(b, (size_t)n))
        return;
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void kr_buf_printf(kr_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kr_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

const char *kr_buf_cstr(kr_buf *b) { return b->data ? b->data : ""; }

char *kr_strdupf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}
