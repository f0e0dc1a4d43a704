/* runs.h — what one side of `kreport compare` holds: a run directory searched
 * recursively, or a single capture folder (docs/compare.md#discovery "Discovery",
 * docs/formats.md#rocprofv3-csvs, docs/formats.md#run-directories).
 *
 * Content decides, never names (except run.meta and *.log):
 *   benchmark CSV   a *.csv whose header has a column starting `us_` or `err_`
 *                   (and that is no rocprofv3 CSV)
 *   kernel trace    a *.csv classified kernel_trace by bundle_csv_kind_of
 *   kernel stats / agent info   likewise (docs/formats.md#agent-info-csv, docs/formats.md#stats-csvs)
 *   results.json    a *.json with "rocprofiler-sdk-tool" (docs/formats.md#results-json); its
 *                   buffer_records.kernel_dispatch records are a kernel
 *                   trace when no kernel_trace CSV lies in the same folder
 *   capture         a folder with filenames.json (docs/formats.md#capture-folder); not descended into;
 *                   `"code": null` marks an empty shell (listed, not compared)
 *   rocpd database  a file starting with the SQLite header, or named *.db:
 *                   read (bundle/load_rocpd.h) as a kernel trace and agent
 *                   info (docs/formats.md#rocpd-databases); one that is no rocpd database
 *                   fails the scan
 *   run.meta        key=value lines (docs/compare.md#discovery)
 *   log             *.log; its first Traceback/AssertionError line is kept
 *   archive         a file named like an archive (bundle_archive_has_suffix):
 *                   read in place (docs/compare.md#discovery) with every protection of
 *                   bundle/archive.h, and walked as a sub-folder whose
 *                   paths are "<dir>/<name>.tar.zst/<member>"; a hostile
 *                   or unreadable one fails the scan (KR_INPUT naming the
 *                   archive and member). One level deep: an archive inside
 *                   such an archive is listed, not opened. All of them
 *                   together hold at most KR_MAX_ARCHIVE_BYTES.
 * A benchmark CSV in a folder that also holds rocprofv3 output is
 * "profiled" (it joins the gate; its us_* serve only when no plain CSV
 * exists). A kernel trace in a folder that also holds capture folders or
 * `*_code_object_id_*` files comes from an ATT pass; the dispatch ids of the
 * captured folders (`..._dispatch_<D>`) are listed for dropping.
 *
 * The walk follows symbolic links but never enters a directory twice
 * (device, inode), visits entries in byte order and stops at depth 32. A
 * malformed CSV or results.json fails the scan (KR_INPUT naming the file and
 * position). */
#ifndef KR_BUNDLE_RUNS_H
#define KR_BUNDLE_RUNS_H

#include <stddef.h>
#include <stdint.h>

#include "bundle/csv.h"
#include "bundle/model.h"
#include "common/arena.h"
#include "common/err.h"

struct bundle_source;

#define BUNDLE_RUN_MAX_DEPTH 32

typedef struct bundle_run_csv {
    const char *path;            /* full path */
    const char *rel;             /* relative to the side's root */
    bundle_csv table;
    uint8_t profiled;
} bundle_run_csv;

typedef struct bundle_run_trace {
    const char *path, *rel;
    const kr_dispatch *d;        /* dispatches as read (CSV rows or results.json records) */
    size_t n;
    uint8_t from_results;        /* results.json buffer_records.kernel_dispatch */
    uint8_t no_dispatch_ids;     /* a kernel trace without Dispatch_Id: its ids are row ordinals, so
                                    captured dispatches cannot be dropped by id */
    uint8_t att_pass;
    uint64_t *drop_ids;          /* dispatch ids of the capture folders beside it */
    size_t ndrop;
} bundle_run_trace;

typedef struct bundle_run_capture {
    const char *dir, *rel;
    const char *label;           /* parent folder name ("" at the root) */
    const char *kernel;          /* first label row's symbol ("" unknown) */
    uint64_t dispatch_id;        /* from the folder name, 0 when it does not match */
    uint8_t shell;               /* "code": null */
    const struct bundle_source *src;   /* where dir is read: the side's source, or an archive
                                          inside the run directory (owned by the bundle_run) */
} bundle_run_capture;

typedef struct bundle_run_file {
    const char *path, *rel;
    const char *detail;          /* kind-specific note (log: the failure line), or NULL */
} bundle_run_file;

typedef struct bundle_run {
    kr_arena arena;
    const char *root;            /* as given, without trailing slashes */
    uint8_t is_capture;          /* the root itself is a capture folder */

    bundle_run_csv *csvs; size_t ncsvs;              /* benchmark CSVs */
    bundle_run_trace *traces; size_t ntraces;
    bundle_run_file *stats; size_t nstats;           /* kernel_stats CSVs */
    bundle_run_file *agent_infos; size_t nagent_infos;
    bundle_run_file *results; size_t nresults;       /* results.json files */
    bundle_run_capture *captures; size_t ncaptures;
    bundle_run_file *dbs; size_t ndbs;
    bundle_run_file *logs; size_t nlogs;
    size_t other_files;                              /* files no rule names */

    const char **meta_keys, **meta_values; size_t nmeta;   /* run.meta, in file order */
    bundle_run_file *archives; size_t narchives;     /* archives in the tree; detail NULL when
                                                        opened, else why not */
    struct bundle_source **nested; size_t nnested;   /* sources of the opened archives */

    /* Facts for the validity checks (NULL / -1 unknown). */
    const char *command;         /* results.json metadata.command joined by spaces, else run.meta command */
    const char *gpu_product, *gpu_name;
    int64_t cu_count;
    const char *gpu_card;        /* agent_info "Gpu_Id=..., Location_Id=..., Drm_Render_Minor=..." */
    int64_t exit_code;           /* run.meta exit_code */
    char identity[17];           /* FNV-1a 64 over the kernel-trace and benchmark-CSV bytes, hex;
                                    "" when the side has none */
} bundle_run;

int bundle_run_scan(const char *path, bundle_run **out, kr_err *err);
/* The same on a source (bundle/source.h; NULL: the filesystem). */
int bundle_run_scan_src(const struct bundle_source *src, const char *path, bundle_run **out, kr_err *err);
void bundle_run_free(bundle_run *r);
/* Value of a run.meta key, or NULL. */
const char *bundle_run_meta(const bundle_run *r, const char *key);

#endif
