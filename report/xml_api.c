/* xml_api.c — see xml_api.h. */
#include "report/xml_api.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "common/dl.h"

#ifndef KR_LIBXML2_SONAME
#error "KR_LIBXML2_SONAME: the build names the library it found (CMakeLists.txt)"
#endif

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static atomic_int state;             /* 0 not tried, 1 loaded, -1 failed */
static kr_err failure;
rep_xml_fns rep_xml_table;

static int load(void)
{
    void *h = kr_dl_open(KR_LIBXML2_SONAME, "to draw the HTML report's charts", &failure);
    if (!h)
        return -1;
    void *p;
#define REP_XML_LOAD(f) \
    if (!(p = kr_dl_sym(h, KR_LIBXML2_SONAME, #f, &failure))) \
        return -1; \
    memcpy(&rep_xml_table.f, &p, sizeof p);
    REP_XML_FUNCTIONS(REP_XML_LOAD)
#undef REP_XML_LOAD
    return 1;                        /* the handle stays open for the process */
}

int rep_xml_api(kr_err *err)
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
