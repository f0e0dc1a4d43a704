/* perf_row.h — the results-table row of performance.md (LOOP.md §4),
 * written the same way for `compare --row` (keep) and `analyze RUN --row`
 * (baseline): ten cells, '|' escaped, newlines flattened. */
#ifndef KR_REPORT_PERF_ROW_H
#define KR_REPORT_PERF_ROW_H

#include "common/buf.h"

typedef struct rep_perf_row {
    const char *date, *commit, *status, *benchmark, *target, *kernel;
    const char *metric;          /* row mean of the script metric, or "—" */
    const char *gpu;             /* mean warm per-call GPU time (µs), or "—" */
    const char *delta;           /* "—" on a baseline */
    const char *note;
} rep_perf_row;

/* The date cell: the first 10 characters of started (run.meta
 * "2026-06-12T14:03"), else today, else "—"; buf holds 16 bytes. */
const char *rep_perf_date(const char *started, const char *today, char *buf);
/* One table cell " text |". */
void rep_perf_cell(kr_buf *b, const char *s);
/* "| date | ... | note |\n". */
void rep_perf_row_write(kr_buf *b, const rep_perf_row *r);
/* The header and separator lines; metric_name names the metric column
 * ("us_flydsl_ps"), NULL for "script metric". */
void rep_perf_row_header(kr_buf *b, const char *metric_name);

#endif
