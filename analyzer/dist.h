/* dist.h — order statistics of a sample of cycle or instruction counts, as
 * the waits and phases analyses report them (kreport's own definitions).
 *
 * Percentiles are nearest-rank on the sorted sample x[0..n): the p-th
 * percentile is x[ceil(p·n/100) − 1] (integer arithmetic), so p50 is the
 * lower median and every reported value is an observed one. An empty sample
 * has n == 0 and every other field 0 (reported as null). Cost: expected
 * linear (selection, not a sort). */
#ifndef KR_ANALYZER_DIST_H
#define KR_ANALYZER_DIST_H

#include <stddef.h>
#include <stdint.h>

typedef struct an_dist {
    uint64_t n;                      /* sample size */
    uint64_t min, p10, p50, p90, max;
} an_dist;

/* Fills out from v[0..n); v is reordered (not fully sorted). */
void an_dist_of(uint64_t *v, size_t n, an_dist *out);

/* The same from unsorted (value, count) pairs: value[i] occurs
 * count[i] >= 1 times (values may repeat, in any order); both arrays are
 * reordered together. Gives what an_dist_of gives on the expanded
 * multiset. Cost: linear in n (histogram search, weighted selection for
 * small samples). */
void an_dist_of_weighted(uint64_t *value, uint64_t *count, size_t n, an_dist *out);
/* The same when the caller already has the sample size (Σ count), the
 * smallest and the largest value (n >= 1; ignored when n == 0). */
void an_dist_of_weighted_range(uint64_t *value, uint64_t *count, size_t n, uint64_t total, uint64_t min,
                               uint64_t max, an_dist *out);

/* The p-th percentile (0 < p <= 100) of sorted v[0..n), n >= 1. */
uint64_t an_dist_rank(const uint64_t *v, size_t n, unsigned p);
/* Its index in the sorted sample: ceil(p·n/100) − 1, clamped to [0, n). */
size_t an_dist_index(size_t n, unsigned p);

#endif
