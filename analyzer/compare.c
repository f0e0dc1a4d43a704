/* compare.c — see compare.h (docs/compare.md, docs/compare.md#over-fitting-guard). */
#include "analyzer/compare.h"
#include "analyzer/run_baseline.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/compare_harness.h"
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

/* A group's medians and means of the two samples; *db gets BEST's figures. */
static void group_describe(an_group *g, const double *xb, size_t nb, const double *xc, size_t nc, an_desc *db)
{
    an_desc dc;
    an_desc_compute(xb, nb, db);
    an_desc_compute(xc, nc, &dc);
    g->median_best = db->median;
    g->median_cand = dc.median;
    g->mean_best = db->mean;
    g->mean_cand = dc.mean;
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

static void free_names(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
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
            /* Only traces of the same rows are replicates of one another
             * (a harness's per-shape traces are not): the spread is the
             * pooled within-group variance of the per-trace medians. */
            const an_trace_in *ti = s ? c->traces_cand : c->traces_best;
            double ss = 0, dof = 0;
            size_t groups = 0;
            uint8_t *done = calloc(t->ntraces_used + 1, 1);
            uint32_t *mq = malloc((t->ntraces_used + 1) * sizeof *mq);
            if (!done || !mq) {
                free(done);
                free(mq);
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
                mq[km] = q;
                m[km++] = an_median_sorted(tmp, nt);
            }
            for (size_t a = 0; ti && a < km; a++) {
                if (done[a])
                    continue;
                const an_trace_in *ta = &ti[t->trace_index[mq[a]]];
                double sum = 0;
                size_t cnt = 0;
                for (size_t b2 = a; b2 < km; b2++) {
                    const an_trace_in *tb = &ti[t->trace_index[mq[b2]]];
                    if (done[b2] || ta->nrows != tb->nrows ||
                        (ta->rows && memcmp(ta->rows, tb->rows, ta->nrows * sizeof *ta->rows)))
                        continue;
                    done[b2] = 2;
                    sum += m[b2];
                    cnt++;
                }
                double mean = sum / (double)cnt;
                for (size_t b2 = a; b2 < km; b2++)
                    if (done[b2] == 2) {
                        ss += (m[b2] - mean) * (m[b2] - mean);
                        done[b2] = 1;
                    }
                if (cnt >= 2) {
                    dof += (double)(cnt - 1);
                    groups++;
                }
            }
            if (groups && dof > 0) {
                double per = (dof + (double)groups) / (double)groups;   /* traces per group */
                widen2 += ss / dof / per;
                replicates = 1;
            }
            free(done);
            free(mq);
            free(m);
            free(tmp);
        }
        free(tr);
    }
    an_desc db;
    group_describe(g, raw[0], nv[0], raw[1], nv[1], &db);
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
    an_desc db;
    group_describe(g, xb, nb, xc, nc, &db);
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

/* The default gate (docs/compare.md "Correctness gate"): err_* when a
 * numeric gate column exists, and every text or boolean gate column by
 * name; empty when the CSVs have no gate column. */
void an_cmp_default_gate(const an_cmp_side *b, const an_cmp_side *c, kr_buf *out)
{
    const an_cmp_side *sides[2] = {b, c};
    int number = 0;
    char **named = NULL;
    size_t nnamed = 0;
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < sides[s]->ncsvs; i++)
            for (size_t k = 0; k < sides[s]->csvs[i].ncols; k++) {
                const char *h = sides[s]->csvs[i].header[k];
                an_col_kind kind = an_bench_column_kind(h);
                if (kind == AN_COL_GATE_NUMBER)
                    number = 1;
                else if ((kind == AN_COL_GATE_TEXT || kind == AN_COL_GATE_BOOL) && add_name(&named, &nnamed, h))
                    goto out;
            }
    if (number)
        kr_buf_puts(out, "err_*");
    for (size_t i = 0; i < nnamed; i++) {
        int plain = 1;
        for (const char *q = named[i]; *q; q++)
            plain &= (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') || *q == '_';
        if (plain)
            kr_buf_printf(out, "%s%s", out->len ? ", " : "", named[i]);
    }
out:
    free_names(named, nnamed);
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

/* group_interval in the decided metric's own unit: a higher-is-better
 * benchmark metric reads as its own change (x_cand / x_best − 1). */
static const char *vinterval(const an_compare *c, const an_group *g, char *buf, size_t cap)
{
    if (!(c->benchmark_only && c->bench.metric_higher && g->evaluated))
        return group_interval(g, buf, cap);
    an_group h = *g;
    h.r = 1 / (1 + g->r) - 1;
    h.lo = 1 / (1 + g->hi) - 1;
    h.hi = 1 / (1 + g->lo) - 1;
    return group_interval(&h, buf, cap);
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


/* ---- the benchmark harness (one row per shape and provider) ---- */

static int ci_eq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if ((*a | 0x20) != (*b | 0x20))
            return 0;
    return *a == *b;
}

/* The metric cells of one provider's rows on a side, joined (a signature). */
/* The cells of one provider's rows on a side, joined (a signature): of
 * column col, or with col NULL of its time metric (median_us, else every
 * lower-is-better column). */
static char *provider_cells(const an_cmp_side *s, const char *prov, const char *col)
{
    kr_buf b;
    kr_buf_init(&b);
    for (size_t f = 0; f < s->ncsvs; f++) {
        const an_bench_csv *t = &s->csvs[f];
        int pc = an_csv_col_ci(t, "provider"), mc = an_csv_col_ci(t, col ? col : "median_us");
        if (pc < 0 || (col && mc < 0))
            continue;
        for (size_t r = 0; r < t->nrows; r++) {
            char v[256];
            an_bench_norm(an_bench_cell(t, r, (size_t)pc), v, sizeof v);
            if (!ci_eq(v, prov))
                continue;
            for (size_t c = 0; c < t->ncols; c++)
                if ((int)c == mc || (mc < 0 && an_bench_column_kind(t->header[c]) == AN_COL_METRIC_LOWER))
                    kr_buf_printf(&b, "%s\x1f", an_bench_cell(t, r, c));
        }
    }
    char *sig = xstrdup(kr_buf_cstr(&b));
    kr_buf_free(&b);
    return sig;
}

/* The one provider of names[0..n) whose cells (provider_cells) differ
 * between the sides; NULL when none or several do. */
static const char *only_changed(const an_cmp_side *best, const an_cmp_side *cand, char *const *names, size_t n,
                                const char *col)
{
    size_t nchanged = 0, pick = 0;
    for (size_t i = 0; i < n; i++) {
        char *x = provider_cells(best, names[i], col), *y = provider_cells(cand, names[i], col);
        if (x && y && *x && *y && strcmp(x, y)) {
            nchanged++;
            pick = i;
        }
        free(x);
        free(y);
    }
    return nchanged == 1 ? names[pick] : NULL;
}

/* Providers of a side whose rows carry a non-empty candidate_commit. */
static int commit_providers(const an_cmp_side *s, char ***out, size_t *n)
{
    for (size_t f = 0; f < s->ncsvs; f++) {
        const an_bench_csv *t = &s->csvs[f];
        int pc = an_csv_col_ci(t, "provider"), cc = an_csv_col_ci(t, "candidate_commit");
        if (pc < 0 || cc < 0)
            continue;
        for (size_t r = 0; r < t->nrows; r++) {
            char v[256], w[256];
            an_bench_norm(an_bench_cell(t, r, (size_t)cc), w, sizeof w);
            if (!w[0] || ci_eq(w, "none") || ci_eq(w, "null") || ci_eq(w, "nan") || ci_eq(w, "n/a") ||
                ci_eq(w, "na") || !strcmp(w, "-"))
                continue;
            an_bench_norm(an_bench_cell(t, r, (size_t)pc), v, sizeof v);
            if (add_name(out, n, v))
                return KR_INTERNAL;
        }
    }
    return 0;
}


/* Providers with per-shape traces (profiles/<shape>/<provider>/) on a side. */
static int traced_providers(const an_cmp_side *s, char ***out, size_t *n)
{
    for (size_t i = 0; i < s->ntraces; i++) {
        char shape[256], prov[256];
        if (an_profile_path(s->traces[i].path, shape, sizeof shape, prov, sizeof prov) && add_name(out, n, prov))
            return KR_INTERNAL;
    }
    return 0;
}

/* Restricts the harness CSVs of both sides to the provider under test.
 * Sets *ambiguous when no provider can be chosen (a problem is noted). */
static int harness(an_compare *out, const an_cmp_side *best, const an_cmp_side *cand, const an_cmp_opts *o,
                   kr_err *err)
{
    const an_cmp_side *sides[2] = {best, cand};
    int any = 0;
    for (int s = 0; s < 2; s++)
        for (size_t f = 0; f < sides[s]->ncsvs; f++)
            any |= an_csv_col_ci(&sides[s]->csvs[f], "provider") >= 0;
    if (!any)
        return 0;
    for (int s = 0; s < 2; s++)
        for (size_t f = 0; f < sides[s]->ncsvs; f++) {
            const an_bench_csv *t = &sides[s]->csvs[f];
            int pc = an_csv_col_ci(t, "provider");
            for (size_t r = 0; pc >= 0 && r < t->nrows; r++) {
                char v[256];
                an_bench_norm(an_bench_cell(t, r, (size_t)pc), v, sizeof v);
                if (v[0] && add_name(&out->providers, &out->nproviders, v))
                    return KR_INTERNAL;
            }
        }
    if (o->provider) {
        for (size_t i = 0; i < out->nproviders && !out->provider; i++)
            if (ci_eq(out->providers[i], o->provider))
                out->provider = xstrdup(out->providers[i]);
        if (!out->provider)
            return kr_err_set(err, KR_USAGE, NULL, NULL, "--provider: no row of provider '%s' in the benchmark CSVs",
                              o->provider);
        out->provider_source = "option";
    } else if (out->nproviders == 1) {
        out->provider = xstrdup(out->providers[0]);
        out->provider_source = "only";
    } else {
        char **cp = NULL;
        size_t ncp = 0;
        if (commit_providers(cand, &cp, &ncp) || commit_providers(best, &cp, &ncp))
            return KR_INTERNAL;
        if (ncp == 1) {
            out->provider = xstrdup(cp[0]);
            out->provider_source = "candidate_commit";
        } else if (ncp > 1) {
            /* Every row carries a commit: the provider whose commit changed. */
            const char *p = only_changed(best, cand, cp, ncp, "candidate_commit");
            if (p) {
                out->provider = xstrdup(p);
                out->provider_source = "candidate_commit";
            }
        }
        free_names(cp, ncp);
        if (!out->provider) {
            /* The profiler gate traces the provider under test only. */
            char **tp = NULL;
            size_t ntp = 0;
            if (traced_providers(best, &tp, &ntp) || traced_providers(cand, &tp, &ntp))
                return KR_INTERNAL;
            for (size_t i = 0; ntp == 1 && i < out->nproviders && !out->provider; i++)
                if (ci_eq(out->providers[i], tp[0])) {
                    out->provider = xstrdup(out->providers[i]);
                    out->provider_source = "traced";
                }
            free_names(tp, ntp);
        }
        if (!out->provider) {
            const char *p = only_changed(best, cand, out->providers, out->nproviders, NULL);
            if (p) {
                out->provider = xstrdup(p);
                out->provider_source = "changed";
            }
        }
    }
    if (!out->provider) {
        kr_buf m;
        kr_buf_init(&m);
        for (size_t i = 0; i < out->nproviders; i++)
            kr_buf_printf(&m, "%s--provider %s", i ? " or " : "", out->providers[i]);
        note(&out->problems, "ambiguous_provider",
             "benchmark harness rows of %zu providers and none is marked as the one under test (no single provider "
             "carries a candidate_commit or changed): pass %s", out->nproviders, kr_buf_cstr(&m));
        kr_buf_free(&m);
        return 0;
    }
    out->views_best = calloc(best->ncsvs + 1, sizeof *out->views_best);
    out->views_cand = calloc(cand->ncsvs + 1, sizeof *out->views_cand);
    if (!out->views_best || !out->views_cand)
        return KR_INTERNAL;
    for (int s = 0; s < 2; s++) {
        an_bench_csv *v = s ? out->views_cand : out->views_best;
        for (size_t f = 0; f < sides[s]->ncsvs; f++) {
            const an_bench_csv *t = &sides[s]->csvs[f];
            int pc = an_csv_col_ci(t, "provider");
            if (an_csv_view(t, pc, out->provider, &v[f]))
                return KR_INTERNAL;
        }
    }
    out->csvs_best = out->views_best;
    out->csvs_cand = out->views_cand;
    out->nviews_best = best->ncsvs;
    out->nviews_cand = cand->ncsvs;
    return 0;
}

int an_cmp_harness(an_compare *out, const an_cmp_side *best, const an_cmp_side *cand, const char *provider, kr_err *err)
{
    an_cmp_opts o;
    memset(&o, 0, sizeof o);
    o.provider = provider;
    return harness(out, best, cand, &o, err);
}

/* ---- traces, target sets, companions (docs/compare.md "Target set") ---- */

/* The traces as used: per-shape traces of a harness (`profiles/<shape>/
 * <provider>/`) get the benchmark rows of their shape; traces of another
 * provider are left out; a per-shape trace matching no row is left out
 * with a warning. */
static int trace_inputs(an_compare *c, const an_cmp_side *best, const an_cmp_side *cand)
{
    const an_cmp_side *sides[2] = {best, cand};
    size_t total = 0;
    for (int s = 0; s < 2; s++)
        total += sides[s]->ntraces;
    c->traces_best = calloc(best->ntraces + 1, sizeof *c->traces_best);
    c->traces_cand = calloc(cand->ntraces + 1, sizeof *c->traces_cand);
    size_t rows_total = 0;
    if (c->has_bench)
        rows_total = (c->bench.best->nrows + c->bench.cand->nrows) * (total + 1);
    c->trace_rows = malloc((rows_total + 1) * sizeof *c->trace_rows);
    if (!c->traces_best || !c->traces_cand || !c->trace_rows)
        return KR_INTERNAL;
    size_t used_rows = 0, unmatched = 0, other_provider = 0;
    const char *example = NULL;
    for (int s = 0; s < 2; s++) {
        an_trace_in *dst = s ? c->traces_cand : c->traces_best;
        size_t *nd = s ? &c->ntraces_cand : &c->ntraces_best;
        for (size_t i = 0; i < sides[s]->ntraces; i++) {
            an_trace_in t = sides[s]->traces[i];
            char shape[256], prov[256];
            if (c->has_bench && an_profile_path(t.path, shape, sizeof shape, prov, sizeof prov)) {
                if (c->provider && !ci_eq(prov, c->provider)) {
                    other_provider++;
                    continue;
                }
                size_t *rows, nr;
                if (an_rows_of_shape(s ? c->bench.cand : c->bench.best, shape, &rows, &nr))
                    return KR_INTERNAL;
                if (!nr) {
                    free(rows);
                    unmatched++;
                    if (!example)
                        example = t.path;
                    continue;
                }
                memcpy(c->trace_rows + used_rows, rows, nr * sizeof *rows);
                t.rows = c->trace_rows + used_rows;
                t.nrows = nr;
                used_rows += nr;
                c->traces_matched++;
                free(rows);
            }
            dst[(*nd)++] = t;
        }
    }
    if (unmatched)
        note(&c->warnings, "trace_unmatched", "%zu per-shape trace%s match%s no benchmark row (e.g. %s): left out; "
             "the trace and CSV rows do not line up", unmatched, unmatched == 1 ? "" : "s", unmatched == 1 ? "es" : "",
             example);
    if (other_provider)
        note(&c->warnings, "trace_other_provider", "%zu per-shape trace%s of providers other than %s left out",
             other_provider, other_provider == 1 ? "" : "s", c->provider);
    return 0;
}

static int is_change(an_outcome o)
{
    return o == AN_OUT_IMPROVED || o == AN_OUT_REGRESSED || o == AN_OUT_TIE_FASTER || o == AN_OUT_TIE_SLOWER;
}

/* The kernel names of one candidate set: lead and its companions on both sides. */
static int set_of(an_compare *c, const char *lead, an_target *t)
{
    memset(t, 0, sizeof *t);
    if (add_name(&t->names, &t->n, lead))
        return KR_INTERNAL;
    char **comp = NULL;
    size_t nc = 0;
    if (an_time_companions(c->traces_best, &c->tbest, t, c->has_bench ? c->bench.nrows : 0, &comp, &nc) ||
        an_time_companions(c->traces_cand, &c->tcand, t, c->has_bench ? c->bench.nrows : 0, &comp, &nc) ||
        an_target_add_companions(&c->tbest, &c->tcand, t, comp, nc, 1)) {
        free_names(comp, nc);
        return KR_INTERNAL;
    }
    free_names(comp, nc);
    return 0;
}

/* An auto-pick among several timed non-framework kernels (a kernel under
 * work beside its references): each candidate set is measured alone; the
 * one that changed while every other ties is the target; otherwise the
 * comparison fails as ambiguous, naming each set and its --kernel flags. */
static int resolve_sets(an_compare *c, size_t skip_first)
{
    const an_side_time *b = &c->tbest;
    uint64_t top = 0;
    for (size_t i = 0; i < b->nkernels; i++)
        if (!b->kernels[i].helper && !b->kernels[i].framework && b->kernels[i].all.n >= AN_TIME_MIN_LOOP &&
            b->kernels[i].total_ns > top)
            top = b->kernels[i].total_ns;
    an_cand_set *sets = calloc(b->nkernels + 1, sizeof *sets);
    if (!sets)
        return KR_INTERNAL;
    size_t n = 0;
    for (size_t i = 0; i < b->nkernels; i++) {
        const an_kernel_stat *k = &b->kernels[i];
        if (k->helper || k->framework || k->all.n < AN_TIME_MIN_LOOP || 100 * k->total_ns < top)
            continue;
        int member = 0;
        for (size_t q = 0; q < n && !member; q++)
            for (size_t j = 0; j < sets[q].n && !member; j++)
                member = !strcmp(sets[q].names[j], k->name);
        if (member)
            continue;
        an_target t;
        if (set_of(c, k->name, &t))
            return KR_INTERNAL;
        sets[n].names = t.names;
        sets[n].n = t.n;
        t.names = NULL;
        t.n = 0;
        an_target_free_set(&t);
        n++;
    }
    if (n < 2) {
        for (size_t q = 0; q < n; q++)
            free_names(sets[q].names, sets[q].n);
        free(sets);
        return 0;
    }
    c->sets = sets;
    c->nsets = n;
    size_t changed = 0, ties = 0, pick = 0;
    for (size_t q = 0; q < n; q++) {
        an_target t;
        memset(&t, 0, sizeof t);
        t.names = sets[q].names;
        t.n = sets[q].n;
        group_init(&sets[q].group, sets[q].names[0]);
        size_t nrb = c->has_bench ? c->bench.best->nrows : 0, nrc = c->has_bench ? c->bench.cand->nrows : 0;
        if (an_time_calls(c->traces_best, c->ntraces_best, &t, skip_first, nrb, c->noise, &c->tbest) ||
            an_time_calls(c->traces_cand, c->ntraces_cand, &t, skip_first, nrc, c->noise, &c->tcand))
            return KR_INTERNAL;
        /* Measured as the final set would be: row-stratified where the rows align. */
        c->row_aligned = c->has_bench && c->tbest.row_aligned && c->tcand.row_aligned && !c->bench.nunpaired_best &&
                         !c->bench.nunpaired_cand;
        int grc = c->tcand.ncalls && c->tbest.ncalls ? group_gpu(c, NULL, &sets[q].group) : 0;
        c->row_aligned = 0;
        if (grc)
            return KR_INTERNAL;
        kr_buf f;
        kr_buf_init(&f);
        for (size_t j = 0; j < sets[q].n; j++)
            kr_buf_printf(&f, "%s--kernel '^%s$'", j ? " " : "", sets[q].names[j]);
        sets[q].flags = xstrdup(kr_buf_cstr(&f));
        kr_buf_free(&f);
        if (is_change(sets[q].group.outcome)) {
            changed++;
            pick = q;
        } else if (sets[q].group.outcome == AN_OUT_TIE) {
            ties++;
        }
    }
    if (changed == 1 && changed + ties == n) {
        c->target_resolved = 1;
        an_target *t = &c->target;
        free_names(t->names, t->n);
        t->names = NULL;
        t->n = 0;
        for (size_t j = 0; j < sets[pick].n; j++)
            if (add_name(&t->names, &t->n, sets[pick].names[j]))
                return KR_INTERNAL;
        for (size_t j = 0; j < t->njoined; j++)
            if (add_name(&t->names, &t->n, t->joined[j]))
                return KR_INTERNAL;
        free(t->why);
        t->why = xprintf("auto: %s is the only candidate set that changed (%s); the other %zu tie: references the "
                         "round did not touch", sets[pick].names[0], an_outcome_text(sets[pick].group.outcome), n - 1);
        t->ambiguous = 0;
        return t->why ? 0 : KR_INTERNAL;
    }
    kr_buf m;
    kr_buf_init(&m);
    char a[256];
    kr_buf_printf(&m, "ambiguous target: %zu timed kernel sets outside the framework and ", n);
    kr_buf_puts(&m, changed == 0 ? "none changed beyond noise" : changed > 1 ? "more than one changed" : "some are inconclusive");
    kr_buf_puts(&m, ":");
    for (size_t q = 0; q < n; q++)
        kr_buf_printf(&m, " %s%s %s;", sets[q].names[0], sets[q].n > 1 ? " (+ companions)" : "",
                      group_interval(&sets[q].group, a, sizeof a));
    kr_buf_puts(&m, " pin the kernel under work with");
    for (size_t q = 0; q < n; q++)
        kr_buf_printf(&m, "%s %s", q ? " or" : "", sets[q].flags);
    note(&c->problems, "ambiguous_target", "%s", kr_buf_cstr(&m));
    kr_buf_free(&m);
    return 0;
}

/* Companions of the final set: timed in an auto-picked set; in a pinned
 * set only those found on CANDIDATE alone (work moved out of the target
 * still costs), the others neither break a segment nor count. */
static int add_companions(an_compare *c, int pinned)
{
    char **comp = NULL;
    size_t nc = 0;
    int rc = KR_INTERNAL;
    if (an_time_companions(c->traces_best, &c->tbest, &c->target, c->has_bench ? c->bench.nrows : 0, &comp, &nc) ||
        an_time_companions(c->traces_cand, &c->tcand, &c->target, c->has_bench ? c->bench.nrows : 0, &comp, &nc))
        goto out;
    for (size_t i = 0; i < nc; i++) {
        int timed = !pinned || an_time_kernel_index(&c->tbest, comp[i]) < 0;
        if (an_target_add_companions(&c->tbest, &c->tcand, &c->target, &comp[i], 1, timed))
            goto out;
    }
    rc = 0;
out:
    free_names(comp, nc);
    return rc;
}

/* ---- loops without a kernel trace (docs/compare.md "Loops without a trace") ---- */

/* Per paired row, the metric of every replicate CSV of a side (its CSVs
 * with the metric CSV's header and profiled-ness, the metric CSV
 * included), time-like (1/x for a higher-is-better metric). */
static int gather_side(an_compare *c, const an_cmp_side *s, int cand, size_t *nrep)
{
    const an_bench_csv *metric_csv = cand ? c->bench.cand : c->bench.best;
    double **vals = c->rep_v[cand];
    size_t *nv = c->rep_n[cand];
    *nrep = 0;
    for (size_t f = 0; f < s->ncsvs; f++) {
        const an_bench_csv *x = &s->csvs[f];
        if (x->profiled != metric_csv->profiled || !same_header(x, metric_csv))
            continue;
        an_bench_opts bo = {c->bench.metric, NULL, c->bench.metric_higher ? AN_DIR_HIGHER : AN_DIR_LOWER, NULL};
        if (c->bench.key_cols) {
            /* the same row key as the comparison */
            bo.config_cols = NULL;
        }
        an_bench_cmp m;
        kr_err e;
        int rc = an_bench_pair(metric_csv, x, &bo, &m, &e);
        if (rc == KR_INTERNAL) {
            an_bench_free(&m);
            return rc;
        }
        if (rc || m.nrows == 0) {
            an_bench_free(&m);
            continue;
        }
        (*nrep)++;
        for (size_t i = 0; i < m.nrows; i++) {
            const an_bench_row *r = &m.rows[i];
            if (!r->has_metric)
                continue;
            for (size_t p = 0; p < c->bench.nrows; p++) {
                size_t sr = cand ? c->bench.rows[p].cand_row : c->bench.rows[p].best_row;
                if (sr != r->best_row)
                    continue;
                double *g = realloc(vals[p], (nv[p] + 1) * sizeof *g);
                if (!g) {
                    an_bench_free(&m);
                    return KR_INTERNAL;
                }
                vals[p] = g;
                g[nv[p]++] = c->bench.metric_higher ? 1.0 / r->cand_metric : r->cand_metric;
                break;
            }
        }
        an_bench_free(&m);
    }
    return 0;
}

static int bench_replicates(an_compare *c, const an_cmp_side *best, const an_cmp_side *cand)
{
    for (int s = 0; s < 2; s++) {
        c->rep_v[s] = calloc(c->bench.nrows + 1, sizeof *c->rep_v[s]);
        c->rep_n[s] = calloc(c->bench.nrows + 1, sizeof *c->rep_n[s]);
        if (!c->rep_v[s] || !c->rep_n[s])
            return KR_INTERNAL;
    }
    if (gather_side(c, best, 0, &c->replicates_best) || gather_side(c, cand, 1, &c->replicates_cand))
        return KR_INTERNAL;
    c->bench_method = c->replicates_best >= 2 && c->replicates_cand >= 2 ? "replicates" : "signed_rank";
    return 0;
}

/* The benchmark group over paired rows (indices into bench.rows; NULL =
 * all): with replicates on both sides, the stratified Hodges-Lehmann shift
 * of the replicate values (log, minus each row's BEST median); else the
 * signed-rank statistic of the per-row log ratios, r being the geometric
 * mean. */
static int group_bench(an_compare *c, const size_t *rows, size_t n, an_group *g)
{
    size_t cnt = rows ? n : c->bench.nrows;
    g->source = AN_GROUP_SCRIPT;
    g->rows = cnt;
    double *vb = calloc(cnt + 1, sizeof *vb), *vc = calloc(cnt + 1, sizeof *vc);
    double *d = calloc(cnt + 1, sizeof *d);
    int rc = KR_INTERNAL;
    if (!vb || !vc || !d)
        goto out;
    size_t k = 0;
    double sum = 0;
    for (size_t i = 0; i < cnt; i++) {
        const an_bench_row *r = &c->bench.rows[rows ? rows[i] : i];
        if (!r->has_metric)
            continue;
        vb[k] = r->best_metric;
        vc[k] = r->cand_metric;
        d[k] = log(r->ratio);
        sum += d[k];
        k++;
    }
    an_desc db;
    group_describe(g, vb, k, vc, k, &db);
    if (!k) {
        g->note = xprintf("no row with a usable %s", c->bench.metric);
        rc = 0;
        goto out;
    }
    if (c->bench_method && !strcmp(c->bench_method, "replicates")) {
        size_t tot[2] = {0, 0};
        for (size_t i = 0; i < cnt; i++) {
            size_t p = rows ? rows[i] : i;
            tot[0] += c->rep_n[0][p];
            tot[1] += c->rep_n[1][p];
        }
        double *x[2] = {malloc((tot[0] + 1) * sizeof(double)), malloc((tot[1] + 1) * sizeof(double))};
        size_t nx[2] = {0, 0};
        if (!x[0] || !x[1]) {
            free(x[0]);
            free(x[1]);
            goto out;
        }
        for (size_t i = 0; i < cnt; i++) {
            size_t p = rows ? rows[i] : i;
            if (!c->rep_n[0][p] || !c->rep_n[1][p])
                continue;
            double *tmp = malloc(c->rep_n[0][p] * sizeof *tmp);
            if (!tmp) {
                free(x[0]);
                free(x[1]);
                goto out;
            }
            for (size_t q = 0; q < c->rep_n[0][p]; q++)
                tmp[q] = log(c->rep_v[0][p][q]);
            qsort(tmp, c->rep_n[0][p], sizeof *tmp, cmp_d);
            double m = an_median_sorted(tmp, c->rep_n[0][p]);
            free(tmp);
            for (int s = 0; s < 2; s++)
                for (size_t q = 0; q < c->rep_n[s][p]; q++)
                    x[s][nx[s]++] = log(c->rep_v[s][p][q]) - m;
        }
        g->evaluated = 1;
        int r2 = group_decide(c, g, x[0], nx[0], x[1], nx[1], 0, 0);
        free(x[0]);
        free(x[1]);
        if (r2)
            goto out;
        g->need_more = 0;
        g->need_calls_per_row = 0;
        if (!g->bounded) {
            free(g->note);
            g->note = xprintf("too few replicate values (BEST %zu, CANDIDATE %zu): run the benchmark again into the "
                              "same folder for more replicates", nx[0], nx[1]);
        }
        g->n_best = nx[0];
        g->n_cand = nx[1];
        rc = 0;
        goto out;
    }
    an_signed sr;
    if (an_signed_compute(d, k, AN_STATS_ALPHA, &sr))
        goto out;
    g->evaluated = 1;
    g->n_best = g->n_cand = k;
    g->r = exp(sum / (double)k) - 1;
    g->p = sr.p;
    g->bounded = sr.k > 0;
    if (g->bounded) {
        g->lo = exp(sr.lo) - 1;
        g->hi = exp(sr.hi) - 1;
    }
    g->outcome = an_outcome_of(g->r, g->lo, g->hi, g->bounded, c->noise);
    if (!g->bounded)
        g->note = xprintf("%zu row%s and no replicates: fewer than 6 rows cannot reach a 5 %% significance; run the "
                          "benchmark again into the same folder for replicates", k, k == 1 ? "" : "s");
    rc = 0;
out:
    free(vb);
    free(vc);
    free(d);
    return rc;
}

/* The row's spread from p10/p90 (or std) columns as a log standard error
 * of its centre, or -1 when the CSV has none. */
static double row_log_se(const an_bench_csv *t, size_t row, double centre)
{
    int p10 = -1, p90 = -1, sd = -1, nrep = -1;
    for (size_t c = 0; c < t->ncols; c++) {
        const char *h = t->header[c];
        if (!strncmp(h, "p10", 3))
            p10 = (int)c;
        else if (!strncmp(h, "p90", 3))
            p90 = (int)c;
        else if (!strncmp(h, "std", 3))
            sd = (int)c;
        else if (!strcmp(h, "repeat_iters") || !strcmp(h, "repeats") || !strcmp(h, "iters") || !strcmp(h, "n_iters") ||
                 !strcmp(h, "repetitions"))
            nrep = (int)c;
    }
    double a, b, n = 1;
    if (nrep >= 0 && an_bench_number(an_bench_cell(t, row, (size_t)nrep), &n) && n >= 1)
        ;
    else
        n = 1;
    if (p10 >= 0 && p90 >= 0 && an_bench_number(an_bench_cell(t, row, (size_t)p10), &a) &&
        an_bench_number(an_bench_cell(t, row, (size_t)p90), &b) && a > 0 && b >= a)
        return (log(b) - log(a)) / 2.5631 * 1.2533 / sqrt(n);
    if (sd >= 0 && an_bench_number(an_bench_cell(t, row, (size_t)sd), &a) && a >= 0 && centre > 0)
        return a / centre * 1.2533 / sqrt(n);
    return -1;
}

/* Rows more than 5 % worse (docs/compare.md: a severe regression), and
 * whether each one's change exceeds its own noise. */
static int severe_rows(an_compare *c)
{
    int all_known = 1;
    char b1[32];
    /* Replicates: the pooled within-row standard deviation of the log
     * values of both sides (-1 without replicates). */
    double rep_sd = -1, ss = 0, dof = 0;
    if (c->bench_method && !strcmp(c->bench_method, "replicates"))
        for (size_t p = 0; p < c->bench.nrows; p++)
            for (int s = 0; s < 2; s++) {
                size_t n = c->rep_n[s][p];
                if (n < 2)
                    continue;
                double m = 0;
                for (size_t q = 0; q < n; q++)
                    m += log(c->rep_v[s][p][q]) / (double)n;
                for (size_t q = 0; q < n; q++)
                    ss += (log(c->rep_v[s][p][q]) - m) * (log(c->rep_v[s][p][q]) - m);
                dof += (double)(n - 1);
            }
    if (dof >= 2)
        rep_sd = sqrt(ss / dof);
    for (size_t p = 0; p < c->bench.nrows; p++) {
        const an_bench_row *r = &c->bench.rows[p];
        if (!r->has_metric || r->ratio <= 1.05)
            continue;
        int known = 0;
        if (rep_sd >= 0 && c->rep_n[0][p] && c->rep_n[1][p]) {
            /* The row's change against the replicates' pooled spread. */
            known = 1;
            double mb = 0, mc = 0;
            for (size_t q = 0; q < c->rep_n[0][p]; q++)
                mb += log(c->rep_v[0][p][q]) / (double)c->rep_n[0][p];
            for (size_t q = 0; q < c->rep_n[1][p]; q++)
                mc += log(c->rep_v[1][p][q]) / (double)c->rep_n[1][p];
            double se = rep_sd * sqrt(1.0 / (double)c->rep_n[0][p] + 1.0 / (double)c->rep_n[1][p]);
            if (mc - mb <= 1.959964 * se)
                continue;            /* within the row's own noise */
        } else {
            double sb = row_log_se(c->bench.best, r->best_row, c->bench.metric_higher ? 0 : r->best_metric);
            double sc = row_log_se(c->bench.cand, r->cand_row, c->bench.metric_higher ? 0 : r->cand_metric);
            if (sb >= 0 && sc >= 0) {
                known = 1;
                if (log(r->ratio) <= 1.959964 * sqrt(sb * sb + sc * sc))
                    continue;
            }
        }
        all_known &= known;
        char *t = c->bench.metric_higher ? xprintf("%s (%s %s)", r->label, c->bench.metric, pct(b1, sizeof b1, 1 / r->ratio - 1))
                                         : xprintf("%s (%s)", r->label, pct(b1, sizeof b1, r->ratio - 1));
        if (!t)
            return KR_INTERNAL;
        char **nv = realloc(c->severe_rows, (c->nsevere + 1) * sizeof *nv);
        if (!nv) {
            free(t);
            return KR_INTERNAL;
        }
        c->severe_rows = nv;
        nv[c->nsevere++] = t;
    }
    c->severe_known = (uint8_t)(c->nsevere && all_known);
    return 0;
}

static const char *rows_text(const an_compare *c, char *buf, size_t cap)
{
    snprintf(buf, cap, " for %zu benchmark rows", c->bench.nrows);
    return buf;
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

    /* 0. A benchmark harness: only the rows of the provider under test. */
    int hrc = harness(out, best, cand, o, err);
    if (hrc)
        return hrc;
    an_cmp_side eb = *best, ec = *cand;
    if (out->views_best) {
        eb.csvs = out->views_best;
        ec.csvs = out->views_cand;
    }
    out->csvs_best = eb.csvs;
    out->csvs_cand = ec.csvs;
    best = &eb;
    cand = &ec;

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
    char keycols[512];
    if (best->ncsvs) {
        size_t ib, ic;
        if (cand->ncsvs == 0) {
            note(&out->problems, "missing_csv", "CANDIDATE has no benchmark CSV (BEST has %zu)", best->ncsvs);
        } else if (!choose_pair(best, cand, &ib, &ic)) {
            note(&out->problems, "csv_unpaired",
                 "no benchmark CSV of CANDIDATE pairs with BEST's (by file name or header): %s", base_name(best->csvs[0].path));
        } else {
            an_bench_opts bo = {o->metric, o->class_by, o->direction, o->config};
            if (!bo.config_cols && out->nproviders) {
                /* A harness row's key is its shape (and, while no provider
                 * is chosen, its provider). */
                const an_bench_csv *t = &best->csvs[ib];
                int sc = an_csv_col_ci(t, "shape_id"), ac = an_csv_col_ci(t, "args"), dc = an_csv_col_ci(t, "dtype");
                int pc = an_csv_col_ci(t, "provider");
                kr_buf k;
                kr_buf_init(&k);
                if (sc >= 0)
                    kr_buf_puts(&k, t->header[sc]);
                else if (ac >= 0)
                    kr_buf_printf(&k, "%s%s%s", t->header[ac], dc >= 0 ? "," : "", dc >= 0 ? t->header[dc] : "");
                if (k.len && !out->provider && pc >= 0)
                    kr_buf_printf(&k, ",%s", t->header[pc]);
                snprintf(keycols, sizeof keycols, "%s", kr_buf_cstr(&k));
                kr_buf_free(&k);
                if (keycols[0])
                    bo.config_cols = keycols;
            }
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
    kr_buf defgate;
    kr_buf_init(&defgate);
    an_cmp_default_gate(best, cand, &defgate);
    if (o->gate && !strcmp(o->gate, "none")) {
        out->gate_source = "none_option";
    } else if (o->gate) {
        gexpr = o->gate;
        out->gate_source = "option";
    } else if (defgate.len) {
        gexpr = kr_buf_cstr(&defgate);
        out->gate_source = "default";
    } else if (best->exit_code >= 0 || cand->exit_code >= 0) {
        out->gate_source = "exit_status";
    } else {
        out->gate_source = "none";
    }
    if (gexpr) {
        int rc = an_gate_parse(gexpr, &out->gate, err);
        kr_buf_free(&defgate);
        if (rc)
            return rc;
        if (!strcmp(out->gate_source, "default"))
            for (size_t k = 0; k < out->gate.n; k++)
                out->gate.terms[k].gate_columns_only = 1;
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
    } else if (!strcmp(out->gate_source, "none_option")) {
        kr_buf_free(&defgate);
        out->gate_status = "no_gate";
        note(&out->warnings, "no_gate", "--gate none: nothing checks correctness (accepted by the option)");
    } else if (!strcmp(out->gate_source, "exit_status")) {
        kr_buf_free(&defgate);
        out->gate_status = cand->exit_code < 0 ? "not_evaluated" : cand->exit_code ? "fail" : "pass";
        note(&out->warnings, "gate_exit_status", "no err_* column: the gate is the benchmark's exit status");
    } else {
        kr_buf_free(&defgate);
        out->gate_status = "no_gate";
        if (best->ncsvs || cand->ncsvs)
            note(&out->warnings, "no_gate", "no gate column (err_*, check, status, correct, ...) and no exit status: "
                 "nothing checks correctness; pass --gate COL, record exit_code= in run.meta, or --gate none to accept");
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
        if (trace_inputs(out, best, cand))
            return KR_INTERNAL;
        const an_trace_in *TB = out->traces_best, *TC = out->traces_cand;
        if (an_time_kernels(TB, out->ntraces_best, out->noise, &out->tbest) ||
            an_time_kernels(TC, out->ntraces_cand, out->noise, &out->tcand))
            return KR_INTERNAL;
        int rc = an_time_target(&out->tbest, &out->tcand, o->kernels, o->nkernels, &out->target, err);
        if (rc)
            return rc;
        if (out->target.n == 0)
            return kr_err_set(err, KR_USAGE, NULL, NULL, "--kernel matches no kernel name in either trace");
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
        }
        if (!o->nkernels && resolve_sets(out, o->skip_first))
            return KR_INTERNAL;
        if (add_companions(out, o->nkernels > 0))
            return KR_INTERNAL;
        size_t nrb = out->has_bench ? out->bench.best->nrows : 0, nrc = out->has_bench ? out->bench.cand->nrows : 0;
        if (an_time_calls(TB, out->ntraces_best, &out->target, o->skip_first, nrb, out->noise, &out->tbest) ||
            an_time_calls(TC, out->ntraces_cand, &out->target, o->skip_first, nrc, out->noise, &out->tcand))
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
            if (!out->row_aligned)
                note(&out->warnings, "not_row_aligned", "trace not row-aligned (segments BEST %zu, CANDIDATE %zu for %zu rows): "
                     "the global verdict stands, class results come from the script metric (low confidence)",
                     out->tbest.nsegments, out->tcand.nsegments, out->bench.nrows);
        }
        /* Config columns whose values select different target kernels (docs/compare.md#config-classes). */
        if (out->row_aligned &&
            an_baseline_kernel_columns(&out->bench, &out->tbest, &out->kernel_columns, &out->nkernel_columns))
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
        if (!strcmp(out->bench.class_source, "none") && !out->nkernel_columns && out->bench.nrows > 1)
            note(&out->warnings, "one_class", "no class column (block_size, mtp/query_length, head_size) in the benchmark "
                 "CSV: every row is one class; --class-by COLS defines classes");
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
    int script_only = !failed && !out->timing_best && !out->timing_cand && out->has_bench &&
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
        out->benchmark_only = 1;
        if (bench_replicates(out, best, cand))
            return KR_INTERNAL;
        if (!strcmp(out->bench_method, "replicates"))
            for (size_t i = 0; i < out->warnings.n; i++)
                if (!strcmp(out->warnings.v[i].id, "several_csvs")) {
                    free(out->warnings.v[i].text);
                    out->warnings.v[i].text = xprintf("benchmark CSVs pooled as replicate runs: %zu on BEST, %zu on "
                                                      "CANDIDATE", out->replicates_best, out->replicates_cand);
                    free(out->warnings.v[i].id);
                    out->warnings.v[i].id = xstrdup("replicates");
                }
        if (group_bench(out, NULL, 0, &out->global))
            return KR_INTERNAL;
        for (size_t k = 0; k < out->nclasses; k++)
            if (group_bench(out, out->bench.classes[k].rows, out->bench.classes[k].nrows, &out->classes[k]))
                return KR_INTERNAL;
        if (severe_rows(out))
            return KR_INTERNAL;
        if (out->has_target_class) {
            size_t *rows = malloc((out->bench.nrows + 1) * sizeof *rows);
            size_t nr = 0;
            if (!rows)
                return KR_INTERNAL;
            for (size_t p = 0; p < out->bench.nrows; p++)
                if (an_target_matches(&out->bench, &out->target_spec, p))
                    rows[nr++] = p;
            int rc = nr ? group_bench(out, rows, nr, &out->target_group) : 0;
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
    const char *suffix = out->script_only ? " (benchmark)" : "";
    char unitbuf[300];
    snprintf(unitbuf, sizeof unitbuf, "%s", out->script_only && out->bench.metric ? out->bench.metric : "GPU time");
    const char *unit = unitbuf;
    if (out->problems.n) {
        out->verdict = AN_V_FAIL;
        int invalid = 0, ambiguous = 0;
        for (size_t i = 0; i < out->problems.n; i++) {
            const char *id = out->problems.v[i].id;
            if (!strcmp(id, "ambiguous_target") || !strcmp(id, "ambiguous_provider"))
                ambiguous = 1;
            else
                invalid |= strcmp(id, "missing_csv") && strcmp(id, "missing_trace") && strcmp(id, "no_target_dispatch") &&
                           strcmp(id, "crash_after_write");
        }
        out->fail_kind = invalid ? "invalid" : ambiguous ? "ambiguous_target" : "missing_metrics";
        kr_buf m;
        kr_buf_init(&m);
        for (size_t i = 0; i < out->problems.n; i++)
            kr_buf_printf(&m, "%s%s", i ? "; " : "", out->problems.v[i].text);
        note(&out->reasons, out->fail_kind, "%s: %s; %s not evaluated",
             invalid ? "invalid comparison" : ambiguous ? "cannot tell what to measure" : "missing metrics",
             kr_buf_cstr(&m), out->timing_best ? "GPU time" : "the metric");
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
                 vinterval(out, G, b2, sizeof b2), out->noise * 100, G->p, suffix);
        else
            for (size_t k = 0; k < out->nclasses; k++)
                if (out->classes[k].outcome == AN_OUT_REGRESSED)
                    note(&out->reasons, "class_regressed", "class %s regressed: %s %s (global %s)%s",
                         out->classes[k].label, unit, vinterval(out, &out->classes[k], b2, sizeof b2),
                         vinterval(out, G, b3, sizeof b3), suffix);
    } else if (out->has_target_class && out->target_group.evaluated && !out->target_group.low_confidence) {
        const an_group *T = &out->target_group;
        if (T->outcome == AN_OUT_IMPROVED && G->r < 0) {
            out->verdict = AN_V_KEEP;
            note(&out->reasons, "target_improved", "target class %s improved: %s %s; global %s%s", T->label, unit,
                 vinterval(out, T, b2, sizeof b2), vinterval(out, G, b3, sizeof b3), suffix);
        } else if (T->outcome == AN_OUT_INCONCLUSIVE || G->outcome == AN_OUT_INCONCLUSIVE) {
            out->verdict = AN_V_INCONCLUSIVE;
            const an_group *D = T->outcome == AN_OUT_INCONCLUSIVE ? T : G;
            kr_buf m;
            kr_buf_init(&m);
            need_text(out, D, &m);
            note(&out->reasons, "inconclusive", "%s %s %s cannot rule out a %.2g %% change%s%s%s",
                 D == T ? "target class" : "global", D == T ? T->label : unit, vinterval(out, D, b2, sizeof b2),
                 out->noise * 100, m.len ? ": " : "", kr_buf_cstr(&m), suffix);
            kr_buf_free(&m);
        } else {
            out->verdict = AN_V_TIE;
            note(&out->reasons, "tie", "target class %s: %s %s (%s); global %s%s", T->label, unit,
                 vinterval(out, T, b2, sizeof b2), an_outcome_text(T->outcome), vinterval(out, G, b3, sizeof b3), suffix);
        }
    } else {
        if (out->has_target_class)
            note(&out->warnings, "target_low_confidence", "target class %s has no GPU group (trace not row-aligned): "
                 "the global group decides", out->target_spec.text);
        if (G->outcome == AN_OUT_IMPROVED) {
            out->verdict = AN_V_KEEP;
            note(&out->reasons, "improved", "global %s %s improved beyond the %.2g %% threshold (p = %.3g)%s", unit,
                 vinterval(out, G, b2, sizeof b2), out->noise * 100, G->p, suffix);
        } else if (G->outcome == AN_OUT_INCONCLUSIVE) {
            out->verdict = AN_V_INCONCLUSIVE;
            kr_buf m;
            kr_buf_init(&m);
            need_text(out, G, &m);
            if (G->note)
                note(&out->reasons, "too_few_calls", "%s%s", G->note, suffix);
            else
                note(&out->reasons, "inconclusive", "global %s %s: the interval contains 0 and reaches beyond +/-%.2g %%%s%s%s",
                     unit, vinterval(out, G, b2, sizeof b2), out->noise * 100, m.len ? "; " : "", kr_buf_cstr(&m), suffix);
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
                     vinterval(out, G, b2, sizeof b2), out->noise * 100, suffix);
            } else {
                note(&out->warnings, "prev_not_confirmed", "--prev %s does not confirm: %s", o->prev->path,
                     !commit_ok ? "candidate commit differs or is unknown" : "its global group was not tie (faster)");
            }
            if (out->verdict == AN_V_TIE)
                note(&out->reasons, "tie", "global %s %s: significant but below the %.2g %% threshold%s", unit,
                     vinterval(out, G, b2, sizeof b2), out->noise * 100, suffix);
        } else {
            out->verdict = AN_V_TIE;
            if (G->outcome == AN_OUT_TIE_FASTER || G->outcome == AN_OUT_TIE_SLOWER)
                note(&out->reasons, "tie", "global %s %s: significant but below the %.2g %% threshold%s%s", unit,
                     vinterval(out, G, b2, sizeof b2), out->noise * 100,
                     G->outcome == AN_OUT_TIE_FASTER ? "; re-measure the same code and compare with --prev" : "", suffix);
            else
                note(&out->reasons, "tie", "global %s %s lies within +/-%.2g %%: no change worth counting%s", unit,
                     vinterval(out, G, b2, sizeof b2), out->noise * 100, suffix);
        }
    }
    out->counts_as_regression = out->verdict == AN_V_DISCARD;
    /* Verdict text. */
    /* Guards of docs/compare.md: what a verdict may not claim. */
    if (out->benchmark_only && out->nsevere && out->verdict != AN_V_FAIL) {
        kr_buf m;
        kr_buf_init(&m);
        for (size_t i = 0; i < out->nsevere && i < AN_CMP_MAX_LISTED; i++)
            kr_buf_printf(&m, "%s%s", i ? "; " : "", out->severe_rows[i]);
        if (out->nsevere > AN_CMP_MAX_LISTED)
            kr_buf_printf(&m, "; and %zu more", out->nsevere - AN_CMP_MAX_LISTED);
        if (out->severe_known && out->verdict != AN_V_DISCARD && out->verdict != AN_V_SPLIT) {
            int others = G->outcome == AN_OUT_IMPROVED || n_imp;
            notes_free(&out->reasons);
            out->verdict = others ? AN_V_SPLIT : AN_V_DISCARD;
            note(&out->reasons, "severe_row", "%zu row%s more than 5 %% worse beyond %s own noise: %s%s%s", out->nsevere,
                 out->nsevere == 1 ? "" : "s", out->nsevere == 1 ? "its" : "their", kr_buf_cstr(&m),
                 others ? " while others improved (a non-target shape heavily sacrificed)" : "", suffix);
        } else if (!out->severe_known) {
            note(&out->warnings, "severe_row_unconfirmed", "%zu row%s more than 5 %% worse, %s noise unknown: %s",
                 out->nsevere, out->nsevere == 1 ? "" : "s", out->nsevere == 1 ? "its" : "their", kr_buf_cstr(&m));
            if (out->verdict == AN_V_KEEP) {
                notes_free(&out->reasons);
                out->verdict = AN_V_INCONCLUSIVE;
                note(&out->reasons, "severe_row_unconfirmed", "%s improved overall, but %zu row%s more than 5 %% worse "
                     "(%s) and no noise estimate tells whether that is real: run the benchmark again into the same "
                     "folder (replicates) to confirm or clear it%s", unit, out->nsevere, out->nsevere == 1 ? " is" : "s are",
                     kr_buf_cstr(&m), suffix);
            }
        }
        kr_buf_free(&m);
    }
    if (out->has_timing && !out->row_aligned && out->tbest.nsegments != out->tcand.nsegments &&
        (out->verdict == AN_V_KEEP || out->verdict == AN_V_DISCARD || out->verdict == AN_V_TIE ||
         out->verdict == AN_V_INCONCLUSIVE)) {
        /* Pooled calls of different sets of rows: the mixture, not the code, may have changed. */
        notes_free(&out->reasons);
        out->verdict = AN_V_INCONCLUSIVE;
        out->counts_as_regression = 0;
        out->global.need_more = 0;
        out->global.need_calls_per_row = 0;
        note(&out->reasons, "rows_not_lined_up", "cannot tell: the traces do not line up with each other%s (timed "
             "segments BEST %zu, CANDIDATE %zu%s), so the pooled calls may come from different rows; pin the target "
             "with --kernel (a kernel between the calls breaks segments) or profile both sides with the same "
             "benchmark rows", out->has_bench ? " or with the benchmark rows" : "", out->tbest.nsegments,
             out->tcand.nsegments, out->has_bench ? rows_text(out, b3, sizeof b3) : "");
    }
    if (out->verdict == AN_V_KEEP && out->gate_status && !strcmp(out->gate_status, "no_gate") &&
        strcmp(out->gate_source, "none_option")) {
        notes_free(&out->reasons);
        out->verdict = AN_V_INCONCLUSIVE;
        note(&out->reasons, "no_gate", "%s improved (%s), but nothing checks correctness: no gate column (err_*, check, "
             "status, correct, ...) and no exit status; pass --gate COL, record exit_code= in run.meta, or --gate none "
             "to accept an ungated keep%s", unit, vinterval(out, G, b2, sizeof b2), suffix);
    }
    if (out->verdict == AN_V_INCONCLUSIVE && out->has_timing &&
        ((out->tbest.row_aligned && out->tbest.max_calls_per_row <= o->skip_first) ||
         (out->tcand.row_aligned && out->tcand.max_calls_per_row <= o->skip_first))) {
        out->structural = 1;
        G = &out->global;
        out->global.need_more = 0;
        out->global.need_calls_per_row = 0;
        notes_free(&out->reasons);
        note(&out->reasons, "one_call_per_row", "every benchmark row has at most %zu call%s of the target set, all cold: "
             "no warm call to compare, and more iterations of the same harness cannot change that; time a loop of "
             "calls per row, or pass --skip-first 0 if the first call is warm", o->skip_first, o->skip_first == 1 ? "" : "s");
    }
    out->counts_as_regression = out->verdict == AN_V_DISCARD;
    if (out->verdict == AN_V_FAIL)
        out->verdict_text = xprintf("fail (%s)", !strcmp(out->fail_kind, "gate") ? "gate"
                                                 : !strcmp(out->fail_kind, "invalid") ? "invalid"
                                                 : !strcmp(out->fail_kind, "ambiguous_target") ? "ambiguous target"
                                                                                               : "missing metrics");
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
        if (out->has_script && G->evaluated && G->bounded && out->script_global.evaluated &&
            out->script_global.bounded) {
            /* Opposite directions, each beyond its own noise (its interval excludes 0). */
            const an_group *S = &out->script_global;
            int s_dn = S->hi < 0, s_up = S->lo > 0, g_dn = G->hi < 0, g_up = G->lo > 0;
            if (s_dn && g_up)
                note(&out->warnings, "script_disagrees", "script metric %s moves against the GPU result (%s): script "
                     "faster, GPU slower (host work or kernels outside the target set)", pct(b1, sizeof b1, S->r),
                     pct(b2, sizeof b2, G->r));
            else if (s_up && g_dn)
                note(&out->warnings, "script_disagrees", "script metric %s moves against the GPU result (%s): GPU "
                     "faster, script slower (launch overhead grew)", pct(b1, sizeof b1, S->r), pct(b2, sizeof b2, G->r));
        }
        for (int s = 0; s < 2; s++) {
            const an_side_time *t = s ? &out->tcand : &out->tbest;
            if (!t->nrows_no_warm || out->structural)
                continue;
            kr_buf m;
            kr_buf_init(&m);
            for (size_t i = 0; i < t->nrows_no_warm && i < AN_CMP_MAX_LISTED; i++)
                kr_buf_printf(&m, "%s%zu", i ? ", " : "", t->rows_no_warm[i] + 1);
            note(&out->warnings, "rows_without_warm_calls", "%s: %zu benchmark row%s with calls but no warm call (rows %s%s)",
                 s ? "CANDIDATE" : "BEST", t->nrows_no_warm, t->nrows_no_warm == 1 ? "" : "s", kr_buf_cstr(&m),
                 t->nrows_no_warm > AN_CMP_MAX_LISTED ? ", ..." : "");
            kr_buf_free(&m);
        }
        for (size_t i = 0; i < out->target.ncompanions; i++)
            note(&out->warnings, "companion", "%s runs once between the target's dispatches: part of every call (%s)",
                 out->target.companions[i], an_target_has(&out->target, out->target.companions[i])
                     ? "counted in the call time" : "pinned set: it neither breaks a segment nor counts");
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
    for (size_t i = 0; i < c->nviews_best; i++)
        an_csv_view_free(&c->views_best[i]);
    for (size_t i = 0; i < c->nviews_cand; i++)
        an_csv_view_free(&c->views_cand[i]);
    free(c->views_best);
    free(c->views_cand);
    free(c->provider);
    free_names(c->providers, c->nproviders);
    free(c->traces_best);
    free(c->traces_cand);
    free(c->trace_rows);
    for (size_t i = 0; i < c->nsets; i++) {
        free_names(c->sets[i].names, c->sets[i].n);
        group_free(&c->sets[i].group);
        free(c->sets[i].flags);
    }
    free(c->sets);
    free_names(c->severe_rows, c->nsevere);
    for (int s = 0; s < 2; s++) {
        for (size_t p = 0; c->rep_v[s] && p < c->bench.nrows; p++)
            free(c->rep_v[s][p]);
        free(c->rep_v[s]);
        free(c->rep_n[s]);
    }
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
