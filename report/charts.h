/* charts.h — the figures of report.html: analysis results and the capture's
 * wave timelines and occupancy rows turned into SVG charts (report/svg.h).
 *
 * Bounded size: every time series has at most REP_CHART_BINS bins and every
 * heat strip at most REP_CHART_BINS cells, whatever the capture's length, so
 * a chart's bytes depend on the number of SEs, states and strips only (a
 * capture has at most 64 SEs, docs/formats.md#se-alignment). Bins are whole cycles: the
 * width is ceil(span / REP_CHART_BINS) and integrals are kept in integer
 * cycles, so the binned series add up exactly to the unbinned totals. */
#ifndef KR_REPORT_CHARTS_H
#define KR_REPORT_CHARTS_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/hotspots.h"
#include "analyzer/sources.h"
#include "analyzer/stalls.h"
#include "analyzer/states.h"
#include "bundle/model.h"
#include "common/buf.h"

#define REP_CHART_BINS 200
#define REP_CHART_MAX_SES 64
#define REP_CHART_MAX_FILES 4    /* source files drawn as heat strips */

/* Equal bins of whole cycles over [t0, t0 + span). */
typedef struct rep_timebins {
    int64_t t0;
    uint64_t span;
    uint64_t width;              /* cycles per bin, >= 1 */
    size_t n;                    /* ceil(span / width) <= max_bins; 0 when span = 0 */
} rep_timebins;

void rep_timebins_make(int64_t t0, uint64_t span, size_t max_bins, rep_timebins *b);
/* acc[k] += weight × |[from, to) ∩ bin k| for every bin (clamped to the span). */
void rep_timebins_add(const rep_timebins *b, int64_t from, int64_t to, uint64_t weight, uint64_t *acc);
/* Cycles in bin k (the last bin may be shorter). */
uint64_t rep_timebins_len(const rep_timebins *b, size_t k);

/* Waves in each state over time, per SE (docs/formats.md#timeline timelines; times
 * shifted by the docs/formats.md#se-alignment offsets when the capture is aligned). Time 0 is the
 * earliest wave begin; the span reaches the latest timeline end. */
typedef struct rep_state_series {
    rep_timebins bins;
    uint8_t aligned;
    size_t nses;
    uint32_t ses[REP_CHART_MAX_SES];     /* ascending */
    /* cycles[(se_index × KR_STATE_COUNT + state) × bins.n + k]: Σ over the
     * SE's waves of the cycles their timelines spend in state during bin k. */
    uint64_t *cycles;
    uint64_t other_cycles;               /* state values above STALL (not drawn) */
} rep_state_series;

int rep_state_series_compute(const kr_capture *c, size_t max_bins, rep_state_series *out);
void rep_state_series_free(rep_state_series *s);

/* Resident waves over time from occupancy.json (docs/occupancy.md#resident-waves: per SE, rows by
 * (time, start), ends first; shifted by the docs/formats.md#se-alignment offsets when aligned).
 * The underfilled tail is [tail_from, last): after the last moment at which
 * the waves resident on all SEs together were at least half their peak
 * (2 × resident ≥ peak); tail_from = last when there is none. */
typedef struct rep_occ_series {
    rep_timebins bins;
    uint8_t aligned;
    size_t nses;
    uint32_t ses[REP_CHART_MAX_SES];
    uint64_t *cycles;                    /* [se_index × bins.n + k]: ∫ resident dt in bin k */
    uint64_t starts;                     /* wave starts over all SEs */
    uint32_t peak;                       /* most waves resident at once, all SEs */
    int64_t first, last;                 /* first event, last event */
    int64_t tail_from;
} rep_occ_series;

int rep_occ_series_compute(const kr_capture *c, size_t max_bins, rep_occ_series *out);
void rep_occ_series_free(rep_occ_series *s);

/* The charts. Each appends one <svg> to out; 0 or KR_INTERNAL. label names
 * the capture in the title (may be NULL). */
int rep_chart_state_bars(const an_states *st, const char *label, kr_buf *out);
int rep_chart_state_time(const kr_capture *c, const char *label, kr_buf *out);
int rep_chart_occupancy(const kr_capture *c, const char *label, kr_buf *out);
int rep_chart_hotspots(const an_hotspots *h, const char *label, kr_buf *out);
/* The roofline of a capture (report/chart_roofline.c): the device's HBM roof
 * and compute roofs (equal peaks share one line) and the achieved point. */
struct an_roofline;
int rep_chart_roofline(const struct an_roofline *r, const char *label, kr_buf *out);
int rep_chart_source_heat(const an_sources *s, const kr_capture *c, const char *label, kr_buf *out);
/* One chart for n captures: each capture's stall buckets (analyzer/stalls.h
 * taxonomy b) as shares of its Σ Stall. */
int rep_chart_stall_buckets(const an_stalls *const *s, const char *const *labels, size_t n, kr_buf *out);

#endif
