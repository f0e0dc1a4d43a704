/* md_occupancy.c — the "Occupancy" section (FORMATS.md §6.3, §12): the
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

static const char *fixed(rep_doc *d, double v, int decimals)
{
    char b[48];
    return rep_fmt(d, "%s", kr_fmt_fixed(b, sizeof b, v, decimals));
}

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

static json_t *i64n(int64_t v) { return v < 0 ? json_null() : json_integer((json_int_t)v); }

static json_t *kernel_json(const an_occ_kernel *k)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", rep_jstr(k->name));
    json_object_set_new(o, "label_row", k->label_row == UINT32_MAX ? json_null() : rep_jint(k->label_row));
    json_object_set_new(o, "codeobj", k->codeobj < 0 ? json_null() : json_integer(k->codeobj));
    json_object_set_new(o, "vaddr", k->label_row == UINT32_MAX ? json_null() : rep_jint(k->vaddr));
    json_object_set_new(o, "source", json_string(an_occ_source_id(k->source)));
    json_object_set_new(o, "kernel_id", i64n(k->kernel_id));
    json_object_set_new(o, "csv_dispatch_id", i64n(k->csv_dispatch_id));
    json_t *m = json_object();
    json_object_set_new(m, "v", rep_jint(k->isa_v));
    json_object_set_new(m, "a", rep_jint(k->isa_a));
    json_object_set_new(m, "s", rep_jint(k->isa_s));
    json_object_set_new(o, "isa_marks", m);
    json_t *rep = json_object();
    json_object_set_new(rep, "arch_vgpr", i64n(k->reported_arch_vgpr));
    json_object_set_new(rep, "accum_vgpr", i64n(k->reported_accum_vgpr));
    json_object_set_new(rep, "sgpr", i64n(k->reported_sgpr));
    json_object_set_new(o, "reported", rep);
    json_object_set_new(o, "lds_bytes", i64n(k->lds_bytes));
    json_object_set_new(o, "scratch_bytes", i64n(k->scratch_bytes));
    json_object_set_new(o, "workgroup_size", i64n(k->wg_size));
    json_object_set_new(o, "grid_size", i64n(k->grid_size));
    json_object_set_new(o, "workgroups", i64n(k->workgroups));
    json_object_set_new(o, "under_report", json_boolean(k->under_report));
    json_object_set_new(o, "isa_above_reported", json_boolean(k->isa_above_reported));
    json_object_set_new(o, "vgpr_total", rep_jint(k->v_total));
    json_object_set_new(o, "sgpr", rep_jint(k->sgpr));
    json_object_set_new(o, "waves_per_workgroup", k->waves_per_wg ? rep_jint(k->waves_per_wg) : json_null());
    json_object_set_new(o, "waves_per_simd_per_workgroup",
                        k->waves_per_simd_per_wg ? rep_jint(k->waves_per_simd_per_wg) : json_null());
    json_t *w = json_object();
    for (int l = 0; l < AN_LIM_COUNT; l++)
        json_object_set_new(w, an_occ_lim_id((an_occ_lim)l),
                            k->w_known[l] && k->w[l] >= 0 ? json_integer(k->w[l]) : json_null());
    json_object_set_new(o, "w", w);
    json_object_set_new(o, "lds_unlimited", json_boolean(k->w_known[AN_LIM_LDS] && k->w[AN_LIM_LDS] < 0));
    json_object_set_new(o, "workgroups_per_cu_lds", i64n(k->wg_lds));
    json_object_set_new(o, "workgroup_slots", i64n(k->wg_slots));
    json_object_set_new(o, "waves_per_simd", rep_jint(k->waves_per_simd));
    json_t *lims = json_array();
    for (int l = 0; l < AN_LIM_COUNT; l++)
        if (k->limiter[l])
            json_array_append_new(lims, json_string(an_occ_lim_id((an_occ_lim)l)));
    json_object_set_new(o, "limiters", lims);
    json_object_set_new(o, "limiter", json_string(an_occ_lim_id(k->primary)));
    json_t *nx = json_object();
    json_object_set_new(nx, "waves", k->next_waves ? rep_jint(k->next_waves) : json_null());
    json_object_set_new(nx, "vgpr_max", i64n(k->next_vgpr_max));
    json_object_set_new(nx, "sgpr_max", i64n(k->next_sgpr_max));
    json_object_set_new(nx, "lds_max", i64n(k->next_lds_max));
    json_object_set_new(o, "next_step", nx);
    json_t *g = json_object();
    json_object_set_new(g, "cu_count", i64n(k->cu_count));
    json_object_set_new(g, "workgroups_per_cu_limit", i64n(k->wg_per_cu_limit));
    json_object_set_new(g, "workgroups_per_cu_grid", i64n(k->wg_per_cu_grid));
    json_object_set_new(g, "waves_per_simd", i64n(k->grid_waves_per_simd));
    json_object_set_new(g, "grid_limited", k->wg_per_cu_grid >= 0 ? json_boolean(k->grid_limited) : json_null());
    json_object_set_new(o, "grid", g);
    return o;
}

static json_t *achieved_json(const an_occ_achieved *a)
{
    json_t *o = json_object();
    int p = a->present;
    json_object_set_new(o, "present", json_boolean(p));
    json_object_set_new(o, "aligned", p ? json_boolean(a->aligned) : json_null());
    json_object_set_new(o, "target_cu", p && a->has_target ? rep_jint(a->target_cu) : json_null());
    json_object_set_new(o, "simds_per_cu", rep_jint(a->simds_per_cu));
    json_object_set_new(o, "target_max_waves_per_simd", p && a->has_target ? rep_jint(a->target_max_per_simd) : json_null());
    json_object_set_new(o, "target_mean_waves_per_simd",
                        p && a->has_target ? json_real(a->target_mean_per_simd) : json_null());
    json_object_set_new(o, "max_waves_per_simd", p ? rep_jint(a->max_per_simd) : json_null());
    json_object_set_new(o, "max_waves_per_cu", p ? rep_jint(a->max_per_cu) : json_null());
    json_object_set_new(o, "max_waves_per_se", p ? rep_jint(a->max_per_se) : json_null());
    json_object_set_new(o, "cu_mean_waves_per_simd_min", p ? json_real(a->cu_mean_min) : json_null());
    json_object_set_new(o, "cu_mean_waves_per_simd_max", p ? json_real(a->cu_mean_max) : json_null());
    json_object_set_new(o, "cu_span_mean_waves_per_simd_min", p ? json_real(a->cu_span_mean_min) : json_null());
    json_object_set_new(o, "cu_span_mean_waves_per_simd_max", p ? json_real(a->cu_span_mean_max) : json_null());
    json_object_set_new(o, "span_first", p ? rep_jint(a->span_first) : json_null());
    json_object_set_new(o, "span_last", p ? rep_jint(a->span_last) : json_null());
    json_object_set_new(o, "low_cycles", p && a->has_target ? rep_jint(a->low_cycles) : json_null());
    json_object_set_new(o, "low_total", p && a->has_target ? rep_jint(a->low_total) : json_null());
    json_object_set_new(o, "low_fraction", p && a->has_target && a->low_total ? json_real(a->low_fraction) : json_null());
    json_t *ses = json_array();
    for (size_t i = 0; i < a->nses; i++) {
        json_t *x = json_object();
        json_object_set_new(x, "se", rep_jint(a->ses[i].se));
        json_object_set_new(x, "rows", rep_jint(a->ses[i].rows));
        json_object_set_new(x, "waves", rep_jint(a->ses[i].waves));
        json_object_set_new(x, "max_waves", rep_jint(a->ses[i].max_waves));
        json_object_set_new(x, "offset", json_integer(a->ses[i].offset));
        json_array_append_new(ses, x);
    }
    json_object_set_new(o, "ses", ses);
    json_t *cus = json_array();
    for (size_t i = 0; i < a->ncus; i++) {
        const an_occ_cu *c = &a->cus[i];
        json_t *x = json_object();
        json_object_set_new(x, "se", rep_jint(c->se));
        json_object_set_new(x, "cu", rep_jint(c->cu));
        json_object_set_new(x, "target", json_boolean(c->target));
        json_object_set_new(x, "waves", rep_jint(c->waves));
        json_object_set_new(x, "max_waves", rep_jint(c->max_waves));
        json_object_set_new(x, "max_waves_per_simd", rep_jint(c->max_per_simd));
        json_object_set_new(x, "first", rep_jint(c->first));
        json_object_set_new(x, "last", rep_jint(c->last));
        json_object_set_new(x, "wave_cycles", rep_jint(c->wave_cycles));
        json_object_set_new(x, "mean_waves_per_simd", json_real(c->mean_per_simd));
        json_object_set_new(x, "mean_waves_per_simd_span", json_real(c->mean_per_simd_span));
        json_object_set_new(x, "low_cycles", rep_jint(c->low_cycles));
        json_array_append_new(cus, x);
    }
    json_object_set_new(o, "cus", cus);
    json_t *simds = json_array();
    for (size_t i = 0; i < a->nsimds; i++) {
        const an_occ_simd *s = &a->simds[i];
        json_t *x = json_object();
        json_object_set_new(x, "se", rep_jint(s->se));
        json_object_set_new(x, "cu", rep_jint(s->cu));
        json_object_set_new(x, "simd", rep_jint(s->simd));
        json_object_set_new(x, "max_waves", rep_jint(s->max_waves));
        json_object_set_new(x, "mean_waves", json_real(s->mean_waves));
        json_object_set_new(x, "wave_cycles", rep_jint(s->wave_cycles));
        json_array_append_new(simds, x);
    }
    json_object_set_new(o, "target_simds", simds);
    return o;
}

json_t *rep_json_occupancy(const an_occupancy *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "target", rep_jstr(r->target ? r->target : "unknown"));
    json_object_set_new(o, "target_source", json_string(r->target_source ? r->target_source : "none"));
    json_object_set_new(o, "modelled", json_boolean(r->modelled));
    json_object_set_new(o, "lds_per_cu", i64n(r->lds_per_cu));
    json_object_set_new(o, "cu_count", i64n(r->cu_count));
    json_object_set_new(o, "agent_source", r->agent_source ? json_string(r->agent_source) : json_null());
    json_object_set_new(o, "verdict", json_string(r->verdict ? r->verdict : "unknown"));
    json_t *ks = json_array();
    for (size_t i = 0; i < r->nkernels; i++)
        json_array_append_new(ks, kernel_json(&r->kernels[i]));
    json_object_set_new(o, "kernels", ks);
    json_object_set_new(o, "primary_kernel", r->nkernels ? rep_jint(r->primary) : json_null());
    json_object_set_new(o, "achieved", achieved_json(&r->achieved));
    return o;
}
