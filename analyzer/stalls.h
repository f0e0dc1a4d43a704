/* stalls.h — where the stall cycles of the code table went, two ways.
 *
 * Kept rows (both taxonomies): code rows whose LineNumber is not 0. This is
 * the hub analyzer's rule (docs/hotspots.md#hub-analyzer): it drops the first label row
 * only; labels of later kernels are kept and carry zero counts. Line 0 is
 * the "unknown PC" line (docs/formats.md#instruction-records), so a consistent file has no counts there.
 * total_cycles = Σ Latency and total_stall = Σ Stall over kept rows; each
 * taxonomy below distributes exactly total_stall.
 *
 * (a) The hub's `hotspot_analyzer.py`, exactly (docs/hotspots.md#hub-analyzer): bucket by substring
 *     tests on the lower-cased ISA text, first match wins:
 *       1 "s_waitcnt" and "vmcnt"            vmem_wait      "VMEM-wait"
 *       2 "s_waitcnt" and "lgkmcnt"          lds_smem_wait  "LDS/SMEM-wait"
 *       3 "s_waitcnt" and "expcnt"           exp_wait       "EXP-wait"
 *       4 "s_waitcnt"                        waitcnt        "waitcnt"
 *       5 "s_barrier" or "s_wait_idle"       barrier        "barrier"
 *       6 "buffer_load" "global_load" "flat_load"   vmem_load  "VMEM-load"
 *       7 "buffer_store" "global_store"      vmem_store     "VMEM-store"
 *       8 "ds_read" "ds_write"               lds            "LDS"
 *       9 "s_load" "s_store"                 smem           "SMEM"
 *      10 "v_mfma" "v_fma"                   mfma_fma       "MFMA/FMA"
 *      11 otherwise                          other          "other"
 *     Σ Stall per bucket over kept rows with Stall > 0, ordered by cycles
 *     descending, equal values in first-seen (row) order. Source hotspots
 *     group kept rows by the whole Source string ("" reads "<unknown>"),
 *     summing Stall and Latency, ordered by Σ Stall descending then first
 *     seen; a group's dominant type is the bucket with the largest Stall
 *     among its rows with Stall > 0 (first seen wins ties; none if no row
 *     stalls). Top instructions: kept rows with Stall > 0 by Stall
 *     descending, row order for ties. Lower-casing is ASCII only.
 *
 * (b) kreport's taxonomy, from the row's class (docs/instruction-classes.md) and, for WAITCNT rows,
 *     the counters its text names (an_wait_parse). Per kept row with
 *     Stall > 0, the first matching rule decides:
 *       WAITCNT naming a vector-memory counter (vmcnt, vscnt; gfx12 loadcnt,
 *         storecnt, samplecnt, bvhcnt) and an LDS/scalar/message counter
 *         (lgkmcnt; gfx12 dscnt, kmcnt), or s_wait_idle   wait_vmcnt+lgkmcnt
 *       WAITCNT naming vector-memory counters only          wait_vmcnt
 *       WAITCNT naming LDS/scalar/message counters only     wait_lgkmcnt
 *       WAITCNT naming expcnt only                          wait_expcnt
 *       other WAITCNT (s_waitcnt_depctr, s_wait_event, unparsed)  wait_other
 *       BARRIER barrier   NOP nop (s_nop dependency padding)
 *       VMEM vmem_issue   FLAT flat_issue   LDS lds_issue   SMEM smem_issue
 *       MATRIX matrix_dep VALU valu_dep     SALU salu       BRANCH branch
 *       MESSAGE message   anything else (IMMED_OTHER, OTHER, LABEL) other
 *     expcnt beside a memory counter does not change the bucket (gfx9
 *     compute kernels export nothing; `s_waitcnt 0` names all three). Each
 *     bucket keeps its cycles, rows, Σ Hit and its top rows (Stall
 *     descending, then vaddr, then row index). Buckets are ordered by cycles
 *     descending, then the order above. */
#ifndef KR_ANALYZER_STALLS_H
#define KR_ANALYZER_STALLS_H

#include <stddef.h>
#include <stdint.h>

#include "bundle/model.h"

/* ---- (a) the hub analyzer ---- */
typedef enum an_hub_bucket {
    AN_HUB_VMEM_WAIT = 0, AN_HUB_LDS_SMEM_WAIT, AN_HUB_EXP_WAIT, AN_HUB_WAITCNT,
    AN_HUB_BARRIER, AN_HUB_VMEM_LOAD, AN_HUB_VMEM_STORE, AN_HUB_LDS, AN_HUB_SMEM,
    AN_HUB_MFMA_FMA, AN_HUB_OTHER, AN_HUB_COUNT
} an_hub_bucket;
#define AN_HUB_NONE AN_HUB_COUNT     /* "no dominant type" */

an_hub_bucket an_hub_bucket_of(const char *isa);
const char *an_hub_bucket_key(unsigned b);      /* "vmem_wait", ...; "none" for AN_HUB_NONE */
const char *an_hub_bucket_display(unsigned b);  /* "VMEM-wait", ...; "-" for AN_HUB_NONE */

typedef struct an_hub_sum {
    an_hub_bucket bucket;
    uint64_t stall;                  /* Σ Stall over its kept rows with Stall > 0 */
    uint64_t rows;                   /* those rows */
} an_hub_sum;

typedef struct an_hub_source {
    const char *source;              /* the whole Source string, or "<unknown>" */
    uint32_t first_row;              /* row index where it was first seen */
    uint64_t rows, stall, latency;
    unsigned dominant;               /* an_hub_bucket or AN_HUB_NONE */
} an_hub_source;

/* ---- (b) kreport's taxonomy ---- */
typedef enum an_stall_kind {
    AN_STALL_WAIT_VMCNT = 0, AN_STALL_WAIT_LGKMCNT, AN_STALL_WAIT_VM_LGKM,
    AN_STALL_WAIT_EXPCNT, AN_STALL_WAIT_OTHER, AN_STALL_BARRIER, AN_STALL_NOP,
    AN_STALL_VMEM_ISSUE, AN_STALL_FLAT_ISSUE, AN_STALL_LDS_ISSUE, AN_STALL_SMEM_ISSUE,
    AN_STALL_MATRIX_DEP, AN_STALL_VALU_DEP, AN_STALL_SALU, AN_STALL_BRANCH,
    AN_STALL_MESSAGE, AN_STALL_OTHER, AN_STALL_COUNT
} an_stall_kind;

const char *an_stall_kind_key(unsigned k);      /* "wait_vmcnt", "wait_vmcnt+lgkmcnt", ... */
an_stall_kind an_stall_kind_of(const kr_code_row *r);

/* Memory counters a wait instruction names (ISA background: docs/waits.md#producer-links). */
typedef enum an_wait_counter {
    AN_CNT_VMCNT = 0, AN_CNT_LGKMCNT, AN_CNT_EXPCNT, AN_CNT_VSCNT,      /* gfx9-11 */
    AN_CNT_LOADCNT, AN_CNT_STORECNT, AN_CNT_SAMPLECNT, AN_CNT_BVHCNT,   /* gfx12 */
    AN_CNT_DSCNT, AN_CNT_KMCNT, AN_CNT_COUNT
} an_wait_counter;

typedef struct an_wait_info {
    unsigned mask;                   /* bit (1u << an_wait_counter) per counter named */
    int64_t value[AN_CNT_COUNT];     /* the threshold, -1 when not named or not parsed */
    uint8_t idle;                    /* s_wait_idle: every counter to zero */
} an_wait_info;

/* Parses `s_waitcnt vmcnt(N) lgkmcnt(N) expcnt(N)` (also `s_waitcnt 0` = all
 * three 0), `s_waitcnt_{vscnt,vmcnt,lgkmcnt,expcnt} <reg>, <imm>` and gfx12
 * `s_wait_<cnt>[_<cnt>] <imm>` / `s_wait_idle`. Returns 1 if the text is a
 * wait instruction of those families (mask may still be 0, e.g.
 * s_waitcnt_depctr), 0 otherwise. */
int an_wait_parse(const char *isa, an_wait_info *out);
const char *an_wait_counter_name(unsigned k);   /* "vmcnt", ... */

#define AN_STALL_TOP 5
typedef struct an_stall_bucket {
    uint64_t stall, rows, hit;
    uint32_t top[AN_STALL_TOP];      /* row indices */
    size_t ntop;
} an_stall_bucket;

typedef struct an_stalls {
    const kr_code_row *rows;         /* the capture's code table */
    size_t nrows;
    uint64_t kept_rows;              /* the hub's "instrs" */
    uint64_t total_cycles, total_stall;
    /* (a) */
    an_hub_sum hub[AN_HUB_COUNT];    /* seen buckets in the hub's order, then unseen in enum order */
    size_t nhub_seen;
    an_hub_source *sources;
    size_t nsources;
    uint32_t *hub_top;               /* row indices */
    size_t nhub_top;
    /* (b) */
    an_stall_bucket kinds[AN_STALL_COUNT];     /* indexed by an_stall_kind */
    an_stall_kind kind_order[AN_STALL_COUNT];  /* cycles descending, then enum order */
} an_stalls;

/* 0, or KR_INTERNAL when out of memory. Free with an_stalls_free. */
int an_stalls_compute(const kr_capture *c, an_stalls *out);
void an_stalls_free(an_stalls *r);

#endif
