/* compare_stats.c — see compare_stats.h (docs/compare.md#statistic, docs/compare.md#thresholds). */
#include "analyzer/compare_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y ? 1 : 0;
}

double an_median_sorted(const double *x, size_t n)
{
    if (n == 0)
        return 0;
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

int an_desc_compute(const double *x, size_t n, an_desc *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    if (n == 0)
        return 0;
    double *s = malloc(n * sizeof *s);
    if (!s)
        return KR_INTERNAL;
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    out->min = s[0];
    out->max = s[n - 1];
    out->median = an_median_sorted(s, n);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += s[i];
    out->mean = sum / (double)n;
    if (n >= 2) {
        double ss = 0;
        for (size_t i = 0; i < n; i++)
            ss += (s[i] - out->mean) * (s[i] - out->mean);
        out->stddev = sqrt(ss / (double)(n - 1));
    }
    out->cv = out->mean != 0 ? out->stddev / out->mean : 0;
    for (size_t i = 0; i < n; i++)
        s[i] = fabs(s[i] - out->median);
    qsort(s, n, sizeof *s, cmp_double);
    out->mad = an_median_sorted(s, n);
    if (out->mad > 0) {
        double lim = AN_STATS_OUTLIER_MADS * 1.4826 * out->mad;
        for (size_t i = 0; i < n; i++)
            out->outliers += s[i] > lim;
    }
    free(s);
    return 0;
}

/* p_{a,b}(u) = a/(a+b)·p_{a−1,b}(u−b) + b/(a+b)·p_{a,b−1}(u): the largest of
 * the a+b pooled values comes from the first sample with probability
 * a/(a+b) and then exceeds all b values of the second. The distribution is
 * the same with the sizes swapped, so the smaller size runs the inner loop. */
int an_u_cdf(size_t m, size_t n, double *cdf)
{
    if (m < n) {
        size_t t = m;
        m = n;
        n = t;
    }
    size_t total = m * n;
    /* prev[b] / cur[b]: distribution for (a−1, b) / (a, b), b = 0..n. */
    double **prev = calloc(n + 1, sizeof *prev), **cur = calloc(n + 1, sizeof *cur);
    int rc = KR_INTERNAL;
    if (!prev || !cur)
        goto out;
    for (size_t b = 0; b <= n; b++) {
        prev[b] = calloc(1, sizeof(double));     /* a = 0: U = 0 surely */
        if (!prev[b])
            goto out;
        prev[b][0] = 1;
    }
    for (size_t a = 1; a <= m; a++) {
        for (size_t b = 0; b <= n; b++) {
            size_t len = a * b + 1;
            double *p = calloc(len, sizeof *p);
            if (!p)
                goto out;
            if (b == 0) {
                p[0] = 1;
            } else {
                double wa = (double)a / (double)(a + b), wb = (double)b / (double)(a + b);
                /* prev[b] has (a−1)·b + 1 entries, cur[b−1] has a·(b−1) + 1. */
                for (size_t u = b; u < len; u++)
                    if (u - b < (a - 1) * b + 1)
                        p[u] += wa * prev[b][u - b];
                for (size_t u = 0; u < a * (b - 1) + 1; u++)
                    p[u] += wb * cur[b - 1][u];
            }
            cur[b] = p;
        }
        for (size_t b = 0; b <= n; b++) {
            free(prev[b]);
            prev[b] = cur[b];
            cur[b] = NULL;
        }
    }
    double acc = 0;
    for (size_t u = 0; u <= total; u++) {
        acc += prev[n][u];
        cdf[u] = acc > 1 ? 1 : acc;
    }
    rc = 0;
out:
    for (size_t b = 0; prev && b <= n; b++)
        free(prev[b]);
    for (size_t b = 0; cur && b <= n; b++)
        free(cur[b]);
    free(prev);
    free(cur);
    return rc;
}

/* Standard normal upper quantile by bisection on erfc (deterministic, and
 * precise far beyond what the interval needs). */
static double z_upper(double tail)
{
    double lo = 0, hi = 40;
    for (int i = 0; i < 200; i++) {
        double mid = (lo + hi) / 2;
        if (0.5 * erfc(mid / sqrt(2.0)) > tail)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

/* Counts of differences ys[j] − xs[i] below p (lt) and at most p (le) per
 * row i; for growing i the counts never shrink, so one pointer each. */
static void count_rows(const double *xs, size_t n1, const double *ys, size_t n2, double p,
                       size_t *lt, size_t *le, uint64_t *sum_lt, uint64_t *sum_le)
{
    size_t jl = 0, je = 0;
    uint64_t sl = 0, se = 0;
    for (size_t i = 0; i < n1; i++) {
        while (jl < n2 && ys[jl] - xs[i] < p)
            jl++;
        if (je < jl)
            je = jl;
        while (je < n2 && ys[je] - xs[i] <= p)
            je++;
        if (lt)
            lt[i] = jl;
        if (le)
            le[i] = je;
        sl += jl;
        se += je;
    }
    *sum_lt = sl;
    *sum_le = se;
}

typedef struct wv { double v; size_t w; } wv;

static int cmp_wv(const void *a, const void *b)
{
    const wv *x = a, *y = b;
    return x->v < y->v ? -1 : x->v > y->v ? 1 : (x->w < y->w ? -1 : x->w > y->w);
}

int an_kth_difference(const double *xs, size_t n1, const double *ys, size_t n2, uint64_t k, double *out)
{
    uint64_t total = (uint64_t)n1 * n2;
    if (k < 1 || k > total)
        return KR_INTERNAL;
    if (total <= AN_STATS_MATERIALIZE_MAX) {
        double *d = malloc(total * sizeof *d);
        if (!d)
            return KR_INTERNAL;
        size_t t = 0;
        for (size_t i = 0; i < n1; i++)
            for (size_t j = 0; j < n2; j++)
                d[t++] = ys[j] - xs[i];
        qsort(d, total, sizeof *d, cmp_double);
        *out = d[k - 1];
        free(d);
        return 0;
    }
    /* Active columns [lo_i, hi_i) per row; everything left of lo_i is below
     * the answer, everything from hi_i on is above it. Each round removes at
     * least a quarter of the active pairs (weighted-median pivot). */
    size_t *lo = calloc(n1, sizeof *lo), *hi = malloc(n1 * sizeof *hi);
    size_t *lt = malloc(n1 * sizeof *lt), *le = malloc(n1 * sizeof *le);
    wv *piv = malloc(n1 * sizeof *piv);
    int rc = KR_INTERNAL;
    if (!lo || !hi || !lt || !le || !piv)
        goto out;
    for (size_t i = 0; i < n1; i++)
        hi[i] = n2;
    for (;;) {
        uint64_t active = 0, below = 0;
        for (size_t i = 0; i < n1; i++) {
            active += hi[i] - lo[i];
            below += lo[i];
        }
        if (active <= (1u << 16)) {
            double *d = malloc((active ? active : 1) * sizeof *d);
            if (!d)
                goto out;
            size_t t = 0;
            for (size_t i = 0; i < n1; i++)
                for (size_t j = lo[i]; j < hi[i]; j++)
                    d[t++] = ys[j] - xs[i];
            qsort(d, t, sizeof *d, cmp_double);
            *out = d[k - below - 1];
            free(d);
            rc = 0;
            goto out;
        }
        size_t np = 0;
        for (size_t i = 0; i < n1; i++)
            if (hi[i] > lo[i]) {
                piv[np].v = ys[lo[i] + (hi[i] - lo[i]) / 2] - xs[i];
                piv[np].w = hi[i] - lo[i];
                np++;
            }
        qsort(piv, np, sizeof *piv, cmp_wv);
        uint64_t acc = 0;
        double p = piv[np - 1].v;
        for (size_t t = 0; t < np; t++) {
            acc += piv[t].w;
            if (2 * acc >= active) {
                p = piv[t].v;
                break;
            }
        }
        uint64_t sl, se;
        count_rows(xs, n1, ys, n2, p, lt, le, &sl, &se);
        if (k <= sl) {
            for (size_t i = 0; i < n1; i++)
                if (lt[i] < hi[i])
                    hi[i] = lt[i] > lo[i] ? lt[i] : lo[i];
        } else if (k <= se) {
            *out = p;
            rc = 0;
            goto out;
        } else {
            for (size_t i = 0; i < n1; i++)
                if (le[i] > lo[i])
                    lo[i] = le[i] < hi[i] ? le[i] : hi[i];
        }
    }
out:
    free(lo);
    free(hi);
    free(lt);
    free(le);
    free(piv);
    return rc;
}

int an_shift_compute(const double *x, size_t n1, const double *y, size_t n2, double alpha, an_shift *out)
{
    memset(out, 0, sizeof *out);
    out->n1 = n1;
    out->n2 = n2;
    out->p = 1;
    if (n1 == 0 || n2 == 0)
        return 0;
    double *xs = malloc(n1 * sizeof *xs), *ys = malloc(n2 * sizeof *ys);
    double *cdf = NULL;
    int rc = KR_INTERNAL;
    if (!xs || !ys)
        goto out;
    memcpy(xs, x, n1 * sizeof *xs);
    memcpy(ys, y, n2 * sizeof *ys);
    qsort(xs, n1, sizeof *xs, cmp_double);
    qsort(ys, n2, sizeof *ys, cmp_double);
    uint64_t total = (uint64_t)n1 * n2;

    /* U: pairs with y > x, ties count one half. */
    uint64_t sl, se;
    count_rows(xs, n1, ys, n2, 0.0, NULL, NULL, &sl, &se);
    /* sl = #(y − x < 0), se = #(y − x ≤ 0) */
    out->u = (double)(total - se) + 0.5 * (double)(se - sl);

    /* Hodges-Lehmann point. */
    double a, b;
    if (total % 2) {
        if (an_kth_difference(xs, n1, ys, n2, (total + 1) / 2, &a))
            goto out;
        out->hl = a;
    } else {
        if (an_kth_difference(xs, n1, ys, n2, total / 2, &a) ||
            an_kth_difference(xs, n1, ys, n2, total / 2 + 1, &b))
            goto out;
        out->hl = (a + b) / 2;
    }

    /* k and p. */
    double half = alpha / 2;
    if (total <= AN_STATS_EXACT_MAX) {
        out->exact = 1;
        cdf = malloc((total + 1) * sizeof *cdf);
        if (!cdf || an_u_cdf(n1, n2, cdf))
            goto out;
        long long best = -1;
        for (uint64_t u = 0; u <= total; u++) {
            if (cdf[u] <= half + 1e-12)
                best = (long long)u;
            else
                break;
        }
        out->k = best < 0 ? 0 : (size_t)best + 1;
        double t = out->u < (double)total - out->u ? out->u : (double)total - out->u;
        uint64_t tr = (uint64_t)ceil(t);
        double p = 2 * cdf[tr];
        out->p = p > 1 ? 1 : p;
    } else {
        /* Tie correction over the pooled sample. */
        size_t N = n1 + n2;
        double ties = 0;
        size_t i = 0, j = 0;
        while (i < n1 || j < n2) {
            double v = (j >= n2 || (i < n1 && xs[i] <= ys[j])) ? xs[i] : ys[j];
            size_t t = 0;
            while (i < n1 && xs[i] == v) { i++; t++; }
            while (j < n2 && ys[j] == v) { j++; t++; }
            ties += (double)t * t * t - (double)t;
        }
        double mu = (double)total / 2;
        double var = (double)total / 12.0 * (((double)N + 1) - ties / ((double)N * ((double)N - 1)));
        double sigma = var > 0 ? sqrt(var) : 0;
        double z = z_upper(half);
        double u = floor(mu - 0.5 - z * sigma);
        out->k = u < 0 ? 0 : (size_t)u + 1;
        if (sigma > 0) {
            double zz = (fabs(out->u - mu) - 0.5) / sigma;
            if (zz < 0)
                zz = 0;
            out->p = erfc(zz / sqrt(2.0));
        } else {
            out->p = 1;
        }
        if (out->p > 1)
            out->p = 1;
    }
    if (out->k > 0 && out->k <= total) {
        if (an_kth_difference(xs, n1, ys, n2, out->k, &out->d_lo) ||
            an_kth_difference(xs, n1, ys, n2, total + 1 - out->k, &out->d_hi))
            goto out;
    } else {
        out->k = 0;
    }
    rc = 0;
out:
    free(xs);
    free(ys);
    free(cdf);
    return rc;
}

const char *an_outcome_id(an_outcome o)
{
    static const char *ids[] = {"improved", "regressed", "tie_faster", "tie_slower", "tie", "inconclusive",
                                "not_evaluated"};
    return (unsigned)o <= AN_OUT_NONE ? ids[o] : "not_evaluated";
}

const char *an_outcome_text(an_outcome o)
{
    static const char *t[] = {"improved", "regressed", "tie (faster)", "tie (slower)", "tie", "inconclusive",
                              "not evaluated"};
    return (unsigned)o <= AN_OUT_NONE ? t[o] : "not evaluated";
}

an_outcome an_outcome_of(double r, double lo, double hi, int bounded, double theta)
{
    if (!bounded)
        return AN_OUT_INCONCLUSIVE;
    if (hi < 0 && r <= -theta)
        return AN_OUT_IMPROVED;
    if (lo > 0 && r >= theta)
        return AN_OUT_REGRESSED;
    if (hi < 0)
        return AN_OUT_TIE_FASTER;
    if (lo > 0)
        return AN_OUT_TIE_SLOWER;
    if (lo >= -theta && hi <= theta)
        return AN_OUT_TIE;
    return AN_OUT_INCONCLUSIVE;
}

uint64_t an_need_more(size_t n, double r, double lo, double hi, double theta, int *too_small)
{
    *too_small = 0;
    if (n == 0)
        return 0;
    double total = INFINITY;
    if (r != 0) {
        double w = r < 0 ? hi - r : r - lo;
        double ratio = w / fabs(r);
        total = ceil((double)n * ratio * ratio - 1e-9);
    }
    if (fabs(r) < theta) {
        double a = (r - lo) / (r + theta), b = (hi - r) / (theta - r);
        double m = a > b ? a : b;
        double t = ceil((double)n * m * m - 1e-9);
        if (t < total)
            total = t;
    }
    if (!isfinite(total))
        return 0;
    *too_small = total > 20.0 * (double)n;
    double need = total - (double)n;
    if (need < 1)
        need = 1;
    return need > 1e18 ? (uint64_t)1e18 : (uint64_t)need;
}

/* ---- one-sample signed rank ---- */

typedef struct absd { double a; int pos; } absd;

static int cmp_absd(const void *x, const void *y)
{
    double a = ((const absd *)x)->a, b = ((const absd *)y)->a;
    return a < b ? -1 : a > b;
}

/* P(T+ <= t) for t = 0 .. n(n+1)/2 without ties: counts of subsets of
 * {1..n} by sum, divided by 2^n. */
static int signed_cdf(size_t n, double *cdf)
{
    size_t m = n * (n + 1) / 2;
    double *c = calloc(m + 1, sizeof *c);
    if (!c)
        return KR_INTERNAL;
    c[0] = 1;
    for (size_t r = 1; r <= n; r++)
        for (size_t s = m; s >= r; s--) {
            c[s] += c[s - r];
            if (s == r)
                break;
        }
    double total = ldexp(1.0, (int)n), acc = 0;
    for (size_t s = 0; s <= m; s++) {
        acc += c[s];
        cdf[s] = acc / total;
    }
    free(c);
    return 0;
}

int an_signed_compute(const double *d, size_t n, double alpha, an_signed *out)
{
    memset(out, 0, sizeof *out);
    out->p = 1;
    absd *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return KR_INTERNAL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (d[i] == 0) {
            out->zeros++;
            continue;
        }
        v[k].a = fabs(d[i]);
        v[k].pos = d[i] > 0;
        k++;
    }
    out->n = k;
    if (k == 0) {
        free(v);
        return 0;
    }
    qsort(v, k, sizeof *v, cmp_absd);
    double tplus = 0, tie_term = 0;
    for (size_t i = 0; i < k;) {
        size_t j = i;
        while (j < k && v[j].a == v[i].a)
            j++;
        double rank = (double)(i + 1 + j) / 2.0, t = (double)(j - i);
        tie_term += t * t * t - t;
        for (size_t q = i; q < j; q++)
            if (v[q].pos)
                tplus += rank;
        i = j;
    }
    free(v);
    out->t_plus = tplus;
    double mean = (double)k * (double)(k + 1) / 4.0;
    double var = (double)k * (double)(k + 1) * (double)(2 * k + 1) / 24.0 - tie_term / 48.0;
    size_t m = k * (k + 1) / 2;
    double *cdf = NULL;
    if (k <= AN_STATS_SIGNED_EXACT_MAX) {
        cdf = malloc((m + 1) * sizeof *cdf);
        if (!cdf || signed_cdf(k, cdf)) {
            free(cdf);
            return KR_INTERNAL;
        }
        out->exact = 1;
        /* Half-integer T+ (ties) is rounded towards the centre. */
        double tl = tplus <= mean ? ceil(tplus) : floor(tplus);
        size_t t = (size_t)tl;
        double below = cdf[t], above = 1 - (t ? cdf[t - 1] : 0);
        double p = 2 * (below < above ? below : above);
        out->p = p > 1 ? 1 : p;
        long long crit = -1;
        for (size_t s = 0; s <= m && cdf[s] <= alpha / 2 + 1e-12; s++)
            crit = (long long)s;
        out->k = crit < 0 ? 0 : (size_t)crit + 1;
    } else {
        double z = var > 0 ? (fabs(tplus - mean) - 0.5) / sqrt(var) : 0;
        if (z < 0)
            z = 0;
        out->p = erfc(z / sqrt(2.0));
        if (out->p > 1)
            out->p = 1;
        double kk = floor(mean - z_upper(alpha / 2) * sqrt(var) - 0.5) + 1;
        out->k = kk < 1 ? 0 : (size_t)kk;
    }
    free(cdf);
    /* Walsh averages of the non-zero differences (zeros are dropped). */
    if (k > AN_STATS_SIGNED_MAX) {
        out->k = 0;
        double *s = malloc(k * sizeof *s);
        if (!s)
            return KR_INTERNAL;
        size_t q = 0;
        for (size_t i = 0; i < n; i++)
            if (d[i] != 0)
                s[q++] = d[i];
        qsort(s, q, sizeof *s, cmp_double);
        out->hl = an_median_sorted(s, q);
        free(s);
        return 0;
    }
    double *x = malloc(k * sizeof *x), *w = malloc((m ? m : 1) * sizeof *w);
    if (!x || !w) {
        free(x);
        free(w);
        return KR_INTERNAL;
    }
    size_t q = 0;
    for (size_t i = 0; i < n; i++)
        if (d[i] != 0)
            x[q++] = d[i];
    size_t nw = 0;
    for (size_t i = 0; i < k; i++)
        for (size_t j = i; j < k; j++)
            w[nw++] = (x[i] + x[j]) / 2;
    qsort(w, nw, sizeof *w, cmp_double);
    out->hl = an_median_sorted(w, nw);
    if (out->k > 0 && out->k <= nw) {
        out->lo = w[out->k - 1];
        out->hi = w[nw - out->k];
    } else {
        out->k = 0;
    }
    free(x);
    free(w);
    return 0;
}
