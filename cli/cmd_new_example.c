/* cmd_new_example.c — `kreport new-example RUN_DIR[=LABEL]... -o EXAMPLE_DIR`
 * (or `--into EXAMPLE_DIR`): turns rocprofv3 run directories (docs/formats.md#run-directories),
 * one per label, into the canonical example layout (docs/formats.md#example-folders, hub AGENTS.md
 * "Output structure"):
 *
 *   att_viewer/<label>/ui_output_*            every capture with waves (empty
 *                                             shells are dropped and named)
 *   att_viewer/<label>/stats_ui_output_*.csv  the per-capture stats CSVs (docs/formats.md#stats-csv)
 *   compute_viewer/<label>_results.json       the run's results.json whose GPU
 *                                             agents hold the captures' handle
 *                                             (any results.json for a run
 *                                             without captures: discovery)
 *   compute_viewer/<label>_results.db         the run's rocpd database (docs/formats.md#rocpd-databases), the
 *                                             first whose GPU agents hold a
 *                                             captured handle or carry none
 *   compute_viewer/<label>_<kind>.csv         the run's rocprofv3 CSVs (docs/formats.md#rocprofv3-csvs),
 *                                             by content: agent_info, ...
 *   compute_viewer/discover_*.csv             discovery CSVs, names kept
 *   README.md                                 file list and naming note
 *   REPORT.md                                 `kreport analyze EXAMPLE --format md`
 *
 * Content decides (a folder with filenames.json is a capture, a JSON with
 * "rocprofiler-sdk-tool" a results.json, a CSV its header), never names,
 * except the stats_ and discover_ prefixes that keep their meaning. With
 * --into, the existing example is copied first (without README.md and
 * REPORT.md, which are written anew for the whole example, and without the
 * files of a label given again, which --force replaces). The example is
 * built in a temporary folder beside EXAMPLE_DIR and renamed into place at
 * the end; a failure leaves nothing. */
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
#include "bundle/discover.h"
#include "bundle/load_csv.h"
#include "bundle/load_results.h"
#include "bundle/load_rocpd.h"
#include "bundle/source.h"
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

#define MAX_RUNS 32
/* The first words of every README.md this command writes; --into replaces
 * only such a README.md without --force. */
#define README_MARK "Laid out by `kreport new-example`"

static struct {
    const char *output, *name, *label, *into;
    int force, quiet, jobs;
} o;

const cli_opt cmd_new_example_options[] = {
    {"output", 'o', OPT_STRING, "DIR", "the example folder to create (required unless --into)", &o.output},
    {"into", 0, OPT_STRING, "DIR", "add the runs' labels to this existing example folder (written back in place, or to -o)", &o.into},
    {"name", 0, OPT_STRING, "KERNEL", "kernel named in README.md (default: the first capture's kernel symbol)", &o.name},
    {"label", 0, OPT_STRING, "LABEL", "label of a single RUN_DIR given without =LABEL (default: the run directory's name)", &o.label},
    {"force", 0, OPT_FLAG, NULL, "replace an existing EXAMPLE_DIR, a label --into already holds, or a README.md not written by new-example", &o.force},
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
        } else if (S_ISREG(st.st_mode) &&
                   (ends_with(names[i], ".csv") || ends_with(names[i], ".json") || ends_with(names[i], ".db"))) {
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

typedef struct run_arg {
    char dir[PATH_CAP];
    char label[256];
    found f;
} run_arg;

/* One capture of the example: kept, or dropped as an empty shell. */
typedef struct kept {
    char label[256], folder[512], kernel[512];
    uint64_t agent, waves, records, mapped, rows;
} kept;

typedef struct build {
    char stage[PATH_CAP];
    kept *k; size_t nk, capk;            /* captures in the example */
    kept *dropped; size_t nd, capd;      /* empty shells left out */
    kr_arena a;
} build;

static int oom(kr_err *err)
{
    return kr_err_set(err, KR_INTERNAL, NULL, NULL, "out of memory");
}

static int add_kept(kept **v, size_t *n, size_t *cap, const kept *e)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 8;
        kept *g = realloc(*v, c * sizeof *g);
        if (!g)
            return -1;
        *v = g;
        *cap = c;
    }
    (*v)[(*n)++] = *e;
    return 0;
}

static int kept_cmp(const void *a, const void *b)
{
    const kept *x = a, *y = b;
    int c = strcmp(x->label, y->label);
    return c ? c : strcmp(x->folder, y->folder);
}

/* Loads a capture folder into e (label, folder, kernel, counts); *shell
 * when it holds no waves. */
static int summarize(const char *dir, const char *label, kept *e, int *shell, kr_err *err)
{
    bundle_opts bo = {0};
    bo.threads = o.jobs > 0 ? o.jobs : kr_cpu_count();
    bo.no_discover = 1;
    bo.skip_wstates = 1;
    kr_capture *c;
    int rc = bundle_capture_load(dir, &bo, &c, err);
    if (rc)
        return rc;
    cli_capture_summary s;
    cli_capture_summarize(c, label, &s);
    memset(e, 0, sizeof *e);
    snprintf(e->label, sizeof e->label, "%s", label);
    snprintf(e->folder, sizeof e->folder, "%s", kr_path_base(dir));
    snprintf(e->kernel, sizeof e->kernel, "%s", s.kernel);
    e->agent = c->agent_handle;
    e->waves = s.waves;
    e->records = s.records;
    e->mapped = s.mapped_rows;
    e->rows = s.instruction_rows;
    *shell = s.shell;
    bundle_capture_free(c);
    return 0;
}

/* match, after saying (unless quiet) why a results file is skipped. */
static int kept_agent(int match, const char *file)
{
    if (!match && !o.quiet)
        fprintf(stderr, "kreport new-example: skipped %s: no GPU agent with a captured handle\n", file);
    return match;
}

/* 1 when a compute_viewer file name is one new-example writes for label:
 * <label>_results.json or <label>_<kind>.csv. */
static int label_owns(const char *label, const char *name)
{
    size_t n = strlen(label);
    if (strncmp(name, label, n) != 0 || name[n] != '_')
        return 0;
    const char *rest = name + n + 1;
    if (strcmp(rest, "results.json") == 0 || strcmp(rest, "results.db") == 0)
        return 1;
    for (int k = BUNDLE_CSV_KERNEL_TRACE; k <= BUNDLE_CSV_COUNTER_COLLECTION; k++) {
        char want[64];
        snprintf(want, sizeof want, "%s.csv", bundle_csv_type_name((bundle_csv_type)k));
        if (strcmp(rest, want) == 0)
            return 1;
    }
    return 0;
}

/* The label of runs[] that owns the example path rel ("att_viewer/<label>"
 * and below, compute_viewer/<label>_*), or NULL. */
static const char *owner(const char *rel, const run_arg *runs, size_t nruns)
{
    for (size_t i = 0; i < nruns; i++) {
        const char *l = runs[i].label;
        size_t n = strlen(l);
        if (strncmp(rel, "att_viewer/", 11) == 0 && strncmp(rel + 11, l, n) == 0 &&
            (rel[11 + n] == '\0' || rel[11 + n] == '/'))
            return l;
        if (strncmp(rel, "compute_viewer/", 15) == 0 && !strchr(rel + 15, '/') && label_owns(l, rel + 15))
            return l;
    }
    return NULL;
}

/* Copies the existing example `from` into the stage, without README.md and
 * REPORT.md (written anew) and without what a label of runs[] owns: that
 * is a collision, refused unless --force (then the runs replace it). */
static int copy_existing(const char *from, const char *stage, const run_arg *runs, size_t nruns, kr_err *err)
{
    cli_pack_list l;
    int rc = cli_pack_collect(from, "", &l, err);
    for (size_t i = 1; i < l.n && !rc; i++) {
        const char *rel = l.v[i].path + 1;
        const char *label = owner(rel, runs, nruns);
        if (label && !o.force) {
            rc = kr_err_set(err, KR_OUTPUT, l.v[i].src, NULL,
                            "the example already holds label '%s'; use --force to replace it, or pick another label",
                            label);
            break;
        }
        if (label || strcmp(rel, "README.md") == 0 || strcmp(rel, "REPORT.md") == 0)
            continue;
        char p[PATH_CAP];
        kr_path_join(p, sizeof p, stage, rel);
        if (l.v[i].is_dir) {
            if (mkdir(p, 0755) != 0 && errno != EEXIST)
                rc = kr_err_set(err, KR_OUTPUT, p, NULL, "cannot create directory: %s", strerror(errno));
        } else {
            rc = copy_file(l.v[i].src, p, err);
        }
    }
    if (l.n)
        cli_pack_list_free(&l);
    return rc;
}

/* The captures the copied example brings (loaded for README.md). */
static int existing_captures(build *b, kr_err *err)
{
    bundle_example *ex = NULL;
    int rc = bundle_example_scan_src(NULL, b->stage, &ex, err);
    for (size_t i = 0; !rc && i < ex->ncaptures; i++) {
        kept e;
        int shell;
        if (!(rc = summarize(ex->captures[i].dir, ex->captures[i].label, &e, &shell, err)) &&
            add_kept(&b->k, &b->nk, &b->capk, &e))
            rc = oom(err);
    }
    if (ex)
        bundle_example_free(ex);
    return rc;
}

/* Places one run's captures and files in the stage. */
static int place_run(build *b, const run_arg *r, kr_err *err)
{
    const char *label = r->label;
    const found *f = &r->f;
    char lv[PATH_CAP], p[PATH_CAP];
    snprintf(lv, sizeof lv, "%s/att_viewer/%s", b->stage, label);
    size_t first = b->nk;
    int rc = 0;
    /* Captures: keep those with waves. */
    for (size_t i = 0; i < f->ncaptures && !rc; i++) {
        kept e;
        int shell;
        if ((rc = summarize(f->captures[i], label, &e, &shell, err)))
            break;
        if (shell) {
            if (add_kept(&b->dropped, &b->nd, &b->capd, &e))
                rc = oom(err);
            if (!o.quiet)
                fprintf(stderr, "kreport new-example: dropped %s: empty shell (no waves)\n", f->captures[i]);
            continue;
        }
        if (b->nk == first && mkdir(lv, 0755) != 0)
            rc = kr_err_set(err, KR_OUTPUT, lv, NULL, "cannot create directory: %s", strerror(errno));
        else if (add_kept(&b->k, &b->nk, &b->capk, &e))
            rc = oom(err);
        else
            rc = copy_tree(f->captures[i], kr_path_join(p, sizeof p, lv, e.folder), err);
    }
    size_t nkept = b->nk - first;

    /* results.json, CSVs. A run without capture folders (a discovery run)
     * gives its first results.json; otherwise the one whose GPU agent has
     * a kept capture's handle. */
    int have_results = 0, have_db = 0;
    for (size_t i = 0; i < f->nfiles && !rc; i++) {
        const char *base = kr_path_base(f->files[i]);
        char dest[PATH_CAP] = "";
        if (ends_with(base, ".db")) {
            /* A rocpd database (docs/formats.md#rocpd-databases): the first whose agents hold a
             * kept capture's handle, or that carries no handles to check. */
            kr_rocpd *db = NULL;
            if (have_db)
                continue;
            if ((rc = bundle_load_rocpd(&b->a, f->files[i], &db, err)))
                break;
            int match = f->ncaptures == 0 || !db->agent_handles;
            for (size_t c = first; c < b->nk && !match; c++)
                for (size_t g = 0; g < db->agents->nagents && !match; g++)
                    match = db->agents->agents[g].type == 2 && db->agents->agents[g].handle == b->k[c].agent;
            if (!kept_agent(match, f->files[i]))
                continue;
            have_db = 1;
            snprintf(dest, sizeof dest, "compute_viewer/%s_results.db", label);
        } else if (ends_with(base, ".json")) {
            kr_results *res = NULL;
            char *data = NULL;
            size_t len = 0;
            kr_err e2;
            kr_err_clear(&e2);
            if (have_results || kr_file_read(f->files[i], KR_MAX_SMALL_FILE_BYTES, &data, &len, &e2))
                continue;
            int is_results = bundle_results_sniff(data, len);
            free(data);
            if (!is_results)
                continue;
            if ((rc = bundle_load_results(&b->a, f->files[i], &res, err)))
                break;
            int match = f->ncaptures == 0;
            for (size_t c = first; c < b->nk && !match; c++)
                match = bundle_results_find_agent(res, b->k[c].agent) != NULL;
            if (!kept_agent(match, f->files[i]))
                continue;
            have_results = 1;
            snprintf(dest, sizeof dest, "compute_viewer/%s_results.json", label);
        } else if (strncmp(base, "stats_", 6) == 0) {
            for (size_t c = first; c < b->nk; c++) {
                char want[600];
                snprintf(want, sizeof want, "stats_%s.csv", b->k[c].folder);
                if (strcmp(base, want) == 0)
                    snprintf(dest, sizeof dest, "att_viewer/%s/%s", label, base);
            }
        } else if (strncmp(base, "discover_", 9) == 0) {
            snprintf(dest, sizeof dest, "compute_viewer/%s", base);
        } else {
            bundle_csv t;
            kr_err e2;
            kr_err_clear(&e2);
            if (bundle_csv_load(&b->a, f->files[i], &t, &e2))
                continue;
            bundle_csv_type kind = bundle_csv_kind_of(&t, base);
            if (kind == BUNDLE_CSV_UNKNOWN)
                continue;
            if (bundle_csv_refusal(kind)) {
                if (!o.quiet)
                    fprintf(stderr, "kreport new-example: skipped %s: %s\n", f->files[i], bundle_csv_refusal(kind));
                continue;
            }
            snprintf(dest, sizeof dest, "compute_viewer/%s_%s.csv", label, bundle_csv_type_name(kind));
        }
        if (!*dest)
            continue;
        kr_path_join(p, sizeof p, b->stage, dest);
        if (kr_file_exists(p)) {
            if (!o.quiet)
                fprintf(stderr, "kreport new-example: skipped %s: %s is already taken\n", f->files[i], dest);
            continue;
        }
        rc = copy_file(f->files[i], p, err);
    }
    if (!rc && nkept && !have_results && !have_db && !o.quiet)
        fprintf(stderr, "kreport new-example: no results.json or rocpd database with the captures' agent handle "
                        "in %s\n", r->dir);
    return rc;
}

/* The example's file list for README.md: capture folders as "<path>/",
 * other files by path, README.md left out, REPORT.md added; sorted. */
static int list_files(const char *stage, char ***out, size_t *n, kr_err *err)
{
    cli_pack_list l;
    int rc = cli_pack_collect(stage, "", &l, err);
    const char *cap = NULL;   /* capture folder being skipped ("/att_viewer/x/ui_output_...") */
    size_t capn = 0;
    for (size_t i = 1; i < l.n && !rc; i++) {
        const char *rel = l.v[i].path;
        if (cap && strncmp(rel, cap, capn) == 0 && rel[capn] == '/')
            continue;
        char p[PATH_CAP];
        if (l.v[i].is_dir && bundle_is_capture_dir(l.v[i].src)) {
            cap = rel;
            capn = strlen(rel);
            snprintf(p, sizeof p, "%s/", rel + 1);
        } else if (l.v[i].is_dir || strcmp(rel, "/README.md") == 0) {
            continue;
        } else {
            snprintf(p, sizeof p, "%s", rel + 1);
        }
        if (push(out, n, p))
            rc = oom(err);
    }
    if (!rc && push(out, n, "REPORT.md"))
        rc = oom(err);
    if (l.n)
        cli_pack_list_free(&l);
    if (!rc && *n)
        qsort(*out, *n, sizeof **out, str_cmp);
    return rc;
}

/* README.md: what is here, the dispatch naming note, what was dropped. */
static void write_readme(kr_buf *b, const char *kernel, const build *x, char **placed, size_t nplaced)
{
    kr_buf_printf(b, "# %s — rocprofv3 trace bundle\n\n", kernel);
    kr_buf_puts(b, README_MARK " from rocprofv3 run directories (one per\n"
                   "label), in the hub's canonical example layout. `REPORT.md` is `kreport analyze`\n"
                   "of this folder; replace or extend it with the written analysis.\n\n## Captures\n\n"
                   "| folder | waves | records | mapped rows |\n|---|---|---|---|\n");
    for (size_t i = 0; i < x->nk; i++) {
        const kept *k = &x->k[i];
        kr_buf_printf(b, "| `att_viewer/%s/%s/` | %" PRIu64 " | %" PRIu64 " | %" PRIu64 "/%" PRIu64 " |\n",
                      k->label, k->folder, k->waves, k->records, k->mapped, k->rows);
    }
    kr_buf_puts(b, "\n## Files\n\n");
    for (size_t i = 0; i < nplaced; i++)
        kr_buf_printf(b, "- `%s`\n", placed[i]);
    if (x->nd) {
        kr_buf_puts(b, "\nDropped empty-shell capture folders (no waves; rocprofv3 reserves the slot\n"
                       "before tracing starts):");
        for (size_t i = 0; i < x->nd; i++)
            kr_buf_printf(b, "%s `%s` (%s)", i ? "," : "", x->dropped[i].folder, x->dropped[i].label);
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

static void strip_slashes(char *p)
{
    for (size_t n = strlen(p); n > 1 && p[n - 1] == '/';)
        p[--n] = '\0';
}

/* RUN_DIR or RUN_DIR=LABEL (an existing directory whose name holds '='
 * is taken whole). */
static void parse_run(const char *arg, int single, run_arg *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->dir, sizeof r->dir, "%s", arg);
    const char *eq = strrchr(arg, '=');
    if (eq && !kr_is_dir(arg)) {
        r->dir[eq - arg] = '\0';
        snprintf(r->label, sizeof r->label, "%s", eq + 1);
    }
    strip_slashes(r->dir);
    if (!eq || kr_is_dir(arg))
        snprintf(r->label, sizeof r->label, "%s", single && o.label ? o.label : kr_path_base(r->dir));
}

static int label_ok(const char *l)
{
    return *l && *l != '.' && !strchr(l, '/') && !strchr(l, '=');
}

/* The kernel of README.md's title in an example new-example wrote before
 * ("# <kernel> — rocprofv3 trace bundle"), and whether it did. */
static int old_readme(const char *example, char *kernel, size_t cap)
{
    char p[PATH_CAP], *data = NULL;
    size_t len = 0;
    kr_err e;
    kr_err_clear(&e);
    *kernel = '\0';
    if (kr_file_read(kr_path_join(p, sizeof p, example, "README.md"), KR_MAX_SMALL_FILE_BYTES, &data, &len, &e))
        return !kr_file_exists(p);   /* none: nothing to lose */
    int ours = strstr(data, README_MARK) != NULL;
    const char *t = strstr(data, " — rocprofv3 trace bundle\n");
    if (ours && strncmp(data, "# ", 2) == 0 && t && !memchr(data, '\n', (size_t)(t - data)))
        snprintf(kernel, cap, "%.*s", (int)(t - data - 2), data + 2);
    free(data);
    return ours;
}

int cmd_new_example(int argc, char **argv)
{
    memset(&o, 0, sizeof o);
    const cli_command *cmd = cli_find("new-example");
    char *pos[MAX_RUNS + 1];
    int npos, code;
    if (cli_parse(cmd, cmd_new_example_options, argc, argv, pos, &npos, MAX_RUNS + 1, &code))
        return code;
    if (npos == 0 || npos > MAX_RUNS) {
        if (npos)
            cli_usage_error(cmd, "at most %d RUN_DIRs", MAX_RUNS);
        else
            cli_usage_error(cmd, "missing RUN_DIR");
        return KR_USAGE;
    }
    if (!o.output && !o.into) {
        cli_usage_error(cmd, "missing -o EXAMPLE_DIR (or --into EXAMPLE_DIR)");
        return KR_USAGE;
    }
    if (o.label && npos > 1) {
        cli_usage_error(cmd, "--label names the label of a single RUN_DIR; write RUN_DIR=LABEL for several");
        return KR_USAGE;
    }
    run_arg *runs = calloc((size_t)npos, sizeof *runs);
    if (!runs) {
        fprintf(stderr, "kreport new-example: out of memory\n");
        return KR_INTERNAL;
    }
    for (int i = 0; i < npos; i++) {
        parse_run(pos[i], npos == 1, &runs[i]);
        int dup = 0;
        for (int j = 0; j < i; j++)
            dup |= strcmp(runs[j].label, runs[i].label) == 0;
        if (!label_ok(runs[i].label) || dup) {
            cli_usage_error(cmd, dup ? "label '%s' given twice" :
                            "a label must be a plain folder name (no '/', '=' or leading '.'), not '%s'; "
                            "write RUN_DIR=LABEL or --label", runs[i].label);
            free(runs);
            return KR_USAGE;
        }
    }
    char out[PATH_CAP], into[PATH_CAP] = "", oldkernel[512] = "";
    snprintf(out, sizeof out, "%s", o.output ? o.output : o.into);
    strip_slashes(out);
    kr_err err;
    kr_err_clear(&err);
    int rc = 0, same = 0;
    if (o.into) {
        snprintf(into, sizeof into, "%s", o.into);
        strip_slashes(into);
        char *a = bundle_source_realpath(NULL, into), *b = bundle_source_realpath(NULL, out);
        same = strcmp(into, out) == 0 || (a && b && strcmp(a, b) == 0);
        free(a);
        free(b);
        if (!kr_is_dir(into) || !bundle_is_example_dir_src(NULL, into))
            rc = kr_err_set(&err, KR_INPUT, into, NULL,
                            "not an example folder (att_viewer/<label>/ui_output_*, `kreport help formats`)");
        else if (!old_readme(into, oldkernel, sizeof oldkernel) && !o.force)
            rc = kr_err_set(&err, KR_OUTPUT, into, NULL,
                            "README.md was not written by kreport new-example and would be replaced (with "
                            "REPORT.md); use --force, or keep a copy of it");
    }
    struct stat st;
    if (!rc && !same && lstat(out, &st) == 0 && !o.force)
        rc = kr_err_set(&err, KR_OUTPUT, out, NULL, "exists; use --force to replace it");
    for (int i = 0; i < npos && !rc; i++) {
        if (!kr_is_dir(runs[i].dir))
            rc = kr_err_set(&err, KR_INPUT, runs[i].dir, NULL, "not a directory");
        else if (!(rc = walk(runs[i].dir, 0, &runs[i].f, &err)) && !runs[i].f.ncaptures && !runs[i].f.nfiles)
            rc = kr_err_set(&err, KR_INPUT, runs[i].dir, NULL,
                            "no capture folder (a folder with filenames.json, `kreport help formats`), CSV or results.json "
                            "in the run directory");
    }

    char parent[PATH_CAP], tmp[PATH_CAP] = "", p[PATH_CAP];
    cli_path_parent(out, parent, sizeof parent);
    const char *ename = kr_path_base(out);
    build b;
    memset(&b, 0, sizeof b);
    kr_arena_init(&b.a);
    char **placed = NULL;
    size_t nplaced = 0;
    kr_buf readme;
    kr_buf_init(&readme);
    if (rc || (rc = kr_mkdir_p(parent, &err)) || (rc = cli_temp_dir(parent, "new", tmp, sizeof tmp, &err))) {
        *tmp = '\0';
        goto done;
    }
    kr_path_join(b.stage, sizeof b.stage, tmp, ename);
    if (mkdir(b.stage, 0755) || mkdir(kr_path_join(p, sizeof p, b.stage, "att_viewer"), 0755) ||
        mkdir(kr_path_join(p, sizeof p, b.stage, "compute_viewer"), 0755)) {
        rc = kr_err_set(&err, KR_OUTPUT, b.stage, NULL, "cannot create directory: %s", strerror(errno));
        goto done;
    }
    if (*into && ((rc = copy_existing(into, b.stage, runs, (size_t)npos, &err)) || (rc = existing_captures(&b, &err))))
        goto done;
    for (int i = 0; i < npos && !rc; i++)
        rc = place_run(&b, &runs[i], &err);
    size_t ncap = 0;
    for (int i = 0; i < npos; i++)
        ncap += runs[i].f.ncaptures;
    if (!rc && b.nk == 0)
        rc = kr_err_set(&err, KR_INPUT, runs[0].dir, NULL,
                        ncap ? "every capture folder is an empty shell (no waves): nothing to publish; re-capture "
                               "(hub AGENTS.md Gotcha 3)"
                             : "no capture folder (a folder with filenames.json, `kreport help formats`) in the run "
                               "director%s", npos > 1 ? "ies" : "y");
    if (rc || (rc = list_files(b.stage, &placed, &nplaced, &err)))
        goto done;
    qsort(b.k, b.nk, sizeof *b.k, kept_cmp);
    if (b.nd)
        qsort(b.dropped, b.nd, sizeof *b.dropped, kept_cmp);
    const char *kernel = o.name ? o.name : *oldkernel ? oldkernel : ename;
    for (size_t i = 0; i < b.nk && !o.name && !*oldkernel && kernel == ename; i++)
        if (*b.k[i].kernel)
            kernel = b.k[i].kernel;
    write_readme(&readme, kernel, &b, placed, nplaced);
    kr_outset *set = kr_outset_new(b.stage, 0);
    if (!set)
        rc = oom(&err);
    else if (!(rc = kr_outset_add(set, "README.md", readme.data, readme.len, &err)))
        rc = kr_outset_commit(set, &err);
    kr_outset_free(set);
    if (!rc)
        rc = write_report(tmp, ename, &err);
    if (!rc)
        rc = cli_install_tree(b.stage, out, o.force || same, &err);
done:
    if (*tmp) {
        kr_err e2;
        kr_err_clear(&e2);
        cli_remove_tree(tmp, &e2);
    }
    int ret = rc ? fail(&err) : 0;
    if (!rc && !o.quiet)
        fprintf(stderr, "kreport new-example: %s%s -> %s (%zu capture%s, %zu empty shell%s dropped)\n", runs[0].dir,
                npos > 1 ? " ..." : "", out, b.nk, b.nk == 1 ? "" : "s", b.nd, b.nd == 1 ? "" : "s");
    for (int i = 0; i < npos; i++) {
        free_list(runs[i].f.captures, runs[i].f.ncaptures);
        free_list(runs[i].f.files, runs[i].f.nfiles);
    }
    free(runs);
    free(b.k);
    free(b.dropped);
    free_list(placed, nplaced);
    kr_buf_free(&readme);
    kr_arena_free(&b.a);
    return ret;
}
