/* cmark_api.c — see cmark_api.h. */
#include "report/cmark_api.h"

#include <string.h>

#include "common/dl.h"

#if !defined(KR_CMARK_SONAME) || !defined(KR_CMARK_EXT_SONAME)
#error "KR_CMARK_SONAME, KR_CMARK_EXT_SONAME: the build names the libraries it found (CMakeLists.txt)"
#endif

rep_cmark_fns rep_cmark_table;
static kr_dl_once once = KR_DL_ONCE_INIT;

static int load(kr_err *err)
{
    void *h = kr_dl_open(KR_CMARK_SONAME, "to render the HTML report", err);
    void *x = h ? kr_dl_open(KR_CMARK_EXT_SONAME, "to render the HTML report's tables", err) : NULL;
    if (!x)
        return KR_INTERNAL;
    void *p;
#define REP_CMARK_LOAD(lib, soname, f) \
    if (!(p = kr_dl_sym(lib, soname, #f, err))) \
        return KR_INTERNAL; \
    memcpy(&rep_cmark_table.f, &p, sizeof p);
#define REP_CMARK_LOAD_CORE(f) REP_CMARK_LOAD(h, KR_CMARK_SONAME, f)
#define REP_CMARK_LOAD_EXT(f) REP_CMARK_LOAD(x, KR_CMARK_EXT_SONAME, f)
    REP_CMARK_FUNCTIONS(REP_CMARK_LOAD_CORE)
    REP_CMARK_EXT_FUNCTIONS(REP_CMARK_LOAD_EXT)
#undef REP_CMARK_LOAD_EXT
#undef REP_CMARK_LOAD_CORE
#undef REP_CMARK_LOAD
    return 0;                        /* the handles stay open for the process */
}

int rep_cmark_api(kr_err *err)
{
    return kr_dl_once_run(&once, load, err);
}
