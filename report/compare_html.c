/* compare_html.c — compare.html: COMPARE.md's Markdown (rep_compare_markdown)
 * with before/after bar charts: median GPU time per warm call of every GPU
 * group (config classes, the target class, the global group), and per pair
 * of captures the stall buckets and wave states as shares of each capture's
 * own total (so captures with different wave counts compare). BEST is blue,
 * CANDIDATE orange throughout. After the document, the aligned instruction
 * tables of each pair side by side (templates/compare.js), from the ISA
 * alignment compare computed (analyzer/compare_trace.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "report/explorer.h"
#include "report/html.h"
#include "report/svg.h"

static const rep_svg_series sides[2] = {{"BEST", REP_SVG_BLUE}, {"CANDIDATE", REP_SVG_ORANGE}};

static uint64_t ns_of(double v) { return v > 0 && isfinite(v) ? (uint64_t)llround(v) : 0; }

/* GPU groups that were evaluated; NULL entries are skipped. */
static int chart_groups(const an_compare *c, kr_buf *out, int *drawn)
{
    const an_group *gs[1 + 1 + 256];
    size_t ng = 0;
    for (size_t k = 0; k < c->nclasses && ng < 256; k++)
        gs[ng++] = &c->classes[k];
    if (c->has_target_class)
        gs[ng++] = &c->target_group;
    gs[ng++] = &c->global;
    rep_hbar_row rows[258];
    uint64_t vals[258 * 2];
    char *labs[258] = {0};
    size_t nr = 0;
    int rc = 0;
    for (size_t i = 0; i < ng && !rc; i++) {
        const an_group *g = gs[i];
        if (!g->evaluated || g->source != AN_GROUP_GPU)
            continue;
        kr_buf b;
        kr_buf_init(&b);
        const char *name = g == &c->global ? "global" : g == &c->target_group ? "target class" : g->label;
        kr_buf_printf(&b, "%s (%+.2f %%, %s)", name ? name : "?", g->r * 100, an_outcome_text(g->outcome));
        labs[nr] = b.oom ? NULL : strdup(kr_buf_cstr(&b));
        kr_buf_free(&b);
        if (!labs[nr]) {
            rc = KR_INTERNAL;
            break;
        }
        vals[nr * 2] = ns_of(g->median_best);
        vals[nr * 2 + 1] = ns_of(g->median_cand);
        rows[nr] = (rep_hbar_row){labs[nr], &vals[nr * 2], NULL};
        nr++;
    }
    *drawn = 0;
    if (!rc && nr) {
        rep_hbar_chart ch = {0};
        ch.title = "GPU time per call of the target kernels, BEST vs CANDIDATE";
        ch.subtitle = "median of the warm calls per group; the label gives the Hodges-Lehmann change r and the outcome";
        ch.x_label = "median GPU time per warm call (ns)";
        ch.unit = "ns";
        ch.series = sides;
        ch.nseries = 2;
        ch.rows = rows;
        ch.nrows = nr;
        ch.scale = REP_SCALE_ABS;
        ch.grouped = 1;
        rc = rep_svg_hbars(&ch, out);
        *drawn = !rc;
    }
    for (size_t i = 0; i < nr; i++)
        free(labs[i]);
    return rc;
}

static const char *pair_name(const rep_cmp_pair *p, kr_buf *b)
{
    kr_buf_reset(b);
    kr_buf_printf(b, "%s%s%s", p->kernel && *p->kernel ? p->kernel : "capture",
                  p->label && *p->label ? " — " : "", p->label && *p->label ? p->label : "");
    return kr_buf_cstr(b);
}

static int chart_pair_stalls(const rep_cmp_pair *p, kr_buf *out)
{
    const an_cmp_trace *t = p->trace;
    rep_hbar_row rows[AN_STALL_COUNT];
    uint64_t vals[AN_STALL_COUNT * 2];
    size_t nr = 0;
    /* BEST's order of the buckets (cycles descending), then CANDIDATE-only ones */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < AN_STALL_COUNT; i++) {
            unsigned k = pass == 0 ? t->best->stalls.kind_order[i] : t->cand->stalls.kind_order[i];
            int have = 0;
            for (size_t j = 0; j < nr; j++)
                have |= rows[j].label == an_stall_kind_key(k);
            if (have || (pass == 0 ? !t->kinds[k].best : !t->kinds[k].cand))
                continue;
            vals[nr * 2] = t->kinds[k].best;
            vals[nr * 2 + 1] = t->kinds[k].cand;
            rows[nr] = (rep_hbar_row){an_stall_kind_key(k), &vals[nr * 2], NULL};
            nr++;
        }
    kr_buf title;
    kr_buf_init(&title);
    pair_name(p, &title);
    kr_buf_puts(&title, ": stall buckets, BEST vs CANDIDATE (share of each capture's Σ Stall)");
    int rc;
    if (!nr) {
        rc = rep_svg_empty(kr_buf_cstr(&title), "No stall cycles on either side.", out);
    } else {
        uint64_t totals[2] = {t->stall_total.best, t->stall_total.cand};
        rep_hbar_chart ch = {0};
        ch.title = kr_buf_cstr(&title);
        ch.subtitle = "code.json Stall by kind of stalled instruction (Stalls section of REPORT.md)";
        ch.x_label = "share of the capture's Σ Stall (%)";
        ch.unit = "cycles";
        ch.series = sides;
        ch.nseries = 2;
        ch.rows = rows;
        ch.nrows = nr;
        ch.scale = REP_SCALE_SERIES_SHARE;
        ch.series_totals = totals;
        ch.grouped = 1;
        rc = title.oom ? KR_INTERNAL : rep_svg_hbars(&ch, out);
    }
    kr_buf_free(&title);
    return rc;
}

static int chart_pair_states(const rep_cmp_pair *p, kr_buf *out)
{
    static const unsigned order[AN_STATES_N] = {KR_STATE_IDLE, KR_STATE_EXEC, KR_STATE_WAIT,
                                                KR_STATE_STALL, KR_STATE_EMPTY, AN_STATE_OTHER};
    const an_cmp_trace *t = p->trace;
    rep_hbar_row rows[AN_STATES_N];
    uint64_t vals[AN_STATES_N * 2];
    size_t nr = 0;
    for (size_t i = 0; i < AN_STATES_N; i++) {
        unsigned s = order[i];
        if (i >= 4 && !t->states[s].best && !t->states[s].cand)
            continue;
        vals[nr * 2] = t->states[s].best;
        vals[nr * 2 + 1] = t->states[s].cand;
        rows[nr] = (rep_hbar_row){an_state_key(s), &vals[nr * 2], NULL};
        nr++;
    }
    kr_buf title;
    kr_buf_init(&title);
    pair_name(p, &title);
    kr_buf_puts(&title, ": wave states, BEST vs CANDIDATE (share of each capture's wave-cycles)");
    uint64_t totals[2] = {t->states_total.best, t->states_total.cand};
    rep_hbar_chart ch = {0};
    ch.title = kr_buf_cstr(&title);
    ch.subtitle = "raw timeline cycles per state (kreport help wave-states) over all waves of each capture";
    ch.x_label = "share of the capture's wave-cycles (%)";
    ch.unit = "cycles";
    ch.series = sides;
    ch.nseries = 2;
    ch.rows = rows;
    ch.nrows = nr;
    ch.scale = REP_SCALE_SERIES_SHARE;
    ch.series_totals = totals;
    ch.grouped = 1;
    int rc = title.oom ? KR_INTERNAL : rep_svg_hbars(&ch, out);
    kr_buf_free(&title);
    return rc;
}

static void jrow_side(kr_buf *out, const kr_capture *c, uint32_t row)
{
    if (row == AN_ALIGN_NONE || row >= c->nrows) {
        kr_buf_puts(out, "-1,-1,-1,-1");
        return;
    }
    const kr_code_row *r = &c->rows[row];
    kr_buf_printf(out, "%u,%llu,%llu,%llu", row, (unsigned long long)r->stall, (unsigned long long)r->hit,
                  (unsigned long long)r->latency);
}

/* The aligned rows of every pair with a trace: per pair row
 * [kind, best row, best Stall, Hit, Latency, candidate row, Stall, Hit,
 *  Latency, best ISA, candidate ISA ("" when the text is the same)], -1
 * for the side a row lacks; Σ Stall of each side's instruction rows. */
static void cmp_json(const rep_cmp_input *in, kr_buf *out)
{
    kr_buf name;
    kr_buf_init(&name);
    kr_buf_puts(out, "{\"kinds\":[");
    for (int k = 0; k < AN_PAIR_KINDS; k++)
        kr_buf_printf(out, "%s\"%s\"", k ? "," : "", an_pair_kind_id((an_pair_kind)k));
    kr_buf_puts(out, "],\"pairs\":[");
    size_t np = 0;
    for (size_t i = 0; i < in->npairs; i++) {
        const an_cmp_trace *t = in->pairs[i].trace;
        if (!t)
            continue;
        const kr_capture *cb = t->best->cap, *cc = t->cand->cap;
        kr_buf_puts(out, np++ ? ",\n{\"name\":" : "\n{\"name\":");
        rep_explorer_jstr(out, pair_name(&in->pairs[i], &name));
        kr_buf_printf(out, ",\"method\":\"%s\",\"quality\":%.4f,\"stall_total\":[%llu,%llu],\"rows\":[",
                      t->align.method, t->align.quality, (unsigned long long)t->stall.best,
                      (unsigned long long)t->stall.cand);
        for (size_t k = 0; k < t->align.npairs; k++) {
            const an_align_pair *p = &t->align.pairs[k];
            kr_buf_printf(out, "%s%u,", k ? ",\n[" : "\n[", p->kind);
            jrow_side(out, cb, p->best);
            kr_buf_putc(out, ',');
            jrow_side(out, cc, p->cand);
            kr_buf_putc(out, ',');
            const char *bi = p->best != AN_ALIGN_NONE && p->best < cb->nrows ? cb->rows[p->best].isa : "";
            const char *ci = p->cand != AN_ALIGN_NONE && p->cand < cc->nrows ? cc->rows[p->cand].isa : "";
            rep_explorer_jstr(out, bi);
            kr_buf_putc(out, ',');
            rep_explorer_jstr(out, strcmp(bi, ci) == 0 ? "" : ci);
            kr_buf_putc(out, ']');
        }
        kr_buf_puts(out, "]}");
    }
    kr_buf_puts(out, "]}");
    out->oom |= name.oom;
    kr_buf_free(&name);
}

static const char cmp_intro[] =
    "<p>The instruction rows of BEST and CANDIDATE side by side, as the ISA alignment of the Trace "
    "explanation paired them (identical text, the same text with registers and numbers masked, the same "
    "mnemonic, or one side only). Δ columns are CANDIDATE − BEST; a row is shaded by its change of stall "
    "share (its Stall over its capture's Σ Stall, so captures with different wave counts compare): orange "
    "where CANDIDATE spends a larger share stalled, blue where a smaller.</p>";

int rep_compare_html(const rep_cmp_input *in, kr_buf *out)
{
    kr_buf md;
    kr_buf_init(&md);
    size_t nf = 1 + 2 * in->npairs;
    kr_buf *svg = calloc(nf, sizeof *svg);
    rep_html_figure *figs = calloc(nf, sizeof *figs);
    int rc = rep_compare_markdown(in, &md) || !svg || !figs ? KR_INTERNAL : 0;
    size_t n = 0;
    if (!rc) {
        for (size_t i = 0; i < nf; i++)
            kr_buf_init(&svg[i]);
        int drawn = 0;
        rc = chart_groups(in->cmp, &svg[n], &drawn);
        if (!rc && drawn) {
            /* beside the class table when there is one, else beside the timing */
            figs[n].section = in->cmp->has_bench ? "Per-class results" : "Kernel GPU time";
            n++;
        }
        for (size_t i = 0; !rc && i < in->npairs; i++) {
            if (!in->pairs[i].trace)
                continue;
            rc = chart_pair_states(&in->pairs[i], &svg[n]);
            if (!rc)
                figs[n++].section = "Trace explanation";
            if (!rc)
                rc = chart_pair_stalls(&in->pairs[i], &svg[n]);
            if (!rc)
                figs[n++].section = "Trace explanation";
        }
        for (size_t i = 0; !rc && i < n; i++) {
            figs[i].svg = kr_buf_cstr(&svg[i]);
            rc = svg[i].oom ? KR_INTERNAL : 0;
        }
        kr_buf data;
        kr_buf_init(&data);
        int traced = 0;
        for (size_t i = 0; i < in->npairs; i++)
            traced |= in->pairs[i].trace != NULL;
        if (!rc && traced) {
            cmp_json(in, &data);
            rep_html_app app = {"aligned", "Aligned instructions", cmp_intro, "compare.js", kr_buf_cstr(&data)};
            rc = data.oom ? KR_INTERNAL : rep_html_app_page(NULL, kr_buf_cstr(&md), figs, n, &app, out);
        } else if (!rc) {
            rc = rep_html_page(NULL, kr_buf_cstr(&md), figs, n, out);
        }
        kr_buf_free(&data);
        for (size_t i = 0; i < nf; i++)
            kr_buf_free(&svg[i]);
    }
    free(svg);
    free(figs);
    kr_buf_free(&md);
    return rc ? KR_INTERNAL : 0;
}
