/* run_analyze.c — `kreport analyze RUN` on a run directory (docs/compare.md,
 * docs/compare.md#discovery): discovery as compare does it (cli/run_side.h), the baseline figures
 * (analyzer/run_baseline.h), the analysis of the captures of the target
 * kernel, REPORT.md / analysis.json written atomically or to stdout, and the
 * performance.md baseline row (--row). */
#include "cli/run_analyze.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyzer/analysis.h"
#include "cli/opts.h"
#include "cli/pack.h"
#include "cli/run_side.h"
#include "cli/streamed.h"
#include "common/file.h"
#include "common/outfile.h"
#include "common/pool.h"
#include "common/progress.h"
#include "report/report.h"
#include "report/run.h"

static int fail(const kr_err *err)
{
    char msg[2048];
    kr_err_format(err, msg, sizeof msg);
    fprintf(stderr, "kreport analyze: %s\n", msg);
    return err->code ? err->code : KR_INTERNAL;
}

/* Capture symbol without a ".kd" suffix equals name. */
static int same_kernel(const char *symbol, const char *name)
{
    size_t n = strlen(symbol);
    if (n >= 3 && !strcmp(symbol + n - 3, ".kd"))
        n -= 3;
    return strlen(name) == n && !strncmp(symbol, name, n);
}

int cli_run_analyze(const char *path, const bundle_input *input, const cli_run_opts *o)
{
    kr_err err;
    kr_err_clear(&err);
    cli_run_side side;
    int rc = cli_run_side_scan(&side, input->src, input->root, path, &err);
    if (rc) {
        cli_run_side_free(&side);
        return fail(&err);
    }
    bundle_run *r = side.run;
    if (!r->ncsvs && !r->ntraces && !r->ncaptures) {
        fprintf(stderr, "kreport analyze: %s: not a capture folder (no filenames.json), an example folder "
                        "(no att_viewer/<label>/ui_output_*) or a run directory (no benchmark CSV, kernel trace or "
                        "capture found inside)\n", path);
        cli_run_side_free(&side);
        return KR_INPUT;
    }
    an_baseline b;
    an_baseline_opts bo = {o->kernels, o->nkernels, o->gate, o->metric, o->class_by, 1, AN_CMP_DEFAULT_NOISE, o->target, NULL};
    size_t ncap = r->ncaptures, nan = 0;
    rep_run_capture *caps = calloc(ncap + 1, sizeof *caps);
    kr_capture **loaded = calloc(ncap + 1, sizeof *loaded);
    an_analysis *res = calloc(ncap + 1, sizeof *res);
    const an_analysis **resp = calloc(ncap + 1, sizeof *resp);
    const char **labels = calloc(ncap + 1, sizeof *labels);
    size_t nloaded = 0;
    kr_buf md, js, cj, row, rerun;
    kr_buf_init(&md);
    kr_buf_init(&js);
    kr_buf_init(&cj);
    kr_buf_init(&row);
    kr_buf_init(&rerun);
    if (!caps || !loaded || !res || !resp || !labels) {
        rc = KR_INTERNAL;
        memset(&b, 0, sizeof b);
        goto done;
    }
    if ((rc = an_baseline_run(&side.in, &bo, &b, &err))) {
        if (rc == KR_USAGE) {
            char msg[2048];
            kr_err_format(&err, msg, sizeof msg);
            fprintf(stderr, "kreport analyze: %s\n", msg);
        } else {
            rc = fail(&err);
        }
        goto done;
    }

    /* Captures of the target kernel set (all of them when there is no trace). */
    kr_progress *bar = kr_progress_new(2, kr_progress_mode_of(o->progress, o->no_progress, o->quiet), "parsing");
    cli_memory_setup();
    for (size_t i = 0; i < ncap; i++) {
        const bundle_run_capture *c = &r->captures[i];
        int target = !b.has_timing;
        for (size_t k = 0; k < b.target.n && !target; k++)
            target = *c->kernel && same_kernel(c->kernel, b.target.names[k]);
        caps[i] = (rep_run_capture){c->rel, c->label, c->kernel, c->shell ? "empty_shell" : target ? "analyzed" : "other_kernel"};
        if (c->shell || !target)
            continue;
        bundle_opts lo = {0};
        lo.src = c->src;
        lo.progress = bar;
        lo.threads = o->jobs > 0 ? o->jobs : kr_cpu_count();
        lo.skip_wstates = 1;
        lo.label = *c->label ? c->label : NULL;
        an_stream *stream = NULL;
        if ((rc = cli_load_streamed(c->dir, &lo, 0, 0, 1, &loaded[nloaded], &stream, &err))) {
            kr_progress_free(bar);
            rc = fail(&err);
            goto done;
        }
        nloaded++;
        an_analysis_opts ao = {0};
        ao.top = o->top > 0 ? (size_t)o->top : 0;
        ao.context = o->context > 0 ? (size_t)o->context : 0;
        ao.target = o->target;
        ao.threads = lo.threads;
        rc = cli_analyze_loaded(stream, loaded[nloaded - 1], &ao, &res[nan]);
        an_stream_free(stream);
        if (rc) {
            kr_progress_free(bar);
            fprintf(stderr, "kreport analyze: out of memory analyzing %s\n", c->rel);
            rc = KR_INTERNAL;
            goto done;
        }
        resp[nan] = &res[nan];
        labels[nan] = *c->label ? c->label : c->rel;
        nan++;
        an_baseline_use_capture(&b, &res[nan - 1].occupancy, c->rel);
    }
    kr_progress_free(bar);

    /* Documents. */
    kr_buf_puts(&rerun, "kreport analyze");
    for (int i = 1; i < o->argc; i++) {
        if (!strcmp(o->argv[i], "-o") || !strcmp(o->argv[i], "--output")) {
            kr_buf_puts(&rerun, " -o OUTPUT_DIR");
            i++;
            continue;
        }
        kr_buf_putc(&rerun, ' ');
        cli_shell_quote(&rerun, o->argv[i]);
    }
    char today[16];
    cli_today(today, sizeof today);
    char *root_name = input->src ? bundle_source_folder_name(input->src, input->root) : NULL;
    char name[1024];
    snprintf(name, sizeof name, "%s", root_name ? root_name : path);
    free(root_name);
    size_t nl = strlen(name);
    while (nl > 1 && name[nl - 1] == '/')
        name[--nl] = '\0';
    rep_run_input ri = {&b, &side.in, kr_path_base(name), side.files, side.nfiles, side.meta, r->nmeta, caps, ncap,
                        o->kernels, o->nkernels, o->gate, o->metric, o->class_by, o->commit, o->note,
                        kr_buf_cstr(&rerun), today[0] ? today : NULL};
    rep_meta meta = {ri.name, ri.name, kr_buf_cstr(&rerun)};
    if ((o->want_md && rep_run_markdown(&ri, &md)) || rep_run_row(&ri, &row) ||
        (o->want_md && nan && rep_analysis_markdown(resp, labels, nan, &meta, &md)) ||
        (o->want_json && nan && rep_analysis_json(resp, labels, nan, &meta, &cj)) ||
        (o->want_json && rep_run_json(&ri, nan ? kr_buf_cstr(&cj) : NULL, &js))) {
        fprintf(stderr, "kreport analyze: out of memory rendering the report\n");
        rc = KR_INTERNAL;
        goto done;
    }
    if (o->out_dir) {
        if ((rc = kr_mkdir_p(o->out_dir, &err))) {
            rc = fail(&err);
            goto done;
        }
        kr_outset *set = kr_outset_new(o->out_dir, o->force);
        if (!set) {
            rc = KR_INTERNAL;
            goto done;
        }
        if ((o->want_md && kr_outset_add(set, "REPORT.md", md.data, md.len, &err)) ||
            (o->want_json && kr_outset_add(set, "analysis.json", js.data, js.len, &err)) || kr_outset_commit(set, &err)) {
            kr_outset_free(set);
            rc = fail(&err);
            goto done;
        }
        kr_outset_free(set);
    }
    kr_buf *b_out = o->row ? &row : o->out_dir ? NULL : o->want_md ? &md : &js;
    if (b_out && (fwrite(b_out->data ? b_out->data : "", 1, b_out->len, stdout) != b_out->len || fflush(stdout) != 0)) {
        fprintf(stderr, "kreport analyze: cannot write to standard output\n");
        rc = KR_OUTPUT;
        goto done;
    }
    if (o->out_dir && !o->quiet)
        fprintf(stderr, "kreport analyze: run %s (%zu capture%s analyzed) -> %s\n", ri.name, nan, nan == 1 ? "" : "s",
                o->out_dir);
    rc = 0;
done:
    for (size_t i = 0; i < nan; i++)
        an_analysis_free(&res[i]);
    for (size_t i = 0; i < nloaded; i++)
        bundle_capture_free(loaded[i]);
    free(caps);
    free(loaded);
    free(res);
    free(resp);
    free(labels);
    an_baseline_free(&b);
    cli_run_side_free(&side);
    kr_buf_free(&md);
    kr_buf_free(&js);
    kr_buf_free(&cj);
    kr_buf_free(&row);
    kr_buf_free(&rerun);
    return rc;
}

int cli_run_info(const char *path, const bundle_input *input, int json, kr_buf *out, kr_err *err)
{
    cli_run_side side;
    int rc = cli_run_side_scan(&side, input->src, input->root, path, err);
    if (rc) {
        cli_run_side_free(&side);
        return rc;
    }
    const bundle_run *r = side.run;
    if (!r->ncsvs && !r->ntraces && !r->ncaptures) {
        cli_run_side_free(&side);
        return -1;
    }
    an_baseline b;
    an_baseline_opts bo = {NULL, 0, NULL, NULL, NULL, 1, AN_CMP_DEFAULT_NOISE, NULL, NULL};
    if ((rc = an_baseline_run(&side.in, &bo, &b, err))) {
        an_baseline_free(&b);
        cli_run_side_free(&side);
        return rc;
    }
    const char *target = b.has_timing && b.target.n ? b.target.names[0] : NULL;
    size_t shells = 0;
    for (size_t i = 0; i < r->ncaptures; i++)
        shells += r->captures[i].shell;
    if (json) {
        kr_buf_puts(out, "{\"path\": ");
        cli_json_str(out, path);
        kr_buf_puts(out, ", \"files\": [");
        for (size_t i = 0; i < side.nfiles; i++) {
            kr_buf_puts(out, i ? ", {\"kind\": " : "{\"kind\": ");
            cli_json_str(out, side.files[i].kind);
            kr_buf_puts(out, ", \"path\": ");
            cli_json_str(out, side.files[i].path);
            kr_buf_puts(out, "}");
        }
        kr_buf_puts(out, "], \"target\": ");
        if (target)
            cli_json_str(out, target);
        else
            kr_buf_puts(out, "null");
        kr_buf_printf(out, ", \"ambiguous\": %s, \"warm_calls\": %zu, \"warm_median_us\": ", b.ncandidates ? "true" : "false",
                      b.calls.warm_calls);
        if (b.calls.warm_calls)
            kr_buf_printf(out, "%.10g", b.calls.warm.median / 1000.0);
        else
            kr_buf_puts(out, "null");
        kr_buf_puts(out, ", \"metric\": ");
        if (b.has_bench && b.bench.metric)
            cli_json_str(out, b.bench.metric);
        else
            kr_buf_puts(out, "null");
        kr_buf_printf(out, ", \"classes\": %zu, \"gate\": ", b.nclasses);
        cli_json_str(out, b.gate_status);
        kr_buf_printf(out, ", \"captures\": %zu, \"empty_shells\": %zu}", r->ncaptures - shells, shells);
    } else {
        size_t ndisp = 0;
        for (size_t i = 0; i < r->ntraces; i++)
            ndisp += r->traces[i].n;
        kr_buf_printf(out, "run %s\n", path);
        kr_buf_printf(out, "  found         %zu benchmark CSV%s, %zu kernel trace%s (%zu dispatches), %zu capture%s (%zu empty), "
                           "%zu agent info, %zu results.json, %zu log%s\n",
                      r->ncsvs, r->ncsvs == 1 ? "" : "s", r->ntraces, r->ntraces == 1 ? "" : "s", ndisp, r->ncaptures,
                      r->ncaptures == 1 ? "" : "s", shells, r->nagent_infos, r->nresults, r->nlogs, r->nlogs == 1 ? "" : "s");
        kr_buf_printf(out, "  command       %s\n", r->command ? r->command : "unknown");
        kr_buf_printf(out, "  GPU           %s %s\n", r->gpu_product ? r->gpu_product : "unknown", r->gpu_name ? r->gpu_name : "");
        if (target && b.calls.warm_calls)
            kr_buf_printf(out, "  target        %s%s: %zu warm calls, median %.2f us\n", target,
                          b.ncandidates ? " (ambiguous: pin it with --kernel)" : "", b.calls.warm_calls,
                          b.calls.warm.median / 1000.0);
        else
            kr_buf_printf(out, "  target        %s\n", target ? "no warm call of the target kernel set" : "no kernel trace");
        if (b.has_bench)
            kr_buf_printf(out, "  benchmark     %s: %zu rows, metric %s, %zu config class%s\n", b.bench.best->path,
                          b.bench.nrows, b.bench.metric ? b.bench.metric : "none", b.nclasses, b.nclasses == 1 ? "" : "es");
        kr_buf_printf(out, "  gate          %s%s%s\n", b.gate_status, b.gate.text ? " " : "", b.gate.text ? b.gate.text : "");
        for (size_t i = 0; i < r->ncaptures; i++)
            kr_buf_printf(out, "  capture       %s (%s)\n", r->captures[i].rel,
                          r->captures[i].shell ? "empty shell" : *r->captures[i].kernel ? r->captures[i].kernel : "kernel unknown");
        kr_buf_printf(out, "  analyze with  kreport analyze %s\n", path);
    }
    an_baseline_free(&b);
    cli_run_side_free(&side);
    return out->oom ? KR_INTERNAL : 0;
}
