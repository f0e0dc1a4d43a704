/* test_an_waits_cap.c — every test of test_an_waits.c again, against a
 * build of analyzer/waits.c (included here) whose entries are full at a
 * count of 1 (WAITS_COUNT_MAX), so that the path a full count takes (a
 * second entry of the same key, which the finish adds up with the first)
 * runs on every link of the hand-built waves, the generated example and
 * the hub captures: every figure must come out as with the real limit.
 * And on the wave of many_links_capture, that every link took an entry of
 * its own: 6,000 entries in one wave, more than count_links makes room for
 * at a time. */
#define WAITS_COUNT_MAX 1
#include "analyzer/waits.c"

#define main waits_tests_main
#include "tests/unit/test_an_waits.c"
#undef main

/* MANY_N links of three keys (MANY_N / 3 each), counted in one
 * accumulator: one entry a link, each of count 1 and waited 1. */
static void test_full_entries(void)
{
    for (int stored = 0; stored < 2; stored++) {
        kr_capture c;
        if (!many_links_ok(&c, stored))
            continue;
        an_waits_acc *a = an_waits_acc_new();
        T_CHECK(a != NULL);
        if (a) {
            T_EQ_I64(an_waits_acc_wave(a, &c, 0), 0);
            T_EQ_U64(a->h.n, MANY_N);
            uint64_t links = 0, bad = 0, stall = 0;
            for (size_t i = 0; i < a->h.n; i++) {
                links += a->h.v[i].count;
                stall += l_stall(&a->h.v[i]);
                bad += a->h.v[i].count != 1 || a->h.v[i].waited != 1 || !l_crit(&a->h.v[i]);
            }
            T_EQ_U64(links, MANY_N);
            T_EQ_U64(stall, 2 * MANY_N);     /* MANY_N / 3 x (1 + 2 + 3) */
            T_EQ_U64(bad, 0);
        }
        an_waits_acc_free(a);
        tb_free(&c);
    }
}

int main(void)
{
    test_full_entries();
    return waits_tests_main();
}
