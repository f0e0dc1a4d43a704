/* dl.h — shared libraries opened on first use.
 *
 * libarchive and libxml2 (with ICU behind it) take about as long to map and
 * relocate as a whole small analysis, and only some commands need them
 * (archives as input, `pack`, the HTML report's charts). Their functions are
 * reached through tables filled by dlopen/dlsym the first time a command
 * needs the library (bundle/archive_api.h, report/xml_api.h), so every other
 * run starts without them. The soname is the one the build found with
 * pkg-config (CMakeLists.txt). */
#ifndef KR_COMMON_DL_H
#define KR_COMMON_DL_H

#include <pthread.h>
#include <stdatomic.h>

#include "common/err.h"

/* dlopen(soname); NULL with err filled (KR_INTERNAL, naming the library and
 * what it is needed for) when it cannot be opened. */
void *kr_dl_open(const char *soname, const char *needed_for, kr_err *err);
/* The address of `name` in h, or NULL with err filled. */
void *kr_dl_sym(void *h, const char *soname, const char *name, kr_err *err);

/* Runs a library's load function once per process, whatever the threads. */
typedef struct kr_dl_once {
    pthread_mutex_t mu;
    atomic_int state;            /* 0 not tried, 1 loaded, -1 failed */
    kr_err failure;              /* what load said when it failed */
} kr_dl_once;
#define KR_DL_ONCE_INIT {PTHREAD_MUTEX_INITIALIZER, 0, {0, "", "", ""}}
/* 0 when load succeeded (now or before); else its KR_* code, with err (when
 * not NULL) filled with its error, every time. */
int kr_dl_once_run(kr_dl_once *o, int (*load)(kr_err *err), kr_err *err);

#endif
