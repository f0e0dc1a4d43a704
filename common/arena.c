/* arena.c — see arena.h. */
#include "common/arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kr_arena_block {
    kr_arena_block *next;
    size_t cap, used;
    _Alignas(16) unsigned char data[];
};

enum { KR_ARENA_BLOCK = 64 * 1024 };

void kr_arena_init(kr_arena *a) { a->head = NULL; a->bytes = 0; }

void kr_arena_free(kr_arena *a)
{
    kr_arena_block *b = a->head;
    while (b) {
        kr_arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
    a->bytes = 0;
}

void *kr_arena_alloc(kr_arena *a, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    if (size == 0)
        size = 16;
    kr_arena_block *b = a->head;
    if (!b || b->cap - b->used < size) {
        size_t cap = size > KR_ARENA_BLOCK ? size : KR_ARENA_BLOCK;
        b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->cap = cap;
        b->used = 0;
        if (a->head && size > KR_ARENA_BLOCK) {
            /* Keep the current block open for small allocations. */
            b->next = a->head->next;
            a->head->next = b;
        } else {
            b->next = a->head;
            a->head = b;
        }
    }
    void *p = b->data + b->used;
    b->used += size;
    a->bytes += size;
    memset(p, 0, size);
    return p;
}

void *kr_arena_array(kr_arena *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    return kr_arena_alloc(a, n * size);
}

char *kr_arena_strndup(kr_arena *a, const char *s, size_t n)
{
    char *p = kr_arena_alloc(a, n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

char *kr_arena_strdup(kr_arena *a, const char *s)
{
    return kr_arena_strndup(a, s, strlen(s));
}

char *kr_arena_printf(kr_arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *p = kr_arena_alloc(a, (size_t)n + 1);
    if (!p)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}
