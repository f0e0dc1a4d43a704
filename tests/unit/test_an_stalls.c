/* test_an_stalls.c — the hub analyzer's buckets (docs/hotspots.md#hub-analyzer), the wait
 * operand parser and kreport's stall taxonomy, on hand-built captures whose
 * expected sums are worked out in the comments. */
#include <ctype.h>
#include <jansson.h>

#include "analyzer/stalls.h"
#include "bundle/capture.h"
#include "bundle/isa.h"
#include "common/arena.h"
#include "tests/unit/t.h"

typedef struct spec {
    const char *isa, *src;
    uint64_t vaddr, hit, lat, stall;
} spec;

static void build(kr_capture *c, const spec *s, size_t n)
{
    memset(c, 0, sizeof *c);
    kr_arena_init(&c->arena);
    c->rows = kr_arena_array(&c->arena, n, sizeof *c->rows);
    c->nrows = n;
    uint32_t kernel = UINT32_MAX;
    for (size_t i = 0; i < n; i++) {
        kr_code_row *r = &c->rows[i];
        char m[64];
        bundle_mnemonic(s[i].isa, m, sizeof m);
        r->isa = s[i].isa;
        r->mnemonic = kr_arena_strdup(&c->arena, m);
        r->source = s[i].src;
        r->cls = bundle_classify(m);
        r->is_label = r->cls == KR_CLASS_LABEL;
        if (r->is_label)
            kernel = (uint32_t)i;
        r->kernel = kernel;
        r->line = (uint32_t)i;
        r->vaddr = s[i].vaddr ? s[i].vaddr : 1000 + 4 * i;
        r->hit = s[i].hit;
        r->latency = s[i].lat;
        r->stall = s[i].stall;
    }
}

static an_stall_kind kind_of_text(const char *isa)
{
    kr_code_row r;
    memset(&r, 0, sizeof r);
    char m[64];
    bundle_mnemonic(isa, m, sizeof m);
    r.isa = isa;
    r.cls = bundle_classify(m);
    return an_stall_kind_of(&r);
}

static void test_hub_bucket_of(void)
{
    static const struct { const char *isa; an_hub_bucket b; } cases[] = {
        {"s_waitcnt vmcnt(5)", AN_HUB_VMEM_WAIT},
        {"s_waitcnt vmcnt(0) lgkmcnt(0)", AN_HUB_VMEM_WAIT},   /* combined reads as VMEM */
        {"s_waitcnt lgkmcnt(0)", AN_HUB_LDS_SMEM_WAIT},
        {"S_WAITCNT LGKMCNT(1)", AN_HUB_LDS_SMEM_WAIT},         /* asm.lower() */
        {"s_waitcnt expcnt(0)", AN_HUB_EXP_WAIT},
        {"s_waitcnt 0", AN_HUB_WAITCNT},
        {"s_waitcnt_depctr 0xffe3", AN_HUB_WAITCNT},
        {"s_barrier", AN_HUB_BARRIER},
        {"s_wait_idle", AN_HUB_BARRIER},
        {"buffer_load_dwordx4 v[2:5], v1, s[8:11], 0 offen", AN_HUB_VMEM_LOAD},
        {"s_buffer_load_dword s4, s[0:3], 0x0", AN_HUB_VMEM_LOAD}, /* contains buffer_load */
        {"global_load_dwordx4 v[0:3], v[4:5], off", AN_HUB_VMEM_LOAD},
        {"flat_load_dword v1, v[2:3]", AN_HUB_VMEM_LOAD},
        {"buffer_store_dword v1, off, s[0:3], 0", AN_HUB_VMEM_STORE},
        {"global_store_dwordx2 v[0:1], v[2:3], off", AN_HUB_VMEM_STORE},
        {"flat_store_dword v[2:3], v1", AN_HUB_OTHER},
        {"scratch_load_dword v1, off, s0", AN_HUB_OTHER},
        {"ds_read_b128 v[0:3], v4", AN_HUB_LDS},
        {"ds_write_b64 v1, v[2:3]", AN_HUB_LDS},
        {"ds_bpermute_b32 v1, v2, v3", AN_HUB_OTHER},
        /* "ds_load"/"ds_store" contain "s_load"/"s_store": rule 9 catches
         * them (docs/hotspots.md#hub-analyzer's prose says "other"; the substring table
         * it gives says SMEM, and the table is what the script runs). */
        {"ds_load_b32 v1, v2", AN_HUB_SMEM},
        {"ds_store_b32 v1, v2", AN_HUB_SMEM},
        {"s_load_dwordx2 s[8:9], s[0:1], 0x130", AN_HUB_SMEM},
        {"s_store_dword s1, s[2:3], 0x0", AN_HUB_SMEM},
        {"v_mfma_f32_32x32x16_bf16 a[0:15], v[0:3], v[4:7], 0", AN_HUB_MFMA_FMA},
        {"v_fmac_f32_e32 v1, v2, v3", AN_HUB_MFMA_FMA},
        {"v_fma_f32 v1, v2, v3, v4", AN_HUB_MFMA_FMA},
        {"v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[6:7]", AN_HUB_OTHER},
        {"s_wait_loadcnt 0x0", AN_HUB_OTHER},
        {"s_nop 2", AN_HUB_OTHER},
        {"v_add_f32_e32 v1, v2, v3", AN_HUB_OTHER},
        {"", AN_HUB_OTHER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (an_hub_bucket_of(cases[i].isa) != cases[i].b)
            fprintf(stderr, "bucket of \"%s\"\n", cases[i].isa);
        T_EQ_I64(an_hub_bucket_of(cases[i].isa), cases[i].b);
    }
    /* Texts longer than the lower-casing buffer (511 bytes) take the
     * byte-wise path: the same rules, case-insensitive too. */
    static const struct { const char *tail; an_hub_bucket b; } long_cases[] = {
        {" S_Waitcnt VmCnt(0)", AN_HUB_VMEM_WAIT}, {" s_waitcnt", AN_HUB_WAITCNT},
        {" Buffer_Load_Dword", AN_HUB_VMEM_LOAD}, {" V_MFMA", AN_HUB_MFMA_FMA}, {" x", AN_HUB_OTHER},
    };
    for (size_t pad = 500; pad <= 520; pad += 10)
        for (size_t i = 0; i < sizeof long_cases / sizeof long_cases[0]; i++) {
            char text[600];
            memset(text, 'q', pad);
            snprintf(text + pad, sizeof text - pad, "%s", long_cases[i].tail);
            T_EQ_I64(an_hub_bucket_of(text), long_cases[i].b);
        }
    T_EQ_I64(an_hub_bucket_of(NULL), AN_HUB_OTHER);
    T_EQ_STR(an_hub_bucket_key(AN_HUB_LDS_SMEM_WAIT), "lds_smem_wait");
    T_EQ_STR(an_hub_bucket_display(AN_HUB_LDS_SMEM_WAIT), "LDS/SMEM-wait");
    T_EQ_STR(an_hub_bucket_display(AN_HUB_MFMA_FMA), "MFMA/FMA");
    T_EQ_STR(an_hub_bucket_key(AN_HUB_NONE), "none");
    T_EQ_STR(an_stall_kind_key(AN_STALL_WAIT_VM_LGKM), "wait_vmcnt+lgkmcnt");
}

static void test_wait_parse(void)
{
    an_wait_info w;
    const unsigned VM = 1u << AN_CNT_VMCNT, LGKM = 1u << AN_CNT_LGKMCNT, EXP = 1u << AN_CNT_EXPCNT;
    T_EQ_I64(an_wait_parse("s_waitcnt vmcnt(5)", &w), 1);
    T_EQ_U64(w.mask, VM); T_EQ_I64(w.value[AN_CNT_VMCNT], 5); T_EQ_I64(w.value[AN_CNT_LGKMCNT], -1);
    T_EQ_I64(an_wait_parse("s_waitcnt vmcnt(0) lgkmcnt(0)", &w), 1);
    T_EQ_U64(w.mask, VM | LGKM); T_EQ_I64(w.value[AN_CNT_VMCNT], 0); T_EQ_I64(w.value[AN_CNT_LGKMCNT], 0);
    T_EQ_I64(an_wait_parse("s_waitcnt vmcnt(1) expcnt(0) lgkmcnt(3)", &w), 1);
    T_EQ_U64(w.mask, VM | LGKM | EXP); T_EQ_I64(w.value[AN_CNT_LGKMCNT], 3); T_EQ_I64(w.value[AN_CNT_VMCNT], 1);
    T_EQ_I64(an_wait_parse("s_waitcnt expcnt(2)", &w), 1);
    T_EQ_U64(w.mask, EXP); T_EQ_I64(w.value[AN_CNT_EXPCNT], 2);
    T_EQ_I64(an_wait_parse("s_waitcnt 0", &w), 1);
    T_EQ_U64(w.mask, VM | LGKM | EXP); T_EQ_I64(w.value[AN_CNT_EXPCNT], 0);
    T_EQ_I64(an_wait_parse("S_WAITCNT VMCNT(7)", &w), 1);
    T_EQ_U64(w.mask, VM); T_EQ_I64(w.value[AN_CNT_VMCNT], 7);
    T_EQ_I64(an_wait_parse("s_waitcnt lgkmcnt_sat(0)", &w), 1);
    T_EQ_U64(w.mask, LGKM); T_EQ_I64(w.value[AN_CNT_LGKMCNT], 0);
    T_EQ_I64(an_wait_parse("s_waitcnt_vscnt null, 0x0", &w), 1);
    T_EQ_U64(w.mask, 1u << AN_CNT_VSCNT); T_EQ_I64(w.value[AN_CNT_VSCNT], 0);
    T_EQ_I64(an_wait_parse("s_waitcnt_lgkmcnt null, 0x1f", &w), 1);
    T_EQ_U64(w.mask, LGKM); T_EQ_I64(w.value[AN_CNT_LGKMCNT], 31);
    T_EQ_I64(an_wait_parse("s_waitcnt_depctr 0xffe3", &w), 1);
    T_EQ_U64(w.mask, 0);
    T_EQ_I64(an_wait_parse("s_wait_loadcnt 0x2", &w), 1);
    T_EQ_U64(w.mask, 1u << AN_CNT_LOADCNT); T_EQ_I64(w.value[AN_CNT_LOADCNT], 2);
    T_EQ_I64(an_wait_parse("s_wait_dscnt 0x0", &w), 1);
    T_EQ_U64(w.mask, 1u << AN_CNT_DSCNT); T_EQ_I64(w.value[AN_CNT_DSCNT], 0);
    T_EQ_I64(an_wait_parse("s_wait_loadcnt_dscnt 0x0", &w), 1);
    T_EQ_U64(w.mask, 1u << AN_CNT_LOADCNT | 1u << AN_CNT_DSCNT);
    T_EQ_I64(w.value[AN_CNT_LOADCNT], -1);
    T_EQ_I64(an_wait_parse("s_wait_idle", &w), 1);
    T_EQ_U64(w.mask, 0); T_EQ_U64(w.idle, 1);
    T_EQ_I64(an_wait_parse("s_wait_event 0x2", &w), 1);
    T_EQ_U64(w.mask, 0);
    T_EQ_I64(an_wait_parse("s_wait_alu 0xfffe", &w), 0);
    T_EQ_I64(an_wait_parse("v_add_f32_e32 v1, v2, v3", &w), 0);
    T_EQ_I64(an_wait_parse("s_waitcnt", &w), 1);
    T_EQ_U64(w.mask, 0);
}

static void test_kind_of(void)
{
    static const struct { const char *isa; an_stall_kind k; } cases[] = {
        {"s_waitcnt vmcnt(5)", AN_STALL_WAIT_VMCNT},
        {"s_waitcnt vmcnt(0) expcnt(0)", AN_STALL_WAIT_VMCNT},
        {"s_waitcnt lgkmcnt(0)", AN_STALL_WAIT_LGKMCNT},
        {"s_waitcnt vmcnt(0) lgkmcnt(0)", AN_STALL_WAIT_VM_LGKM},
        {"s_waitcnt 0", AN_STALL_WAIT_VM_LGKM},
        {"s_waitcnt expcnt(0)", AN_STALL_WAIT_EXPCNT},
        {"s_waitcnt_depctr 0xffe3", AN_STALL_WAIT_OTHER},
        {"s_waitcnt_vscnt null, 0x0", AN_STALL_WAIT_VMCNT},
        {"s_wait_storecnt 0x0", AN_STALL_WAIT_VMCNT},
        {"s_wait_kmcnt 0x0", AN_STALL_WAIT_LGKMCNT},
        {"s_wait_loadcnt_dscnt 0x0", AN_STALL_WAIT_VM_LGKM},
        {"s_wait_idle", AN_STALL_WAIT_VM_LGKM},
        {"s_barrier", AN_STALL_BARRIER},
        {"s_nop 10", AN_STALL_NOP},
        {"buffer_load_dwordx4 v[0:3], v1, s[8:11], 0 offen lds", AN_STALL_VMEM_ISSUE},
        {"flat_load_dword v1, v[2:3]", AN_STALL_FLAT_ISSUE},
        {"ds_read_b128 v[0:3], v4", AN_STALL_LDS_ISSUE},
        {"s_load_dword s30, s[0:1], 0x148", AN_STALL_SMEM_ISSUE},
        {"v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], 0", AN_STALL_MATRIX_DEP},
        {"v_pk_mul_f32 v[0:1], v[0:1], v[18:19]", AN_STALL_VALU_DEP},
        {"s_and_b32 s9, s9, 0xffff", AN_STALL_SALU},
        {"s_cbranch_scc1 65050", AN_STALL_BRANCH},
        {"s_endpgm", AN_STALL_MESSAGE},
        {"s_setprio 3", AN_STALL_OTHER},
        {"exp mrt0 v0, v0, v0, v0", AN_STALL_OTHER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (kind_of_text(cases[i].isa) != cases[i].k)
            fprintf(stderr, "kind of \"%s\"\n", cases[i].isa);
        T_EQ_I64(kind_of_text(cases[i].isa), cases[i].k);
    }
}

static void test_compute(void)
{
    /* Row 0 (line 0) is dropped by the hub rule even with counts; row 7 is a
     * later kernel's label, kept with zero counts.
     * kept 9 rows; total_cycles 100+50+30+30+40+12+0+130+8 = 400;
     * total_stall 100+30+30+30+30+0+130+4 = 354.
     * hub: vmem_wait 100+130 (2 rows), other 30+30 (2), lds_smem_wait 30,
     *      mfma_fma 30, vmem_load 4; ties keep first-seen order.
     * kreport: wait_vmcnt 130, wait_vmcnt+lgkmcnt 100, then 30 each in enum
     *      order wait_lgkmcnt, nop, matrix_dep, valu_dep, then vmem_issue 4. */
    static const spec s[] = {
        {"; k0", "", 0, 1, 7, 5},
        {"s_waitcnt vmcnt(0) lgkmcnt(0)", "a.py:10", 0, 2, 100, 100},
        {"v_add_f32_e32 v1, v2, v3", "a.py:11", 0, 2, 50, 30},
        {"s_nop 3", "", 0, 2, 30, 30},
        {"s_waitcnt lgkmcnt(0)", "a.py:10", 0, 2, 30, 30},
        {"v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], v[0:3]", "", 0, 2, 40, 30},
        {"ds_bpermute_b32 v1, v2, v3", "b.py:1", 0, 2, 12, 0},
        {"; k1", "kernel_one", 0, 0, 0, 0},
        {"s_waitcnt vmcnt(3)", "a.py:11", 0, 1, 130, 130},
        {"buffer_load_dword v1, off, s[0:3], 0", "a.py:11", 0, 1, 8, 4},
    };
    kr_capture c;
    build(&c, s, sizeof s / sizeof s[0]);
    an_stalls r;
    T_EQ_I64(an_stalls_compute(&c, &r), 0);
    T_CHECK(r.rows == c.rows);
    T_EQ_U64(r.kept_rows, 9);
    T_EQ_U64(r.total_cycles, 400);
    T_EQ_U64(r.total_stall, 354);

    T_EQ_U64(r.nhub_seen, 5);
    const an_hub_bucket hb[] = {AN_HUB_VMEM_WAIT, AN_HUB_OTHER, AN_HUB_LDS_SMEM_WAIT,
                                AN_HUB_MFMA_FMA, AN_HUB_VMEM_LOAD};
    const uint64_t hs[] = {230, 60, 30, 30, 4}, hr[] = {2, 2, 1, 1, 1};
    for (size_t i = 0; i < 5; i++) {
        T_EQ_I64(r.hub[i].bucket, hb[i]);
        T_EQ_U64(r.hub[i].stall, hs[i]);
        T_EQ_U64(r.hub[i].rows, hr[i]);
    }
    /* Unseen buckets follow in enum order with zeros. */
    const an_hub_bucket unseen[] = {AN_HUB_EXP_WAIT, AN_HUB_WAITCNT, AN_HUB_BARRIER,
                                    AN_HUB_VMEM_STORE, AN_HUB_LDS, AN_HUB_SMEM};
    for (size_t i = 0; i < 6; i++) {
        T_EQ_I64(r.hub[5 + i].bucket, unseen[i]);
        T_EQ_U64(r.hub[5 + i].stall, 0);
    }

    /* Source groups. */
    T_EQ_U64(r.nsources, 5);
    T_EQ_STR(r.sources[0].source, "a.py:11");
    T_EQ_U64(r.sources[0].stall, 164); T_EQ_U64(r.sources[0].latency, 188);
    T_EQ_U64(r.sources[0].rows, 3); T_EQ_U64(r.sources[0].dominant, AN_HUB_VMEM_WAIT);
    T_EQ_STR(r.sources[1].source, "a.py:10");
    T_EQ_U64(r.sources[1].stall, 130); T_EQ_U64(r.sources[1].latency, 130);
    T_EQ_U64(r.sources[1].dominant, AN_HUB_VMEM_WAIT);
    T_EQ_STR(r.sources[2].source, "<unknown>");
    T_EQ_U64(r.sources[2].stall, 60); T_EQ_U64(r.sources[2].latency, 70);
    /* other (row 3) and MFMA/FMA (row 5) tie at 30: first seen wins */
    T_EQ_U64(r.sources[2].dominant, AN_HUB_OTHER);
    T_EQ_STR(r.sources[3].source, "b.py:1");
    T_EQ_U64(r.sources[3].stall, 0); T_EQ_U64(r.sources[3].dominant, AN_HUB_NONE);
    T_EQ_STR(r.sources[4].source, "kernel_one");
    T_EQ_U64(r.sources[4].first_row, 7);

    /* Top instructions: stall descending, row order for ties. */
    const uint32_t top[] = {8, 1, 2, 3, 4, 5, 9};
    T_EQ_U64(r.nhub_top, 7);
    for (size_t i = 0; i < 7 && i < r.nhub_top; i++)
        T_EQ_U64(r.hub_top[i], top[i]);

    const an_stall_kind ko[] = {AN_STALL_WAIT_VMCNT, AN_STALL_WAIT_VM_LGKM, AN_STALL_WAIT_LGKMCNT,
                                AN_STALL_NOP, AN_STALL_MATRIX_DEP, AN_STALL_VALU_DEP,
                                AN_STALL_VMEM_ISSUE, AN_STALL_WAIT_EXPCNT, AN_STALL_WAIT_OTHER};
    for (size_t i = 0; i < sizeof ko / sizeof ko[0]; i++)
        T_EQ_I64(r.kind_order[i], ko[i]);
    T_EQ_U64(r.kinds[AN_STALL_WAIT_VMCNT].stall, 130);
    T_EQ_U64(r.kinds[AN_STALL_WAIT_VMCNT].hit, 1);
    T_EQ_U64(r.kinds[AN_STALL_WAIT_VM_LGKM].stall, 100);
    T_EQ_U64(r.kinds[AN_STALL_WAIT_VM_LGKM].top[0], 1);
    T_EQ_U64(r.kinds[AN_STALL_VMEM_ISSUE].stall, 4);
    T_EQ_U64(r.kinds[AN_STALL_LDS_ISSUE].rows, 0);   /* row 6 has no stall */
    uint64_t sum_k = 0, sum_h = 0, rows_k = 0;
    for (unsigned k = 0; k < AN_STALL_COUNT; k++) {
        sum_k += r.kinds[k].stall;
        rows_k += r.kinds[k].rows;
    }
    for (unsigned b = 0; b < AN_HUB_COUNT; b++)
        sum_h += r.hub[b].stall;
    T_EQ_U64(sum_k, 354);
    T_EQ_U64(sum_h, 354);
    T_EQ_U64(rows_k, 7);
    an_stalls_free(&r);
    T_CHECK(r.sources == NULL);
    kr_arena_free(&c.arena);
}

static void test_ties(void)
{
    /* Seven VALU rows (hub: other, 38 cycles) then MFMA 7 and lgkmcnt 7:
     * the tie keeps first-seen order (MFMA/FMA before LDS/SMEM-wait, the
     * reverse of enum order). valu_dep top 5 by stall, then vaddr, then row:
     * rows 3 (9 @104), 5 (9 @104), 2 (9 @200), 1 (5), 6 (3). */
    static const spec s[] = {
        {"; k", "", 96, 0, 0, 0},
        {"v_add_f32_e32 v1, v2, v3", "", 100, 1, 9, 5},
        {"v_add_f32_e32 v1, v2, v3", "", 200, 1, 9, 9},
        {"v_add_f32_e32 v1, v2, v3", "", 104, 1, 9, 9},
        {"v_add_f32_e32 v1, v2, v3", "", 108, 1, 9, 1},
        {"v_add_f32_e32 v1, v2, v3", "", 104, 1, 9, 9},
        {"v_add_f32_e32 v1, v2, v3", "", 116, 1, 9, 3},
        {"v_add_f32_e32 v1, v2, v3", "", 120, 1, 9, 2},
        {"v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], v[0:3]", "", 124, 1, 9, 7},
        {"s_waitcnt lgkmcnt(0)", "", 128, 1, 7, 7},
    };
    kr_capture c;
    build(&c, s, sizeof s / sizeof s[0]);
    an_stalls r;
    T_EQ_I64(an_stalls_compute(&c, &r), 0);
    T_EQ_U64(r.nhub_seen, 3);
    T_EQ_I64(r.hub[0].bucket, AN_HUB_OTHER);
    T_EQ_U64(r.hub[0].stall, 38);
    T_EQ_I64(r.hub[1].bucket, AN_HUB_MFMA_FMA);
    T_EQ_I64(r.hub[2].bucket, AN_HUB_LDS_SMEM_WAIT);
    const an_stall_bucket *v = &r.kinds[AN_STALL_VALU_DEP];
    T_EQ_U64(v->rows, 7);
    T_EQ_U64(v->ntop, 5);
    const uint32_t top[] = {3, 5, 2, 1, 6};
    for (size_t i = 0; i < 5; i++)
        T_EQ_U64(v->top[i], top[i]);
    /* matrix_dep and wait_lgkmcnt tie at 7: enum order (lgkmcnt first). */
    T_EQ_I64(r.kind_order[0], AN_STALL_VALU_DEP);
    T_EQ_I64(r.kind_order[1], AN_STALL_WAIT_LGKMCNT);
    T_EQ_I64(r.kind_order[2], AN_STALL_MATRIX_DEP);
    an_stalls_free(&r);
    kr_arena_free(&c.arena);

    /* Empty table. */
    kr_capture e;
    memset(&e, 0, sizeof e);
    T_EQ_I64(an_stalls_compute(&e, &r), 0);
    T_EQ_U64(r.kept_rows, 0);
    T_EQ_U64(r.nhub_seen, 0);
    T_EQ_U64(r.nsources, 0);
    T_EQ_I64(r.hub[0].bucket, AN_HUB_VMEM_WAIT);
    an_stalls_free(&r);
}

/* ---- real captures: docs/hotspots.md#hub-analyzer reference outputs ---- */

typedef struct ref_bucket { an_hub_bucket b; uint64_t stall; } ref_bucket;

static const struct {
    const char *dir;
    uint64_t instrs, total_cycles, total_stall;
    ref_bucket buckets[9];               /* the script's order; stall 0 ends the list */
    /* docs/instruction-classes.md class stall sums: VALU WAITCNT MATRIX VMEM LDS SALU SMEM NOP BARRIER */
    uint64_t cls_stall[9];
} hub_caps[] = {
    {"examples/pa_mqa_logits_fp4/att_viewer/small/ui_output_agent_32435_dispatch_197", 726, 19088, 11820,
     {{AN_HUB_LDS_SMEM_WAIT, 7920}, {AN_HUB_VMEM_WAIT, 2604}, {AN_HUB_OTHER, 1040},
      {AN_HUB_VMEM_LOAD, 160}, {AN_HUB_MFMA_FMA, 80}, {AN_HUB_VMEM_STORE, 16}},
     {880, 10524, 80, 176, 4, 0, 0, 156, 0}},
    {"examples/pa_mqa_logits_fp4/att_viewer/big/ui_output_agent_55351_dispatch_426", 726, 1482216, 791816,
     {{AN_HUB_VMEM_WAIT, 278604}, {AN_HUB_OTHER, 268260}, {AN_HUB_LDS_SMEM_WAIT, 172820},
      {AN_HUB_VMEM_LOAD, 39384}, {AN_HUB_MFMA_FMA, 29712}, {AN_HUB_VMEM_STORE, 2996}, {AN_HUB_SMEM, 40}},
     {259592, 451424, 29712, 42380, 4540, 1184, 40, 2944, 0}},
    {"examples/flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44", 2069, 208060, 107884,
     {{AN_HUB_OTHER, 30096}, {AN_HUB_LDS_SMEM_WAIT, 24556}, {AN_HUB_VMEM_WAIT, 22236},
      {AN_HUB_VMEM_STORE, 10964}, {AN_HUB_MFMA_FMA, 8924}, {AN_HUB_BARRIER, 5236},
      {AN_HUB_VMEM_LOAD, 4416}, {AN_HUB_LDS, 1456}},
     {10224, 46792, 8924, 15380, 1456, 0, 0, 19872, 5236}},
    {"examples/flash_attn_func/att_viewer/small/ui_output_agent_58550_dispatch_44_after_loc_fix", 2069, 342176, 176060,
     {{AN_HUB_OTHER, 49808}, {AN_HUB_LDS_SMEM_WAIT, 40704}, {AN_HUB_VMEM_WAIT, 35928},
      {AN_HUB_VMEM_STORE, 21924}, {AN_HUB_MFMA_FMA, 14176}, {AN_HUB_BARRIER, 8236},
      {AN_HUB_VMEM_LOAD, 2764}, {AN_HUB_LDS, 2520}},
     {17364, 76632, 14176, 24688, 2520, 0, 0, 32444, 8236}},
};

/* The script's rules written again with strstr on a lower-cased copy. */
static int ref_bucket_of(const char *isa)
{
    char a[4096];
    size_t n = 0;
    for (; isa[n] && n + 1 < sizeof a; n++)
        a[n] = (char)tolower((unsigned char)isa[n]);
    a[n] = 0;
#define HAS(x) (strstr(a, x) != NULL)
    if (HAS("s_waitcnt") && HAS("vmcnt")) return AN_HUB_VMEM_WAIT;
    if (HAS("s_waitcnt") && HAS("lgkmcnt")) return AN_HUB_LDS_SMEM_WAIT;
    if (HAS("s_waitcnt") && HAS("expcnt")) return AN_HUB_EXP_WAIT;
    if (HAS("s_waitcnt")) return AN_HUB_WAITCNT;
    if (HAS("s_barrier") || HAS("s_wait_idle")) return AN_HUB_BARRIER;
    if (HAS("buffer_load") || HAS("global_load") || HAS("flat_load")) return AN_HUB_VMEM_LOAD;
    if (HAS("buffer_store") || HAS("global_store")) return AN_HUB_VMEM_STORE;
    if (HAS("ds_read") || HAS("ds_write")) return AN_HUB_LDS;
    if (HAS("s_load") || HAS("s_store")) return AN_HUB_SMEM;
    if (HAS("v_mfma") || HAS("v_fma")) return AN_HUB_MFMA_FMA;
#undef HAS
    return AN_HUB_OTHER;
}

typedef struct ref_group {
    const char *src;
    uint64_t stall, latency, rows;
    uint64_t by[AN_HUB_COUNT];
    int order[AN_HUB_COUNT], norder;
} ref_group;

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
        an_stalls r;
        T_EQ_I64(an_stalls_compute(c, &r), 0);

        /* docs/hotspots.md#hub-analyzer reference outputs, every bucket, in order. */
        T_EQ_U64(r.kept_rows, hub_caps[ci].instrs);
        T_EQ_U64(r.total_cycles, hub_caps[ci].total_cycles);
        T_EQ_U64(r.total_stall, hub_caps[ci].total_stall);
        size_t nref = 0;
        while (nref < 9 && hub_caps[ci].buckets[nref].stall)
            nref++;
        T_EQ_U64(r.nhub_seen, nref);
        for (size_t k = 0; k < nref; k++) {
            T_EQ_I64(r.hub[k].bucket, hub_caps[ci].buckets[k].b);
            T_EQ_U64(r.hub[k].stall, hub_caps[ci].buckets[k].stall);
        }

        /* kreport's taxonomy against the docs/instruction-classes.md per-class stall sums. */
        const uint64_t *cs = hub_caps[ci].cls_stall;
        const an_stall_bucket *k = r.kinds;
        T_EQ_U64(k[AN_STALL_VALU_DEP].stall, cs[0]);
        T_EQ_U64(k[AN_STALL_WAIT_VMCNT].stall + k[AN_STALL_WAIT_LGKMCNT].stall + k[AN_STALL_WAIT_VM_LGKM].stall +
                 k[AN_STALL_WAIT_EXPCNT].stall + k[AN_STALL_WAIT_OTHER].stall, cs[1]);
        T_EQ_U64(k[AN_STALL_MATRIX_DEP].stall, cs[2]);
        T_EQ_U64(k[AN_STALL_VMEM_ISSUE].stall, cs[3]);
        T_EQ_U64(k[AN_STALL_LDS_ISSUE].stall, cs[4]);
        T_EQ_U64(k[AN_STALL_SALU].stall, cs[5]);
        T_EQ_U64(k[AN_STALL_SMEM_ISSUE].stall, cs[6]);
        T_EQ_U64(k[AN_STALL_NOP].stall, cs[7]);
        T_EQ_U64(k[AN_STALL_BARRIER].stall, cs[8]);
        T_EQ_U64(k[AN_STALL_BRANCH].stall + k[AN_STALL_MESSAGE].stall + k[AN_STALL_FLAT_ISSUE].stall +
                 k[AN_STALL_OTHER].stall + k[AN_STALL_WAIT_EXPCNT].stall + k[AN_STALL_WAIT_OTHER].stall, 0);
        /* gfx9 text: the hub's VMEM-wait is every wait naming vmcnt. */
        const an_hub_sum *hv = NULL, *hl = NULL;
        for (size_t j = 0; j < r.nhub_seen; j++) {
            if (r.hub[j].bucket == AN_HUB_VMEM_WAIT) hv = &r.hub[j];
            if (r.hub[j].bucket == AN_HUB_LDS_SMEM_WAIT) hl = &r.hub[j];
        }
        T_CHECK(hv && hl);
        if (hv && hl) {
            T_EQ_U64(k[AN_STALL_WAIT_VMCNT].stall + k[AN_STALL_WAIT_VM_LGKM].stall, hv->stall);
            T_EQ_U64(k[AN_STALL_WAIT_LGKMCNT].stall, hl->stall);
        }
        uint64_t sum_k = 0, rows_k = 0, sum_h = 0;
        for (unsigned j = 0; j < AN_STALL_COUNT; j++) {
            sum_k += k[j].stall;
            rows_k += k[j].rows;
        }
        for (unsigned j = 0; j < AN_HUB_COUNT; j++)
            sum_h += r.hub[j].stall;
        T_EQ_U64(sum_k, r.total_stall);
        T_EQ_U64(sum_h, r.total_stall);
        T_EQ_U64(rows_k, r.nhub_top);
        for (unsigned j = 1; j < AN_STALL_COUNT; j++)
            T_CHECK(k[r.kind_order[j - 1]].stall >= k[r.kind_order[j]].stall);

        /* Independent recomputation from code.json with jansson. */
        snprintf(path, sizeof path, "%s/code.json", dir);
        json_error_t je;
        json_t *doc = json_load_file(path, 0, &je);
        json_t *code = json_object_get(doc, "code");
        size_t nrows = json_array_size(code);
        uint64_t bsum[AN_HUB_COUNT] = {0}, total = 0, stall_total = 0;
        uint64_t w_vm = 0, w_lgkm = 0, w_both = 0;
        int seen[AN_HUB_COUNT], nseen = 0, was_seen[AN_HUB_COUNT] = {0};
        ref_group *g = calloc(nrows, sizeof *g);
        size_t ng = 0;
        uint32_t *top = calloc(nrows, sizeof *top);
        size_t ntop = 0;
        for (size_t i = 0; i < nrows; i++) {
            json_t *row = json_array_get(code, i);
            if (!json_is_integer(json_array_get(row, 2)) || json_integer_value(json_array_get(row, 2)) == 0)
                continue;
            const char *isa = json_string_value(json_array_get(row, 0));
            const char *src = json_string_value(json_array_get(row, 3));
            if (!src || !*src)
                src = "<unknown>";
            uint64_t lat = (uint64_t)json_integer_value(json_array_get(row, 7));
            uint64_t st = (uint64_t)json_integer_value(json_array_get(row, 8));
            total += lat;
            stall_total += st;
            size_t gi = 0;
            while (gi < ng && strcmp(g[gi].src, src) != 0)
                gi++;
            if (gi == ng)
                g[ng++].src = src;
            g[gi].stall += st;
            g[gi].latency += lat;
            g[gi].rows++;
            if (st == 0)
                continue;
            int b = ref_bucket_of(isa);
            if (!was_seen[b]) {
                was_seen[b] = 1;
                seen[nseen++] = b;
            }
            bsum[b] += st;
            if (g[gi].by[b] == 0)
                g[gi].order[g[gi].norder++] = b;
            g[gi].by[b] += st;
            /* stable insertion by stall descending */
            size_t p = ntop;
            while (p > 0 && (uint64_t)json_integer_value(json_array_get(json_array_get(code, top[p - 1]), 8)) < st) {
                top[p] = top[p - 1];
                p--;
            }
            top[p] = (uint32_t)i;
            ntop++;
            if (strncmp(isa, "s_waitcnt ", 10) == 0) {
                int vm = strstr(isa, "vmcnt(") != NULL, lg = strstr(isa, "lgkmcnt(") != NULL;
                if (vm && lg) w_both += st;
                else if (vm) w_vm += st;
                else if (lg) w_lgkm += st;
            }
        }
        T_EQ_U64(r.total_cycles, total);
        T_EQ_U64(r.total_stall, stall_total);
        /* first seen, then stable by cycles */
        for (int i = 1; i < nseen; i++)
            for (int j = i; j > 0 && bsum[seen[j - 1]] < bsum[seen[j]]; j--) {
                int t = seen[j]; seen[j] = seen[j - 1]; seen[j - 1] = t;
            }
        T_EQ_U64(r.nhub_seen, (uint64_t)nseen);
        for (int i = 0; i < nseen && (size_t)i < r.nhub_seen; i++) {
            T_EQ_I64(r.hub[i].bucket, seen[i]);
            T_EQ_U64(r.hub[i].stall, bsum[seen[i]]);
        }
        T_EQ_U64(k[AN_STALL_WAIT_VMCNT].stall, w_vm);
        T_EQ_U64(k[AN_STALL_WAIT_LGKMCNT].stall, w_lgkm);
        T_EQ_U64(k[AN_STALL_WAIT_VM_LGKM].stall, w_both);
        /* source groups: by Σ Stall descending, first seen on ties */
        for (size_t i = 1; i < ng; i++)
            for (size_t j = i; j > 0 && g[j - 1].stall < g[j].stall; j--) {
                ref_group t = g[j]; g[j] = g[j - 1]; g[j - 1] = t;
            }
        T_EQ_U64(r.nsources, ng);
        int groups_ok = r.nsources == ng;
        for (size_t i = 0; groups_ok && i < ng; i++) {
            int dom = AN_HUB_NONE;
            for (int j = 0; j < g[i].norder; j++)
                if (dom == AN_HUB_NONE || g[i].by[g[i].order[j]] > g[i].by[dom])
                    dom = g[i].order[j];
            groups_ok = strcmp(r.sources[i].source, g[i].src) == 0 && r.sources[i].stall == g[i].stall &&
                        r.sources[i].latency == g[i].latency && r.sources[i].rows == g[i].rows &&
                        (int)r.sources[i].dominant == dom;
            if (!groups_ok)
                fprintf(stderr, "source group %zu differs: %s\n", i, g[i].src);
        }
        T_CHECK(groups_ok);
        T_EQ_U64(r.nhub_top, ntop);
        int top_ok = r.nhub_top == ntop;
        for (size_t i = 0; top_ok && i < ntop; i++)
            top_ok = r.hub_top[i] == top[i];
        T_CHECK(top_ok);
        free(g);
        free(top);
        json_decref(doc);
        an_stalls_free(&r);
        bundle_capture_free(c);
    }
}

int main(void)
{
    test_hub_bucket_of();
    test_wait_parse();
    test_kind_of();
    test_compute();
    test_ties();
    const char *hub = t_hub();
    if (hub)
        test_hub(hub);
    else
        printf("test_an_stalls: hub fixtures absent, real-capture checks skipped\n");
    return t_done("test_an_stalls");
}
