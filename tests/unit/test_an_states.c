/* test_an_states.c — wave-state sums (raw and clipped, docs/formats.md#timeline) and
 * the docs/stalls.md#issue-stall-and-idle activity split, on a hand-built capture with values worked out
 * below. */
#include <jansson.h>

#include "analyzer/states.h"
#include "bundle/capture.h"
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

/* ---- real captures ---- */

static const struct {
    const char *dir;
    uint64_t waves;
    uint64_t state[4];                 /* raw IDLE, EXEC, WAIT, STALL (docs/formats.md#timeline facts table) */
    uint64_t latency, stall, idle;     /* Σ over code.json (facts table) */
} hub_caps[] = {
    {"examples/pa_mqa_logits_fp4/att_viewer/small/ui_output_agent_32435_dispatch_197", 4,
     {124, 7380, 11644, 1156}, 19088, 11820, 1220},
    {"examples/pa_mqa_logits_fp4/att_viewer/big/ui_output_agent_55351_dispatch_426", 32,
     {992, 795648, 465108, 340436}, 1482216, 791816, 119980},
    {"examples/flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44", 4,
     {972, 106540, 76652, 36100}, 208060, 107884, 12312},
    {"examples/flash_attn_func/att_viewer/small/ui_output_agent_58550_dispatch_44_after_loc_fix", 8,
     {1788, 180416, 126860, 58912}, 342176, 176060, 25964},
};

static json_t *load_json(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    if (!j)
        fprintf(stderr, "%s: %s\n", path, e.text);
    return j;
}

/* Raw and clipped state sums recomputed from the wave files with jansson,
 * per SE (index = SE number, up to 64) — independent of the model. */
typedef struct ref_sums { uint64_t raw[6], clip[6], waves; } ref_sums;

static void ref_from_files(const char *dir, ref_sums *per_se, ref_sums *all)
{
    json_t *fn = load_json(dir, "filenames.json");
    json_t *wf = json_object_get(fn, "wave_filenames");
    const char *se_key, *simd_key, *slot_key, *n_key;
    json_t *se_v, *simd_v, *slot_v, *ent;
    json_object_foreach(wf, se_key, se_v) {
        int se = atoi(se_key);
        json_object_foreach(se_v, simd_key, simd_v) json_object_foreach(simd_v, slot_key, slot_v)
            json_object_foreach(slot_v, n_key, ent) {
            json_t *w = load_json(dir, json_string_value(json_array_get(ent, 0)));
            json_t *wave = json_object_get(w, "wave");
            uint64_t begin = (uint64_t)json_integer_value(json_object_get(wave, "begin"));
            uint64_t end = (uint64_t)json_integer_value(json_object_get(wave, "end"));
            uint64_t t = begin;
            json_t *tl = json_object_get(wave, "timeline");
            for (size_t i = 0; i < json_array_size(tl); i++) {
                json_int_t st = json_integer_value(json_array_get(json_array_get(tl, i), 0));
                uint64_t cyc = (uint64_t)json_integer_value(json_array_get(json_array_get(tl, i), 1));
                int k = st >= 0 && st < 5 ? (int)st : 5;
                uint64_t a = t, b = t + cyc;
                if (b > end)
                    b = end;
                uint64_t clipped = b > a ? b - a : 0;
                per_se[se].raw[k] += cyc;
                per_se[se].clip[k] += clipped;
                all->raw[k] += cyc;
                all->clip[k] += clipped;
                t += cyc;
            }
            per_se[se].waves++;
            all->waves++;
            json_decref(w);
        }
    }
    json_decref(fn);
}

static void test_hub(const char *hub)
{
    for (size_t ci = 0; ci < sizeof hub_caps / sizeof hub_caps[0]; ci++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", hub, hub_caps[ci].dir);
        bundle_opts o = {.threads = 2};
        kr_capture *c = NULL;
        kr_err err;
        int rc = bundle_capture_load(dir, &o, &c, &err);
        T_EQ_I64(rc, 0);
        if (rc) {
            char b[2048];
            kr_err_format(&err, b, sizeof b);
            fprintf(stderr, "%s\n", b);
            continue;
        }
        an_states s;
        T_EQ_I64(an_states_compute(c, &s), 0);

        /* docs/formats.md reference values. */
        T_EQ_U64(s.waves, hub_caps[ci].waves);
        T_EQ_U64(s.waves_with_timeline, hub_caps[ci].waves);
        for (unsigned k = 0; k < 4; k++)
            T_EQ_U64(s.all.raw[k + 1], hub_caps[ci].state[k]);
        T_EQ_U64(s.all.raw[KR_STATE_EMPTY], 0);
        T_EQ_U64(s.all.raw[AN_STATE_OTHER], 0);
        T_EQ_U64(s.activity.active, hub_caps[ci].latency);
        T_EQ_U64(s.activity.stall, hub_caps[ci].stall);      /* Stall <= Latency on every row */
        T_EQ_U64(s.activity.issue, hub_caps[ci].latency - hub_caps[ci].stall);
        T_EQ_U64(s.activity.idle, hub_caps[ci].idle);
        T_EQ_U64(s.activity.total, hub_caps[ci].latency + hub_caps[ci].idle);
        /* The overshoot is at most 4 cycles per wave and only ever WAIT (docs/formats.md#timeline). */
        T_CHECK(s.all.raw_total - s.all.clipped_total <= 4 * hub_caps[ci].waves);
        for (unsigned k = 0; k < AN_STATES_N; k++)
            if (k != KR_STATE_WAIT)
                T_EQ_U64(s.all.raw[k], s.all.clipped[k]);

        /* Independent recomputation from the files. */
        static ref_sums per_se[64];
        ref_sums all;
        memset(per_se, 0, sizeof per_se);
        memset(&all, 0, sizeof all);
        ref_from_files(dir, per_se, &all);
        T_EQ_U64(all.waves, s.waves);
        for (unsigned k = 0; k < AN_STATES_N; k++) {
            T_EQ_U64(s.all.raw[k], all.raw[k]);
            T_EQ_U64(s.all.clipped[k], all.clip[k]);
        }
        size_t nse = 0;
        for (unsigned se = 0; se < 64; se++)
            if (per_se[se].waves)
                nse++;
        T_EQ_U64(s.nse, nse);
        for (size_t i = 0; i < s.nse; i++) {
            const ref_sums *r = &per_se[s.per_se[i].se % 64];
            T_EQ_U64(s.per_se[i].sums.waves, r->waves);
            for (unsigned k = 0; k < AN_STATES_N; k++) {
                T_EQ_U64(s.per_se[i].sums.raw[k], r->raw[k]);
                T_EQ_U64(s.per_se[i].sums.clipped[k], r->clip[k]);
            }
        }
        /* Per SIMD and per (SE, SIMD) partition the same waves and cycles. */
        uint64_t w1 = 0, w2 = 0, c1 = 0, c2 = 0;
        for (size_t i = 0; i < s.nsimd; i++) {
            w1 += s.per_simd[i].sums.waves;
            c1 += s.per_simd[i].sums.clipped_total;
        }
        for (size_t i = 0; i < s.nse_simd; i++) {
            w2 += s.per_se_simd[i].sums.waves;
            c2 += s.per_se_simd[i].sums.clipped_total;
        }
        T_EQ_U64(w1, s.waves); T_EQ_U64(w2, s.waves);
        T_EQ_U64(c1, s.all.clipped_total); T_EQ_U64(c2, s.all.clipped_total);

        /* Activity from code.json with jansson: labels start with ';'. */
        json_t *doc = load_json(dir, "code.json");
        json_t *code = json_object_get(doc, "code");
        uint64_t lat = 0, stall = 0, idle = 0;
        for (size_t i = 0; i < json_array_size(code); i++) {
            json_t *row = json_array_get(code, i);
            if (json_string_value(json_array_get(row, 0))[0] == ';')
                continue;
            uint64_t l = (uint64_t)json_integer_value(json_array_get(row, 7));
            uint64_t st = (uint64_t)json_integer_value(json_array_get(row, 8));
            lat += l;
            stall += st < l ? st : l;
            idle += (uint64_t)json_integer_value(json_array_get(row, 9));
        }
        json_decref(doc);
        T_EQ_U64(s.activity.active, lat);
        T_EQ_U64(s.activity.stall, stall);
        T_EQ_U64(s.activity.idle, idle);
        an_states_free(&s);
        bundle_capture_free(c);
    }
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

    const char *hub = t_hub();
    if (hub)
        test_hub(hub);
    else
        printf("test_an_states: hub fixtures absent, real-capture checks skipped\n");
    return t_done("test_an_states");
}
