/* dist.c — see dist.h. Order statistics by selection (expected linear
 * time; three-way partitions keep runs of equal values cheap); weighted
 * samples of more than a few dozen pairs by value histograms (below). */
#include "analyzer/dist.h"

#include <string.h>

uint64_t an_dist_rank(const uint64_t *v, size_t n, unsigned p)
{
    return v[an_dist_index(n, p)];
}

size_t an_dist_index(size_t n, unsigned p)
{
    size_t k = (size_t)(((uint64_t)p * n + 99) / 100);   /* ceil(p·n/100) */
    if (k < 1)
        k = 1;
    if (k > n)
        k = n;
    return k - 1;
}

static uint64_t med3(uint64_t a, uint64_t b, uint64_t c)
{
    if (a < b)
        return b < c ? b : (a < c ? c : a);
    return a < c ? a : (b < c ? c : b);
}

/* The value of rank k (0-based) of v[lo .. hi); reorders v so that the
 * elements before the final range are smaller and those after are larger. */
static uint64_t select_rank(uint64_t *v, size_t lo, size_t hi, size_t k)
{
    while (hi - lo > 1) {
        uint64_t p = med3(v[lo], v[lo + (hi - lo) / 2], v[hi - 1]);
        size_t lt = lo, i = lo, gt = hi;
        while (i < gt) {
            uint64_t x = v[i];
            if (x < p) {
                v[i++] = v[lt];
                v[lt++] = x;
            } else if (x > p) {
                v[i] = v[--gt];
                v[gt] = x;
            } else {
                i++;
            }
        }
        if (k < lt)
            hi = lt;
        else if (k >= gt)
            lo = gt;
        else
            return p;
    }
    return v[k];
}

void an_dist_of(uint64_t *v, size_t n, an_dist *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return;
    out->n = n;
    out->min = out->max = v[0];
    for (size_t i = 0; i < n; i++) {
        if (v[i] < out->min)
            out->min = v[i];
        if (v[i] > out->max)
            out->max = v[i];
    }
    size_t k50 = an_dist_index(n, 50), k10 = an_dist_index(n, 10), k90 = an_dist_index(n, 90);
    out->p50 = select_rank(v, 0, n, k50);
    /* v[0 .. k50] now holds the k50 + 1 smallest values, v[k50 ..] the largest */
    out->p10 = select_rank(v, 0, k50 + 1, k10);
    out->p90 = select_rank(v, k50, n, k90);
}

/* The value of 0-based rank k of the multiset v[lo .. hi) × c[lo .. hi)
 * (k below its total count); reorders the pairs together so that
 * v[lo .. *eq_lo) are smaller than the value, v[*eq_lo .. *eq_hi) equal and
 * v[*eq_hi .. hi) larger; *below and *upto are the counts of
 * v[lo .. *eq_lo) and v[lo .. *eq_hi). */
static uint64_t select_weighted(uint64_t *v, uint64_t *c, size_t lo, size_t hi, uint64_t k, size_t *eq_lo,
                                size_t *eq_hi, uint64_t *below, uint64_t *upto)
{
    uint64_t skipped = 0;                /* count of the elements left of lo */
    while (hi - lo > 1) {
        uint64_t p = med3(v[lo], v[lo + (hi - lo) / 2], v[hi - 1]);
        size_t lt = lo, i = lo, gt = hi;
        uint64_t wlt = 0, weq = 0;
        while (i < gt) {
            uint64_t x = v[i], y = c[i];
            if (x < p) {
                v[i] = v[lt];
                c[i] = c[lt];
                v[lt] = x;
                c[lt] = y;
                wlt += y;
                lt++;
                i++;
            } else if (x > p) {
                gt--;
                v[i] = v[gt];
                c[i] = c[gt];
                v[gt] = x;
                c[gt] = y;
            } else {
                weq += y;
                i++;
            }
        }
        if (k < wlt) {
            hi = lt;
        } else if (k - wlt < weq) {
            *eq_lo = lt;
            *eq_hi = gt;
            *below = skipped + wlt;
            *upto = skipped + wlt + weq;
            return p;
        } else {
            k -= wlt + weq;
            skipped += wlt + weq;
            lo = gt;
        }
    }
    *eq_lo = lo;
    *eq_hi = lo + 1;
    *below = skipped;
    *upto = skipped + c[lo];
    return v[lo];
}

/* ---- weighted selection by value histograms ----
 *
 * For samples of more than RADIX_MIN pairs: the values, known to lie in
 * [lo, hi], are counted (weighted) into nb (16 to 256) equal-width buckets
 * of (value − lo) >> shift; the cumulative weights name the bucket holding
 * a rank and the rank within it; that bucket's pairs are moved to the
 * front and the search continues inside it (width at least 16 times
 * smaller each round, so at most 16 rounds), until the bucket holds one value (width 1, or
 * lo == hi) or few pairs (select_weighted). Exact: the value of a rank
 * is the same whatever the order of the pairs; each round only narrows
 * which pairs can hold it. Cost: a few passes over the pairs. */

#define RADIX_MIN 48
#define RADIX_B 256

/* The bucket count for n pairs: about n / 2, a power of two in
 * [16, RADIX_B] (fewer buckets for small samples keep the histogram cheap
 * to clear and to scan). */
static unsigned nbuckets(size_t n)
{
    unsigned nb = 16;
    while (nb < RADIX_B && 2 * (size_t)nb < n)
        nb *= 2;
    return nb;
}

/* The least shift such that (span >> shift) < nb. */
static unsigned span_shift(uint64_t span, unsigned nb)
{
    unsigned shift = 0;
    while ((span >> shift) >= nb)        /* nb >= 16: ends by shift 60 */
        shift += 4;
    while (shift > 0 && (span >> (shift - 1)) < nb)
        shift--;
    return shift;
}

/* Moves the pairs with value in [blo, bhi] to v[0 ..); returns how many. */
static size_t gather(uint64_t *v, uint64_t *c, size_t n, uint64_t blo, uint64_t bhi)
{
    size_t m = 0;
    const uint64_t width = bhi - blo;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = v[i];
        if (x - blo <= width) {
            uint64_t y = c[i];
            v[i] = v[m];
            c[i] = c[m];
            v[m] = x;
            c[m] = y;
            m++;
        }
    }
    return m;
}

/* The bucket [*blo, *bhi] of number b for values in [lo, hi] at shift. */
static void bucket_bounds(uint64_t lo, uint64_t hi, unsigned shift, size_t b, uint64_t *blo, uint64_t *bhi)
{
    *blo = lo + ((uint64_t)b << shift);
    uint64_t w = shift >= 64 ? UINT64_MAX : (1ull << shift) - 1;
    *bhi = hi - *blo < w ? hi : *blo + w;
}

/* The value of 0-based rank k (below the total count) of the pairs
 * v[0 .. n) × c[0 .. n), all values in [lo, hi]; reorders the pairs. */
static uint64_t rank_weighted(uint64_t *v, uint64_t *c, size_t n, uint64_t lo, uint64_t hi, uint64_t k)
{
    uint64_t w[RADIX_B];
    while (lo != hi && n > RADIX_MIN) {
        unsigned nb = nbuckets(n), shift = span_shift(hi - lo, nb);
        memset(w, 0, nb * sizeof w[0]);
        for (size_t i = 0; i < n; i++)
            w[(v[i] - lo) >> shift] += c[i];
        size_t b = 0;
        while (k >= w[b])
            k -= w[b++];
        uint64_t blo, bhi;
        bucket_bounds(lo, hi, shift, b, &blo, &bhi);
        if (blo == bhi)
            return blo;
        n = gather(v, c, n, blo, bhi);
        lo = blo;
        hi = bhi;
    }
    if (lo == hi)
        return lo;
    size_t lt, gt;
    uint64_t below, upto;
    return select_weighted(v, c, 0, n, k, &lt, &gt, &below, &upto);
}

void an_dist_of_weighted(uint64_t *value, uint64_t *count, size_t n, an_dist *out)
{
    if (n == 0) {
        memset(out, 0, sizeof *out);
        return;
    }
    uint64_t total = 0, min = value[0], max = value[0];
    for (size_t i = 0; i < n; i++) {
        total += count[i];
        if (value[i] < min)
            min = value[i];
        if (value[i] > max)
            max = value[i];
    }
    an_dist_of_weighted_range(value, count, n, total, min, max, out);
}

void an_dist_of_weighted_range(uint64_t *value, uint64_t *count, size_t n, uint64_t total, uint64_t min,
                               uint64_t max, an_dist *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return;
    out->n = total;
    out->min = min;
    out->max = max;
    uint64_t k10 = an_dist_index((size_t)total, 10), k50 = an_dist_index((size_t)total, 50),
             k90 = an_dist_index((size_t)total, 90);
    if (min == max) {
        out->p10 = out->p50 = out->p90 = min;
        return;
    }
    if (n > RADIX_MIN) {
        /* one histogram for the three ranks, then each rank's bucket */
        uint64_t w[RADIX_B];
        unsigned nb = nbuckets(n), shift = span_shift(max - min, nb);
        memset(w, 0, nb * sizeof w[0]);
        for (size_t i = 0; i < n; i++)
            w[(value[i] - min) >> shift] += count[i];
        const uint64_t ks[3] = {k10, k50, k90};
        uint64_t *res[3] = {&out->p10, &out->p50, &out->p90};
        size_t b = 0;
        uint64_t below = 0;              /* weight of the buckets before b */
        size_t last_b = (size_t)-1, last_m = 0;   /* the bucket last gathered, its pairs */
        for (int r = 0; r < 3; r++) {    /* ranks ascending, so buckets too */
            while (ks[r] - below >= w[b]) {
                below += w[b];
                b++;
            }
            uint64_t blo, bhi;
            bucket_bounds(min, max, shift, b, &blo, &bhi);
            if (blo == bhi) {
                *res[r] = blo;
                continue;
            }
            /* the bucket's pairs go to value[0 .. m); a search inside them
             * only reorders them, so a later rank in the same bucket finds
             * them there still */
            if (b != last_b) {
                last_m = gather(value, count, n, blo, bhi);
                last_b = b;
            }
            size_t m = last_m;
            *res[r] = rank_weighted(value, count, m, blo, bhi, ks[r] - below);
        }
        return;
    }
    size_t lt, gt, lt2, gt2;
    uint64_t below, upto, below2, upto2;
    out->p50 = select_weighted(value, count, 0, n, k50, &lt, &gt, &below, &upto);
    /* ranks below `below` lie in value[0 .. lt), ranks from `upto` on in
     * value[gt .. n): disjoint ranges, so the selections do not disturb
     * each other */
    out->p10 = k10 >= below ? out->p50 : select_weighted(value, count, 0, lt, k10, &lt2, &gt2, &below2, &upto2);
    out->p90 = k90 < upto ? out->p50
                          : select_weighted(value, count, gt, n, k90 - upto, &lt2, &gt2, &below2, &upto2);
}
