/* load_csv.c — see load_csv.h. Column names and dialects: docs/formats.md#rocprofv3-csvs. */
#include "bundle/load_csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/file.h"
#include "common/limits.h"

/* ---- classification ---- */

const char *bundle_csv_type_name(bundle_csv_type k)
{
    switch (k) {
    case BUNDLE_CSV_KERNEL_TRACE: return "kernel_trace";
    case BUNDLE_CSV_KERNEL_STATS: return "kernel_stats";
    case BUNDLE_CSV_DOMAIN_STATS: return "domain_stats";
    case BUNDLE_CSV_AGENT_INFO: return "agent_info";
    case BUNDLE_CSV_COUNTER_COLLECTION: return "counter_collection";
    case BUNDLE_CSV_ROCPROF_V1: return "rocprof v1/v2 results";
    default: return "unknown";
    }
}

static int has_name(const char *const *header, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (header[i] && strcasecmp(header[i], name) == 0)
            return 1;
    return 0;
}

bundle_csv_type bundle_csv_kind(const char *const *header, size_t n)
{
#define HAS(x) has_name(header, n, x)
    if (HAS("Counter_Name") && HAS("Counter_Value") && HAS("Dispatch_Id"))
        return BUNDLE_CSV_COUNTER_COLLECTION;
    /* Dispatch_Id is absent from kernel traces before rocprofv3 1.1. */
    if (HAS("Kernel_Name") && HAS("Agent_Id") && HAS("Start_Timestamp") && HAS("End_Timestamp") &&
        !HAS("Counter_Name"))
        return BUNDLE_CSV_KERNEL_TRACE;
    if (HAS("KernelName") && HAS("BeginNs") && HAS("EndNs"))
        return BUNDLE_CSV_ROCPROF_V1;
    if (HAS("Node_Id") && HAS("Agent_Type"))
        return BUNDLE_CSV_AGENT_INFO;
    if (HAS("Name") && HAS("Calls") && HAS("TotalDurationNs") && HAS("AverageNs"))
        return BUNDLE_CSV_KERNEL_STATS;
#undef HAS
    return BUNDLE_CSV_UNKNOWN;
}

static int is_upper_ident(const char *s)
{
    if (!(*s >= 'A' && *s <= 'Z'))
        return 0;
    for (; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return 0;
    return 1;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

bundle_csv_type bundle_csv_kind_of(const bundle_csv *t, const char *name_hint)
{
    bundle_csv_type k = bundle_csv_kind(t->header, t->ncols);
    if (k != BUNDLE_CSV_KERNEL_STATS)
        return k;
    if (name_hint) {
        if (strstr(name_hint, "kernel_stats"))
            return BUNDLE_CSV_KERNEL_STATS;
        if (strstr(name_hint, "domain_stats"))
            return BUNDLE_CSV_DOMAIN_STATS;
        if (ends_with(name_hint, "_stats.csv"))
            return BUNDLE_CSV_UNKNOWN;
    }
    if (t->nrows == 0)
        return BUNDLE_CSV_KERNEL_STATS;
    int name = bundle_csv_col(t, "Name");
    for (size_t r = 0; r < t->nrows; r++)
        if (!is_upper_ident(bundle_csv_cell(t, r, (size_t)name)))
            return BUNDLE_CSV_KERNEL_STATS;
    return BUNDLE_CSV_DOMAIN_STATS;
}

/* ---- columns and cells ---- */

typedef struct col_spec {
    const char *name;
    int required;
} col_spec;

/* Finds each spec[i].name in the header; idx[i] = -1 when absent. A missing
 * required column, or a used column that appears twice, is an error naming
 * the file and the column. */

static int find_cols(const bundle_csv *t, const col_spec *spec, int *idx, size_t n, kr_err *err)
{
    for (size_t i = 0; i < n; i++) {
        idx[i] = -1;
        for (size_t c = 0; c < t->ncols; c++) {
            if (strcasecmp(t->header[c], spec[i].name) != 0)
                continue;
            if (idx[i] >= 0)
                return kr_err_set(err, KR_INPUT, t->path, "line 1", "column %s appears twice in the header",
                                  spec[i].name);
            idx[i] = (int)c;
        }
        if (idx[i] < 0 && spec[i].required)
            return kr_err_set(err, KR_INPUT, t->path, "line 1", "missing column %s", spec[i].name);
    }
    return 0;
}

static int cell_err(const bundle_csv *t, size_t row, const char *col, const char *what, kr_err *err)
{
    char where[64];
    snprintf(where, sizeof where, "line %zu", t->lines[row]);
    return kr_err_set(err, KR_INPUT, t->path, where, "row %zu, column %s: %s", row + 1, col, what);
}

static int bad_value(const bundle_csv *t, size_t row, const char *col, const char *expected, const char *s,
                     kr_err *err)
{
    char what[200];
    snprintf(what, sizeof what, "expected %s, found \"%.60s%s\"", expected, s, strlen(s) > 60 ? "..." : "");
    return cell_err(t, row, col, what, err);
}

/* Strict decimal: digits only, no sign, no spaces, no overflow. */
static int parse_u64(const char *s, uint64_t *v)
{
    if (!*s)
        return -1;
    uint64_t x = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        unsigned d = (unsigned)(*s - '0');
        if (x > (UINT64_MAX - d) / 10)
            return -1;
        x = x * 10 + d;
    }
    *v = x;
    return 0;
}

static int parse_i64(const char *s, int64_t *v)
{
    int neg = *s == '-';
    uint64_t x;
    if (parse_u64(s + neg, &x) != 0)
        return -1;
    if (neg) {
        if (x > (uint64_t)INT64_MAX + 1)
            return -1;
        *v = x == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)x;
    } else {
        if (x > (uint64_t)INT64_MAX)
            return -1;
        *v = (int64_t)x;
    }
    return 0;
}

static int get_u64(const bundle_csv *t, size_t row, const col_spec *spec, const int *idx, size_t i,
                   uint64_t *v, kr_err *err)
{
    const char *s = bundle_csv_cell(t, row, (size_t)idx[i]);
    if (parse_u64(s, v) != 0)
        return bad_value(t, row, spec[i].name, "a non-negative integer", s, err);
    return 0;
}

static int get_i64(const bundle_csv *t, size_t row, const col_spec *spec, const int *idx, size_t i,
                   int64_t *v, kr_err *err)
{
    const char *s = bundle_csv_cell(t, row, (size_t)idx[i]);
    if (parse_i64(s, v) != 0)
        return bad_value(t, row, spec[i].name, "an integer", s, err);
    return 0;
}

static int get_u32(const bundle_csv *t, size_t row, const col_spec *spec, const int *idx, size_t i,
                   uint32_t *v, kr_err *err)
{
    uint64_t x;
    const char *s = bundle_csv_cell(t, row, (size_t)idx[i]);
    if (parse_u64(s, &x) != 0 || x > UINT32_MAX)
        return bad_value(t, row, spec[i].name, "an integer in 0..4294967295", s, err);
    *v = (uint32_t)x;
    return 0;
}

static int get_f64(const bundle_csv *t, size_t row, const col_spec *spec, const int *idx, size_t i,
                   double *v, kr_err *err)
{
    const char *s = bundle_csv_cell(t, row, (size_t)idx[i]);
    char *end = NULL;
    double x = (*s && *s != ' ' && *s != '\t') ? strtod(s, &end) : 0.0;
    if (!end || end == s || *end != '\0')
        return bad_value(t, row, spec[i].name, "a number", s, err);
    *v = x;
    return 0;
}

static const char *adup(kr_arena *a, const char *s) { return kr_arena_strdup(a, s ? s : ""); }

static int oom(const bundle_csv *t, kr_err *err)
{
    return kr_err_set(err, KR_INTERNAL, t->path, NULL, "out of memory");
}

/* ---- kernel_trace (docs/formats.md#kernel-trace-csv) ---- */

enum {
    KT_AGENT, KT_DISPATCH, KT_KERNEL_ID, KT_NAME, KT_CORR, KT_START, KT_END,
    KT_WGX, KT_WGY, KT_WGZ, KT_GX, KT_GY, KT_GZ,
    KT_LDS, KT_SCRATCH, KT_VGPR, KT_ACCUM, KT_SGPR, KT_PRIVATE, KT_GROUP, KT_N
};

/* "Agent N" (relative or absolute node index), "GPU N" / "CPU N"
 * (type-relative) or a bare number (old dialect node id). */
static int parse_agent_id(const char *s, int64_t *v, kr_agent_index *kind)
{
    const char *num = s;
    if (strncmp(s, "Agent ", 6) == 0) {
        num = s + 6;
        *kind = KR_AGENT_RELATIVE;
    } else if (strncmp(s, "GPU ", 4) == 0 || strncmp(s, "CPU ", 4) == 0) {
        num = s + 4;
        *kind = KR_AGENT_TYPED;
    } else {
        *kind = KR_AGENT_NUMERIC;
    }
    uint64_t x;
    if (parse_u64(num, &x) != 0 || x > (uint64_t)INT64_MAX)
        return -1;
    *v = (int64_t)x;
    return 0;
}

int bundle_kernel_trace_from_csv(kr_arena *a, const bundle_csv *t, kr_kernel_trace **out, kr_err *err)
{
    *out = NULL;
    col_spec spec[KT_N] = {
        [KT_AGENT] = {"Agent_Id", 1}, [KT_DISPATCH] = {"Dispatch_Id", 0},
        [KT_KERNEL_ID] = {"Kernel_Id", 1}, [KT_NAME] = {"Kernel_Name", 1},
        [KT_CORR] = {"Correlation_Id", 1}, [KT_START] = {"Start_Timestamp", 1},
        [KT_END] = {"End_Timestamp", 1},
        [KT_WGX] = {"Workgroup_Size_X", 1}, [KT_WGY] = {"Workgroup_Size_Y", 1},
        [KT_WGZ] = {"Workgroup_Size_Z", 1},
        [KT_GX] = {"Grid_Size_X", 1}, [KT_GY] = {"Grid_Size_Y", 1}, [KT_GZ] = {"Grid_Size_Z", 1},
        [KT_LDS] = {"LDS_Block_Size", 0}, [KT_SCRATCH] = {"Scratch_Size", 0},
        [KT_VGPR] = {"VGPR_Count", 0}, [KT_ACCUM] = {"Accum_VGPR_Count", 0},
        [KT_SGPR] = {"SGPR_Count", 0},
        [KT_PRIVATE] = {"Private_Segment_Size", 0}, [KT_GROUP] = {"Group_Segment_Size", 0},
    };
    int idx[KT_N];
    int rc = find_cols(t, spec, idx, KT_N, err);
    if (rc)
        return rc;
    int old;
    if (idx[KT_LDS] >= 0) {
        old = 0;
        spec[KT_SCRATCH].required = spec[KT_VGPR].required = spec[KT_SGPR].required = 1;
    } else if (idx[KT_GROUP] >= 0) {
        old = 1;
        spec[KT_PRIVATE].required = 1;
    } else {
        return kr_err_set(err, KR_INPUT, t->path, "line 1",
                          "missing column LDS_Block_Size (or Group_Segment_Size in the old dialect)");
    }
    if ((rc = find_cols(t, spec, idx, KT_N, err)) != 0)
        return rc;

    kr_kernel_trace *kt = kr_arena_alloc(a, sizeof *kt);
    if (!kt || !(kt->rows = kr_arena_array(a, t->nrows + 1, sizeof *kt->rows)))
        return oom(t, err);
    kt->path = adup(a, t->path);
    kt->old_dialect = (uint8_t)old;
    kt->agent_index = old ? KR_AGENT_NUMERIC : KR_AGENT_RELATIVE;
    kt->no_dispatch_ids = idx[KT_DISPATCH] < 0;

    for (size_t r = 0; r < t->nrows; r++) {
        kr_dispatch *d = &kt->rows[r];
        const char *agent = bundle_csv_cell(t, r, (size_t)idx[KT_AGENT]);
        kr_agent_index kind;
        if (parse_agent_id(agent, &d->agent, &kind) != 0)
            return bad_value(t, r, "Agent_Id", "\"Agent N\", \"GPU N\", \"CPU N\" or a number", agent, err);
        if (r == 0)
            kt->agent_index = kind;
        else if (kind != kt->agent_index)
            return bad_value(t, r, "Agent_Id", "the same form as in row 1", agent, err);
        /* Without Dispatch_Id (rocprofv3 before 1.1) rows keep file order: the
         * id is the row's ordinal, which joins no capture folder. */
        d->dispatch_id = (uint64_t)r + 1;
        if ((idx[KT_DISPATCH] >= 0 && (rc = get_u64(t, r, spec, idx, KT_DISPATCH, &d->dispatch_id, err))) ||
            (rc = get_u64(t, r, spec, idx, KT_KERNEL_ID, &d->kernel_id, err)) ||
            (rc = get_u64(t, r, spec, idx, KT_CORR, &d->correlation_id, err)) ||
            (rc = get_u64(t, r, spec, idx, KT_START, &d->start_ns, err)) ||
            (rc = get_u64(t, r, spec, idx, KT_END, &d->end_ns, err)))
            return rc;
        for (int k = 0; k < 3; k++) {
            if ((rc = get_u32(t, r, spec, idx, (size_t)(KT_WGX + k), &d->wg[k], err)) ||
                (rc = get_u32(t, r, spec, idx, (size_t)(KT_GX + k), &d->grid[k], err)))
                return rc;
        }
        d->lds_bytes = d->scratch_bytes = d->vgpr = d->accum_vgpr = d->sgpr = -1;
        size_t lds_col = old ? KT_GROUP : KT_LDS, scratch_col = old ? KT_PRIVATE : KT_SCRATCH;
        if ((rc = get_i64(t, r, spec, idx, lds_col, &d->lds_bytes, err)) ||
            (rc = get_i64(t, r, spec, idx, scratch_col, &d->scratch_bytes, err)))
            return rc;
        if (idx[KT_VGPR] >= 0 && (rc = get_i64(t, r, spec, idx, KT_VGPR, &d->vgpr, err)))
            return rc;
        if (idx[KT_ACCUM] >= 0 && (rc = get_i64(t, r, spec, idx, KT_ACCUM, &d->accum_vgpr, err)))
            return rc;
        if (idx[KT_SGPR] >= 0 && (rc = get_i64(t, r, spec, idx, KT_SGPR, &d->sgpr, err)))
            return rc;
        if (!(d->kernel_name = adup(a, bundle_csv_cell(t, r, (size_t)idx[KT_NAME]))))
            return oom(t, err);
    }
    kt->nrows = t->nrows;
    *out = kt;
    return 0;
}

/* ---- agent_info (docs/formats.md#agent-info-csv) ---- */

enum {
    AI_NODE, AI_LNODE, AI_TYPE, AI_NAME, AI_PRODUCT, AI_GFX, AI_CU, AI_SIMD_PER_CU, AI_WPS, AI_WPC,
    AI_WAVE, AI_LDS, AI_CLK, AI_XCC, AI_ARRAYS, AI_GPU_ID, AI_LOCATION, AI_DRM, AI_N
};

int bundle_agent_info_from_csv(kr_arena *a, const bundle_csv *t, kr_agent_info **out, kr_err *err)
{
    *out = NULL;
    static const col_spec spec[AI_N] = {
        [AI_NODE] = {"Node_Id", 1}, [AI_LNODE] = {"Logical_Node_Id", 1}, [AI_TYPE] = {"Agent_Type", 1},
        [AI_NAME] = {"Name", 1}, [AI_PRODUCT] = {"Product_Name", 1},
        [AI_GFX] = {"Gfx_Target_Version", 1}, [AI_CU] = {"Cu_Count", 1},
        [AI_SIMD_PER_CU] = {"Simd_Per_Cu", 1}, [AI_WPS] = {"Max_Waves_Per_Simd", 1},
        [AI_WPC] = {"Max_Waves_Per_Cu", 1}, [AI_WAVE] = {"Wave_Front_Size", 1},
        [AI_LDS] = {"Lds_Size_In_Kb", 1}, [AI_CLK] = {"Max_Engine_Clk_Fcompute", 1},
        [AI_XCC] = {"Num_Xcc", 1}, [AI_ARRAYS] = {"Array_Count", 1},
        [AI_GPU_ID] = {"Gpu_Id", 0}, [AI_LOCATION] = {"Location_Id", 0}, [AI_DRM] = {"Drm_Render_Minor", 0},
    };
    int idx[AI_N];
    int rc = find_cols(t, spec, idx, AI_N, err);
    if (rc)
        return rc;
    kr_agent_info *ai = kr_arena_alloc(a, sizeof *ai);
    if (!ai || !(ai->agents = kr_arena_array(a, t->nrows + 1, sizeof *ai->agents)))
        return oom(t, err);
    ai->path = adup(a, t->path);
    for (size_t r = 0; r < t->nrows; r++) {
        kr_agent *g = &ai->agents[r];
        const char *type = bundle_csv_cell(t, r, (size_t)idx[AI_TYPE]);
        g->handle = 0;
        g->type = strcmp(type, "GPU") == 0 ? 2 : strcmp(type, "CPU") == 0 ? 1 : 0;
        struct { size_t col; int64_t *dst; } ints[] = {
            {AI_NODE, &g->node_id}, {AI_LNODE, &g->logical_node_id}, {AI_GFX, &g->gfx_target_version},
            {AI_CU, &g->cu_count}, {AI_SIMD_PER_CU, &g->simd_per_cu}, {AI_WPS, &g->max_waves_per_simd},
            {AI_WPC, &g->max_waves_per_cu}, {AI_WAVE, &g->wave_front_size}, {AI_LDS, &g->lds_size_in_kb},
            {AI_CLK, &g->max_engine_clk_fcompute}, {AI_XCC, &g->num_xcc}, {AI_ARRAYS, &g->array_count},
        };
        for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++)
            if ((rc = get_i64(t, r, spec, idx, ints[k].col, ints[k].dst, err)) != 0)
                return rc;
        struct { size_t col; int64_t *dst; } card[] = {
            {AI_GPU_ID, &g->gpu_id}, {AI_LOCATION, &g->location_id}, {AI_DRM, &g->drm_render_minor}};
        for (size_t k = 0; k < sizeof card / sizeof card[0]; k++) {
            *card[k].dst = -1;
            if (idx[card[k].col] >= 0 && (rc = get_i64(t, r, spec, idx, card[k].col, card[k].dst, err)) != 0)
                return rc;
        }
        if (!(g->name = adup(a, bundle_csv_cell(t, r, (size_t)idx[AI_NAME]))) ||
            !(g->product_name = adup(a, bundle_csv_cell(t, r, (size_t)idx[AI_PRODUCT]))))
            return oom(t, err);
    }
    ai->nagents = t->nrows;
    *out = ai;
    return 0;
}

/* ---- kernel_stats / domain_stats (docs/formats.md#stats-csvs) ---- */

enum { KS_NAME, KS_CALLS, KS_TOTAL, KS_AVG, KS_PCT, KS_MIN, KS_MAX, KS_STDDEV, KS_N };

int bundle_kernel_stats_from_csv(kr_arena *a, const bundle_csv *t, kr_kernel_stats **out, kr_err *err)
{
    *out = NULL;
    static const col_spec spec[KS_N] = {
        [KS_NAME] = {"Name", 1}, [KS_CALLS] = {"Calls", 1}, [KS_TOTAL] = {"TotalDurationNs", 1},
        [KS_AVG] = {"AverageNs", 1}, [KS_PCT] = {"Percentage", 1}, [KS_MIN] = {"MinNs", 1},
        [KS_MAX] = {"MaxNs", 1}, [KS_STDDEV] = {"StdDev", 1},
    };
    int idx[KS_N];
    int rc = find_cols(t, spec, idx, KS_N, err);
    if (rc)
        return rc;
    kr_kernel_stats *ks = kr_arena_alloc(a, sizeof *ks);
    if (!ks || !(ks->rows = kr_arena_array(a, t->nrows + 1, sizeof *ks->rows)))
        return oom(t, err);
    ks->path = adup(a, t->path);
    for (size_t r = 0; r < t->nrows; r++) {
        kr_kernel_stat *s = &ks->rows[r];
        if ((rc = get_u64(t, r, spec, idx, KS_CALLS, &s->calls, err)) ||
            (rc = get_u64(t, r, spec, idx, KS_TOTAL, &s->total_ns, err)) ||
            (rc = get_f64(t, r, spec, idx, KS_AVG, &s->average_ns, err)) ||
            (rc = get_f64(t, r, spec, idx, KS_PCT, &s->percentage, err)) ||
            (rc = get_u64(t, r, spec, idx, KS_MIN, &s->min_ns, err)) ||
            (rc = get_u64(t, r, spec, idx, KS_MAX, &s->max_ns, err)) ||
            (rc = get_f64(t, r, spec, idx, KS_STDDEV, &s->stddev, err)))
            return rc;
        if (!(s->name = adup(a, bundle_csv_cell(t, r, (size_t)idx[KS_NAME]))))
            return oom(t, err);
    }
    ks->nrows = t->nrows;
    *out = ks;
    return 0;
}

/* ---- counter_collection (docs/formats.md#counter-collection-csv) ---- */

enum { CC_DISPATCH, CC_NAME, CC_COUNTER, CC_VALUE, CC_START, CC_END, CC_N };

int bundle_counter_csv_from_csv(kr_arena *a, const bundle_csv *t, bundle_counter_csv **out, kr_err *err)
{
    *out = NULL;
    static const col_spec spec[CC_N] = {
        [CC_DISPATCH] = {"Dispatch_Id", 1}, [CC_NAME] = {"Kernel_Name", 1},
        [CC_COUNTER] = {"Counter_Name", 1}, [CC_VALUE] = {"Counter_Value", 1},
        [CC_START] = {"Start_Timestamp", 0}, [CC_END] = {"End_Timestamp", 0},
    };
    int idx[CC_N];
    int rc = find_cols(t, spec, idx, CC_N, err);
    if (rc)
        return rc;
    bundle_counter_csv *cc = kr_arena_alloc(a, sizeof *cc);
    if (!cc || !(cc->rows = kr_arena_array(a, t->nrows + 1, sizeof *cc->rows)))
        return oom(t, err);
    cc->path = adup(a, t->path);
    cc->old_dialect = idx[CC_START] < 0;
    for (size_t r = 0; r < t->nrows; r++) {
        kr_counter_value *v = &cc->rows[r];
        if ((rc = get_u64(t, r, spec, idx, CC_DISPATCH, &v->dispatch_id, err)) ||
            (rc = get_f64(t, r, spec, idx, CC_VALUE, &v->value, err)) ||
            (idx[CC_START] >= 0 && (rc = get_u64(t, r, spec, idx, CC_START, &v->start_ns, err))) ||
            (idx[CC_END] >= 0 && (rc = get_u64(t, r, spec, idx, CC_END, &v->end_ns, err))))
            return rc;
        if (!(v->kernel_name = adup(a, bundle_csv_cell(t, r, (size_t)idx[CC_NAME]))) ||
            !(v->counter = adup(a, bundle_csv_cell(t, r, (size_t)idx[CC_COUNTER]))))
            return oom(t, err);
    }
    cc->nrows = t->nrows;
    *out = cc;
    return 0;
}

const char *bundle_csv_refusal(bundle_csv_type k)
{
    if (k != BUNDLE_CSV_ROCPROF_V1)
        return NULL;
    return "a rocprof v1/v2 results.csv (columns KernelName, BeginNs, EndNs): kreport reads rocprofv3 output only; "
           "profile again with rocprofv3 (`kreport help capture`) or move the file away";
}

/* ---- parse-from-memory and file wrappers ---- */

typedef int (*from_csv_fn)(kr_arena *a, const bundle_csv *t, void **out, kr_err *err);

/* The table lives in a scratch arena; only the typed result reaches a. */
static int parse_typed(kr_arena *a, const char *data, size_t len, const char *fname, from_csv_fn fn,
                       void **out, kr_err *err)
{
    *out = NULL;
    kr_arena scratch;
    kr_arena_init(&scratch);
    bundle_csv t;
    int rc = bundle_csv_parse(&scratch, data, len, fname, &t, err);
    if (rc == 0)
        rc = fn(a, &t, out, err);
    kr_arena_free(&scratch);
    return rc;
}

static int load_typed(kr_arena *a, const char *path, from_csv_fn fn, void **out, kr_err *err)
{
    char *data;
    size_t len;
    *out = NULL;
    int rc = kr_file_read(path, KR_MAX_SMALL_FILE_BYTES, &data, &len, err);
    if (rc)
        return rc;
    rc = parse_typed(a, data, len, path, fn, out, err);
    free(data);
    return rc;
}

static int kt_fn(kr_arena *a, const bundle_csv *t, void **out, kr_err *err)
{
    kr_kernel_trace *p;
    int rc = bundle_kernel_trace_from_csv(a, t, &p, err);
    *out = p;
    return rc;
}

static int ai_fn(kr_arena *a, const bundle_csv *t, void **out, kr_err *err)
{
    kr_agent_info *p;
    int rc = bundle_agent_info_from_csv(a, t, &p, err);
    *out = p;
    return rc;
}

static int ks_fn(kr_arena *a, const bundle_csv *t, void **out, kr_err *err)
{
    kr_kernel_stats *p;
    int rc = bundle_kernel_stats_from_csv(a, t, &p, err);
    *out = p;
    return rc;
}

static int cc_fn(kr_arena *a, const bundle_csv *t, void **out, kr_err *err)
{
    bundle_counter_csv *p;
    int rc = bundle_counter_csv_from_csv(a, t, &p, err);
    *out = p;
    return rc;
}

#define TYPED_WRAPPERS(ptype, parse_name, load_name, fn)                                           \
    int parse_name(kr_arena *a, const char *data, size_t len, const char *fname, ptype **out,      \
                   kr_err *err)                                                                    \
    {                                                                                              \
        void *p;                                                                                   \
        int rc = parse_typed(a, data, len, fname, fn, &p, err);                                    \
        *out = rc ? NULL : p;                                                                      \
        return rc;                                                                                 \
    }                                                                                              \
    int load_name(kr_arena *a, const char *path, ptype **out, kr_err *err)                         \
    {                                                                                              \
        void *p;                                                                                   \
        int rc = load_typed(a, path, fn, &p, err);                                                 \
        *out = rc ? NULL : p;                                                                      \
        return rc;                                                                                 \
    }

TYPED_WRAPPERS(kr_kernel_trace, bundle_parse_kernel_trace, bundle_load_kernel_trace, kt_fn)
TYPED_WRAPPERS(kr_agent_info, bundle_parse_agent_info, bundle_load_agent_info, ai_fn)
TYPED_WRAPPERS(kr_kernel_stats, bundle_parse_kernel_stats, bundle_load_kernel_stats, ks_fn)
TYPED_WRAPPERS(bundle_counter_csv, bundle_parse_counter_csv, bundle_load_counter_csv, cc_fn)
