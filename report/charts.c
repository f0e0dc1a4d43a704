/* charts.c — see charts.h. Colours keep one meaning across the page:
 * stall = vermillion, execution/issue = blue, waits = orange, idle = grey. */
#include "report/charts.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/fmt.h"
#include "report/svg.h"

#define IDLE_COLOR "#BBBBBB"

/* ---- bins ---- */

void rep_timebins_make(int64_t t0, uint64_t span, size_t max_bins, rep_timebins *b)
{
    b->t0 = t0;
    b->span = span;
    if (max_bins == 0)
        max_bins = 1;
    if (span == 0) {
        b->width = 1;
        b->n = 0;
        return;
    }
    b->width = (span + max_bins - 1) / max_bins;
    b->n = (size_t)((span + b->width - 1) / b->width);
}

void rep_timebins_add(const rep_timebins *b, int64_t from, int64_t to, uint64_t weight, uint64_t *acc)
{
    if (!b->n || to <= from || weight == 0)
        return;
    int64_t lo = b->t0, hi = b->t0 + (int64_t)b->span;
    if (from < lo)
        from = lo;
    if (to > hi)
        to = hi;
    if (to <= from)
        return;
    uint64_t a = (uint64_t)(from - lo), e = (uint64_t)(to - lo);
    size_t k = (size_t)(a / b->width);
    while (a < e && k < b->n) {
        uint64_t bend = (uint64_t)(k + 1) * b->width;
        if (bend > e)
            bend = e;
        acc[k] += weight * (bend - a);
        a = bend;
        k++;
    }
}

uint64_t rep_timebins_len(const rep_timebins *b, size_t k)
{
    uint64_t lo = (uint64_t)k * b->width;
    if (lo >= b->span)
        return 0;
    return b->span - lo < b->width ? b->span - lo : b->width;
}

static int64_t offset_of(const kr_capture *c, uint32_t se)
{
    return c->realtime.aligned && se < 64 ? c->realtime.se_offset[se] : 0;
}

static size_t se_index(const uint32_t *ses, size_t n, uint32_t se)
{
    for (size_t i = 0; i < n; i++)
        if (ses[i] == se)
            return i;
    return SIZE_MAX;
}

static void add_se(uint32_t *ses, size_t *n, uint32_t se)
{
    if (se_index(ses, *n, se) != SIZE_MAX || *n >= REP_CHART_MAX_SES)
        return;
    size_t i = (*n)++;
    while (i > 0 && ses[i - 1] > se) {
        ses[i] = ses[i - 1];
        i--;
    }
    ses[i] = se;
}

static const char *alignment_text(int aligned)
{
    return aligned ? "SE clocks aligned with the realtime.json offsets (`kreport help capture`)"
                   : "raw per-SE clocks, not aligned (no realtime.json)";
}

/* ---- waves in each state over time ---- */

int rep_state_series_compute(const kr_capture *c, size_t max_bins, rep_state_series *out)
{
    memset(out, 0, sizeof *out);
    out->aligned = c->realtime.aligned;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t w = 0; w < c->nwaves; w++) {
        const kr_wave *wv = &c->waves[w];
        add_se(out->ses, &out->nses, wv->se);
        int64_t off = offset_of(c, wv->se);
        uint64_t len = 0;
        for (size_t e = 0; e < wv->ntimeline; e++)
            len += wv->timeline[e].cycles;
        int64_t b = (int64_t)wv->begin + off;
        int64_t f = b + (int64_t)len;
        if ((int64_t)wv->end + off > f)
            f = (int64_t)wv->end + off;
        if (b < lo)
            lo = b;
        if (f > hi)
            hi = f;
    }
    if (c->nwaves == 0 || hi <= lo) {
        rep_timebins_make(0, 0, max_bins, &out->bins);
        return 0;
    }
    rep_timebins_make(lo, (uint64_t)(hi - lo), max_bins, &out->bins);
    size_t n = out->bins.n;
    out->cycles = calloc(out->nses * KR_STATE_COUNT * n, sizeof *out->cycles);
    if (!out->cycles)
        return KR_INTERNAL;
    for (size_t w = 0; w < c->nwaves; w++) {
        const kr_wave *wv = &c->waves[w];
        size_t si = se_index(out->ses, out->nses, wv->se);
        if (si == SIZE_MAX)
            continue;
        int64_t t = (int64_t)wv->begin + offset_of(c, wv->se);
        for (size_t e = 0; e < wv->ntimeline; e++) {
            const kr_tl *tl = &wv->timeline[e];
            if (tl->state < KR_STATE_COUNT)
                rep_timebins_add(&out->bins, t, t + (int64_t)tl->cycles, 1,
                                 &out->cycles[(si * KR_STATE_COUNT + tl->state) * n]);
            else
                out->other_cycles += tl->cycles;
            t += (int64_t)tl->cycles;
        }
    }
    return 0;
}

void rep_state_series_free(rep_state_series *s)
{
    free(s->cycles);
    s->cycles = NULL;
}

/* ---- resident waves over time ---- */

typedef struct occ_ev {
    int64_t t;
    uint8_t start;
    uint32_t se, cu, simd, slot;
} occ_ev;

static int ev_cmp(const void *pa, const void *pb)
{
    const occ_ev *a = pa, *b = pb;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;   /* ends first (docs/occupancy.md#resident-waves) */
    if (a->se != b->se)
        return a->se < b->se ? -1 : 1;
    if (a->cu != b->cu)
        return a->cu < b->cu ? -1 : 1;
    if (a->simd != b->simd)
        return a->simd < b->simd ? -1 : 1;
    return a->slot < b->slot ? -1 : a->slot > b->slot;
}

int rep_occ_series_compute(const kr_capture *c, size_t max_bins, rep_occ_series *out)
{
    memset(out, 0, sizeof *out);
    out->aligned = c->realtime.aligned;
    const kr_occupancy *o = &c->occupancy;
    size_t total = 0;
    for (size_t i = 0; i < o->nses; i++) {
        if (o->ses[i].nrows)
            add_se(out->ses, &out->nses, o->ses[i].se);
        total += o->ses[i].nrows;
    }
    rep_timebins_make(0, 0, max_bins, &out->bins);
    if (total == 0)
        return 0;
    occ_ev *ev = malloc(total * sizeof *ev);
    if (!ev)
        return KR_INTERNAL;
    size_t ne = 0;
    for (size_t i = 0; i < o->nses; i++) {
        if (se_index(out->ses, out->nses, o->ses[i].se) == SIZE_MAX)
            continue;
        int64_t off = offset_of(c, o->ses[i].se);
        for (size_t r = 0; r < o->ses[i].nrows; r++) {
            const kr_occ_row *row = &o->ses[i].rows[r];
            ev[ne++] = (occ_ev){(int64_t)row->time + off, row->start ? 1 : 0, o->ses[i].se, row->cu, row->simd,
                                row->slot};
        }
    }
    qsort(ev, ne, sizeof *ev, ev_cmp);
    out->first = ev[0].t;
    out->last = ev[ne - 1].t;
    /* peak and tail over all SEs together */
    uint64_t r = 0, peak = 0;
    for (size_t i = 0; i < ne; i++) {
        if (ev[i].start) {
            r++;
            out->starts++;
        } else if (r > 0) {
            r--;
        }
        if (r > peak)
            peak = r;
    }
    out->peak = (uint32_t)(peak > UINT32_MAX ? UINT32_MAX : peak);
    out->tail_from = out->last;
    r = 0;
    for (size_t i = 0; i + 1 < ne; i++) {
        r = ev[i].start ? r + 1 : (r ? r - 1 : 0);
        if (ev[i + 1].t > ev[i].t && peak > 0 && 2 * r >= peak)
            out->tail_from = ev[i + 1].t;
    }
    /* per-SE integrals in bins (ev is sorted, so each SE's events are in order) */
    rep_timebins_make(out->first, (uint64_t)(out->last - out->first), max_bins, &out->bins);
    size_t n = out->bins.n;
    if (n) {
        out->cycles = calloc(out->nses * n, sizeof *out->cycles);
        uint64_t *res = calloc(out->nses, sizeof *res);
        int64_t *prev = calloc(out->nses, sizeof *prev);
        if (!out->cycles || !res || !prev) {
            free(res);
            free(prev);
            free(ev);
            rep_occ_series_free(out);
            return KR_INTERNAL;
        }
        for (size_t i = 0; i < ne; i++) {
            size_t si = se_index(out->ses, out->nses, ev[i].se);
            rep_timebins_add(&out->bins, prev[si], ev[i].t, res[si], &out->cycles[si * n]);
            prev[si] = ev[i].t;
            res[si] = ev[i].start ? res[si] + 1 : (res[si] ? res[si] - 1 : 0);
        }
        free(res);
        free(prev);
    }
    free(ev);
    return 0;
}

void rep_occ_series_free(rep_occ_series *s)
{
    free(s->cycles);
    s->cycles = NULL;
}

/* ---- helpers ---- */

static const char *titled(kr_buf *b, const char *label, const char *what)
{
    kr_buf_reset(b);
    if (label && *label)
        kr_buf_printf(b, "%s: %s", label, what);
    else
        kr_buf_puts(b, what);
    return kr_buf_cstr(b);
}

/* Display order and colours of the states (IDLE, EXEC, WAIT, STALL, then
 * the two that do not occur in practice). */
static const unsigned state_order[AN_STATES_N] = {KR_STATE_IDLE, KR_STATE_EXEC, KR_STATE_WAIT,
                                                  KR_STATE_STALL, KR_STATE_EMPTY, AN_STATE_OTHER};

static const char *state_color(unsigned s)
{
    switch (s) {
    case KR_STATE_IDLE: return IDLE_COLOR;
    case KR_STATE_EXEC: return REP_SVG_BLUE;
    case KR_STATE_WAIT: return REP_SVG_ORANGE;
    case KR_STATE_STALL: return REP_SVG_VERMILLION;
    case KR_STATE_EMPTY: return "#E5E5E5";
    default: return REP_SVG_PURPLE;
    }
}

/* ---- wave-state bars per SE and per SIMD ---- */

int rep_chart_state_bars(const an_states *st, const char *label, kr_buf *out)
{
    kr_buf title;
    kr_buf_init(&title);
    titled(&title, label, "share of wave time in each state, per SE and per SIMD");
    if (st->nse + st->nsimd == 0) {
        int rc = rep_svg_empty(kr_buf_cstr(&title), "No wave timelines in this capture.", out);
        kr_buf_free(&title);
        return rc;
    }
    rep_svg_series ser[AN_STATES_N];
    unsigned which[AN_STATES_N];
    size_t ns = 0;
    for (size_t i = 0; i < AN_STATES_N; i++) {
        unsigned s = state_order[i];
        if (i < 4 || st->all.raw[s] > 0) {
            ser[ns].name = an_state_key(s);
            ser[ns].color = state_color(s);
            which[ns++] = s;
        }
    }
    size_t nrows = st->nse + st->nsimd;
    rep_hbar_row *rows = calloc(nrows, sizeof *rows);
    uint64_t *vals = calloc(nrows * ns, sizeof *vals);
    char (*labs)[32] = calloc(nrows, sizeof *labs);
    int rc = KR_INTERNAL;
    if (rows && vals && labs) {
        for (size_t r = 0; r < nrows; r++) {
            const an_states_scope *sc = r < st->nse ? &st->per_se[r] : &st->per_simd[r - st->nse];
            if (r < st->nse)
                snprintf(labs[r], sizeof labs[r], "SE %u", sc->se);
            else
                snprintf(labs[r], sizeof labs[r], "SIMD %u", sc->simd);
            rows[r].label = labs[r];
            rows[r].values = &vals[r * ns];
            for (size_t j = 0; j < ns; j++)
                vals[r * ns + j] = sc->sums.raw[which[j]];
        }
        if (st->nse)
            rows[0].group = "per SE";
        if (st->nsimd)
            rows[st->nse].group = "per SIMD (waves of every SE)";
        rep_hbar_chart ch = {0};
        ch.title = kr_buf_cstr(&title);
        ch.subtitle = "raw timeline cycles (`kreport help wave-states`); each bar is 100 % of its scope, its total at the right";
        ch.x_label = "share of the scope's wave-cycles (%)";
        ch.unit = "cycles";
        ch.series = ser;
        ch.nseries = ns;
        ch.rows = rows;
        ch.nrows = nrows;
        ch.scale = REP_SCALE_ROW_SHARE;
        rc = rep_svg_hbars(&ch, out);
    }
    free(rows);
    free(vals);
    free(labs);
    kr_buf_free(&title);
    return rc;
}

/* ---- waves in each state over time ---- */

int rep_chart_state_time(const kr_capture *c, const char *label, kr_buf *out)
{
    kr_buf title, sub, xl, desc;
    kr_buf_init(&title);
    kr_buf_init(&sub);
    kr_buf_init(&xl);
    kr_buf_init(&desc);
    titled(&title, label, "waves in each state over time, per SE");
    rep_state_series ss;
    int rc = rep_state_series_compute(c, REP_CHART_BINS, &ss);
    if (rc)
        goto out;
    size_t n = ss.bins.n;
    if (n == 0 || ss.nses == 0) {
        rc = rep_svg_empty(kr_buf_cstr(&title), "No wave timelines in this capture.", out);
        goto out;
    }
    rep_svg_series ser[KR_STATE_COUNT];
    unsigned which[KR_STATE_COUNT];
    size_t ns = 0;
    for (size_t i = 0; i < AN_STATES_N; i++)
        if (state_order[i] < KR_STATE_COUNT) {
            ser[ns].name = kr_state_name(state_order[i]);
            ser[ns].color = state_color(state_order[i]);
            which[ns++] = state_order[i];
        }
    double *vals = calloc(ss.nses * ns * n, sizeof *vals);
    rep_area_panel *panels = calloc(ss.nses, sizeof *panels);
    char (*labs)[32] = calloc(ss.nses, sizeof *labs);
    if (!vals || !panels || !labs) {
        free(vals);
        free(panels);
        free(labs);
        rc = KR_INTERNAL;
        goto out;
    }
    char a[32], b[32];
    kr_buf_printf(&desc, "%s. Mean number of waves in each state per bin of %s cycles (%zu bins), %s.",
                  kr_buf_cstr(&title), kr_fmt_u64(a, sizeof a, ss.bins.width), n, alignment_text(ss.aligned));
    for (size_t si = 0; si < ss.nses; si++) {
        snprintf(labs[si], sizeof labs[si], "SE %u", ss.ses[si]);
        panels[si].label = labs[si];
        panels[si].values = &vals[si * ns * n];
        kr_buf_printf(&desc, " SE %u, mean waves over the span:", ss.ses[si]);
        for (size_t j = 0; j < ns; j++) {
            const uint64_t *cy = &ss.cycles[(si * KR_STATE_COUNT + which[j]) * n];
            uint64_t sum = 0;
            for (size_t k = 0; k < n; k++) {
                uint64_t len = rep_timebins_len(&ss.bins, k);
                vals[(si * ns + j) * n + k] = len ? (double)cy[k] / (double)len : 0;
                sum += cy[k];
            }
            kr_buf_printf(&desc, "%s %s %s", j ? "," : "", ser[j].name,
                          kr_fmt_fixed(b, sizeof b, (double)sum / (double)ss.bins.span, 2));
        }
        kr_buf_putc(&desc, '.');
    }
    kr_buf_printf(&sub, "mean waves per bin of %s cycles (%zu bins); stacked, so the top edge is the waves alive",
                  kr_fmt_u64(a, sizeof a, ss.bins.width), n);
    kr_buf_printf(&xl, "cycles since the first wave began — %s", alignment_text(ss.aligned));
    rep_area_chart ch = {0};
    ch.title = kr_buf_cstr(&title);
    ch.subtitle = kr_buf_cstr(&sub);
    ch.x_label = kr_buf_cstr(&xl);
    ch.y_label = "waves";
    ch.desc = kr_buf_cstr(&desc);
    ch.series = ser;
    ch.nseries = ns;
    ch.panels = panels;
    ch.npanels = ss.nses;
    ch.nbins = n;
    ch.bin_width = (double)ss.bins.width;
    ch.x_max = (double)ss.bins.span;
    ch.hline = -1;
    rc = desc.oom || sub.oom || xl.oom ? KR_INTERNAL : rep_svg_areas(&ch, out);
    free(vals);
    free(panels);
    free(labs);
out:
    rep_state_series_free(&ss);
    kr_buf_free(&title);
    kr_buf_free(&sub);
    kr_buf_free(&xl);
    kr_buf_free(&desc);
    return rc;
}

/* ---- resident waves over time ---- */

int rep_chart_occupancy(const kr_capture *c, const char *label, kr_buf *out)
{
    kr_buf title, sub, xl, desc, mark, hl;
    kr_buf_init(&title);
    kr_buf_init(&sub);
    kr_buf_init(&xl);
    kr_buf_init(&desc);
    kr_buf_init(&mark);
    kr_buf_init(&hl);
    titled(&title, label, "resident waves over time (occupancy.json), all CUs, stacked by SE");
    rep_occ_series os;
    int rc = rep_occ_series_compute(c, REP_CHART_BINS, &os);
    if (rc)
        goto out;
    size_t n = os.bins.n;
    if (n == 0 || os.nses == 0) {
        rc = rep_svg_empty(kr_buf_cstr(&title),
                           c->occupancy.present ? "occupancy.json has no rows." : "No occupancy.json in this capture.",
                           out);
        goto out;
    }
    rep_svg_series ser[REP_CHART_MAX_SES];
    char (*labs)[32] = calloc(os.nses, sizeof *labs);
    double *vals = calloc(os.nses * n, sizeof *vals);
    if (!labs || !vals) {
        free(labs);
        free(vals);
        rc = KR_INTERNAL;
        goto out;
    }
    for (size_t si = 0; si < os.nses; si++) {
        snprintf(labs[si], sizeof labs[si], "SE %u", os.ses[si]);
        ser[si].name = labs[si];
        ser[si].color = rep_svg_palette(si);
        for (size_t k = 0; k < n; k++) {
            uint64_t len = rep_timebins_len(&os.bins, k);
            vals[si * n + k] = len ? (double)os.cycles[si * n + k] / (double)len : 0;
        }
    }
    rep_area_panel panel = {NULL, vals};
    uint64_t span = (uint64_t)(os.last - os.first);
    uint64_t tail = (uint64_t)(os.last - os.tail_from);
    char a[32], b[32], p[32];
    rep_area_mark m = {(double)(os.tail_from - os.first), (double)span, NULL};
    if (tail > 0) {
        kr_buf_printf(&mark, "underfilled tail: %s cycles (%s of the span) under half the peak",
                      kr_fmt_u64(a, sizeof a, tail), kr_fmt_pct(p, sizeof p, (double)tail, (double)span, 1));
        m.label = kr_buf_cstr(&mark);
    }
    kr_buf_printf(&hl, "half the peak (%s waves)", kr_fmt_fixed(a, sizeof a, os.peak / 2.0, 1));
    kr_buf_printf(&desc, "%s. %" PRIu64 " wave starts on %zu SEs; at most %u waves resident at once; span %s cycles, %s. ",
                  kr_buf_cstr(&title), os.starts, os.nses, os.peak, kr_fmt_u64(b, sizeof b, span),
                  alignment_text(os.aligned));
    if (tail > 0)
        kr_buf_printf(&desc, "Underfilled tail: the last %s cycles (%s of the span) had fewer than half the peak resident.",
                      kr_fmt_u64(a, sizeof a, tail), kr_fmt_pct(p, sizeof p, (double)tail, (double)span, 1));
    else
        kr_buf_puts(&desc, "No underfilled tail: at least half the peak stayed resident to the end.");
    kr_buf_printf(&sub, "mean resident waves per bin of %s cycles (%zu bins); shaded: the underfilled tail",
                  kr_fmt_u64(a, sizeof a, os.bins.width), n);
    kr_buf_printf(&xl, "cycles since the first wave started — %s", alignment_text(os.aligned));
    rep_area_chart ch = {0};
    ch.title = kr_buf_cstr(&title);
    ch.subtitle = kr_buf_cstr(&sub);
    ch.x_label = kr_buf_cstr(&xl);
    ch.y_label = "resident waves";
    ch.desc = kr_buf_cstr(&desc);
    ch.series = ser;
    ch.nseries = os.nses;
    ch.panels = &panel;
    ch.npanels = 1;
    ch.nbins = n;
    ch.bin_width = (double)os.bins.width;
    ch.x_max = (double)span;
    ch.hline = os.peak / 2.0;
    ch.hline_label = kr_buf_cstr(&hl);
    ch.marks = &m;
    ch.nmarks = tail > 0;
    rc = desc.oom || sub.oom || xl.oom || mark.oom || hl.oom ? KR_INTERNAL : rep_svg_areas(&ch, out);
    free(labs);
    free(vals);
out:
    rep_occ_series_free(&os);
    kr_buf_free(&title);
    kr_buf_free(&sub);
    kr_buf_free(&xl);
    kr_buf_free(&desc);
    kr_buf_free(&mark);
    kr_buf_free(&hl);
    return rc;
}

/* ---- hotspots ---- */

int rep_chart_hotspots(const an_hotspots *h, const char *label, kr_buf *out)
{
    kr_buf title;
    kr_buf_init(&title);
    kr_buf_printf(&title, "%s%stop %zu rows by stall: stall, issue and idle cycles", label ? label : "",
                  label ? ": " : "", h->nby_stall);
    if (h->nby_stall == 0) {
        int rc = rep_svg_empty(kr_buf_cstr(&title), "No instruction row stalled.", out);
        kr_buf_free(&title);
        return rc;
    }
    static const rep_svg_series ser[3] = {
        {"stall", REP_SVG_VERMILLION}, {"issue", REP_SVG_BLUE}, {"idle", IDLE_COLOR}};
    size_t nr = h->nby_stall;
    rep_hbar_row *rows = calloc(nr, sizeof *rows);
    uint64_t *vals = calloc(nr * 3, sizeof *vals);
    char **labs = calloc(nr, sizeof *labs);
    int rc = KR_INTERNAL;
    if (rows && vals && labs) {
        int ok = 1;
        for (size_t i = 0; i < nr && ok; i++) {
            const an_hot *e = &h->by_stall[i];
            const kr_code_row *r = &h->rows[e->row];
            kr_buf b;
            kr_buf_init(&b);
            kr_buf_printf(&b, "row %u · %s", e->row, r->isa ? r->isa : "");
            labs[i] = b.oom ? NULL : strdup(kr_buf_cstr(&b));
            kr_buf_free(&b);
            ok = labs[i] != NULL;
            uint64_t stall = e->stall < e->latency ? e->stall : e->latency;
            vals[i * 3 + 0] = stall;
            vals[i * 3 + 1] = e->latency - stall;
            vals[i * 3 + 2] = e->idle;
            rows[i].label = labs[i];
            rows[i].values = &vals[i * 3];
        }
        if (ok) {
            rep_hbar_chart ch = {0};
            ch.title = kr_buf_cstr(&title);
            ch.subtitle = "code.json per row: stall = Stall (at most Latency), issue = Latency − stall, "
                          "idle = Idle (`kreport help wave-states`)";
            ch.x_label = "cycles, summed over every execution of the row";
            ch.unit = "cycles";
            ch.series = ser;
            ch.nseries = 3;
            ch.rows = rows;
            ch.nrows = nr;
            ch.scale = REP_SCALE_ABS;
            rc = rep_svg_hbars(&ch, out);
        }
    }
    for (size_t i = 0; labs && i < nr; i++)
        free(labs[i]);
    free(labs);
    free(rows);
    free(vals);
    kr_buf_free(&title);
    return rc;
}

/* ---- heat strip per source line (or per instruction row) ---- */

typedef struct file_sum {
    const char *path;
    uint64_t latency;
    uint32_t lo, hi;
    size_t nlines;               /* distinct lines with instructions */
} file_sum;

static int file_cmp(const void *pa, const void *pb)
{
    const file_sum *a = pa, *b = pb;
    if (a->latency != b->latency)
        return a->latency > b->latency ? -1 : 1;
    return strcmp(a->path, b->path);
}

static const char *leaf(const char *p)
{
    const char *s = strrchr(p, '/');
    return s && s[1] ? s + 1 : p;
}

typedef struct strip_store {         /* what one strip's pointers refer to */
    uint64_t *values;
    char **tips;
    size_t ncells;
    char first[48], last[48], mark[64];
} strip_store;

static void strips_free(strip_store *st, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; st[i].tips && k < st[i].ncells; k++)
            free(st[i].tips[k]);
        free(st[i].tips);
        free(st[i].values);
    }
    free(st);
}

static char *dup_buf(kr_buf *b)
{
    return b->oom ? NULL : strdup(kr_buf_cstr(b));
}

static int u32_cmp(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return a < b ? -1 : a > b;
}

/* The hottest cell of a strip gets its name written above it. */
static void mark_hottest(strip_store *st, rep_heat_strip *hs, const char *const *names)
{
    uint64_t best = 0;
    for (size_t k = 0; k < st->ncells; k++)
        if (st->values[k] > best) {
            best = st->values[k];
            hs->mark = k;
        }
    if (best) {
        snprintf(st->mark, sizeof st->mark, "%s", names[hs->mark]);
        hs->mark_label = st->mark;
    }
}

/* One strip per file: its lines that have instructions, in line order,
 * consecutive ones grouped when there are more than REP_CHART_BINS. */
static int source_strips(const an_sources *s, file_sum *files, size_t nfiles, strip_store *st, rep_heat_strip *hs)
{
    kr_buf t;
    kr_buf_init(&t);
    int rc = 0;
    for (size_t f = 0; f < nfiles && !rc; f++) {
        size_t nl = files[f].nlines, per = (nl + REP_CHART_BINS - 1) / REP_CHART_BINS;
        size_t ncells = (nl + per - 1) / per;
        uint32_t *lines = calloc(nl, sizeof *lines);
        uint64_t *stall = calloc(ncells, sizeof *stall), *hit = calloc(ncells, sizeof *hit);
        char **names = calloc(ncells, sizeof *names);
        st[f].values = calloc(ncells, sizeof *st[f].values);
        st[f].tips = calloc(ncells, sizeof *st[f].tips);
        if (!lines || !stall || !hit || !names || !st[f].values || !st[f].tips)
            rc = KR_INTERNAL;
        st[f].ncells = rc ? 0 : ncells;
        size_t j = 0;
        for (size_t i = 0; !rc && i < s->nlines && j < nl; i++) {
            const an_src_line *l = &s->lines[i];
            if (l->line != 0 && l->excl_rows != 0 && l->path && strcmp(l->path, files[f].path) == 0)
                lines[j++] = l->line;
        }
        if (!rc)
            qsort(lines, j, sizeof *lines, u32_cmp);
        for (size_t i = 0; !rc && i < s->nlines; i++) {
            const an_src_line *l = &s->lines[i];
            if (l->line == 0 || l->excl_rows == 0 || !l->path || strcmp(l->path, files[f].path) != 0)
                continue;
            const uint32_t *at = bsearch(&l->line, lines, j, sizeof *lines, u32_cmp);
            size_t k = (size_t)(at - lines) / per;
            st[f].values[k] += l->excl.latency;
            stall[k] += l->excl.stall;
            hit[k] += l->excl.hit;
        }
        for (size_t k = 0; !rc && k < ncells; k++) {
            uint32_t a = lines[k * per], b = lines[(k + 1) * per - 1 < j ? (k + 1) * per - 1 : j - 1];
            kr_buf_reset(&t);
            if (a == b)
                kr_buf_printf(&t, "line %u", a);
            else
                kr_buf_printf(&t, "lines %u–%u", a, b);
            names[k] = dup_buf(&t);
            kr_buf_reset(&t);
            if (a == b)
                kr_buf_printf(&t, "%s:%u", files[f].path, a);
            else
                kr_buf_printf(&t, "%s:%u–%u (%zu lines with instructions)", files[f].path, a, b,
                              (k + 1) * per <= j ? per : j - k * per);
            kr_buf_printf(&t, " — latency %" PRIu64 " cycles, stall %" PRIu64 " cycles, hit %" PRIu64,
                          st[f].values[k], stall[k], hit[k]);
            st[f].tips[k] = dup_buf(&t);
            if (!names[k] || !st[f].tips[k])
                rc = KR_INTERNAL;
        }
        if (!rc) {
            snprintf(st[f].first, sizeof st[f].first, "line %u", files[f].lo);
            snprintf(st[f].last, sizeof st[f].last, "line %u", files[f].hi);
            hs[f].label = leaf(files[f].path);
            hs[f].values = st[f].values;
            hs[f].tips = (const char *const *)st[f].tips;
            hs[f].ncells = ncells;
            hs[f].first = st[f].first;
            hs[f].last = st[f].last;
            mark_hottest(&st[f], &hs[f], (const char *const *)names);
        }
        for (size_t k = 0; names && k < ncells; k++)
            free(names[k]);
        free(names);
        free(lines);
        free(stall);
        free(hit);
    }
    if (t.oom)
        rc = KR_INTERNAL;
    kr_buf_free(&t);
    return rc;
}

static int row_strip(const kr_capture *c, strip_store *st, rep_heat_strip *hs, size_t *per_out)
{
    size_t ninst = 0;
    for (size_t i = 0; i < c->nrows; i++)
        ninst += !c->rows[i].is_label;
    size_t per = (ninst + REP_CHART_BINS - 1) / REP_CHART_BINS;
    if (per == 0)
        per = 1;
    *per_out = per;
    size_t ncells = (ninst + per - 1) / per;
    st->values = calloc(ncells ? ncells : 1, sizeof *st->values);
    st->tips = calloc(ncells ? ncells : 1, sizeof *st->tips);
    if (!st->values || !st->tips)
        return KR_INTERNAL;
    st->ncells = ncells;
    kr_buf t;
    kr_buf_init(&t);
    size_t k = 0, in_cell = 0, first_row = 0, hot_row = 0, inst = 0;
    uint64_t stall = 0, best = 0;
    for (size_t i = 0; i < c->nrows; i++) {
        const kr_code_row *r = &c->rows[i];
        if (r->is_label)
            continue;
        if (in_cell == 0) {
            first_row = i;
            hot_row = i;
            stall = 0;
        }
        st->values[k] += r->latency;
        stall += r->stall;
        if (r->latency > c->rows[hot_row].latency)
            hot_row = i;
        in_cell++;
        inst++;
        if (in_cell == per || inst == ninst) {
            kr_buf_reset(&t);
            if (in_cell == 1)
                kr_buf_printf(&t, "row %zu · %s", first_row, r->isa ? r->isa : "");
            else
                kr_buf_printf(&t, "rows %zu–%zu", first_row, i);
            kr_buf_printf(&t, " — latency %" PRIu64 " cycles, stall %" PRIu64 " cycles", st->values[k], stall);
            if (in_cell > 1 && st->values[k])
                kr_buf_printf(&t, "; hottest row %zu · %s", hot_row,
                              c->rows[hot_row].isa ? c->rows[hot_row].isa : "");
            st->tips[k] = dup_buf(&t);
            if (st->values[k] > best) {
                best = st->values[k];
                hs->mark = k;
                snprintf(st->mark, sizeof st->mark, "row %zu", hot_row);
                hs->mark_label = st->mark;
            }
            k++;
            in_cell = 0;
        }
    }
    snprintf(st->first, sizeof st->first, "first instruction");
    snprintf(st->last, sizeof st->last, "instruction %zu", ninst);
    hs->label = "code.json rows";
    hs->values = st->values;
    hs->tips = (const char *const *)st->tips;
    hs->ncells = ncells;
    hs->first = st->first;
    hs->last = st->last;
    int rc = t.oom ? KR_INTERNAL : 0;
    kr_buf_free(&t);
    return rc;
}

int rep_chart_source_heat(const an_sources *s, const kr_capture *c, const char *label, kr_buf *out)
{
    kr_buf title, sub, desc;
    kr_buf_init(&title);
    kr_buf_init(&sub);
    kr_buf_init(&desc);
    int rc = KR_INTERNAL;
    /* files with mapped lines, by Σ exclusive latency */
    file_sum *files = NULL;
    size_t nfiles = 0;
    for (size_t i = 0; i < s->nlines; i++) {
        const an_src_line *l = &s->lines[i];
        if (l->line == 0 || l->excl_rows == 0 || !l->path)
            continue;
        size_t f = 0;
        while (f < nfiles && strcmp(files[f].path, l->path) != 0)
            f++;
        if (f == nfiles) {
            file_sum *nf = realloc(files, (nfiles + 1) * sizeof *files);
            if (!nf)
                goto out;
            files = nf;
            files[nfiles++] = (file_sum){l->path, 0, l->line, l->line, 0};
        }
        files[f].latency += l->excl.latency;
        files[f].nlines++;
        if (l->line < files[f].lo)
            files[f].lo = l->line;
        if (l->line > files[f].hi)
            files[f].hi = l->line;
    }
    if (nfiles)
        qsort(files, nfiles, sizeof *files, file_cmp);
    size_t nstrips = nfiles ? (nfiles < REP_CHART_MAX_FILES ? nfiles : REP_CHART_MAX_FILES) : 1;
    strip_store *st = calloc(nstrips, sizeof *st);
    rep_heat_strip *hs = calloc(nstrips, sizeof *hs);
    if (!st || !hs) {
        free(st);
        free(hs);
        goto out;
    }
    rep_heat_chart ch = {0};
    ch.value_label = "Σ Latency, cycles (square-root colour scale):";
    if (nfiles) {
        titled(&title, label, "latency by source line (innermost frame)");
        rc = source_strips(s, files, nstrips, st, hs);
        kr_buf_printf(&sub, "each cell: Σ Latency of the rows whose innermost Source frame is on the line%s; "
                      "%zu file%s, %zu drawn", "", nfiles, nfiles == 1 ? "" : "s", nstrips);
        ch.x_label = "source lines that have instructions, in line order (gaps between them left out)";
        kr_buf_printf(&desc, "%s.", kr_buf_cstr(&title));
        for (size_t f = 0; f < nstrips; f++) {
            uint64_t best = 0;
            size_t bk = 0;
            for (size_t k = 0; k < st[f].ncells; k++)
                if (st[f].values[k] > best) {
                    best = st[f].values[k];
                    bk = k;
                }
            kr_buf_printf(&desc, " %s (lines %u–%u): Σ latency %" PRIu64 " cycles", files[f].path, files[f].lo,
                          files[f].hi, files[f].latency);
            if (best && st[f].tips[bk])
                kr_buf_printf(&desc, ", hottest %s", st[f].tips[bk]);
            kr_buf_putc(&desc, '.');
        }
    } else {
        titled(&title, label, "latency by instruction row (no row maps to a source line)");
        size_t per = 1;
        rc = row_strip(c, st, hs, &per);
        if (per == 1)
            kr_buf_puts(&sub, "each cell: Latency of one instruction row of code.json, in row order");
        else
            kr_buf_printf(&sub, "each cell: Σ Latency of %zu consecutive instruction rows of code.json, in row order",
                          per);
        ch.x_label = "instruction rows of code.json, in address order";
        uint64_t best = 0;
        size_t bk = 0;
        for (size_t k = 0; k < st->ncells; k++)
            if (st->values[k] > best) {
                best = st->values[k];
                bk = k;
            }
        kr_buf_printf(&desc, "%s. %zu cells.", kr_buf_cstr(&title), st->ncells);
        if (best && st->tips[bk])
            kr_buf_printf(&desc, " Hottest: %s.", st->tips[bk]);
    }
    if (!rc) {
        ch.title = kr_buf_cstr(&title);
        ch.subtitle = kr_buf_cstr(&sub);
        ch.desc = kr_buf_cstr(&desc);
        ch.strips = hs;
        ch.nstrips = nstrips;
        rc = title.oom || sub.oom || desc.oom ? KR_INTERNAL : rep_svg_heat(&ch, out);
    }
    strips_free(st, nstrips);
    free(hs);
out:
    free(files);
    kr_buf_free(&title);
    kr_buf_free(&sub);
    kr_buf_free(&desc);
    return rc;
}

/* ---- stall buckets ---- */

int rep_chart_stall_buckets(const an_stalls *const *s, const char *const *labels, size_t n, kr_buf *out)
{
    const char *title = "Stall cycles by kind of stalled instruction (share of each capture's Σ Stall)";
    if (n == 0)
        return rep_svg_empty(title, "No capture.", out);
    /* buckets with stall in any capture, in the first capture's order */
    unsigned kinds[AN_STALL_COUNT];
    size_t nk = 0;
    for (size_t pass = 0; pass < n; pass++)
        for (size_t i = 0; i < AN_STALL_COUNT; i++) {
            unsigned k = s[pass]->kind_order[i];
            int have = 0;
            for (size_t j = 0; j < nk; j++)
                have |= kinds[j] == k;
            if (!have && s[pass]->kinds[k].stall > 0)
                kinds[nk++] = k;
        }
    if (nk == 0)
        return rep_svg_empty(title, "No stall cycles in the code table.", out);
    rep_svg_series *ser = calloc(n, sizeof *ser);
    uint64_t *totals = calloc(n, sizeof *totals);
    uint64_t *vals = calloc(nk * n, sizeof *vals);
    rep_hbar_row *rows = calloc(nk, sizeof *rows);
    int rc = KR_INTERNAL;
    if (ser && totals && vals && rows) {
        for (size_t i = 0; i < n; i++) {
            ser[i].name = labels && labels[i] ? labels[i] : "capture";
            ser[i].color = rep_svg_palette(i);
            totals[i] = s[i]->total_stall;
        }
        for (size_t r = 0; r < nk; r++) {
            rows[r].label = an_stall_kind_key(kinds[r]);
            rows[r].values = &vals[r * n];
            for (size_t i = 0; i < n; i++)
                vals[r * n + i] = s[i]->kinds[kinds[r]].stall;
        }
        rep_hbar_chart ch = {0};
        ch.title = title;
        ch.subtitle = "code.json Stall of rows with Stall > 0, bucketed by the row's class and wait counters (Stalls section)";
        ch.x_label = "share of the capture's Σ Stall (%)";
        ch.unit = "cycles";
        ch.series = ser;
        ch.nseries = n;
        ch.rows = rows;
        ch.nrows = nk;
        ch.scale = REP_SCALE_SERIES_SHARE;
        ch.series_totals = totals;
        ch.grouped = 1;
        rc = rep_svg_hbars(&ch, out);
    }
    free(ser);
    free(totals);
    free(vals);
    free(rows);
    return rc;
}
