/* test_an_dist.c — the weighted order statistics (analyzer/dist.h) on
 * samples large and spread enough to take the histogram search (many
 * pairs, values over the whole 64-bit range, near its top, clustered with
 * far outliers, few distinct values, large counts), against the definition
 * recomputed here: the pairs sorted by value and the nearest ranks read off
 * the cumulative counts. */
#include <stdlib.h>

#include "analyzer/dist.h"
#include "tests/unit/t.h"

typedef struct pair { uint64_t v, c; } pair;

static int by_value(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    return x->v < y->v ? -1 : x->v > y->v;
}

/* Nearest rank p of the multiset: the value whose cumulative count first
 * reaches ceil(p·total/100) (at least 1). */
static uint64_t rank_ref(const pair *sorted, size_t n, uint64_t total, unsigned p)
{
    uint64_t want = (p * total + 99) / 100, seen = 0;
    if (want < 1)
        want = 1;
    for (size_t i = 0; i < n; i++) {
        seen += sorted[i].c;
        if (seen >= want)
            return sorted[i].v;
    }
    return sorted[n - 1].v;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static uint64_t draw(int mode)
{
    switch (mode) {
    case 0: return next() % 10;                                  /* few distinct */
    case 1: return next();                                       /* whole range */
    case 2: return next() % 4 ? 7 : next() % 1000000;            /* one value and a spread */
    case 3: return (next() % 100) << (next() % 40);              /* wide, uneven */
    case 4: return UINT64_MAX - next() % 300;                    /* at the top of the range */
    case 5: return next() % 2 ? next() % 50 : UINT64_MAX - next() % 5;   /* two far clusters */
    default: return 1000 + next() % 100000;                      /* cycles-like */
    }
}

static void check(size_t n, int mode, int big_counts, int use_range)
{
    pair *ref = malloc((n ? n : 1) * sizeof *ref);
    uint64_t *v = malloc((n ? n : 1) * sizeof *v), *c = malloc((n ? n : 1) * sizeof *c);
    uint64_t total = 0, mn = UINT64_MAX, mx = 0;
    for (size_t i = 0; i < n; i++) {
        v[i] = ref[i].v = draw(mode);
        c[i] = ref[i].c = big_counts ? 1 + next() % 100000 : 1 + (next() % 4 == 0 ? next() % 9 : 0);
        total += c[i];
        mn = v[i] < mn ? v[i] : mn;
        mx = v[i] > mx ? v[i] : mx;
    }
    an_dist d;
    if (use_range)
        an_dist_of_weighted_range(v, c, n, total, mn, mx, &d);
    else
        an_dist_of_weighted(v, c, n, &d);
    T_EQ_U64(d.n, total);
    if (n) {
        qsort(ref, n, sizeof *ref, by_value);
        T_EQ_U64(d.min, ref[0].v);
        T_EQ_U64(d.max, ref[n - 1].v);
        T_EQ_U64(d.p10, rank_ref(ref, n, total, 10));
        T_EQ_U64(d.p50, rank_ref(ref, n, total, 50));
        T_EQ_U64(d.p90, rank_ref(ref, n, total, 90));
        /* the pairs were only reordered: same multiset */
        pair *after = malloc(n * sizeof *after);
        for (size_t i = 0; i < n; i++) {
            after[i].v = v[i];
            after[i].c = c[i];
        }
        qsort(after, n, sizeof *after, by_value);
        int same = 1;
        for (size_t i = 0; i < n; i++)
            same &= after[i].v == ref[i].v;
        T_CHECK(same);
        /* equal values may sit in any order: compare the count per value */
        uint64_t ca = 0, cr = 0;
        for (size_t i = 0; same && i < n; i++) {
            ca += after[i].c;
            cr += ref[i].c;
            if (i + 1 == n || ref[i + 1].v != ref[i].v) {
                T_EQ_U64(ca, cr);
                ca = cr = 0;
            }
        }
        free(after);
    } else {
        T_EQ_U64(d.min, 0);
        T_EQ_U64(d.p50, 0);
    }
    free(ref);
    free(v);
    free(c);
}

/* A hand-worked sample big enough for the histogram: 60 pairs, value i
 * (0..59) with count 1 except value 59 with count 41: total 100, so p10 is
 * rank 10 (value 9), p50 rank 50 (value 49), p90 rank 90 (value 59). */
static void test_hand(void)
{
    uint64_t v[60], c[60];
    for (size_t i = 0; i < 60; i++) {
        v[i] = 59 - i;
        c[i] = i == 0 ? 41 : 1;
    }
    an_dist d;
    an_dist_of_weighted(v, c, 60, &d);
    T_EQ_U64(d.n, 100);
    T_EQ_U64(d.min, 0);
    T_EQ_U64(d.p10, 9);
    T_EQ_U64(d.p50, 49);
    T_EQ_U64(d.p90, 59);
    T_EQ_U64(d.max, 59);
}

int main(void)
{
    test_hand();
    static const size_t sizes[] = {0, 1, 2, 47, 48, 49, 50, 97, 200, 513, 3000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int mode = 0; mode < 7; mode++)
            for (int big = 0; big < 2; big++)
                for (int range = 0; range < 2; range++)
                    check(sizes[s], mode, big, range);
    return t_done("test_an_dist");
}
