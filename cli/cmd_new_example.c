/* cmd_new_example.c — `kreport new-example RUN_DIR -o EXAMPLE_DIR`: turns a
 * rocprofv3 run directory (FORMATS §11.1) into the canonical example layout
 * (§11.2, hub AGENTS.md "Output structure"):
 *
 *   att_viewer/<label>/ui_output_*            every capture with waves (empty
 *                                             shells are dropped and named)
 *   att_viewer/<label>/stats_ui_output_*.csv  the per-capture stats CSVs (§2.6)
 *   compute_viewer/<label>_results.json       the run's results.json whose GPU
 *                                             agents hold the captures' handle
 *   compute_viewer/<label>_<kind>.csv         the run's rocprofv3 CSVs (§10),
 *                                             by content: agent_info, ...
 *   compute_viewer/discover_*.csv             discovery CSVs, names kept
 *   README.md                                 file list and naming note
 *   REPORT.md                                 `kreport analyze EXAMPLE --format md`
 *
 * Content decides (a folder with filenames.json is a capture, a JSON with
 * "rocprofiler-sdk-tool" a results.json, a CSV its header), never names,
 * except the stats_ and discover_ prefixes that keep their meaning. The
 * example is built in a temporary folder beside EXAMPLE_DIR and renamed into
 * place at the end; a failure leaves nothing. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/capture.h"
#include "bundle/csv.h"
#include "bundle/load_csv.h"
#include "bundle/load_results.h"
#include "cli/commands.h"
#include "cli/pack.h"
#include "common/arena.h"
#include "common/buf.h"
#include "common/file.h"
#include "common/limits.h"
#include "common/outfile.h"
#include "common/pool.h"

#define PATH_CAP 4096
#define MAX_DEPTH 8

static struct {
    const char *output, *name, *label;
    int force, quiet, jobs;
} o;

const cli_opt cmd_new_example_options[] = {
    {"output", 'o', OPT_STRING, "DIR", "the example folder to create (required)", &o.output},
    {"name", 0, OPT_STRING, "KERNEL", "kernel named in README.md (default: the first capture's kernel symbol)", &o.name},
    {"label", 0, OPT_STRING, "LABEL", "capture label, e.g. small or big (default: the run directory's name)", &o.label},
    {"force", 0, OPT_FLAG, NULL, "replace an existing EXAMPLE_DIR", &o.force},
    {"jobs", 'j', OPT_INT, "N", "threads for parsing and analysis (default: online CPUs)", &o.jobs},
    {"quiet", 'q', OPT_FLAG, NULL, "print nothing but errors", &o.quiet},
    {0},
};

typedef struct found {
    char **captures; size_t ncaptures;   /* capture folders (paths) */
    char **files; size_t nfiles;         /* *.csv and *.json outside captures */
} found;

static int push(char ***v, size_t *n, const char *s)
{
    char **g = realloc(*v, (*n + 1) * sizeof *g);
    if (!g)
        return -1;
    *v = g;
    if (!(g[*n] = strdup(s)))
        return -1;
    (*n)++;
    return 0;
}

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Walks the run directory in byte order without following links. */
static int walk(const char *dir, int depth, found *f, kr_err *err)
{
    if (depth > MAX_DEPTH)
        return 0;
    DIR *d = opendir(dir);
    if (!d)
        return kr_err_set(err, KR_INPUT, dir, NULL, "cannot open directory: %s", strerror(errno));
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' && push(&names, &n, e->d_name)) {
            closedir(d);
            free_list(names, n);
            return kr_err_set(err, KR_INTERNAL, dir, NULL, "out of memory");
        }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, str_cmp);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        char p[PATH_CAP];
        kr_path_join(p, sizeof p, dir, names[i]);
        struct stat st;
        if (lstat(p, &st) != 0 || S_ISLNK(st.st_mode))
            continue;
        if (S_ISDIR(st.st_mode)) {
            if (bundle_is_capture_dir(p))
                rc = push(&f->captures, &f->ncaptures, p) ? KR_INTERNAL : 0;
            else
                rc = walk(p, depth + 1, f, err);
        } else if (S_ISREG(st.st_mode) && (ends_with(names[i], ".csv") || ends_with(names[i], ".json"))) {
            rc = push(&f->files, &f->nfiles, p) ? KR_INTERNAL : 0;
        }
    }
    free_list(names, n);
    if (rc == KR_INTERNAL && !err->code)
        kr_err_set(err, KR_INTERNAL, dir, NULL, "out of memory");
    return rc;
}

/* Copies one regular file (mode 0644, or 0755 when it was executable). */
static int copy_file(const char *src, const char *dst, kr_err *err)
{
    int in = open(src, O_RDONLY | O_NONBLOCK);
    if (in < 0)
        return kr_err_set(err, KR_INPUT, src, NULL, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(in, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(in);
        return kr_err_set(err, KR_INPUT, src, NULL, "not a regular file");
    }
    int out = open(dst, O_WRONLY | O_CREAT | O_EXCL, (st.st_mode & 0111) ? 0755 : 0644);
    if (out < 0) {
        close(in);
        return kr_err_set(err, KR_OUTPUT, dst, NULL, "cannot create: %s", strerror(errno));
    }
    char buf[1 << 16];
    int rc = 0;
    for (;;) {
        ssize_t r = read(in, buf, sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = kr_err_set(err, KR_INPUT, src, NULL, "read failed: %s", strerror(errno));
            break;
        }
        if (r == 0)
            break;
        for (ssize_t w = 0; w < r;) {
            ssize_t k = write(out, buf + w, (size_t)(r - w));
            if (k < 0 && errno == EINTR)
                continue;
            if (k < 0) {
                rc = kr_err_set(err, KR_OUTPUT, dst, NULL, "write failed: %s", strerror(errno));
                break;
            }
            w += k;
        }
        if (rc)
            break;
    }
    close(in);
    if (close(out) != 0 && !rc)
        rc = kr_err_set(err, KR_OUTPUT, dst, NULL, "write failed: %s", strerror(errno));
    return rc;
}

/* Copies a capture folder: regular files and subfolders; links refused. */
static int copy_tree(const char *src, const char *dst, kr_err *err)
{
    if (mkdir(dst, 0755) != 0)
        return kr_err_set(err, KR_OUTPUT, dst, NULL, "cannot create directory: %s", strerror(errno));
    cli_pack_list l;
    int rc = cli_pack_collect(src, "", &l, err);
    for (size_t i = 1; i < l.n && !rc; i++) {
        char p[PATH_CAP];
        snprintf(p, sizeof p, "%s%s", dst, l.v[i].path);
        if (l.v[i].is_dir) {
            if (mkdir(p, 0755) != 0)
                rc = kr_err_set(err, KR_OUTPUT, p, NULL, "cannot create directory: %s", strerror(errno));
        } else {
            rc = copy_file(l.v[i].src, p, err);
        }
    }
    cli_pack_list_free(&l);
    return rc;
}

typedef struct kept {
    char folder[512];
    uint64_t agent, waves, records, mapped, rows;
    char kernel[512];
} kept;

/* README.md: what is here, the dispatch naming note, what was dropped. */
static void write_readme(kr_buf *b, const char *kernel, const char *label, const kept *k, size_t nk,
                         char **dropped, size_t ndropped, char **placed, size_t nplaced)
{
    kr_buf_printf(b, "# %s — rocprofv3 trace bundle\n\n", kernel);
    kr_buf_puts(b, "Laid out by `kreport new-example` from one rocprofv3 run directory, in the hub's\n"
                   "canonical example layout. `REPORT.md` is `kreport analyze` of this folder;\n"
                   "replace or extend it with the written analysis.\n\n## Captures\n\n"
                   "| folder | waves | records | mapped rows |\n|---|---|---|---|\n");
    for (size_t i = 0; i < nk; i++)
        kr_buf_printf(b, "| `att_viewer/%s/%s/` | %" PRIu64 " | %" PRIu64 " | %" PRIu64 "/%" PRIu64 " |\n", label,
                      k[i].folder, k[i].waves, k[i].records, k[i].mapped, k[i].rows);
    kr_buf_puts(b, "\n## Files\n\n");
    for (size_t i = 0; i < nplaced; i++)
        kr_buf_printf(b, "- `%s`\n", placed[i]);
    if (ndropped) {
        kr_buf_puts(b, "\nDropped empty-shell capture folders (no waves; rocprofv3 reserves the slot\n"
                       "before tracing starts):");
        for (size_t i = 0; i < ndropped; i++)
            kr_buf_printf(b, " `%s`", dropped[i]);
        kr_buf_puts(b, ".\n");
    }
    kr_buf_puts(b, "\n## Dispatch naming\n\n"
                   "Capture folders are named `ui_output_agent_<H>_dispatch_<D>`: `<H>` is the\n"
                   "rocprofiler agent handle of the GPU (not a process id; it joins the capture to\n"
                   "`agents[].id.handle` in the run's results.json) and `<D>` the process-wide\n"
                   "dispatch id, which also counts kernels that were not traced.\n");
}

static int fail(const kr_err *err)
{
    char msg[2048];
    kr_err_format(err, msg, sizeof msg);
    fprintf(stderr, "kreport new-example: %s\n", msg);
    return err->code ? err->code : KR_INTERNAL;
}

/* REPORT.md of the staged example through `kreport analyze`, run from the
 * staging folder so the report names the example, not the temporary path. */
static int write_report(const char *stage_parent, const char *name, kr_err *err)
{
    int cwd = open(".", O_RDONLY | O_DIRECTORY);
    if (cwd < 0 || chdir(stage_parent) != 0) {
        if (cwd >= 0)
            close(cwd);
        return kr_err_set(err, KR_OUTPUT, stage_parent, NULL, "cannot enter: %s", strerror(errno));
    }
    char jobs[32];
    snprintf(jobs, sizeof jobs, "%d", o.jobs > 0 ? o.jobs : kr_cpu_count());
    char *argv[] = {"analyze", (char *)name, "--format", "md", "-o", (char *)name, "-q", "-j", jobs, NULL};
    int rc = cmd_analyze(9, argv);
    if (fchdir(cwd) != 0 && !rc)
        rc = KR_INTERNAL;
    close(cwd);
    if (rc)
        kr_err_set(err, rc, name, NULL, "writing REPORT.md with kreport analyze failed (see above)");
    return rc;
}

int cmd_new_example(int argc, char **argv)
{
    memset(&o, 0, sizeof o);
    const cli_command *cmd = cli_find("new-example");
    char *pos[2];
    int npos, code;
    if (cli_parse(cmd, cmd_new_example_options, argc, argv, pos, &npos, 2, &code))
        return code;
    if (npos != 1) {
        cli_usage_error(cmd, npos ? "expects exactly one RUN_DIR" : "missing RUN_DIR");
        return KR_USAGE;
    }
    if (!o.output) {
        cli_usage_error(cmd, "missing -o EXAMPLE_DIR");
        return KR_USAGE;
    }
    char run[PATH_CAP], out[PATH_CAP];
    snprintf(run, sizeof run, "%s", pos[0]);
    snprintf(out, sizeof out, "%s", o.output);
    for (size_t n = strlen(run); n > 1 && run[n - 1] == '/';)
        run[--n] = '\0';
    for (size_t n = strlen(out); n > 1 && out[n - 1] == '/';)
        out[--n] = '\0';
    const char *label = o.label ? o.label : kr_path_base(run);
    if (!*label || strchr(label, '/') || strcmp(label, ".") == 0 || strcmp(label, "..") == 0) {
        cli_usage_error(cmd, "--label must be a plain folder name, not '%s'", label);
        return KR_USAGE;
    }
    kr_err err;
    kr_err_clear(&err);
    if (!kr_is_dir(run)) {
        kr_err_set(&err, KR_INPUT, run, NULL, "not a directory");
        return fail(&err);
    }
    struct stat st;
    if (lstat(out, &st) == 0 && !o.force) {
        kr_err_set(&err, KR_OUTPUT, out, NULL, "exists; use --force to replace it");
        return fail(&err);
    }

    found f = {0};
    int rc = walk(run, 0, &f, &err);
    if (!rc && f.ncaptures == 0)
        rc = kr_err_set(&err, KR_INPUT, run, NULL,
                        "no capture folder (a folder with filenames.json, FORMATS §1.1) in the run directory");
    if (rc) {
        free_list(f.captures, f.ncaptures);
        free_list(f.files, f.nfiles);
        return fail(&err);
    }

    char parent[PATH_CAP], tmp[PATH_CAP], stage[PATH_CAP], p[PATH_CAP], q[PATH_CAP];
    cli_path_parent(out, parent, sizeof parent);
    const char *ename = kr_path_base(out);
    kr_arena a;
    kr_arena_init(&a);
    kept *k = calloc(f.ncaptures, sizeof *k);
    char **dropped = NULL, **placed = NULL;
    size_t ndropped = 0, nkept = 0, nplaced = 0;
    kr_buf readme;
    kr_buf_init(&readme);
    int staged = 0;
    if (!k) {
        rc = kr_err_set(&err, KR_INTERNAL, NULL, NULL, "out of memory");
        goto done;
    }
    if ((rc = kr_mkdir_p(parent, &err)) || (rc = cli_temp_dir(parent, "new", tmp, sizeof tmp, &err)))
        goto done;
    staged = 1;
    kr_path_join(stage, sizeof stage, tmp, ename);
    char av[PATH_CAP], lv[PATH_CAP], cv[PATH_CAP];
    kr_path_join(av, sizeof av, stage, "att_viewer");
    kr_path_join(lv, sizeof lv, av, label);
    kr_path_join(cv, sizeof cv, stage, "compute_viewer");
    if (mkdir(stage, 0755) || mkdir(av, 0755) || mkdir(lv, 0755) || mkdir(cv, 0755)) {
        rc = kr_err_set(&err, KR_OUTPUT, stage, NULL, "cannot create directory: %s", strerror(errno));
        goto done;
    }

    /* Captures: keep those with waves. */
    for (size_t i = 0; i < f.ncaptures && !rc; i++) {
        const char *folder = kr_path_base(f.captures[i]);
        bundle_opts bo = {0};
        bo.threads = o.jobs > 0 ? o.jobs : kr_cpu_count();
        bo.no_discover = 1;
        bo.skip_wstates = 1;
        kr_capture *c;
        if ((rc = bundle_capture_load(f.captures[i], &bo, &c, &err)))
            break;
        cli_capture_summary s;
        cli_capture_summarize(c, label, &s);
        if (s.shell) {
            rc = push(&dropped, &ndropped, folder) ? kr_err_set(&err, KR_INTERNAL, NULL, NULL, "out of memory") : 0;
            if (!o.quiet)
                fprintf(stderr, "kreport new-example: dropped %s: empty shell (no waves)\n", f.captures[i]);
        } else {
            kept *e = &k[nkept++];
            snprintf(e->folder, sizeof e->folder, "%s", folder);
            snprintf(e->kernel, sizeof e->kernel, "%s", s.kernel);
            e->agent = c->agent_handle;
            e->waves = s.waves;
            e->records = s.records;
            e->mapped = s.mapped_rows;
            e->rows = s.instruction_rows;
            snprintf(q, sizeof q, "att_viewer/%s/%s/", label, folder);
            if (!(rc = copy_tree(f.captures[i], kr_path_join(p, sizeof p, lv, folder), &err)) &&
                push(&placed, &nplaced, q))
                rc = kr_err_set(&err, KR_INTERNAL, NULL, NULL, "out of memory");
        }
        bundle_capture_free(c);
    }
    if (!rc && nkept == 0)
        rc = kr_err_set(&err, KR_INPUT, run, NULL,
                        "every capture folder is an empty shell (no waves): nothing to publish; re-capture "
                        "(hub AGENTS.md Gotcha 3)");

    /* results.json, CSVs. */
    int have_results = 0;
    for (size_t i = 0; i < f.nfiles && !rc; i++) {
        const char *base = kr_path_base(f.files[i]);
        char dest[PATH_CAP] = "";
        if (ends_with(base, ".json")) {
            kr_results *r = NULL;
            char *data = NULL;
            size_t len = 0;
            kr_err e2;
            kr_err_clear(&e2);
            if (have_results || kr_file_read(f.files[i], KR_MAX_SMALL_FILE_BYTES, &data, &len, &e2))
                continue;
            int is_results = bundle_results_sniff(data, len);
            free(data);
            if (!is_results)
                continue;
            if ((rc = bundle_load_results(&a, f.files[i], &r, &err)))
                break;
            int match = 0;
            for (size_t c = 0; c < nkept && !match; c++)
                match = bundle_results_find_agent(r, k[c].agent) != NULL;
            if (!match) {
                if (!o.quiet)
                    fprintf(stderr, "kreport new-example: skipped %s: no GPU agent with a captured handle\n",
                            f.files[i]);
                continue;
            }
            have_results = 1;
            snprintf(dest, sizeof dest, "compute_viewer/%s_results.json", label);
        } else if (strncmp(base, "stats_", 6) == 0) {
            for (size_t c = 0; c < nkept; c++) {
                char want[600];
                snprintf(want, sizeof want, "stats_%s.csv", k[c].folder);
                if (strcmp(base, want) == 0)
                    snprintf(dest, sizeof dest, "att_viewer/%s/%s", label, base);
            }
        } else if (strncmp(base, "discover_", 9) == 0) {
            snprintf(dest, sizeof dest, "compute_viewer/%s", base);
        } else {
            bundle_csv t;
            kr_err e2;
            kr_err_clear(&e2);
            if (bundle_csv_load(&a, f.files[i], &t, &e2))
                continue;
            bundle_csv_type kind = bundle_csv_kind_of(&t, base);
            if (kind == BUNDLE_CSV_UNKNOWN)
                continue;
            snprintf(dest, sizeof dest, "compute_viewer/%s_%s.csv", label, bundle_csv_type_name(kind));
        }
        if (!*dest)
            continue;
        kr_path_join(p, sizeof p, stage, dest);
        if (kr_file_exists(p)) {
            if (!o.quiet)
                fprintf(stderr, "kreport new-example: skipped %s: %s is already taken\n", f.files[i], dest);
            continue;
        }
        if (!(rc = copy_file(f.files[i], p, &err)) && push(&placed, &nplaced, dest))
            rc = kr_err_set(&err, KR_INTERNAL, NULL, NULL, "out of memory");
    }
    if (rc)
        goto done;
    if (!have_results && !o.quiet)
        fprintf(stderr, "kreport new-example: no results.json with the captures' agent handle in %s\n", run);

    if (push(&placed, &nplaced, "REPORT.md")) {
        rc = kr_err_set(&err, KR_INTERNAL, NULL, NULL, "out of memory");
        goto done;
    }
    qsort(placed, nplaced, sizeof *placed, str_cmp);
    write_readme(&readme, o.name ? o.name : *k[0].kernel ? k[0].kernel : ename, label, k, nkept, dropped,
                 ndropped, placed, nplaced);
    kr_outset *set = kr_outset_new(stage, 0);
    if (!set)
        rc = kr_err_set(&err, KR_INTERNAL, NULL, NULL, "out of memory");
    else if (!(rc = kr_outset_add(set, "README.md", readme.data, readme.len, &err)))
        rc = kr_outset_commit(set, &err);
    kr_outset_free(set);
    if (!rc)
        rc = write_report(tmp, ename, &err);
    if (!rc)
        rc = cli_install_tree(stage, out, o.force, &err);
done:
    if (staged) {
        kr_err e2;
        kr_err_clear(&e2);
        cli_remove_tree(tmp, &e2);
    }
    int ret = rc ? fail(&err) : 0;
    if (!rc && !o.quiet)
        fprintf(stderr, "kreport new-example: %s -> %s (%zu capture%s, %zu empty shell%s dropped)\n", run, out,
                nkept, nkept == 1 ? "" : "s", ndropped, ndropped == 1 ? "" : "s");
    free(k);
    free_list(dropped, ndropped);
    free_list(placed, nplaced);
    free_list(f.captures, f.ncaptures);
    free_list(f.files, f.nfiles);
    kr_buf_free(&readme);
    kr_arena_free(&a);
    return ret;
}
