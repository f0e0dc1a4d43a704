/* archive_api.c — see archive_api.h. */
#include "bundle/archive_api.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "common/dl.h"

#ifndef KR_LIBARCHIVE_SONAME
#error "KR_LIBARCHIVE_SONAME: the build names the library it found (CMakeLists.txt)"
#endif

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static atomic_int state;             /* 0 not tried, 1 loaded, -1 failed */
bundle_archive_fns bundle_archive_table;
static kr_err failure;

static int load(void)
{
    void *h = kr_dl_open(KR_LIBARCHIVE_SONAME, "to read and write archives", &failure);
    if (!h)
        return -1;
    void *p;
#define BUNDLE_ARCHIVE_LOAD(f) \
    if (!(p = kr_dl_sym(h, KR_LIBARCHIVE_SONAME, #f, &failure))) \
        return -1; \
    memcpy(&bundle_archive_table.f, &p, sizeof p);
    BUNDLE_ARCHIVE_FUNCTIONS(BUNDLE_ARCHIVE_LOAD)
#undef BUNDLE_ARCHIVE_LOAD
    return 1;                        /* the handle stays open for the process */
}

int bundle_archive_api(kr_err *err)
{
    int s = atomic_load_explicit(&state, memory_order_acquire);
    if (!s) {
        pthread_mutex_lock(&mu);
        if (!(s = atomic_load_explicit(&state, memory_order_relaxed))) {
            s = load();
            atomic_store_explicit(&state, s, memory_order_release);
        }
        pthread_mutex_unlock(&mu);
    }
    if (s < 0) {
        if (err)
            *err = failure;
        return KR_INTERNAL;
    }
    return 0;
}
