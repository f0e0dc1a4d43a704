/* buf.h — growable byte buffer (malloc-owned) for building text.
 *
 * kr_buf_free releases it. Appends never fail silently: on allocation failure
 * the buffer sets `oom` and further appends are ignored; check it once at the
 * end. Amortised O(1) append. */
#ifndef KR_COMMON_BUF_H
#define KR_COMMON_BUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct kr_buf {
    char *data;         /* always NUL-terminated when len > 0 or after any append */
    size_t len, cap;
    int oom;
} kr_buf;

void kr_buf_init(kr_buf *b);
void kr_buf_free(kr_buf *b);
void kr_buf_reset(kr_buf *b);                 /* len = 0, keeps memory */
void kr_buf_append(kr_buf *b, const void *data, size_t n);
void kr_buf_puts(kr_buf *b, const char *s);
void kr_buf_putc(kr_buf *b, char c);
void kr_buf_printf(kr_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A new malloc'd string formatted like printf (free it); NULL when out of memory. */
char *kr_strdupf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kr_buf_vprintf(kr_buf *b, const char *fmt, va_list ap);
const char *kr_buf_cstr(kr_buf *b);           /* "" when empty */

#endif
