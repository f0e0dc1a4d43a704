/* cmd_analyze.c — kreport analyze PATH: which captures PATH holds, load and
 * analyze each, render the outputs, write them atomically (or one document
 * to stdout). cmd_analyze at the end is the wiring of these steps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/analysis.h"
#include "bundle/capture.h"
#include "bundle/discover.h"
#include "bundle/source.h"
#include "cli/commands.h"
#include "cli/roof.h"
#include "cli/run_analyze.h"
#include "cli/streamed.h"
#include "common/buf.h"
#include "common/file.h"
#include "common/outfile.h"
#include "common/pool.h"
#include "common/progress.h"
#include "report/html.h"
#include "report/report.h"

static struct {
    const char *out_dir, *format, *results, *target;
    int top, context, jobs, force, quiet, progress, no_progress, in_memory, brief;
    const char *kernel, *gate, *metric, *class_by, *commit, *note;    /* run directories */
    int row;
} o;
static cli_roof roof;

const cli_opt cmd_analyze_options[] = {
    {"output", 'o', OPT_STRING, "DIR", "write the outputs into DIR (created if missing)", &o.out_dir},
    {"format", 0, OPT_STRING, "FMT", "md, json, csv, html, all, or a comma-separated list (default: all with -o, md to stdout without)", &o.format},
    {"brief", 0, OPT_FLAG, NULL, "print only the summary and key figures (at most 40 lines) to stdout; with -o the files are written too", &o.brief},
    {"top", 0, OPT_INT, "N", "hotspot rows per list (default 10)", &o.top},
    {"context", 0, OPT_INT, "K", "disassembly rows each side of a hotspot (default 4)", &o.context},
    {"results", 0, OPT_STRING, "FILE", "results.json, rocprofv3 CSV or rocpd .db to use instead of searching", &o.results},
    {"target", 0, OPT_STRING, "GFX", "override the detected target (gfx90a, gfx942, gfx950)", &o.target},
    CLI_ROOF_OPTIONS(roof),
    {"jobs", 'j', OPT_INT, "N", "threads for parsing and analysis (default: online CPUs)", &o.jobs},
    {"force", 0, OPT_FLAG, NULL, "overwrite existing output files", &o.force},
    {"quiet", 'q', OPT_FLAG, NULL, "print nothing but errors", &o.quiet},
    {"progress", 0, OPT_FLAG, NULL, "show a progress bar on stderr even when it is not a terminal", &o.progress},
    {"no-progress", 0, OPT_FLAG, NULL, "no progress bar (default: shown on a terminal for runs over a second)", &o.no_progress},
    {"in-memory", 0, OPT_FLAG, NULL, "load every wave whole before analyzing instead of streaming (same results, more memory)", &o.in_memory},
    {"kernel", 0, OPT_STRING, "REGEX", "run directory: target kernel names (POSIX ERE; repeatable) instead of the auto pick", &o.kernel},
    {"gate", 0, OPT_STRING, "EXPR", "run directory: correctness gate, as for compare (default err_*==0)", &o.gate},
    {"metric", 0, OPT_STRING, "COL", "run directory: script metric column (default: as compare picks it)", &o.metric},
    {"class-by", 0, OPT_STRING, "COLS", "run directory: comma-separated config columns that define classes", &o.class_by},
    {"row", 0, OPT_FLAG, NULL, "run directory: print the performance.md baseline row to stdout", &o.row},
    {"commit", 0, OPT_STRING, "SHA", "run directory: commit for the row (default: run.meta commit)", &o.commit},
    {"note", 0, OPT_STRING, "TEXT", "run directory: note for the row (default: run.meta hypothesis)", &o.note},
    {0},
};

static int fail(const kr_err *err)
{
    char msg[2048];
    kr_err_format(err, msg, sizeof msg);
    fprintf(stderr, "kreport analyze: %s\n", msg);
    return err->code ? err->code : KR_INTERNAL;
}

/* The output documents, in the order of their tasks. */
enum { R_JSON, R_MD, R_HOT, R_SRC, R_HTML, R_COUNT };

/* --format: a comma-separated list of md, json, csv, html, all, into want
 * (indexed by R_*; csv sets R_HOT and R_SRC). 0 or KR_USAGE (said). */
static int parse_formats(const cli_command *cmd, const char *fmt, int want[R_COUNT])
{
    memset(want, 0, R_COUNT * sizeof *want);
    for (const char *f = fmt;;) {
        size_t n = strcspn(f, ",");
        if (n == 2 && strncmp(f, "md", 2) == 0) want[R_MD] = 1;
        else if (n == 4 && strncmp(f, "json", 4) == 0) want[R_JSON] = 1;
        else if (n == 3 && strncmp(f, "csv", 3) == 0) want[R_HOT] = want[R_SRC] = 1;
        else if (n == 4 && strncmp(f, "html", 4) == 0) want[R_HTML] = 1;
        else if (n == 3 && strncmp(f, "all", 3) == 0) want[R_MD] = want[R_JSON] = want[R_HOT] = want[R_SRC] = want[R_HTML] = 1;
        else {
            cli_usage_error(cmd, "--format takes md, json, csv, html or all (comma-separated), not '%s'", fmt);
            return KR_USAGE;
        }
        if (!f[n])
            break;
        f += n + 1;
    }
    int files = want[R_MD] + want[R_JSON] + want[R_HOT] + want[R_HTML];
    if (!o.out_dir && files != 1) {
        cli_usage_error(cmd, "--format %s writes several files: give -o DIR", fmt);
        return KR_USAGE;
    }
    if (!o.out_dir && want[R_HOT]) {
        cli_usage_error(cmd, "--format csv writes two files: give -o DIR");
        return KR_USAGE;
    }
    return 0;
}

/* The captures PATH holds: one capture folder, or every capture of an
 * example folder, each with the label the reports give it. */
typedef struct capture_list {
    bundle_example *ex;              /* NULL for one capture */
    size_t n;
    char **dirs, **labels;
} capture_list;

static void capture_list_free(capture_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->dirs ? l->dirs[i] : NULL);
        free(l->labels ? l->labels[i] : NULL);
    }
    free(l->dirs);
    free(l->labels);
    if (l->ex)
        bundle_example_free(l->ex);
    memset(l, 0, sizeof *l);
}

/* A label that several captures of an example share gets the folder name's
 * tail ("small 58550_dispatch_44_after_loc_fix"), so every label is unique. */
static char *label_of(const bundle_example *ex, size_t i)
{
    int dup = 0;
    for (size_t j = 0; j < ex->ncaptures; j++)
        dup |= j != i && strcmp(ex->captures[j].label, ex->captures[i].label) == 0;
    if (!dup)
        return strdup(ex->captures[i].label);
    const char *f = kr_path_base(ex->captures[i].dir);
    const char *tail = strncmp(f, "ui_output_agent_", 16) == 0 ? f + 16 : f;
    size_t n = strlen(ex->captures[i].label) + strlen(tail) + 2;
    char *label = malloc(n);
    if (label)
        snprintf(label, n, "%s %s", ex->captures[i].label, tail);
    return label;
}

/* list_captures: PATH is a run directory, analyzed by cli_run_analyze. */
#define RUN_DIRECTORY (-1)

/* 0, RUN_DIRECTORY, KR_INPUT or KR_INTERNAL (said). */
static int list_captures(const char *path, const bundle_input *in, capture_list *l)
{
    memset(l, 0, sizeof *l);
    kr_err err;
    kr_err_clear(&err);
    if (bundle_is_capture_dir_src(in->src, in->root)) {
        l->n = 1;
        l->dirs = calloc(1, sizeof *l->dirs);
        l->labels = calloc(1, sizeof *l->labels);
        if (l->dirs && l->labels) {
            l->dirs[0] = strdup(in->root);
            l->labels[0] = bundle_source_folder_name(in->src, in->root);
        }
    } else if (bundle_is_example_dir_src(in->src, in->root)) {
        if (bundle_example_scan_src(in->src, in->root, &l->ex, &err))
            return fail(&err);
        if (l->ex->ncaptures == 0) {
            fprintf(stderr, "kreport analyze: %s: example folder has no capture under att_viewer/<label>/\n", path);
            capture_list_free(l);
            return KR_INPUT;
        }
        l->n = l->ex->ncaptures;
        l->dirs = calloc(l->n, sizeof *l->dirs);
        l->labels = calloc(l->n, sizeof *l->labels);
        for (size_t i = 0; l->dirs && l->labels && i < l->n; i++) {
            l->dirs[i] = strdup(l->ex->captures[i].dir);
            l->labels[i] = label_of(l->ex, i);
        }
    } else {
        return RUN_DIRECTORY;        /* neither: a run directory (cli/run_analyze.h) */
    }
    for (size_t i = 0; i < l->n; i++)
        if (!l->dirs || !l->labels || !l->dirs[i] || !l->labels[i]) {
            fprintf(stderr, "kreport analyze: out of memory\n");
            capture_list_free(l);
            return KR_INTERNAL;
        }
    return 0;
}

/* The captures loaded and analyzed. */
typedef struct analyzed {
    size_t n, loaded, done;
    kr_capture **caps;
    an_stream **streams;
    an_analysis *res;
    const an_analysis **resp;        /* &res[i], as the renderers take them */
} analyzed;

static void analyzed_free(analyzed *a)
{
    for (size_t i = 0; a->streams && i < a->n; i++)
        an_stream_free(a->streams[i]);
    for (size_t i = 0; i < a->done; i++)
        an_analysis_free(&a->res[i]);
    for (size_t i = 0; i < a->loaded; i++)
        bundle_capture_free(a->caps[i]);
    free(a->streams);
    free(a->caps);
    free(a->res);
    free(a->resp);
}

/* Loads every capture with its waves streamed through the analyses while
 * they load (analyzer/stream.h: the records need not all be in memory; the
 * timelines are kept when report.html draws them), then analyzes it. 0 or
 * an exit code (said). */
static int load_and_analyze(const capture_list *l, const bundle_input *in, int keep_timelines, analyzed *a)
{
    memset(a, 0, sizeof *a);
    a->n = l->n;
    a->caps = calloc(l->n, sizeof *a->caps);
    a->streams = calloc(l->n, sizeof *a->streams);
    a->res = calloc(l->n, sizeof *a->res);
    a->resp = calloc(l->n, sizeof *a->resp);
    if (!a->caps || !a->streams || !a->res || !a->resp) {
        fprintf(stderr, "kreport analyze: out of memory\n");
        return KR_INTERNAL;
    }
    int threads = o.jobs > 0 ? o.jobs : kr_cpu_count();
    kr_err err;
    kr_err_clear(&err);
    kr_progress *bar = kr_progress_new(2, kr_progress_mode_of(o.progress, o.no_progress, o.quiet), "parsing");
    for (; a->loaded < l->n; a->loaded++) {
        bundle_opts bo = {0};
        bo.src = in->src;
        bo.progress = bar;
        bo.threads = threads;
        bo.results_path = o.results;
        bo.skip_wstates = 1;
        bo.label = l->ex ? l->ex->captures[a->loaded].label : NULL;
        if (cli_load_streamed(l->dirs[a->loaded], &bo, o.in_memory, keep_timelines, 1, &a->caps[a->loaded],
                              &a->streams[a->loaded], &err)) {
            kr_progress_free(bar);
            return fail(&err);
        }
    }
    kr_progress_done(bar);
    kr_progress_free(bar);
    an_analysis_opts ao = {0};
    ao.top = o.top > 0 ? (size_t)o.top : 0;
    ao.context = o.context > 0 ? (size_t)o.context : 0;
    ao.target = o.target;
    ao.threads = threads;
    for (; a->done < l->n; a->done++) {
        cli_roof_for(&roof, a->caps[a->done], &ao.roof);
        if (cli_analyze_loaded(a->streams[a->done], a->caps[a->done], &ao, &a->res[a->done])) {
            fprintf(stderr, "kreport analyze: out of memory analyzing %s\n", l->dirs[a->done]);
            return KR_INTERNAL;
        }
        a->resp[a->done] = &a->res[a->done];
        /* Input inconsistencies are warned on stderr as well, naming the files. */
        const an_analysis *r = &a->res[a->done];
        for (size_t k = 0; !o.quiet && k < r->findings.n; k++) {
            const an_rule *f = &r->findings.items[k];
            if (strcmp(f->code, "unknown_pc") == 0 || strcmp(f->code, "sums_mismatch") == 0)
                fprintf(stderr, "kreport analyze: warning: %s/code.json and its wave files: %s [%s]\n", l->dirs[a->done],
                        f->message ? f->message : "", f->code);
        }
    }
    return 0;
}

/* --brief: the summary and key figures to stdout. 0 or an exit code (said). */
static int print_brief(const analyzed *a, const capture_list *l)
{
    kr_buf brief;
    kr_buf_init(&brief);
    int rc = rep_analysis_brief(a->resp, (const char *const *)l->labels, l->n, NULL, &brief);
    if (rc || brief.oom) {
        kr_buf_free(&brief);
        fprintf(stderr, "kreport analyze: out of memory rendering the summary\n");
        return KR_INTERNAL;
    }
    int werr = fwrite(brief.data ? brief.data : "", 1, brief.len, stdout) != brief.len || fflush(stdout) != 0;
    kr_buf_free(&brief);
    if (werr) {
        fprintf(stderr, "kreport analyze: cannot write to standard output\n");
        return KR_OUTPUT;
    }
    return 0;
}

/* The output documents are independent renderings of the same results, so
 * they are built as concurrent tasks, each writing only its own buffer: the
 * bytes never depend on thread timing. report.html, the longest, first. */
typedef struct render_job {
    const an_analysis *const *res;
    const char *const *labels;
    size_t n;
    const rep_meta *meta;
    const int *want;
    kr_buf *out;                     /* R_COUNT buffers */
    int rc[R_COUNT];
} render_job;

static void render_task(void *ctx, size_t t, int worker)
{
    (void)worker;
    static const int order[R_COUNT] = {R_HTML, R_JSON, R_MD, R_HOT, R_SRC};
    render_job *j = ctx;
    int i = order[t];
    if (!j->want[i])
        return;
    switch (i) {
    case R_HTML: j->rc[i] = rep_analysis_html(j->res, j->labels, j->n, j->meta, &j->out[i]); break;
    case R_JSON: j->rc[i] = rep_analysis_json(j->res, j->labels, j->n, j->meta, &j->out[i]); break;
    case R_MD: j->rc[i] = rep_analysis_markdown(j->res, j->labels, j->n, j->meta, &j->out[i]); break;
    case R_HOT: j->rc[i] = rep_hotspots_csv(j->res, j->labels, j->n, &j->out[i]); break;
    case R_SRC: j->rc[i] = rep_source_lines_csv(j->res, j->labels, j->n, &j->out[i]); break;
    default: break;
    }
}

/* Every wanted document into out[R_*]. 0 or KR_INTERNAL (said). */
static int render(const analyzed *a, const capture_list *l, const rep_meta *meta, const int want[R_COUNT],
                  int threads, kr_buf out[R_COUNT])
{
    render_job rj = { a->resp, (const char *const *)l->labels, l->n, meta, want, out, {0} };
    kr_parallel_for(R_COUNT, threads, render_task, &rj);
    for (int i = 0; i < R_COUNT; i++)
        if (rj.rc[i] || out[i].oom) {
            fprintf(stderr, "kreport analyze: out of memory rendering the report\n");
            return KR_INTERNAL;
        }
    return 0;
}

/* The one wanted document to stdout, or every wanted file into -o DIR at
 * once (kr_outset: all or nothing). 0 or an exit code (said). */
static int write_outputs(const int want[R_COUNT], kr_buf out[R_COUNT], size_t ncap)
{
    if (!o.out_dir) {
        kr_buf *b = want[R_MD] ? &out[R_MD] : want[R_HTML] ? &out[R_HTML] : &out[R_JSON];
        if (fwrite(b->data ? b->data : "", 1, b->len, stdout) != b->len || fflush(stdout) != 0) {
            fprintf(stderr, "kreport analyze: cannot write to standard output\n");
            return KR_OUTPUT;
        }
        return 0;
    }
    kr_err err;
    kr_err_clear(&err);
    if (kr_mkdir_p(o.out_dir, &err))
        return fail(&err);
    kr_outset *set = kr_outset_new(o.out_dir, o.force);
    if (!set)
        return KR_INTERNAL;
    static const char *const names[R_COUNT] = {"analysis.json", "REPORT.md", "hotspots.csv", "source_lines.csv",
                                               "report.html"};
    /* in the order the files have always been added: REPORT.md first */
    static const int order[R_COUNT] = {R_MD, R_JSON, R_HOT, R_SRC, R_HTML};
    int rc = 0;
    for (int k = 0; k < R_COUNT && !rc; k++) {
        int i = order[k];
        if (want[i])
            rc = kr_outset_add(set, names[i], out[i].data, out[i].len, &err);
    }
    if (rc || kr_outset_commit(set, &err)) {
        kr_outset_free(set);
        return fail(&err);
    }
    kr_outset_free(set);
    if (!o.quiet)
        fprintf(stderr, "kreport analyze: %zu capture%s -> %s\n", ncap, ncap == 1 ? "" : "s", o.out_dir);
    return 0;
}

/* A run directory: its baseline (cli/run_analyze.h); md and json only. */
static int analyze_run(const cli_command *cmd, const char *path, const bundle_input *in, const int want[R_COUNT],
                       int argc, char **argv)
{
    if ((want[R_HTML] || want[R_HOT]) && o.format && strcmp(o.format, "all")) {
        cli_usage_error(cmd, "for a run directory --format takes md, json or all");
        return KR_USAGE;
    }
    const char *kernels[64];
    cli_run_opts ro = {o.out_dir, want[R_MD], want[R_JSON], o.force, o.quiet, o.progress, o.no_progress, o.row, o.jobs,
                       o.top, o.context, kernels, 0, o.gate, o.metric, o.class_by, o.commit, o.note, o.target,
                       argc, argv};
    ro.nkernels = cli_collect_repeated(cmd_analyze_options, argc, argv, "kernel", kernels, 64);
    return cli_run_analyze(path, in, &ro);
}

/* The run-directory options on a capture or an example folder: KR_USAGE (said). */
static int run_options_refused(const cli_command *cmd)
{
    if (!(o.kernel || o.gate || o.metric || o.class_by || o.row || o.commit || o.note))
        return 0;
    cli_usage_error(cmd, "--kernel, --gate, --metric, --class-by, --row, --commit and --note are for a run directory");
    return KR_USAGE;
}

int cmd_analyze(int argc, char **argv)
{
    memset(&o, 0, sizeof o);
    memset(&roof, 0, sizeof roof);
    const cli_command *cmd = cli_find("analyze");
    char *pos[4];
    int npos, rc;
    if (cli_parse(cmd, cmd_analyze_options, argc, argv, pos, &npos, 4, &rc))
        return rc;
    if ((rc = cli_roof_init(cmd, &roof)) != 0)
        return rc;
    if (npos != 1) {
        cli_usage_error(cmd, npos ? "expects exactly one PATH" : "missing PATH");
        return KR_USAGE;
    }
    int want[R_COUNT];
    if ((rc = parse_formats(cmd, o.format ? o.format : (o.out_dir ? "all" : "md"), want)))
        return rc;
    const char *path = pos[0];
    kr_err err;
    kr_err_clear(&err);
    bundle_input in;                 /* a folder, or an archive read into memory (bundle/source.h) */
    if (bundle_input_open(path, &in, &err)) {
        cli_roof_free(&roof);
        return fail(&err);
    }
    capture_list l;
    if ((rc = list_captures(path, &in, &l)) == RUN_DIRECTORY) {
        rc = analyze_run(cmd, path, &in, want, argc, argv);
        cli_roof_free(&roof);
        bundle_input_close(&in);
        return rc;
    }
    if (rc || (rc = run_options_refused(cmd))) {
        if (l.n)                     /* listed, then refused for a run-directory option */
            capture_list_free(&l);
        cli_roof_free(&roof);
        bundle_input_close(&in);
        return rc;
    }
    analyzed a;
    kr_buf out[R_COUNT];
    for (int i = 0; i < R_COUNT; i++)
        kr_buf_init(&out[i]);
    cli_memory_setup();
    cli_roof_prefetch(&roof);
    if (!(rc = load_and_analyze(&l, &in, want[R_HTML], &a)) && o.brief)
        rc = print_brief(&a, &l);
    if (!rc && (!o.brief || o.out_dir)) {
        char input[1024], rerun[2048];
        /* An archive stands for the folder analyzed inside it, so its
         * analysis.json equals the folder's. */
        char *root_name = in.src ? bundle_source_folder_name(in.src, in.root) : NULL;
        snprintf(input, sizeof input, "%s", root_name ? root_name : path);
        free(root_name);
        for (size_t il = strlen(input); il > 1 && input[il - 1] == '/';)
            input[--il] = '\0';
        /* The output folder is a placeholder so the text (and the committed
         * example report) does not depend on where it was written. */
        snprintf(rerun, sizeof rerun, "kreport analyze %s -o OUTPUT_DIR", input);
        rep_meta meta = { kr_path_base(input), l.ex ? l.ex->name : NULL, rerun };
        if (!(rc = render(&a, &l, &meta, want, o.jobs > 0 ? o.jobs : kr_cpu_count(), out)))
            rc = write_outputs(want, out, l.n);
    }
    analyzed_free(&a);
    cli_roof_free(&roof);
    for (int i = 0; i < R_COUNT; i++)
        kr_buf_free(&out[i]);
    capture_list_free(&l);
    bundle_input_close(&in);
    return rc;
}
