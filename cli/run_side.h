/* run_side.h — one run directory as the analyzer and the reports take it:
 * the discovery of bundle/runs.h turned into an an_cmp_side (benchmark CSVs,
 * kernel traces, run facts, run.meta) and the list of artifacts found, for
 * `kreport compare` (each side) and `kreport analyze RUN`. */
#ifndef KR_CLI_RUN_SIDE_H
#define KR_CLI_RUN_SIDE_H

#include <stddef.h>

#include "analyzer/compare.h"
#include "bundle/runs.h"
#include "bundle/source.h"
#include "report/compare.h"

typedef struct cli_run_side {
    bundle_input input;          /* the folder, or the archive read in memory (open_path only) */
    bundle_run *run;
    an_bench_csv *csvs;
    an_trace_in *traces;
    an_cmp_side in;
    rep_cmp_file *files;
    size_t nfiles;
    rep_cmp_kv *meta;
    char **strs;                 /* strings owned for files' details */
    size_t nstrs;
} cli_run_side;

/* Opens path (a folder or an archive) and scans it. 0 or an error code with
 * err filled; cli_run_side_free in every case. */
int cli_run_side_open(cli_run_side *s, const char *path, kr_err *err);
/* The same on an input the caller opened and keeps (src, root); path is the
 * name given on the command line. */
int cli_run_side_scan(cli_run_side *s, const bundle_source *src, const char *root, const char *path, kr_err *err);
void cli_run_side_free(cli_run_side *s);

#endif
