/* test_an_advice_flow.c — the wait, loop and latency recommendations
 * (an_advice_add_flow, analyzer/advice.h): which fire, in which order, with
 * which figures, from hand-built results. */
#include "analyzer/advice.h"
#include "tests/unit/build_capture.h"
#include "tests/unit/t.h"

static int has(const char *s, const char *needle)
{
    if (s && strstr(s, needle))
        return 1;
    fprintf(stderr, "not found in \"%s\": %s\n", s ? s : "(null)", needle);
    return 0;
}

static const tb_row prog[] = {
    {"; k", 0},
    {"buffer_load_dword v1, v0, s[8:11], 0 offen", 8},
    {"v_add_f32_e32 v3, v1, v2", 16},
    {"s_waitcnt vmcnt(0)", 20},
    {"s_cbranch_scc1 65533", 24},
    {"s_endpgm", 28},
};

int main(void)
{
    kr_capture c;
    tb_build(&c, 9, prog, sizeof prog / sizeof prog[0], NULL, 0);

    an_wait_producer wp = {.row = 1, .vaddr = 8, .waited = 10, .links = 10, .critical = 10, .stall = 900};
    an_wait hot = {.row = 3, .vaddr = 20, .executions = 10, .stall = 1000, .linked = 10, .links = 10, .attributed = 900,
                   .dist_insts = {10, 2, 2, 3, 4, 4}, .dist_cycles = {10, 20, 20, 24, 30, 30},
                   .exposed = {10, 80, 80, 90, 100, 100}, .earlier_cycles = 90, .has_extra = 1, .extra_insts = 12,
                   .producers = &wp, .nproducers = 1};
    an_wait cold = {.row = 3, .vaddr = 20, .executions = 1, .stall = 40, .linked = 1, .attributed = 40,
                    .producers = &wp, .nproducers = 1};
    an_wait waits[2] = {hot, cold};
    an_waits w = {.rows = c.rows, .nrows = c.nrows, .n = 10, .total_stall = 2000, .wait_stall = 1040,
                  .attributed = 940, .waits = waits, .nwaits = 2};

    uint32_t be[] = {4};
    an_loop loop = {.head = 1, .tail = 4, .parent = AN_PHASE_NONE, .backedges = be, .nbackedges = 1,
                    .waves_entered = 2, .per_wave = {2, 5, 5, 5, 5, 5}, .first_cost = {2, 300, 300, 310, 320, 320},
                    .steady_cost = {8, 180, 180, 200, 220, 220}, .latency = 1500, .idle = 100};
    an_phase ph[3] = {
        {.kind = AN_PHASE_PROLOGUE, .first = 1, .last = 0, .latency = 500, .idle = 100},
        {.kind = AN_PHASE_LOOP, .loop = 0, .first = 1, .last = 4, .latency = 1500, .idle = 100},
        {.kind = AN_PHASE_EPILOGUE, .first = 5, .last = 5, .latency = 200},
    };
    an_phases p = {.rows = c.rows, .nrows = c.nrows, .loops = &loop, .nloops = 1, .phases = ph, .nphases = 3,
                   .total_time = 2400, .total_stall = 2000, .main_loop = 0};

    an_hidden_row hr[2] = {{.row = 3, .vaddr = 20, .total = 1000, .non_hidden = 800},
                           {.row = 1, .vaddr = 8, .total = 200, .non_hidden = 100}};
    an_hidden h;
    memset(&h, 0, sizeof h);
    h.computed = 1;
    h.all.total = 2400;
    h.all.non_hidden = 1500;
    h.ranked = hr;
    h.nranked = 2;

    an_advice a = {0};
    T_EQ_I64(an_advice_add_flow(&c, &w, &p, &h, &a), 0);
    /* the hot wait (45 % of stall), not the cold one (2 % < 5 %); then the
     * first iteration (310 >= 1.5 * 200), the prologue (500 + 100 + 200 =
     * 800 of 2400 = 33 % >= 25 %), the exposed latency (1500 / 2400 = 62.5 %) */
    T_EQ_U64(a.n, 4);
    if (a.n == 4) {
        T_EQ_STR(a.items[0].id, "wait_producer");
        T_EQ_U64(a.items[0].cycles, 900);
        T_NEAR(a.items[0].share, 0.45, 1e-12);
        T_EQ_U64(a.items[0].nrows, 2);
        T_EQ_U64(a.items[0].rows[0], 3);
        T_EQ_U64(a.items[0].rows[1], 1);
        T_CHECK(has(a.items[0].title, "45.0 % of stall cycles wait at s_waitcnt vmcnt(0) (vaddr 20) for "
                                      "buffer_load_dword v1, v0, s[8:11], 0 offen (vaddr 8)"));
        T_CHECK(has(a.items[0].action, "Issue the producer at vaddr 8 ~90 cycles earlier"));
        T_CHECK(has(a.items[0].action, "~12 independent instructions"));
        T_CHECK(has(a.items[0].action, "today it issues 3 instructions / 24 cycles before the wait"));
        T_CHECK(has(a.items[0].evidence, "exposed latency p10/p50/p90 80/90/100 cycles"));
        T_EQ_STR(a.items[1].id, "first_iteration");
        T_CHECK(has(a.items[1].title, "costs 310 cycles, a steady-state one 200 (p50)"));
        T_EQ_STR(a.items[2].id, "prologue");
        T_CHECK(has(a.items[2].title, "Prologue and epilogue take 33.3 % of the cycles"));
        T_EQ_STR(a.items[3].id, "exposed");
        T_CHECK(has(a.items[3].title, "62.5 % of the cycles are not hidden"));
        T_EQ_U64(a.items[3].nrows, 2);
        T_CHECK(has(a.items[3].summary, "1500 of 2400 cycles non-hidden"));
        T_CHECK(has(a.items[3].evidence, "vaddr 20 `s_waitcnt vmcnt(0)`: 800 of 1000"));
    }
    an_advice_free(&a);

    /* below every threshold: nothing fires; NULL inputs are skipped */
    loop.first_cost.p50 = 250;                 /* < 1.5 * 200 */
    ph[0].latency = 100;                       /* (100 + 100 + 200) / 2400 < 25 % */
    ph[0].idle = 100;
    h.all.non_hidden = 1000;                   /* < 50 % */
    waits[0].attributed = 90;                  /* 4.5 % < 5 % */
    an_advice b = {0};
    T_EQ_I64(an_advice_add_flow(&c, &w, &p, &h, &b), 0);
    T_EQ_U64(b.n, 0);
    T_EQ_I64(an_advice_add_flow(&c, NULL, NULL, NULL, &b), 0);
    T_EQ_U64(b.n, 0);
    an_advice_free(&b);
    tb_free(&c);
    return t_done("test_an_advice_flow");
}
