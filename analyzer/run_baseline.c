/* run_baseline.c — see run_baseline.h (docs/compare.md). */
#include "analyzer/run_baseline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

static char *xstrdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

static int add_name(char ***v, size_t *n, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*v)[i], name))
            return 0;
    char **nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        return KR_INTERNAL;
    *v = nv;
    nv[*n] = xstrdup(name);
    (*n)++;
    return nv[*n - 1] ? 0 : KR_INTERNAL;
}

static void free_names(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static double spread_of(const an_desc *d)
{
    return d->n >= 2 && d->median > 0 ? 1.4826 * d->mad / d->median : 0;
}

static void calls_figures(const an_side_time *t, an_baseline_calls *c)
{
    memset(c, 0, sizeof *c);
    c->calls = t->ncalls;
    c->warm_calls = t->warm.n;
    c->segments = t->nsegments;
    c->warm = t->warm;
    c->spread = spread_of(&t->warm);
    c->calls_per_segment = t->calls_per_segment;
    c->cold_segments = t->cold_segments;
}

/* Paired row index of each data row of b->best (SIZE_MAX when unpaired). */
static size_t *row_pairs(const an_bench_cmp *b)
{
    size_t *m = malloc((b->best->nrows + 1) * sizeof *m);
    if (!m)
        return NULL;
    for (size_t i = 0; i < b->best->nrows; i++)
        m[i] = SIZE_MAX;
    for (size_t p = 0; p < b->nrows; p++)
        m[b->rows[p].best_row] = p;
    return m;
}

int an_baseline_kernel_columns(const an_bench_cmp *b, const an_side_time *t, char ***out, size_t *nout)
{
    size_t nr = b->nrows;
    if (!t->row_aligned || nr < 2 || nr > 2000)
        return 0;
    size_t *pair = row_pairs(b);
    char **sig = calloc(nr, sizeof *sig);
    int rc = KR_INTERNAL;
    if (!pair || !sig)
        goto out;
    /* Per paired row: the sorted set of kernels starting its calls. */
    for (size_t p = 0; p < nr; p++) {
        char **names = NULL;
        size_t nn = 0;
        for (size_t i = 0; i < t->ncalls; i++) {
            const an_call *k = &t->calls[i];
            if (k->row < b->best->nrows && pair[k->row] == p && k->first_kernel < t->nkernels &&
                add_name(&names, &nn, t->kernels[k->first_kernel].name)) {
                free_names(names, nn);
                goto out;
            }
        }
        for (size_t i = 1; i < nn; i++)
            for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
                char *tmp = names[j];
                names[j] = names[j - 1];
                names[j - 1] = tmp;
            }
        kr_buf s;
        kr_buf_init(&s);
        for (size_t i = 0; i < nn; i++)
            kr_buf_printf(&s, "%s\x1f", names[i]);
        free_names(names, nn);
        sig[p] = xstrdup(kr_buf_cstr(&s));
        kr_buf_free(&s);
        if (!sig[p])
            goto out;
    }
    int constant = 1;
    for (size_t p = 1; p < nr; p++)
        constant &= !strcmp(sig[p], sig[0]);
    /* A column selects kernels when equal values never run different kernels. */
    if (!constant)
        for (size_t col = 0; col < b->nconfig; col++) {
            int function = 1;
            char v1[512], v2[512];
            for (size_t p = 0; p < nr && function; p++)
                for (size_t q = p + 1; q < nr && function; q++) {
                    an_bench_norm(an_bench_cell(b->best, b->rows[p].best_row, (size_t)b->config_best[col]), v1, sizeof v1);
                    an_bench_norm(an_bench_cell(b->best, b->rows[q].best_row, (size_t)b->config_best[col]), v2, sizeof v2);
                    if (!strcmp(v1, v2) && strcmp(sig[p], sig[q]))
                        function = 0;
                }
            if (function && add_name(out, nout, b->config[col]))
                goto out;
        }
    rc = 0;
out:
    for (size_t p = 0; sig && p < nr; p++)
        free(sig[p]);
    free(sig);
    free(pair);
    return rc;
}

static size_t dispatches(const an_cmp_side *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->ntraces; i++)
        n += s->traces[i].n;
    return n;
}


/* The gate as compare reads it (an_cmp_default_gate): --gate, else err_*
 * and every text or boolean gate column, else the exit status, else none;
 * `--gate none` accepts no gate. */
static int gate(const an_cmp_side *side, const an_baseline_opts *o, an_baseline *out, kr_err *err)
{
    const char *expr = NULL;
    out->exit_code = side->exit_code;
    kr_buf def;
    kr_buf_init(&def);
    an_cmp_default_gate(side, side, &def);
    if (o->gate && !strcmp(o->gate, "none")) {
        out->gate_source = "none_option";
    } else if (o->gate) {
        expr = o->gate;
        out->gate_source = "option";
    } else if (def.len) {
        expr = kr_buf_cstr(&def);
        out->gate_source = "default";
    } else {
        out->gate_source = side->exit_code >= 0 ? "exit_status" : "none";
    }
    if (!expr) {
        kr_buf_free(&def);
        out->gate_status = !strcmp(out->gate_source, "exit_status") ? (side->exit_code ? "fail" : "pass") : "no_gate";
        return 0;
    }
    int rc = an_gate_parse(expr, &out->gate, err);
    kr_buf_free(&def);
    if (rc)
        return rc;
    if (!strcmp(out->gate_source, "default"))
        for (size_t k = 0; k < out->gate.n; k++)
            out->gate.terms[k].gate_columns_only = 1;
    if (an_gate_evaluate(&out->gate, side->csvs, side->ncsvs, &out->gate_eval))
        return KR_INTERNAL;
    if (o->gate && side->ncsvs)
        for (size_t k = 0; k < out->gate.n; k++)
            if (!out->gate_eval.term_matched[k])
                return kr_err_set(err, KR_USAGE, NULL, NULL, "--gate: '%s' matches no column of any benchmark CSV",
                                  out->gate.terms[k].pattern);
    out->gate_status = side->ncsvs == 0 ? "not_evaluated" : out->gate_eval.nfails ? "fail" : "pass";
    return 0;
}

/* The metric CSV: the first plain one, else the first. */
static size_t metric_csv(const an_cmp_side *s)
{
    for (size_t i = 0; i < s->ncsvs; i++)
        if (!s->csvs[i].profiled)
            return i;
    return s->ncsvs ? 0 : SIZE_MAX;
}

static int candidates(const an_cmp_side *side, size_t skip_first, double theta, an_baseline *out)
{
    const char *names[2] = {out->target.names[0], out->target.runner_up};
    out->candidates = calloc(2, sizeof *out->candidates);
    if (!out->candidates)
        return KR_INTERNAL;
    for (int i = 0; i < 2; i++) {
        an_baseline_candidate *c = &out->candidates[out->ncandidates++];
        c->name = xstrdup(names[i]);
        if (!c->name)
            return KR_INTERNAL;
        int k = an_time_kernel_index(&out->time, names[i]);
        if (k >= 0) {
            c->dispatches = out->time.kernels[k].all.n;
            c->total_ns = out->time.kernels[k].total_ns;
        }
        an_target one;
        memset(&one, 0, sizeof one);
        one.names = &c->name;
        one.n = 1;
        an_side_time t;
        int rc = an_time_kernels(side->traces, side->ntraces, theta, &t);
        if (!rc)
            rc = an_time_calls(side->traces, side->ntraces, &one, skip_first, 0, theta, &t);
        if (!rc)
            calls_figures(&t, &c->calls);
        an_side_time_free(&t);
        if (rc)
            return KR_INTERNAL;
    }
    return 0;
}

/* Inputs of a kernel's limits from its first dispatch in the trace. */
static void occ_inputs(const an_kernel_stat *k, an_occ_kernel *o)
{
    memset(o, 0, sizeof *o);
    o->reported_arch_vgpr = k ? k->vgpr : -1;
    o->reported_accum_vgpr = k ? k->agpr : -1;
    o->reported_sgpr = k ? k->sgpr : -1;
    o->lds_bytes = k ? k->lds : -1;
    o->scratch_bytes = k ? k->scratch : -1;
    o->wg_size = k && k->wg_size > 0 ? k->wg_size : -1;
    o->workgroups = k && k->grid_wg > 0 ? k->grid_wg : -1;
    o->grid_size = o->wg_size > 0 && o->workgroups > 0 ? o->wg_size * o->workgroups : -1;
    o->kernel_id = o->csv_dispatch_id = -1;
    o->codeobj = -1;
}

static const an_kernel_stat *stat_of(const an_baseline *b, const an_baseline_kernel *bk)
{
    return bk->kernel >= 0 ? &b->time.kernels[bk->kernel] : NULL;
}

static void kernel_limits(an_baseline *out, an_baseline_kernel *bk)
{
    const an_kernel_stat *k = stat_of(out, bk);
    occ_inputs(k, &bk->occ);
    an_occ_limits_reported(&bk->occ, out->gpu_target, out->cu_count);
    /* docs/occupancy.md#register-counts: on gfx950 an AGPR count of 0 next to the arch count may be the
     * old fallback (half the allocation); only the ISA tells. */
    if (k && k->vgpr > 0 && k->agpr == 0 && out->gpu_target && !strncmp(out->gpu_target, "gfx95", 5)) {
        bk->under_report_possible = 1;
        occ_inputs(k, &bk->occ_doubled);
        bk->occ_doubled.reported_arch_vgpr = 2 * k->vgpr;
        an_occ_limits_reported(&bk->occ_doubled, out->gpu_target, out->cu_count);
    }
}

static int classes(const an_cmp_side *side, an_baseline *out)
{
    an_bench_cmp *b = &out->bench;
    out->nclasses = b->nclasses;
    out->classes = calloc(b->nclasses + 1, sizeof *out->classes);
    size_t *pair = row_pairs(b);
    size_t cap = (out->time.ncalls > b->nrows ? out->time.ncalls : b->nrows) + 1;
    double *v = malloc(cap * sizeof *v);
    double *rsum = calloc(b->nrows + 1, sizeof *rsum);
    size_t *rn = calloc(b->nrows + 1, sizeof *rn);
    uint8_t *sel = calloc(b->nrows + 1, 1);
    int rc = KR_INTERNAL;
    (void)side;
    if (!out->classes || !pair || !v || !rsum || !rn || !sel)
        goto out;
    /* Per row: mean warm per-call time (docs/compare.md#log-rows "GPU time"). */
    if (out->row_aligned)
        for (size_t i = 0; i < out->time.ncalls; i++) {
            const an_call *k = &out->time.calls[i];
            if (k->warm && k->row < b->best->nrows && pair[k->row] != SIZE_MAX) {
                rsum[pair[k->row]] += k->ns;
                rn[pair[k->row]]++;
            }
        }
    double msum = 0;
    for (size_t p = 0; p < b->nrows; p++)
        if (rn[p]) {
            msum += rsum[p] / (double)rn[p];
            out->gpu_rows++;
        }
    out->gpu_row_mean = out->gpu_rows ? msum / (double)out->gpu_rows : 0;
    size_t nm = 0;
    for (size_t p = 0; p < b->nrows; p++)
        if (b->rows[p].has_metric)
            v[nm++] = b->rows[p].best_metric;
    an_desc_compute(v, nm, &out->metric);
    for (size_t c = 0; c < b->nclasses; c++) {
        const an_bench_class *bc = &b->classes[c];
        an_baseline_class *x = &out->classes[c];
        x->label = bc->label;
        x->rows = bc->nrows;
        memset(sel, 0, b->nrows + 1);
        for (size_t i = 0; i < bc->nrows; i++)
            sel[bc->rows[i]] = 1;
        size_t n = 0;
        for (size_t i = 0; i < bc->nrows; i++)
            if (b->rows[bc->rows[i]].has_metric)
                v[n++] = b->rows[bc->rows[i]].best_metric;
        an_desc_compute(v, n, &x->metric);
        n = 0;
        if (out->row_aligned)
            for (size_t i = 0; i < out->time.ncalls; i++) {
                const an_call *k = &out->time.calls[i];
                if (!k->warm || k->row >= b->best->nrows || pair[k->row] == SIZE_MAX || !sel[pair[k->row]])
                    continue;
                v[n++] = k->ns;
                if (k->first_kernel < out->time.nkernels &&
                    add_name(&x->kernels, &x->nkernels, out->time.kernels[k->first_kernel].name))
                    goto out;
            }
        an_desc_compute(v, n, &x->gpu);
        x->gpu_spread = spread_of(&x->gpu);
    }
    rc = 0;
out:
    free(pair);
    free(v);
    free(rsum);
    free(rn);
    free(sel);
    return rc;
}

int an_baseline_run(const an_cmp_side *side, const an_baseline_opts *o, an_baseline *out, kr_err *err)
{
    memset(out, 0, sizeof *out);
    out->metric_csv = SIZE_MAX;
    out->cu_count = side->cu_count;
    double theta = o->noise > 0 ? o->noise : AN_CMP_DEFAULT_NOISE;
    if (o->target && *o->target) {
        out->gpu_target = xstrdup(o->target);
        out->gpu_target_source = "option";
    } else if (side->gpu_name && !strncmp(side->gpu_name, "gfx", 3)) {
        out->gpu_target = xstrdup(side->gpu_name);
        out->gpu_target_source = "agent_info";
    }
    int rc;

    /* A benchmark harness: only the provider under test's rows (as compare). */
    out->harness = calloc(1, sizeof *out->harness);
    if (!out->harness)
        return KR_INTERNAL;
    if ((rc = an_cmp_harness(out->harness, side, side, o->provider, err)))
        return rc;
    an_cmp_side view = *side;
    if (out->harness->views_best)
        view.csvs = out->harness->views_best;
    side = &view;

    /* Benchmark CSV: the metric CSV paired with itself. */
    if ((out->metric_csv = metric_csv(side)) != SIZE_MAX) {
        const an_bench_csv *m = &side->csvs[out->metric_csv];
        an_bench_opts bo = {o->metric, o->class_by, AN_DIR_AUTO, NULL};
        if ((rc = an_bench_pair(m, m, &bo, &out->bench, err)))
            return rc;
        out->has_bench = 1;
        for (size_t i = 0; i < side->ncsvs; i++)
            out->nplain_csvs += side->csvs[i].profiled == m->profiled;
    }
    if ((rc = gate(side, o, out, err)))
        return rc;

    /* Kernels, target set, calls. */
    out->has_timing = dispatches(side) > 0;
    if (out->has_timing) {
        if (an_time_kernels(side->traces, side->ntraces, theta, &out->time))
            return KR_INTERNAL;
        for (size_t i = 0; i < out->time.nkernels; i++)
            out->total_ns += out->time.kernels[i].total_ns;
        if ((rc = an_time_target(&out->time, &out->time, o->kernels, o->nkernels, &out->target, err)))
            return rc;
        if (out->target.n == 0 && o->nkernels)
            return kr_err_set(err, KR_USAGE, NULL, NULL, "--kernel matches no kernel name in the trace");
        size_t nrows = out->has_bench ? out->bench.best->nrows : 0;
        /* Companions join every call of an auto-picked set; a pinned set
         * measures its kernels per call, the companions neither breaking a
         * segment nor counting (compare's rule). */
        char **comp = NULL;
        size_t ncomp = 0;
        if (an_time_companions(side->traces, &out->time, &out->target, nrows, &comp, &ncomp) ||
            an_target_add_companions(&out->time, &out->time, &out->target, comp, ncomp, o->nkernels == 0)) {
            free_names(comp, ncomp);
            return KR_INTERNAL;
        }
        free_names(comp, ncomp);
        if (an_time_calls(side->traces, side->ntraces, &out->target, o->skip_first, nrows, theta, &out->time))
            return KR_INTERNAL;
        out->target_found = out->time.ncalls > 0;
        calls_figures(&out->time, &out->calls);
        out->row_aligned = out->has_bench && out->time.row_aligned && !out->bench.nunpaired_best;
        if (out->target.ambiguous && out->target.runner_up && (rc = candidates(side, o->skip_first, theta, out)))
            return rc;
        out->nkernels = out->target.n;
        out->kernels = calloc(out->nkernels + 1, sizeof *out->kernels);
        if (!out->kernels)
            return KR_INTERNAL;
        for (size_t i = 0; i < out->nkernels; i++) {
            out->kernels[i].name = out->target.names[i];
            out->kernels[i].kernel = an_time_kernel_index(&out->time, out->target.names[i]);
            kernel_limits(out, &out->kernels[i]);
        }
        if (out->row_aligned &&
            an_baseline_kernel_columns(&out->bench, &out->time, &out->kernel_columns, &out->nkernel_columns))
            return KR_INTERNAL;
    }

    /* Classes: compare's key, plus the kernel-selecting columns it lacks. */
    if (out->has_bench) {
        if ((rc = an_bench_classes(&out->bench, o->class_by, NULL, 0, err)))
            return rc;
        size_t keep = 0;
        for (size_t i = 0; i < out->nkernel_columns; i++) {
            int in_key = 0;
            for (size_t q = 0; q < out->bench.nclass_cols; q++)
                in_key |= !strcmp(out->bench.class_cols[q], out->kernel_columns[i]);
            if (in_key)
                free(out->kernel_columns[i]);
            else
                out->kernel_columns[keep++] = out->kernel_columns[i];
        }
        out->nkernel_columns = keep;
        if (keep && (rc = an_bench_classes(&out->bench, o->class_by, (const char *const *)out->kernel_columns, keep, err)))
            return rc;
        if (classes(side, out))
            return KR_INTERNAL;
    }
    return 0;
}

void an_baseline_use_capture(an_baseline *b, const an_occupancy *occ, const char *capture)
{
    for (size_t i = 0; i < b->nkernels; i++) {
        an_baseline_kernel *bk = &b->kernels[i];
        if (bk->from_capture)
            continue;
        for (size_t j = 0; j < occ->nkernels; j++) {
            const an_occ_kernel *k = &occ->kernels[j];
            if (!k->name || strcmp(k->name, bk->name))
                continue;
            /* The trace's counts with the capture's ISA marks: docs/occupancy.md#register-counts decides. */
            bk->from_capture = 1;
            occ_inputs(stat_of(b, bk), &bk->capture_occ);
            bk->capture_occ.isa_v = k->isa_v;
            bk->capture_occ.isa_a = k->isa_a;
            bk->capture_occ.isa_s = k->isa_s;
            an_occ_limits_reported(&bk->capture_occ, b->gpu_target, b->cu_count);
            bk->capture = capture;
            break;
        }
    }
}

void an_baseline_free(an_baseline *b)
{
    an_side_time_free(&b->time);
    an_target_free_set(&b->target);
    for (size_t i = 0; i < b->ncandidates; i++)
        free(b->candidates[i].name);
    free(b->candidates);
    free(b->kernels);
    free(b->gpu_target);
    an_bench_free(&b->bench);
    free_names(b->kernel_columns, b->nkernel_columns);
    for (size_t c = 0; c < b->nclasses; c++)
        free_names(b->classes[c].kernels, b->classes[c].nkernels);
    free(b->classes);
    an_gate_free(&b->gate);
    an_gate_eval_free(&b->gate_eval);
    if (b->harness) {
        an_compare_free(b->harness);
        free(b->harness);
    }
    memset(b, 0, sizeof *b);
}
