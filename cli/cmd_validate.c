/* cmd_validate.c — `kreport validate PATH...`: loads each capture (or, for an
 * example folder, checks the folder itself [V-20, V-22] and then every
 * capture in it) and prints the docs/validate.md findings of analyzer/validate.c, as text
 * lines or one JSON object (schema kreport.validate: "captures" and
 * "examples", each with its findings).
 *
 * Exit: 0 no error finding, 1 some error finding, 2 usage, 3 a file could not
 * be read at all (load error, printed as "kreport: <file>:<where>: <msg>"),
 * 5 internal. */
#include <dirent.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/occupancy.h"
#include "analyzer/validate.h"
#include "bundle/capture.h"
#include "bundle/discover.h"
#include "bundle/load_results.h"
#include "bundle/load_rocpd.h"
#include "bundle/source.h"
#include "cli/commands.h"
#include "cli/pack.h"
#include "common/arena.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/file.h"
#include "common/limits.h"
#include "common/pool.h"

static int opt_json, opt_quiet, opt_jobs, opt_max;
static const char *opt_results, *opt_target;
/* Where the PATH being validated lies: an archive (bundle/source.h) or
 * NULL for the filesystem. */
static const bundle_source *opt_src;

const cli_opt cmd_validate_options[] = {
    {"json", 0, OPT_FLAG, NULL, "print one JSON object (schema kreport.validate) instead of text", &opt_json},
    {"quiet", 'q', OPT_FLAG, NULL, "print only error findings (and the summary lines)", &opt_quiet},
    {"results", 0, OPT_STRING, "FILE", "results.json, rocprofv3 CSV or rocpd .db to join instead of searching", &opt_results},
    {"target", 0, OPT_STRING, "NAME", "GPU target (e.g. gfx950) instead of detecting it (`kreport help occupancy`)", &opt_target},
    {"jobs", 'j', OPT_INT, "N", "wave-file parser threads (default: online CPUs)", &opt_jobs},
    {"max", 0, OPT_INT, "N", "occurrences listed per check and severity (default 20; 0 = default)", &opt_max},
    {0},
};

#define MAX_PATHS 256

/* ---- example folders (V-20, V-22): facts from the file system ---- */

typedef struct name_list {
    char **v;
    size_t n, cap;
} name_list;

static void nl_add(name_list *l, const char *s)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return;
        l->v = v;
        l->cap = cap;
    }
    char *c = strdup(s);
    if (c)
        l->v[l->n++] = c;
}

static void nl_free(name_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the subdirectories of dir (dot entries skipped). */
static void subdirs(const char *dir, name_list *out)
{
    bundle_source_entry *e;
    size_t n;
    if (bundle_source_list(opt_src, dir, &e, &n) != 0)
        return;
    for (size_t i = 0; i < n; i++)
        if (e[i].name[0] != '.' && e[i].kind == BUNDLE_SRC_DIR)
            nl_add(out, e[i].name);
    bundle_source_list_free(e, n);
    qsort(out->v, out->n, sizeof *out->v, name_cmp);
}

/* 1 if file is name or <prefix>_name: rocprofv3 names its outputs
 * <output_file>_<name> (docs/formats.md#run-directories), so prose about "results.json" is satisfied
 * by small_results.json. */
static int names_match(const char *file, const char *name)
{
    size_t f = strlen(file), n = strlen(name);
    return strcmp(file, name) == 0 || (f > n + 1 && file[f - n - 1] == '_' && strcmp(file + f - n, name) == 0);
}

/* 1 if a regular file matching name exists in dir or below (depth-limited). */
static int exists_below(const char *dir, const char *name, int depth)
{
    bundle_source_entry *e;
    size_t n;
    if (bundle_source_list(opt_src, dir, &e, &n) != 0)
        return 0;
    int found = 0;
    name_list sub = {0};
    for (size_t i = 0; i < n && !found; i++) {
        if (e[i].name[0] == '.')
            continue;
        if (e[i].kind == BUNDLE_SRC_FILE)
            found = names_match(e[i].name, name);
        else if (depth > 0 && e[i].kind == BUNDLE_SRC_DIR)
            nl_add(&sub, e[i].name);
    }
    bundle_source_list_free(e, n);
    for (size_t i = 0; i < sub.n && !found; i++) {
        char p[PATH_MAX];
        found = exists_below(kr_path_join(p, sizeof p, dir, sub.v[i]), name, depth - 1);
    }
    nl_free(&sub);
    return found;
}

typedef struct readme_ctx {
    const char *root;
    name_list *missing;
} readme_ctx;

static void readme_name(void *ctx, const char *name)
{
    readme_ctx *r = ctx;
    if (!exists_below(r->root, name, 6))
        nl_add(r->missing, name);
}

static char *read_text(const char *path)
{
    bundle_blob b;
    kr_err err;
    kr_err_clear(&err);
    if (bundle_source_kind_of(opt_src, path) != BUNDLE_SRC_FILE ||
        bundle_source_read(opt_src, path, KR_MAX_SMALL_FILE_BYTES, &b, &err))
        return NULL;
    char *text = b.owned ? b.owned : strdup(b.data);
    b.owned = NULL;
    return text;
}

/* Runs the example-folder checks (docs/formats.md#example-folders) on root; caps[] are the facts of
 * ex->captures[]. */
static int validate_example(const char *root, const bundle_example *ex, const an_example_capture *caps,
                            an_validation *v)
{
    char p[PATH_MAX], av[PATH_MAX];
    name_list labels = {0}, missing = {0}, unlabelled = {0}, all = {0};
    subdirs(kr_path_join(av, sizeof av, root, "att_viewer"), &all);
    for (size_t i = 0; i < all.n; i++)
        nl_add(bundle_is_capture_dir_src(opt_src, kr_path_join(p, sizeof p, av, all.v[i])) ? &unlabelled : &labels, all.v[i]);
    nl_free(&all);
    an_example_label *lv = calloc(labels.n ? labels.n : 1, sizeof *lv);
    for (size_t i = 0; lv && i < labels.n; i++) {
        lv[i].label = labels.v[i];
        for (size_t k = 0; k < ex->ncaptures; k++)
            if (ex->captures[k].label && strcmp(ex->captures[k].label, labels.v[i]) == 0)
                lv[i].ncaptures++;
        char name[PATH_MAX], cv[PATH_MAX];
        snprintf(name, sizeof name, "%s_results.json", labels.v[i]);
        kr_path_join(cv, sizeof cv, root, "compute_viewer");
        lv[i].has_results = (uint8_t)(bundle_source_kind_of(opt_src, kr_path_join(p, sizeof p, cv, name)) == BUNDLE_SRC_FILE);
        snprintf(name, sizeof name, "%s_results.db", labels.v[i]);
        if (bundle_source_kind_of(opt_src, kr_path_join(p, sizeof p, cv, name)) == BUNDLE_SRC_FILE)
            lv[i].has_results = 1;
    }
    char *readme = read_text(kr_path_join(p, sizeof p, root, "README.md"));
    char *report = read_text(kr_path_join(p, sizeof p, root, "REPORT.md"));
    if (readme) {
        readme_ctx rc = {root, &missing};
        an_readme_names(readme, readme_name, &rc);
    }
    an_example_facts f = {0};
    f.name = ex->name;
    f.has_readme = (uint8_t)ex->has_readme;
    f.has_report = (uint8_t)ex->has_report;
    f.report_text = report;
    f.labels = lv;
    f.nlabels = lv ? labels.n : 0;
    f.readme_missing = (const char *const *)missing.v;
    f.nreadme_missing = missing.n;
    f.readme_text = readme;
    f.captures = caps;
    f.ncaptures = ex->ncaptures;
    f.unlabelled = (const char *const *)unlabelled.v;
    f.nunlabelled = unlabelled.n;
    an_validate_opts vo = {0};
    vo.max_per_check = opt_max > 0 ? (size_t)opt_max : 0;
    int rc = an_validate_example(&f, &vo, v);
    free(readme);
    free(report);
    free(lv);
    nl_free(&labels);
    nl_free(&missing);
    nl_free(&unlabelled);
    return rc || !lv ? KR_INTERNAL : 0;
}

/* Text lines of one validation into b (quiet: error findings only). */
static void text_lines(kr_buf *b, const char *name, const an_validation *v, int quiet, int summary)
{
    for (size_t i = 0; i < v->nfindings; i++) {
        const an_finding *f = &v->findings[i];
        if (quiet && f->severity != AN_SEV_ERROR)
            continue;
        if (f->location && *f->location)
            kr_buf_printf(b, "%s %s %s: %s\n", an_severity_name(f->severity), f->id, f->location, f->message);
        else
            kr_buf_printf(b, "%s %s %s\n", an_severity_name(f->severity), f->id, f->message);
    }
    if (summary)
        kr_buf_printf(b, "%s: %" PRIu64 " errors, %" PRIu64 " warnings, %" PRIu64 " info\n", name, v->errors,
                      v->warnings, v->infos);
}

static void print_text(const char *name, const an_validation *v, int quiet)
{
    kr_buf b;
    kr_buf_init(&b);
    text_lines(&b, name, v, quiet, 1);
    fputs(kr_buf_cstr(&b), stdout);
    kr_buf_free(&b);
}

/* One element of "captures" or "examples". */
static void json_entry(kr_buf *b, const char *path, const char *name_key, const char *name,
                       const an_validation *v)
{
    kr_buf_puts(b, b->len ? ",\n    {" : "\n    {");
    kr_buf_puts(b, "\"path\": ");
    cli_json_str(b, path);
    kr_buf_printf(b, ", \"%s\": ", name_key);
    cli_json_str(b, name);
    kr_buf_printf(b, ", \"errors\": %" PRIu64 ", \"warnings\": %" PRIu64 ", \"infos\": %" PRIu64
                     ", \"findings\": [", v->errors, v->warnings, v->infos);
    for (size_t i = 0; i < v->nfindings; i++) {
        const an_finding *f = &v->findings[i];
        kr_buf_puts(b, i ? ",\n      {\"id\": " : "\n      {\"id\": ");
        cli_json_str(b, f->id);
        kr_buf_puts(b, ", \"severity\": ");
        cli_json_str(b, an_severity_name(f->severity));
        kr_buf_puts(b, ", \"location\": ");
        cli_json_str(b, f->location);
        kr_buf_puts(b, ", \"message\": ");
        cli_json_str(b, f->message);
        kr_buf_putc(b, '}');
    }
    kr_buf_puts(b, v->nfindings ? "\n    ]}" : "]}");
}

typedef struct run {
    kr_buf captures, examples;   /* JSON elements */
    int any_error;
    kr_buf *sink;                /* cmd_validate_example_errors: error lines go here, nothing printed */
    uint64_t errors;
} run;

/* Prints (or collects) one validation. */
static void emit(run *r, kr_buf *json, const char *path, const char *key, const char *name,
                 const an_validation *v)
{
    r->any_error |= v->errors > 0;
    r->errors += v->errors;
    if (r->sink)
        text_lines(r->sink, name, v, 1, 0);
    else if (opt_json)
        json_entry(json, path, key, name, v);
    else
        print_text(name, v, opt_quiet);
}

/* Loads and validates one capture folder into *c and *v (v to be freed
 * with an_validation_free, c with bundle_capture_free); 0 or the
 * load/internal error. */
static int check_capture(const char *dir, const char *label, kr_capture **c, an_validation *v, kr_err *err)
{
    bundle_opts bo = {0};
    bo.src = opt_src;
    bo.threads = opt_jobs > 0 ? opt_jobs : kr_cpu_count();
    bo.results_path = opt_results;
    bo.label = label;
    *c = NULL;
    memset(v, 0, sizeof *v);
    int rc = bundle_capture_load(dir, &bo, c, err);
    if (rc)
        return rc;
    an_validate_opts vo = {0};
    vo.max_per_check = opt_max > 0 ? (size_t)opt_max : 0;
    vo.target = opt_target;
    if (an_validate(*c, &vo, v)) {
        an_validation_free(v);
        bundle_capture_free(*c);
        *c = NULL;
        return kr_err_set(err, KR_INTERNAL, dir, NULL, "out of memory while validating");
    }
    return 0;
}

/* Validates one capture folder; returns 0 or the load/internal error. */
static int one_capture(run *r, const char *dir, kr_err *err)
{
    kr_capture *c;
    an_validation v;
    int rc = check_capture(dir, NULL, &c, &v, err);
    if (rc)
        return rc;
    emit(r, &r->captures, dir, "folder", c->folder ? c->folder : dir, &v);
    an_validation_free(&v);
    bundle_capture_free(c);
    return 0;
}

/* SHA-256 over the sorted (path, SHA-256) list of a folder's files, read
 * through opt_src (member bytes for an archive): equal digests mean
 * byte-identical folders (V-20b). */
static char *content_digest(kr_arena *a, const char *dir)
{
    cli_pack_list l;
    kr_err e;
    kr_err_clear(&e);
    if (cli_pack_collect_src(opt_src, dir, "", &l, &e))
        return NULL;
    kr_sha256 s;
    kr_sha256_init(&s);
    for (size_t i = 1; i < l.n; i++) {
        kr_sha256_update(&s, l.v[i].path, strlen(l.v[i].path) + 1);
        kr_sha256_update(&s, l.v[i].is_dir ? "dir" : l.v[i].sha256, l.v[i].is_dir ? 3 : 64);
    }
    char hex[KR_SHA256_HEX];
    kr_sha256_hex(&s, hex);
    cli_pack_list_free(&l);
    return kr_arena_strdup(a, hex);
}

/* Adds a GPU agent's handle to list; *match = 1 when it is the capture's. */
static void list_gpu(kr_buf *list, const kr_agent *ag, uint64_t handle, int8_t *match)
{
    if (ag->type != 2)
        return;
    kr_buf_printf(list, "%s%" PRIu64, list->len ? ", " : "", ag->handle);
    if (ag->handle == handle)
        *match = 1;
}

/* The facts V-20a .. V-20f need from one loaded capture (strings in a). */
static void capture_facts(kr_arena *a, const char *root, const char *label, const kr_capture *c,
                          an_example_capture *f)
{
    cli_capture_summary s;
    cli_capture_summarize(c, label, &s);
    memset(f, 0, sizeof *f);
    f->label = kr_arena_strdup(a, label);
    f->folder = kr_arena_strdup(a, s.folder);
    f->shell = s.shell;
    f->waves = s.waves;
    f->records = s.records;
    f->instruction_rows = s.instruction_rows;
    f->mapped_rows = s.mapped_rows;
    f->name_matched = c->name_matched;
    f->agent_handle = c->agent_handle;
    f->workgroups = f->cu_count = -1;
    an_occupancy occ;
    an_occupancy_opts oo = {opt_target};
    if (!s.shell && an_occupancy_compute(c, &oo, &occ) == 0) {
        if (occ.nkernels) {
            f->workgroups = occ.kernels[occ.primary].workgroups;
            f->cu_count = occ.kernels[occ.primary].cu_count;
        }
        f->has_occupancy = occ.achieved.present;
        f->low_fraction = occ.achieved.low_fraction;
        an_occupancy_free(&occ);
    }
    f->content_digest = content_digest(a, c->dir);
    /* docs/formats.md#joining-a-capture: the label's results.json must hold a GPU agent with the handle. */
    char cv[PATH_MAX], name[PATH_MAX], p[PATH_MAX];
    snprintf(name, sizeof name, "%s_results.json", label);
    kr_path_join(p, sizeof p, kr_path_join(cv, sizeof cv, root, "compute_viewer"), name);
    f->results_match = -1;
    kr_results *res = NULL;
    kr_err e;
    kr_err_clear(&e);
    bundle_blob rb = {0};
    if (c->name_matched && bundle_source_kind_of(opt_src, p) == BUNDLE_SRC_FILE &&
        bundle_source_read(opt_src, p, KR_MAX_SMALL_FILE_BYTES, &rb, &e) == 0 &&
        bundle_parse_results(a, rb.data, rb.len, p, &res, &e) == 0 && res) {
        kr_buf list;
        kr_buf_init(&list);
        f->results_match = 0;
        for (size_t i = 0; i < res->nprocs; i++)
            for (size_t k = 0; k < res->procs[i].nagents; k++)
                list_gpu(&list, &res->procs[i].agents[k], c->agent_handle, &f->results_match);
        f->results_agents = kr_arena_strdup(a, kr_buf_cstr(&list));
        kr_buf_free(&list);
    }
    bundle_blob_free(&rb);
    /* Without a results.json, a rocpd <label>_results.db whose agents carry
     * handles is held to the same rule (docs/formats.md#rocpd-databases). */
    snprintf(name, sizeof name, "%s_results.db", label);
    kr_path_join(p, sizeof p, cv, name);
    kr_rocpd *db = NULL;
    if (f->results_match < 0 && c->name_matched && bundle_source_kind_of(opt_src, p) == BUNDLE_SRC_FILE &&
        bundle_load_rocpd_src(a, opt_src, p, &db, &e) == 0 && db->agent_handles) {
        kr_buf list;
        kr_buf_init(&list);
        f->results_match = 0;
        f->results_file = kr_arena_strdup(a, name);
        for (size_t k = 0; k < db->agents->nagents; k++)
            list_gpu(&list, &db->agents->agents[k], c->agent_handle, &f->results_match);
        f->results_agents = kr_arena_strdup(a, kr_buf_cstr(&list));
        kr_buf_free(&list);
    }
}

/* An example folder: its own checks, then every capture in it. Each
 * capture is loaded once: validated, and its facts kept for the example
 * checks, which are reported first. */
static int one_example(run *r, const char *root, kr_err *err)
{
    bundle_example *ex;
    int rc = bundle_example_scan_src(opt_src, root, &ex, err);
    if (rc)
        return rc;
    size_t n = ex->ncaptures, done = 0;
    kr_arena a;
    kr_arena_init(&a);
    an_validation *cv = calloc(n ? n : 1, sizeof *cv);
    an_example_capture *facts = calloc(n ? n : 1, sizeof *facts);
    const char **names = calloc(n ? n : 1, sizeof *names);
    if (!cv || !facts || !names)
        rc = kr_err_set(err, KR_INTERNAL, root, NULL, "out of memory");
    for (; done < n && !rc; done++) {
        kr_capture *c;
        if ((rc = check_capture(ex->captures[done].dir, ex->captures[done].label, &c, &cv[done], err)))
            break;
        capture_facts(&a, root, ex->captures[done].label, c, &facts[done]);
        names[done] = kr_arena_strdup(&a, c->folder ? c->folder : ex->captures[done].dir);
        bundle_capture_free(c);
    }
    if (!rc) {
        an_validation v;
        if (validate_example(root, ex, facts, &v))
            rc = kr_err_set(err, KR_INTERNAL, root, NULL, "out of memory while validating");
        else
            emit(r, &r->examples, root, "name", ex->name, &v);
        an_validation_free(&v);
        for (size_t i = 0; i < n && !rc; i++)
            emit(r, &r->captures, ex->captures[i].dir, "folder", names[i], &cv[i]);
    }
    for (size_t i = 0; i < done && cv; i++)
        an_validation_free(&cv[i]);
    free(cv);
    free(facts);
    free(names);
    kr_arena_free(&a);
    bundle_example_free(ex);
    return rc;
}

int cmd_validate_example_errors(const char *root, int jobs, kr_buf *lines, uint64_t *errors, kr_err *err)
{
    opt_json = opt_quiet = opt_max = 0;
    opt_jobs = jobs;
    opt_results = opt_target = NULL;
    opt_src = NULL;
    run r;
    memset(&r, 0, sizeof r);
    r.sink = lines;
    int rc = one_example(&r, root, err);
    *errors = r.errors;
    return rc;
}

int cmd_validate(int argc, char **argv)
{
    const cli_command *cmd = cli_find("validate");
    char *pos[MAX_PATHS];
    int npos = 0, exit_code = 0;
    opt_json = opt_quiet = opt_jobs = opt_max = 0;
    opt_results = opt_target = NULL;
    if (cli_parse(cmd, cmd_validate_options, argc, argv, pos, &npos, MAX_PATHS, &exit_code))
        return exit_code;
    if (npos == 0) {
        cli_usage_error(cmd, "missing PATH");
        return KR_USAGE;
    }

    kr_err err;
    kr_err_clear(&err);
    run r;
    memset(&r, 0, sizeof r);
    kr_buf_init(&r.captures);
    kr_buf_init(&r.examples);
    int rc = 0;
    for (int i = 0; i < npos && !rc; i++) {
        /* PATH may be an archive: read in memory, its folder validated. */
        bundle_input in;
        if ((rc = bundle_input_open(pos[i], &in, &err)))
            break;
        opt_src = in.src;
        /* An example folder stands for itself and its captures; anything
         * else is a capture folder (the loader says what is wrong with it). */
        if (!bundle_is_capture_dir_src(in.src, in.root) && bundle_is_example_dir_src(in.src, in.root))
            rc = one_example(&r, in.root, &err);
        else
            rc = one_capture(&r, in.root, &err);
        opt_src = NULL;
        bundle_input_close(&in);
    }
    if (!rc && opt_json) {
        kr_buf out;
        kr_buf_init(&out);
        kr_buf_puts(&out, "{\"schema\": \"kreport.validate\", \"schema_version\": 1, \"captures\": [");
        kr_buf_puts(&out, kr_buf_cstr(&r.captures));
        kr_buf_puts(&out, r.captures.len ? "\n], \"examples\": [" : "], \"examples\": [");
        kr_buf_puts(&out, kr_buf_cstr(&r.examples));
        kr_buf_puts(&out, r.examples.len ? "\n]}\n" : "]}\n");
        if (out.oom || r.captures.oom || r.examples.oom)
            rc = kr_err_set(&err, KR_INTERNAL, NULL, NULL, "out of memory");
        else
            fputs(kr_buf_cstr(&out), stdout);
        kr_buf_free(&out);
    }
    kr_buf_free(&r.captures);
    kr_buf_free(&r.examples);
    fflush(stdout);
    if (rc) {
        char msg[2048];
        kr_err_format(&err, msg, sizeof msg);
        fprintf(stderr, "%s: %s\n", cli_progname, msg);
        return rc;
    }
    return r.any_error ? KR_FINDING : KR_OK;
}
