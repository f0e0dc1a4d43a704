/* report.h — the documents of `kreport analyze`: REPORT.md, analysis.json,
 * hotspots.csv and source_lines.csv, for one capture or the captures of an
 * example folder side by side (labels[i] names analyses[i]). */
#ifndef KR_REPORT_REPORT_H
#define KR_REPORT_REPORT_H

#include <stddef.h>

#include "analyzer/analysis.h"
#include "common/buf.h"

typedef struct rep_meta {
    const char *input;           /* the PATH as the user named it (basename) */
    const char *example;         /* example folder name, NULL for one capture */
    const char *rerun;           /* the command line that re-creates the outputs */
} rep_meta;

/* Markdown of REPORT.md appended to out. 0 or KR_INTERNAL. */
int rep_analysis_markdown(const an_analysis *const *a, const char *const *labels, size_t n,
                          const rep_meta *meta, kr_buf *out);
/* `kreport analyze --brief`: the summary of each capture (at most two;
 * analysis.json has the others) and its key figures, Markdown. */
int rep_analysis_brief(const an_analysis *const *a, const char *const *labels, size_t n,
                       const rep_meta *meta, kr_buf *out);
/* analysis.json (schema kreport.analysis, schema_version 1) appended to out. */
int rep_analysis_json(const an_analysis *const *a, const char *const *labels, size_t n,
                      const rep_meta *meta, kr_buf *out);
/* RFC 4180 CSVs with a header row. */
int rep_hotspots_csv(const an_analysis *const *a, const char *const *labels, size_t n, kr_buf *out);
int rep_source_lines_csv(const an_analysis *const *a, const char *const *labels, size_t n, kr_buf *out);

#endif
