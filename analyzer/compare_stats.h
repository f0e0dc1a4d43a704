/* compare_stats.h — the statistics `kreport compare` decides with
 * (docs/compare.md#statistic, docs/compare.md#thresholds): descriptive figures of a sample, the Hodges-Lehmann
 * shift of two samples with its rank-based interval, the Mann-Whitney test,
 * the group outcome and the "how many more calls" estimate. Deterministic:
 * no random numbers anywhere in a verdict.
 *
 * Samples are doubles (log call times after stratification, or plain
 * values in the tests). x is BEST, y is CANDIDATE; differences are y − x.
 *
 * Hodges-Lehmann: HL = median of the n1·n2 differences y_j − x_i (mean of
 * the two middle ones for an even count). Interval [D(k), D(N+1−k)],
 * N = n1·n2, k = 1 + the largest u with P(U ≤ u) ≤ α/2 under no change;
 * k = 0 when no u qualifies (the interval is unbounded: too few calls).
 * P comes from the exact distribution of U when N ≤ AN_STATS_EXACT_MAX,
 * else from the normal approximation with tie correction and a continuity
 * correction of ½. The k-th difference is found by counting pairs below a
 * value on the two sorted samples (O((n1 + n2) log N) per step, never
 * storing N differences) once N exceeds AN_STATS_MATERIALIZE_MAX.
 *
 * Mann-Whitney: U = #{y_j > x_i} + ½ #{y_j = x_i}; two-sided
 * p = min(1, 2 · min(P(U' ≤ U), P(U' ≥ U))). In the exact branch a
 * half-integer U (ties) is rounded towards the centre, the conservative
 * reading. */
#ifndef KR_ANALYZER_COMPARE_STATS_H
#define KR_ANALYZER_COMPARE_STATS_H

#include <stddef.h>
#include <stdint.h>

#define AN_STATS_EXACT_MAX        2500u       /* n1·n2 up to this: exact U distribution */
#define AN_STATS_MATERIALIZE_MAX  (1u << 20)  /* n1·n2 up to this: differences sorted in memory */
#define AN_STATS_MIN_CALLS        4           /* fewer warm calls a side cannot reach α = 0.05 */
#define AN_STATS_ALPHA            0.05
#define AN_STATS_OUTLIER_MADS     10.0        /* hyperfine: |x − median| > 10 × 1.4826 × MAD */

/* Descriptive figures of one sample. stddev is the sample standard
 * deviation (n − 1), 0 for n < 2; cv = stddev / mean (0 when mean is 0). */
typedef struct an_desc {
    size_t n;
    double median, mean, min, max, stddev, cv;
    double mad;              /* median absolute deviation from the median */
    size_t outliers;         /* |x − median| > AN_STATS_OUTLIER_MADS × 1.4826 × MAD */
} an_desc;

/* x is not modified. n may be 0 (everything 0). Returns 0 or KR_INTERNAL. */
int an_desc_compute(const double *x, size_t n, an_desc *out);

/* Median of a sorted array (mean of the middle two for even n); 0 for n = 0. */
double an_median_sorted(const double *x, size_t n);

/* Exact null distribution of U for sample sizes (m, n): cdf[u] = P(U ≤ u),
 * u = 0 .. m·n, into a caller array of m·n + 1 doubles. m·n must not exceed
 * AN_STATS_EXACT_MAX. Returns 0 or KR_INTERNAL. */
int an_u_cdf(size_t m, size_t n, double *cdf);

/* Two-sample shift of y against x. */
typedef struct an_shift {
    size_t n1, n2;           /* sizes of x (BEST) and y (CANDIDATE) */
    double hl;               /* Hodges-Lehmann shift (same unit as the samples) */
    double d_lo, d_hi;       /* D(k) and D(N+1−k); 0 when k = 0 */
    size_t k;                /* 0: the interval is unbounded */
    double u;                /* Mann-Whitney U of y over x */
    double p;                /* two-sided p */
    uint8_t exact;           /* exact U distribution used */
} an_shift;

/* x and y are not modified. n1 or n2 may be 0 (then hl = 0, k = 0, p = 1).
 * alpha is the two-sided level (0.05). Returns 0 or KR_INTERNAL. */
int an_shift_compute(const double *x, size_t n1, const double *y, size_t n2, double alpha, an_shift *out);

/* k-th smallest (1-based) of the differences ys[j] − xs[i] of two sorted
 * samples, without storing them. Exposed for tests. Returns 0 or KR_INTERNAL. */
int an_kth_difference(const double *xs, size_t n1, const double *ys, size_t n2, uint64_t k, double *out);

/* Group outcomes (docs/compare.md#thresholds), in report order. */
typedef enum an_outcome {
    AN_OUT_IMPROVED = 0,
    AN_OUT_REGRESSED,
    AN_OUT_TIE_FASTER,       /* CI excludes 0, |r| < θ, r < 0 */
    AN_OUT_TIE_SLOWER,       /* CI excludes 0, |r| < θ, r > 0 */
    AN_OUT_TIE,              /* CI contains 0 and lies within [−θ, +θ] */
    AN_OUT_INCONCLUSIVE,     /* CI contains 0 and reaches beyond ±θ, or too few calls */
    AN_OUT_NONE              /* not evaluated */
} an_outcome;

const char *an_outcome_id(an_outcome o);     /* "improved", "tie_faster", ... "not_evaluated" */
const char *an_outcome_text(an_outcome o);   /* "improved", "tie (faster)", ... "not evaluated" */

/* Outcome of a ratio change r with interval [lo, hi] (all as fractions:
 * −0.05 is 5 % faster), at threshold theta; bounded = 0 when the interval
 * is unbounded (then inconclusive). */
an_outcome an_outcome_of(double r, double lo, double hi, int bounded, double theta);

/* How many more warm calls per side would decide an inconclusive group
 * (docs/compare.md#statistic): n warm calls per side, point r, interval [lo, hi],
 * threshold theta (fractions). n_sig = ⌈n·(w/|r|)²⌉ with w the distance
 * from r to the interval end that crosses 0; if |r| < θ also
 * n_tie = ⌈n·max((r−lo)/(r+θ), (hi−r)/(θ−r))²⌉; the answer is
 * min(n_sig, n_tie) − n, at least 1. Returns 0 when no finite estimate
 * exists (r = 0 and |r| ≥ θ cannot happen together; r = 0 gives n_tie
 * only). *too_small is set when the total exceeds 20·n. */
uint64_t an_need_more(size_t n, double r, double lo, double hi, double theta, int *too_small);

/* One-sample signed-rank statistic of paired differences d (benchmark rows
 * without a kernel trace, docs/compare.md "Loops without a trace"): zero
 * differences are dropped (Wilcoxon's convention); T+ = sum of the ranks of
 * the positive |d| (average ranks for ties); two-sided p from the exact
 * distribution of T+ up to AN_STATS_SIGNED_EXACT_MAX non-zero differences
 * (ties then make it conservative-approximate), else the normal
 * approximation with tie and continuity correction. The centre is the
 * Hodges-Lehmann estimate (median of the Walsh averages (d_i + d_j) / 2,
 * i <= j) and the interval [W(k), W(M+1-k)], M = n(n+1)/2, k = 1 + the
 * largest t with P(T+ <= t) <= alpha/2; k = 0 (unbounded) below 6
 * differences at alpha = 0.05. */
#define AN_STATS_SIGNED_EXACT_MAX 25u
#define AN_STATS_SIGNED_MAX       4000u       /* differences beyond this: interval from the normal quantile only */

typedef struct an_signed {
    size_t n;                /* non-zero differences */
    size_t zeros;
    double hl;               /* median of the Walsh averages */
    double lo, hi;           /* interval ends; 0 when k = 0 */
    size_t k;
    double t_plus;
    double p;
    uint8_t exact;
} an_signed;

/* d is not modified; n may be 0 (p = 1, k = 0). Returns 0 or KR_INTERNAL. */
int an_signed_compute(const double *d, size_t n, double alpha, an_signed *out);

#endif
