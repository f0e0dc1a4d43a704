/* cmark_api.h — cmark-gfm's functions, loaded on first use (common/dl.h):
 * only the HTML report renders Markdown. The page builder (html.c) calls
 * rep_cmark_api(err) first and then the library through rep_cmark_table
 * (.cmark_parser_new() ...); the types are the library's own headers'. */
#ifndef KR_REPORT_CMARK_API_H
#define KR_REPORT_CMARK_API_H

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

#include "common/err.h"

/* In libcmark-gfm. */
#define REP_CMARK_FUNCTIONS(X) \
    X(cmark_find_syntax_extension) X(cmark_get_default_mem_allocator) X(cmark_iter_free) \
    X(cmark_iter_get_node) X(cmark_iter_new) X(cmark_iter_next) X(cmark_node_first_child) \
    X(cmark_node_free) X(cmark_node_get_heading_level) X(cmark_node_get_literal) X(cmark_node_get_type) \
    X(cmark_node_next) X(cmark_parser_attach_syntax_extension) X(cmark_parser_feed) X(cmark_parser_finish) \
    X(cmark_parser_free) X(cmark_parser_get_syntax_extensions) X(cmark_parser_new) X(cmark_render_html)
/* In libcmark-gfm-extensions. */
#define REP_CMARK_EXT_FUNCTIONS(X) X(cmark_gfm_core_extensions_ensure_registered)

typedef struct rep_cmark_fns {
#define REP_CMARK_FIELD(f) __typeof__(f) *f;
    REP_CMARK_FUNCTIONS(REP_CMARK_FIELD)
    REP_CMARK_EXT_FUNCTIONS(REP_CMARK_FIELD)
#undef REP_CMARK_FIELD
} rep_cmark_fns;

/* Loads both libraries once (thread-safe): 0, after which rep_cmark_table
 * is filled, or KR_INTERNAL with err filled when they cannot be loaded. */
int rep_cmark_api(kr_err *err);
extern rep_cmark_fns rep_cmark_table;

#endif
