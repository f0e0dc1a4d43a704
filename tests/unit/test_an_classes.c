/* test_an_classes.c — per-class sums (docs/instruction-classes.md) and the record-level
 * category check on a hand-built capture; the compatibility table is
 * compared with bundle_class_allows_cat for every (class, category). */
#include <jansson.h>

#include "analyzer/classes.h"
#include "bundle/capture.h"
#include "bundle/isa.h"
#include "common/arena.h"
#include "tests/unit/t.h"

typedef struct spec {
    const char *isa;
    uint64_t hit, lat, stall, idle;
} spec;

static void build(kr_capture *c, const spec *s, size_t n)
{
    c->rows = kr_arena_array(&c->arena, n, sizeof *c->rows);
    c->nrows = n;
    c->line_to_row = kr_arena_array(&c->arena, n, sizeof *c->line_to_row);
    c->nline_map = n;
    uint32_t kernel = UINT32_MAX;
    for (size_t i = 0; i < n; i++) {
        kr_code_row *r = &c->rows[i];
        char m[64];
        bundle_mnemonic(s[i].isa, m, sizeof m);
        r->isa = s[i].isa;
        r->mnemonic = kr_arena_strdup(&c->arena, m);
        r->source = "";
        r->cls = bundle_classify(m);
        r->is_label = r->cls == KR_CLASS_LABEL;
        if (r->is_label)
            kernel = (uint32_t)i;
        r->kernel = kernel;
        r->line = (uint32_t)i;
        r->vaddr = 100 + 4 * i;
        r->hit = s[i].hit;
        r->latency = s[i].lat;
        r->stall = s[i].stall;
        r->idle = s[i].idle;
        c->line_to_row[i] = (int32_t)i;
    }
}

/* ---- real captures: docs/instruction-classes.md per-class reference sums ---- */

/* Reference classes in the order of the docs/instruction-classes.md table. */
static const kr_class ref_order[11] = {KR_CLASS_VALU, KR_CLASS_WAITCNT, KR_CLASS_MATRIX, KR_CLASS_VMEM,
    KR_CLASS_LDS, KR_CLASS_SALU, KR_CLASS_SMEM, KR_CLASS_NOP, KR_CLASS_BARRIER, KR_CLASS_BRANCH,
    KR_CLASS_MESSAGE};

static const struct {
    const char *dir;
    uint64_t records;                  /* facts table */
    uint64_t v[11][5];                 /* rows, Σ Hit, Σ Latency, Σ Stall, Σ Idle */
} hub_caps[] = {
    {"examples/pa_mqa_logits_fp4/att_viewer/small/ui_output_agent_32435_dispatch_197", 1576,
     {{520, 1048, 5092, 880, 128}, {35, 84, 10524, 10524, 0}, {32, 64, 560, 80, 32},
      {31, 80, 508, 176, 380}, {16, 32, 260, 4, 224}, {67, 180, 728, 0, 256}, {15, 60, 244, 0, 124},
      {5, 12, 156, 156, 0}, {0, 0, 0, 0, 0}, {4, 12, 52, 0, 76}, {1, 4, 964, 0, 0}}},
    {"examples/pa_mqa_logits_fp4/att_viewer/big/ui_output_agent_55351_dispatch_426", 165632,
     {{520, 130304, 782436, 259592, 8864}, {35, 7840, 451424, 451424, 0}, {32, 8704, 92868, 29712, 332},
      {31, 5792, 67108, 42380, 43360}, {16, 4352, 41504, 4540, 30188}, {67, 6912, 28888, 1184, 35628},
      {15, 480, 1972, 40, 992}, {5, 640, 2944, 2944, 0}, {0, 0, 0, 0, 0}, {4, 576, 2332, 0, 616},
      {1, 32, 10740, 0, 0}}},
    {"examples/flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44", 26412,
     {{1370, 17668, 86732, 10224, 852}, {84, 1488, 46792, 46792, 0}, {64, 1280, 14088, 8924, 0},
      {44, 416, 17148, 15380, 1124}, {96, 1920, 9148, 1456, 4800}, {204, 916, 3788, 0, 4172},
      {5, 20, 80, 0, 972}, {186, 2516, 19872, 19872, 0}, {4, 80, 5236, 5236, 240}, {11, 104, 424, 0, 152},
      {1, 4, 4752, 0, 0}}},
    {"examples/flash_attn_func/att_viewer/small/ui_output_agent_58550_dispatch_44_after_loc_fix", 43360,
     {{1370, 29072, 143008, 17364, 1468}, {84, 2400, 76632, 76632, 0}, {64, 2048, 22448, 14176, 0},
      {44, 704, 27692, 24688, 2008}, {96, 3072, 14824, 2520, 7680}, {204, 1576, 6480, 0, 12348},
      {5, 40, 160, 0, 1788}, {186, 4136, 32444, 32444, 0}, {4, 128, 8236, 8236, 384},
      {11, 176, 704, 0, 288}, {1, 8, 9548, 0, 0}}},
};

static void check_sums(const an_class_sums *s, const uint64_t v[5])
{
    T_EQ_U64(s->rows, v[0]);
    T_EQ_U64(s->hit, v[1]);
    T_EQ_U64(s->latency, v[2]);
    T_EQ_U64(s->stall, v[3]);
    T_EQ_U64(s->idle, v[4]);
}

static void test_hub(const char *hub)
{
    for (size_t ci = 0; ci < sizeof hub_caps / sizeof hub_caps[0]; ci++) {
        char dir[4096], path[4200];
        snprintf(dir, sizeof dir, "%s/%s", hub, hub_caps[ci].dir);
        bundle_opts o = {.threads = 2};
        kr_capture *c = NULL;
        kr_err err;
        int rc = bundle_capture_load(dir, &o, &c, &err);
        T_EQ_I64(rc, 0);
        if (rc)
            continue;
        an_classes r;
        T_EQ_I64(an_classes_compute(c, &r), 0);
        for (size_t k = 0; k < 11; k++)
            check_sums(&r.by_class[ref_order[k]], hub_caps[ci].v[k]);
        const uint64_t zero[5] = {0};
        check_sums(&r.by_class[KR_CLASS_FLAT], zero);
        check_sums(&r.by_class[KR_CLASS_IMMED_OTHER], zero);
        check_sums(&r.by_class[KR_CLASS_OTHER], zero);
        /* Every record is compatible on all captures (docs/instruction-classes.md, verified). */
        T_CHECK(r.records_kept);
        T_EQ_U64(r.records, hub_caps[ci].records);
        T_EQ_U64(r.records_unknown, 0);
        T_EQ_U64(r.records_incompatible, 0);

        /* The record sums again, one record at a time through the model. */
        an_classes naive;
        memset(&naive, 0, sizeof naive);
        for (size_t w = 0; w < c->nwaves; w++)
            for (size_t j = 0; j < c->waves[w].ninsts; j++) {
                const kr_inst *in = &c->waves[w].insts[j];
                const kr_code_row *row = kr_capture_row(c, in->line);
                if (!row) {
                    naive.records_unknown++;
                    continue;
                }
                an_class_sums *s = &naive.by_class[row->cls];
                s->records++;
                if (in->cat < KR_CAT_COUNT)
                    s->records_by_cat[in->cat]++;
                else
                    s->records_other_cat++;
                s->records_incompatible += !an_class_allows_cat(row->cls, in->cat);
            }
        T_EQ_U64(r.records_unknown, naive.records_unknown);
        for (unsigned k = 0; k < KR_CLASS_COUNT; k++) {
            T_EQ_U64(r.by_class[k].records, naive.by_class[k].records);
            T_EQ_U64(r.by_class[k].records_other_cat, naive.by_class[k].records_other_cat);
            T_EQ_U64(r.by_class[k].records_incompatible, naive.by_class[k].records_incompatible);
            for (unsigned cat = 0; cat < KR_CAT_COUNT; cat++)
                T_EQ_U64(r.by_class[k].records_by_cat[cat], naive.by_class[k].records_by_cat[cat]);
        }

        /* Independent: code.json through jansson, classes by bundle_classify. */
        snprintf(path, sizeof path, "%s/code.json", dir);
        json_error_t je;
        json_t *doc = json_load_file(path, 0, &je);
        json_t *code = json_object_get(doc, "code");
        uint64_t ref[KR_CLASS_COUNT][5];
        memset(ref, 0, sizeof ref);
        for (size_t i = 0; i < json_array_size(code); i++) {
            json_t *row = json_array_get(code, i);
            char m[64];
            bundle_mnemonic(json_string_value(json_array_get(row, 0)), m, sizeof m);
            kr_class k = bundle_classify(m);
            if (k == KR_CLASS_LABEL)
                continue;
            ref[k][0]++;
            for (int col = 0; col < 4; col++)
                ref[k][col + 1] += (uint64_t)json_integer_value(json_array_get(row, 6 + col));
        }
        json_decref(doc);
        for (unsigned k = 0; k < KR_CLASS_COUNT; k++)
            check_sums(&r.by_class[k], ref[k]);

        /* Independent record counts per (class, category) over the model. */
        static uint64_t cnt[KR_CLASS_COUNT][KR_CAT_COUNT];
        memset(cnt, 0, sizeof cnt);
        for (size_t w = 0; w < c->nwaves; w++)
            for (size_t j = 0; j < c->waves[w].ninsts; j++) {
                const kr_inst *in = &c->waves[w].insts[j];
                int idx = in->line < c->nline_map ? c->line_to_row[in->line] : -1;
                if (in->line != 0 && idx >= 0 && in->cat < KR_CAT_COUNT)
                    cnt[c->rows[idx].cls][in->cat]++;
            }
        int same = 1;
        for (unsigned k = 0; k < KR_CLASS_COUNT; k++)
            for (unsigned cat = 0; cat < KR_CAT_COUNT; cat++)
                same = same && cnt[k][cat] == r.by_class[k].records_by_cat[cat];
        T_CHECK(same);
        an_class_sums *br = &r.by_class[KR_CLASS_BRANCH];
        T_EQ_U64(br->records_by_cat[KR_CAT_JUMP] + br->records_by_cat[KR_CAT_NEXT], br->hit);
        bundle_capture_free(c);
    }
}

int main(void)
{
    kr_capture c;
    memset(&c, 0, sizeof c);
    kr_arena_init(&c.arena);
    static const spec rows[] = {
        {"; kernel", 0, 0, 0, 0},                           /* 0 LABEL */
        {"s_load_dword s0, s[0:1], 0x0", 2, 8, 0, 30},      /* 1 SMEM */
        {"s_waitcnt lgkmcnt(0)", 2, 500, 500, 0},            /* 2 WAITCNT */
        {"v_add_f32_e32 v1, v2, v3", 2, 12, 4, 2},           /* 3 VALU */
        {"v_mfma_f32_32x32x16_bf16 a[0:15], v[0:3], v[4:7], 0", 2, 64, 16, 0}, /* 4 MATRIX */
        {"v_mul_f32_e32 v4, v5, v6", 2, 10, 2, 0},           /* 5 VALU */
        {"s_cbranch_scc1 65050", 2, 8, 0, 4},                /* 6 BRANCH */
        {"global_load_dwordx4 v[0:3], v[4:5], off", 1, 20, 10, 6}, /* 7 VMEM */
        {"s_waitcnt vmcnt(0)", 1, 300, 300, 0},              /* 8 WAITCNT */
        {"s_endpgm", 1, 200, 0, 0},                          /* 9 MESSAGE */
    };
    build(&c, rows, sizeof rows / sizeof rows[0]);

    /* Records: one wave. Row 3 traced as SALU (2) once: incompatible.
     * Row 6 taken (7) and not taken (8). Row 7 (global_) traced as FLAT (4):
     * allowed for VMEM. One record with line 0 and one with line 99
     * (no row): unknown. One CONTEXT (10) record on row 5: allowed. */
    kr_inst in[] = {
        {.line = 1, .cat = 1}, {.line = 2, .cat = 9}, {.line = 3, .cat = 6}, {.line = 3, .cat = 2},
        {.line = 4, .cat = 6}, {.line = 5, .cat = 10}, {.line = 6, .cat = 7}, {.line = 6, .cat = 8},
        {.line = 7, .cat = 4}, {.line = 8, .cat = 9}, {.line = 0, .cat = 10}, {.line = 99, .cat = 6},
        {.line = 9, .cat = 11}, {.line = 9, .cat = 200}};
    kr_wave w = {.insts = in, .ninsts = sizeof in / sizeof in[0], .num_insts = sizeof in / sizeof in[0]};
    c.waves = &w;
    c.nwaves = 1;

    an_classes r;
    T_EQ_I64(an_classes_compute(&c, &r), 0);
    /* Totals over rows 1..9: hit 2*6+1*3 = 15; latency 8+500+12+64+10+8+20+300+200 = 1122;
     * stall 500+4+16+2+10+300 = 832; idle 30+2+4+6 = 42. */
    T_EQ_U64(r.rows, 9);
    T_EQ_U64(r.hit, 15);
    T_EQ_U64(r.latency, 1122);
    T_EQ_U64(r.stall, 832);
    T_EQ_U64(r.idle, 42);
    T_EQ_U64(r.by_class[KR_CLASS_LABEL].rows, 0);

    const an_class_sums *v = &r.by_class[KR_CLASS_VALU];
    T_EQ_U64(v->rows, 2); T_EQ_U64(v->hit, 4); T_EQ_U64(v->latency, 22);
    T_EQ_U64(v->stall, 6); T_EQ_U64(v->idle, 2);
    const an_class_sums *wc = &r.by_class[KR_CLASS_WAITCNT];
    T_EQ_U64(wc->rows, 2); T_EQ_U64(wc->hit, 3); T_EQ_U64(wc->latency, 800); T_EQ_U64(wc->stall, 800);
    T_EQ_U64(r.by_class[KR_CLASS_MATRIX].latency, 64);
    T_EQ_U64(r.by_class[KR_CLASS_SMEM].idle, 30);
    T_EQ_U64(r.by_class[KR_CLASS_BRANCH].rows, 1);
    T_EQ_U64(r.by_class[KR_CLASS_VMEM].stall, 10);
    T_EQ_U64(r.by_class[KR_CLASS_MESSAGE].latency, 200);
    T_EQ_U64(r.by_class[KR_CLASS_BARRIER].rows, 0);

    T_CHECK(r.records_kept);
    T_EQ_U64(r.records, 14);
    T_EQ_U64(r.records_unknown, 2);
    /* row 3 as SALU, and row 9 with category 200 */
    T_EQ_U64(r.records_incompatible, 2);
    T_EQ_U64(v->records, 3);
    T_EQ_U64(v->records_by_cat[KR_CAT_VALU], 1);
    T_EQ_U64(v->records_by_cat[KR_CAT_SALU], 1);
    T_EQ_U64(v->records_by_cat[KR_CAT_CONTEXT], 1);
    T_EQ_U64(v->records_incompatible, 1);
    T_EQ_U64(r.by_class[KR_CLASS_BRANCH].records_by_cat[KR_CAT_JUMP], 1);
    T_EQ_U64(r.by_class[KR_CLASS_BRANCH].records_by_cat[KR_CAT_NEXT], 1);
    T_EQ_U64(r.by_class[KR_CLASS_BRANCH].records_incompatible, 0);
    T_EQ_U64(r.by_class[KR_CLASS_VMEM].records_by_cat[KR_CAT_FLAT], 1);
    T_EQ_U64(r.by_class[KR_CLASS_VMEM].records_incompatible, 0);
    T_EQ_U64(r.by_class[KR_CLASS_MESSAGE].records_other_cat, 1);
    T_EQ_U64(r.by_class[KR_CLASS_MESSAGE].records_incompatible, 1);

    /* Records announced but not kept by the loader. */
    kr_wave w2 = {.num_insts = 5};
    c.waves = &w2;
    T_EQ_I64(an_classes_compute(&c, &r), 0);
    T_CHECK(!r.records_kept);
    T_EQ_U64(r.records, 0);
    T_EQ_U64(r.latency, 1122);

    /* The table repeated from docs/instruction-classes.md matches the bundle's copy everywhere. */
    int same = 1;
    for (unsigned k = 0; k < KR_CLASS_COUNT; k++)
        for (unsigned cat = 0; cat < 20; cat++)
            if (!!an_class_allows_cat((kr_class)k, cat) != !!bundle_class_allows_cat((kr_class)k, cat)) {
                fprintf(stderr, "class %s cat %u differs\n", kr_class_name((kr_class)k), cat);
                same = 0;
            }
    T_CHECK(same);

    /* Display order: the docs/instruction-classes.md table, then the rest; every class but LABEL once. */
    T_EQ_U64(an_class_norder, KR_CLASS_COUNT - 1);
    T_EQ_I64(an_class_order[0], KR_CLASS_VALU);
    T_EQ_I64(an_class_order[1], KR_CLASS_WAITCNT);
    T_EQ_I64(an_class_order[10], KR_CLASS_MESSAGE);
    int seen[KR_CLASS_COUNT] = {0};
    for (size_t i = 0; i < an_class_norder; i++)
        seen[an_class_order[i]]++;
    int once = seen[KR_CLASS_LABEL] == 0;
    for (unsigned k = 1; k < KR_CLASS_COUNT; k++)
        once = once && seen[k] == 1;
    T_CHECK(once);

    kr_arena_free(&c.arena);

    const char *hub = t_hub();
    if (hub)
        test_hub(hub);
    else
        printf("test_an_classes: hub fixtures absent, real-capture checks skipped\n");
    return t_done("test_an_classes");
}
