/* run_baseline.h — `kreport analyze RUN`: the figures of one run directory
 * a loop records as its baseline and reads at every ANALYZE step
 * (docs/compare.md): every kernel of the trace, the target kernel set, its
 * per-call GPU time, registers and occupancy limits, per config class the
 * warm per-call GPU time and the script metric, and the correctness gate.
 *
 * One side of `kreport compare`, measured with compare's own code: the
 * kernel statistics, target pick and calls of compare_time.h (the run is
 * both sides of the pick, so nothing joins from a second side), the CSV
 * pairing, classes and script metric of compare_bench.h (the metric CSV
 * paired with itself: every row is its own partner) and its gate language.
 * Nothing here decides keep or discard.
 *
 * Choices of this module (the same as compare's where compare has one):
 *   metric CSV   the first plain benchmark CSV in discovery order, else the
 *                first profiled one (docs/compare.md#discovery pairing);
 *   gate         compare's: --gate, else err_* and every check/status/
 *                correct column (an_cmp_default_gate), else the
 *                benchmark's exit status (run.meta exit_code), else none;
 *   harness      compare's: only the provider under test's rows;
 *   companions   compare's: they join the calls of an auto-picked set;
 *   classes      compare's class key plus every config column whose values
 *                select different target kernels in the trace (docs/compare.md#config-classes);
 *                class GPU times only when the trace is row-aligned;
 *   per kernel   "warm" dispatches are all but the first of each kernel
 *                (its first dispatch compiles or warms caches); spread is
 *                the robust relative spread 1.4826 × MAD / median;
 *   ambiguous    when the auto pick is ambiguous (compare_time.h), each
 *                candidate is measured as a target set of its own, so the
 *                report can give its figures and the --kernel flag;
 *   registers    from the kernel trace's first dispatch of each target
 *                kernel; occupancy limits per docs/occupancy.md#limits through
 *                an_occ_limits_reported. On gfx950 with no AGPR the trace
 *                cannot show the under-report of docs/occupancy.md#register-counts (it needs the ISA of
 *                a capture): both readings are given and the capture, when
 *                the run holds one, settles it. */
#ifndef KR_ANALYZER_RUN_BASELINE_H
#define KR_ANALYZER_RUN_BASELINE_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/compare.h"
#include "analyzer/occupancy.h"

typedef struct an_baseline_opts {
    const char *const *kernels;      /* --kernel expressions */
    size_t nkernels;
    const char *gate, *metric, *class_by;
    size_t skip_first;               /* cold calls per row (compare's default 1) */
    double noise;                    /* θ for the cold-call rule (compare's default) */
    const char *target;              /* --target GPU override, NULL */
    const char *provider;            /* --provider (benchmark harness), NULL */
} an_baseline_opts;

/* Per-call figures of one target set. */
typedef struct an_baseline_calls {
    size_t calls, warm_calls, segments;
    an_desc warm;                    /* warm call times, ns */
    double spread;                   /* 1.4826 × MAD / median of warm calls, 0 when unknown */
    double calls_per_segment;
    size_t cold_segments;            /* segments whose first call is a cold outlier */
} an_baseline_calls;

/* A candidate of an ambiguous auto pick. */
typedef struct an_baseline_candidate {
    char *name;
    size_t dispatches;
    uint64_t total_ns;
    an_baseline_calls calls;         /* as if it alone were the target set */
} an_baseline_candidate;

/* Registers and limits of one target kernel. */
typedef struct an_baseline_kernel {
    const char *name;                /* the target set's string */
    int kernel;                      /* index into time.kernels, -1 when absent */
    an_occ_kernel occ;               /* limits from the trace's counts (name NULL) */
    uint8_t under_report_possible;   /* gfx950, AGPR 0: docs/occupancy.md#register-counts cannot be ruled out without ISA */
    an_occ_kernel occ_doubled;       /* the same with V_total = 2 × arch VGPR */
    uint8_t from_capture;            /* a capture of the kernel settled the registers */
    an_occ_kernel capture_occ;       /* the trace's counts with the capture's ISA marks (docs/occupancy.md#register-counts applied) */
    const char *capture;             /* its path, as the caller gave it */
} an_baseline_kernel;

typedef struct an_baseline_class {
    const char *label;               /* bench.classes[k].label */
    size_t rows;
    an_desc gpu;                     /* warm per-call ns over the class's rows (n = 0 when not row-aligned) */
    double gpu_spread;
    an_desc metric;                  /* script metric over the class's rows */
    char **kernels;                  /* kernels starting the class's calls */
    size_t nkernels;
} an_baseline_class;

typedef struct an_baseline {
    /* kernels and time */
    uint8_t has_timing;              /* a kernel trace with dispatches */
    an_side_time time;               /* every kernel, and the calls of the target set */
    uint64_t total_ns;               /* Σ over every kernel */
    an_target target;
    uint8_t target_found;            /* the set has calls */
    an_baseline_calls calls;
    an_baseline_candidate *candidates;   /* ambiguous auto pick: pick then runner-up */
    size_t ncandidates;
    an_baseline_kernel *kernels;     /* parallel to target.names */
    size_t nkernels;
    char *gpu_target;                /* "gfx950", NULL unknown */
    const char *gpu_target_source;   /* "option", "agent_info", NULL */
    int64_t cu_count;

    /* benchmark CSV */
    uint8_t has_bench;
    size_t metric_csv;               /* index into the side's CSVs, SIZE_MAX */
    size_t nplain_csvs;              /* CSVs of the metric CSV's kind (plain or profiled) */
    an_bench_cmp bench;              /* the metric CSV paired with itself */
    char **kernel_columns;           /* config columns added to the class key */
    size_t nkernel_columns;
    uint8_t row_aligned;
    an_baseline_class *classes;      /* parallel to bench.classes */
    size_t nclasses;
    an_desc metric;                  /* script metric over every row */
    double gpu_row_mean;             /* mean over rows of each row's mean warm per-call time (ns), docs/compare.md#log-rows */
    size_t gpu_rows;                 /* rows with a warm call */

    /* gate */
    an_gate gate;
    const char *gate_source;         /* "option", "default", "exit_status", "none" */
    const char *gate_status;         /* "pass", "fail", "not_evaluated", "no_gate" */
    an_gate_eval gate_eval;
    int64_t exit_code;
    an_compare *harness;             /* compare's harness step: the provider under test and its CSV views */
} an_baseline;

/* KR_USAGE for an option that names nothing (bad --kernel regex or one
 * matching no kernel, unknown --metric/--class-by column, --gate term
 * matching no column), KR_INTERNAL on allocation failure. */
int an_baseline_run(const an_cmp_side *side, const an_baseline_opts *o, an_baseline *out, kr_err *err);
/* Registers from a capture's occupancy (its kernel named like a target
 * kernel): the capture's ISA settles the gfx950 under-report. */
void an_baseline_use_capture(an_baseline *b, const an_occupancy *occ, const char *capture);
void an_baseline_free(an_baseline *b);

/* Config columns whose values select different kernels starting the calls
 * of the rows (docs/compare.md#config-classes), over BEST's rows of b and t's row-aligned
 * calls (an_call.row is a data row of b->best). malloc'd names appended to
 * *out. 0 or KR_INTERNAL. */
int an_baseline_kernel_columns(const an_bench_cmp *b, const an_side_time *t, char ***out, size_t *nout);

#endif
