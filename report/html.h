/* html.h — self-contained HTML pages: the Markdown of a document (the same
 * text REPORT.md / COMPARE.md hold) rendered by cmark-gfm with the table
 * extension, plus inline SVG figures and inline CSS. No script, no external
 * resource (a Content-Security-Policy forbids fetching any), so a page opens
 * from file:// on a machine without network.
 *
 * Raw HTML in the Markdown is not passed through (cmark-gfm's safe mode
 * replaces it with a comment). The page is also well-formed XML, so both
 * libxml2's HTML and XML parsers read it. */
#ifndef KR_REPORT_HTML_H
#define KR_REPORT_HTML_H

#include <stddef.h>

#include "common/buf.h"
#include "report/compare.h"
#include "report/report.h"

typedef struct rep_html_figure {
    /* Text of the level-2 heading whose section shows the figure; it goes
     * after the heading and the paragraphs right below it, before the
     * section's first table, list, code block or sub-heading. A figure whose
     * section is not in the document goes into a "Charts" section at the
     * end. */
    const char *section;
    const char *svg;             /* one <svg> element (report/svg.h) */
    const char *caption;         /* plain text, or NULL */
} rep_html_figure;

/* The page appended to out. title NULL: the text of the first level-1
 * heading. Level-2 headings get ids and a table of contents before the
 * first of them. 0, or KR_INTERNAL (cmark or allocation failure). */
int rep_html_page(const char *title, const char *markdown, const rep_html_figure *figs, size_t nfigs,
                  kr_buf *out);

/* An interactive section after the document (report/explorer.h): a
 * heading with id and title (also listed in the contents), intro (HTML),
 * a <noscript> note, the JSON data in a <script type="application/json"
 * id="kx-data"> element, and the one script, templates/<script>, which
 * the page's Content-Security-Policy lets run by its hash (no other
 * script can). Without JavaScript the page reads as without the section.
 * The CSS is templates/explorer.css. */
typedef struct rep_html_app {
    const char *id, *title;          /* plain text without markup characters */
    const char *intro;               /* HTML (well-formed XML) */
    const char *script;              /* template name */
    const char *data;                /* JSON without '<', '>' or '&' */
} rep_html_app;

/* rep_html_page with an app section; app may be NULL. */
int rep_html_app_page(const char *title, const char *markdown, const rep_html_figure *figs, size_t nfigs,
                      const rep_html_app *app, kr_buf *out);

/* report.html of `kreport analyze`: REPORT.md's Markdown (rep_analysis_markdown)
 * with the charts of report/charts.h in the sections they illustrate. */
int rep_analysis_html(const an_analysis *const *a, const char *const *labels, size_t n, const rep_meta *meta,
                      kr_buf *out);

/* compare.html of `kreport compare`: COMPARE.md's Markdown
 * (rep_compare_markdown) with before/after bars (report/compare_html.c). */
int rep_compare_html(const rep_cmp_input *in, kr_buf *out);

/* Escapes & < > " for HTML text and attribute values (appended to out). */
void rep_html_escape(kr_buf *out, const char *text);

#endif
