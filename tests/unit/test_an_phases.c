/* test_an_phases.c — loops, phases, iteration counts and iteration costs
 * (analyzer/phases.h): branch targets from the SOPP text, nesting, merging
 * of overlapping loops, targets found in the streams, rotated loops; the
 * generated example (answers from the construction in synth/synth.c); and
 * the hub captures against counts taken directly from the records. */
#include <stdlib.h>

#include "analyzer/phases.h"
#include "bundle/capture.h"
#include "tests/unit/build_capture.h"
#include "tests/unit/t.h"

/* rows (vaddr): 2 is the outer loop's head, 3 the inner one's; 5 jumps back
 * to 3 (16 + 4 + 4 * -3 = 8), 7 back to 2 (24 + 4 - 24 = 4), 8 forward to
 * 10 (28 + 4 + 4). */
static const tb_row nest[] = {
    {"; k", 0},
    {"s_mov_b32 s0, 0", 0},
    {"v_add_f32_e32 v0, v1, v2", 4},
    {"v_add_f32_e32 v3, v1, v2", 8},
    {"s_waitcnt vmcnt(0)", 12},
    {"s_cbranch_scc1 65533", 16},
    {"s_add_i32 s0, s0, 1", 20},
    {"s_cbranch_vccnz 65530", 24},
    {"s_branch 1", 28},
    {"v_mov_b32_e32 v1, 0", 32},
    {"s_endpgm", 36},
};
#define NNEST (sizeof nest / sizeof nest[0])

/* Wave A, back to back after a 4-cycle idle (prev_done after each record in
 * brackets):
 *   r0 t4 row1 [8]
 *   outer 1: r1 row2 [12]; inner: r2 row3 [16], r3 row4 stall 8 [24],
 *            r4 row5 JUMP [28]; r5 row3 [32], r6 row4 [40], r7 row5 NEXT [44];
 *            r8 row6 [48], r9 row7 JUMP [52]
 *   outer 2: r10 row2 [56]; inner: r11 row3 [60], r12 row4 [68], r13 row5 NEXT [72];
 *            r14 row6 [76], r15 row7 NEXT [80]
 *   r16 row8 JUMP [84], r17 row10 [92]
 * Outer: entered at its head at r1 (start 8); r9 ends iteration 1 at 52
 * (first: 44); leaving at r16 ends iteration 2 at 80 (steady: 28).
 * Inner: entry at r2 (start 12), r4 ends its first iteration at 28 (16),
 * the exit at r8 the second at 44 (steady 16); entry at r11 (start 56),
 * exit at r14 at 72 (first 16). Inner: 2 entries, 3 iterations.
 * Wave B runs row 1 and row 10 only: no loop. */
static const tb_rec wa[] = {
    {4, KR_CAT_SALU, 0, 4, 1},
    {8, KR_CAT_VALU, 0, 4, 2}, {12, KR_CAT_VALU, 0, 4, 3}, {16, KR_CAT_IMMED, 8, 8, 4}, {24, KR_CAT_JUMP, 0, 4, 5},
    {28, KR_CAT_VALU, 0, 4, 3}, {32, KR_CAT_IMMED, 8, 8, 4}, {40, KR_CAT_NEXT, 0, 4, 5},
    {44, KR_CAT_SALU, 0, 4, 6}, {48, KR_CAT_JUMP, 0, 4, 7},
    {52, KR_CAT_VALU, 0, 4, 2}, {56, KR_CAT_VALU, 0, 4, 3}, {60, KR_CAT_IMMED, 8, 8, 4}, {68, KR_CAT_NEXT, 0, 4, 5},
    {72, KR_CAT_SALU, 0, 4, 6}, {76, KR_CAT_NEXT, 0, 4, 7},
    {80, KR_CAT_JUMP, 0, 4, 8}, {84, KR_CAT_MESSAGE, 0, 8, 10},
};
static const tb_rec wb[] = {{4, KR_CAT_SALU, 0, 4, 1}, {8, KR_CAT_MESSAGE, 0, 8, 10}};

static void test_targets(void)
{
    static const tb_row rows[] = {
        {"; k", 0},
        {"s_branch -3", 100},                 /* 100 + 4 - 12 = 92: no row */
        {"s_cbranch_execz 0x2", 104},         /* 104 + 4 + 8 = 116 -> row 4 */
        {"s_cbranch_scc0 BB0_1", 108},        /* a label: no number */
        {"s_cbranch_scc1 65535", 112},        /* -1: 112 + 4 - 4 = 112 -> itself (row 4 is 116) */
        {"s_nop 0", 116},
    };
    kr_capture c;
    tb_build(&c, 9, rows, sizeof rows / sizeof rows[0], NULL, 0);
    T_EQ_I64(an_branch_target(&c, 1), -1);
    T_EQ_I64(an_branch_target(&c, 2), 5);
    T_EQ_I64(an_branch_target(&c, 3), -1);
    T_EQ_I64(an_branch_target(&c, 4), 4);
    T_EQ_I64(an_branch_target(&c, 5), -1);       /* not a branch */
    tb_free(&c);
    tb_build(&c, 9, nest, NNEST, NULL, 0);
    T_EQ_I64(an_branch_target(&c, 5), 3);
    T_EQ_I64(an_branch_target(&c, 7), 2);
    T_EQ_I64(an_branch_target(&c, 8), 10);
    tb_free(&c);
}

static void test_nested(void)
{
    tb_wave w[] = {{0, 0, 0, 0, 92, wa, sizeof wa / sizeof wa[0]}, {0, 1, 0, 0, 16, wb, 2}};
    kr_capture c;
    tb_build(&c, 9, nest, NNEST, w, 2);
    an_phases p;
    T_EQ_I64(an_phases_compute(&c, &p), 0);
    T_EQ_U64(p.nloops, 2);
    if (p.nloops != 2) {
        an_phases_free(&p);
        tb_free(&c);
        return;
    }
    const an_loop *o = &p.loops[0], *in = &p.loops[1];
    T_EQ_U64(o->head, 2);
    T_EQ_U64(o->tail, 7);
    T_EQ_U64(o->depth, 0);
    T_EQ_U64(o->parent, AN_PHASE_NONE);
    T_EQ_U64(in->head, 3);
    T_EQ_U64(in->tail, 5);
    T_EQ_U64(in->depth, 1);
    T_EQ_U64(in->parent, 0);
    T_EQ_U64(o->nbackedges, 1);
    T_EQ_U64(o->backedges[0], 7);
    /* iterations */
    T_EQ_U64(o->entries, 1);
    T_EQ_U64(o->iterations, 2);
    T_EQ_U64(o->wave_iterations[0], 2);
    T_EQ_U64(o->wave_iterations[1], 0);
    T_EQ_U64(o->waves_entered, 1);
    T_EQ_U64(o->per_wave.min, 0);
    T_EQ_U64(o->per_wave.p50, 0);            /* two waves: rank 1 */
    T_EQ_U64(o->per_wave.max, 2);
    T_EQ_U64(o->first_cost.n, 1);
    T_EQ_U64(o->first_cost.p50, 44);
    T_EQ_U64(o->steady_cost.n, 1);
    T_EQ_U64(o->steady_cost.p50, 28);
    T_EQ_U64(in->entries, 2);
    T_EQ_U64(in->iterations, 3);
    T_EQ_U64(in->first_cost.n, 2);
    T_EQ_U64(in->first_cost.min, 16);
    T_EQ_U64(in->first_cost.max, 16);
    T_EQ_U64(in->steady_cost.n, 1);
    T_EQ_U64(in->steady_cost.p50, 16);
    /* phases: prologue [1,1], loop [2,7], nested loop [3,5], epilogue [8,10] */
    T_EQ_U64(p.nphases, 4);
    if (p.nphases == 4) {
        T_EQ_U64(p.phases[0].kind, AN_PHASE_PROLOGUE);
        T_EQ_U64(p.phases[0].first, 1);
        T_EQ_U64(p.phases[0].last, 1);
        T_EQ_U64(p.phases[1].kind, AN_PHASE_LOOP);
        T_EQ_U64(p.phases[1].loop, 0);
        T_EQ_U64(p.phases[2].kind, AN_PHASE_LOOP);
        T_EQ_U64(p.phases[2].loop, 1);
        T_EQ_U64(p.phases[2].depth, 1);
        T_EQ_U64(p.phases[3].kind, AN_PHASE_EPILOGUE);
        T_EQ_U64(p.phases[3].first, 8);
        T_EQ_U64(p.phases[3].last, 10);
        /* sums are the code rows' (recomputed here) */
        for (size_t k = 0; k < p.nphases; k++) {
            uint64_t hit = 0, lat = 0, st = 0, idle = 0, n = 0;
            for (uint32_t r = p.phases[k].first; r <= p.phases[k].last; r++) {
                hit += c.rows[r].hit;
                lat += c.rows[r].latency;
                st += c.rows[r].stall;
                idle += c.rows[r].idle;
                n++;
            }
            T_EQ_U64(p.phases[k].rows, n);
            T_EQ_U64(p.phases[k].hit, hit);
            T_EQ_U64(p.phases[k].latency, lat);
            T_EQ_U64(p.phases[k].stall, st);
            T_EQ_U64(p.phases[k].idle, idle);
        }
        /* the inner loop's top stall row is the wait (row 4, 24 cycles) */
        T_EQ_U64(p.phases[2].ntop, 1);
        T_EQ_U64(p.phases[2].top[0], 4);
    }
    /* main loop: the outer one holds 72 cycles, the inner 48 >= 72 / 2 */
    T_EQ_U64(p.main_loop, 1);
    T_EQ_U64(p.total_time, 8 + 8 + 72 + 4 + 16);   /* rows 1 (incl. 2 x 4 idle), 2-7, 8, 10 */
    an_phases_free(&p);
    tb_free(&c);
}

/* Back edges 5 -> 2 and 7 -> 4 overlap ([2,5] and [4,7]): one loop [2,7]
 * with both back edges. */
static void test_overlap(void)
{
    static const tb_row rows[] = {
        {"; k", 0}, {"s_mov_b32 s0, 0", 0}, {"v_add_f32_e32 v0, v1, v2", 4}, {"v_add_f32_e32 v0, v1, v2", 8},
        {"v_add_f32_e32 v0, v1, v2", 12}, {"s_cbranch_scc1 65532", 16}, {"s_add_i32 s0, s0, 1", 20},
        {"s_cbranch_scc1 65532", 24}, {"s_endpgm", 28},
    };
    kr_capture c;
    tb_build(&c, 9, rows, sizeof rows / sizeof rows[0], NULL, 0);
    T_EQ_I64(an_branch_target(&c, 5), 2);
    T_EQ_I64(an_branch_target(&c, 7), 4);
    an_phases p;
    T_EQ_I64(an_phases_compute(&c, &p), 0);
    T_EQ_U64(p.nloops, 1);
    if (p.nloops == 1) {
        T_EQ_U64(p.loops[0].head, 2);
        T_EQ_U64(p.loops[0].tail, 7);
        T_EQ_U64(p.loops[0].nbackedges, 2);
    }
    T_EQ_U64(p.main_loop, AN_PHASE_NONE);            /* nothing ran */
    an_phases_free(&p);
    tb_free(&c);
}

/* A back edge with a label operand: its target comes from the stream (the
 * record after its taken execution). The loop is entered at row 3 (below
 * its head, a rotated loop): the pass up to the first back edge is a stub,
 * so 2 taken back edges make 2 iterations. */
static void test_stream_target_and_stub(void)
{
    static const tb_row rows[] = {
        {"; k", 0}, {"s_branch 1", 0}, {"v_add_f32_e32 v0, v1, v2", 4}, {"s_cmp_lt_i32 s0, s1", 8},
        {"s_cbranch_scc1 BB0_1", 12}, {"s_endpgm", 16},
    };
    /* s_branch 1 at 0 -> 8 (row 3) */
    static const tb_rec r[] = {
        {0, KR_CAT_JUMP, 0, 4, 1}, {4, KR_CAT_SALU, 0, 4, 3}, {8, KR_CAT_JUMP, 0, 4, 4},
        {12, KR_CAT_VALU, 0, 4, 2}, {16, KR_CAT_SALU, 0, 4, 3}, {20, KR_CAT_JUMP, 0, 4, 4},
        {24, KR_CAT_VALU, 0, 4, 2}, {28, KR_CAT_SALU, 0, 4, 3}, {32, KR_CAT_NEXT, 0, 4, 4},
        {36, KR_CAT_MESSAGE, 0, 8, 5},
    };
    tb_wave w[] = {{0, 0, 0, 0, 44, r, sizeof r / sizeof r[0]}};
    kr_capture c;
    tb_build(&c, 9, rows, sizeof rows / sizeof rows[0], w, 1);
    T_EQ_I64(an_branch_target(&c, 4), -1);
    an_phases p;
    T_EQ_I64(an_phases_compute(&c, &p), 0);
    T_EQ_U64(p.nloops, 1);
    if (p.nloops == 1) {
        const an_loop *l = &p.loops[0];
        T_EQ_U64(l->head, 2);
        T_EQ_U64(l->tail, 4);
        T_CHECK(l->from_stream);
        T_EQ_U64(l->entries, 1);
        T_EQ_U64(l->iterations, 2);
        /* iteration 1: after r2 (done 12) to r5 (done 24) = 12; iteration 2:
         * to the exit before r9 (done 36) = 12 */
        T_EQ_U64(l->first_cost.p50, 12);
        T_EQ_U64(l->steady_cost.p50, 12);
    }
    an_phases_free(&p);
    tb_free(&c);
}

/* Long runs inside a loop (the per-wave pass takes runs of records in one
 * loop several at a time): rows 2..4 are the body, 5 jumps back to 2
 * (16 + 4 + 4 * -4 = 4). Iteration 1 runs 21 body records with a
 * record of unknown PC (line 0, no row: it moves nothing, not even
 * prev_done, though it lasts 5000 cycles) among them and a record lasting
 * 300 cycles early in the run (so prev_done is not the last record's
 * end); iteration 2 runs 9 body records. The expected costs are recomputed
 * here from the records by the docs/formats.md#per-row-sums prev_done rule. */
static void test_long_runs(void)
{
    static const tb_row rows[] = {
        {"; k", 0}, {"s_mov_b32 s0, 0", 0}, {"v_add_f32_e32 v0, v1, v2", 4}, {"v_mul_f32_e32 v3, v1, v2", 8},
        {"v_sub_f32_e32 v4, v1, v2", 12}, {"s_cbranch_scc1 65532", 16}, {"s_endpgm", 20},
    };
    tb_rec r[64];
    size_t n = 0;
    uint64_t t = 0;
    r[n++] = (tb_rec){t, KR_CAT_SALU, 0, 4, 1};
    for (int it = 0; it < 2; it++) {
        int body = it == 0 ? 21 : 9;
        for (int k = 0; k < body; k++) {
            t += 4;
            uint32_t dur = it == 0 && k == 2 ? 300 : 4;
            if (it == 0 && k == 11)
                r[n++] = (tb_rec){t, KR_CAT_VALU, 0, 5000, 0};
            else
                r[n++] = (tb_rec){t, KR_CAT_VALU, 0, dur, (uint32_t)(2 + k % 3)};
        }
        t += 4;
        r[n++] = (tb_rec){t, it == 0 ? KR_CAT_JUMP : KR_CAT_NEXT, 0, 4, 5};
    }
    t += 4;
    r[n++] = (tb_rec){t, KR_CAT_MESSAGE, 0, 8, 6};
    tb_wave w[] = {{0, 0, 0, 0, t + 8, r, n}};
    kr_capture c;
    tb_build(&c, 9, rows, sizeof rows / sizeof rows[0], w, 1);
    /* prev_done before record i (records without a row skipped) */
    uint64_t done[64], d = 0;
    for (size_t i = 0; i < n; i++) {
        done[i] = d;
        if (r[i].line != 0 && r[i].time + r[i].dur > d)
            d = r[i].time + r[i].dur;
    }
    size_t jump = 1 + 21, exit_at = jump + 1 + 9 + 1;   /* r[jump]: the taken back edge; r[exit_at]: row 6 */
    uint64_t first = done[jump + 1] - done[1], steady = done[exit_at] - done[jump + 1];
    T_CHECK(first > 300);                             /* the 300-cycle record is in it */
    an_phases p;
    T_EQ_I64(an_phases_compute(&c, &p), 0);
    T_EQ_U64(p.nloops, 1);
    if (p.nloops == 1) {
        const an_loop *l = &p.loops[0];
        T_EQ_U64(l->head, 2);
        T_EQ_U64(l->tail, 5);
        T_EQ_U64(l->entries, 1);
        T_EQ_U64(l->iterations, 2);
        T_EQ_U64(l->first_cost.n, 1);
        T_EQ_U64(l->first_cost.p50, first);
        T_EQ_U64(l->steady_cost.n, 1);
        T_EQ_U64(l->steady_cost.p50, steady);
    }
    an_phases_free(&p);
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
    if (bundle_capture_load(path, &opts, &c, &err))
        return NULL;
    return c;
}

/* synth/synth.c: loop rows 28..41 (back edge 41 -> 28), I iterations per
 * wave, iteration j of a wave on SIMD s costs 432 + 40 (j mod 3) + 8 s
 * (prev_done to prev_done, the row-28 gap of 8 included). Hit: rows 1-12
 * and 15-27 W each, 28-41 W I, 42-45 W. */
static void test_example(void)
{
    const char *src = getenv("KR_SRC");
    static const struct { const char *label, *dir; uint64_t waves, iters; } ex[] = {
        {"small", "ui_output_agent_24601_dispatch_14", 8, 3},
        {"big", "ui_output_agent_40963_dispatch_38", 32, 6},
    };
    for (size_t e = 0; e < 2; e++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/examples/synth_gfx950/att_viewer/%s/%s", src ? src : ".", ex[e].label,
                 ex[e].dir);
        kr_capture *c = load(path);
        if (!c) {
            printf("test_an_phases: example %s not found, skipping it\n", ex[e].label);
            continue;
        }
        an_phases p;
        T_EQ_I64(an_phases_compute(c, &p), 0);
        uint64_t W = ex[e].waves, I = ex[e].iters;
        T_EQ_U64(p.nloops, 1);
        T_EQ_U64(p.nphases, 3);
        T_EQ_U64(p.main_loop, 0);
        if (p.nloops == 1 && p.nphases == 3) {
            const an_loop *l = &p.loops[0];
            T_EQ_U64(l->head, 28);
            T_EQ_U64(l->tail, 41);
            T_EQ_U64(l->waves_entered, W);
            T_EQ_U64(l->per_wave.min, I);
            T_EQ_U64(l->per_wave.max, I);
            T_EQ_U64(l->iterations, W * I);
            T_EQ_U64(p.phases[0].kind, AN_PHASE_PROLOGUE);
            T_EQ_U64(p.phases[0].last, 27);
            T_EQ_U64(p.phases[0].hit, 25 * W);
            T_EQ_U64(p.phases[1].hit, 14 * W * I);
            T_EQ_U64(p.phases[2].kind, AN_PHASE_EPILOGUE);
            T_EQ_U64(p.phases[2].first, 42);
            T_EQ_U64(p.phases[2].hit, 4 * W);
            /* costs by formula, over the waves' SIMDs (W / 4 waves each) */
            uint64_t first[64], steady[320];
            size_t nf = 0, ns = 0;
            for (uint64_t s = 0; s < 4; s++)
                for (uint64_t k = 0; k < W / 4; k++)
                    for (uint64_t j = 0; j < I; j++) {
                        uint64_t cost = 432 + 40 * (j % 3) + 8 * s;
                        if (j == 0)
                            first[nf++] = cost;
                        else
                            steady[ns++] = cost;
                    }
            an_dist f, st;
            an_dist_of(first, nf, &f);
            an_dist_of(steady, ns, &st);
            T_EQ_U64(l->first_cost.n, nf);
            T_EQ_U64(l->first_cost.min, 432);
            T_EQ_U64(l->first_cost.max, 456);
            T_EQ_U64(l->first_cost.p50, f.p50);
            T_EQ_U64(l->steady_cost.n, ns);
            T_EQ_U64(l->steady_cost.p10, st.p10);
            T_EQ_U64(l->steady_cost.p50, st.p50);
            T_EQ_U64(l->steady_cost.p90, st.p90);
            T_EQ_U64(l->steady_cost.max, 536);
            if (I == 3) {                         /* hand ranks for the small capture */
                T_EQ_U64(l->first_cost.p50, 440);
                T_EQ_U64(l->steady_cost.p50, 496);
                T_EQ_U64(l->steady_cost.min, 472);
            }
        }
        an_phases_free(&p);
        bundle_capture_free(c);
    }
}

/* Hub: iterations per wave counted directly from the records: a loop
 * entered at its head runs (head executions) iterations; a rotated one
 * (taken back edges) iterations. */
static void test_hub(void)
{
    const char *hub = t_hub();
    if (!hub) {
        printf("test_an_phases: hub fixtures absent, skipping the real-capture part\n");
        return;
    }
    static const struct {
        const char *dir;
        uint32_t nloops;
        uint32_t head[2], tail[2];
    } caps[] = {
        {"examples/pa_mqa_logits_fp4/att_viewer/small/ui_output_agent_32435_dispatch_197", 1, {193}, {489}},
        {"examples/pa_mqa_logits_fp4/att_viewer/big/ui_output_agent_55351_dispatch_426", 1, {193}, {489}},
        {"examples/flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44", 2, {123, 471}, {1912, 1910}},
        {"examples/flash_attn_func/att_viewer/small/ui_output_agent_58550_dispatch_44_after_loc_fix", 2, {123, 471},
         {1912, 1910}},
    };
    for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", hub, caps[k].dir);
        kr_capture *c = load(path);
        T_CHECK(c != NULL);
        if (!c)
            continue;
        an_phases p;
        T_EQ_I64(an_phases_compute(c, &p), 0);
        T_EQ_U64(p.nloops, caps[k].nloops);
        for (uint32_t l = 0; l < p.nloops && l < caps[k].nloops; l++) {
            const an_loop *lp = &p.loops[l];
            T_EQ_U64(lp->head, caps[k].head[l]);
            T_EQ_U64(lp->tail, caps[k].tail[l]);
            T_EQ_U64(lp->depth, l);
            uint64_t bad = 0;
            for (size_t w = 0; w < c->nwaves; w++) {
                uint64_t heads = 0, taken = 0, entries_at_head = 0;
                uint32_t prev = KR_ROW_NONE;
                for (size_t i = 0; i < c->waves[w].ninsts; i++) {
                    const kr_inst *x = &c->waves[w].insts[i];
                    if (x->row == KR_ROW_NONE)
                        continue;
                    int in = x->row >= lp->head && x->row <= lp->tail;
                    int was = prev != KR_ROW_NONE && prev >= lp->head && prev <= lp->tail;
                    heads += x->row == lp->head;
                    entries_at_head += in && !was && x->row == lp->head;
                    for (size_t b = 0; b < lp->nbackedges; b++)
                        taken += x->row == lp->backedges[b] && x->cat == KR_CAT_JUMP;
                    prev = x->row;
                }
                bad += lp->wave_iterations[w] != entries_at_head + taken;
                /* every iteration passes the head once (the back edges all jump there) */
                bad += lp->wave_iterations[w] != heads;
            }
            T_EQ_U64(bad, 0);
        }
        /* phases tile the code table: prologue + loops (top level) + epilogue */
        uint64_t rows = 0, lat = 0, all_lat = 0;
        for (size_t i = 0; i < p.nphases; i++)
            if (p.phases[i].depth == 0) {
                rows += p.phases[i].rows;
                lat += p.phases[i].latency + p.phases[i].idle;
            }
        uint64_t inst_rows = 0;
        for (size_t r = 0; r < c->nrows; r++)
            if (!c->rows[r].is_label) {
                inst_rows++;
                all_lat += c->rows[r].latency + c->rows[r].idle;
            }
        T_EQ_U64(rows, inst_rows);
        T_EQ_U64(lat, all_lat);
        T_EQ_U64(p.total_time, all_lat);
        if (k == 0)
            T_EQ_U64(p.main_loop, AN_PHASE_NONE);   /* the small pa_mqa run skips its loop */
        if (k == 1)
            T_EQ_U64(p.loops[0].per_wave.min == 16 && p.loops[0].per_wave.max == 16, 1);
        if (k >= 2)
            T_EQ_U64(p.main_loop, 1);               /* the inner loop holds most of the outer one */
        an_phases_free(&p);
        bundle_capture_free(c);
    }
}

int main(void)
{
    test_targets();
    test_nested();
    test_overlap();
    test_stream_target_and_stub();
    test_long_runs();
    test_example();
    test_hub();
    return t_done("test_an_phases");
}
