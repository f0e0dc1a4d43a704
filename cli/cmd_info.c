/* cmd_info.c — `kreport info PATH...`: a summary of each capture (or every
 * capture of an example folder): kernel, gfxip and target (docs/occupancy.md#target-detection), traced
 * SEs, waves, static instructions, records, source mapping (docs/formats.md#mapped-rows), time span
 * raw / aligned (docs/formats.md#se-alignment) and in µs at the measured clock (docs/formats.md#clock), and which
 * files are present, missing or extra (docs/formats.md#capture-files). Text or `--json`. A run
 * directory (neither a capture nor an example folder) gets the few lines of
 * cli_run_info instead ("runs" in the JSON).
 *
 * Exit: 0, 2 usage, 3 a file could not be read, 5 internal. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/validate.h"
#include "bundle/capture.h"
#include "bundle/discover.h"
#include "bundle/source.h"
#include "cli/commands.h"
#include "cli/pack.h"
#include "cli/run_analyze.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/fmt.h"
#include "common/pool.h"

static int opt_json, opt_jobs;
static const char *opt_results, *opt_target;

const cli_opt cmd_info_options[] = {
    {"json", 0, OPT_FLAG, NULL, "print one JSON object (schema kreport.info) instead of text", &opt_json},
    {"results", 0, OPT_STRING, "FILE", "results.json, rocprofv3 CSV or rocpd .db to join instead of searching", &opt_results},
    {"target", 0, OPT_STRING, "NAME", "GPU target (e.g. gfx950) instead of detecting it (`kreport help occupancy`)", &opt_target},
    {"jobs", 'j', OPT_INT, "N", "wave-file parser threads (default: online CPUs)", &opt_jobs},
    {0},
};

#define MAX_PATHS 256
#define NSE 64   /* SEs tracked for the summary: the model's se_offset table */

static void json_str_or_null(kr_buf *b, const char *s)
{
    if (s)
        cli_json_str(b, s);
    else
        kr_buf_puts(b, "null");
}

/* ---- the summary, computed once for both outputs ---- */

typedef struct strlist {
    char **v;
    size_t n, cap;
} strlist;

static void sl_add(strlist *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sl_add(strlist *l, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return;
        l->v = v;
        l->cap = cap;
    }
    char *s = strdup(buf);
    if (s)
        l->v[l->n++] = s;
}

static void sl_free(strlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct summary {
    const char **kernels;
    size_t nkernels;
    an_target target;
    uint8_t se_traced[NSE], se_waves[NSE];
    uint64_t instr_rows, label_rows, records, records_unknown, mapped;
    an_span span;
    strlist present, missing, extra;   /* present lists the wave files too (JSON) */
    size_t nwave_files;                /* text prints "N wave files" instead */
} summary;

static void summarize(const kr_capture *c, const char *target_override, summary *s)
{
    memset(s, 0, sizeof *s);
    s->kernels = calloc(c->nrows ? c->nrows : 1, sizeof *s->kernels);
    for (size_t i = 0; i < c->nrows; i++) {
        const kr_code_row *r = &c->rows[i];
        if (r->is_label) {
            s->label_rows++;
            if (s->kernels)
                s->kernels[s->nkernels++] = an_label_name(r);
            continue;
        }
        s->instr_rows++;
        if (r->source && *r->source)
            s->mapped++;
    }
    an_validate_target(c, target_override, &s->target);
    for (size_t i = 0; i < c->nwaves; i++) {
        const kr_wave *w = &c->waves[i];
        if (w->se < NSE)
            s->se_traced[w->se] = s->se_waves[w->se] = 1;
        s->records += w->ninsts;
        for (size_t k = 0; k < w->ninsts; k++)
            if (w->insts[k].line == 0 || !kr_capture_row(c, w->insts[k].line))
                s->records_unknown++;
    }
    for (size_t i = 0; i < c->occupancy.nses; i++)
        if (c->occupancy.ses[i].se < NSE)
            s->se_traced[c->occupancy.ses[i].se] = 1;
    for (size_t i = 0; i < c->realtime.nses; i++)
        if (c->realtime.ses[i].se < NSE)
            s->se_traced[c->realtime.ses[i].se] = 1;
    an_validate_span(c, &s->span);

    /* Files (docs/formats.md#capture-files): what the model says was read, what is expected but
     * absent, and what no rule names. */
    sl_add(&s->present, "filenames.json");
    sl_add(&s->present, "code.json");
    for (size_t i = 0; i < c->nwaves; i++)
        sl_add(&s->present, "%s", c->waves[i].file ? c->waves[i].file : "?");
    s->nwave_files = c->nwaves;
    uint8_t occurs[KR_STATE_COUNT] = {0};
    for (size_t i = 0; i < c->nwaves; i++)
        for (size_t k = 0; k < c->waves[i].ntimeline; k++)
            if (c->waves[i].timeline[k].state < KR_STATE_COUNT)
                occurs[c->waves[i].timeline[k].state] = 1;
    for (int k = 0; k < KR_STATE_COUNT; k++) {
        if (c->wstates[k].present)
            sl_add(&s->present, "wstates%d.json", k);
        else if (occurs[k])
            sl_add(&s->missing, "wstates%d.json", k);
    }
    if (c->occupancy.present) sl_add(&s->present, "occupancy.json");
    else sl_add(&s->missing, "occupancy.json");
    if (c->realtime.present) sl_add(&s->present, "realtime.json");
    else sl_add(&s->missing, "realtime.json");
    if (c->has_snapshots_json) sl_add(&s->present, "snapshots.json");
    else if (s->mapped > 0) sl_add(&s->missing, "snapshots.json");
    size_t p0 = s->present.n, m0 = s->missing.n;
    for (size_t i = 0; i < c->nsnapshots; i++) {
        const kr_snapshot *sn = &c->snapshots[i];
        if (sn->loaded) sl_add(&s->present, "%s", sn->leaf);
        else if (sn->safe) sl_add(&s->missing, "%s", sn->leaf);
    }
    /* Source copies in name order (the tree order is arbitrary, docs/formats.md#source-snapshots). */
    if (s->present.n > p0)
        qsort(s->present.v + p0, s->present.n - p0, sizeof *s->present.v, str_cmp);
    if (s->missing.n > m0)
        qsort(s->missing.v + m0, s->missing.n - m0, sizeof *s->missing.v, str_cmp);
    for (size_t i = 0; i < c->nextra_files; i++)
        sl_add(&s->extra, "%s", c->extra_files[i]);
}

static void summary_free(summary *s)
{
    free(s->kernels);
    sl_free(&s->present);
    sl_free(&s->missing);
    sl_free(&s->extra);
}

/* "SE0..SE3", "SE1", "SE0, SE2" */
static void se_list(kr_buf *b, const uint8_t *set)
{
    int first = -1, last = -1, count = 0, contiguous = 1;
    for (int i = 0; i < NSE; i++)
        if (set[i]) {
            if (first < 0) first = i;
            else if (i != last + 1) contiguous = 0;
            last = i;
            count++;
        }
    if (count == 0) {
        kr_buf_puts(b, "none");
    } else if (count == 1) {
        kr_buf_printf(b, "SE%d", first);
    } else if (contiguous) {
        kr_buf_printf(b, "SE%d..SE%d", first, last);
    } else {
        int k = 0;
        for (int i = 0; i < NSE; i++)
            if (set[i])
                kr_buf_printf(b, "%sSE%d", k++ ? ", " : "", i);
    }
}

static int count_set(const uint8_t *set)
{
    int n = 0;
    for (int i = 0; i < NSE; i++)
        n += set[i] != 0;
    return n;
}

/* Items [0, skip_from) and [skip_from + nskip, n); the skipped run (the wave
 * files) is printed as "N wave files" in its place. */
static void text_list(const char *title, const strlist *l, size_t skip_from, size_t nskip)
{
    printf("%s:", title);
    if (l->n == 0)
        printf(" none");
    int k = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (nskip && i == skip_from) {
            printf("%s %zu wave file%s", k++ ? "," : "", nskip, nskip == 1 ? "" : "s");
            i += nskip - 1;
            continue;
        }
        printf("%s %s", k++ ? "," : "", l->v[i]);
    }
    printf("\n");
}

/* "span: R cycles raw, A aligned, U us at F MHz" (docs/formats.md#clock, docs/formats.md#se-alignment). */
static void print_span(const kr_capture *c, const an_span *sp)
{
    char us[64], mhz[64];
    kr_fmt_fixed(mhz, sizeof mhz, sp->clock_mhz, 2);
    if (c->nwaves == 0) {
        printf("span: none (no waves)");
    } else {
        printf("span: %" PRIu64 " cycles raw, ", sp->raw);
        if (sp->has_aligned)
            printf("%" PRIu64 " aligned", sp->aligned);
        else
            printf("not aligned (%s)", c->realtime.present ? "realtime.json does not cover every SE" : "no realtime.json");
    }
    if (sp->has_us)
        printf(", %s us at %s MHz\n", kr_fmt_fixed(us, sizeof us, sp->us, 2), mhz);
    else if (sp->clock_mhz > 0)
        printf(", clock %s MHz\n", mhz);
    else
        printf("\n");
}

static void print_text(const kr_capture *c, const summary *s)
{
    printf("capture: %s\n", c->folder);
    if (c->name_matched)
        printf("agent handle: %" PRIu64 ", dispatch: %" PRIu64 "%s%s\n", c->agent_handle, c->dispatch_id,
               c->suffix && *c->suffix ? ", suffix: " : "", c->suffix && *c->suffix ? c->suffix : "");
    else
        printf("agent handle: unknown (folder name is not ui_output_agent_<H>_dispatch_<D>)\n");
    if (c->label)
        printf("label: %s\n", c->label);
    printf("kernel:");
    if (s->nkernels == 0)
        printf(" none (no label row)");
    for (size_t i = 0; i < s->nkernels; i++)
        printf("%s %s", i ? "," : "", s->kernels[i]);
    printf("\n");
    if (s->target.name)
        printf("gfxip: %" PRId64 " (target %s, from %s)\n", c->gfxip, s->target.name, s->target.source);
    else
        printf("gfxip: %" PRId64 " (%s)\n", c->gfxip, s->target.source);

    kr_buf se;
    kr_buf_init(&se);
    printf("shader engines: %d (", count_set(s->se_traced));
    se_list(&se, s->se_traced);
    kr_buf_puts(&se, "; waves on ");
    se_list(&se, s->se_waves);
    printf("%s)\n", kr_buf_cstr(&se));
    kr_buf_free(&se);

    printf("waves: %zu\n", c->nwaves);
    printf("static instructions: %" PRIu64 "\n", s->instr_rows);
    if (s->records_unknown)
        printf("records: %" PRIu64 " (%" PRIu64 " with an unknown PC)\n", s->records, s->records_unknown);
    else
        printf("records: %" PRIu64 "\n", s->records);
    printf("source mapping: %" PRIu64 "/%" PRIu64 "\n", s->mapped, s->instr_rows);

    print_span(c, &s->span);

    printf("results: %s\n", c->results && c->results->path ? c->results->path : "none");
    printf("agent info: %s\n", c->agent_info && c->agent_info->path ? c->agent_info->path : "none");
    printf("kernel trace: %s\n", c->kernel_trace && c->kernel_trace->path ? c->kernel_trace->path : "none");
    if (c->rocpd) {
        const kr_rocpd *db = c->rocpd;
        size_t ngpu = 0;
        for (size_t i = 0; i < db->agents->nagents; i++)
            ngpu += db->agents->agents[i].type == 2;
        printf("rocpd database: %s (schema %s, %zu run%s: %zu agents, %zu GPU; %zu kernel symbols%s; %zu dispatches; "
               "%zu counters, %zu dispatch values)\n", db->path, db->schema_version, db->nruns, db->nruns == 1 ? "" : "s",
               db->agents->nagents, ngpu, db->nsymbols, db->symbol_registers ? " with register counts" : "",
               db->trace->nrows, db->npmc, db->ncounters);
        printf("rocpd agent: %s\n", c->rocpd_agent ? c->rocpd_agent : "?");
    }
    text_list("files present", &s->present, 2, s->nwave_files);   /* after filenames.json, code.json */
    text_list("files missing", &s->missing, 0, 0);
    text_list("files extra", &s->extra, 0, 0);
}

static void json_list(kr_buf *b, const strlist *l)
{
    kr_buf_putc(b, '[');
    for (size_t i = 0; i < l->n; i++) {
        if (i)
            kr_buf_puts(b, ", ");
        cli_json_str(b, l->v[i]);
    }
    kr_buf_putc(b, ']');
}

static void json_se(kr_buf *b, const uint8_t *set)
{
    kr_buf_putc(b, '[');
    int k = 0;
    for (int i = 0; i < NSE; i++)
        if (set[i])
            kr_buf_printf(b, "%s%d", k++ ? ", " : "", i);
    kr_buf_putc(b, ']');
}

static void json_capture(kr_buf *b, const kr_capture *c, const char *path, const summary *s, int first)
{
    char n1[64];
    kr_buf_puts(b, first ? "\n  {" : ",\n  {");
    kr_buf_puts(b, "\n    \"path\": ");
    cli_json_str(b, path);
    kr_buf_puts(b, ",\n    \"folder\": ");
    cli_json_str(b, c->folder);
    if (c->name_matched)
        kr_buf_printf(b, ",\n    \"agent_handle\": %" PRIu64 ",\n    \"dispatch_id\": %" PRIu64, c->agent_handle,
                      c->dispatch_id);
    else
        kr_buf_puts(b, ",\n    \"agent_handle\": null,\n    \"dispatch_id\": null");
    kr_buf_puts(b, ",\n    \"suffix\": ");
    json_str_or_null(b, c->suffix && *c->suffix ? c->suffix : NULL);
    kr_buf_puts(b, ",\n    \"label\": ");
    json_str_or_null(b, c->label);
    kr_buf_puts(b, ",\n    \"kernels\": [");
    for (size_t i = 0; i < s->nkernels; i++) {
        if (i)
            kr_buf_puts(b, ", ");
        cli_json_str(b, s->kernels[i]);
    }
    kr_buf_printf(b, "],\n    \"gfxip\": %" PRId64, c->gfxip);
    kr_buf_puts(b, ",\n    \"gfxv\": ");
    json_str_or_null(b, c->gfxv);
    kr_buf_puts(b, ",\n    \"version\": ");
    json_str_or_null(b, c->version);
    kr_buf_puts(b, ",\n    \"target\": {\"name\": ");
    json_str_or_null(b, s->target.name);
    kr_buf_puts(b, ", \"source\": ");
    cli_json_str(b, s->target.source);
    kr_buf_puts(b, "},\n    \"shader_engines\": ");
    json_se(b, s->se_traced);
    kr_buf_puts(b, ",\n    \"wave_shader_engines\": ");
    json_se(b, s->se_waves);
    kr_buf_printf(b, ",\n    \"waves\": %zu,\n    \"static_instructions\": %" PRIu64 ",\n    \"label_rows\": %" PRIu64
                     ",\n    \"records\": %" PRIu64 ",\n    \"records_unknown_pc\": %" PRIu64
                     ",\n    \"source_mapping\": {\"mapped\": %" PRIu64 ", \"rows\": %" PRIu64 "}",
                  c->nwaves, s->instr_rows, s->label_rows, s->records, s->records_unknown, s->mapped, s->instr_rows);
    kr_buf_printf(b, ",\n    \"span\": {\"raw_cycles\": %" PRIu64 ", \"aligned_cycles\": ", s->span.raw);
    if (s->span.has_aligned)
        kr_buf_printf(b, "%" PRIu64, s->span.aligned);
    else
        kr_buf_puts(b, "null");
    kr_buf_puts(b, ", \"us\": ");
    kr_buf_puts(b, s->span.has_us ? kr_fmt_fixed(n1, sizeof n1, s->span.us, 2) : "null");
    kr_buf_puts(b, ", \"clock_mhz\": ");
    kr_buf_puts(b, s->span.clock_mhz > 0 ? kr_fmt_fixed(n1, sizeof n1, s->span.clock_mhz, 2) : "null");
    kr_buf_puts(b, "},\n    \"results\": ");
    json_str_or_null(b, c->results ? c->results->path : NULL);
    kr_buf_puts(b, ",\n    \"agent_info\": ");
    json_str_or_null(b, c->agent_info ? c->agent_info->path : NULL);
    kr_buf_puts(b, ",\n    \"kernel_trace\": ");
    json_str_or_null(b, c->kernel_trace ? c->kernel_trace->path : NULL);
    kr_buf_puts(b, ",\n    \"rocpd\": ");
    if (c->rocpd) {
        const kr_rocpd *db = c->rocpd;
        kr_buf_puts(b, "{\"path\": ");
        json_str_or_null(b, db->path);
        kr_buf_puts(b, ", \"schema_version\": ");
        json_str_or_null(b, db->schema_version);
        kr_buf_printf(b, ", \"runs\": %zu, \"agents\": %zu, \"kernel_symbols\": %zu, \"register_counts\": %s, "
                         "\"dispatches\": %zu, \"counters\": %zu, \"counter_values\": %zu, \"agent\": ",
                      db->nruns, db->agents->nagents, db->nsymbols, db->symbol_registers ? "true" : "false",
                      db->trace->nrows, db->npmc, db->ncounters);
        json_str_or_null(b, c->rocpd_agent);
        kr_buf_puts(b, "}");
    } else {
        kr_buf_puts(b, "null");
    }
    kr_buf_puts(b, ",\n    \"files\": {\"present\": ");
    json_list(b, &s->present);
    kr_buf_puts(b, ", \"missing\": ");
    json_list(b, &s->missing);
    kr_buf_puts(b, ", \"extra\": ");
    json_list(b, &s->extra);
    kr_buf_puts(b, "}\n  }");
}

typedef struct target_dir {
    char *dir;
    char *label;
    const bundle_source *src;    /* the archive dir lies in, or NULL */
} target_dir;

static int push_dir(target_dir **list, size_t *n, size_t *cap, const bundle_source *src, const char *dir,
                    const char *label)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        target_dir *nl = realloc(*list, nc * sizeof **list);
        if (!nl)
            return -1;
        *list = nl;
        *cap = nc;
    }
    (*list)[*n].dir = strdup(dir);
    (*list)[*n].label = label ? strdup(label) : NULL;
    (*list)[*n].src = src;
    (*n)++;
    return 0;
}

/* An example folder stands for its captures; anything else is a capture.
 * path is a folder or an archive (opened into *in, bundle/source.h). */
static int expand(const char *path, bundle_input *in, target_dir **list, size_t *n, size_t *cap, kr_buf *runs, kr_err *err)
{
    int rc = bundle_input_open(path, in, err);
    if (rc)
        return rc;
    /* A run directory (cli/run_analyze.h) is summed up on its own. */
    if (!bundle_is_capture_dir_src(in->src, in->root) && !bundle_is_example_dir_src(in->src, in->root)) {
        size_t before = runs->len;
        if (runs->len)
            kr_buf_puts(runs, opt_json ? ", " : "\n");
        rc = cli_run_info(path, in, opt_json, runs, err);
        if (rc >= 0)
            return rc;
        runs->len = before;
        if (runs->data)
            runs->data[before] = '\0';
    }
    if (bundle_is_capture_dir_src(in->src, in->root) || !bundle_is_example_dir_src(in->src, in->root))
        return push_dir(list, n, cap, in->src, in->root, NULL) ? kr_err_set(err, KR_INTERNAL, path, NULL, "out of memory") : 0;
    bundle_example *ex;
    if ((rc = bundle_example_scan_src(in->src, in->root, &ex, err)))
        return rc;
    for (size_t i = 0; i < ex->ncaptures && !rc; i++)
        if (push_dir(list, n, cap, in->src, ex->captures[i].dir, ex->captures[i].label))
            rc = kr_err_set(err, KR_INTERNAL, path, NULL, "out of memory");
    bundle_example_free(ex);
    return rc;
}

int cmd_info(int argc, char **argv)
{
    const cli_command *cmd = cli_find("info");
    char *pos[MAX_PATHS];
    int npos = 0, exit_code = 0;
    opt_json = opt_jobs = 0;
    opt_results = opt_target = NULL;
    if (cli_parse(cmd, cmd_info_options, argc, argv, pos, &npos, MAX_PATHS, &exit_code))
        return exit_code;
    if (npos == 0) {
        cli_usage_error(cmd, "missing PATH");
        return KR_USAGE;
    }
    kr_err err;
    kr_err_clear(&err);
    target_dir *list = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    bundle_input inputs[MAX_PATHS];
    memset(inputs, 0, sizeof inputs);
    kr_buf runs;
    kr_buf_init(&runs);
    for (int i = 0; i < npos && !rc; i++)
        rc = expand(pos[i], &inputs[i], &list, &n, &cap, &runs, &err);
    if (!rc && !opt_json && runs.len)
        fputs(kr_buf_cstr(&runs), stdout);

    kr_buf json;
    kr_buf_init(&json);
    kr_buf_puts(&json, "{\"schema\": \"kreport.info\", \"schema_version\": 1, \"captures\": [");
    for (size_t i = 0; i < n && !rc; i++) {
        bundle_opts bo = {0};
        bo.src = list[i].src;
        bo.threads = opt_jobs > 0 ? opt_jobs : kr_cpu_count();
        bo.results_path = opt_results;
        bo.label = list[i].label;
        kr_capture *c = NULL;
        if ((rc = bundle_capture_load(list[i].dir, &bo, &c, &err)))
            break;
        summary s;
        summarize(c, opt_target, &s);
        if (opt_json) {
            json_capture(&json, c, list[i].dir, &s, i == 0);
        } else {
            if (i || runs.len)
                printf("\n");
            print_text(c, &s);
        }
        summary_free(&s);
        bundle_capture_free(c);
    }
    if (!rc && opt_json) {
        kr_buf_puts(&json, n ? "\n]" : "]");
        if (runs.len)
            kr_buf_printf(&json, ", \"runs\": [%s]", kr_buf_cstr(&runs));
        kr_buf_puts(&json, "}\n");
        if (json.oom)
            rc = kr_err_set(&err, KR_INTERNAL, NULL, NULL, "out of memory");
        else
            fputs(kr_buf_cstr(&json), stdout);
    }
    kr_buf_free(&json);
    kr_buf_free(&runs);
    for (size_t i = 0; i < n; i++) {
        free(list[i].dir);
        free(list[i].label);
    }
    free(list);
    for (int i = 0; i < npos; i++)
        bundle_input_close(&inputs[i]);
    fflush(stdout);
    if (rc) {
        char msg[2048];
        kr_err_format(&err, msg, sizeof msg);
        fprintf(stderr, "%s: %s\n", cli_progname, msg);
        return rc;
    }
    return KR_OK;
}
