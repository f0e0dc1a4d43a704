/* svg.c — see svg.h. Layout is computed in pixels of a fixed 900-wide
 * canvas (the page scales it down on narrow screens through viewBox); text
 * widths are estimated from character counts (no font metrics offline). */
#include "report/svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/fmt.h"
#include "report/xml_api.h"

#define XT rep_xml_table

#define W 900.0
#define CHAR_W 6.3           /* estimated width of one 11 px sans-serif character */
#define LABEL_MAX_CHARS 58   /* longer labels are cut with an ellipsis */

static const char *const palette[] = {REP_SVG_BLUE, REP_SVG_ORANGE, REP_SVG_GREEN, REP_SVG_PURPLE,
                                      REP_SVG_SKY, REP_SVG_VERMILLION, REP_SVG_YELLOW, REP_SVG_BLACK};

const char *rep_svg_palette(size_t i) { return palette[i % (sizeof palette / sizeof *palette)]; }

/* ---- text hygiene ---- */

/* Copy of s where every byte that does not start a valid UTF-8 sequence of
 * an XML 1.0 character, and every control character but tab, becomes '?'. */
static char *clean_text(const char *s)
{
    if (!s)
        s = "";
    size_t n = strlen(s);
    char *o = malloc(n + 1);
    if (!o)
        return NULL;
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, j = 0;
    while (i < n) {
        unsigned c = p[i];
        size_t len = 0;
        uint32_t cp = 0;
        if (c < 0x80) {
            len = 1;
            cp = c;
        } else if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
            cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            cp = c & 0x07;
        }
        int ok = len > 0 && i + len <= n;
        for (size_t k = 1; ok && k < len; k++) {
            if ((p[i + k] & 0xC0) != 0x80)
                ok = 0;
            else
                cp = (cp << 6) | (p[i + k] & 0x3F);
        }
        if (ok && ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
                   (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE || cp == 0xFFFF ||
                   (cp < 0x20 && cp != '\t') || cp == 0x7F))
            ok = 0;
        if (!ok) {
            o[j++] = '?';
            i++;
            continue;
        }
        memcpy(o + j, p + i, len);
        i += len;
        j += len;
    }
    o[j] = '\0';
    return o;
}

/* At most max characters (UTF-8 aware), "…" appended when cut. Malloc'd. */
static char *shorten(const char *s, size_t max)
{
    char *c = clean_text(s);
    if (!c)
        return NULL;
    size_t chars = 0, i = 0;
    for (; c[i]; i++) {
        if (((unsigned char)c[i] & 0xC0) != 0x80) {
            if (chars == max)
                break;
            chars++;
        }
    }
    if (!c[i])
        return c;
    /* cut at byte i (a character boundary) leaving room for the ellipsis */
    char *o = malloc(i + 4);
    if (!o) {
        free(c);
        return NULL;
    }
    size_t k = i;
    if (k > 0) {             /* drop one more character for the ellipsis */
        k--;
        while (k > 0 && ((unsigned char)c[k] & 0xC0) == 0x80)
            k--;
    }
    memcpy(o, c, k);
    memcpy(o + k, "\xE2\x80\xA6", 4);
    free(c);
    return o;
}

static size_t text_chars(const char *s)
{
    size_t n = 0;
    for (; s && *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* ---- the builder ---- */

typedef struct sb {
    xmlDocPtr doc;
    xmlNodePtr root, cur;
    int oom;
} sb;

/* A coordinate or length with at most one decimal ("12", "12.5", "-3.2").
 * Charts print tens of thousands of these, so no printf: the value is
 * rounded to tenths (half away from zero) and written digit by digit. */
static void num(char *b, size_t cap, double v)
{
    if (!isfinite(v) || v > 1e15 || v < -1e15)
        v = 0;
    long long t = llround(v * 10.0);
    if (t == 0) {
        if (cap > 1) {
            b[0] = '0';
            b[1] = '\0';
        }
        return;
    }
    char tmp[32];
    char *p = tmp + sizeof tmp;
    *--p = '\0';
    unsigned long long u = t < 0 ? (unsigned long long)(-t) : (unsigned long long)t;
    if (u % 10) {
        *--p = (char)('0' + u % 10);
        *--p = '.';
    }
    u /= 10;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (t < 0)
        *--p = '-';
    size_t len = (size_t)(tmp + sizeof tmp - 1 - p);
    if (len >= cap)
        len = cap ? cap - 1 : 0;
    memcpy(b, p, len);
    if (cap)
        b[len] = '\0';
}

static void attr(sb *s, xmlNodePtr n, const char *name, const char *value)
{
    if (!n)
        return;
    char *v = clean_text(value);
    if (!v || !XT.xmlNewProp(n, (const xmlChar *)name, (const xmlChar *)v))
        s->oom = 1;
    free(v);
}

static void attr_num(sb *s, xmlNodePtr n, const char *name, double v)
{
    char b[48];
    num(b, sizeof b, v);
    attr(s, n, name, b);
}

static xmlNodePtr elem(sb *s, xmlNodePtr parent, const char *name)
{
    if (!parent)
        return NULL;
    xmlNodePtr n = XT.xmlNewChild(parent, NULL, (const xmlChar *)name, NULL);
    if (!n)
        s->oom = 1;
    return n;
}

static void text_into(sb *s, xmlNodePtr n, const char *text)
{
    if (!n)
        return;
    char *t = clean_text(text);
    xmlNodePtr tn = t ? XT.xmlNewText((const xmlChar *)t) : NULL;
    if (!tn || !XT.xmlAddChild(n, tn)) {
        s->oom = 1;
        if (tn)
            XT.xmlFreeNode(tn);
    }
    free(t);
}

static void tip(sb *s, xmlNodePtr n, const char *text)
{
    if (n && text && *text)
        text_into(s, elem(s, n, "title"), text);
}

static int sb_begin(sb *s, double h, const char *title, const char *desc)
{
    memset(s, 0, sizeof *s);
    if (rep_xml_api(NULL))
        return KR_INTERNAL;
    s->doc = XT.xmlNewDoc((const xmlChar *)"1.0");
    if (!s->doc)
        return KR_INTERNAL;
    s->root = XT.xmlNewNode(NULL, (const xmlChar *)"svg");
    if (!s->root) {
        XT.xmlFreeDoc(s->doc);
        return KR_INTERNAL;
    }
    XT.xmlDocSetRootElement(s->doc, s->root);
    xmlNsPtr ns = XT.xmlNewNs(s->root, (const xmlChar *)"http://www.w3.org/2000/svg", NULL);
    if (!ns)
        s->oom = 1;
    else
        XT.xmlSetNs(s->root, ns);
    char vb[96], a[32], b[32];
    num(a, sizeof a, W);
    num(b, sizeof b, h);
    snprintf(vb, sizeof vb, "0 0 %s %s", a, b);
    attr(s, s->root, "width", a);
    attr(s, s->root, "height", b);
    attr(s, s->root, "viewBox", vb);
    attr(s, s->root, "role", "img");
    attr(s, s->root, "aria-label", title);
    attr(s, s->root, "font-family", "sans-serif");
    attr(s, s->root, "font-size", "11");
    attr(s, s->root, "class", "chart");
    text_into(s, elem(s, s->root, "title"), title);
    text_into(s, elem(s, s->root, "desc"), desc);
    s->cur = s->root;
    xmlNodePtr bg = elem(s, s->root, "rect");
    attr(s, bg, "width", a);
    attr(s, bg, "height", b);
    attr(s, bg, "fill", "#FFFFFF");
    return 0;
}

static int sb_finish(sb *s, kr_buf *out)
{
    int rc = s->oom ? KR_INTERNAL : 0;
    if (!rc) {
        xmlBufferPtr xb = XT.xmlBufferCreate();
        if (!xb || XT.xmlNodeDump(xb, s->doc, s->root, 0, 0) < 0)
            rc = KR_INTERNAL;
        else
            kr_buf_append(out, XT.xmlBufferContent(xb), (size_t)XT.xmlBufferLength(xb));
        if (xb)
            XT.xmlBufferFree(xb);
    }
    XT.xmlFreeDoc(s->doc);
    if (!rc && out->oom)
        rc = KR_INTERNAL;
    return rc;
}

static xmlNodePtr group(sb *s, const char *cls)
{
    xmlNodePtr g = elem(s, s->cur, "g");
    if (cls)
        attr(s, g, "class", cls);
    if (g)
        s->cur = g;
    return g;
}

static void end(sb *s)
{
    if (s->cur && s->cur != s->root)
        s->cur = s->cur->parent;
}

static xmlNodePtr rect(sb *s, double x, double y, double w, double h, const char *fill, const char *tiptext)
{
    xmlNodePtr r = elem(s, s->cur, "rect");
    attr_num(s, r, "x", x);
    attr_num(s, r, "y", y);
    attr_num(s, r, "width", w < 0 ? 0 : w);
    attr_num(s, r, "height", h < 0 ? 0 : h);
    attr(s, r, "fill", fill);
    tip(s, r, tiptext);
    return r;
}

static xmlNodePtr line(sb *s, double x1, double y1, double x2, double y2, const char *stroke, int dashed)
{
    xmlNodePtr l = elem(s, s->cur, "line");
    attr_num(s, l, "x1", x1);
    attr_num(s, l, "y1", y1);
    attr_num(s, l, "x2", x2);
    attr_num(s, l, "y2", y2);
    attr(s, l, "stroke", stroke);
    if (dashed)
        attr(s, l, "stroke-dasharray", "4 3");
    return l;
}

/* anchor: "start", "middle", "end"; size 0 = default 11. */
static xmlNodePtr text(sb *s, double x, double y, const char *anchor, int bold, double size, const char *t)
{
    xmlNodePtr n = elem(s, s->cur, "text");
    attr_num(s, n, "x", x);
    attr_num(s, n, "y", y);
    if (anchor && strcmp(anchor, "start") != 0)
        attr(s, n, "text-anchor", anchor);
    if (bold)
        attr(s, n, "font-weight", "bold");
    if (size > 0)
        attr_num(s, n, "font-size", size);
    text_into(s, n, t);
    return n;
}

/* ---- shared pieces: title block, legend, nice ticks ---- */

static double header(sb *s, const char *title, const char *subtitle)
{
    text(s, 10, 20, "start", 1, 13, title);
    double y = 28;
    if (subtitle && *subtitle) {
        text(s, 10, 40, "start", 0, 0, subtitle);
        y = 46;
    }
    return y;
}

/* Legend swatches from x0 at baseline y; wraps at the canvas width.
 * Returns the y below the legend. */
static double legend(sb *s, const rep_svg_series *ser, size_t n, const int *shown, double x0, double y)
{
    double x = x0;
    group(s, "legend");
    for (size_t i = 0; i < n; i++) {
        if (shown && !shown[i])
            continue;
        double w = 16 + CHAR_W * (double)text_chars(ser[i].name) + 14;
        if (x + w > W - 10 && x > x0) {
            x = x0;
            y += 16;
        }
        rect(s, x, y - 9, 10, 10, ser[i].color, NULL);
        text(s, x + 14, y, "start", 0, 0, ser[i].name);
        x += w;
    }
    end(s);
    return y + 10;
}

static double nice_step(double max, int ticks)
{
    if (!(max > 0))
        return 1;
    double raw = max / ticks;
    double mag = pow(10, floor(log10(raw)));
    double norm = raw / mag;
    double step = norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 2.5 ? 2.5 : norm <= 5 ? 5 : 10;
    return step * mag;
}

static void tick_label(char *b, size_t cap, double v, double step, int percent)
{
    if (percent) {
        char t[32];
        num(t, sizeof t, v);
        snprintf(b, cap, "%s %%", t);
    } else if (step >= 1 && v >= 0) {
        kr_fmt_human(b, cap, (uint64_t)llround(v));
    } else {
        kr_fmt_fixed(b, cap, v, step >= 0.1 ? 1 : 2);
    }
}

static void share(char *b, size_t cap, uint64_t part, uint64_t whole)
{
    kr_fmt_pct(b, cap, (double)part, (double)whole, 1);
}

/* ---- horizontal bars ---- */

static double bar_value(const rep_hbar_chart *c, const rep_hbar_row *r, size_t j, uint64_t row_total)
{
    uint64_t v = r->values[j];
    switch (c->scale) {
    case REP_SCALE_ROW_SHARE: return row_total ? 100.0 * (double)v / (double)row_total : 0;
    case REP_SCALE_SERIES_SHARE:
        return c->series_totals && c->series_totals[j] ? 100.0 * (double)v / (double)c->series_totals[j] : 0;
    default: return (double)v;
    }
}

static uint64_t row_total(const rep_hbar_chart *c, const rep_hbar_row *r)
{
    uint64_t t = 0;
    for (size_t j = 0; j < c->nseries; j++)
        t += r->values[j];
    return t;
}

/* "label — series: 123 cycles (12.3 %)" for one value. */
static void value_text(kr_buf *b, const rep_hbar_chart *c, const rep_hbar_row *r, size_t j, int with_label)
{
    char v[32], p[32];
    uint64_t tot = c->scale == REP_SCALE_SERIES_SHARE ? (c->series_totals ? c->series_totals[j] : 0)
                                                        : row_total(c, r);
    if (with_label)
        kr_buf_printf(b, "%s — ", r->label ? r->label : "");
    kr_buf_printf(b, "%s: %s%s%s", c->series[j].name, kr_fmt_u64(v, sizeof v, r->values[j]),
                  c->unit ? " " : "", c->unit ? c->unit : "");
    if (c->scale != REP_SCALE_ABS || c->nseries > 1) {
        share(p, sizeof p, r->values[j], tot);
        kr_buf_printf(b, " (%s)", p);
    }
}

int rep_svg_hbars(const rep_hbar_chart *c, kr_buf *out)
{
    /* text alternative: every value */
    kr_buf desc;
    kr_buf_init(&desc);
    kr_buf_printf(&desc, "%s.", c->title);
    if (c->scale == REP_SCALE_ROW_SHARE)
        kr_buf_puts(&desc, " Shares are of each row's total.");
    else if (c->scale == REP_SCALE_SERIES_SHARE)
        kr_buf_puts(&desc, " Shares are of each series' total.");
    for (size_t i = 0; i < c->nrows; i++) {
        kr_buf_printf(&desc, " %s%s: ", c->rows[i].group ? c->rows[i].group : "",
                      c->rows[i].group ? " / " : "");
        kr_buf_printf(&desc, "%s —", c->rows[i].label ? c->rows[i].label : "");
        for (size_t j = 0; j < c->nseries; j++) {
            kr_buf_puts(&desc, j ? ", " : " ");
            value_text(&desc, c, &c->rows[i], j, 0);
        }
        kr_buf_putc(&desc, ';');
    }
    if (desc.oom) {
        kr_buf_free(&desc);
        return KR_INTERNAL;
    }

    /* geometry */
    size_t maxc = 0;
    for (size_t i = 0; i < c->nrows; i++) {
        size_t l = text_chars(c->rows[i].label);
        if (l > maxc)
            maxc = l;
    }
    if (maxc > LABEL_MAX_CHARS)
        maxc = LABEL_MAX_CHARS;
    double left = 14 + CHAR_W * (double)maxc;
    if (left < 70)
        left = 70;
    double right = 96;
    double pw = W - left - right;
    double bar_h = c->grouped ? 11 : 16;
    double pitch = c->grouped ? (double)c->nseries * (bar_h + 1) + 9 : 22;
    size_t ngroups = 0;
    for (size_t i = 0; i < c->nrows; i++)
        ngroups += c->rows[i].group != NULL;
    /* header height depends on the legend's wrapping: lay it out twice */
    double top_probe = 28 + (c->subtitle && *c->subtitle ? 18 : 0);
    double legend_h = 0;
    if (c->nseries > 1) {
        double x = 10, rows = 1;
        for (size_t j = 0; j < c->nseries; j++) {
            double w = 16 + CHAR_W * (double)text_chars(c->series[j].name) + 14;
            if (x + w > W - 10 && x > 10) {
                x = 10;
                rows++;
            }
            x += w;
        }
        legend_h = 16 * rows + 4;
    }
    double plot_top = top_probe + legend_h + 8;
    double plot_h = (double)c->nrows * pitch + (double)ngroups * 18;
    double h = plot_top + plot_h + 46;

    double max = 0;
    for (size_t i = 0; i < c->nrows; i++) {
        uint64_t rt = row_total(c, &c->rows[i]);
        double acc = 0;
        for (size_t j = 0; j < c->nseries; j++) {
            double v = bar_value(c, &c->rows[i], j, rt);
            if (c->grouped)
                acc = v > acc ? v : acc;
            else
                acc += v;
        }
        if (acc > max)
            max = acc;
    }
    int percent = c->scale != REP_SCALE_ABS;
    double xmax, step;
    if (c->scale == REP_SCALE_ROW_SHARE) {
        xmax = 100;
        step = 25;
    } else {
        step = nice_step(max, 5);
        xmax = step * ceil(max / step);
        if (xmax <= 0)
            xmax = step;
        if (percent && xmax > 100)
            xmax = 100;
    }

    sb s;
    if (sb_begin(&s, h, c->title, kr_buf_cstr(&desc))) {
        kr_buf_free(&desc);
        return KR_INTERNAL;
    }
    kr_buf_free(&desc);
    double y = header(&s, c->title, c->subtitle);
    if (c->nseries > 1)
        legend(&s, c->series, c->nseries, NULL, 10, y + 12);

    /* grid and x axis */
    group(&s, "axis");
    char lb[48];
    for (double t = 0; t <= xmax + step * 1e-9; t += step) {
        double x = left + pw * t / xmax;
        line(&s, x, plot_top - 2, x, plot_top + plot_h, "#DDDDDD", 0);
        tick_label(lb, sizeof lb, t, step, percent);
        text(&s, x, plot_top + plot_h + 14, "middle", 0, 10, lb);
    }
    line(&s, left, plot_top + plot_h, left + pw, plot_top + plot_h, "#555555", 0);
    text(&s, left + pw / 2, plot_top + plot_h + 32, "middle", 0, 0, c->x_label);
    end(&s);

    /* bars */
    kr_buf t;
    kr_buf_init(&t);
    double ry = plot_top;
    group(&s, "bars");
    for (size_t i = 0; i < c->nrows; i++) {
        const rep_hbar_row *r = &c->rows[i];
        if (r->group) {
            text(&s, 10, ry + 13, "start", 1, 0, r->group);
            ry += 18;
        }
        uint64_t rt = row_total(c, r);
        char *lab = shorten(r->label, LABEL_MAX_CHARS);
        xmlNodePtr g = group(&s, "row");
        kr_buf_reset(&t);
        kr_buf_printf(&t, "%s", r->label ? r->label : "");
        tip(&s, g, kr_buf_cstr(&t));
        double cy = ry + (pitch - (c->grouped ? (double)c->nseries * (bar_h + 1) : bar_h)) / 2;
        text(&s, left - 6, cy + (c->grouped ? (double)c->nseries * (bar_h + 1) / 2 + 4 : bar_h / 2 + 4), "end", 0, 0,
             lab ? lab : "");
        free(lab);
        double x = left;
        for (size_t j = 0; j < c->nseries; j++) {
            double v = bar_value(c, r, j, rt);
            double wv = pw * v / xmax;
            kr_buf_reset(&t);
            value_text(&t, c, r, j, 1);
            if (c->grouped) {
                double by = cy + (double)j * (bar_h + 1);
                rect(&s, left, by, wv, bar_h, c->series[j].color, kr_buf_cstr(&t));
                char vb[32], pb[32];
                if (percent) {
                    share(pb, sizeof pb, r->values[j], c->series_totals ? c->series_totals[j] : 0);
                    text(&s, left + wv + 4, by + bar_h - 2, "start", 0, 9.5, pb);
                } else {
                    text(&s, left + wv + 4, by + bar_h - 2, "start", 0, 9.5, kr_fmt_human(vb, sizeof vb, r->values[j]));
                }
            } else if (r->values[j]) {
                xmlNodePtr rr = rect(&s, x, cy, wv, bar_h, c->series[j].color, kr_buf_cstr(&t));
                attr(&s, rr, "stroke", "#FFFFFF");
                attr(&s, rr, "stroke-width", "0.5");
                x += wv;
            }
        }
        if (!c->grouped) {
            char vb[32];
            kr_fmt_human(vb, sizeof vb, rt);
            kr_buf_reset(&t);
            kr_buf_printf(&t, "%s%s%s", vb, c->unit ? " " : "", c->unit ? c->unit : "");
            text(&s, (c->scale == REP_SCALE_ROW_SHARE ? left + pw : x) + 5, cy + bar_h / 2 + 4, "start", 0, 10,
                 kr_buf_cstr(&t));
        }
        end(&s);
        ry += pitch;
    }
    end(&s);
    if (t.oom)
        s.oom = 1;
    kr_buf_free(&t);
    return sb_finish(&s, out);
}

/* ---- stacked step areas ---- */

int rep_svg_areas(const rep_area_chart *c, kr_buf *out)
{
    size_t nb = c->nbins;
    int *shown = calloc(c->nseries ? c->nseries : 1, sizeof *shown);
    if (!shown)
        return KR_INTERNAL;
    double ymax_data = 0;
    for (size_t p = 0; p < c->npanels; p++)
        for (size_t k = 0; k < nb; k++) {
            double acc = 0;
            for (size_t j = 0; j < c->nseries; j++) {
                double v = c->panels[p].values[j * nb + k];
                if (v > 0)
                    shown[j] = 1;
                acc += v;
            }
            if (acc > ymax_data)
                ymax_data = acc;
        }
    if (c->hline > ymax_data)
        ymax_data = c->hline;
    double ystep = nice_step(ymax_data, 4);
    if (ymax_data >= 2 && ystep < 1)
        ystep = 1;
    double ymax = ystep * ceil(ymax_data / ystep);
    if (ymax <= 0)
        ymax = ystep;

    double left = 64, right = 16;
    double pw = W - left - right;
    double ph = c->npanels <= 2 ? 110 : c->npanels <= 4 ? 80 : 56;
    double gap = 20;
    double top = 28 + (c->subtitle && *c->subtitle ? 18 : 0);
    size_t nshown = 0;
    for (size_t j = 0; j < c->nseries; j++)
        nshown += shown[j];
    double legend_y = top + 12;
    double plot_top = top + (nshown > 0 ? 22 : 4) + (c->nmarks ? 16 : 0) + 18;
    double plot_h = (double)c->npanels * ph + (double)(c->npanels ? c->npanels - 1 : 0) * gap;
    double h = plot_top + plot_h + 46;
    double xmax = c->x_max > 0 ? c->x_max : 1;

    sb s;
    if (sb_begin(&s, h, c->title, c->desc ? c->desc : c->title)) {
        free(shown);
        return KR_INTERNAL;
    }
    header(&s, c->title, c->subtitle);
    if (nshown > 0)
        legend(&s, c->series, c->nseries, shown, 10, legend_y);
    free(shown);

    kr_buf d, t;
    kr_buf_init(&d);
    kr_buf_init(&t);
    char a[32], b[32], lb[48];
    double xstep = nice_step(xmax, 6);
    for (size_t p = 0; p < c->npanels; p++) {
        double py = plot_top + (double)p * (ph + gap);
        group(&s, "panel");
        rect(&s, left, py, pw, ph, "#F8F8F8", NULL);
        for (double v = 0; v <= ymax + ystep * 1e-9; v += ystep) {
            double yy = py + ph - ph * v / ymax;
            line(&s, left, yy, left + pw, yy, "#E0E0E0", 0);
            tick_label(lb, sizeof lb, v, ystep, 0);
            text(&s, left - 5, yy + 4, "end", 0, 10, lb);
        }
        for (double v = 0; v <= xmax + xstep * 1e-9; v += xstep) {
            double xx = left + pw * v / xmax;
            line(&s, xx, py, xx, py + ph, "#E8E8E8", 0);
        }
        /* stacked series */
        double *lo = calloc(nb ? nb : 1, sizeof *lo);
        double *hi = calloc(nb ? nb : 1, sizeof *hi);
        if (!lo || !hi) {
            s.oom = 1;
            free(lo);
            free(hi);
            end(&s);
            break;
        }
        for (size_t j = 0; j < c->nseries; j++) {
            const double *vals = c->panels[p].values + j * nb;
            double sum = 0, peak = 0, wsum = 0;
            int any = 0;
            for (size_t k = 0; k < nb; k++) {
                double x0 = (double)k * c->bin_width;
                double x1 = x0 + c->bin_width > xmax ? xmax : x0 + c->bin_width;
                hi[k] = lo[k] + vals[k];
                any |= vals[k] > 0;
                sum += vals[k] * (x1 - x0);
                wsum += x1 - x0;
                if (vals[k] > peak)
                    peak = vals[k];
            }
            if (any) {
                kr_buf_reset(&d);
                /* upper edge left to right, lower edge right to left */
                for (size_t k = 0; k < nb; k++) {
                    double x0 = left + pw * ((double)k * c->bin_width) / xmax;
                    double xe = (double)(k + 1) * c->bin_width;
                    double x1 = left + pw * (xe > xmax ? xmax : xe) / xmax;
                    double yv = py + ph - ph * hi[k] / ymax;
                    num(b, sizeof b, yv);
                    if (k == 0) {
                        num(a, sizeof a, x0);
                        kr_buf_putc(&d, 'M');
                        kr_buf_puts(&d, a);
                        kr_buf_putc(&d, ',');
                        kr_buf_puts(&d, b);
                    } else {
                        kr_buf_putc(&d, 'V');
                        kr_buf_puts(&d, b);
                    }
                    num(a, sizeof a, x1);
                    kr_buf_putc(&d, 'H');
                    kr_buf_puts(&d, a);
                }
                for (size_t k = nb; k-- > 0;) {
                    double x0 = left + pw * ((double)k * c->bin_width) / xmax;
                    num(b, sizeof b, py + ph - ph * lo[k] / ymax);
                    num(a, sizeof a, x0);
                    kr_buf_putc(&d, 'V');
                    kr_buf_puts(&d, b);
                    kr_buf_putc(&d, 'H');
                    kr_buf_puts(&d, a);
                }
                kr_buf_putc(&d, 'Z');
                xmlNodePtr path = elem(&s, s.cur, "path");
                attr(&s, path, "d", kr_buf_cstr(&d));
                attr(&s, path, "fill", c->series[j].color);
                kr_buf_reset(&t);
                kr_buf_printf(&t, "%s — %s: mean %s, highest bin %s %s", c->panels[p].label ? c->panels[p].label : "",
                              c->series[j].name, kr_fmt_fixed(a, sizeof a, wsum > 0 ? sum / wsum : 0, 2),
                              kr_fmt_fixed(b, sizeof b, peak, 2), c->y_label ? c->y_label : "");
                tip(&s, path, kr_buf_cstr(&t));
            }
            for (size_t k = 0; k < nb; k++)
                lo[k] = hi[k];
        }
        free(lo);
        free(hi);
        if (c->hline >= 0) {
            double yy = py + ph - ph * c->hline / ymax;
            line(&s, left, yy, left + pw, yy, "#000000", 1);
            if (c->hline_label && p == 0)
                text(&s, left + pw - 4, yy - 4, "end", 0, 10, c->hline_label);
        }
        for (size_t m = 0; m < c->nmarks; m++) {
            double x0 = left + pw * c->marks[m].x0 / xmax, x1 = left + pw * c->marks[m].x1 / xmax;
            xmlNodePtr r = rect(&s, x0, py, x1 - x0, ph, "#000000", c->marks[m].label);
            attr(&s, r, "fill-opacity", "0.12");
            line(&s, x0, py, x0, py + ph, "#000000", 1);
        }
        xmlNodePtr fr = rect(&s, left, py, pw, ph, "none", NULL);
        attr(&s, fr, "stroke", "#888888");
        if (c->panels[p].label)
            text(&s, left, py - 5, "start", 1, 0, c->panels[p].label);
        end(&s);
    }
    /* mark labels above the first panel */
    for (size_t m = 0; m < c->nmarks; m++) {
        double x0 = left + pw * c->marks[m].x0 / xmax, x1 = left + pw * c->marks[m].x1 / xmax;
        int right_half = (x0 + x1) / 2 > left + pw / 2;
        text(&s, right_half ? x1 : x0, plot_top - (c->npanels && c->panels[0].label ? 19 : 5),
             right_half ? "end" : "start", 0, 10,
             c->marks[m].label ? c->marks[m].label : "");
    }
    /* x axis */
    group(&s, "axis");
    for (double v = 0; v <= xmax + xstep * 1e-9; v += xstep) {
        double xx = left + pw * v / xmax;
        line(&s, xx, plot_top + plot_h, xx, plot_top + plot_h + 4, "#555555", 0);
        tick_label(lb, sizeof lb, v, xstep, 0);
        text(&s, xx, plot_top + plot_h + 15, "middle", 0, 10, lb);
    }
    text(&s, left + pw / 2, plot_top + plot_h + 33, "middle", 0, 0, c->x_label);
    if (c->y_label) {
        xmlNodePtr yl = text(&s, 0, 0, "middle", 0, 0, c->y_label);
        kr_buf_reset(&t);
        num(a, sizeof a, 14);
        num(b, sizeof b, plot_top + plot_h / 2);
        kr_buf_printf(&t, "translate(%s %s) rotate(-90)", a, b);
        attr(&s, yl, "transform", kr_buf_cstr(&t));
    }
    end(&s);
    if (d.oom || t.oom)
        s.oom = 1;
    kr_buf_free(&d);
    kr_buf_free(&t);
    return sb_finish(&s, out);
}

/* ---- heat strips ---- */

/* Single-hue ramp (light blue to dark blue) at f = sqrt(v / max), so the
 * few hottest cells do not wash the rest out; 0 is pale grey. */
static void heat_color(char *b, size_t cap, uint64_t v, uint64_t max)
{
    if (v == 0 || max == 0) {
        snprintf(b, cap, "#F2F2F2");
        return;
    }
    double f = sqrt((double)v / (double)max);
    static const int lo[3] = {0xC6, 0xDB, 0xEF}, hi[3] = {0x08, 0x30, 0x6B};
    int rgb[3];
    for (int i = 0; i < 3; i++)
        rgb[i] = (int)lround(lo[i] + (hi[i] - lo[i]) * f);
    snprintf(b, cap, "#%02X%02X%02X", rgb[0], rgb[1], rgb[2]);
}

int rep_svg_heat(const rep_heat_chart *c, kr_buf *out)
{
    uint64_t max = 0;
    size_t maxc = 0;
    for (size_t i = 0; i < c->nstrips; i++) {
        for (size_t k = 0; k < c->strips[i].ncells; k++)
            if (c->strips[i].values[k] > max)
                max = c->strips[i].values[k];
        size_t l = text_chars(c->strips[i].label);
        if (l > maxc)
            maxc = l;
    }
    if (maxc > 34)
        maxc = 34;
    double left = 14 + CHAR_W * (double)maxc;
    if (left < 60)
        left = 60;
    double right = 16, pw = W - left - right;
    double top = 28 + (c->subtitle && *c->subtitle ? 18 : 0);
    double legend_y = top + 12;
    double plot_top = top + 28;
    double strip_h = 22, pitch = 58, lift = 14;   /* lift: room for the mark above a strip */
    double h = plot_top + (double)c->nstrips * pitch + 24;

    sb s;
    if (sb_begin(&s, h, c->title, c->desc ? c->desc : c->title))
        return KR_INTERNAL;
    header(&s, c->title, c->subtitle);
    /* legend: ten steps of the scale */
    group(&s, "legend");
    char col[16], lb[48];
    text(&s, 10, legend_y, "start", 0, 0, c->value_label ? c->value_label : "");
    double lx = 10 + CHAR_W * (double)text_chars(c->value_label) + 10;
    text(&s, lx, legend_y, "start", 0, 10, "0");
    lx += 12;
    for (int i = 0; i <= 10; i++) {
        heat_color(col, sizeof col, (uint64_t)(i * i), 100);
        rect(&s, lx + i * 14, legend_y - 9, 14, 10, col, NULL);
    }
    kr_fmt_human(lb, sizeof lb, max);
    text(&s, lx + 11 * 14 + 4, legend_y, "start", 0, 10, lb);
    end(&s);

    for (size_t i = 0; i < c->nstrips; i++) {
        const rep_heat_strip *st = &c->strips[i];
        double y = plot_top + lift + (double)i * pitch;
        xmlNodePtr sg = group(&s, "strip");
        attr(&s, sg, "shape-rendering", "crispEdges");
        char *lab = shorten(st->label, 34);
        text(&s, left - 6, y + strip_h / 2 + 4, "end", 0, 0, lab ? lab : "");
        free(lab);
        rect(&s, left, y, pw, strip_h, "#F2F2F2", NULL);    /* zero cells show this */
        double cw = st->ncells ? pw / (double)st->ncells : pw;
        for (size_t k = 0; k < st->ncells; k++) {
            if (st->values[k] == 0)
                continue;
            heat_color(col, sizeof col, st->values[k], max);
            rect(&s, left + cw * (double)k, y, cw, strip_h, col, st->tips ? st->tips[k] : NULL);
        }
        xmlNodePtr frame = rect(&s, left, y, pw, strip_h, "none", NULL);
        attr(&s, frame, "stroke", "#888888");
        if (st->mark_label && st->mark < st->ncells) {
            double mx = left + cw * ((double)st->mark + 0.5);
            const char *anchor = mx < left + 60 ? "start" : mx > left + pw - 60 ? "end" : "middle";
            char lab[96];
            snprintf(lab, sizeof lab, "\xE2\x96\xBC %s", st->mark_label);   /* ▼ */
            text(&s, anchor[0] == 'e' ? mx + 4 : anchor[0] == 's' ? mx - 4 : mx, y - 3, anchor, 0, 10, lab);
        }
        text(&s, left, y + strip_h + 13, "start", 0, 10, st->first ? st->first : "");
        text(&s, left + pw, y + strip_h + 13, "end", 0, 10, st->last ? st->last : "");
        end(&s);
    }
    text(&s, left + pw / 2, h - 8, "middle", 0, 0, c->x_label);
    return sb_finish(&s, out);
}

int rep_svg_empty(const char *title, const char *message, kr_buf *out)
{
    sb s;
    if (sb_begin(&s, 64, title, message))
        return KR_INTERNAL;
    header(&s, title, NULL);
    text(&s, 10, 48, "start", 0, 0, message);
    return sb_finish(&s, out);
}

/* ---- roofline (log-log) ---- */

/* "1 T", "10 G", "100 m" for 10^k (k a whole number). */
static void decade_label(char *b, size_t cap, int k)
{
    static const char *const pre[] = {"m", "", "K", "M", "G", "T", "P", "E"};
    int g = (k >= 0 ? k / 3 : -((-k + 2) / 3));
    int r = k - 3 * g;
    int idx = g + 1;
    if (idx < 0 || idx >= (int)(sizeof pre / sizeof pre[0])) {
        snprintf(b, cap, "1e%d", k);
        return;
    }
    snprintf(b, cap, "%s%s%s", r == 0 ? "1" : r == 1 ? "10" : "100", *pre[idx] ? " " : "", pre[idx]);
}

int rep_svg_roofline(const rep_roof_chart *c, kr_buf *out)
{
    if (!(c->bw > 0) || c->nroofs == 0)
        return rep_svg_empty(c->title, "No peak bandwidth or compute ceiling for this device.", out);
    double pmax = 0, pmin = 0, xmin = 0, xmax = 0, ymin = 0;
    for (size_t i = 0; i < c->nroofs; i++) {
        double p = c->roofs[i].peak, r = p / c->bw;
        if (pmax == 0 || p > pmax) pmax = p;
        if (pmin == 0 || p < pmin) pmin = p;
        if (xmin == 0 || r < xmin) xmin = r;
        if (r > xmax) xmax = r;
    }
    xmin /= 100;
    xmax *= 10;
    ymin = c->bw * xmin;
    for (size_t i = 0; i < c->npoints; i++) {
        const rep_roof_point *p = &c->points[i];
        if (p->intensity > 0 && p->intensity < xmin) xmin = p->intensity;
        if (p->intensity > xmax) xmax = p->intensity;
        if (p->flops > 0 && p->flops < ymin) ymin = p->flops;
    }
    int kx0 = (int)floor(log10(xmin)), kx1 = (int)ceil(log10(xmax));
    int ky0 = (int)floor(log10(ymin)), ky1 = (int)ceil(log10(pmax * 1.0001));
    if (kx1 <= kx0) kx1 = kx0 + 1;
    if (ky1 <= ky0) ky1 = ky0 + 1;
    const double H = 360, left = 70, right = W - 230;
    sb s;
    if (sb_begin(&s, H, c->title, c->desc))
        return KR_INTERNAL;
    double top = header(&s, c->title, c->subtitle) + 14, bottom = H - 40;
#define RX(v) (left + (log10(v) - kx0) / (double)(kx1 - kx0) * (right - left))
#define RY(v) (bottom - (log10(v) - ky0) / (double)(ky1 - ky0) * (bottom - top))
    char b[64];
    group(&s, "axes");
    for (int k = kx0; k <= kx1; k++) {
        double x = RX(pow(10, k));
        line(&s, x, top, x, bottom, "#E0E0E0", 0);
        decade_label(b, sizeof b, k);
        text(&s, x, bottom + 14, "middle", 0, 0, b);
    }
    for (int k = ky0; k <= ky1; k++) {
        double y = RY(pow(10, k));
        line(&s, left, y, right, y, "#E0E0E0", 0);
        decade_label(b, sizeof b, k);
        text(&s, left - 6, y + 4, "end", 0, 0, b);
    }
    line(&s, left, bottom, right, bottom, REP_SVG_BLACK, 0);
    line(&s, left, top, left, bottom, REP_SVG_BLACK, 0);
    text(&s, (left + right) / 2, H - 8, "middle", 0, 0, "arithmetic intensity (FLOP per HBM byte, log scale)");
    xmlNodePtr yl = text(&s, 14, (top + bottom) / 2, "middle", 0, 0, "FLOP/s (log scale)");
    char rot[64];
    snprintf(rot, sizeof rot, "rotate(-90 14 %.0f)", (top + bottom) / 2);
    attr(&s, yl, "transform", rot);
    end(&s);
    group(&s, "roofs");
    /* Memory roof: from the left edge to the highest compute roof. */
    double mx0 = pow(10, kx0), mx1 = pmax / c->bw;
    if (c->bw * mx0 < pow(10, ky0))
        mx0 = pow(10, ky0) / c->bw;
    xmlNodePtr ml = line(&s, RX(mx0), RY(c->bw * mx0), RX(mx1), RY(pmax), REP_SVG_BLUE, 0);
    attr(&s, ml, "stroke-width", "2");
    tip(&s, ml, c->bw_label);
    text(&s, RX(mx0) + 4, RY(c->bw * mx0) - 6, "start", 0, 0, c->bw_label);
    for (size_t i = 0; i < c->nroofs; i++) {
        const rep_roof_line *r = &c->roofs[i];
        double rx = r->peak / c->bw;
        xmlNodePtr l = line(&s, RX(rx), RY(r->peak), right, RY(r->peak),
                            r->highlight ? REP_SVG_VERMILLION : REP_SVG_GREY, !r->highlight);
        attr(&s, l, "stroke-width", r->highlight ? "2" : "1");
        tip(&s, l, r->label);
        text(&s, right + 6, RY(r->peak) + 4, "start", r->highlight, 0, r->label);
    }
    end(&s);
    group(&s, "points");
    for (size_t i = 0; i < c->npoints; i++) {
        const rep_roof_point *p = &c->points[i];
        if (!(p->intensity > 0) || !(p->flops > 0))
            continue;
        xmlNodePtr ci = elem(&s, s.cur, "circle");
        attr_num(&s, ci, "cx", RX(p->intensity));
        attr_num(&s, ci, "cy", RY(p->flops));
        attr(&s, ci, "r", "5");
        attr(&s, ci, "fill", REP_SVG_BLACK);
        tip(&s, ci, p->label);
        text(&s, RX(p->intensity) + 8, RY(p->flops) - 8, "start", 1, 0, p->label);
    }
    end(&s);
#undef RX
#undef RY
    return sb_finish(&s, out);
}
