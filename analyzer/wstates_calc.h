/* wstates_calc.h — recompute the wstates<k>.json curves from the wave
 * timelines (docs/formats.md#wave-state-curves): for each state k, the number of traced waves in
 * state k as a step function of raw (unaligned) per-SE time, summed over all
 * SEs, exactly as the ATT writer builds it. Used by validate [V-13]. */
#ifndef KR_ANALYZER_WSTATES_CALC_H
#define KR_ANALYZER_WSTATES_CALC_H

#include <stddef.h>
#include <stdint.h>

#include "bundle/model.h"

typedef struct an_wstates_curve {
    uint64_t *time;          /* malloc'd; step i holds during [time[i], time[i+1]) */
    int64_t *count;          /* waves in the state from time[i] on */
    size_t n;                /* 0: the state never occurs (no file is written) */
} an_wstates_curve;

/* Fills out[0..KR_STATE_COUNT). Timeline entries with a state outside 0..4
 * still advance the time but produce no event. Returns 0 or KR_INTERNAL
 * (out of memory; out is then empty). Release with an_wstates_free. */
int an_wstates_compute(const kr_capture *c, an_wstates_curve out[KR_STATE_COUNT]);
void an_wstates_free(an_wstates_curve out[KR_STATE_COUNT]);

#endif
