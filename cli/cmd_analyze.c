/* cmd_analyze.c — kreport analyze PATH: load, run every analysis, write
 * REPORT.md / analysis.json / CSVs atomically (or Markdown to stdout). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/analysis.h"
#include "bundle/capture.h"
#include "bundle/discover.h"
#include "bundle/source.h"
#include "cli/commands.h"
#include "cli/streamed.h"
#include "cli/roof.h"
#include "common/buf.h"
#include "common/file.h"
#include "common/outfile.h"
#include "common/pool.h"

/* A benchmark build (CMake KREPORT_BENCH_NO_FLOW) skips the waits, hidden
 * latency and phases: bench/analyze --flow-cost times it against kreport. */
#ifdef KREPORT_BENCH_NO_FLOW
#define BENCH_NO_FLOW 1
#else
#define BENCH_NO_FLOW 0
#endif
#include "common/progress.h"
#include "report/html.h"
#include "report/report.h"

static struct {
    const char *out_dir, *format, *results, *target;
    int top, context, jobs, force, quiet, progress, no_progress, in_memory, brief;
} o;
static cli_roof roof;

const cli_opt cmd_analyze_options[] = {
    {"output", 'o', OPT_STRING, "DIR", "write the outputs into DIR (created if missing)", &o.out_dir},
    {"format", 0, OPT_STRING, "FMT", "md, json, csv, html, all, or a comma-separated list (default: all with -o, md to stdout without)", &o.format},
    {"brief", 0, OPT_FLAG, NULL, "print only the summary and key figures (at most 40 lines) to stdout; with -o the files are written too", &o.brief},
    {"top", 0, OPT_INT, "N", "hotspot rows per list (default 10)", &o.top},
    {"context", 0, OPT_INT, "K", "disassembly rows each side of a hotspot (default 4)", &o.context},
    {"results", 0, OPT_STRING, "FILE", "results.json or rocprofv3 CSV to use instead of searching", &o.results},
    {"target", 0, OPT_STRING, "GFX", "override the detected target (gfx90a, gfx942, gfx950)", &o.target},
    CLI_ROOF_OPTIONS(roof),
    {"jobs", 'j', OPT_INT, "N", "threads for parsing and analysis (default: online CPUs)", &o.jobs},
    {"force", 0, OPT_FLAG, NULL, "overwrite existing output files", &o.force},
    {"quiet", 'q', OPT_FLAG, NULL, "print nothing but errors", &o.quiet},
    {"progress", 0, OPT_FLAG, NULL, "show a progress bar on stderr even when it is not a terminal", &o.progress},
    {"no-progress", 0, OPT_FLAG, NULL, "no progress bar (default: shown on a terminal for runs over a second)", &o.no_progress},
    {"in-memory", 0, OPT_FLAG, NULL, "load every wave whole before analyzing instead of streaming (same results, more memory)", &o.in_memory},
    {0},
};

static int fail(const kr_err *err)
{
    char msg[2048];
    kr_err_format(err, msg, sizeof msg);
    fprintf(stderr, "kreport analyze: %s\n", msg);
    return err->code ? err->code : KR_INTERNAL;
}

/* The output documents are independent renderings of the same results, so
 * they are built as concurrent tasks (costliest first); each writes only its
 * own buffer, and the bytes never depend on thread timing. */
enum { R_JSON, R_MD, R_MD1, R_HOT, R_SRC, R_COUNT };

/* The outputs as tasks: report.html's parts first (its page and each
 * chart, rep_html_parts; the page and the largest charts are the longest
 * tasks, and rep_html_parts_join makes the page of them), then the
 * others, R_JSON on; REPORT.md in its two parts (R_MD, R_MD1, see
 * rep_analysis_markdown_part), joined after. */
typedef struct render_job {
    const an_analysis *const *res;
    const char *const *labels;
    size_t n;
    const rep_meta *meta;
    int want[R_COUNT];
    kr_buf *out[R_COUNT];
    int rc[R_COUNT];
    rep_html_parts *parts;           /* report.html wanted; else NULL */
    size_t nparts;
} render_job;

static void render_task(void *ctx, size_t t, int worker)
{
    (void)worker;
    render_job *j = ctx;
    if (t < j->nparts) {
        (void)rep_html_parts_run(j->parts, t);   /* its result is read by rep_html_parts_join */
        return;
    }
    size_t i = t - j->nparts;
    if (!j->want[i])
        return;
    switch (i) {
    case R_JSON: j->rc[i] = rep_analysis_json(j->res, j->labels, j->n, j->meta, j->out[i]); break;
    case R_MD:
    case R_MD1:
        j->rc[i] = rep_analysis_markdown_part(j->res, j->labels, j->n, j->meta, i == R_MD1, j->out[i]);
        break;
    case R_HOT: j->rc[i] = rep_hotspots_csv(j->res, j->labels, j->n, j->out[i]); break;
    case R_SRC: j->rc[i] = rep_source_lines_csv(j->res, j->labels, j->n, j->out[i]); break;
    default: break;
    }
}

int cmd_analyze(int argc, char **argv)
{
    memset(&o, 0, sizeof o);
    memset(&roof, 0, sizeof roof);
    const cli_command *cmd = cli_find("analyze");
    char *pos[4];
    int npos, code;
    if (cli_parse(cmd, cmd_analyze_options, argc, argv, pos, &npos, 4, &code))
        return code;
    if ((code = cli_roof_init(cmd, &roof)) != 0)
        return code;
    if (npos != 1) {
        cli_usage_error(cmd, npos ? "expects exactly one PATH" : "missing PATH");
        return KR_USAGE;
    }
    const char *fmt = o.format ? o.format : (o.out_dir ? "all" : "md");
    /* A comma-separated list of md, json, csv, html, all. */
    int want_md = 0, want_json = 0, want_csv = 0, want_html = 0;
    for (const char *f = fmt; ; ) {
        size_t n = strcspn(f, ",");
        if (n == 2 && strncmp(f, "md", 2) == 0) want_md = 1;
        else if (n == 4 && strncmp(f, "json", 4) == 0) want_json = 1;
        else if (n == 3 && strncmp(f, "csv", 3) == 0) want_csv = 1;
        else if (n == 4 && strncmp(f, "html", 4) == 0) want_html = 1;
        else if (n == 3 && strncmp(f, "all", 3) == 0) want_md = want_json = want_csv = want_html = 1;
        else {
            cli_usage_error(cmd, "--format takes md, json, csv, html or all (comma-separated), not '%s'", fmt);
            return KR_USAGE;
        }
        if (!f[n])
            break;
        f += n + 1;
    }
    if (!o.out_dir && (want_md + want_json + want_csv + want_html) != 1) {
        cli_usage_error(cmd, "--format %s writes several files: give -o DIR", fmt);
        return KR_USAGE;
    }
    if (!o.out_dir && want_csv) {
        cli_usage_error(cmd, "--format csv writes two files: give -o DIR");
        return KR_USAGE;
    }
    const char *path = pos[0];
    kr_err err;
    kr_err_clear(&err);
    /* A folder, or an archive read into memory (bundle/source.h). */
    bundle_input in;
    if (bundle_input_open(path, &in, &err))
        return fail(&err);

    /* What is PATH? */
    bundle_example *ex = NULL;
    size_t ncap = 0;
    char **dirs = NULL, **labels = NULL;
    if (bundle_is_capture_dir_src(in.src, in.root)) {
        ncap = 1;
        dirs = calloc(1, sizeof *dirs);
        labels = calloc(1, sizeof *labels);
        dirs[0] = strdup(in.root);
        labels[0] = bundle_source_folder_name(in.src, in.root);
    } else if (bundle_is_example_dir_src(in.src, in.root)) {
        if (bundle_example_scan_src(in.src, in.root, &ex, &err)) {
            bundle_input_close(&in);
            return fail(&err);
        }
        if (ex->ncaptures == 0) {
            bundle_example_free(ex);
            bundle_input_close(&in);
            fprintf(stderr, "kreport analyze: %s: example folder has no capture under att_viewer/<label>/\n", path);
            return KR_INPUT;
        }
        ncap = ex->ncaptures;
        dirs = calloc(ncap, sizeof *dirs);
        labels = calloc(ncap, sizeof *labels);
        for (size_t i = 0; i < ncap; i++) {
            dirs[i] = strdup(ex->captures[i].dir);
            int dup = 0;
            for (size_t j = 0; j < ncap; j++)
                dup |= j != i && strcmp(ex->captures[j].label, ex->captures[i].label) == 0;
            if (dup) {
                const char *f = kr_path_base(ex->captures[i].dir);
                const char *tail = strncmp(f, "ui_output_agent_", 16) == 0 ? f + 16 : f;
                size_t n = strlen(ex->captures[i].label) + strlen(tail) + 2;
                labels[i] = malloc(n);
                snprintf(labels[i], n, "%s %s", ex->captures[i].label, tail);
            } else {
                labels[i] = strdup(ex->captures[i].label);
            }
        }
    } else {
        fprintf(stderr, "kreport analyze: %s: not a capture folder (no filenames.json) or an example folder "
                        "(no att_viewer/<label>/ui_output_*)\n", path);
        bundle_input_close(&in);
        return KR_INPUT;
    }

    int rc = 0;
    kr_capture **caps = calloc(ncap, sizeof *caps);
    an_analysis *res = calloc(ncap, sizeof *res);
    const an_analysis **resp = calloc(ncap, sizeof *resp);
    size_t loaded = 0, analyzed = 0;
    kr_buf md, md1, js, hot, src, html;
    kr_buf_init(&md);
    kr_buf_init(&md1);
    kr_buf_init(&js);
    kr_buf_init(&hot);
    kr_buf_init(&src);
    kr_buf_init(&html);
    cli_memory_setup();
    cli_roof_prefetch(&roof);
    kr_progress *bar = kr_progress_new(2, kr_progress_mode_of(o.progress, o.no_progress, o.quiet), "parsing");
    /* The waves stream through the analyses while they load, so the
     * records need not all be in memory (analyzer/stream.h); the HTML
     * charts draw the timelines, which are then kept. */
    an_stream **streams = calloc(ncap, sizeof *streams);
    for (size_t i = 0; i < ncap; i++) {
        bundle_opts bo = {0};
        if (!streams) {
            fprintf(stderr, "kreport analyze: out of memory\n");
            rc = KR_INTERNAL;
            goto done;
        }
        bo.src = in.src;
        bo.progress = bar;
        bo.threads = o.jobs > 0 ? o.jobs : kr_cpu_count();
        bo.results_path = o.results;
        bo.skip_wstates = 1;
        bo.label = ex ? ex->captures[i].label : NULL;
        if ((rc = cli_load_streamed(dirs[i], &bo, o.in_memory, want_html, !BENCH_NO_FLOW, &caps[i], &streams[i], &err))) {
            rc = fail(&err);
            goto done;
        }
        loaded++;
    }
    kr_progress_done(bar);
    an_analysis_opts ao = {0};
    ao.top = o.top > 0 ? (size_t)o.top : 0;
    ao.context = o.context > 0 ? (size_t)o.context : 0;
    ao.target = o.target;
    ao.threads = o.jobs > 0 ? o.jobs : kr_cpu_count();
    ao.no_flow = BENCH_NO_FLOW;
    for (size_t i = 0; i < ncap; i++) {
        cli_roof_for(&roof, caps[i], &ao.roof);
        if (cli_analyze_loaded(streams[i], caps[i], &ao, &res[i])) {
            fprintf(stderr, "kreport analyze: out of memory analyzing %s\n", dirs[i]);
            rc = KR_INTERNAL;
            goto done;
        }
        resp[i] = &res[i];
        analyzed++;
        /* Input inconsistencies are warned on stderr as well, naming the files. */
        for (size_t k = 0; !o.quiet && k < res[i].findings.n; k++) {
            const an_rule *f = &res[i].findings.items[k];
            if (strcmp(f->code, "unknown_pc") == 0 || strcmp(f->code, "sums_mismatch") == 0)
                fprintf(stderr, "kreport analyze: warning: %s/code.json and its wave files: %s [%s]\n", dirs[i],
                        f->message ? f->message : "", f->code);
        }
    }

    if (o.brief) {
        kr_buf brief;
        kr_buf_init(&brief);
        int brc = rep_analysis_brief(resp, (const char *const *)labels, ncap, NULL, &brief);
        if (brc || brief.oom) {
            kr_buf_free(&brief);
            fprintf(stderr, "kreport analyze: out of memory rendering the summary\n");
            rc = KR_INTERNAL;
            goto done;
        }
        int werr = fwrite(brief.data ? brief.data : "", 1, brief.len, stdout) != brief.len || fflush(stdout) != 0;
        kr_buf_free(&brief);
        if (werr) {
            fprintf(stderr, "kreport analyze: cannot write to standard output\n");
            rc = KR_OUTPUT;
            goto done;
        }
        if (!o.out_dir)
            goto done;
    }
    char input[1024];
    /* An archive stands for the folder analyzed inside it, so its
     * analysis.json equals the folder's. */
    char *root_name = in.src ? bundle_source_folder_name(in.src, in.root) : NULL;
    snprintf(input, sizeof input, "%s", root_name ? root_name : path);
    free(root_name);
    size_t il = strlen(input);
    while (il > 1 && input[il - 1] == '/')
        input[--il] = '\0';
    char rerun[2048];
    /* The output folder is left as a placeholder so the text (and the
     * committed example report) does not depend on where it was written. */
    snprintf(rerun, sizeof rerun, "kreport analyze %s -o OUTPUT_DIR", input);
    rep_meta meta = { kr_path_base(input), ex ? ex->name : NULL, rerun };
    render_job rj = { resp, (const char *const *)labels, ncap, &meta,
                      { want_json, want_md, want_md, want_csv, want_csv },
                      { &js, &md, &md1, &hot, &src }, {0}, NULL, 0 };
    if (want_html) {
        if (!(rj.parts = rep_html_parts_new(resp, (const char *const *)labels, ncap, &meta))) {
            fprintf(stderr, "kreport analyze: out of memory rendering the report\n");
            rc = KR_INTERNAL;
            goto done;
        }
        rj.nparts = rep_html_parts_count(rj.parts);
    }
    kr_parallel_for(rj.nparts + R_COUNT, ao.threads, render_task, &rj);
    int html_rc = 0;
    if (want_html) {
        html_rc = rep_html_parts_join(rj.parts, &html);
        rep_html_parts_free(rj.parts);
    }
    if (want_md && !rj.rc[R_MD] && !rj.rc[R_MD1])
        kr_buf_append(&md, md1.data ? md1.data : "", md1.len);
    if (html_rc || rj.rc[R_JSON] || rj.rc[R_MD] || rj.rc[R_MD1] || md.oom || rj.rc[R_HOT] || rj.rc[R_SRC]) {
        fprintf(stderr, "kreport analyze: out of memory rendering the report\n");
        rc = KR_INTERNAL;
        goto done;
    }
    if (!o.out_dir) {
        kr_buf *b = want_md ? &md : want_html ? &html : &js;
        if (fwrite(b->data ? b->data : "", 1, b->len, stdout) != b->len || fflush(stdout) != 0) {
            fprintf(stderr, "kreport analyze: cannot write to standard output\n");
            rc = KR_OUTPUT;
        }
        goto done;
    }
    if ((rc = kr_mkdir_p(o.out_dir, &err))) {
        rc = fail(&err);
        goto done;
    }
    kr_outset *set = kr_outset_new(o.out_dir, o.force);
    if (!set) {
        rc = KR_INTERNAL;
        goto done;
    }
    if ((want_md && kr_outset_add(set, "REPORT.md", md.data, md.len, &err)) ||
        (want_json && kr_outset_add(set, "analysis.json", js.data, js.len, &err)) ||
        (want_csv && (kr_outset_add(set, "hotspots.csv", hot.data, hot.len, &err) ||
                      kr_outset_add(set, "source_lines.csv", src.data, src.len, &err))) ||
        (want_html && kr_outset_add(set, "report.html", html.data, html.len, &err)) ||
        kr_outset_commit(set, &err)) {
        kr_outset_free(set);
        rc = fail(&err);
        goto done;
    }
    kr_outset_free(set);
    if (!o.quiet)
        fprintf(stderr, "kreport analyze: %zu capture%s -> %s\n", ncap, ncap == 1 ? "" : "s", o.out_dir);
done:
    kr_progress_free(bar);
    for (size_t i = 0; streams && i < ncap; i++)
        an_stream_free(streams[i]);
    free(streams);
    cli_roof_free(&roof);
    for (size_t i = 0; i < analyzed; i++)
        an_analysis_free(&res[i]);
    for (size_t i = 0; i < loaded; i++)
        bundle_capture_free(caps[i]);
    for (size_t i = 0; i < ncap; i++) {
        free(dirs[i]);
        free(labels[i]);
    }
    free(dirs);
    free(labels);
    free(caps);
    free(res);
    free(resp);
    kr_buf_free(&md);
    kr_buf_free(&md1);
    kr_buf_free(&js);
    kr_buf_free(&hot);
    kr_buf_free(&src);
    kr_buf_free(&html);
    if (ex)
        bundle_example_free(ex);
    bundle_input_close(&in);
    return rc;
}
