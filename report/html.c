/* html.c — see html.h. The Markdown is parsed once; its top-level blocks are
 * rendered one by one with cmark-gfm so figures and heading ids can be put
 * between them without touching the text cmark produces. */
#include "report/html.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "report/charts.h"
#include "report/cmark_api.h"

#define CM rep_cmark_table

/* No '<' or '&' in here: the page stays well-formed XML. */
static const char css[] =
    ":root{color-scheme:light}\n"
    "body{margin:0;background:#fff;color:#1b1b1b;font:15px/1.5 system-ui,-apple-system,\"Segoe UI\",Roboto,"
    "\"DejaVu Sans\",sans-serif}\n"
    "main{max-width:1120px;margin:0 auto;padding:12px 28px 48px}\n"
    "h1{font-size:1.75em;line-height:1.25;border-bottom:3px solid #0072B2;padding-bottom:.25em}\n"
    "h2{font-size:1.4em;margin-top:2.2em;border-bottom:1px solid #c8c8c8;padding-bottom:.15em}\n"
    "h3{font-size:1.15em;margin-top:1.6em}\n"
    "h4{font-size:1em;margin-top:1.3em}\n"
    "table{border-collapse:collapse;margin:.6em 0 1.2em;font-size:13px;display:block;overflow-x:auto;"
    "max-width:100%}\n"
    "th,td{border:1px solid #d0d7de;padding:3px 9px;vertical-align:top}\n"
    "th{background:#eef2f6}\n"
    "tbody tr:nth-child(even) td{background:#f8f9fa}\n"
    "code{font:12.5px/1.45 ui-monospace,\"DejaVu Sans Mono\",Menlo,Consolas,monospace;background:#f0f2f4;"
    "padding:0 .25em;border-radius:3px}\n"
    "pre{background:#f6f8fa;border:1px solid #e1e4e8;padding:8px 12px;overflow-x:auto}\n"
    "pre code{background:none;padding:0}\n"
    "figure.chart{margin:1.2em 0 1.6em}\n"
    "figure.chart svg{display:block;width:100%;max-width:100%;height:auto;border:1px solid #dcdcdc;border-radius:4px}\n"
    "figcaption{font-size:13px;color:#444;margin-top:.35em}\n"
    "nav.toc{background:#f6f8fa;border:1px solid #e1e4e8;border-radius:4px;padding:6px 16px;margin:1em 0}\n"
    "nav.toc h2{font-size:1em;margin:.3em 0;border:0}\n"
    "nav.toc ol{margin:.2em 0 .4em;padding-left:1.4em;columns:2}\n"
    "footer{margin-top:3em;font-size:12px;color:#555;border-top:1px solid #ddd;padding-top:.6em}\n"
    "@media print{figure.chart{break-inside:avoid}}\n";

void rep_html_escape(kr_buf *out, const char *text)
{
    for (const char *p = text ? text : ""; *p; p++) {
        switch (*p) {
        case '&': kr_buf_puts(out, "&amp;"); break;
        case '<': kr_buf_puts(out, "&lt;"); break;
        case '>': kr_buf_puts(out, "&gt;"); break;
        case '"': kr_buf_puts(out, "&quot;"); break;
        default: kr_buf_putc(out, *p);
        }
    }
}

/* Plain text of a node's inline content. */
static void plain_text(cmark_node *node, kr_buf *out)
{
    cmark_iter *it = CM.cmark_iter_new(node);
    cmark_event_type ev;
    while ((ev = CM.cmark_iter_next(it)) != CMARK_EVENT_DONE) {
        cmark_node *n = CM.cmark_iter_get_node(it);
        if (ev != CMARK_EVENT_ENTER)
            continue;
        cmark_node_type t = CM.cmark_node_get_type(n);
        if (t == CMARK_NODE_TEXT || t == CMARK_NODE_CODE)
            kr_buf_puts(out, CM.cmark_node_get_literal(n));
        else if (t == CMARK_NODE_SOFTBREAK || t == CMARK_NODE_LINEBREAK)
            kr_buf_putc(out, ' ');
    }
    CM.cmark_iter_free(it);
}

/* "wave-states" from "Wave states"; ASCII letters and digits kept. */
static void slug(const char *text, kr_buf *out)
{
    size_t start = out->len;
    int dash = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (isalnum(*p) && *p < 0x80) {
            if (dash && out->len > start)
                kr_buf_putc(out, '-');
            kr_buf_putc(out, (char)tolower(*p));
            dash = 0;
        } else {
            dash = 1;
        }
    }
    if (out->len == start)
        kr_buf_puts(out, "section");
}

typedef struct h2_info {
    char *text;
    char *id;
} h2_info;

static void emit_figure(kr_buf *out, const rep_html_figure *f)
{
    kr_buf_puts(out, "<figure class=\"chart\">\n");
    kr_buf_puts(out, f->svg ? f->svg : "");
    kr_buf_putc(out, '\n');
    if (f->caption && *f->caption) {
        kr_buf_puts(out, "<figcaption>");
        rep_html_escape(out, f->caption);
        kr_buf_puts(out, "</figcaption>\n");
    }
    kr_buf_puts(out, "</figure>\n");
}

static void emit_node(kr_buf *out, cmark_node *n, cmark_llist *ext, const char *h2_id)
{
    char *html = CM.cmark_render_html(n, CMARK_OPT_DEFAULT, ext);
    if (!html) {
        out->oom = 1;
        return;
    }
    if (h2_id && strncmp(html, "<h2>", 4) == 0) {
        kr_buf_puts(out, "<h2 id=\"");
        rep_html_escape(out, h2_id);
        kr_buf_puts(out, "\">");
        kr_buf_puts(out, html + 4);
    } else {
        kr_buf_puts(out, html);
    }
    CM.cmark_get_default_mem_allocator()->free(html);
}

int rep_html_page(const char *title, const char *markdown, const rep_html_figure *figs, size_t nfigs,
                  kr_buf *out)
{
    if (rep_cmark_api(NULL))
        return KR_INTERNAL;
    CM.cmark_gfm_core_extensions_ensure_registered();
    cmark_syntax_extension *table = CM.cmark_find_syntax_extension("table");
    cmark_parser *parser = CM.cmark_parser_new(CMARK_OPT_DEFAULT);
    if (!parser || !table) {
        if (parser)
            CM.cmark_parser_free(parser);
        return KR_INTERNAL;
    }
    CM.cmark_parser_attach_syntax_extension(parser, table);
    CM.cmark_parser_feed(parser, markdown ? markdown : "", markdown ? strlen(markdown) : 0);
    cmark_node *doc = CM.cmark_parser_finish(parser);
    if (!doc) {
        CM.cmark_parser_free(parser);
        return KR_INTERNAL;
    }
    cmark_llist *ext = CM.cmark_parser_get_syntax_extensions(parser);

    /* level-2 headings, their ids, the title */
    size_t nh2 = 0;
    for (cmark_node *n = CM.cmark_node_first_child(doc); n; n = CM.cmark_node_next(n))
        nh2 += CM.cmark_node_get_type(n) == CMARK_NODE_HEADING && CM.cmark_node_get_heading_level(n) == 2;
    h2_info *h2 = calloc(nh2 ? nh2 : 1, sizeof *h2);
    unsigned char *placed = calloc(nfigs ? nfigs : 1, 1);
    kr_buf tb, tmp;
    kr_buf_init(&tb);
    kr_buf_init(&tmp);
    int rc = KR_INTERNAL;
    if (!h2 || !placed)
        goto done;
    size_t k = 0;
    for (cmark_node *n = CM.cmark_node_first_child(doc); n; n = CM.cmark_node_next(n)) {
        cmark_node_type t = CM.cmark_node_get_type(n);
        if (t != CMARK_NODE_HEADING)
            continue;
        int level = CM.cmark_node_get_heading_level(n);
        if (level == 1 && !title && tb.len == 0)
            plain_text(n, &tb);
        if (level != 2)
            continue;
        kr_buf_reset(&tmp);
        plain_text(n, &tmp);
        h2[k].text = strdup(kr_buf_cstr(&tmp));
        kr_buf_reset(&tmp);
        slug(h2[k].text ? h2[k].text : "", &tmp);
        /* unique ids: "-2", "-3" ... after a repeated slug */
        size_t base = tmp.len;
        for (int dup = 2;; dup++) {
            int clash = 0;
            for (size_t j = 0; j < k; j++)
                clash |= h2[j].id && strcmp(h2[j].id, kr_buf_cstr(&tmp)) == 0;
            clash |= strcmp(kr_buf_cstr(&tmp), "contents") == 0 || strcmp(kr_buf_cstr(&tmp), "charts") == 0;
            if (!clash)
                break;
            tmp.len = base;
            kr_buf_printf(&tmp, "-%d", dup);
        }
        h2[k].id = strdup(kr_buf_cstr(&tmp));
        if (!h2[k].text || !h2[k].id)
            goto done;
        k++;
    }
    if (!title)
        title = tb.len ? kr_buf_cstr(&tb) : "kreport";
    /* figures without a section in the document */
    size_t nloose = 0;
    for (size_t f = 0; f < nfigs; f++) {
        int found = 0;
        for (size_t j = 0; j < nh2 && figs[f].section; j++)
            found |= strcmp(h2[j].text, figs[f].section) == 0;
        if (!found)
            placed[f] = 2;   /* goes to the "Charts" section */
        nloose += !found;
    }

    kr_buf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
                     "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                     "style-src 'unsafe-inline'; img-src data:\"/>\n"
                     "<meta name=\"generator\" content=\"kreport " KREPORT_VERSION "\"/>\n<title>");
    rep_html_escape(out, title);
    kr_buf_puts(out, "</title>\n<style>\n");
    kr_buf_puts(out, css);
    kr_buf_puts(out, "</style>\n</head>\n<body>\n<main>\n");

    size_t cur = SIZE_MAX;   /* index into h2 of the current section */
    int pending = 0;         /* the current section's figures are not out yet */
    size_t hi = 0;
    for (cmark_node *n = CM.cmark_node_first_child(doc); n; n = CM.cmark_node_next(n)) {
        cmark_node_type t = CM.cmark_node_get_type(n);
        int is_h2 = t == CMARK_NODE_HEADING && CM.cmark_node_get_heading_level(n) == 2;
        if (pending && (is_h2 || t != CMARK_NODE_PARAGRAPH)) {
            for (size_t f = 0; f < nfigs; f++)
                if (!placed[f] && strcmp(figs[f].section, h2[cur].text) == 0) {
                    emit_figure(out, &figs[f]);
                    placed[f] = 1;
                }
            pending = 0;
        }
        if (is_h2) {
            if (hi == 0) {
                kr_buf_puts(out, "<nav class=\"toc\" id=\"contents\" aria-label=\"Contents\">\n<h2>Contents</h2>\n<ol>\n");
                for (size_t j = 0; j < nh2; j++) {
                    kr_buf_puts(out, "<li><a href=\"#");
                    rep_html_escape(out, h2[j].id);
                    kr_buf_puts(out, "\">");
                    rep_html_escape(out, h2[j].text);
                    kr_buf_puts(out, "</a></li>\n");
                }
                if (nloose)
                    kr_buf_puts(out, "<li><a href=\"#charts\">Charts</a></li>\n");
                kr_buf_puts(out, "</ol>\n</nav>\n");
            }
            cur = hi;
            emit_node(out, n, ext, h2[hi].id);
            hi++;
            pending = 1;
            continue;
        }
        emit_node(out, n, ext, NULL);
    }
    if (pending && cur != SIZE_MAX)
        for (size_t f = 0; f < nfigs; f++)
            if (!placed[f] && strcmp(figs[f].section, h2[cur].text) == 0) {
                emit_figure(out, &figs[f]);
                placed[f] = 1;
            }
    if (nloose) {
        kr_buf_puts(out, "<h2 id=\"charts\">Charts</h2>\n");
        for (size_t f = 0; f < nfigs; f++)
            if (placed[f] == 2)
                emit_figure(out, &figs[f]);
    }
    kr_buf_puts(out, "<footer>Made by kreport " KREPORT_VERSION " from the same Markdown document as its .md "
                     "counterpart, rendered with cmark-gfm; charts are inline SVG. The page loads nothing "
                     "from anywhere and runs no script.</footer>\n</main>\n</body>\n</html>\n");
    rc = out->oom || tb.oom || tmp.oom ? KR_INTERNAL : 0;
done:
    for (size_t j = 0; h2 && j < nh2; j++) {
        free(h2[j].text);
        free(h2[j].id);
    }
    free(h2);
    free(placed);
    kr_buf_free(&tb);
    kr_buf_free(&tmp);
    CM.cmark_node_free(doc);
    CM.cmark_parser_free(parser);
    return rc;
}

/* ---- report.html ---- */

typedef struct figs {
    rep_html_figure *f;
    kr_buf *svg;
    size_t n, cap;
} figs;

static kr_buf *fig_add(figs *fs, const char *section)
{
    if (fs->n == fs->cap) {
        size_t cap = fs->cap ? fs->cap * 2 : 16;
        rep_html_figure *f = realloc(fs->f, cap * sizeof *f);
        if (!f)
            return NULL;
        fs->f = f;
        kr_buf *s = realloc(fs->svg, cap * sizeof *s);
        if (!s)
            return NULL;
        fs->svg = s;
        fs->cap = cap;
    }
    memset(&fs->f[fs->n], 0, sizeof fs->f[fs->n]);
    fs->f[fs->n].section = section;
    kr_buf_init(&fs->svg[fs->n]);
    return &fs->svg[fs->n++];
}

int rep_analysis_html(const an_analysis *const *a, const char *const *labels, size_t n, const rep_meta *meta,
                      kr_buf *out)
{
    kr_buf md;
    kr_buf_init(&md);
    int rc = rep_analysis_markdown(a, labels, n, meta, &md);
    figs fs = {0};
    /* with one capture its name is in the header already */
    const char *const *lab = n > 1 ? labels : NULL;
#define LABEL(i) (lab ? lab[i] : NULL)
    kr_buf *b;
    for (size_t i = 0; !rc && i < n; i++) {
        rc = (b = fig_add(&fs, "Wave states")) ? rep_chart_state_bars(&a[i]->states, LABEL(i), b) : KR_INTERNAL;
        if (!rc)
            rc = (b = fig_add(&fs, "Wave states")) ? rep_chart_state_time(a[i]->cap, LABEL(i), b) : KR_INTERNAL;
    }
    if (!rc && n) {
        const an_stalls *st[n];
        for (size_t i = 0; i < n; i++)
            st[i] = &a[i]->stalls;
        rc = (b = fig_add(&fs, "Stalls")) ? rep_chart_stall_buckets(st, labels, n, b) : KR_INTERNAL;
    }
    for (size_t i = 0; !rc && i < n; i++)
        rc = (b = fig_add(&fs, "Occupancy")) ? rep_chart_occupancy(a[i]->cap, LABEL(i), b) : KR_INTERNAL;
    for (size_t i = 0; !rc && i < n; i++)
        rc = (b = fig_add(&fs, "Speed of light")) ? rep_chart_roofline(&a[i]->roofline, LABEL(i), b) : KR_INTERNAL;
    for (size_t i = 0; !rc && i < n; i++)
        rc = (b = fig_add(&fs, "Hotspots")) ? rep_chart_hotspots(&a[i]->hotspots, LABEL(i), b) : KR_INTERNAL;
    for (size_t i = 0; !rc && i < n; i++)
        rc = (b = fig_add(&fs, "Source lines")) ? rep_chart_source_heat(&a[i]->sources, a[i]->cap, LABEL(i), b)
                                                 : KR_INTERNAL;
#undef LABEL
    for (size_t i = 0; !rc && i < fs.n; i++) {
        fs.f[i].svg = kr_buf_cstr(&fs.svg[i]);
        if (fs.svg[i].oom)
            rc = KR_INTERNAL;
    }
    if (!rc)
        rc = rep_html_page(NULL, kr_buf_cstr(&md), fs.f, fs.n, out);
    for (size_t i = 0; i < fs.n; i++)
        kr_buf_free(&fs.svg[i]);
    free(fs.f);
    free(fs.svg);
    kr_buf_free(&md);
    return rc ? KR_INTERNAL : 0;
}
