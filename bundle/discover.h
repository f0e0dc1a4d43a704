/* discover.h — finding what belongs with a capture, and example folders.
 *
 * Content decides, not names (docs/formats.md#run-directories): a folder with filenames.json
 * is a capture; a JSON file with "rocprofiler-sdk-tool" is a results.json; a
 * CSV is classified by its header (docs/formats.md#rocprofv3-csvs). */
#ifndef KR_BUNDLE_DISCOVER_H
#define KR_BUNDLE_DISCOVER_H

#include <stddef.h>

#include "bundle/model.h"
#include "common/err.h"

/* Attaches results.json, kernel_trace, agent_info and kernel_stats CSVs to c
 * (c->results, c->kernel_trace, c->agent_info, c->kernel_stats), allocated
 * in c->arena. results_path, when given, is used instead of searching (and a
 * bad file is an error). Otherwise the search looks beside the capture folder
 * (its parent: a rocprofv3 run directory) and, for a hub example layout
 * (<example>/att_viewer/<label>/<capture>), in <example>/compute_viewer/:
 * a results.json is attached only if one of its GPU agents has the capture's
 * agent handle (docs/formats.md#joining-a-capture: never borrow another run's file); CSVs prefixed with the
 * label (<label>_agent_info.csv) are preferred over discover_*.csv. Every
 * counter_collection CSV found (also in pass_<N>/ and pmc_<N>/ subfolders of
 * those directories, rocprofv3's multi-pass layout) is appended to
 * c->counters in search order (full path breaks name ties). A rocpd
 * database (*.db, docs/formats.md#rocpd-databases; also in the non-capture sub-folders of those
 * directories, where rocprofv3 writes <host>/<pid>_results.db) becomes
 * c->rocpd and fills the kernel_trace and agent_info slots still free,
 * its counters appended; one whose agents carry handles none of which is
 * the capture's is another run's and is skipped. A rocprof v1/v2
 * results.csv is refused by name. Files that are found but malformed (a
 * *.db that is no rocpd database included) fail with KR_INPUT.
 * results_path may also name a CSV or a rocpd database. */
int bundle_attach_results(kr_capture *c, const char *results_path, kr_err *err);

typedef struct bundle_example_capture {
    char *label;             /* "small", "big", ... */
    char *dir;               /* path of the capture folder */
} bundle_example_capture;

typedef struct bundle_example {
    char *root;              /* the example folder */
    char *name;              /* its last path component (the kernel) */
    bundle_example_capture *captures;   /* sorted by label, then folder name */
    size_t ncaptures;
    int has_readme, has_report;
} bundle_example;

/* 1 if dir looks like an example folder (has att_viewer/ with captures). */
int bundle_is_example_dir(const char *dir);
int bundle_example_scan(const char *dir, bundle_example **out, kr_err *err);
struct bundle_source;      /* bundle/source.h */
/* The same two on a source (bundle/source.h; NULL: the filesystem). */
int bundle_is_example_dir_src(const struct bundle_source *src, const char *dir);
int bundle_example_scan_src(const struct bundle_source *src, const char *dir, bundle_example **out, kr_err *err);
void bundle_example_free(bundle_example *ex);

#endif
