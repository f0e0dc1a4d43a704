/* test_dl.c — libraries opened on first use (common/dl.h) and the tables
 * of libarchive, libxml2 and cmark-gfm built on it. */
#include <string.h>

#include "bundle/archive_api.h"
#include "common/dl.h"
#include "report/cmark_api.h"
#include "report/xml_api.h"
#include "tests/unit/t.h"

static int calls;

static int load_ok(kr_err *err)
{
    (void)err;
    calls++;
    return 0;
}

static int load_bad(kr_err *err)
{
    calls++;
    return kr_err_set(err, KR_INTERNAL, "libmissing.so.7", NULL, "cannot load the library (needed to test)");
}

int main(void)
{
    kr_err err;

    /* a library that is not there: the error names it and what it was for */
    kr_err_clear(&err);
    T_CHECK(kr_dl_open("libkreport-no-such-library.so.0", "to test", &err) == NULL);
    T_EQ_I64(err.code, KR_INTERNAL);
    T_EQ_STR(err.file, "libkreport-no-such-library.so.0");
    T_CHECK(strstr(err.msg, "needed to test") != NULL);

    /* a symbol that is not there, in a library that is (libc) */
    kr_err_clear(&err);
    void *libc = kr_dl_open("libc.so.6", "to test", &err);
    T_CHECK(libc != NULL);
    if (libc) {
        T_CHECK(kr_dl_sym(libc, "libc.so.6", "strlen", &err) != NULL);
        T_CHECK(kr_dl_sym(libc, "libc.so.6", "kreport_no_such_symbol", &err) == NULL);
        T_EQ_STR(err.msg, "the library has no kreport_no_such_symbol");
    }

    /* once: the load function runs a single time, its outcome is kept */
    kr_dl_once ok = KR_DL_ONCE_INIT, bad = KR_DL_ONCE_INIT;
    calls = 0;
    T_EQ_I64(kr_dl_once_run(&ok, load_ok, &err), 0);
    T_EQ_I64(kr_dl_once_run(&ok, load_ok, &err), 0);
    T_EQ_I64(calls, 1);
    calls = 0;
    for (int i = 0; i < 3; i++) {
        kr_err_clear(&err);
        T_EQ_I64(kr_dl_once_run(&bad, load_bad, &err), KR_INTERNAL);
        T_EQ_STR(err.file, "libmissing.so.7");     /* the first failure, every time */
    }
    T_EQ_I64(kr_dl_once_run(&bad, load_bad, NULL), KR_INTERNAL);
    T_EQ_I64(calls, 1);

    /* the real tables: loaded, and they call into the libraries */
    T_EQ_I64(bundle_archive_api(&err), 0);
    struct archive *a = bundle_archive_table.archive_read_new();
    T_CHECK(a != NULL);
    if (a)
        T_EQ_I64(bundle_archive_table.archive_read_free(a), ARCHIVE_OK);
    T_EQ_I64(rep_xml_api(&err), 0);
    xmlDocPtr d = rep_xml_table.xmlNewDoc((const xmlChar *)"1.0");
    T_CHECK(d != NULL);
    if (d)
        rep_xml_table.xmlFreeDoc(d);
    T_EQ_I64(rep_cmark_api(&err), 0);
    rep_cmark_table.cmark_gfm_core_extensions_ensure_registered();
    T_CHECK(rep_cmark_table.cmark_find_syntax_extension("table") != NULL);
    cmark_parser *p = rep_cmark_table.cmark_parser_new(CMARK_OPT_DEFAULT);
    T_CHECK(p != NULL);
    if (p) {
        rep_cmark_table.cmark_parser_feed(p, "# x", 3);
        cmark_node *doc = rep_cmark_table.cmark_parser_finish(p);
        T_CHECK(doc != NULL);
        if (doc) {
            char *html = rep_cmark_table.cmark_render_html(doc, CMARK_OPT_DEFAULT, NULL);
            T_EQ_STR(html, "<h1>x</h1>\n");
            rep_cmark_table.cmark_get_default_mem_allocator()->free(html);
            rep_cmark_table.cmark_node_free(doc);
        }
        rep_cmark_table.cmark_parser_free(p);
    }
    return t_done("test_dl");
}
