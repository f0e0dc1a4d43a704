/* compare.h — the keep/discard decision of `kreport compare BEST CANDIDATE`
 * (docs/compare.md, docs/compare.md#over-fitting-guard): validity, correctness gate, the per-call GPU time of the
 * target kernel set (global, per config class, per target class), the
 * overall verdict, the need-more estimate and the warnings. Pure: the caller
 * reads the files (bundle/runs.h) and hands over their contents.
 *
 * Order (docs/compare.md#overall-verdict): inputs valid → gate → global GPU group → class
 * groups → verdict → warnings. BEST lacking a kernel trace or a benchmark
 * CSV that CANDIDATE has is an input error (docs/compare.md#discovery); when neither side
 * has one (two capture folders, two ATT-only runs), that part is skipped and
 * said so (no kernel timing → inconclusive).
 *   fail          invalid comparison (command, GPU model, gate columns or
 *                 config rows differ), missing metrics on CANDIDATE, or the
 *                 gate failed on CANDIDATE
 *   inconclusive  no kernel timing on either side (unless
 *                 --allow-script-metric lets the script metric decide,
 *                 labelled script-only), or the deciding group cannot rule
 *                 out a θ-sized change (with the need-more estimate)
 *   split         some class improved and some class regressed
 *   discard       the global group or any class regressed
 *   keep          (with --target-class) the target group improved and the
 *                 global r < 0; (without) the global group improved, or it
 *                 is `tie (faster)` twice on the same code (--prev)
 *   tie           otherwise
 * Class groups are GPU groups when both sides' traces are row-aligned;
 * otherwise they come from the script metric, are marked low-confidence and
 * only produce warnings (the script metric never changes a verdict, docs/compare.md#script-metric).
 *
 * Groups: warm call times → log → minus each row's BEST median log on both
 * sides (rows pool; without row alignment one pseudo-row) → Hodges-Lehmann
 * shift with the rank interval and Mann-Whitney p (analyzer/compare_stats.h);
 * r = exp(HL) − 1. With ≥ 2 plain traces on a side, the interval is widened
 * (in quadrature, log scale) by 1.96 × √(s_b²/k_b + s_c²/k_c), s being the
 * standard deviation of the per-trace medians of the group on a side with
 * k traces (kreport's reading of docs/compare.md#statistic "Replicates"). Script groups:
 * r = geometric mean of the per-row ratios − 1 with the seeded bootstrap
 * interval (compare_bench.h). */
#ifndef KR_ANALYZER_COMPARE_H
#define KR_ANALYZER_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/compare_bench.h"
#include "analyzer/compare_stats.h"
#include "analyzer/compare_time.h"
#include "common/buf.h"
#include "common/err.h"

#define AN_CMP_DEFAULT_NOISE 0.01
#define AN_CMP_DEFAULT_SEED 0x6b7265706f7274ull
#define AN_CMP_RESAMPLES 10000
#define AN_CMP_SUSPICIOUS_GAIN 0.30
#define AN_CMP_MAX_LISTED 10        /* rows or names listed in one message */

/* What the caller found on one side. Strings belong to the caller. */
typedef struct an_cmp_side {
    const char *path;                /* as given on the command line */
    const an_bench_csv *csvs;        /* every benchmark CSV (plain and profiled) */
    size_t ncsvs;
    const an_trace_in *traces;
    size_t ntraces;
    const char *command;             /* benchmark command, NULL unknown */
    const char *gpu_product, *gpu_name;   /* NULL unknown */
    int64_t cu_count;                /* -1 unknown */
    const char *gpu_card;            /* physical card identity, NULL unknown */
    int64_t exit_code;               /* run.meta exit_code, -1 unknown */
    const char *commit, *date, *hypothesis, *files, *attempt, *target_class;   /* run.meta */
    const char *identity;            /* hash of the trace and CSV bytes */
    size_t ncaptures;
} an_cmp_side;

/* The preceding comparison (--prev compare.json). */
typedef struct an_cmp_prev {
    const char *path;
    const char *best_identity;       /* NULL when absent */
    const char *candidate_commit;
    const char *global_outcome;      /* an_outcome_id of its global group */
} an_cmp_prev;

typedef struct an_cmp_opts {
    double noise;                    /* θ as a fraction (0.01) */
    an_metric_dir direction;         /* --lower-is-better / --higher-is-better */
    const char *config;              /* --config COLS: the row key columns */
    const char *provider;            /* --provider NAME (benchmark harness) */
    const char *const *kernels;      /* --kernel expressions */
    size_t nkernels;
    const char *gate, *metric, *class_by, *target_class;
    int allow_script_metric;
    const an_cmp_prev *prev;
    const char *commit;              /* --commit */
    size_t skip_first;               /* cold calls per segment (1) */
    uint64_t seed;
    size_t resamples;
} an_cmp_opts;

typedef enum an_verdict {
    AN_V_KEEP = 0, AN_V_TIE, AN_V_DISCARD, AN_V_INCONCLUSIVE, AN_V_SPLIT, AN_V_FAIL
} an_verdict;

const char *an_verdict_id(an_verdict v);            /* "keep", ... */
/* --exit-code mapping: 0 keep, 1 discard or tie, 6 inconclusive, 7 split, 8 fail. */
int an_verdict_exit(an_verdict v);

typedef struct an_note {
    char *id;
    char *text;
} an_note;

typedef struct an_notes {
    an_note *v;
    size_t n, cap;
} an_notes;

typedef enum an_group_src { AN_GROUP_GPU = 0, AN_GROUP_SCRIPT } an_group_src;

typedef struct an_group {
    char *label;
    uint8_t evaluated;
    uint8_t source;                  /* an_group_src */
    uint8_t low_confidence;          /* script fallback for a class (no row alignment) */
    size_t rows;                     /* benchmark rows in the group (0 without rows) */
    size_t n_best, n_cand;           /* warm calls (or rows for script groups) */
    double median_best, median_cand, mean_best, mean_cand;   /* ns (script: metric units) */
    double r, lo, hi, p;             /* fractions; p < 0 when not computed */
    uint8_t bounded;
    double widen;                    /* replicate widening added (log scale), 0 when none */
    an_outcome outcome;
    uint64_t need_more;              /* more warm calls per side, 0 when not applicable */
    uint8_t too_small;
    uint64_t need_calls_per_row;     /* calls per segment of a re-run (cold ones included) */
    char *note;                      /* why it is not evaluated / inconclusive, NULL */
    char **kernels_best, **kernels_cand;   /* names starting the group's calls */
    size_t nkernels_best, nkernels_cand;
} an_group;

/* One candidate target set of an ambiguous auto-pick, measured alone. */
typedef struct an_cand_set {
    char **names;                    /* lead kernel first, then its companions */
    size_t n;
    an_group group;
    char *flags;                     /* the --kernel flags that pin it */
} an_cand_set;

typedef struct an_compare {
    an_verdict verdict;
    char *verdict_text;              /* "keep", "tie (faster)", "fail (gate)", "keep (script-only)" */
    const char *fail_kind;           /* "invalid", "missing_metrics", "gate" or NULL */
    an_notes reasons, warnings, problems;
    uint8_t counts_as_regression;
    uint8_t script_only;
    uint8_t same_direction_twice;
    const char *prev_status;         /* "not_given", "confirmed", "not_confirmed", "refused" */

    /* gate */
    an_gate gate;
    const char *gate_source;         /* "option", "default", "exit_status", "none" */
    const char *gate_status;         /* "pass", "fail", "not_evaluated", "no_gate" */
    an_gate_eval gate_best, gate_cand;
    char **already_failing;          /* gate columns failing on BEST too */
    size_t nalready_failing;

    /* benchmark CSVs */
    uint8_t has_bench;
    size_t bench_best_csv, bench_cand_csv;   /* indices of the metric pair */
    an_bench_cmp bench;
    an_group *classes;               /* parallel to bench.classes */
    size_t nclasses;
    uint8_t has_target_class;
    an_target_spec target_spec;
    an_group target_group;
    char *predicate, *predicate_eq;  /* split routing predicate over improved classes */
    char *gain_classes;              /* eq-style predicate of the improved classes under a keep */

    /* GPU time */
    uint8_t timing_best, timing_cand;        /* traces with dispatches on each side */
    uint8_t has_timing;              /* the global GPU group was evaluated */
    an_side_time tbest, tcand;
    an_target target;
    uint8_t row_aligned;
    size_t *best_row_pair, *cand_row_pair;   /* CSV row → paired row index (SIZE_MAX) */
    an_group global;
    an_group *kernel_groups;         /* per target kernel (dispatch level), parallel to target.names */
    size_t nkernel_groups;
    an_group script_global;          /* script metric, informational unless script-only */
    uint8_t has_script;
    char **decisive_kernels;         /* target kernels whose own group improved or regressed */
    size_t ndecisive;
    char **kernel_columns;           /* config columns added to the class key because they select kernels */
    size_t nkernel_columns;

    /* The benchmark CSVs as compared (parallel to each side's CSVs; rows of
     * the provider under test only in a harness CSV). */
    const an_bench_csv *csvs_best, *csvs_cand;
    an_bench_csv *views_best, *views_cand;   /* owned views, NULL when none */
    size_t nviews_best, nviews_cand;
    char *provider;                  /* provider under test, NULL outside a harness */
    const char *provider_source;     /* "option", "candidate_commit", "changed", "only" */
    char **providers;                /* every provider seen */
    size_t nproviders;

    an_trace_in *traces_best, *traces_cand;  /* the traces as used (rows of per-shape traces) */
    size_t ntraces_best, ntraces_cand;
    size_t *trace_rows;              /* storage of their rows */
    size_t traces_matched;           /* per-shape traces mapped to rows (both sides) */

    an_cand_set *sets;               /* ambiguous auto-pick: each candidate set */
    size_t nsets;
    uint8_t target_resolved;         /* the one set that changed was taken as the target */

    uint8_t benchmark_only;          /* neither side has a trace: the benchmark metric decided */
    const char *bench_method;        /* "replicates", "signed_rank", NULL */
    size_t replicates_best, replicates_cand;   /* benchmark CSVs pooled per side */
    double **rep_v[2];               /* per paired row, each replicate's time-like metric, BEST then CANDIDATE */
    size_t *rep_n[2];
    char **severe_rows;              /* rows more than 5 % worse: "label (+7.1 %)" */
    size_t nsevere;
    uint8_t severe_known;            /* their change exceeds the row's own noise */
    uint8_t structural;              /* more calls cannot decide (one call per row) */

    double noise;
    size_t skip_first;
    uint64_t seed;
    size_t resamples;
} an_compare;

/* KR_INPUT when BEST is incomplete where CANDIDATE is not (message in err),
 * KR_USAGE for an option that names nothing (bad regex, unknown column,
 * gate term matching no column), KR_INTERNAL on allocation failure. */
int an_compare_run(const an_cmp_side *best, const an_cmp_side *cand, const an_cmp_opts *opts,
                   an_compare *out, kr_err *err);

/* Pieces of the run that `kreport analyze RUN` shares (analyzer/run_baseline.h):
 * the default gate expression over both sides' CSVs ("err_*" and every text
 * or boolean gate column; empty when there is none), and the harness step
 * (out zeroed first: providers, the provider under test, and views of the
 * CSVs restricted to it in out->views_best / views_cand, NULL outside a
 * harness; an ambiguous provider is a note in out->problems). */
void an_cmp_default_gate(const an_cmp_side *best, const an_cmp_side *cand, kr_buf *out);
int an_cmp_harness(an_compare *out, const an_cmp_side *best, const an_cmp_side *cand, const char *provider, kr_err *err);
void an_compare_free(an_compare *c);

#endif
