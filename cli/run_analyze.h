/* run_analyze.h — `kreport analyze RUN`: a run directory (or an archive of
 * one) that is neither a capture folder nor an example folder (LOOP.md
 * §1 baseline and ANALYZE step). */
#ifndef KR_CLI_RUN_ANALYZE_H
#define KR_CLI_RUN_ANALYZE_H

#include <stddef.h>

#include "bundle/source.h"
#include "common/buf.h"
#include "common/err.h"

typedef struct cli_run_opts {
    const char *out_dir;
    int want_md, want_json;
    int force, quiet, progress, no_progress, row, jobs, top, context;
    const char *const *kernels;      /* every --kernel value */
    size_t nkernels;
    const char *gate, *metric, *class_by, *commit, *note, *target;
    int argc;                        /* the command line, for the re-run line */
    char **argv;
} cli_run_opts;

/* Scans the opened input as a run directory and writes its documents.
 * Returns the exit status (KR_INPUT with a message when nothing of a run
 * is found). */
int cli_run_analyze(const char *path, const bundle_input *input, const cli_run_opts *o);

/* `kreport info RUN`: a few lines (or, json set, one JSON object) saying
 * what the run directory holds and its headline figures, appended to out.
 * -1 when the input holds nothing of a run (the caller treats it as a
 * capture), else 0 or an error code with err filled. */
int cli_run_info(const char *path, const bundle_input *input, int json, kr_buf *out, kr_err *err);

#endif
