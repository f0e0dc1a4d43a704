/* fuzz.h — helpers shared by the libFuzzer targets in tests/fuzz/.
 *
 * Each fuzz_<name>.c defines LLVMFuzzerTestOneInput for one parse-from-memory
 * entry point. The input is copied into a buffer of exactly its size (no NUL
 * after it), so a parser that reads past `len` is caught by ASan. After a
 * rejected input the error record must be complete: the code returned, a file
 * name and a message (docs/architecture.md, errors). Build with
 * -DKREPORT_FUZZ=ON and clang; run and seed with tests/fuzz/seeds.sh. */
#ifndef KR_TESTS_FUZZ_H
#define KR_TESTS_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/model.h"
#include "common/err.h"

/* An exact-size heap copy of the input (malloc(0) avoided). */
static inline char *fz_copy(const uint8_t *data, size_t size)
{
    char *p = malloc(size ? size : 1);
    if (!p)
        abort();
    if (size)
        memcpy(p, data, size);
    return p;
}

static inline kr_capture *fz_capture_new(void)
{
    kr_capture *c = calloc(1, sizeof *c);
    if (!c)
        abort();
    kr_arena_init(&c->arena);
    return c;
}

static inline void fz_capture_free(kr_capture *c)
{
    kr_arena_free(&c->arena);
    free(c);
}

/* A parser's result: 0, or KR_INPUT / KR_INTERNAL with a filled error. */
static inline void fz_check(int rc, const kr_err *err)
{
    if (rc == 0)
        return;
    if ((rc != KR_INPUT && rc != KR_INTERNAL) || err->code != rc || !err->file[0] || !err->msg[0]) {
        fprintf(stderr, "fuzz: incomplete error: rc %d code %d file '%s' where '%s' msg '%s'\n",
                rc, err->code, err->file, err->where, err->msg);
        abort();
    }
}

#endif
