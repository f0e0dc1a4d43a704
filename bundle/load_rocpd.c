/* load_rocpd.c — see load_rocpd.h. Tables and columns: docs/formats.md#rocpd-databases. */
#include "bundle/load_rocpd.h"

#include <inttypes.h>
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bundle/source.h"
#include "common/limits.h"

/* The progress handler runs every PROGRESS_OPS virtual-machine steps. */
enum { PROGRESS_OPS = 1000, MAX_SUFFIX = 80, MAX_EXTDATA = 1 << 20 };

int bundle_rocpd_sniff(const char *data, size_t len)
{
    return len >= 16 && memcmp(data, "SQLite format 3", 16) == 0;
}

/* ---- connection ---- */

typedef struct rdb {
    sqlite3 *db;
    const char *fname;
    kr_err *err;
    kr_arena *a;
    uint64_t ticks;          /* progress handler calls */
} rdb;

static int on_progress(void *p)
{
    rdb *r = p;
    return ++r->ticks > KR_MAX_ROCPD_STEPS / PROGRESS_OPS;
}

/* Everything a crafted file could use against the reader is off or bounded
 * before the schema is first read (that happens at the first statement). */
static void harden(rdb *r)
{
    sqlite3 *db = r->db;
    sqlite3_hard_heap_limit64(KR_MAX_ROCPD_HEAP);
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int *)0);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)0);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, (int *)0);
    sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, 0, (int *)0);
    sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (int *)0);
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 16 << 20);
    sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 1 << 20);
    sqlite3_limit(db, SQLITE_LIMIT_COLUMN, 500);
    sqlite3_limit(db, SQLITE_LIMIT_EXPR_DEPTH, 100);
    sqlite3_limit(db, SQLITE_LIMIT_COMPOUND_SELECT, 8);
    sqlite3_limit(db, SQLITE_LIMIT_VDBE_OP, 100000);
    sqlite3_limit(db, SQLITE_LIMIT_FUNCTION_ARG, 8);
    sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_limit(db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 100);
    sqlite3_limit(db, SQLITE_LIMIT_VARIABLE_NUMBER, 8);
    sqlite3_limit(db, SQLITE_LIMIT_TRIGGER_DEPTH, 1);
    sqlite3_limit(db, SQLITE_LIMIT_WORKER_THREADS, 0);
    sqlite3_progress_handler(db, PROGRESS_OPS, on_progress, r);
}

/* An SQLite failure as a kreport error. */
static int sql_fail(rdb *r, const char *where, int code)
{
    if (code == SQLITE_INTERRUPT && r->ticks > KR_MAX_ROCPD_STEPS / PROGRESS_OPS)
        return kr_err_set(r->err, KR_INPUT, r->fname, where,
                          "reading the database needs more than KR_MAX_ROCPD_STEPS (%llu) SQLite steps",
                          (unsigned long long)KR_MAX_ROCPD_STEPS);
    if (code == SQLITE_NOMEM)
        return kr_err_set(r->err, KR_INPUT, r->fname, where,
                          "reading the database needs more than KR_MAX_ROCPD_HEAP (%lld MiB) of SQLite memory",
                          (long long)(KR_MAX_ROCPD_HEAP >> 20));
    if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
        return kr_err_set(r->err, KR_INPUT, r->fname, where, "corrupt SQLite database: %s",
                          r->db ? sqlite3_errmsg(r->db) : sqlite3_errstr(code));
    return kr_err_set(r->err, KR_INPUT, r->fname, where, "cannot read the SQLite database: %s",
                      r->db ? sqlite3_errmsg(r->db) : sqlite3_errstr(code));
}

static int oom(rdb *r)
{
    return kr_err_set(r->err, KR_INTERNAL, r->fname, NULL, "out of memory");
}

/* ---- tables ---- */

/* 1 when a table named name exists (sqlite_master, exact name). */
static int table_exists(rdb *r, const char *name, int *rc)
{
    sqlite3_stmt *st = NULL;
    int found = 0;
    *rc = sqlite3_prepare_v2(r->db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", -1, &st, NULL);
    if (*rc == SQLITE_OK) {
        sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
        int s = sqlite3_step(st);
        if (s == SQLITE_ROW)
            found = 1;
        else if (s != SQLITE_DONE)
            *rc = s;
    }
    sqlite3_finalize(st);
    if (*rc != SQLITE_OK) {
        *rc = sql_fail(r, "sqlite_master", *rc);
        return 0;
    }
    return found;
}

typedef struct col {
    const char *name;
    uint8_t required;
} col;

/* One table being read: its statement, the index of each wanted column in
 * the result (-1 absent) and the current row's id for messages. */
typedef struct table {
    char name[128];
    sqlite3_stmt *st;
    int idx[24];
    const col *cols;
    int ncols;
    int id_col;
    size_t rows;
} table;

/* Opens `SELECT * FROM "<base><suffix>"` and maps the columns by name. A
 * missing table is an error when required, else *present = 0. */
static int table_open(rdb *r, table *t, const char *base, const char *suffix, const col *cols, int ncols,
                      int required, int *present)
{
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s%s", base, suffix);
    t->cols = cols;
    t->ncols = ncols;
    *present = 0;
    int rc;
    int exists = table_exists(r, t->name, &rc);
    if (rc)
        return rc;
    if (!exists) {
        if (required)
            return kr_err_set(r->err, KR_INPUT, r->fname, NULL,
                              "rocpd database without table %s (needed for %s; `kreport help formats`)", t->name, base);
        return 0;
    }
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT * FROM \"%s\"", t->name);
    rc = sqlite3_prepare_v2(r->db, sql, -1, &t->st, NULL);
    if (rc != SQLITE_OK)
        return sql_fail(r, t->name, rc);
    int n = sqlite3_column_count(t->st);
    t->id_col = -1;
    for (int k = 0; k < ncols; k++)
        t->idx[k] = -1;
    for (int c = 0; c < n; c++) {
        const char *cn = sqlite3_column_name(t->st, c);
        if (!cn)
            continue;
        if (strcasecmp(cn, "id") == 0 && t->id_col < 0)
            t->id_col = c;
        for (int k = 0; k < ncols; k++)
            if (t->idx[k] < 0 && strcasecmp(cn, cols[k].name) == 0)
                t->idx[k] = c;
    }
    for (int k = 0; k < ncols; k++)
        if (t->idx[k] < 0 && cols[k].required) {
            sqlite3_finalize(t->st);
            t->st = NULL;
            return kr_err_set(r->err, KR_INPUT, r->fname, t->name, "table %s has no column %s (`kreport help formats`)",
                              t->name, cols[k].name);
        }
    *present = 1;
    return 0;
}

/* Next row: 1, 0 at the end, or -1 with err filled. */
static int table_next(rdb *r, table *t)
{
    int s = sqlite3_step(t->st);
    if (s == SQLITE_DONE)
        return 0;
    if (s != SQLITE_ROW) {
        sql_fail(r, t->name, s);
        return -1;
    }
    if (++t->rows > KR_MAX_ROCPD_ROWS) {
        kr_err_set(r->err, KR_INPUT, r->fname, t->name, "table %s has more than KR_MAX_ROCPD_ROWS (%u) rows", t->name,
                   (unsigned)KR_MAX_ROCPD_ROWS);
        return -1;
    }
    return 1;
}

static void table_close(table *t)
{
    sqlite3_finalize(t->st);
    t->st = NULL;
}

static int has(const table *t, int k) { return t->idx[k] >= 0; }

static int row_err(rdb *r, const table *t, int k, const char *what)
{
    char where[200];
    if (t->id_col >= 0 && sqlite3_column_type(t->st, t->id_col) == SQLITE_INTEGER)
        snprintf(where, sizeof where, "%s id %lld", t->name, (long long)sqlite3_column_int64(t->st, t->id_col));
    else
        snprintf(where, sizeof where, "%s row %zu", t->name, t->rows);
    return kr_err_set(r->err, KR_INPUT, r->fname, where, "column %s: %s", t->cols[k].name, what);
}

/* Integer column k: NULL or absent gives *v = dflt (an error when the
 * column is required); a REAL holding an integer is accepted; text, blobs
 * and fractions are errors. */
static int get_int(rdb *r, const table *t, int k, int64_t dflt, int64_t *v)
{
    *v = dflt;
    if (!has(t, k))
        return 0;
    int c = t->idx[k];
    switch (sqlite3_column_type(t->st, c)) {
    case SQLITE_INTEGER:
        *v = sqlite3_column_int64(t->st, c);
        return 0;
    case SQLITE_NULL:
        return t->cols[k].required ? row_err(r, t, k, "NULL where an integer is required") : 0;
    case SQLITE_FLOAT: {
        double d = sqlite3_column_double(t->st, c);
        if (d >= -9.2e18 && d <= 9.2e18 && d == (double)(int64_t)d) {
            *v = (int64_t)d;
            return 0;
        }
        return row_err(r, t, k, "expected an integer, found a fraction or an out-of-range number");
    }
    default:
        return row_err(r, t, k, "expected an integer, found text or a blob");
    }
}

static int get_uint(rdb *r, const table *t, int k, int64_t dflt, int64_t *v)
{
    int rc = get_int(r, t, k, dflt, v);
    if (rc == 0 && *v < 0 && *v != dflt)
        return row_err(r, t, k, "expected a non-negative integer");
    return rc;
}

/* Text column k copied into the arena ("" when NULL or absent); at most
 * KR_MAX_STRING_BYTES. */
static int get_text(rdb *r, const table *t, int k, const char **v)
{
    *v = "";
    if (!has(t, k) || sqlite3_column_type(t->st, t->idx[k]) == SQLITE_NULL)
        return 0;
    const unsigned char *s = sqlite3_column_text(t->st, t->idx[k]);
    int n = sqlite3_column_bytes(t->st, t->idx[k]);
    if (!s)
        return oom(r);
    if (n < 0 || (size_t)n > KR_MAX_STRING_BYTES)
        return row_err(r, t, k, "text longer than KR_MAX_STRING_BYTES");
    if (memchr(s, '\0', (size_t)n))
        return row_err(r, t, k, "text holds a NUL byte");
    if (!(*v = kr_arena_strndup(r->a, (const char *)s, (size_t)n)))
        return oom(r);
    return 0;
}

/* ---- growable arrays (malloc; freed at the end of the load) ---- */

typedef struct vec {
    void *v;
    size_t n, cap, size;
} vec;

static void *vec_push(vec *x)
{
    if (x->n == x->cap) {
        size_t cap = x->cap ? x->cap * 2 : 64;
        void *p = realloc(x->v, cap * x->size);
        if (!p)
            return NULL;
        x->v = p;
        x->cap = cap;
    }
    void *slot = (char *)x->v + x->n * x->size;
    memset(slot, 0, x->size);
    x->n++;
    return slot;
}

/* id -> a value (an index into an array, or another table's column):
 * sorted by id, then looked up by binary search. */
typedef struct id_val {
    int64_t id, val;
} id_val;

static int cmp_id_val(const void *a, const void *b)
{
    const id_val *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->val < y->val ? -1 : x->val > y->val;
}

static void sort_ids(vec *v)
{
    if (v->n)
        qsort(v->v, v->n, sizeof(id_val), cmp_id_val);
}

static const id_val *find_val(const vec *v, int64_t id)
{
    size_t lo = 0, hi = v->n;
    const id_val *a = v->v;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < v->n && a[lo].id == id ? &a[lo] : NULL;
}

/* Ends a table's loop: the loop's error, else the reader's (more < 0);
 * closes the table and sorts ids (NULL: none). */
static int table_done(rdb *r, table *t, int more, int rc, vec *ids)
{
    if (!rc && more < 0)
        rc = r->err->code;
    table_close(t);
    if (!rc && ids)
        sort_ids(ids);
    return rc;
}

/* ---- the run's tables ---- */

typedef struct sym {
    const char *name;
    int64_t lds, scratch, sgpr, vgpr, accum;
} sym;

typedef struct pmc_value {
    size_t dispatch;         /* index into the load's dispatches */
    const char *counter;
    double value;
    size_t order;            /* row order, the tie-break */
} pmc_value;

typedef struct load {
    rdb r;
    kr_rocpd *out;
    vec agents;              /* kr_agent, all runs */
    vec dispatches;          /* kr_dispatch, all runs */
    vec values;              /* pmc_value, all runs */
    int gpu_handles;         /* some GPU agent's extdata carried id.handle */
    vec pmc_names;           /* const char *: counter names of all runs */
} load;

/* A number from the agent's extdata JSON, -1 when absent or not an
 * integer. Integers are decoded as doubles: extdata holds hive_id, which
 * exceeds 2^63 and which jansson's integers refuse. */
static int64_t json_int(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_number(v))
        return -1;
    double d = json_number_value(v);
    return d >= 0 && d < 9.0e15 && d == (double)(int64_t)d ? (int64_t)d : -1;
}

static int is_gfx(const char *s) { return s && strncmp(s, "gfx", 3) == 0 && s[3]; }

enum {
    AG_ID, AG_TYPE, AG_ABS, AG_LOGICAL, AG_NAME, AG_GENERIC, AG_USER, AG_PRODUCT, AG_EXT, AG_N
};

static int read_agents(load *L, const char *suffix, vec *ids)
{
    static const col cols[AG_N] = {
        [AG_ID] = {"id", 1}, [AG_TYPE] = {"type", 1}, [AG_ABS] = {"absolute_index", 0},
        [AG_LOGICAL] = {"logical_index", 0}, [AG_NAME] = {"name", 0}, [AG_GENERIC] = {"generic_name", 0},
        [AG_USER] = {"user_name", 0}, [AG_PRODUCT] = {"product_name", 0}, [AG_EXT] = {"extdata", 0},
    };
    rdb *r = &L->r;
    table t;
    int present, rc = table_open(r, &t, "rocpd_info_agent", suffix, cols, AG_N, 1, &present);
    if (rc)
        return rc;
    int more;
    while ((more = table_next(r, &t)) == 1) {
        kr_agent *g = vec_push(&L->agents);
        id_val *ir = vec_push(ids);
        if (!g || !ir) {
            rc = oom(r);
            break;
        }
        int64_t id, abs_index, logical;
        const char *type, *name, *generic, *user, *product;
        if ((rc = get_int(r, &t, AG_ID, 0, &id)) || (rc = get_text(r, &t, AG_TYPE, &type)) ||
            (rc = get_int(r, &t, AG_ABS, -1, &abs_index)) || (rc = get_int(r, &t, AG_LOGICAL, -1, &logical)) ||
            (rc = get_text(r, &t, AG_NAME, &name)) || (rc = get_text(r, &t, AG_GENERIC, &generic)) ||
            (rc = get_text(r, &t, AG_USER, &user)) || (rc = get_text(r, &t, AG_PRODUCT, &product)))
            break;
        ir->id = id;
        ir->val = (int64_t)L->agents.n - 1;
        g->type = strcmp(type, "GPU") == 0 ? 2 : strcmp(type, "CPU") == 0 ? 1 : 0;
        /* extdata: the agent record, keyed as in results.json (docs/formats.md#results-json). */
        json_t *x = NULL;
        if (has(&t, AG_EXT) && sqlite3_column_type(t.st, t.idx[AG_EXT]) == SQLITE_TEXT) {
            const char *s = (const char *)sqlite3_column_text(t.st, t.idx[AG_EXT]);
            int n = sqlite3_column_bytes(t.st, t.idx[AG_EXT]);
            if (s && n > 0 && n <= MAX_EXTDATA) {
                json_error_t je;
                x = json_loadb(s, (size_t)n, JSON_DECODE_INT_AS_REAL | JSON_REJECT_DUPLICATES, &je);
                if (!x || !json_is_object(x)) {
                    json_decref(x);
                    rc = row_err(r, &t, AG_EXT, "not a JSON object");
                    break;
                }
            }
        }
        int64_t handle = x ? json_int(json_object_get(x, "id"), "handle") : -1;
        if (handle > 0 && g->type == 2)
            L->gpu_handles = 1;
        g->handle = handle < 0 ? 0 : (uint64_t)handle;
        g->node_id = abs_index >= 0 ? abs_index : json_int(x, "node_id");
        g->logical_node_id = logical >= 0 ? logical : json_int(x, "logical_node_id");
        g->gfx_target_version = json_int(x, "gfx_target_version");
        g->cu_count = json_int(x, "cu_count");
        g->simd_per_cu = json_int(x, "simd_per_cu");
        g->max_waves_per_simd = json_int(x, "max_waves_per_simd");
        g->max_waves_per_cu = json_int(x, "max_waves_per_cu");
        g->wave_front_size = json_int(x, "wave_front_size");
        g->lds_size_in_kb = json_int(x, "lds_size_in_kb");
        g->max_engine_clk_fcompute = json_int(x, "max_engine_clk_fcompute");
        g->num_xcc = json_int(x, "num_xcc");
        g->array_count = json_int(x, "array_count");
        g->gpu_id = json_int(x, "gpu_id");
        g->location_id = json_int(x, "location_id");
        g->drm_render_minor = json_int(x, "drm_render_minor");
        /* The gfx target: the name column in schema 3.0, generic_name in
         * later ones where name is the user's label; extdata's name last. */
        const char *xname = x && json_is_string(json_object_get(x, "name")) ? json_string_value(json_object_get(x, "name")) : NULL;
        const char *target = is_gfx(name) ? name : is_gfx(generic) ? generic : is_gfx(user) ? user
                           : is_gfx(xname) ? xname : *name ? name : *generic ? generic : xname ? xname : "";
        const char *xproduct = x && json_is_string(json_object_get(x, "product_name"))
                                   ? json_string_value(json_object_get(x, "product_name")) : "";
        g->name = kr_arena_strdup(r->a, target);
        g->product_name = kr_arena_strdup(r->a, *product ? product : xproduct);
        json_decref(x);
        if (!g->name || !g->product_name) {
            rc = oom(r);
            break;
        }
    }
    return table_done(r, &t, more, rc, ids);
}

enum { KS_ID, KS_NAME, KS_DISPLAY, KS_LDS, KS_SCRATCH, KS_SGPR, KS_VGPR, KS_ACCUM, KS_N };

static int read_symbols(load *L, const char *suffix, vec *syms, vec *ids)
{
    static const col cols[KS_N] = {
        [KS_ID] = {"id", 1}, [KS_NAME] = {"kernel_name", 1}, [KS_DISPLAY] = {"display_name", 0},
        [KS_LDS] = {"group_segment_size", 0}, [KS_SCRATCH] = {"private_segment_size", 0},
        [KS_SGPR] = {"sgpr_count", 0}, [KS_VGPR] = {"arch_vgpr_count", 0}, [KS_ACCUM] = {"accum_vgpr_count", 0},
    };
    rdb *r = &L->r;
    table t;
    int present, rc = table_open(r, &t, "rocpd_info_kernel_symbol", suffix, cols, KS_N, 1, &present);
    if (rc)
        return rc;
    L->out->symbol_registers = has(&t, KS_SGPR) && has(&t, KS_VGPR) && has(&t, KS_ACCUM);
    int more;
    while ((more = table_next(r, &t)) == 1) {
        sym *s = vec_push(syms);
        id_val *ir = vec_push(ids);
        if (!s || !ir) {
            rc = oom(r);
            break;
        }
        int64_t id;
        const char *name, *display;
        if ((rc = get_int(r, &t, KS_ID, 0, &id)) || (rc = get_text(r, &t, KS_NAME, &name)) ||
            (rc = get_text(r, &t, KS_DISPLAY, &display)) || (rc = get_uint(r, &t, KS_LDS, -1, &s->lds)) ||
            (rc = get_uint(r, &t, KS_SCRATCH, -1, &s->scratch)) || (rc = get_uint(r, &t, KS_SGPR, -1, &s->sgpr)) ||
            (rc = get_uint(r, &t, KS_VGPR, -1, &s->vgpr)) || (rc = get_uint(r, &t, KS_ACCUM, -1, &s->accum)))
            break;
        ir->id = id;
        ir->val = (int64_t)syms->n - 1;
        /* The CSV's Kernel_Name (docs/formats.md#kernel-trace-csv): the formatted name, no ".kd". */
        if (*display) {
            s->name = display;
        } else {
            size_t n = strlen(name);
            s->name = n > 3 && strcmp(name + n - 3, ".kd") == 0 ? kr_arena_strndup(r->a, name, n - 3) : name;
            if (!s->name) {
                rc = oom(r);
                break;
            }
        }
        L->out->nsymbols++;
    }
    return table_done(r, &t, more, rc, ids);
}

/* id -> one integer column of an optional table (tracks: agent_id;
 * timestamps: value; events: correlation_id). */
static int read_pairs(load *L, const char *base, const char *suffix, const char *column, int required, vec *out,
                      int *present)
{
    const col cols[2] = {{"id", 1}, {column, 0}};
    rdb *r = &L->r;
    table t;
    int rc = table_open(r, &t, base, suffix, cols, 2, required, present);
    if (rc || !*present)
        return rc;
    if (!has(&t, 1)) {       /* e.g. schema 3's rocpd_track has no agent_id */
        table_close(&t);
        *present = 0;
        return 0;
    }
    int more;
    while ((more = table_next(r, &t)) == 1) {
        id_val *p = vec_push(out);
        if (!p) {
            rc = oom(r);
            break;
        }
        if ((rc = get_int(r, &t, 0, 0, &p->id)) || (rc = get_int(r, &t, 1, -1, &p->val)))
            break;
    }
    return table_done(r, &t, more, rc, out);
}

enum {
    KD_ID, KD_AGENT, KD_TRACK, KD_KERNEL, KD_DISPATCH, KD_START, KD_END, KD_START_ID, KD_END_ID,
    KD_PRIVATE, KD_GROUP, KD_WGX, KD_WGY, KD_WGZ, KD_GX, KD_GY, KD_GZ, KD_EVENT, KD_N
};

typedef struct run_ctx {
    const char *suffix;
    vec agent_ids, syms, sym_ids, tracks, stamps, events;
    int has_tracks, has_stamps, has_events;
    vec event_dispatch;      /* id_val: event_id -> index into L->dispatches */
} run_ctx;

static int64_t lds_block(int64_t bytes)
{
    /* rocprofv3 writes LDS_Block_Size rounded up to 512 bytes (docs/formats.md#kernel-trace-csv). */
    return bytes <= 0 ? bytes : (bytes + 511) / 512 * 512;
}

static int read_dispatches(load *L, run_ctx *x)
{
    static const col cols[KD_N] = {
        [KD_ID] = {"id", 0}, [KD_AGENT] = {"agent_id", 0}, [KD_TRACK] = {"track_id", 0},
        [KD_KERNEL] = {"kernel_id", 1}, [KD_DISPATCH] = {"dispatch_id", 1},
        [KD_START] = {"start", 0}, [KD_END] = {"end", 0}, [KD_START_ID] = {"start_id", 0}, [KD_END_ID] = {"end_id", 0},
        [KD_PRIVATE] = {"private_segment_size", 0}, [KD_GROUP] = {"group_segment_size", 0},
        [KD_WGX] = {"workgroup_size_x", 1}, [KD_WGY] = {"workgroup_size_y", 1}, [KD_WGZ] = {"workgroup_size_z", 1},
        [KD_GX] = {"grid_size_x", 1}, [KD_GY] = {"grid_size_y", 1}, [KD_GZ] = {"grid_size_z", 1},
        [KD_EVENT] = {"event_id", 0},
    };
    rdb *r = &L->r;
    table t;
    int present, rc = table_open(r, &t, "rocpd_kernel_dispatch", x->suffix, cols, KD_N, 1, &present);
    if (rc)
        return rc;
    int by_agent = has(&t, KD_AGENT), by_track = has(&t, KD_TRACK);
    int by_time = has(&t, KD_START) && has(&t, KD_END);
    int by_stamp = has(&t, KD_START_ID) && has(&t, KD_END_ID);
    if (!by_agent && !(by_track && x->has_tracks))
        rc = kr_err_set(r->err, KR_INPUT, r->fname, t.name,
                        "table %s has no column agent_id, nor track_id with a table rocpd_track%s (`kreport help formats`)",
                        t.name, x->suffix);
    else if (!by_time && !(by_stamp && x->has_stamps))
        rc = kr_err_set(r->err, KR_INPUT, r->fname, t.name,
                        "table %s has no columns start and end, nor start_id and end_id with a table "
                        "rocpd_timestamp%s (`kreport help formats`)", t.name, x->suffix);
    int more = 0;
    while (!rc && (more = table_next(r, &t)) == 1) {
        kr_dispatch *d = vec_push(&L->dispatches);
        if (!d) {
            rc = oom(r);
            break;
        }
        int64_t agent_ref, kernel, did, start, end, priv, group, event, dims[6];
        if ((rc = get_int(r, &t, by_agent ? KD_AGENT : KD_TRACK, -1, &agent_ref)) ||
            (rc = get_int(r, &t, KD_KERNEL, 0, &kernel)) || (rc = get_uint(r, &t, KD_DISPATCH, 0, &did)) ||
            (rc = get_int(r, &t, by_time ? KD_START : KD_START_ID, -1, &start)) ||
            (rc = get_int(r, &t, by_time ? KD_END : KD_END_ID, -1, &end)) ||
            (rc = get_uint(r, &t, KD_PRIVATE, -1, &priv)) || (rc = get_uint(r, &t, KD_GROUP, -1, &group)) ||
            (rc = get_int(r, &t, KD_EVENT, -1, &event)))
            break;
        for (int k = 0; k < 6 && !rc; k++) {
            rc = get_uint(r, &t, KD_WGX + k, 0, &dims[k]);
            if (!rc && dims[k] > (int64_t)UINT32_MAX)
                rc = row_err(r, &t, KD_WGX + k, "larger than 4294967295");
        }
        if (rc)
            break;
        /* The agent: directly (schema 3) or through the track (schema 4). */
        int64_t agent_id = agent_ref;
        if (!by_agent) {
            const id_val *tr = find_val(&x->tracks, agent_ref);
            if (!tr) {
                rc = row_err(r, &t, KD_TRACK, "names no row of rocpd_track");
                break;
            }
            agent_id = tr->val;
        }
        const id_val *ag = find_val(&x->agent_ids, agent_id);
        if (!ag) {
            rc = row_err(r, &t, by_agent ? KD_AGENT : KD_TRACK, "names no agent of rocpd_info_agent");
            break;
        }
        const id_val *sr = find_val(&x->sym_ids, kernel);
        if (!sr) {
            rc = row_err(r, &t, KD_KERNEL, "names no kernel symbol of rocpd_info_kernel_symbol");
            break;
        }
        if (!by_time) {
            const id_val *s0 = find_val(&x->stamps, start), *s1 = find_val(&x->stamps, end);
            if (!s0 || !s1) {
                rc = row_err(r, &t, s0 ? KD_END_ID : KD_START_ID, "names no row of rocpd_timestamp");
                break;
            }
            start = s0->val;
            end = s1->val;
        }
        if (start < 0 || end < 0) {
            rc = row_err(r, &t, by_time ? KD_START : KD_START_ID, "negative or missing timestamp");
            break;
        }
        const kr_agent *agent = &((const kr_agent *)L->agents.v)[ag->val];
        const sym *s = &((const sym *)x->syms.v)[sr->val];
        d->dispatch_id = (uint64_t)did;
        d->kernel_id = (uint64_t)kernel;
        d->agent = agent->logical_node_id;
        d->kernel_name = s->name;
        d->start_ns = (uint64_t)start;
        d->end_ns = (uint64_t)end;
        d->lds_bytes = lds_block(group >= 0 ? group : s->lds);
        d->scratch_bytes = priv >= 0 ? priv : s->scratch;
        d->vgpr = s->vgpr;
        d->accum_vgpr = s->accum;
        d->sgpr = s->sgpr;
        for (int k = 0; k < 3; k++) {
            d->wg[k] = (uint32_t)dims[k];
            d->grid[k] = (uint32_t)dims[3 + k];
        }
        if (event >= 0) {
            if (x->has_events) {
                const id_val *ev = find_val(&x->events, event);
                if (ev && ev->val >= 0)
                    d->correlation_id = (uint64_t)ev->val;
            }
            id_val *ed = vec_push(&x->event_dispatch);
            if (!ed) {
                rc = oom(r);
                break;
            }
            ed->id = event;
            ed->val = (int64_t)(L->dispatches.n - 1);
        }
    }
    return table_done(r, &t, more, rc, &x->event_dispatch);
}

enum { PE_EVENT, PE_PMC, PE_VALUE, PE_SAMPLE, PE_N };

static int read_counters(load *L, run_ctx *x)
{
    static const col pmc_cols[2] = {{"id", 1}, {"name", 1}};
    static const col ev_cols[PE_N] = {
        [PE_EVENT] = {"event_id", 1}, [PE_PMC] = {"pmc_id", 1}, [PE_VALUE] = {"value", 1}, [PE_SAMPLE] = {"sample_id", 0},
    };
    rdb *r = &L->r;
    table t;
    int present, rc = table_open(r, &t, "rocpd_info_pmc", x->suffix, pmc_cols, 2, 0, &present);
    if (rc || !present)
        return rc;
    vec names = {.size = sizeof(const char *)}, ids = {.size = sizeof(id_val)};
    int more;
    while ((more = table_next(r, &t)) == 1) {
        const char **nm = vec_push(&names);
        id_val *ir = vec_push(&ids);
        if (!nm || !ir) {
            rc = oom(r);
            break;
        }
        if ((rc = get_int(r, &t, 0, 0, &ir->id)) || (rc = get_text(r, &t, 1, nm)))
            break;
        ir->val = (int64_t)names.n - 1;
        const char **all = vec_push(&L->pmc_names);
        if (!all) {
            rc = oom(r);
            break;
        }
        *all = *nm;
    }
    if (!rc && more < 0)
        rc = r->err->code;
    table_close(&t);
    if (!rc)
        sort_ids(&ids);
    if (!rc)
        rc = table_open(r, &t, "rocpd_pmc_event", x->suffix, ev_cols, PE_N, 0, &present);
    if (!rc && present) {
        while ((more = table_next(r, &t)) == 1) {
            int64_t event, pmc, sample;
            if ((rc = get_int(r, &t, PE_SAMPLE, -1, &sample)))
                break;
            if (has(&t, PE_SAMPLE) && sqlite3_column_type(t.st, t.idx[PE_SAMPLE]) != SQLITE_NULL)
                continue;    /* an SPM sample, not a dispatch's value (schema 3.0.3) */
            if ((rc = get_int(r, &t, PE_EVENT, -1, &event)) || (rc = get_int(r, &t, PE_PMC, 0, &pmc)))
                break;
            int vt = sqlite3_column_type(t.st, t.idx[PE_VALUE]);
            if (vt != SQLITE_INTEGER && vt != SQLITE_FLOAT) {
                rc = row_err(r, &t, PE_VALUE, "expected a number");
                break;
            }
            const id_val *ed = event >= 0 ? find_val(&x->event_dispatch, event) : NULL;
            if (!ed)
                continue;    /* not a kernel dispatch's counter (e.g. a device counter) */
            const id_val *pr = find_val(&ids, pmc);
            if (!pr) {
                rc = row_err(r, &t, PE_PMC, "names no counter of rocpd_info_pmc");
                break;
            }
            pmc_value *v = vec_push(&L->values);
            if (!v) {
                rc = oom(r);
                break;
            }
            v->dispatch = (size_t)ed->val;
            v->counter = ((const char **)names.v)[pr->val];
            v->value = sqlite3_column_double(t.st, t.idx[PE_VALUE]);
            v->order = L->values.n - 1;
        }
        if (!rc && more < 0)
            rc = r->err->code;
        table_close(&t);
    }
    free(names.v);
    free(ids.v);
    return rc;
}

static int read_version(load *L, const char *suffix, const char **version)
{
    static const col cols[2] = {{"tag", 1}, {"value", 1}};
    rdb *r = &L->r;
    table t;
    int present, rc = table_open(r, &t, "rocpd_metadata", suffix, cols, 2, 1, &present);
    if (rc)
        return rc;
    *version = NULL;
    int more;
    while ((more = table_next(r, &t)) == 1) {
        const char *tag, *value;
        if ((rc = get_text(r, &t, 0, &tag)) || (rc = get_text(r, &t, 1, &value)))
            break;
        if (strcmp(tag, "schema_version") == 0 && !*version)
            *version = value;
    }
    if (!rc && more < 0)
        rc = r->err->code;
    table_close(&t);
    if (!rc && !*version)
        rc = kr_err_set(r->err, KR_INPUT, r->fname, t.name, "table %s has no schema_version row (`kreport help formats`)",
                        t.name);
    return rc;
}

/* Major number of "3", "3.0.3", "4.1.0"; -1 when not of that form. */
static int version_major(const char *v)
{
    int major = 0, digits = 0;
    for (; *v >= '0' && *v <= '9' && digits < 4; v++, digits++)
        major = major * 10 + (*v - '0');
    if (!digits)
        return -1;
    for (; *v; v++)
        if (!(*v == '.' || (*v >= '0' && *v <= '9')))
            return -1;
    return major;
}

static int read_run(load *L, const char *suffix)
{
    rdb *r = &L->r;
    run_ctx x;
    memset(&x, 0, sizeof x);
    x.suffix = suffix;
    x.agent_ids.size = x.sym_ids.size = sizeof(id_val);
    x.syms.size = sizeof(sym);
    x.tracks.size = x.stamps.size = x.events.size = x.event_dispatch.size = sizeof(id_val);
    const char *version;
    int rc = read_version(L, suffix, &version);
    int major = rc ? 0 : version_major(version);
    if (!rc && major != 3 && major != 4)
        rc = kr_err_set(r->err, KR_INPUT, r->fname, NULL,
                        "rocpd schema version \"%.40s\" (rocpd_metadata%s) is not one kreport reads (3.x, 4.x; "
                        "`kreport help formats`)", version, suffix);
    if (!rc && !L->out->schema_version) {
        L->out->schema_version = version;
        L->out->schema_major = major;
    }
    if (!rc)
        rc = read_agents(L, suffix, &x.agent_ids);
    if (!rc)
        rc = read_symbols(L, suffix, &x.syms, &x.sym_ids);
    if (!rc)
        rc = read_pairs(L, "rocpd_track", suffix, "agent_id", 0, &x.tracks, &x.has_tracks);
    if (!rc)
        rc = read_pairs(L, "rocpd_timestamp", suffix, "value", 0, &x.stamps, &x.has_stamps);
    if (!rc)
        rc = read_pairs(L, "rocpd_event", suffix, "correlation_id", 0, &x.events, &x.has_events);
    if (!rc)
        rc = read_dispatches(L, &x);
    if (!rc)
        rc = read_counters(L, &x);
    free(x.agent_ids.v);
    free(x.syms.v);
    free(x.sym_ids.v);
    free(x.tracks.v);
    free(x.stamps.v);
    free(x.events.v);
    free(x.event_dispatch.v);
    return rc;
}

/* Table suffixes of the runs: "" for a plain rocpd_metadata table,
 * "_<uuid>" for rocpd_metadata_<uuid>, in name order. */
static int list_runs(load *L, char ***out, size_t *n)
{
    rdb *r = &L->r;
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(r->db,
                                "SELECT name FROM sqlite_master WHERE type = 'table' AND "
                                "substr(name, 1, 14) = 'rocpd_metadata' ORDER BY name", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return sql_fail(r, "sqlite_master", rc);
    size_t cap = 0;
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        const char *suffix = name ? name + 14 : "";
        size_t len = name ? strlen(suffix) : 0;
        int ok = name && (len == 0 || (suffix[0] == '_' && len > 1 && len < MAX_SUFFIX));
        for (size_t i = 1; ok && i < len; i++)
            ok = (suffix[i] >= '0' && suffix[i] <= '9') || (suffix[i] >= 'a' && suffix[i] <= 'z') ||
                 (suffix[i] >= 'A' && suffix[i] <= 'Z') || suffix[i] == '_';
        if (!ok)
            continue;    /* another table whose name starts alike */
        if (*n == cap) {
            cap = cap ? cap * 2 : 4;
            char **grown = realloc(*out, cap * sizeof *grown);
            if (!grown) {
                sqlite3_finalize(st);
                return oom(r);
            }
            *out = grown;
        }
        if (!((*out)[*n] = strdup(suffix))) {
            sqlite3_finalize(st);
            return oom(r);
        }
        (*n)++;
    }
    sqlite3_finalize(st);
    if (s != SQLITE_DONE)
        return sql_fail(r, "sqlite_master", s);
    if (*n == 0)
        return kr_err_set(r->err, KR_INPUT, r->fname, NULL,
                          "an SQLite database but not a rocpd database: no table rocpd_metadata or "
                          "rocpd_metadata_<uuid> (`kreport help formats`; rocprofv3 writes <pid>_results.db)");
    return 0;
}

static int cmp_value(const void *a, const void *b)
{
    const pmc_value *x = a, *y = b;
    if (x->dispatch != y->dispatch)
        return x->dispatch < y->dispatch ? -1 : 1;
    int c = strcmp(x->counter, y->counter);
    if (c)
        return c;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int same_str(const char *a, const char *b) { return strcmp(a ? a : "", b ? b : "") == 0; }

static int same_agent(const kr_agent *a, const kr_agent *b)
{
    return a->handle == b->handle && a->type == b->type && a->node_id == b->node_id &&
           a->logical_node_id == b->logical_node_id && a->gfx_target_version == b->gfx_target_version &&
           a->cu_count == b->cu_count && same_str(a->name, b->name) && same_str(a->product_name, b->product_name);
}

/* Builds the model from the per-run arrays. */
static int finish(load *L)
{
    rdb *r = &L->r;
    kr_rocpd *o = L->out;
    kr_kernel_trace *kt = kr_arena_alloc(r->a, sizeof *kt);
    kr_agent_info *ai = kr_arena_alloc(r->a, sizeof *ai);
    if (!kt || !ai)
        return oom(r);
    memset(kt, 0, sizeof *kt);
    memset(ai, 0, sizeof *ai);
    kt->path = ai->path = o->path;
    kt->agent_index = KR_AGENT_RELATIVE;
    kt->rows = kr_arena_array(r->a, L->dispatches.n + 1, sizeof *kt->rows);
    ai->agents = kr_arena_array(r->a, L->agents.n + 1, sizeof *ai->agents);
    if (!kt->rows || !ai->agents)
        return oom(r);
    if (L->dispatches.n)
        memcpy(kt->rows, L->dispatches.v, L->dispatches.n * sizeof *kt->rows);
    kt->nrows = L->dispatches.n;
    /* Runs merged from one machine repeat its agents: each is kept once. */
    const kr_agent *ag = L->agents.v;
    for (size_t i = 0; i < L->agents.n; i++) {
        size_t k = 0;
        while (k < ai->nagents && !same_agent(&ai->agents[k], &ag[i]))
            k++;
        if (k == ai->nagents)
            ai->agents[ai->nagents++] = ag[i];
    }
    o->trace = kt;
    o->agents = ai;
    o->agent_handles = (uint8_t)L->gpu_handles;
    /* Counter definitions: distinct names over all runs. */
    const char **names = L->pmc_names.v;
    if (L->pmc_names.n)
        qsort(names, L->pmc_names.n, sizeof *names, cmp_str);
    for (size_t i = 0; i < L->pmc_names.n; i++)
        o->npmc += i == 0 || strcmp(names[i], names[i - 1]) != 0;

    /* Counters: one value per (dispatch, counter), summed over its rows. */
    pmc_value *v = L->values.v;
    if (L->values.n)
        qsort(v, L->values.n, sizeof *v, cmp_value);
    o->counters = kr_arena_array(r->a, L->values.n + 1, sizeof *o->counters);
    if (!o->counters)
        return oom(r);
    for (size_t i = 0; i < L->values.n;) {
        size_t j = i;
        double sum = 0;
        for (; j < L->values.n && v[j].dispatch == v[i].dispatch && !strcmp(v[j].counter, v[i].counter); j++)
            sum += v[j].value;
        const kr_dispatch *d = &kt->rows[v[i].dispatch];
        kr_counter_value *cv = &o->counters[o->ncounters++];
        cv->dispatch_id = d->dispatch_id;
        cv->kernel_name = d->kernel_name;
        cv->counter = v[i].counter;
        cv->value = sum;
        cv->start_ns = d->start_ns;
        cv->end_ns = d->end_ns;
        i = j;
    }
    return 0;
}

/* Reads an open, hardened connection. */
static int read_db(rdb *r, kr_rocpd **out)
{
    load L;
    memset(&L, 0, sizeof L);
    L.r = *r;
    L.agents.size = sizeof(kr_agent);
    L.dispatches.size = sizeof(kr_dispatch);
    L.values.size = sizeof(pmc_value);
    L.pmc_names.size = sizeof(const char *);
    /* The progress handler keeps the pointer harden() gave it. */
    sqlite3_progress_handler(r->db, PROGRESS_OPS, on_progress, &L.r);
    kr_rocpd *o = kr_arena_alloc(r->a, sizeof *o);
    if (!o)
        return oom(r);
    memset(o, 0, sizeof *o);
    o->path = kr_arena_strdup(r->a, r->fname);
    L.out = o;
    char **suffixes = NULL;
    size_t nruns = 0;
    int rc = list_runs(&L, &suffixes, &nruns);
    for (size_t i = 0; i < nruns && !rc; i++)
        rc = read_run(&L, suffixes[i]);
    o->nruns = nruns;
    if (!rc)
        rc = finish(&L);
    for (size_t i = 0; i < nruns; i++)
        free(suffixes[i]);
    free(suffixes);
    free(L.agents.v);
    free(L.dispatches.v);
    free(L.values.v);
    free(L.pmc_names.v);
    sqlite3_progress_handler(r->db, 0, NULL, NULL);
    if (!rc)
        *out = o;
    return rc;
}

int bundle_parse_rocpd(kr_arena *a, const char *data, size_t len, const char *fname, kr_rocpd **out, kr_err *err)
{
    *out = NULL;
    if (!bundle_rocpd_sniff(data, len))
        return kr_err_set(err, KR_INPUT, fname, NULL, "not an SQLite database (no \"SQLite format 3\" header)");
    rdb r = {0};
    r.fname = fname;
    r.err = err;
    r.a = a;
    int rc = sqlite3_open_v2(":memory:", &r.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        rc = sql_fail(&r, NULL, rc);
        sqlite3_close(r.db);
        return rc;
    }
    harden(&r);
    /* READONLY: SQLite never writes the buffer, which stays the caller's. */
    rc = sqlite3_deserialize(r.db, "main", (unsigned char *)(uintptr_t)data, (sqlite3_int64)len,
                             (sqlite3_int64)len, SQLITE_DESERIALIZE_READONLY);
    rc = rc == SQLITE_OK ? read_db(&r, out) : sql_fail(&r, NULL, rc);
    sqlite3_close(r.db);
    return rc;
}

/* "file:" URI of path with every byte outside [A-Za-z0-9/._-] %-escaped. */
static char *file_uri(const char *path)
{
    size_t n = strlen(path);
    char *u = malloc(n * 3 + 64);
    if (!u)
        return NULL;
    char *p = u + sprintf(u, "file:");
    for (const unsigned char *s = (const unsigned char *)path; *s; s++) {
        if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '/' ||
            *s == '.' || *s == '_' || *s == '-')
            *p++ = (char)*s;
        else
            p += sprintf(p, "%%%02X", *s);
    }
    strcpy(p, "?mode=ro&immutable=1");
    return u;
}

int bundle_load_rocpd(kr_arena *a, const char *path, kr_rocpd **out, kr_err *err)
{
    *out = NULL;
    char magic[16];
    FILE *f = fopen(path, "rb");
    if (!f)
        return kr_err_set(err, KR_INPUT, path, NULL, "cannot open");
    size_t got = fread(magic, 1, sizeof magic, f);
    fclose(f);
    if (!bundle_rocpd_sniff(magic, got))
        return kr_err_set(err, KR_INPUT, path, NULL, "not an SQLite database (no \"SQLite format 3\" header)");
    char *uri = file_uri(path);
    if (!uri)
        return kr_err_set(err, KR_INTERNAL, path, NULL, "out of memory");
    rdb r = {0};
    r.fname = path;
    r.err = err;
    r.a = a;
    int rc = sqlite3_open_v2(uri, &r.db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
    free(uri);
    if (rc == SQLITE_OK) {
        harden(&r);
        rc = read_db(&r, out);
    } else {
        rc = sql_fail(&r, NULL, rc);
    }
    sqlite3_close(r.db);
    return rc;
}

int bundle_load_rocpd_src(kr_arena *a, const bundle_source *src, const char *path, kr_rocpd **out, kr_err *err)
{
    if (!bundle_source_archive(src))
        return bundle_load_rocpd(a, path, out, err);
    bundle_blob b;
    int rc = bundle_source_read(src, path, KR_MAX_FILE_BYTES, &b, err);
    if (rc)
        return rc;
    rc = bundle_parse_rocpd(a, b.data, b.len, path, out, err);
    bundle_blob_free(&b);
    return rc;
}

const kr_agent *bundle_rocpd_agent(const kr_rocpd *db, int has_handle, uint64_t handle, char *note, size_t cap)
{
    const kr_agent *only = NULL;
    size_t ngpu = 0;
    for (size_t i = 0; i < db->agents->nagents; i++) {
        const kr_agent *g = &db->agents->agents[i];
        if (g->type != 2)
            continue;
        ngpu++;
        if (!only)
            only = g;
        if (has_handle && g->handle && g->handle == handle) {
            snprintf(note, cap, "GPU agent %s (logical index %" PRId64 ") has the capture's handle %" PRIu64,
                     g->name, g->logical_node_id, handle);
            return g;
        }
    }
    if (ngpu == 1) {
        snprintf(note, cap, "the only GPU agent, %s (logical index %" PRId64 ")%s", only->name,
                 only->logical_node_id,
                 !has_handle ? "" : db->agent_handles ? ", although its handle differs from the capture's"
                                                      : "; the database carries no agent handles to check");
        return only;
    }
    if (ngpu == 0)
        snprintf(note, cap, "no GPU agent in the database");
    else
        snprintf(note, cap,
                 "%zu GPU agents and %s: which one ran the capture is ambiguous (the first, %s, serves "
                 "as with agent_info.csv)", ngpu,
                 db->agent_handles ? "none has the capture's handle" : "no agent handles in the database",
                 only->name);
    return NULL;
}
