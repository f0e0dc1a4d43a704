/* archive_api.c — see archive_api.h. */
#include "bundle/archive_api.h"

#include <string.h>

#include "common/dl.h"

#ifndef KR_LIBARCHIVE_SONAME
#error "KR_LIBARCHIVE_SONAME: the build names the library it found (CMakeLists.txt)"
#endif

bundle_archive_fns bundle_archive_table;
static kr_dl_once once = KR_DL_ONCE_INIT;

static int load(kr_err *err)
{
    void *h = kr_dl_open(KR_LIBARCHIVE_SONAME, "to read and write archives", err);
    if (!h)
        return KR_INTERNAL;
    void *p;
#define BUNDLE_ARCHIVE_LOAD(f) \
    if (!(p = kr_dl_sym(h, KR_LIBARCHIVE_SONAME, #f, err))) \
        return KR_INTERNAL; \
    memcpy(&bundle_archive_table.f, &p, sizeof p);
    BUNDLE_ARCHIVE_FUNCTIONS(BUNDLE_ARCHIVE_LOAD)
#undef BUNDLE_ARCHIVE_LOAD
    return 0;                        /* the handle stays open for the process */
}

int bundle_archive_api(kr_err *err)
{
    return kr_dl_once_run(&once, load, err);
}
