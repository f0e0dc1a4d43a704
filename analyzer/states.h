/* states.h — wave-state breakdown (docs/formats.md#timeline) and the Issue / Stall /
 * Idle activity split of the code table (docs/stalls.md#issue-stall-and-idle).
 *
 * Timeline entry i of a wave covers [begin + Σ cycles of entries 0..i−1,
 * + cycles). Per state the cycles are summed two ways (docs/formats.md#timeline "Clamping"):
 *   raw      — as written (what wstates files, the viewer and the hub's
 *              REPORT percentages use);
 *   clipped  — each entry intersected with [begin, end) (drops the 0–4 cycle
 *              overshoot past the wave's end).
 * Shares are taken over the total of the same kind. State values above 4 are
 * not in the decoder's enum; their cycles go to AN_STATE_OTHER so totals stay
 * the sum of what was written. Sums saturate at UINT64_MAX. */
#ifndef KR_ANALYZER_STATES_H
#define KR_ANALYZER_STATES_H

#include <stddef.h>
#include <stdint.h>

#include "bundle/model.h"

/* Index of the "state value not in the enum" slot in the arrays below. */
#define AN_STATE_OTHER KR_STATE_COUNT
#define AN_STATES_N (KR_STATE_COUNT + 1)

typedef struct an_state_sums {
    uint64_t waves;                  /* waves in the scope */
    uint64_t raw[AN_STATES_N];       /* indexed by kr_state, then OTHER */
    uint64_t clipped[AN_STATES_N];
    uint64_t raw_total, clipped_total;
} an_state_sums;

/* One group of waves: per SE (simd = UINT32_MAX), per SIMD over all SEs
 * (se = UINT32_MAX) or per (SE, SIMD). */
typedef struct an_states_scope {
    uint32_t se, simd;
    an_state_sums sums;
} an_states_scope;

/* docs/stalls.md#issue-stall-and-idle over code rows (labels excluded): per row active = Latency,
 * stall = min(Stall, Latency), issue = active − stall, idle = Idle; then
 * summed. total = active + idle; shares are of total. */
typedef struct an_activity {
    uint64_t rows;                   /* instruction rows summed */
    uint64_t issue, stall, idle, active, total;
} an_activity;

typedef struct an_states {
    uint64_t waves;                  /* waves in the model */
    uint64_t waves_with_timeline;    /* waves with >= 1 timeline entry */
    uint64_t entries;                /* timeline entries over all waves */
    an_state_sums all;
    an_states_scope *per_se;         /* sorted by se */
    size_t nse;
    an_states_scope *per_simd;       /* sorted by simd */
    size_t nsimd;
    an_states_scope *per_se_simd;    /* sorted by (se, simd) */
    size_t nse_simd;
    an_activity activity;
} an_states;

/* 0, or KR_INTERNAL when out of memory (out is then empty). Free with
 * an_states_free. */
int an_states_compute(const kr_capture *c, an_states *out);
void an_states_free(an_states *r);
/* The same in two steps, for waves that are streamed (analysis.h): the
 * sums of each wave's timeline, then the result from per_wave[w] and
 * ntimeline[w] (entries of wave w's timeline) for every wave of c. */
void an_states_wave(const kr_wave *w, an_state_sums *s);
int an_states_finish(const kr_capture *c, const an_state_sums *per_wave, const size_t *ntimeline, an_states *out);

/* "EMPTY", "IDLE", "EXEC", "WAIT", "STALL", "OTHER" for 0..AN_STATE_OTHER. */
const char *an_state_key(unsigned s);

#endif
