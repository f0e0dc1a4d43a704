/* compare.c — see compare.h (docs/compare.md, docs/compare.md#over-fitting-guard). */
#include "analyzer/compare.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

static char *xstrdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

static char *xvprintf(const char *fmt, va_list ap)
{
    kr_buf b;
    kr_buf_init(&b);
    kr_buf_vprintf(&b, fmt, ap);
    char *s = xstrdup(kr_buf_cstr(&b));
    kr_buf_free(&b);
    return s;
}

static char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = xvprintf(fmt, ap);
    va_end(ap);
    return s;
}

static void note(an_notes *n, const char *id, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note(an_notes *n, const char *id, const char *fmt, ...)
{
    if (n->n == n->cap) {
        size_t cap = n->cap ? n->cap * 2 : 8;
        an_note *v = realloc(n->v, cap * sizeof *v);
        if (!v)
            return;
        n->v = v;
        n->cap = cap;
    }
    va_list ap;
    va_start(ap, fmt);
    n->v[n->n].id = xstrdup(id);
    n->v[n->n].text = xvprintf(fmt, ap);
    va_end(ap);
    n->n++;
}

static void notes_free(an_notes *n)
{
    for (size_t i = 0; i < n->n; i++) {
        free(n->v[i].id);
        free(n->v[i].text);
    }
    free(n->v);
    memset(n, 0, sizeof *n);
}

const char *an_verdict_id(an_verdict v)
{
    static const char *ids[] = {"keep", "tie", "discard", "inconclusive", "split", "fail"};
    return (unsigned)v <= AN_V_FAIL ? ids[v] : "fail";
}

int an_verdict_exit(an_verdict v)
{
    switch (v) {
    case AN_V_KEEP: return 0;
    case AN_V_TIE:
    case AN_V_DISCARD: return 1;
    case AN_V_INCONCLUSIVE: return 6;
    case AN_V_SPLIT: return 7;
    case AN_V_FAIL: return 8;
    }
    return 8;
}

/* "+2.07 %" */
static const char *pct(char *buf, size_t cap, double r)
{
    snprintf(buf, cap, "%+.2f %%", r * 100);
    return buf;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* ---- groups ---- */

static void group_init(an_group *g, const char *label)
{
    memset(g, 0, sizeof *g);
    g->label = xstrdup(label);
    g->outcome = AN_OUT_NONE;
    g->p = -1;
}

static void group_free(an_group *g)
{
    free(g->label);
    free(g->note);
    for (size_t i = 0; i < g->nkernels_best; i++)
        free(g->kernels_best[i]);
    for (size_t i = 0; i < g->nkernels_cand; i++)
        free(g->kernels_cand[i]);
    free(g->kernels_best);
    free(g->kernels_cand);
    memset(g, 0, sizeof *g);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Shift, interval, outcome and need-more from stratified samples. segs:
 * segments per side the group's calls came from (for calls per row). */
static int group_decide(an_compare *c, an_group *g, const double *xb, size_t nb, const double *xc, size_t nc,
                        double widen, size_t segs)
{
    an_shift s;
    if (an_shift_compute(xb, nb, xc, nc, AN_STATS_ALPHA, &s))
        return KR_INTERNAL;
    g->evaluated = 1;
    g->n_best = nb;
    g->n_cand = nc;
    g->p = s.p;
    g->r = exp(s.hl) - 1;
    g->bounded = s.k > 0 && nb >= AN_STATS_MIN_CALLS && nc >= AN_STATS_MIN_CALLS;
    if (s.k > 0) {
        double dl = s.hl - s.d_lo, dh = s.d_hi - s.hl;
        if (widen > 0) {
            dl = sqrt(dl * dl + widen * widen);
            dh = sqrt(dh * dh + widen * widen);
        }
        g->widen = widen;
        g->lo = exp(s.hl - dl) - 1;
        g->hi = exp(s.hl + dh) - 1;
    }
    g->outcome = an_outcome_of(g->r, g->lo, g->hi, g->bounded, c->noise);
    size_t n = nb < nc ? nb : nc;
    if (!g->bounded) {
        g->note = xprintf("fewer than %d warm calls on a side (BEST %zu, CANDIDATE %zu): need >= %d",
                          AN_STATS_MIN_CALLS, nb, nc, AN_STATS_MIN_CALLS);
        g->need_more = n < AN_STATS_MIN_CALLS ? AN_STATS_MIN_CALLS - n : 1;
    } else if (g->outcome == AN_OUT_INCONCLUSIVE) {
        int too = 0;
        g->need_more = an_need_more(n, g->r, g->lo, g->hi, c->noise, &too);
        g->too_small = (uint8_t)too;
    }
    if (g->need_more && segs) {
        uint64_t total = (uint64_t)n + g->need_more;
        g->need_calls_per_row = (total + segs - 1) / segs + c->skip_first;
    }
    return 0;
}

static int add_name(char ***v, size_t *n, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*v)[i], name))
            return 0;
    char **nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        return KR_INTERNAL;
    *v = nv;
    nv[*n] = xstrdup(name);
    (*n)++;
    return nv[*n - 1] ? 0 : KR_INTERNAL;
}

/* Pair index of a call, SIZE_MAX when it has none. */
static size_t call_pair(const an_compare *c, const an_call *k, int cand)
{
    if (!c->row_aligned)
        return 0;
    if (k->row == SIZE_MAX)
        return SIZE_MAX;
    const size_t *map = cand ? c->cand_row_pair : c->best_row_pair;
    return map[k->row];
}

typedef struct pv { size_t pair; double v; } pv;

static int cmp_pv(const void *a, const void *b)
{
    const pv *x = a, *y = b;
    if (x->pair != y->pair)
        return x->pair < y->pair ? -1 : 1;
    return x->v < y->v ? -1 : x->v > y->v;
}

/* GPU group over the paired rows with sel[p] != 0 (sel NULL: all). */
static int group_gpu(an_compare *c, const uint8_t *sel, an_group *g)
{
    size_t np = c->row_aligned ? c->bench.nrows : 1;
    const an_side_time *sides[2] = {&c->tbest, &c->tcand};
    double *med = malloc((np + 1) * sizeof *med);
    uint8_t *has = calloc(np + 1, 1);
    pv *bp = malloc((c->tbest.ncalls + 1) * sizeof *bp);
    double *vals[2] = {NULL, NULL}, *raw[2] = {NULL, NULL};
    size_t nv[2] = {0, 0};
    int rc = KR_INTERNAL;
    if (!med || !has || !bp)
        goto out;
    /* BEST's median log per row. */
    size_t nbp = 0;
    for (size_t i = 0; i < c->tbest.ncalls; i++) {
        const an_call *k = &c->tbest.calls[i];
        size_t p = call_pair(c, k, 0);
        if (!k->warm || p == SIZE_MAX || k->ns <= 0 || (sel && !sel[p]))
            continue;
        bp[nbp++] = (pv){p, log(k->ns)};
    }
    qsort(bp, nbp, sizeof *bp, cmp_pv);
    for (size_t i = 0; i < nbp;) {
        size_t j = i;
        double *tmp = malloc((nbp - i) * sizeof *tmp);
        if (!tmp)
            goto out;
        while (j < nbp && bp[j].pair == bp[i].pair) {
            tmp[j - i] = bp[j].v;
            j++;
        }
        med[bp[i].pair] = an_median_sorted(tmp, j - i);
        has[bp[i].pair] = 1;
        free(tmp);
        i = j;
    }
    size_t rows = 0;
    for (size_t p = 0; p < np; p++)
        rows += has[p];
    g->rows = c->row_aligned ? rows : 0;
    /* Both sides, stratified. */
    double widen2 = 0;
    int replicates = 0;
    for (int s = 0; s < 2; s++) {
        const an_side_time *t = sides[s];
        vals[s] = malloc((t->ncalls + 1) * sizeof *vals[s]);
        raw[s] = malloc((t->ncalls + 1) * sizeof *raw[s]);
        uint32_t *tr = malloc((t->ncalls + 1) * sizeof *tr);
        if (!vals[s] || !raw[s] || !tr) {
            free(tr);
            goto out;
        }
        for (size_t i = 0; i < t->ncalls; i++) {
            const an_call *k = &t->calls[i];
            size_t p = call_pair(c, k, s);
            if (!k->warm || p == SIZE_MAX || k->ns <= 0 || !has[p] || (sel && !sel[p]))
                continue;
            tr[nv[s]] = k->trace;
            raw[s][nv[s]] = k->ns;
            vals[s][nv[s]++] = log(k->ns) - med[p];
            if (k->first_kernel < t->nkernels &&
                add_name(s ? &g->kernels_cand : &g->kernels_best, s ? &g->nkernels_cand : &g->nkernels_best,
                         t->kernels[k->first_kernel].name)) {
                free(tr);
                goto out;
            }
        }
        /* Replicates: the spread of the per-trace medians. */
        if (t->ntraces_used >= 2) {
            double *m = malloc(t->ntraces_used * sizeof *m), *tmp = malloc((nv[s] + 1) * sizeof *tmp);
            size_t km = 0;
            if (!m || !tmp) {
                free(m);
                free(tmp);
                free(tr);
                goto out;
            }
            for (uint32_t q = 0; q < t->ntraces_used; q++) {
                size_t nt = 0;
                for (size_t i = 0; i < nv[s]; i++)
                    if (tr[i] == q)
                        tmp[nt++] = vals[s][i];
                if (!nt)
                    continue;
                qsort(tmp, nt, sizeof *tmp, cmp_d);
                m[km++] = an_median_sorted(tmp, nt);
            }
            if (km >= 2) {
                an_desc d;
                an_desc_compute(m, km, &d);
                widen2 += d.stddev * d.stddev / (double)km;
                replicates = 1;
            }
            free(m);
            free(tmp);
        }
        free(tr);
    }
    an_desc db, dc;
    an_desc_compute(raw[0], nv[0], &db);
    an_desc_compute(raw[1], nv[1], &dc);
    g->median_best = db.median;
    g->median_cand = dc.median;
    g->mean_best = db.mean;
    g->mean_cand = dc.mean;
    g->source = AN_GROUP_GPU;
    size_t segs = c->row_aligned ? rows * (c->tbest.segments_per_row ? c->tbest.segments_per_row : 1)
                                 : c->tbest.segments_with_warm;
    rc = group_decide(c, g, vals[0], nv[0], vals[1], nv[1], replicates ? 1.96 * sqrt(widen2) : 0, segs);
out:
    free(med);
    free(has);
    free(bp);
    for (int s = 0; s < 2; s++) {
        free(vals[s]);
        free(raw[s]);
    }
    return rc;
}

/* Script group over rows (indices into bench.rows; NULL = all). */
static int group_script(an_compare *c, const size_t *rows, size_t n, an_group *g, int low_conf)
{
    double gm, lo, hi;
    size_t used;
    if (an_bench_geomean(&c->bench, rows, n, c->seed, c->resamples, &gm, &lo, &hi, &used))
        return KR_INTERNAL;
    g->source = AN_GROUP_SCRIPT;
    g->low_confidence = (uint8_t)low_conf;
    size_t cnt = rows ? n : c->bench.nrows;
    g->rows = cnt;
    double *vb = malloc((cnt + 1) * sizeof *vb), *vc = malloc((cnt + 1) * sizeof *vc);
    if (!vb || !vc) {
        free(vb);
        free(vc);
        return KR_INTERNAL;
    }
    size_t k = 0;
    for (size_t i = 0; i < cnt; i++) {
        const an_bench_row *r = &c->bench.rows[rows ? rows[i] : i];
        if (r->has_metric) {
            vb[k] = r->best_metric;
            vc[k] = r->cand_metric;
            k++;
        }
    }
    an_desc db, dc;
    an_desc_compute(vb, k, &db);
    an_desc_compute(vc, k, &dc);
    free(vb);
    free(vc);
    g->median_best = db.median;
    g->median_cand = dc.median;
    g->mean_best = db.mean;
    g->mean_cand = dc.mean;
    g->evaluated = used > 0;
    g->n_best = g->n_cand = used;
    if (!used) {
        g->note = xprintf("no row with a usable script metric");
        return 0;
    }
    g->r = gm - 1;
    g->lo = lo - 1;
    g->hi = hi - 1;
    g->bounded = used >= 2;
    if (!g->bounded)
        g->note = xprintf("one row only: the script metric cannot tell noise from change");
    g->outcome = an_outcome_of(g->r, g->lo, g->hi, g->bounded, c->noise);
    return 0;
}

/* Dispatch-level group of one target kernel (every dispatch but the first). */
static int group_kernel(an_compare *c, const char *name, an_group *g)
{
    int ib = an_time_kernel_index(&c->tbest, name), ic = an_time_kernel_index(&c->tcand, name);
    if (ib < 0 || ic < 0) {
        g->note = xprintf("only on %s", ib < 0 ? "CANDIDATE" : "BEST");
        return 0;
    }
    const an_kernel_stat *kb = &c->tbest.kernels[ib], *kc = &c->tcand.kernels[ic];
    size_t nb = kb->all.n > 1 ? kb->all.n - 1 : 0, nc = kc->all.n > 1 ? kc->all.n - 1 : 0;
    double *xb = malloc((nb + 1) * sizeof *xb), *xc = malloc((nc + 1) * sizeof *xc);
    if (!xb || !xc) {
        free(xb);
        free(xc);
        return KR_INTERNAL;
    }
    for (size_t i = 0; i < nb; i++)
        xb[i] = kb->ns[i + 1];
    for (size_t i = 0; i < nc; i++)
        xc[i] = kc->ns[i + 1];
    an_desc db, dc;
    an_desc_compute(xb, nb, &db);
    an_desc_compute(xc, nc, &dc);
    g->median_best = db.median;
    g->median_cand = dc.median;
    g->mean_best = db.mean;
    g->mean_cand = dc.mean;
    double m = db.median > 0 ? log(db.median) : 0;
    size_t kb2 = 0, kc2 = 0;
    for (size_t i = 0; i < nb; i++)
        if (xb[i] > 0)
            xb[kb2++] = log(xb[i]) - m;
    for (size_t i = 0; i < nc; i++)
        if (xc[i] > 0)
            xc[kc2++] = log(xc[i]) - m;
    g->source = AN_GROUP_GPU;
    int rc = group_decide(c, g, xb, kb2, xc, kc2, 0, 0);
    free(xb);
    free(xc);
    return rc;
}

/* ---- inputs ---- */

static size_t dispatches(const an_cmp_side *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->ntraces; i++)
        n += s->traces[i].n;
    return n;
}

static int same_header(const an_bench_csv *a, const an_bench_csv *b)
{
    if (a->ncols != b->ncols)
        return 0;
    for (size_t i = 0; i < a->ncols; i++)
        if (strcmp(a->header[i], b->header[i]))
            return 0;
    return 1;
}

static int plain_exists(const an_cmp_side *s)
{
    for (size_t i = 0; i < s->ncsvs; i++)
        if (!s->csvs[i].profiled)
            return 1;
    return 0;
}

/* The metric pair: plain CSVs preferred on each side; by basename, then
 * by header. */
static int choose_pair(const an_cmp_side *b, const an_cmp_side *c, size_t *ib, size_t *ic)
{
    int pb = plain_exists(b), pc = plain_exists(c);
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < b->ncsvs; i++) {
            if (b->csvs[i].profiled == pb)
                continue;
            for (size_t j = 0; j < c->ncsvs; j++) {
                if (c->csvs[j].profiled == pc)
                    continue;
                int ok = pass == 0 ? !strcmp(base_name(b->csvs[i].path), base_name(c->csvs[j].path))
                                   : same_header(&b->csvs[i], &c->csvs[j]);
                if (ok) {
                    *ib = i;
                    *ic = j;
                    return 1;
                }
            }
        }
    return 0;
}

static int side_has_err_column(const an_cmp_side *s)
{
    for (size_t i = 0; i < s->ncsvs; i++)
        for (size_t k = 0; k < s->csvs[i].ncols; k++)
            if (!strncmp(s->csvs[i].header[k], "err_", 4))
                return 1;
    return 0;
}

static int str_differs(const char *a, const char *b) { return a && b && strcmp(a, b) != 0; }

/* Row label of a data row of a side's CSV for messages: "line N (label)". */
static void row_where(const an_bench_csv *t, size_t row, const an_bench_cmp *b, int cand, kr_buf *out)
{
    kr_buf_printf(out, "%s row %zu", base_name(t->path), row + 1);
    if (t->lines)
        kr_buf_printf(out, " (line %zu)", t->lines[row]);
    if (b && b->nrows) {
        for (size_t i = 0; i < b->nrows; i++) {
            size_t r = cand ? b->rows[i].cand_row : b->rows[i].best_row;
            if (r == row && b->rows[i].cls != SIZE_MAX && b->classes) {
                kr_buf_printf(out, ", class %s", b->classes[b->rows[i].cls].label);
                break;
            }
        }
    }
}

/* Config columns whose values select different target kernels (docs/compare.md#config-classes). */
static int kernel_columns(an_compare *c)
{
    const an_bench_cmp *b = &c->bench;
    size_t nr = b->nrows;
    if (!c->row_aligned || nr < 2 || nr > 2000)
        return 0;
    char **sig = calloc(nr, sizeof *sig);
    if (!sig)
        return KR_INTERNAL;
    int rc = KR_INTERNAL;
    for (size_t p = 0; p < nr; p++) {
        char **names = NULL;
        size_t nn = 0;
        for (size_t i = 0; i < c->tbest.ncalls; i++) {
            const an_call *k = &c->tbest.calls[i];
            if (call_pair(c, k, 0) == p && k->first_kernel < c->tbest.nkernels &&
                add_name(&names, &nn, c->tbest.kernels[k->first_kernel].name))
                goto out;
        }
        for (size_t i = 1; i < nn; i++)        /* sort names for a stable signature */
            for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
                char *t = names[j];
                names[j] = names[j - 1];
                names[j - 1] = t;
            }
        kr_buf s;
        kr_buf_init(&s);
        for (size_t i = 0; i < nn; i++) {
            kr_buf_printf(&s, "%s\x1f", names[i]);
            free(names[i]);
        }
        free(names);
        sig[p] = xstrdup(kr_buf_cstr(&s));
        kr_buf_free(&s);
        if (!sig[p])
            goto out;
    }
    int constant = 1;
    for (size_t p = 1; p < nr; p++)
        constant &= !strcmp(sig[p], sig[0]);
    if (!constant)
        for (size_t col = 0; col < b->nconfig; col++) {
            int function = 1;
            char v1[512], v2[512];
            for (size_t p = 0; p < nr && function; p++)
                for (size_t q = p + 1; q < nr && function; q++) {
                    an_bench_norm(an_bench_cell(b->best, b->rows[p].best_row, (size_t)b->config_best[col]), v1, sizeof v1);
                    an_bench_norm(an_bench_cell(b->best, b->rows[q].best_row, (size_t)b->config_best[col]), v2, sizeof v2);
                    if (!strcmp(v1, v2) && strcmp(sig[p], sig[q]))
                        function = 0;
                }
            if (function && add_name(&c->kernel_columns, &c->nkernel_columns, b->config[col]))
                goto out;
        }
    rc = 0;
out:
    for (size_t p = 0; p < nr; p++)
        free(sig[p]);
    free(sig);
    return rc;
}

static void list_rows(kr_buf *out, const an_bench_csv *t, const size_t *rows, size_t n)
{
    for (size_t i = 0; i < n && i < AN_CMP_MAX_LISTED; i++) {
        kr_buf_printf(out, "%s", i ? "; " : "");
        row_where(t, rows[i], NULL, 0, out);
    }
    if (n > AN_CMP_MAX_LISTED)
        kr_buf_printf(out, "; and %zu more", n - AN_CMP_MAX_LISTED);
}

static const char *group_interval(const an_group *g, char *buf, size_t cap)
{
    char a[32], b[32], r[32];
    if (!g->evaluated)
        snprintf(buf, cap, "not evaluated");
    else if (!g->bounded)
        snprintf(buf, cap, "%s (no interval)", pct(r, sizeof r, g->r));
    else
        snprintf(buf, cap, "%s (95 %% CI %s to %s)", pct(r, sizeof r, g->r), pct(a, sizeof a, g->lo), pct(b, sizeof b, g->hi));
    return buf;
}

static void need_text(const an_compare *c, const an_group *g, kr_buf *out)
{
    if (!g->need_more)
        return;
    if (g->too_small) {
        kr_buf_printf(out, "effect too small to resolve cheaply (about %llu more warm calls per side)",
                      (unsigned long long)g->need_more);
        return;
    }
    kr_buf_printf(out, "about %llu more warm call%s per side would decide", (unsigned long long)g->need_more,
                  g->need_more == 1 ? "" : "s");
    if (g->need_calls_per_row)
        kr_buf_printf(out, " (a run of at least %llu calls per %s)", (unsigned long long)g->need_calls_per_row,
                      c->row_aligned ? "row" : "timed loop");
}

/* ---- the run ---- */

int an_compare_run(const an_cmp_side *best, const an_cmp_side *cand, const an_cmp_opts *o,
                   an_compare *out, kr_err *err)
{
    memset(out, 0, sizeof *out);
    out->noise = o->noise > 0 ? o->noise : AN_CMP_DEFAULT_NOISE;
    out->skip_first = o->skip_first;
    out->seed = o->seed;
    out->resamples = o->resamples;
    out->prev_status = o->prev ? "not_confirmed" : "not_given";
    group_init(&out->global, "global");
    group_init(&out->target_group, "target class");
    group_init(&out->script_global, "script metric");
    out->bench_best_csv = out->bench_cand_csv = SIZE_MAX;
    char b1[64], b2[64], b3[64];

    /* 1. BEST must be complete where CANDIDATE is not (docs/compare.md#discovery). */
    out->timing_best = dispatches(best) > 0;
    out->timing_cand = dispatches(cand) > 0;
    if (!out->timing_best && out->timing_cand)
        return kr_err_set(err, KR_INPUT, best->path, NULL,
                          "BEST has no kernel trace (kernel_trace CSV or results.json dispatches) while CANDIDATE has "
                          "one: profile BEST the same way");
    if (best->ncsvs == 0 && cand->ncsvs > 0)
        return kr_err_set(err, KR_INPUT, best->path, NULL,
                          "BEST has no benchmark CSV while CANDIDATE has one: re-run the benchmark for BEST");

    /* 2. Benchmark CSVs. */
    if (best->ncsvs) {
        size_t ib, ic;
        if (cand->ncsvs == 0) {
            note(&out->problems, "missing_csv", "CANDIDATE has no benchmark CSV (BEST has %zu)", best->ncsvs);
        } else if (!choose_pair(best, cand, &ib, &ic)) {
            note(&out->problems, "csv_unpaired",
                 "no benchmark CSV of CANDIDATE pairs with BEST's (by file name or header): %s", base_name(best->csvs[0].path));
        } else {
            an_bench_opts bo = {o->metric, o->class_by};
            int rc = an_bench_pair(&best->csvs[ib], &cand->csvs[ic], &bo, &out->bench, err);
            if (rc)
                return rc;
            out->has_bench = 1;
            out->bench_best_csv = ib;
            out->bench_cand_csv = ic;
            size_t nplain = 0;
            for (size_t i = 0; i < best->ncsvs; i++)
                nplain += best->csvs[i].profiled == best->csvs[ib].profiled;
            if (nplain > 1)
                note(&out->warnings, "several_csvs", "%zu benchmark CSVs on BEST: %s is the metric CSV, the others join the gate only",
                     nplain, base_name(best->csvs[ib].path));
            if (best->csvs[ib].profiled)
                note(&out->warnings, "profiled_csv", "only profiled benchmark CSVs exist: their script metric ran under the profiler");
            if (out->bench.config_differs)
                note(&out->problems, "config_columns", "%s", out->bench.config_diff);
            else if (out->bench.nunpaired_best || out->bench.nunpaired_cand) {
                kr_buf m;
                kr_buf_init(&m);
                kr_buf_printf(&m, "config rows differ:");
                if (out->bench.nunpaired_best) {
                    kr_buf_printf(&m, " only on BEST: ");
                    list_rows(&m, &best->csvs[ib], out->bench.unpaired_best, out->bench.nunpaired_best);
                    kr_buf_puts(&m, ".");
                }
                if (out->bench.nunpaired_cand) {
                    kr_buf_printf(&m, " only on CANDIDATE: ");
                    list_rows(&m, &cand->csvs[ic], out->bench.unpaired_cand, out->bench.nunpaired_cand);
                    kr_buf_puts(&m, ".");
                }
                note(&out->problems, "config_rows", "%s", kr_buf_cstr(&m));
                kr_buf_free(&m);
            }
            for (size_t i = 0; i < out->bench.nrelabelled; i++)
                note(&out->warnings, "relabelled", "config column %s never repeats a value: read as a result column",
                     out->bench.relabelled[i]);
            if (!out->bench.metric)
                note(&out->warnings, "no_metric", "no us_* column: no script metric");
            else if (out->bench.metric_unusable)
                note(&out->warnings, "metric_unusable", "%zu paired row%s without a positive %s value on a side",
                     out->bench.metric_unusable, out->bench.metric_unusable == 1 ? "" : "s", out->bench.metric);
        }
    }

    /* 3. Gate (docs/compare.md#correctness-gate). */
    const char *gexpr = NULL;
    if (o->gate) {
        gexpr = o->gate;
        out->gate_source = "option";
    } else if (side_has_err_column(best) || side_has_err_column(cand)) {
        gexpr = "err_*";
        out->gate_source = "default";
    } else if (best->exit_code >= 0 || cand->exit_code >= 0) {
        out->gate_source = "exit_status";
    } else {
        out->gate_source = "none";
    }
    if (gexpr) {
        int rc = an_gate_parse(gexpr, &out->gate, err);
        if (rc)
            return rc;
        if (an_gate_evaluate(&out->gate, best->csvs, best->ncsvs, &out->gate_best) ||
            an_gate_evaluate(&out->gate, cand->csvs, cand->ncsvs, &out->gate_cand))
            return KR_INTERNAL;
        if (o->gate && (best->ncsvs || cand->ncsvs))
            for (size_t k = 0; k < out->gate.n; k++)
                if (!out->gate_best.term_matched[k] && !out->gate_cand.term_matched[k])
                    return kr_err_set(err, KR_USAGE, NULL, NULL, "--gate: '%s' matches no column of any benchmark CSV",
                                      out->gate.terms[k].pattern);
        if (best->ncsvs && cand->ncsvs) {
            int differ = out->gate_best.ncolumns != out->gate_cand.ncolumns;
            for (size_t i = 0; !differ && i < out->gate_best.ncolumns; i++)
                differ = strcmp(out->gate_best.columns[i], out->gate_cand.columns[i]) != 0;
            if (differ) {
                kr_buf m;
                kr_buf_init(&m);
                kr_buf_puts(&m, "gate columns differ: BEST {");
                for (size_t i = 0; i < out->gate_best.ncolumns; i++)
                    kr_buf_printf(&m, "%s%s", i ? ", " : "", out->gate_best.columns[i]);
                kr_buf_puts(&m, "}, CANDIDATE {");
                for (size_t i = 0; i < out->gate_cand.ncolumns; i++)
                    kr_buf_printf(&m, "%s%s", i ? ", " : "", out->gate_cand.columns[i]);
                kr_buf_puts(&m, "} (a vanished column weakens the gate)");
                note(&out->problems, "gate_columns", "%s", kr_buf_cstr(&m));
                kr_buf_free(&m);
            }
        }
        if (cand->ncsvs == 0)
            out->gate_status = "not_evaluated";
        else
            out->gate_status = out->gate_cand.nfails ? "fail" : "pass";
        for (size_t i = 0; i < out->gate_best.nfails; i++) {
            const an_gate_fail *f = &out->gate_best.fails[i];
            if (add_name(&out->already_failing, &out->nalready_failing, best->csvs[f->csv].header[f->col]))
                return KR_INTERNAL;
        }
        if (out->nalready_failing) {
            kr_buf m;
            kr_buf_init(&m);
            for (size_t i = 0; i < out->nalready_failing; i++)
                kr_buf_printf(&m, "%s%s", i ? ", " : "", out->already_failing[i]);
            note(&out->warnings, "already_failing", "gate column%s %s already failing on BEST (pin --gate to the "
                 "candidate kernel's column, or fix the harness)", out->nalready_failing == 1 ? "" : "s", kr_buf_cstr(&m));
            kr_buf_free(&m);
        }
        if (!strcmp(out->gate_status, "pass") && cand->exit_code > 0)
            note(&out->problems, "crash_after_write",
                 "CANDIDATE exited with status %lld although every gate column passed (crash after writing the CSV)",
                 (long long)cand->exit_code);
    } else if (!strcmp(out->gate_source, "exit_status")) {
        out->gate_status = cand->exit_code < 0 ? "not_evaluated" : cand->exit_code ? "fail" : "pass";
        note(&out->warnings, "gate_exit_status", "no err_* column: the gate is the benchmark's exit status");
    } else {
        out->gate_status = "no_gate";
        if (best->ncsvs || cand->ncsvs)
            note(&out->warnings, "no_gate", "no err_* column and no exit status: nothing checks correctness");
    }

    /* 4. Validity (docs/compare.md#validity). */
    if (str_differs(best->command, cand->command))
        note(&out->problems, "command", "benchmark command differs: BEST '%s', CANDIDATE '%s'", best->command, cand->command);
    if (str_differs(best->gpu_product, cand->gpu_product) || str_differs(best->gpu_name, cand->gpu_name) ||
        (best->cu_count >= 0 && cand->cu_count >= 0 && best->cu_count != cand->cu_count))
        note(&out->problems, "gpu_model", "GPU model differs: BEST %s %s (%lld CUs), CANDIDATE %s %s (%lld CUs)",
             best->gpu_product ? best->gpu_product : "?", best->gpu_name ? best->gpu_name : "?", (long long)best->cu_count,
             cand->gpu_product ? cand->gpu_product : "?", cand->gpu_name ? cand->gpu_name : "?", (long long)cand->cu_count);
    else if (str_differs(best->gpu_card, cand->gpu_card))
        note(&out->warnings, "different_card", "different physical card of the same model (BEST %s, CANDIDATE %s): "
             "silicon and clocks can differ by more than 1 %%; re-measure BEST on the same card", best->gpu_card,
             cand->gpu_card);
    if (out->timing_best && !out->timing_cand)
        note(&out->problems, "missing_trace", "CANDIDATE has no usable kernel trace (BEST has one)");

    /* 5. GPU time (docs/compare.md#deciding-metric). */
    if (out->timing_best && out->timing_cand) {
        if (an_time_kernels(best->traces, best->ntraces, out->noise, &out->tbest) ||
            an_time_kernels(cand->traces, cand->ntraces, out->noise, &out->tcand))
            return KR_INTERNAL;
        int rc = an_time_target(&out->tbest, &out->tcand, o->kernels, o->nkernels, &out->target, err);
        if (rc)
            return rc;
        if (out->target.n == 0)
            return kr_err_set(err, KR_USAGE, NULL, NULL, "--kernel matches no kernel name in either trace");
        size_t nrb = out->has_bench ? out->bench.best->nrows : 0, nrc = out->has_bench ? out->bench.cand->nrows : 0;
        if (an_time_calls(best->traces, best->ntraces, &out->target, o->skip_first, nrb, out->noise, &out->tbest) ||
            an_time_calls(cand->traces, cand->ntraces, &out->target, o->skip_first, nrc, out->noise, &out->tcand))
            return KR_INTERNAL;
        if (out->tbest.ncalls == 0)
            return kr_err_set(err, KR_INPUT, best->path, NULL, "BEST has no dispatch of the target kernel set (%s)",
                              out->target.names[0]);
        if (out->tcand.ncalls == 0)
            note(&out->problems, "no_target_dispatch", "CANDIDATE has no dispatch of the target kernel set (%s)",
                 out->target.names[0]);
        out->row_aligned = out->has_bench && out->tbest.row_aligned && out->tcand.row_aligned &&
                           !out->bench.nunpaired_best && !out->bench.nunpaired_cand;
        if (out->has_bench) {
            out->best_row_pair = malloc((out->bench.best->nrows + 1) * sizeof *out->best_row_pair);
            out->cand_row_pair = malloc((out->bench.cand->nrows + 1) * sizeof *out->cand_row_pair);
            if (!out->best_row_pair || !out->cand_row_pair)
                return KR_INTERNAL;
            for (size_t i = 0; i < out->bench.best->nrows; i++)
                out->best_row_pair[i] = SIZE_MAX;
            for (size_t i = 0; i < out->bench.cand->nrows; i++)
                out->cand_row_pair[i] = SIZE_MAX;
            for (size_t p = 0; p < out->bench.nrows; p++) {
                out->best_row_pair[out->bench.rows[p].best_row] = p;
                out->cand_row_pair[out->bench.rows[p].cand_row] = p;
            }
            if (!out->row_aligned)
                note(&out->warnings, "not_row_aligned", "trace not row-aligned (segments BEST %zu, CANDIDATE %zu for %zu rows): "
                     "the global verdict stands, class results come from the script metric (low confidence)",
                     out->tbest.nsegments, out->tcand.nsegments, out->bench.nrows);
        }
        if (kernel_columns(out))
            return KR_INTERNAL;
    }

    /* 6. Classes, target class, script metric. */
    if (out->has_bench) {
        /* Kernel-selecting columns count only when the class key lacks them. */
        int rc = an_bench_classes(&out->bench, o->class_by, NULL, 0, err);
        if (rc)
            return rc;
        size_t keep = 0;
        for (size_t i = 0; i < out->nkernel_columns; i++) {
            int in_key = 0;
            for (size_t q = 0; q < out->bench.nclass_cols; q++)
                in_key |= !strcmp(out->bench.class_cols[q], out->kernel_columns[i]);
            if (in_key)
                free(out->kernel_columns[i]);
            else
                out->kernel_columns[keep++] = out->kernel_columns[i];
        }
        out->nkernel_columns = keep;
        if (keep && (rc = an_bench_classes(&out->bench, o->class_by, (const char *const *)out->kernel_columns,
                                           out->nkernel_columns, err)))
            return rc;
        if (an_bench_script(&out->bench, out->seed, out->resamples))
            return KR_INTERNAL;
        const char *spec = o->target_class ? o->target_class : cand->target_class;
        if (spec && *spec && strcmp(spec, "global")) {
            rc = an_target_parse(&out->bench, spec, &out->target_spec, err);
            if (rc)
                return rc;
            out->has_target_class = out->target_spec.n > 0;
            free(out->target_group.label);
            out->target_group.label = xstrdup(spec);
        }
    } else if (o->target_class && *o->target_class && strcmp(o->target_class, "global")) {
        return kr_err_set(err, KR_USAGE, NULL, NULL, "--target-class needs a benchmark CSV on both sides");
    }

    int failed = out->problems.n > 0 || (out->gate_status && !strcmp(out->gate_status, "fail"));
    int gpu = out->timing_best && out->timing_cand && out->tcand.ncalls > 0 && !failed;
    int script_only = !failed && !out->timing_best && !out->timing_cand && o->allow_script_metric && out->has_bench &&
                      out->bench.has_ratio;
    out->nclasses = out->has_bench ? out->bench.nclasses : 0;
    out->classes = calloc(out->nclasses + 1, sizeof *out->classes);
    if (!out->classes)
        return KR_INTERNAL;
    for (size_t k = 0; k < out->nclasses; k++)
        group_init(&out->classes[k], out->bench.classes[k].label);
    if (out->has_bench && out->bench.has_ratio && !failed &&
        group_script(out, NULL, 0, &out->script_global, 0))
        return KR_INTERNAL;
    out->has_script = out->script_global.evaluated;

    if (gpu) {
        if (group_gpu(out, NULL, &out->global))
            return KR_INTERNAL;
        out->has_timing = 1;
        for (size_t k = 0; k < out->nclasses; k++) {
            const an_bench_class *bc = &out->bench.classes[k];
            if (out->row_aligned) {
                uint8_t *sel = calloc(out->bench.nrows + 1, 1);
                if (!sel)
                    return KR_INTERNAL;
                for (size_t i = 0; i < bc->nrows; i++)
                    sel[bc->rows[i]] = 1;
                int rc = group_gpu(out, sel, &out->classes[k]);
                free(sel);
                if (rc)
                    return KR_INTERNAL;
            } else if (group_script(out, bc->rows, bc->nrows, &out->classes[k], 1)) {
                return KR_INTERNAL;
            }
        }
        if (out->has_target_class) {
            size_t *rows = malloc((out->bench.nrows + 1) * sizeof *rows);
            uint8_t *sel = calloc(out->bench.nrows + 1, 1);
            size_t nr = 0;
            if (!rows || !sel) {
                free(rows);
                free(sel);
                return KR_INTERNAL;
            }
            for (size_t p = 0; p < out->bench.nrows; p++)
                if (an_target_matches(&out->bench, &out->target_spec, p)) {
                    rows[nr++] = p;
                    sel[p] = 1;
                }
            int rc = 0;
            if (nr == 0)
                out->target_group.note = xprintf("no benchmark row matches %s", out->target_spec.text);
            else if (out->row_aligned)
                rc = group_gpu(out, sel, &out->target_group);
            else
                rc = group_script(out, rows, nr, &out->target_group, 1);
            free(rows);
            free(sel);
            if (rc)
                return KR_INTERNAL;
        }
        out->kernel_groups = calloc(out->target.n + 1, sizeof *out->kernel_groups);
        if (!out->kernel_groups)
            return KR_INTERNAL;
        out->nkernel_groups = out->target.n;
        for (size_t i = 0; i < out->target.n; i++) {
            group_init(&out->kernel_groups[i], out->target.names[i]);
            if (group_kernel(out, out->target.names[i], &out->kernel_groups[i]))
                return KR_INTERNAL;
            an_outcome ko = out->kernel_groups[i].outcome;
            if ((ko == AN_OUT_IMPROVED || ko == AN_OUT_REGRESSED) &&
                add_name(&out->decisive_kernels, &out->ndecisive, out->target.names[i]))
                return KR_INTERNAL;
        }
    } else if (script_only) {
        out->script_only = 1;
        if (group_script(out, NULL, 0, &out->global, 0))
            return KR_INTERNAL;
        for (size_t k = 0; k < out->nclasses; k++)
            if (group_script(out, out->bench.classes[k].rows, out->bench.classes[k].nrows, &out->classes[k], 0))
                return KR_INTERNAL;
        if (out->has_target_class) {
            size_t *rows = malloc((out->bench.nrows + 1) * sizeof *rows);
            size_t nr = 0;
            if (!rows)
                return KR_INTERNAL;
            for (size_t p = 0; p < out->bench.nrows; p++)
                if (an_target_matches(&out->bench, &out->target_spec, p))
                    rows[nr++] = p;
            int rc = nr ? group_script(out, rows, nr, &out->target_group, 0) : 0;
            free(rows);
            if (rc)
                return KR_INTERNAL;
        }
    }

    /* 7. Verdict (docs/compare.md#overall-verdict). */
    const an_group *G = &out->global;
    int class_gpu = (gpu && out->row_aligned) || script_only;
    size_t n_imp = 0, n_reg = 0, n_inc = 0;
    if (class_gpu)
        for (size_t k = 0; k < out->nclasses; k++) {
            n_imp += out->classes[k].outcome == AN_OUT_IMPROVED;
            n_reg += out->classes[k].outcome == AN_OUT_REGRESSED;
            n_inc += out->classes[k].outcome == AN_OUT_INCONCLUSIVE;
        }
    const char *suffix = out->script_only ? " (script-only)" : "";
    const char *unit = out->script_only ? "script metric" : "GPU time";
    if (out->problems.n) {
        out->verdict = AN_V_FAIL;
        int invalid = 0;
        for (size_t i = 0; i < out->problems.n; i++)
            invalid |= strcmp(out->problems.v[i].id, "missing_csv") && strcmp(out->problems.v[i].id, "missing_trace") &&
                       strcmp(out->problems.v[i].id, "no_target_dispatch") && strcmp(out->problems.v[i].id, "crash_after_write");
        out->fail_kind = invalid ? "invalid" : "missing_metrics";
        kr_buf m;
        kr_buf_init(&m);
        for (size_t i = 0; i < out->problems.n; i++)
            kr_buf_printf(&m, "%s%s", i ? "; " : "", out->problems.v[i].text);
        note(&out->reasons, out->fail_kind, "%s: %s; GPU time not evaluated",
             invalid ? "invalid comparison" : "missing metrics", kr_buf_cstr(&m));
        kr_buf_free(&m);
    } else if (out->gate_status && !strcmp(out->gate_status, "fail")) {
        out->verdict = AN_V_FAIL;
        out->fail_kind = "gate";
        kr_buf m;
        kr_buf_init(&m);
        if (!strcmp(out->gate_source, "exit_status")) {
            kr_buf_printf(&m, "correctness gate failed on CANDIDATE: exit status %lld", (long long)cand->exit_code);
        } else {
            kr_buf_printf(&m, "correctness gate (%s) failed on CANDIDATE in %zu cell%s: ", out->gate.text,
                          out->gate_cand.nfails, out->gate_cand.nfails == 1 ? "" : "s");
            for (size_t i = 0; i < out->gate_cand.nfails && i < AN_CMP_MAX_LISTED; i++) {
                const an_gate_fail *f = &out->gate_cand.fails[i];
                const an_bench_csv *t = &cand->csvs[f->csv];
                kr_buf_printf(&m, "%s%s = %s in ", i ? "; " : "", t->header[f->col],
                              *an_bench_cell(t, f->row, f->col) ? an_bench_cell(t, f->row, f->col) : "(empty)");
                row_where(t, f->row, out->has_bench && f->csv == out->bench_cand_csv ? &out->bench : NULL, 1, &m);
            }
            if (out->gate_cand.nfails > AN_CMP_MAX_LISTED)
                kr_buf_printf(&m, "; and %zu more", out->gate_cand.nfails - AN_CMP_MAX_LISTED);
        }
        kr_buf_puts(&m, "; GPU time not evaluated");
        note(&out->reasons, "gate", "%s", kr_buf_cstr(&m));
        kr_buf_free(&m);
    } else if (!gpu && !script_only) {
        out->verdict = AN_V_INCONCLUSIVE;
        if (!out->timing_best && !out->timing_cand)
            note(&out->reasons, "no_kernel_timing",
                 "no kernel timing: neither side has a kernel trace (kernel_trace CSV or results.json dispatches)%s",
                 out->has_bench ? (out->bench.has_ratio ? "; the script metric alone never decides (--allow-script-metric "
                                                          "lets it, labelled script-only)" : "")
                                : "; only the trace-level deltas are reported");
        else
            note(&out->reasons, "no_kernel_timing", "no kernel timing of the target kernel set on a side");
    } else if (n_imp && n_reg) {
        out->verdict = AN_V_SPLIT;
        uint8_t *sel = calloc(out->nclasses + 1, 1);
        if (!sel)
            return KR_INTERNAL;
        kr_buf m;
        kr_buf_init(&m);
        kr_buf_printf(&m, "classes diverge: %zu improved (", n_imp);
        size_t q = 0;
        for (size_t k = 0; k < out->nclasses; k++)
            if (out->classes[k].outcome == AN_OUT_IMPROVED) {
                sel[k] = 1;
                kr_buf_printf(&m, "%s%s %s", q++ ? "; " : "", out->classes[k].label, pct(b1, sizeof b1, out->classes[k].r));
            }
        kr_buf_printf(&m, "), %zu regressed (", n_reg);
        q = 0;
        for (size_t k = 0; k < out->nclasses; k++)
            if (out->classes[k].outcome == AN_OUT_REGRESSED)
                kr_buf_printf(&m, "%s%s %s", q++ ? "; " : "", out->classes[k].label, pct(b1, sizeof b1, out->classes[k].r));
        out->predicate = an_bench_predicate(&out->bench, sel, 0);
        out->predicate_eq = an_bench_predicate(&out->bench, sel, 1);
        kr_buf_printf(&m, "): route '%s' to the candidate kernel and keep the other classes on the current one",
                      out->predicate ? out->predicate : "?");
        note(&out->reasons, "split", "%s%s", kr_buf_cstr(&m), suffix);
        kr_buf_free(&m);
        free(sel);
    } else if (G->outcome == AN_OUT_REGRESSED || n_reg) {
        out->verdict = AN_V_DISCARD;
        if (G->outcome == AN_OUT_REGRESSED)
            note(&out->reasons, "regressed", "global %s %s regressed beyond the %.2g %% threshold (p = %.3g)%s", unit,
                 group_interval(G, b2, sizeof b2), out->noise * 100, G->p, suffix);
        else
            for (size_t k = 0; k < out->nclasses; k++)
                if (out->classes[k].outcome == AN_OUT_REGRESSED)
                    note(&out->reasons, "class_regressed", "class %s regressed: %s %s (global %s)%s",
                         out->classes[k].label, unit, group_interval(&out->classes[k], b2, sizeof b2),
                         group_interval(G, b3, sizeof b3), suffix);
    } else if (out->has_target_class && out->target_group.evaluated && !out->target_group.low_confidence) {
        const an_group *T = &out->target_group;
        if (T->outcome == AN_OUT_IMPROVED && G->r < 0) {
            out->verdict = AN_V_KEEP;
            note(&out->reasons, "target_improved", "target class %s improved: %s %s; global %s%s", T->label, unit,
                 group_interval(T, b2, sizeof b2), group_interval(G, b3, sizeof b3), suffix);
        } else if (T->outcome == AN_OUT_INCONCLUSIVE || G->outcome == AN_OUT_INCONCLUSIVE) {
            out->verdict = AN_V_INCONCLUSIVE;
            const an_group *D = T->outcome == AN_OUT_INCONCLUSIVE ? T : G;
            kr_buf m;
            kr_buf_init(&m);
            need_text(out, D, &m);
            note(&out->reasons, "inconclusive", "%s %s %s cannot rule out a %.2g %% change%s%s%s",
                 D == T ? "target class" : "global", D == T ? T->label : unit, group_interval(D, b2, sizeof b2),
                 out->noise * 100, m.len ? ": " : "", kr_buf_cstr(&m), suffix);
            kr_buf_free(&m);
        } else {
            out->verdict = AN_V_TIE;
            note(&out->reasons, "tie", "target class %s: %s %s (%s); global %s%s", T->label, unit,
                 group_interval(T, b2, sizeof b2), an_outcome_text(T->outcome), group_interval(G, b3, sizeof b3), suffix);
        }
    } else {
        if (out->has_target_class)
            note(&out->warnings, "target_low_confidence", "target class %s has no GPU group (trace not row-aligned): "
                 "the global group decides", out->target_spec.text);
        if (G->outcome == AN_OUT_IMPROVED) {
            out->verdict = AN_V_KEEP;
            note(&out->reasons, "improved", "global %s %s improved beyond the %.2g %% threshold (p = %.3g)%s", unit,
                 group_interval(G, b2, sizeof b2), out->noise * 100, G->p, suffix);
        } else if (G->outcome == AN_OUT_INCONCLUSIVE) {
            out->verdict = AN_V_INCONCLUSIVE;
            kr_buf m;
            kr_buf_init(&m);
            need_text(out, G, &m);
            if (G->note)
                note(&out->reasons, "too_few_calls", "%s%s", G->note, suffix);
            else
                note(&out->reasons, "inconclusive", "global %s %s: the interval contains 0 and reaches beyond +/-%.2g %%%s%s%s",
                     unit, group_interval(G, b2, sizeof b2), out->noise * 100, m.len ? "; " : "", kr_buf_cstr(&m), suffix);
            kr_buf_free(&m);
        } else if (G->outcome == AN_OUT_TIE_FASTER && o->prev) {
            out->verdict = AN_V_TIE;
            int refused = best->identity && o->prev->best_identity && strcmp(best->identity, o->prev->best_identity);
            const char *cc = o->commit ? o->commit : cand->commit;
            int commit_ok = cc && o->prev->candidate_commit && !strcmp(cc, o->prev->candidate_commit);
            if (refused) {
                out->prev_status = "refused";
                note(&out->warnings, "prev_refused", "--prev %s compared another BEST: ignored", o->prev->path);
            } else if (commit_ok && o->prev->global_outcome && !strcmp(o->prev->global_outcome, "tie_faster")) {
                out->verdict = AN_V_KEEP;
                out->same_direction_twice = 1;
                out->prev_status = "confirmed";
                note(&out->reasons, "same_direction_twice",
                     "global %s %s is below the %.2g %% threshold but faster twice on the same code (--prev)%s", unit,
                     group_interval(G, b2, sizeof b2), out->noise * 100, suffix);
            } else {
                note(&out->warnings, "prev_not_confirmed", "--prev %s does not confirm: %s", o->prev->path,
                     !commit_ok ? "candidate commit differs or is unknown" : "its global group was not tie (faster)");
            }
            if (out->verdict == AN_V_TIE)
                note(&out->reasons, "tie", "global %s %s: significant but below the %.2g %% threshold%s", unit,
                     group_interval(G, b2, sizeof b2), out->noise * 100, suffix);
        } else {
            out->verdict = AN_V_TIE;
            if (G->outcome == AN_OUT_TIE_FASTER || G->outcome == AN_OUT_TIE_SLOWER)
                note(&out->reasons, "tie", "global %s %s: significant but below the %.2g %% threshold%s%s", unit,
                     group_interval(G, b2, sizeof b2), out->noise * 100,
                     G->outcome == AN_OUT_TIE_FASTER ? "; re-measure the same code and compare with --prev" : "", suffix);
            else
                note(&out->reasons, "tie", "global %s %s lies within +/-%.2g %%: no change worth counting%s", unit,
                     group_interval(G, b2, sizeof b2), out->noise * 100, suffix);
        }
    }
    out->counts_as_regression = out->verdict == AN_V_DISCARD;
    /* Verdict text. */
    if (out->verdict == AN_V_FAIL)
        out->verdict_text = xprintf("fail (%s)", !strcmp(out->fail_kind, "gate") ? "gate"
                                                 : !strcmp(out->fail_kind, "invalid") ? "invalid" : "missing metrics");
    else if (out->verdict == AN_V_TIE && (G->outcome == AN_OUT_TIE_FASTER || G->outcome == AN_OUT_TIE_SLOWER) &&
             !out->has_target_class)
        out->verdict_text = xprintf("tie (%s)%s", G->outcome == AN_OUT_TIE_FASTER ? "faster" : "slower", suffix);
    else
        out->verdict_text = xprintf("%s%s", an_verdict_id(out->verdict), suffix);
    if (out->verdict == AN_V_KEEP && class_gpu && n_imp && n_imp < out->nclasses) {
        uint8_t *sel = calloc(out->nclasses + 1, 1);
        if (!sel)
            return KR_INTERNAL;
        for (size_t k = 0; k < out->nclasses; k++)
            sel[k] = out->classes[k].outcome == AN_OUT_IMPROVED;
        out->gain_classes = an_bench_predicate(&out->bench, sel, 1);
        free(sel);
    }

    /* 8. Warnings (docs/compare.md#overall-verdict step 6, docs/compare.md#over-fitting-guard). */
    if (out->verdict == AN_V_KEEP && n_inc)
        note(&out->warnings, "inconclusive_classes", "%zu class%s inconclusive under a keep", n_inc, n_inc == 1 ? "" : "es");
    if (out->has_timing) {
        if (out->has_script && G->evaluated) {
            double s = out->script_global.r, r = G->r;
            if (s < r - out->noise)
                note(&out->warnings, "script_disagrees", "script metric %s moves against the GPU result (%s): script "
                     "faster, GPU not (host work or kernels outside the target set)", pct(b1, sizeof b1, s), pct(b2, sizeof b2, r));
            else if (s > r + out->noise)
                note(&out->warnings, "script_disagrees", "script metric %s moves against the GPU result (%s): GPU "
                     "faster, script slower (launch overhead grew)", pct(b1, sizeof b1, s), pct(b2, sizeof b2, r));
        }
        if (out->tbest.warm.outliers || out->tcand.warm.outliers)
            note(&out->warnings, "outliers", "outlier calls (|x - median| > 10 x 1.4826 x MAD): BEST %zu, CANDIDATE %zu "
                 "(counted, not removed)", out->tbest.warm.outliers, out->tcand.warm.outliers);
        if (out->tbest.segments_per_row != out->tcand.segments_per_row ||
            out->tbest.calls_per_segment != out->tcand.calls_per_segment)
            note(&out->warnings, "calls_per_row", "timed loop does a different number of calls (calls per segment BEST "
                 "%.1f, CANDIDATE %.1f)", out->tbest.calls_per_segment, out->tcand.calls_per_segment);
        for (size_t i = 0; i < out->target.n; i++) {
            int ib = an_time_kernel_index(&out->tbest, out->target.names[i]);
            int ic = an_time_kernel_index(&out->tcand, out->target.names[i]);
            if (ib < 0 || ic < 0)
                continue;
            int64_t gb = out->tbest.kernels[ib].grid_wg, gc = out->tcand.kernels[ic].grid_wg;
            if (gb > 0 && gc > 0 && (gb > 2 * gc || gc > 2 * gb))
                note(&out->warnings, "grid_changed", "%s: grid changed from %lld to %lld workgroups: verify the same "
                     "work is done", out->target.names[i], (long long)gb, (long long)gc);
        }
        /* Result caching: later calls far faster than a segment's first warm call, on CANDIDATE only. */
        size_t cache[2] = {0, 0};
        const an_side_time *ts[2] = {&out->tbest, &out->tcand};
        for (int s = 0; s < 2; s++) {
            const an_side_time *t = ts[s];
            for (size_t i = 0; i < t->ncalls;) {
                size_t e = i;
                while (e < t->ncalls && t->calls[e].trace == t->calls[i].trace && t->calls[e].segment == t->calls[i].segment)
                    e++;
                size_t f = i;
                while (f < e && !t->calls[f].warm)
                    f++;
                if (e - f >= 3) {
                    double *v = malloc((e - f) * sizeof *v);
                    if (v) {
                        for (size_t q = f + 1; q < e; q++)
                            v[q - f - 1] = t->calls[q].ns;
                        qsort(v, e - f - 1, sizeof *v, cmp_d);
                        if (an_median_sorted(v, e - f - 1) < 0.5 * t->calls[f].ns)
                            cache[s]++;
                        free(v);
                    }
                }
                i = e;
            }
        }
        if (cache[1] && !cache[0])
            note(&out->warnings, "caching", "possible result caching across identical calls: in %zu CANDIDATE segment%s "
                 "the later calls take less than half of the first warm call", cache[1], cache[1] == 1 ? "" : "s");
        if (G->evaluated && G->r < -AN_CMP_SUSPICIOUS_GAIN)
            note(&out->warnings, "suspicious_gain", "gain %s above %.0f %%: re-check for benchmark-specific shortcuts",
                 pct(b1, sizeof b1, G->r), AN_CMP_SUSPICIOUS_GAIN * 100);
        if (out->target.ambiguous)
            note(&out->warnings, "ambiguous_target", "two timed loops outside the framework (%s and %s): pin the target "
                 "with --kernel", out->target.names[0], out->target.runner_up);
        for (size_t i = 0; i < out->target.njoined; i++)
            note(&out->warnings, "joined_kernel", "%s (a timed loop on one side only) joined the target set",
                 out->target.joined[i]);
        if (out->tbest.used_att_pass || out->tcand.used_att_pass)
            note(&out->warnings, "att_pass_timing", "timing from a trace written by an ATT pass (perturbed; captured "
                 "dispatches dropped): prefer a plain kernel-trace run");
        if (out->tbest.calls_per_segment <= 1.0 && out->tcand.calls_per_segment <= 1.0 && out->tbest.nsegments > 1)
            note(&out->warnings, "one_call_segments", "most segments hold one call: the kernel found between them is "
                 "probably part of the call; consider adding it to --kernel");
        /* New or vanished non-helper kernel names. */
        kr_buf m;
        kr_buf_init(&m);
        size_t nn = 0;
        const an_side_time *a[2] = {&out->tbest, &out->tcand};
        for (int s = 0; s < 2; s++)
            for (size_t i = 0; i < a[s]->nkernels; i++) {
                const an_kernel_stat *k = &a[s]->kernels[i];
                if (k->helper || an_time_kernel_index(a[1 - s], k->name) >= 0)
                    continue;
                if (nn < 5)
                    kr_buf_printf(&m, "%s%s '%.80s'", nn ? "; " : "", s ? "new" : "vanished", k->name);
                nn++;
            }
        if (nn)
            note(&out->warnings, "kernel_names", "%zu kernel name%s on one side only: %s%s", nn, nn == 1 ? "" : "s",
                 kr_buf_cstr(&m), nn > 5 ? "; ..." : "");
        kr_buf_free(&m);
    }
    /* Accuracy margin: *_max_diff grew more than 4x while the gate held. */
    if (out->has_bench && out->gate_status && !strcmp(out->gate_status, "pass")) {
        const an_bench_csv *x = out->bench.best, *y = out->bench.cand;
        for (size_t c = 0; c < x->ncols; c++) {
            if (!strstr(x->header[c], "max_diff") || strstr(x->header[c], "_thr"))
                continue;
            int cc = an_bench_col(y, x->header[c]);
            if (cc < 0)
                continue;
            double mb = 0, mc = 0, v;
            for (size_t r = 0; r < x->nrows; r++)
                if (an_bench_number(an_bench_cell(x, r, c), &v) && fabs(v) > mb)
                    mb = fabs(v);
            for (size_t r = 0; r < y->nrows; r++)
                if (an_bench_number(an_bench_cell(y, r, (size_t)cc), &v) && fabs(v) > mc)
                    mc = fabs(v);
            if (mb > 0 && mc > 4 * mb)
                note(&out->warnings, "accuracy_margin", "%s grew from %g to %g (more than 4x) while the gate held: "
                     "accuracy margin shrank", x->header[c], mb, mc);
        }
    }
    return 0;
}

void an_compare_free(an_compare *c)
{
    notes_free(&c->reasons);
    notes_free(&c->warnings);
    notes_free(&c->problems);
    free(c->verdict_text);
    an_gate_free(&c->gate);
    an_gate_eval_free(&c->gate_best);
    an_gate_eval_free(&c->gate_cand);
    for (size_t i = 0; i < c->nalready_failing; i++)
        free(c->already_failing[i]);
    free(c->already_failing);
    for (size_t k = 0; k < c->nclasses; k++)
        group_free(&c->classes[k]);
    free(c->classes);
    an_bench_free(&c->bench);
    an_target_free(&c->target_spec);
    group_free(&c->target_group);
    free(c->predicate);
    free(c->predicate_eq);
    free(c->gain_classes);
    an_side_time_free(&c->tbest);
    an_side_time_free(&c->tcand);
    an_target_free_set(&c->target);
    free(c->best_row_pair);
    free(c->cand_row_pair);
    group_free(&c->global);
    for (size_t i = 0; i < c->nkernel_groups; i++)
        group_free(&c->kernel_groups[i]);
    free(c->kernel_groups);
    group_free(&c->script_global);
    for (size_t i = 0; i < c->ndecisive; i++)
        free(c->decisive_kernels[i]);
    free(c->decisive_kernels);
    for (size_t i = 0; i < c->nkernel_columns; i++)
        free(c->kernel_columns[i]);
    free(c->kernel_columns);
    memset(c, 0, sizeof *c);
}
