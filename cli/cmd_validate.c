/* cmd_validate.c — `kreport validate PATH...`: loads each capture (or every
 * capture of an example folder) and prints the §13 findings of
 * analyzer/validate.c, as text lines or one JSON object.
 *
 * Exit: 0 no error finding, 1 some error finding, 2 usage, 3 a file could not
 * be read at all (load error, printed as "kreport: <file>:<where>: <msg>"),
 * 5 internal. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/validate.h"
#include "bundle/capture.h"
#include "bundle/discover.h"
#include "cli/commands.h"
#include "common/buf.h"
#include "common/err.h"
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

/* One capture to check: its folder and example label (or NULL). */
typedef struct target_dir {
    char *dir;
    char *label;
} target_dir;

/* Expands an example folder into its captures; anything else is taken as a
 * capture folder (the loader reports what is wrong with it). */
static int expand(const char *path, target_dir **list, size_t *n, size_t *cap, kr_err *err)
{
    if (!bundle_is_capture_dir(path) && bundle_is_example_dir(path)) {
        bundle_example *ex;
        int rc = bundle_example_scan(path, &ex, err);
        if (rc)
            return rc;
        for (size_t i = 0; i < ex->ncaptures; i++) {
            if (*n == *cap) {
                *cap = *cap ? *cap * 2 : 8;
                target_dir *nl = realloc(*list, *cap * sizeof **list);
                if (!nl) {
                    bundle_example_free(ex);
                    return kr_err_set(err, KR_INTERNAL, path, NULL, "out of memory");
                }
                *list = nl;
            }
            (*list)[*n].dir = strdup(ex->captures[i].dir);
            (*list)[*n].label = ex->captures[i].label ? strdup(ex->captures[i].label) : NULL;
            (*n)++;
        }
        bundle_example_free(ex);
        return 0;
    }
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        target_dir *nl = realloc(*list, *cap * sizeof **list);
        if (!nl)
            return kr_err_set(err, KR_INTERNAL, path, NULL, "out of memory");
        *list = nl;
    }
    (*list)[*n].dir = strdup(path);
    (*list)[*n].label = NULL;
    (*n)++;
    return 0;
}

static void print_text(const kr_capture *c, const an_validation *v, int quiet)
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
    printf("%s: %" PRIu64 " errors, %" PRIu64 " warnings, %" PRIu64 " info\n", c->folder ? c->folder : c->dir,
           v->errors, v->warnings, v->infos);
}

static void json_capture(kr_buf *b, const kr_capture *c, const char *path, const an_validation *v, int first)
{
    kr_buf_puts(b, first ? "\n    {" : ",\n    {");
    kr_buf_puts(b, "\"path\": ");
    json_str(b, path);
    kr_buf_puts(b, ", \"folder\": ");
    json_str(b, c->folder);
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
    target_dir *list = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (int i = 0; i < npos && !rc; i++)
        rc = expand(pos[i], &list, &n, &cap, &err);

    kr_buf json;
    kr_buf_init(&json);
    kr_buf_puts(&json, "{\"schema\": \"kreport.validate\", \"schema_version\": 1, \"captures\": [");
    int any_error = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        bundle_opts bo = {0};
        bo.threads = opt_jobs > 0 ? opt_jobs : kr_cpu_count();
        bo.results_path = opt_results;
        bo.label = list[i].label;
        kr_capture *c = NULL;
        rc = bundle_capture_load(list[i].dir, &bo, &c, &err);
        if (rc)
            break;
        an_validate_opts vo = {0};
        vo.max_per_check = opt_max > 0 ? (size_t)opt_max : 0;
        vo.target = opt_target;
        an_validation v;
        int vrc = an_validate(c, &vo, &v);
        if (vrc) {
            kr_err_set(&err, KR_INTERNAL, list[i].dir, NULL, "out of memory while validating");
            rc = KR_INTERNAL;
        } else {
            if (v.errors)
                any_error = 1;
            if (opt_json)
                json_capture(&json, c, list[i].dir, &v, i == 0);
            else
                print_text(c, &v, opt_quiet);
        }
        an_validation_free(&v);
        bundle_capture_free(c);
    }
    if (!rc && opt_json) {
        kr_buf_puts(&json, n ? "\n]}\n" : "]}\n");
        if (json.oom) {
            kr_err_set(&err, KR_INTERNAL, NULL, NULL, "out of memory");
            rc = KR_INTERNAL;
        } else {
            fputs(kr_buf_cstr(&json), stdout);
        }
    }
    kr_buf_free(&json);
    for (size_t i = 0; i < n; i++) {
        free(list[i].dir);
        free(list[i].label);
    }
    free(list);
    fflush(stdout);
    if (rc) {
        char msg[2048];
        kr_err_format(&err, msg, sizeof msg);
        fprintf(stderr, "%s: %s\n", cli_progname, msg);
        return rc;
    }
    return any_error ? KR_FINDING : KR_OK;
}
