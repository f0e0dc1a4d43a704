/* load_csv.h — the rocprofv3 CSVs (docs/formats.md#kernel-trace-csv) on top of bundle/csv.h.
 *
 * Columns are found by header name, ignoring ASCII case (`rocpd convert`
 * writes Lds_Block_Size, Vgpr_Count, ...): order is free, unknown extra columns are
 * ignored, a missing required column is an error naming the file and the
 * column. Integer columns must hold decimal integers (error with the row's
 * line and the column name); AverageNs, Percentage, StdDev and Counter_Value
 * are parsed with strtod. Results are allocated in the caller's arena; the
 * intermediate table is not kept. */
#ifndef KR_BUNDLE_LOAD_CSV_H
#define KR_BUNDLE_LOAD_CSV_H

#include <stddef.h>

#include "bundle/csv.h"
#include "bundle/model.h"
#include "common/arena.h"
#include "common/err.h"

typedef enum bundle_csv_type {
    BUNDLE_CSV_UNKNOWN = 0,
    BUNDLE_CSV_KERNEL_TRACE,        /* docs/formats.md#kernel-trace-csv, both dialects */
    BUNDLE_CSV_KERNEL_STATS,        /* docs/formats.md#stats-csvs */
    BUNDLE_CSV_DOMAIN_STATS,        /* docs/formats.md#stats-csvs, same header as kernel_stats */
    BUNDLE_CSV_AGENT_INFO,          /* docs/formats.md#agent-info-csv */
    BUNDLE_CSV_COUNTER_COLLECTION,  /* docs/formats.md#counter-collection-csv, both dialects */
    BUNDLE_CSV_ROCPROF_V1           /* rocprof v1/v2 results.csv (KernelName, BeginNs, EndNs): recognised to be
                                       refused by name (bundle_csv_refusal), never read */
} bundle_csv_type;

/* "kernel_trace", "kernel_stats", "domain_stats", "agent_info",
 * "counter_collection" or "unknown". */
const char *bundle_csv_type_name(bundle_csv_type k);

/* Kind of a rocprofv3 CSV from its header names alone. kernel_stats and
 * domain_stats share one header; this returns BUNDLE_CSV_KERNEL_STATS for it
 * and bundle_csv_kind_of tells the two apart from the rows. */
bundle_csv_type bundle_csv_kind(const char *const *header, size_t n);

/* Kind of a parsed table: the header's kind, with the shared stats header
 * (rocprofv3 writes it for kernel, domain, HIP, HSA, memory-copy ... stats)
 * resolved as follows. A name_hint (file name, may be NULL) containing
 * "kernel_stats" or "domain_stats" decides; one ending in another "_stats.csv"
 * gives BUNDLE_CSV_UNKNOWN. Otherwise content decides: domain_stats when there
 * is at least one row and every Name is an upper-case identifier (tracing
 * domains such as "KERNEL_DISPATCH", docs/formats.md#stats-csvs), else kernel_stats. */
bundle_csv_type bundle_csv_kind_of(const bundle_csv *t, const char *name_hint);

/* The message for a CSV kreport recognises but does not read (a rocprof
 * v1/v2 results.csv), or NULL for every other kind. */
const char *bundle_csv_refusal(bundle_csv_type k);

/* counter_collection.csv rows (docs/formats.md#counter-collection-csv); the model keeps them per process. */
typedef struct bundle_counter_csv {
    const char *path;
    uint8_t old_dialect;             /* no Start_Timestamp / Accum_VGPR_Count */
    kr_counter_value *rows;
    size_t nrows;
} bundle_counter_csv;

/* From a parsed table (strings are copied into a). */
int bundle_kernel_trace_from_csv(kr_arena *a, const bundle_csv *t, kr_kernel_trace **out, kr_err *err);
int bundle_agent_info_from_csv(kr_arena *a, const bundle_csv *t, kr_agent_info **out, kr_err *err);
int bundle_kernel_stats_from_csv(kr_arena *a, const bundle_csv *t, kr_kernel_stats **out, kr_err *err);
int bundle_counter_csv_from_csv(kr_arena *a, const bundle_csv *t, bundle_counter_csv **out, kr_err *err);

/* Parse-from-memory cores (fname names the input in errors). */
int bundle_parse_kernel_trace(kr_arena *a, const char *data, size_t len, const char *fname,
                              kr_kernel_trace **out, kr_err *err);
int bundle_parse_agent_info(kr_arena *a, const char *data, size_t len, const char *fname,
                            kr_agent_info **out, kr_err *err);
int bundle_parse_kernel_stats(kr_arena *a, const char *data, size_t len, const char *fname,
                              kr_kernel_stats **out, kr_err *err);
int bundle_parse_counter_csv(kr_arena *a, const char *data, size_t len, const char *fname,
                             bundle_counter_csv **out, kr_err *err);

/* File wrappers (KR_MAX_SMALL_FILE_BYTES). */
int bundle_load_kernel_trace(kr_arena *a, const char *path, kr_kernel_trace **out, kr_err *err);
int bundle_load_agent_info(kr_arena *a, const char *path, kr_agent_info **out, kr_err *err);
int bundle_load_kernel_stats(kr_arena *a, const char *path, kr_kernel_stats **out, kr_err *err);
int bundle_load_counter_csv(kr_arena *a, const char *path, bundle_counter_csv **out, kr_err *err);

#endif
