/* cmd_index.c — `kreport index HUB_DIR`: the examples table of the hub's
 * README.md and HUB_DIR/kernels.json, from the analyses of every example
 * under HUB_DIR/examples/; `kreport index --analyses DIR`: the same table
 * (DIR/INDEX.md) and kernels.json from the analysis.json files under DIR,
 * written by `kreport analyze` anywhere, without analyzing again
 * (docs/sweep.md).
 *
 * The hub table replaces what lies between the lines CLI_INDEX_BEGIN and
 * CLI_INDEX_END of README.md; the rest of the file is kept byte for byte.
 * Without the markers nothing is written (exit 3, the message says where to
 * add them). Headline figures come from the primary capture of each example
 * (the first `big` capture with waves, else the capture with the most
 * waves; the rule of validate's V-20e): kernel, target, wave-state split
 * (timeline cycles, docs/wave-states.md), top stall bucket (kreport's
 * taxonomy, docs/stalls.md), occupancy limiter (docs/occupancy.md) and
 * source mapping k/N. Both modes print a row through the same function
 * (emit), so an analysis.json gives the row its analysis gave.
 * Idempotent: when both outputs already hold these bytes nothing is
 * written and "no change" is reported. */
#include <dirent.h>
#include <inttypes.h>
#include <jansson.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/analysis.h"
#include "bundle/capture.h"
#include "bundle/discover.h"
#include "cli/commands.h"
#include "cli/pack.h"
#include "common/buf.h"
#include "common/file.h"
#include "common/fmt.h"
#include "common/limits.h"
#include "common/outfile.h"
#include "common/pool.h"

#define CLI_INDEX_BEGIN "<!-- kreport:index:begin -->"
#define CLI_INDEX_END "<!-- kreport:index:end -->"
#define PATH_CAP 4096

#define ANALYSES_DEPTH 16     /* folder levels searched under --analyses DIR */

static struct {
    int quiet, jobs, check, analyses;
} o;

const cli_opt cmd_index_options[] = {
    {"analyses", 0, OPT_FLAG, NULL, "DIR holds analysis.json files (kreport analyze -o): index them into DIR/INDEX.md and DIR/kernels.json without analyzing", &o.analyses},
    {"check", 0, OPT_FLAG, NULL, "write nothing; exit 1 when the outputs are out of date", &o.check},
    {"jobs", 'j', OPT_INT, "N", "threads for parsing and analysis (default: online CPUs)", &o.jobs},
    {"quiet", 'q', OPT_FLAG, NULL, "print nothing but errors", &o.quiet},
    {0},
};

static int fail(const kr_err *err)
{
    char msg[2048];
    kr_err_format(err, msg, sizeof msg);
    fprintf(stderr, "kreport index: %s\n", msg);
    return err->code ? err->code : KR_INTERNAL;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static double share(uint64_t part, uint64_t total)
{
    return total ? 100.0 * (double)part / (double)total : 0.0;
}

/* The figures of one table row and kernels.json element. */
typedef struct idx_fig {
    const char *kernel, *target;   /* "" when unknown */
    size_t ncaptures;
    int has_primary;               /* a capture with waves was analyzed */
    const char *label, *folder;    /* of the primary capture */
    size_t label_len;              /* bytes of label that name it */
    uint64_t idle, exec, wait, stall, total;   /* raw timeline cycles */
    const char *stall_key;         /* "" when nothing stalled */
    uint64_t stall_cycles, total_stall;
    const char *limiter;           /* "" when the occupancy was not modelled */
    uint64_t waves_per_simd;
    uint64_t mapped_rows, instruction_rows;
} idx_fig;

/* One table row (first cell: [`shown`](link)) and the index-th kernels.json
 * element (named name). */
static void emit(kr_buf *row, kr_buf *json, size_t index, const char *name, const char *shown, const char *link,
                 const idx_fig *f)
{
    kr_buf_printf(row, "| [`%s`](%s) | `%s` | %s | %zu | ", shown, link, *f->kernel ? f->kernel : "?",
                  *f->target ? f->target : "?", f->ncaptures);
    if (f->total)
        kr_buf_printf(row, "%.1f / %.1f / %.1f / %.1f %%", share(f->exec, f->total), share(f->wait, f->total),
                      share(f->stall, f->total), share(f->idle, f->total));
    else
        kr_buf_puts(row, "-");
    kr_buf_puts(row, " | ");
    if (*f->stall_key)
        kr_buf_printf(row, "`%s` %.1f %%", f->stall_key, share(f->stall_cycles, f->total_stall));
    else
        kr_buf_puts(row, "-");
    kr_buf_puts(row, " | ");
    if (*f->limiter)
        kr_buf_printf(row, "%s, %" PRIu64 " waves/SIMD", f->limiter, f->waves_per_simd);
    else
        kr_buf_puts(row, "-");
    kr_buf_printf(row, " | %" PRIu64 "/%" PRIu64 " |\n", f->mapped_rows, f->instruction_rows);

    kr_buf_puts(json, index ? ",\n    {\"example\": " : "\n    {\"example\": ");
    cli_json_str(json, name);
    kr_buf_puts(json, ", \"kernel\": ");
    cli_json_str(json, f->kernel);
    kr_buf_puts(json, ", \"target\": ");
    cli_json_str(json, f->target);
    kr_buf_printf(json, ", \"captures\": %zu, \"primary\": ", f->ncaptures);
    if (f->has_primary) {
        char label[256];
        snprintf(label, sizeof label, "%.*s", (int)f->label_len, f->label);
        kr_buf_puts(json, "{\"label\": ");
        cli_json_str(json, label);
        kr_buf_puts(json, ", \"folder\": ");
        cli_json_str(json, f->folder);
        kr_buf_puts(json, "}");
    } else {
        kr_buf_puts(json, "null");
    }
    kr_buf_printf(json, ",\n     \"wave_state_cycles\": {\"idle\": %" PRIu64 ", \"exec\": %" PRIu64
                        ", \"wait\": %" PRIu64 ", \"stall\": %" PRIu64 ", \"total\": %" PRIu64 "}",
                  f->idle, f->exec, f->wait, f->stall, f->total);
    kr_buf_puts(json, ",\n     \"top_stall\": ");
    if (*f->stall_key) {
        kr_buf_puts(json, "{\"bucket\": ");
        cli_json_str(json, f->stall_key);
        kr_buf_printf(json, ", \"cycles\": %" PRIu64 ", \"total_stall\": %" PRIu64 "}", f->stall_cycles,
                      f->total_stall);
    } else {
        kr_buf_puts(json, "null");
    }
    kr_buf_puts(json, ", \"limiter\": ");
    if (*f->limiter) {
        kr_buf_puts(json, "{\"limiter\": ");
        cli_json_str(json, f->limiter);
        kr_buf_printf(json, ", \"waves_per_simd\": %" PRIu64 "}", f->waves_per_simd);
    } else {
        kr_buf_puts(json, "null");
    }
    kr_buf_printf(json, ",\n     \"source_mapping\": {\"mapped_rows\": %" PRIu64 ", \"instruction_rows\": %" PRIu64
                        "}}", f->mapped_rows, f->instruction_rows);
}

static void fig_init(idx_fig *f)
{
    memset(f, 0, sizeof *f);
    f->kernel = f->target = f->label = f->folder = f->stall_key = f->limiter = "";
}

/* One example of the hub: loads every capture, analyzes the primary one. */
static int one_example(const char *dir, const char *name, kr_buf *row, kr_buf *json, size_t index,
                       kr_err *err)
{
    bundle_example *ex;
    int rc = bundle_example_scan(dir, &ex, err);
    if (rc)
        return rc;
    size_t n = ex->ncaptures, primary = n;
    uint64_t primary_waves = 0;
    /* Pick the primary without analysing every capture twice: load all. */
    kr_capture **caps = calloc(n ? n : 1, sizeof *caps);
    size_t loaded = 0;
    for (; loaded < n && caps && !rc; loaded++) {
        bundle_opts bo = {0};
        bo.threads = o.jobs > 0 ? o.jobs : kr_cpu_count();
        bo.label = ex->captures[loaded].label;
        bo.skip_wstates = 1;
        if ((rc = bundle_capture_load(ex->captures[loaded].dir, &bo, &caps[loaded], err)))
            break;
        const kr_capture *c = caps[loaded];
        if (c->nwaves == 0)
            continue;
        int big = strcmp(ex->captures[loaded].label, "big") == 0;
        int pbig = primary < n && strcmp(ex->captures[primary].label, "big") == 0;
        if (primary == n || (big && !pbig) || (!big && !pbig && c->nwaves > primary_waves)) {
            primary = loaded;
            primary_waves = c->nwaves;
        }
    }
    if (!caps && !rc)
        rc = kr_err_set(err, KR_INTERNAL, dir, NULL, "out of memory");
    an_analysis a;
    int analyzed = 0;
    if (!rc && primary < n) {
        an_analysis_opts ao = {0};
        ao.threads = o.jobs > 0 ? o.jobs : kr_cpu_count();
        if (an_analyze(caps[primary], &ao, &a))
            rc = kr_err_set(err, KR_INTERNAL, dir, NULL, "out of memory analyzing");
        else
            analyzed = 1;
    }
    if (!rc) {
        idx_fig f;
        fig_init(&f);
        f.ncaptures = n;
        if (analyzed) {
            cli_capture_summary s;
            cli_capture_summarize(caps[primary], ex->captures[primary].label, &s);
            f.kernel = s.kernel;
            f.target = s.target;
            f.has_primary = 1;
            f.label = ex->captures[primary].label;
            f.label_len = strlen(f.label);
            f.folder = s.folder;
            f.mapped_rows = s.mapped_rows;
            f.instruction_rows = s.instruction_rows;
            f.idle = a.states.all.raw[KR_STATE_IDLE];
            f.exec = a.states.all.raw[KR_STATE_EXEC];
            f.wait = a.states.all.raw[KR_STATE_WAIT];
            f.stall = a.states.all.raw[KR_STATE_STALL];
            f.total = a.states.all.raw_total;
            if (a.stalls.total_stall) {
                an_stall_kind top = a.stalls.kind_order[0];
                f.stall_key = an_stall_kind_key(top);
                f.stall_cycles = a.stalls.kinds[top].stall;
                f.total_stall = a.stalls.total_stall;
            }
            if (a.occupancy.nkernels && a.occupancy.modelled) {
                const an_occ_kernel *k = &a.occupancy.kernels[a.occupancy.primary];
                f.limiter = an_occ_lim_id(k->primary);
                f.waves_per_simd = k->waves_per_simd;
            }
        }
        char link[PATH_CAP];
        snprintf(link, sizeof link, "examples/%s", name);
        emit(row, json, index, name, link, link, &f);
    }
    if (analyzed)
        an_analysis_free(&a);
    for (size_t i = 0; i < loaded && caps; i++)
        bundle_capture_free(caps[i]);
    free(caps);
    bundle_example_free(ex);
    return rc;
}

/* ---- --analyses: rows from analysis.json files ---- */

static const char *jstr_of(json_t *o, const char *key)
{
    const char *v = json_string_value(json_object_get(o, key));
    return v ? v : "";
}

/* An unsigned integer member of o (json_integer >= 0), else -1. */
static int64_t juint_of(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) && json_integer_value(v) >= 0 ? (int64_t)json_integer_value(v) : -1;
}

/* analyze names the captures of an example by their label, followed by
 * " <folder suffix>" when a label holds several: 1 when label is want or
 * want followed by a space. */
static int label_is(const char *label, const char *want)
{
    size_t n = strlen(want);
    return strncmp(label, want, n) == 0 && (label[n] == '\0' || label[n] == ' ');
}

/* The figures of one analysis.json (one capture, or an example's captures
 * with the primary one picked by the hub rule). Strings point into root. */
static int fig_from_json(const char *path, json_t *root, idx_fig *f, kr_err *err)
{
    fig_init(f);
    if (strcmp(jstr_of(root, "schema"), "kreport.analysis") != 0 || juint_of(root, "schema_version") != 1)
        return kr_err_set(err, KR_INPUT, path, NULL,
                          "not a kreport analysis (schema \"kreport.analysis\", schema_version 1 expected)");
    json_t *caps = json_object_get(root, "captures");
    json_t *primary = NULL;
    if (json_is_array(caps)) {
        size_t n = json_array_size(caps);
        int64_t primary_waves = 0;
        int pbig = 0;
        f->ncaptures = n;
        for (size_t i = 0; i < n; i++) {
            json_t *c = json_array_get(caps, i);
            json_t *cap = json_object_get(c, "capture");
            int64_t waves = juint_of(cap, "waves");
            if (!json_is_object(c) || !json_is_object(cap) || waves < 0)
                return kr_err_set(err, KR_INPUT, path, NULL, "captures[%zu]: no capture.waves", i);
            if (waves == 0)
                continue;
            int big = label_is(jstr_of(cap, "label"), "big");
            if (!primary || (big && !pbig) || (!big && !pbig && waves > primary_waves)) {
                primary = c;
                primary_waves = waves;
                pbig = big;
            }
        }
    } else {
        f->ncaptures = 1;
        json_t *cap = json_object_get(root, "capture");
        int64_t waves = juint_of(cap, "waves");
        if (waves < 0)
            return kr_err_set(err, KR_INPUT, path, NULL, "no capture.waves");
        primary = waves > 0 ? root : NULL;
    }
    if (!primary)
        return 0;
    json_t *cap = json_object_get(primary, "capture");
    json_t *ws = json_object_get(json_object_get(json_object_get(primary, "states"), "overall"), "raw");
    json_t *map = json_object_get(primary, "mapping");
    int64_t idle = juint_of(ws, "IDLE"), exec = juint_of(ws, "EXEC"), wait = juint_of(ws, "WAIT"),
            stall = juint_of(ws, "STALL"), total = juint_of(ws, "total");
    int64_t mapped = juint_of(map, "mapped"), rows = juint_of(map, "rows");
    if (idle < 0 || exec < 0 || wait < 0 || stall < 0 || total < 0)
        return kr_err_set(err, KR_INPUT, path, NULL, "no states.overall.raw cycles for capture %s",
                          jstr_of(cap, "folder"));
    if (mapped < 0 || rows < 0)
        return kr_err_set(err, KR_INPUT, path, NULL, "no mapping.mapped / mapping.rows for capture %s",
                          jstr_of(cap, "folder"));
    f->kernel = jstr_of(primary, "kernel");
    f->target = jstr_of(primary, "target");
    f->has_primary = 1;
    f->label = jstr_of(cap, "label");
    f->label_len = strcspn(f->label, " ");
    f->folder = jstr_of(cap, "folder");
    f->idle = (uint64_t)idle, f->exec = (uint64_t)exec, f->wait = (uint64_t)wait, f->stall = (uint64_t)stall;
    f->total = (uint64_t)total;
    f->mapped_rows = (uint64_t)mapped, f->instruction_rows = (uint64_t)rows;
    json_t *stalls = json_object_get(primary, "stalls");
    int64_t total_stall = juint_of(stalls, "total_stall");
    json_t *top = json_array_get(json_object_get(json_object_get(stalls, "kreport"), "buckets"), 0);
    if (total_stall > 0 && top) {
        int64_t cycles = juint_of(top, "stall");
        if (!*jstr_of(top, "bucket") || cycles < 0)
            return kr_err_set(err, KR_INPUT, path, NULL, "stalls.kreport.buckets[0] has no bucket and stall");
        f->stall_key = jstr_of(top, "bucket");
        f->stall_cycles = (uint64_t)cycles;
        f->total_stall = (uint64_t)total_stall;
    }
    json_t *occ = json_object_get(primary, "occupancy_detail");
    json_t *ks = json_object_get(occ, "kernels");
    int64_t pk = juint_of(occ, "primary_kernel");
    if (json_is_true(json_object_get(occ, "modelled")) && pk >= 0 && (size_t)pk < json_array_size(ks)) {
        json_t *k = json_array_get(ks, (size_t)pk);
        int64_t w = juint_of(k, "waves_per_simd");
        if (*jstr_of(k, "limiter") && w >= 0) {
            f->limiter = jstr_of(k, "limiter");
            f->waves_per_simd = (uint64_t)w;
        }
    }
    return 0;
}

/* Relative paths (to root) of the folders under root holding an
 * analysis.json, depth-first; symbolic links and dot-names are skipped. */
static int find_analyses(const char *root, const char *rel, int depth, char ***out, size_t *n, kr_err *err)
{
    char dir[PATH_CAP];
    if (*rel)
        kr_path_join(dir, sizeof dir, root, rel);
    else
        snprintf(dir, sizeof dir, "%s", root);
    DIR *d = opendir(dir);
    if (!d)
        return *rel ? 0 : kr_err_set(err, KR_INPUT, root, NULL, "cannot open the folder");
    struct dirent *e;
    int rc = 0;
    while (!rc && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char p[PATH_CAP], r[PATH_CAP];
        struct stat st;
        if (lstat(kr_path_join(p, sizeof p, dir, e->d_name), &st) != 0)
            continue;
        if (*rel)
            kr_path_join(r, sizeof r, rel, e->d_name);
        else
            snprintf(r, sizeof r, "%s", e->d_name);
        if (S_ISDIR(st.st_mode) && depth < ANALYSES_DEPTH) {
            rc = find_analyses(root, r, depth + 1, out, n, err);
        } else if (S_ISREG(st.st_mode) && strcmp(e->d_name, "analysis.json") == 0) {
            char **g = realloc(*out, (*n + 1) * sizeof *g);
            if (!g || !(g[*n] = strdup(*rel ? rel : ".")))
                rc = kr_err_set(err, KR_INTERNAL, NULL, NULL, "out of memory");
            if (g)
                *out = g;
            if (!rc)
                (*n)++;
        }
    }
    closedir(d);
    return rc;
}

static int one_analysis(const char *root, const char *rel, kr_buf *row, kr_buf *json, size_t index, kr_err *err)
{
    char dir[PATH_CAP], path[PATH_CAP];
    if (strcmp(rel, ".") == 0)
        snprintf(dir, sizeof dir, "%s", root);
    else
        kr_path_join(dir, sizeof dir, root, rel);
    kr_path_join(path, sizeof path, dir, "analysis.json");
    char *text = NULL;
    size_t len = 0;
    int rc = kr_file_read(path, KR_MAX_SMALL_FILE_BYTES, &text, &len, err);
    if (rc)
        return rc;
    json_error_t je;
    json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    free(text);
    if (!doc)
        return kr_err_set(err, KR_INPUT, path, NULL, "line %d, column %d: %s", je.line, je.column, je.text);
    idx_fig f;
    rc = fig_from_json(path, doc, &f, err);
    if (!rc) {
        char link[PATH_CAP];
        snprintf(link, sizeof link, "%s/", rel);
        emit(row, json, index, rel, rel, link, &f);
    }
    json_decref(doc);
    return rc;
}

/* 1 when path holds exactly len bytes equal to data. */
static int same_bytes(const char *path, const char *data, size_t len)
{
    char *old = NULL;
    size_t olen = 0;
    kr_err e;
    kr_err_clear(&e);
    if (kr_file_read(path, KR_MAX_SMALL_FILE_BYTES, &old, &olen, &e))
        return 0;
    int same = olen == len && memcmp(old, data, len) == 0;
    free(old);
    return same;
}

int cmd_index(int argc, char **argv)
{
    memset(&o, 0, sizeof o);
    const cli_command *cmd = cli_find("index");
    char *pos[2];
    int npos, code;
    if (cli_parse(cmd, cmd_index_options, argc, argv, pos, &npos, 2, &code))
        return code;
    if (npos != 1) {
        cli_usage_error(cmd, npos ? "expects exactly one HUB_DIR" : "missing HUB_DIR");
        return KR_USAGE;
    }
    const char *hub = pos[0];
    kr_err err;
    kr_err_clear(&err);
    char readme_path[PATH_CAP], examples[PATH_CAP], kj[PATH_CAP];
    kr_path_join(readme_path, sizeof readme_path, hub, o.analyses ? "INDEX.md" : "README.md");
    kr_path_join(examples, sizeof examples, hub, "examples");
    kr_path_join(kj, sizeof kj, hub, "kernels.json");
    char *text = NULL, *begin = NULL, *end = NULL;
    size_t tlen = 0;
    if (!o.analyses) {
        if (kr_file_read(readme_path, KR_MAX_SMALL_FILE_BYTES, &text, &tlen, &err))
            return fail(&err);
        begin = strstr(text, CLI_INDEX_BEGIN "\n");
        end = begin ? strstr(begin, "\n" CLI_INDEX_END) : NULL;
        if (!begin || !end) {
            free(text);
            kr_err_set(&err, KR_INPUT, readme_path, NULL,
                       "no examples-table markers: put a line `" CLI_INDEX_BEGIN "` and a line `" CLI_INDEX_END
                       "` where the examples table belongs (the table between them is regenerated; the rest of "
                       "README.md is kept), then run kreport index again");
            return fail(&err);
        }
    } else {
        kr_err e;
        kr_err_clear(&e);
        if (kr_file_read(readme_path, KR_MAX_SMALL_FILE_BYTES, &text, &tlen, &e)) {
            text = NULL;      /* no INDEX.md yet */
            tlen = 0;
        }
    }
    /* examples (or folders holding an analysis.json), sorted */
    char **names = NULL;
    size_t n = 0;
    int rc = 0;
    if (o.analyses) {
        rc = find_analyses(hub, "", 0, &names, &n, &err);
    } else {
        DIR *d = opendir(examples);
        if (d) {
            struct dirent *e;
            while ((e = readdir(d)) != NULL) {
                char p[PATH_CAP];
                if (e->d_name[0] == '.' || !bundle_is_example_dir(kr_path_join(p, sizeof p, examples, e->d_name)))
                    continue;
                char **g = realloc(names, (n + 1) * sizeof *g);
                if (g)
                    names = g;
                if (!g || !(g[n] = strdup(e->d_name))) {
                    rc = kr_err_set(&err, KR_INTERNAL, NULL, NULL, "out of memory");
                    break;
                }
                n++;
            }
            closedir(d);
        }
    }
    if (n)
        qsort(names, n, sizeof *names, name_cmp);
    kr_buf rows, json, readme;
    kr_buf_init(&rows);
    kr_buf_init(&json);
    kr_buf_init(&readme);
    kr_buf_printf(&rows, "| %s | kernel | target | captures | EXEC / WAIT / STALL / IDLE | top stall | limiter | "
                         "source mapping |\n|---|---|---|---|---|---|---|---|\n", o.analyses ? "analysis" : "folder");
    if (!rc && o.analyses && n == 0)
        rc = kr_err_set(&err, KR_INPUT, hub, NULL, "no analysis.json under this folder (write them with kreport "
                                                    "analyze PATH -o %s/NAME --format json)", hub);
    for (size_t i = 0; i < n && !rc; i++) {
        char p[PATH_CAP];
        rc = o.analyses ? one_analysis(hub, names[i], &rows, &json, i, &err)
                        : one_example(kr_path_join(p, sizeof p, examples, names[i]), names[i], &rows, &json, i, &err);
    }
    if (!rc) {
        if (o.analyses) {
            kr_buf_puts(&readme, "# kreport index\n\nFrom the analysis.json files under this folder (`kreport index "
                                 "--analyses`). Figures of each analysis's primary capture: `kreport help sweep`.\n\n");
            kr_buf_puts(&readme, kr_buf_cstr(&rows));
        } else {
            size_t head = (size_t)(begin - text) + strlen(CLI_INDEX_BEGIN "\n");
            kr_buf_append(&readme, text, head);
            kr_buf_puts(&readme, kr_buf_cstr(&rows));
            kr_buf_puts(&readme, end + 1);
        }
        const char *readme_name = o.analyses ? "INDEX.md" : "README.md";
        kr_buf out;
        kr_buf_init(&out);
        kr_buf_puts(&out, "{\n  \"schema\": \"kreport.index\",\n  \"schema_version\": 1,\n  \"kreport_version\": \""
                          KREPORT_VERSION "\",\n  \"examples\": [");
        kr_buf_puts(&out, kr_buf_cstr(&json));
        kr_buf_puts(&out, n ? "\n  ]\n}\n" : "]\n}\n");
        if (readme.oom || out.oom || rows.oom || json.oom) {
            rc = kr_err_set(&err, KR_INTERNAL, NULL, NULL, "out of memory");
        } else {
            int same_readme = text && readme.len == tlen && memcmp(readme.data, text, tlen) == 0;
            int same_json = same_bytes(kj, out.data, out.len);
            const char *what = o.analyses ? (n == 1 ? "analysis" : "analyses") : (n == 1 ? "example" : "examples");
            if (same_readme && same_json) {
                if (!o.quiet)
                    fprintf(stderr, "kreport index: %s: no change (%zu %s)\n", hub, n, what);
            } else if (o.check) {
                fprintf(stderr, "kreport index: %s: out of date:%s%s%s; run kreport index %s%s\n", hub,
                        same_readme ? "" : " ", same_readme ? "" : readme_name, same_json ? "" : " kernels.json",
                        o.analyses ? "--analyses " : "", hub);
                rc = KR_FINDING;
            } else {
                kr_outset *set = kr_outset_new(hub, 1);
                if (!set)
                    rc = kr_err_set(&err, KR_INTERNAL, NULL, NULL, "out of memory");
                else if (!(rc = same_readme ? 0 : kr_outset_add(set, readme_name, readme.data, readme.len, &err)) &&
                         !(rc = same_json ? 0 : kr_outset_add(set, "kernels.json", out.data, out.len, &err)))
                    rc = kr_outset_commit(set, &err);
                kr_outset_free(set);
                if (!rc && !o.quiet)
                    fprintf(stderr, "kreport index: %s: updated%s%s%s (%zu %s)\n", hub, same_readme ? "" : " ",
                            same_readme ? "" : readme_name, same_json ? "" : " kernels.json", n, what);
            }
        }
        kr_buf_free(&out);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(text);
    kr_buf_free(&rows);
    kr_buf_free(&json);
    kr_buf_free(&readme);
    if (rc && rc != KR_FINDING)
        return fail(&err);
    return rc;
}
