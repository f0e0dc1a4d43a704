/* cmd_compare.c — kreport compare BEST CANDIDATE: discover both sides
 * (bundle/runs.h), decide (analyzer/compare.h), explain with the paired
 * captures (analyzer/compare_trace.h), write COMPARE.md / compare.json
 * atomically or to stdout, and print the performance.md row (--row). */
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyzer/analysis.h"
#include "analyzer/compare.h"
#include "analyzer/compare_trace.h"
#include "bundle/capture.h"
#include "bundle/runs.h"
#include "bundle/source.h"
#include "cli/commands.h"
#include "cli/streamed.h"
#include "common/progress.h"
#include "common/buf.h"
#include "common/file.h"
#include "common/outfile.h"
#include "common/pool.h"
#include "cli/roof.h"
#include "cli/run_side.h"
#include "report/compare.h"
#include "report/html.h"

static struct {
    const char *out_dir, *format, *kernel, *noise, *gate, *metric, *class_by, *target_class, *prev, *commit, *note;
    const char *provider, *config;
    int force, allow_script, row, exit_code, jobs, quiet, progress, no_progress, higher, lower, skip_first;
} o;
static cli_roof roof;

const cli_opt cmd_compare_options[] = {
    {"output", 'o', OPT_STRING, "DIR", "write COMPARE.md, compare.json and compare.html into DIR (created if missing)", &o.out_dir},
    {"format", 0, OPT_STRING, "FMT", "md, json, html or all (default: all with -o, md to stdout without)", &o.format},
    {"force", 0, OPT_FLAG, NULL, "overwrite existing output files", &o.force},
    {"kernel", 0, OPT_STRING, "REGEX", "target kernel names (POSIX ERE; repeatable); default: auto-pick on BEST", &o.kernel},
    {"noise", 0, OPT_STRING, "PCT", "noise threshold θ in percent (default 1)", &o.noise},
    {"gate", 0, OPT_STRING, "EXPR", "correctness gate, e.g. 'err_flydsl_ps', 'Check' or 'err_*==0, x_max_diff<=0.01'; "
     "'none' accepts no gate (default: err_* == 0 and every check/status/correct column passes)", &o.gate},
    {"metric", 0, OPT_STRING, "COL", "benchmark metric column (default: first us_* without a reference token, median_us, "
     "another time column, then a throughput column)", &o.metric},
    {"lower-is-better", 0, OPT_FLAG, NULL, "the metric is a time (default: from its name)", &o.lower},
    {"higher-is-better", 0, OPT_FLAG, NULL, "the metric is a throughput (TFLOPS, GB/s, ...; compared as 1/x)", &o.higher},
    {"provider", 0, OPT_STRING, "NAME", "benchmark harness: the provider under test (default: the one with a "
     "candidate_commit, else the only one that changed)", &o.provider},
    {"config", 0, OPT_STRING, "COLS", "comma-separated columns that key the benchmark rows (default: every config "
     "column; shape_id in a harness CSV)", &o.config},
    {"skip-first", 0, OPT_INT, "N", "cold calls dropped at the start of each row's calls (default 1)", &o.skip_first},
    {"class-by", 0, OPT_STRING, "COLS", "comma-separated config columns that define classes", &o.class_by},
    {"target-class", 0, OPT_STRING, "SPEC", "K=V,... rows whose gain is the hypothesis ('global' = none)", &o.target_class},
    {"allow-script-metric", 0, OPT_FLAG, NULL, "let the script metric decide when neither side has a kernel trace", &o.allow_script},
    {"prev", 0, OPT_STRING, "FILE", "compare.json of the preceding comparison (same-direction-twice rule)", &o.prev},
    {"row", 0, OPT_FLAG, NULL, "print the performance.md row (keep) or regression row (discard) to stdout", &o.row},
    {"commit", 0, OPT_STRING, "SHA", "candidate commit for the row and --prev (default: run.meta commit)", &o.commit},
    {"note", 0, OPT_STRING, "TEXT", "note / hypothesis for the row (default: run.meta hypothesis)", &o.note},
    {"exit-code", 0, OPT_FLAG, NULL, "exit 0 keep, 1 discard or tie, 6 inconclusive, 7 split, 8 fail", &o.exit_code},
    CLI_ROOF_OPTIONS(roof),
    {"jobs", 'j', OPT_INT, "N", "threads for parsing and analysis (default: online CPUs)", &o.jobs},
    {"quiet", 'q', OPT_FLAG, NULL, "print nothing but errors (and the --row line)", &o.quiet},
    {"progress", 0, OPT_FLAG, NULL, "show a progress bar on stderr even when it is not a terminal", &o.progress},
    {"no-progress", 0, OPT_FLAG, NULL, "no progress bar (default: shown on a terminal for runs over a second)", &o.no_progress},
    {0},
};

static int fail(const kr_err *err)
{
    char msg[2048];
    kr_err_format(err, msg, sizeof msg);
    fprintf(stderr, "kreport compare: %s\n", msg);
    return err->code ? err->code : KR_INTERNAL;
}

/* --skip-first was given (0 is a valid count, so the parsed value cannot tell). */
static int skip_given(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if (!strcmp(argv[i], "--skip-first") || !strncmp(argv[i], "--skip-first=", 13))
            return 1;
    }
    return 0;
}

/* "1", "1%", "0.5 %" → 0.01, 0.005; -1 when invalid. */
static double parse_noise(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    while (*end == ' ')
        end++;
    if (*end == '%')
        end++;
    if (end == s || *end || !(v > 0) || v >= 100)
        return -1;
    return v / 100.0;
}

/* --prev: the fields the same-direction rule needs. */
typedef struct prev_file {
    json_t *root;
    an_cmp_prev p;
} prev_file;

static int prev_load(const char *path, prev_file *pf, kr_err *err)
{
    memset(pf, 0, sizeof *pf);
    json_error_t je;
    pf->root = json_load_file(path, 0, &je);
    if (!pf->root) {
        char where[64];
        snprintf(where, sizeof where, "%d:%d", je.line, je.column);
        return kr_err_set(err, KR_INPUT, path, where, "--prev: %s", je.text);
    }
    const char *schema = json_string_value(json_object_get(pf->root, "schema"));
    if (!schema || strcmp(schema, "kreport.compare"))
        return kr_err_set(err, KR_INPUT, path, "$.schema", "--prev: not a compare.json (schema kreport.compare expected)");
    pf->p.path = path;
    pf->p.best_identity = json_string_value(json_object_get(json_object_get(pf->root, "best"), "identity"));
    pf->p.candidate_commit = json_string_value(json_object_get(json_object_get(pf->root, "candidate"), "commit"));
    pf->p.global_outcome =
        json_string_value(json_object_get(json_object_get(json_object_get(pf->root, "timing"), "global"), "outcome"));
    return 0;
}

typedef struct loaded {
    kr_capture *cap;
    an_analysis an;
    int analyzed;
} loaded;

static int load_capture(const bundle_source *src, const char *dir, const char *label, kr_progress *bar, loaded *l,
                        kr_err *err)
{
    memset(l, 0, sizeof *l);
    bundle_opts bo = {0};
    bo.progress = bar;
    bo.skip_wstates = 1;             /* as analyze: the analyses derive state curves from the timelines */
    bo.src = src;
    bo.threads = o.jobs > 0 ? o.jobs : kr_cpu_count();
    bo.label = label && *label ? label : NULL;
    /* The waves stream through the analyses (no comparison reads them
     * afterwards, and the compare HTML draws no timeline). The comparison
     * reads totals, states, classes, stalls, sources and occupancy: the
     * flow analyses (waits, hidden latency, phases) are not run. */
    an_stream *stream;
    int rc = cli_load_streamed(dir, &bo, 0, 0, 0, &l->cap, &stream, err);
    if (rc)
        return rc;
    an_analysis_opts ao = {0};
    ao.threads = bo.threads;
    ao.no_flow = 1;
    cli_roof_for(&roof, l->cap, &ao.roof);
    rc = cli_analyze_loaded(stream, l->cap, &ao, &l->an);
    an_stream_free(stream);
    if (rc)
        return kr_err_set(err, KR_INTERNAL, dir, NULL, "out of memory analyzing the capture");
    l->analyzed = 1;
    return 0;
}

static void loaded_free(loaded *l)
{
    if (l->analyzed)
        an_analysis_free(&l->an);
    if (l->cap)
        bundle_capture_free(l->cap);
}

int cmd_compare(int argc, char **argv)
{
    memset(&o, 0, sizeof o);
    memset(&roof, 0, sizeof roof);
    const cli_command *cmd = cli_find("compare");
    char *pos[4];
    int npos, code;
    if (cli_parse(cmd, cmd_compare_options, argc, argv, pos, &npos, 4, &code))
        return code;
    if (roof.bench || roof.time_ns) {
        /* one time for both sides would hide the very change compared */
        cli_usage_error(cmd, "--bench and --time-ns are for analyze; compare takes each side's own dispatch time");
        return KR_USAGE;
    }
    if ((code = cli_roof_init(cmd, &roof)) != 0)
        return code;
    if (npos != 2) {
        cli_usage_error(cmd, npos < 2 ? "expects BEST and CANDIDATE" : "expects exactly two paths");
        return KR_USAGE;
    }
    const char *fmt = o.format ? o.format : (o.out_dir ? "all" : "md");
    int want_md = 0, want_json = 0, want_html = 0;
    if (!strcmp(fmt, "md")) want_md = 1;
    else if (!strcmp(fmt, "json")) want_json = 1;
    else if (!strcmp(fmt, "html")) want_html = 1;
    else if (!strcmp(fmt, "all")) want_md = want_json = want_html = 1;
    else {
        cli_usage_error(cmd, "--format must be md, json, html or all, not '%s'", fmt);
        return KR_USAGE;
    }
    if (!o.out_dir && want_md + want_json + want_html > 1) {
        cli_usage_error(cmd, "--format all writes several files: give -o DIR");
        return KR_USAGE;
    }
    double noise = AN_CMP_DEFAULT_NOISE;
    if (o.noise && (noise = parse_noise(o.noise)) < 0) {
        cli_usage_error(cmd, "--noise expects a percentage above 0 and below 100 (e.g. 1 or 0.5%%), not '%s'", o.noise);
        return KR_USAGE;
    }
    if (o.higher && o.lower) {
        cli_usage_error(cmd, "--higher-is-better and --lower-is-better exclude each other");
        return KR_USAGE;
    }
    if (o.skip_first < 0) {
        cli_usage_error(cmd, "--skip-first expects a count of 0 or more");
        return KR_USAGE;
    }
    const char *kernels[64];
    size_t nkernels = cli_collect_repeated(cmd_compare_options, argc, argv, "kernel", kernels, 64);

    kr_err err;
    kr_err_clear(&err);
    int rc = 0;
    cli_run_side sb, sc;
    memset(&sb, 0, sizeof sb);
    memset(&sc, 0, sizeof sc);
    prev_file pf;
    memset(&pf, 0, sizeof pf);
    an_compare cmp;
    memset(&cmp, 0, sizeof cmp);
    int have_cmp = 0;
    loaded *lb = NULL, *lc = NULL;
    an_cmp_trace *traces = NULL;
    rep_cmp_pair *pairs = NULL;
    rep_cmp_unpaired *unpaired = NULL;
    size_t npairs = 0, nunpaired = 0;
    kr_buf md, js, row, rerun, html;
    kr_buf_init(&md);
    kr_buf_init(&js);
    kr_buf_init(&row);
    kr_buf_init(&rerun);
    kr_buf_init(&html);
    char **unp_strs = NULL;

    cli_roof_prefetch(&roof);
    if ((rc = cli_run_side_open(&sb, pos[0], &err)) || (rc = cli_run_side_open(&sc, pos[1], &err))) {
        rc = fail(&err);
        goto done;
    }
    if (o.prev && (rc = prev_load(o.prev, &pf, &err))) {
        rc = fail(&err);
        goto done;
    }
    an_cmp_opts co = {0};
    co.noise = noise;
    co.kernels = kernels;
    co.nkernels = nkernels;
    co.gate = o.gate;
    co.metric = o.metric;
    co.class_by = o.class_by;
    co.target_class = o.target_class;
    co.allow_script_metric = o.allow_script;
    co.prev = o.prev ? &pf.p : NULL;
    co.commit = o.commit;
    co.skip_first = skip_given(argc, argv) ? (size_t)o.skip_first : 1;
    co.direction = o.higher ? AN_DIR_HIGHER : o.lower ? AN_DIR_LOWER : AN_DIR_AUTO;
    co.provider = o.provider;
    co.config = o.config;
    co.seed = AN_CMP_DEFAULT_SEED;
    co.resamples = AN_CMP_RESAMPLES;
    if ((rc = an_compare_run(&sb.in, &sc.in, &co, &cmp, &err))) {
        have_cmp = 1;
        if (rc == KR_USAGE) {
            char msg[2048];
            kr_err_format(&err, msg, sizeof msg);
            cli_usage_error(cmd, "%s", msg);
        } else {
            rc = fail(&err);
        }
        goto done;
    }
    have_cmp = 1;

    /* Pair the captures: the only capture of each side, else same label and kernel, in dispatch order. */
    bundle_run *rb = sb.run, *rc_ = sc.run;
    size_t nb = rb->ncaptures, nc = rc_->ncaptures;
    uint8_t *usedc = calloc(nc + 1, 1), *usedb = calloc(nb + 1, 1);
    size_t *pb = calloc(nb + nc + 1, sizeof *pb), *pc = calloc(nb + nc + 1, sizeof *pc);
    size_t realb = 0, realc = 0, ib1 = 0, ic1 = 0;
    for (size_t i = 0; i < nb; i++)
        if (!rb->captures[i].shell) { realb++; ib1 = i; }
    for (size_t j = 0; j < nc; j++)
        if (!rc_->captures[j].shell) { realc++; ic1 = j; }
    if (realb == 1 && realc == 1) {
        pb[0] = ib1;
        pc[0] = ic1;
        usedb[ib1] = usedc[ic1] = 1;
        npairs = 1;
    } else {
        for (size_t i = 0; i < nb; i++) {
            const bundle_run_capture *x = &rb->captures[i];
            if (x->shell)
                continue;
            size_t pick = SIZE_MAX;
            for (size_t j = 0; j < nc; j++) {
                const bundle_run_capture *y = &rc_->captures[j];
                if (usedc[j] || y->shell || strcmp(x->label, y->label) || strcmp(x->kernel, y->kernel))
                    continue;
                if (pick == SIZE_MAX || y->dispatch_id < rc_->captures[pick].dispatch_id)
                    pick = j;
            }
            if (pick != SIZE_MAX) {
                usedb[i] = usedc[pick] = 1;
                pb[npairs] = i;
                pc[npairs] = pick;
                npairs++;
            }
        }
    }
    unpaired = calloc(nb + nc + 1, sizeof *unpaired);
    unp_strs = calloc(nb + nc + 1, sizeof *unp_strs);
    for (int s = 0; s < 2; s++) {
        bundle_run *r = s ? rc_ : rb;
        uint8_t *used = s ? usedc : usedb;
        for (size_t i = 0; i < r->ncaptures; i++)
            if (!used[i]) {
                const bundle_run_capture *x = &r->captures[i];
                unp_strs[nunpaired] = x->shell ? strdup("empty shell (\"code\": null)")
                                               : kr_strdupf("no capture of kernel '%s' with label '%s' on the other side",
                                                      x->kernel, x->label);
                unpaired[nunpaired] = (rep_cmp_unpaired){s ? "candidate" : "best", x->rel, unp_strs[nunpaired]};
                nunpaired++;
            }
    }
    lb = calloc(npairs + 1, sizeof *lb);
    lc = calloc(npairs + 1, sizeof *lc);
    traces = calloc(npairs + 1, sizeof *traces);
    pairs = calloc(npairs + 1, sizeof *pairs);
    if (!usedc || !usedb || !pb || !pc || !unpaired || !unp_strs || !lb || !lc || !traces || !pairs) {
        free(usedb); free(usedc); free(pb); free(pc);
        rc = KR_INTERNAL;
        goto done;
    }
    size_t nloaded = 0;
    cli_memory_setup();
    kr_progress *bar = kr_progress_new(2, kr_progress_mode_of(o.progress, o.no_progress, o.quiet), "parsing");
    for (size_t k = 0; k < npairs && !rc; k++) {
        const bundle_run_capture *x = &rb->captures[pb[k]], *y = &rc_->captures[pc[k]];
        if ((rc = load_capture(x->src, x->dir, x->label, bar, &lb[k], &err)) ||
            (rc = load_capture(y->src, y->dir, y->label, bar, &lc[k], &err))) {
            rc = fail(&err);
            break;
        }
        if (an_cmp_trace_compute(&lb[k].an, &lc[k].an, 10, &traces[k])) {
            rc = KR_INTERNAL;
            break;
        }
        pairs[k] = (rep_cmp_pair){x->label, *x->kernel ? x->kernel : y->kernel, x->rel, y->rel, &traces[k]};
        nloaded++;
    }
    kr_progress_free(bar);           /* ends the line (progress.h) */
    free(usedb);
    free(usedc);
    free(pb);
    free(pc);
    if (rc) {
        npairs = nloaded;
        goto done;
    }

    /* Documents. */
    kr_buf_puts(&rerun, "kreport compare");
    for (int i = 1; i < argc; i++) {
        kr_buf_putc(&rerun, ' ');
        cli_shell_quote(&rerun, argv[i]);
    }
    char today[16];
    cli_today(today, sizeof today);
    rep_cmp_input in;
    memset(&in, 0, sizeof in);
    in.cmp = &cmp;
    in.best_in = &sb.in;
    in.cand_in = &sc.in;
    in.best = (rep_cmp_side){pos[0], sb.files, sb.nfiles, sb.meta, sb.run->nmeta};
    in.cand = (rep_cmp_side){pos[1], sc.files, sc.nfiles, sc.meta, sc.run->nmeta};
    in.pairs = pairs;
    in.npairs = npairs;
    in.unpaired = unpaired;
    in.nunpaired = nunpaired;
    in.kernels = kernels;
    in.nkernels = nkernels;
    in.gate = o.gate;
    in.metric = o.metric;
    in.class_by = o.class_by;
    in.target_class = o.target_class;
    in.prev = o.prev;
    in.commit = o.commit;
    in.note = o.note;
    in.allow_script_metric = o.allow_script;
    in.provider = o.provider;
    in.direction = o.higher ? "higher" : o.lower ? "lower" : NULL;
    in.config = o.config;
    in.rerun = kr_buf_cstr(&rerun);
    in.today = today[0] ? today : NULL;
    const char *none = NULL;
    if ((want_md && rep_compare_markdown(&in, &md)) || (want_json && rep_compare_json(&in, &js)) ||
        (want_html && rep_compare_html(&in, &html)) || rep_compare_row(&in, &row, &none)) {
        fprintf(stderr, "kreport compare: out of memory rendering the report\n");
        rc = KR_INTERNAL;
        goto done;
    }
    if (o.out_dir) {
        if ((rc = kr_mkdir_p(o.out_dir, &err))) {
            rc = fail(&err);
            goto done;
        }
        kr_outset *set = kr_outset_new(o.out_dir, o.force);
        if (!set) {
            rc = KR_INTERNAL;
            goto done;
        }
        if ((want_md && kr_outset_add(set, "COMPARE.md", md.data, md.len, &err)) ||
            (want_json && kr_outset_add(set, "compare.json", js.data, js.len, &err)) ||
            (want_html && kr_outset_add(set, "compare.html", html.data, html.len, &err)) || kr_outset_commit(set, &err)) {
            kr_outset_free(set);
            rc = fail(&err);
            goto done;
        }
        kr_outset_free(set);
    }
    if (o.row) {
        if (row.len)
            fwrite(row.data, 1, row.len, stdout);
        else if (!o.quiet)
            fprintf(stderr, "kreport compare: %s: no performance.md row (%s)\n", cmp.verdict_text, none ? none : "");
    } else if (!o.out_dir) {
        kr_buf *b = want_md ? &md : want_html ? &html : &js;
        if (fwrite(b->data ? b->data : "", 1, b->len, stdout) != b->len) {
            fprintf(stderr, "kreport compare: cannot write to standard output\n");
            rc = KR_OUTPUT;
            goto done;
        }
    } else if (!o.quiet) {
        printf("%s %s\n", an_verdict_id(cmp.verdict), cmp.reasons.n ? cmp.reasons.v[0].text : "");
    }
    if (fflush(stdout) != 0) {
        fprintf(stderr, "kreport compare: cannot write to standard output\n");
        rc = KR_OUTPUT;
        goto done;
    }
    if (o.out_dir && !o.quiet)
        fprintf(stderr, "kreport compare: %s -> %s\n", cmp.verdict_text, o.out_dir);
    rc = o.exit_code ? an_verdict_exit(cmp.verdict) : 0;
done:
    for (size_t k = 0; k < npairs; k++)
        an_cmp_trace_free(&traces[k]);
    cli_roof_free(&roof);
    for (size_t k = 0; lb && k <= npairs; k++) {
        loaded_free(&lb[k]);
        loaded_free(&lc[k]);
    }
    for (size_t i = 0; unp_strs && i < nunpaired; i++)
        free(unp_strs[i]);
    free(unp_strs);
    free(unpaired);
    free(lb);
    free(lc);
    free(traces);
    free(pairs);
    if (have_cmp)
        an_compare_free(&cmp);
    if (pf.root)
        json_decref(pf.root);
    cli_run_side_free(&sb);
    cli_run_side_free(&sc);
    kr_buf_free(&md);
    kr_buf_free(&js);
    kr_buf_free(&row);
    kr_buf_free(&rerun);
    kr_buf_free(&html);
    return rc;
}
