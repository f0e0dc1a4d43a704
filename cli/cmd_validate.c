/* cmd_validate.c — `kreport validate PATH...`: loads each capture (or, for an
 * example folder, checks the folder itself [V-20, V-22] and then every
 * capture in it) and prints the §13 findings of analyzer/validate.c, as text
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

#include "analyzer/validate.h"
#include "bundle/capture.h"
#include "bundle/discover.h"
#include "cli/commands.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/file.h"
#include "common/limits.h"
#include "common/pool.h"

static int opt_json, opt_quiet, opt_jobs, opt_max;
static const char *opt_results, *opt_target;

const cli_opt cmd_validate_options[] = {
    {"json", 0, OPT_FLAG, NULL, "print one JSON object (schema kreport.validate) instead of text", &opt_json},
    {"quiet", 'q', OPT_FLAG, NULL, "print only error findings (and the summary lines)", &opt_quiet},
    {"results", 0, OPT_STRING, "FILE", "results.json to join instead of searching beside the capture", &opt_results},
    {"target", 0, OPT_STRING, "NAME", "GPU target (e.g. gfx950) instead of detecting it (FORMATS §12.6)", &opt_target},
    {"jobs", 'j', OPT_INT, "N", "wave-file parser threads (default: online CPUs)", &opt_jobs},
    {"max", 0, OPT_INT, "N", "occurrences listed per check and severity (default 20; 0 = default)", &opt_max},
    {0},
};

#define MAX_PATHS 256

/* JSON string literal of s. */
static void json_str(kr_buf *b, const char *s)
{
    kr_buf_putc(b, '"');
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"': kr_buf_puts(b, "\\\""); break;
        case '\\': kr_buf_puts(b, "\\\\"); break;
        case '\n': kr_buf_puts(b, "\\n"); break;
        case '\r': kr_buf_puts(b, "\\r"); break;
        case '\t': kr_buf_puts(b, "\\t"); break;
        default:
            if (*p < 0x20)
                kr_buf_printf(b, "\\u%04x", *p);
            else
                kr_buf_putc(b, (char)*p);
        }
    }
    kr_buf_putc(b, '"');
}

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
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char p[PATH_MAX];
        if (e->d_name[0] == '.')
            continue;
        if (kr_is_dir(kr_path_join(p, sizeof p, dir, e->d_name)))
            nl_add(out, e->d_name);
    }
    closedir(d);
    qsort(out->v, out->n, sizeof *out->v, name_cmp);
}

/* 1 if file is name or <prefix>_name: rocprofv3 names its outputs
 * <output_file>_<name> (§11.1), so prose about "results.json" is satisfied
 * by small_results.json. */
static int names_match(const char *file, const char *name)
{
    size_t f = strlen(file), n = strlen(name);
    return strcmp(file, name) == 0 || (f > n + 1 && file[f - n - 1] == '_' && strcmp(file + f - n, name) == 0);
}

/* 1 if a regular file matching name exists in dir or below (depth-limited). */
static int exists_below(const char *dir, const char *name, int depth)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int found = 0;
    name_list sub = {0};
    struct dirent *e;
    while (!found && (e = readdir(d)) != NULL) {
        char p[PATH_MAX];
        if (e->d_name[0] == '.')
            continue;
        kr_path_join(p, sizeof p, dir, e->d_name);
        if (kr_is_regular(p))
            found = names_match(e->d_name, name);
        else if (depth > 0 && kr_is_dir(p))
            nl_add(&sub, e->d_name);
    }
    closedir(d);
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
    char *data = NULL;
    size_t len;
    kr_err err;
    kr_err_clear(&err);
    if (!kr_is_regular(path) || kr_file_read(path, KR_MAX_SMALL_FILE_BYTES, &data, &len, &err))
        return NULL;
    return data;
}

/* Runs the example-folder checks (§11.2) on root. */
static int validate_example(const char *root, const bundle_example *ex, an_validation *v)
{
    char p[PATH_MAX], av[PATH_MAX];
    name_list labels = {0}, missing = {0};
    subdirs(kr_path_join(av, sizeof av, root, "att_viewer"), &labels);
    an_example_label *lv = calloc(labels.n ? labels.n : 1, sizeof *lv);
    for (size_t i = 0; lv && i < labels.n; i++) {
        lv[i].label = labels.v[i];
        for (size_t k = 0; k < ex->ncaptures; k++)
            if (ex->captures[k].label && strcmp(ex->captures[k].label, labels.v[i]) == 0)
                lv[i].ncaptures++;
        char name[PATH_MAX], cv[PATH_MAX];
        snprintf(name, sizeof name, "%s_results.json", labels.v[i]);
        kr_path_join(cv, sizeof cv, root, "compute_viewer");
        lv[i].has_results = (uint8_t)kr_is_regular(kr_path_join(p, sizeof p, cv, name));
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
    an_validate_opts vo = {0};
    vo.max_per_check = opt_max > 0 ? (size_t)opt_max : 0;
    int rc = an_validate_example(&f, &vo, v);
    free(readme);
    free(report);
    free(lv);
    nl_free(&labels);
    nl_free(&missing);
    return rc || !lv ? KR_INTERNAL : 0;
}

static void print_text(const char *name, const an_validation *v, int quiet)
{
    for (size_t i = 0; i < v->nfindings; i++) {
        const an_finding *f = &v->findings[i];
        if (quiet && f->severity != AN_SEV_ERROR)
            continue;
        if (f->location && *f->location)
            printf("%s %s %s: %s\n", an_severity_name(f->severity), f->id, f->location, f->message);
        else
            printf("%s %s %s\n", an_severity_name(f->severity), f->id, f->message);
    }
    printf("%s: %" PRIu64 " errors, %" PRIu64 " warnings, %" PRIu64 " info\n", name, v->errors, v->warnings,
           v->infos);
}

/* One element of "captures" or "examples". */
static void json_entry(kr_buf *b, const char *path, const char *name_key, const char *name,
                       const an_validation *v)
{
    kr_buf_puts(b, b->len ? ",\n    {" : "\n    {");
    kr_buf_puts(b, "\"path\": ");
    json_str(b, path);
    kr_buf_printf(b, ", \"%s\": ", name_key);
    json_str(b, name);
    kr_buf_printf(b, ", \"errors\": %" PRIu64 ", \"warnings\": %" PRIu64 ", \"infos\": %" PRIu64
                     ", \"findings\": [", v->errors, v->warnings, v->infos);
    for (size_t i = 0; i < v->nfindings; i++) {
        const an_finding *f = &v->findings[i];
        kr_buf_puts(b, i ? ",\n      {\"id\": " : "\n      {\"id\": ");
        json_str(b, f->id);
        kr_buf_puts(b, ", \"severity\": ");
        json_str(b, an_severity_name(f->severity));
        kr_buf_puts(b, ", \"location\": ");
        json_str(b, f->location);
        kr_buf_puts(b, ", \"message\": ");
        json_str(b, f->message);
        kr_buf_putc(b, '}');
    }
    kr_buf_puts(b, v->nfindings ? "\n    ]}" : "]}");
}

typedef struct run {
    kr_buf captures, examples;   /* JSON elements */
    int any_error;
} run;

/* Validates one capture folder; returns 0 or the load/internal error. */
static int one_capture(run *r, const char *dir, const char *label, kr_err *err)
{
    bundle_opts bo = {0};
    bo.threads = opt_jobs > 0 ? opt_jobs : kr_cpu_count();
    bo.results_path = opt_results;
    bo.label = label;
    kr_capture *c = NULL;
    int rc = bundle_capture_load(dir, &bo, &c, err);
    if (rc)
        return rc;
    an_validate_opts vo = {0};
    vo.max_per_check = opt_max > 0 ? (size_t)opt_max : 0;
    vo.target = opt_target;
    an_validation v;
    if (an_validate(c, &vo, &v)) {
        rc = kr_err_set(err, KR_INTERNAL, dir, NULL, "out of memory while validating");
    } else {
        r->any_error |= v.errors > 0;
        if (opt_json)
            json_entry(&r->captures, dir, "folder", c->folder, &v);
        else
            print_text(c->folder ? c->folder : dir, &v, opt_quiet);
    }
    an_validation_free(&v);
    bundle_capture_free(c);
    return rc;
}

/* An example folder: its own checks, then every capture in it. */
static int one_example(run *r, const char *root, kr_err *err)
{
    bundle_example *ex;
    int rc = bundle_example_scan(root, &ex, err);
    if (rc)
        return rc;
    an_validation v;
    if (validate_example(root, ex, &v)) {
        rc = kr_err_set(err, KR_INTERNAL, root, NULL, "out of memory while validating");
    } else {
        r->any_error |= v.errors > 0;
        if (opt_json)
            json_entry(&r->examples, root, "name", ex->name, &v);
        else
            print_text(ex->name, &v, opt_quiet);
    }
    an_validation_free(&v);
    for (size_t i = 0; i < ex->ncaptures && !rc; i++)
        rc = one_capture(r, ex->captures[i].dir, ex->captures[i].label, err);
    bundle_example_free(ex);
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
        /* An example folder stands for itself and its captures; anything
         * else is a capture folder (the loader says what is wrong with it). */
        if (!bundle_is_capture_dir(pos[i]) && bundle_is_example_dir(pos[i]))
            rc = one_example(&r, pos[i], &err);
        else
            rc = one_capture(&r, pos[i], NULL, &err);
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
