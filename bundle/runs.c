/* runs.c — see runs.h (docs/compare.md#discovery, docs/formats.md#results-json). */
#include "bundle/runs.h"

#include <jansson.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bundle/capture.h"
#include "bundle/load_csv.h"
#include "bundle/load_results.h"
#include "bundle/load_rocpd.h"
#include "bundle/source.h"
#include "common/buf.h"
#include "common/file.h"
#include "common/limits.h"

enum { PATH_CAP = 4096 };

typedef struct gpu_row {
    int64_t logical;             /* Logical_Node_Id, or the results.json handle */
    const char *product, *name, *card;
    int64_t cu;
} gpu_row;

typedef struct walk {
    bundle_run *r;
    kr_err *err;
    const bundle_source *src;    /* where the files are read (NULL: the filesystem) */
    uint64_t *dev, *ino;
    const bundle_source **vsrc;  /* the source of each visited directory */
    size_t nvisited, capvisited;
    int in_archive;              /* walking an archive found in the tree */
    uint64_t archive_bytes;      /* decompressed bytes of the archives opened so far */
    size_t cap_archives, cap_nested;
    size_t cap_csvs, cap_traces, cap_stats, cap_agents, cap_results, cap_captures, cap_dbs, cap_logs, cap_meta;
    gpu_row *gpus;
    size_t ngpus, capgpus;
    uint8_t gpus_from_csv;
    uint64_t hash;
    const char *json_command;
    int hashed;                  /* some trace or CSV bytes went into hash */
} walk;

#define GROW(w, arr, n, capf)                                                        \
    do {                                                                             \
        if ((n) == (w)->capf) {                                                      \
            size_t nc_ = (w)->capf ? (w)->capf * 2 : 8;                              \
            void *p_ = realloc((arr), nc_ * sizeof *(arr));                          \
            if (!p_)                                                                 \
                return kr_err_set((w)->err, KR_INTERNAL, NULL, NULL, "out of memory"); \
            (arr) = p_;                                                              \
            (w)->capf = nc_;                                                         \
        }                                                                            \
    } while (0)

static int has_suffix_ci(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    if (n < m)
        return 0;
    for (size_t i = 0; i < m; i++) {
        char a = s[n - m + i], b = suffix[i];
        if (a >= 'A' && a <= 'Z')
            a = (char)(a - 'A' + 'a');
        if (a != b)
            return 0;
    }
    return 1;
}

static uint64_t fnv(const void *data, size_t n, uint64_t h)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static const char *astr(walk *w, const char *s) { return kr_arena_strdup(&w->r->arena, s ? s : ""); }

/* "ui_output_agent_<H>_dispatch_<D>[suffix]" → D, 0 when the name does not match. */
static uint64_t dispatch_of(const char *name)
{
    const char *p = strstr(name, "_dispatch_");
    if (strncmp(name, "ui_output_agent_", 16) != 0 || !p)
        return 0;
    p += 10;
    uint64_t v = 0;
    int any = 0;
    while (*p >= '0' && *p <= '9') {
        v = v * 10 + (uint64_t)(*p - '0');
        p++;
        any = 1;
    }
    return any ? v : 0;
}

/* Kernel symbol of the first label row of code.json and the shell flag,
 * from the first bytes of the file. */
static void sniff_code(walk *w, const char *dir, const char **kernel, uint8_t *shell)
{
    char path[PATH_CAP];
    *kernel = "";
    *shell = 0;
    kr_path_join(path, sizeof path, dir, "code.json");
    static const size_t cap = 256 * 1024;
    char *buf = malloc(cap + 1);
    if (!buf)
        return;
    /* Regular files only: a named pipe must not block the walk. */
    long n = bundle_source_read_prefix(w->src, path, buf, cap);
    if (n < 0) {
        free(buf);
        return;
    }
    buf[n] = '\0';
    const char *c = strstr(buf, "\"code\"");
    if (c) {
        c += 6;
        while (*c == ' ' || *c == '\t' || *c == '\n' || *c == '\r' || *c == ':')
            c++;
        if (!strncmp(c, "null", 4))
            *shell = 1;
    }
    const char *l = strstr(buf, "[\";");
    if (l) {
        l += 3;
        while (*l == ' ')
            l++;
        const char *e = strchr(l, '"');
        if (e)
            *kernel = kr_arena_strndup(&w->r->arena, l, (size_t)(e - l));
    }
    free(buf);
}

static int add_capture(walk *w, const char *dir, const char *rel, const char *label)
{
    bundle_run *r = w->r;
    GROW(w, r->captures, r->ncaptures, cap_captures);
    bundle_run_capture *c = &r->captures[r->ncaptures++];
    memset(c, 0, sizeof *c);
    c->dir = astr(w, dir);
    c->rel = astr(w, rel);
    c->label = astr(w, label);
    c->src = w->src;
    char *folder = bundle_source_folder_name(w->src, dir);
    c->dispatch_id = folder ? dispatch_of(folder) : 0;
    free(folder);
    sniff_code(w, dir, &c->kernel, &c->shell);
    return 0;
}

static int add_file(walk *w, bundle_run_file **arr, size_t *n, size_t *capf, const char *path, const char *rel,
                    const char *detail)
{
    if (*n == *capf) {
        size_t nc = *capf ? *capf * 2 : 8;
        bundle_run_file *p = realloc(*arr, nc * sizeof *p);
        if (!p)
            return kr_err_set(w->err, KR_INTERNAL, NULL, NULL, "out of memory");
        *arr = p;
        *capf = nc;
    }
    (*arr)[*n].path = astr(w, path);
    (*arr)[*n].rel = astr(w, rel);
    (*arr)[*n].detail = detail ? astr(w, detail) : NULL;
    (*n)++;
    return 0;
}

static int add_gpu(walk *w, gpu_row g)
{
    GROW(w, w->gpus, w->ngpus, capgpus);
    w->gpus[w->ngpus++] = g;
    return 0;
}

static void parse_meta(walk *w, const char *data)
{
    bundle_run *r = w->r;
    const char *s = data;
    while (*s) {
        const char *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        char line[2048];
        if (n >= sizeof line)
            n = sizeof line - 1;
        memcpy(line, s, n);
        line[n] = '\0';
        char *l = line;
        while (*l == ' ' || *l == '\t')
            l++;
        size_t ln = strlen(l);
        while (ln && (l[ln - 1] == '\r' || l[ln - 1] == ' ' || l[ln - 1] == '\t'))
            l[--ln] = '\0';
        char *eq = strchr(l, '=');
        if (*l && *l != '#' && eq && eq != l) {
            *eq = '\0';
            char *k = l, *v = eq + 1;
            size_t kn = strlen(k);
            while (kn && (k[kn - 1] == ' ' || k[kn - 1] == '\t'))
                k[--kn] = '\0';
            while (*v == ' ' || *v == '\t')
                v++;
            if (r->nmeta == w->cap_meta) {
                size_t nc = w->cap_meta ? w->cap_meta * 2 : 8;
                const char **nk = realloc(r->meta_keys, nc * sizeof *nk);
                if (!nk)
                    return;
                r->meta_keys = nk;
                const char **nv = realloc(r->meta_values, nc * sizeof *nv);
                if (!nv)
                    return;
                r->meta_values = nv;
                w->cap_meta = nc;
            }
            r->meta_keys[r->nmeta] = astr(w, k);
            r->meta_values[r->nmeta] = astr(w, v);
            r->nmeta++;
        }
        s += n;
        if (e)
            s = e + 1;
        else
            break;
    }
}

/* metadata.command of the first process, joined by spaces. jansson with
 * JSON_DECODE_INT_AS_REAL accepts the 64-bit ids results.json holds. */
static const char *results_command(walk *w, const char *data, size_t len)
{
    json_error_t je;
    json_t *root = json_loadb(data, len, JSON_DECODE_INT_AS_REAL, &je);
    if (!root)
        return NULL;
    const char *out = NULL;
    json_t *procs = json_object_get(root, "rocprofiler-sdk-tool");
    json_t *p0 = json_is_array(procs) ? json_array_get(procs, 0) : NULL;
    json_t *cmd = p0 ? json_object_get(json_object_get(p0, "metadata"), "command") : NULL;
    if (json_is_array(cmd) && json_array_size(cmd)) {
        kr_buf b;
        kr_buf_init(&b);
        size_t i;
        json_t *v;
        json_array_foreach(cmd, i, v) {
            if (json_is_string(v))
                kr_buf_printf(&b, "%s%s", b.len ? " " : "", json_string_value(v));
        }
        out = astr(w, kr_buf_cstr(&b));
        kr_buf_free(&b);
    } else if (json_is_string(cmd)) {
        out = astr(w, json_string_value(cmd));
    }
    json_decref(root);
    return out;
}

static const char *cell_of(const bundle_csv *t, size_t row, const char *col)
{
    int c = bundle_csv_col(t, col);
    return c < 0 ? NULL : bundle_csv_cell(t, row, (size_t)c);
}

static int agent_rows(walk *w, const bundle_csv *t)
{
    for (size_t i = 0; i < t->nrows; i++) {
        const char *type = cell_of(t, i, "Agent_Type");
        if (!type || strcmp(type, "GPU"))
            continue;
        gpu_row g;
        memset(&g, 0, sizeof g);
        const char *ln = cell_of(t, i, "Logical_Node_Id"), *cu = cell_of(t, i, "Cu_Count");
        g.logical = ln ? strtoll(ln, NULL, 10) : -1;
        g.cu = cu && *cu ? strtoll(cu, NULL, 10) : -1;
        g.product = astr(w, cell_of(t, i, "Product_Name"));
        g.name = astr(w, cell_of(t, i, "Name"));
        const char *gid = cell_of(t, i, "Gpu_Id"), *loc = cell_of(t, i, "Location_Id"),
                   *drm = cell_of(t, i, "Drm_Render_Minor");
        char card[256];
        snprintf(card, sizeof card, "Gpu_Id=%s, Location_Id=%s, Drm_Render_Minor=%s", gid ? gid : "?", loc ? loc : "?",
                 drm ? drm : "?");
        g.card = astr(w, card);
        if (add_gpu(w, g))
            return KR_INTERNAL;
    }
    w->gpus_from_csv = 1;
    return 0;
}

static int ci_has(const char *s, const char *needle)
{
    size_t n = strlen(s), m = strlen(needle);
    for (size_t i = 0; i + m <= n; i++)
        if (!strncasecmp(s + i, needle, m))
            return 1;
    return 0;
}

/* A benchmark CSV (docs/compare.md "Discovery"): a us_* or err_* column
 * (test_pa), a median_us column (the benchmark harness), a throughput or
 * unit-suffixed time column (TFLOPS, GB/s, time_ms, ...: operator
 * benchmarks), or a correctness column (check, correct, passed, ...) beside
 * a time column. */
static int header_has_bench_column(const bundle_csv *t)
{
    /* Not "status", "result" or "valid": too common in other tables (kreport's own source_lines.csv has a status). */
    static const char *const gates[] = {"check", "benchmark_status", "correct", "correctness", "passed", "is_correct",
                                        NULL};
    static const char *const metrics[] = {"time", "latency", "duration", NULL};
    static const char *const measured[] = {"tflops", "gflops", "gbps", "gb/s", "tb/s", "bandwidth", "throughput",
                                           "_us", "_ms", "_ns", "(us)", "(ms)", "(ns)", NULL};
    int gate = 0, metric = 0;
    for (size_t i = 0; i < t->ncols; i++) {
        const char *h = t->header[i];
        if (!strncasecmp(h, "us_", 3) || !strncasecmp(h, "err_", 4) || !strcasecmp(h, "median_us"))
            return 1;
        for (const char *const *m = measured; *m; m++)
            if (ci_has(h, *m))
                return 1;
        for (const char *const *g = gates; *g; g++)
            gate |= !strcasecmp(h, *g);
        for (const char *const *m = metrics; *m; m++)
            metric |= ci_has(h, *m);
    }
    return gate && metric;
}


/* A JSON Lines benchmark file (the harness's benchmark_results.jsonl): one
 * flat object per line, read as the table its CSV projection would be
 * (columns in first-appearance order; true/false as True/False, null as
 * empty, nested values as compact JSON). 1 when data is such a file (t
 * filled), 0 when its first line is no JSON object (not ours), or an
 * error naming the file and line. */
static int jsonl_table(walk *w, const char *path, const char *data, size_t len, bundle_csv *t)
{
    memset(t, 0, sizeof *t);
    size_t nlines = 0, cap_rows = 0, ncols = 0, cap_cols = 0;
    json_t **rows = NULL;
    const char **header = NULL;
    size_t *lines = NULL;
    int rc = 0;
    size_t line = 0;
    for (size_t i = 0; i < len && !rc;) {
        size_t e = i;
        while (e < len && data[e] != '\n')
            e++;
        line++;
        size_t a = i, b = e;
        while (a < b && (data[a] == ' ' || data[a] == '\t' || data[a] == '\r'))
            a++;
        i = e + 1;
        if (a == b)
            continue;
        json_error_t je;
        json_t *o = json_loadb(data + a, b - a, JSON_DECODE_ANY, &je);
        if (!o || !json_is_object(o)) {
            json_decref(o);
            if (nlines == 0) {
                rc = -1;             /* not a JSON Lines table: left alone */
                break;
            }
            char where[32];
            snprintf(where, sizeof where, "line %zu", line);
            rc = kr_err_set(w->err, KR_INPUT, path, where, "not a JSON object (a JSON Lines benchmark file has one per line)");
            break;
        }
        if (nlines == cap_rows) {
            cap_rows = cap_rows ? cap_rows * 2 : 64;
            json_t **nr = realloc(rows, cap_rows * sizeof *nr);
            size_t *nl = realloc(lines, cap_rows * sizeof *nl);
            if (nr)
                rows = nr;
            if (nl)
                lines = nl;
            if (!nr || !nl || nlines >= KR_MAX_CSV_ROWS) {
                json_decref(o);
                rc = nlines >= KR_MAX_CSV_ROWS ? kr_err_set(w->err, KR_INPUT, path, NULL, "more than KR_MAX_CSV_ROWS lines")
                                               : kr_err_set(w->err, KR_INTERNAL, NULL, NULL, "out of memory");
                break;
            }
        }
        rows[nlines] = o;
        lines[nlines++] = line;
        const char *k;
        json_t *v;
        json_object_foreach(o, k, v) {
            size_t c = 0;
            while (c < ncols && strcmp(header[c], k))
                c++;
            if (c < ncols)
                continue;
            if (ncols == cap_cols) {
                cap_cols = cap_cols ? cap_cols * 2 : 32;
                const char **nh = realloc(header, cap_cols * sizeof *nh);
                if (!nh || ncols >= KR_MAX_CSV_FIELDS) {
                    rc = !nh ? kr_err_set(w->err, KR_INTERNAL, NULL, NULL, "out of memory")
                             : kr_err_set(w->err, KR_INPUT, path, NULL, "more than KR_MAX_CSV_FIELDS keys");
                    break;
                }
                header = nh;
            }
            header[ncols++] = astr(w, k);
        }
    }
    if (!rc && nlines && ncols) {
        t->path = astr(w, path);
        t->ncols = ncols;
        t->nrows = nlines;
        t->header = kr_arena_array(&w->r->arena, ncols, sizeof *t->header);
        t->cells = kr_arena_array(&w->r->arena, nlines * ncols, sizeof *t->cells);
        t->lines = kr_arena_array(&w->r->arena, nlines, sizeof *t->lines);
        if (!t->header || !t->cells || !t->lines) {
            rc = kr_err_set(w->err, KR_INTERNAL, NULL, NULL, "out of memory");
        } else {
            memcpy(t->header, header, ncols * sizeof *header);
            memcpy(t->lines, lines, nlines * sizeof *lines);
            for (size_t r = 0; r < nlines; r++)
                for (size_t c = 0; c < ncols; c++) {
                    json_t *v = json_object_get(rows[r], header[c]);
                    char num[64];
                    const char *text = "";
                    char *dump = NULL;
                    if (json_is_string(v))
                        text = json_string_value(v);
                    else if (json_is_integer(v))
                        snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v)), text = num;
                    else if (json_is_real(v))
                        snprintf(num, sizeof num, "%.15g", json_real_value(v)), text = num;
                    else if (json_is_true(v))
                        text = "True";
                    else if (json_is_false(v))
                        text = "False";
                    else if (v && !json_is_null(v))
                        text = dump = json_dumps(v, JSON_COMPACT);
                    t->cells[r * ncols + c] = astr(w, text ? text : "");
                    free(dump);
                }
        }
    }
    for (size_t r = 0; r < nlines; r++)
        json_decref(rows[r]);
    free(rows);
    free(header);
    free(lines);
    if (rc < 0)
        return 0;
    return rc ? rc : (nlines && ncols ? 1 : 0);
}

static int add_trace(walk *w, const char *path, const char *rel, const kr_dispatch *d, size_t n, int from_results)
{
    bundle_run *r = w->r;
    GROW(w, r->traces, r->ntraces, cap_traces);
    bundle_run_trace *t = &r->traces[r->ntraces++];
    memset(t, 0, sizeof *t);
    t->path = astr(w, path);
    t->rel = astr(w, rel);
    t->d = d;
    t->n = n;
    t->from_results = (uint8_t)from_results;
    return 0;
}

/* A rocpd database (docs/formats.md#rocpd-databases) is a kernel trace and agent info, as
 * its CSVs would be (bundle/load_rocpd.h); anything else named *.db, or
 * an SQLite file that is no rocpd database, fails the scan. Its GPUs are
 * noted here; its dispatches become a trace in add_rocpd_trace. */
static int add_rocpd(walk *w, const char *path, kr_rocpd **out)
{
    kr_rocpd *db;
    int rc = bundle_load_rocpd_src(&w->r->arena, w->src, path, &db, w->err);
    if (rc)
        return rc;
    *out = db;
    for (size_t i = 0; i < db->agents->nagents; i++) {
        const kr_agent *ag = &db->agents->agents[i];
        if (ag->type != 2)
            continue;
        gpu_row g = {ag->logical_node_id, ag->product_name, ag->name, NULL, ag->cu_count};
        if (ag->gpu_id >= 0 || ag->location_id >= 0 || ag->drm_render_minor >= 0) {
            char card[256];
            snprintf(card, sizeof card, "Gpu_Id=%" PRId64 ", Location_Id=%" PRId64 ", Drm_Render_Minor=%" PRId64,
                     ag->gpu_id, ag->location_id, ag->drm_render_minor);
            g.card = astr(w, card);
        }
        if ((rc = add_gpu(w, g)))
            return rc;
    }
    return 0;
}

/* The database's dispatches as a trace; the identity hashes them. */
static int add_rocpd_trace(walk *w, const kr_rocpd *db, const char *path, const char *rel)
{
    if (!db->trace->nrows)
        return 0;
    w->hash = fnv(rel, strlen(rel) + 1, w->hash);
    for (size_t i = 0; i < db->trace->nrows; i++) {
        const kr_dispatch *d = &db->trace->rows[i];
        uint64_t key[4] = {d->dispatch_id, d->kernel_id, d->start_ns, d->end_ns};
        w->hash = fnv(key, sizeof key, w->hash);
        w->hash = fnv(d->kernel_name, strlen(d->kernel_name) + 1, w->hash);
    }
    w->hashed = 1;
    return add_trace(w, path, rel, db->trace->rows, db->trace->nrows, 0);
}

static int visited(walk *w, const bundle_source_info *st)
{
    for (size_t i = 0; i < w->nvisited; i++)
        if (w->dev[i] == st->dev && w->ino[i] == st->ino && w->vsrc[i] == w->src)
            return 1;
    if (w->nvisited == w->capvisited) {
        size_t nc = w->capvisited ? w->capvisited * 2 : 32;
        uint64_t *nd = realloc(w->dev, nc * sizeof *nd);
        if (!nd)
            return -1;
        w->dev = nd;
        uint64_t *ni = realloc(w->ino, nc * sizeof *ni);
        if (!ni)
            return -1;
        w->ino = ni;
        const bundle_source **ns = realloc(w->vsrc, nc * sizeof *ns);
        if (!ns)
            return -1;
        w->vsrc = ns;
        w->capvisited = nc;
    }
    w->vsrc[w->nvisited] = w->src;
    w->dev[w->nvisited] = st->dev;
    w->ino[w->nvisited] = st->ino;
    w->nvisited++;
    return 0;
}

static void join_rel(char *buf, size_t cap, const char *rel, const char *name)
{
    if (!rel || !*rel)
        snprintf(buf, cap, "%s", name);
    else
        snprintf(buf, cap, "%s/%s", rel, name);
}

/* Reads a whole file through the walk's source into *blob; *data and *len
 * point at its bytes. */
static int read_file(walk *w, const char *path, uint64_t limit, bundle_blob *blob, const char **data, size_t *len)
{
    bundle_blob_free(blob);
    int rc = bundle_source_read(w->src, path, limit, blob, w->err);
    *data = blob->data;
    *len = blob->len;
    return rc;
}

static int walk_dir(walk *w, const char *dir, const char *rel, int depth);

/* An archive in the tree (runs.h): loaded with every protection of
 * bundle/archive.h (from disk, or from the member bytes when the side is
 * itself an archive), kept open in r->nested and walked like a sub-folder. */
static int walk_archive(walk *w, const char *path, const char *rel, const char *label, int depth)
{
    bundle_run *r = w->r;
    if (w->in_archive)
        return add_file(w, &r->archives, &r->narchives, &w->cap_archives, path, rel,
                        "not opened: an archive inside an archive is read one level deep; extract the outer one");
    bundle_archive *a = NULL;
    int rc;
    if (!w->src) {
        rc = bundle_archive_load(path, &a, w->err);
    } else {
        bundle_blob b;
        if ((rc = bundle_source_read(w->src, path, KR_MAX_FILE_BYTES, &b, w->err)))
            return rc;
        rc = bundle_archive_load_mem(b.data, b.len, path, &a, w->err);
        bundle_blob_free(&b);
    }
    if (rc)
        return rc;
    uint64_t bytes = 0;
    for (size_t i = 0; i < a->nmembers; i++)
        bytes += a->members[i].len;
    if (bytes > KR_MAX_ARCHIVE_BYTES - w->archive_bytes) {
        bundle_archive_free(a);
        return kr_err_set(w->err, KR_INPUT, path, NULL,
                          "the archives in the run directory hold more than %llu decompressed bytes together "
                          "(KR_MAX_ARCHIVE_BYTES: they are held in memory); extract some of them",
                          (unsigned long long)KR_MAX_ARCHIVE_BYTES);
    }
    w->archive_bytes += bytes;
    if (r->nnested == w->cap_nested) {
        size_t nc = w->cap_nested ? w->cap_nested * 2 : 4;
        bundle_source **g = realloc(r->nested, nc * sizeof *g);
        if (!g) {
            bundle_archive_free(a);
            return kr_err_set(w->err, KR_INTERNAL, NULL, NULL, "out of memory");
        }
        r->nested = g;
        w->cap_nested = nc;
    }
    bundle_source *src;
    if ((rc = bundle_source_from_archive(a, &src, w->err)))
        return rc;
    r->nested[r->nnested++] = src;
    if ((rc = add_file(w, &r->archives, &r->narchives, &w->cap_archives, path, rel, NULL)))
        return rc;
    /* The archive's root is the folder: a capture archived with its files
     * at the root is a capture, anything else is walked (its members keep
     * their paths below the archive). */
    const bundle_source *outer = w->src;
    w->src = src;
    w->in_archive = 1;
    if (bundle_is_capture_dir_src(src, path))
        rc = add_capture(w, path, rel, label);
    else
        rc = walk_dir(w, path, rel, depth + 1);
    w->in_archive = 0;
    w->src = outer;
    return rc;
}

static int walk_dir(walk *w, const char *dir, const char *rel, int depth)
{
    bundle_run *r = w->r;
    bundle_source_info st;
    if (bundle_source_stat(w->src, dir, 1, &st) != 0 || st.kind != BUNDLE_SRC_DIR)
        return 0;
    int v = visited(w, &st);
    if (v < 0)
        return kr_err_set(w->err, KR_INTERNAL, NULL, NULL, "out of memory");
    if (v > 0 || depth > BUNDLE_RUN_MAX_DEPTH)
        return 0;
    bundle_source_entry *ents = NULL;
    size_t nents;
    if (bundle_source_list(w->src, dir, &ents, &nents) != 0)
        return kr_err_set(w->err, KR_INPUT, dir, NULL, "cannot list the directory");
    int ne = (int)nents;
    int rc = 0;
    char path[PATH_CAP], sub[PATH_CAP];
    uint8_t *is_dir = calloc((size_t)ne + 1, 1), *is_cap = calloc((size_t)ne + 1, 1), *is_arc = calloc((size_t)ne + 1, 1);
    uint64_t *cap_ids = calloc((size_t)ne + 1, sizeof *cap_ids);
    size_t ncap_ids = 0;
    int has_codeobj = 0, has_rocprof = 0, has_trace_csv = 0;
    size_t first_csv = r->ncsvs, first_trace = r->ntraces;
    const kr_results **json_traces = calloc((size_t)ne + 1, sizeof *json_traces);
    kr_rocpd **db_traces = calloc((size_t)ne + 1, sizeof *db_traces);
    size_t *db_files = calloc((size_t)ne + 1, sizeof *db_files);   /* indices into r->dbs */
    size_t ndb = 0;
    const char **json_paths = calloc((size_t)ne + 1, sizeof *json_paths);
    size_t njson = 0;
    bundle_blob blob = {0};
    const char *data = NULL;
    if (!is_dir || !is_cap || !is_arc || !cap_ids || !json_traces || !json_paths || !db_traces || !db_files) {
        rc = kr_err_set(w->err, KR_INTERNAL, NULL, NULL, "out of memory");
        goto out;
    }
    /* Pass 1: sub-folders, captures, code-object files. */
    for (int i = 0; i < ne; i++) {
        const char *name = ents[i].name;
        kr_path_join(path, sizeof path, dir, name);
        if (ents[i].kind == BUNDLE_SRC_NONE)
            continue;
        if (ents[i].kind == BUNDLE_SRC_DIR) {
            is_dir[i] = 1;
            if (bundle_is_capture_dir_src(w->src, path)) {
                is_cap[i] = 1;
                uint64_t id = dispatch_of(name);
                if (id)
                    cap_ids[ncap_ids++] = id;
            }
        } else if (ents[i].kind == BUNDLE_SRC_FILE && bundle_archive_has_suffix(name, NULL)) {
            is_arc[i] = 1;
        } else if (strstr(name, "_code_object_id_")) {
            has_codeobj = 1;
        }
    }
    if (ncap_ids || has_codeobj)
        has_rocprof = 1;
    /* Pass 2: files. */
    for (int i = 0; i < ne && !rc; i++) {
        const char *name = ents[i].name;
        if (is_dir[i] || is_arc[i] || ents[i].kind != BUNDLE_SRC_FILE)
            continue;
        kr_path_join(path, sizeof path, dir, name);
        join_rel(sub, sizeof sub, rel, name);
        size_t len = 0;
        bundle_blob_free(&blob);
        data = NULL;
        if (has_suffix_ci(name, ".csv")) {
            if ((rc = read_file(w, path, KR_MAX_SMALL_FILE_BYTES, &blob, &data, &len)))
                break;
            bundle_csv t;
            if ((rc = bundle_csv_parse(&r->arena, data, len, path, &t, w->err)))
                break;
            bundle_csv_type k = bundle_csv_kind_of(&t, name);
            if (k == BUNDLE_CSV_KERNEL_TRACE) {
                kr_kernel_trace *kt;
                if ((rc = bundle_kernel_trace_from_csv(&r->arena, &t, &kt, w->err)))
                    break;
                kt->path = astr(w, path);
                has_rocprof = has_trace_csv = 1;
                w->hash = fnv(sub, strlen(sub) + 1, w->hash);
                w->hash = fnv(data, len, w->hash);
                w->hashed = 1;
                rc = add_trace(w, path, sub, kt->rows, kt->nrows, 0);
                if (!rc)
                    r->traces[r->ntraces - 1].no_dispatch_ids = kt->no_dispatch_ids;
            } else if (k == BUNDLE_CSV_KERNEL_STATS) {
                has_rocprof = 1;
                rc = add_file(w, &r->stats, &r->nstats, &w->cap_stats, path, sub, NULL);
            } else if (k == BUNDLE_CSV_AGENT_INFO) {
                has_rocprof = 1;
                rc = add_file(w, &r->agent_infos, &r->nagent_infos, &w->cap_agents, path, sub, NULL);
                if (!rc)
                    rc = agent_rows(w, &t);
            } else if (bundle_csv_refusal(k)) {
                rc = kr_err_set(w->err, KR_INPUT, path, "line 1", "%s", bundle_csv_refusal(k));
            } else if (k != BUNDLE_CSV_UNKNOWN) {
                has_rocprof = 1;
                r->other_files++;
            } else if (header_has_bench_column(&t)) {
                GROW(w, r->csvs, r->ncsvs, cap_csvs);
                bundle_run_csv *c = &r->csvs[r->ncsvs++];
                c->path = astr(w, path);
                c->rel = astr(w, sub);
                c->table = t;
                c->table.path = c->path;
                c->profiled = 0;
                w->hash = fnv(sub, strlen(sub) + 1, w->hash);
                w->hash = fnv(data, len, w->hash);
                w->hashed = 1;
            } else {
                r->other_files++;
            }
        } else if (has_suffix_ci(name, ".jsonl")) {
            /* Read only when no CSV projection of the same name lies beside it. */
            char twin[PATH_CAP];
            snprintf(twin, sizeof twin, "%.*s.csv", (int)(strlen(name) - 6), name);
            int has_twin = 0;
            for (int q = 0; q < ne; q++)
                has_twin |= !is_dir[q] && !strcasecmp(ents[q].name, twin);
            if (has_twin) {
                r->other_files++;
                continue;
            }
            if ((rc = read_file(w, path, KR_MAX_SMALL_FILE_BYTES, &blob, &data, &len)))
                break;
            bundle_csv t;
            int got = jsonl_table(w, path, data, len, &t);
            if (got > 1) {               /* an error code (said) */
                rc = got;
                break;
            }
            if (got == 1 && header_has_bench_column(&t)) {
                GROW(w, r->csvs, r->ncsvs, cap_csvs);
                bundle_run_csv *c = &r->csvs[r->ncsvs++];
                c->path = astr(w, path);
                c->rel = astr(w, sub);
                c->table = t;
                c->profiled = 0;
                w->hash = fnv(sub, strlen(sub) + 1, w->hash);
                w->hash = fnv(data, len, w->hash);
                w->hashed = 1;
            } else {
                r->other_files++;
            }
        } else if (has_suffix_ci(name, ".json")) {
            bundle_source_info es;
            if (bundle_source_stat(w->src, path, 1, &es) != 0 || es.size > KR_MAX_SMALL_FILE_BYTES) {
                r->other_files++;
                continue;
            }
            if ((rc = read_file(w, path, KR_MAX_SMALL_FILE_BYTES, &blob, &data, &len)))
                break;
            if (bundle_results_sniff(data, len) != 1) {
                r->other_files++;
                continue;
            }
            kr_results *res;
            if ((rc = bundle_parse_results(&r->arena, data, len, path, &res, w->err)))
                break;
            has_rocprof = 1;
            if ((rc = add_file(w, &r->results, &r->nresults, &w->cap_results, path, sub, NULL)))
                break;
            if (!w->json_command)
                w->json_command = results_command(w, data, len);
            size_t nd = 0;
            for (size_t p = 0; p < res->nprocs; p++)
                nd += res->procs[p].ndispatches;
            if (nd) {
                json_traces[njson] = res;
                json_paths[njson] = astr(w, sub);
                njson++;
                w->hash = fnv(sub, strlen(sub) + 1, w->hash);
                w->hash = fnv(data, len, w->hash);
                w->hashed = 1;
            }
            for (size_t p = 0; p < res->nprocs; p++)
                for (size_t a = 0; a < res->procs[p].nagents; a++) {
                    const kr_agent *ag = &res->procs[p].agents[a];
                    if (ag->type != 2)
                        continue;
                    gpu_row g = {(int64_t)ag->handle, ag->product_name, ag->name, NULL, ag->cu_count};
                    if ((rc = add_gpu(w, g)))
                        break;
                }
        } else if (!strcmp(name, "run.meta")) {
            if ((rc = read_file(w, path, 1u << 20, &blob, &data, &len)))
                break;
            parse_meta(w, data);
        } else if (has_suffix_ci(name, ".log")) {
            if ((rc = read_file(w, path, KR_MAX_SMALL_FILE_BYTES, &blob, &data, &len)))
                break;
            const char *hit = NULL;
            for (const char *s = data; s && *s;) {
                const char *e = strchr(s, '\n');
                size_t n = e ? (size_t)(e - s) : strlen(s);
                char line[256];
                size_t m = n < sizeof line - 1 ? n : sizeof line - 1;
                memcpy(line, s, m);
                line[m] = '\0';
                if (strstr(line, "Traceback") || strstr(line, "AssertionError")) {
                    hit = line;
                    rc = add_file(w, &r->logs, &r->nlogs, &w->cap_logs, path, sub, hit);
                    break;
                }
                s = e ? e + 1 : NULL;
            }
            if (!hit && !rc)
                rc = add_file(w, &r->logs, &r->nlogs, &w->cap_logs, path, sub, NULL);
        } else {
            char magic[16] = {0};
            long got = bundle_source_read_prefix(w->src, path, magic, sizeof magic);
            if (bundle_rocpd_sniff(magic, got > 0 ? (size_t)got : 0) || has_suffix_ci(name, ".db")) {
                has_rocprof = 1;
                if ((rc = add_file(w, &r->dbs, &r->ndbs, &w->cap_dbs, path, sub, NULL)) ||
                    (rc = add_rocpd(w, path, &db_traces[ndb])))
                    break;
                db_files[ndb++] = r->ndbs - 1;
            } else {
                r->other_files++;
            }
        }
    }
    bundle_blob_free(&blob);
    data = NULL;
    if (rc)
        goto out;
    /* A database's dispatches are a trace only without a kernel_trace CSV
     * beside it (`-f csv rocpd` writes both); results.json dispatches only
     * without either. */
    for (size_t j = 0; j < ndb && !has_trace_csv && !rc; j++)
        rc = add_rocpd_trace(w, db_traces[j], r->dbs[db_files[j]].path, r->dbs[db_files[j]].rel);
    has_trace_csv |= r->ntraces > first_trace;
    if (!has_trace_csv && !rc)
        for (size_t j = 0; j < njson && !rc; j++) {
            const kr_results *res = json_traces[j];
            for (size_t p = 0; p < res->nprocs && !rc; p++)
                if (res->procs[p].ndispatches) {
                    char full[PATH_CAP];
                    kr_path_join(full, sizeof full, dir, kr_path_base(json_paths[j]));
                    rc = add_trace(w, full, json_paths[j], res->procs[p].dispatches, res->procs[p].ndispatches, 1);
                }
        }
    /* Beside rocprofv3 output: profiled CSVs; beside captures: ATT-pass traces. */
    for (size_t i = first_csv; i < r->ncsvs; i++)
        r->csvs[i].profiled = (uint8_t)has_rocprof;
    for (size_t i = first_trace; i < r->ntraces && !rc; i++)
        if (ncap_ids || has_codeobj) {
            r->traces[i].att_pass = 1;
            r->traces[i].ndrop = r->traces[i].no_dispatch_ids ? 0 : ncap_ids;
            r->traces[i].drop_ids = kr_arena_array(&r->arena, ncap_ids ? ncap_ids : 1, sizeof(uint64_t));
            if (!r->traces[i].drop_ids)
                rc = kr_err_set(w->err, KR_INTERNAL, NULL, NULL, "out of memory");
            else
                memcpy(r->traces[i].drop_ids, cap_ids, ncap_ids * sizeof(uint64_t));
        }
    /* Pass 3: captures, sub-folders and archives. */
    for (int i = 0; i < ne && !rc; i++) {
        if (!is_dir[i] && !is_arc[i])
            continue;
        const char *name = ents[i].name;
        kr_path_join(path, sizeof path, dir, name);
        join_rel(sub, sizeof sub, rel, name);
        /* A capture's label is the folder holding it ("" at the root). */
        char *label = depth == 0 ? NULL : bundle_source_folder_name(w->src, dir);
        const char *lab = label ? label : depth == 0 ? "" : kr_path_base(dir);
        if (is_arc[i])
            rc = walk_archive(w, path, sub, lab, depth);
        else if (is_cap[i])
            rc = add_capture(w, path, sub, lab);
        else
            rc = walk_dir(w, path, sub, depth + 1);
        free(label);
    }
out:
    bundle_source_list_free(ents, nents);
    free(is_dir);
    free(is_cap);
    free(is_arc);
    free(cap_ids);
    free(json_traces);
    free(db_traces);
    free(db_files);
    free(json_paths);
    bundle_blob_free(&blob);
    return rc;
}

const char *bundle_run_meta(const bundle_run *r, const char *key)
{
    for (size_t i = 0; i < r->nmeta; i++)
        if (!strcmp(r->meta_keys[i], key))
            return r->meta_values[i];
    return NULL;
}

void bundle_run_free(bundle_run *r)
{
    if (!r)
        return;
    free(r->csvs);
    free(r->traces);
    free(r->stats);
    free(r->agent_infos);
    free(r->results);
    free(r->captures);
    free(r->dbs);
    free(r->logs);
    free(r->meta_keys);
    free(r->meta_values);
    free(r->archives);
    for (size_t i = 0; i < r->nnested; i++)
        bundle_source_free(r->nested[i]);
    free(r->nested);
    kr_arena_free(&r->arena);
    free(r);
}

int bundle_run_scan(const char *path, bundle_run **out, kr_err *err)
{
    return bundle_run_scan_src(NULL, path, out, err);
}

int bundle_run_scan_src(const bundle_source *src, const char *path, bundle_run **out, kr_err *err)
{
    *out = NULL;
    bundle_source_kind kind = bundle_source_kind_of(src, path);
    if (kind != BUNDLE_SRC_DIR)
        return kr_err_set(err, KR_INPUT, path, NULL,
                          kind != BUNDLE_SRC_NONE ? "not a directory (a run directory or a capture folder is expected)"
                                                  : "no such file or directory");
    bundle_run *r = calloc(1, sizeof *r);
    if (!r)
        return kr_err_set(err, KR_INTERNAL, NULL, NULL, "out of memory");
    kr_arena_init(&r->arena);
    r->cu_count = -1;
    r->exit_code = -1;
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    r->root = kr_arena_strndup(&r->arena, path, n);
    walk w;
    memset(&w, 0, sizeof w);
    w.r = r;
    w.err = err;
    w.src = src;
    w.hash = 1469598103934665603ull;
    w.hashed = 0;
    int rc = 0;
    char *root_name = bundle_source_folder_name(src, r->root);
    if (!root_name) {
        rc = kr_err_set(err, KR_INTERNAL, NULL, NULL, "out of memory");
    } else if (bundle_is_capture_dir_src(src, r->root)) {
        r->is_capture = 1;
        rc = add_capture(&w, r->root, root_name, "");
    } else {
        rc = walk_dir(&w, r->root, "", 0);
    }
    free(root_name);
    if (!rc) {
        /* The GPU: the agent most of the trace's dispatches ran on, else the first GPU. */
        int64_t agent = -1;
        size_t total = 0;
        for (size_t t = 0; t < r->ntraces; t++)
            total += r->traces[t].n;
        int64_t *ag = malloc((total ? total : 1) * sizeof *ag);
        if (ag) {
            size_t k = 0;
            for (size_t t = 0; t < r->ntraces; t++)
                for (size_t i = 0; i < r->traces[t].n; i++)
                    ag[k++] = r->traces[t].d[i].agent;
            qsort(ag, k, sizeof *ag, cmp_i64);
            size_t best = 0;
            for (size_t i = 0; i < k;) {
                size_t j = i;
                while (j < k && ag[j] == ag[i])
                    j++;
                if (j - i > best) {
                    best = j - i;
                    agent = ag[i];
                }
                i = j;
            }
            free(ag);
        }
        const gpu_row *g = NULL;
        for (size_t i = 0; i < w.ngpus && !g; i++)
            if (w.gpus[i].logical == agent)
                g = &w.gpus[i];
        if (!g && w.ngpus)
            g = &w.gpus[0];
        if (g) {
            r->gpu_product = g->product && *g->product ? g->product : NULL;
            r->gpu_name = g->name && *g->name ? g->name : NULL;
            r->cu_count = g->cu;
            r->gpu_card = g->card;
        }
        const char *cmd = bundle_run_meta(r, "command");
        r->command = w.json_command ? w.json_command : cmd;
        const char *ec = bundle_run_meta(r, "exit_code");
        if (ec && *ec) {
            char *end;
            long long v = strtoll(ec, &end, 10);
            if (*end == '\0')
                r->exit_code = v;
        }
        if (w.hashed)
            snprintf(r->identity, sizeof r->identity, "%016llx", (unsigned long long)w.hash);
    }
    free(w.dev);
    free(w.ino);
    free(w.vsrc);
    free(w.gpus);
    if (rc) {
        bundle_run_free(r);
        return rc;
    }
    *out = r;
    return 0;
}
