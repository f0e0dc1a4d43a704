/* arena.h — bump allocator for everything that lives as long as a capture.
 *
 * Blocks of at least 64 KiB are chained; kr_arena_free releases all at once.
 * Cost: one malloc per block; allocation is a pointer bump. Not thread-safe:
 * give each thread its own arena or allocate under a lock. */
#ifndef KR_COMMON_ARENA_H
#define KR_COMMON_ARENA_H

#include <stddef.h>

typedef struct kr_arena_block kr_arena_block;
typedef struct kr_arena {
    kr_arena_block *head;
    size_t bytes;           /* total bytes handed out, for memory reports */
} kr_arena;

void kr_arena_init(kr_arena *a);
void kr_arena_free(kr_arena *a);
/* 16-byte aligned, zeroed. Returns NULL only when malloc fails. */
void *kr_arena_alloc(kr_arena *a, size_t size);
/* Overflow-checked n * size. */
void *kr_arena_array(kr_arena *a, size_t n, size_t size);
char *kr_arena_strdup(kr_arena *a, const char *s);
char *kr_arena_strndup(kr_arena *a, const char *s, size_t n);
char *kr_arena_printf(kr_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
