/* discover.c — see discover.h. Rules: docs/formats.md#joining-a-capture, docs/formats.md#rocprofv3-csvs, docs/formats.md#run-directories.
 *
 * Search order for what lies beside a capture: directories first (the
 * capture's parent, then the databases in its sub-folders that are no
 * capture, then <example>/compute_viewer/ and the databases below it), then
 * within a directory files named "<label>_*" before "discover_*" before the
 * rest, then by name (bytewise), then by full path (pass_<N>/ and pmc_<N>/
 * subfolders join their directory's rank). Only *.json, *.csv and *.db files
 * are looked at; their content decides what they are, and the first file of
 * each kind fills its slot (a rocpd database fills the kernel trace and
 * agent slots still free when it is met). */
#include "bundle/discover.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/csv.h"
#include "bundle/load_csv.h"
#include "bundle/load_results.h"
#include "bundle/load_rocpd.h"
#include "bundle/source.h"
#include "common/file.h"
#include "common/limits.h"

enum { PATH_CAP = 4096, SNIFF_BYTES = 64 * 1024 };

/* ---- small helpers ---- */

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Copy of path without trailing slashes (malloc). */
static char *strip_trailing(const char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, path, n);
        s[n] = '\0';
    }
    return s;
}

/* Parent directory of path into buf ("." for a bare name, "/" for "/x"). */
static void parent_dir(const char *path, char *buf, size_t cap)
{
    char *p = strip_trailing(path);
    if (!p) {
        snprintf(buf, cap, ".");
        return;
    }
    char *slash = strrchr(p, '/');
    if (!slash)
        snprintf(buf, cap, ".");
    else if (slash == p)
        snprintf(buf, cap, "/");
    else {
        *slash = '\0';
        snprintf(buf, cap, "%s", p);
    }
    free(p);
}

/* Last component of path (no trailing slash) into buf. */
static void base_name(const char *path, char *buf, size_t cap)
{
    char *p = strip_trailing(path);
    if (!p) {
        buf[0] = '\0';
        return;
    }
    const char *slash = strrchr(p, '/');
    snprintf(buf, cap, "%s", slash && slash[1] ? slash + 1 : p);
    free(p);
}

/* Sorted names of the entries of dir (hidden ones skipped) that are
 * directories (want_dirs) or regular files, read from src. malloc'd; free
 * with free_names. */
static char **list_dir(const bundle_source *src, const char *dir, int want_dirs, size_t *n)
{
    *n = 0;
    bundle_source_entry *ents;
    size_t nents;
    if (bundle_source_list(src, dir, &ents, &nents) != 0)
        return NULL;
    char **names = malloc((nents ? nents : 1) * sizeof *names);
    for (size_t i = 0; names && i < nents; i++) {
        if (ents[i].name[0] == '.' || ents[i].kind != (want_dirs ? BUNDLE_SRC_DIR : BUNDLE_SRC_FILE))
            continue;
        names[(*n)++] = ents[i].name;
        ents[i].name = NULL;
    }
    bundle_source_list_free(ents, nents);
    return names;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* ---- explicit --results FILE ---- */

static int is_json_text(const char *data, size_t len)
{
    size_t i = 0;
    if (len >= 3 && (unsigned char)data[0] == 0xEF && (unsigned char)data[1] == 0xBB &&
        (unsigned char)data[2] == 0xBF)
        i = 3;
    while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r'))
        i++;
    return i < len && (data[i] == '{' || data[i] == '[');
}

/* Appends counter values read from path to c->counters. */
static int append_counters(kr_capture *c, const kr_counter_value *v, size_t nv, const char *path, kr_err *err)
{
    size_t n = c->ncounters + nv;
    kr_counter_value *rows = kr_arena_array(&c->arena, n + 1, sizeof *rows);
    const char **paths = kr_arena_array(&c->arena, c->ncounter_paths + 1, sizeof *paths);
    if (!rows || !paths)
        return kr_err_set(err, KR_INTERNAL, path, NULL, "out of memory");
    if (c->ncounters)
        memcpy(rows, c->counters, c->ncounters * sizeof *rows);
    if (nv)
        memcpy(rows + c->ncounters, v, nv * sizeof *rows);
    if (c->ncounter_paths)
        memcpy(paths, c->counter_paths, c->ncounter_paths * sizeof *paths);
    paths[c->ncounter_paths] = path;
    c->counters = rows;
    c->ncounters = n;
    c->counter_paths = paths;
    c->ncounter_paths++;
    return 0;
}

/* Appends the rows of a counter_collection CSV (docs/formats.md#counter-collection-csv) to c->counters. */
static int attach_counters(kr_capture *c, const bundle_csv *t, kr_err *err)
{
    bundle_counter_csv *cc;
    int rc = bundle_counter_csv_from_csv(&c->arena, t, &cc, err);
    return rc ? rc : append_counters(c, cc->rows, cc->nrows, cc->path, err);
}

/* A rocpd database (docs/formats.md#rocpd-databases) beside the capture: its kernel trace and agents
 * fill the slots no file took before it, its counters are appended. With
 * agent handles in the database and none equal to the capture's, it is
 * another run's file and is left alone (as a results.json, docs/formats.md#joining-a-capture). An
 * explicit file (--results) is attached whatever its agents. */
static int attach_rocpd(kr_capture *c, kr_rocpd *db, int explicit_file, kr_err *err)
{
    char note[300];
    const kr_agent *g = bundle_rocpd_agent(db, c->name_matched, c->agent_handle, note, sizeof note);
    if (!explicit_file && c->name_matched && db->agent_handles && (!g || g->handle != c->agent_handle))
        return 0;
    c->rocpd = db;
    c->rocpd_agent = kr_arena_strdup(&c->arena, note);
    c->rocpd_gpu = g;
    if (!c->kernel_trace)
        c->kernel_trace = db->trace;
    if (!c->agent_info)
        c->agent_info = db->agents;
    return db->ncounters ? append_counters(c, db->counters, db->ncounters, db->path, err) : 0;
}

/* Attaches a parsed rocprofv3 CSV of kind k to c. */
static int attach_csv(kr_capture *c, const bundle_csv *t, bundle_csv_type k, kr_err *err)
{
    switch (k) {
    case BUNDLE_CSV_COUNTER_COLLECTION:
        return attach_counters(c, t, err);
    case BUNDLE_CSV_KERNEL_TRACE:
        return bundle_kernel_trace_from_csv(&c->arena, t, &c->kernel_trace, err);
    case BUNDLE_CSV_AGENT_INFO:
        return bundle_agent_info_from_csv(&c->arena, t, &c->agent_info, err);
    case BUNDLE_CSV_KERNEL_STATS:
        return bundle_kernel_stats_from_csv(&c->arena, t, &c->kernel_stats, err);
    default:
        if (bundle_csv_refusal(k))
            return kr_err_set(err, KR_INPUT, t->path, "line 1", "%s", bundle_csv_refusal(k));
        return kr_err_set(err, KR_INPUT, t->path, NULL,
                          "a %s CSV cannot be attached to a capture (expected a results.json or a "
                          "kernel_trace, agent_info, kernel_stats or counter_collection CSV)",
                          bundle_csv_type_name(k));
    }
}

static int attach_explicit(kr_capture *c, const char *path, kr_err *err)
{
    char *data;
    size_t len;
    int rc = kr_file_read(path, KR_MAX_SMALL_FILE_BYTES, &data, &len, err);
    if (rc)
        return rc;
    if (bundle_rocpd_sniff(data, len) || has_suffix(path, ".db")) {
        kr_rocpd *db;
        rc = bundle_parse_rocpd(&c->arena, data, len, path, &db, err);
        free(data);
        return rc ? rc : attach_rocpd(c, db, 1, err);
    }
    if (is_json_text(data, len)) {
        kr_results *r;
        rc = bundle_parse_results(&c->arena, data, len, path, &r, err);
        if (rc == 0)
            c->results = r;
        free(data);
        return rc;
    }
    kr_arena scratch;
    kr_arena_init(&scratch);
    bundle_csv t;
    rc = bundle_csv_parse(&scratch, data, len, path, &t, err);
    free(data);
    if (rc == 0) {
        char base[PATH_CAP];
        base_name(path, base, sizeof base);
        bundle_csv_type k = bundle_csv_kind_of(&t, base);
        if (k == BUNDLE_CSV_UNKNOWN)
            rc = kr_err_set(err, KR_INPUT, path, NULL,
                            "neither a rocprofv3 results.json nor a rocprofv3 CSV with a known header (`kreport help formats`)");
        else
            rc = attach_csv(c, &t, k, err);
    }
    kr_arena_free(&scratch);
    return rc;
}

/* ---- search ---- */

typedef struct candidate {
    char *path;
    const char *name;        /* points into path */
    int dir_rank, name_rank;
    int is_json, is_db;
} candidate;

static int cmp_candidate(const void *pa, const void *pb)
{
    const candidate *a = pa, *b = pb;
    if (a->dir_rank != b->dir_rank)
        return a->dir_rank - b->dir_rank;
    if (a->name_rank != b->name_rank)
        return a->name_rank - b->name_rank;
    int by_name = strcmp(a->name, b->name);
    return by_name ? by_name : strcmp(a->path, b->path);
}

static int name_rank(const char *name, const char *label)
{
    if (label && label[0]) {
        size_t n = strlen(label);
        if (strncmp(name, label, n) == 0 && name[n] == '_')
            return 0;
    }
    return has_prefix(name, "discover_") ? 1 : 2;
}

typedef struct candidates {
    candidate *v;
    size_t n, cap;
    const bundle_source *src;    /* where the directories are listed */
} candidates;

/* The *.json, *.csv and *.db files of dir (only *.db with db_only). */
static int add_dir(candidates *cs, const char *dir, int dir_rank, const char *label, int db_only)
{
    size_t n;
    char **names = list_dir(cs->src, dir, 0, &n);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        int is_json = !db_only && has_suffix(names[i], ".json");
        int is_db = has_suffix(names[i], ".db");
        if (!is_json && !is_db && (db_only || !has_suffix(names[i], ".csv")))
            continue;
        if (cs->n == cs->cap) {
            size_t cap = cs->cap ? cs->cap * 2 : 16;
            candidate *grown = realloc(cs->v, cap * sizeof *grown);
            if (!grown) {
                rc = -1;
                break;
            }
            cs->v = grown;
            cs->cap = cap;
        }
        candidate *cd = &cs->v[cs->n];
        size_t need = strlen(dir) + strlen(names[i]) + 2;
        if (!(cd->path = malloc(need))) {
            rc = -1;
            break;
        }
        kr_path_join(cd->path, need, dir, names[i]);
        cd->name = cd->path + strlen(cd->path) - strlen(names[i]);
        cd->dir_rank = dir_rank;
        cd->name_rank = name_rank(names[i], label);
        cd->is_json = is_json;
        cd->is_db = is_db;
        cs->n++;
    }
    free_names(names, n);
    return rc;
}

/* 1 for "pass_<digits>" and "pmc_<digits>": the per-pass folders rocprofv3
 * writes when the counters need several passes. */
static int is_pass_dir(const char *name)
{
    const char *p = has_prefix(name, "pass_") ? name + 5 : has_prefix(name, "pmc_") ? name + 4 : NULL;
    if (!p || !*p)
        return 0;
    for (; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return 1;
}

/* dir and its pass_N/, pmc_N/ subfolders; the databases of its other
 * sub-folders that are no capture (rocprofv3 writes <host>/<pid>_results.db
 * by default, docs/formats.md#rocpd-databases) one rank later. */
static int add_dir_and_passes(candidates *cs, const char *dir, int dir_rank, const char *label)
{
    int rc = add_dir(cs, dir, dir_rank, label, 0);
    size_t n;
    char **subs = list_dir(cs->src, dir, 1, &n);
    for (size_t i = 0; i < n && rc == 0; i++) {
        char sub[PATH_CAP], fj[PATH_CAP];
        kr_path_join(sub, sizeof sub, dir, subs[i]);
        if (is_pass_dir(subs[i]))
            rc = add_dir(cs, sub, dir_rank, label, 0);
        else if (bundle_source_kind_of(cs->src, kr_path_join(fj, sizeof fj, sub, "filenames.json")) == BUNDLE_SRC_NONE)
            rc = add_dir(cs, sub, dir_rank + 1, label, 1);
    }
    free_names(subs, n);
    return rc;
}

/* docs/formats.md#joining-a-capture step 1: only a results.json with a GPU agent of the capture's handle. */
static int try_results(kr_capture *c, const candidate *cd, char *sniff, kr_err *err)
{
    long got = bundle_source_read_prefix(c->source, cd->path, sniff, SNIFF_BYTES);
    if (got <= 0 || bundle_results_sniff(sniff, (size_t)got) != 1)
        return 0;
    bundle_blob b;
    int rc = bundle_source_read(c->source, cd->path, KR_MAX_SMALL_FILE_BYTES, &b, err);
    if (rc)
        return rc;
    kr_results *r = NULL;
    rc = bundle_parse_results_for_agent(&c->arena, b.data, b.len, cd->path, c->agent_handle, &r, err);
    bundle_blob_free(&b);
    if (rc == 0 && r)
        c->results = r;
    return rc;
}

/* A *.db file must be a rocpd database: anything else named so is an
 * error (exit 3), never skipped in silence. */
static int try_rocpd(kr_capture *c, const candidate *cd, kr_err *err)
{
    kr_rocpd *db;
    int rc = bundle_load_rocpd_src(&c->arena, c->source, cd->path, &db, err);
    return rc ? rc : attach_rocpd(c, db, 0, err);
}

/* End of the first CSV record (quotes respected) within data[0..len), or 0. */
static size_t header_end(const char *data, size_t len)
{
    int in_quotes = 0;
    for (size_t i = 0; i < len; i++) {
        if (data[i] == '"')
            in_quotes = !in_quotes;
        else if (data[i] == '\n' && !in_quotes)
            return i + 1;
    }
    return 0;
}

static int csv_slot_free(const kr_capture *c, bundle_csv_type k)
{
    switch (k) {
    case BUNDLE_CSV_KERNEL_TRACE: return c->kernel_trace == NULL;
    case BUNDLE_CSV_AGENT_INFO: return c->agent_info == NULL;
    case BUNDLE_CSV_KERNEL_STATS: return c->kernel_stats == NULL;
    case BUNDLE_CSV_COUNTER_COLLECTION: return 1;   /* every pass file is appended */
    default: return 0;
    }
}

/* Attaches the CSV when its kind is wanted and not attached yet. The header
 * alone decides whether the file is read at all; a file that is read must be
 * well formed. */
static int try_csv(kr_capture *c, const candidate *cd, char *sniff, kr_err *err)
{
    long got = bundle_source_read_prefix(c->source, cd->path, sniff, SNIFF_BYTES);
    if (got <= 0)
        return 0;
    size_t hend = header_end(sniff, (size_t)got);
    if (hend == 0)
        return 0;
    kr_arena scratch;
    kr_arena_init(&scratch);
    bundle_csv head;
    kr_err ignored;
    int rc = 0;
    if (bundle_csv_parse(&scratch, sniff, hend, cd->name, &head, &ignored) != 0)
        goto done;
    bundle_csv_type hk = bundle_csv_kind(head.header, head.ncols);
    if (bundle_csv_refusal(hk)) {
        rc = kr_err_set(err, KR_INPUT, cd->path, "line 1", "%s", bundle_csv_refusal(hk));
        goto done;
    }
    if (!csv_slot_free(c, hk))
        goto done;
    bundle_csv t;
    if ((rc = bundle_csv_load_src(&scratch, c->source, cd->path, &t, err)) != 0)
        goto done;
    bundle_csv_type k = bundle_csv_kind_of(&t, cd->name);
    if (csv_slot_free(c, k))
        rc = attach_csv(c, &t, k, err);
done:
    kr_arena_free(&scratch);
    return rc;
}

int bundle_attach_results(kr_capture *c, const char *results_path, kr_err *err)
{
    if (results_path)
        return attach_explicit(c, results_path, err);
    if (!c->dir)
        return 0;

    /* Where to look: the parent (a run directory) and, for
     * <example>/att_viewer/<label>/<capture>, <example>/compute_viewer. */
    char *abs = bundle_source_abspath(c->source, c->dir);
    const char *dir = abs ? abs : c->dir;
    char parent[PATH_CAP], grand[PATH_CAP], label_dir[PATH_CAP], grand_name[PATH_CAP];
    char example[PATH_CAP], viewer[PATH_CAP];
    parent_dir(dir, parent, sizeof parent);
    parent_dir(parent, grand, sizeof grand);
    base_name(parent, label_dir, sizeof label_dir);
    base_name(grand, grand_name, sizeof grand_name);
    int hub_layout = strcmp(grand_name, "att_viewer") == 0;
    const char *label = c->label ? c->label : hub_layout ? label_dir : NULL;

    candidates cs = {0};
    cs.src = c->source;
    int rc = add_dir_and_passes(&cs, parent, 0, label);
    if (rc == 0 && hub_layout) {
        parent_dir(grand, example, sizeof example);
        kr_path_join(viewer, sizeof viewer, example, "compute_viewer");
        if (bundle_source_kind_of(c->source, viewer) == BUNDLE_SRC_DIR && strcmp(viewer, parent) != 0)
            rc = add_dir_and_passes(&cs, viewer, 2, label);
    }
    free(abs);
    if (rc != 0) {
        for (size_t i = 0; i < cs.n; i++)
            free(cs.v[i].path);
        free(cs.v);
        return kr_err_set(err, KR_INTERNAL, c->dir, NULL, "out of memory listing directories");
    }
    if (cs.n)
        qsort(cs.v, cs.n, sizeof *cs.v, cmp_candidate);

    char *sniff = malloc(SNIFF_BYTES);
    if (!sniff)
        rc = kr_err_set(err, KR_INTERNAL, c->dir, NULL, "out of memory");
    for (size_t i = 0; i < cs.n && rc == 0; i++) {
        const candidate *cd = &cs.v[i];
        if (cd->is_db) {
            if (!c->rocpd)
                rc = try_rocpd(c, cd, err);
        } else if (cd->is_json) {
            if (!c->results && c->name_matched)
                rc = try_results(c, cd, sniff, err);
        } else {
            rc = try_csv(c, cd, sniff, err);
        }
    }
    free(sniff);
    for (size_t i = 0; i < cs.n; i++)
        free(cs.v[i].path);
    free(cs.v);
    return rc;
}

/* ---- example folders (docs/formats.md#example-folders) ---- */

static int is_capture(const bundle_source *src, const char *dir)
{
    char p[PATH_CAP];
    kr_path_join(p, sizeof p, dir, "filenames.json");
    return bundle_source_kind_of(src, p) == BUNDLE_SRC_FILE;
}

int bundle_is_example_dir(const char *dir)
{
    return bundle_is_example_dir_src(NULL, dir);
}

int bundle_is_example_dir_src(const bundle_source *src, const char *dir)
{
    char av[PATH_CAP];
    kr_path_join(av, sizeof av, dir, "att_viewer");
    if (bundle_source_kind_of(src, av) != BUNDLE_SRC_DIR)
        return 0;
    size_t nl;
    char **labels = list_dir(src, av, 1, &nl);
    int found = 0;
    for (size_t i = 0; i < nl && !found; i++) {
        char ld[PATH_CAP];
        kr_path_join(ld, sizeof ld, av, labels[i]);
        size_t nc;
        char **caps = list_dir(src, ld, 1, &nc);
        for (size_t k = 0; k < nc && !found; k++) {
            char cd[PATH_CAP];
            kr_path_join(cd, sizeof cd, ld, caps[k]);
            found = is_capture(src, cd);
        }
        free_names(caps, nc);
    }
    free_names(labels, nl);
    return found;
}

int bundle_example_scan(const char *dir, bundle_example **out, kr_err *err)
{
    return bundle_example_scan_src(NULL, dir, out, err);
}

int bundle_example_scan_src(const bundle_source *src, const char *dir, bundle_example **out, kr_err *err)
{
    *out = NULL;
    if (bundle_source_kind_of(src, dir) != BUNDLE_SRC_DIR)
        return kr_err_set(err, KR_INPUT, dir, NULL, "not a directory");
    char av[PATH_CAP], p[PATH_CAP];
    kr_path_join(av, sizeof av, dir, "att_viewer");
    if (bundle_source_kind_of(src, av) != BUNDLE_SRC_DIR)
        return kr_err_set(err, KR_INPUT, dir, NULL, "not an example folder: no att_viewer/ directory (`kreport help formats`)");
    bundle_example *ex = calloc(1, sizeof *ex);
    if (!ex)
        return kr_err_set(err, KR_INTERNAL, dir, NULL, "out of memory");
    ex->root = strdup(dir);
    ex->name = bundle_source_folder_name(src, dir);
    ex->has_readme = bundle_source_kind_of(src, kr_path_join(p, sizeof p, dir, "README.md")) == BUNDLE_SRC_FILE;
    ex->has_report = bundle_source_kind_of(src, kr_path_join(p, sizeof p, dir, "REPORT.md")) == BUNDLE_SRC_FILE;
    int ok = ex->root && ex->name;

    /* Labels sorted, then captures sorted within a label. */
    size_t nl, cap = 0;
    char **labels = list_dir(src, av, 1, &nl);
    for (size_t i = 0; i < nl && ok; i++) {
        char ld[PATH_CAP];
        kr_path_join(ld, sizeof ld, av, labels[i]);
        size_t nc;
        char **caps = list_dir(src, ld, 1, &nc);
        for (size_t k = 0; k < nc && ok; k++) {
            char cd[PATH_CAP];
            kr_path_join(cd, sizeof cd, ld, caps[k]);
            if (!is_capture(src, cd))
                continue;
            if (ex->ncaptures == cap) {
                cap = cap ? cap * 2 : 8;
                bundle_example_capture *grown = realloc(ex->captures, cap * sizeof *grown);
                if (!grown) {
                    ok = 0;
                    break;
                }
                ex->captures = grown;
            }
            bundle_example_capture *ec = &ex->captures[ex->ncaptures];
            ec->label = strdup(labels[i]);
            ec->dir = strdup(cd);
            if (!ec->label || !ec->dir) {
                free(ec->label);
                free(ec->dir);
                ok = 0;
                break;
            }
            ex->ncaptures++;
        }
        free_names(caps, nc);
    }
    free_names(labels, nl);
    if (!ok) {
        bundle_example_free(ex);
        return kr_err_set(err, KR_INTERNAL, dir, NULL, "out of memory");
    }
    *out = ex;
    return 0;
}

void bundle_example_free(bundle_example *ex)
{
    if (!ex)
        return;
    for (size_t i = 0; i < ex->ncaptures; i++) {
        free(ex->captures[i].label);
        free(ex->captures[i].dir);
    }
    free(ex->captures);
    free(ex->root);
    free(ex->name);
    free(ex);
}
