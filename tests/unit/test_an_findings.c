/* test_an_findings.c — every finding of analyzer/findings.h fires on a
 * capture built to trigger it and stays silent on one built not to; the
 * wait classes, the summary's premises (no LDS advice without LDS, no
 * "issue earlier" for kernel arguments), the polling loop kept from the
 * main loop and the dispatch-time median the roofline then uses.
 *
 * Captures are generated in memory (tests/unit/build_capture.h): a program
 * and, per wave, a path through it (row numbers) with the stall each row
 * gets; records follow docs/formats.md#instruction-records with a 4-cycle duration, so code.json's columns
 * are the records' sums. The full analysis (an_analyze) runs on them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/analysis.h"
#include "tests/unit/build_capture.h"
#include "tests/unit/t.h"

#define MAXREC 4096

typedef struct path { const uint32_t *rows; size_t n; } path;

static tb_rec recs[16][MAXREC];

static uint8_t cat_of(const kr_capture *c, uint32_t row, int taken)
{
    switch (c->rows[row].cls) {
    case KR_CLASS_SMEM: return KR_CAT_SMEM;
    case KR_CLASS_SALU: return KR_CAT_SALU;
    case KR_CLASS_VMEM: return KR_CAT_VMEM;
    case KR_CLASS_FLAT: return KR_CAT_FLAT;
    case KR_CLASS_LDS: return KR_CAT_LDS;
    case KR_CLASS_VALU:
    case KR_CLASS_MATRIX: return KR_CAT_VALU;
    case KR_CLASS_BRANCH: return taken ? KR_CAT_JUMP : KR_CAT_NEXT;
    default: return KR_CAT_IMMED;
    }
}

/* Builds c: nw waves following paths[w], row r stalled stall[r] cycles at
 * each execution. A branch is "taken" when the next row on the path is not
 * the next row of the program. */
static void build(kr_capture *c, const tb_row *prog, size_t nrows, const path *paths, size_t nw,
                  const uint32_t *stall)
{
    kr_capture shape;
    tb_build(&shape, 9, prog, nrows, NULL, 0);     /* the classes, for the categories */
    tb_wave waves[16];
    for (size_t w = 0; w < nw; w++) {
        uint64_t t = 100;
        for (size_t i = 0; i < paths[w].n; i++) {
            uint32_t r = paths[w].rows[i];
            int taken = i + 1 < paths[w].n && paths[w].rows[i + 1] != r + 1;
            recs[w][i] = (tb_rec){t, cat_of(&shape, r, taken), stall[r], 4, r};
            t += stall[r] + 4;
        }
        waves[w] = (tb_wave){0, (uint32_t)w % 4, (uint32_t)w / 4, 100, t + 4, recs[w], paths[w].n};
    }
    tb_free(&shape);
    tb_build(c, 9, prog, nrows, waves, nw);
}

static an_analysis run(kr_capture *c)
{
    an_analysis a;
    an_analysis_opts o = {.threads = 1};
    T_EQ_I64(an_analyze(c, &o, &a), 0);
    return a;
}

static const an_rule *fired(const an_analysis *a, const char *code)
{
    for (size_t i = 0; i < a->findings.n; i++)
        if (strcmp(a->findings.items[i].code, code) == 0)
            return &a->findings.items[i];
    return NULL;
}

static int has(const char *s, const char *needle)
{
    if (s && strstr(s, needle))
        return 1;
    fprintf(stderr, "not found in \"%s\": %s\n", s ? s : "(null)", needle);
    return 0;
}

/* ---- kernarg_wait: lgkmcnt waits on an s_load from s[0:1] ---- */
static const tb_row kprog[] = {
    {"; k", 0},
    {"s_load_dwordx2 s[4:5], s[0:1], 0x0", 0},
    {"s_waitcnt lgkmcnt(0)", 8},
    {"global_load_dword v1, v[2:3], off", 12},
    {"s_waitcnt vmcnt(0)", 20},
    {"v_add_f32_e32 v1, v1, v1", 24},
    {"s_endpgm", 28},
};
static const uint32_t kpath[] = {1, 2, 3, 4, 5, 6};

static void kernarg(void)
{
    path p[2] = {{kpath, 6}, {kpath, 6}};
    kr_capture c;
    /* 2 waves × (400 kernarg + 40 vmem) stall: 400 / 440 = 90.9 % */
    uint32_t st[7] = {0, 0, 400, 0, 40, 0, 0};
    build(&c, kprog, 7, p, 2, st);
    an_analysis a = run(&c);
    const an_rule *f = fired(&a, "kernarg_wait");
    T_CHECK(f != NULL);
    if (f) {
        T_EQ_STR(f->figs[0].name, "stall_share");
        T_NEAR(f->figs[0].value, 800.0 / 880.0, 1e-9);
        T_NEAR(f->threshold, AN_FIND_WAIT_SHARE, 0);
        T_EQ_U64(f->nrows, 1);
        T_EQ_U64(f->rows[0], 1);                 /* the s_load */
    }
    T_EQ_U64(a.findings.wclass_stall[AN_WC_KERNARG], 800);
    T_EQ_U64(a.findings.wclass_stall[AN_WC_VMEM_LOAD], 80);
    T_EQ_STR(a.findings.bound, "kernarg");
    /* the first action hoists the argument loads, and nothing says LDS */
    T_CHECK(a.findings.nactions >= 1 && strcmp(a.findings.actions[0].code, "kernarg") == 0);
    for (size_t i = 0; i < a.advice.n; i++) {
        T_CHECK(!strstr(a.advice.items[i].action, "LDS"));
        T_CHECK(!strstr(a.advice.items[i].action, "MFMA"));
        if (strcmp(a.advice.items[i].id, "wait_producer") == 0 && a.advice.items[i].rows[1] == 1) {
            T_CHECK(has(a.advice.items[i].action, "cannot issue earlier"));
            T_CHECK(!strstr(a.advice.items[i].action, "Issue the producer"));
        }
    }
    an_analysis_free(&a);
    tb_free(&c);

    /* silent: the same code with the stall on the vector load (10 / 410) */
    uint32_t st2[7] = {0, 0, 10, 0, 400, 0, 0};
    build(&c, kprog, 7, p, 2, st2);
    a = run(&c);
    T_CHECK(fired(&a, "kernarg_wait") == NULL);
    T_EQ_STR(a.findings.bound, "vmem_load");
    an_analysis_free(&a);
    tb_free(&c);

    /* silent: s[0:1] is overwritten before the load, so it is not the
     * kernel-argument pointer any more (scalar memory instead) */
    static const tb_row moved[] = {
        {"; k", 0},
        {"s_mov_b64 s[0:1], s[6:7]", 0},
        {"s_load_dwordx2 s[4:5], s[0:1], 0x0", 4},
        {"s_waitcnt lgkmcnt(0)", 12},
        {"s_endpgm", 16},
    };
    static const uint32_t mpath[] = {1, 2, 3, 4};
    path mp[1] = {{mpath, 4}};
    uint32_t st3[5] = {0, 0, 0, 400, 0};
    build(&c, moved, 5, mp, 1, st3);
    a = run(&c);
    T_CHECK(fired(&a, "kernarg_wait") == NULL);
    T_EQ_U64(a.findings.wclass_stall[AN_WC_KERNARG], 0);
    T_EQ_U64(a.findings.wclass_stall[AN_WC_SMEM], 400);
    an_analysis_free(&a);
    tb_free(&c);
}

/* kernarg from another launch-time pointer (s[2:3] when s[0:1] holds the
 * dispatch packet): the base is written by no earlier row */
static void kernarg_other_base(void)
{
    static const tb_row x[] = {
        {"; k", 0},
        {"s_load_dword s4, s[2:3], 0x10", 0},
        {"s_waitcnt lgkmcnt(0)", 8},
        {"s_endpgm", 12},
    };
    static const uint32_t pr[] = {1, 2, 3};
    path p[1] = {{pr, 3}};
    uint32_t st[4] = {0, 0, 400, 0};
    kr_capture c;
    build(&c, x, 4, p, 1, st);
    an_analysis a = run(&c);
    T_EQ_U64(a.findings.wclass_stall[AN_WC_KERNARG], 400);
    T_CHECK(fired(&a, "kernarg_wait") != NULL);
    an_analysis_free(&a);
    tb_free(&c);
}

/* ---- low_coverage from a loop that never ran: only a real part of the code ---- */
static void dead_loop(void)
{
    static tb_row x[12];
    x[0] = (tb_row){"; k", 0};
    for (int i = 1; i <= 9; i++)
        x[i] = (tb_row){"v_add_f32_e32 v1, v1, v1", (uint64_t)(4 * (i - 1))};
    x[11] = (tb_row){"s_endpgm", 40};
    uint32_t st[12] = {0};
    st[1] = 8;
    for (int big = 0; big < 2; big++) {
        /* small: a 2-row loop (rows 9-10, 18 % of 11 rows) never entered, 9
         * of 11 rows ran: silent; big: a 4-row loop (rows 7-10, 36 %)
         * never entered, 7 of 11 rows (64 % >= 50 %) ran: fires */
        x[10] = (tb_row){big ? "s_cbranch_scc1 65532" : "s_cbranch_scc1 65534", 36};
        static uint32_t pr[12];
        size_t n = 0;
        for (uint32_t r = 1; r <= (big ? 6u : 8u); r++)
            pr[n++] = r;
        pr[n++] = 11;
        path p[1] = {{pr, n}};
        kr_capture c;
        build(&c, x, 12, p, 1, st);
        an_analysis a = run(&c);
        T_EQ_U64(a.phases.nloops, 1);
        const an_rule *f = fired(&a, "low_coverage");
        if (big) {
            T_CHECK(f != NULL);
            if (f) {
                T_NEAR(f->figs[0].value, 7.0 / 11.0, 1e-12);
                T_EQ_U64(f->rows[0], 7);         /* the loop's head */
            }
        } else {
            T_CHECK(f == NULL);
        }
        an_analysis_free(&a);
        tb_free(&c);
    }
}

/* ---- crosslane_wait: lgkmcnt on ds_bpermute vs ds_read ---- */
static void crosslane(void)
{
    static const tb_row x[] = {
        {"; k", 0},
        {"ds_bpermute_b32 v1, v2, v3", 0},
        {"s_waitcnt lgkmcnt(0)", 8},
        {"ds_bpermute_b32 v4, v2, v1", 12},
        {"s_waitcnt lgkmcnt(0)", 20},
        {"v_add_f32_e32 v1, v1, v4", 24},
        {"s_endpgm", 28},
    };
    static const tb_row y[] = {
        {"; k", 0},
        {"ds_read_b32 v1, v2", 0},
        {"s_waitcnt lgkmcnt(0)", 8},
        {"ds_read_b32 v4, v2 offset:256", 12},
        {"s_waitcnt lgkmcnt(0)", 20},
        {"v_add_f32_e32 v1, v1, v4", 24},
        {"s_endpgm", 28},
    };
    static const uint32_t pr[] = {1, 2, 3, 4, 5, 6};
    path p[1] = {{pr, 6}};
    /* two waits of 60 cycles each and 480 cycles of ALU dependency: each wait
     * alone is 10 % of the 600 stall cycles, together 20 %: summed over the
     * waits the finding fires */
    uint32_t st[7] = {0, 0, 60, 0, 60, 480, 0};
    kr_capture c;
    build(&c, x, 7, p, 1, st);
    an_analysis a = run(&c);
    const an_rule *f = fired(&a, "crosslane_wait");
    T_CHECK(f != NULL);
    if (f) {
        T_NEAR(f->figs[0].value, 0.2, 1e-9);
        T_NEAR(f->figs[2].value, 2, 0);          /* wait rows */
    }
    T_EQ_U64(a.findings.wclass_stall[AN_WC_CROSSLANE], 120);
    T_EQ_U64(a.findings.wclass_stall[AN_WC_LDS], 0);
    /* no LDS double-buffering advice in a kernel without LDS data */
    for (size_t i = 0; i < a.advice.n; i++)
        T_CHECK(!strstr(a.advice.items[i].action, "double-buffer"));
    an_analysis_free(&a);
    tb_free(&c);

    build(&c, y, 7, p, 1, st);
    a = run(&c);
    T_CHECK(fired(&a, "crosslane_wait") == NULL);
    T_EQ_U64(a.findings.wclass_stall[AN_WC_LDS], 120);
    an_analysis_free(&a);
    tb_free(&c);
}

/* ---- nop_padding ---- */
static void nop(void)
{
    static const tb_row x[] = {
        {"; k", 0},
        {"v_cmp_eq_u32_e64 s[2:3], v1, v2", 0},
        {"s_nop 4", 8},
        {"v_cndmask_b32_e64 v1, v2, v3, s[2:3]", 12},
        {"s_endpgm", 20},
    };
    static const uint32_t pr[] = {1, 2, 3, 4};
    path p[1] = {{pr, 4}};
    uint32_t st[5] = {0, 0, 300, 100, 0};
    kr_capture c;
    build(&c, x, 5, p, 1, st);
    an_analysis a = run(&c);
    const an_rule *f = fired(&a, "nop_padding");
    T_CHECK(f != NULL);
    if (f) {
        T_NEAR(f->figs[0].value, 0.75, 1e-9);
        T_EQ_U64(f->rows[0], 2);
        /* the instruction pair around the padding */
        T_CHECK(has(f->message, "between `v_cmp_eq_u32_e64` and `v_cndmask_b32_e64`"));
    }
    /* no MFMA in the kernel: no MFMA wording (the v_cndmask's 100 cycles
     * are an ALU dependency stall, 25 %: its rule fires) */
    int alu = 0;
    for (size_t i = 0; i < a.advice.n; i++) {
        T_CHECK(!strstr(a.advice.items[i].action, "MFMA"));
        T_CHECK(!strstr(a.advice.items[i].title, "MFMA"));
        alu |= strcmp(a.advice.items[i].id, "alu_dep") == 0;
    }
    T_CHECK(alu);
    T_CHECK(!strstr(a.findings.bound_text, "MFMA"));
    for (size_t i = 0; i < a.findings.nactions; i++)
        T_CHECK(!strstr(a.findings.actions[i].text, "MFMA"));
    an_analysis_free(&a);
    tb_free(&c);

    uint32_t st2[5] = {0, 0, 4, 300, 0};        /* 4 / 304 = 1.3 % */
    build(&c, x, 5, p, 1, st2);
    a = run(&c);
    T_CHECK(fired(&a, "nop_padding") == NULL);
    an_analysis_free(&a);
    tb_free(&c);
}

/* ---- narrow_access ---- */
static void narrow(void)
{
    static const tb_row x[] = {
        {"; k", 0},
        {"global_load_ubyte v1, v[2:3], off", 0},
        {"s_waitcnt vmcnt(0)", 8},
        {"v_add_f32_e32 v1, v1, v1", 12},
        {"s_endpgm", 16},
    };
    static const tb_row y[] = {
        {"; k", 0},
        {"global_load_dword v1, v[2:3], off", 0},
        {"s_waitcnt vmcnt(0)", 8},
        {"v_add_f32_e32 v1, v1, v1", 12},
        {"s_endpgm", 16},
    };
    static const uint32_t pr[] = {1, 2, 3, 4};
    path p[1] = {{pr, 4}};
    uint32_t st[5] = {0, 0, 200, 0, 0};
    kr_capture c;
    build(&c, x, 5, p, 1, st);
    an_analysis a = run(&c);
    const an_rule *f = fired(&a, "narrow_access");
    T_CHECK(f != NULL);
    if (f) {
        T_EQ_STR(f->figs[0].name, "narrow_execution_share");
        T_NEAR(f->figs[0].value, 1.0, 0);
        T_EQ_U64(f->rows[0], 1);
    }
    an_analysis_free(&a);
    tb_free(&c);
    build(&c, y, 5, p, 1, st);
    a = run(&c);
    T_CHECK(fired(&a, "narrow_access") == NULL);
    an_analysis_free(&a);
    tb_free(&c);
}

/* ---- early_exit and low_coverage ---- */
static const tb_row eprog[] = {
    {"; k", 0},
    {"v_cmp_eq_u32_e32 vcc, v0, v1", 0},
    {"s_cbranch_vccnz 10", 4},                  /* to vaddr 48: s_endpgm */
    {"v_add_f32_e32 v1, v1, v1", 8},
    {"v_add_f32_e32 v1, v1, v1", 12},
    {"v_add_f32_e32 v1, v1, v1", 16},
    {"v_add_f32_e32 v1, v1, v1", 20},
    {"v_add_f32_e32 v1, v1, v1", 24},
    {"v_add_f32_e32 v1, v1, v1", 28},
    {"v_add_f32_e32 v1, v1, v1", 32},
    {"v_add_f32_e32 v1, v1, v1", 36},
    {"v_add_f32_e32 v1, v1, v1", 40},
    {"v_add_f32_e32 v1, v1, v1", 44},
    {"s_endpgm", 48},
};
static const uint32_t elong[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
static const uint32_t eshort[] = {1, 2, 13};

static void early(void)
{
    uint32_t st[14] = {0};
    st[4] = 8;
    /* 3 of 4 waves run 3 instructions, the fourth 13: 3 < 0.25 × 13 */
    path p[4] = {{eshort, 3}, {eshort, 3}, {eshort, 3}, {elong, 13}};
    kr_capture c;
    build(&c, eprog, 14, p, 4, st);
    an_analysis a = run(&c);
    const an_rule *f = fired(&a, "early_exit");
    T_CHECK(f != NULL);
    if (f) {
        T_NEAR(f->figs[0].value, 0.75, 0);
        T_NEAR(f->figs[1].value, 3, 0);
        T_NEAR(f->figs[2].value, 3, 0);
        T_NEAR(f->figs[3].value, 13, 0);
    }
    T_CHECK(fired(&a, "low_coverage") == NULL);  /* every row ran on the long wave */
    T_EQ_U64(a.findings.representative, 0);
    T_CHECK(has(a.findings.capture_text, "early_exit"));
    an_analysis_free(&a);
    tb_free(&c);

    /* all four long: silent */
    path q[4] = {{elong, 13}, {elong, 13}, {elong, 13}, {elong, 13}};
    build(&c, eprog, 14, q, 4, st);
    a = run(&c);
    T_CHECK(fired(&a, "early_exit") == NULL);
    T_CHECK(fired(&a, "low_coverage") == NULL);
    T_EQ_U64(a.findings.representative, 1);
    an_analysis_free(&a);
    tb_free(&c);

    /* all four short: no early exit (they are alike) but 3 of 13 rows ran */
    path s[4] = {{eshort, 3}, {eshort, 3}, {eshort, 3}, {eshort, 3}};
    build(&c, eprog, 14, s, 4, st);
    a = run(&c);
    T_CHECK(fired(&a, "early_exit") == NULL);
    f = fired(&a, "low_coverage");
    T_CHECK(f != NULL);
    if (f)
        T_NEAR(f->figs[0].value, 3.0 / 13.0, 1e-12);
    T_EQ_U64(a.findings.representative, 0);
    an_analysis_free(&a);
    tb_free(&c);
}

/* ---- spin_loop: a polling loop is not the main loop ---- */
static const tb_row sprog[] = {
    {"; k", 0},
    {"global_load_dword v1, v[2:3], off sc1", 0},    /* poll head */
    {"s_waitcnt vmcnt(0)", 8},
    {"v_cmp_eq_u32_e32 vcc, 0, v1", 12},
    {"s_cbranch_vccnz 65531", 16},                     /* back to vaddr 0 */
    {"global_load_dword v4, v[2:3], off", 20},         /* work loop head */
    {"s_waitcnt vmcnt(0)", 28},
    {"v_add_f32_e32 v4, v4, v4", 32},
    {"global_store_dword v[2:3], v4, off", 36},
    {"s_add_u32 s8, s8, 1", 44},
    {"s_cmp_lt_u32 s8, 4", 48},
    {"s_cbranch_scc1 65528", 52},                      /* back to vaddr 20 */
    {"s_endpgm", 56},
};

static void spin(void)
{
    uint32_t pr[64];
    size_t n = 0;
    for (int i = 0; i < 6; i++)
        for (uint32_t r = 1; r <= 4; r++)
            pr[n++] = r;
    for (int i = 0; i < 2; i++)
        for (uint32_t r = 5; r <= 11; r++)
            pr[n++] = r;
    pr[n++] = 12;
    uint32_t st[13] = {0};
    st[2] = 200;       /* the poll's wait: 6 × 200 */
    st[6] = 100;       /* the work loop's wait: 2 × 100 */
    path p[2] = {{pr, n}, {pr, n}};
    kr_capture c;
    build(&c, sprog, 13, p, 2, st);
    an_analysis a = run(&c);
    T_EQ_U64(a.phases.nloops, 2);
    const an_rule *f = fired(&a, "spin_loop");
    T_CHECK(f != NULL);
    if (f) {
        T_EQ_U64(f->rows[0], 1);
        T_NEAR(f->figs[2].value, 12, 0);      /* 6 iterations on each of 2 waves */
    }
    /* the polling loop holds the most time, yet the work loop is the main one */
    T_CHECK(a.phases.main_loop != AN_PHASE_NONE && a.phases.loops[a.phases.main_loop].head == 5);
    T_CHECK(a.findings.navoid >= 1);
    an_analysis_free(&a);
    tb_free(&c);

    /* silent: the same loop shape storing what it loads is work, not a poll */
    static tb_row w[13];
    memcpy(w, sprog, sizeof w);
    w[3] = (tb_row){"global_store_dword v[2:3], v1, off", 12};
    build(&c, w, 13, p, 2, st);
    a = run(&c);
    T_CHECK(fired(&a, "spin_loop") == NULL);
    T_CHECK(a.phases.main_loop != AN_PHASE_NONE && a.phases.loops[a.phases.main_loop].head == 1);
    an_analysis_free(&a);
    tb_free(&c);

    /* silent: a load-and-accumulate loop whose compare tests the result */
    memcpy(w, sprog, sizeof w);
    w[2] = (tb_row){"v_add_f32_e32 v5, v5, v1", 8};
    build(&c, w, 13, p, 2, st);
    a = run(&c);
    T_CHECK(fired(&a, "spin_loop") == NULL);
    T_CHECK(a.phases.main_loop != AN_PHASE_NONE && a.phases.loops[a.phases.main_loop].head == 1);
    an_analysis_free(&a);
    tb_free(&c);
}

/* ---- source_collapse ---- */
static void collapse(void)
{
    enum { N = 122 };
    static tb_row prog[N];
    static uint32_t pr[N];
    prog[0] = (tb_row){"; k", 0};
    for (int i = 1; i < N; i++) {
        prog[i] = (tb_row){i == N - 1 ? "s_endpgm" : "v_add_f32_e32 v1, v1, v1", (uint64_t)(4 * i)};
        pr[i - 1] = (uint32_t)i;
    }
    uint32_t st[N] = {0};
    path p[1] = {{pr, N - 1}};
    static kr_frame frames[N];
    for (int round = 0; round < 2; round++) {
        kr_capture c;
        build(&c, prog, N, p, 1, st);
        for (int i = 1; i < N; i++) {
            /* round 0: every row on line 10 but two; round 1: ten lines alike */
            uint32_t line = round == 0 ? (i <= 2 ? 11u : 10u) : (uint32_t)(10 + i % 10);
            frames[i] = (kr_frame){"k.py", line, -1};
            c.rows[i].frames = &frames[i];
            c.rows[i].nframes = 1;
            c.rows[i].source = "k.py";
        }
        an_analysis a = run(&c);
        const an_rule *f = fired(&a, "source_collapse");
        if (round == 0) {
            T_CHECK(f != NULL);
            if (f)
                T_NEAR(f->figs[0].value, 119.0 / 121.0, 1e-9);
        } else {
            T_CHECK(f == NULL);
        }
        an_analysis_free(&a);
        tb_free(&c);
    }
}

/* ---- unknown_pc and sums_mismatch ---- */
static void inputs(void)
{
    path p[1] = {{kpath, 6}};
    uint32_t st[7] = {0};
    kr_capture c;
    build(&c, kprog, 7, p, 1, st);
    an_analysis a = run(&c);
    T_CHECK(fired(&a, "unknown_pc") == NULL);
    T_CHECK(fired(&a, "sums_mismatch") == NULL);
    an_analysis_free(&a);
    c.waves[0].insts[2].line = 0;               /* a record naming no row */
    c.waves[0].insts[2].row = KR_ROW_NONE;
    c.rows[2].hit--;                            /* code.json agrees */
    a = run(&c);
    const an_rule *f = fired(&a, "unknown_pc");
    T_CHECK(f != NULL);
    if (f)
        T_NEAR(f->figs[0].value, 1, 0);
    T_CHECK(fired(&a, "sums_mismatch") == NULL);
    an_analysis_free(&a);
    c.rows[3].hit += 5;                         /* code.json no longer the records' sum */
    a = run(&c);
    f = fired(&a, "sums_mismatch");
    T_CHECK(f != NULL);
    if (f) {
        T_NEAR(f->figs[0].value, 10, 0);        /* 5 rows hit once, one once more + 5 */
        T_NEAR(f->figs[1].value, 5, 0);
    }
    T_EQ_U64(a.findings.representative, 0);
    an_analysis_free(&a);
    tb_free(&c);
}

/* ---- dispatch_time_outlier and grid_underfill (kernel trace, agent) ---- */
static void trace(void)
{
    path p[1] = {{kpath, 6}};
    uint32_t st[7] = {0, 0, 100, 0, 100, 0, 0};
    static kr_dispatch kt[5];
    static kr_kernel_trace trace;
    static kr_agent ag[1];
    static kr_agent_info ai;
    for (int round = 0; round < 2; round++) {
        kr_capture c;
        build(&c, kprog, 7, p, 1, st);
        c.name_matched = 1;
        c.dispatch_id = 3;
        uint32_t grid = round == 0 ? 256 : 64 * 4096;    /* 4 workgroups, or 4096 */
        for (int i = 0; i < 5; i++) {
            uint64_t dur = i == 2 ? (round == 0 ? 5000 : 1100) : 1000;
            kt[i] = (kr_dispatch){.dispatch_id = (uint64_t)i + 1, .kernel_name = "k", .start_ns = 1000000u * (uint64_t)i,
                                  .end_ns = 1000000u * (uint64_t)i + dur, .lds_bytes = 0, .scratch_bytes = 0,
                                  .vgpr = 8, .accum_vgpr = 0, .sgpr = 16, .wg = {64, 1, 1}, .grid = {grid, 1, 1}};
        }
        trace = (kr_kernel_trace){.path = "kernel_trace.csv", .rows = kt, .nrows = 5};
        ag[0] = (kr_agent){.type = 2, .name = "gfx950", .gfx_target_version = 90500, .cu_count = 8,
                           .simd_per_cu = 4, .max_waves_per_simd = 8, .wave_front_size = 64, .lds_size_in_kb = 160};
        ai = (kr_agent_info){.path = "agent_info.csv", .agents = ag, .nagents = 1};
        c.kernel_trace = &trace;
        c.agent_info = &ai;
        an_analysis a = run(&c);
        const an_rule *o = fired(&a, "dispatch_time_outlier"), *g = fired(&a, "grid_underfill");
        if (round == 0) {
            /* 5000 ns vs the median 1000 of 5 dispatches of the same grid */
            T_CHECK(o != NULL);
            if (o)
                T_NEAR(o->figs[0].value, 5.0, 1e-12);
            T_EQ_U64(a.roofline.time_ns, 1000);
            T_EQ_U64(a.roofline.time_outlier, 1);
            /* 4 workgroups on 8 CUs: half the CUs idle */
            T_CHECK(g != NULL);
            if (g) {
                T_EQ_STR(g->severity, "warning");
                T_NEAR(g->figs[1].value, 4, 0);
                T_NEAR(g->figs[2].value, 8, 0);
            }
            /* and the summary says not to cut registers */
            int said = 0;
            for (size_t i = 0; i < a.findings.navoid; i++)
                said |= strstr(a.findings.avoid[i], "cut registers") != NULL;
            T_CHECK(said);
            for (size_t i = 0; i < a.advice.n; i++)
                T_CHECK(strcmp(a.advice.items[i].id, "occupancy") != 0);
        } else {
            T_CHECK(o == NULL);                  /* 1100 / 1000 < 1.5 */
            T_EQ_U64(a.roofline.time_ns, 1100);
            T_CHECK(g == NULL);
        }
        an_analysis_free(&a);
        tb_free(&c);
    }
}

int main(void)
{
    kernarg();
    kernarg_other_base();
    dead_loop();
    crosslane();
    nop();
    narrow();
    early();
    spin();
    collapse();
    inputs();
    trace();
    return t_done("test_an_findings");
}
