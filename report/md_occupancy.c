/* md_occupancy.c — the "Occupancy" section (docs/occupancy.md#resident-waves, docs/occupancy.md): the
 * limiter table (inputs, each W_*, the binding limiter, the next step, the
 * under-report warning and the data source) and the achieved-occupancy
 * table, one column per capture (per kernel when a capture has several);
 * and the analysis.json object of one capture. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/fmt.h"
#include "report/sections.h"
#include "report/util.h"
#include "report/templates.h"

#define MAX_COLS 32

static const char *i64s(rep_doc *d, int64_t v, const char *unknown)
{
    return v < 0 ? unknown : rep_fmt(d, "%" PRId64, v);
}

static const char *fixed(rep_doc *d, double v, int decimals) { return rep_fixed(d, v, decimals); }

/* "3 waves/SIMD needs ≤ 168 VGPRs (have 248)" (each binding limiter). */
static const char *next_step(rep_doc *d, const an_occ_kernel *k)
{
    if (k->next_waves == 0)
        return "already at the maximum of 8 waves/SIMD";
    kr_buf b;
    kr_buf_init(&b);
    kr_buf_printf(&b, "%u waves/SIMD needs ", k->next_waves);
    int parts = 0;
    for (int l = 0; l < AN_LIM_COUNT; l++) {
        if (!k->limiter[l])
            continue;
        const char *sep = parts ? " and " : "";
        switch ((an_occ_lim)l) {
        case AN_LIM_VGPR:
            kr_buf_printf(&b, "%s≤ %" PRId64 " VGPRs (have %u)", sep, k->next_vgpr_max, k->v_total);
            parts++;
            break;
        case AN_LIM_SGPR:
            if (k->next_sgpr_max >= 0) {
                kr_buf_printf(&b, "%s≤ %" PRId64 " SGPRs (have %u)", sep, k->next_sgpr_max, k->sgpr);
                parts++;
            }
            break;
        case AN_LIM_LDS:
            if (k->next_lds_max >= 0) {
                kr_buf_printf(&b, "%s≤ %" PRId64 " bytes of LDS per workgroup (have %" PRId64 ")", sep,
                              k->next_lds_max, k->lds_bytes);
                parts++;
            }
            break;
        case AN_LIM_WG:
            kr_buf_printf(&b, "%sfewer waves per workgroup (workgroup slots bind)", sep);
            parts++;
            break;
        default:
            break;
        }
    }
    const char *s = rep_fmt(d, "%s", kr_buf_cstr(&b));
    kr_buf_free(&b);
    return s;
}

static const char *limiters_text(rep_doc *d, const an_occ_kernel *k)
{
    kr_buf b;
    kr_buf_init(&b);
    for (int l = 0; l < AN_LIM_COUNT; l++)
        if (k->limiter[l])
            kr_buf_printf(&b, "%s%s", b.len ? ", " : "", an_occ_lim_name((an_occ_lim)l));
    const char *s = rep_fmt(d, "%s", kr_buf_cstr(&b));
    kr_buf_free(&b);
    return s;
}

static const char *w_cell(rep_doc *d, const an_occ_kernel *k, an_occ_lim l)
{
    if (!k->w_known[l])
        return "unknown";
    if (k->w[l] < 0)
        return "no limit";
    const char *v = rep_fmt(d, "%" PRId32, k->w[l]);
    return k->limiter[l] ? rep_fmt(d, "**%s**", v) : v;
}

static const char *source_cell(rep_doc *d, const an_occ_kernel *k)
{
    switch (k->source) {
    case AN_OCC_SRC_RESULTS:
        return rep_fmt(d, "results.json (kernel id %" PRId64 ")", k->kernel_id);
    case AN_OCC_SRC_KERNEL_TRACE:
        return rep_fmt(d, "kernel_trace.csv (dispatch %" PRId64 ")", k->csv_dispatch_id);
    case AN_OCC_SRC_ISA_ONLY:
        return "isa-only (estimate from the ISA alone)";
    }
    return "?";
}

typedef struct col {
    const an_occupancy *o;
    const an_occ_kernel *k;
    size_t capture;
} col;

static void limiter_table(rep_doc *d, const col *cols, size_t nc, const char *const *labels, size_t n)
{
    const char *h[MAX_COLS];
    char align[MAX_COLS + 1];
    h[0] = "";
    align[0] = 'l';
    for (size_t i = 0; i < nc; i++) {
        const char *l = rep_label(d, labels, cols[i].capture);
        size_t nk = cols[i].o->nkernels;
        h[i + 1] = nk > 1 ? rep_fmt(d, "%s: %s", l, rep_md_escape(d, cols[i].k->name)) : l;
        align[i + 1] = 'r';
    }
    align[nc + 1] = '\0';
    rep_table *t = rep_table_newv(d, align, h, nc + 1);
    const char *cells[MAX_COLS];
    size_t w = nc + 1;
#define ROW(title, expr)                               \
    do {                                               \
        cells[0] = (title);                            \
        for (size_t i = 0; i < nc; i++) {              \
            const an_occupancy *o = cols[i].o;         \
            const an_occ_kernel *k = cols[i].k;        \
            (void)o;                                   \
            (void)k;                                   \
            cells[i + 1] = (expr);                     \
        }                                              \
        rep_table_rowv(t, cells, w);                   \
    } while (0)

    ROW("kernel", rep_md_code(d, k->name));
    ROW("target", rep_fmt(d, "%s (%s)", rep_md_escape(d, o->target), o->target_source));
    ROW("inputs from", source_cell(d, k));
    ROW("VGPRs reported (arch / AGPR)",
        k->source == AN_OCC_SRC_ISA_ONLY ? "—"
            : rep_fmt(d, "%s / %s", i64s(d, k->reported_arch_vgpr, "?"), i64s(d, k->reported_accum_vgpr, "?")));
    ROW("ISA high-water mark (v / a / s)", rep_fmt(d, "%u / %u / %u", k->isa_v, k->isa_a, k->isa_s));
    ROW("VGPRs allocated (unified)",
        k->under_report ? rep_fmt(d, "%u (under-reported, corrected)", k->v_total)
        : k->isa_above_reported ? rep_fmt(d, "%u (raised to the ISA mark)", k->v_total)
                                : rep_fmt(d, "%u", k->v_total));
    ROW("SGPRs", k->source == AN_OCC_SRC_ISA_ONLY || k->reported_sgpr < 0 ? rep_fmt(d, "≥ %u (ISA)", k->sgpr)
                                                                          : rep_fmt(d, "%u", k->sgpr));
    ROW("static LDS per workgroup (bytes)", i64s(d, k->lds_bytes, "unknown"));
    ROW("workgroup size (waves)",
        k->wg_size > 0 ? rep_fmt(d, "%" PRId64 " (%u)", k->wg_size, k->waves_per_wg) : "unknown");
    ROW("W_vgpr", w_cell(d, k, AN_LIM_VGPR));
    ROW("W_sgpr", w_cell(d, k, AN_LIM_SGPR));
    ROW("W_lds", w_cell(d, k, AN_LIM_LDS));
    ROW("W_wg (workgroup slots)", w_cell(d, k, AN_LIM_WG));
    ROW("**waves per SIMD**", rep_fmt(d, "**%u**", k->waves_per_simd));
    ROW("limited by", limiters_text(d, k));
    ROW("next step", next_step(d, k));
    ROW("grid", k->workgroups > 0 && k->cu_count > 0
                    ? rep_fmt(d, "%" PRId64 " workgroups on %" PRId64 " CUs = %" PRId64 " per CU (limit %s)",
                              k->workgroups, k->cu_count, k->wg_per_cu_grid, i64s(d, k->wg_per_cu_limit, "?"))
                    : "unknown");
    ROW("waves per SIMD the grid allows",
        k->grid_waves_per_simd >= 0
            ? rep_fmt(d, "%" PRId64 "%s", k->grid_waves_per_simd, k->grid_limited ? " (grid-limited)" : "")
            : "unknown");
#undef ROW
}

static void limiter_notes(rep_doc *d, const col *cols, size_t nc, const char *const *labels)
{
    for (size_t i = 0; i < nc; i++) {
        const an_occ_kernel *k = cols[i].k;
        const char *l = rep_label(d, labels, cols[i].capture);
        if (k->under_report)
            rep_para(d, "**Warning (%s):** rocprofv3 under-reported the VGPRs of %s: it reports %" PRId64
                        " arch VGPRs and %" PRId64 " AGPRs, but the ISA uses registers up to v%u. rocprofv3 builds "
                        "without ROCm/rocm-systems PR #5862 report half the gfx950 allocation; kreport uses %u.",
                     l, rep_md_code(d, k->name), k->reported_arch_vgpr,
                     k->reported_accum_vgpr < 0 ? 0 : k->reported_accum_vgpr, k->isa_v ? k->isa_v - 1 : 0,
                     k->v_total);
        if (k->source == AN_OCC_SRC_ISA_ONLY)
            rep_para(d, "%s: no results.json symbol or kernel_trace row for %s: ISA-only estimate. The SGPR count "
                        "is a lower bound and the LDS and workgroup-slot limits are unknown.",
                     l, rep_md_code(d, k->name));
        if (!cols[i].o->modelled)
            rep_para(d, "%s: target %s is not a gfx9 (CDNA) part; the limits above use the gfx9 model.", l,
                     rep_md_escape(d, cols[i].o->target));
    }
}

/* "16 / 24 / 16 / 16" in SE order: rows (what = 0) or wave starts. */
static const char *se_list(rep_doc *d, const an_occ_achieved *a, int what)
{
    kr_buf b;
    kr_buf_init(&b);
    for (size_t s = 0; s < a->nses; s++)
        kr_buf_printf(&b, "%s%" PRIu64, s ? " / " : "", what ? a->ses[s].waves : a->ses[s].rows);
    const char *r = rep_fmt(d, "%s", a->nses ? kr_buf_cstr(&b) : "none");
    kr_buf_free(&b);
    return r;
}

static void achieved_table(rep_doc *d, const an_occupancy *const *r, const char *const *labels, size_t n)
{
    size_t shown = n < MAX_COLS - 1 ? n : MAX_COLS - 1;
    const char *h[MAX_COLS];
    char align[MAX_COLS + 1];
    h[0] = "";
    align[0] = 'l';
    for (size_t i = 0; i < shown; i++) {
        h[i + 1] = rep_label(d, labels, i);
        align[i + 1] = 'r';
    }
    align[shown + 1] = '\0';
    rep_table *t = rep_table_newv(d, align, h, shown + 1);
    const char *cells[MAX_COLS];
    size_t w = shown + 1;
    char b[48];
#define AROW(title, expr)                                           \
    do {                                                            \
        cells[0] = (title);                                         \
        for (size_t i = 0; i < shown; i++) {                        \
            const an_occ_achieved *a = &r[i]->achieved;             \
            cells[i + 1] = a->present ? (expr) : "no occupancy.json"; \
        }                                                           \
        rep_table_rowv(t, cells, w);                                \
    } while (0)

    AROW("target CU", a->has_target ? rep_fmt(d, "CU %u", a->target_cu) : "unknown");
    AROW("max waves per SIMD (target CU)", a->has_target ? rep_fmt(d, "%u", a->target_max_per_simd) : "n/a");
    AROW("mean waves per SIMD (target CU)", a->has_target ? fixed(d, a->target_mean_per_simd, 2) : "n/a");
    AROW("max waves per SIMD (any CU)", rep_fmt(d, "%u", a->max_per_simd));
    AROW("max waves per CU", rep_fmt(d, "%u", a->max_per_cu));
    AROW("max waves per SE", rep_fmt(d, "%u", a->max_per_se));
    AROW("CUs seen", rep_fmt(d, "%zu", a->ncus));
    AROW("per-CU mean waves per SIMD while active (min – max)",
         rep_fmt(d, "%s – %s", fixed(d, a->cu_mean_min, 2), fixed(d, a->cu_mean_max, 2)));
    AROW("per-CU mean waves per SIMD over the dispatch (min – max)",
         rep_fmt(d, "%s – %s", fixed(d, a->cu_span_mean_min, 2), fixed(d, a->cu_span_mean_max, 2)));
    AROW("dispatch span (cycles)",
         rep_fmt(d, "%" PRIu64 " (%s)", a->span_last - a->span_first, a->aligned ? "SE-aligned" : "raw, not aligned"));
    AROW("target CU below half its peak",
         a->has_target ? rep_fmt(d, "%s", kr_fmt_pct(b, sizeof b, (double)a->low_cycles, (double)a->low_total, 1))
                       : "n/a");
    AROW("occupancy rows per SE", se_list(d, a, 0));
    AROW("waves per SE", se_list(d, a, 1));
#undef AROW
    cells[0] = "workgroups / CUs";
    for (size_t i = 0; i < shown; i++) {
        const an_occ_kernel *k = r[i]->nkernels ? &r[i]->kernels[r[i]->primary] : NULL;
        cells[i + 1] = k && k->workgroups > 0 && k->cu_count > 0
                           ? rep_fmt(d, "%" PRId64 " / %" PRId64, k->workgroups, k->cu_count)
                           : "unknown";
    }
    rep_table_rowv(t, cells, w);
    cells[0] = "**verdict**";
    for (size_t i = 0; i < shown; i++)
        cells[i + 1] = rep_fmt(d, "**%s**", r[i]->verdict ? r[i]->verdict : "unknown");
    rep_table_rowv(t, cells, w);
    if (shown < n)
        rep_para(d, "(The first %zu of %zu captures are shown side by side; analysis.json has all.)", shown, n);
}

static void simd_tables(rep_doc *d, const an_occupancy *const *r, const char *const *labels, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const an_occ_achieved *a = &r[i]->achieved;
        if (!a->present || !a->nsimds)
            continue;
        rep_para(d, "%s: resident waves on the SIMDs of the target CU (mean over the CU's first start to last end):",
                 rep_label(d, labels, i));
        rep_table *t = rep_table_new(d, "rrrrr", "SE", "CU", "SIMD", "max waves", "mean waves", (const char *)NULL);
        for (size_t s = 0; s < a->nsimds; s++) {
            const an_occ_simd *x = &a->simds[s];
            rep_table_row(t, rep_fmt(d, "%u", x->se), rep_fmt(d, "%u", x->cu), rep_fmt(d, "%u", x->simd),
                          rep_fmt(d, "%u", x->max_waves), fixed(d, x->mean_waves, 2), (const char *)NULL);
        }
    }
}

void rep_md_occupancy(rep_doc *d, const an_occupancy *const *r, const char *const *labels, size_t n)
{
    rep_heading(d, 2, "Occupancy");
    const char *t = rep_template("occupancy.md", NULL);
    if (t)
        rep_raw(d, t);
    if (n == 0)
        return;

    col cols[MAX_COLS - 1];
    size_t nc = 0, total = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < r[i]->nkernels; k++) {
            total++;
            if (nc < MAX_COLS - 1)
                cols[nc++] = (col){r[i], &r[i]->kernels[k], i};
        }
    rep_heading(d, 3, "Occupancy limit");
    if (nc == 0) {
        rep_para(d, "No kernel in the code table: no limit computed.");
    } else {
        limiter_table(d, cols, nc, labels, n);
        if (nc < total)
            rep_para(d, "(The first %zu of %zu kernels are shown side by side; analysis.json has all.)", nc, total);
        limiter_notes(d, cols, nc, labels);
    }

    rep_heading(d, 3, "Achieved occupancy");
    achieved_table(d, r, labels, n);
    simd_tables(d, r, labels, n);
}

/* ---- analysis.json ---- */

/* v, null when negative (unknown) */
static void i64n(rep_jw *w, const char *key, int64_t v)
{
    rep_jw_int_or_null(w, key, v >= 0, v);
}

static void kernel_json(rep_jw *w, const an_occ_kernel *k)
{
    rep_jw_obj(w, NULL);
    rep_jw_str(w, "name", k->name);
    if (k->label_row == UINT32_MAX)
        rep_jw_null(w, "label_row");
    else
        rep_jw_uint(w, "label_row", k->label_row);
    i64n(w, "codeobj", k->codeobj);
    if (k->label_row == UINT32_MAX)
        rep_jw_null(w, "vaddr");
    else
        rep_jw_uint(w, "vaddr", k->vaddr);
    rep_jw_sym(w, "source", an_occ_source_id(k->source));
    i64n(w, "kernel_id", k->kernel_id);
    i64n(w, "csv_dispatch_id", k->csv_dispatch_id);
    rep_jw_obj(w, "isa_marks");
    rep_jw_uint(w, "v", k->isa_v);
    rep_jw_uint(w, "a", k->isa_a);
    rep_jw_uint(w, "s", k->isa_s);
    rep_jw_end(w);
    rep_jw_obj(w, "reported");
    i64n(w, "arch_vgpr", k->reported_arch_vgpr);
    i64n(w, "accum_vgpr", k->reported_accum_vgpr);
    i64n(w, "sgpr", k->reported_sgpr);
    rep_jw_end(w);
    i64n(w, "lds_bytes", k->lds_bytes);
    i64n(w, "scratch_bytes", k->scratch_bytes);
    i64n(w, "workgroup_size", k->wg_size);
    i64n(w, "grid_size", k->grid_size);
    i64n(w, "workgroups", k->workgroups);
    rep_jw_bool(w, "under_report", k->under_report);
    rep_jw_bool(w, "isa_above_reported", k->isa_above_reported);
    rep_jw_uint(w, "vgpr_total", k->v_total);
    rep_jw_uint(w, "sgpr", k->sgpr);
    if (k->waves_per_wg)
        rep_jw_uint(w, "waves_per_workgroup", k->waves_per_wg);
    else
        rep_jw_null(w, "waves_per_workgroup");
    if (k->waves_per_simd_per_wg)
        rep_jw_uint(w, "waves_per_simd_per_workgroup", k->waves_per_simd_per_wg);
    else
        rep_jw_null(w, "waves_per_simd_per_workgroup");
    rep_jw_obj(w, "w");
    for (int l = 0; l < AN_LIM_COUNT; l++) {
        if (k->w_known[l] && k->w[l] >= 0)
            rep_jw_int(w, an_occ_lim_id((an_occ_lim)l), k->w[l]);
        else
            rep_jw_null(w, an_occ_lim_id((an_occ_lim)l));
    }
    rep_jw_end(w);
    rep_jw_bool(w, "lds_unlimited", k->w_known[AN_LIM_LDS] && k->w[AN_LIM_LDS] < 0);
    i64n(w, "workgroups_per_cu_lds", k->wg_lds);
    i64n(w, "workgroup_slots", k->wg_slots);
    rep_jw_uint(w, "waves_per_simd", k->waves_per_simd);
    rep_jw_arr(w, "limiters");
    for (int l = 0; l < AN_LIM_COUNT; l++)
        if (k->limiter[l])
            rep_jw_sym(w, NULL, an_occ_lim_id((an_occ_lim)l));
    rep_jw_end(w);
    rep_jw_sym(w, "limiter", an_occ_lim_id(k->primary));
    rep_jw_obj(w, "next_step");
    if (k->next_waves)
        rep_jw_uint(w, "waves", k->next_waves);
    else
        rep_jw_null(w, "waves");
    i64n(w, "vgpr_max", k->next_vgpr_max);
    i64n(w, "sgpr_max", k->next_sgpr_max);
    i64n(w, "lds_max", k->next_lds_max);
    rep_jw_end(w);
    rep_jw_obj(w, "grid");
    i64n(w, "cu_count", k->cu_count);
    i64n(w, "workgroups_per_cu_limit", k->wg_per_cu_limit);
    i64n(w, "workgroups_per_cu_grid", k->wg_per_cu_grid);
    i64n(w, "waves_per_simd", k->grid_waves_per_simd);
    if (k->wg_per_cu_grid >= 0)
        rep_jw_bool(w, "grid_limited", k->grid_limited);
    else
        rep_jw_null(w, "grid_limited");
    rep_jw_end(w);
    rep_jw_end(w);
}

static void achieved_json(rep_jw *w, const char *key, const an_occ_achieved *a)
{
    int p = a->present, t = p && a->has_target;
    rep_jw_obj(w, key);
    rep_jw_bool(w, "present", p);
    if (p)
        rep_jw_bool(w, "aligned", a->aligned);
    else
        rep_jw_null(w, "aligned");
    if (t)
        rep_jw_uint(w, "target_cu", a->target_cu);
    else
        rep_jw_null(w, "target_cu");
    rep_jw_uint(w, "simds_per_cu", a->simds_per_cu);
    if (t) {
        rep_jw_uint(w, "target_max_waves_per_simd", a->target_max_per_simd);
        rep_jw_real(w, "target_mean_waves_per_simd", a->target_mean_per_simd);
    } else {
        rep_jw_null(w, "target_max_waves_per_simd");
        rep_jw_null(w, "target_mean_waves_per_simd");
    }
    if (p) {
        rep_jw_uint(w, "max_waves_per_simd", a->max_per_simd);
        rep_jw_uint(w, "max_waves_per_cu", a->max_per_cu);
        rep_jw_uint(w, "max_waves_per_se", a->max_per_se);
        rep_jw_real(w, "cu_mean_waves_per_simd_min", a->cu_mean_min);
        rep_jw_real(w, "cu_mean_waves_per_simd_max", a->cu_mean_max);
        rep_jw_real(w, "cu_span_mean_waves_per_simd_min", a->cu_span_mean_min);
        rep_jw_real(w, "cu_span_mean_waves_per_simd_max", a->cu_span_mean_max);
        rep_jw_uint(w, "span_first", a->span_first);
        rep_jw_uint(w, "span_last", a->span_last);
    } else {
        rep_jw_null(w, "max_waves_per_simd");
        rep_jw_null(w, "max_waves_per_cu");
        rep_jw_null(w, "max_waves_per_se");
        rep_jw_null(w, "cu_mean_waves_per_simd_min");
        rep_jw_null(w, "cu_mean_waves_per_simd_max");
        rep_jw_null(w, "cu_span_mean_waves_per_simd_min");
        rep_jw_null(w, "cu_span_mean_waves_per_simd_max");
        rep_jw_null(w, "span_first");
        rep_jw_null(w, "span_last");
    }
    if (t) {
        rep_jw_uint(w, "low_cycles", a->low_cycles);
        rep_jw_uint(w, "low_total", a->low_total);
    } else {
        rep_jw_null(w, "low_cycles");
        rep_jw_null(w, "low_total");
    }
    if (t && a->low_total)
        rep_jw_real(w, "low_fraction", a->low_fraction);
    else
        rep_jw_null(w, "low_fraction");
    rep_jw_arr(w, "ses");
    for (size_t i = 0; i < a->nses; i++) {
        rep_jw_obj(w, NULL);
        rep_jw_uint(w, "se", a->ses[i].se);
        rep_jw_uint(w, "rows", a->ses[i].rows);
        rep_jw_uint(w, "waves", a->ses[i].waves);
        rep_jw_uint(w, "max_waves", a->ses[i].max_waves);
        rep_jw_int(w, "offset", a->ses[i].offset);
        rep_jw_end(w);
    }
    rep_jw_end(w);
    rep_jw_arr(w, "cus");
    for (size_t i = 0; i < a->ncus; i++) {
        const an_occ_cu *c = &a->cus[i];
        rep_jw_obj(w, NULL);
        rep_jw_uint(w, "se", c->se);
        rep_jw_uint(w, "cu", c->cu);
        rep_jw_bool(w, "target", c->target);
        rep_jw_uint(w, "waves", c->waves);
        rep_jw_uint(w, "max_waves", c->max_waves);
        rep_jw_uint(w, "max_waves_per_simd", c->max_per_simd);
        rep_jw_uint(w, "first", c->first);
        rep_jw_uint(w, "last", c->last);
        rep_jw_uint(w, "wave_cycles", c->wave_cycles);
        rep_jw_real(w, "mean_waves_per_simd", c->mean_per_simd);
        rep_jw_real(w, "mean_waves_per_simd_span", c->mean_per_simd_span);
        rep_jw_uint(w, "low_cycles", c->low_cycles);
        rep_jw_end(w);
    }
    rep_jw_end(w);
    rep_jw_arr(w, "target_simds");
    for (size_t i = 0; i < a->nsimds; i++) {
        const an_occ_simd *s = &a->simds[i];
        rep_jw_obj(w, NULL);
        rep_jw_uint(w, "se", s->se);
        rep_jw_uint(w, "cu", s->cu);
        rep_jw_uint(w, "simd", s->simd);
        rep_jw_uint(w, "max_waves", s->max_waves);
        rep_jw_real(w, "mean_waves", s->mean_waves);
        rep_jw_uint(w, "wave_cycles", s->wave_cycles);
        rep_jw_end(w);
    }
    rep_jw_end(w);
    rep_jw_end(w);
}

void rep_jw_occupancy(rep_jw *w, const char *key, const an_occupancy *r)
{
    rep_jw_obj(w, key);
    rep_jw_str(w, "target", r->target ? r->target : "unknown");
    rep_jw_sym(w, "target_source", r->target_source ? r->target_source : "none");
    rep_jw_bool(w, "modelled", r->modelled);
    i64n(w, "lds_per_cu", r->lds_per_cu);
    i64n(w, "cu_count", r->cu_count);
    if (r->agent_source)
        rep_jw_sym(w, "agent_source", r->agent_source);
    else
        rep_jw_null(w, "agent_source");
    rep_jw_sym(w, "verdict", r->verdict ? r->verdict : "unknown");
    rep_jw_arr(w, "kernels");
    for (size_t i = 0; i < r->nkernels; i++)
        kernel_json(w, &r->kernels[i]);
    rep_jw_end(w);
    if (r->nkernels)
        rep_jw_uint(w, "primary_kernel", r->primary);
    else
        rep_jw_null(w, "primary_kernel");
    achieved_json(w, "achieved", &r->achieved);
    rep_jw_end(w);
}

json_t *rep_json_occupancy(const an_occupancy *r)
{
    rep_jw w;
    rep_jw_tree(&w);
    rep_jw_occupancy(&w, NULL, r);
    return rep_jw_tree_end(&w);
}
