/* occupancy.h — occupancy limiters and achieved occupancy (docs/formats.md#occupancy-events, docs/occupancy.md).
 *
 * (a) Limiter, per kernel (label row) of the capture: register/LDS/workgroup
 * inputs from results.json (docs/formats.md#joining-a-capture join: agent by the capture's handle, symbol
 * by the label's (Codeobj, Vaddr)), else from a kernel_trace CSV row whose
 * Kernel_Name equals the label's symbol without "; " and ".kd" (the row with
 * the capture's dispatch id if any, else the first in file order), else from
 * the ISA alone ("isa-only"). ISA high-water marks (docs/occupancy.md#register-counts), the gfx950
 * under-report correction, the docs/occupancy.md#limits formulas, the next step and the
 * grid-limited occupancy (workgroups per CU from the grid vs the resource
 * limit).
 *
 * ISA-only inputs (kreport's own): V_arch = v mark, V_acc = a mark, S = s
 * mark (a lower bound, docs/occupancy.md#register-counts), no LDS, no workgroup size (LDS and slot limits
 * unknown). The docs/occupancy.md#register-counts floor uses the unified need (a > 0 ? alignTo(v, 4) + a
 * : v), which equals the v mark when no AGPR is written.
 *
 * (b) Achieved occupancy from occupancy.json (docs/occupancy.md#resident-waves): per (SE, CU, SIMD)
 * resident-wave step functions (rows sorted by time, ends before starts at
 * equal times), times shifted by c->realtime.se_offset when aligned.
 *
 * - Target CU: the CU id of the traced waves (most frequent, ties lowest),
 *   taken in every SE whose occupancy has rows for it. Per SIMD: max and the
 *   time-weighted mean over that CU's [first start, last end].
 * - Per CU: mean waves per SIMD over the CU's own [first start, last end]
 *   (docs/occupancy.md#resident-waves; the spread is the min/max of those means) and over the dispatch
 *   span (aligned: global [first start, last end] over all SEs; unaligned:
 *   the span of the CU's SE), which also counts the time a CU sat empty.
 * - Low-occupancy fraction (kreport's own): over the target CUs, Σ cycles of
 *   the dispatch span during which a target CU had fewer than half of its own
 *   peak resident waves (2 × resident < peak) / Σ span lengths.
 * - Verdict: "grid-limited" when ceil(workgroups / CUs) is below the
 *   resource limit in workgroups per CU; "tail" when the low-occupancy
 *   fraction is ≥ 25 %; both joined with " + "; "full" otherwise; "unknown"
 *   when neither the grid nor occupancy.json is known. */
#ifndef KR_ANALYZER_OCCUPANCY_H
#define KR_ANALYZER_OCCUPANCY_H

#include <stddef.h>
#include <stdint.h>

#include "bundle/model.h"

#define AN_OCC_TAIL_FRACTION 0.25   /* low-occupancy share that makes a "tail" */

typedef struct an_occupancy_opts {
    const char *target;      /* --target override ("gfx950"), NULL for detection */
} an_occupancy_opts;

/* Limiters in report and tie order (docs/occupancy.md#limits). */
typedef enum an_occ_lim {
    AN_LIM_VGPR = 0, AN_LIM_SGPR, AN_LIM_LDS, AN_LIM_WG, AN_LIM_COUNT
} an_occ_lim;

const char *an_occ_lim_name(an_occ_lim l);   /* "VGPR", "SGPR", "LDS", "workgroup slots" */
const char *an_occ_lim_id(an_occ_lim l);     /* "vgpr", "sgpr", "lds", "workgroup_slots" */

typedef enum an_occ_source {
    AN_OCC_SRC_RESULTS = 0,  /* results.json kernel symbol */
    AN_OCC_SRC_KERNEL_TRACE, /* kernel_trace CSV row */
    AN_OCC_SRC_ISA_ONLY      /* ISA high-water marks only */
} an_occ_source;

const char *an_occ_source_id(an_occ_source s);   /* "results.json", "kernel_trace.csv", "isa-only" */

typedef struct an_occ_kernel {
    char *name;              /* label symbol without "; " and ".kd" (malloc) */
    uint32_t label_row;      /* index into c->rows */
    int64_t codeobj;
    uint64_t vaddr;

    /* docs/occupancy.md#register-counts ISA high-water marks over the kernel's instruction rows. */
    uint32_t isa_v, isa_a, isa_s;

    /* Inputs; -1 when unknown. */
    an_occ_source source;
    int64_t kernel_id;               /* results symbol or CSV row */
    int64_t csv_dispatch_id;         /* the CSV row used, -1 otherwise */
    int64_t reported_arch_vgpr, reported_accum_vgpr, reported_sgpr;
    int64_t lds_bytes, scratch_bytes;
    int64_t wg_size;                 /* work-items per workgroup (x·y·z) */
    int64_t grid_size;               /* work-items in the grid (x·y·z) */
    int64_t workgroups;              /* Π ceil(grid_i / wg_i) */

    /* docs/occupancy.md#limits */
    uint8_t under_report;            /* gfx950, accum 0, ISA mark > reported arch */
    uint8_t isa_above_reported;      /* ISA floor raised V_total */
    uint32_t v_total;                /* unified VGPRs after corrections */
    uint32_t sgpr;                   /* S used in W_sgpr */
    uint32_t waves_per_wg, waves_per_simd_per_wg;   /* 0 when wg size unknown */
    int32_t w[AN_LIM_COUNT];         /* W_vgpr, W_sgpr, W_lds, W_wg; -1 = no limit / unknown */
    uint8_t w_known[AN_LIM_COUNT];   /* 0: the input is unknown */
    int64_t wg_lds;                  /* workgroups per CU by LDS, -1 = no limit */
    int64_t wg_slots;                /* workgroup slots per CU, -1 unknown */
    uint32_t waves_per_simd;         /* min(8, W_*) */
    uint8_t limiter[AN_LIM_COUNT];   /* 1 for each limiter equal to the minimum */
    an_occ_lim primary;              /* first limiter in tie order */

    /* Next step (only when waves_per_simd < max): VGPRs allowed for w + 1. */
    uint32_t next_waves;             /* next whole workgroup per CU: (w / s + 1) × s waves/SIMD, s =
                                        waves_per_simd_per_wg (1 when unknown); 0 past the maximum */
    int64_t next_vgpr_max;           /* alignDown(512 / (w + 1), 8), -1 at max */
    int64_t next_sgpr_max;           /* -1 when no S allows w + 1 or at max */
    int64_t next_lds_max;            /* static LDS bytes per WG allowed for w + 1, -1 n/a */

    /* Grid limit (docs/occupancy.md#limits last paragraph). */
    int64_t cu_count;                /* from the agent, -1 unknown */
    int64_t wg_per_cu_limit;         /* waves_per_simd / waves_per_simd_per_wg, -1 unknown */
    int64_t wg_per_cu_grid;          /* ceil(workgroups / cu_count), -1 unknown */
    int64_t grid_waves_per_simd;     /* min(waves_per_simd, wg_per_cu_grid × waves_per_simd_per_wg), -1 */
    uint8_t grid_limited;
} an_occ_kernel;

typedef struct an_occ_simd {
    uint32_t se, cu, simd;
    uint32_t max_waves;
    double mean_waves;               /* over the CU's [first start, last end] */
    uint64_t wave_cycles;            /* ∫ resident dt */
} an_occ_simd;

typedef struct an_occ_cu {
    uint32_t se, cu;
    uint8_t target;
    uint64_t waves;                  /* wave starts */
    uint32_t max_waves;              /* peak resident on the CU */
    uint32_t max_per_simd;
    uint64_t first, last;            /* first start, last end (aligned if aligned) */
    uint64_t wave_cycles;            /* ∫ resident dt over all SIMDs */
    double mean_per_simd;            /* wave_cycles / ((last − first) × SIMDs) */
    double mean_per_simd_span;       /* wave_cycles / (dispatch span × SIMDs) */
    uint64_t low_cycles;             /* span cycles with 2 × resident < max_waves */
} an_occ_cu;

typedef struct an_occ_se {
    uint32_t se;
    uint64_t rows, waves;
    uint32_t max_waves;              /* peak resident on the SE */
    int64_t offset;                  /* alignment offset applied */
} an_occ_se;

typedef struct an_occ_achieved {
    uint8_t present;                 /* occupancy.json with rows */
    uint8_t aligned;                 /* times shifted by the docs/formats.md#se-alignment offsets */
    uint8_t has_target;
    uint32_t target_cu;
    uint32_t simds_per_cu;           /* agent simd_per_cu, else 4 */
    an_occ_se *ses; size_t nses;
    an_occ_cu *cus; size_t ncus;     /* sorted by (se, cu) */
    an_occ_simd *simds; size_t nsimds;   /* target CU SIMDs, by (se, simd) */
    uint32_t target_max_per_simd;
    double target_mean_per_simd;     /* Σ target SIMD wave-cycles / Σ (CU window × SIMDs) */
    uint32_t max_per_simd, max_per_cu, max_per_se;   /* over every CU in the file */
    double cu_mean_min, cu_mean_max;             /* of mean_per_simd */
    double cu_span_mean_min, cu_span_mean_max;   /* of mean_per_simd_span */
    uint64_t span_first, span_last;  /* dispatch span (aligned: global; else min/max raw) */
    uint64_t low_cycles, low_total;  /* target CUs: under half their peak / Σ spans */
    double low_fraction;             /* low_cycles / low_total, 0 when low_total = 0 */
} an_occ_achieved;

typedef struct an_occupancy {
    char *target;                    /* "gfx950", "unknown gfx9" (malloc) */
    const char *target_source;       /* "option", "results.json", "agent_info.csv", "isa-heuristic", "none" */
    uint8_t modelled;                /* target is a gfx9 (CDNA) part docs/occupancy.md models */
    int64_t lds_per_cu;              /* bytes, docs/occupancy.md#hardware-parameters */
    int64_t cu_count;                /* agent, -1 unknown */
    const char *agent_source;        /* "results.json", "agent_info.csv", NULL */
    an_occ_kernel *kernels; size_t nkernels;
    size_t primary;                  /* kernel the verdict uses: the first labelled one */
    an_occ_achieved achieved;
    const char *verdict;             /* see the header comment */
} an_occupancy;

/* docs/occupancy.md#register-counts ISA high-water marks of one ISA text, merged into *v, *a, *s
 * (each = max register index + 1 seen, unchanged when none). */
void an_occ_isa_marks(const char *isa, uint32_t *v, uint32_t *a, uint32_t *s);

/* docs/occupancy.md#limits pieces, exposed for tests and other modules. */
uint32_t an_occ_w_vgpr(uint32_t v_total);
uint32_t an_occ_w_sgpr(uint32_t sgpr);

/* The limits (docs/occupancy.md#limits) of a kernel known from a kernel-trace row (source
 * kernel_trace.csv). The caller sets k's reported_arch_vgpr,
 * reported_accum_vgpr, reported_sgpr, lds_bytes, wg_size and workgroups
 * (-1 unknown) and isa_v/isa_a/isa_s: the register marks (docs/occupancy.md#register-counts) of a capture of the
 * kernel, 0 without one (then the gfx950 under-report cannot be seen: the
 * caller says so). target "gfx950" or NULL; cu_count -1 unknown. Fills the
 * limit fields as an_occupancy_compute does, register corrections included. */
void an_occ_limits_reported(an_occ_kernel *k, const char *target, int64_t cu_count);

/* opts may be NULL. Returns 0 or KR_INTERNAL (allocation). */
int an_occupancy_compute(const kr_capture *c, const an_occupancy_opts *opts, an_occupancy *out);
void an_occupancy_free(an_occupancy *r);

#endif
