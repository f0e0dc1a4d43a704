/* test_an_waits.c — per-wait producer attribution (analyzer/waits.h) and the
 * order statistics behind it (analyzer/dist.h): hand-built streams with the
 * links, distances and exposed latencies worked out in the comments; the
 * placement of stored arrays on records; the generated example (answers from
 * the construction in synth/synth.c); and the hub captures, where placing the
 * stored arrays must give exactly the records the docs/waits.md#producer-links recomputation links,
 * and the attributed stall per wait is recomputed independently. */
#include <stdlib.h>

#include "analyzer/dist.h"
#include "analyzer/waitcnt.h"
#include "analyzer/waits.h"
#include "bundle/capture.h"
#include "tests/unit/build_capture.h"
#include "tests/unit/t.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Nearest rank on a sorted copy: the definition in dist.h, written out. */
static uint64_t rank_of(const uint64_t *v, size_t n, unsigned p)
{
    uint64_t *s = malloc(n * sizeof *s);
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_u64);
    size_t k = (p * n + 99) / 100;
    uint64_t r = s[(k ? k : 1) - 1];
    free(s);
    return r;
}

static void test_dist(void)
{
    uint64_t a[] = {5, 1, 4, 2, 3};
    an_dist d;
    an_dist_of(a, 5, &d);
    /* ranks ceil(0.5)=1, ceil(2.5)=3, ceil(4.5)=5 */
    T_EQ_U64(d.n, 5);
    T_EQ_U64(d.min, 1);
    T_EQ_U64(d.p10, 1);
    T_EQ_U64(d.p50, 3);
    T_EQ_U64(d.p90, 5);
    T_EQ_U64(d.max, 5);
    uint64_t b[10] = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
    an_dist_of(b, 10, &d);
    T_EQ_U64(d.p10, 1);     /* rank 1 */
    T_EQ_U64(d.p50, 5);     /* rank 5: the lower median */
    T_EQ_U64(d.p90, 9);     /* rank 9 */
    uint64_t e[] = {7, 7, 7, 3, 7};
    an_dist_of(e, 5, &d);
    T_EQ_U64(d.min, 3);
    T_EQ_U64(d.p10, 3);
    T_EQ_U64(d.p50, 7);
    an_dist_of(NULL, 0, &d);
    T_EQ_U64(d.n, 0);
    T_EQ_U64(d.p50, 0);
    /* against a plain sort on a pseudo-random sample with many ties */
    uint64_t r[301], seed = 7;
    for (size_t i = 0; i < 301; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        r[i] = (seed >> 33) % 50;
    }
    uint64_t c[301];
    memcpy(c, r, sizeof r);
    an_dist_of(c, 301, &d);
    T_EQ_U64(d.p10, rank_of(r, 301, 10));
    T_EQ_U64(d.p50, rank_of(r, 301, 50));
    T_EQ_U64(d.p90, rank_of(r, 301, 90));
}

/* an_dist_of_weighted on (value, count) pairs against the expanded sample
 * (rank_of on it) and a hand-worked case. */
static void test_dist_weighted(void)
{
    /* values 9, 2, 5, 2 with counts 1, 3, 4, 2: sorted multiset
     * 2 2 2 2 2 5 5 5 5 9 (n = 10): rank 1 -> 2, rank 5 -> 2, rank 9 -> 5 */
    uint64_t v[] = {9, 2, 5, 2}, k[] = {1, 3, 4, 2};
    an_dist d;
    an_dist_of_weighted(v, k, 4, &d);
    T_EQ_U64(d.n, 10);
    T_EQ_U64(d.min, 2);
    T_EQ_U64(d.p10, 2);
    T_EQ_U64(d.p50, 2);
    T_EQ_U64(d.p90, 5);
    T_EQ_U64(d.max, 9);
    /* one pair: every statistic is its value */
    uint64_t v1[] = {42}, k1[] = {7};
    an_dist_of_weighted(v1, k1, 1, &d);
    T_EQ_U64(d.n, 7);
    T_EQ_U64(d.p10, 42);
    T_EQ_U64(d.p90, 42);
    an_dist_of_weighted(NULL, NULL, 0, &d);
    T_EQ_U64(d.n, 0);
    T_EQ_U64(d.max, 0);
    /* pseudo-random pairs (repeated values, counts 1..5) of several sizes */
    uint64_t seed = 11;
    for (size_t n = 1; n <= 200; n += 13) {
        uint64_t val[200], cnt[200], flat[1000];
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            val[i] = (seed >> 33) % (n < 40 ? 7 : 90);
            cnt[i] = 1 + (seed >> 20) % 5;
            for (uint64_t j = 0; j < cnt[i]; j++)
                flat[m++] = val[i];
        }
        an_dist_of_weighted(val, cnt, n, &d);
        T_EQ_U64(d.n, m);
        uint64_t lo = flat[0];
        for (size_t i = 1; i < m; i++)
            lo = flat[i] < lo ? flat[i] : lo;
        T_EQ_U64(d.min, lo);
        T_EQ_U64(d.p10, rank_of(flat, m, 10));
        T_EQ_U64(d.p50, rank_of(flat, m, 50));
        T_EQ_U64(d.p90, rank_of(flat, m, 90));
        T_EQ_U64(d.max, rank_of(flat, m, 100));
    }
}

enum { L_SLOAD = 1, L_LOADA, L_LOADB, L_VALU, L_DS, L_VM1, L_BOTH, L_END };
static const tb_row prog[] = {
    {"; k", 0},
    {"s_load_dword s4, s[0:1], 0x0", 0},
    {"buffer_load_dword v1, v0, s[8:11], 0 offen", 8},
    {"buffer_load_dword v2, v0, s[8:11], 0 offen offset:4", 16},
    {"v_add_f32_e32 v3, v1, v2", 24},
    {"ds_read_b32 v5, v6", 28},
    {"s_waitcnt vmcnt(1)", 36},
    {"s_waitcnt vmcnt(0) lgkmcnt(0)", 40},
    {"s_endpgm", 44},
};
#define NPROG (sizeof prog / sizeof prog[0])

/* Wave A (gfx9 rules, docs/waits.md#producer-links):
 *   r0 t=10 load A (line 2)    r1 t=14 load B (line 3)    r2 t=18 VALU
 *   r3 t=22 ds_read (line 5)
 *   r4 t=30 vmcnt(1), stall 100: vm list [A, B] keeps 1 -> releases A
 *   r5 t=130 VALU
 *   r6 t=134 vmcnt(0) lgkmcnt(0), stall 50: lgkm first -> [ds], then vm -> [B]
 *   r7 t=184 s_endpgm
 * Wave B: one vmcnt(1) at t=10 with nothing outstanding (stall 8): no entry. */
static const tb_rec wave_a[] = {
    {10, KR_CAT_VMEM, 0, 4, L_LOADA}, {14, KR_CAT_VMEM, 0, 4, L_LOADB}, {18, KR_CAT_VALU, 0, 4, L_VALU},
    {22, KR_CAT_LDS, 0, 8, L_DS}, {30, KR_CAT_IMMED, 100, 100, L_VM1}, {130, KR_CAT_VALU, 0, 4, L_VALU},
    {134, KR_CAT_IMMED, 50, 50, L_BOTH}, {184, KR_CAT_MESSAGE, 0, 8, L_END},
};
static const tb_rec wave_b[] = {{10, KR_CAT_IMMED, 8, 8, L_VM1}, {18, KR_CAT_MESSAGE, 0, 8, L_END}};

static const an_wait *wait_row(const an_waits *w, uint32_t row)
{
    for (size_t i = 0; i < w->nwaits; i++)
        if (w->waits[i].row == row)
            return &w->waits[i];
    return NULL;
}

static void check_hand(const an_waits *w)
{
    /* wait vmcnt(1): 2 executions, 108 stall; 1 linked (100 attributed) */
    const an_wait *x = wait_row(w, L_VM1);
    T_CHECK(x != NULL);
    if (x) {
        T_EQ_U64(x->executions, 2);
        T_EQ_U64(x->stall, 108);
        T_EQ_U64(x->linked, 1);
        T_EQ_U64(x->attributed, 100);
        T_EQ_U64(x->nproducers, 1);
        T_EQ_U64(x->producers[0].row, L_LOADA);
        T_EQ_U64(x->producers[0].waited, 1);          /* share 1 of 2 executions */
        T_EQ_U64(x->dist_insts.p50, 4);               /* r4 - r0 */
        T_EQ_U64(x->dist_cycles.p50, 20);             /* 30 - (10 + 0) */
        T_EQ_U64(x->exposed.p50, 100);
        T_EQ_U64(x->observed.p50, 120);
        T_EQ_U64(x->earlier_cycles, 100);
        T_CHECK(x->has_extra);
        T_EQ_U64(x->extra_insts, 20);                 /* ceil(100 * 4 / 20) */
    }
    /* combined wait: the older buffer load is critical (vector memory beats
     * LDS); distance r6 - r1 = 5 records, 134 - 14 = 120 cycles */
    x = wait_row(w, L_BOTH);
    T_CHECK(x != NULL);
    if (x) {
        T_EQ_U64(x->linked, 1);
        T_EQ_U64(x->links, 2);
        T_EQ_U64(x->attributed, 50);
        T_EQ_U64(x->nproducers, 2);
        T_EQ_U64(x->producers[0].row, L_LOADB);
        T_EQ_U64(x->producers[0].critical, 1);
        T_EQ_U64(x->producers[0].stall, 50);
        T_EQ_U64(x->producers[1].row, L_DS);
        T_EQ_U64(x->producers[1].critical, 0);
        T_EQ_U64(x->producers[1].waited, 1);
        T_EQ_U64(x->dist_insts.p50, 5);
        T_EQ_U64(x->dist_cycles.p50, 120);
        T_EQ_U64(x->extra_insts, 3);                  /* ceil(50 * 5 / 120) */
        T_EQ_U64(x->producers[1].dist_insts.p50, 3);  /* r6 - r3 */
    }
    /* ranking: by stall (108, 50) */
    T_EQ_U64(w->nwaits, 2);
    T_EQ_U64(w->waits[0].row, L_VM1);
    T_EQ_U64(w->wait_stall, 158);
    T_EQ_U64(w->attributed, 150);
    T_EQ_U64(w->links, 3);
    T_EQ_U64(w->nproducers, 3);
    T_EQ_U64(w->producers[0].row, L_LOADA);
    T_EQ_U64(w->producers[0].stall, 100);
    T_EQ_U64(w->producers[0].top_wait, L_VM1);
    T_EQ_U64(w->producers[1].row, L_LOADB);
    T_EQ_U64(w->producers[2].row, L_DS);
    T_EQ_U64(w->producers[2].stall, 0);
}

static void test_computed(void)
{
    tb_wave wv[] = {{0, 0, 0, 0, 192, wave_a, 8}, {0, 1, 0, 0, 26, wave_b, 2}};
    kr_capture c;
    tb_build(&c, 9, prog, NPROG, wv, 2);
    an_waits w;
    T_EQ_I64(an_waits_compute(&c, NULL, &w), 0);
    T_EQ_U64(w.source, AN_LINKS_COMPUTED);
    T_EQ_U64(w.waves_computed, 2);
    T_EQ_U64(w.entries, 3);
    check_hand(&w);
    an_waits_free(&w);

    /* the same with stored arrays (what the writer would store): same answers */
    static const uint32_t lines[] = {L_VM1, L_BOTH, L_BOTH}, counts[] = {1, 1, 1}, prods[] = {L_LOADA, L_DS, L_LOADB};
    tb_stored(&c, 0, lines, counts, 3, prods);
    tb_stored(&c, 1, NULL, NULL, 0, NULL);
    T_EQ_I64(an_waits_compute(&c, NULL, &w), 0);
    T_EQ_U64(w.source, AN_LINKS_STORED);
    T_EQ_U64(w.waves_stored, 2);
    T_EQ_U64(w.links_unplaced, 0);
    check_hand(&w);
    an_waits_free(&w);

    /* gfxip without docs/waits.md#producer-links rules and no stored array: no links */
    kr_capture c2;
    tb_build(&c2, 8, prog, NPROG, wv, 2);
    T_EQ_I64(an_waits_compute(&c2, NULL, &w), 0);
    T_EQ_U64(w.source, AN_LINKS_NONE);
    T_EQ_U64(w.waves_none, 2);
    T_EQ_U64(w.links, 0);
    T_EQ_U64(w.nwaits, 2);                            /* the waits are still listed */
    an_waits_free(&w);
    tb_free(&c2);
    tb_free(&c);
}

/* One wave of MANY_N = 6,000 iterations of {buffer load A, VALU,
 * s_waitcnt vmcnt(0) lgkmcnt(0) with stall 1 + i % 3}: 6,000 links (more
 * than count_links makes room for at a time, 4,096) of three keys
 * (distance 2 records and 8 cycles, three stalls), 2,000 links
 * each, into c; the stored array too when `stored`. 0, or -1 out of
 * memory. */
enum { MANY_N = 6000 };

static int many_links_capture(kr_capture *c, int stored)
{
    enum { N = MANY_N };
    tb_rec *r = calloc(3 * N + 1, sizeof *r);
    uint32_t *lines = calloc(N, sizeof *lines), *counts = calloc(N, sizeof *counts), *prods = calloc(N, sizeof *prods);
    int rc = r && lines && counts && prods ? 0 : -1;
    if (!rc) {
        uint64_t t = 10;
        for (size_t i = 0; i < N; i++) {
            uint32_t st = 1 + (uint32_t)(i % 3);
            r[3 * i] = (tb_rec){t, KR_CAT_VMEM, 0, 4, L_LOADA};
            r[3 * i + 1] = (tb_rec){t + 4, KR_CAT_VALU, 0, 4, L_VALU};
            r[3 * i + 2] = (tb_rec){t + 8, KR_CAT_IMMED, st, st, L_BOTH};
            t += 8 + st;
            lines[i] = L_BOTH;
            counts[i] = 1;
            prods[i] = L_LOADA;
        }
        r[3 * N] = (tb_rec){t, KR_CAT_MESSAGE, 0, 8, L_END};
        tb_wave wv[] = {{0, 0, 0, 0, t + 8, r, 3 * N + 1}};
        tb_build(c, 9, prog, NPROG, wv, 1);
        if (stored)
            tb_stored(c, 0, lines, counts, N, prods);
    }
    free(r);
    free(lines);
    free(counts);
    free(prods);
    return rc;
}

/* many_links_capture into c, checked: 1 when built. */
static int many_links_ok(kr_capture *c, int stored)
{
    int built = many_links_capture(c, stored);
    T_EQ_I64(built, 0);
    return built == 0;
}

/* The wave of many_links_capture. By construction: 6,000 executions, all
 * linked to A, stall and attributed 2,000 x (1 + 2 + 3). Computed and
 * stored links give the same. */
static void test_many_links(void)
{
    enum { N = MANY_N };
    for (int stored = 0; stored < 2; stored++) {
        kr_capture c;
        if (!many_links_ok(&c, stored))
            continue;
        an_waits w;
        T_EQ_I64(an_waits_compute(&c, NULL, &w), 0);
        T_EQ_U64(w.source, stored ? AN_LINKS_STORED : AN_LINKS_COMPUTED);
        T_EQ_U64(w.links, N);
        const an_wait *x = wait_row(&w, L_BOTH);
        T_CHECK(x != NULL);
        if (x) {
            T_EQ_U64(x->executions, N);
            T_EQ_U64(x->linked, N);
            T_EQ_U64(x->stall, 6 * N / 3);
            T_EQ_U64(x->attributed, 6 * N / 3);
            T_EQ_U64(x->nproducers, 1);
            T_EQ_U64(x->producers[0].row, L_LOADA);
            T_EQ_U64(x->producers[0].waited, N);
            T_EQ_U64(x->producers[0].critical, N);
            T_EQ_U64(x->dist_insts.p50, 2);
            T_EQ_U64(x->dist_cycles.min, 8);
            T_EQ_U64(x->dist_cycles.max, 8);
            T_EQ_U64(x->exposed.min, 1);
            T_EQ_U64(x->exposed.p50, 2);
            T_EQ_U64(x->exposed.max, 3);
        }
        an_waits_free(&w);
        tb_free(&c);
    }
}

/* Placement of a stored array with a combined wait executed twice, each
 * time releasing through one counter only: r1 releases the ds_read,
 * r3 the buffer load issued after r1 -- the second entry cannot sit on r1.
 * And once with both counters on one execution (r2). */
static void test_placement(void)
{
    static const tb_rec twice[] = {{10, KR_CAT_LDS, 0, 8, L_DS}, {18, KR_CAT_IMMED, 20, 20, L_BOTH},
                                   {38, KR_CAT_VMEM, 0, 4, L_LOADA}, {42, KR_CAT_IMMED, 30, 30, L_BOTH}};
    static const tb_rec once[] = {{10, KR_CAT_LDS, 0, 8, L_DS}, {18, KR_CAT_VMEM, 0, 4, L_LOADA},
                                  {22, KR_CAT_IMMED, 30, 30, L_BOTH}};
    tb_wave wv[] = {{0, 0, 0, 0, 72, twice, 4}, {0, 1, 0, 0, 52, once, 3}};
    kr_capture c;
    tb_build(&c, 9, prog, NPROG, wv, 2);
    static const uint32_t lines[] = {L_BOTH, L_BOTH}, counts[] = {1, 1}, prods[] = {L_DS, L_LOADA};
    for (size_t w = 0; w < 2; w++) {
        an_waitcnt r;
        T_EQ_I64(an_waitcnt_wave(&c, &c.waves[w], &r), 0);
        T_EQ_U64(r.nwaits, 2);                        /* the docs/waits.md#producer-links writer gives the same two entries */
        an_link *lk;
        size_t n;
        uint64_t lost = 0;
        T_EQ_I64(an_waits_place(&c, &c.waves[w], (kr_wait_entry[]){{L_BOTH, 0, 1}, {L_BOTH, 1, 1}}, 2, prods, &lk,
                                &n, &lost), 0);
        T_EQ_U64(n, 2);
        T_EQ_U64(lost, 0);
        for (size_t k = 0; k < n && k < r.nproducers; k++) {
            T_EQ_U64(lk[k].wait_rec, r.wait_recs[k]);
            T_EQ_U64(lk[k].prod_rec, r.producer_recs[k]);
        }
        if (w == 0) {
            T_EQ_U64(lk[0].wait_rec, 1);
            T_EQ_U64(lk[1].wait_rec, 3);
        } else {
            T_EQ_U64(lk[0].wait_rec, 2);
            T_EQ_U64(lk[1].wait_rec, 2);
        }
        free(lk);
        an_waitcnt_free(&r);
    }
    (void)lines;
    (void)counts;
    /* a stored producer with no earlier execution cannot be placed */
    an_link *lk;
    size_t n;
    uint64_t lost = 0;
    static const uint32_t bad[] = {L_LOADB};
    T_EQ_I64(an_waits_place(&c, &c.waves[1], (kr_wait_entry[]){{L_BOTH, 0, 1}}, 1, bad, &lk, &n, &lost), 0);
    T_EQ_U64(n, 0);
    T_EQ_U64(lost, 1);
    free(lk);
    tb_free(&c);
}

/* Lines the static watch set does not hold: a VALU row named as a producer
 * (a stored array may name any row) makes the placement watch the named
 * lines of that wave only; a producer LineNumber 0 (no row) makes it scan
 * by line. Wave A (above), entries vmcnt(1) <- [VALU, load A] and the
 * combined wait <- [VALU, ds_read]: r4 releases the VALU at r2 (r5 comes
 * later) and load A at r0; r6 releases the VALU at r5 and the ds_read at
 * r3. */
static void test_watch_fallback(void)
{
    tb_wave wv[] = {{0, 0, 0, 0, 192, wave_a, 8}};
    kr_capture c;
    tb_build(&c, 9, prog, NPROG, wv, 1);
    static const uint32_t lines[] = {L_VM1, L_BOTH}, counts[] = {2, 2}, prods[] = {L_VALU, L_LOADA, L_VALU, L_DS};
    tb_stored(&c, 0, lines, counts, 2, prods);
    an_link *lk;
    size_t n;
    uint64_t lost = 0;
    T_EQ_I64(an_waits_place(&c, &c.waves[0], c.waves[0].waits, 2, c.waves[0].producers, &lk, &n, &lost), 0);
    static const an_link want[] = {{4, 2}, {4, 0}, {6, 5}, {6, 3}};
    T_EQ_U64(n, 4);
    T_EQ_U64(lost, 0);
    for (size_t k = 0; k < n && k < 4; k++) {
        T_EQ_U64(lk[k].wait_rec, want[k].wait_rec);
        T_EQ_U64(lk[k].prod_rec, want[k].prod_rec);
    }
    free(lk);
    /* the accumulator: vmcnt(1)'s critical producer is load A (vector memory
     * beats the VALU); the combined wait's producers rank alike (VALU,
     * LDS), so the last issued, the VALU at r5, is critical: distance
     * r6 - r5 = 1 record, 134 - 130 = 4 cycles */
    an_waits w;
    T_EQ_I64(an_waits_compute(&c, NULL, &w), 0);
    T_EQ_U64(w.links, 4);
    T_EQ_U64(w.links_unplaced, 0);
    const an_wait *x = wait_row(&w, L_VM1);
    T_CHECK(x != NULL);
    if (x) {
        T_EQ_U64(x->links, 2);
        T_EQ_U64(x->attributed, 100);
        T_EQ_U64(x->nproducers, 2);
        T_EQ_U64(x->producers[0].row, L_LOADA);
        T_EQ_U64(x->producers[0].stall, 100);
        T_EQ_U64(x->producers[1].row, L_VALU);
        T_EQ_U64(x->producers[1].critical, 0);
        T_EQ_U64(x->dist_insts.p50, 4);
    }
    x = wait_row(&w, L_BOTH);
    T_CHECK(x != NULL);
    if (x) {
        T_EQ_U64(x->attributed, 50);
        T_EQ_U64(x->producers[0].row, L_VALU);
        T_EQ_U64(x->producers[0].critical, 1);
        T_EQ_U64(x->dist_insts.p50, 1);
        T_EQ_U64(x->dist_cycles.p50, 4);
    }
    an_waits_free(&w);
    tb_free(&c);

    /* producer line 0 (no row; r1 is a record of unknown PC): the scan goes
     * by line; line 0 is never released (lost), load A at r0 is. Then a
     * wait line past the map: never executed, its producer lost too. */
    static const tb_rec r0[] = {{10, KR_CAT_VMEM, 0, 4, L_LOADA}, {14, KR_CAT_SALU, 0, 4, 0},
                                {30, KR_CAT_IMMED, 100, 100, L_VM1}, {130, KR_CAT_MESSAGE, 0, 8, L_END}};
    tb_wave w0[] = {{0, 0, 0, 0, 140, r0, 4}};
    tb_build(&c, 9, prog, NPROG, w0, 1);
    static const uint32_t lines0[] = {L_VM1, 100}, counts0[] = {2, 1}, prods0[] = {0, L_LOADA, L_LOADB};
    tb_stored(&c, 0, lines0, counts0, 2, prods0);
    lost = 0;
    T_EQ_I64(an_waits_place(&c, &c.waves[0], c.waves[0].waits, 2, c.waves[0].producers, &lk, &n, &lost), 0);
    T_EQ_U64(n, 1);
    T_EQ_U64(lost, 2);
    if (n == 1) {
        T_EQ_U64(lk[0].wait_rec, 2);
        T_EQ_U64(lk[0].prod_rec, 0);
    }
    free(lk);
    T_EQ_I64(an_waits_compute(&c, NULL, &w), 0);
    T_EQ_U64(w.links, 1);
    T_EQ_U64(w.links_unplaced, 2);
    T_EQ_U64(w.attributed, 100);
    an_waits_free(&w);
    tb_free(&c);
}

static kr_capture *load(const char *path)
{
    bundle_opts opts = {0};
    opts.threads = 2;
    opts.no_discover = 1;
    kr_capture *c = NULL;
    kr_err err;
    kr_err_clear(&err);
    if (bundle_capture_load(path, &opts, &c, &err)) {
        fprintf(stderr, "load %s: %s\n", path, err.msg);
        return NULL;
    }
    return c;
}

/* The generated example (synth/synth.c, seed 0, small capture: 8 waves on
 * SIMD s = 0..3 twice, I = 3 iterations). The main wait (row 37) is
 * released by the loop's buffer load (row 28) alone; between them lie rows
 * 29..36 (9 records) and 88 cycles (28 issues at T; 29 starts T+12, 30 at
 * T+20, 31 at T+28 ending T+44, 32 T+44..52, 33 ..72, 34 ..76, 35 ..80,
 * 36 ..88). Its stall, 320 + 40 (j mod 3) + 8 s, is the exposed latency:
 * the 24 values have nearest ranks p10 (rank 3) 328, p50 (rank 12) 368,
 * p90 (rank 22) 416. insert = ceil(368 * 9 / 88) = 38. */
static void test_example(void)
{
    const char *src = getenv("KR_SRC");
    char path[4096];
    snprintf(path, sizeof path, "%s/examples/synth_gfx950/att_viewer/small/ui_output_agent_24601_dispatch_14",
             src ? src : ".");
    kr_capture *c = load(path);
    if (!c) {
        printf("test_an_waits: example not found, skipping it\n");
        return;
    }
    an_waits w;
    T_EQ_I64(an_waits_compute(c, NULL, &w), 0);
    T_EQ_U64(w.source, AN_LINKS_STORED);
    T_EQ_U64(w.entries, 88);                          /* 11 per wave (examples/README.md) */
    const an_wait *x = wait_row(&w, 37);
    T_CHECK(x && x == &w.waits[0]);
    if (x) {
        T_EQ_U64(x->executions, 24);
        T_EQ_U64(x->stall, 8928);
        T_EQ_U64(x->attributed, 8928);
        T_EQ_U64(x->nproducers, 1);
        T_EQ_U64(x->producers[0].row, 28);
        T_EQ_U64(x->producers[0].waited, 24);
        T_EQ_U64(x->dist_insts.min, 9);
        T_EQ_U64(x->dist_insts.max, 9);
        T_EQ_U64(x->dist_cycles.min, 88);
        T_EQ_U64(x->dist_cycles.max, 88);
        T_EQ_U64(x->exposed.min, 320);
        T_EQ_U64(x->exposed.p10, 328);
        T_EQ_U64(x->exposed.p50, 368);
        T_EQ_U64(x->exposed.p90, 416);
        T_EQ_U64(x->exposed.max, 424);
        T_EQ_U64(x->extra_insts, 38);
    }
    /* kernarg wait (row 7): the last s_load (row 3) is critical, 4896 cycles */
    x = wait_row(&w, 7);
    T_CHECK(x != NULL);
    if (x) {
        T_EQ_U64(x->attributed, 4896);
        T_EQ_U64(x->nproducers, 3);
        T_EQ_U64(x->producers[0].row, 3);
        T_EQ_U64(x->producers[0].stall, 4896);
    }
    /* combined wait (row 27, two entries per execution): the buffer load of
     * row 17 outranks the two LDS reads (rows 24, 25) */
    x = wait_row(&w, 27);
    T_CHECK(x != NULL);
    if (x) {
        T_EQ_U64(x->linked, 8);
        T_EQ_U64(x->links, 24);
        T_EQ_U64(x->producers[0].row, 17);
        T_EQ_U64(x->producers[0].critical, 8);
    }
    an_waits_free(&w);
    bundle_capture_free(c);
}

/* 1 when a and b hold the same figures (waits, their producers, the
 * capture-wide ranking). */
static int same_waits(const an_waits *a, const an_waits *b)
{
    if (a->nwaits != b->nwaits || a->nproducers != b->nproducers || a->links != b->links ||
        a->attributed != b->attributed || a->entries != b->entries || a->links_unplaced != b->links_unplaced)
        return 0;
    for (size_t i = 0; i < a->nwaits; i++) {
        const an_wait *x = &a->waits[i], *y = &b->waits[i];
        if (x->row != y->row || x->linked != y->linked || x->links != y->links || x->attributed != y->attributed ||
            x->extra_insts != y->extra_insts || x->has_extra != y->has_extra || x->nproducers != y->nproducers ||
            memcmp(&x->dist_insts, &y->dist_insts, sizeof x->dist_insts) ||
            memcmp(&x->dist_cycles, &y->dist_cycles, sizeof x->dist_cycles) ||
            memcmp(&x->exposed, &y->exposed, sizeof x->exposed) ||
            memcmp(&x->observed, &y->observed, sizeof x->observed))
            return 0;
        for (size_t k = 0; k < x->nproducers; k++)
            if (memcmp(&x->producers[k], &y->producers[k], sizeof x->producers[k]))
                return 0;
    }
    for (size_t i = 0; i < a->nproducers; i++)
        if (memcmp(&a->producers[i], &b->producers[i], sizeof a->producers[i]))
            return 0;
    return 1;
}

/* an_waits_opts.share: with n = 2 and the share 5 %, the waits past the
 * first two get their order statistics exactly when their attributed stall
 * is at least 5 % of the total (the comparison advice makes), and then the
 * same as with every wait sampled (whole); the others have empty samples;
 * everything else is unchanged. On the hub captures 3 of 21, 3 of 35 and
 * 2 of 84 waits are sampled, so both kinds are checked. */
static void check_share(const kr_capture *c, const an_waits *whole)
{
    an_waits_opts o = {2, 0.05};
    an_waits w;
    T_EQ_I64(an_waits_compute(c, &o, &w), 0);
    T_EQ_U64(w.nwaits, whole->nwaits);
    uint64_t bad = 0, sampled = 0, expect = 0;
    for (size_t i = 0; i < w.nwaits && w.nwaits == whole->nwaits; i++) {
        const an_wait *x = &w.waits[i], *y = &whole->waits[i];
        int want = y->links != 0 && (i < 2 || !((double)x->attributed < 0.05 * (double)whole->total_stall));
        expect += (uint64_t)want;
        sampled += x->sampled;
        bad += x->sampled != want || x->row != y->row || x->attributed != y->attributed ||
               x->nproducers != y->nproducers;
        if (want)
            bad += memcmp(&x->dist_insts, &y->dist_insts, sizeof x->dist_insts) ||
                   memcmp(&x->dist_cycles, &y->dist_cycles, sizeof x->dist_cycles) ||
                   memcmp(&x->exposed, &y->exposed, sizeof x->exposed) ||
                   memcmp(&x->observed, &y->observed, sizeof x->observed) ||
                   x->earlier_cycles != y->earlier_cycles || x->extra_insts != y->extra_insts ||
                   x->has_extra != y->has_extra;
        else
            bad += x->dist_insts.n != 0 || x->exposed.n != 0 || x->observed.n != 0 || x->has_extra;
    }
    T_EQ_U64(bad, 0);
    T_EQ_U64(sampled, expect);
    an_waits_free(&w);
}

/* The accumulators do not depend on the order of the waves nor on how
 * they are split among accumulators: waves 3k + 1 backwards into one,
 * waves 3k forwards into another but the last wave, waves 3k + 2 into a
 * third; the third merged into the second, the second (now holding two
 * tables) into the first (keys then in several entries), then the last
 * wave into the merged one (its own table grown after the merges), give
 * an_waits_compute's figures. */
static void check_order(const kr_capture *c, const an_waits *whole)
{
    an_waits_acc *a = an_waits_acc_new(), *b = an_waits_acc_new(), *d = an_waits_acc_new();
    T_CHECK(a && b && d);
    if (!a || !b || !d) {
        an_waits_acc_free(a);
        an_waits_acc_free(b);
        an_waits_acc_free(d);
        return;
    }
    size_t last = c->nwaves ? c->nwaves - 1 : 0;
    for (size_t k = c->nwaves; k-- > 0;)
        if (k % 3 == 1 && k != last)
            T_EQ_I64(an_waits_acc_wave(a, c, k), 0);
    for (size_t k = 0; k < c->nwaves; k++)
        if (k % 3 != 1 && k != last)
            T_EQ_I64(an_waits_acc_wave(k % 3 == 0 ? b : d, c, k), 0);
    T_EQ_I64(an_waits_acc_merge(b, d), 0);
    T_EQ_I64(an_waits_acc_merge(a, b), 0);
    if (c->nwaves)
        T_EQ_I64(an_waits_acc_wave(a, c, last), 0);
    an_waits split;
    T_EQ_I64(an_waits_finish(c, a, NULL, &split), 0);
    T_CHECK(same_waits(whole, &split));
    an_waits_free(&split);
    /* the merged-from accumulators are empty: finished, they add nothing */
    an_waits none;
    T_EQ_I64(an_waits_finish(c, b, NULL, &none), 0);
    T_EQ_U64(none.links, 0);
    an_waits_free(&none);
    an_waits_acc_free(a);
    an_waits_acc_free(b);
    an_waits_acc_free(d);
}

static void test_hub(void)
{
    const char *hub = t_hub();
    if (!hub) {
        printf("test_an_waits: hub fixtures absent, skipping the real-capture part\n");
        return;
    }
    static const struct { const char *dir; uint64_t entries; } caps[] = {
        {"examples/pa_mqa_logits_fp4/att_viewer/small/ui_output_agent_32435_dispatch_197", 84},
        {"examples/pa_mqa_logits_fp4/att_viewer/big/ui_output_agent_55351_dispatch_426", 7808},
        {"examples/flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44", 1404},
        {"examples/flash_attn_func/att_viewer/small/ui_output_agent_58550_dispatch_44_after_loc_fix", 2264},
    };
    for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", hub, caps[k].dir);
        kr_capture *c = load(path);
        T_CHECK(c != NULL);
        if (!c)
            continue;
        /* placed stored arrays == the records the recomputation links, per wave;
         * attributed stall per wait row recomputed from those links */
        uint64_t *attr = calloc(c->nrows, sizeof *attr), mismatched = 0;
        for (size_t i = 0; i < c->nwaves; i++) {
            const kr_wave *wv = &c->waves[i];
            an_waitcnt r;
            T_EQ_I64(an_waitcnt_wave(c, wv, &r), 0);
            an_link *lk = NULL;
            size_t n = 0;
            uint64_t lost = 0;
            T_EQ_I64(an_waits_place(c, wv, wv->waits, wv->nwaits, wv->producers, &lk, &n, &lost), 0);
            int same = n == r.nproducers && lost == 0;
            for (size_t e = 0, at = 0; same && e < r.nwaits; e++)
                for (uint32_t j = 0; j < r.waits[e].n; j++, at++)
                    same = lk[at].wait_rec == r.wait_recs[e] && lk[at].prod_rec == r.producer_recs[at];
            mismatched += !same;
            uint32_t prev = UINT32_MAX;
            for (size_t e = 0; e < r.nwaits; e++) {
                uint32_t wr = r.wait_recs[e];
                if (wr != prev)
                    attr[wv->insts[wr].row] += wv->insts[wr].stall;
                prev = wr;
            }
            free(lk);
            an_waitcnt_free(&r);
        }
        T_EQ_U64(mismatched, 0);
        an_waits w;
        T_EQ_I64(an_waits_compute(c, NULL, &w), 0);
        check_order(c, &w);
        check_share(c, &w);
        T_EQ_U64(w.source, AN_LINKS_STORED);
        T_EQ_U64(w.waves_stored, c->nwaves);
        T_EQ_U64(w.entries, caps[k].entries);
        T_EQ_U64(w.links_unplaced, 0);
        uint64_t wait_stall = 0, bad = 0, sum_attr = 0;
        for (size_t r = 0; r < c->nrows; r++)
            if (!c->rows[r].is_label && c->rows[r].cls == KR_CLASS_WAITCNT)
                wait_stall += c->rows[r].stall;
        for (size_t i = 0; i < w.nwaits; i++) {
            bad += w.waits[i].attributed != attr[w.waits[i].row];
            bad += w.waits[i].attributed > w.waits[i].stall;
            bad += i && w.waits[i].stall > w.waits[i - 1].stall;
            sum_attr += w.waits[i].attributed;
        }
        T_EQ_U64(bad, 0);
        T_EQ_U64(w.wait_stall, wait_stall);
        T_EQ_U64(w.attributed, sum_attr);
        /* the top wait's exposed latency: nearest ranks of the stalls of its
         * linked executions, collected here from the records */
        if (w.nwaits && w.waits[0].linked) {
            uint32_t row = w.waits[0].row;
            uint64_t *v = malloc(w.waits[0].linked * sizeof *v);
            size_t nv = 0;
            for (size_t i = 0; i < c->nwaves; i++) {
                an_waitcnt r;
                an_waitcnt_wave(c, &c->waves[i], &r);
                uint32_t prev = UINT32_MAX;
                for (size_t e = 0; e < r.nwaits; e++) {
                    uint32_t wr = r.wait_recs[e];
                    if (wr != prev && c->waves[i].insts[wr].row == row && nv < w.waits[0].linked)
                        v[nv++] = c->waves[i].insts[wr].stall;
                    prev = wr;
                }
                an_waitcnt_free(&r);
            }
            T_EQ_U64(nv, w.waits[0].linked);
            T_EQ_U64(w.waits[0].exposed.p50, rank_of(v, nv, 50));
            T_EQ_U64(w.waits[0].exposed.p90, rank_of(v, nv, 90));
            free(v);
        }
        an_waits_free(&w);
        free(attr);
        bundle_capture_free(c);
    }
}

int main(void)
{
    test_dist();
    test_dist_weighted();
    test_computed();
    test_placement();
    test_many_links();
    test_watch_fallback();
    test_example();
    test_hub();
    return t_done("test_an_waits");
}
