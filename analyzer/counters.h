/* counters.h — derived metrics from rocprofv3 counter collection
 * (counter_collection.csv rows, docs/formats.md#counter-collection-csv, and results.json
 * counter_collection records, docs/formats.md#results-json), and the one table of their formulas.
 *
 * Rows: the capture's c->counters (every counter_collection CSV found
 * beside it) and the counter records of c->results. A counter name is
 * normalised by dropping a "[<instance>]" suffix and a trailing "_sum", and
 * values of equal names are summed. Rows are used when their Kernel_Name
 * equals the capture's kernel (kernel symbol without ".kd"); when some of them
 * also carry the capture's dispatch id (same run), only those are used
 * ("dispatch" match), else all rows of the kernel ("kernel" match). Every
 * metric is the per-dispatch mean: Σ over the rows / number of distinct
 * dispatch ids.
 *
 * Formulas (an_counter_formulas holds the same text with the exact file each
 * was checked against: ROCm/rocprofiler-compute's analysis configs for
 * gfx950, gfx942 and gfx90a, and ROCm/rocprofiler-sdk's counter_defs.yaml):
 *   VALU FLOPs (T = F16, F32, F64)
 *       64 × (SQ_INSTS_VALU_ADD_T + SQ_INSTS_VALU_MUL_T + SQ_INSTS_VALU_TRANS_T
 *             + 2 × SQ_INSTS_VALU_FMA_T)
 *   MFMA FLOPs (T = F16, BF16, F32, F64, XF32, F8, F6F4; I8 counts OPs)
 *       512 × SQ_INSTS_VALU_MFMA_MOPS_T
 *   HBM read bytes   128 × TCC_BUBBLE + 64 × (TCC_EA0_RDREQ − TCC_BUBBLE −
 *                    TCC_EA0_RDREQ_32B) + 32 × TCC_EA0_RDREQ_32B (gfx942,
 *                    gfx950; TCC_BUBBLE = 0 when not collected); the gfx90a
 *                    spelling TCC_EA_RDREQ has no TCC_BUBBLE term:
 *                    64 × (TCC_EA_RDREQ − TCC_EA_RDREQ_32B) + 32 ×
 *                    TCC_EA_RDREQ_32B; else FETCH_SIZE × 1024 (KiB)
 *   HBM write bytes  64 × TCC_EA0_WRREQ_64B + 32 × (TCC_EA0_WRREQ −
 *                    TCC_EA0_WRREQ_64B) (TCC_EA_ on gfx90a), else
 *                    WRITE_SIZE × 1024
 *   L2 hit rate      TCC_HIT / (TCC_HIT + TCC_MISS)
 *   LDS bank-conflict rate
 *                    SQ_LDS_BANK_CONFLICT / SQ_LDS_IDX_ACTIVE, the share of
 *                    LDS-scheduler cycles spent on bank conflicts (the
 *                    rocprofiler-sdk LDSBankConflict form; rocprofiler-compute's
 *                    Bank Conflicts/Access is r / (1 − r) of it)
 *   waves            SQ_WAVES
 *   busy cycles      GRBM_GUI_ACTIVE (else SQ_BUSY_CYCLES), summed over
 *                    instances as collected
 *   instructions     SQ_INSTS_VALU, SQ_INSTS_MFMA
 *
 * Dispatch duration (an_kernel_time): the counter rows' End − Start
 * timestamps per dispatch (max end − min start of its rows); else the
 * kernel-trace rows (kernel_trace CSV, then results.json kernel_dispatch
 * records) of the matched dispatch ids, else of every dispatch of the
 * kernel; the mean over dispatches in integer ns. */
#ifndef KR_ANALYZER_COUNTERS_H
#define KR_ANALYZER_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "bundle/model.h"

/* Data types of the FLOP counters and of the hardware ceilings. */
typedef enum an_dtype {
    AN_DT_FP64 = 0, AN_DT_FP32, AN_DT_XF32, AN_DT_FP16, AN_DT_BF16, AN_DT_FP8, AN_DT_FP6_FP4,
    AN_DT_INT8, AN_DT_COUNT
} an_dtype;

typedef enum an_unit { AN_UNIT_VECTOR = 0, AN_UNIT_MATRIX, AN_UNIT_COUNT } an_unit;

const char *an_dtype_id(an_dtype d);             /* "fp64", ..., "fp6_fp4", "int8" */
const char *an_unit_id(an_unit u);               /* "vector", "matrix" */
/* "matrix_bf16": the ceiling key used by templates/hw.json and --ceiling. */
const char *an_ceiling_id(an_unit u, an_dtype d);
/* 0 and the parts, or -1 for an unknown key. */
int an_ceiling_parse(const char *key, an_unit *u, an_dtype *d);

typedef struct an_counter_formula {
    const char *metric;      /* "valu_flops", ... (analysis.json key) */
    const char *formula;
    const char *source;
} an_counter_formula;

extern const an_counter_formula an_counter_formulas[];
extern const size_t an_counter_nformulas;

typedef struct an_counters {
    uint8_t present;                 /* at least one row matched */
    const char *match;               /* "dispatch", "kernel", or NULL */
    size_t nrows, ndispatches;
    size_t ncounters;                /* distinct normalised names */

    double flops[AN_UNIT_COUNT][AN_DT_COUNT];
    uint8_t has_flops[AN_UNIT_COUNT][AN_DT_COUNT];
    double flops_total;              /* Σ of the above except INT8 */
    uint8_t has_flops_total;
    double int8_ops;
    uint8_t has_int8_ops;

    double read_bytes, write_bytes;
    uint8_t has_read, has_write;
    const char *read_formula, *write_formula;   /* "TCC_EA0_RDREQ", "FETCH_SIZE", ... */

    double l2_hit_rate;  uint8_t has_l2;
    double lds_conflict_rate; uint8_t has_lds;
    double waves;        uint8_t has_waves;
    double busy_cycles;  uint8_t has_busy;
    double valu_insts;   uint8_t has_valu_insts;
    double mfma_insts;   uint8_t has_mfma_insts;

    uint64_t duration_ns;            /* mean per dispatch, 0 unknown */
    const char *duration_source;     /* "counter timestamps", "kernel_trace.csv", "results.json", NULL */
    size_t duration_dispatches;
    uint8_t duration_by_id;          /* the trace row of the capture's dispatch id */
} an_counters;

/* kernel: the capture's kernel name (NULL or "" = unknown: nothing
 * matches). Never fails; out holds no allocation. */
void an_counters_compute(const kr_capture *c, const char *kernel, an_counters *out);

/* Mean duration of the kernel's dispatches from the kernel trace (CSV, then
 * results.json): the capture's dispatch id when the trace has it for this
 * kernel (*by_id = 1), else every dispatch of the kernel. 0 when none;
 * *source and *n say where from and how many. */
uint64_t an_kernel_time(const kr_capture *c, const char *kernel, const char **source, size_t *n, uint8_t *by_id);

#endif
