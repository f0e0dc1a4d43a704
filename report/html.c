/* html.c — see html.h. The Markdown is parsed once; its top-level blocks are
 * rendered one by one with cmark-gfm so figures and heading ids can be put
 * between them without touching the text cmark produces. */
#include "report/html.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/sha256.h"
#include "report/charts.h"
#include "report/cmark_api.h"
#include "report/explorer.h"
#include "report/templates.h"

#define CM rep_cmark_table

/* No '<' or '&' in here: the page stays well-formed XML. */
static const char css[] =
    ":root{color-scheme:light}\n"
    "body{margin:0;background:#fff;color:#1b1b1b;font:15px/1.5 system-ui,-apple-system,\"Segoe UI\",Roboto,"
    "\"DejaVu Sans\",sans-serif}\n"
    "main{max-width:1120px;margin:0 auto;padding:12px 28px 0}\n"
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
    "footer{max-width:1120px;margin:3em auto 0;padding:.6em 28px 48px;font-size:12px;color:#555;"
    "border-top:1px solid #ddd}\n"
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

/* The text of the inline script from templates/<name>, wrapped so the page
 * stays well-formed XML (an HTML parser reads the CDATA markers as script
 * comments), and the base64 SHA-256 of that text for the page's
 * Content-Security-Policy. -1 when the template is missing or could break
 * out of its element. */
static int app_script(const char *name, kr_buf *out, char hash[45])
{
    size_t len = 0;
    const char *js = rep_template(name, &len);
    if (!js || strstr(js, "]]>") || strstr(js, "</"))
        return -1;
    kr_buf_puts(out, "//<![CDATA[\n");
    kr_buf_append(out, js, len);
    kr_buf_puts(out, "\n//]]>");
    if (out->oom)
        return -1;
    unsigned char d[32];
    kr_sha256 st;
    kr_sha256_init(&st);
    kr_sha256_update(&st, out->data, out->len);
    kr_sha256_final(&st, d);
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t k = 0;
    for (size_t i = 0; i < 32; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < 32 ? (uint32_t)d[i + 1] << 8 : 0) | (i + 2 < 32 ? d[i + 2] : 0);
        hash[k++] = b64[v >> 18 & 63];
        hash[k++] = b64[v >> 12 & 63];
        hash[k++] = i + 1 < 32 ? b64[v >> 6 & 63] : '=';
        hash[k++] = i + 2 < 32 ? b64[v & 63] : '=';
    }
    hash[k] = '\0';
    return 0;
}

/* The page into out: the document with its figures, then the app section
 * when there is one. */
static int page_layout(const char *title, const char *markdown, const rep_html_figure *figs, size_t nfigs,
                       const rep_html_app *app, kr_buf *out)
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
    kr_buf tb, tmp, sbuf;
    kr_buf_init(&tb);
    kr_buf_init(&tmp);
    kr_buf_init(&sbuf);
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

    const char *script = NULL, *app_css = NULL;
    char hash[45];
    if (app && (app_script(app->script, &sbuf, hash) || !(app_css = rep_template("explorer.css", NULL))))
        goto done;
    script = kr_buf_cstr(&sbuf);
    kr_buf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
                     "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                     "style-src 'unsafe-inline'; img-src data:");
    if (app)   /* the one inline script, by its hash: no other script can run */
        kr_buf_printf(out, "; script-src 'sha256-%s'", hash);
    kr_buf_puts(out, "\"/>\n<meta name=\"generator\" content=\"kreport " KREPORT_VERSION "\"/>\n<title>");
    rep_html_escape(out, title);
    kr_buf_puts(out, "</title>\n<style>\n");
    kr_buf_puts(out, css);
    if (app)
        kr_buf_puts(out, app_css);
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
                if (app)
                    kr_buf_printf(out, "<li><a href=\"#%s\">%s</a></li>\n", app->id, app->title);
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
    kr_buf_puts(out, "</main>\n");
    if (app) {
        kr_buf_printf(out, "<section id=\"%s\" aria-labelledby=\"%s-h\">\n<h2 id=\"%s-h\">%s</h2>\n%s\n"
                           "<noscript><p class=\"kx-nojs\">The explorer needs JavaScript, which is off: the "
                           "sections above are the whole report without it.</p></noscript>\n"
                           "<div id=\"kx-app\" hidden=\"hidden\"></div>\n"
                           "<script type=\"application/json\" id=\"kx-data\">",
                      app->id, app->id, app->id, app->title, app->intro);
        kr_buf_puts(out, app->data ? app->data : "null");
        kr_buf_puts(out, "</script>\n<script>");
        kr_buf_puts(out, script);
        kr_buf_puts(out, "</script>\n</section>\n");
    }
    kr_buf_puts(out, "<footer>Made by kreport " KREPORT_VERSION " from the same Markdown document as its .md "
                     "counterpart, rendered with cmark-gfm; charts are inline SVG. The page loads nothing "
                     "from anywhere");
    kr_buf_puts(out, app ? "; its one script draws the explorer from the data inside the page." : " and runs no script.");
    kr_buf_puts(out, "</footer>\n</body>\n</html>\n");
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
    kr_buf_free(&sbuf);
    CM.cmark_node_free(doc);
    CM.cmark_parser_free(parser);
    return rc;
}

int rep_html_page(const char *title, const char *markdown, const rep_html_figure *figs, size_t nfigs,
                  kr_buf *out)
{
    return rep_html_app_page(title, markdown, figs, nfigs, NULL, out);
}

int rep_html_app_page(const char *title, const char *markdown, const rep_html_figure *figs, size_t nfigs,
                      const rep_html_app *app, kr_buf *out)
{
    return page_layout(title, markdown, figs, nfigs, app, out);
}

/* ---- report.html ---- */

static const char explorer_intro[] =
    "<p>Every code row of the capture with its code.json columns, non-hidden latency, class, stall bucket, "
    "loop and phase; sort by any column, filter by text or class. A wait lists its producers over the whole "
    "dispatch (Waits section), a producer the waits it feeds; a row shows its source line beside, with the "
    "line's totals. The timeline shows the waves in each state per SE, the resident waves and one lane per "
    "wave; drag across it to zoom. The page holds the instruction streams of at most 16 waves (the longest "
    "of each SE first, at most 131,072 records together), so a chosen wave's stream and a cycle range's "
    "narrowing of the table come from those waves; every other figure covers every wave.</p>";

/* report.html is rendered as one task beside the other outputs. Rendering
 * it in parts on several threads (the page, the explorer's data and each
 * chart as separate tasks, spliced after) was measured against this on the
 * hub's four captures, every output of `analyze -o` on two threads, medians
 * of 21 rounds: it saved -4.2, 0.6, 1.3 and -0.2 ms of 5-45 ms, nothing a
 * user could notice, so the page is made in one piece. */
int rep_analysis_html(const an_analysis *const *a, const char *const *labels, size_t n, const rep_meta *meta,
                      kr_buf *out)
{
    /* per capture two wave-state charts, occupancy, roofline, hotspots and
     * source lines; one stall chart for all */
    size_t most = 6 * n + 1, nf = 0;
    rep_html_figure *figs = calloc(most, sizeof *figs);
    kr_buf *svg = calloc(most, sizeof *svg);
    kr_buf md, data;
    kr_buf_init(&md);
    kr_buf_init(&data);
    int rc = figs && svg ? 0 : KR_INTERNAL;
    const an_stalls **st = calloc(n ? n : 1, sizeof *st);
    rc |= st ? 0 : KR_INTERNAL;
    for (size_t k = 0; k < most && svg; k++)
        kr_buf_init(&svg[k]);
    /* in the page's order; with one capture its name is in the header already */
#define FIG(section_, call_) do { if (!rc) { rc = (call_) || svg[nf].oom ? KR_INTERNAL : 0; \
        figs[nf].section = (section_); figs[nf].svg = kr_buf_cstr(&svg[nf]); nf++; } } while (0)
#define LABEL(i_) (n > 1 ? labels[i_] : NULL)
    for (size_t i = 0; i < n; i++) {
        FIG("Wave states", rep_chart_state_bars(&a[i]->states, LABEL(i), &svg[nf]));
        FIG("Wave states", rep_chart_state_time(a[i]->cap, LABEL(i), &svg[nf]));
    }
    if (n && st) {
        for (size_t k = 0; k < n; k++)
            st[k] = &a[k]->stalls;
        FIG("Stalls", rep_chart_stall_buckets(st, labels, n, &svg[nf]));
    }
    for (size_t i = 0; i < n; i++)
        FIG("Occupancy", rep_chart_occupancy(a[i]->cap, LABEL(i), &svg[nf]));
    for (size_t i = 0; i < n; i++)
        FIG("Speed of light", rep_chart_roofline(&a[i]->roofline, LABEL(i), &svg[nf]));
    for (size_t i = 0; i < n; i++)
        FIG("Hotspots", rep_chart_hotspots(&a[i]->hotspots, LABEL(i), &svg[nf]));
    for (size_t i = 0; i < n; i++)
        FIG("Source lines", rep_chart_source_heat(&a[i]->sources, a[i]->cap, LABEL(i), &svg[nf]));
#undef FIG
#undef LABEL
    if (!rc)
        rc = rep_analysis_markdown(a, labels, n, meta, &md) || md.oom ? KR_INTERNAL : 0;
    if (!rc)
        rc = rep_explorer_json(a, labels, n, &data) || data.oom ? KR_INTERNAL : 0;
    if (!rc) {
        rep_html_app app = {"explorer", "Instruction explorer", explorer_intro, "explorer.js", kr_buf_cstr(&data)};
        rc = page_layout(NULL, kr_buf_cstr(&md), figs, nf, &app, out);
    }
    for (size_t k = 0; k < most && svg; k++)
        kr_buf_free(&svg[k]);
    free(svg);
    free(figs);
    free(st);
    kr_buf_free(&md);
    kr_buf_free(&data);
    return rc ? KR_INTERNAL : 0;
}
