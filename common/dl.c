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
