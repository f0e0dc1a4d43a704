/* test_an_states.c — wave-state sums (raw and clipped, FORMATS.md §4.4) and
 * the §8.2 activity split, on a hand-built capture with values worked out
 * below. */
#include "analyzer/states.h"
#include "common/arena.h"
#include "tests/unit/t.h"

static kr_tl tl_a[] = {{20, 1}, {30, 2}, {10, 3}, {20, 4}, {10, 2}, {14, 3}};
static kr_tl tl_b[] = {{8, 1}, {40, 2}, {4, 3}};
static kr_tl tl_c[] = {{5, 7}, {10, 2}};

static void check_sums(const an_state_sums *s, uint64_t waves, const uint64_t raw[AN_STATES_N],
                       const uint64_t clipped[AN_STATES_N])
{
    uint64_t rt = 0, ct = 0;
    T_EQ_U64(s->waves, waves);
    for (unsigned k = 0; k < AN_STATES_N; k++) {
        T_EQ_U64(s->raw[k], raw[k]);
        T_EQ_U64(s->clipped[k], clipped[k]);
        rt += raw[k];
        ct += clipped[k];
    }
    T_EQ_U64(s->raw_total, rt);
    T_EQ_U64(s->clipped_total, ct);
}

int main(void)
{
    kr_capture c;
    memset(&c, 0, sizeof c);
    kr_arena_init(&c.arena);

    /* Waves:
     *  A se0 simd0 [100,200): IDLE 100-120, EXEC 120-150, WAIT 150-160,
     *    STALL 160-180, EXEC 180-190, WAIT 190-204 (4 past the end).
     *    raw    IDLE 20 EXEC 40 WAIT 24 STALL 20 (104)
     *    clip   IDLE 20 EXEC 40 WAIT 20 STALL 20 (100)
     *  B se1 simd0 [1000,1050): IDLE 8, EXEC 40, WAIT 1048-1052.
     *    raw 8/40/4 (52), clipped 8/40/2 (50)
     *  C se0 simd1 [0,10): state 7 for 0-5 (OTHER), EXEC 5-15.
     *    raw OTHER 5 EXEC 10, clipped OTHER 5 EXEC 5
     *  D se1 simd1 [0,50): no timeline. */
    kr_wave w[4];
    memset(w, 0, sizeof w);
    w[0] = (kr_wave){.se = 0, .simd = 0, .begin = 100, .end = 200, .timeline = tl_a, .ntimeline = 6};
    w[1] = (kr_wave){.se = 1, .simd = 0, .begin = 1000, .end = 1050, .timeline = tl_b, .ntimeline = 3};
    w[2] = (kr_wave){.se = 0, .simd = 1, .begin = 0, .end = 10, .timeline = tl_c, .ntimeline = 2};
    w[3] = (kr_wave){.se = 1, .simd = 1, .begin = 0, .end = 50};
    c.waves = w;
    c.nwaves = 4;

    /* Rows: label; r1 lat 100 stall 40 idle 8; r2 lat 10 stall 12 (clamped
     * to 10) idle 0; r3 never executed but idle 5 (inconsistent, still summed).
     * active 110, stall 50, issue 60, idle 13, total 123. The label's
     * numbers must be ignored. */
    kr_code_row rows[4];
    memset(rows, 0, sizeof rows);
    rows[0] = (kr_code_row){.isa = "; k", .is_label = 1, .latency = 999, .stall = 999, .idle = 999};
    rows[1] = (kr_code_row){.isa = "v_add_f32", .line = 1, .latency = 100, .stall = 40, .idle = 8};
    rows[2] = (kr_code_row){.isa = "s_waitcnt", .line = 2, .latency = 10, .stall = 12};
    rows[3] = (kr_code_row){.isa = "s_nop 0", .line = 3, .idle = 5};
    c.rows = rows;
    c.nrows = 4;

    an_states s;
    T_EQ_I64(an_states_compute(&c, &s), 0);
    T_EQ_U64(s.waves, 4);
    T_EQ_U64(s.waves_with_timeline, 3);
    T_EQ_U64(s.entries, 11);

    /* EMPTY IDLE EXEC WAIT STALL OTHER */
    const uint64_t a_raw[] = {0, 20, 40, 24, 20, 0}, a_clip[] = {0, 20, 40, 20, 20, 0};
    const uint64_t b_raw[] = {0, 8, 40, 4, 0, 0}, b_clip[] = {0, 8, 40, 2, 0, 0};
    const uint64_t c_raw[] = {0, 0, 10, 0, 0, 5}, c_clip[] = {0, 0, 5, 0, 0, 5};
    const uint64_t zero[AN_STATES_N] = {0};
    uint64_t all_raw[AN_STATES_N], all_clip[AN_STATES_N];
    uint64_t se0_raw[AN_STATES_N], se0_clip[AN_STATES_N], simd0_raw[AN_STATES_N], simd0_clip[AN_STATES_N];
    for (unsigned k = 0; k < AN_STATES_N; k++) {
        all_raw[k] = a_raw[k] + b_raw[k] + c_raw[k];
        all_clip[k] = a_clip[k] + b_clip[k] + c_clip[k];
        se0_raw[k] = a_raw[k] + c_raw[k];
        se0_clip[k] = a_clip[k] + c_clip[k];
        simd0_raw[k] = a_raw[k] + b_raw[k];
        simd0_clip[k] = a_clip[k] + b_clip[k];
    }
    check_sums(&s.all, 4, all_raw, all_clip);
    T_EQ_U64(s.all.raw_total, 104 + 52 + 15);
    T_EQ_U64(s.all.clipped_total, 100 + 50 + 10);

    T_EQ_U64(s.nse, 2);
    T_EQ_U64(s.per_se[0].se, 0);
    T_EQ_U64(s.per_se[0].simd, UINT32_MAX);
    check_sums(&s.per_se[0].sums, 2, se0_raw, se0_clip);
    T_EQ_U64(s.per_se[1].se, 1);
    check_sums(&s.per_se[1].sums, 2, b_raw, b_clip);

    T_EQ_U64(s.nsimd, 2);
    T_EQ_U64(s.per_simd[0].simd, 0);
    T_EQ_U64(s.per_simd[0].se, UINT32_MAX);
    check_sums(&s.per_simd[0].sums, 2, simd0_raw, simd0_clip);
    T_EQ_U64(s.per_simd[1].simd, 1);
    check_sums(&s.per_simd[1].sums, 2, c_raw, c_clip);

    T_EQ_U64(s.nse_simd, 4);
    T_EQ_U64(s.per_se_simd[0].se, 0); T_EQ_U64(s.per_se_simd[0].simd, 0);
    check_sums(&s.per_se_simd[0].sums, 1, a_raw, a_clip);
    T_EQ_U64(s.per_se_simd[1].se, 0); T_EQ_U64(s.per_se_simd[1].simd, 1);
    check_sums(&s.per_se_simd[1].sums, 1, c_raw, c_clip);
    T_EQ_U64(s.per_se_simd[2].se, 1); T_EQ_U64(s.per_se_simd[2].simd, 0);
    check_sums(&s.per_se_simd[2].sums, 1, b_raw, b_clip);
    T_EQ_U64(s.per_se_simd[3].se, 1); T_EQ_U64(s.per_se_simd[3].simd, 1);
    check_sums(&s.per_se_simd[3].sums, 1, zero, zero);

    T_EQ_U64(s.activity.rows, 3);
    T_EQ_U64(s.activity.active, 110);
    T_EQ_U64(s.activity.stall, 50);
    T_EQ_U64(s.activity.issue, 60);
    T_EQ_U64(s.activity.idle, 13);
    T_EQ_U64(s.activity.total, 123);

    T_EQ_STR(an_state_key(KR_STATE_WAIT), "WAIT");
    T_EQ_STR(an_state_key(AN_STATE_OTHER), "OTHER");
    an_states_free(&s);
    T_CHECK(s.per_se == NULL && s.nse == 0);

    /* A wave whose end precedes its begin clips to nothing; huge cycles
     * saturate instead of wrapping. */
    kr_tl big[] = {{UINT64_MAX - 5, 2}, {100, 3}};
    kr_wave odd = {.se = 3, .simd = 2, .begin = 10, .end = 5, .timeline = big, .ntimeline = 2};
    kr_capture c2;
    memset(&c2, 0, sizeof c2);
    c2.waves = &odd;
    c2.nwaves = 1;
    T_EQ_I64(an_states_compute(&c2, &s), 0);
    T_EQ_U64(s.all.raw[KR_STATE_EXEC], UINT64_MAX - 5);
    T_EQ_U64(s.all.raw[KR_STATE_WAIT], 100);
    T_EQ_U64(s.all.raw_total, UINT64_MAX);
    T_EQ_U64(s.all.clipped_total, 0);
    T_EQ_U64(s.activity.total, 0);
    an_states_free(&s);

    /* No waves, no rows. */
    kr_capture c3;
    memset(&c3, 0, sizeof c3);
    T_EQ_I64(an_states_compute(&c3, &s), 0);
    T_EQ_U64(s.nse, 0);
    T_EQ_U64(s.all.raw_total, 0);
    an_states_free(&s);

    kr_arena_free(&c.arena);
    return t_done("test_an_states");
}
