/* compare_time.h — per-call GPU time from kernel-trace dispatches
 * (docs/compare.md#deciding-metric): per-kernel statistics, the target kernel set, segments,
 * calls, cold first calls and the mapping of segments to benchmark rows.
 *
 * Kernel kinds: runtime helpers are names starting `__amd_rocclr_` (blits
 * and fills); framework kernels contain `at::native::`, `Cijk_` or
 * `rocprim::`. The auto-picked target is the non-helper, non-framework kernel with the
 * largest total time on BEST among kernels with ≥ 3 dispatches (falling back
 * to any non-helper kernel, then any kernel, when none qualifies); the
 * runner-up is reported, and the pick is "ambiguous" when the runner-up is a
 * non-framework timed loop too (≥ 3 dispatches) with at least a quarter of
 * the pick's total. Non-framework kernels with ≥ 3 dispatches found on one
 * side only join the set. `--kernel REGEX` (POSIX ERE, repeatable) replaces
 * the pick: every name matching one of the expressions on either side.
 *
 * Segments and calls: per trace and agent, dispatches sorted by start
 * time; a segment is a maximal run of target dispatches not interrupted by
 * another non-helper kernel; a call starts at each dispatch of the segment's
 * first kernel name and includes the target dispatches up to the next one;
 * call time = Σ (End − Start). The first skip_first calls of each row
 * (of each segment without row alignment) are cold. A segment's first call counts as a cold outlier when it exceeds
 * the median of the segment's warm calls by more than max(θ, 3 × 1.4826 ×
 * MAD / median) (kreport's own).
 *
 * Per-kernel "first dispatch is a cold outlier": the kernel's first
 * dispatch exceeds the median of its other dispatches by more than
 * max(θ, 3 × 1.4826 × MAD / median) of them (kreport's own); statistics are
 * given with and without that dispatch.
 *
 * Rows: a trace's segments map to benchmark rows in order when their count
 * is a whole multiple k of the row count (k segments per row). */
#ifndef KR_ANALYZER_COMPARE_TIME_H
#define KR_ANALYZER_COMPARE_TIME_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/compare_stats.h"
#include "bundle/model.h"
#include "common/err.h"

#define AN_TIME_MIN_LOOP 3           /* dispatches that make a timed loop */
#define AN_TIME_AMBIGUOUS 0.25       /* runner-up share of the pick's total that makes it ambiguous */

/* One kernel trace of a side. */
typedef struct an_trace_in {
    const char *path;
    const kr_dispatch *d;
    size_t n;
    uint8_t att_pass;                /* beside ATT captures (docs/compare.md#discovery pairing) */
    const uint64_t *drop_ids;        /* captured dispatch ids, dropped from an ATT-pass trace */
    size_t ndrop;
    const size_t *rows;              /* benchmark data rows this trace measured (a per-shape trace), in
                                        order; NULL: every row of the benchmark CSV */
    size_t nrows;
} an_trace_in;

int an_time_is_helper(const char *name);
int an_time_is_framework(const char *name);

/* Per kernel name on one side, over every dispatch of the traces used. */
typedef struct an_kernel_stat {
    const char *name;
    uint64_t total_ns;
    an_desc all;                     /* every dispatch, ns */
    an_desc rest;                    /* without the first dispatch */
    double first_ns;
    uint8_t first_cold;
    uint8_t helper, framework;
    /* Resources of the first dispatch (-1 unknown). */
    int64_t vgpr, agpr, sgpr, lds, scratch, wg_size, grid_wg;
    double *ns;                      /* every dispatch duration in time order (all.n entries, malloc) */
} an_kernel_stat;

typedef struct an_call {
    double ns;
    uint32_t trace;                  /* index into the side's traces */
    uint32_t segment;                /* within its trace */
    uint32_t index;                  /* call index within the segment */
    uint32_t first_kernel;           /* index into the side's kernels[] of the call's first dispatch */
    size_t row;                      /* benchmark data row, SIZE_MAX when not row-aligned */
    uint8_t warm;
} an_call;

typedef struct an_side_time {
    an_kernel_stat *kernels;         /* sorted by total time descending, then name */
    size_t nkernels;
    size_t ntraces_used;
    uint8_t used_att_pass;           /* only ATT-pass traces were available */
    size_t dropped_captured;         /* dispatches dropped because they were captured */
    an_call *calls;
    size_t ncalls;
    size_t nsegments;                /* over all traces used */
    size_t *segments_per_trace;      /* ntraces_used entries */
    uint32_t *trace_index;           /* traces used → index into the input traces */
    an_desc all, warm;               /* call times (ns) */
    size_t cold_segments;            /* segments whose first call is a cold outlier */
    size_t segments_with_warm;
    double cold_excess;              /* median excess of first calls over their segment's warm median */
    double calls_per_segment;        /* median calls per segment */
    uint8_t row_aligned;
    size_t segments_per_row;         /* k when row-aligned */
    size_t max_calls_per_row;        /* row-aligned: most calls a row has (0 otherwise) */
    size_t *rows_no_warm;            /* row-aligned: benchmark rows with calls but no warm call */
    size_t nrows_no_warm;
    size_t rows_with_calls;
} an_side_time;

/* Statistics of every kernel of the traces of one side (plain traces when
 * any exist, else the ATT-pass traces with captured dispatches dropped).
 * theta for the cold rule. 0 or KR_INTERNAL. */
int an_time_kernels(const an_trace_in *traces, size_t ntraces, double theta, an_side_time *out);

typedef struct an_target {
    char **names;                    /* the target set, sorted by BEST total descending then name */
    size_t n;
    const char *how;                 /* "option" or "auto" */
    char *why;                       /* one sentence */
    char *runner_up;                 /* NULL when none */
    uint64_t pick_total_ns, runner_up_total_ns;
    uint8_t ambiguous;
    char **joined;                   /* one-sided kernels that joined the set */
    size_t njoined;
    char **companions;               /* kernels that joined as part of every call (also in names) */
    size_t ncompanions;
    char **untimed;                  /* companions of a pinned set: they do not break a segment and
                                        are not counted (not in names) */
    size_t nuntimed;
} an_target;

/* Target set from --kernel expressions (POSIX ERE; KR_USAGE naming a bad
 * one) or the auto pick. */
int an_time_target(const an_side_time *best, const an_side_time *cand, const char *const *regex, size_t nregex,
                   an_target *out, kr_err *err);
int an_target_has(const an_target *t, const char *name);
void an_target_free_set(an_target *t);

/* Companions of the target set on one side (docs/compare.md "Calls"):
 * gaps are the stretches between consecutive target dispatches of one
 * agent; a kernel K outside the set (helpers aside, framework kernels
 * included) is a companion when it is the only non-helper kernel, exactly
 * once, in at least half of the gaps (and in two or more, and in at least
 * min_clean: the benchmark's row count, since a kernel between rows of one
 * call each looks the same), and no gap holds K alone more than once or
 * nothing at all. New names are added to *out (deduplicated). 0 or
 * KR_INTERNAL. */
int an_time_companions(const an_trace_in *traces, const an_side_time *s, const an_target *t, size_t min_clean,
                       char ***out, size_t *n);
/* Adds names to the set as companions (kept sorted as the set is); timed 0
 * lists them as untimed instead (a pinned set). */
int an_target_add_companions(const an_side_time *best, const an_side_time *cand, an_target *t, char **names, size_t n,
                             int timed);

/* Calls of the target set (see the header comment); nrows > 0 tries the
 * row mapping (a trace with rows maps its segments to those rows). Cold
 * calls: the first skip_first calls of each row's block of calls (per
 * trace) when row-aligned, else of each segment. 0 or KR_INTERNAL. */
int an_time_calls(const an_trace_in *traces, size_t ntraces, const an_target *t, size_t skip_first,
                  size_t nrows, double theta, an_side_time *side);
void an_side_time_free(an_side_time *s);

/* Index of a kernel name in side->kernels, or -1. */
int an_time_kernel_index(const an_side_time *s, const char *name);

#endif
