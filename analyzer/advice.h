/* advice.h — ranked recommendations, each tied to evidence from the other
 * analyses. Deterministic rules, no invented text:
 *
 * First (an_advice_add_roofline, put in front of all others):
 *   roofline     the speed-of-light target is known (analyzer/roofline.h):
 *                the bound, % of the binding peak, time at the target
 *
 * Stall rules (one per group of kreport stall buckets, analyzer/stalls.h),
 * fire when the group holds >= AN_ADVICE_MIN_SHARE of the capture's stall
 * cycles; ranked by cycles descending, then rule order:
 *   vmem_wait    wait_vmcnt + wait_vmcnt+lgkmcnt
 *   lgkm_wait    wait_lgkmcnt
 *   barrier      barrier
 *   nop          nop
 *   alu_dep      matrix_dep + valu_dep
 *   mem_issue    vmem_issue + flat_issue + lds_issue + smem_issue
 * Each names its top rows (vaddr, ISA, stall, innermost source line).
 * Structural rules follow, in this order, when their condition holds:
 *   grid         the grid cannot fill the GPU (occupancy grid_limited)
 *   occupancy    resource-limited below 8 waves/SIMD: the limiter and the
 *                next step (VGPRs allowed for one more wave)
 *   vgpr_report  gfx950 VGPR under-report corrected (docs/occupancy.md#register-counts)
 *   mapping      no instruction row maps to source (compile with line info)
 * Wait, loop and latency rules (an_advice_add_flow, appended after all of
 * the above, in this order):
 *   wait_producer  one item per hot wait (at most AN_ADVICE_WAITS, in the
 *                  order of analyzer/waits.h) whose
 *                  attributed stall is >= AN_ADVICE_MIN_SHARE of the stall
 *                  cycles: issue its top producer ~exposed-p50 cycles
 *                  earlier, or put ~extra_insts independent instructions
 *                  between producer and wait; a kernel-argument load
 *                  (analyzer/findings.h) sits at the kernel's entry and
 *                  cannot issue earlier: batch the argument loads instead
 * Every action is worded for what the kernel runs: no LDS advice without
 * LDS data instructions, no MFMA wording without MFMA, no register advice
 * when the grid caps occupancy (analyzer/findings.h has the summary's
 * premises).
 *   first_iteration  the main loop's first iterations cost >=
 *                  AN_ADVICE_FIRST_RATIO × the steady-state p50 (both p50,
 *                  analyzer/phases.h): prefetch the first tile in the prologue
 *   prologue       prologue + epilogue hold >= AN_ADVICE_EDGE_SHARE of
 *                  Σ (Latency + Idle) while a loop exists: the fixed cost is
 *                  not amortised over enough iterations
 *   exposed        >= AN_ADVICE_EXPOSED_SHARE of the cycles are not hidden
 *                  by other work on the SIMD (docs/hidden-latency.md): the top rows by
 *                  non-hidden latency
 */
#ifndef KR_ANALYZER_ADVICE_H
#define KR_ANALYZER_ADVICE_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/hidden.h"
#include "analyzer/occupancy.h"
#include "analyzer/phases.h"
#include "analyzer/roofline.h"
#include "analyzer/sources.h"
#include "analyzer/stalls.h"
#include "analyzer/states.h"
#include "analyzer/totals.h"
#include "analyzer/waits.h"
#include "bundle/model.h"

#define AN_ADVICE_MIN_SHARE 0.05
#define AN_ADVICE_ROWS 3
#define AN_ADVICE_WAITS 3
#define AN_ADVICE_FIRST_RATIO 1.5
#define AN_ADVICE_EDGE_SHARE 0.25
#define AN_ADVICE_EXPOSED_SHARE 0.5

typedef struct an_advice_item {
    const char *id;          /* rule id, see above */
    char *title;             /* one line with the key figure (malloc) */
    char *action;            /* what to try (malloc) */
    char *evidence;          /* the figures and rows behind it, plain text (malloc) */
    char *summary;           /* the figures alone, without the rows (malloc) */
    uint64_t cycles;         /* stall cycles the rule covers, 0 for structural rules */
    double share;            /* cycles / total stall, -1 for structural rules */
    uint32_t rows[AN_ADVICE_ROWS];   /* evidence rows (indices into the code table) */
    size_t nrows;
} an_advice_item;

typedef struct an_advice {
    an_advice_item *items;
    size_t n;
} an_advice;

int an_advice_compute(const kr_capture *c, const an_totals *totals, const an_states *states,
                      const an_stalls *stalls, const an_sources *sources,
                      const an_occupancy *occ, an_advice *out);
/* Appends the wait, loop and latency rules to a (any argument but c and a
 * may be NULL: its rules are skipped). 0 or KR_INTERNAL (a is then freed). */
int an_advice_add_flow(const kr_capture *c, const an_waits *waits, const an_phases *phases,
                       const an_hidden *hidden, an_advice *a);
/* Puts the roofline rule first (id "roofline"), when r has a target
 * (analyzer/roofline.h): the bound, the % of the binding peak on the device,
 * the time at AN_ROOF_TARGET of it and what to try. 0 or KR_INTERNAL (a is
 * then freed). */
int an_advice_add_roofline(const an_roofline *r, an_advice *a);
void an_advice_free(an_advice *a);

#endif
