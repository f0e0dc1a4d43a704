/* sections.h — the renderers of the analysis sections of a report.
 *
 * Per analysis: rep_md_<module>(doc, results, labels, n) appends the
 * Markdown section for n >= 1 captures (labels[i] names results[i]), and
 * rep_jw_<module>(w, key, result) writes its analysis.json value to a
 * report/json_dump.h writer (integers for cycles and counts, null when
 * unknown); rep_json_<module>(result) returns the same value as a new
 * jansson tree. Each block below belongs to one group of modules. */
#ifndef KR_REPORT_SECTIONS_H
#define KR_REPORT_SECTIONS_H

#include <stddef.h>

#include <jansson.h>

#include "report/doc.h"
#include "report/json_dump.h"

/* ---- states, classes, stalls, hotspots ---- */
#include "analyzer/classes.h"
#include "analyzer/hotspots.h"
#include "analyzer/stalls.h"
#include "analyzer/states.h"

void rep_md_states(rep_doc *d, const an_states *const *r, const char *const *labels, size_t n);
json_t *rep_json_states(const an_states *r);
void rep_jw_states(rep_jw *w, const char *key, const an_states *r);
void rep_md_classes(rep_doc *d, const an_classes *const *r, const char *const *labels, size_t n);
json_t *rep_json_classes(const an_classes *r);
void rep_jw_classes(rep_jw *w, const char *key, const an_classes *r);
void rep_md_stalls(rep_doc *d, const an_stalls *const *r, const char *const *labels, size_t n);
json_t *rep_json_stalls(const an_stalls *r);
void rep_jw_stalls(rep_jw *w, const char *key, const an_stalls *r);
void rep_md_hotspots(rep_doc *d, const an_hotspots *const *r, const char *const *labels, size_t n);
json_t *rep_json_hotspots(const an_hotspots *r);
void rep_jw_hotspots(rep_jw *w, const char *key, const an_hotspots *r);
/* ---- end states, classes, stalls, hotspots ---- */

/* ---- sources, occupancy ---- */
#include "analyzer/occupancy.h"
#include "analyzer/sources.h"

void rep_md_sources(rep_doc *d, const an_sources *const *r, const char *const *labels, size_t n);
json_t *rep_json_sources(const an_sources *r);
void rep_jw_sources(rep_jw *w, const char *key, const an_sources *r);
void rep_md_occupancy(rep_doc *d, const an_occupancy *const *r, const char *const *labels, size_t n);
json_t *rep_json_occupancy(const an_occupancy *r);
void rep_jw_occupancy(rep_jw *w, const char *key, const an_occupancy *r);
/* ---- end sources, occupancy ---- */

/* ---- advice ---- */
#include "analyzer/advice.h"
void rep_md_advice(rep_doc *d, const an_advice *const *r, const kr_capture *const *caps,
                   const char *const *labels, size_t n);
json_t *rep_json_advice(const an_advice *r);
void rep_jw_advice(rep_jw *w, const char *key, const an_advice *r);
/* ---- end advice ---- */

/* ---- summary and findings (analyzer/findings.h) ---- */
struct an_analysis;
void rep_md_summary(rep_doc *d, const struct an_analysis *const *a, const char *const *labels, size_t n);
void rep_md_findings(rep_doc *d, const struct an_analysis *const *a, const char *const *labels, size_t n);
void rep_md_wait_classes(rep_doc *d, const struct an_analysis *const *a, const char *const *labels, size_t n);
void rep_jw_findings(rep_jw *w, const char *key, const struct an_analysis *a);
/* ---- end summary and findings ---- */

/* ---- waits, hidden latency, phases ---- */
#include "analyzer/dist.h"
#include "analyzer/hidden.h"
#include "analyzer/phases.h"
#include "analyzer/waits.h"

void rep_md_waits(rep_doc *d, const an_waits *const *r, const char *const *labels, size_t n);
json_t *rep_json_waits(const an_waits *r);
void rep_jw_waits(rep_jw *w, const char *key, const an_waits *r);
void rep_md_hidden(rep_doc *d, const an_hidden *const *r, const char *const *labels, size_t n);
json_t *rep_json_hidden(const an_hidden *r);
void rep_jw_hidden(rep_jw *w, const char *key, const an_hidden *r);
void rep_md_phases(rep_doc *d, const an_phases *const *r, const char *const *labels, size_t n);
json_t *rep_json_phases(const an_phases *r);
void rep_jw_phases(rep_jw *w, const char *key, const an_phases *r);
/* Innermost source frame as a code span ("file:line", "+N" for a longer
 * chain), "—" when none. */
const char *rep_source_cell(rep_doc *d, const kr_code_row *r);
/* "p50 (p10–p90)", just p50 when they agree, "—" for an empty sample. */
const char *rep_dist_cell(rep_doc *d, const an_dist *x);
/* {"n", "min", "p10", "p50", "p90", "max"}, values null when n == 0. */
json_t *rep_json_dist(const an_dist *x);
void rep_jw_dist(rep_jw *w, const char *key, const an_dist *x);
/* ---- end waits, hidden latency, phases ---- */

/* ---- roofline, counters, saturation ---- */
#include "analyzer/analysis.h"
void rep_md_roofline(rep_doc *d, const an_analysis *const *a, const char *const *labels, size_t n);
json_t *rep_json_roofline(const an_roofline *r);
void rep_jw_roofline(rep_jw *w, const char *key, const an_roofline *r);
json_t *rep_json_counters(const an_counters *k);
void rep_jw_counters(rep_jw *w, const char *key, const an_counters *k);
json_t *rep_json_saturation(const an_saturation *s);
void rep_jw_saturation(rep_jw *w, const char *key, const an_saturation *s);
/* `kreport compare`: the speed-of-light figures of a capture pair, BEST vs
 * CANDIDATE (table appended to d; compare.json object). */
void rep_md_roofline_change(rep_doc *d, const an_analysis *best, const an_analysis *cand);
json_t *rep_json_roofline_change(const an_analysis *best, const an_analysis *cand);
/* ---- end roofline, counters, saturation ---- */

#endif
