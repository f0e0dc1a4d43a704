/* compare_bench.h — the benchmark-CSV side of `kreport compare` (
 * docs/compare.md#correctness-gate, docs/compare.md#script-metric, docs/compare.md#config-classes): result and config columns, the correctness gate and its
 * expression language, row pairing, config classes, target-class specs, the
 * script metric and the routing predicate of a split.
 *
 * Gate expressions (kreport's own; `--gate EXPR`):
 *
 *     gate  := term { ("," | "&&") term }
 *     term  := PATTERN [ OP NUMBER ]
 *     OP    := "==" | "!=" | "<=" | ">=" | "<" | ">"
 *
 * PATTERN is a column name in which `*` matches any run of characters
 * (`err_*`, `*_max_diff`); a bare PATTERN means `PATTERN == 0`, so
 * `--gate err_flydsl_ps` is docs/compare.md's `--gate COL`. Every term applies to
 * every matching column of every row of every CSV of the side; all terms
 * must hold (a conjunction). A cell is read as a number with strtod over the
 * whole trimmed text: empty, NaN, infinite or text cells fail every term.
 * The default gate is `err_* == 0`.
 *
 * Result columns: names starting `us_` or `err_`, containing `max_diff`,
 * `_diff_thr`, `tflops`, `gbps`, `speedup`, `ratio` or `time`, or ending
 * `_us` or `_ms` (ASCII case-insensitive); every other column is config.
 * Row key: all config values trimmed, `True`/`true`/`TRUE`/`1` read as 1 and
 * `False`/`false`/`FALSE`/`0` as 0, tuples verbatim; rows with equal keys pair
 * in file order. When pairing fails, float config columns whose values never
 * repeat within a side are re-labelled results (warned) and pairing is
 * retried once.
 *
 * Classes: `--class-by COLS`, else those present of block_size, mtp
 * (aliases query_length, qlen, max_seqlen_q) and head_size (aliases head_dim,
 * hdim), else one class of every row (a class per row would test each row
 * alone, and some row would regress by chance); the caller may add config columns that
 * select different kernels (docs/compare.md#config-classes). Class order: first appearance in
 * BEST's rows. */
#ifndef KR_ANALYZER_COMPARE_BENCH_H
#define KR_ANALYZER_COMPARE_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/* One benchmark CSV as read (the strings belong to the caller). */
typedef struct an_bench_csv {
    const char *path;            /* as shown in reports (relative to its side) */
    uint8_t profiled;            /* written beside rocprofv3 output (docs/compare.md#discovery) */
    size_t ncols, nrows;
    const char *const *header;
    const char *const *cells;    /* nrows × ncols, row-major */
    const size_t *lines;         /* 1-based line of each row, or NULL */
} an_bench_csv;

static inline const char *an_bench_cell(const an_bench_csv *t, size_t row, size_t col)
{
    return t->cells[row * t->ncols + col];
}

/* What a benchmark column holds (docs/compare.md "Benchmark CSV columns"),
 * by its name, ASCII case-insensitive, first match wins:
 *   gate text     check, status, result, benchmark_status
 *   gate bool     correct, correctness, passed, valid, is_correct
 *   error size    correctness_error; names containing "err" with a size word
 *                 (max, mean, min, avg, rel, abs, rms, l2), or "diff", "atol",
 *                 "rtol", "cos", "snr", "ulp", "tolerance": results, never
 *                 config, never gate unless --gate names them
 *   gate number   err_* (0 passes)
 *   lower better  us_*, *_us, *_ms, *_ns, "(us)", or containing time,
 *                 latency, duration
 *   higher better containing tflops, gflops, gbps, gb/s, tb/s, bandwidth,
 *                 throughput, speedup, tokens/s, items/s, score
 *   result        containing ratio or _thr
 *   config        everything else */
typedef enum an_col_kind {
    AN_COL_CONFIG = 0, AN_COL_RESULT, AN_COL_ERROR_SIZE, AN_COL_GATE_NUMBER, AN_COL_GATE_TEXT, AN_COL_GATE_BOOL,
    AN_COL_METRIC_LOWER, AN_COL_METRIC_HIGHER
} an_col_kind;

an_col_kind an_bench_column_kind(const char *name);
int an_bench_is_result_column(const char *name);   /* every kind but config */
int an_bench_is_gate_column(const char *name);
/* A gate cell of a column: 1 pass, 0 fail, -1 skipped (a text gate
 * column reading skip..., or empty: listed, not failed). */
int an_bench_gate_cell(const char *column, const char *cell);
int an_bench_col(const an_bench_csv *t, const char *name);    /* index or -1 */
/* 1 if the trimmed text is a finite number; *v gets it. */
int an_bench_number(const char *text, double *v);

/* ---- gate ---- */
/* AN_GATE_OK: a bare PATTERN: the cell passes as an_bench_gate_cell says
 * (numeric columns: == 0). */
typedef enum an_gate_op { AN_GATE_EQ = 0, AN_GATE_NE, AN_GATE_LT, AN_GATE_LE, AN_GATE_GT, AN_GATE_GE, AN_GATE_OK } an_gate_op;

typedef struct an_gate_term {
    char *pattern;
    an_gate_op op;
    double value;
    char *value_text;            /* as written ("0" for a bare pattern) */
    uint8_t gate_columns_only;   /* match only gate columns (the default gate's err_*) */
} an_gate_term;

typedef struct an_gate {
    an_gate_term *terms;
    size_t n;
    char *text;                  /* canonical form: "err_* == 0, x <= 0.5" */
} an_gate;

/* KR_USAGE with a message naming the position on a syntax error. */
int an_gate_parse(const char *expr, an_gate *out, kr_err *err);
void an_gate_free(an_gate *g);
int an_gate_match(const char *pattern, const char *name);   /* `*` wildcards */
const char *an_gate_op_text(an_gate_op op);

typedef struct an_gate_fail {
    size_t csv, row;             /* index into the side's CSVs, 0-based data row */
    size_t col;
    size_t term;
} an_gate_fail;

typedef struct an_gate_eval {
    size_t cells;                /* cells checked */
    an_gate_fail *fails;         /* in (csv, row, col, term) order */
    size_t nfails;
    char **columns;              /* distinct matched column names, sorted */
    size_t ncolumns;
    uint8_t *term_matched;       /* per term: matched some column */
    an_gate_fail *skips;         /* skipped cells (text gate "skip..." or empty): listed, not failed */
    size_t nskips;
} an_gate_eval;

/* Evaluates g over n CSVs. 0 or KR_INTERNAL. */
int an_gate_evaluate(const an_gate *g, const an_bench_csv *csvs, size_t n, an_gate_eval *out);
void an_gate_eval_free(an_gate_eval *e);

/* ---- pairing, classes, metric ---- */

typedef struct an_bench_row {
    size_t best_row, cand_row;   /* data rows in the paired CSVs */
    char *label;                 /* "block_size=16, query_length=1, ..." over config columns */
    size_t cls;                  /* index into classes, SIZE_MAX before classes exist */
    uint8_t has_metric;          /* both metric cells are positive numbers */
    double best_metric, cand_metric;
    double ratio;                /* time-like: cand / best for lower-is-better, best / cand for higher */
} an_bench_row;

typedef struct an_bench_class {
    char *label;                 /* "block_size=16, query_length=1" ("all rows" with no columns) */
    char **values;               /* display value per class column */
    size_t *rows;                /* indices into an_bench_cmp.rows */
    size_t nrows;
    uint8_t has_ratio;
    double geomean_ratio;        /* of the script metric ratios */
    size_t best_row, worst_row;  /* indices into rows[] of the smallest and largest ratio */
} an_bench_class;

typedef enum an_metric_dir { AN_DIR_AUTO = 0, AN_DIR_LOWER, AN_DIR_HIGHER } an_metric_dir;

typedef struct an_bench_opts {
    const char *metric;          /* --metric, NULL for the default */
    const char *class_by;        /* --class-by (comma-separated), NULL for the default */
    an_metric_dir direction;     /* --lower-is-better / --higher-is-better, AUTO from the name */
    const char *config_cols;     /* --config (comma-separated): the row key columns; NULL: every config column */
} an_bench_opts;

typedef struct an_bench_cmp {
    const an_bench_csv *best, *cand;
    char **config;               /* config columns (BEST order) */
    size_t nconfig;
    int *config_best, *config_cand;   /* their indices in each CSV */
    char **relabelled;           /* float config columns re-labelled results */
    size_t nrelabelled;
    uint8_t config_differs;      /* the two CSVs do not have the same config columns */
    char *config_diff;           /* description when they differ */

    const char *metric;          /* metric column, NULL when none */
    const char *metric_source;   /* "option", "default", "first us_ column", "time column", "throughput column" */
    uint8_t metric_higher;       /* higher is better: ratio = best / cand (time-like) */
    const char *direction_source;   /* "option" or "name" */
    char **key_cols;             /* --config override, NULL when every config column keys the rows */
    size_t nkey_cols;
    int metric_best, metric_cand;
    size_t metric_unusable;      /* paired rows whose metric is not a positive number */

    an_bench_row *rows;          /* paired rows, in BEST order */
    size_t nrows;
    size_t *unpaired_best, nunpaired_best;   /* data rows of BEST without a partner */
    size_t *unpaired_cand, nunpaired_cand;

    char **class_cols;
    size_t nclass_cols;
    const char *class_source;    /* "option", "default", "none" (one class) */
    an_bench_class *classes;
    size_t nclasses;

    uint8_t has_ratio;
    double geomean_ratio;        /* all rows with a metric */
    double boot_lo, boot_hi;     /* percentile bootstrap interval of the geomean */
    double best_mean, cand_mean; /* row means of the metric */
} an_bench_cmp;

/* Columns, metric and row pairing; classes are made by an_bench_classes.
 * KR_USAGE when --metric or a --class-by column does not exist (message in
 * err), KR_INTERNAL on allocation failure. */
int an_bench_pair(const an_bench_csv *best, const an_bench_csv *cand, const an_bench_opts *o,
                  an_bench_cmp *out, kr_err *err);
/* Class columns (option or defaults) plus extra (config column names, may
 * be NULL), classes and per-class geometric means. */
int an_bench_classes(an_bench_cmp *b, const char *class_by, const char *const *extra, size_t nextra, kr_err *err);
/* Geometric mean of the ratios with a seeded percentile bootstrap
 * (resamples of rows with replacement; xoshiro256** seeded through
 * splitmix64). */
int an_bench_script(an_bench_cmp *b, uint64_t seed, size_t resamples);
/* The same over the paired rows rows[0..n) (indices into b->rows; NULL =
 * all rows): *used rows had a metric; *g, *lo, *hi are ratios (1 = no
 * change). 0 or KR_INTERNAL; *used = 0 leaves the outputs at 1. */
int an_bench_geomean(const an_bench_cmp *b, const size_t *rows, size_t n, uint64_t seed, size_t resamples,
                     double *g, double *lo, double *hi, size_t *used);
void an_bench_free(an_bench_cmp *b);

/* Config value of a paired row on BEST (raw, trimmed into buf). */
const char *an_bench_row_value(const an_bench_cmp *b, size_t row, size_t config_index, char *buf, size_t cap);
/* Normalized value (True/1 → "1") used for keys and matching. */
void an_bench_norm(const char *raw, char *buf, size_t cap);
/* Index of a column name in b->config, accepting the class aliases
 * (mtp ⇄ query_length, qlen, max_seqlen_q; head_size ⇄ head_dim, hdim); -1. */
int an_bench_config_index(const an_bench_cmp *b, const char *name);

/* ---- target classes (--target-class K=V,...) ---- */
typedef struct an_target_spec {
    char **keys, **values;       /* normalized values */
    int *config;                 /* config index per key */
    size_t n;
    char *text;
} an_target_spec;

/* "global" or "" give n = 0. KR_USAGE on syntax errors or unknown columns. */
int an_target_parse(const an_bench_cmp *b, const char *spec, an_target_spec *out, kr_err *err);
int an_target_matches(const an_bench_cmp *b, const an_target_spec *t, size_t row);
void an_target_free(an_target_spec *t);

/* Routing predicate over the class columns selecting exactly the classes
 * with sel[c] != 0 (docs/compare.md#overall-verdict split): a conjunction per column
 * (`col == v`, `col <= v`, `col >= v`, `col in {a, b}`, columns whose every
 * value is selected left out) when it selects exactly those classes, else a
 * disjunction of the class conjunctions. eq_style 1 writes `col=v` terms
 * joined by "," (performance.md cells). malloc'd; NULL when nothing is
 * selected. */
char *an_bench_predicate(const an_bench_cmp *b, const uint8_t *sel, int eq_style);

#endif
