/* counters.c — see counters.h. */
#include "analyzer/counters.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const dtype_ids[AN_DT_COUNT] = {"fp64", "fp32", "xf32", "fp16", "bf16", "fp8", "fp6_fp4",
                                                   "int8"};
static const char *const unit_ids[AN_UNIT_COUNT] = {"vector", "matrix"};
static const char *const ceiling_ids[AN_UNIT_COUNT][AN_DT_COUNT] = {
    {"vector_fp64", "vector_fp32", "vector_xf32", "vector_fp16", "vector_bf16", "vector_fp8",
     "vector_fp6_fp4", "vector_int8"},
    {"matrix_fp64", "matrix_fp32", "matrix_xf32", "matrix_fp16", "matrix_bf16", "matrix_fp8",
     "matrix_fp6_fp4", "matrix_int8"},
};

const char *an_dtype_id(an_dtype d) { return (unsigned)d < AN_DT_COUNT ? dtype_ids[d] : "?"; }
const char *an_unit_id(an_unit u) { return (unsigned)u < AN_UNIT_COUNT ? unit_ids[u] : "?"; }

const char *an_ceiling_id(an_unit u, an_dtype d)
{
    return (unsigned)u < AN_UNIT_COUNT && (unsigned)d < AN_DT_COUNT ? ceiling_ids[u][d] : "?";
}

int an_ceiling_parse(const char *key, an_unit *u, an_dtype *d)
{
    for (int i = 0; key && i < AN_UNIT_COUNT; i++)
        for (int k = 0; k < AN_DT_COUNT; k++)
            if (strcmp(key, ceiling_ids[i][k]) == 0) {
                *u = (an_unit)i;
                *d = (an_dtype)k;
                return 0;
            }
    return -1;
}

/* Where each formula was checked (full commits: ROCm/rocm-systems
 * 1b1610fc2b2ab32af71e6e04e4d4a6a4ae597992, ROCm/rocprofiler-compute
 * 95b600ea582f168425bbf50f9707bcce1aa9d73c). */
#define SRC_CFG "ROCm/rocm-systems@1b1610f projects/rocprofiler-compute/src/rocprof_compute_soc/analysis_configs/gfx950/"
#define SRC_SOL SRC_CFG "0200_system_speed_of_light.yaml"
#define SRC_PIPE SRC_CFG "1100_compute_units_compute_pipeline.yaml"
#define SRC_SDK "ROCm/rocm-systems@1b1610f projects/rocprofiler-sdk/source/share/rocprofiler-sdk/counter_defs.yaml"
#define SRC_CDNA3 "; gfx942 the same: ROCm/rocprofiler-compute@95b600e src/rocprof_compute_soc/analysis_configs/" \
                  "gfx942/0200_system-speed-of-light.yaml"
#define SRC_CDNA2 "; gfx90a: ROCm/rocprofiler-compute@95b600e src/rocprof_compute_soc/analysis_configs/" \
                  "gfx90a/0200_system-speed-of-light.yaml"

const an_counter_formula an_counter_formulas[] = {
    {"valu_flops", "64 × (SQ_INSTS_VALU_ADD_T + SQ_INSTS_VALU_MUL_T + SQ_INSTS_VALU_TRANS_T + "
                   "2 × SQ_INSTS_VALU_FMA_T), T = F16, F32, F64",
     SRC_PIPE " ('F16 OPs', 'F32 OPs', 'F64 OPs' without their MFMA term); " SRC_SOL " ('VALU FLOPs')" SRC_CDNA3},
    {"mfma_flops", "512 × SQ_INSTS_VALU_MFMA_MOPS_T, T = F16, BF16, F32, F64, F8, F6F4, XF32 (I8: OPs)",
     SRC_SOL " ('MFMA FLOPs (T)', 'MFMA IOPs (Int8)'); " SRC_SDK " (MOPS counters count operations / 512; "
     "SQ_INSTS_VALU_MFMA_MOPS_XF32 gfx950 only)"},
    {"hbm_read_bytes", "128 × TCC_BUBBLE + 64 × (TCC_EA0_RDREQ − TCC_BUBBLE − TCC_EA0_RDREQ_32B) + "
                       "32 × TCC_EA0_RDREQ_32B (gfx942, gfx950); 64 × (TCC_EA_RDREQ − TCC_EA_RDREQ_32B) + "
                       "32 × TCC_EA_RDREQ_32B (gfx90a spelling, no TCC_BUBBLE term); else FETCH_SIZE × 1024",
     SRC_SOL " ('L2-Fabric Read BW' × time)" SRC_CDNA3 SRC_CDNA2 "; " SRC_SDK " (FETCH_SIZE: the same "
     "expressions / 1024, KiB)"},
    {"hbm_write_bytes", "64 × TCC_EA0_WRREQ_64B + 32 × (TCC_EA0_WRREQ − TCC_EA0_WRREQ_64B) (TCC_EA_ on "
                        "gfx90a); else WRITE_SIZE × 1024",
     SRC_SOL " ('L2-Fabric Write BW' × time)" SRC_CDNA3 SRC_CDNA2 "; " SRC_SDK " (WRITE_SIZE: the same "
     "expression / 1024, KiB)"},
    {"l2_hit_rate", "TCC_HIT / (TCC_HIT + TCC_MISS)",
     SRC_SOL " ('L2 Cache Hit Rate', in %)" SRC_CDNA3 "; " SRC_SDK " (L2CacheHit)"},
    {"lds_bank_conflict_rate", "SQ_LDS_BANK_CONFLICT / SQ_LDS_IDX_ACTIVE: the share of LDS-scheduler cycles "
                               "spent on bank conflicts",
     SRC_SDK " (LDSBankConflict, gfx10-gfx12 form 100 × SQC_LDS_BANK_CONFLICT / SQC_LDS_IDX_ACTIVE, on the "
     "CDNA SQ_ counters); " SRC_SOL " reports the same counters as 'LDS Bank Conflicts/Access' = "
     "SQ_LDS_BANK_CONFLICT / (SQ_LDS_IDX_ACTIVE − SQ_LDS_BANK_CONFLICT) = r / (1 − r)"},
    {"waves", "SQ_WAVES", SRC_SDK " (basic counter)"},
    {"busy_cycles", "GRBM_GUI_ACTIVE (else SQ_BUSY_CYCLES), summed over instances as collected",
     SRC_SDK " (basic counters; rocprofiler-compute's per-XCD cycles are GRBM_GUI_ACTIVE / XCDs, "
     "src/utils/parser.py)"},
    {"instructions", "SQ_INSTS_VALU, SQ_INSTS_MFMA", SRC_SDK " (basic counters)"},
};
const size_t an_counter_nformulas = sizeof an_counter_formulas / sizeof an_counter_formulas[0];

/* ---- row selection ---- */

/* Row kernel name equals the capture's kernel (a trailing ".kd" ignored). */
static int kernel_eq(const char *row, const char *kernel)
{
    if (!row || !kernel)
        return 0;
    size_t n = strlen(row), m = strlen(kernel);
    if (n >= 3 && strcmp(row + n - 3, ".kd") == 0)
        n -= 3;
    return n == m && strncmp(row, kernel, n) == 0;
}

typedef struct sum_entry {
    char name[96];
    double value;
} sum_entry;

typedef struct span_entry {
    uint64_t dispatch, start, end;
} span_entry;

static int cmp_sum(const void *a, const void *b)
{
    return strcmp(((const sum_entry *)a)->name, ((const sum_entry *)b)->name);
}

static int cmp_span(const void *pa, const void *pb)
{
    const span_entry *a = pa, *b = pb;
    return a->dispatch < b->dispatch ? -1 : a->dispatch > b->dispatch;
}

/* "TCC_HIT[3]" -> "TCC_HIT", "TCC_HIT_sum" -> "TCC_HIT". */
static void normalise(const char *name, char *out, size_t cap)
{
    size_t n = strcspn(name, "[");
    if (n >= cap)
        n = cap - 1;
    memcpy(out, name, n);
    out[n] = '\0';
    if (n >= 4 && strcmp(out + n - 4, "_sum") == 0)
        out[n - 4] = '\0';
}

/* The matching counter rows (CSV rows, then results.json records) into out
 * when given; returns how many match. */
static size_t collect(const kr_capture *c, const char *kernel, int want_dispatch, const kr_counter_value **out)
{
    size_t n = 0;
    for (size_t i = 0; i < c->ncounters; i++) {
        const kr_counter_value *v = &c->counters[i];
        if (kernel_eq(v->kernel_name, kernel) && (!want_dispatch || v->dispatch_id == c->dispatch_id)) {
            if (out)
                out[n] = v;
            n++;
        }
    }
    if (c->results)
        for (size_t p = 0; p < c->results->nprocs; p++) {
            const kr_process *pr = &c->results->procs[p];
            for (size_t i = 0; i < pr->ncounters; i++) {
                const kr_counter_value *v = &pr->counters[i];
                if (kernel_eq(v->kernel_name, kernel) && (!want_dispatch || v->dispatch_id == c->dispatch_id)) {
                    if (out)
                        out[n] = v;
                    n++;
                }
            }
        }
    return n;
}

typedef struct sums {
    sum_entry *e;
    size_t n;
} sums;

static int get(const sums *s, const char *name, double *v)
{
    sum_entry key;
    size_t l = strlen(name);
    if (l >= sizeof key.name)
        return 0;
    memcpy(key.name, name, l + 1);
    const sum_entry *e = s->n ? bsearch(&key, s->e, s->n, sizeof *s->e, cmp_sum) : NULL;
    if (!e)
        return 0;
    *v = e->value;
    return 1;
}

static double get0(const sums *s, const char *name)
{
    double v = 0;
    get(s, name, &v);
    return v;
}

/* ---- metrics ---- */

static void valu_flops(const sums *s, an_counters *out)
{
    static const struct { const char *t; an_dtype d; } types[] = {
        {"F16", AN_DT_FP16}, {"F32", AN_DT_FP32}, {"F64", AN_DT_FP64}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        static const char *const ops[4] = {"ADD", "MUL", "TRANS", "FMA"};
        double total = 0, v;
        int any = 0;
        for (int k = 0; k < 4; k++) {
            char name[64];
            snprintf(name, sizeof name, "SQ_INSTS_VALU_%s_%s", ops[k], types[i].t);
            if (get(s, name, &v)) {
                any = 1;
                total += (k == 3 ? 2.0 : 1.0) * v;
            }
        }
        if (any) {
            out->flops[AN_UNIT_VECTOR][types[i].d] = 64.0 * total;
            out->has_flops[AN_UNIT_VECTOR][types[i].d] = 1;
        }
    }
}

static void mfma_flops(const sums *s, an_counters *out)
{
    static const struct { const char *t; an_dtype d; } types[] = {
        {"F16", AN_DT_FP16}, {"BF16", AN_DT_BF16}, {"F32", AN_DT_FP32}, {"F64", AN_DT_FP64},
        {"XF32", AN_DT_XF32}, {"F8", AN_DT_FP8}, {"F6F4", AN_DT_FP6_FP4}, {"I8", AN_DT_INT8}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        char name[64];
        double v;
        snprintf(name, sizeof name, "SQ_INSTS_VALU_MFMA_MOPS_%s", types[i].t);
        if (get(s, name, &v)) {
            out->flops[AN_UNIT_MATRIX][types[i].d] = 512.0 * v;
            out->has_flops[AN_UNIT_MATRIX][types[i].d] = 1;
        }
    }
}

static void hbm_bytes(const sums *s, an_counters *out)
{
    double rd, wr;
    const char *rd_name = get(s, "TCC_EA0_RDREQ", &rd) ? "TCC_EA0" : get(s, "TCC_EA_RDREQ", &rd) ? "TCC_EA" : NULL;
    if (rd_name) {
        char n32[64];
        snprintf(n32, sizeof n32, "%s_RDREQ_32B", rd_name);
        /* TCC_BUBBLE (128-byte reads) enters the TCC_EA0 (gfx942, gfx950)
         * formula only; the gfx90a one has no such term. */
        double bubble = strcmp(rd_name, "TCC_EA0") == 0 ? get0(s, "TCC_BUBBLE") : 0, r32 = get0(s, n32);
        out->read_bytes = 128.0 * bubble + 64.0 * (rd - bubble - r32) + 32.0 * r32;
        out->has_read = 1;
        out->read_formula = strcmp(rd_name, "TCC_EA0") == 0 ? "TCC_EA0_RDREQ" : "TCC_EA_RDREQ";
    } else if (get(s, "FETCH_SIZE", &rd)) {
        out->read_bytes = 1024.0 * rd;
        out->has_read = 1;
        out->read_formula = "FETCH_SIZE";
    }
    const char *wr_name = get(s, "TCC_EA0_WRREQ", &wr) ? "TCC_EA0" : get(s, "TCC_EA_WRREQ", &wr) ? "TCC_EA" : NULL;
    if (wr_name) {
        char n64[64];
        snprintf(n64, sizeof n64, "%s_WRREQ_64B", wr_name);
        double w64 = get0(s, n64);
        out->write_bytes = 64.0 * w64 + 32.0 * (wr - w64);
        out->has_write = 1;
        out->write_formula = strcmp(wr_name, "TCC_EA0") == 0 ? "TCC_EA0_WRREQ" : "TCC_EA_WRREQ";
    } else if (get(s, "WRITE_SIZE", &wr)) {
        out->write_bytes = 1024.0 * wr;
        out->has_write = 1;
        out->write_formula = "WRITE_SIZE";
    }
}

static void other_metrics(const sums *s, an_counters *out)
{
    double hit, miss, conflict, active;
    if (get(s, "TCC_HIT", &hit) && get(s, "TCC_MISS", &miss) && hit + miss > 0) {
        out->l2_hit_rate = hit / (hit + miss);
        out->has_l2 = 1;
    }
    if (get(s, "SQ_LDS_BANK_CONFLICT", &conflict) && get(s, "SQ_LDS_IDX_ACTIVE", &active) && active > 0) {
        out->lds_conflict_rate = conflict / active;
        out->has_lds = 1;
    }
    out->has_waves = (uint8_t)get(s, "SQ_WAVES", &out->waves);
    out->has_busy = (uint8_t)(get(s, "GRBM_GUI_ACTIVE", &out->busy_cycles) ||
                              get(s, "SQ_BUSY_CYCLES", &out->busy_cycles));
    out->has_valu_insts = (uint8_t)get(s, "SQ_INSTS_VALU", &out->valu_insts);
    out->has_mfma_insts = (uint8_t)get(s, "SQ_INSTS_MFMA", &out->mfma_insts);
}

/* ---- durations ---- */

/* Mean of end − start over the rows of one dispatch list; n dispatches. */
static uint64_t trace_mean(const kr_dispatch *d, size_t nd, const char *kernel, int want_id, uint64_t id,
                           size_t *n)
{
    uint64_t total = 0;
    *n = 0;
    for (size_t i = 0; i < nd; i++) {
        if (!kernel_eq(d[i].kernel_name, kernel) || (want_id && d[i].dispatch_id != id) ||
            d[i].end_ns <= d[i].start_ns)
            continue;
        total += d[i].end_ns - d[i].start_ns;
        (*n)++;
    }
    return *n ? total / *n : 0;
}

uint64_t an_kernel_time(const kr_capture *c, const char *kernel, const char **source, size_t *n, uint8_t *by_id)
{
    *source = NULL;
    *n = 0;
    *by_id = 0;
    if (!kernel || !*kernel)
        return 0;
    for (int want_id = 1; want_id >= 0; want_id--) {
        if (want_id && !c->name_matched)
            continue;
        if (c->kernel_trace && !(want_id && c->kernel_trace->no_dispatch_ids)) {
            uint64_t t = trace_mean(c->kernel_trace->rows, c->kernel_trace->nrows, kernel, want_id,
                                    c->dispatch_id, n);
            if (*n) {
                *source = "kernel_trace.csv";
                *by_id = (uint8_t)want_id;
                return t;
            }
        }
        if (c->results)
            for (size_t p = 0; p < c->results->nprocs; p++) {
                const kr_process *pr = &c->results->procs[p];
                uint64_t t = trace_mean(pr->dispatches, pr->ndispatches, kernel, want_id, c->dispatch_id, n);
                if (*n) {
                    *source = "results.json";
                    *by_id = (uint8_t)want_id;
                    return t;
                }
            }
    }
    return 0;
}

/* Mean per-dispatch span of the counter rows' timestamps. */
static uint64_t counter_time(const kr_counter_value *const *rows, size_t n, size_t *nd)
{
    *nd = 0;
    span_entry *sp = malloc((n ? n : 1) * sizeof *sp);
    if (!sp)
        return 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (rows[i]->end_ns > rows[i]->start_ns)
            sp[k++] = (span_entry){rows[i]->dispatch_id, rows[i]->start_ns, rows[i]->end_ns};
    qsort(sp, k, sizeof *sp, cmp_span);
    uint64_t total = 0;
    for (size_t i = 0; i < k;) {
        uint64_t lo = sp[i].start, hi = sp[i].end;
        size_t j = i + 1;
        for (; j < k && sp[j].dispatch == sp[i].dispatch; j++) {
            if (sp[j].start < lo)
                lo = sp[j].start;
            if (sp[j].end > hi)
                hi = sp[j].end;
        }
        total += hi - lo;
        (*nd)++;
        i = j;
    }
    free(sp);
    return *nd ? total / *nd : 0;
}

/* ---- entry ---- */

static int cmp_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

void an_counters_compute(const kr_capture *c, const char *kernel, an_counters *out)
{
    memset(out, 0, sizeof *out);
    if (!kernel || !*kernel)
        return;
    int want_dispatch = c->name_matched && collect(c, kernel, 1, NULL) > 0;
    size_t n = collect(c, kernel, want_dispatch, NULL);
    if (n == 0)
        return;
    const kr_counter_value **rows = malloc(n * sizeof *rows);
    sum_entry *e = malloc(n * sizeof *e);
    uint64_t *ids = malloc(n * sizeof *ids);
    if (!rows || !e || !ids)
        goto done;
    collect(c, kernel, want_dispatch, rows);
    for (size_t i = 0; i < n; i++) {
        normalise(rows[i]->counter ? rows[i]->counter : "", e[i].name, sizeof e[i].name);
        e[i].value = rows[i]->value;
        ids[i] = rows[i]->dispatch_id;
    }
    qsort(ids, n, sizeof *ids, cmp_u64);
    size_t nd = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || ids[i] != ids[i - 1])
            nd++;
    /* Merge equal names (sorted), then divide by the dispatch count. */
    qsort(e, n, sizeof *e, cmp_sum);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && strcmp(e[m - 1].name, e[i].name) == 0)
            e[m - 1].value += e[i].value;
        else
            e[m++] = e[i];
    }
    for (size_t i = 0; i < m; i++)
        e[i].value /= (double)nd;
    sums s = {e, m};

    out->present = 1;
    out->match = want_dispatch ? "dispatch" : "kernel";
    out->nrows = n;
    out->ndispatches = nd;
    out->ncounters = m;
    valu_flops(&s, out);
    mfma_flops(&s, out);
    for (int u = 0; u < AN_UNIT_COUNT; u++)
        for (int d = 0; d < AN_DT_COUNT; d++)
            if (out->has_flops[u][d]) {
                if (d == AN_DT_INT8) {
                    out->int8_ops += out->flops[u][d];
                    out->has_int8_ops = 1;
                } else {
                    out->flops_total += out->flops[u][d];
                    out->has_flops_total = 1;
                }
            }
    hbm_bytes(&s, out);
    other_metrics(&s, out);

    size_t tn = 0;
    uint64_t t = counter_time(rows, n, &tn);
    if (tn) {
        out->duration_ns = t;
        out->duration_source = "counter timestamps";
        out->duration_dispatches = tn;
    } else {
        out->duration_ns = an_kernel_time(c, kernel, &out->duration_source, &out->duration_dispatches,
                                          &out->duration_by_id);
    }
done:
    free(rows);
    free(e);
    free(ids);
}
