/* capture.c — assembling a capture folder into the model (docs/formats.md#capture-folder);
 * see capture.h.
 *
 * filenames.json (docs/formats.md#wave-index) is read first: it names the wave files. Then one
 * kr_parallel_for batch loads everything else at once: code.json (docs/formats.md#code-table), the
 * wstates (docs/formats.md#wave-state-curves), occupancy (docs/formats.md#occupancy-events), realtime (docs/formats.md#realtime-samples), snapshots (docs/formats.md#source-snapshots), the results
 * and CSVs found beside the folder (docs/formats.md#joining-a-capture, docs/formats.md#rocprofv3-csvs) and every wave file (docs/formats.md#wave-files).
 * Each task writes only its own slot: the wave files their kr_wave, the
 * other files a private kr_capture ("side") with its own arena, since arenas
 * are not thread-safe. After the batch the sides are moved into the capture
 * in a fixed order and their arenas are kept until bundle_capture_free, and
 * errors are reported in the fixed order of capture.h, so neither the model
 * nor the message depends on thread timing. Each file goes through its
 * parse-from-memory core (bundle/load_*.h); this file only reads bytes and
 * wires the pieces. With a sink (bundle_opts.sink) the waves stream through
 * it as they load (see "streamed waves" below). */
#include "bundle/capture.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/discover.h"
#include "bundle/load_code.h"
#include "bundle/load_filenames.h"
#include "bundle/load_occupancy.h"
#include "bundle/load_realtime.h"
#include "bundle/load_snapshots.h"
#include "bundle/load_wave.h"
#include "bundle/load_wstates.h"
#include "bundle/source.h"
#include "common/file.h"
#include "common/limits.h"
#include "common/pool.h"

int bundle_is_capture_dir_src(const bundle_source *src, const char *dir)
{
    char path[PATH_MAX];
    return bundle_source_kind_of(src, dir) == BUNDLE_SRC_DIR &&
           bundle_source_kind_of(src, kr_path_join(path, sizeof path, dir, "filenames.json")) == BUNDLE_SRC_FILE;
}

int bundle_is_capture_dir(const char *dir)
{
    return bundle_is_capture_dir_src(NULL, dir);
}

static int oom(kr_err *err, const char *file)
{
    return kr_err_set(err, KR_INTERNAL, file, NULL, "out of memory");
}

/* Copy of dir without trailing slashes (keeps a lone "/"). */
static char *strip_slashes(kr_arena *a, const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    return kr_arena_strndup(a, dir, n);
}

/* Digits at *p into *v (fits uint64); advances *p. 0 when none or overflow. */
static int take_u64(const char **p, uint64_t *v)
{
    const char *s = *p;
    uint64_t x = 0;
    if (*s < '0' || *s > '9')
        return 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (x > (UINT64_MAX - d) / 10)
            return 0;
        x = x * 10 + d;
    }
    *v = x;
    *p = s;
    return 1;
}

/* ^ui_output_agent_([0-9]+)_dispatch_([0-9]+)(.*)$ (docs/formats.md#capture-folder). The dispatch
 * digits are greedy, so the suffix never starts with a digit. */
static void parse_folder_name(kr_capture *c)
{
    static const char pre[] = "ui_output_agent_", mid[] = "_dispatch_";
    const char *p = c->folder;
    uint64_t h, d;
    if (strncmp(p, pre, sizeof pre - 1) != 0)
        return;
    p += sizeof pre - 1;
    if (!take_u64(&p, &h) || strncmp(p, mid, sizeof mid - 1) != 0)
        return;
    p += sizeof mid - 1;
    if (!take_u64(&p, &d))
        return;
    c->name_matched = 1;
    c->agent_handle = h;
    c->dispatch_id = d;
    c->suffix = p;               /* points into c->folder */
}

/* The example label from <example>/att_viewer/<label>/<capture> (docs/formats.md#run-directories), or NULL. */
static const char *label_from_path(kr_arena *a, const char *path)
{
    const char *comp[3] = {NULL, NULL, NULL};    /* last three components */
    size_t clen[3] = {0, 0, 0};
    for (const char *p = path; *p;) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        const char *e = p;
        while (*e && *e != '/')
            e++;
        comp[0] = comp[1], clen[0] = clen[1];
        comp[1] = comp[2], clen[1] = clen[2];
        comp[2] = p, clen[2] = (size_t)(e - p);
        p = e;
    }
    if (comp[0] && clen[0] == 10 && strncmp(comp[0], "att_viewer", 10) == 0)
        return kr_arena_strndup(a, comp[1], clen[1]);
    return NULL;
}

/* 1 if a directory entry named path exists (a dangling or looping symlink
 * counts: opening it then fails with an error that says why). */
static int entry_exists(const kr_capture *c, const char *path)
{
    bundle_source_info st;
    return bundle_source_stat(c->source, path, 0, &st) == 0;
}

/* Reads dir/name (limit KR_MAX_SMALL_FILE_BYTES) into *b, or leaves b->data
 * NULL when the file is absent and not required. path receives the file's
 * path, which errors name. */
static int read_member(kr_capture *c, const char *name, int required, char *path, size_t cap,
                       bundle_blob *b, kr_err *err)
{
    memset(b, 0, sizeof *b);
    kr_path_join(path, cap, c->dir, name);
    if (!entry_exists(c, path))
        return required ? kr_err_set(err, KR_INPUT, path, NULL, "missing %s (required in a capture folder)", name) : 0;
    return bundle_source_read(c->source, path, KR_MAX_SMALL_FILE_BYTES, b, err);
}

typedef int (*parse_fn)(kr_capture *c, const char *data, size_t len, const char *fname, kr_err *err);

static int load_small(kr_capture *c, const char *name, int required, parse_fn parse, kr_err *err)
{
    char path[PATH_MAX];
    bundle_blob b;
    int rc = read_member(c, name, required, path, sizeof path, &b, err);
    if (rc || !b.data)
        return rc;
    rc = parse(c, b.data, b.len, path, err);
    c->total_bytes += b.len;
    bundle_blob_free(&b);
    return rc;
}

static int load_wstates_k(kr_capture *c, unsigned k, kr_err *err)
{
    char name[32], path[PATH_MAX];
    bundle_blob b;
    snprintf(name, sizeof name, "wstates%u.json", k);
    int rc = read_member(c, name, 0, path, sizeof path, &b, err);
    if (rc || !b.data)
        return rc;
    rc = bundle_parse_wstates(c, k, b.data, b.len, path, err);
    c->total_bytes += b.len;
    bundle_blob_free(&b);
    return rc;
}

static int load_snapshots(kr_capture *c, kr_err *err)
{
    char path[PATH_MAX];
    bundle_blob b;
    int rc = read_member(c, "snapshots.json", 0, path, sizeof path, &b, err);
    if (rc || !b.data)
        return rc;
    rc = bundle_parse_snapshots(c, c->dir, b.data, b.len, path, err);
    c->total_bytes += b.len;
    bundle_blob_free(&b);
    return rc;
}

/* ---- the batch ---- */

/* Everything but the wave files, one task each. The order is the order
 * errors are reported in (capture.h); the results come last, after the
 * inventory of the folder. */
enum side {
    SIDE_CODE, SIDE_WSTATES0, SIDE_OCCUPANCY = SIDE_WSTATES0 + KR_STATE_COUNT, SIDE_REALTIME,
    SIDE_SNAPSHOTS, SIDE_RESULTS, SIDE_COUNT
};

/* What bundle_capture_load returns: the capture and the arenas its side
 * tasks allocated in. */
typedef struct capture_box {
    kr_capture c;                /* first: bundle_capture_free converts back */
    kr_arena side[SIDE_COUNT];
} capture_box;

typedef struct side_task {
    kr_capture c;                /* identity copied from the capture; filled by the loader */
    kr_err err;
    int rc;
    int run;                     /* part of this load */
} side_task;

/* Arrays of the waves a streamed load dropped, kept for the next waves to
 * parse into (bundle_wave_spare): the memory of one group's records is
 * touched once and refilled by the groups after it, instead of being
 * returned to the system and faulted in again. At most `limit` arrays of
 * each kind wait here (what the groups in flight hold); more are freed. */
typedef struct spare_pool {
    pthread_mutex_t mu;
    size_t limit;
    size_t n[BUNDLE_SPARE_KINDS];
    void **arr[BUNDLE_SPARE_KINDS];
    size_t *cap[BUNDLE_SPARE_KINDS];
    size_t (*wave_cap)[BUNDLE_SPARE_KINDS];  /* per wave: capacities of its arrays */
} spare_pool;

typedef struct batch {
    kr_capture *c;
    const bundle_opts *opts;
    side_task side[SIDE_COUNT];
    int order[SIDE_COUNT];       /* task index -> side, for the sides that run */
    size_t nside;
    size_t nearly;               /* sides order[0 .. nearly) run before the waves, the rest after */
    /* Per worker, the failed wave of lowest index and its error: memory does
     * not grow with the number of listed waves, and the error reported (the
     * lowest index overall) does not depend on thread timing. */
    kr_err *wave_errs;
    size_t *wave_err_at;         /* SIZE_MAX: this worker saw no failure */
    uint8_t *mapped;             /* per wave: records already mapped to rows */
    /* Per worker, the buffer wave files are read into (from disk), grown
     * to the largest file and kept across files: one first touch of its
     * pages per worker instead of one per file. */
    char **rbuf;
    size_t *rcap;
    spare_pool *pool;            /* streamed loads that drop records; else NULL */
    uint32_t *line_row;          /* LineNumber -> row of its records (docs/formats.md#instruction-records), */
    size_t nline_row;            /* built once code.json is loaded */
    atomic_int code_ready;       /* line_row is ready */
    struct stream_job *job;      /* streamed loads (bundle_opts.sink) with waves; else NULL */
} batch;

struct stream_job;
static void stream_open(struct stream_job *j, int ok);
static void stream_task(struct stream_job *j, size_t k, int worker);

/* Record → row (docs/formats.md#instruction-records): line 0, unknown lines and label rows → none. */
static uint32_t row_of_line(const kr_capture *code, uint32_t line)
{
    const kr_code_row *row = kr_capture_row(code, line);
    return row && !row->is_label ? (uint32_t)(row - code->rows) : KR_ROW_NONE;
}

/* row_of_line of every LineNumber of the map (malloc'd), or NULL. */
static uint32_t *row_table(const kr_capture *code, size_t *n)
{
    uint32_t *t = malloc((code->nline_map ? code->nline_map : 1) * sizeof *t);
    for (size_t l = 0; t && l < code->nline_map; l++)
        t[l] = row_of_line(code, (uint32_t)l);
    *n = t ? code->nline_map : 0;
    return t;
}

static void map_rows(const batch *b, const kr_capture *code, kr_wave *w)
{
    for (size_t k = 0; k < w->ninsts; k++) {
        uint32_t line = w->insts[k].line;
        w->insts[k].row = !b->line_row ? row_of_line(code, line)
                        : line < b->nline_row ? b->line_row[line] : KR_ROW_NONE;
    }
}

/* code.json's part of the model, from its side task into c. */
static void take_code(kr_capture *c, const kr_capture *code)
{
    c->layout = code->layout;
    c->code_version = code->code_version;
    c->rows = code->rows;
    c->nrows = code->nrows;
    c->line_to_row = code->line_to_row;
    c->nline_map = code->nline_map;
}

static void run_side(batch *b, int id)
{
    side_task *t = &b->side[id];
    kr_capture *sc = &t->c;
    switch (id) {
    case SIDE_CODE:
        t->rc = load_small(sc, "code.json", 1, bundle_parse_code, &t->err);
        if (!t->rc && (b->line_row = row_table(sc, &b->nline_row)) != NULL)
            atomic_store_explicit(&b->code_ready, 1, memory_order_release);
        if (b->job)
            stream_open(b->job, t->rc == 0);
        break;
    case SIDE_OCCUPANCY: t->rc = load_small(sc, "occupancy.json", 0, bundle_parse_occupancy, &t->err); break;
    case SIDE_REALTIME: t->rc = load_small(sc, "realtime.json", 0, bundle_parse_realtime, &t->err); break;
    case SIDE_SNAPSHOTS: t->rc = load_snapshots(sc, &t->err); break;
    case SIDE_RESULTS: t->rc = bundle_attach_results(sc, b->opts->results_path, &t->err); break;
    default: t->rc = load_wstates_k(sc, (unsigned)(id - SIDE_WSTATES0), &t->err); break;
    }
}

/* The largest waiting array of every kind into sp (the pool's lock held
 * only for the moves). */
static void pool_take(spare_pool *p, bundle_wave_spare *sp)
{
    memset(sp, 0, sizeof *sp);
    pthread_mutex_lock(&p->mu);
    for (int k = 0; k < BUNDLE_SPARE_KINDS; k++) {
        if (!p->n[k])
            continue;
        size_t best = 0;
        for (size_t q = 1; q < p->n[k]; q++)
            if (p->cap[k][q] > p->cap[k][best])
                best = q;
        sp->arr[k] = p->arr[k][best];
        sp->cap[k] = p->cap[k][best];
        p->n[k]--;
        p->arr[k][best] = p->arr[k][p->n[k]];
        p->cap[k][best] = p->cap[k][p->n[k]];
    }
    pthread_mutex_unlock(&p->mu);
}

/* Array a of kind k and capacity cap back into the pool (freed when the
 * pool is full); NULL is a no-op. Called with the lock held. */
static void pool_put_locked(spare_pool *p, int k, void *a, size_t cap)
{
    if (!a)
        return;
    if (p->n[k] < p->limit && cap) {
        p->arr[k][p->n[k]] = a;
        p->cap[k][p->n[k]] = cap;
        p->n[k]++;
    } else {
        free(a);
    }
}

static void pool_put_spare(spare_pool *p, bundle_wave_spare *sp)
{
    pthread_mutex_lock(&p->mu);
    for (int k = 0; k < BUNDLE_SPARE_KINDS; k++)
        pool_put_locked(p, k, sp->arr[k], sp->cap[k]);
    pthread_mutex_unlock(&p->mu);
}

static spare_pool *pool_new(size_t nwaves, size_t limit)
{
    spare_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->limit = limit;
    int locked = pthread_mutex_init(&p->mu, NULL) == 0, ok = locked;
    p->wave_cap = calloc(nwaves ? nwaves : 1, sizeof *p->wave_cap);
    for (int k = 0; k < BUNDLE_SPARE_KINDS; k++) {
        p->arr[k] = malloc((limit ? limit : 1) * sizeof *p->arr[k]);
        p->cap[k] = malloc((limit ? limit : 1) * sizeof *p->cap[k]);
        ok = ok && p->arr[k] && p->cap[k];
    }
    if (ok && p->wave_cap)
        return p;
    for (int k = 0; k < BUNDLE_SPARE_KINDS; k++) {
        free(p->arr[k]);
        free(p->cap[k]);
    }
    free(p->wave_cap);
    if (locked)
        pthread_mutex_destroy(&p->mu);
    free(p);
    return NULL;
}

static void pool_free(spare_pool *p)
{
    if (!p)
        return;
    for (int k = 0; k < BUNDLE_SPARE_KINDS; k++) {
        for (size_t q = 0; q < p->n[k]; q++)
            free(p->arr[k][q]);
        free(p->arr[k]);
        free(p->cap[k]);
    }
    free(p->wave_cap);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

static void wave_load(batch *b, size_t i, int worker, kr_err *err)
{
    kr_capture *c = b->c;
    const kr_wave_ref *ref = &c->wave_refs[i];
    kr_wave *w = &c->waves[i];
    char path[PATH_MAX];
    kr_path_join(path, sizeof path, c->dir, ref->file);
    if (!entry_exists(c, path)) {
        kr_err_set(err, KR_INPUT, path, NULL, "wave file listed in filenames.json does not exist");
        return;
    }
    bundle_blob blob;
    if (!c->source) {
        memset(&blob, 0, sizeof blob);
        if (kr_file_read_reuse(path, KR_MAX_FILE_BYTES, &b->rbuf[worker], &b->rcap[worker], &blob.len, err))
            return;
        blob.data = b->rbuf[worker];     /* not owned: bundle_blob_free leaves it */
    } else if (bundle_source_read(c->source, path, KR_MAX_FILE_BYTES, &blob, err)) {
        return;
    }
    int rc;
    if (b->opts->jansson_waves) {
        rc = bundle_parse_wave_jansson(blob.data, blob.len, path, w, err);
    } else if (b->pool) {
        bundle_wave_spare sp;
        pool_take(b->pool, &sp);
        rc = bundle_parse_wave_spare(blob.data, blob.len, path, w, &sp, err);
        if (!rc)
            memcpy(b->pool->wave_cap[i], sp.wave_cap, sizeof sp.wave_cap);
        pool_put_spare(b->pool, &sp);
    } else {
        rc = bundle_parse_wave(blob.data, blob.len, path, w, err);
    }
    size_t len = blob.len;
    bundle_blob_free(&blob);
    if (rc)
        return;
    w->file = ref->file;
    w->bytes = len;
    kr_progress_add(b->opts->progress, 1, len);
    /* The rows are mapped here when code.json is loaded already, else after
     * the batch; the result is the same either way. */
    if (atomic_load_explicit(&b->code_ready, memory_order_acquire)) {
        map_rows(b, &b->side[SIDE_CODE].c, w);
        b->mapped[i] = 1;
    }
}

/* 1 when wave i loaded; else its error is recorded (the lowest index per
 * worker) and 0 returned. */
static int wave_task(batch *b, size_t i, int worker)
{
    kr_err err;
    kr_err_clear(&err);
    wave_load(b, i, worker, &err);
    if (err.code && i < b->wave_err_at[worker]) {
        b->wave_errs[worker] = err;
        b->wave_err_at[worker] = i;
    }
    return err.code == 0;
}

static void batch_task(void *ctx, size_t index, int worker)
{
    batch *b = ctx;
    size_t nw = b->c->nwaves;
    if (index < b->nearly)
        run_side(b, b->order[index]);
    else if (index - b->nearly >= nw)
        run_side(b, b->order[index - nw]);
    else if (b->job)
        stream_task(b->job, index - b->nearly, worker);
    else
        wave_task(b, index - b->nearly, worker);
}

/* ---- streamed waves (bundle_opts.sink) ----
 *
 * The wave files are tasks of the same batch as the other files, one task
 * per wave, grouped by (SE, SIMD) and in group order. A wave parses at
 * once and then waits for code.json alone (its rows map the records; the
 * sink is begun once it is in), so code.json, the results, CSVs and small
 * files load while the first waves parse. The thread that finishes the last wave of a group makes the
 * group's call (hidden latency) and drops the group's streams, while the
 * other threads go on with the next waves: a group's call never runs
 * alone, and at most one group per thread holds its records. */

typedef struct stream_job {
    batch *b;
    const kr_wave_sink *sink;
    int threads;
    unsigned keep;                   /* KR_SINK_KEEP_* */
    size_t *idx;                     /* wave indices, grouped by (SE, SIMD) */
    size_t *gstart;                  /* group g is idx[gstart[g] .. gstart[g + 1]) */
    size_t *group_of;                /* per position in idx: its group */
    size_t ngroups;
    atomic_size_t *left;             /* per group: waves not yet through */
    int *grc;                        /* per group: the sink's group return */
    int *wrc;                        /* per position in idx: 0 loaded and taken by the sink,
                                        -1 not loaded, else the sink's wave return */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int sync_ok;                     /* mu and cv initialized */
    atomic_int gate;                 /* 0 code.json loading; 1 waves may go; -1 they may not */
    int begin_rc;                    /* the sink's begin failed */
} stream_job;

typedef struct scope_key {
    uint32_t se, simd;
    size_t wave;
} scope_key;

static int by_scope(const void *a, const void *b)
{
    const scope_key *x = a, *y = b;
    if (x->se != y->se) return x->se < y->se ? -1 : 1;
    if (x->simd != y->simd) return x->simd < y->simd ? -1 : 1;
    return x->wave < y->wave ? -1 : x->wave > y->wave;
}

/* What the sink did not ask to keep: into the pool when there is one. */
static void drop_streams(spare_pool *p, kr_wave *w, size_t i, unsigned keep)
{
    if (p) {
        const size_t *cap = p->wave_cap[i];
        pthread_mutex_lock(&p->mu);
        if (!(keep & KR_SINK_KEEP_RECORDS)) {
            pool_put_locked(p, BUNDLE_SPARE_INSTS, w->insts, cap[BUNDLE_SPARE_INSTS]);
            pool_put_locked(p, BUNDLE_SPARE_WAITS, w->waits, cap[BUNDLE_SPARE_WAITS]);
            pool_put_locked(p, BUNDLE_SPARE_PRODUCERS, w->producers, cap[BUNDLE_SPARE_PRODUCERS]);
            w->insts = NULL;
            w->waits = NULL;
            w->producers = NULL;
        }
        if (!(keep & KR_SINK_KEEP_TIMELINES)) {
            pool_put_locked(p, BUNDLE_SPARE_TIMELINE, w->timeline, cap[BUNDLE_SPARE_TIMELINE]);
            w->timeline = NULL;
        }
        pthread_mutex_unlock(&p->mu);
    }
    if (!(keep & KR_SINK_KEEP_RECORDS)) {
        free(w->insts);
        free(w->waits);
        free(w->producers);
        w->insts = NULL;
        w->waits = NULL;
        w->producers = NULL;
        w->ninsts = w->nwaits = w->nproducers = 0;
    }
    if (!(keep & KR_SINK_KEEP_TIMELINES)) {
        free(w->timeline);
        w->timeline = NULL;
        w->ntimeline = 0;
    }
}

/* The groups of c's waves (by the (SE, SIMD) of filenames.json); 0 or an
 * error. */
static int stream_plan(stream_job *j, kr_err *err)
{
    kr_capture *c = j->b->c;
    size_t n = c->nwaves;
    scope_key *keys = malloc(n * sizeof *keys);
    j->idx = malloc(n * sizeof *j->idx);
    j->gstart = malloc((n + 1) * sizeof *j->gstart);
    j->group_of = malloc(n * sizeof *j->group_of);
    j->left = malloc(n * sizeof *j->left);
    j->grc = calloc(n, sizeof *j->grc);
    j->wrc = calloc(n, sizeof *j->wrc);
    if (!keys || !j->idx || !j->gstart || !j->group_of || !j->left || !j->grc || !j->wrc) {
        free(keys);
        return oom(err, c->dir);
    }
    for (size_t i = 0; i < n; i++)
        keys[i] = (scope_key){c->wave_refs[i].se, c->wave_refs[i].simd, i};
    qsort(keys, n, sizeof *keys, by_scope);
    for (size_t k = 0; k < n; k++) {
        j->idx[k] = keys[k].wave;
        if (k == 0 || keys[k].se != keys[k - 1].se || keys[k].simd != keys[k - 1].simd)
            j->gstart[j->ngroups++] = k;
        j->group_of[k] = j->ngroups - 1;
    }
    j->gstart[j->ngroups] = n;
    for (size_t g = 0; g < j->ngroups; g++)
        atomic_init(&j->left[g], j->gstart[g + 1] - j->gstart[g]);
    free(keys);
    j->sync_ok = pthread_mutex_init(&j->mu, NULL) == 0;
    if (j->sync_ok && pthread_cond_init(&j->cv, NULL) != 0) {
        pthread_mutex_destroy(&j->mu);
        j->sync_ok = 0;
    }
    atomic_init(&j->gate, 0);
    return j->sync_ok ? 0 : oom(err, c->dir);
}

static void stream_job_free(stream_job *j)
{
    if (j->sync_ok) {
        pthread_cond_destroy(&j->cv);
        pthread_mutex_destroy(&j->mu);
    }
    free(j->idx);
    free(j->gstart);
    free(j->group_of);
    free(j->left);
    free(j->grc);
    free(j->wrc);
}

/* code.json is in (ok) or failed: publish its rows to the capture, begin
 * the sink, and open the gate for the waves (or close it for good). */
static void stream_open(stream_job *j, int ok)
{
    batch *b = j->b;
    kr_capture *c = b->c;
    int gate = -1;
    if (ok) {
        take_code(c, &b->side[SIDE_CODE].c);
        if (j->sink->begin && j->sink->begin(j->sink->acc, c, j->threads, &j->keep))
            j->begin_rc = KR_INTERNAL;
        else
            gate = 1;
    }
    pthread_mutex_lock(&j->mu);
    atomic_store_explicit(&j->gate, gate, memory_order_release);
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->mu);
}

static int stream_wait(stream_job *j)
{
    int gate = atomic_load_explicit(&j->gate, memory_order_acquire);
    if (gate)
        return gate;
    pthread_mutex_lock(&j->mu);
    while (!(gate = atomic_load_explicit(&j->gate, memory_order_acquire)))
        pthread_cond_wait(&j->cv, &j->mu);
    pthread_mutex_unlock(&j->mu);
    return gate;
}

/* The group's call when every wave of it loaded and was taken; then its
 * streams are dropped. */
static void finish_group(stream_job *j, size_t g, int worker)
{
    kr_capture *c = j->b->c;
    size_t lo = j->gstart[g], hi = j->gstart[g + 1];
    int ok = 1;
    for (size_t k = lo; k < hi; k++)
        if (j->wrc[k]) {
            ok = 0;
            if (j->wrc[k] > 0 && !j->grc[g])
                j->grc[g] = j->wrc[k];
        }
    if (ok)
        j->grc[g] = j->sink->group(j->sink->acc, c, j->idx + lo, hi - lo, worker);
    for (size_t k = lo; k < hi; k++)
        drop_streams(j->b->pool, &c->waves[j->idx[k]], j->idx[k], j->keep);
}

/* Position k of idx: load the wave, map its records, hand it to the sink;
 * the last wave of its group through makes the group's call. A wave that
 * fails to load is recorded as wave_task does, and its group does not
 * reach the sink. */
static void stream_task(stream_job *j, size_t k, int worker)
{
    batch *b = j->b;
    kr_capture *c = b->c;
    size_t i = j->idx[k], g = j->group_of[k];
    j->wrc[k] = -1;
    /* The wave parses while code.json may still be loading; the sink
     * needs its rows. */
    int loaded = wave_task(b, i, worker);
    if (stream_wait(j) < 0) {
        drop_streams(b->pool, &c->waves[i], i, 0);
        return;
    }
    if (loaded) {
        if (!b->mapped[i]) {
            map_rows(b, c, &c->waves[i]);
            b->mapped[i] = 1;
        }
        j->wrc[k] = j->sink->wave ? j->sink->wave(j->sink->acc, c, i, worker) : 0;
    }
    if (atomic_fetch_sub_explicit(&j->left[g], 1, memory_order_acq_rel) == 1)
        finish_group(j, g, worker);
}

/* After the batch and its wave errors: the sink's begin, then the first
 * failed group. */
static int stream_result(stream_job *j, kr_err *err)
{
    kr_capture *c = j->b->c;
    if (j->begin_rc)
        return kr_err_set(err, KR_INTERNAL, c->dir, NULL, "out of memory preparing the analyses");
    for (size_t g = 0; g < j->ngroups; g++)
        if (j->grc[g])
            return kr_err_set(err, j->grc[g], c->dir, NULL, "out of memory analyzing the waves");
    return 0;
}

/* Runs the batch and moves its results into c. Returns the first error in
 * side order (code, wstates, occupancy, realtime, snapshots), then of the
 * waves by index; the results' error goes to *results_err for later. */
static int load_batch(kr_capture *c, const bundle_opts *opts, kr_err *err, int *results_rc, kr_err *results_err)
{
    capture_box *box = (capture_box *)c;
    size_t nwaves = c->nwave_refs;
    batch *b = calloc(1, sizeof *b);
    if (!b)
        return oom(err, c->dir);
    b->c = c;
    b->opts = opts;
    atomic_init(&b->code_ready, 0);
    for (int id = 0; id < SIDE_COUNT; id++) {
        side_task *t = &b->side[id];
        t->run = id == SIDE_RESULTS ? !opts->no_discover || opts->results_path != NULL
               : id >= SIDE_WSTATES0 && id < SIDE_WSTATES0 + KR_STATE_COUNT ? !opts->skip_wstates
               : 1;
        kr_arena_init(&t->c.arena);
        kr_err_clear(&t->err);
        t->c.dir = c->dir;
        t->c.source = c->source;
        t->c.folder = c->folder;
        t->c.label = c->label;
        t->c.name_matched = c->name_matched;
        t->c.agent_handle = c->agent_handle;
        t->c.dispatch_id = c->dispatch_id;
        t->c.suffix = c->suffix;
    }
    /* Biggest first, so two threads finish together: code.json (the wave
     * tasks map their records once it is in), the results and CSVs, then
     * the small files, then the waves (streamed: the small files last, see
     * below). */
    static const int prio[SIDE_COUNT] = {SIDE_CODE, SIDE_RESULTS, SIDE_OCCUPANCY, SIDE_REALTIME, SIDE_SNAPSHOTS,
        SIDE_WSTATES0, SIDE_WSTATES0 + 1, SIDE_WSTATES0 + 2, SIDE_WSTATES0 + 3, SIDE_WSTATES0 + 4};
    for (int k = 0; k < SIDE_COUNT; k++)
        if (b->side[prio[k]].run)
            b->order[b->nside++] = prio[k];
    b->nearly = b->nside;

    int rc = 0;
    if (nwaves) {
        c->waves = kr_arena_array(&c->arena, nwaves, sizeof *c->waves);
        size_t nworkers = opts->threads > 1 ? (size_t)opts->threads : 1;
        b->wave_errs = calloc(nworkers, sizeof *b->wave_errs);
        b->wave_err_at = malloc(nworkers * sizeof *b->wave_err_at);
        b->mapped = calloc(nwaves, 1);
        b->rbuf = calloc(nworkers, sizeof *b->rbuf);
        b->rcap = calloc(nworkers, sizeof *b->rcap);
        for (size_t k = 0; b->wave_err_at && k < nworkers; k++)
            b->wave_err_at[k] = SIZE_MAX;
        if (!c->waves || !b->wave_errs || !b->wave_err_at || !b->mapped || !b->rbuf || !b->rcap)
            rc = oom(err, c->dir);
        else
            c->nwaves = nwaves;  /* every slot is released by bundle_capture_free */
    }
    kr_progress_expect(opts->progress, c->nwaves);
    stream_job job;
    memset(&job, 0, sizeof job);
    if (!rc && opts->sink && c->nwaves) {
        job.b = b;
        job.sink = opts->sink;
        job.threads = opts->threads > 1 ? opts->threads : 1;
        if (!(rc = stream_plan(&job, err)))
            b->job = &job;
        /* The pool holds what the groups in flight drop: the largest group
         * per thread (what the sink keeps is never put back). */
        size_t largest = 0;
        for (size_t g = 0; g < job.ngroups; g++)
            if (job.gstart[g + 1] - job.gstart[g] > largest)
                largest = job.gstart[g + 1] - job.gstart[g];
        if (!rc && !opts->jansson_waves)
            b->pool = pool_new(c->nwaves, largest * (size_t)job.threads);  /* NULL: malloc/free */
        /* Streamed, the last group's call (hidden latency) runs after its
         * waves, when no wave is left: the small files go after the waves
         * so that the other threads have them to do meanwhile. */
        b->nearly = 0;
        while (b->nearly < b->nside && (b->order[b->nearly] == SIDE_CODE || b->order[b->nearly] == SIDE_RESULTS))
            b->nearly++;
    }
    if (!rc)
        kr_parallel_for(b->nside + c->nwaves, opts->threads, batch_task, b);

    /* The sides' arenas now belong to the capture, whatever happened. */
    for (int id = 0; id < SIDE_COUNT; id++)
        box->side[id] = b->side[id].c.arena;
    for (int id = 0; id < SIDE_RESULTS && !rc; id++)
        if (b->side[id].run && b->side[id].rc) {
            *err = b->side[id].err;
            rc = b->side[id].rc;
        }
    if (!rc && c->nwaves) {
        size_t nworkers = opts->threads > 1 ? (size_t)opts->threads : 1, first = 0;
        for (size_t k = 1; k < nworkers; k++)
            if (b->wave_err_at[k] < b->wave_err_at[first])
                first = k;
        if (b->wave_err_at[first] != SIZE_MAX) {
            *err = b->wave_errs[first];
            rc = err->code;
        }
    }
    if (!rc) {
        take_code(c, &b->side[SIDE_CODE].c);
        for (unsigned k = 0; k < KR_STATE_COUNT; k++)
            c->wstates[k] = b->side[SIDE_WSTATES0 + k].c.wstates[k];
        c->occupancy = b->side[SIDE_OCCUPANCY].c.occupancy;
        c->realtime = b->side[SIDE_REALTIME].c.realtime;
        const kr_capture *snap = &b->side[SIDE_SNAPSHOTS].c;
        c->snapshots = snap->snapshots;
        c->nsnapshots = snap->nsnapshots;
        c->has_snapshots_json = snap->has_snapshots_json;
        if (c->has_snapshots_json)
            bundle_snapshots_resolve(c);        /* frames → snapshots needs both */
        const kr_capture *res = &b->side[SIDE_RESULTS].c;
        c->results = res->results;
        c->kernel_trace = res->kernel_trace;
        c->agent_info = res->agent_info;
        c->kernel_stats = res->kernel_stats;
        c->rocpd = res->rocpd;
        c->rocpd_agent = res->rocpd_agent;
        c->rocpd_gpu = res->rocpd_gpu;
        c->counters = res->counters;
        c->ncounters = res->ncounters;
        c->counter_paths = res->counter_paths;
        c->ncounter_paths = res->ncounter_paths;
        for (int id = 0; id < SIDE_COUNT; id++)
            c->total_bytes += b->side[id].c.total_bytes;
        for (size_t i = 0; i < c->nwaves; i++) {
            if (!b->mapped[i])
                map_rows(b, c, &c->waves[i]);
            c->total_bytes += c->waves[i].bytes;
        }
        *results_rc = b->side[SIDE_RESULTS].run ? b->side[SIDE_RESULTS].rc : 0;
        if (*results_rc)
            *results_err = b->side[SIDE_RESULTS].err;
    }
    if (!rc && b->job)
        rc = stream_result(&job, err);
    else if (!rc && opts->sink && opts->sink->begin) {
        unsigned keep = 0;                  /* no waves: the sink is begun all the same */
        if (opts->sink->begin(opts->sink->acc, c, opts->threads > 1 ? opts->threads : 1, &keep))
            rc = kr_err_set(err, KR_INTERNAL, c->dir, NULL, "out of memory preparing the analyses");
    }
    pool_free(b->pool);
    b->pool = NULL;
    stream_job_free(&job);
    size_t nworkers = opts->threads > 1 ? (size_t)opts->threads : 1;
    for (size_t k = 0; b->rbuf && k < nworkers; k++)
        free(b->rbuf[k]);
    free(b->rbuf);
    free(b->rcap);
    free(b->wave_errs);
    free(b->wave_err_at);
    free(b->mapped);
    free(b->line_row);
    free(b);
    return rc;
}

/* ---- the inventory of files no rule names (docs/formats.md#capture-files) ---- */

static int match_se_pattern(const char *name, const char *prefix, const char *mid, const char *suffix)
{
    size_t pl = strlen(prefix);
    if (strncmp(name, prefix, pl) != 0)
        return 0;
    const char *p = name + pl;
    if (*p < '0' || *p > '9')
        return 0;
    while (*p >= '0' && *p <= '9')
        p++;
    if (mid) {
        size_t ml = strlen(mid);
        if (strncmp(p, mid, ml) != 0)
            return 0;
        p += ml;
        if (*p < '0' || *p > '9')
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return strcmp(p, suffix) == 0;
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* named: the wave file names and snapshot leaves, sorted, so a folder with
 * many files costs n log n, not n × (waves + leaves). */
static int named_by_rules(const char *const *named, size_t nnamed, const char *name)
{
    static const char *const fixed[] = {"filenames.json", "code.json", "occupancy.json",
        "realtime.json", "snapshots.json", "wstates0.json", "wstates1.json", "wstates2.json",
        "wstates3.json", "wstates4.json", NULL};
    for (const char *const *f = fixed; *f; f++)
        if (strcmp(name, *f) == 0)
            return 1;
    if (nnamed && bsearch(&name, named, nnamed, sizeof *named, str_cmp))
        return 1;
    return match_se_pattern(name, "se", NULL, "_perfcounter.json") ||
           match_se_pattern(name, "other_simd_se", "_", ".json") ||
           match_se_pattern(name, "shaderdata_", "_", ".json");
}

static int list_extra_files(kr_capture *c, kr_err *err)
{
    size_t nnamed = c->nwave_refs + c->nsnapshots;
    const char **named = malloc((nnamed ? nnamed : 1) * sizeof *named);
    if (!named)
        return oom(err, c->dir);
    for (size_t i = 0; i < c->nwave_refs; i++)
        named[i] = c->wave_refs[i].file;
    for (size_t i = 0; i < c->nsnapshots; i++)
        named[c->nwave_refs + i] = c->snapshots[i].leaf;
    if (nnamed)
        qsort(named, nnamed, sizeof *named, str_cmp);
    bundle_source_entry *ents;
    size_t nents;
    if (bundle_source_list(c->source, c->dir, &ents, &nents) != 0) {
        free(named);
        return kr_err_set(err, KR_INPUT, c->dir, NULL, "cannot list the capture folder");
    }
    size_t n = 0;
    const char **v = malloc((nents ? nents : 1) * sizeof *v);
    int rc = 0;
    for (size_t i = 0; v && i < nents; i++) {
        if (named_by_rules(named, nnamed, ents[i].name))
            continue;
        if (!(v[n++] = kr_arena_strdup(&c->arena, ents[i].name))) {
            free(v);
            v = NULL;
        }
    }
    bundle_source_list_free(ents, nents);
    free(named);
    if (!v)
        return oom(err, c->dir);
    if (n) {
        c->extra_files = kr_arena_array(&c->arena, n, sizeof *c->extra_files);
        if (!c->extra_files)
            rc = oom(err, c->dir);
        else
            memcpy(c->extra_files, v, n * sizeof *v);
    }
    c->nextra_files = rc ? 0 : n;
    free(v);
    return rc;
}

/* docs/formats.md#se-alignment, V-16a: alignment needs realtime samples for every SE that has waves
 * or occupancy rows. */
static void check_alignment_coverage(kr_capture *c)
{
    kr_realtime *rt = &c->realtime;
    if (!rt->aligned)
        return;
    uint8_t has_rt[KR_MAX_SE] = {0};
    for (size_t i = 0; i < rt->nses; i++)
        if (rt->ses[i].n > 0 && rt->ses[i].se < KR_MAX_SE)
            has_rt[rt->ses[i].se] = 1;
    int covered = 1;
    for (size_t i = 0; i < c->nwave_refs; i++)
        if (c->wave_refs[i].se >= KR_MAX_SE || !has_rt[c->wave_refs[i].se])
            covered = 0;
    for (size_t i = 0; i < c->occupancy.nses; i++)
        if (c->occupancy.ses[i].nrows > 0 &&
            (c->occupancy.ses[i].se >= KR_MAX_SE || !has_rt[c->occupancy.ses[i].se]))
            covered = 0;
    if (!covered) {
        rt->aligned = 0;
        memset(rt->se_offset, 0, sizeof rt->se_offset);
    }
}

int bundle_capture_load(const char *dir, const bundle_opts *opts, kr_capture **out, kr_err *err)
{
    *out = NULL;
    bundle_opts defaults = {.threads = 1};
    if (!opts)
        opts = &defaults;
    if (bundle_source_kind_of(opts->src, dir) != BUNDLE_SRC_DIR)
        return kr_err_set(err, KR_INPUT, dir, NULL, "not a directory");
    if (!bundle_is_capture_dir_src(opts->src, dir))
        return kr_err_set(err, KR_INPUT, dir, NULL, "not a capture folder (no filenames.json)");

    capture_box *box = calloc(1, sizeof *box);
    if (!box)
        return oom(err, dir);
    kr_capture *c = &box->c;
    kr_arena_init(&c->arena);
    for (int id = 0; id < SIDE_COUNT; id++)
        kr_arena_init(&box->side[id]);
    int rc, results_rc = 0;
    kr_err results_err;
    kr_err_clear(&results_err);
    char *stripped = strip_slashes(&c->arena, dir);
    char *folder = bundle_source_folder_name(opts->src, dir);
    c->dir = kr_arena_strdup(&c->arena, dir);
    c->source = opts->src;
    c->folder = folder ? kr_arena_strdup(&c->arena, folder) : NULL;
    free(folder);
    if (!stripped || !c->dir || !c->folder) {
        rc = oom(err, dir);
        goto fail;
    }
    parse_folder_name(c);
    c->label = opts->label ? kr_arena_strdup(&c->arena, opts->label) : label_from_path(&c->arena, stripped);

    if ((rc = load_small(c, "filenames.json", 1, bundle_parse_filenames, err)) ||
        (rc = load_batch(c, opts, err, &results_rc, &results_err)))
        goto fail;
    check_alignment_coverage(c);
    if ((rc = list_extra_files(c, err)))
        goto fail;
    if ((rc = results_rc)) {
        *err = results_err;
        goto fail;
    }
    *out = c;
    return 0;
fail:
    bundle_capture_free(c);
    return rc;
}

void bundle_capture_free(kr_capture *c)
{
    if (!c)
        return;
    capture_box *box = (capture_box *)c;
    for (size_t i = 0; i < c->nwaves; i++)
        bundle_wave_release(&c->waves[i]);
    kr_arena_free(&c->arena);
    for (int id = 0; id < SIDE_COUNT; id++)
        kr_arena_free(&box->side[id]);
    free(box);
}
