/* xml_api.c — see xml_api.h. */
#include "report/xml_api.h"

#include <string.h>

#include "common/dl.h"

#ifndef KR_LIBXML2_SONAME
#error "KR_LIBXML2_SONAME: the build names the library it found (CMakeLists.txt)"
#endif

rep_xml_fns rep_xml_table;
static kr_dl_once once = KR_DL_ONCE_INIT;

static int load(kr_err *err)
{
    void *h = kr_dl_open(KR_LIBXML2_SONAME, "to draw the HTML report's charts", err);
    if (!h)
        return KR_INTERNAL;
    void *p;
#define REP_XML_LOAD(f) \
    if (!(p = kr_dl_sym(h, KR_LIBXML2_SONAME, #f, err))) \
        return KR_INTERNAL; \
    memcpy(&rep_xml_table.f, &p, sizeof p);
    REP_XML_FUNCTIONS(REP_XML_LOAD)
#undef REP_XML_LOAD
    /* libxml2's own set-up, once, before any thread uses it: the program
     * renders its documents on several threads, and libxml2 asks for this
     * call first in a program with threads. */
    rep_xml_table.xmlInitParser();
    return 0;                        /* the handle stays open for the process */
}

int rep_xml_api(kr_err *err)
{
    return kr_dl_once_run(&once, load, err);
}
