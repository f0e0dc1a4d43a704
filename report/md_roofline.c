/* md_roofline.c — the "Speed of light" section of REPORT.md (roofline,
 * counter metrics, saturation; analyzer/roofline.h, counters.h,
 * saturation.h) and its three analysis.json objects "roofline", "counters"
 * and "saturation". Every peak-relative figure names the device and the
 * document of its peak; an unknown device prints none. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/fmt.h"
#include "report/sections.h"
#include "report/util.h"

static const char *fixed(rep_doc *d, double v, int decimals) { return rep_fixed(d, v, decimals); }

static const char *human(rep_doc *d, double v)
{
    char b[48];
    return rep_fmt(d, "%s", kr_fmt_human(b, sizeof b, v < 0 ? 0 : (uint64_t)(v + 0.5)));
}

static const char *pct(rep_doc *d, double frac)
{
    return rep_fmt(d, "%s %%", fixed(d, 100.0 * frac, 1));
}

/* A fraction of a peak; above 1 the work figure or the ceiling is wrong. */
static const char *peak_pct(rep_doc *d, double frac)
{
    return frac > 1.0 ? rep_fmt(d, "%s — above the peak: check the work figure or the ceiling", pct(d, frac))
                      : pct(d, frac);
}

static const char *us(rep_doc *d, uint64_t ns)
{
    return rep_fmt(d, "%s µs", fixed(d, (double)ns / 1000.0, 2));
}

/* "title" <url> of a source key, as Markdown. */
static const char *source_cell(rep_doc *d, const an_hw *hw, const char *key)
{
    const an_hw_source *s = an_hw_find_source(hw, key);
    return s ? rep_fmt(d, "[%s](%s)", rep_md_escape(d, key), s->url) : "—";
}

static void roof_table(rep_doc *d, const an_roofline *r)
{
    rep_table *t = rep_table_new(d, "lrl", "Figure", "Value", "Source", NULL);
    rep_table_row(t, "FLOPs per dispatch", r->has_flops ? human(d, r->flops) : "unknown",
                  r->flops_source ? rep_md_escape(d, r->flops_source) : "—", NULL);
    rep_table_row(t, "HBM bytes per dispatch", r->has_bytes ? human(d, r->bytes) : "unknown",
                  r->bytes_source ? rep_md_escape(d, r->bytes_source) : "—", NULL);
    rep_table_row(t, "Dispatch time", r->has_time ? us(d, r->time_ns) : "unknown",
                  r->time_source && r->time_outlier
                      ? rep_fmt(d, "%s, median of %zu dispatches of the same grid (`dispatch_time_outlier`: the first "
                                   "choice took %s)", rep_md_escape(d, r->time_source), r->time_median_n,
                                us(d, r->time_outlier_ns))
                  : r->time_source ? (r->time_by_id ? rep_fmt(d, "%s, the capture's dispatch id",
                                                            rep_md_escape(d, r->time_source))
                                    : r->time_dispatches > 1
                                        ? rep_fmt(d, "%s, mean of %zu dispatches", rep_md_escape(d, r->time_source),
                                                  r->time_dispatches)
                                        : rep_md_escape(d, r->time_source))
                                 : "—",
                  NULL);
    rep_table_row(t, "Achieved FLOP/s",
                  r->has_achieved_flops ? rep_fmt(d, "%s TFLOP/s", fixed(d, r->achieved_flops_s / 1e12, 2)) : "unknown",
                  "FLOPs / time", NULL);
    rep_table_row(t, "Achieved HBM bandwidth",
                  r->has_achieved_bytes ? rep_fmt(d, "%s GB/s", fixed(d, r->achieved_bytes_s / 1e9, 1)) : "unknown",
                  "bytes / time", NULL);
    rep_table_row(t, "Arithmetic intensity",
                  r->has_intensity ? rep_fmt(d, "%s FLOP/byte", fixed(d, r->intensity, 2)) : "unknown",
                  "FLOPs / bytes", NULL);
    rep_table_row(t, "Compute ceiling",
                  r->has_ceiling ? (r->has_peak_flops ? rep_fmt(d, "%s, %s TFLOP/s",
                                                                 rep_md_code(d, an_ceiling_id(r->unit, r->dtype)),
                                                                 fixed(d, r->peak_flops_s / 1e12, 1))
                                                      : rep_fmt(d, "%s, peak unknown",
                                                                rep_md_code(d, an_ceiling_id(r->unit, r->dtype))))
                                 : "unknown",
                  r->has_peak_flops ? rep_fmt(d, "chosen by %s; peak: %s", rep_md_escape(d, r->ceiling_source),
                                              source_cell(d, r->hw, r->hw->peak_source[r->unit][r->dtype]))
                  : r->has_ceiling ? rep_fmt(d, "chosen by %s", rep_md_escape(d, r->ceiling_source)) : "—",
                  NULL);
    rep_table_row(t, "HBM peak",
                  r->has_peak_bytes ? rep_fmt(d, "%s GB/s", fixed(d, r->peak_bytes_s / 1e9, 0)) : "unknown",
                  r->has_peak_bytes ? source_cell(d, r->hw, r->hw->hbm_source) : "—", NULL);
    rep_table_row(t, "Ridge point",
                  r->has_ridge ? rep_fmt(d, "%s FLOP/byte", fixed(d, r->ridge, 1)) : "unknown",
                  "peak FLOP/s / peak bytes/s", NULL);
    rep_table_row(t, "Bound",
                  r->bound == AN_BOUND_UNKNOWN ? "unknown"
                  : rep_fmt(d, "**%s-bound** (intensity %s× the ridge)", an_roof_bound_id(r->bound),
                            fixed(d, r->margin, 2)),
                  "intensity vs ridge", NULL);
    rep_table_row(t, "% of peak FLOP/s", r->has_pct_flops ? peak_pct(d, r->pct_flops) : "unknown", "", NULL);
    rep_table_row(t, "% of peak HBM bandwidth", r->has_pct_bytes ? peak_pct(d, r->pct_bytes) : "unknown", "", NULL);
    if (r->has_target)
        rep_table_row(t, rep_fmt(d, "Target: %s of the %s peak", pct(d, r->target_pct),
                                 r->target_ceiling == AN_BOUND_MEMORY ? "HBM" : "compute"),
                      r->at_target ? rep_fmt(d, "reached (%s would do)", us(d, r->target_time_ns))
                                   : rep_fmt(d, "%s per dispatch (%s× faster)", us(d, r->target_time_ns),
                                             fixed(d, r->target_speedup, 2)),
                      "work / (target × peak)", NULL);
}

static void ceilings_table(rep_doc *d, const an_roofline *r)
{
    if (!r->nceilings || !r->has_achieved_flops)
        return;
    rep_para(d, "Every compute ceiling of the device (achieved: the FLOPs counted for that data type, or the "
                "total for the chosen ceiling):");
    rep_table *t = rep_table_new(d, "lrrl", "Ceiling", "Peak TFLOP/s", "Achieved", "Source", NULL);
    for (size_t i = 0; i < r->nceilings; i++) {
        const an_roof_ceiling *c = &r->ceilings[i];
        rep_table_row(t, rep_md_code(d, an_ceiling_id(c->unit, c->dtype)), fixed(d, c->peak_flops / 1e12, 1),
                      c->has_pct ? pct(d, c->pct) : "—",
                      source_cell(d, r->hw, r->hw->peak_source[c->unit][c->dtype]), NULL);
    }
}

static void counters_table(rep_doc *d, const an_counters *k)
{
    if (!k->present) {
        rep_para(d, "No counter collection for this kernel (counter_collection.csv beside the capture, in "
                    "pass_N/ or pmc_N/, or results.json counter records).");
        return;
    }
    rep_para(d, "Counters: %zu rows of %zu counters over %zu dispatch%s (%s match); per-dispatch means. "
                "Formulas: `analyzer/counters.h`.",
             k->nrows, k->ncounters, k->ndispatches, k->ndispatches == 1 ? "" : "es", k->match);
    rep_table *t = rep_table_new(d, "lr", "Metric", "Per dispatch", NULL);
    for (int u = 0; u < AN_UNIT_COUNT; u++)
        for (int dt = 0; dt < AN_DT_COUNT; dt++)
            if (k->has_flops[u][dt])
                rep_table_row(t, rep_fmt(d, "%s %s", u == AN_UNIT_MATRIX ? "MFMA" : "VALU",
                                         dt == AN_DT_INT8 ? "INT8 OPs" : rep_fmt(d, "%s FLOPs", an_dtype_id((an_dtype)dt))),
                              human(d, k->flops[u][dt]), NULL);
    if (k->has_read)
        rep_table_row(t, rep_fmt(d, "HBM read bytes (%s)", k->read_formula), human(d, k->read_bytes), NULL);
    if (k->has_write)
        rep_table_row(t, rep_fmt(d, "HBM write bytes (%s)", k->write_formula), human(d, k->write_bytes), NULL);
    if (k->has_l2)
        rep_table_row(t, "L2 hit rate", pct(d, k->l2_hit_rate), NULL);
    if (k->has_lds)
        rep_table_row(t, "LDS bank-conflict rate", pct(d, k->lds_conflict_rate), NULL);
    if (k->has_waves)
        rep_table_row(t, "Waves", human(d, k->waves), NULL);
    if (k->has_busy)
        rep_table_row(t, "Busy cycles", human(d, k->busy_cycles), NULL);
    if (k->has_valu_insts)
        rep_table_row(t, "VALU instructions", human(d, k->valu_insts), NULL);
    if (k->has_mfma_insts)
        rep_table_row(t, "MFMA instructions", human(d, k->mfma_insts), NULL);
}

static void saturation_table(rep_doc *d, const an_saturation *s)
{
    if (!s->known) {
        rep_para(d, "Saturation: unknown (the grid size or the CU count is not known).");
        return;
    }
    rep_table *t = rep_table_new(d, "lr", "Saturation", "Value", NULL);
    rep_table_row(t, "Workgroups × work-items", rep_fmt(d, "%" PRId64 " × %" PRId64, s->workgroups, s->wg_size), NULL);
    rep_table_row(t, rep_fmt(d, "CUs (%s)", s->cu_source), rep_fmt(d, "%" PRId64, s->cu_count), NULL);
    rep_table_row(t, "Workgroups per CU", fixed(d, s->wg_per_cu, 2), NULL);
    rep_table_row(t, "Waves per SIMD from the grid", fixed(d, s->grid_waves_per_simd, 2), NULL);
    rep_table_row(t, "Resource limit", s->wg_per_cu_limit > 0
                  ? rep_fmt(d, "%" PRId64 " workgroups/CU (%u waves/SIMD)", s->wg_per_cu_limit, s->waves_per_simd_limit)
                  : "unknown", NULL);
    if (s->rounds > 0) {
        rep_table_row(t, "Concurrent slots", rep_fmt(d, "%" PRId64, s->slots), NULL);
        rep_table_row(t, "Rounds", rep_fmt(d, "%" PRId64, s->rounds), NULL);
        rep_table_row(t, "Idle slots in the last round", pct(d, s->tail_fraction), NULL);
    }
    rep_table_row(t, "Verdict", rep_fmt(d, "**%s**", s->verdict), NULL);
}

static void sources_list(rep_doc *d, const an_roofline *r)
{
    if (!r->hw)
        return;
    /* Only the documents a printed figure relies on, in table order. */
    for (size_t i = 0; i < r->hw->nsources; i++) {
        const an_hw_source *s = &r->hw->sources[i];
        int used = r->has_peak_bytes && r->hw->hbm_source && strcmp(r->hw->hbm_source, s->key) == 0;
        for (size_t k = 0; !used && k < r->nceilings; k++) {
            const char *src = r->hw->peak_source[r->ceilings[k].unit][r->ceilings[k].dtype];
            used = src && strcmp(src, s->key) == 0;
        }
        if (used)
            rep_item(d, 0, "`%s`: %s — <%s>", s->key, rep_md_escape(d, s->title), s->url);
    }
}

void rep_md_roofline(rep_doc *d, const an_analysis *const *a, const char *const *labels, size_t n)
{
    rep_heading(d, 2, "Speed of light");
    rep_prose(d, "roofline.md");
    for (size_t i = 0; i < n; i++) {
        const an_roofline *r = &a[i]->roofline;
        if (n > 1)
            rep_heading(d, 3, "%s", rep_label(d, labels, i));
        if (r->device)
            rep_para(d, "Device: **%s** (%s).", rep_md_escape(d, r->device),
                     rep_md_escape(d, r->device_note ? r->device_note : ""));
        else
            rep_para(d, "Device: **unknown** — %s. No peak-relative figure is printed.",
                     rep_md_escape(d, r->device_note ? r->device_note : "no hardware table entry"));
        if (!r->has_flops && !r->has_bytes && !r->has_time)
            rep_para(d, "No work or time figure: no counter collection or kernel trace for this kernel, and no "
                        "`--flops`/`--bytes`/`--time-ns` given.");
        else
            roof_table(d, r);
        ceilings_table(d, r);
        counters_table(d, &a[i]->counters);
        saturation_table(d, &a[i]->saturation);
        sources_list(d, r);
    }
}

/* ---- analysis.json ---- */

static json_t *jnum(uint8_t has, double v) { return has && isfinite(v) ? json_real(v) : json_null(); }
static json_t *jstr(const char *s) { return s ? rep_jstr(s) : json_null(); }

void rep_jw_roofline(rep_jw *w, const char *key, const an_roofline *r)
{
    rep_jw_obj(w, key);
    rep_jw_str_or_null(w, "device", r->device);
    rep_jw_str_or_null(w, "device_note", r->device_note);
    rep_jw_str_or_null(w, "kernel", r->kernel);
    rep_jw_real_or_null(w, "flops", r->has_flops, r->flops);
    rep_jw_str_or_null(w, "flops_source", r->flops_source);
    rep_jw_real_or_null(w, "bytes", r->has_bytes, r->bytes);
    rep_jw_str_or_null(w, "bytes_source", r->bytes_source);
    if (r->has_time)
        rep_jw_uint(w, "time_ns", r->time_ns);
    else
        rep_jw_null(w, "time_ns");
    rep_jw_str_or_null(w, "time_source", r->time_source);
    if (r->has_time && r->time_dispatches)
        rep_jw_uint(w, "time_dispatches", r->time_dispatches);
    else
        rep_jw_null(w, "time_dispatches");
    rep_jw_bool(w, "time_by_dispatch_id", r->time_by_id);
    if (r->time_outlier) {
        rep_jw_obj(w, "time_outlier");
        rep_jw_uint(w, "first_choice_ns", r->time_outlier_ns);
        rep_jw_uint(w, "median_ns", r->time_median_ns);
        rep_jw_uint(w, "median_dispatches", r->time_median_n);
        rep_jw_end(w);
    } else {
        rep_jw_null(w, "time_outlier");
    }
    if (r->has_ceiling)
        rep_jw_str(w, "ceiling", an_ceiling_id(r->unit, r->dtype));
    else
        rep_jw_null(w, "ceiling");
    rep_jw_str_or_null(w, "ceiling_source", r->ceiling_source);
    rep_jw_real_or_null(w, "achieved_flops_per_s", r->has_achieved_flops, r->achieved_flops_s);
    rep_jw_real_or_null(w, "achieved_bytes_per_s", r->has_achieved_bytes, r->achieved_bytes_s);
    rep_jw_real_or_null(w, "intensity", r->has_intensity, r->intensity);
    rep_jw_real_or_null(w, "peak_flops_per_s", r->has_peak_flops, r->peak_flops_s);
    rep_jw_real_or_null(w, "peak_bytes_per_s", r->has_peak_bytes, r->peak_bytes_s);
    rep_jw_real_or_null(w, "ridge", r->has_ridge, r->ridge);
    if (r->bound == AN_BOUND_UNKNOWN)
        rep_jw_null(w, "bound");
    else
        rep_jw_str(w, "bound", an_roof_bound_id(r->bound));
    rep_jw_real_or_null(w, "margin", r->bound != AN_BOUND_UNKNOWN, r->margin);
    rep_jw_real_or_null(w, "pct_peak_flops", r->has_pct_flops, r->pct_flops);
    rep_jw_real_or_null(w, "pct_peak_bytes", r->has_pct_bytes, r->pct_bytes);
    if (r->has_target)
        rep_jw_json(w, "target", json_pack("{s:s, s:f, s:I, s:f, s:b}", "ceiling",
                                           an_roof_bound_id(r->target_ceiling), "fraction", r->target_pct,
                                           "time_ns", (json_int_t)r->target_time_ns, "speedup",
                                           r->target_speedup, "reached", (int)r->at_target));
    else
        rep_jw_null(w, "target");
    rep_jw_arr(w, "ceilings");
    for (size_t i = 0; i < r->nceilings; i++) {
        const an_roof_ceiling *c = &r->ceilings[i];
        rep_jw_obj(w, NULL);
        rep_jw_str(w, "ceiling", an_ceiling_id(c->unit, c->dtype));
        rep_jw_real(w, "peak_flops_per_s", c->peak_flops);
        rep_jw_real_or_null(w, "pct", c->has_pct, c->pct);
        rep_jw_str_or_null(w, "source", r->hw->peak_source[c->unit][c->dtype]);
        rep_jw_end(w);
    }
    rep_jw_end(w);
    rep_jw_str_or_null(w, "hbm_source", r->has_peak_bytes ? r->hw->hbm_source : NULL);
    rep_jw_end(w);
}

json_t *rep_json_roofline(const an_roofline *r)
{
    rep_jw w;
    rep_jw_tree(&w);
    rep_jw_roofline(&w, NULL, r);
    return rep_jw_tree_end(&w);
}

void rep_jw_counters(rep_jw *w, const char *key, const an_counters *k)
{
    rep_jw_obj(w, key);
    rep_jw_bool(w, "present", k->present);
    rep_jw_str_or_null(w, "match", k->match);
    rep_jw_uint(w, "rows", k->nrows);
    rep_jw_uint(w, "dispatches", k->ndispatches);
    rep_jw_obj(w, "flops");
    for (int u = 0; u < AN_UNIT_COUNT; u++)
        for (int dt = 0; dt < AN_DT_COUNT; dt++)
            if (k->has_flops[u][dt])
                rep_jw_real(w, an_ceiling_id((an_unit)u, (an_dtype)dt), k->flops[u][dt]);
    rep_jw_end(w);
    rep_jw_real_or_null(w, "flops_total", k->has_flops_total, k->flops_total);
    rep_jw_real_or_null(w, "hbm_read_bytes", k->has_read, k->read_bytes);
    rep_jw_real_or_null(w, "hbm_write_bytes", k->has_write, k->write_bytes);
    rep_jw_str_or_null(w, "read_formula", k->read_formula);
    rep_jw_str_or_null(w, "write_formula", k->write_formula);
    rep_jw_real_or_null(w, "l2_hit_rate", k->has_l2, k->l2_hit_rate);
    rep_jw_real_or_null(w, "lds_bank_conflict_rate", k->has_lds, k->lds_conflict_rate);
    rep_jw_real_or_null(w, "waves", k->has_waves, k->waves);
    rep_jw_real_or_null(w, "busy_cycles", k->has_busy, k->busy_cycles);
    rep_jw_real_or_null(w, "valu_insts", k->has_valu_insts, k->valu_insts);
    rep_jw_real_or_null(w, "mfma_insts", k->has_mfma_insts, k->mfma_insts);
    if (k->duration_ns)
        rep_jw_uint(w, "duration_ns", k->duration_ns);
    else
        rep_jw_null(w, "duration_ns");
    rep_jw_str_or_null(w, "duration_source", k->duration_source);
    rep_jw_end(w);
}

json_t *rep_json_counters(const an_counters *k)
{
    rep_jw w;
    rep_jw_tree(&w);
    rep_jw_counters(&w, NULL, k);
    return rep_jw_tree_end(&w);
}

void rep_jw_saturation(rep_jw *w, const char *key, const an_saturation *s)
{
    rep_jw_obj(w, key);
    rep_jw_int_or_null(w, "workgroups", s->workgroups > 0, s->workgroups);
    rep_jw_int_or_null(w, "wg_size", s->wg_size > 0, s->wg_size);
    if (s->waves_per_wg)
        rep_jw_uint(w, "waves_per_wg", s->waves_per_wg);
    else
        rep_jw_null(w, "waves_per_wg");
    rep_jw_int_or_null(w, "cu_count", s->cu_count > 0, s->cu_count);
    rep_jw_str_or_null(w, "cu_source", s->cu_source);
    rep_jw_real_or_null(w, "wg_per_cu", s->known, s->wg_per_cu);
    rep_jw_real_or_null(w, "grid_waves_per_simd", s->known, s->grid_waves_per_simd);
    rep_jw_int_or_null(w, "wg_per_cu_limit", s->wg_per_cu_limit > 0, s->wg_per_cu_limit);
    rep_jw_int_or_null(w, "slots", s->slots > 0, s->slots);
    rep_jw_int_or_null(w, "rounds", s->rounds > 0, s->rounds);
    rep_jw_real_or_null(w, "tail_fraction", s->rounds > 0, s->tail_fraction);
    rep_jw_str(w, "verdict", s->verdict);
    rep_jw_end(w);
}

json_t *rep_json_saturation(const an_saturation *s)
{
    rep_jw w;
    rep_jw_tree(&w);
    rep_jw_saturation(&w, NULL, s);
    return rep_jw_tree_end(&w);
}

/* ---- compare ---- */

static const char *change_cell(rep_doc *d, const char *figure, uint8_t has, double v)
{
    if (!has)
        return "—";
    if (!strcmp(figure, "time_ns") || !strcmp(figure, "target_time_ns"))
        return us(d, (uint64_t)(v + 0.5));
    if (!strcmp(figure, "achieved_flops_per_s"))
        return rep_fmt(d, "%s TFLOP/s", fixed(d, v / 1e12, 2));
    if (!strcmp(figure, "achieved_bytes_per_s"))
        return rep_fmt(d, "%s GB/s", fixed(d, v / 1e9, 1));
    if (!strcmp(figure, "intensity"))
        return rep_fmt(d, "%s FLOP/byte", fixed(d, v, 2));
    if (!strncmp(figure, "pct_", 4))
        return pct(d, v);
    return human(d, v);
}

void rep_md_roofline_change(rep_doc *d, const an_analysis *best, const an_analysis *cand)
{
    const an_roofline *b = &best->roofline, *c = &cand->roofline;
    an_roof_change ch[AN_ROOF_NCHANGES];
    an_roofline_changes(b, c, ch);
    rep_para(d, "Speed of light (device %s → %s; bound %s → %s):", rep_md_escape(d, b->device ? b->device : "unknown"),
             rep_md_escape(d, c->device ? c->device : "unknown"), an_roof_bound_id(b->bound), an_roof_bound_id(c->bound));
    rep_table *t = rep_table_new(d, "lrrr", "figure", "BEST", "CAND", "change", (const char *)NULL);
    for (int k = 0; k < AN_ROOF_NCHANGES; k++) {
        const an_roof_change *x = &ch[k];
        const char *delta = "—";
        if (x->has_best && x->has_cand)
            delta = !strncmp(x->figure, "pct_", 4) ? rep_fmt(d, "%+.1f pp", 100.0 * x->delta)
                  : x->has_ratio ? rep_fmt(d, "%+.1f %%", 100.0 * (x->ratio - 1.0)) : "—";
        rep_table_row(t, rep_md_code(d, x->figure), change_cell(d, x->figure, x->has_best, x->best),
                      change_cell(d, x->figure, x->has_cand, x->cand), delta, (const char *)NULL);
    }
}

json_t *rep_json_roofline_change(const an_analysis *best, const an_analysis *cand)
{
    const an_roofline *b = &best->roofline, *c = &cand->roofline;
    an_roof_change ch[AN_ROOF_NCHANGES];
    an_roofline_changes(b, c, ch);
    json_t *o = json_object();
    json_object_set_new(o, "device", json_pack("{s:o, s:o}", "best", jstr(b->device), "candidate", jstr(c->device)));
    json_object_set_new(o, "bound", json_pack("{s:o, s:o}", "best",
                                              b->bound == AN_BOUND_UNKNOWN ? json_null() : rep_jstr(an_roof_bound_id(b->bound)),
                                              "candidate",
                                              c->bound == AN_BOUND_UNKNOWN ? json_null() : rep_jstr(an_roof_bound_id(c->bound))));
    json_t *arr = json_array();
    for (int k = 0; k < AN_ROOF_NCHANGES; k++) {
        const an_roof_change *x = &ch[k];
        json_t *e = json_object();
        json_object_set_new(e, "figure", rep_jstr(x->figure));
        json_object_set_new(e, "best", jnum(x->has_best, x->best));
        json_object_set_new(e, "candidate", jnum(x->has_cand, x->cand));
        json_object_set_new(e, "delta", jnum(x->has_best && x->has_cand, x->delta));
        json_object_set_new(e, "ratio", jnum(x->has_ratio, x->ratio));
        json_array_append_new(arr, e);
    }
    json_object_set_new(o, "changes", arr);
    return o;
}
