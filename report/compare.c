/* compare.c — COMPARE.md, compare.json and the performance.md row of
 * `kreport compare` (docs/compare.md#overall-verdict, docs/compare.md#log-rows).
 *
 * COMPARE.md order: verdict and reasons, warnings, the two sides, the
 * correctness gate, the per-class table, the kernel GPU time, the script
 * metric, the trace explanation per capture pair, the method, files and
 * re-run. compare.json holds the same facts with every key present. */
#include "report/compare.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/classes.h"
#include "analyzer/stalls.h"
#include "report/doc.h"
#include "report/perf_row.h"
#include "report/sections.h"
#include "report/templates.h"

#define MD_MAX_ROWS 64           /* per-row tables longer than this are cut in COMPARE.md */

/* ---- shared helpers ---- */

static const char *side_commit(const rep_cmp_input *in, int cand)
{
    if (cand && in->commit)
        return in->commit;
    const an_cmp_side *s = cand ? in->cand_in : in->best_in;
    return s->commit;
}

static const char *kernel_of(const rep_cmp_input *in)
{
    const an_compare *c = in->cmp;
    if (c->benchmark_only && c->bench.metric)
        return c->bench.metric;
    if (c->target.n)
        return c->target.names[0];
    for (size_t i = 0; i < in->npairs; i++)
        if (in->pairs[i].kernel && *in->pairs[i].kernel)
            return in->pairs[i].kernel;
    return "unknown kernel";
}

static const char *us(rep_doc *d, double ns) { return rep_fmt(d, "%.2f", ns / 1000.0); }
static const char *pc(rep_doc *d, double r) { return rep_fmt(d, "%+.2f %%", r * 100); }

static const char *group_r(rep_doc *d, const an_group *g)
{
    return g->evaluated ? pc(d, g->r) : "—";
}

static const char *group_ci(rep_doc *d, const an_group *g)
{
    if (!g->evaluated || !g->bounded)
        return "—";
    return rep_fmt(d, "%+.2f … %+.2f %%", g->lo * 100, g->hi * 100);
}

static const char *group_value(rep_doc *d, const an_group *g, double v)
{
    if (!g->evaluated)
        return "—";
    return g->source == AN_GROUP_GPU ? us(d, v) : rep_fmt(d, "%.4g", v);
}

static const char *outcome_cell(rep_doc *d, const an_group *g)
{
    const char *t = an_outcome_text(g->outcome);
    if (g->low_confidence)
        return rep_fmt(d, "%s (script, low confidence)", t);
    if (g->source == AN_GROUP_SCRIPT && g->evaluated)
        return rep_fmt(d, "%s (script)", t);
    return t;
}

static const char *names_list(rep_doc *d, char *const *v, size_t n)
{
    if (!n)
        return "—";
    kr_buf b;
    kr_buf_init(&b);
    for (size_t i = 0; i < n; i++)
        kr_buf_printf(&b, "%s%s", i ? ", " : "", rep_md_code(d, v[i]));
    const char *s = rep_fmt(d, "%s", kr_buf_cstr(&b));
    kr_buf_free(&b);
    return s;
}

/* ---- Markdown ---- */

/* What was measured, in the metric's own unit (a TFLOPS gain reads as a
 * gain), and on which rows and kernels. */
static void md_measured(rep_doc *d, const an_compare *c)
{
    const an_group *g = &c->global;
    if (c->provider)
        rep_para(d, "Benchmark harness: provider under test %s (%s); %zu other provider%s listed as reference%s, never "
                 "deciding.", rep_md_code(d, c->provider),
                 !strcmp(c->provider_source, "option") ? "--provider"
                 : !strcmp(c->provider_source, "candidate_commit") ? "the only one with a candidate_commit"
                 : !strcmp(c->provider_source, "changed") ? "the only one whose numbers changed"
                 : !strcmp(c->provider_source, "traced") ? "the only one with per-shape traces" : "the only provider",
                 c->nproviders - 1, c->nproviders == 2 ? "" : "s", c->nproviders == 2 ? "" : "s");
    if (c->benchmark_only && g->evaluated && c->bench.metric) {
        const char *how = c->bench_method && !strcmp(c->bench_method, "replicates")
                              ? rep_fmt(d, "stratified shift of %zu / %zu replicate runs", c->replicates_best, c->replicates_cand)
                              : rep_fmt(d, "geometric mean over %zu rows, signed-rank test", g->n_best);
        if (c->bench.metric_higher) {
            /* time-like r ↔ own unit: x_cand / x_best − 1 = 1 / (1 + r) − 1 */
            if (g->bounded)
                rep_para(d, "Measured: %s %s (95 %% CI %s … %s; %s; higher is better).", rep_md_escape(d, c->bench.metric),
                         pc(d, 1 / (1 + g->r) - 1), pc(d, 1 / (1 + g->hi) - 1), pc(d, 1 / (1 + g->lo) - 1), how);
            else
                rep_para(d, "Measured: %s %s (%s; higher is better; no interval).", rep_md_escape(d, c->bench.metric),
                         pc(d, 1 / (1 + g->r) - 1), how);
        } else {
            rep_para(d, "Measured: %s %s (%s; lower is better).", rep_md_escape(d, c->bench.metric), pc(d, g->r), how);
        }
    }
    if (c->nsevere) {
        rep_para(d, "Rows more than 5 %% worse (%s):", c->severe_known ? "beyond their own noise" : "noise unknown");
        for (size_t i = 0; i < c->nsevere; i++)
            rep_item(d, 0, "%s", rep_md_escape(d, c->severe_rows[i]));
    }
    if (c->nsets) {
        rep_para(d, "Candidate target sets (each measured alone%s):",
                 c->target_resolved ? "; the only one that changed is the target" : "");
        for (size_t i = 0; i < c->nsets; i++) {
            const an_group *sg = &c->sets[i].group;
            rep_item(d, 0, "%s: %s %s (%s); pin with `%s`", names_list(d, c->sets[i].names, c->sets[i].n),
                     sg->evaluated ? pc(d, sg->r) : "—", group_ci(d, sg), an_outcome_text(sg->outcome),
                     c->sets[i].flags ? c->sets[i].flags : "");
        }
    }
}

static void md_verdict(rep_doc *d, const rep_cmp_input *in)
{
    const an_compare *c = in->cmp;
    rep_heading(d, 1, "%s — %s", c->verdict_text, rep_md_escape(d, kernel_of(in)));
    rep_para(d, "**Verdict: %s.** %s", rep_md_escape(d, c->verdict_text),
             c->reasons.n ? rep_md_escape(d, c->reasons.v[0].text) : "");
    for (size_t i = 1; i < c->reasons.n; i++)
        rep_item(d, 0, "%s", rep_md_escape(d, c->reasons.v[i].text));
    const char *action = NULL;
    switch (c->verdict) {
    case AN_V_KEEP: action = "format the code, re-run into a second candidate and compare again; if still keep, commit and append the `--row` line to performance.md"; break;
    case AN_V_TIE: action = "revert to BEST"; break;
    case AN_V_DISCARD: action = "revert; this counts as a measured regression (`--row` prints the regression summary)"; break;
    case AN_V_INCONCLUSIVE: action = "re-run with more iterations and compare again; if still undecided, treat as tie"; break;
    case AN_V_SPLIT: action = "revert the single-kernel version; if the divergence is stable and explainable, add a specialized kernel with a dispatch rule and compare again"; break;
    case AN_V_FAIL: action = c->fail_kind && !strcmp(c->fail_kind, "gate") ? "repair subflow: up to 3 minimal fixes keeping the hypothesis, each re-benchmarked" : "revert"; break;
    }
    rep_para(d, "Loop action (`kreport help compare`): %s. Counts as a regression: %s.", action, c->counts_as_regression ? "yes" : "no");
    md_measured(d, c);
    if (c->warnings.n) {
        rep_para(d, "Warnings:");
        for (size_t i = 0; i < c->warnings.n; i++)
            rep_item(d, 0, "%s: %s", rep_md_code(d, c->warnings.v[i].id), rep_md_escape(d, c->warnings.v[i].text));
    }
}

static const char *files_of(rep_doc *d, const rep_cmp_side *s, const char *kind1, const char *kind2)
{
    kr_buf b;
    kr_buf_init(&b);
    size_t n = 0;
    for (size_t i = 0; i < s->nfiles; i++) {
        if (strcmp(s->files[i].kind, kind1) && (!kind2 || strcmp(s->files[i].kind, kind2)))
            continue;
        if (n < 6) {
            kr_buf_printf(&b, "%s%s", n ? "<br>" : "", rep_md_code(d, s->files[i].path));
            if (s->files[i].detail)
                kr_buf_printf(&b, " (%s)", rep_md_escape(d, s->files[i].detail));
            if (kind2 && !strcmp(s->files[i].kind, kind2))
                kr_buf_printf(&b, " [%s]", !strcmp(kind2, "kernel_trace_att") ? "ATT pass"
                                           : !strcmp(kind2, "capture_shell") ? "empty shell" : "profiled");
        }
        n++;
    }
    if (n > 6)
        kr_buf_printf(&b, "<br>and %zu more", n - 6);
    const char *r = n ? rep_fmt(d, "%s", kr_buf_cstr(&b)) : "none";
    kr_buf_free(&b);
    return r;
}

static void md_sides(rep_doc *d, const rep_cmp_input *in)
{
    rep_heading(d, 2, "Inputs");
    const an_cmp_side *sb = in->best_in, *sc = in->cand_in;
    rep_table *t = rep_table_new(d, "lll", "", "BEST", "CANDIDATE", (const char *)NULL);
    rep_table_row(t, "path", rep_md_code(d, in->best.path), rep_md_code(d, in->cand.path), (const char *)NULL);
    const char *cb = side_commit(in, 0), *cc = side_commit(in, 1);
    rep_table_row(t, "commit", cb ? rep_md_escape(d, cb) : "—", cc ? rep_md_escape(d, cc) : "—", (const char *)NULL);
    rep_table_row(t, "benchmark CSVs", files_of(d, &in->best, "benchmark_csv", "benchmark_csv_profiled"),
                  files_of(d, &in->cand, "benchmark_csv", "benchmark_csv_profiled"), (const char *)NULL);
    rep_table_row(t, "kernel traces", files_of(d, &in->best, "kernel_trace", "kernel_trace_att"),
                  files_of(d, &in->cand, "kernel_trace", "kernel_trace_att"), (const char *)NULL);
    rep_table_row(t, "results.json", files_of(d, &in->best, "results_json", NULL), files_of(d, &in->cand, "results_json", NULL),
                  (const char *)NULL);
    rep_table_row(t, "captures", files_of(d, &in->best, "capture", "capture_shell"),
                  files_of(d, &in->cand, "capture", "capture_shell"), (const char *)NULL);
    rep_table_row(t, "command", sb->command ? rep_md_escape(d, sb->command) : "—",
                  sc->command ? rep_md_escape(d, sc->command) : "—", (const char *)NULL);
    rep_table_row(t, "GPU", sb->gpu_product ? rep_fmt(d, "%s %s, %" PRId64 " CUs", rep_md_escape(d, sb->gpu_product),
                                                    rep_md_escape(d, sb->gpu_name ? sb->gpu_name : ""), sb->cu_count) : "—",
                  sc->gpu_product ? rep_fmt(d, "%s %s, %" PRId64 " CUs", rep_md_escape(d, sc->gpu_product),
                                            rep_md_escape(d, sc->gpu_name ? sc->gpu_name : ""), sc->cu_count) : "—",
                  (const char *)NULL);
    rep_table_row(t, "exit status (run.meta)", sb->exit_code >= 0 ? rep_fmt(d, "%" PRId64, sb->exit_code) : "—",
                  sc->exit_code >= 0 ? rep_fmt(d, "%" PRId64, sc->exit_code) : "—", (const char *)NULL);
    rep_table_row(t, "logs", files_of(d, &in->best, "log", NULL), files_of(d, &in->cand, "log", NULL), (const char *)NULL);
    rep_table_row(t, "identity (trace + CSV bytes)", sb->identity ? rep_md_code(d, sb->identity) : "—",
                  sc->identity ? rep_md_code(d, sc->identity) : "—", (const char *)NULL);
}

static void md_gate(rep_doc *d, const rep_cmp_input *in)
{
    const an_compare *c = in->cmp;
    rep_heading(d, 2, "Correctness gate");
    const char *src = !strcmp(c->gate_source, "option") ? "from --gate"
                      : !strcmp(c->gate_source, "default") ? "default: every err_* column is 0 on every row"
                      : !strcmp(c->gate_source, "exit_status") ? "no err_* column: the benchmark's exit status"
                      : "nothing to check";
    if (c->gate.text)
        rep_para(d, "Gate %s (%s): **%s**. %zu cell%s checked on CANDIDATE (columns: %s).", rep_md_code(d, c->gate.text), src,
                 c->gate_status, c->gate_cand.cells, c->gate_cand.cells == 1 ? "" : "s",
                 names_list(d, c->gate_cand.columns, c->gate_cand.ncolumns));
    else
        rep_para(d, "Gate: %s: **%s**.", src, c->gate_status);
    if (c->gate_cand.nfails) {
        rep_table *t = rep_table_new(d, "lrrlll", "file", "row", "line", "class", "column", "value", (const char *)NULL);
        for (size_t i = 0; i < c->gate_cand.nfails && i < MD_MAX_ROWS; i++) {
            const an_gate_fail *f = &c->gate_cand.fails[i];
            const an_bench_csv *csv = &in->cand_in->csvs[f->csv];
            const char *cls = "—";
            if (c->has_bench && f->csv == c->bench_cand_csv)
                for (size_t p = 0; p < c->bench.nrows; p++)
                    if (c->bench.rows[p].cand_row == f->row && c->bench.rows[p].cls < c->bench.nclasses)
                        cls = rep_md_escape(d, c->bench.classes[c->bench.rows[p].cls].label);
            const char *v = an_bench_cell(csv, f->row, f->col);
            rep_table_row(t, rep_md_code(d, csv->path), rep_fmt(d, "%zu", f->row + 1),
                          csv->lines ? rep_fmt(d, "%zu", csv->lines[f->row]) : "—", cls,
                          rep_md_code(d, csv->header[f->col]), *v ? rep_md_code(d, v) : "(empty)", (const char *)NULL);
        }
    }
    if (c->nalready_failing)
        rep_para(d, "Already failing on BEST: %s.", names_list(d, c->already_failing, c->nalready_failing));
}

static void class_row(rep_doc *d, rep_table *t, const char *label, const an_group *g, const char *script,
                      const char *best_row, const char *worst_row)
{
    rep_table_row(t, label, g->rows ? rep_fmt(d, "%zu", g->rows) : "—",
                  g->evaluated ? rep_fmt(d, "%zu / %zu", g->n_best, g->n_cand) : "—", group_value(d, g, g->median_best),
                  group_value(d, g, g->median_cand), group_r(d, g), group_ci(d, g),
                  g->evaluated && g->p >= 0 && g->source == AN_GROUP_GPU ? rep_fmt(d, "%.3g", g->p) : "—",
                  outcome_cell(d, g), script, best_row, worst_row, (const char *)NULL);
}

static void md_classes(rep_doc *d, const rep_cmp_input *in)
{
    const an_compare *c = in->cmp;
    rep_heading(d, 2, "Per-class results");
    if (!c->has_bench) {
        rep_para(d, "No benchmark CSV pair: no config classes.%s", c->has_timing ? " The global GPU group decides." : "");
        return;
    }
    const an_bench_cmp *b = &c->bench;
    rep_para(d, "Benchmark CSV %s vs %s: %zu paired rows; config columns %s; classes by %s (%s)%s. "
                "Medians are of warm calls (%s); r is the Hodges-Lehmann change with its 95 %% interval; "
                "script is the geometric mean of the per-row %s ratios.",
             rep_md_code(d, b->best->path), rep_md_code(d, b->cand->path), b->nrows, names_list(d, b->config, b->nconfig),
             names_list(d, b->class_cols, b->nclass_cols), b->class_source,
             c->nkernel_columns ? rep_fmt(d, ", plus %s which select%s different kernels",
                                          names_list(d, c->kernel_columns, c->nkernel_columns),
                                          c->nkernel_columns == 1 ? "s" : "")
                                : "",
             c->script_only ? "script metric" : "µs of GPU time per call",
             b->metric ? rep_md_code(d, b->metric) : "script-metric");
    rep_table *t = rep_table_new(d, "lrrrrrlrlrll", "class", "rows", "calls B / C", "BEST", "CAND", "r", "95 % CI", "p",
                                 "outcome", "script", "best row", "worst row", (const char *)NULL);
    for (size_t k = 0; k < c->nclasses; k++) {
        const an_bench_class *bc = &b->classes[k];
        const char *script = bc->has_ratio ? rep_fmt(d, "%+.2f %%", (bc->geomean_ratio - 1) * 100) : "—";
        const char *br = "—", *wr = "—";
        if (bc->has_ratio) {
            const an_bench_row *x = &b->rows[bc->rows[bc->best_row]], *y = &b->rows[bc->rows[bc->worst_row]];
            br = rep_fmt(d, "row %zu (%+.2f %%)", x->best_row + 1, (x->ratio - 1) * 100);
            wr = rep_fmt(d, "row %zu (%+.2f %%)", y->best_row + 1, (y->ratio - 1) * 100);
        }
        class_row(d, t, rep_md_escape(d, bc->label), &c->classes[k], script, br, wr);
    }
    if (c->has_target_class)
        class_row(d, t, rep_fmt(d, "target %s", rep_md_escape(d, c->target_spec.text)), &c->target_group, "—", "—", "—");
    class_row(d, t, "**global**", &c->global,
              b->has_ratio ? rep_fmt(d, "%+.2f %%", (b->geomean_ratio - 1) * 100) : "—", "—", "—");
    if (c->verdict == AN_V_SPLIT) {
        rep_heading(d, 3, "Split");
        for (int want = 0; want < 3; want++) {
            kr_buf l;
            kr_buf_init(&l);
            size_t n = 0;
            for (size_t k = 0; k < c->nclasses; k++) {
                an_outcome o = c->classes[k].outcome;
                int in_set = want == 0 ? o == AN_OUT_IMPROVED : want == 1 ? o == AN_OUT_REGRESSED
                                                                           : o != AN_OUT_IMPROVED && o != AN_OUT_REGRESSED;
                if (!in_set)
                    continue;
                kr_buf_printf(&l, "%s%s (%s, %s; BEST ran %s, CANDIDATE ran %s)", n++ ? "; " : "",
                              rep_md_escape(d, c->classes[k].label), group_r(d, &c->classes[k]), group_ci(d, &c->classes[k]),
                              names_list(d, c->classes[k].kernels_best, c->classes[k].nkernels_best),
                              names_list(d, c->classes[k].kernels_cand, c->classes[k].nkernels_cand));
            }
            rep_item(d, 0, "%s: %s", want == 0 ? "improved" : want == 1 ? "regressed" : "unchanged",
                     n ? kr_buf_cstr(&l) : "none");
            kr_buf_free(&l);
        }
        rep_para(d, "Suggested dispatch rule: %s → candidate kernel, the rest → current best kernel.",
                 rep_md_code(d, c->predicate ? c->predicate : "?"));
    }
}

static void desc_row(rep_doc *d, rep_table *t, const char *side, const char *what, const an_desc *x, const char *extra)
{
    rep_table_row(t, side, what, rep_fmt(d, "%zu", x->n), x->n ? us(d, x->median) : "—", x->n ? us(d, x->mean) : "—",
                  x->n ? us(d, x->min) : "—", x->n ? us(d, x->stddev) : "—",
                  x->n ? rep_fmt(d, "%.2f %%", x->cv * 100) : "—", rep_fmt(d, "%zu", x->outliers), extra,
                  (const char *)NULL);
}

static const char *res_cell(rep_doc *d, int64_t v) { return v >= 0 ? rep_fmt(d, "%" PRId64, v) : "—"; }

static void md_timing(rep_doc *d, const rep_cmp_input *in)
{
    const an_compare *c = in->cmp;
    rep_heading(d, 2, "Kernel GPU time");
    if (!c->timing_best || !c->timing_cand) {
        rep_para(d, "No kernel timing on %s: no kernel_trace CSV and no results.json with dispatch records%s.",
                 !c->timing_best && !c->timing_cand ? "either side" : c->timing_best ? "CANDIDATE" : "BEST",
                 c->script_only ? "; the script metric decided (script-only)" : "");
        return;
    }
    const an_target *tg = &c->target;
    rep_para(d, "Target kernel set: %s — %s.%s%s", names_list(d, tg->names, tg->n), rep_md_escape(d, tg->why ? tg->why : ""),
             tg->runner_up ? rep_fmt(d, " Runner-up: %s (%.1f µs in total on BEST).", rep_md_code(d, tg->runner_up),
                                     (double)tg->runner_up_total_ns / 1000.0) : "",
             tg->njoined ? rep_fmt(d, " Joined (one side only): %s.", names_list(d, tg->joined, tg->njoined)) : "");
    rep_para(d, "A call is the target dispatches from one dispatch of the segment's first kernel to the next; the first "
                "%s of each segment %s cold and left out of the decision. Row alignment: %s.",
             c->skip_first == 1 ? "call" : rep_fmt(d, "%zu calls", c->skip_first), c->skip_first == 1 ? "is" : "are",
             c->row_aligned ? rep_fmt(d, "yes (%zu segment%s per row)", c->tbest.segments_per_row,
                                      c->tbest.segments_per_row == 1 ? "" : "s")
                            : c->has_bench ? "no (class results come from the script metric)" : "no benchmark rows");
    rep_table *t = rep_table_new(d, "llrrrrrrrl", "side", "calls", "n", "median µs", "mean µs", "min µs", "stddev µs", "CV",
                                 "outliers", "segments / cold first calls", (const char *)NULL);
    const an_side_time *s[2] = {&c->tbest, &c->tcand};
    for (int i = 0; i < 2; i++) {
        const char *name = i ? "CANDIDATE" : "BEST";
        const char *seg = rep_fmt(d, "%zu segment%s in %zu trace%s; first call cold in %zu of %zu (median excess %+.1f %%)",
                                  s[i]->nsegments, s[i]->nsegments == 1 ? "" : "s", s[i]->ntraces_used,
                                  s[i]->ntraces_used == 1 ? "" : "s",
                                  s[i]->cold_segments, s[i]->segments_with_warm, s[i]->cold_excess * 100);
        desc_row(d, t, name, "all", &s[i]->all, "");
        desc_row(d, t, name, "warm", &s[i]->warm, seg);
    }
    /* Per target kernel, both sides: every dispatch, without the first, resources. */
    rep_table *k = rep_table_new(d, "llrrrrrrlrrrrrrrr", "kernel", "side", "dispatches", "median µs", "mean µs", "min µs",
                                 "CV", "first µs", "first cold", "median w/o first", "VGPR", "AGPR", "SGPR", "LDS",
                                 "scratch", "WG size", "grid (WGs)", (const char *)NULL);
    for (size_t i = 0; i < tg->n; i++)
        for (int q = 0; q < 2; q++) {
            int ix = an_time_kernel_index(s[q], tg->names[i]);
            if (ix < 0) {
                rep_table_row(k, rep_md_code(d, tg->names[i]), q ? "CANDIDATE" : "BEST", "0", "—", "—", "—", "—", "—",
                              "—", "—", "—", "—", "—", "—", "—", "—", "—", (const char *)NULL);
                continue;
            }
            const an_kernel_stat *x = &s[q]->kernels[ix];
            rep_table_row(k, rep_md_code(d, x->name), q ? "CANDIDATE" : "BEST", rep_fmt(d, "%zu", x->all.n),
                          us(d, x->all.median), us(d, x->all.mean), us(d, x->all.min), rep_fmt(d, "%.2f %%", x->all.cv * 100),
                          us(d, x->first_ns), x->first_cold ? "yes" : "no", x->rest.n ? us(d, x->rest.median) : "—",
                          res_cell(d, x->vgpr), res_cell(d, x->agpr), res_cell(d, x->sgpr), res_cell(d, x->lds),
                          res_cell(d, x->scratch), res_cell(d, x->wg_size), res_cell(d, x->grid_wg), (const char *)NULL);
        }
    const an_group *g = &c->global;
    rep_para(d, "Global group: BEST %zu / CANDIDATE %zu warm calls, median %s → %s µs, mean %s → %s µs; change %s, 95 %% "
                "interval %s, Mann-Whitney p = %s → **%s**.%s",
             g->n_best, g->n_cand, group_value(d, g, g->median_best), group_value(d, g, g->median_cand),
             group_value(d, g, g->mean_best), group_value(d, g, g->mean_cand), group_r(d, g), group_ci(d, g),
             g->evaluated ? rep_fmt(d, "%.3g", g->p) : "—", an_outcome_text(g->outcome),
             g->widen > 0 ? rep_fmt(d, " Interval widened by the spread of the replicate runs (%.3g on the log scale).", g->widen) : "");
    if (g->need_more) {
        kr_buf b;
        kr_buf_init(&b);
        if (g->too_small)
            kr_buf_printf(&b, "effect too small to resolve cheaply (about %" PRIu64 " more warm calls per side)", g->need_more);
        else
            kr_buf_printf(&b, "about %" PRIu64 " more warm call%s per side would decide%s", g->need_more,
                          g->need_more == 1 ? "" : "s",
                          g->need_calls_per_row ? rep_fmt(d, " (a run of at least %" PRIu64 " calls per %s)", g->need_calls_per_row,
                                                          c->row_aligned ? "row" : "timed loop") : "");
        rep_para(d, "Need: %s.", kr_buf_cstr(&b));
        kr_buf_free(&b);
    }
    if (c->nkernel_groups > 1) {
        rep_para(d, "Per target kernel (every dispatch but each kernel's first):");
        rep_table *kg = rep_table_new(d, "lrrrrll", "kernel", "n B / C", "BEST µs", "CAND µs", "r", "95 % CI", "outcome",
                                      (const char *)NULL);
        for (size_t i = 0; i < c->nkernel_groups; i++) {
            const an_group *x = &c->kernel_groups[i];
            rep_table_row(kg, rep_md_code(d, x->label), rep_fmt(d, "%zu / %zu", x->n_best, x->n_cand),
                          group_value(d, x, x->median_best), group_value(d, x, x->median_cand), group_r(d, x),
                          group_ci(d, x), x->evaluated ? an_outcome_text(x->outcome) : rep_md_escape(d, x->note ? x->note : "—"),
                          (const char *)NULL);
        }
    }
}

static void md_script(rep_doc *d, const rep_cmp_input *in)
{
    const an_compare *c = in->cmp;
    if (!c->has_bench)
        return;
    const an_bench_cmp *b = &c->bench;
    rep_heading(d, 2, "Script metric");
    if (!b->metric) {
        rep_para(d, "No us_* column: no script metric.");
        return;
    }
    rep_para(d, "%s (%s): the harness's own number per row; it %s. Row mean %.4g → %.4g; geometric mean of the per-row "
                "ratios %s, bootstrap 95 %% interval %s … %s (%zu resamples of the rows, seed 0x%" PRIx64 ").",
             rep_md_code(d, b->metric), b->metric_source,
             c->script_only ? "decided, labelled script-only (--allow-script-metric, no kernel trace)" : "never changes the verdict",
             b->best_mean, b->cand_mean, b->has_ratio ? rep_fmt(d, "%+.2f %%", (b->geomean_ratio - 1) * 100) : "—",
             b->has_ratio ? rep_fmt(d, "%+.2f %%", (b->boot_lo - 1) * 100) : "—",
             b->has_ratio ? rep_fmt(d, "%+.2f %%", (b->boot_hi - 1) * 100) : "—", c->resamples, c->seed);
    rep_table *t = rep_table_new(d, "rlrrr", "row", "config", "BEST", "CAND", "change", (const char *)NULL);
    for (size_t i = 0; i < b->nrows && i < MD_MAX_ROWS; i++) {
        const an_bench_row *r = &b->rows[i];
        rep_table_row(t, rep_fmt(d, "%zu", r->best_row + 1), rep_md_escape(d, r->label),
                      r->has_metric ? rep_fmt(d, "%.4g", r->best_metric) : "—",
                      r->has_metric ? rep_fmt(d, "%.4g", r->cand_metric) : "—",
                      r->has_metric ? rep_fmt(d, "%+.2f %%", (r->ratio - 1) * 100) : "—", (const char *)NULL);
    }
    if (b->nrows > MD_MAX_ROWS)
        rep_para(d, "First %d of %zu rows; compare.json has all.", MD_MAX_ROWS, b->nrows);
}

static const char *pp(rep_doc *d, uint64_t vb, uint64_t tb, uint64_t vc, uint64_t tc)
{
    double sb = tb ? (double)vb / (double)tb : 0, sc = tc ? (double)vc / (double)tc : 0;
    return rep_fmt(d, "%.1f %% → %.1f %% (%+.1f pp)", sb * 100, sc * 100, (sc - sb) * 100);
}

static const char *i64s(rep_doc *d, int64_t v) { return v >= 0 ? rep_fmt(d, "%" PRId64, v) : "—"; }

static void md_pair(rep_doc *d, const rep_cmp_pair *p)
{
    const an_cmp_trace *t = p->trace;
    rep_heading(d, 3, "%s%s%s", rep_md_escape(d, p->kernel && *p->kernel ? p->kernel : "capture"),
                p->label && *p->label ? " — " : "", p->label && *p->label ? rep_md_escape(d, p->label) : "");
    rep_para(d, "BEST %s vs CANDIDATE %s: %" PRIu64 " → %" PRIu64 " waves, Σ Stall %" PRIu64 " → %" PRIu64
                " cycles, Σ Latency %" PRIu64 " → %" PRIu64 ". Shares below are of each capture's own total, so captures "
                "with different wave counts compare.",
             rep_md_code(d, p->best), rep_md_code(d, p->cand), t->waves.best, t->waves.cand, t->stall.best, t->stall.cand,
             t->latency.best, t->latency.cand);
    const an_alignment *al = &t->align;
    rep_para(d, "ISA alignment (%s): %zu / %zu instruction rows; %zu identical, %zu normalized, %zu by mnemonic, %zu "
                "BEST-only, %zu CANDIDATE-only%s; quality %.1f %%%s.",
             al->method, al->best_rows, al->cand_rows, al->count[AN_PAIR_IDENTICAL], al->count[AN_PAIR_NORMALIZED],
             al->count[AN_PAIR_MNEMONIC], al->count[AN_PAIR_BEST_ONLY], al->count[AN_PAIR_CAND_ONLY],
             al->anchors ? rep_fmt(d, "; %zu source-line anchors", al->anchors) : "", al->quality * 100,
             al->greedy ? "; a large gap was matched greedily" : "");
    rep_table *w = rep_table_new(d, "lrrl", "wave state", "BEST cycles", "CAND cycles", "share", (const char *)NULL);
    for (unsigned s = 0; s < AN_STATES_N; s++) {
        if (!t->states[s].best && !t->states[s].cand)
            continue;
        rep_table_row(w, an_state_key(s), rep_fmt(d, "%" PRIu64, t->states[s].best), rep_fmt(d, "%" PRIu64, t->states[s].cand),
                      pp(d, t->states[s].best, t->states_total.best, t->states[s].cand, t->states_total.cand),
                      (const char *)NULL);
    }
    rep_table *k = rep_table_new(d, "lrrl", "stall bucket", "BEST cycles", "CAND cycles", "share of stall",
                                 (const char *)NULL);
    for (unsigned s = 0; s < AN_STALL_COUNT; s++) {
        if (!t->kinds[s].best && !t->kinds[s].cand)
            continue;
        rep_table_row(k, an_stall_kind_key(s), rep_fmt(d, "%" PRIu64, t->kinds[s].best), rep_fmt(d, "%" PRIu64, t->kinds[s].cand),
                      pp(d, t->kinds[s].best, t->stall_total.best, t->kinds[s].cand, t->stall_total.cand), (const char *)NULL);
    }
    rep_table *cl = rep_table_new(d, "lll", "class", "share of latency", "share of stall", (const char *)NULL);
    for (size_t i = 0; i < an_class_norder; i++) {
        kr_class x = an_class_order[i];
        if (!t->class_latency[x].best && !t->class_latency[x].cand && !t->class_stall[x].best && !t->class_stall[x].cand)
            continue;
        rep_table_row(cl, kr_class_name(x), pp(d, t->class_latency[x].best, t->latency.best, t->class_latency[x].cand, t->latency.cand),
                      pp(d, t->class_stall[x].best, t->stall.best, t->class_stall[x].cand, t->stall.cand), (const char *)NULL);
    }
    rep_table *o = rep_table_new(d, "lrr", "occupancy input", "BEST", "CAND", (const char *)NULL);
    rep_table_row(o, "VGPRs (unified, after corrections)", i64s(d, t->vgpr.best), i64s(d, t->vgpr.cand), (const char *)NULL);
    rep_table_row(o, "arch VGPRs reported", i64s(d, t->arch_vgpr.best), i64s(d, t->arch_vgpr.cand), (const char *)NULL);
    rep_table_row(o, "AGPRs reported", i64s(d, t->agpr.best), i64s(d, t->agpr.cand), (const char *)NULL);
    rep_table_row(o, "SGPRs", i64s(d, t->sgpr.best), i64s(d, t->sgpr.cand), (const char *)NULL);
    rep_table_row(o, "LDS bytes", i64s(d, t->lds.best), i64s(d, t->lds.cand), (const char *)NULL);
    rep_table_row(o, "scratch bytes", i64s(d, t->scratch.best), i64s(d, t->scratch.cand), (const char *)NULL);
    rep_table_row(o, "workgroup size", i64s(d, t->wg_size.best), i64s(d, t->wg_size.cand), (const char *)NULL);
    rep_table_row(o, "workgroups", i64s(d, t->workgroups.best), i64s(d, t->workgroups.cand), (const char *)NULL);
    rep_table_row(o, "waves/SIMD (limit)", i64s(d, t->waves_per_simd.best), i64s(d, t->waves_per_simd.cand), (const char *)NULL);
    rep_table_row(o, "limiter", t->limiter_best ? t->limiter_best : "—", t->limiter_cand ? t->limiter_cand : "—",
                  (const char *)NULL);
    rep_table_row(o, "achieved waves/SIMD (target CU)", t->has_achieved_best ? rep_fmt(d, "%.2f", t->achieved_best) : "—",
                  t->has_achieved_cand ? rep_fmt(d, "%.2f", t->achieved_cand) : "—", (const char *)NULL);
    rep_md_roofline_change(d, t->best, t->cand);
    rep_table *m = rep_table_new(d, "lrr", "source mapping", "BEST", "CAND", (const char *)NULL);
    rep_table_row(m, "rows mapped", rep_fmt(d, "%" PRIu64 " / %" PRIu64, t->mapped.best, t->rows.best),
                  rep_fmt(d, "%" PRIu64 " / %" PRIu64, t->mapped.cand, t->rows.cand), (const char *)NULL);
    rep_table_row(m, "distinct lines", rep_fmt(d, "%" PRIu64, t->distinct_lines.best),
                  rep_fmt(d, "%" PRIu64, t->distinct_lines.cand), (const char *)NULL);
    rep_table_row(m, "effective lines exp(H)", t->has_effective_best ? rep_fmt(d, "%.2f", t->effective_best) : "—",
                  t->has_effective_cand ? rep_fmt(d, "%.2f", t->effective_cand) : "—", (const char *)NULL);
    rep_table_row(m, "top-1 line share", t->has_top1_best ? rep_fmt(d, "%.1f %%", t->top1_best * 100) : "—",
                  t->has_top1_cand ? rep_fmt(d, "%.1f %%", t->top1_cand * 100) : "—", (const char *)NULL);
    const kr_capture *cb = t->best->cap, *cc = t->cand->cap;
    rep_para(d, "Instructions whose share of the stall cycles moved most (%zu aligned pairs changed):", t->insts_changed);
    rep_table *ti = rep_table_new(d, "lllrrrrl", "BEST row", "CAND row", "ISA", "stall B", "stall C", "hit B", "hit C",
                                  "stall share", (const char *)NULL);
    for (size_t i = 0; i < t->ninsts; i++) {
        const an_moved_inst *x = &t->insts[i];
        const kr_code_row *rb = x->best_row != AN_ALIGN_NONE ? &cb->rows[x->best_row] : NULL;
        const kr_code_row *rc = x->cand_row != AN_ALIGN_NONE ? &cc->rows[x->cand_row] : NULL;
        rep_table_row(ti, rb ? rep_fmt(d, "%u (0x%" PRIx64 ")", x->best_row, rb->vaddr) : "—",
                      rc ? rep_fmt(d, "%u (0x%" PRIx64 ")", x->cand_row, rc->vaddr) : "—",
                      rep_md_code(d, rb ? rb->isa : rc ? rc->isa : ""), rep_fmt(d, "%" PRIu64, x->best_stall),
                      rep_fmt(d, "%" PRIu64, x->cand_stall), rep_fmt(d, "%" PRIu64, x->best_hit),
                      rep_fmt(d, "%" PRIu64, x->cand_hit),
                      rep_fmt(d, "%.2f %% → %.2f %% (%+.2f pp)", x->best_share * 100, x->cand_share * 100, x->delta * 100),
                      (const char *)NULL);
    }
    rep_para(d, "Source lines (innermost frame) whose share of the stall cycles moved most (%zu on both sides, %zu BEST "
                "only, %zu CANDIDATE only):", t->lines_both, t->lines_best_only, t->lines_cand_only);
    rep_table *tl = rep_table_new(d, "lrrl", "line", "stall B", "stall C", "stall share", (const char *)NULL);
    for (size_t i = 0; i < t->nlines; i++) {
        const an_moved_line *x = &t->lines[i];
        rep_table_row(tl, rep_md_code(d, rep_fmt(d, "%s:%u", x->path ? x->path : "?", x->line)),
                      x->on_best ? rep_fmt(d, "%" PRIu64, x->best_stall) : "—",
                      x->on_cand ? rep_fmt(d, "%" PRIu64, x->cand_stall) : "—",
                      rep_fmt(d, "%.2f %% → %.2f %% (%+.2f pp)", x->best_share * 100, x->cand_share * 100, x->delta * 100),
                      (const char *)NULL);
    }
}

static void md_trace(rep_doc *d, const rep_cmp_input *in)
{
    rep_heading(d, 2, "Trace explanation");
    if (!in->npairs)
        rep_para(d, "No pair of thread-trace captures (same kernel, same label) on both sides: no trace explanation.");
    for (size_t i = 0; i < in->npairs; i++)
        md_pair(d, &in->pairs[i]);
    if (in->nunpaired) {
        rep_para(d, "Captures without a partner:");
        for (size_t i = 0; i < in->nunpaired; i++)
            rep_item(d, 0, "%s %s: %s", in->unpaired[i].side, rep_md_code(d, in->unpaired[i].capture),
                     rep_md_escape(d, in->unpaired[i].why));
    }
}

int rep_compare_markdown(const rep_cmp_input *in, kr_buf *out)
{
    rep_doc *d = rep_doc_new();
    if (!d)
        return 5;
    md_verdict(d, in);
    md_sides(d, in);
    md_gate(d, in);
    md_classes(d, in);
    md_timing(d, in);
    md_script(d, in);
    md_trace(d, in);
    rep_heading(d, 2, "Method");
    rep_para(d, "The decision rules, statistics and thresholds: `kreport help compare` (docs/compare.md).");
    rep_heading(d, 2, "Re-run");
    rep_para(d, "Outputs: `COMPARE.md` (this file) and `compare.json` (schema `kreport.compare` version 2).");
    if (in->rerun)
        rep_code(d, "sh", in->rerun);
    rep_doc_markdown(d, out);
    rep_doc_free(d);
    return out->oom ? 5 : 0;
}

/* ---- compare.json ---- */

static json_t *jnum(double v) { return isfinite(v) ? json_real(v) : json_null(); }
static json_t *jstr(const char *s) { return s ? json_string(s) : json_null(); }
static json_t *ji64(int64_t v) { return v >= 0 ? json_integer((json_int_t)v) : json_null(); }
static json_t *jint(uint64_t v) { return json_integer((json_int_t)v); }

static json_t *jnames(char *const *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

static json_t *jnotes(const an_notes *n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n->n; i++)
        json_array_append_new(a, json_pack("{s:s, s:s}", "id", n->v[i].id ? n->v[i].id : "",
                                           "text", n->v[i].text ? n->v[i].text : ""));
    return a;
}

static json_t *jgroup(const an_group *g)
{
    int gpu = g->source == AN_GROUP_GPU;
    double div = gpu ? 1000.0 : 1.0;
    json_t *o = json_object();
    json_object_set_new(o, "label", jstr(g->label));
    json_object_set_new(o, "evaluated", json_boolean(g->evaluated));
    json_object_set_new(o, "source", json_string(gpu ? "gpu" : "script"));
    json_object_set_new(o, "unit", json_string(gpu ? "us" : "script"));
    json_object_set_new(o, "low_confidence", json_boolean(g->low_confidence));
    json_object_set_new(o, "rows", jint(g->rows));
    json_object_set_new(o, "n_best", jint(g->n_best));
    json_object_set_new(o, "n_candidate", jint(g->n_cand));
    json_object_set_new(o, "median_best", g->evaluated ? jnum(g->median_best / div) : json_null());
    json_object_set_new(o, "median_candidate", g->evaluated ? jnum(g->median_cand / div) : json_null());
    json_object_set_new(o, "mean_best", g->evaluated ? jnum(g->mean_best / div) : json_null());
    json_object_set_new(o, "mean_candidate", g->evaluated ? jnum(g->mean_cand / div) : json_null());
    json_object_set_new(o, "r", g->evaluated ? jnum(g->r) : json_null());
    json_object_set_new(o, "lo", g->evaluated && g->bounded ? jnum(g->lo) : json_null());
    json_object_set_new(o, "hi", g->evaluated && g->bounded ? jnum(g->hi) : json_null());
    json_object_set_new(o, "p", g->evaluated && g->p >= 0 ? jnum(g->p) : json_null());
    json_object_set_new(o, "replicate_widening", g->widen > 0 ? jnum(g->widen) : json_null());
    json_object_set_new(o, "outcome", json_string(an_outcome_id(g->outcome)));
    json_object_set_new(o, "need_more_calls", g->need_more ? jint(g->need_more) : json_null());
    json_object_set_new(o, "need_calls_per_row", g->need_calls_per_row ? jint(g->need_calls_per_row) : json_null());
    json_object_set_new(o, "too_small_to_resolve", json_boolean(g->too_small));
    json_object_set_new(o, "note", jstr(g->note));
    json_object_set_new(o, "kernels_best", jnames(g->kernels_best, g->nkernels_best));
    json_object_set_new(o, "kernels_candidate", jnames(g->kernels_cand, g->nkernels_cand));
    return o;
}

static json_t *jdesc(const an_desc *x)
{
    json_t *o = json_object();
    json_object_set_new(o, "n", jint(x->n));
    json_object_set_new(o, "median_us", x->n ? jnum(x->median / 1000.0) : json_null());
    json_object_set_new(o, "mean_us", x->n ? jnum(x->mean / 1000.0) : json_null());
    json_object_set_new(o, "min_us", x->n ? jnum(x->min / 1000.0) : json_null());
    json_object_set_new(o, "max_us", x->n ? jnum(x->max / 1000.0) : json_null());
    json_object_set_new(o, "stddev_us", x->n ? jnum(x->stddev / 1000.0) : json_null());
    json_object_set_new(o, "cv", x->n ? jnum(x->cv) : json_null());
    json_object_set_new(o, "outliers", jint(x->outliers));
    return o;
}

static json_t *jkstat(const an_side_time *s, const char *name)
{
    int i = an_time_kernel_index(s, name);
    if (i < 0)
        return json_null();
    const an_kernel_stat *k = &s->kernels[i];
    json_t *o = json_object();
    json_object_set_new(o, "dispatches", jint(k->all.n));
    json_object_set_new(o, "total_us", jnum((double)k->total_ns / 1000.0));
    json_object_set_new(o, "all", jdesc(&k->all));
    json_object_set_new(o, "without_first", jdesc(&k->rest));
    json_object_set_new(o, "first_us", jnum(k->first_ns / 1000.0));
    json_object_set_new(o, "first_cold", json_boolean(k->first_cold));
    json_object_set_new(o, "vgpr", ji64(k->vgpr));
    json_object_set_new(o, "agpr", ji64(k->agpr));
    json_object_set_new(o, "sgpr", ji64(k->sgpr));
    json_object_set_new(o, "lds_bytes", ji64(k->lds));
    json_object_set_new(o, "scratch_bytes", ji64(k->scratch));
    json_object_set_new(o, "wg_size", ji64(k->wg_size));
    json_object_set_new(o, "grid_workgroups", ji64(k->grid_wg));
    return o;
}

static json_t *jtside(const an_side_time *s, int present)
{
    if (!present)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "traces_used", jint(s->ntraces_used));
    json_object_set_new(o, "att_pass", json_boolean(s->used_att_pass));
    json_object_set_new(o, "dropped_captured_dispatches", jint(s->dropped_captured));
    json_object_set_new(o, "segments", jint(s->nsegments));
    json_object_set_new(o, "segments_per_row", s->row_aligned ? jint(s->segments_per_row) : json_null());
    json_object_set_new(o, "calls_per_segment", jnum(s->calls_per_segment));
    json_object_set_new(o, "all_calls", jdesc(&s->all));
    json_object_set_new(o, "warm_calls", jdesc(&s->warm));
    json_object_set_new(o, "segments_with_warm_calls", jint(s->segments_with_warm));
    json_object_set_new(o, "cold_first_calls", jint(s->cold_segments));
    json_object_set_new(o, "cold_excess", s->segments_with_warm ? jnum(s->cold_excess) : json_null());
    return o;
}

static json_t *jside(const rep_cmp_input *in, int cand)
{
    const rep_cmp_side *rs = cand ? &in->cand : &in->best;
    const an_cmp_side *s = cand ? in->cand_in : in->best_in;
    json_t *o = json_object();
    json_object_set_new(o, "path", json_string(rs->path));
    json_object_set_new(o, "identity", jstr(s->identity));
    json_object_set_new(o, "commit", jstr(side_commit(in, cand)));
    json_object_set_new(o, "command", jstr(s->command));
    json_object_set_new(o, "gpu", json_pack("{s:o, s:o, s:o, s:o}", "product", jstr(s->gpu_product), "name",
                                            jstr(s->gpu_name), "cu_count", ji64(s->cu_count), "card", jstr(s->gpu_card)));
    json_object_set_new(o, "exit_code", s->exit_code >= 0 ? json_integer(s->exit_code) : json_null());
    json_t *meta = json_array();
    for (size_t i = 0; i < rs->nmeta; i++)
        json_array_append_new(meta, json_pack("{s:s, s:s}", "key", rs->meta[i].key, "value", rs->meta[i].value));
    json_object_set_new(o, "run_meta", meta);
    json_t *files = json_array();
    for (size_t i = 0; i < rs->nfiles; i++)
        json_array_append_new(files, json_pack("{s:s, s:s, s:o}", "kind", rs->files[i].kind, "path", rs->files[i].path,
                                               "detail", jstr(rs->files[i].detail)));
    json_object_set_new(o, "files", files);
    return o;
}

static json_t *jpu(an_pair_u64 p) { return json_pack("{s:I, s:I}", "best", (json_int_t)p.best, "candidate", (json_int_t)p.cand); }
static json_t *jpi(an_pair_i64 p)
{
    return json_pack("{s:o, s:o}", "best", ji64(p.best), "candidate", ji64(p.cand));
}

static json_t *jtrace_pair(const rep_cmp_pair *p)
{
    const an_cmp_trace *t = p->trace;
    const kr_capture *cb = t->best->cap, *cc = t->cand->cap;
    json_t *o = json_object();
    json_object_set_new(o, "label", jstr(p->label));
    json_object_set_new(o, "kernel", jstr(p->kernel));
    json_object_set_new(o, "best_capture", jstr(p->best));
    json_object_set_new(o, "candidate_capture", jstr(p->cand));
    const an_alignment *al = &t->align;
    json_t *a = json_object();
    json_object_set_new(a, "method", json_string(al->method ? al->method : "index"));
    json_object_set_new(a, "best_rows", jint(al->best_rows));
    json_object_set_new(a, "candidate_rows", jint(al->cand_rows));
    json_object_set_new(a, "identical", jint(al->count[AN_PAIR_IDENTICAL]));
    json_object_set_new(a, "normalized", jint(al->count[AN_PAIR_NORMALIZED]));
    json_object_set_new(a, "mnemonic", jint(al->count[AN_PAIR_MNEMONIC]));
    json_object_set_new(a, "best_only", jint(al->count[AN_PAIR_BEST_ONLY]));
    json_object_set_new(a, "candidate_only", jint(al->count[AN_PAIR_CAND_ONLY]));
    json_object_set_new(a, "paired", jint(al->paired));
    json_object_set_new(a, "anchors", jint(al->anchors));
    json_object_set_new(a, "quality", jnum(al->quality));
    json_object_set_new(a, "greedy", json_boolean(al->greedy));
    json_object_set_new(o, "alignment", a);
    json_object_set_new(o, "totals", json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "waves", jpu(t->waves), "records",
                                               jpu(t->records), "hit", jpu(t->hit), "latency", jpu(t->latency), "stall",
                                               jpu(t->stall), "idle", jpu(t->idle)));
    json_t *ws = json_array();
    for (unsigned s = 0; s < AN_STATES_N; s++)
        json_array_append_new(ws, json_pack("{s:s, s:I, s:I}", "state", an_state_key(s), "best", (json_int_t)t->states[s].best,
                                            "candidate", (json_int_t)t->states[s].cand));
    json_object_set_new(o, "wave_states", ws);
    json_t *cl = json_array();
    for (size_t i = 0; i < an_class_norder; i++) {
        kr_class x = an_class_order[i];
        json_array_append_new(cl, json_pack("{s:s, s:o, s:o}", "class", kr_class_name(x), "latency",
                                            jpu(t->class_latency[x]), "stall", jpu(t->class_stall[x])));
    }
    json_object_set_new(o, "classes", cl);
    json_t *sb = json_array();
    for (unsigned s = 0; s < AN_STALL_COUNT; s++)
        json_array_append_new(sb, json_pack("{s:s, s:I, s:I}", "bucket", an_stall_kind_key(s), "best",
                                            (json_int_t)t->kinds[s].best, "candidate", (json_int_t)t->kinds[s].cand));
    json_object_set_new(o, "stall_buckets", sb);
    json_t *oc = json_object();
    json_object_set_new(oc, "vgpr", jpi(t->vgpr));
    json_object_set_new(oc, "arch_vgpr_reported", jpi(t->arch_vgpr));
    json_object_set_new(oc, "agpr", jpi(t->agpr));
    json_object_set_new(oc, "sgpr", jpi(t->sgpr));
    json_object_set_new(oc, "lds_bytes", jpi(t->lds));
    json_object_set_new(oc, "scratch_bytes", jpi(t->scratch));
    json_object_set_new(oc, "wg_size", jpi(t->wg_size));
    json_object_set_new(oc, "workgroups", jpi(t->workgroups));
    json_object_set_new(oc, "waves_per_simd", jpi(t->waves_per_simd));
    json_object_set_new(oc, "limiter", json_pack("{s:o, s:o}", "best", jstr(t->limiter_best), "candidate", jstr(t->limiter_cand)));
    json_object_set_new(oc, "achieved_waves_per_simd",
                        json_pack("{s:o, s:o}", "best", t->has_achieved_best ? jnum(t->achieved_best) : json_null(),
                                  "candidate", t->has_achieved_cand ? jnum(t->achieved_cand) : json_null()));
    json_object_set_new(o, "occupancy", oc);
    json_object_set_new(o, "roofline", rep_json_roofline_change(t->best, t->cand));
    json_object_set_new(o, "mapping", json_pack("{s:o, s:o, s:o, s:{s:o, s:o}, s:{s:o, s:o}}", "mapped", jpu(t->mapped),
        "rows", jpu(t->rows), "distinct_lines", jpu(t->distinct_lines),
        "effective_lines", "best", t->has_effective_best ? jnum(t->effective_best) : json_null(),
                           "candidate", t->has_effective_cand ? jnum(t->effective_cand) : json_null(),
        "top1_share", "best", t->has_top1_best ? jnum(t->top1_best) : json_null(),
                      "candidate", t->has_top1_cand ? jnum(t->top1_cand) : json_null()));
    json_t *ins = json_array();
    for (size_t i = 0; i < t->ninsts; i++) {
        const an_moved_inst *x = &t->insts[i];
        const kr_code_row *rb = x->best_row != AN_ALIGN_NONE ? &cb->rows[x->best_row] : NULL;
        const kr_code_row *rc = x->cand_row != AN_ALIGN_NONE ? &cc->rows[x->cand_row] : NULL;
        json_t *e = json_object();
        json_object_set_new(e, "kind", json_string(an_pair_kind_id((an_pair_kind)x->kind)));
        json_object_set_new(e, "best_row", rb ? jint(x->best_row) : json_null());
        json_object_set_new(e, "candidate_row", rc ? jint(x->cand_row) : json_null());
        json_object_set_new(e, "best_vaddr", rb ? jint(rb->vaddr) : json_null());
        json_object_set_new(e, "candidate_vaddr", rc ? jint(rc->vaddr) : json_null());
        json_object_set_new(e, "best_isa", rb ? jstr(rb->isa) : json_null());
        json_object_set_new(e, "candidate_isa", rc ? jstr(rc->isa) : json_null());
        json_object_set_new(e, "stall", json_pack("{s:I, s:I}", "best", (json_int_t)x->best_stall, "candidate", (json_int_t)x->cand_stall));
        json_object_set_new(e, "latency", json_pack("{s:I, s:I}", "best", (json_int_t)x->best_latency, "candidate", (json_int_t)x->cand_latency));
        json_object_set_new(e, "hit", json_pack("{s:I, s:I}", "best", (json_int_t)x->best_hit, "candidate", (json_int_t)x->cand_hit));
        json_object_set_new(e, "stall_share", json_pack("{s:o, s:o}", "best", jnum(x->best_share), "candidate", jnum(x->cand_share)));
        json_object_set_new(e, "delta_share", jnum(x->delta));
        json_array_append_new(ins, e);
    }
    json_object_set_new(o, "instructions", ins);
    json_object_set_new(o, "instructions_changed", jint(t->insts_changed));
    json_t *ls = json_array();
    for (size_t i = 0; i < t->nlines; i++) {
        const an_moved_line *x = &t->lines[i];
        json_t *e = json_object();
        json_object_set_new(e, "path", jstr(x->path));
        json_object_set_new(e, "line", jint(x->line));
        json_object_set_new(e, "stall", json_pack("{s:o, s:o}", "best", x->on_best ? jint(x->best_stall) : json_null(),
                                                  "candidate", x->on_cand ? jint(x->cand_stall) : json_null()));
        json_object_set_new(e, "stall_share", json_pack("{s:o, s:o}", "best", jnum(x->best_share), "candidate", jnum(x->cand_share)));
        json_object_set_new(e, "delta_share", jnum(x->delta));
        json_array_append_new(ls, e);
    }
    json_object_set_new(o, "source_lines", ls);
    json_object_set_new(o, "source_line_counts", json_pack("{s:I, s:I, s:I}", "both", (json_int_t)t->lines_both, "best_only",
                                                           (json_int_t)t->lines_best_only, "candidate_only",
                                                           (json_int_t)t->lines_cand_only));
    return o;
}

static int row_text(const rep_cmp_input *in, kr_buf *out, const char **none);

int rep_compare_json(const rep_cmp_input *in, kr_buf *out)
{
    const an_compare *c = in->cmp;
    json_t *root = json_object();
    json_object_set_new(root, "schema", json_string("kreport.compare"));
    json_object_set_new(root, "schema_version", json_integer(2));
    json_object_set_new(root, "kreport_version", json_string(KREPORT_VERSION));
    json_object_set_new(root, "verdict", json_string(an_verdict_id(c->verdict)));
    json_object_set_new(root, "verdict_text", json_string(c->verdict_text ? c->verdict_text : ""));
    json_object_set_new(root, "fail_kind", jstr(c->fail_kind));
    json_object_set_new(root, "exit_code", json_integer(an_verdict_exit(c->verdict)));
    json_object_set_new(root, "counts_as_regression", json_boolean(c->counts_as_regression));
    json_object_set_new(root, "script_only", json_boolean(c->script_only));
    json_object_set_new(root, "benchmark_only", json_boolean(c->benchmark_only));
    json_object_set_new(root, "more_calls_cannot_decide", json_boolean(c->structural));
    json_object_set_new(root, "same_direction_twice", json_boolean(c->same_direction_twice));
    json_object_set_new(root, "reasons", jnotes(&c->reasons));
    json_object_set_new(root, "warnings", jnotes(&c->warnings));
    json_object_set_new(root, "problems", jnotes(&c->problems));

    json_t *opt = json_object();
    json_object_set_new(opt, "noise", jnum(c->noise));
    json_object_set_new(opt, "alpha", jnum(AN_STATS_ALPHA));
    json_t *kr = json_array();
    for (size_t i = 0; i < in->nkernels; i++)
        json_array_append_new(kr, json_string(in->kernels[i]));
    json_object_set_new(opt, "kernel", kr);
    json_object_set_new(opt, "gate", jstr(in->gate));
    json_object_set_new(opt, "metric", jstr(in->metric));
    json_object_set_new(opt, "class_by", jstr(in->class_by));
    json_object_set_new(opt, "target_class", jstr(in->target_class));
    json_object_set_new(opt, "allow_script_metric", json_boolean(in->allow_script_metric));
    json_object_set_new(opt, "prev", jstr(in->prev));
    json_object_set_new(opt, "prev_status", json_string(c->prev_status ? c->prev_status : "not_given"));
    json_object_set_new(opt, "commit", jstr(in->commit));
    json_object_set_new(opt, "note", jstr(in->note));
    json_object_set_new(opt, "skip_first", jint(c->skip_first));
    json_object_set_new(opt, "provider", jstr(in->provider));
    json_object_set_new(opt, "direction", jstr(in->direction));
    json_object_set_new(opt, "config", jstr(in->config));
    char seed[32];
    snprintf(seed, sizeof seed, "0x%" PRIx64, c->seed);
    json_object_set_new(opt, "seed", json_string(seed));
    json_object_set_new(opt, "resamples", jint(c->resamples));
    json_object_set_new(root, "options", opt);
    json_object_set_new(root, "best", jside(in, 0));
    json_object_set_new(root, "candidate", jside(in, 1));

    /* gate */
    json_t *g = json_object();
    json_object_set_new(g, "expression", jstr(c->gate.text));
    json_object_set_new(g, "source", json_string(c->gate_source ? c->gate_source : "none"));
    json_object_set_new(g, "status", json_string(c->gate_status ? c->gate_status : "not_evaluated"));
    json_object_set_new(g, "columns_best", jnames(c->gate_best.columns, c->gate_best.ncolumns));
    json_object_set_new(g, "columns_candidate", jnames(c->gate_cand.columns, c->gate_cand.ncolumns));
    json_object_set_new(g, "cells_checked", jint(c->gate_cand.cells));
    json_t *fails = json_array();
    for (size_t i = 0; i < c->gate_cand.nfails; i++) {
        const an_gate_fail *f = &c->gate_cand.fails[i];
        const an_bench_csv *csv = &c->csvs_cand[f->csv];
        const char *cls = NULL;
        if (c->has_bench && f->csv == c->bench_cand_csv)
            for (size_t p = 0; p < c->bench.nrows; p++)
                if (c->bench.rows[p].cand_row == f->row && c->bench.rows[p].cls < c->bench.nclasses)
                    cls = c->bench.classes[c->bench.rows[p].cls].label;
        json_t *e = json_object();
        json_object_set_new(e, "file", json_string(csv->path));
        json_object_set_new(e, "row", jint(f->row + 1));
        json_object_set_new(e, "line", csv->lines ? jint(csv->lines[f->row]) : json_null());
        json_object_set_new(e, "column", json_string(csv->header[f->col]));
        json_object_set_new(e, "value", json_string(an_bench_cell(csv, f->row, f->col)));
        json_object_set_new(e, "term", json_string(c->gate.terms[f->term].pattern));
        json_object_set_new(e, "class", jstr(cls));
        json_array_append_new(fails, e);
    }
    json_object_set_new(g, "failures", fails);
    json_t *skips = json_array();
    for (size_t i = 0; i < c->gate_cand.nskips; i++) {
        const an_gate_fail *f = &c->gate_cand.skips[i];
        const an_bench_csv *csv = &c->csvs_cand[f->csv];
        json_array_append_new(skips, json_pack("{s:s, s:o, s:s, s:s}", "file", csv->path, "line",
                                               csv->lines ? jint(csv->lines[f->row]) : json_null(), "column",
                                               csv->header[f->col], "value", an_bench_cell(csv, f->row, f->col)));
    }
    json_object_set_new(g, "skipped", skips);
    json_object_set_new(g, "already_failing_on_best", jnames(c->already_failing, c->nalready_failing));
    json_object_set_new(root, "gate", g);

    /* benchmark */
    if (c->has_bench) {
        const an_bench_cmp *b = &c->bench;
        json_t *bj = json_object();
        json_object_set_new(bj, "best_csv", json_string(b->best->path));
        json_object_set_new(bj, "candidate_csv", json_string(b->cand->path));
        json_object_set_new(bj, "config_columns", jnames(b->config, b->nconfig));
        json_object_set_new(bj, "relabelled_columns", jnames(b->relabelled, b->nrelabelled));
        json_object_set_new(bj, "class_columns", jnames(b->class_cols, b->nclass_cols));
        json_object_set_new(bj, "class_source", json_string(b->class_source ? b->class_source : "none"));
        json_object_set_new(bj, "kernel_columns", jnames(c->kernel_columns, c->nkernel_columns));
        json_object_set_new(bj, "rows_paired", jint(b->nrows));
        json_object_set_new(bj, "metric_direction", b->metric ? json_string(b->metric_higher ? "higher" : "lower") : json_null());
        json_object_set_new(bj, "direction_source", jstr(b->direction_source));
        json_object_set_new(bj, "provider", jstr(c->provider));
        json_object_set_new(bj, "provider_source", jstr(c->provider_source));
        json_object_set_new(bj, "providers", jnames(c->providers, c->nproviders));
        json_object_set_new(bj, "method", jstr(c->bench_method));
        json_object_set_new(bj, "replicates", json_pack("{s:I, s:I}", "best", (json_int_t)c->replicates_best, "candidate",
                                                        (json_int_t)c->replicates_cand));
        json_object_set_new(bj, "severe_rows", jnames(c->severe_rows, c->nsevere));
        json_object_set_new(bj, "severe_rows_beyond_noise", json_boolean(c->severe_known));
        json_t *ub = json_array(), *uc = json_array();
        for (size_t i = 0; i < b->nunpaired_best; i++)
            json_array_append_new(ub, jint(b->unpaired_best[i] + 1));
        for (size_t i = 0; i < b->nunpaired_cand; i++)
            json_array_append_new(uc, jint(b->unpaired_cand[i] + 1));
        json_object_set_new(bj, "unpaired_best_rows", ub);
        json_object_set_new(bj, "unpaired_candidate_rows", uc);
        json_t *rows = json_array();
        for (size_t i = 0; i < b->nrows; i++) {
            const an_bench_row *r = &b->rows[i];
            json_t *e = json_object();
            json_object_set_new(e, "best_row", jint(r->best_row + 1));
            json_object_set_new(e, "candidate_row", jint(r->cand_row + 1));
            json_object_set_new(e, "config", json_string(r->label ? r->label : ""));
            json_object_set_new(e, "class", r->cls < b->nclasses ? json_string(b->classes[r->cls].label) : json_null());
            json_object_set_new(e, "metric_best", r->has_metric ? jnum(r->best_metric) : json_null());
            json_object_set_new(e, "metric_candidate", r->has_metric ? jnum(r->cand_metric) : json_null());
            json_object_set_new(e, "ratio", r->has_metric ? jnum(r->ratio) : json_null());
            json_array_append_new(rows, e);
        }
        json_object_set_new(bj, "rows", rows);
        json_object_set_new(root, "benchmark", bj);
    } else {
        json_object_set_new(root, "benchmark", json_null());
    }

    /* classes */
    json_t *cls = json_array();
    for (size_t k = 0; k < c->nclasses; k++) {
        const an_bench_class *bc = &c->bench.classes[k];
        json_t *e = jgroup(&c->classes[k]);
        json_t *vals = json_array();
        for (size_t q = 0; q < c->bench.nclass_cols; q++)
            json_array_append_new(vals, json_pack("{s:s, s:s}", "column", c->bench.class_cols[q], "value", bc->values[q]));
        json_object_set_new(e, "values", vals);
        json_object_set_new(e, "script_geomean_ratio", bc->has_ratio ? jnum(bc->geomean_ratio) : json_null());
        json_object_set_new(e, "script_best_row", bc->has_ratio ? jint(c->bench.rows[bc->rows[bc->best_row]].best_row + 1) : json_null());
        json_object_set_new(e, "script_worst_row", bc->has_ratio ? jint(c->bench.rows[bc->rows[bc->worst_row]].best_row + 1) : json_null());
        json_array_append_new(cls, e);
    }
    json_object_set_new(root, "classes", cls);

    /* timing */
    json_t *tm = json_object();
    json_object_set_new(tm, "available", json_boolean(c->has_timing));
    json_object_set_new(tm, "row_aligned", json_boolean(c->row_aligned));
    int have = c->timing_best && c->timing_cand;
    if (have) {
        json_t *tg = json_object();
        json_object_set_new(tg, "kernels", jnames(c->target.names, c->target.n));
        json_object_set_new(tg, "how", json_string(c->target.how ? c->target.how : "auto"));
        json_object_set_new(tg, "why", jstr(c->target.why));
        json_object_set_new(tg, "runner_up", jstr(c->target.runner_up));
        json_object_set_new(tg, "ambiguous", json_boolean(c->target.ambiguous));
        json_object_set_new(tg, "joined", jnames(c->target.joined, c->target.njoined));
        json_object_set_new(tg, "companions", jnames(c->target.companions, c->target.ncompanions));
        json_object_set_new(tg, "untimed_companions", jnames(c->target.untimed, c->target.nuntimed));
        json_object_set_new(tg, "resolved_by_change", json_boolean(c->target_resolved));
        json_t *sets = json_array();
        for (size_t i = 0; i < c->nsets; i++) {
            json_t *e = json_object();
            json_object_set_new(e, "kernels", jnames(c->sets[i].names, c->sets[i].n));
            json_object_set_new(e, "flags", jstr(c->sets[i].flags));
            json_object_set_new(e, "group", jgroup(&c->sets[i].group));
            json_array_append_new(sets, e);
        }
        json_object_set_new(tg, "candidate_sets", sets);
        json_object_set_new(tm, "target", tg);
        json_object_set_new(tm, "per_shape_traces", jint(c->traces_matched));
    } else {
        json_object_set_new(tm, "target", json_null());
        json_object_set_new(tm, "per_shape_traces", jint(0));
    }
    json_object_set_new(tm, "best", jtside(&c->tbest, have));
    json_object_set_new(tm, "candidate", jtside(&c->tcand, have));
    json_t *ks = json_array();
    if (have) {
        const an_side_time *sd[2] = {&c->tbest, &c->tcand};
        char **names = NULL;
        size_t nn = 0;
        for (int s = 0; s < 2; s++)
            for (size_t i = 0; i < sd[s]->nkernels; i++) {
                int seen = 0;
                for (size_t q = 0; q < nn && !seen; q++)
                    seen = !strcmp(names[q], sd[s]->kernels[i].name);
                if (seen)
                    continue;
                char **nv = realloc(names, (nn + 1) * sizeof *nv);
                if (!nv)
                    break;
                names = nv;
                names[nn++] = (char *)sd[s]->kernels[i].name;
            }
        for (size_t q = 0; q < nn; q++) {
            json_t *e = json_object();
            json_object_set_new(e, "name", json_string(names[q]));
            json_object_set_new(e, "target", json_boolean(an_target_has(&c->target, names[q])));
            json_object_set_new(e, "helper", json_boolean(an_time_is_helper(names[q])));
            json_object_set_new(e, "framework", json_boolean(an_time_is_framework(names[q])));
            json_object_set_new(e, "best", jkstat(&c->tbest, names[q]));
            json_object_set_new(e, "candidate", jkstat(&c->tcand, names[q]));
            json_array_append_new(ks, e);
        }
        free(names);
    }
    json_object_set_new(tm, "kernels", ks);
    json_object_set_new(tm, "global", jgroup(&c->global));
    json_object_set_new(tm, "target_class", c->has_target_class ? jgroup(&c->target_group) : json_null());
    json_t *kg = json_array();
    for (size_t i = 0; i < c->nkernel_groups; i++)
        json_array_append_new(kg, jgroup(&c->kernel_groups[i]));
    json_object_set_new(tm, "kernel_groups", kg);
    json_object_set_new(tm, "decisive_kernels", jnames(c->decisive_kernels, c->ndecisive));
    json_object_set_new(root, "timing", tm);

    /* script metric */
    json_t *sm = json_object();
    const an_bench_cmp *b = &c->bench;
    json_object_set_new(sm, "column", c->has_bench ? jstr(b->metric) : json_null());
    json_object_set_new(sm, "source", c->has_bench ? jstr(b->metric_source) : json_null());
    json_object_set_new(sm, "decides", json_boolean(c->script_only));
    json_object_set_new(sm, "geomean_ratio", c->has_bench && b->has_ratio ? jnum(b->geomean_ratio) : json_null());
    json_object_set_new(sm, "interval", c->has_bench && b->has_ratio ? json_pack("[o, o]", jnum(b->boot_lo), jnum(b->boot_hi)) : json_null());
    json_object_set_new(sm, "seed", json_string(seed));
    json_object_set_new(sm, "resamples", jint(c->resamples));
    json_object_set_new(sm, "row_mean_best", c->has_bench && b->has_ratio ? jnum(b->best_mean) : json_null());
    json_object_set_new(sm, "row_mean_candidate", c->has_bench && b->has_ratio ? jnum(b->cand_mean) : json_null());
    json_object_set_new(sm, "group", c->has_script ? jgroup(&c->script_global) : json_null());
    json_object_set_new(root, "script_metric", sm);

    /* split */
    if (c->verdict == AN_V_SPLIT) {
        json_t *sp = json_object(), *imp = json_array(), *reg = json_array(), *unc = json_array();
        for (size_t k = 0; k < c->nclasses; k++) {
            an_outcome o = c->classes[k].outcome;
            json_array_append_new(o == AN_OUT_IMPROVED ? imp : o == AN_OUT_REGRESSED ? reg : unc,
                                  json_string(c->classes[k].label));
        }
        json_object_set_new(sp, "improved", imp);
        json_object_set_new(sp, "regressed", reg);
        json_object_set_new(sp, "unchanged", unc);
        json_object_set_new(sp, "predicate", jstr(c->predicate));
        json_object_set_new(root, "split", sp);
    } else {
        json_object_set_new(root, "split", json_null());
    }

    /* need more */
    const an_group *ng = NULL;
    if (c->verdict == AN_V_INCONCLUSIVE) {
        if (c->has_target_class && c->target_group.outcome == AN_OUT_INCONCLUSIVE && c->target_group.need_more)
            ng = &c->target_group;
        else if (c->global.need_more)
            ng = &c->global;
    }
    json_object_set_new(root, "need_more", ng ? json_pack("{s:s, s:I, s:o, s:b}", "group", ng->label ? ng->label : "",
                                                          "warm_calls_per_side", (json_int_t)ng->need_more, "calls_per_row",
                                                          ng->need_calls_per_row ? jint(ng->need_calls_per_row) : json_null(),
                                                          "too_small_to_resolve", ng->too_small)
                                              : json_null());

    /* trace */
    json_t *tr = json_object(), *pairs = json_array(), *unp = json_array();
    for (size_t i = 0; i < in->npairs; i++)
        json_array_append_new(pairs, jtrace_pair(&in->pairs[i]));
    for (size_t i = 0; i < in->nunpaired; i++)
        json_array_append_new(unp, json_pack("{s:s, s:s, s:s}", "side", in->unpaired[i].side, "capture",
                                             in->unpaired[i].capture, "why", in->unpaired[i].why));
    json_object_set_new(tr, "pairs", pairs);
    json_object_set_new(tr, "unpaired", unp);
    json_object_set_new(root, "trace", tr);

    /* the performance.md row */
    kr_buf row;
    kr_buf_init(&row);
    const char *none = NULL;
    row_text(in, &row, &none);
    size_t rl = row.len;
    while (rl && row.data[rl - 1] == '\n')
        row.data[--rl] = '\0';
    json_object_set_new(root, "row", json_pack("{s:s, s:o, s:o}", "kind",
                                               c->verdict == AN_V_KEEP ? "results" : c->verdict == AN_V_DISCARD ? "regression" : "none",
                                               "text", rl ? json_string(row.data) : json_null(), "why_none", jstr(none)));
    kr_buf_free(&row);

    char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    json_decref(root);
    if (!s)
        return 5;
    kr_buf_puts(out, s);
    kr_buf_putc(out, '\n');
    free(s);
    return out->oom ? 5 : 0;
}

/* ---- performance.md rows (docs/compare.md#log-rows) ---- */

static int row_text(const rep_cmp_input *in, kr_buf *out, const char **none)
{
    const an_compare *c = in->cmp;
    char a[128], b[128], x[64];
    *none = NULL;
    if (c->verdict != AN_V_KEEP && c->verdict != AN_V_DISCARD) {
        *none = c->verdict == AN_V_TIE ? "a tie enters no performance.md row"
                : c->verdict == AN_V_INCONCLUSIVE ? "an inconclusive result enters no row: re-run and compare again"
                : c->verdict == AN_V_SPLIT ? "a split enters no row until the specialized kernel is kept"
                                           : "a failed comparison enters no row";
        return 0;
    }
    const an_bench_cmp *bc = &c->bench;
    int has_metric = c->has_bench && bc->has_ratio;
    const an_group *g = &c->global;
    const char *delta = g->evaluated ? (snprintf(x, sizeof x, "%+.1f%%", g->r * 100), x) : "—";
    if (g->evaluated && c->benchmark_only && bc->metric_higher)   /* in the metric's own unit: a gain reads +, named */
        snprintf(x, sizeof x, "%+.1f%% %s", (1 / (1 + g->r) - 1) * 100, bc->metric);
    if (c->verdict == AN_V_KEEP) {
        char d[16];
        const char *commit = side_commit(in, 1);
        kr_buf t, k;
        kr_buf_init(&t);
        kr_buf_init(&k);
        if (c->has_target_class)
            kr_buf_puts(&t, c->target_spec.text);
        else {
            kr_buf_puts(&t, "global");
            if (c->gain_classes)
                kr_buf_printf(&t, " (gain in %s)", c->gain_classes);
        }
        char *const *kn = c->ndecisive ? c->decisive_kernels : c->target.names;
        size_t nk = c->ndecisive ? c->ndecisive : c->target.n;
        for (size_t i = 0; i < nk; i++)
            kr_buf_printf(&k, "%s%s", i ? ", " : "", kn[i]);
        const char *note = in->note ? in->note : in->cand_in->hypothesis;
        rep_perf_row r = {rep_perf_date(in->cand_in->date, in->today, d), commit ? commit : "worktree", c->verdict_text,
                          in->cand_in->command ? in->cand_in->command : "—", kr_buf_cstr(&t), nk ? kr_buf_cstr(&k) : "—",
                          has_metric ? (snprintf(a, sizeof a, "%.1f", bc->cand_mean), a) : "—",
                          g->evaluated && !c->script_only ? (snprintf(b, sizeof b, "%.1f", g->mean_cand / 1000.0), b) : "—",
                          delta, note ? note : ""};
        rep_perf_row_write(out, &r);
        kr_buf_free(&t);
        kr_buf_free(&k);
        return out->oom ? 5 : 0;
    } else {
        kr_buf_puts(out, "|");
        const char *att = in->cand_in->attempt;
        rep_perf_cell(out, att ? att : "—");
        const char *hyp = in->note ? in->note : in->cand_in->hypothesis;
        rep_perf_cell(out, hyp ? hyp : "—");
        rep_perf_cell(out, in->cand_in->files ? in->cand_in->files : "—");
        if (has_metric)
            snprintf(a, sizeof a, "%.1f → %.1f", bc->best_mean, bc->cand_mean);
        rep_perf_cell(out, has_metric ? a : "—");
        if (g->evaluated && !c->script_only)
            snprintf(b, sizeof b, "%.1f → %.1f", g->mean_best / 1000.0, g->mean_cand / 1000.0);
        rep_perf_cell(out, g->evaluated && !c->script_only ? b : "—");
        rep_perf_cell(out, delta);
        /* Notes: regressed classes, resource changes, script disagreement. */
        kr_buf n;
        kr_buf_init(&n);
        size_t nreg = 0;
        double lo = INFINITY, hi = -INFINITY;
        for (size_t k = 0; k < c->nclasses; k++)
            if (c->classes[k].outcome == AN_OUT_REGRESSED) {
                nreg++;
                if (c->classes[k].r < lo) lo = c->classes[k].r;
                if (c->classes[k].r > hi) hi = c->classes[k].r;
            }
        if (nreg == c->nclasses)
            kr_buf_printf(&n, "all %zu class%s slower (%+.1f..%+.1f%%)", nreg, nreg == 1 ? "" : "es", lo * 100, hi * 100);
        else if (nreg)
            kr_buf_printf(&n, "%zu of %zu classes slower (%+.1f..%+.1f%%)", nreg, c->nclasses, lo * 100, hi * 100);
        for (size_t i = 0; i < c->target.n; i++) {
            int ib = an_time_kernel_index(&c->tbest, c->target.names[i]);
            int ic = an_time_kernel_index(&c->tcand, c->target.names[i]);
            if (ib < 0 || ic < 0)
                continue;
            const an_kernel_stat *kb = &c->tbest.kernels[ib], *kc = &c->tcand.kernels[ic];
            const char *what[] = {"VGPR", "AGPR", "SGPR", "LDS", "scratch"};
            int64_t vb[] = {kb->vgpr, kb->agpr, kb->sgpr, kb->lds, kb->scratch};
            int64_t vc[] = {kc->vgpr, kc->agpr, kc->sgpr, kc->lds, kc->scratch};
            for (int q = 0; q < 5; q++)
                if (vb[q] >= 0 && vc[q] >= 0 && vb[q] != vc[q])
                    kr_buf_printf(&n, "%s%s %s %" PRId64 " → %" PRId64, n.len ? "; " : "", c->target.names[i], what[q],
                                  vb[q], vc[q]);
        }
        for (size_t p = 0; p < in->npairs; p++) {
            const an_cmp_trace *t = in->pairs[p].trace;
            int bestk = -1;
            double bestd = 0;
            for (unsigned k = 0; k < AN_STALL_COUNT; k++) {
                double sb = t->stall_total.best ? (double)t->kinds[k].best / (double)t->stall_total.best : 0;
                double sc = t->stall_total.cand ? (double)t->kinds[k].cand / (double)t->stall_total.cand : 0;
                if (sc - sb > bestd) {
                    bestd = sc - sb;
                    bestk = (int)k;
                }
            }
            if (bestk >= 0)
                kr_buf_printf(&n, "%sstall %s grew %+.1f pp", n.len ? "; " : "", an_stall_kind_key((unsigned)bestk),
                              bestd * 100);
        }
        if (c->has_script && g->evaluated && !c->script_only && fabs(c->script_global.r - g->r) > c->noise)
            kr_buf_printf(&n, "%sscript metric disagrees (%+.1f%%)", n.len ? "; " : "", c->script_global.r * 100);
        rep_perf_cell(out, kr_buf_cstr(&n));
        kr_buf_free(&n);
    }
    kr_buf_putc(out, '\n');
    return out->oom ? 5 : 0;
}

int rep_compare_row(const rep_cmp_input *in, kr_buf *out, const char **none)
{
    return row_text(in, out, none);
}
