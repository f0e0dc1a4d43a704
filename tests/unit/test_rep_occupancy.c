/* test_rep_occupancy.c — report/md_occupancy.c on hand-built results (the
 * docs/occupancy.md#worked-examples numbers): exact Markdown rows and the exact key
 * sets of the analysis.json object. */
#include "report/sections.h"
#include "tests/unit/t.h"

static int has(const char *md, const char *needle)
{
    int ok = strstr(md, needle) != NULL;
    if (!ok)
        fprintf(stderr, "missing in Markdown: %s\n", needle);
    return ok;
}

static void check_keys(json_t *o, const char *const *keys)
{
    size_t n = 0;
    T_CHECK(json_is_object(o));
    for (; keys[n]; n++)
        if (!json_object_get(o, keys[n])) {
            T_CHECK(!"key missing");
            fprintf(stderr, "missing key %s\n", keys[n]);
        }
    T_EQ_U64(json_object_size(o), n);
}

static an_occ_kernel flash_kernel(void)
{
    an_occ_kernel k;
    memset(&k, 0, sizeof k);
    k.name = "flash_attn_func_kernel_0";
    k.label_row = 0;
    k.codeobj = 4;
    k.vaddr = 5888;
    k.isa_v = 242; k.isa_a = 0; k.isa_s = 35;
    k.source = AN_OCC_SRC_RESULTS;
    k.kernel_id = 195;
    k.csv_dispatch_id = 5;
    k.reported_arch_vgpr = 124; k.reported_accum_vgpr = 0; k.reported_sgpr = 112;
    k.lds_bytes = 49152; k.scratch_bytes = 0;
    k.wg_size = 256; k.grid_size = 131072; k.workgroups = 512;
    k.under_report = 1;
    k.v_total = 248; k.sgpr = 112;
    k.waves_per_wg = 4; k.waves_per_simd_per_wg = 1;
    k.w[AN_LIM_VGPR] = 2; k.w[AN_LIM_SGPR] = 7; k.w[AN_LIM_LDS] = 3; k.w[AN_LIM_WG] = 8;
    for (int l = 0; l < AN_LIM_COUNT; l++)
        k.w_known[l] = 1;
    k.wg_lds = 3; k.wg_slots = 8;
    k.waves_per_simd = 2;
    k.limiter[AN_LIM_VGPR] = 1;
    k.primary = AN_LIM_VGPR;
    k.next_waves = 3; k.next_vgpr_max = 168; k.next_sgpr_max = -1; k.next_lds_max = 54272;
    k.cu_count = 256; k.wg_per_cu_limit = 2; k.wg_per_cu_grid = 2; k.grid_waves_per_simd = 2;
    return k;
}

static an_occ_kernel pa_kernel(void)
{
    an_occ_kernel k = flash_kernel();
    k.name = "pa_mqa_logits_fp4_kernel_0";
    k.codeobj = 22;
    k.vaddr = 6400;
    k.isa_v = 95; k.isa_s = 40;
    k.source = AN_OCC_SRC_KERNEL_TRACE;
    k.kernel_id = 6893;
    k.csv_dispatch_id = 343;
    k.reported_arch_vgpr = 48; k.reported_sgpr = 48;
    k.lds_bytes = 0;
    k.grid_size = 129792; k.workgroups = 507;
    k.v_total = 96; k.sgpr = 48;
    k.w[AN_LIM_VGPR] = 5; k.w[AN_LIM_SGPR] = 8; k.w[AN_LIM_LDS] = -1; k.w[AN_LIM_WG] = 8;
    k.wg_lds = -1;
    k.waves_per_simd = 5;
    k.next_waves = 6; k.next_vgpr_max = 80; k.next_lds_max = -1;
    k.wg_per_cu_limit = 5; k.wg_per_cu_grid = 2; k.grid_waves_per_simd = 2; k.grid_limited = 1;
    return k;
}

static void test_markdown_and_json(void)
{
    an_occ_kernel kf = flash_kernel(), kp = pa_kernel();
    an_occ_se ses[2] = {{.se = 0, .rows = 16, .waves = 8, .max_waves = 8, .offset = 0},
                        {.se = 1, .rows = 24, .waves = 12, .max_waves = 12, .offset = 756}};
    an_occ_cu cus[1] = {{.se = 1, .cu = 1, .target = 1, .waves = 4, .max_waves = 4, .max_per_simd = 1,
                         .first = 100, .last = 1100, .wave_cycles = 3880, .mean_per_simd = 0.97, .low_cycles = 312}};
    an_occ_simd simds[2] = {{.se = 1, .cu = 1, .simd = 0, .max_waves = 1, .mean_waves = 0.96, .wave_cycles = 960},
                            {.se = 1, .cu = 1, .simd = 1, .max_waves = 1, .mean_waves = 1.0, .wave_cycles = 1000}};
    an_occupancy of, op;
    memset(&of, 0, sizeof of);
    of.target = "gfx950";
    of.target_source = "results.json";
    of.modelled = 1;
    of.lds_per_cu = 163840;
    of.cu_count = 256;
    of.agent_source = "results.json";
    of.kernels = &kf;
    of.nkernels = 1;
    of.verdict = "tail";
    /* flash: no occupancy.json */
    op = of;
    op.target_source = "agent_info.csv";
    op.agent_source = "agent_info.csv";
    op.kernels = &kp;
    op.verdict = "grid-limited";
    an_occ_achieved *a = &op.achieved;
    a->present = 1;
    a->aligned = 1;
    a->has_target = 1;
    a->target_cu = 1;
    a->simds_per_cu = 4;
    a->ses = ses; a->nses = 2;
    a->cus = cus; a->ncus = 1;
    a->simds = simds; a->nsimds = 2;
    a->target_max_per_simd = 1;
    a->target_mean_per_simd = 0.9687;
    a->max_per_simd = 1; a->max_per_cu = 4; a->max_per_se = 12;
    a->cu_mean_min = 0.933; a->cu_mean_max = 0.974;
    a->cu_span_mean_min = 0.7; a->cu_span_mean_max = 0.714;
    a->span_first = 173748; a->span_last = 179188;
    a->low_cycles = 312; a->low_total = 5440; a->low_fraction = 312.0 / 5440.0;

    const an_occupancy *r[2] = {&of, &op};
    const char *labels[2] = {"small", "pa"};
    rep_doc *d = rep_doc_new();
    rep_md_occupancy(d, r, labels, 2);
    kr_buf out;
    kr_buf_init(&out);
    rep_doc_markdown(d, &out);
    const char *md = kr_buf_cstr(&out);

    T_CHECK(has(md, "## Occupancy\n"));
    T_CHECK(has(md, "### Occupancy limit\n"));
    T_CHECK(has(md, "|  | small | pa |\n"));
    T_CHECK(has(md, "| kernel | `flash_attn_func_kernel_0` | `pa_mqa_logits_fp4_kernel_0` |\n"));
    T_CHECK(has(md, "| target | gfx950 (results.json) | gfx950 (agent_info.csv) |\n"));
    T_CHECK(has(md, "| inputs from | results.json (kernel id 195) | kernel_trace.csv (dispatch 343) |\n"));
    T_CHECK(has(md, "| VGPRs reported (arch / AGPR) | 124 / 0 | 48 / 0 |\n"));
    T_CHECK(has(md, "| ISA high-water mark (v / a / s) | 242 / 0 / 35 | 95 / 0 / 40 |\n"));
    T_CHECK(has(md, "| VGPRs allocated (unified) | 248 (under-reported, corrected) | 96 (under-reported, corrected) |\n"));
    T_CHECK(has(md, "| SGPRs | 112 | 48 |\n"));
    T_CHECK(has(md, "| static LDS per workgroup (bytes) | 49152 | 0 |\n"));
    T_CHECK(has(md, "| workgroup size (waves) | 256 (4) | 256 (4) |\n"));
    T_CHECK(has(md, "| W_vgpr | **2** | **5** |\n"));
    T_CHECK(has(md, "| W_sgpr | 7 | 8 |\n"));
    T_CHECK(has(md, "| W_lds | 3 | no limit |\n"));
    T_CHECK(has(md, "| W_wg (workgroup slots) | 8 | 8 |\n"));
    T_CHECK(has(md, "| **waves per SIMD** | **2** | **5** |\n"));
    T_CHECK(has(md, "| limited by | VGPR | VGPR |\n"));
    T_CHECK(has(md, "| next step | 3 waves/SIMD needs ≤ 168 VGPRs (have 248) | 6 waves/SIMD needs ≤ 80 VGPRs (have 96) |\n"));
    T_CHECK(has(md, "| grid | 512 workgroups on 256 CUs = 2 per CU (limit 2) | 507 workgroups on 256 CUs = 2 per CU (limit 5) |\n"));
    T_CHECK(has(md, "| waves per SIMD the grid allows | 2 | 2 (grid-limited) |\n"));
    T_CHECK(has(md, "**Warning (small):** rocprofv3 under-reported the VGPRs of `flash_attn_func_kernel_0`: "
                    "it reports 124 arch VGPRs and 0 AGPRs, but the ISA uses registers up to v241."));
    T_CHECK(has(md, "**Warning (pa):** rocprofv3 under-reported the VGPRs of `pa_mqa_logits_fp4_kernel_0`"));
    T_CHECK(has(md, "### Achieved occupancy\n"));
    T_CHECK(has(md, "| target CU | no occupancy.json | CU 1 |\n"));
    T_CHECK(has(md, "| max waves per SIMD (target CU) | no occupancy.json | 1 |\n"));
    T_CHECK(has(md, "| mean waves per SIMD (target CU) | no occupancy.json | 0.97 |\n"));
    T_CHECK(has(md, "| max waves per CU | no occupancy.json | 4 |\n"));
    T_CHECK(has(md, "| max waves per SE | no occupancy.json | 12 |\n"));
    T_CHECK(has(md, "| per-CU mean waves per SIMD while active (min – max) | no occupancy.json | 0.93 – 0.97 |\n"));
    T_CHECK(has(md, "| per-CU mean waves per SIMD over the dispatch (min – max) | no occupancy.json | 0.70 – 0.71 |\n"));
    T_CHECK(has(md, "| dispatch span (cycles) | no occupancy.json | 5440 (SE-aligned) |\n"));
    T_CHECK(has(md, "| target CU below half its peak | no occupancy.json | 5.7 % |\n"));
    T_CHECK(has(md, "| workgroups / CUs | 512 / 256 | 507 / 256 |\n"));
    T_CHECK(has(md, "| occupancy rows per SE | no occupancy.json | 16 / 24 |\n"));
    T_CHECK(has(md, "| waves per SE | no occupancy.json | 8 / 12 |\n"));
    T_CHECK(has(md, "Method: `kreport help occupancy`."));   /* templates/occupancy.md */
    T_CHECK(has(md, "| **verdict** | **tail** | **grid-limited** |\n"));
    T_CHECK(has(md, "| SE | CU | SIMD | max waves | mean waves |\n"));
    T_CHECK(has(md, "| 1 | 1 | 0 | 1 | 0.96 |\n"));
    T_CHECK(has(md, "| 1 | 1 | 1 | 1 | 1.00 |\n"));
    kr_buf_free(&out);
    rep_doc_free(d);

    /* JSON: exact key sets. */
    static const char *const top[] = {"target", "target_source", "modelled", "lds_per_cu", "cu_count",
        "agent_source", "verdict", "kernels", "primary_kernel", "achieved", NULL};
    static const char *const kk[] = {"name", "label_row", "codeobj", "vaddr", "source", "kernel_id",
        "csv_dispatch_id", "isa_marks", "reported", "lds_bytes", "scratch_bytes", "workgroup_size", "grid_size",
        "workgroups", "under_report", "isa_above_reported", "vgpr_total", "sgpr", "waves_per_workgroup",
        "waves_per_simd_per_workgroup", "w", "lds_unlimited", "workgroups_per_cu_lds", "workgroup_slots",
        "waves_per_simd", "limiters", "limiter", "next_step", "grid", NULL};
    static const char *const ak[] = {"present", "aligned", "target_cu", "simds_per_cu",
        "target_max_waves_per_simd", "target_mean_waves_per_simd", "max_waves_per_simd", "max_waves_per_cu",
        "max_waves_per_se", "cu_mean_waves_per_simd_min", "cu_mean_waves_per_simd_max",
        "cu_span_mean_waves_per_simd_min", "cu_span_mean_waves_per_simd_max", "span_first",
        "span_last", "low_cycles", "low_total", "low_fraction", "ses", "cus", "target_simds", NULL};
    static const char *const wk[] = {"vgpr", "sgpr", "lds", "workgroup_slots", NULL};
    static const char *const nk[] = {"waves", "vgpr_max", "sgpr_max", "lds_max", NULL};
    static const char *const gk[] = {"cu_count", "workgroups_per_cu_limit", "workgroups_per_cu_grid",
        "waves_per_simd", "grid_limited", NULL};
    static const char *const sek[] = {"se", "rows", "waves", "max_waves", "offset", NULL};
    static const char *const cuk[] = {"se", "cu", "target", "waves", "max_waves", "max_waves_per_simd", "first",
        "last", "wave_cycles", "mean_waves_per_simd", "mean_waves_per_simd_span", "low_cycles", NULL};
    static const char *const sik[] = {"se", "cu", "simd", "max_waves", "mean_waves", "wave_cycles", NULL};
    static const char *const mk[] = {"v", "a", "s", NULL};
    static const char *const rk[] = {"arch_vgpr", "accum_vgpr", "sgpr", NULL};

    json_t *j = rep_json_occupancy(&of);
    check_keys(j, top);
    json_t *k0 = json_array_get(json_object_get(j, "kernels"), 0);
    check_keys(k0, kk);
    check_keys(json_object_get(k0, "w"), wk);
    check_keys(json_object_get(k0, "next_step"), nk);
    check_keys(json_object_get(k0, "grid"), gk);
    check_keys(json_object_get(k0, "isa_marks"), mk);
    check_keys(json_object_get(k0, "reported"), rk);
    T_EQ_I64(json_integer_value(json_object_get(k0, "vgpr_total")), 248);
    T_EQ_I64(json_integer_value(json_object_get(json_object_get(k0, "w"), "vgpr")), 2);
    T_EQ_I64(json_integer_value(json_object_get(json_object_get(k0, "w"), "lds")), 3);
    T_EQ_I64(json_integer_value(json_object_get(json_object_get(k0, "next_step"), "vgpr_max")), 168);
    T_CHECK(json_is_null(json_object_get(json_object_get(k0, "next_step"), "sgpr_max")));
    T_CHECK(json_is_true(json_object_get(k0, "under_report")));
    T_EQ_STR(json_string_value(json_object_get(k0, "limiter")), "vgpr");
    T_EQ_U64(json_array_size(json_object_get(k0, "limiters")), 1);
    T_EQ_STR(json_string_value(json_object_get(k0, "source")), "results.json");
    T_CHECK(json_is_false(json_object_get(json_object_get(k0, "grid"), "grid_limited")));
    json_t *a0 = json_object_get(j, "achieved");
    check_keys(a0, ak);
    T_CHECK(json_is_false(json_object_get(a0, "present")));
    T_CHECK(json_is_null(json_object_get(a0, "max_waves_per_simd")));
    T_CHECK(json_is_null(json_object_get(a0, "low_fraction")));
    json_decref(j);

    j = rep_json_occupancy(&op);
    check_keys(j, top);
    k0 = json_array_get(json_object_get(j, "kernels"), 0);
    check_keys(k0, kk);
    T_CHECK(json_is_null(json_object_get(json_object_get(k0, "w"), "lds")));
    T_CHECK(json_is_true(json_object_get(k0, "lds_unlimited")));
    T_CHECK(json_is_true(json_object_get(json_object_get(k0, "grid"), "grid_limited")));
    a0 = json_object_get(j, "achieved");
    check_keys(a0, ak);
    T_EQ_I64(json_integer_value(json_object_get(a0, "max_waves_per_cu")), 4);
    T_CHECK(json_is_integer(json_object_get(a0, "span_first")));
    T_EQ_U64(json_array_size(json_object_get(a0, "ses")), 2);
    check_keys(json_array_get(json_object_get(a0, "ses"), 1), sek);
    T_EQ_I64(json_integer_value(json_object_get(json_array_get(json_object_get(a0, "ses"), 1), "offset")), 756);
    check_keys(json_array_get(json_object_get(a0, "cus"), 0), cuk);
    check_keys(json_array_get(json_object_get(a0, "target_simds"), 0), sik);
    json_decref(j);
}

static void test_isa_only_and_ties(void)
{
    an_occ_kernel k = pa_kernel();
    k.source = AN_OCC_SRC_ISA_ONLY;
    k.under_report = 0;
    k.reported_arch_vgpr = k.reported_accum_vgpr = k.reported_sgpr = -1;
    k.sgpr = 40;
    k.lds_bytes = -1;
    k.wg_size = -1;
    k.workgroups = -1;
    k.w_known[AN_LIM_LDS] = k.w_known[AN_LIM_WG] = 0;
    k.w[AN_LIM_LDS] = k.w[AN_LIM_WG] = -1;
    k.wg_per_cu_limit = k.wg_per_cu_grid = k.grid_waves_per_simd = -1;
    k.grid_limited = 0;
    an_occ_kernel t = pa_kernel();     /* 8 waves: VGPR, SGPR and slots tie */
    t.name = "k2";
    t.v_total = 64;
    t.w[AN_LIM_VGPR] = 8;
    t.waves_per_simd = 8;
    t.limiter[AN_LIM_SGPR] = t.limiter[AN_LIM_WG] = 1;
    t.next_waves = 0;
    t.next_vgpr_max = -1;
    t.under_report = 0;
    t.workgroups = -1;
    an_occ_kernel ks[2] = {k, t};
    an_occupancy o;
    memset(&o, 0, sizeof o);
    o.target = "unknown gfx9";
    o.target_source = "none";
    o.modelled = 1;
    o.lds_per_cu = 65536;
    o.cu_count = -1;
    o.kernels = ks;
    o.nkernels = 2;
    o.verdict = "unknown";
    const an_occupancy *r[1] = {&o};
    rep_doc *d = rep_doc_new();
    rep_md_occupancy(d, r, NULL, 1);
    kr_buf out;
    kr_buf_init(&out);
    rep_doc_markdown(d, &out);
    const char *md = kr_buf_cstr(&out);
    /* two kernels of one capture: one column each */
    rep_doc *scratch = rep_doc_new();
    char hdr[256];
    snprintf(hdr, sizeof hdr, "|  | capture 1: %s | capture 1: k2 |\n",
             rep_md_escape(scratch, "pa_mqa_logits_fp4_kernel_0"));
    T_CHECK(has(md, hdr));
    rep_doc_free(scratch);
    T_CHECK(has(md, "| inputs from | isa-only (estimate from the ISA alone) | kernel_trace.csv (dispatch 343) |\n"));
    T_CHECK(has(md, "| VGPRs reported (arch / AGPR) | — | 48 / 0 |\n"));
    T_CHECK(has(md, "| SGPRs | ≥ 40 (ISA) | 48 |\n"));
    T_CHECK(has(md, "| static LDS per workgroup (bytes) | unknown | 0 |\n"));
    T_CHECK(has(md, "| W_lds | unknown | no limit |\n"));
    T_CHECK(has(md, "| W_wg (workgroup slots) | unknown | **8** |\n"));
    T_CHECK(has(md, "| limited by | VGPR | VGPR, SGPR, workgroup slots |\n"));
    T_CHECK(has(md, "| next step | 6 waves/SIMD needs ≤ 80 VGPRs (have 96) | already at the maximum of 8 waves/SIMD |\n"));
    T_CHECK(has(md, "| grid | unknown | unknown |\n"));
    T_CHECK(has(md, "capture 1: no results.json symbol or kernel_trace row for `pa_mqa_logits_fp4_kernel_0`: "
                    "ISA-only estimate."));
    T_CHECK(strstr(md, "**Warning") == NULL);
    T_CHECK(has(md, "| **verdict** | **unknown** |\n"));
    kr_buf_free(&out);
    rep_doc_free(d);

    json_t *j = rep_json_occupancy(&o);
    json_t *k0 = json_array_get(json_object_get(j, "kernels"), 0);
    T_EQ_STR(json_string_value(json_object_get(k0, "source")), "isa-only");
    T_CHECK(json_is_null(json_object_get(json_object_get(k0, "reported"), "arch_vgpr")));
    T_CHECK(json_is_null(json_object_get(json_object_get(k0, "w"), "lds")));
    T_CHECK(json_is_false(json_object_get(k0, "lds_unlimited")));
    T_CHECK(json_is_null(json_object_get(json_object_get(k0, "grid"), "grid_limited")));
    T_CHECK(json_is_null(json_object_get(j, "cu_count")));
    json_t *k1 = json_array_get(json_object_get(j, "kernels"), 1);
    T_EQ_U64(json_array_size(json_object_get(k1, "limiters")), 3);
    T_EQ_STR(json_string_value(json_array_get(json_object_get(k1, "limiters"), 2)), "workgroup_slots");
    T_CHECK(json_is_null(json_object_get(json_object_get(k1, "next_step"), "waves")));
    json_decref(j);
}

int main(void)
{
    test_markdown_and_json();
    test_isa_only_and_ties();
    return t_done("test_rep_occupancy");
}
