/* test_validate.c — the docs/validate.md checks of analyzer/validate.c on a hand-built
 * capture that is consistent by construction (every figure worked out below),
 * then one defect per case, asserting the exact check id and severity; plus
 * the helpers (ISA marks docs/occupancy.md#register-counts, span docs/formats.md#se-alignment, target docs/occupancy.md#target-detection) and the real
 * captures (no error, warnings only V-18a / V-21, as docs/validate.md says). */
#include <stdint.h>

#include "analyzer/validate.h"
#include "analyzer/wstates_calc.h"
#include "bundle/capture.h"
#include "tests/unit/t.h"

/* ---- the consistent fixture ----
 *
 * Kernel "k" (label LineNumber 0, Codeobj 1, Vaddr 256):
 *   1 s_load_dword s0, s[0:1], 0x0   SMEM     vaddr 256
 *   2 s_waitcnt lgkmcnt(0)           WAITCNT  vaddr 264
 *   3 v_add_f32_e32 v1, v2, v3       VALU     vaddr 268
 *   4 s_endpgm                       MESSAGE  vaddr 272
 * Wave A: SE0 simd 0 slot 0, begin 1000, end 1176; wave B: SE0 simd 1 slot 0,
 * the same records shifted by +8 (begin 1008, end 1184). Records of A
 * [time, cat, stall, dur, line]:
 *   [1020, 1, 0, 4, 1]     idle 20 (1020 - begin), done 1024
 *   [1024, 9, 40, 40, 2]   idle 0, done 1064
 *   [1064, 6, 0, 8, 3]     idle 0, done 1072
 *   [1076, 11, 0, 100, 4]  idle 4 (1076 - 1072), done 1176 = end
 * So per row over both waves (docs/formats.md#per-row-sums): Hit/Latency/Stall/Idle =
 *   row1 2/8/0/40, row2 2/80/80/0, row3 2/16/0/0, row4 2/200/0/8.
 * Timeline of A: [1,20] [2,4] [3,40] [2,8] [2,4] [3,100]: sum 176 = end - begin;
 * IDLE = first record - begin; WAIT 140 = 40 (IMMED) + 100 (MESSAGE).
 * waitcnt of each wave: s_load pushes 1 (lgkm PARALLEL), lgkmcnt(0) releases
 * it: [[2, [1]]].
 * wstates (docs/formats.md#wave-state-curves) over A and B, worked by hand:
 *   1: time 1000 1008 1020 1028, state 1 2 1 0
 *   2: time 1020 1024 1028 1032 1064 1072 1076 1080 1084, state 1 0 1 0 1 2 1 1 0
 *      (at 1072: A ends one EXEC entry and starts the next, B starts: 2)
 *   3: time 1024 1032 1064 1072 1076 1084 1176 1184, state 1 2 1 0 1 2 1 0
 * Occupancy SE0: target CU 1 pairs (1000,1176) simd 0 and (1008,1184) simd 1,
 * plus CU 2 simd 1 (1010,1100). Realtime SE0 [[900,10000],[2900,11000]] at
 * 100 MHz: 2000 cycles in 10 us = 200 MHz. Results: GPU agent 7 gfx950 with
 * max clock 200 MHz; symbol code object 1, kernel_object 1000 - load_delta
 * 800 + entry offset 56 = 256 = the label's Vaddr; arch_vgpr_count 4 = the
 * ISA mark (v1..v3 -> 4), so no under-report. */

typedef struct fx {
    kr_capture c;
    kr_code_row rows[5];
    int32_t map[5];
    kr_wave_ref refs[2];
    kr_wave waves[2];
    kr_inst insts[2][4];
    kr_tl tl[2][6];
    kr_wait_entry waits[2][1];
    uint32_t prod[2][1];
    uint64_t ws_time[3][9];
    int64_t ws_count[3][9];
    kr_occ_row occ_rows[6];
    kr_occ_se occ_se[1];
    kr_occ_dispatch disp[2];
    kr_rt_sample rt_samples[2];
    kr_rt_se rt_se[1];
    kr_results results;
    kr_process proc;
    kr_agent agent;
    kr_kernel_symbol sym;
    kr_code_object co;
} fx;

static void fx_init(fx *f)
{
    memset(f, 0, sizeof *f);
    kr_capture *c = &f->c;
    c->dir = "/tmp/ui_output_agent_7_dispatch_3";
    c->folder = "ui_output_agent_7_dispatch_3";
    c->name_matched = 1;
    c->agent_handle = 7;
    c->dispatch_id = 3;
    c->suffix = "";
    c->version = "3.0.0";
    c->gfxip = 9;
    c->gfxv = "vega";
    c->layout = KR_LAYOUT_10;
    c->code_version = "3.0.0";

    static const char *const isa[5] = {"; k", "s_load_dword s0, s[0:1], 0x0", "s_waitcnt lgkmcnt(0)",
                                       "v_add_f32_e32 v1, v2, v3", "s_endpgm"};
    static const char *const mn[5] = {"; k", "s_load_dword", "s_waitcnt", "v_add_f32_e32", "s_endpgm"};
    static const kr_class cls[5] = {KR_CLASS_LABEL, KR_CLASS_SMEM, KR_CLASS_WAITCNT, KR_CLASS_VALU,
                                    KR_CLASS_MESSAGE};
    static const uint64_t vaddr[5] = {256, 256, 264, 268, 272};
    static const uint64_t sums[5][4] = {{0, 0, 0, 0}, {2, 8, 0, 40}, {2, 80, 80, 0}, {2, 16, 0, 0}, {2, 200, 0, 8}};
    for (int i = 0; i < 5; i++) {
        kr_code_row *r = &f->rows[i];
        r->isa = isa[i];
        r->mnemonic = mn[i];
        r->source = "";
        r->line = (uint32_t)i;
        r->kernel = 0;
        r->codeobj = 1;
        r->vaddr = vaddr[i];
        r->hit = sums[i][0];
        r->latency = sums[i][1];
        r->stall = sums[i][2];
        r->idle = sums[i][3];
        r->cls = cls[i];
        r->is_label = i == 0;
        f->map[i] = i;
    }
    c->rows = f->rows;
    c->nrows = 5;
    c->line_to_row = f->map;
    c->nline_map = 5;

    static const uint64_t t0[4] = {1020, 1024, 1064, 1076};
    static const uint8_t cat[4] = {1, 9, 6, 11};
    static const uint32_t stall[4] = {0, 40, 0, 0}, dur[4] = {4, 40, 8, 100};
    static const uint8_t st[6] = {1, 2, 3, 2, 2, 3};
    static const uint64_t cy[6] = {20, 4, 40, 8, 4, 100};
    static const char *const files[2] = {"se0_sm0_sl0_wv0.json", "se0_sm1_sl0_wv0.json"};
    for (int w = 0; w < 2; w++) {
        uint64_t shift = 8 * (uint64_t)w;
        kr_wave *wv = &f->waves[w];
        f->refs[w] = (kr_wave_ref){0, (uint32_t)w, 0, 0, files[w], 1000 + shift, 1176 + shift};
        wv->file = files[w];
        wv->name = "SE0";
        wv->se = 0;
        wv->simd = (uint32_t)w;
        wv->cu = 1;
        wv->begin = 1000 + shift;
        wv->end = 1176 + shift;
        wv->duration = 176;
        wv->num_insts = wv->num_stitched = 4;
        for (int i = 0; i < 4; i++)
            f->insts[w][i] = (kr_inst){t0[i] + shift, (uint32_t)(i + 1), (uint32_t)(i + 1), dur[i], stall[i], cat[i]};
        wv->insts = f->insts[w];
        wv->ninsts = 4;
        for (int i = 0; i < 6; i++)
            f->tl[w][i] = (kr_tl){cy[i], st[i]};
        wv->timeline = f->tl[w];
        wv->ntimeline = 6;
        f->waits[w][0] = (kr_wait_entry){2, 0, 1};
        f->prod[w][0] = 1;
        wv->waits = f->waits[w];
        wv->nwaits = 1;
        wv->producers = f->prod[w];
        wv->nproducers = 1;
        wv->has_waitcnt = 1;
    }
    c->wave_refs = f->refs;
    c->nwave_refs = 2;
    c->waves = f->waves;
    c->nwaves = 2;

    static const uint64_t wt[3][9] = {{1000, 1008, 1020, 1028},
                                      {1020, 1024, 1028, 1032, 1064, 1072, 1076, 1080, 1084},
                                      {1024, 1032, 1064, 1072, 1076, 1084, 1176, 1184}};
    static const int64_t wc[3][9] = {{1, 2, 1, 0}, {1, 0, 1, 0, 1, 2, 1, 1, 0}, {1, 2, 1, 0, 1, 2, 1, 0}};
    static const size_t wn[3] = {4, 9, 8};
    static const char *const wname[3] = {"wstates1.json", "wstates2.json", "wstates3.json"};
    for (int k = 0; k < 3; k++) {
        memcpy(f->ws_time[k], wt[k], sizeof wt[k]);
        memcpy(f->ws_count[k], wc[k], sizeof wc[k]);
        c->wstates[k + 1] = (kr_wstates){1, wname[k], f->ws_time[k], f->ws_count[k], wn[k]};
    }

    static const kr_occ_row occ[6] = {{1000, 1, 0, 0, 1, 1}, {1008, 1, 1, 0, 1, 1}, {1010, 2, 1, 0, 1, 1},
                                      {1100, 2, 1, 0, 0, 1}, {1176, 1, 0, 0, 0, 1}, {1184, 1, 1, 0, 0, 1}};
    memcpy(f->occ_rows, occ, sizeof occ);
    f->occ_se[0] = (kr_occ_se){0, f->occ_rows, 6};
    f->disp[0] = (kr_occ_dispatch){0, "0 / 0x0"};
    f->disp[1] = (kr_occ_dispatch){1, "k"};
    c->occupancy = (kr_occupancy){1, "3.0.0", 6, f->occ_se, 1, f->disp, 2};

    f->rt_samples[0] = (kr_rt_sample){900, 10000};
    f->rt_samples[1] = (kr_rt_sample){2900, 11000};
    f->rt_se[0] = (kr_rt_se){0, f->rt_samples, 2};
    c->realtime.present = 1;
    c->realtime.ses = f->rt_se;
    c->realtime.nses = 1;
    c->realtime.frequency = 100000000;
    c->realtime.clock_hz = 2e8;
    c->realtime.aligned = 1;

    f->agent.handle = 7;
    f->agent.type = 2;
    f->agent.name = "gfx950";
    f->agent.max_engine_clk_fcompute = 200;
    f->co = (kr_code_object){1, 7, "memory://1", 0, 0, 800};
    f->sym.kernel_id = 5;
    f->sym.code_object_id = 1;
    f->sym.kernel_name = "k.kd";
    f->sym.kernel_object = 1000;
    f->sym.kernel_code_entry_byte_offset = 56;
    f->sym.arch_vgpr_count = 4;
    f->sym.accum_vgpr_count = 0;
    f->sym.sgpr_count = 16;
    f->proc.agents = &f->agent;
    f->proc.nagents = 1;
    f->proc.symbols = &f->sym;
    f->proc.nsymbols = 1;
    f->proc.code_objects = &f->co;
    f->proc.ncode_objects = 1;
    f->results.path = "out_results.json";
    f->results.procs = &f->proc;
    f->results.nprocs = 1;
    c->results = &f->results;
}

/* Number of listed findings with this id and severity. */
static size_t count(const an_validation *v, const char *id, an_severity sev)
{
    size_t n = 0;
    for (size_t i = 0; i < v->nfindings; i++)
        if (strcmp(v->findings[i].id, id) == 0 && v->findings[i].severity == sev && !v->findings[i].summary)
            n++;
    return n;
}

/* 1 if some listed finding with id/sev has a message containing text. */
static int says(const an_validation *v, const char *id, an_severity sev, const char *text)
{
    for (size_t i = 0; i < v->nfindings; i++)
        if (strcmp(v->findings[i].id, id) == 0 && v->findings[i].severity == sev &&
            strstr(v->findings[i].message, text))
            return 1;
    return 0;
}

static void run(fx *f, an_validation *v)
{
    T_EQ_I64(an_validate(&f->c, NULL, v), 0);
}

/* Prints the findings when a case fails, to see why. */
static void dump(const an_validation *v)
{
    for (size_t i = 0; i < v->nfindings; i++)
        fprintf(stderr, "  %s %s %s: %s\n", an_severity_name(v->findings[i].severity), v->findings[i].id,
                v->findings[i].location, v->findings[i].message);
}

/* Runs the checks and asserts that id/sev was found with a message
 * containing text; dumps the findings when not. */
static void expect_at(fx *f, const char *id, an_severity sev, const char *text, int line)
{
    an_validation v;
    run(f, &v);
    int ok = count(&v, id, sev) >= 1 && says(&v, id, sev, text);
    T_CHECK(ok);
    if (!ok) {
        fprintf(stderr, "line %d: expected %s %s \"%s\"; got:\n", line, an_severity_name(sev), id, text);
        dump(&v);
    }
    an_validation_free(&v);
}
#define EXPECT(f, id, sev, text) expect_at((f), (id), (sev), (text), __LINE__)

static void test_clean(void)
{
    fx f;
    fx_init(&f);
    an_validation v;
    run(&f, &v);
    /* Only the always-present V-6a mapping note. */
    T_EQ_U64(v.errors, 0);
    T_EQ_U64(v.warnings, 0);
    T_EQ_U64(v.infos, 1);
    T_EQ_U64(v.nfindings, 1);
    T_CHECK(says(&v, "V-6a", AN_SEV_INFO, "source mapping 0/4"));
    if (v.nfindings != 1)
        dump(&v);
    an_validation_free(&v);

    /* The wstates the fixture stores are what docs/formats.md#wave-state-curves recomputes. */
    an_wstates_curve cur[KR_STATE_COUNT];
    T_EQ_I64(an_wstates_compute(&f.c, cur), 0);
    T_EQ_U64(cur[0].n, 0);
    T_EQ_U64(cur[4].n, 0);
    for (int k = 1; k <= 3; k++) {
        T_EQ_U64(cur[k].n, f.c.wstates[k].n);
        for (size_t i = 0; i < cur[k].n && i < f.c.wstates[k].n; i++) {
            T_EQ_U64(cur[k].time[i], f.c.wstates[k].time[i]);
            T_EQ_I64(cur[k].count[i], f.c.wstates[k].count[i]);
        }
    }
    an_wstates_free(cur);
}

static void test_folder(void)
{
    fx f;
    fx_init(&f);
    f.c.nwaves = f.c.nwave_refs = 0;
    f.c.wave_filenames_null = 1;
    EXPECT(&f, "V-1", AN_SEV_INFO, "empty shell");

    fx_init(&f);
    const char *extra1[] = {"notes.txt"};
    f.c.extra_files = extra1;
    f.c.nextra_files = 1;
    EXPECT(&f, "V-1", AN_SEV_INFO, "not described");

    fx_init(&f);
    f.refs[0].file = "se0_sm0_sl0_wv9.json";
    EXPECT(&f, "V-2", AN_SEV_ERROR, "does not match its keys");
    fx_init(&f);
    f.refs[1].file = f.refs[0].file;   /* one file under two keys */
    f.waves[1].file = f.waves[0].file;
    EXPECT(&f, "V-2", AN_SEV_ERROR, "listed twice");
    fx_init(&f);
    f.waves[1].name = "SE1";
    EXPECT(&f, "V-2", AN_SEV_ERROR, "name \"SE1\"");
    fx_init(&f);
    f.waves[1].slot = 3;
    EXPECT(&f, "V-2", AN_SEV_ERROR, "simd/slot/id");
    fx_init(&f);
    f.refs[1].end = 1180;
    EXPECT(&f, "V-2", AN_SEV_ERROR, "begin/end");
    fx_init(&f);
    const char *extra2[] = {"se0_sm2_sl0_wv0.json"};
    f.c.extra_files = extra2;
    f.c.nextra_files = 1;
    EXPECT(&f, "V-2", AN_SEV_ERROR, "not listed");

    fx_init(&f);
    f.c.code_version = "2.0.0";
    EXPECT(&f, "V-2a", AN_SEV_WARNING, "\"2.0.0\"");
    fx_init(&f);
    f.c.occupancy.version = NULL;
    EXPECT(&f, "V-2a", AN_SEV_WARNING, "(absent)");
    fx_init(&f);
    f.waves[1].cu = 2;
    EXPECT(&f, "V-2b", AN_SEV_WARNING, "cu 2 != 1");
}

static void test_code(void)
{
    fx f;
    fx_init(&f);
    f.rows[2].latency = 70;   /* Stall 80 > Latency 70 */
    EXPECT(&f, "V-4", AN_SEV_ERROR, "Stall 80 > Latency 70");
    fx_init(&f);
    f.rows[3].hit = 0;
    EXPECT(&f, "V-4", AN_SEV_ERROR, "Hit 0");
    fx_init(&f);
    f.rows[3].zero_col = 1;
    EXPECT(&f, "V-4", AN_SEV_ERROR, "column _ is 1");
    fx_init(&f);
    f.rows[1].idle = 42;
    EXPECT(&f, "V-4a", AN_SEV_INFO, "multiples of 4");

    fx_init(&f);
    kr_frame fr = {"kernel.py", 0, -1};
    f.rows[3].source = "kernel.py";
    f.rows[3].frames = &fr;
    f.rows[3].nframes = 1;
    EXPECT(&f, "V-5", AN_SEV_WARNING, "no :line");
    EXPECT(&f, "V-6a", AN_SEV_INFO, "no snapshots.json");

    fx_init(&f);
    f.rows[3].line = 2;       /* two rows with LineNumber 2 */
    EXPECT(&f, "V-6", AN_SEV_ERROR, "LineNumber 2 also used by row 2");
    EXPECT(&f, "V-6", AN_SEV_WARNING, "not above");
    fx_init(&f);
    f.rows[3].vaddr = 270;    /* step 2 */
    EXPECT(&f, "V-6", AN_SEV_WARNING, "step not 4, 8, 12 or 16");
    fx_init(&f);
    f.rows[0].is_label = 0;   /* no label before the instructions */
    f.rows[0].isa = f.rows[0].mnemonic = "s_nop";
    f.rows[0].cls = KR_CLASS_NOP;
    EXPECT(&f, "V-6", AN_SEV_WARNING, "before any label");

    /* V-7: snapshots */
    fx_init(&f);
    kr_snapshot snaps[2];
    memset(snaps, 0, sizeof snaps);
    static const char *lines[3] = {"a\n", "b\n", "c\n"};
    snaps[0] = (kr_snapshot){"/src/kernel.py", "../evil.py", 0, 0, NULL, 0, NULL, 0, "leaf is not a plain file name"};
    snaps[1] = (kr_snapshot){"/src/ok.py", "source_1_ok.py", 1, 1, "a\nb\nc\n", 6, lines, 3, NULL};
    f.c.snapshots = snaps;
    f.c.nsnapshots = 2;
    f.c.has_snapshots_json = 1;
    EXPECT(&f, "V-7", AN_SEV_ERROR, "unsafe leaf");
    snaps[0].safe = 1;
    snaps[0].leaf = "source_0_kernel.py";
    snaps[0].problem = "missing";
    EXPECT(&f, "V-7", AN_SEV_WARNING, "not readable");
    EXPECT(&f, "V-6a", AN_SEV_INFO, "yet snapshots.json lists 2");
    kr_frame fr2[2] = {{"/src/ok.py", 9, 1}, {"/src/other.py", 1, -1}};
    f.rows[3].source = "/src/ok.py:9 -> /src/other.py:1";
    f.rows[3].frames = fr2;
    f.rows[3].nframes = 2;
    EXPECT(&f, "V-7", AN_SEV_WARNING, "beyond the 3 lines");
    EXPECT(&f, "V-7", AN_SEV_WARNING, "does not resolve");
}

static void test_records(void)
{
    fx f;
    fx_init(&f);
    f.insts[0][2].line = 0;
    EXPECT(&f, "V-8", AN_SEV_WARNING, "unknown PC");
    fx_init(&f);
    f.insts[0][2].line = 99;
    EXPECT(&f, "V-8", AN_SEV_ERROR, "names no code.json row");
    fx_init(&f);
    f.rows[0].line = 5;       /* a label row that records can name */
    int32_t map6[6] = {-1, 1, 2, 3, 4, 0};
    f.c.line_to_row = map6;
    f.c.nline_map = 6;
    f.insts[0][2].line = 5;
    EXPECT(&f, "V-8", AN_SEV_ERROR, "names a label row");

    fx_init(&f);
    f.insts[0][1].stall = 44;
    EXPECT(&f, "V-8a", AN_SEV_ERROR, "stall 44 > duration 40");
    fx_init(&f);
    f.insts[0][2].cat = 13;
    EXPECT(&f, "V-8a", AN_SEV_ERROR, "category 13");
    fx_init(&f);
    f.insts[0][2].dur = 0;
    EXPECT(&f, "V-8a", AN_SEV_WARNING, "duration 0");

    fx_init(&f);
    f.insts[0][0].time = 996;
    EXPECT(&f, "V-8b", AN_SEV_WARNING, "before begin");
    fx_init(&f);
    f.insts[0][2].time = 1024;
    EXPECT(&f, "V-8b", AN_SEV_WARNING, "not after");
    fx_init(&f);
    f.insts[0][2].time = 1060;   /* previous issued at 1024 + 40 = 1064 */
    EXPECT(&f, "V-8b", AN_SEV_WARNING, "before the previous record issued");
    fx_init(&f);
    f.insts[0][1].stall = 36;
    EXPECT(&f, "V-8c", AN_SEV_WARNING, "stall 36 != duration 40");

    fx_init(&f);
    f.waves[0].duration = 170;
    EXPECT(&f, "V-8d", AN_SEV_ERROR, "duration 170");
    fx_init(&f);
    f.waves[0].num_stitched = 5;
    EXPECT(&f, "V-8d", AN_SEV_ERROR, "num_stitched 5");
    fx_init(&f);
    f.waves[0].end = f.refs[0].end = 1000;
    EXPECT(&f, "V-8d", AN_SEV_ERROR, "not before end");

    fx_init(&f);
    f.insts[0][3].line = 3;   /* last record is v_add */
    f.insts[0][3].cat = 6;
    EXPECT(&f, "V-9", AN_SEV_WARNING, "not s_endpgm");
    fx_init(&f);
    f.waves[0].end = f.refs[0].end = 1168;   /* completion 1176 - 1168 = 8 */
    f.waves[0].duration = 168;
    EXPECT(&f, "V-9", AN_SEV_WARNING, "= 8, outside [0, 4]");

    fx_init(&f);
    f.rows[1].hit = 3;
    EXPECT(&f, "V-10", AN_SEV_ERROR, "Hit 3 != 2 recomputed from wave files");
    fx_init(&f);
    f.rows[4].idle = 12;
    EXPECT(&f, "V-10", AN_SEV_ERROR, "Idle 12 != 8");
    fx_init(&f);
    f.waves[1].ninsts = 3;    /* the s_endpgm record of B is lost */
    EXPECT(&f, "V-10", AN_SEV_ERROR, "sum of Hit 8 != 7 wave records");

    fx_init(&f);
    f.insts[0][1].cat = 2;    /* s_waitcnt traced as SALU */
    EXPECT(&f, "V-17", AN_SEV_WARNING, "category SALU not allowed for s_waitcnt");
}

static void test_timeline(void)
{
    fx f;
    fx_init(&f);
    f.tl[0][3].state = 7;
    EXPECT(&f, "V-11", AN_SEV_ERROR, "state 7");
    fx_init(&f);
    f.tl[0][3].cycles = 0;
    f.tl[0][4].cycles = 12;
    /* A duration of 0 is information, not an error (docs/validate.md V-11): the capture stays valid. */
    EXPECT(&f, "V-11", AN_SEV_INFO, "1 timeline entry of duration 0");
    {
        an_validation v;
        run(&f, &v);
        T_EQ_U64(count(&v, "V-11", AN_SEV_ERROR), 0);
        T_EQ_U64(v.errors, 0);
        an_validation_free(&v);
    }
    fx_init(&f);
    f.tl[0][5].cycles = 96;   /* sum 172 != 176 */
    EXPECT(&f, "V-11", AN_SEV_WARNING, "sum 172 != last completion - begin = 176");
    /* Overshoot: the wave ends 4 cycles before the last completion. */
    fx_init(&f);
    f.waves[0].end = f.refs[0].end = 1172;
    f.waves[0].duration = 172;
    f.occ_rows[4].time = 1172;
    {
        an_validation v;
        run(&f, &v);
        T_EQ_U64(count(&v, "V-11", AN_SEV_INFO), 1);
        T_EQ_U64(count(&v, "V-11", AN_SEV_WARNING), 0);
        T_EQ_U64(v.errors, 0);
        T_EQ_U64(v.warnings, 0);
        an_validation_free(&v);
    }
    fx_init(&f);
    f.waves[0].end = f.refs[0].end = 1168;
    f.waves[0].duration = 168;
    f.occ_rows[4].time = 1168;
    EXPECT(&f, "V-11", AN_SEV_WARNING, "by 8 cycles");

    fx_init(&f);
    f.tl[0][0].state = 2;
    EXPECT(&f, "V-11a", AN_SEV_INFO, "first entry [2, 20]");
    fx_init(&f);
    f.tl[0][2].state = 4;     /* 40 cycles of WAIT become STALL */
    EXPECT(&f, "V-11a", AN_SEV_INFO, "WAIT 100 != sum of IMMED and MESSAGE record durations 140");
}

static void test_waitcnt(void)
{
    fx f;
    fx_init(&f);
    f.prod[1][0] = 3;
    EXPECT(&f, "V-12", AN_SEV_WARNING, "stored [2, [3]] != recomputed [2, [1]]");
    EXPECT(&f, "V-12", AN_SEV_WARNING, "producer 3 is v_add_f32_e32");
    fx_init(&f);
    f.waves[1].nwaits = 0;
    f.waves[1].nproducers = 0;
    f.waves[1].has_waitcnt = 0;
    EXPECT(&f, "V-12", AN_SEV_WARNING, "stored (none) != recomputed [2, [1]]");
    fx_init(&f);
    f.waits[0][0].wait_line = 3;
    EXPECT(&f, "V-12", AN_SEV_WARNING, "waitcnt_line 3 is v_add_f32_e32");
    fx_init(&f);
    f.waves[0].waitcnt_nonzero_lanes = 1;
    EXPECT(&f, "V-12", AN_SEV_WARNING, "second element other than 0");
}

static void test_wstates(void)
{
    fx f;
    fx_init(&f);
    f.ws_count[1][5] = 1;
    EXPECT(&f, "V-13", AN_SEV_WARNING, "step (1072, 1) != (1072, 2)");
    fx_init(&f);
    f.c.wstates[3].present = 0;
    EXPECT(&f, "V-13", AN_SEV_WARNING, "missing: state 3 (WAIT)");
    fx_init(&f);
    f.c.wstates[4] = f.c.wstates[3];
    f.c.wstates[4].name = "wstates4.json";
    EXPECT(&f, "V-13", AN_SEV_WARNING, "never occurs");
    fx_init(&f);
    f.c.wstates[1].name = "wstates9.json";
    EXPECT(&f, "V-13", AN_SEV_WARNING, "name \"wstates9.json\"");
    fx_init(&f);
    f.ws_count[0][3] = 1;
    EXPECT(&f, "V-13", AN_SEV_WARNING, "last value 1");
    fx_init(&f);
    f.c.wstates[1].n = 3;
    EXPECT(&f, "V-13", AN_SEV_WARNING, "3 steps != 4");
}

static void test_occupancy(void)
{
    fx f;
    fx_init(&f);
    f.occ_rows[2].start = 2;
    EXPECT(&f, "V-14", AN_SEV_ERROR, "start 2");
    fx_init(&f);
    f.occ_rows[2].simd = 5;
    f.occ_rows[3].simd = 5;
    EXPECT(&f, "V-14", AN_SEV_ERROR, "simd 5");
    fx_init(&f);
    f.occ_rows[2].kernel_id = 9;
    EXPECT(&f, "V-14", AN_SEV_ERROR, "kernel id 9");

    fx_init(&f);
    f.occ_se[0].nrows = 5;    /* B's end is gone */
    EXPECT(&f, "V-15", AN_SEV_WARNING, "start never ended");
    EXPECT(&f, "V-15", AN_SEV_WARNING, "no occupancy start/end pair (1008, 1184)");
    fx_init(&f);
    f.occ_rows[3].start = 1;  /* CU 2: two starts */
    EXPECT(&f, "V-15", AN_SEV_WARNING, "still open");
    fx_init(&f);
    f.occ_rows[2].start = 0;  /* CU 2: end first */
    EXPECT(&f, "V-15", AN_SEV_WARNING, "end without a start");
    fx_init(&f);
    f.occ_rows[3].time = 1005;   /* CU 2 ends before it starts */
    EXPECT(&f, "V-15", AN_SEV_WARNING, "before its start");
    fx_init(&f);
    f.occ_rows[4].time = 1180;
    EXPECT(&f, "V-15", AN_SEV_WARNING, "matches no wave file");
}

static void test_realtime(void)
{
    fx f;
    fx_init(&f);
    f.c.realtime.frequency = 0;
    EXPECT(&f, "V-16", AN_SEV_WARNING, "frequency absent or 0");
    fx_init(&f);
    f.rt_samples[1].realtime = 9000;
    EXPECT(&f, "V-16", AN_SEV_WARNING, "do not increase together");
    fx_init(&f);
    f.rt_se[0].n = 1;
    EXPECT(&f, "V-16", AN_SEV_WARNING, "1 sample(s)");
    EXPECT(&f, "V-16a", AN_SEV_WARNING, "fewer than 2 samples");
    fx_init(&f);
    f.agent.max_engine_clk_fcompute = 2200;   /* 200 MHz measured */
    EXPECT(&f, "V-16", AN_SEV_WARNING, "200.00 MHz is not within 10 %");
    fx_init(&f);
    f.agent.max_engine_clk_fcompute = 181;    /* 200 is within 10.5 %: outside */
    EXPECT(&f, "V-16", AN_SEV_WARNING, "not within 10 %");
    fx_init(&f);
    f.agent.max_engine_clk_fcompute = 190;    /* within 5.3 %: fine */
    {
        an_validation v;
        run(&f, &v);
        T_EQ_U64(count(&v, "V-16", AN_SEV_WARNING), 0);
        an_validation_free(&v);
    }
    fx_init(&f);
    f.rt_se[0].se = 1;
    EXPECT(&f, "V-16a", AN_SEV_WARNING, "SE0 has waves or occupancy rows but no samples");
    fx_init(&f);
    f.c.realtime.present = 0;
    EXPECT(&f, "V-16a", AN_SEV_INFO, "absent");
}

static void test_results(void)
{
    fx f;
    fx_init(&f);
    f.c.results = NULL;
    EXPECT(&f, "V-18a", AN_SEV_WARNING, "no results.json for this capture");
    fx_init(&f);
    f.agent.handle = 8;
    EXPECT(&f, "V-18a", AN_SEV_WARNING, "no GPU agent with handle 7");
    fx_init(&f);
    f.co.load_delta = 804;
    EXPECT(&f, "V-18a", AN_SEV_WARNING, "joins no kernel symbol");
    fx_init(&f);
    f.c.name_matched = 0;
    EXPECT(&f, "V-18a", AN_SEV_WARNING, "gives no agent handle");

    /* V-21: reported 2 < ISA mark 4, accum 0, gfx950: corrected
     * max(2 * 2, alignTo(4, 8)) = 8. */
    fx_init(&f);
    f.sym.arch_vgpr_count = 2;
    EXPECT(&f, "V-21", AN_SEV_WARNING, "arch_vgpr_count 2 and accum_vgpr_count 0, the ISA uses 4 VGPRs; corrected total 8");
    /* Not on gfx942, not with AGPRs reported. */
    f.agent.name = "gfx942";
    {
        an_validation v;
        run(&f, &v);
        T_EQ_U64(count(&v, "V-21", AN_SEV_WARNING), 0);
        an_validation_free(&v);
    }
    fx_init(&f);
    f.sym.arch_vgpr_count = 2;
    f.sym.accum_vgpr_count = 4;
    {
        an_validation v;
        run(&f, &v);
        T_EQ_U64(count(&v, "V-21", AN_SEV_WARNING), 0);
        an_validation_free(&v);
    }
    /* From a kernel_trace CSV when there is no results.json. */
    fx_init(&f);
    f.c.results = NULL;
    kr_dispatch d;
    memset(&d, 0, sizeof d);
    d.kernel_name = "k";
    d.vgpr = 2;
    d.accum_vgpr = 0;
    d.sgpr = 16;
    kr_kernel_trace kt = {"discover_kernel_trace.csv", 0, KR_AGENT_RELATIVE, &d, 1, 0};
    f.c.kernel_trace = &kt;
    kr_agent csv_agent;
    memset(&csv_agent, 0, sizeof csv_agent);
    csv_agent.type = 2;
    csv_agent.gfx_target_version = 90500;
    kr_agent_info ai = {"small_agent_info.csv", &csv_agent, 1};
    f.c.agent_info = &ai;
    EXPECT(&f, "V-21", AN_SEV_WARNING, "kernel_trace.csv reports arch_vgpr_count 2");
}

static void test_bounded(void)
{
    /* 30 rows with a wrong Hit: 20 listed, one summary line, 30 counted. */
    fx f;
    fx_init(&f);
    kr_code_row rows[31];
    int32_t map[31];
    rows[0] = f.rows[0];
    map[0] = 0;
    for (int i = 1; i <= 30; i++) {
        rows[i] = f.rows[3];
        rows[i].line = (uint32_t)i;
        rows[i].vaddr = 256 + 4 * (uint64_t)(i - 1);
        rows[i].hit = 1;
        rows[i].latency = 4;
        map[i] = i;
    }
    f.c.rows = rows;
    f.c.nrows = 31;
    f.c.line_to_row = map;
    f.c.nline_map = 31;
    f.c.nwaves = f.c.nwave_refs = 0;
    f.c.occupancy.present = 0;
    an_validation v;
    run(&f, &v);
    T_EQ_U64(count(&v, "V-10", AN_SEV_ERROR), 20);
    T_CHECK(says(&v, "V-10", AN_SEV_ERROR, "(10 more not listed)"));
    T_EQ_U64(v.errors, 30);
    /* Findings come in docs/validate.md order. */
    for (size_t i = 1; i < v.nfindings; i++) {
        const char *a = v.findings[i - 1].id, *b = v.findings[i].id;
        T_CHECK(strcmp(a, "V-1") == 0 || strcmp(a, b) == 0 || strcmp(b, "V-1") != 0);
    }
    an_validation_free(&v);
}

static void test_helpers(void)
{
    /* ISA marks (docs/occupancy.md#register-counts): upper bounds of ranges, singles, no mnemonics. */
    fx f;
    fx_init(&f);
    f.rows[3].isa = "v_mfma_f32_32x32x16_bf16 a[0:15], v[240:241], v[2:3], a[16:31]";
    f.rows[1].isa = "s_load_dwordx2 s[8:9], s[0:1], 0x130 ; vcc exec m0 ttmp5";
    an_isa_marks m;
    an_validate_isa_marks(&f.c, 0, &m);
    T_EQ_U64(m.v, 242);
    T_EQ_U64(m.a, 32);
    T_EQ_U64(m.s, 10);
    fx_init(&f);
    an_validate_isa_marks(&f.c, 0, &m);
    T_EQ_U64(m.v, 4);    /* v1, v2, v3 */
    T_EQ_U64(m.s, 2);    /* s0, s[0:1] */
    T_EQ_U64(m.a, 0);

    /* Span (docs/formats.md#se-alignment): wave B moved to SE1, whose offset is -100: raw
     * 1184 - 1000 = 184, aligned max(1176, 1084) - min(1000, 908) = 268. */
    fx_init(&f);
    f.waves[1].se = 1;
    f.c.realtime.se_offset[1] = -100;
    an_span s;
    an_validate_span(&f.c, &s);
    T_EQ_U64(s.raw, 184);
    T_CHECK(s.has_aligned);
    T_EQ_U64(s.aligned, 268);
    T_CHECK(s.has_us);
    T_NEAR(s.clock_mhz, 200.0, 1e-9);
    T_NEAR(s.us, 268.0 / 200.0, 1e-9);
    f.c.realtime.aligned = 0;
    an_validate_span(&f.c, &s);
    T_CHECK(!s.has_aligned);
    T_CHECK(!s.has_us);   /* two SEs, no alignment: no µs */
    f.waves[1].se = 0;
    an_validate_span(&f.c, &s);
    T_CHECK(s.has_us);    /* one SE: the raw span is exact */
    T_NEAR(s.us, 184.0 / 200.0, 1e-9);

    /* Target (docs/occupancy.md#target-detection): override, results agent, CSV, ISA heuristic. */
    fx_init(&f);
    an_target t;
    an_validate_target(&f.c, "gfx942", &t);
    T_EQ_STR(t.name, "gfx942");
    an_validate_target(&f.c, NULL, &t);
    T_EQ_STR(t.name, "gfx950");
    T_EQ_STR(t.source, "results.json agent 7");
    f.c.results = NULL;
    kr_agent rows[2];
    memset(rows, 0, sizeof rows);
    rows[0].type = 1;
    rows[0].name = "cpu";
    rows[1].type = 2;
    rows[1].gfx_target_version = 90402;
    kr_agent_info ai = {"/x/big_agent_info.csv", rows, 2};
    f.c.agent_info = &ai;
    an_validate_target(&f.c, NULL, &t);
    T_EQ_STR(t.name, "gfx942");
    T_EQ_STR(t.source, "big_agent_info.csv");
    f.c.agent_info = NULL;
    an_validate_target(&f.c, NULL, &t);
    T_CHECK(t.name == NULL);
    T_EQ_STR(t.source, "unknown gfx9 target");
    f.rows[3].mnemonic = "v_mfma_scale_f32_16x16x128_f8f6f4";
    an_validate_target(&f.c, NULL, &t);
    T_EQ_STR(t.name, "gfx950");

    T_EQ_STR(an_label_name(&f.rows[0]), "k");
}

typedef struct names { char v[8][64]; int n; } names;
static void collect(void *ctx, const char *name)
{
    names *n = ctx;
    if (n->n < 8)
        snprintf(n->v[n->n++], sizeof n->v[0], "%s", name);
}

static void test_example(void)
{
    /* README names: plain names with the listed extensions, once each;
     * templates, directories, dot names and other extensions skipped. */
    names n = {0};
    an_readme_names("see `compute_viewer/small_results.json`, small_results.json again,\n"
                    "discover_*.csv, ui_output_<H>.json, source/, .hidden.json, REPORT.md,\n"
                    "input_trace.yaml and k.py/ and t-1.csv", collect, &n);
    T_EQ_U64(n.n, 3);
    T_EQ_STR(n.v[0], "small_results.json");
    T_EQ_STR(n.v[1], "input_trace.yaml");
    T_EQ_STR(n.v[2], "t-1.csv");

    an_example_label labels[2] = {{"big", 0, 0}, {"small", 1, 1}};
    const char *missing[1] = {"kernel.py"};
    an_example_facts f = {"ex", 1, 0,
                          "# R\n\nstates: 1 = EXEC, 2=WAIT\n", labels, 2, missing, 1, NULL, NULL, 0, NULL, 0};
    an_validation v;
    T_EQ_I64(an_validate_example(&f, NULL, &v), 0);
    T_CHECK(says(&v, "V-20", AN_SEV_WARNING, "missing (`kreport help formats`)"));        /* REPORT.md */
    T_CHECK(says(&v, "V-20", AN_SEV_WARNING, "holds no capture folder"));
    T_CHECK(says(&v, "V-20", AN_SEV_WARNING, "no results.json for label big"));
    T_CHECK(says(&v, "V-20", AN_SEV_WARNING, "names kernel.py"));
    T_EQ_U64(v.warnings, 4);
    T_EQ_U64(count(&v, "V-22", AN_SEV_INFO), 1);
    T_CHECK(v.nfindings == 5 && strcmp(v.findings[4].location, "REPORT.md line 3") == 0);
    an_validation_free(&v);

    /* SLEEP alone also trips V-22; correct names do not. */
    f.report_text = "IDLE 0.6 %, EXEC, WAIT, STALL; SLEEP 5.7 %";
    T_EQ_I64(an_validate_example(&f, NULL, &v), 0);
    T_CHECK(says(&v, "V-22", AN_SEV_INFO, "SLEEP"));
    an_validation_free(&v);
    f.report_text = "1 = IDLE, 2 = EXEC, 3 = WAIT, 4 = STALL; SLEEPING is not a state name; 11=EXEC";
    T_EQ_I64(an_validate_example(&f, NULL, &v), 0);
    T_EQ_U64(count(&v, "V-22", AN_SEV_INFO), 0);
    an_validation_free(&v);
}

/* The real captures: docs/validate.md preamble and facts table. */
static void test_hub(void)
{
    const char *hub = t_hub();
    if (!hub) {
        printf("test_validate: hub fixtures absent, skipping the real-capture part\n");
        return;
    }
    static const struct {
        const char *dir;
        uint64_t records, raw, aligned;
        uint32_t vmark, smark;
        int results;          /* results.json joins */
    } caps[] = {
        {"examples/pa_mqa_logits_fp4/att_viewer/small/ui_output_agent_32435_dispatch_197", 1576, 5240, 5240, 95, 40, 0},
        {"examples/pa_mqa_logits_fp4/att_viewer/big/ui_output_agent_55351_dispatch_426", 165632, 58152, 56016, 95, 40, 0},
        {"examples/flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44", 26412, 55192, 55192, 242, 35, 1},
        {"examples/flash_attn_func/att_viewer/small/ui_output_agent_58550_dispatch_44_after_loc_fix", 43360, 54668, 54676, 242, 35, 0},
    };
    for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", hub, caps[k].dir);
        bundle_opts opts = {0};
        opts.threads = 2;
        kr_capture *c = NULL;
        kr_err err;
        kr_err_clear(&err);
        int rc = bundle_capture_load(path, &opts, &c, &err);
        T_EQ_I64(rc, 0);
        if (rc) {
            fprintf(stderr, "load %s: %s\n", path, err.msg);
            continue;
        }
        an_validation v;
        T_EQ_I64(an_validate(c, NULL, &v), 0);
        T_EQ_U64(v.errors, 0);
        size_t other_warnings = 0;
        for (size_t i = 0; i < v.nfindings; i++)
            if (v.findings[i].severity == AN_SEV_WARNING && strcmp(v.findings[i].id, "V-18a") != 0 &&
                strcmp(v.findings[i].id, "V-21") != 0)
                other_warnings++;
        T_EQ_U64(other_warnings, 0);
        T_EQ_U64(count(&v, "V-21", AN_SEV_WARNING), 1);
        T_EQ_U64(count(&v, "V-18a", AN_SEV_WARNING), caps[k].results ? 0 : 1);
        if (v.errors || other_warnings)
            dump(&v);
        an_validation_free(&v);

        uint64_t records = 0, hits = 0;
        for (size_t i = 0; i < c->nwaves; i++)
            records += c->waves[i].ninsts;
        for (size_t i = 0; i < c->nrows; i++)
            hits += c->rows[i].hit;
        T_EQ_U64(records, caps[k].records);
        T_EQ_U64(hits, caps[k].records);

        an_span s;
        an_validate_span(c, &s);
        T_EQ_U64(s.raw, caps[k].raw);
        T_CHECK(s.has_aligned);
        T_EQ_U64(s.aligned, caps[k].aligned);
        an_isa_marks m;
        an_validate_isa_marks(c, 0, &m);
        T_EQ_U64(m.v, caps[k].vmark);
        T_EQ_U64(m.a, 0);
        T_EQ_U64(m.s, caps[k].smark);
        an_target t;
        an_validate_target(c, NULL, &t);
        T_EQ_STR(t.name, "gfx950");
        bundle_capture_free(c);
    }
}

int main(void)
{
    test_clean();
    test_folder();
    test_code();
    test_records();
    test_timeline();
    test_waitcnt();
    test_wstates();
    test_occupancy();
    test_realtime();
    test_results();
    test_bounded();
    test_helpers();
    test_example();
    test_hub();
    return t_done("test_validate");
}
