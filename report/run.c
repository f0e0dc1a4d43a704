/* run.c — see run.h (LOOP.md §1, §3.3, §3.8, §4). */
#include "report/run.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/doc.h"
#include "report/perf_row.h"
#include "report/util.h"

#define MD_NAME_MAX 160          /* kernel names longer than this are cut in REPORT.md (not in analysis.json) */

static const char *us(rep_doc *d, double ns) { return rep_fmt(d, "%.2f", ns / 1000.0); }

static const char *kname(rep_doc *d, const char *name)
{
    size_t n = strlen(name);
    if (n <= MD_NAME_MAX)
        return rep_md_code(d, name);
    return rep_fmt(d, "%s… (%zu characters)", rep_md_code(d, rep_strn(d, name, MD_NAME_MAX)), n);
}

static const char *names_list(rep_doc *d, char *const *v, size_t n)
{
    if (!n)
        return "—";
    kr_buf b;
    kr_buf_init(&b);
    for (size_t i = 0; i < n; i++)
        kr_buf_printf(&b, "%s%s", i ? ", " : "", kname(d, v[i]));
    const char *s = rep_fmt(d, "%s", kr_buf_cstr(&b));
    kr_buf_free(&b);
    return s;
}

static const char *i64(rep_doc *d, int64_t v) { return v >= 0 ? rep_fmt(d, "%" PRId64, v) : "—"; }

void rep_run_kernel_flag(kr_buf *out, const char *name)
{
    kr_buf_puts(out, "--kernel '^");
    for (const char *p = name; *p; p++) {
        if (*p == '\'')
            kr_buf_puts(out, "'\\''");
        else {
            if (strchr(".[]()*+?{}|^$\\", *p))
                kr_buf_putc(out, '\\');
            kr_buf_putc(out, *p);
        }
    }
    kr_buf_puts(out, "$'");
}

static const char *flag_of(rep_doc *d, const char *name)
{
    kr_buf b;
    kr_buf_init(&b);
    rep_run_kernel_flag(&b, name);
    const char *s = rep_fmt(d, "%s", kr_buf_cstr(&b));
    kr_buf_free(&b);
    return s;
}

static const char *kind_of(const an_kernel_stat *k)
{
    return k->helper ? "runtime helper" : k->framework ? "framework" : "";
}

/* Per kernel: dispatches after the first when there are several (the
 * first warms up), else the one dispatch. */
static const an_desc *warm_of(const an_kernel_stat *k) { return k->all.n > 1 ? &k->rest : &k->all; }

static double spread(const an_desc *d) { return d->n >= 2 && d->median > 0 ? 1.4826 * d->mad / d->median : 0; }

static const char *spread_cell(rep_doc *d, const an_desc *x)
{
    return x->n >= 2 ? rep_fmt(d, "%.1f %%", spread(x) * 100) : "—";
}

static const char *gate_text(rep_doc *d, const an_baseline *b)
{
    const char *src = !strcmp(b->gate_source, "option") ? "from --gate"
                      : !strcmp(b->gate_source, "default") ? "default: every err_* column is 0 on every row"
                      : !strcmp(b->gate_source, "exit_status") ? "no err_* column: the benchmark's exit status (run.meta)"
                      : "no err_* column and no exit status";
    if (b->gate.text)
        return rep_fmt(d, "**%s** — %s (%s), %zu cell%s checked in %s", b->gate_status, rep_md_code(d, b->gate.text), src,
                       b->gate_eval.cells, b->gate_eval.cells == 1 ? "" : "s",
                       b->gate_eval.ncolumns ? names_list(d, b->gate_eval.columns, b->gate_eval.ncolumns) : "no column");
    if (!strcmp(b->gate_source, "exit_status"))
        return rep_fmt(d, "**%s** — %s: %" PRId64, b->gate_status, src, b->exit_code);
    return rep_fmt(d, "**%s** — %s: nothing checks correctness", b->gate_status, src);
}

static const char *capture_command(rep_doc *d, const rep_run_input *in, const char *kernel)
{
    kr_buf b;
    kr_buf_init(&b);
    kr_buf_puts(&b, "rocprofv3 --att --att-target-cu 1 --att-shader-engine-mask 0xf --att-simd-select 0xf \\\n"
                    "    --kernel-trace -f csv json ");
    if (kernel) {
        kr_buf_puts(&b, "--kernel-include-regex ");
        kr_buf b2;
        kr_buf_init(&b2);
        rep_run_kernel_flag(&b2, kernel);
        kr_buf_puts(&b, kr_buf_cstr(&b2) + strlen("--kernel "));
        kr_buf_free(&b2);
        kr_buf_puts(&b, " --kernel-iteration-range '[3]'");
    }
    kr_buf_printf(&b, " \\\n    -d %s/att -o out -- %s\n", in->name, in->side->command ? in->side->command : "BENCHMARK COMMAND");
    const char *s = rep_fmt(d, "%s", kr_buf_cstr(&b));
    kr_buf_free(&b);
    return s;
}

/* ---- Markdown ---- */

static void md_summary(rep_doc *d, const rep_run_input *in)
{
    const an_baseline *b = in->b;
    const an_target *t = &b->target;
    rep_heading(d, 1, "Run %s — %s", rep_md_escape(d, in->name),
                b->has_timing && t->n ? rep_md_escape(d, t->names[0]) : "no kernel timing");
    if (!b->has_timing) {
        rep_para(d, "**No kernel trace**: per-call GPU time cannot be measured on this run (no kernel_trace CSV and no "
                    "results.json with dispatch records). Profile the benchmark into the run directory:");
        rep_code(d, "sh", rep_fmt(d, "rocprofv3 --kernel-trace --stats -f csv -d %s/prof -o discover -- %s\n", in->name,
                                 in->side->command ? in->side->command : "BENCHMARK COMMAND"));
    } else if (!b->target_found) {
        rep_para(d, "**No call of the target kernel set** %s in the trace.", names_list(d, t->names, t->n));
    } else {
        uint64_t set_ns = 0;
        for (size_t i = 0; i < b->nkernels; i++)
            if (b->kernels[i].kernel >= 0)
                set_ns += b->time.kernels[b->kernels[i].kernel].total_ns;
        const char *timing = b->calls.warm_calls
            ? rep_fmt(d, "median %s µs, mean %s µs, spread %s (%zu warm calls of %zu in %zu segment%s)",
                      us(d, b->calls.warm.median), us(d, b->calls.warm.mean), spread_cell(d, &b->calls.warm),
                      b->calls.warm_calls, b->calls.calls, b->calls.segments, b->calls.segments == 1 ? "" : "s")
            : rep_fmt(d, "unknown: no warm call (%zu call%s in %zu segment%s, and the first call of each segment is "
                         "cold); all calls: median %s µs", b->calls.calls, b->calls.calls == 1 ? "" : "s",
                      b->calls.segments, b->calls.segments == 1 ? "" : "s", us(d, b->time.all.median));
        rep_para(d, "**Target kernel set:** %s (%s)%s. **Warm per-call GPU time:** %s.", names_list(d, t->names, t->n),
                 !strcmp(t->how, "option") ? "named by --kernel" : "auto-picked: the largest total GPU time among "
                                                                   "non-framework kernels with >= 3 dispatches",
                 b->total_ns ? rep_fmt(d, ", %.1f %% of GPU time", 100.0 * (double)set_ns / (double)b->total_ns) : "",
                 timing);
    }
    if (b->ncandidates) {
        rep_para(d, "**Target ambiguous:** %zu timed loops outside the framework are close in total time (the runner-up "
                    "has at least a quarter of the pick's). With one run nothing tells which one the loop changes: pin "
                    "the target with one of these flags (each measured here as a target set of its own):",
                 b->ncandidates);
        rep_table *x = rep_table_new(d, "lrrrrrrl", "candidate", "dispatches", "total µs", "share", "warm calls",
                                     "median µs", "spread", "pin with", (const char *)NULL);
        for (size_t i = 0; i < b->ncandidates; i++) {
            const an_baseline_candidate *c = &b->candidates[i];
            rep_table_row(x, kname(d, c->name), rep_fmt(d, "%zu", c->dispatches), us(d, (double)c->total_ns),
                          b->total_ns ? rep_fmt(d, "%.1f %%", 100.0 * (double)c->total_ns / (double)b->total_ns) : "—",
                          rep_fmt(d, "%zu", c->calls.warm_calls), c->calls.warm_calls ? us(d, c->calls.warm.median) : "—",
                          spread_cell(d, &c->calls.warm), rep_md_code(d, flag_of(d, c->name)), (const char *)NULL);
        }
    } else if (b->has_timing && t->runner_up && !strcmp(t->how, "auto")) {
        rep_para(d, "Runner-up: %s (%s µs in total). Pin the target for every later compare: %s.", kname(d, t->runner_up),
                 us(d, (double)t->runner_up_total_ns), rep_md_code(d, flag_of(d, t->names[0])));
    }
    if (b->has_bench) {
        const an_bench_cmp *bc = &b->bench;
        rep_para(d, "**Script metric** %s: %s over %zu row%s. **Correctness gate:** %s.",
                 bc->metric ? rep_md_code(d, bc->metric) : "(none)",
                 bc->metric && b->metric.n ? rep_fmt(d, "row mean %.4g, median %.4g", b->metric.mean, b->metric.median)
                                           : "no usable value",
                 bc->nrows, bc->nrows == 1 ? "" : "s", gate_text(d, b));
    } else {
        rep_para(d, "**No benchmark CSV** (a CSV with a us_* or err_* column): no config classes and no script metric. "
                    "**Correctness gate:** %s.", gate_text(d, b));
    }
    if (b->gate_eval.nfails) {
        rep_para(d, "Failing gate cells:");
        for (size_t i = 0; i < b->gate_eval.nfails && i < 10; i++) {
            const an_gate_fail *f = &b->gate_eval.fails[i];
            const an_bench_csv *csv = &in->side->csvs[f->csv];
            const char *v = an_bench_cell(csv, f->row, f->col);
            rep_item(d, 0, "%s row %zu%s: %s = %s", rep_md_code(d, csv->path), f->row + 1,
                     csv->lines ? rep_fmt(d, " (line %zu)", csv->lines[f->row]) : "", rep_md_code(d, csv->header[f->col]),
                     *v ? rep_md_code(d, v) : "(empty)");
        }
        if (b->gate_eval.nfails > 10)
            rep_item(d, 0, "and %zu more", b->gate_eval.nfails - 10);
    }
}

static void md_row(rep_doc *d, const rep_run_input *in)
{
    rep_heading(d, 2, "performance.md baseline row");
    kr_buf b;
    kr_buf_init(&b);
    rep_perf_row_header(&b, in->b->has_bench ? in->b->bench.metric : NULL);
    rep_run_row(in, &b);
    rep_raw(d, kr_buf_cstr(&b));
    kr_buf_free(&b);
    rep_para(d, "`kreport analyze %s --row` prints the row alone. GPU time is the mean warm per-call time of the "
                "target kernel set over all rows; the script metric column is its row mean.",
             rep_md_escape(d, in->name));
}

static void md_kernels(rep_doc *d, const rep_run_input *in)
{
    const an_baseline *b = in->b;
    if (!b->has_timing)
        return;
    const an_side_time *s = &b->time;
    rep_heading(d, 2, "Kernels");
    rep_para(d, "Every kernel of the trace%s, by total GPU time (%s µs over %zu kernel name%s). Warm: every dispatch but "
                "the kernel's first; spread is 1.4826 × MAD / median.",
             s->used_att_pass ? " (written by an ATT pass: its captured dispatches dropped, timing perturbed)" : "",
             us(d, (double)b->total_ns), s->nkernels, s->nkernels == 1 ? "" : "s");
    rep_table *t = rep_table_new(d, "llrrrrrrl", "kernel", "kind", "dispatches", "total µs", "share", "warm median µs",
                                 "spread", "first µs", "target", (const char *)NULL);
    for (size_t i = 0; i < s->nkernels; i++) {
        const an_kernel_stat *k = &s->kernels[i];
        const an_desc *w = warm_of(k);
        rep_table_row(t, kname(d, k->name), kind_of(k), rep_fmt(d, "%zu", k->all.n), us(d, (double)k->total_ns),
                      b->total_ns ? rep_fmt(d, "%.2f %%", 100.0 * (double)k->total_ns / (double)b->total_ns) : "—",
                      us(d, w->median), spread_cell(d, w),
                      rep_fmt(d, "%s%s", us(d, k->first_ns), k->first_cold ? " (cold)" : ""),
                      an_target_has(&b->target, k->name) ? "yes" : "", (const char *)NULL);
    }
}

static void md_calls(rep_doc *d, const rep_run_input *in)
{
    const an_baseline *b = in->b;
    if (!b->has_timing || !b->target_found)
        return;
    const an_side_time *s = &b->time;
    rep_heading(d, 2, "Calls of the target kernel set");
    rep_para(d, "A call runs from one dispatch of the segment's first target kernel to the next (LOOP.md §3.3); a "
                "segment is a run of target dispatches not interrupted by another non-helper kernel; the first call of "
                "each segment is cold and left out. %zu call%s in %zu segment%s (median %.1f call%s per segment) in %zu "
                "trace%s%s. Row alignment: %s.",
             b->calls.calls, b->calls.calls == 1 ? "" : "s", s->nsegments, s->nsegments == 1 ? "" : "s",
             s->calls_per_segment, s->calls_per_segment == 1 ? "" : "s", s->ntraces_used, s->ntraces_used == 1 ? "" : "s",
             s->segments_with_warm ? rep_fmt(d, "; first call a cold outlier in %zu of %zu segment%s with warm calls "
                                                "(median excess %+.1f %%)", s->cold_segments, s->segments_with_warm,
                                             s->segments_with_warm == 1 ? "" : "s", s->cold_excess * 100)
                                   : "",
             b->row_aligned ? rep_fmt(d, "yes (%zu segment%s per benchmark row)", s->segments_per_row,
                                      s->segments_per_row == 1 ? "" : "s")
                            : b->has_bench ? rep_fmt(d, "no (%zu segments for %zu rows): class GPU times unknown",
                                                     s->nsegments, b->bench.nrows)
                                           : "no benchmark rows");
    rep_table *t = rep_table_new(d, "lrrrrrrr", "calls", "n", "median µs", "mean µs", "min µs", "max µs", "spread",
                                 "outliers", (const char *)NULL);
    const an_desc *x[2] = {&s->all, &s->warm};
    for (int i = 0; i < 2; i++)
        rep_table_row(t, i ? "warm" : "all", rep_fmt(d, "%zu", x[i]->n), x[i]->n ? us(d, x[i]->median) : "—",
                      x[i]->n ? us(d, x[i]->mean) : "—", x[i]->n ? us(d, x[i]->min) : "—",
                      x[i]->n ? us(d, x[i]->max) : "—", spread_cell(d, x[i]), rep_fmt(d, "%zu", x[i]->outliers),
                      (const char *)NULL);
    if (s->calls_per_segment <= 1.0 && s->nsegments > 1)
        rep_para(d, "Most segments hold one call: the kernel found between them is probably part of the call; consider "
                    "adding it to --kernel.");
}

/* "5 waves/SIMD (VGPR); 6 waves need V_total ≤ 80" (FORMATS.md §12.2 next step per limiter). */
static const char *limit_text(rep_doc *d, const an_occ_kernel *k)
{
    kr_buf b, n;
    kr_buf_init(&b);
    kr_buf_init(&n);
    for (int l = 0; l < AN_LIM_COUNT; l++) {
        if (!k->limiter[l])
            continue;
        kr_buf_printf(&b, "%s%s", b.len ? ", " : "", an_occ_lim_name((an_occ_lim)l));
        if (!k->next_waves)
            continue;
        kr_buf_puts(&n, n.len ? " and " : "");
        if (l == AN_LIM_VGPR)
            kr_buf_printf(&n, "V_total ≤ %" PRId64, k->next_vgpr_max);
        else if (l == AN_LIM_SGPR)
            kr_buf_puts(&n, k->next_sgpr_max >= 0 ? rep_fmt(d, "SGPR ≤ %" PRId64, k->next_sgpr_max) : "fewer SGPRs");
        else if (l == AN_LIM_LDS)
            kr_buf_puts(&n, k->next_lds_max >= 0 ? rep_fmt(d, "LDS ≤ %" PRId64 " bytes per workgroup", k->next_lds_max)
                                                 : "less LDS per workgroup");
        else
            kr_buf_puts(&n, "a smaller workgroup");
    }
    const char *s = rep_fmt(d, "%u waves/SIMD (%s)%s", k->waves_per_simd, kr_buf_cstr(&b),
                            k->next_waves ? rep_fmt(d, "; %u waves need %s", k->next_waves, kr_buf_cstr(&n)) : "");
    kr_buf_free(&b);
    kr_buf_free(&n);
    return s;
}

static void md_resources(rep_doc *d, const rep_run_input *in)
{
    const an_baseline *b = in->b;
    if (!b->has_timing || !b->nkernels)
        return;
    rep_heading(d, 2, "Registers, LDS and occupancy limits");
    rep_para(d, "From the kernel trace's first dispatch of each target kernel; limits per FORMATS.md §12.2 for %s%s.",
             b->gpu_target ? rep_md_code(d, b->gpu_target) : "an unknown GPU (gfx9 rules)",
             b->cu_count > 0 ? rep_fmt(d, " with %" PRId64 " CUs", b->cu_count) : "");
    rep_table *t = rep_table_new(d, "lrrrrrrrrrl", "kernel", "arch VGPR", "AGPR", "SGPR", "V_total", "LDS bytes",
                                 "scratch", "WG size", "grid (WGs)", "WGs per CU (grid)", "limit", (const char *)NULL);
    for (size_t i = 0; i < b->nkernels; i++) {
        const an_baseline_kernel *k = &b->kernels[i];
        const an_occ_kernel *o = k->from_capture ? &k->capture_occ : &k->occ;
        const an_occ_kernel *r = &k->occ;
        rep_table_row(t, kname(d, k->name), i64(d, r->reported_arch_vgpr), i64(d, r->reported_accum_vgpr),
                      i64(d, r->reported_sgpr), rep_fmt(d, "%u", o->v_total), i64(d, r->lds_bytes), i64(d, r->scratch_bytes),
                      i64(d, r->wg_size), i64(d, r->workgroups), i64(d, o->wg_per_cu_grid), limit_text(d, o),
                      (const char *)NULL);
    }
    for (size_t i = 0; i < b->nkernels; i++) {
        const an_baseline_kernel *k = &b->kernels[i];
        if (k->from_capture && k->capture_occ.under_report)
            rep_item(d, 0, "%s: rocprofv3 under-reported its VGPRs (FORMATS.md §12.3): the ISA of capture %s uses "
                           "%u VGPRs (highest v%u) against %" PRId64 " reported, so V_total = %u (twice the reported count, at least "
                           "the ISA's need rounded up to 8).",
                     kname(d, k->name), rep_md_code(d, k->capture), k->capture_occ.isa_v,
                     k->capture_occ.isa_v ? k->capture_occ.isa_v - 1 : 0, k->occ.reported_arch_vgpr,
                     k->capture_occ.v_total);
        else if (k->from_capture && k->capture_occ.isa_above_reported)
            rep_item(d, 0, "%s: the ISA of capture %s uses %u VGPRs, more than reported: V_total = %u (FORMATS.md §12.3).",
                     kname(d, k->name), rep_md_code(d, k->capture), k->capture_occ.isa_v, k->capture_occ.v_total);
        else if (k->from_capture)
            rep_item(d, 0, "%s: the ISA of capture %s agrees with the reported counts (%u VGPRs used; V_total %u).",
                     kname(d, k->name), rep_md_code(d, k->capture), k->capture_occ.isa_v, k->capture_occ.v_total);
        else if (k->under_report_possible)
            rep_item(d, 0, "%s: cannot tell whether rocprofv3 under-reported the VGPRs (gfx950 with AGPR 0, FORMATS.md "
                           "§12.3): as reported, %s; if under-reported, V_total = %u and %s. A capture of the kernel "
                           "settles it (below).", kname(d, k->name), limit_text(d, &k->occ), k->occ_doubled.v_total,
                     limit_text(d, &k->occ_doubled));
        /* Grid-limited only when every open reading of the registers says so. */
        const an_occ_kernel *o = k->from_capture ? &k->capture_occ : &k->occ;
        int unsure = !k->from_capture && k->under_report_possible;
        if (o->grid_limited && (!unsure || k->occ_doubled.grid_limited))
            rep_item(d, 0, "%s: grid-limited: %" PRId64 " workgroups on %" PRId64 " CUs give %" PRId64 " per CU, below the "
                           "resource limit of %" PRId64 "%s: at most %" PRId64 " waves/SIMD run at once.", kname(d, k->name),
                     o->workgroups, o->cu_count, o->wg_per_cu_grid, o->wg_per_cu_limit,
                     unsure ? rep_fmt(d, " (%" PRId64 " if under-reported)", k->occ_doubled.wg_per_cu_limit) : "",
                     o->grid_waves_per_simd);
        else if (o->grid_limited)
            rep_item(d, 0, "%s: grid-limited only if the counts are as reported: %" PRId64 " workgroups per CU from the "
                           "grid against a resource limit of %" PRId64 " as reported, %" PRId64 " if under-reported.",
                     kname(d, k->name), o->wg_per_cu_grid, o->wg_per_cu_limit, k->occ_doubled.wg_per_cu_limit);
    }
}

static void md_classes(rep_doc *d, const rep_run_input *in)
{
    const an_baseline *b = in->b;
    if (!b->has_bench)
        return;
    const an_bench_cmp *bc = &b->bench;
    rep_heading(d, 2, "Config classes");
    rep_para(d, "Benchmark CSV %s (%zu row%s%s); config columns %s; classes by %s (%s)%s. GPU: warm per-call time of the "
                "target kernel set over the class's rows%s; script: %s over the class's rows.",
             rep_md_code(d, bc->best->path), bc->nrows, bc->nrows == 1 ? "" : "s",
             b->nplain_csvs > 1 ? rep_fmt(d, "; %zu CSVs of its kind, the first is the metric CSV", b->nplain_csvs) : "",
             names_list(d, bc->config, bc->nconfig), names_list(d, bc->class_cols, bc->nclass_cols), bc->class_source,
             b->nkernel_columns ? rep_fmt(d, ", plus %s which select%s different kernels",
                                          names_list(d, b->kernel_columns, b->nkernel_columns),
                                          b->nkernel_columns == 1 ? "s" : "")
                                : "",
             b->row_aligned ? "" : " (unknown: the trace is not row-aligned)",
             bc->metric ? rep_md_code(d, bc->metric) : "no script metric");
    rep_table *t = rep_table_new(d, "lrrrrrrl", "class", "rows", "warm calls", "GPU median µs", "GPU mean µs", "spread",
                                 "script mean", "kernels", (const char *)NULL);
    for (size_t k = 0; k < b->nclasses; k++) {
        const an_baseline_class *c = &b->classes[k];
        rep_table_row(t, rep_md_escape(d, c->label), rep_fmt(d, "%zu", c->rows), c->gpu.n ? rep_fmt(d, "%zu", c->gpu.n) : "—",
                      c->gpu.n ? us(d, c->gpu.median) : "—", c->gpu.n ? us(d, c->gpu.mean) : "—", spread_cell(d, &c->gpu),
                      c->metric.n ? rep_fmt(d, "%.4g", c->metric.mean) : "—", names_list(d, c->kernels, c->nkernels),
                      (const char *)NULL);
    }
    rep_table_row(t, "**all rows**", rep_fmt(d, "%zu", bc->nrows), b->row_aligned ? rep_fmt(d, "%zu", b->calls.warm_calls) : "—",
                  b->row_aligned ? us(d, b->calls.warm.median) : "—", b->row_aligned ? us(d, b->calls.warm.mean) : "—",
                  b->row_aligned ? spread_cell(d, &b->calls.warm) : "—",
                  b->metric.n ? rep_fmt(d, "%.4g", b->metric.mean) : "—", "", (const char *)NULL);
    for (size_t i = 0; i < bc->nrelabelled; i++)
        rep_item(d, 0, "config column %s never repeats a value: read as a result column", rep_md_code(d, bc->relabelled[i]));
    if (bc->nunpaired_best)
        rep_item(d, 0, "%zu row%s share their config with an earlier row", bc->nunpaired_best,
                 bc->nunpaired_best == 1 ? "" : "s");
}

static void md_captures(rep_doc *d, const rep_run_input *in)
{
    const an_baseline *b = in->b;
    rep_heading(d, 2, "Captures");
    size_t analyzed = 0;
    for (size_t i = 0; i < in->ncaptures; i++)
        analyzed += !strcmp(in->captures[i].status, "analyzed");
    if (in->ncaptures) {
        rep_table *t = rep_table_new(d, "lll", "capture", "kernel", "status", (const char *)NULL);
        for (size_t i = 0; i < in->ncaptures; i++) {
            const rep_run_capture *c = &in->captures[i];
            rep_table_row(t, rep_md_code(d, c->path), *c->kernel ? kname(d, c->kernel) : "—",
                          !strcmp(c->status, "analyzed") ? "analyzed below"
                          : !strcmp(c->status, "empty_shell") ? "empty shell (\"code\": null)"
                                                              : "another kernel: not analyzed",
                          (const char *)NULL);
        }
    }
    if (analyzed) {
        rep_para(d, "The analysis of %zu capture%s follows: where the waves of the target kernel wait.", analyzed,
                 analyzed == 1 ? "" : "s");
        return;
    }
    const char *k = b->has_timing && b->target.n ? b->target.names[0] : NULL;
    rep_para(d, "No ATT capture of the target kernel%s: without one the report cannot say where its waves wait (stalls, "
                "hotspots) or settle the VGPR count. Capture a warm dispatch into the run directory and analyze again "
                "(the regex selects the kernel; the iteration range picks its third dispatch, after the cold ones):",
             in->ncaptures ? " among them" : "");
    rep_code(d, "sh", capture_command(d, in, k));
}

static void md_files(rep_doc *d, const rep_run_input *in)
{
    rep_heading(d, 2, "Files");
    rep_table *t = rep_table_new(d, "lll", "kind", "path", "detail", (const char *)NULL);
    for (size_t i = 0; i < in->nfiles; i++)
        rep_table_row(t, in->files[i].kind, rep_md_code(d, in->files[i].path),
                      in->files[i].detail ? rep_md_escape(d, in->files[i].detail) : "", (const char *)NULL);
    const an_cmp_side *s = in->side;
    rep_para(d, "Command: %s. GPU: %s. run.meta: %s. Identity (trace + CSV bytes): %s.",
             s->command ? rep_md_code(d, s->command) : "unknown",
             s->gpu_product ? rep_fmt(d, "%s %s, %" PRId64 " CUs", rep_md_escape(d, s->gpu_product),
                                      rep_md_escape(d, s->gpu_name ? s->gpu_name : ""), s->cu_count)
                            : s->gpu_name ? rep_md_escape(d, s->gpu_name) : "unknown",
             in->nmeta ? rep_fmt(d, "%zu key%s", in->nmeta, in->nmeta == 1 ? "" : "s") : "none",
             s->identity ? rep_md_code(d, s->identity) : "—");
    rep_para(d, "Re-run: %s", rep_md_code(d, in->rerun ? in->rerun : ""));
}

int rep_run_markdown(const rep_run_input *in, kr_buf *out)
{
    rep_doc *d = rep_doc_new();
    if (!d)
        return KR_INTERNAL;
    md_summary(d, in);
    md_row(d, in);
    md_kernels(d, in);
    md_calls(d, in);
    md_resources(d, in);
    md_classes(d, in);
    md_captures(d, in);
    md_files(d, in);
    rep_doc_markdown(d, out);
    rep_doc_free(d);
    return out->oom ? KR_INTERNAL : 0;
}

/* ---- performance.md row ---- */

static void row_cells(const rep_run_input *in, char *date, char *metric, char *gpu, kr_buf *kernels, rep_perf_row *r)
{
    const an_baseline *b = in->b;
    for (size_t i = 0; b->has_timing && i < b->target.n; i++)
        kr_buf_printf(kernels, "%s%s", i ? ", " : "", b->target.names[i]);
    snprintf(metric, 32, "—");
    if (b->has_bench && b->bench.metric && b->metric.n)
        snprintf(metric, 32, "%.1f", b->metric.mean);
    snprintf(gpu, 32, "—");
    if (b->has_timing && b->target_found && b->calls.warm.n)
        snprintf(gpu, 32, "%.1f", b->calls.warm.mean / 1000.0);
    const char *commit = in->commit ? in->commit : in->side->commit;
    *r = (rep_perf_row){rep_perf_date(in->side->date, in->today, date), commit ? commit : "worktree", "baseline", in->side->command ? in->side->command : "—",
                        "global", kernels->len ? kr_buf_cstr(kernels) : "—", metric, gpu, "—",
                        in->note ? in->note : in->side->hypothesis ? in->side->hypothesis : ""};
}

int rep_run_row(const rep_run_input *in, kr_buf *out)
{
    char date[16], metric[32], gpu[32];
    kr_buf k;
    kr_buf_init(&k);
    rep_perf_row r;
    row_cells(in, date, metric, gpu, &k, &r);
    rep_perf_row_write(out, &r);
    kr_buf_free(&k);
    return out->oom ? KR_INTERNAL : 0;
}

/* ---- analysis.json ---- */

static json_t *jstr(const char *s) { return s ? rep_jstr(s) : json_null(); }
/* obj[key] = v, the key made valid UTF-8 as rep_jstr makes values. */
static void jset(json_t *obj, const char *key, json_t *v)
{
    json_t *k = rep_jstr(key);
    json_object_set_new(obj, json_string_value(k), v);
    json_decref(k);
}

static json_t *jint(int64_t v) { return v >= 0 ? json_integer(v) : json_null(); }
static json_t *jreal(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static json_t *jnames(char *const *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, rep_jstr(v[i]));
    return a;
}

/* Statistics of ns samples, in µs. */
static json_t *jdesc_us(const an_desc *x)
{
    if (!x->n)
        return json_pack("{s:i, s:n, s:n, s:n, s:n, s:n, s:n}", "n", 0, "median_us", "mean_us", "min_us", "max_us",
                         "stddev_us", "spread");
    return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o}", "n", (json_int_t)x->n, "median_us", jreal(x->median / 1000.0),
                     "mean_us", jreal(x->mean / 1000.0), "min_us", jreal(x->min / 1000.0), "max_us",
                     jreal(x->max / 1000.0), "stddev_us", jreal(x->stddev / 1000.0), "spread",
                     x->n >= 2 ? jreal(spread(x)) : json_null());
}

static json_t *jdesc_metric(const an_desc *x)
{
    if (!x->n)
        return json_pack("{s:i, s:n, s:n, s:n, s:n}", "n", 0, "mean", "median", "min", "max");
    return json_pack("{s:I, s:o, s:o, s:o, s:o}", "n", (json_int_t)x->n, "mean", jreal(x->mean), "median",
                     jreal(x->median), "min", jreal(x->min), "max", jreal(x->max));
}

static json_t *jcalls(const an_baseline_calls *c)
{
    return json_pack("{s:I, s:I, s:I, s:o, s:o}", "calls", (json_int_t)c->calls, "warm_calls", (json_int_t)c->warm_calls,
                     "segments", (json_int_t)c->segments, "calls_per_segment", jreal(c->calls_per_segment), "warm",
                     jdesc_us(&c->warm));
}

static json_t *jlimits(const an_occ_kernel *o)
{
    json_t *lim = json_array();
    for (int l = 0; l < AN_LIM_COUNT; l++)
        if (o->limiter[l])
            json_array_append_new(lim, json_string(an_occ_lim_id((an_occ_lim)l)));
    json_t *w = json_object();
    for (int l = 0; l < AN_LIM_COUNT; l++)
        json_object_set_new(w, an_occ_lim_id((an_occ_lim)l), o->w_known[l] && o->w[l] >= 0 ? json_integer(o->w[l]) : json_null());
    return json_pack("{s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:b}", "v_total", (json_int_t)o->v_total, "waves_per_simd",
                     (json_int_t)o->waves_per_simd, "waves_by", w, "limiters", lim, "next_waves",
                     o->next_waves ? json_integer(o->next_waves) : json_null(), "next_vgpr_max", jint(o->next_vgpr_max),
                     "wg_per_cu_limit", jint(o->wg_per_cu_limit), "wg_per_cu_grid", jint(o->wg_per_cu_grid),
                     "grid_limited", o->grid_limited);
}

static json_t *run_json(const rep_run_input *in)
{
    const an_baseline *b = in->b;
    json_t *run = json_object();
    json_object_set_new(run, "name", rep_jstr(in->name));
    json_object_set_new(run, "command", jstr(in->side->command));
    json_object_set_new(run, "gpu", json_pack("{s:o, s:o, s:o, s:o, s:o}", "name", jstr(in->side->gpu_name), "product",
                                              jstr(in->side->gpu_product), "cu_count", jint(in->side->cu_count), "target",
                                              jstr(b->gpu_target), "target_source", jstr(b->gpu_target_source)));
    json_object_set_new(run, "identity", jstr(in->side->identity));
    json_t *meta = json_object();
    for (size_t i = 0; i < in->nmeta; i++)
        jset(meta, in->meta[i].key, rep_jstr(in->meta[i].value));
    json_object_set_new(run, "meta", meta);
    json_t *files = json_array();
    for (size_t i = 0; i < in->nfiles; i++)
        json_array_append_new(files, json_pack("{s:s, s:o, s:o}", "kind", in->files[i].kind, "path", rep_jstr(in->files[i].path),
                                               "detail", jstr(in->files[i].detail)));
    json_object_set_new(run, "files", files);
    json_t *kflags = json_array();
    for (size_t i = 0; i < in->nkernels; i++)
        json_array_append_new(kflags, rep_jstr(in->kernels[i]));
    json_object_set_new(run, "options", json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "kernel", kflags, "gate", jstr(in->gate),
                                                  "metric", jstr(in->metric), "class_by", jstr(in->class_by), "commit",
                                                  jstr(in->commit), "note", jstr(in->note)));

    /* kernels */
    json_t *ks = json_array();
    for (size_t i = 0; b->has_timing && i < b->time.nkernels; i++) {
        const an_kernel_stat *k = &b->time.kernels[i];
        json_array_append_new(ks, json_pack("{s:o, s:s, s:I, s:o, s:o, s:o, s:o, s:b, s:b}", "name", rep_jstr(k->name), "kind",
                                            k->helper ? "helper" : k->framework ? "framework" : "kernel", "dispatches",
                                            (json_int_t)k->all.n, "total_us", jreal((double)k->total_ns / 1000.0), "share",
                                            b->total_ns ? jreal((double)k->total_ns / (double)b->total_ns) : json_null(),
                                            "first_us", jreal(k->first_ns / 1000.0), "warm", jdesc_us(warm_of(k)),
                                            "first_cold", k->first_cold, "target", an_target_has(&b->target, k->name)));
    }
    json_object_set_new(run, "timing", json_pack("{s:b, s:o, s:I, s:b, s:o}", "has_trace", b->has_timing, "total_us",
                                                 b->has_timing ? jreal((double)b->total_ns / 1000.0) : json_null(),
                                                 "traces_used", (json_int_t)b->time.ntraces_used, "att_pass",
                                                 b->time.used_att_pass, "kernels", ks));

    /* target */
    json_t *tg = json_null();
    if (b->has_timing) {
        const an_target *t = &b->target;
        json_t *cands = json_array();
        for (size_t i = 0; i < b->ncandidates; i++) {
            const an_baseline_candidate *c = &b->candidates[i];
            kr_buf f;
            kr_buf_init(&f);
            rep_run_kernel_flag(&f, c->name);
            json_array_append_new(cands, json_pack("{s:o, s:I, s:o, s:o, s:o, s:o}", "name", rep_jstr(c->name), "dispatches",
                                                   (json_int_t)c->dispatches, "total_us", jreal((double)c->total_ns / 1000.0),
                                                   "share", b->total_ns ? jreal((double)c->total_ns / (double)b->total_ns) : json_null(),
                                                   "calls", jcalls(&c->calls), "flag", rep_jstr(kr_buf_cstr(&f))));
            kr_buf_free(&f);
        }
        json_t *res = json_array();
        for (size_t i = 0; i < b->nkernels; i++) {
            const an_baseline_kernel *k = &b->kernels[i];
            const an_occ_kernel *r = &k->occ;
            json_t *cap = json_null();
            if (k->from_capture)
                cap = json_pack("{s:o, s:I, s:I, s:b, s:o}", "path", rep_jstr(k->capture), "isa_vgpr_mark", (json_int_t)k->capture_occ.isa_v,
                                "isa_agpr_mark", (json_int_t)k->capture_occ.isa_a, "under_report", k->capture_occ.under_report,
                                "limits", jlimits(&k->capture_occ));
            json_array_append_new(res, json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:o}",
                                                 "name", rep_jstr(k->name), "arch_vgpr", jint(r->reported_arch_vgpr), "agpr",
                                                 jint(r->reported_accum_vgpr), "sgpr", jint(r->reported_sgpr), "lds_bytes",
                                                 jint(r->lds_bytes), "scratch_bytes", jint(r->scratch_bytes), "workgroup_size",
                                                 jint(r->wg_size), "grid_workgroups", jint(r->workgroups), "limits",
                                                 jlimits(r), "limits_if_under_reported",
                                                 k->under_report_possible ? jlimits(&k->occ_doubled) : json_null(),
                                                 "under_report_possible", k->under_report_possible, "capture", cap,
                                                 "register_source", json_string(k->from_capture ? "capture" : "kernel_trace")));
        }
        kr_buf f;
        kr_buf_init(&f);
        for (size_t i = 0; i < t->n; i++) {
            if (i)
                kr_buf_putc(&f, ' ');
            rep_run_kernel_flag(&f, t->names[i]);
        }
        tg = json_pack("{s:o, s:s, s:o, s:o, s:b, s:o, s:o, s:b, s:o, s:o}", "names", jnames(t->names, t->n), "how", t->how,
                       "flags", t->n ? rep_jstr(kr_buf_cstr(&f)) : json_null(), "runner_up", jstr(t->runner_up),
                       "ambiguous", t->ambiguous && strcmp(t->how, "option") != 0, "candidates", cands, "calls",
                       jcalls(&b->calls), "row_aligned", b->row_aligned, "segments_per_row",
                       b->row_aligned ? json_integer((json_int_t)b->time.segments_per_row) : json_null(), "kernels", res);
        kr_buf_free(&f);
    }
    json_object_set_new(run, "target", tg);

    /* benchmark */
    json_t *bench = json_null();
    if (b->has_bench) {
        const an_bench_cmp *bc = &b->bench;
        json_t *cls = json_array();
        for (size_t k = 0; k < b->nclasses; k++) {
            const an_baseline_class *c = &b->classes[k];
            json_t *vals = json_object();
            for (size_t q = 0; q < bc->nclass_cols; q++)
                jset(vals, bc->class_cols[q], rep_jstr(bc->classes[k].values[q]));
            json_array_append_new(cls, json_pack("{s:o, s:o, s:I, s:o, s:o, s:o}", "label", rep_jstr(c->label), "values", vals, "rows",
                                                 (json_int_t)c->rows, "gpu", jdesc_us(&c->gpu), "metric",
                                                 jdesc_metric(&c->metric), "kernels", jnames(c->kernels, c->nkernels)));
        }
        bench = json_pack("{s:o, s:I, s:o, s:o, s:s, s:o, s:o, s:o, s:o}", "csv", rep_jstr(bc->best->path), "rows",
                          (json_int_t)bc->nrows, "config", jnames(bc->config, bc->nconfig), "class_by",
                          jnames(bc->class_cols, bc->nclass_cols), "class_source", bc->class_source, "kernel_columns",
                          jnames(b->kernel_columns, b->nkernel_columns), "metric", jstr(bc->metric), "metric_stats",
                          jdesc_metric(&b->metric), "classes", cls);
    }
    json_object_set_new(run, "benchmark", bench);

    /* gate */
    json_t *fails = json_array();
    for (size_t i = 0; i < b->gate_eval.nfails; i++) {
        const an_gate_fail *f = &b->gate_eval.fails[i];
        const an_bench_csv *csv = &in->side->csvs[f->csv];
        json_array_append_new(fails, json_pack("{s:o, s:I, s:o, s:o, s:o}", "csv", rep_jstr(csv->path), "row", (json_int_t)f->row + 1,
                                               "line", csv->lines ? json_integer((json_int_t)csv->lines[f->row]) : json_null(),
                                               "column", rep_jstr(csv->header[f->col]), "value", rep_jstr(an_bench_cell(csv, f->row, f->col))));
    }
    json_object_set_new(run, "gate", json_pack("{s:o, s:s, s:s, s:I, s:o, s:o, s:o}", "expression", jstr(b->gate.text),
                                               "source", b->gate_source, "status", b->gate_status, "cells",
                                               (json_int_t)b->gate_eval.cells, "columns",
                                               jnames(b->gate_eval.columns, b->gate_eval.ncolumns), "exit_code",
                                               jint(b->exit_code), "fails", fails));
    json_t *caps = json_array();
    for (size_t i = 0; i < in->ncaptures; i++)
        json_array_append_new(caps, json_pack("{s:o, s:o, s:o, s:s}", "path", rep_jstr(in->captures[i].path), "label",
                                              rep_jstr(in->captures[i].label), "kernel",
                                              *in->captures[i].kernel ? rep_jstr(in->captures[i].kernel) : json_null(),
                                              "status", in->captures[i].status));
    json_object_set_new(run, "captures", caps);

    /* the row */
    char date[16], metric[32], gpu[32];
    kr_buf k, row;
    kr_buf_init(&k);
    kr_buf_init(&row);
    rep_perf_row r;
    row_cells(in, date, metric, gpu, &k, &r);
    rep_perf_row_write(&row, &r);
    size_t rl = row.len;
    while (rl && row.data[rl - 1] == '\n')
        row.data[--rl] = '\0';
    json_object_set_new(run, "row", json_pack("{s:s, s:o, s:o, s:o, s:o}", "status", "baseline", "text", rep_jstr(row.data ? row.data : ""),
                                              "metric_mean", jstr(strcmp(metric, "—") ? metric : NULL), "gpu_time_us",
                                              jstr(strcmp(gpu, "—") ? gpu : NULL), "kernel", rep_jstr(k.len ? kr_buf_cstr(&k) : "—")));
    kr_buf_free(&k);
    kr_buf_free(&row);
    return run;
}

int rep_run_json(const rep_run_input *in, const char *captures_json, kr_buf *out)
{
    json_t *root = json_object();
    json_object_set_new(root, "schema", json_string("kreport.analysis"));
    json_object_set_new(root, "schema_version", json_integer(1));
    json_object_set_new(root, "kreport_version", json_string(KREPORT_VERSION));
    json_object_set_new(root, "input", rep_jstr(in->name));
    json_object_set_new(root, "run", run_json(in));
    json_t *caps = NULL;
    if (captures_json) {
        json_error_t je;
        json_t *doc = json_loads(captures_json, 0, &je);
        caps = doc ? json_incref(json_object_get(doc, "captures")) : NULL;
        json_decref(doc);
        if (!caps) {
            json_decref(root);
            return KR_INTERNAL;
        }
    }
    json_object_set_new(root, "captures", caps ? caps : json_array());
    char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    json_decref(root);
    if (!s)
        return KR_INTERNAL;
    kr_buf_puts(out, s);
    kr_buf_putc(out, '\n');
    free(s);
    return out->oom ? KR_INTERNAL : 0;
}
