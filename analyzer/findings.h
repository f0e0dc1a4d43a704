/* findings.h — the decision layer of `kreport analyze`: rules over the
 * other analyses' results that say whether the capture represents the
 * kernel, what the waits wait on, what bounds the kernel and which three
 * actions address the most time (docs/findings.md describes every code,
 * its figure and its threshold).
 *
 * Wait classes. Every stall cycle of an executed WAITCNT row is given to
 * the class of what it waited on: the attributed stall of each producer
 * (analyzer/waits.h, the critical producer of each execution) to the
 * producer's class; the unattributed rest of a wait to "unlinked". Stall
 * of s_barrier rows is the "barrier" class. Producer classes, by the row's
 * text:
 *   kernarg    an s_load* whose base SGPRs no earlier row of the kernel
 *              writes: a pointer set at launch, the kernel-argument
 *              pointer (usually s[0:1]) or the dispatch packet
 *   smem       any other scalar memory instruction
 *   crosslane  ds_bpermute, ds_permute, ds_swizzle (lane exchange through
 *              the LDS crossbar; v_permlane* is VALU and never waited on)
 *   lds        any other ds_* instruction
 *   vmem_load  a vector memory or flat instruction that is not a store
 *   store      a vector memory or flat store
 *   other      messages and everything else
 *
 * Findings (an_rule.code), each with the figure that fired it and its
 * threshold (the AN_FIND_* constants below):
 *   low_coverage, early_exit, dispatch_time_outlier, grid_underfill,
 *   narrow_access, nop_padding, kernarg_wait, crosslane_wait,
 *   source_collapse, spin_loop, unknown_pc, sums_mismatch.
 *
 * Summary: the bound (the largest share among the stall groups, or the
 * grid when it leaves most slots idle), whether the capture is
 * representative (no low_coverage, early_exit, unknown_pc or
 * sums_mismatch), up to three actions ranked by the share of stall (or of
 * idle GPU slots, for the grid) they address, each only where its premise
 * holds, and what not to do. */
#ifndef KR_ANALYZER_FINDINGS_H
#define KR_ANALYZER_FINDINGS_H

#include <stddef.h>
#include <stdint.h>

#include "bundle/model.h"

struct an_analysis;

/* Thresholds (docs/findings.md says why each is where it is). */
#define AN_FIND_COVERAGE_ROWS 0.5        /* executed / instruction rows below this */
#define AN_FIND_COVERAGE_LOOP 0.2        /* or no loop ran, the largest holding >= this share of rows */
#define AN_FIND_COVERAGE_CLASS_ROWS 8    /* or >= this many MFMA (or LDS) rows, none ran */
#define AN_FIND_EARLY_RATIO 0.25         /* a wave ran < this × the longest wave's instructions */
#define AN_FIND_EARLY_WAVES 0.5          /* ... and at least this share of the waves did */
#define AN_FIND_OUTLIER_RATIO 1.5        /* dispatch time vs median, either way */
#define AN_FIND_OUTLIER_MIN 3            /* dispatches needed for a median */
#define AN_FIND_NARROW_INSTS 0.25        /* narrow share of vector memory executions */
#define AN_FIND_NARROW_STALL 0.10        /* or of all stall (own + attributed waits) */
#define AN_FIND_WAIT_SHARE 0.10          /* nop_padding, kernarg_wait, crosslane_wait */
#define AN_FIND_COLLAPSE_TOP 0.6         /* heaviest line's share of hit + stall */
#define AN_FIND_COLLAPSE_ROWS 100        /* ... with at least this many mapped rows */
#define AN_FIND_SPIN_ROWS 16             /* a polling loop has at most this many rows */
#define AN_FIND_ACTION_MIN 0.05          /* an action addresses at least this share */

#define AN_FIND_ROWS 5
#define AN_FIND_FIGS 4

typedef enum an_wclass {
    AN_WC_KERNARG = 0, AN_WC_SMEM, AN_WC_LDS, AN_WC_CROSSLANE, AN_WC_VMEM_LOAD, AN_WC_STORE,
    AN_WC_BARRIER, AN_WC_OTHER, AN_WC_UNLINKED, AN_WC_COUNT
} an_wclass;
const char *an_wclass_id(an_wclass k);     /* "kernarg", "smem", ... */
const char *an_wclass_name(an_wclass k);   /* "kernel-argument loads", ... */

typedef struct an_fig {
    const char *name;                      /* analysis.json key */
    double value;
} an_fig;

/* One finding that fired (a rule and its evidence). */
typedef struct an_rule {
    const char *code;
    const char *severity;                  /* "warning" or "info" */
    char *message;                         /* one sentence with the figures (malloc) */
    an_fig figs[AN_FIND_FIGS];             /* figs[0] is the one compared with threshold */
    size_t nfigs;
    double threshold;
    uint32_t rows[AN_FIND_ROWS];           /* evidence rows (code-table indices) */
    size_t nrows;
} an_rule;

typedef struct an_action {
    const char *code;                      /* the finding, wait class or stall group it acts on */
    char *text;                            /* (malloc) */
    double share;                          /* of stall, or of idle slots for "grid" */
    uint64_t cycles;                       /* stall cycles addressed, 0 for "grid" */
    uint32_t rows[3];
    size_t nrows;
} an_action;

typedef struct an_findings {
    uint8_t computed;                      /* 0 without flow analyses (compare) */
    uint64_t total_stall;
    uint64_t wclass_stall[AN_WC_COUNT];
    uint64_t wclass_waits[AN_WC_COUNT];    /* wait rows whose top class it is */
    uint32_t wclass_top[AN_WC_COUNT];      /* producer (or barrier) row with the most stall, UINT32_MAX */
    uint64_t nop_stall, alu_stall, issue_stall;
    an_rule *items;
    size_t n;
    const char *bound;                     /* bound code */
    char *bound_text;                      /* one sentence (malloc) */
    double bound_share;
    uint8_t representative;
    char *capture_text;                    /* why (not) representative (malloc) */
    an_action actions[3];
    size_t nactions;
    char *avoid[3];                        /* what not to do (malloc) */
    size_t navoid;
    uint32_t spin_loop;                    /* loop index, UINT32_MAX none */
} an_findings;

/* The class of a producer row (kernarg needs the kernel's rows before it). */
an_wclass an_wclass_of_row(const kr_capture *c, uint32_t row);

/* The median duration of the dispatches of `kernel` in the capture's
 * kernel trace or results.json that have the grid of the capture's own
 * dispatch (all of the kernel's when the capture's dispatch is not there and
 * they share one grid); 0 when fewer than AN_FIND_OUTLIER_MIN. */
uint64_t an_dispatch_median(const kr_capture *c, const char *kernel, size_t *n);

/* A loop that polls memory: at most AN_FIND_SPIN_ROWS rows, a load or
 * atomic, a compare, no LDS, MFMA or store row, and no vector ALU row but
 * compares, lane reads, moves and selects (a loop that computes on what it
 * loads is work). */
int an_loop_polls(const kr_capture *c, uint32_t head, uint32_t tail);

/* 0 or KR_INTERNAL (out then holds nothing to free). */
int an_findings_compute(const struct an_analysis *a, an_findings *out);
void an_findings_free(an_findings *f);

#endif
