/* test_compare_time.c — kernel kinds, per-kernel statistics, the target
 * pick, segments, calls, cold first calls and row alignment (docs/compare.md#deciding-metric),
 * on dispatch lists written here with the expected values worked out. */
#include "analyzer/compare_time.h"
#include "tests/unit/t.h"

/* Dispatches one after the other on agent 2, 1 µs apart. */
typedef struct { const char *name; uint64_t dur; } step;

static kr_dispatch *make(const step *s, size_t n, uint64_t first_id)
{
    kr_dispatch *d = calloc(n, sizeof *d);
    uint64_t t = 1000000;
    for (size_t i = 0; i < n; i++) {
        d[i].dispatch_id = first_id + i;
        d[i].agent = 2;
        d[i].kernel_name = s[i].name;
        d[i].start_ns = t;
        d[i].end_ns = t + s[i].dur;
        d[i].vgpr = 96;
        d[i].accum_vgpr = 0;
        d[i].sgpr = 48;
        d[i].lds_bytes = 16384;
        d[i].scratch_bytes = 0;
        d[i].wg[0] = 256; d[i].wg[1] = d[i].wg[2] = 1;
        d[i].grid[0] = 131072; d[i].grid[1] = d[i].grid[2] = 1;
        t += s[i].dur + 1000;
    }
    return d;
}

#define FW "void at::native::vectorized_elementwise_kernel<4>"
#define HELPER "__amd_rocclr_copyBuffer"

static void test_kinds(void)
{
    T_CHECK(an_time_is_helper("__amd_rocclr_fillBufferAligned"));
    T_CHECK(!an_time_is_helper("flash_attn_func_kernel_0"));
    T_CHECK(an_time_is_framework(FW));
    T_CHECK(an_time_is_framework("Cijk_Alik_Bljk_HHS_BH_MT128x128"));
    T_CHECK(an_time_is_framework("void rocprim::detail::scan_kernel<...>"));
    T_CHECK(!an_time_is_framework("pa_decode_ps_kernel_0"));
}

/* Segment 1: A A A (helper) A → 4 calls 120 100 101 99 (the helper does not
 * break it); the framework kernel X breaks; segment 2: A A A → 130 100 102.
 * Warm calls (first of each segment dropped): 100 101 99 100 102 → median
 * 100, n 5. Segment 1's first call 120 against warm {100, 101, 99}: median
 * 100, MAD 1 → limit max(1 %, 3·1.4826·1/100) = 4.45 % → 120 is cold; so
 * is 130 against {100, 102} (median 101, MAD 1). */
static void test_segments(void)
{
    step s[] = {{"A", 120}, {"A", 100}, {"A", 101}, {HELPER, 5}, {"A", 99}, {FW, 50}, {"A", 130}, {"A", 100}, {"A", 102}};
    kr_dispatch *d = make(s, 9, 1);
    an_trace_in tr = {"t.csv", d, 9, 0, NULL, 0, NULL, 0};
    an_side_time b, c;
    T_EQ_I64(an_time_kernels(&tr, 1, 0.01, &b), 0);
    T_EQ_I64(an_time_kernels(&tr, 1, 0.01, &c), 0);
    /* Kernels by total: A (120+100+101+99+130+100+102 = 752), X (50), helper (5). */
    T_EQ_U64(b.nkernels, 3);
    T_EQ_STR(b.kernels[0].name, "A");
    T_EQ_U64(b.kernels[0].total_ns, 752);
    T_EQ_U64(b.kernels[0].all.n, 7);
    T_NEAR(b.kernels[0].first_ns, 120, 0);
    T_EQ_I64(b.kernels[0].grid_wg, 512);
    T_EQ_I64(b.kernels[0].wg_size, 256);
    /* A's first dispatch 120 against the other six (100 101 99 130 100 102):
     * median 100.5, MAD = median(0.5, 0.5, 1.5, 29.5, 0.5, 1.5) = 1 → limit
     * max(1 %, 3·1.4826/100.5) = 4.43 % → 120 > 104.95: cold. */
    T_CHECK(b.kernels[0].first_cold);
    T_NEAR(b.kernels[0].rest.median, 100.5, 1e-12);
    kr_err err;
    an_target t;
    T_EQ_I64(an_time_target(&b, &c, NULL, 0, &t, &err), 0);
    T_EQ_U64(t.n, 1);
    T_EQ_STR(t.names[0], "A");
    T_EQ_STR(t.how, "auto");
    T_EQ_STR(t.runner_up, FW);
    T_CHECK(!t.ambiguous);
    T_EQ_I64(an_time_calls(&tr, 1, &t, 1, 0, 0.01, &b), 0);
    T_EQ_U64(b.nsegments, 2);
    T_EQ_U64(b.ncalls, 7);
    double want[] = {120, 100, 101, 99, 130, 100, 102};
    int same = 1;
    for (size_t i = 0; i < 7; i++)
        same &= b.calls[i].ns == want[i];
    T_CHECK(same);
    T_EQ_U64(b.warm.n, 5);
    T_NEAR(b.warm.median, 100, 0);
    T_EQ_U64(b.cold_segments, 2);
    T_EQ_U64(b.segments_with_warm, 2);
    T_NEAR(b.calls_per_segment, 3.5, 0);
    /* Row mapping: 2 segments and 2 rows → k = 1; 1 row → k = 2; 3 rows → none. */
    T_EQ_I64(an_time_calls(&tr, 1, &t, 1, 2, 0.01, &b), 0);
    T_CHECK(b.row_aligned);
    T_EQ_U64(b.segments_per_row, 1);
    T_EQ_U64(b.calls[3].row, 0);
    T_EQ_U64(b.calls[4].row, 1);
    T_EQ_I64(an_time_calls(&tr, 1, &t, 1, 1, 0.01, &b), 0);
    T_CHECK(b.row_aligned);
    T_EQ_U64(b.segments_per_row, 2);
    T_EQ_U64(b.calls[6].row, 0);
    T_EQ_I64(an_time_calls(&tr, 1, &t, 1, 3, 0.01, &b), 0);
    T_CHECK(!b.row_aligned);
    an_target_free_set(&t);
    an_side_time_free(&b);
    an_side_time_free(&c);
    free(d);
}

/* Two kernels per call: P R P R P R → calls P+R = 100 each; with the set {P}
 * alone R (not a helper) breaks the segments: 3 segments of one call. */
static void test_two_kernel_calls(void)
{
    step s[] = {{"P", 80}, {"R", 20}, {"P", 81}, {"R", 19}, {"P", 79}, {"R", 21}};
    kr_dispatch *d = make(s, 6, 1);
    an_trace_in tr = {"t.csv", d, 6, 0, NULL, 0, NULL, 0};
    an_side_time b;
    T_EQ_I64(an_time_kernels(&tr, 1, 0.01, &b), 0);
    const char *re[] = {"^[PR]$"};
    an_target t;
    kr_err err;
    T_EQ_I64(an_time_target(&b, &b, re, 1, &t, &err), 0);
    T_EQ_U64(t.n, 2);
    T_EQ_STR(t.names[0], "P");     /* P's total 240 before R's 60 */
    T_EQ_STR(t.how, "option");
    T_EQ_I64(an_time_calls(&tr, 1, &t, 1, 0, 0.01, &b), 0);
    T_EQ_U64(b.nsegments, 1);
    T_EQ_U64(b.ncalls, 3);
    T_NEAR(b.calls[0].ns, 100, 0);
    T_NEAR(b.calls[1].ns, 100, 0);
    T_NEAR(b.calls[2].ns, 100, 0);
    an_target_free_set(&t);
    const char *re2[] = {"^P$"};
    T_EQ_I64(an_time_target(&b, &b, re2, 1, &t, &err), 0);
    T_EQ_I64(an_time_calls(&tr, 1, &t, 1, 0, 0.01, &b), 0);
    T_EQ_U64(b.nsegments, 3);
    T_EQ_U64(b.warm.n, 0);
    an_target_free_set(&t);
    const char *bad[] = {"("};
    T_EQ_I64(an_time_target(&b, &b, bad, 1, &t, &err), KR_USAGE);
    T_CHECK(strstr(err.msg, "--kernel") != NULL);
    an_side_time_free(&b);
    free(d);
}

/* The pick: K1 has 3 dispatches (total 300); K2 1 dispatch (1000): not a
 * timed loop; F a framework loop (5 × 1000); the helper (9000) is never
 * picked. K1 wins. No other timed loop exists, so the runner-up is the next
 * non-helper kernel by total: F (5000); not ambiguous (F is framework).
 * With K3 (3 × 40 = 120 ≥ 300 / 4) the runner-up is a timed loop too:
 * ambiguous. */
static void test_pick(void)
{
    step s[] = {{"K1", 100}, {"K1", 100}, {"K1", 100}, {"K2", 1000}, {FW, 1000}, {FW, 1000}, {FW, 1000},
                {FW, 1000}, {FW, 1000}, {HELPER, 9000}};
    kr_dispatch *d = make(s, 10, 1);
    an_trace_in tr = {"t.csv", d, 10, 0, NULL, 0, NULL, 0};
    an_side_time b;
    an_target t;
    kr_err err;
    T_EQ_I64(an_time_kernels(&tr, 1, 0.01, &b), 0);
    T_EQ_I64(an_time_target(&b, &b, NULL, 0, &t, &err), 0);
    T_EQ_STR(t.names[0], "K1");
    T_EQ_STR(t.runner_up, FW);
    T_CHECK(!t.ambiguous);
    an_target_free_set(&t);
    an_side_time_free(&b);

    step s2[] = {{"K1", 100}, {"K1", 100}, {"K1", 100}, {"K3", 40}, {"K3", 40}, {"K3", 40}};
    kr_dispatch *d2 = make(s2, 6, 1);
    an_trace_in t2 = {"t.csv", d2, 6, 0, NULL, 0, NULL, 0};
    T_EQ_I64(an_time_kernels(&t2, 1, 0.01, &b), 0);
    T_EQ_I64(an_time_target(&b, &b, NULL, 0, &t, &err), 0);
    T_EQ_STR(t.runner_up, "K3");
    T_CHECK(t.ambiguous);
    an_target_free_set(&t);

    /* Timed loops on one side only join the set: K3 (BEST only, total 120)
     * and K9 (CANDIDATE only); order by BEST total: K1 300, K3 120, K9 0. */
    step s3[] = {{"K1", 90}, {"K1", 90}, {"K1", 90}, {"K9", 10}, {"K9", 10}, {"K9", 10}};
    kr_dispatch *d3 = make(s3, 6, 1);
    an_trace_in t3 = {"c.csv", d3, 6, 0, NULL, 0, NULL, 0};
    an_side_time c;
    T_EQ_I64(an_time_kernels(&t3, 1, 0.01, &c), 0);
    T_EQ_I64(an_time_target(&b, &c, NULL, 0, &t, &err), 0);
    T_EQ_U64(t.n, 3);
    T_EQ_STR(t.names[0], "K1");
    T_EQ_STR(t.names[1], "K3");
    T_EQ_STR(t.names[2], "K9");
    T_EQ_U64(t.njoined, 2);
    an_target_free_set(&t);
    an_side_time_free(&b);
    an_side_time_free(&c);
    free(d);
    free(d2);
    free(d3);
}

/* A plain trace wins over an ATT-pass one; alone, the ATT pass is used with
 * the captured dispatch (id 2) dropped. */
static void test_att_pass(void)
{
    step s[] = {{"A", 100}, {"A", 500}, {"A", 101}, {"A", 102}};
    kr_dispatch *d = make(s, 4, 1);
    uint64_t drop[] = {2};
    an_trace_in att = {"att.csv", d, 4, 1, drop, 1, NULL, 0};
    an_side_time b;
    T_EQ_I64(an_time_kernels(&att, 1, 0.01, &b), 0);
    T_CHECK(b.used_att_pass);
    T_EQ_U64(b.dropped_captured, 1);
    T_EQ_U64(b.kernels[0].all.n, 3);
    T_EQ_U64(b.kernels[0].total_ns, 303);
    an_side_time_free(&b);
    an_trace_in both[2] = {att, {"plain.csv", d, 4, 0, NULL, 0, NULL, 0}};
    T_EQ_I64(an_time_kernels(both, 2, 0.01, &b), 0);
    T_CHECK(!b.used_att_pass);
    T_EQ_U64(b.ntraces_used, 1);
    T_EQ_U64(b.kernels[0].total_ns, 803);
    an_side_time_free(&b);
    free(d);
}

/* Companions and cold calls per row. Two rows of three calls P+R, a
 * framework kernel between the rows: gaps between P dispatches hold R alone
 * (4 clean gaps) or R then X (the row boundary: mixed): R is a companion
 * with 2 rows (4 >= 2 clean gaps), not with 5 rows (4 < 5). Timed, the calls
 * are P+R: 100 101 99 | 200 202 198; with 2 rows the first call of each row
 * is cold: warm 101 99 202 198. */
static void test_companions(void)
{
    step s[] = {{"P", 80}, {"R", 20}, {"P", 81}, {"R", 20}, {"P", 79}, {"R", 20}, {FW, 7},
                {"P", 160}, {"R", 40}, {"P", 162}, {"R", 40}, {"P", 158}, {"R", 40}};
    kr_dispatch *d = make(s, 13, 1);
    an_trace_in tr = {"t.csv", d, 13, 0, NULL, 0, NULL, 0};
    an_side_time b;
    T_EQ_I64(an_time_kernels(&tr, 1, 0.01, &b), 0);
    an_target t;
    memset(&t, 0, sizeof t);
    t.names = calloc(1, sizeof *t.names);
    t.names[0] = strdup("P");
    t.n = 1;
    char **comp = NULL;
    size_t nc = 0;
    T_EQ_I64(an_time_companions(&tr, &b, &t, 5, &comp, &nc), 0);
    T_EQ_U64(nc, 0);
    T_EQ_I64(an_time_companions(&tr, &b, &t, 2, &comp, &nc), 0);
    T_EQ_U64(nc, 1);
    T_EQ_STR(comp[0], "R");
    T_EQ_I64(an_target_add_companions(&b, &b, &t, comp, nc, 1), 0);
    T_EQ_U64(t.n, 2);
    T_EQ_U64(t.ncompanions, 1);
    T_EQ_I64(an_time_calls(&tr, 1, &t, 1, 2, 0.01, &b), 0);
    T_CHECK(b.row_aligned);
    T_EQ_U64(b.ncalls, 6);
    T_EQ_U64(b.max_calls_per_row, 3);
    T_EQ_U64(b.warm.n, 4);
    T_NEAR(b.calls[1].ns, 101, 0);
    T_NEAR(b.calls[3].ns, 200, 0);
    T_CHECK(!b.calls[0].warm && b.calls[1].warm && !b.calls[3].warm && b.calls[4].warm);
    T_EQ_U64(b.calls[4].row, 1);
    /* Untimed (a pinned set): R neither breaks the segment nor counts: calls are P alone. */
    an_target u;
    memset(&u, 0, sizeof u);
    u.names = calloc(1, sizeof *u.names);
    u.names[0] = strdup("P");
    u.n = 1;
    T_EQ_I64(an_target_add_companions(&b, &b, &u, comp, nc, 0), 0);
    T_EQ_U64(u.n, 1);
    T_EQ_U64(u.nuntimed, 1);
    T_EQ_I64(an_time_calls(&tr, 1, &u, 1, 2, 0.01, &b), 0);
    T_EQ_U64(b.nsegments, 2);
    T_NEAR(b.calls[1].ns, 81, 0);
    /* One call per row: a row's only call is cold, listed. */
    T_EQ_I64(an_time_calls(&tr, 1, &u, 3, 2, 0.01, &b), 0);
    T_EQ_U64(b.nrows_no_warm, 2);
    for (size_t i = 0; i < nc; i++)
        free(comp[i]);
    free(comp);
    an_target_free_set(&t);
    an_target_free_set(&u);
    an_side_time_free(&b);
    free(d);
}

int main(void)
{
    test_companions();
    test_kinds();
    test_segments();
    test_two_kernel_calls();
    test_pick();
    test_att_pass();
    return t_done("test_compare_time");
}
