/* hidden.h — hidden and non-hidden latency per instruction (
 * docs/hidden-latency.md, the viewer's "Hidden latency" algorithm, for every gfxip).
 *
 * A wave's idle or stalled cycles are hidden when another pipe of the same
 * SIMD is busy meanwhile; issue cycles only by a higher-priority pipe
 * (MATRIX > VALU > VMEM/LDS/FLAT > SALU/SMEM > the rest). Per (SE, SIMD)
 * scope, every record is a token (clock = time, stall, cycles = max(stall,
 * duration), type = category or MATRIX for v_mfma/v_smfma/v_wmma/v_swmma
 * text); busy lists wmma, valu (MATRIX adds 3·len/4), vmem, scal are
 * condensed by the viewer's util() (lengths added, not a union), then
 * math = valu ∪ wmma, vector = math ∪ vmem, all = vector ∪ scal. Per token
 * (last = wave.begin, then clock + cycles of the previous token) the idle,
 * stall and issue sub-intervals are intersected with the candidate sets of
 * the docs/hidden-latency.md table; the larger total wins, ties go to the second candidate
 * (the viewer's strict `>`). Sums per row are clamped to the row's docs/stalls.md#issue-stall-and-idle
 * idle / stall / issue; non-hidden = total − hidden. Records with an unknown
 * PC are tokens (they occupy pipes) but belong to no row. The viewer keeps
 * a token's stall in 16 bits; kreport does not truncate (the largest stall
 * in the shipped captures is 1604).
 *
 * Ranking: instruction rows with total > 0 by non-hidden descending, then
 * vaddr, then row index. */
#ifndef KR_ANALYZER_HIDDEN_H
#define KR_ANALYZER_HIDDEN_H

#include <stddef.h>
#include <stdint.h>

#include "bundle/model.h"

#define AN_HIDDEN_DEFAULT_N 10

/* How a scope's busy sets are queried: as sorted intervals walked by
 * cursors, or as bitmaps of 64-cycle blocks with prefix counts (O(1) a
 * query; memory and the cost of building them grow with the scope's time
 * span, so AUTO takes them only when the span is at most 32 cycles per
 * record plus 16 Ki cycles, and at most 2 Mi cycles).
 * Both give the same result; the choice is for tests and benchmarks. */
typedef enum an_hidden_method {
    AN_HIDDEN_AUTO = 0,
    AN_HIDDEN_WALK,
    AN_HIDDEN_BITMAP,
    AN_HIDDEN_BITMAP_PORTABLE        /* bitmaps, without the popcnt instruction */
} an_hidden_method;

typedef struct an_hidden_opts {
    size_t n;                        /* rows shown from the ranking (default 10) */
    an_hidden_method method;         /* an_hidden_compute only */
} an_hidden_opts;

typedef struct an_hidden_row {
    uint32_t row;
    uint64_t vaddr;
    uint64_t total, idle, stall, issue;                 /* docs/stalls.md#issue-stall-and-idle split of the row */
    uint64_t hidden_idle, hidden_stall, hidden_issue;   /* clamped */
    uint64_t non_hidden;
} an_hidden_row;

typedef struct an_hidden_sum {
    uint64_t total, idle, stall, issue;
    uint64_t hidden_idle, hidden_stall, hidden_issue, non_hidden;
} an_hidden_sum;

typedef struct an_hidden {
    const kr_code_row *rows;         /* the capture's code table */
    size_t nrows;
    size_t n;                        /* option used */
    uint8_t computed;                /* some wave had records */
    size_t scopes;                   /* (SE, SIMD) pairs */
    size_t bitmap_scopes;            /* of them, evaluated on bitmaps (the rest walked) */
    uint64_t tokens;
    an_hidden_sum all;               /* over instruction rows */
    an_hidden_sum cls[KR_CLASS_COUNT];   /* per docs/instruction-classes.md class */
    an_hidden_row *ranked;           /* rows with total > 0, ranked */
    size_t nranked;
} an_hidden;

/* opts may be NULL. 0 or KR_INTERNAL. Free with an_hidden_free. */
int an_hidden_compute(const kr_capture *c, const an_hidden_opts *opts, an_hidden *out);
void an_hidden_free(an_hidden *r);

/* The same in steps, for waves that are streamed (analysis.h): an
 * accumulator per thread takes whole scopes (waves[0 .. n) index c->waves,
 * all of one (SE, SIMD) pair, ascending); accumulators are merged by
 * addition (the order does not matter), then finished into the result. */
typedef struct an_hidden_acc an_hidden_acc;
an_hidden_acc *an_hidden_acc_new(const kr_capture *c);   /* NULL: out of memory */
void an_hidden_acc_method(an_hidden_acc *a, an_hidden_method m);   /* default AUTO */
int an_hidden_acc_scope(an_hidden_acc *a, const kr_capture *c, const size_t *waves, size_t n);
void an_hidden_acc_merge(an_hidden_acc *into, const an_hidden_acc *from);
int an_hidden_finish(const kr_capture *c, const an_hidden_acc *a, const an_hidden_opts *opts, an_hidden *out);
void an_hidden_acc_free(an_hidden_acc *a);

#endif
