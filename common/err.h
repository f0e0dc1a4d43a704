/* err.h — exit codes and the error record every fallible function fills.
 *
 * A function that can fail returns 0 or one of the KR_EXIT_* codes and fills a
 * caller-owned kr_err with the file, the position (line:col or a JSON path) and
 * a message saying what was expected. Libraries never print; cli/ does. */
#ifndef KR_COMMON_ERR_H
#define KR_COMMON_ERR_H

#include <stddef.h>

enum kr_exit {
    KR_OK = 0,          /* success */
    KR_FINDING = 1,     /* validate found errors; compare verdict under --exit-code */
    KR_USAGE = 2,       /* bad command line */
    KR_INPUT = 3,       /* input missing or malformed */
    KR_OUTPUT = 4,      /* output not writable */
    KR_INTERNAL = 5     /* a bug or resource exhaustion */
};

typedef struct kr_err {
    int code;           /* enum kr_exit, 0 when no error */
    char file[512];     /* file the error is about ("" when none) */
    char where[256];    /* "line:col", "$.wave.instructions[3][1]", "row 7" ... */
    char msg[768];      /* what was wrong / expected */
} kr_err;

void kr_err_clear(kr_err *err);

/* Fills err and returns code. file and where may be NULL. */
int kr_err_set(kr_err *err, int code, const char *file, const char *where,
               const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* "file:where: msg" (parts omitted when empty) into buf. */
void kr_err_format(const kr_err *err, char *buf, size_t cap);

#endif
