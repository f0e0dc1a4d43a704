/* saturation.h — can the dispatch fill the GPU? The check AGENTS.md of the
 * hub asks for before a capture is called "primary" (docs/formats.md#example-folders,
 * docs/occupancy.md#limits last paragraph).
 *
 * Inputs from the occupancy analysis (analyzer/occupancy.h, its primary
 * kernel): workgroups, work-items per workgroup, waves per workgroup, the
 * resource limit in waves per SIMD and in workgroups per CU, and the CU
 * count (agent; else the hardware table's, cu_fallback).
 *
 * Figures (kreport's own):
 *   workgroups per CU      = workgroups / CUs
 *   waves per SIMD (grid)  = workgroups × waves_per_wg / (CUs × SIMDs per CU)
 *   slots                  = CUs × workgroups per CU allowed by the resources
 *   rounds                 = ceil(workgroups / slots)
 *   tail fraction          = idle share of the slots in the last round:
 *                            1 − (workgroups − (rounds − 1) × slots) / slots
 *   fills                  = workgroups ≥ slots (one full round at least)
 *   verdict                "fills" (fills and tail < AN_SAT_TAIL), "tail"
 *                          (fills and tail ≥ AN_SAT_TAIL), "underfilled"
 *                          (workgroups < slots), "unknown" (no grid or CUs). */
#ifndef KR_ANALYZER_SATURATION_H
#define KR_ANALYZER_SATURATION_H

#include <stdint.h>

#include "analyzer/occupancy.h"

#define AN_SAT_TAIL 0.25
#define AN_SAT_SIMDS_PER_CU 4

typedef struct an_saturation {
    uint8_t known;                   /* grid and CU count known */
    const char *cu_source;           /* "agent", "hardware table", NULL */
    int64_t workgroups, wg_size, cu_count;
    uint32_t waves_per_wg;
    double wg_per_cu;
    double grid_waves_per_simd;
    int64_t wg_per_cu_limit;         /* -1 unknown: slots, rounds and tail unknown */
    uint32_t waves_per_simd_limit;   /* resource limit, 0 unknown */
    int64_t slots, rounds;           /* -1 unknown */
    double tail_fraction;            /* valid when rounds >= 1 */
    uint8_t fills;
    const char *verdict;             /* "fills", "tail", "underfilled", "unknown" */
} an_saturation;

/* cu_fallback: CUs to use when the occupancy analysis knows none (-1 for
 * none). Never fails. */
void an_saturation_compute(const an_occupancy *occ, int64_t cu_fallback, an_saturation *out);

#endif
