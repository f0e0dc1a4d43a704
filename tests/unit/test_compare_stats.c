/* test_compare_stats.c — Hodges-Lehmann, Mann-Whitney, the exact U
 * distribution, group outcomes and the need-more estimate, on samples whose
 * answers are computed by hand in the comments (docs/compare.md#statistic, docs/compare.md#thresholds, docs/compare.md#worked-examples). */
#include <math.h>

#include "analyzer/compare_stats.h"
#include "tests/unit/t.h"

/* Brute force k-th difference for the selection cross-check. */
static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void test_exact_cdf(void)
{
    /* m = n = 3: the 20 arrangements give U counts 1,1,2,3,3,3,3,2,1,1 for
     * u = 0..9 (Gaussian binomial [6 choose 3]). */
    double cdf[10];
    T_EQ_I64(an_u_cdf(3, 3, cdf), 0);
    T_NEAR(cdf[0], 1.0 / 20, 1e-12);
    T_NEAR(cdf[1], 2.0 / 20, 1e-12);
    T_NEAR(cdf[2], 4.0 / 20, 1e-12);
    T_NEAR(cdf[3], 7.0 / 20, 1e-12);
    T_NEAR(cdf[9], 1.0, 1e-12);
    /* m = n = 5: counts 1,1,2,3,5,7,9 for u = 0..6 of C(10,5) = 252. */
    double c5[26];
    T_EQ_I64(an_u_cdf(5, 5, c5), 0);
    T_NEAR(c5[2], 4.0 / 252, 1e-12);
    T_NEAR(c5[3], 7.0 / 252, 1e-12);
    T_NEAR(c5[4], 12.0 / 252, 1e-12);
    /* m = 1, n = 4: U uniform on 0..4. */
    double c14[5];
    T_EQ_I64(an_u_cdf(1, 4, c14), 0);
    T_NEAR(c14[0], 0.2, 1e-12);
    T_NEAR(c14[3], 0.8, 1e-12);
    /* Asymmetric sizes give the same distribution both ways. */
    double a[13], b[13];
    an_u_cdf(3, 4, a);
    an_u_cdf(4, 3, b);
    int same = 1;
    for (int u = 0; u <= 12; u++)
        same &= fabs(a[u] - b[u]) < 1e-12;
    T_CHECK(same);
    /* 4 vs 3: C(7,3) = 35 arrangements, P(U = 0) = 1/35. */
    T_NEAR(a[0], 1.0 / 35, 1e-12);
}

static void test_shift_small(void)
{
    an_shift s;
    /* x = 1 2 3, y = 4 5 6: the nine differences 1 2 2 3 3 3 4 4 5 give
     * HL = 3; U = 9 of 9; P(U ≤ 0) = 1/20 = 0.05 > 0.025, so no interval
     * (k = 0) and p = 2 × 1/20 = 0.1 (docs/compare.md: 3 vs 3 at best 0.1). */
    double x1[] = {1, 2, 3}, y1[] = {4, 5, 6};
    T_EQ_I64(an_shift_compute(x1, 3, y1, 3, 0.05, &s), 0);
    T_NEAR(s.hl, 3, 1e-12);
    T_NEAR(s.u, 9, 1e-12);
    T_EQ_U64(s.k, 0);
    T_NEAR(s.p, 0.1, 1e-12);
    T_CHECK(s.exact);

    /* x = 1..4, y = 11..14: differences 10 + (j − i) → 7,8,8,9,9,9,10×4,
     * 11×3,12×2,13; HL = (10 + 10)/2 = 10; P(U ≤ 0) = 1/70 ≤ 0.025 and
     * P(U ≤ 1) = 2/70 > 0.025 → k = 1 → [D(1), D(16)] = [7, 13];
     * p = 2/70. */
    double x2[] = {4, 2, 3, 1}, y2[] = {14, 11, 13, 12};
    T_EQ_I64(an_shift_compute(x2, 4, y2, 4, 0.05, &s), 0);
    T_NEAR(s.hl, 10, 1e-12);
    T_EQ_U64(s.k, 1);
    T_NEAR(s.d_lo, 7, 1e-12);
    T_NEAR(s.d_hi, 13, 1e-12);
    T_NEAR(s.p, 2.0 / 70, 1e-12);

    /* Ties: x = 1 2 2, y = 2 3. Differences 1 0 0 2 1 1 → sorted 0 0 1 1 1 2,
     * HL = (1 + 1)/2 = 1; U = #(y > x) + ½ #(y = x) = 4 + ½·2 = 5. */
    double x3[] = {1, 2, 2}, y3[] = {2, 3};
    T_EQ_I64(an_shift_compute(x3, 3, y3, 2, 0.05, &s), 0);
    T_NEAR(s.hl, 1, 1e-12);
    T_NEAR(s.u, 5, 1e-12);

    /* n = 1 each: one difference (2), U = 1, P(U ≤ 0) = ½: no interval, p = 1. */
    double x4[] = {5}, y4[] = {7};
    T_EQ_I64(an_shift_compute(x4, 1, y4, 1, 0.05, &s), 0);
    T_NEAR(s.hl, 2, 1e-12);
    T_EQ_U64(s.k, 0);
    T_NEAR(s.p, 1, 1e-12);

    /* Identical samples 1..5: differences −4..4 with counts 1,2,3,4,5,4,3,2,1;
     * HL = 0; U = 10 + ½·5 = 12.5 = N/2 → p = 1; k = 3 (P(U ≤ 2) = 4/252,
     * P(U ≤ 3) = 7/252 > 0.025) → [D(3), D(23)] = [−3, 3]. */
    double x5[] = {1, 2, 3, 4, 5};
    T_EQ_I64(an_shift_compute(x5, 5, x5, 5, 0.05, &s), 0);
    T_NEAR(s.hl, 0, 1e-12);
    T_NEAR(s.u, 12.5, 1e-12);
    T_NEAR(s.p, 1, 1e-12);
    T_EQ_U64(s.k, 3);
    T_NEAR(s.d_lo, -3, 1e-12);
    T_NEAR(s.d_hi, 3, 1e-12);
    /* Empty side. */
    T_EQ_I64(an_shift_compute(x5, 5, x5, 0, 0.05, &s), 0);
    T_EQ_U64(s.k, 0);
    T_NEAR(s.p, 1, 1e-12);
}

/* docs/compare.md#worked-examples: BEST 30.42 30.31 30.55 30.38 31.90, CANDIDATE 29.95 30.10
 * 30.62 29.88 30.01 (µs). HL r = −1.42 %, exact CI −5.92 … +0.66 % (ranks 3
 * and 23 of 25), p = 0.095 (U = 4: 2 × 12/252), inconclusive; need:
 * w = 0.66 + 1.42 = 2.08, n_sig = ⌈5·(2.08/1.42)²⌉ = 11 → 6 more. */
static void test_worked_inconclusive(void)
{
    double b[] = {30.42, 30.31, 30.55, 30.38, 31.90}, c[] = {29.95, 30.10, 30.62, 29.88, 30.01};
    double lb[5], lc[5];
    for (int i = 0; i < 5; i++) {
        lb[i] = log(b[i]) - log(30.42);
        lc[i] = log(c[i]) - log(30.42);
    }
    an_shift s;
    T_EQ_I64(an_shift_compute(lb, 5, lc, 5, 0.05, &s), 0);
    double r = exp(s.hl) - 1, lo = exp(s.d_lo) - 1, hi = exp(s.d_hi) - 1;
    T_NEAR(r * 100, -1.42, 0.005);
    T_NEAR(lo * 100, -5.92, 0.01);
    T_NEAR(hi * 100, 0.66, 0.005);
    T_EQ_U64(s.k, 3);
    T_NEAR(s.u, 4, 1e-12);
    T_NEAR(s.p, 24.0 / 252, 1e-12);
    T_EQ_I64(an_outcome_of(r, lo, hi, 1, 0.01), AN_OUT_INCONCLUSIVE);
    int too = 0;
    T_EQ_U64(an_need_more(5, r, lo, hi, 0.01, &too), 6);
    T_EQ_I64(too, 0);
}

static void test_outcomes(void)
{
    /* docs/compare.md#thresholds table, θ = 1 %. */
    T_EQ_I64(an_outcome_of(-0.031, -0.0376, -0.0139, 1, 0.01), AN_OUT_IMPROVED);   /* docs/compare.md#worked-examples global */
    T_EQ_I64(an_outcome_of(0.0207, 0.0192, 0.0221, 1, 0.01), AN_OUT_REGRESSED);    /* docs/compare.md#worked-examples global */
    T_EQ_I64(an_outcome_of(-0.0004, -0.0017, 0.0009, 1, 0.01), AN_OUT_TIE);        /* docs/compare.md#worked-examples global */
    T_EQ_I64(an_outcome_of(-0.006, -0.008, -0.004, 1, 0.01), AN_OUT_TIE_FASTER);   /* docs/compare.md#worked-examples aside */
    T_EQ_I64(an_outcome_of(0.006, 0.004, 0.008, 1, 0.01), AN_OUT_TIE_SLOWER);
    T_EQ_I64(an_outcome_of(0.0017, -0.001, 0.0045, 1, 0.01), AN_OUT_TIE);          /* docs/compare.md#worked-examples global */
    T_EQ_I64(an_outcome_of(-0.005, -0.02, 0.003, 1, 0.01), AN_OUT_INCONCLUSIVE);
    T_EQ_I64(an_outcome_of(-0.05, -0.06, -0.04, 0, 0.01), AN_OUT_INCONCLUSIVE);    /* unbounded */
    T_EQ_STR(an_outcome_text(AN_OUT_TIE_FASTER), "tie (faster)");
    T_EQ_STR(an_outcome_id(AN_OUT_NONE), "not_evaluated");
}

static void test_need_more(void)
{
    int too = 0;
    /* r = −0.5 %, [−1.5, +0.5] %, n = 10, θ = 1 %: w = 1.0, n_sig =
     * ⌈10·(1.0/0.5)²⌉ = 40; n_tie = ⌈10·max(1.0/0.5, 1.0/1.5)²⌉ = 40 → 30 more. */
    T_EQ_U64(an_need_more(10, -0.005, -0.015, 0.005, 0.01, &too), 30);
    T_EQ_I64(too, 0);
    /* r = 0, [−2, +2] %: only n_tie = ⌈8·(2/1)²⌉ = 32 → 24 more. */
    T_EQ_U64(an_need_more(8, 0, -0.02, 0.02, 0.01, &too), 24);
    /* r = +0.1 %, [−5, +5] %, n = 4: n_sig = ⌈4·(5.1/0.1)²⌉ = 10404,
     * n_tie = ⌈4·max(5.1/1.1, 4.9/0.9)²⌉ = ⌈4·29.64⌉ = 119 → 115, > 20·4 → too small to resolve cheaply. */
    T_EQ_U64(an_need_more(4, 0.001, -0.05, 0.05, 0.01, &too), 115);
    T_EQ_I64(too, 1);
}

static void test_desc(void)
{
    /* 1 2 3 4 100: median 3, mean 22, min 1, max 100; deviations 2 1 0 1 97
     * → MAD 1; 97 > 10 × 1.4826 = 14.8 → one outlier; sample sd = sqrt(Σ(x −
     * 22)² / 4) = sqrt((441 + 400 + 361 + 324 + 6084) / 4) = sqrt(1902.5). */
    double x[] = {4, 100, 1, 3, 2};
    an_desc d;
    T_EQ_I64(an_desc_compute(x, 5, &d), 0);
    T_NEAR(d.median, 3, 1e-12);
    T_NEAR(d.mean, 22, 1e-12);
    T_NEAR(d.min, 1, 1e-12);
    T_NEAR(d.max, 100, 1e-12);
    T_NEAR(d.mad, 1, 1e-12);
    T_EQ_U64(d.outliers, 1);
    T_NEAR(d.stddev, sqrt(1902.5), 1e-9);
    T_NEAR(d.cv, sqrt(1902.5) / 22, 1e-12);
    T_EQ_I64(an_desc_compute(x, 0, &d), 0);
    T_EQ_U64(d.n, 0);
    double one[] = {7};
    an_desc_compute(one, 1, &d);
    T_NEAR(d.median, 7, 0);
    T_NEAR(d.stddev, 0, 0);
}

/* The counting selection (used above AN_STATS_MATERIALIZE_MAX pairs) must
 * agree with a full sort; it is called directly on samples big enough to
 * take that path, with ties and a deterministic pseudo-random spread. */
static void test_selection_large(void)
{
    size_t n1 = 1200, n2 = 1100;
    double *x = malloc(n1 * sizeof *x), *y = malloc(n2 * sizeof *y);
    uint64_t s = 12345;
    for (size_t i = 0; i < n1; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = (double)((s >> 33) % 5000) / 100.0;
    }
    for (size_t j = 0; j < n2; j++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        y[j] = (double)((s >> 33) % 5000) / 100.0 + 3.0;
    }
    qsort(x, n1, sizeof *x, cmpd);
    qsort(y, n2, sizeof *y, cmpd);
    size_t total = n1 * n2;
    double *all = malloc(total * sizeof *all);
    size_t t = 0;
    for (size_t i = 0; i < n1; i++)
        for (size_t j = 0; j < n2; j++)
            all[t++] = y[j] - x[i];
    qsort(all, total, sizeof *all, cmpd);
    uint64_t ks[] = {1, 2, 1000, total / 4, total / 2, total / 2 + 1, total - 7, total};
    int ok = 1;
    for (size_t q = 0; q < sizeof ks / sizeof ks[0]; q++) {
        double v = 0;
        if (an_kth_difference(x, n1, y, n2, ks[q], &v) || v != all[ks[q] - 1])
            ok = 0;
    }
    T_CHECK(ok);
    /* The normal branch: HL equals the brute-force median. */
    an_shift sh;
    T_EQ_I64(an_shift_compute(x, n1, y, n2, 0.05, &sh), 0);
    T_CHECK(!sh.exact);
    T_NEAR(sh.hl, (all[total / 2 - 1] + all[total / 2]) / 2, 1e-12);
    T_CHECK(sh.k > 0 && sh.d_lo <= sh.hl && sh.hl <= sh.d_hi);
    T_NEAR(sh.d_lo, all[sh.k - 1], 0);
    free(all);
    free(x);
    free(y);
}

/* Signed rank, checked by hand. d = {0.5, -0.2, 0.3, 0.1, 0.4, 0.6, 0.7, 0}:
 * the zero is dropped (n = 7); ranks of |d|: 0.1→1, 0.2→2, 0.3→3, 0.4→4,
 * 0.5→5, 0.6→6, 0.7→7; T+ = 28 − 2 = 26. Under no change the 2^7 = 128 sign
 * patterns give P(T+ >= 26) = #{subsets of 1..7 with sum <= 2} / 128 = 3/128
 * (sums 0, 1, 2): p = 6/128. The interval: P(T+ <= t) <= 0.025 holds for
 * t = 0 (1/128) and t = 2 (3/128), not t = 3 (5/128), so k = 3: the 3rd
 * smallest and 3rd largest of the 28 Walsh averages. */
static void test_signed_rank(void)
{
    double d[] = {0.5, -0.2, 0.3, 0.1, 0.4, 0.6, 0.7, 0};
    an_signed s;
    T_EQ_I64(an_signed_compute(d, 8, 0.05, &s), 0);
    T_EQ_U64(s.n, 7);
    T_EQ_U64(s.zeros, 1);
    T_NEAR(s.t_plus, 26, 0);
    T_CHECK(s.exact);
    T_NEAR(s.p, 6.0 / 128, 1e-12);
    T_EQ_U64(s.k, 3);
    /* Walsh averages of {-0.2, 0.1, 0.3, 0.4, 0.5, 0.6, 0.7}, smallest: -0.2, -0.05, 0.05 ...;
     * largest: 0.7, 0.65, 0.6 (0.6 twice: (0.6+0.6)/2 and (0.5+0.7)/2). */
    T_NEAR(s.lo, 0.05, 1e-12);
    T_NEAR(s.hi, 0.6, 1e-12);
    /* 28 averages: the median is the mean of the 14th and 15th. */
    double x[] = {-0.2, 0.1, 0.3, 0.4, 0.5, 0.6, 0.7}, w[28];
    size_t n = 0;
    for (int i = 0; i < 7; i++)
        for (int j = i; j < 7; j++)
            w[n++] = (x[i] + x[j]) / 2;
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && w[j - 1] > w[j]; j--) {
            double t = w[j];
            w[j] = w[j - 1];
            w[j - 1] = t;
        }
    T_NEAR(s.hl, (w[13] + w[14]) / 2, 1e-12);
    /* Five differences all positive: p = 2/32, and no interval can exclude 0 (k = 0). */
    double e[] = {1, 2, 3, 4, 5};
    T_EQ_I64(an_signed_compute(e, 5, 0.05, &s), 0);
    T_NEAR(s.p, 2.0 / 32, 1e-12);
    T_EQ_U64(s.k, 0);
    /* Six: p = 2/64 < 0.05 and k = 1 (the extreme Walsh averages). */
    double f[] = {1, 2, 3, 4, 5, 6};
    T_EQ_I64(an_signed_compute(f, 6, 0.05, &s), 0);
    T_NEAR(s.p, 2.0 / 64, 1e-12);
    T_EQ_U64(s.k, 1);
    T_NEAR(s.lo, 1, 0);
    T_NEAR(s.hi, 6, 0);
    /* Large n (normal branch): symmetric around 0 gives p near 1 and an interval around 0. */
    double g[60];
    for (int i = 0; i < 60; i++)
        g[i] = (i % 2 ? 1 : -1) * (double)(i / 2 + 1);
    T_EQ_I64(an_signed_compute(g, 60, 0.05, &s), 0);
    T_CHECK(!s.exact);
    T_CHECK(s.p > 0.9);
    T_CHECK(s.k > 0 && s.lo < 0 && s.hi > 0);
    T_EQ_I64(an_signed_compute(d, 0, 0.05, &s), 0);
    T_NEAR(s.p, 1, 0);
}

int main(void)
{
    test_signed_rank();
    test_exact_cdf();
    test_shift_small();
    test_worked_inconclusive();
    test_outcomes();
    test_need_more();
    test_desc();
    test_selection_large();
    return t_done("test_compare_stats");
}
