/* test_an_waits_cap.c — every test of test_an_waits.c again, against a
 * build of analyzer/waits.c (included here) whose entries are full at a
 * count of 3 (WAITS_COUNT_MAX), so that the path a full count takes (a
 * second entry of the same key, which the finish adds up with the first)
 * runs on the hand-built waves, the generated example and the hub
 * captures: every figure must come out as with the real limit. And on the
 * wave of many_links_capture, that the keys did take several entries. */
#define WAITS_COUNT_MAX 3
#include "analyzer/waits.c"

#define main waits_tests_main
#include "tests/unit/test_an_waits.c"
#undef main

/* 3,000 links of three keys, 1,000 each: ceil(1000 / 3) = 334 entries a
 * key, the last of them holding one link; counted in one accumulator. */
static void test_full_entries(void)
{
    for (int stored = 0; stored < 2; stored++) {
        kr_capture c;
        int built = many_links_capture(&c, stored);
        T_EQ_I64(built, 0);
        if (built)
            continue;
        an_waits_acc *a = an_waits_acc_new();
        T_CHECK(a != NULL);
        if (a) {
            T_EQ_I64(an_waits_acc_wave(a, &c, 0), 0);
            T_EQ_U64(a->h.n, 3 * 334);
            uint64_t links = 0, ones = 0, bad = 0;
            for (size_t i = 0; i < a->h.n; i++) {
                links += a->h.v[i].count;
                ones += a->h.v[i].count == 1;
                bad += a->h.v[i].count > WAITS_COUNT_MAX || a->h.v[i].waited != a->h.v[i].count;
            }
            T_EQ_U64(links, MANY_N);
            T_EQ_U64(ones, 3);
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
