/* compare.h — the documents of `kreport compare`: COMPARE.md (verdict first,
 * then the per-class table, kernel-time statistics, the trace explanation),
 * compare.json (schema kreport.compare, schema_version 1, every key always
 * present, null when unknown; JSON Schema in report/schema/compare.schema.json)
 * and the performance.md row of docs/compare.md#log-rows (`--row`). */
#ifndef KR_REPORT_COMPARE_H
#define KR_REPORT_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/compare.h"
#include "analyzer/compare_trace.h"
#include "common/buf.h"

/* One artifact found on a side. kind: "benchmark_csv", "benchmark_csv_profiled",
 * "kernel_trace", "kernel_trace_att", "results_json", "kernel_stats",
 * "agent_info", "capture", "capture_shell", "rocpd_db", "log". */
typedef struct rep_cmp_file {
    const char *kind;
    const char *path;            /* relative to the side's root */
    const char *detail;          /* rows, dispatches, a log's failure line ... or NULL */
} rep_cmp_file;

typedef struct rep_cmp_kv { const char *key, *value; } rep_cmp_kv;

typedef struct rep_cmp_side {
    const char *path;            /* as given */
    const rep_cmp_file *files;
    size_t nfiles;
    const rep_cmp_kv *meta;      /* run.meta */
    size_t nmeta;
} rep_cmp_side;

/* Two paired captures and what changed between them. */
typedef struct rep_cmp_pair {
    const char *label, *kernel;
    const char *best, *cand;     /* capture paths relative to each root */
    const an_cmp_trace *trace;
} rep_cmp_pair;

typedef struct rep_cmp_unpaired {
    const char *side;            /* "best" or "candidate" */
    const char *capture;
    const char *why;
} rep_cmp_unpaired;

typedef struct rep_cmp_input {
    const an_compare *cmp;
    const an_cmp_side *best_in, *cand_in;   /* what the analysis was given */
    rep_cmp_side best, cand;
    const rep_cmp_pair *pairs;
    size_t npairs;
    const rep_cmp_unpaired *unpaired;
    size_t nunpaired;
    /* Options as given (echoed in compare.json). */
    const char *const *kernels;
    size_t nkernels;
    const char *gate, *metric, *class_by, *target_class, *prev, *commit, *note;
    int allow_script_metric;
    const char *provider, *direction, *config;   /* --provider, "lower"/"higher", --config */
    const char *rerun;           /* command line that re-creates the outputs */
    const char *today;           /* YYYY-MM-DD for the row when run.meta has no date */
} rep_cmp_input;

/* Each returns 0 or KR_INTERNAL. */
int rep_compare_markdown(const rep_cmp_input *in, kr_buf *out);
int rep_compare_json(const rep_cmp_input *in, kr_buf *out);
/* The performance.md row for keep (results table) or discard (regression
 * summary), one line with a trailing newline; for other verdicts nothing is
 * appended and *none says why. */
int rep_compare_row(const rep_cmp_input *in, kr_buf *out, const char **none);

#endif
