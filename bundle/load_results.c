/* load_results.c — see load_results.h. Keys and dialects: docs/formats.md#results-json. */
#include "bundle/load_results.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "common/limits.h"

/* ---- integers above 2^63 - 1 ----
 * jansson stores integers as signed 64-bit and refuses larger literals. Before
 * parsing, each non-negative integer literal in (2^63 - 1, 2^64 - 1] is
 * rewritten as a JSON string holding a marker and its digits; the unsigned
 * readers below accept that string, every other reader reports it. */

#define BIG_MARK "\x01u64:"                 /* what the string decodes to */
#define BIG_MARK_JSON "\"\\u0001u64:"       /* how it is written before the digits */
#define BIG_MARK_LEN 5
#define BIG_ADDED (sizeof BIG_MARK_JSON - 1 + 1)   /* bytes added per literal */

typedef struct big_ints {
    char *text;              /* rewritten input (malloc), NULL when none needed */
    size_t len;
    size_t *new_start;       /* offset of each rewritten literal in text */
    size_t n;
} big_ints;

static int is_digit(char c) { return c >= '0' && c <= '9'; }

static void offset_to_line_col(const char *data, size_t len, size_t off, size_t *line, size_t *col)
{
    size_t l = 1, start = 0;
    if (off > len)
        off = len;
    for (size_t i = 0; i < off; i++)
        if (data[i] == '\n') {
            l++;
            start = i + 1;
        }
    *line = l;
    *col = off - start + 1;
}

/* digits[0..n) compared with the decimal limit (same length or shorter wins). */
static int digits_exceed(const char *digits, size_t n, const char *limit)
{
    size_t m = strlen(limit);
    if (n != m)
        return n > m;
    return memcmp(digits, limit, n) > 0;
}

static int find_big_ints(const char *data, size_t len, const char *fname, big_ints *b, kr_err *err)
{
    memset(b, 0, sizeof *b);
    size_t *starts = NULL, n = 0, cap = 0;
    int in_str = 0;
    size_t i = 0;
    while (i < len) {
        char ch = data[i];
        if (in_str) {
            if (ch == '\\')
                i += 2;
            else {
                if (ch == '"')
                    in_str = 0;
                i++;
            }
            continue;
        }
        if (ch == '"') {
            in_str = 1;
            i++;
            continue;
        }
        if (ch != '-' && !is_digit(ch)) {
            i++;
            continue;
        }
        int neg = ch == '-';
        size_t ds = i + (size_t)neg, de = ds;
        while (de < len && is_digit(data[de]))
            de++;
        i = de;
        if (de < len && (data[de] == '.' || data[de] == 'e' || data[de] == 'E')) {
            while (i < len && (is_digit(data[i]) || data[i] == '.' || data[i] == 'e' || data[i] == 'E' ||
                               data[i] == '+' || data[i] == '-'))
                i++;
            continue;
        }
        size_t nd = de - ds;
        if (neg || nd == 0 || (nd > 1 && data[ds] == '0'))
            continue;      /* jansson reports these itself */
        if (!digits_exceed(data + ds, nd, "9223372036854775807"))
            continue;
        if (digits_exceed(data + ds, nd, "18446744073709551615")) {
            size_t line, col;
            offset_to_line_col(data, len, ds, &line, &col);
            char where[64];
            snprintf(where, sizeof where, "%zu:%zu", line, col);
            free(starts);
            return kr_err_set(err, KR_INPUT, fname, where,
                              "integer %.*s%s exceeds 2^64 - 1", nd > 40 ? 40 : (int)nd, data + ds,
                              nd > 40 ? "..." : "");
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            size_t *s = realloc(starts, cap * sizeof *s);
            if (!s) {
                free(starts);
                return kr_err_set(err, KR_INTERNAL, fname, NULL, "out of memory");
            }
            starts = s;
        }
        starts[n++] = ds;
    }
    if (n == 0)
        return 0;

    size_t out_len = len + n * BIG_ADDED;
    char *text = malloc(out_len + 1);
    if (!text) {
        free(starts);
        return kr_err_set(err, KR_INTERNAL, fname, NULL, "out of memory");
    }
    size_t src = 0, dst = 0;
    for (size_t k = 0; k < n; k++) {
        size_t ds = starts[k], de = ds;
        while (de < len && is_digit(data[de]))
            de++;
        memcpy(text + dst, data + src, ds - src);
        dst += ds - src;
        starts[k] = dst;     /* now the offset in the rewritten text */
        memcpy(text + dst, BIG_MARK_JSON, sizeof BIG_MARK_JSON - 1);
        dst += sizeof BIG_MARK_JSON - 1;
        memcpy(text + dst, data + ds, de - ds);
        dst += de - ds;
        text[dst++] = '"';
        src = de;
    }
    memcpy(text + dst, data + src, len - src);
    dst += len - src;
    text[dst] = '\0';
    b->text = text;
    b->len = dst;
    b->new_start = starts;
    b->n = n;
    return 0;
}

/* Maps an offset in the rewritten text back to the original input. */
static size_t original_offset(const big_ints *b, size_t off)
{
    size_t k = 0;
    while (k < b->n && b->new_start[k] < off)
        k++;
    if (k == 0)
        return off;
    /* Inside the k-th rewritten literal's added bytes: point at its start. */
    size_t orig_start = b->new_start[k - 1] - (k - 1) * BIG_ADDED;
    size_t orig = off - k * BIG_ADDED;
    return off < k * BIG_ADDED || orig < orig_start ? orig_start : orig;
}

static int parse_json(const char *data, size_t len, const char *fname, json_t **root, kr_err *err)
{
    big_ints b;
    *root = NULL;
    if (len >= 3 && (unsigned char)data[0] == 0xEF && (unsigned char)data[1] == 0xBB &&
        (unsigned char)data[2] == 0xBF) {
        data += 3;     /* a UTF-8 byte-order mark; positions count from after it */
        len -= 3;
    }
    int rc = find_big_ints(data, len, fname, &b, err);
    if (rc)
        return rc;
    json_error_t je;
    json_t *j = json_loadb(b.text ? b.text : data, b.text ? b.len : len, JSON_REJECT_DUPLICATES, &je);
    if (!j) {
        size_t off = je.position > 0 ? (size_t)je.position : 0;
        if (b.text)
            off = original_offset(&b, off);
        size_t line, col;
        offset_to_line_col(data, len, off, &line, &col);
        char where[64];
        snprintf(where, sizeof where, "%zu:%zu", line, col);
        rc = kr_err_set(err, KR_INPUT, fname, where, "invalid JSON: %s", je.text);
    }
    free(b.text);
    free(b.new_start);
    *root = j;
    return rc;
}

/* ---- typed readers with JSON paths ---- */

/* A path cut at the buffer's end ends in "..." (kr_err.where is bounded too). */
static void mark_truncated(char *buf, size_t cap, int n)
{
    if ((n < 0 || (size_t)n >= cap) && cap >= 4)
        memcpy(buf + cap - 4, "...", 4);
}

/* Element path "parent.key[i]". */
static void elem_path(char *buf, size_t cap, const char *parent, const char *key, size_t i)
{
    int n = snprintf(buf, cap, "%s.%s[%zu]", parent, key, i);
    mark_truncated(buf, cap, n);
}

/* Path "parent.key". */
static void sub_path(char *buf, size_t cap, const char *parent, const char *key)
{
    int n = snprintf(buf, cap, "%s.%s", parent, key);
    mark_truncated(buf, cap, n);
}

typedef struct ctx {
    kr_arena *a;
    const char *fname;
    kr_err *err;
} ctx;

static int is_big(json_t *v)
{
    return json_is_string(v) && json_string_length(v) > BIG_MARK_LEN &&
           memcmp(json_string_value(v), BIG_MARK, BIG_MARK_LEN) == 0;
}

static const char *jtype(json_t *v)
{
    if (is_big(v))
        return "an integer above 2^63 - 1";
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE: case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

static int at_err(ctx *c, const char *path, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int at_err(ctx *c, const char *path, const char *key, const char *fmt, ...)
{
    char where[256], msg[512];
    if (key)
        sub_path(where, sizeof where, path, key);
    else
        snprintf(where, sizeof where, "%s", path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return kr_err_set(c->err, KR_INPUT, c->fname, where, "%s", msg);
}

static int type_err(ctx *c, const char *path, const char *key, const char *expected, json_t *v)
{
    return at_err(c, path, key, "expected %s, found %s", expected, jtype(v));
}

static int oom(ctx *c) { return kr_err_set(c->err, KR_INTERNAL, c->fname, NULL, "out of memory"); }

/* Child of obj, NULL when absent or null. */
static json_t *child(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return v && !json_is_null(v) ? v : NULL;
}

static int missing(ctx *c, const char *path, const char *key)
{
    return at_err(c, path, key, "missing required key \"%s\"", key);
}

static int val_u64(ctx *c, json_t *v, const char *path, const char *key, uint64_t *out)
{
    if (json_is_integer(v)) {
        json_int_t x = json_integer_value(v);
        if (x < 0)
            return at_err(c, path, key, "expected a non-negative integer, found %lld", (long long)x);
        *out = (uint64_t)x;
        return 0;
    }
    if (is_big(v)) {
        const char *s = json_string_value(v) + BIG_MARK_LEN;
        uint64_t x = 0;
        for (; *s; s++)
            x = x * 10 + (uint64_t)(*s - '0');   /* range checked before parsing */
        *out = x;
        return 0;
    }
    return type_err(c, path, key, "a non-negative integer", v);
}

static int val_i64(ctx *c, json_t *v, const char *path, const char *key, int64_t *out)
{
    if (json_is_integer(v)) {
        *out = (int64_t)json_integer_value(v);
        return 0;
    }
    if (is_big(v))
        return at_err(c, path, key, "integer %s exceeds the signed 64-bit range",
                      json_string_value(v) + BIG_MARK_LEN);
    return type_err(c, path, key, "an integer", v);
}

static int f_u64(ctx *c, json_t *obj, const char *path, const char *key, int req, uint64_t *out)
{
    json_t *v = child(obj, key);
    if (!v)
        return req ? missing(c, path, key) : 0;
    return val_u64(c, v, path, key, out);
}

static int f_i64(ctx *c, json_t *obj, const char *path, const char *key, int req, int64_t *out)
{
    json_t *v = child(obj, key);
    if (!v)
        return req ? missing(c, path, key) : 0;
    return val_i64(c, v, path, key, out);
}

static int f_u32(ctx *c, json_t *obj, const char *path, const char *key, int req, uint32_t *out)
{
    uint64_t x = *out;
    int rc = f_u64(c, obj, path, key, req, &x);
    if (rc)
        return rc;
    if (x > UINT32_MAX)
        return at_err(c, path, key, "value %llu exceeds 2^32 - 1", (unsigned long long)x);
    *out = (uint32_t)x;
    return 0;
}

static int f_str(ctx *c, json_t *obj, const char *path, const char *key, int req, const char **out)
{
    json_t *v = child(obj, key);
    if (!v)
        return req ? missing(c, path, key) : 0;
    if (!json_is_string(v) || is_big(v))
        return type_err(c, path, key, "a string", v);
    if (!(*out = kr_arena_strndup(c->a, json_string_value(v), json_string_length(v))))
        return oom(c);
    return 0;
}

static int f_obj(ctx *c, json_t *obj, const char *path, const char *key, int req, json_t **out)
{
    *out = NULL;
    json_t *v = child(obj, key);
    if (!v)
        return req ? missing(c, path, key) : 0;
    if (!json_is_object(v))
        return type_err(c, path, key, "an object", v);
    *out = v;
    return 0;
}

static int f_arr(ctx *c, json_t *obj, const char *path, const char *key, int req, json_t **out)
{
    *out = NULL;
    json_t *v = child(obj, key);
    if (!v)
        return req ? missing(c, path, key) : 0;
    if (!json_is_array(v))
        return type_err(c, path, key, "an array", v);
    *out = v;
    return 0;
}

/* {"handle": N} as rocprofv3 writes ids, or a bare integer. */
static int f_handle(ctx *c, json_t *obj, const char *path, const char *key, int req, uint64_t *out)
{
    json_t *v = child(obj, key);
    if (!v)
        return req ? missing(c, path, key) : 0;
    if (json_is_object(v)) {
        char sub[256];
        sub_path(sub, sizeof sub, path, key);
        return f_u64(c, v, sub, "handle", 1, out);
    }
    if (json_is_integer(v) || is_big(v))
        return val_u64(c, v, path, key, out);
    return type_err(c, path, key, "an object {\"handle\": N} or an integer", v);
}

/* ---- lookup tables used while building ---- */

typedef struct id_entry {
    uint64_t id;
    size_t index;
} id_entry;

static int cmp_id_entry(const void *pa, const void *pb)
{
    const id_entry *a = pa, *b = pb;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* Index of the first entry with id (lowest file position), or SIZE_MAX. */
static size_t id_lookup(const id_entry *e, size_t n, uint64_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (e[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && e[lo].id == id ? e[lo].index : SIZE_MAX;
}

/* ---- sections ---- */

static int build_agent(ctx *c, json_t *j, const char *path, kr_agent *g)
{
    if (!json_is_object(j))
        return type_err(c, path, NULL, "an object", j);
    int64_t *ints[] = {&g->type, &g->gfx_target_version, &g->node_id, &g->logical_node_id,
                       &g->cu_count, &g->simd_per_cu, &g->max_waves_per_simd, &g->max_waves_per_cu,
                       &g->wave_front_size, &g->lds_size_in_kb, &g->max_engine_clk_fcompute,
                       &g->num_xcc, &g->array_count, &g->gpu_id, &g->location_id, &g->drm_render_minor};
    static const char *const keys[] = {"type", "gfx_target_version", "node_id", "logical_node_id",
                                       "cu_count", "simd_per_cu", "max_waves_per_simd", "max_waves_per_cu",
                                       "wave_front_size", "lds_size_in_kb", "max_engine_clk_fcompute",
                                       "num_xcc", "array_count", "gpu_id", "location_id", "drm_render_minor"};
    int rc = f_handle(c, j, path, "id", 1, &g->handle);
    if (rc)
        return rc;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        *ints[k] = -1;
        if ((rc = f_i64(c, j, path, keys[k], k == 0, ints[k])) != 0)
            return rc;
    }
    g->name = g->product_name = "";
    if ((rc = f_str(c, j, path, "name", 0, &g->name)) || (rc = f_str(c, j, path, "product_name", 0, &g->product_name)))
        return rc;
    return 0;
}

static int build_code_object(ctx *c, json_t *j, const char *path, kr_code_object *o)
{
    if (!json_is_object(j))
        return type_err(c, path, NULL, "an object", j);
    int rc;
    o->uri = "";
    if ((rc = f_u64(c, j, path, "code_object_id", 1, &o->id)) ||
        (rc = f_handle(c, j, path, "agent_id", 0, &o->agent_handle)) ||
        (rc = f_str(c, j, path, "uri", 0, &o->uri)) ||
        (rc = f_u64(c, j, path, "load_base", 0, &o->load_base)) ||
        (rc = f_u64(c, j, path, "load_size", 0, &o->load_size)) ||
        (rc = f_i64(c, j, path, "load_delta", 0, &o->load_delta)))
        return rc;
    return 0;
}

static int build_symbol(ctx *c, json_t *j, const char *path, kr_kernel_symbol *s)
{
    if (!json_is_object(j))
        return type_err(c, path, NULL, "an object", j);
    int rc;
    s->kernel_name = s->formatted_name = s->demangled_name = "";
    s->group_segment_size = s->private_segment_size = -1;
    s->sgpr_count = s->arch_vgpr_count = s->accum_vgpr_count = -1;
    if ((rc = f_u64(c, j, path, "kernel_id", 1, &s->kernel_id)) ||
        (rc = f_u64(c, j, path, "code_object_id", 1, &s->code_object_id)) ||
        (rc = f_str(c, j, path, "kernel_name", 0, &s->kernel_name)) ||
        (rc = f_str(c, j, path, "formatted_kernel_name", 0, &s->formatted_name)) ||
        (rc = f_str(c, j, path, "demangled_kernel_name", 0, &s->demangled_name)) ||
        (rc = f_u64(c, j, path, "kernel_object", 0, &s->kernel_object)) ||
        (rc = f_u64(c, j, path, "kernel_code_entry_byte_offset", 0, &s->kernel_code_entry_byte_offset)) ||
        (rc = f_i64(c, j, path, "group_segment_size", 0, &s->group_segment_size)) ||
        (rc = f_i64(c, j, path, "private_segment_size", 0, &s->private_segment_size)) ||
        (rc = f_i64(c, j, path, "sgpr_count", 0, &s->sgpr_count)) ||
        (rc = f_i64(c, j, path, "arch_vgpr_count", 0, &s->arch_vgpr_count)) ||
        (rc = f_i64(c, j, path, "accum_vgpr_count", 0, &s->accum_vgpr_count)))
        return rc;
    return 0;
}

/* x, y, z of an optional {x, y, z} object. */
static int build_dim3(ctx *c, json_t *j, const char *path, const char *key, uint32_t v[3])
{
    json_t *o;
    int rc = f_obj(c, j, path, key, 0, &o);
    if (rc || !o)
        return rc;
    char sub[256];
    sub_path(sub, sizeof sub, path, key);
    if ((rc = f_u32(c, o, sub, "x", 1, &v[0])) || (rc = f_u32(c, o, sub, "y", 1, &v[1])) ||
        (rc = f_u32(c, o, sub, "z", 1, &v[2])))
        return rc;
    return 0;
}

static const kr_kernel_symbol *symbol_by_kernel_id(const kr_process *p, const id_entry *idx, uint64_t kid)
{
    size_t i = id_lookup(idx, p->nsymbols, kid);
    return i == SIZE_MAX ? NULL : &p->symbols[i];
}

static const char *symbol_name(const kr_kernel_symbol *s)
{
    if (!s)
        return "";
    return s->formatted_name[0] ? s->formatted_name : s->kernel_name;
}

static int build_dispatch(ctx *c, json_t *j, const char *path, const kr_process *p, const id_entry *sym_idx,
                          kr_dispatch *d)
{
    if (!json_is_object(j))
        return type_err(c, path, NULL, "an object", j);
    int rc;
    json_t *corr = child(j, "correlation_id");
    if (corr && json_is_object(corr)) {
        char sub[256];
        sub_path(sub, sizeof sub, path, "correlation_id");
        if ((rc = f_u64(c, corr, sub, "internal", 0, &d->correlation_id)) != 0)
            return rc;
    } else if (corr && (rc = val_u64(c, corr, path, "correlation_id", &d->correlation_id)) != 0) {
        return rc;
    }
    if ((rc = f_u64(c, j, path, "start_timestamp", 1, &d->start_ns)) ||
        (rc = f_u64(c, j, path, "end_timestamp", 1, &d->end_ns)))
        return rc;
    json_t *info;
    if ((rc = f_obj(c, j, path, "dispatch_info", 1, &info)) != 0)
        return rc;
    char ipath[256];
    sub_path(ipath, sizeof ipath, path, "dispatch_info");
    uint64_t agent = 0;
    d->lds_bytes = d->scratch_bytes = -1;
    if ((rc = f_handle(c, info, ipath, "agent_id", 1, &agent)) ||
        (rc = f_u64(c, info, ipath, "kernel_id", 1, &d->kernel_id)) ||
        (rc = f_u64(c, info, ipath, "dispatch_id", 1, &d->dispatch_id)) ||
        (rc = f_i64(c, info, ipath, "private_segment_size", 0, &d->scratch_bytes)) ||
        (rc = f_i64(c, info, ipath, "group_segment_size", 0, &d->lds_bytes)) ||
        (rc = build_dim3(c, info, ipath, "workgroup_size", d->wg)) ||
        (rc = build_dim3(c, info, ipath, "grid_size", d->grid)))
        return rc;
    if (agent > (uint64_t)INT64_MAX)
        return at_err(c, ipath, "agent_id", "agent handle %llu exceeds the signed 64-bit range",
                      (unsigned long long)agent);
    d->agent = (int64_t)agent;
    const kr_kernel_symbol *s = symbol_by_kernel_id(p, sym_idx, d->kernel_id);
    d->kernel_name = symbol_name(s);
    d->vgpr = s ? s->arch_vgpr_count : -1;
    d->accum_vgpr = s ? s->accum_vgpr_count : -1;
    d->sgpr = s ? s->sgpr_count : -1;
    return 0;
}

typedef struct counter_defs {
    id_entry *idx;
    const char **names;
    size_t n;
} counter_defs;

static int build_counter_defs(ctx *c, json_t *arr, const char *path, counter_defs *defs)
{
    size_t n = json_array_size(arr);
    defs->idx = kr_arena_array(c->a, n + 1, sizeof *defs->idx);
    defs->names = kr_arena_array(c->a, n + 1, sizeof *defs->names);
    if (!defs->idx || !defs->names)
        return oom(c);
    for (size_t i = 0; i < n; i++) {
        char epath[256];
        elem_path(epath, sizeof epath, path, "counters", i);
        json_t *j = json_array_get(arr, i);
        if (!json_is_object(j))
            return type_err(c, epath, NULL, "an object", j);
        int rc;
        defs->names[i] = "";
        if ((rc = f_handle(c, j, epath, "id", 1, &defs->idx[i].id)) ||
            (rc = f_str(c, j, epath, "name", 0, &defs->names[i])))
            return rc;
        defs->idx[i].index = i;
    }
    qsort(defs->idx, n, sizeof *defs->idx, cmp_id_entry);
    defs->n = n;
    return 0;
}

static int build_counter_records(ctx *c, json_t *arr, const char *path, kr_process *p, const id_entry *sym_idx,
                                 const counter_defs *defs)
{
    size_t total = 0;
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *recs = json_is_object(json_array_get(arr, i)) ? child(json_array_get(arr, i), "records") : NULL;
        if (recs && json_is_array(recs))
            total += json_array_size(recs);
    }
    p->counters = kr_arena_array(c->a, total + 1, sizeof *p->counters);
    if (!p->counters)
        return oom(c);
    size_t k = 0;
    for (size_t i = 0; i < json_array_size(arr); i++) {
        char epath[256], dpath[256], ipath[256];
        elem_path(epath, sizeof epath, path, "counter_collection", i);
        json_t *j = json_array_get(arr, i), *data, *info, *recs;
        if (!json_is_object(j))
            return type_err(c, epath, NULL, "an object", j);
        int rc;
        if ((rc = f_obj(c, j, epath, "dispatch_data", 1, &data)) != 0)
            return rc;
        sub_path(dpath, sizeof dpath, epath, "dispatch_data");
        if ((rc = f_obj(c, data, dpath, "dispatch_info", 1, &info)) != 0)
            return rc;
        sub_path(ipath, sizeof ipath, dpath, "dispatch_info");
        uint64_t dispatch_id = 0, kernel_id = 0;
        int have_kernel = child(info, "kernel_id") != NULL;
        if ((rc = f_u64(c, info, ipath, "dispatch_id", 1, &dispatch_id)) ||
            (rc = f_u64(c, info, ipath, "kernel_id", 0, &kernel_id)) ||
            (rc = f_arr(c, j, epath, "records", 1, &recs)))
            return rc;
        const char *kname = have_kernel ? symbol_name(symbol_by_kernel_id(p, sym_idx, kernel_id)) : "";
        for (size_t r = 0; r < json_array_size(recs); r++) {
            char rpath[256];
            elem_path(rpath, sizeof rpath, epath, "records", r);
            json_t *rec = json_array_get(recs, r);
            if (!json_is_object(rec))
                return type_err(c, rpath, NULL, "an object", rec);
            uint64_t cid;
            if ((rc = f_handle(c, rec, rpath, "counter_id", 1, &cid)) != 0)
                return rc;
            json_t *v = child(rec, "value");
            if (!v)
                return missing(c, rpath, "value");
            if (!json_is_number(v))
                return type_err(c, rpath, "value", "a number", v);
            kr_counter_value *cv = &p->counters[k++];
            cv->dispatch_id = dispatch_id;
            cv->kernel_name = kname;
            cv->value = json_number_value(v);
            size_t di = id_lookup(defs->idx, defs->n, cid);
            if (di != SIZE_MAX && defs->names[di][0])
                cv->counter = defs->names[di];
            else if (!(cv->counter = kr_arena_printf(c->a, "counter_%llu", (unsigned long long)cid)))
                return oom(c);
        }
    }
    p->ncounters = k;
    return 0;
}

static int build_strings(ctx *c, json_t *pj, const char *path, kr_process *p)
{
    json_t *strs, *att, *snaps;
    int rc = f_obj(c, pj, path, "strings", 0, &strs);
    if (rc || !strs)
        return rc;
    char spath[256];
    sub_path(spath, sizeof spath, path, "strings");
    if ((rc = f_arr(c, strs, spath, "att_filenames", 0, &att)) != 0)
        return rc;
    if (att) {
        size_t n = json_array_size(att);
        if (!(p->att_filenames = kr_arena_array(c->a, n + 1, sizeof *p->att_filenames)))
            return oom(c);
        for (size_t i = 0; i < n; i++) {
            json_t *v = json_array_get(att, i);
            char epath[256];
            elem_path(epath, sizeof epath, spath, "att_filenames", i);
            if (!json_is_string(v) || is_big(v))
                return type_err(c, epath, NULL, "a string", v);
            if (!(p->att_filenames[i] = kr_arena_strndup(c->a, json_string_value(v), json_string_length(v))))
                return oom(c);
        }
        p->natt_filenames = n;
    }
    /* Real files: an array of strings indexed by code object id; the schema:
     * {key, value} objects (docs/formats.md#results-json dialect notes). Checked, not kept. */
    snaps = child(strs, "code_object_snapshot_filenames");
    if (snaps) {
        if (json_is_array(snaps)) {
            for (size_t i = 0; i < json_array_size(snaps); i++) {
                json_t *v = json_array_get(snaps, i);
                if ((json_is_string(v) && !is_big(v)) || json_is_object(v))
                    continue;
                char epath[256];
                elem_path(epath, sizeof epath, spath, "code_object_snapshot_filenames", i);
                return type_err(c, epath, NULL, "a string or a {key, value} object", v);
            }
        } else if (!json_is_object(snaps)) {
            return type_err(c, spath, "code_object_snapshot_filenames", "an array or an object", snaps);
        }
    }
    return 0;
}

/* Array section `key` of pj into a freshly allocated array of n elements. */
#define BUILD_ARRAY(section_obj, section_path, key, dst, ndst, builder)                                 \
    do {                                                                                                \
        json_t *arr_;                                                                                   \
        if ((rc = f_arr(c, section_obj, section_path, key, 0, &arr_)) != 0)                            \
            return rc;                                                                                  \
        if (arr_) {                                                                                     \
            size_t n_ = json_array_size(arr_);                                                          \
            if (!((dst) = kr_arena_array(c->a, n_ + 1, sizeof *(dst))))                                 \
                return oom(c);                                                                          \
            for (size_t i_ = 0; i_ < n_; i_++) {                                                        \
                char epath_[256];                                                                       \
                elem_path(epath_, sizeof epath_, section_path, key, i_);                                \
                if ((rc = builder(c, json_array_get(arr_, i_), epath_, &(dst)[i_])) != 0)              \
                    return rc;                                                                          \
            }                                                                                           \
            (ndst) = n_;                                                                                \
        }                                                                                               \
    } while (0)

static int build_process(ctx *c, json_t *pj, size_t pi, kr_process *p)
{
    char path[128];
    snprintf(path, sizeof path, "$.rocprofiler-sdk-tool[%zu]", pi);
    if (!json_is_object(pj))
        return type_err(c, path, NULL, "an object", pj);
    int rc;
    p->pid = -1;
    json_t *meta;
    if ((rc = f_obj(c, pj, path, "metadata", 0, &meta)) != 0)
        return rc;
    if (meta) {
        char mpath[160];
        sub_path(mpath, sizeof mpath, path, "metadata");
        if ((rc = f_i64(c, meta, mpath, "pid", 0, &p->pid)) != 0)
            return rc;
    }
    BUILD_ARRAY(pj, path, "agents", p->agents, p->nagents, build_agent);
    BUILD_ARRAY(pj, path, "code_objects", p->code_objects, p->ncode_objects, build_code_object);
    BUILD_ARRAY(pj, path, "kernel_symbols", p->symbols, p->nsymbols, build_symbol);
    if ((rc = build_strings(c, pj, path, p)) != 0)
        return rc;

    /* kernel_id -> symbol, for dispatch and counter records. */
    id_entry *sym_idx = kr_arena_array(c->a, p->nsymbols + 1, sizeof *sym_idx);
    if (!sym_idx)
        return oom(c);
    for (size_t i = 0; i < p->nsymbols; i++) {
        sym_idx[i].id = p->symbols[i].kernel_id;
        sym_idx[i].index = i;
    }
    qsort(sym_idx, p->nsymbols, sizeof *sym_idx, cmp_id_entry);

    json_t *buf, *cb, *arr;
    if ((rc = f_obj(c, pj, path, "buffer_records", 0, &buf)) != 0)
        return rc;
    if (buf) {
        char bpath[160];
        sub_path(bpath, sizeof bpath, path, "buffer_records");
        if ((rc = f_arr(c, buf, bpath, "kernel_dispatch", 0, &arr)) != 0)
            return rc;
        if (arr) {
            size_t n = json_array_size(arr);
            if (!(p->dispatches = kr_arena_array(c->a, n + 1, sizeof *p->dispatches)))
                return oom(c);
            for (size_t i = 0; i < n; i++) {
                char epath[256];
                elem_path(epath, sizeof epath, bpath, "kernel_dispatch", i);
                if ((rc = build_dispatch(c, json_array_get(arr, i), epath, p, sym_idx, &p->dispatches[i])) != 0)
                    return rc;
            }
            p->ndispatches = n;
        }
    }
    if ((rc = f_obj(c, pj, path, "callback_records", 0, &cb)) != 0)
        return rc;
    if (cb) {
        char cpath[160];
        sub_path(cpath, sizeof cpath, path, "callback_records");
        if ((rc = f_arr(c, cb, cpath, "counter_collection", 0, &arr)) != 0)
            return rc;
        if (arr) {
            counter_defs defs = {0};
            json_t *defs_arr;
            if ((rc = f_arr(c, pj, path, "counters", 0, &defs_arr)) != 0)
                return rc;
            if (defs_arr && (rc = build_counter_defs(c, defs_arr, path, &defs)) != 0)
                return rc;
            if ((rc = build_counter_records(c, arr, cpath, p, sym_idx, &defs)) != 0)
                return rc;
        }
    }
    /* The counters section must have the right shape even when unused. */
    json_t *defs_arr;
    if ((rc = f_arr(c, pj, path, "counters", 0, &defs_arr)) != 0)
        return rc;
    return 0;
}

static int build_results(kr_arena *a, json_t *root, const char *fname, kr_results **out, kr_err *err)
{
    ctx c = {a, fname, err};
    *out = NULL;
    json_t *tool = json_is_object(root) ? json_object_get(root, "rocprofiler-sdk-tool") : NULL;
    if (!tool) {
        if (json_is_object(root) && json_object_get(root, "traceEvents"))
            return kr_err_set(err, KR_INPUT, fname, NULL,
                              "this is a rocprof v1/v2 Chrome-trace results.json (\"traceEvents\"); "
                              "kreport reads the rocprofv3 results.json (\"rocprofiler-sdk-tool\")");
        return kr_err_set(err, KR_INPUT, fname, NULL,
                          "not a rocprofv3 results.json (expected an object with a \"rocprofiler-sdk-tool\" array)");
    }
    if (!json_is_array(tool))
        return type_err(&c, "$", "rocprofiler-sdk-tool", "an array", tool);
    kr_results *r = kr_arena_alloc(a, sizeof *r);
    size_t n = json_array_size(tool);
    if (!r || !(r->procs = kr_arena_array(a, n + 1, sizeof *r->procs)) || !(r->path = kr_arena_strdup(a, fname)))
        return oom(&c);
    for (size_t i = 0; i < n; i++) {
        int rc = build_process(&c, json_array_get(tool, i), i, &r->procs[i]);
        if (rc)
            return rc;
    }
    r->nprocs = n;
    *out = r;
    return 0;
}

static int has_gpu_agent(const kr_results *r, uint64_t handle)
{
    for (size_t p = 0; p < r->nprocs; p++)
        for (size_t i = 0; i < r->procs[p].nagents; i++)
            if (r->procs[p].agents[i].handle == handle && r->procs[p].agents[i].type == 2)
                return 1;
    return 0;
}

static int parse_results(kr_arena *a, const char *data, size_t len, const char *fname, int filter,
                         uint64_t gpu_handle, kr_results **out, kr_err *err)
{
    *out = NULL;
    if (!fname)
        fname = "";
    json_t *root;
    int rc = parse_json(data, len, fname, &root, err);
    if (rc)
        return rc;
    if (filter) {
        /* Validate and test in a scratch arena so a stays untouched on no match. */
        kr_arena scratch;
        kr_arena_init(&scratch);
        kr_results *probe;
        rc = build_results(&scratch, root, fname, &probe, err);
        int match = rc == 0 && has_gpu_agent(probe, gpu_handle);
        kr_arena_free(&scratch);
        if (rc || !match) {
            json_decref(root);
            return rc;
        }
    }
    rc = build_results(a, root, fname, out, err);
    json_decref(root);
    if (rc)
        *out = NULL;
    return rc;
}

int bundle_parse_results(kr_arena *a, const char *data, size_t len, const char *fname,
                         kr_results **out, kr_err *err)
{
    return parse_results(a, data, len, fname, 0, 0, out, err);
}

int bundle_parse_results_for_agent(kr_arena *a, const char *data, size_t len, const char *fname,
                                   uint64_t gpu_handle, kr_results **out, kr_err *err)
{
    return parse_results(a, data, len, fname, 1, gpu_handle, out, err);
}

int bundle_load_results(kr_arena *a, const char *path, kr_results **out, kr_err *err)
{
    char *data;
    size_t len;
    *out = NULL;
    int rc = kr_file_read(path, KR_MAX_SMALL_FILE_BYTES, &data, &len, err);
    if (rc)
        return rc;
    rc = bundle_parse_results(a, data, len, path, out, err);
    free(data);
    return rc;
}

static const char *mem_find(const char *hay, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    if (m == 0 || n < m)
        return NULL;
    const char *end = hay + n - m;
    for (const char *p = hay; p <= end; p++) {
        p = memchr(p, needle[0], (size_t)(end - p) + 1);
        if (!p)
            return NULL;
        if (memcmp(p, needle, m) == 0)
            return p;
    }
    return NULL;
}

int bundle_results_sniff(const char *data, size_t len)
{
    if (mem_find(data, len, "\"rocprofiler-sdk-tool\""))
        return 1;
    if (mem_find(data, len, "\"traceEvents\""))
        return 2;
    return 0;
}

/* ---- lookups ---- */

const kr_agent *bundle_results_find_agent(const kr_results *r, uint64_t handle)
{
    if (!r)
        return NULL;
    for (size_t p = 0; p < r->nprocs; p++)
        for (size_t i = 0; i < r->procs[p].nagents; i++)
            if (r->procs[p].agents[i].handle == handle)
                return &r->procs[p].agents[i];
    return NULL;
}

static const kr_code_object *proc_code_object(const kr_process *p, uint64_t agent_handle, uint64_t id)
{
    for (size_t i = 0; i < p->ncode_objects; i++) {
        const kr_code_object *o = &p->code_objects[i];
        if (o->id == id && (agent_handle == 0 || o->agent_handle == agent_handle))
            return o;
    }
    return NULL;
}

const kr_code_object *bundle_results_find_code_object(const kr_results *r, uint64_t agent_handle, int64_t id)
{
    if (!r || id < 0)
        return NULL;
    for (size_t p = 0; p < r->nprocs; p++) {
        const kr_code_object *o = proc_code_object(&r->procs[p], agent_handle, (uint64_t)id);
        if (o)
            return o;
    }
    return NULL;
}

const kr_kernel_symbol *bundle_results_find_symbol(const kr_results *r, uint64_t agent_handle,
                                                   int64_t codeobj, uint64_t vaddr)
{
    if (!r || codeobj < 0)
        return NULL;
    for (size_t p = 0; p < r->nprocs; p++) {
        const kr_process *proc = &r->procs[p];
        const kr_code_object *o = proc_code_object(proc, agent_handle, (uint64_t)codeobj);
        if (!o)
            continue;
        for (size_t i = 0; i < proc->nsymbols; i++) {
            const kr_kernel_symbol *s = &proc->symbols[i];
            if (s->code_object_id != (uint64_t)codeobj)
                continue;
            /* Unsigned wrap-around is the intended modular address arithmetic. */
            uint64_t entry = s->kernel_object - (uint64_t)o->load_delta + s->kernel_code_entry_byte_offset;
            if (entry == vaddr)
                return s;
        }
    }
    return NULL;
}
