/* test_html.c — report.html: the page writer (report/html.c), the SVG charts
 * (report/svg.c, report/charts.c) and the analyze page of a generated
 * bundle.
 *
 * Well-formedness: every page must parse with libxml2's XML parser without a
 * single error, and with its HTML parser without errors other than "unknown
 * tag" for HTML5 and SVG element names (libxml2's HTML parser knows HTML 4
 * only); every <svg> must also parse alone as XML.
 *
 * Golden facts on the bundle `kreport synth` writes by default (8 waves on
 * SE 0-1, SIMD 0-3, 3 iterations): figures derived by hand in
 * examples/README.md from the generator's formulas (per wave on SIMD s:
 * IDLE 28 + 4s, EXEC 160 + 84·3, STALL 16 + 12·3; row 37 stall 8928, row 7
 * stall 4896), or recomputed here from the loaded files independently of
 * the chart code (occupancy pairs, stall sums of the code table, source
 * line ranges).
 *
 * The commands: `analyze --format html` writes report.html alone and `all`
 * adds it to the other files; `compare` writes compare.html (two generated
 * runs, seed 0 against seed 7) with its three before/after charts. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

#include "analyzer/analysis.h"
#include "bundle/capture.h"
#include "cli/commands.h"
#include "synth/synth.h"
#include "common/buf.h"
#include "common/pool.h"
#include "report/charts.h"
#include "report/html.h"
#include "report/svg.h"
#include "tests/unit/t.h"

/* ---------------------------------------------------------------- parsing */

static int n_errors, n_unknown_ok;
static char first_error[512];

/* Element names libxml2's HTML 4 parser does not know but a page may use. */
static int known_html5_or_svg(const char *msg)
{
    static const char *const names[] = {"main", "nav", "figure", "figcaption", "footer", "svg", "g",
                                        "rect", "line", "path", "text", "desc", "section", NULL};
    for (int i = 0; names[i]; i++) {
        char want[64];
        snprintf(want, sizeof want, "Tag %s invalid", names[i]);
        if (strncmp(msg, want, strlen(want)) == 0)
            return 1;
    }
    return 0;
}

static void on_error(void *ctx, xmlErrorPtr e)
{
    (void)ctx;
    if (e->domain == XML_FROM_HTML && e->code == XML_HTML_UNKNOWN_TAG && e->message &&
        known_html5_or_svg(e->message)) {
        n_unknown_ok++;
        return;
    }
    if (n_errors++ == 0)
        snprintf(first_error, sizeof first_error, "line %d: %s", e->line, e->message ? e->message : "?");
}

/* Parses as XML; returns the document (or NULL) and sets *errors. */
static xmlDocPtr parse_xml(const char *s, size_t n, int *errors)
{
    n_errors = 0;
    first_error[0] = '\0';
    xmlSetStructuredErrorFunc(NULL, on_error);
    xmlDocPtr d = xmlReadMemory(s, (int)n, "page.xml", "UTF-8", XML_PARSE_NONET);
    xmlSetStructuredErrorFunc(NULL, NULL);
    *errors = n_errors;
    if (n_errors)
        fprintf(stderr, "XML parse: %d errors, first %s", n_errors, first_error);
    return d;
}

/* HTML parser errors other than known HTML5/SVG tag names. */
static int html_errors(const char *s, size_t n)
{
    n_errors = 0;
    n_unknown_ok = 0;
    first_error[0] = '\0';
    xmlSetStructuredErrorFunc(NULL, on_error);
    htmlDocPtr d = htmlReadMemory(s, (int)n, "page.html", "UTF-8", HTML_PARSE_NONET);
    xmlSetStructuredErrorFunc(NULL, NULL);
    if (!d)
        n_errors++;
    xmlFreeDoc(d);
    if (n_errors)
        fprintf(stderr, "HTML parse: %d errors, first %s", n_errors, first_error);
    return n_errors;
}

static xmlXPathContextPtr xp_new(xmlDocPtr d)
{
    xmlXPathContextPtr x = xmlXPathNewContext(d);
    if (x)
        xmlXPathRegisterNs(x, (const xmlChar *)"s", (const xmlChar *)"http://www.w3.org/2000/svg");
    return x;
}

static double xp_num(xmlXPathContextPtr x, const char *expr)
{
    xmlXPathObjectPtr o = x ? xmlXPathEvalExpression((const xmlChar *)expr, x) : NULL;
    double v = o ? xmlXPathCastToNumber(o) : -1;
    if (!o)
        fprintf(stderr, "xpath failed: %s\n", expr);
    xmlXPathFreeObject(o);
    return v;
}

/* String value of an XPath expression, copied into buf. */
static const char *xp_str(xmlXPathContextPtr x, const char *expr, char *buf, size_t cap)
{
    buf[0] = '\0';
    xmlXPathObjectPtr o = x ? xmlXPathEvalExpression((const xmlChar *)expr, x) : NULL;
    if (o) {
        xmlChar *s = xmlXPathCastToString(o);
        snprintf(buf, cap, "%s", s ? (const char *)s : "");
        xmlFree(s);
    }
    xmlXPathFreeObject(o);
    return buf;
}

/* Every <svg>…</svg> of a page parses alone; returns how many there were. */
static int each_svg_parses(const char *page, int *bad)
{
    int n = 0;
    *bad = 0;
    for (const char *p = strstr(page, "<svg "); p; p = strstr(p + 1, "<svg ")) {
        const char *e = strstr(p, "</svg>");
        if (!e) {
            (*bad)++;
            break;
        }
        int errs;
        xmlDocPtr d = parse_xml(p, (size_t)(e + 6 - p), &errs);
        if (!d || errs)
            (*bad)++;
        else {
            xmlNodePtr r = xmlDocGetRootElement(d);
            /* text alternative: role, aria-label, <title> and <desc> first */
            xmlChar *role = xmlGetProp(r, (const xmlChar *)"role");
            xmlChar *aria = xmlGetProp(r, (const xmlChar *)"aria-label");
            xmlNodePtr c1 = xmlFirstElementChild(r);
            xmlNodePtr c2 = c1 ? xmlNextElementSibling(c1) : NULL;
            xmlChar *t1 = c1 ? xmlNodeGetContent(c1) : NULL;
            xmlChar *t2 = c2 ? xmlNodeGetContent(c2) : NULL;
            int ok = role && !strcmp((char *)role, "img") && aria && aria[0] && c1 &&
                     !strcmp((const char *)c1->name, "title") && c2 && !strcmp((const char *)c2->name, "desc") &&
                     t1 && t1[0] && t2 && t2[0] && r->ns &&
                     !strcmp((const char *)r->ns->href, "http://www.w3.org/2000/svg");
            if (!ok) {
                fprintf(stderr, "svg %d lacks its text alternative\n", n);
                (*bad)++;
            }
            xmlFree(role);
            xmlFree(aria);
            xmlFree(t1);
            xmlFree(t2);
        }
        xmlFreeDoc(d);
        n++;
    }
    return n;
}

/* ------------------------------------------------------------ time bins */

static void test_bins(void)
{
    rep_timebins b;
    rep_timebins_make(0, 1000, 200, &b);
    T_EQ_U64(b.width, 5);
    T_EQ_U64(b.n, 200);
    rep_timebins_make(100, 1001, 200, &b);
    T_EQ_U64(b.width, 6);                  /* ceil(1001 / 200) */
    T_EQ_U64(b.n, 167);                    /* ceil(1001 / 6) */
    T_EQ_U64(rep_timebins_len(&b, 166), 5);   /* 1001 − 166·6 */
    T_EQ_U64(rep_timebins_len(&b, 0), 6);
    rep_timebins_make(0, 7, 200, &b);
    T_EQ_U64(b.width, 1);
    T_EQ_U64(b.n, 7);
    rep_timebins_make(5, 0, 200, &b);
    T_EQ_U64(b.n, 0);

    /* [3, 17) with weight 2 over bins of 5: 2·2, 2·5, 2·5, 2·2 */
    rep_timebins_make(0, 40, 8, &b);
    uint64_t acc[8] = {0};
    rep_timebins_add(&b, 3, 17, 2, acc);
    T_EQ_U64(acc[0], 4);
    T_EQ_U64(acc[1], 10);
    T_EQ_U64(acc[2], 10);
    T_EQ_U64(acc[3], 4);
    T_EQ_U64(acc[4], 0);
    /* clamped to the span: [-10, 3) adds 3 cycles, [38, 99) adds 2 */
    rep_timebins_add(&b, -10, 3, 1, acc);
    rep_timebins_add(&b, 38, 99, 1, acc);
    T_EQ_U64(acc[0], 7);
    T_EQ_U64(acc[7], 2);
}

/* ------------------------------------------------------------ the page */

static void test_page(void)
{
    const char *md =
        "# Title & more\n\n"
        "Intro paragraph.\n\n"
        "## Alpha\n\n"
        "Para A.\n\n"
        "| name | value |\n|---|--:|\n| x | 2 |\n\n"
        "## Beta\n\n"
        "Para B1.\n\n"
        "Para B2.\n\n"
        "- item\n\n"
        "<script>alert(1)</script>\n\n"
        "Inline <b onclick=\"x()\">bold</b> text.\n\n"
        "## Alpha\n\n"
        "Again.\n";
    kr_buf a, b, c;
    kr_buf_init(&a);
    kr_buf_init(&b);
    kr_buf_init(&c);
    T_EQ_U64(rep_svg_empty("chart A", "message A", &a), 0);
    T_EQ_U64(rep_svg_empty("chart B", "message B", &b), 0);
    T_EQ_U64(rep_svg_empty("chart C", "message C", &c), 0);
    rep_html_figure figs[3] = {{"Beta", kr_buf_cstr(&b), "caption <B>"},
                               {"Nowhere", kr_buf_cstr(&c), NULL},
                               {"Alpha", kr_buf_cstr(&a), NULL}};
    kr_buf out;
    kr_buf_init(&out);
    T_EQ_U64(rep_html_page(NULL, md, figs, 3, &out), 0);
    const char *p = kr_buf_cstr(&out);

    T_CHECK(strncmp(p, "<!DOCTYPE html>\n<html lang=\"en\">", 32) == 0);
    T_CHECK(strstr(p, "<title>Title &amp; more</title>") != NULL);
    /* raw HTML never passes through */
    T_CHECK(strstr(p, "<script") == NULL);
    T_CHECK(strstr(p, "onclick") == NULL);
    T_CHECK(strstr(p, "raw HTML omitted") != NULL);
    /* the table extension and alignment */
    T_CHECK(strstr(p, "<th align=\"right\">value</th>") != NULL);
    T_CHECK(strstr(p, "<td align=\"right\">2</td>") != NULL);
    /* ids, unique */
    T_CHECK(strstr(p, "<h2 id=\"alpha\">Alpha</h2>") != NULL);
    T_CHECK(strstr(p, "<h2 id=\"beta\">Beta</h2>") != NULL);
    T_CHECK(strstr(p, "<h2 id=\"alpha-2\">Alpha</h2>") != NULL);
    T_CHECK(strstr(p, "<a href=\"#beta\">Beta</a>") != NULL);
    /* placement: after the section's leading paragraphs, before the rest */
    const char *pa = strstr(p, "<p>Para A.</p>"), *fa = strstr(p, "aria-label=\"chart A\""),
               *ta = strstr(p, "<table>");
    T_CHECK(pa && fa && ta && pa < fa && fa < ta);
    const char *pb = strstr(p, "<p>Para B2.</p>"), *fb = strstr(p, "aria-label=\"chart B\""),
               *ul = strstr(p, "<ul>");
    T_CHECK(pb && fb && ul && pb < fb && fb < ul);
    T_CHECK(strstr(p, "<figcaption>caption &lt;B&gt;</figcaption>") != NULL);
    /* chart A appears once: the repeated "Alpha" does not get it again */
    T_CHECK(fa && strstr(fa + 1, "aria-label=\"chart A\"") == NULL);
    const char *ch = strstr(p, "<h2 id=\"charts\">Charts</h2>"), *fc = strstr(p, "aria-label=\"chart C\"");
    const char *again = strstr(p, "<p>Again.</p>");
    T_CHECK(ch && fc && again && again < ch && ch < fc);
    /* nothing fetched: a CSP forbids it, and no src/href leaves the page */
    T_CHECK(strstr(p, "default-src 'none'") != NULL);
    T_CHECK(strstr(p, " src=") == NULL);
    T_CHECK(strstr(p, "href=\"http") == NULL);

    int errs;
    xmlDocPtr d = parse_xml(p, out.len, &errs);
    T_CHECK(d != NULL);
    T_EQ_U64(errs, 0);
    xmlFreeDoc(d);
    T_EQ_U64(html_errors(p, out.len), 0);
    int bad;
    T_EQ_U64(each_svg_parses(p, &bad), 3);
    T_EQ_U64(bad, 0);
    kr_buf_free(&a);
    kr_buf_free(&b);
    kr_buf_free(&c);
    kr_buf_free(&out);
}

/* Escaping and text hygiene in a chart: markup characters, invalid UTF-8
 * and control characters in labels. */
static void test_svg_escaping(void)
{
    static const rep_svg_series ser[2] = {{"one & two", REP_SVG_BLUE}, {"<three>", REP_SVG_ORANGE}};
    uint64_t v1[2] = {3, 1}, v2[2] = {0, 4};
    rep_hbar_row rows[2] = {{"a<b & \"c\" \xff\x01z", v1, "group <g>"}, {"plain", v2, NULL}};
    rep_hbar_chart c = {0};
    c.title = "T <&> \xc3\xa9";
    c.x_label = "cycles";
    c.unit = "cycles";
    c.series = ser;
    c.nseries = 2;
    c.rows = rows;
    c.nrows = 2;
    kr_buf out;
    kr_buf_init(&out);
    T_EQ_U64(rep_svg_hbars(&c, &out), 0);
    int errs;
    xmlDocPtr d = parse_xml(out.data, out.len, &errs);
    T_EQ_U64(errs, 0);
    xmlXPathContextPtr x = xp_new(d);
    char buf[512];
    T_EQ_STR(xp_str(x, "/s:svg/@aria-label", buf, sizeof buf), "T <&> \xc3\xa9");
    T_EQ_STR(xp_str(x, "(//s:g[@class='row'])[1]/s:title", buf, sizeof buf), "a<b & \"c\" ??z");
    /* stacked: 3 segments (a zero value draws nothing), each with its value */
    T_EQ_U64(xp_num(x, "count(//s:g[@class='row']/s:rect)"), 3);
    T_EQ_STR(xp_str(x, "(//s:g[@class='row'])[2]/s:rect[1]/s:title", buf, sizeof buf),
             "plain — <three>: 4 cycles (100.0 %)");
    T_EQ_STR(xp_str(x, "(//s:g[@class='row'])[1]/s:rect[1]/s:title", buf, sizeof buf),
             "a<b & \"c\" ??z — one & two: 3 cycles (75.0 %)");
    T_EQ_U64(xp_num(x, "count(//s:g[@class='legend']/s:rect)"), 2);
    xmlXPathFreeContext(x);
    xmlFreeDoc(d);
    kr_buf_free(&out);
}

/* ------------------------------------------------- the generated bundle */


static int64_t off_of(const kr_capture *c, uint32_t se)
{
    return c->realtime.aligned && se < 64 ? c->realtime.se_offset[se] : 0;
}

/* Occupancy facts recomputed by brute force from the rows: Σ resident
 * cycles per SE (pairs matched by (cu, simd, slot)), the peak of all SEs
 * together, and where the last interval at half the peak or more ends. */
typedef struct occ_fact {
    uint64_t cycles[8];
    uint32_t ses[8];
    size_t nses;
    uint64_t peak;
    int64_t tail_from, last;
} occ_fact;

static void occ_brute(const kr_capture *c, occ_fact *f)
{
    memset(f, 0, sizeof *f);
    typedef struct { int64_t s, e; } iv;
    iv *ivs = NULL;
    size_t n = 0;
    int64_t *times = NULL;
    size_t nt = 0;
    for (size_t i = 0; i < c->occupancy.nses && i < 8; i++) {
        const kr_occ_se *se = &c->occupancy.ses[i];
        int64_t off = off_of(c, se->se);
        f->ses[f->nses] = se->se;
        for (size_t r = 0; r < se->nrows; r++) {
            times = realloc(times, (nt + 1) * sizeof *times);
            times[nt++] = (int64_t)se->rows[r].time + off;
            if (!se->rows[r].start)
                continue;
            /* its end: the next end row of the same slot */
            for (size_t q = r + 1; q < se->nrows; q++) {
                const kr_occ_row *e = &se->rows[q];
                if (!e->start && e->cu == se->rows[r].cu && e->simd == se->rows[r].simd &&
                    e->slot == se->rows[r].slot) {
                    ivs = realloc(ivs, (n + 1) * sizeof *ivs);
                    ivs[n++] = (iv){(int64_t)se->rows[r].time + off, (int64_t)e->time + off};
                    f->cycles[f->nses] += e->time - se->rows[r].time;
                    break;
                }
            }
        }
        f->nses++;
    }
    int64_t last = INT64_MIN;
    for (size_t i = 0; i < nt; i++)
        if (times[i] > last)
            last = times[i];
    f->last = last;
    /* resident during [t, next event) for every event time t */
    int64_t latest = INT64_MIN;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < nt; i++) {
            int64_t t = times[i], next = INT64_MAX;
            for (size_t j = 0; j < nt; j++)
                if (times[j] > t && times[j] < next)
                    next = times[j];
            if (next == INT64_MAX)
                continue;
            uint64_t res = 0;
            for (size_t k = 0; k < n; k++)
                res += ivs[k].s <= t && t < ivs[k].e;
            if (pass == 0 && res > f->peak)
                f->peak = res;
            if (pass == 1 && 2 * res >= f->peak && next > latest)
                latest = next;
        }
    f->tail_from = latest == INT64_MIN ? last : latest;
    free(ivs);
    free(times);
}

static void check_synth_page(const kr_capture *cap, const an_analysis *an, const char *page, size_t len)
{
    int errs;
    xmlDocPtr d = parse_xml(page, len, &errs);
    T_CHECK(d != NULL);
    T_EQ_U64(errs, 0);
    T_EQ_U64(html_errors(page, len), 0);
    int bad;
    /* one capture: state bars, state time, stall buckets, occupancy,
     * roofline, hotspots, heat strip */
    T_EQ_U64(each_svg_parses(page, &bad), 7);
    T_EQ_U64(bad, 0);
    xmlXPathContextPtr x = xp_new(d);
    char buf[1024], q[1024];

    /* the Markdown is all there: headings of REPORT.md */
    static const char *const h2s[] = {"Capture facts", "Wave states", "Instruction classes", "Stalls",
                                      "Occupancy", "Hotspots", "Source lines", "Recommendations",
                                      "Files and how to re-run"};
    for (size_t i = 0; i < sizeof h2s / sizeof *h2s; i++) {
        snprintf(q, sizeof q, "count(//h2[.='%s'])", h2s[i]);
        T_EQ_U64(xp_num(x, q), 1);
    }
    T_EQ_STR(xp_str(x, "/html/head/title", buf, sizeof buf), "synth_kernel_0 — thread-trace analysis");
    /* the explorer: its data and its one script, nothing loaded */
    T_EQ_U64(xp_num(x, "count(//script)"), 2);
    T_EQ_U64(xp_num(x, "count(//script[@type='application/json'][@id='kx-data'])"), 1);
    T_EQ_U64(xp_num(x, "count(//*[@src])"), 0);
    T_EQ_U64(xp_num(x, "count(//section[@id='explorer']/h2[@id='explorer-h'])"), 1);
    T_EQ_U64(xp_num(x, "count(//nav[@id='contents']//a[@href='#explorer'])"), 1);

    /* figures sit in their sections: the first figure after "Wave states" */
    T_EQ_STR(xp_str(x, "(//figure)[1]/preceding-sibling::h2[1]", buf, sizeof buf), "Wave states");
    T_EQ_STR(xp_str(x, "(//figure)[3]/preceding-sibling::h2[1]", buf, sizeof buf), "Stalls");
    T_EQ_STR(xp_str(x, "(//figure)[4]/preceding-sibling::h2[1]", buf, sizeof buf), "Occupancy");
    T_EQ_STR(xp_str(x, "(//figure)[5]/preceding-sibling::h2[1]", buf, sizeof buf), "Speed of light");
    T_EQ_STR(xp_str(x, "(//figure)[6]/preceding-sibling::h2[1]", buf, sizeof buf), "Hotspots");
    T_EQ_STR(xp_str(x, "(//figure)[7]/preceding-sibling::h2[1]", buf, sizeof buf), "Source lines");

    /* wave-state bars: SE 0, SE 1, SIMD 0..3; four states each */
    const char *sb = "//s:svg[@aria-label='share of wave time in each state, per SE and per SIMD']";
    snprintf(q, sizeof q, "count(%s//s:g[@class='row'])", sb);
    T_EQ_U64(xp_num(x, q), 6);
    snprintf(q, sizeof q, "count(%s//s:g[@class='row']/s:rect)", sb);
    T_EQ_U64(xp_num(x, q), 24);
    snprintf(q, sizeof q, "count(%s//s:g[@class='legend']/s:rect)", sb);
    T_EQ_U64(xp_num(x, q), 4);
    /* SE 0 holds SIMD 0..3, one wave each: IDLE Σ(28 + 4s) = 136,
     * EXEC 4 × 412 = 1648, STALL 4 × 52 = 208, WAIT Σ(2536 + 56s) = 10480,
     * total 12472; SIMD 0 holds two waves with s = 0: IDLE 56. */
    static const char *const tips[] = {
        "SE 0 — IDLE: 136 cycles (1.1 %)", "SE 0 — EXEC: 1648 cycles (13.2 %)",
        "SE 0 — WAIT: 10480 cycles (84.0 %)", "SE 0 — STALL: 208 cycles (1.7 %)",
        "SIMD 0 — IDLE: 56 cycles (0.9 %)", "SIMD 3 — STALL: 104 cycles (1.6 %)"};
    for (size_t i = 0; i < sizeof tips / sizeof *tips; i++) {
        snprintf(q, sizeof q, "count(%s//s:rect/s:title[.='%s'])", sb, tips[i]);
        T_EQ_U64(xp_num(x, q), 1);
    }
    snprintf(q, sizeof q, "count(%s//s:text[.='12.5 K cycles'])", sb);   /* 12472 per SE */
    T_EQ_U64(xp_num(x, q), 2);

    /* waves in each state over time: a panel per SE, one area per state,
     * each at most 2 × REP_CHART_BINS steps, axis says aligned */
    const char *st = "//s:svg[@aria-label='waves in each state over time, per SE']";
    snprintf(q, sizeof q, "count(%s//s:g[@class='panel'])", st);
    T_EQ_U64(xp_num(x, q), 2);
    snprintf(q, sizeof q, "count(%s//s:g[@class='panel']/s:path)", st);
    T_EQ_U64(xp_num(x, q), 8);
    snprintf(q, sizeof q, "count(%s//s:text[starts-with(., 'cycles since the first wave began — SE clocks aligned')])", st);
    T_EQ_U64(xp_num(x, q), 1);
    snprintf(q, sizeof q, "count(%s//s:text[.='SE 0' or .='SE 1'])", st);
    T_EQ_U64(xp_num(x, q), 2);
    for (int i = 1; i <= 8; i++) {
        snprintf(q, sizeof q, "(%s//s:path)[%d]/@d", st, i);
        xp_str(x, q, buf, sizeof buf);
        /* buf is cut at 1023 bytes; count steps on the full attribute */
        xmlXPathObjectPtr o = xmlXPathEvalExpression((const xmlChar *)q, x);
        xmlChar *s = o ? xmlXPathCastToString(o) : NULL;
        size_t steps = 0;
        for (const xmlChar *c = s; c && *c; c++)
            steps += *c == 'H';
        T_CHECK(steps > 0 && steps <= 2 * REP_CHART_BINS);
        xmlFree(s);
        xmlXPathFreeObject(o);
    }

    /* the series behind it keeps every cycle: README timeline totals */
    rep_state_series ss;
    T_EQ_U64(rep_state_series_compute(cap, REP_CHART_BINS, &ss), 0);
    T_EQ_U64(ss.nses, 2);
    T_CHECK(ss.bins.n > 0 && ss.bins.n <= REP_CHART_BINS);
    uint64_t want[KR_STATE_COUNT] = {0, 272, 3296, 20960, 416};
    for (unsigned s = 0; s < KR_STATE_COUNT; s++) {
        uint64_t sum = 0;
        for (size_t si = 0; si < ss.nses; si++)
            for (size_t k = 0; k < ss.bins.n; k++)
                sum += ss.cycles[(si * KR_STATE_COUNT + s) * ss.bins.n + k];
        T_EQ_U64(sum, want[s]);
    }
    /* span: earliest aligned begin to the latest aligned timeline end */
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t w = 0; w < cap->nwaves; w++) {
        int64_t b = (int64_t)cap->waves[w].begin + off_of(cap, cap->waves[w].se), e = b;
        for (size_t k = 0; k < cap->waves[w].ntimeline; k++)
            e += (int64_t)cap->waves[w].timeline[k].cycles;
        lo = b < lo ? b : lo;
        hi = e > hi ? e : hi;
    }
    T_EQ_I64(ss.bins.t0, lo);
    T_EQ_U64(ss.bins.span, (uint64_t)(hi - lo));
    rep_state_series_free(&ss);

    /* occupancy: brute-force recomputation of the same facts */
    occ_fact of;
    occ_brute(cap, &of);
    rep_occ_series os;
    T_EQ_U64(rep_occ_series_compute(cap, REP_CHART_BINS, &os), 0);
    T_EQ_U64(os.nses, of.nses);
    for (size_t si = 0; si < os.nses && si < of.nses; si++) {
        uint64_t sum = 0;
        for (size_t k = 0; k < os.bins.n; k++)
            sum += os.cycles[si * os.bins.n + k];
        T_EQ_U64(sum, of.cycles[si]);
    }
    T_EQ_U64(os.peak, of.peak);
    T_EQ_I64(os.last, of.last);
    T_EQ_I64(os.tail_from, of.tail_from);
    const char *oc = "//s:svg[@aria-label='resident waves over time (occupancy.json), all CUs, stacked by SE']";
    snprintf(q, sizeof q, "count(%s//s:g[@class='legend']/s:rect)", oc);
    T_EQ_U64(xp_num(x, q), of.nses);
    if (of.tail_from < of.last) {
        snprintf(q, sizeof q, "count(%s//s:text[starts-with(., 'underfilled tail: %" PRId64 " cycles')])", oc,
                 of.last - of.tail_from);
        T_EQ_U64(xp_num(x, q), 1);
    }
    rep_occ_series_free(&os);

    /* hotspots: ten rows by stall, row 37 first (README: stall 8928), row 7 second (4896) */
    const char *hs = "//s:svg[@aria-label='top 10 rows by stall: stall, issue and idle cycles']";
    snprintf(q, sizeof q, "count(%s//s:g[@class='row'])", hs);
    T_EQ_U64(xp_num(x, q), 10);
    snprintf(q, sizeof q, "(%s//s:g[@class='row'])[1]/s:title", hs);
    T_EQ_STR(xp_str(x, q, buf, sizeof buf), "row 37 · s_waitcnt vmcnt(0)");
    snprintf(q, sizeof q, "count(%s//s:rect/s:title[starts-with(., 'row 37 · s_waitcnt vmcnt(0) — stall: 8928 cycles')])", hs);
    T_EQ_U64(xp_num(x, q), 1);
    snprintf(q, sizeof q, "(%s//s:g[@class='row'])[2]/s:rect[1]/s:title", hs);
    T_CHECK(strstr(xp_str(x, q, buf, sizeof buf), "row 7 · ") == buf);
    T_CHECK(strstr(buf, " — stall: 4896 cycles") != NULL);

    /* stall buckets: wait_vmcnt = Σ Stall of s_waitcnt rows naming vmcnt
     * but not lgkmcnt, recomputed from the code table */
    uint64_t vm = 0, total = 0;
    for (size_t r = 0; r < cap->nrows; r++) {
        const kr_code_row *row = &cap->rows[r];
        if (row->line == 0 || row->stall == 0)
            continue;
        total += row->stall;
        if (strncmp(row->isa, "s_waitcnt", 9) == 0 && strstr(row->isa, "vmcnt") && !strstr(row->isa, "lgkmcnt"))
            vm += row->stall;
    }
    T_EQ_U64(total, 19264);              /* README: Σ Stall of the small capture */
    snprintf(q, sizeof q,
             "count(//s:svg[starts-with(@aria-label, 'Stall cycles by kind')]//s:rect/s:title[.='wait_vmcnt — synth: %"
             PRIu64 " cycles (%.1f %%)'])", vm, 100.0 * (double)vm / (double)total);
    T_EQ_U64(xp_num(x, q), 1);

    /* heat strips: one per source file of the innermost frames, each
     * spanning that file's lowest to highest line */
    const char *paths[8];
    uint32_t plo[8], phi[8];
    size_t np = 0;
    for (size_t r = 0; r < cap->nrows; r++) {
        const kr_code_row *row = &cap->rows[r];
        if (row->is_label || row->nframes == 0 || row->frames[0].line == 0)
            continue;
        size_t k = 0;
        while (k < np && strcmp(paths[k], row->frames[0].path) != 0)
            k++;
        if (k == np && np < 8) {
            paths[np] = row->frames[0].path;
            plo[np] = phi[np] = row->frames[0].line;
            np++;
        }
        if (k < np) {
            plo[k] = row->frames[0].line < plo[k] ? row->frames[0].line : plo[k];
            phi[k] = row->frames[0].line > phi[k] ? row->frames[0].line : phi[k];
        }
    }
    T_CHECK(np >= 1);
    const char *hm = "//s:svg[@aria-label='latency by source line (innermost frame)']";
    snprintf(q, sizeof q, "count(%s//s:g[@class='strip'])", hm);
    T_EQ_U64(xp_num(x, q), np < REP_CHART_MAX_FILES ? np : REP_CHART_MAX_FILES);
    for (size_t k = 0; k < np && np <= REP_CHART_MAX_FILES; k++) {
        const char *leaf = strrchr(paths[k], '/') ? strrchr(paths[k], '/') + 1 : paths[k];
        snprintf(q, sizeof q, "count(%s//s:g[@class='strip'][s:text[1]='%s'][s:text[.='line %u']][s:text[.='line %u']])",
                 hm, leaf, plo[k], phi[k]);
        T_EQ_U64(xp_num(x, q), 1);
    }
    (void)an;
    xmlXPathFreeContext(x);
    xmlFreeDoc(d);
}

static void test_synth_bundle(void)
{
    char tmpl[] = "/tmp/test_html_XXXXXX";
    char *dir = mkdtemp(tmpl);
    T_CHECK(dir != NULL);
    if (!dir)
        return;
    synth_opts so;
    synth_opts_default(&so);
    kr_err err;
    kr_err_clear(&err);
    int rc = synth_write(&so, dir, &err);
    T_EQ_U64(rc, 0);
    char cdir[4200];
    snprintf(cdir, sizeof cdir, "%s/ui_output_agent_24601_dispatch_14", dir);
    bundle_opts bo = {0};
    bo.threads = 1;
    bo.skip_wstates = 1;
    kr_capture *cap = NULL;
    if (!rc && (rc = bundle_capture_load(cdir, &bo, &cap, &err)) != 0)
        fprintf(stderr, "load: %s\n", err.msg);
    T_EQ_U64(rc, 0);
    if (!rc) {
        an_analysis an;
        an_analysis_opts ao = {0};
        T_EQ_U64(an_analyze(cap, &ao, &an), 0);
        const an_analysis *ap[1] = {&an};
        const char *labels[1] = {"synth"};
        rep_meta meta = {"ui_output_agent_24601_dispatch_14", NULL, "kreport analyze X -o OUTPUT_DIR"};
        kr_buf page, md;
        kr_buf_init(&page);
        kr_buf_init(&md);
        T_EQ_U64(rep_analysis_html(ap, labels, 1, &meta, &page), 0);
        check_synth_page(cap, &an, kr_buf_cstr(&page), page.len);
        /* the same Markdown as REPORT.md: every table cell's text is on the page */
        T_EQ_U64(rep_analysis_markdown(ap, labels, 1, &meta, &md), 0);
        T_CHECK(strstr(md.data, "| SE 0 | 4 |") != NULL);
        T_CHECK(strstr(page.data, "<td>SE 0</td>\n<td align=\"right\">4</td>") != NULL);
        /* deterministic */
        kr_buf again;
        kr_buf_init(&again);
        T_EQ_U64(rep_analysis_html(ap, labels, 1, &meta, &again), 0);
        T_CHECK(again.len == page.len && memcmp(again.data, page.data, page.len) == 0);
        kr_buf_free(&again);
        kr_buf_free(&page);
        kr_buf_free(&md);
        an_analysis_free(&an);
        bundle_capture_free(cap);
    }
    t_rm_rf(dir);
}

/* ------------------------------------------------------------ commands */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    kr_buf b;
    kr_buf_init(&b);
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        kr_buf_append(&b, chunk, got);
    fclose(f);
    *len = b.len;
    return b.data;          /* malloc-owned, NUL-terminated */
}

static int exists(const char *dir, const char *name)
{
    char p[4300];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return stat(p, &st) == 0;
}

static void test_commands(void)
{
    char tmpl[] = "/tmp/test_html_cmd_XXXXXX";
    char *dir = mkdtemp(tmpl);
    T_CHECK(dir != NULL);
    if (!dir)
        return;
    char best[4200], cand[4200], out_html[4200], out_all[4200], out_cmp[4200], cap[4300];
    snprintf(best, sizeof best, "%s/best", dir);
    snprintf(cand, sizeof cand, "%s/cand", dir);
    snprintf(out_html, sizeof out_html, "%s/html", dir);
    snprintf(out_all, sizeof out_all, "%s/all", dir);
    snprintf(out_cmp, sizeof out_cmp, "%s/cmp", dir);
    synth_opts so;
    synth_opts_default(&so);
    so.layout = SYNTH_LAYOUT_RUN;
    kr_err err;
    kr_err_clear(&err);
    T_EQ_U64(synth_write(&so, best, &err), 0);
    so.seed = 7;
    T_EQ_U64(synth_write(&so, cand, &err), 0);
    snprintf(cap, sizeof cap, "%s/ui_output_agent_24601_dispatch_14", best);

    /* --format html: report.html alone; all: every file */
    char *a1[] = {"analyze", cap, "-o", out_html, "--format", "html", "-q", NULL};
    T_EQ_U64(cmd_analyze(7, a1), 0);
    T_CHECK(exists(out_html, "report.html"));
    T_CHECK(!exists(out_html, "REPORT.md") && !exists(out_html, "analysis.json") && !exists(out_html, "hotspots.csv"));
    char *a2[] = {"analyze", cap, "-o", out_all, "-q", NULL};
    T_EQ_U64(cmd_analyze(5, a2), 0);
    T_CHECK(exists(out_all, "report.html") && exists(out_all, "REPORT.md") && exists(out_all, "analysis.json") &&
            exists(out_all, "hotspots.csv") && exists(out_all, "source_lines.csv"));
    char *a3[] = {"analyze", cap, "--format", "pdf", NULL};
    T_EQ_U64(cmd_analyze(4, a3), KR_USAGE);

    /* compare.html */
    char *c1[] = {"compare", best, cand, "-o", out_cmp, "-q", NULL};
    T_EQ_U64(cmd_compare(6, c1), 0);
    T_CHECK(exists(out_cmp, "COMPARE.md") && exists(out_cmp, "compare.json"));
    char path[4400];
    snprintf(path, sizeof path, "%s/compare.html", out_cmp);
    size_t len = 0;
    char *page = slurp(path, &len);
    T_CHECK(page != NULL);
    if (page) {
        int errs;
        xmlDocPtr d = parse_xml(page, len, &errs);
        T_EQ_U64(errs, 0);
        T_EQ_U64(html_errors(page, len), 0);
        int bad;
        T_EQ_U64(each_svg_parses(page, &bad), 3);
        T_EQ_U64(bad, 0);
        xmlXPathContextPtr x = xp_new(d);
        char buf[512];
        /* the GPU-time chart sits under "Kernel GPU time" (no benchmark CSV:
         * no classes), the pair's charts under "Trace explanation" */
        T_EQ_STR(xp_str(x, "(//figure)[1]/preceding-sibling::h2[1]", buf, sizeof buf), "Kernel GPU time");
        T_EQ_STR(xp_str(x, "(//figure)[2]/preceding-sibling::h2[1]", buf, sizeof buf), "Trace explanation");
        T_EQ_STR(xp_str(x, "(//figure)[3]/preceding-sibling::h2[1]", buf, sizeof buf), "Trace explanation");
        /* global group: one row, a BEST and a CANDIDATE bar */
        T_EQ_U64(xp_num(x, "count((//s:svg)[1]//s:g[@class='row'])"), 1);
        T_EQ_U64(xp_num(x, "count((//s:svg)[1]//s:g[@class='row']/s:rect)"), 2);
        T_CHECK(strncmp(xp_str(x, "(//s:svg)[1]//s:g[@class='row']/s:title", buf, sizeof buf), "global (", 8) == 0);
        /* wave states of BEST = the default synth capture (examples/README.md):
         * IDLE 272, EXEC 3296, WAIT 20960, STALL 416 of 24944 cycles */
        const char *ws = "//s:svg[starts-with(@aria-label, 'synth_kernel_0: wave states, BEST vs CANDIDATE')]";
        char q[512];
        snprintf(q, sizeof q, "count(%s//s:g[@class='row'])", ws);
        T_EQ_U64(xp_num(x, q), 4);
        static const char *const tips[] = {"IDLE — BEST: 272 cycles (1.1 %)", "EXEC — BEST: 3296 cycles (13.2 %)",
                                           "WAIT — BEST: 20960 cycles (84.0 %)", "STALL — BEST: 416 cycles (1.7 %)"};
        for (size_t i = 0; i < 4; i++) {
            snprintf(q, sizeof q, "count(%s//s:rect/s:title[.='%s'])", ws, tips[i]);
            T_EQ_U64(xp_num(x, q), 1);
        }
        T_EQ_U64(xp_num(x, "count(//s:svg[starts-with(@aria-label, 'synth_kernel_0: stall buckets')])"), 1);
        xmlXPathFreeContext(x);
        xmlFreeDoc(d);
        free(page);
    }
    t_rm_rf(dir);
}

/* ------------------------------------------------------------ real data */

static void test_hub(const char *hub)
{
    char cdir[4096];
    snprintf(cdir, sizeof cdir,
             "%s/examples/pa_mqa_logits_fp4/att_viewer/big/ui_output_agent_55351_dispatch_426", hub);
    bundle_opts bo = {0};
    bo.threads = 2;
    bo.skip_wstates = 1;
    kr_capture *cap = NULL;
    kr_err err;
    kr_err_clear(&err);
    int rc = bundle_capture_load(cdir, &bo, &cap, &err);
    T_EQ_U64(rc, 0);
    if (rc)
        return;
    an_analysis an;
    an_analysis_opts ao = {0};
    T_EQ_U64(an_analyze(cap, &ao, &an), 0);
    const an_analysis *ap[1] = {&an};
    const char *labels[1] = {"big"};
    rep_meta meta = {"ui_output_agent_55351_dispatch_426", NULL, NULL};
    kr_buf page;
    kr_buf_init(&page);
    T_EQ_U64(rep_analysis_html(ap, labels, 1, &meta, &page), 0);
    /* docs/formats.md: report.html of pa_mqa big stays under 2 MB */
    T_CHECK(page.len > 0 && page.len < 2u * 1024 * 1024);
    int errs;
    xmlDocPtr d = parse_xml(page.data, page.len, &errs);
    T_EQ_U64(errs, 0);
    T_EQ_U64(html_errors(page.data, page.len), 0);
    int bad;
    T_EQ_U64(each_svg_parses(page.data, &bad), 7);   /* with the roofline */
    T_EQ_U64(bad, 0);
    /* docs/formats.md: timeline Σ by state 1/2/3/4 of pa_mqa big */
    rep_state_series ss;
    T_EQ_U64(rep_state_series_compute(cap, REP_CHART_BINS, &ss), 0);
    uint64_t want[KR_STATE_COUNT] = {0, 992, 795648, 465108, 340436};
    for (unsigned s = 0; s < KR_STATE_COUNT; s++) {
        uint64_t sum = 0;
        for (size_t si = 0; si < ss.nses; si++)
            for (size_t k = 0; k < ss.bins.n; k++)
                sum += ss.cycles[(si * KR_STATE_COUNT + s) * ss.bins.n + k];
        T_EQ_U64(sum, want[s]);
    }
    T_EQ_U64(ss.nses, 4);
    T_EQ_U64(ss.bins.n, REP_CHART_BINS);
    rep_state_series_free(&ss);
    /* no source mapping (0/726 mapped): the strip falls back to code rows */
    xmlXPathContextPtr x = xp_new(d);
    T_EQ_U64(xp_num(x, "count(//s:svg[@aria-label='latency by instruction row (no row maps to a source line)'])"), 1);
    T_EQ_U64(xp_num(x, "count(//s:text[.='instruction 726'])"), 1);
    xmlXPathFreeContext(x);
    xmlFreeDoc(d);
    kr_buf_free(&page);
    an_analysis_free(&an);
    bundle_capture_free(cap);
}

int main(void)
{
    xmlInitParser();
    test_bins();
    test_page();
    test_svg_escaping();
    test_synth_bundle();
    test_commands();
    const char *hub = t_hub();
    if (hub)
        test_hub(hub);
    else
        printf("test_html: hub fixtures not found, real-capture checks skipped\n");
    /* No xmlCleanupParser: it must come after every thread that used
     * libxml2 has exited, and the pool threads of the commands run here
     * are joined only at exit; their libxml2 state is freed then. */
    return t_done("test_html");
}
