/* run.h — the documents of `kreport analyze RUN` (LOOP.md §1, §4): the
 * baseline part of REPORT.md (summary first: target kernel set, per-call
 * GPU time, gate; then kernels, registers and occupancy limits, config
 * classes, captures or how to make one, files), the "run" object of
 * analysis.json (JSON Schema in report/schema/analysis.schema.json,
 * $defs/run; every key always present, null when unknown) and the
 * `baseline` row of performance.md (`--row`). The captures' own analysis
 * follows in the same documents, rendered by report.h. */
#ifndef KR_REPORT_RUN_H
#define KR_REPORT_RUN_H

#include <stddef.h>

#include "analyzer/run_baseline.h"
#include "common/buf.h"
#include "report/compare.h"

typedef struct rep_run_capture {
    const char *path;            /* relative to the run */
    const char *label;
    const char *kernel;          /* "" unknown */
    const char *status;          /* "analyzed", "other_kernel", "empty_shell" */
} rep_run_capture;

typedef struct rep_run_input {
    const an_baseline *b;
    const an_cmp_side *side;
    const char *name;            /* the run as the user named it (basename) */
    const rep_cmp_file *files;
    size_t nfiles;
    const rep_cmp_kv *meta;      /* run.meta */
    size_t nmeta;
    const rep_run_capture *captures;
    size_t ncaptures;
    /* Options as given (echoed in analysis.json). */
    const char *const *kernels;
    size_t nkernels;
    const char *gate, *metric, *class_by, *commit, *note;
    const char *rerun;           /* command line that re-creates the outputs */
    const char *today;           /* YYYY-MM-DD for the row when run.meta has no date */
} rep_run_input;

/* Each returns 0 or KR_INTERNAL. */
int rep_run_markdown(const rep_run_input *in, kr_buf *out);
/* analysis.json: the run object, then "captures" taken from captures_json
 * (rep_analysis_json's document in its example form, NULL when none). */
int rep_run_json(const rep_run_input *in, const char *captures_json, kr_buf *out);
/* The performance.md `baseline` row, one line with a trailing newline. */
int rep_run_row(const rep_run_input *in, kr_buf *out);
/* The --kernel flag that pins name: "--kernel '^name$'" with ERE
 * metacharacters escaped and shell quoting. */
void rep_run_kernel_flag(kr_buf *out, const char *name);

#endif
