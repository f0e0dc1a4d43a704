/* dl.c — see dl.h. */
#include "common/dl.h"

#include <dlfcn.h>

void *kr_dl_open(const char *soname, const char *needed_for, kr_err *err)
{
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        kr_err_set(err, KR_INTERNAL, soname, NULL, "cannot load the library (needed %s): %s", needed_for,
                   why ? why : "unknown reason");
    }
    return h;
}

void *kr_dl_sym(void *h, const char *soname, const char *name, kr_err *err)
{
    dlerror();
    void *p = dlsym(h, name);
    if (!p)
        kr_err_set(err, KR_INTERNAL, soname, NULL, "the library has no %s", name);
    return p;
}

int kr_dl_once_run(kr_dl_once *o, int (*load)(kr_err *err), kr_err *err)
{
    int s = atomic_load_explicit(&o->state, memory_order_acquire);
    if (!s) {
        pthread_mutex_lock(&o->mu);
        if (!(s = atomic_load_explicit(&o->state, memory_order_relaxed))) {
            kr_err_clear(&o->failure);
            s = load(&o->failure) == 0 ? 1 : -1;
            atomic_store_explicit(&o->state, s, memory_order_release);
        }
        pthread_mutex_unlock(&o->mu);
    }
    if (s > 0)
        return 0;
    if (err)
        *err = o->failure;
    return o->failure.code ? o->failure.code : KR_INTERNAL;
}
