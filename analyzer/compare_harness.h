/* compare_harness.h — the hub's benchmark harness (docs/compare.md "The
 * benchmark harness"): one benchmark row per (shape, provider), the provider
 * under test, row views restricted to it, and the per-shape trace folders
 * `profiles/<shape>/<provider>/...` mapped to their rows.
 *
 * A benchmark CSV is a harness CSV when it has a `provider` column
 * (ASCII case-insensitive). The provider under test: --provider NAME; else
 * the one provider whose rows carry a non-empty `candidate_commit`; else
 * the single provider present on both sides whose metric values differ;
 * else none (ambiguous: the caller fails naming each provider and the
 * --provider flag). A row's key is `shape_id`, else `args` and `dtype`. */
#ifndef KR_ANALYZER_COMPARE_HARNESS_H
#define KR_ANALYZER_COMPARE_HARNESS_H

#include <stddef.h>

#include "analyzer/compare_bench.h"

/* Column index by name, ASCII case-insensitive; -1. */
int an_csv_col_ci(const an_bench_csv *t, const char *name);

/* Distinct values of column col over the rows of the CSVs that have it,
 * in first-appearance order (malloc'd array of borrowed strings). */
int an_csv_values(const an_bench_csv *const *csvs, size_t n, const char *col, const char ***out, size_t *nout);

/* A view of t holding only the rows whose column col reads value (trimmed,
 * case-insensitive; col < 0: every row). The view's arrays are malloc'd (free with
 * an_csv_view_free); its strings are t's. */
int an_csv_view(const an_bench_csv *t, int col, const char *value, an_bench_csv *out);
void an_csv_view_free(an_bench_csv *v);

/* The shape key a trace path names under a `profiles/` folder and the
 * provider folder after it: "profiles/<shape>/<provider>/..." → shape and
 * provider copied into the buffers; 0 when the path has no such part. */
int an_profile_path(const char *path, char *shape, size_t shape_cap, char *provider, size_t provider_cap);

/* Data rows of t (a view of the provider under test) whose shape key
 * matches shape: shape_id equal to it, or to "sha1:" + it. malloc'd. */
int an_rows_of_shape(const an_bench_csv *t, const char *shape, size_t **rows, size_t *n);

#endif
