/* svg.h — SVG charts for the HTML pages, built as libxml2 trees so every
 * attribute and text is escaped and the output is well-formed XML.
 *
 * Three chart kinds cover every figure: horizontal bars (stacked or grouped),
 * stacked step areas over time in one or more panels, and heat strips. Each
 * rep_svg_* call appends one inline <svg> element (no XML declaration) to
 * out and returns 0 or KR_INTERNAL (allocation).
 *
 * Every chart carries a visible title, axis labels with units, a legend when
 * it has more than one series, <title>/<desc> children and role="img" with
 * aria-label (the text alternative), and per-mark <title> tooltips with the
 * exact integers. Colours are from the Okabe-Ito palette (distinguishable
 * with the common colour-vision deficiencies); the heat scale is a single-hue
 * lightness ramp. Text that is not valid UTF-8, and control characters,
 * become '?'. */
#ifndef KR_REPORT_SVG_H
#define KR_REPORT_SVG_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

/* Okabe-Ito, in the order series take them. */
#define REP_SVG_BLACK      "#000000"
#define REP_SVG_ORANGE     "#E69F00"
#define REP_SVG_SKY        "#56B4E9"
#define REP_SVG_GREEN      "#009E73"
#define REP_SVG_YELLOW     "#F0E442"
#define REP_SVG_BLUE       "#0072B2"
#define REP_SVG_VERMILLION "#D55E00"
#define REP_SVG_PURPLE     "#CC79A7"
#define REP_SVG_GREY       "#A0A0A0"
/* Colour of series i (0-based) when a chart has no fixed meaning per series. */
const char *rep_svg_palette(size_t i);

typedef struct rep_svg_series {
    const char *name;
    const char *color;
} rep_svg_series;

/* ---- horizontal bars ---- */

typedef enum rep_svg_scale {
    REP_SCALE_ABS = 0,           /* values as they are, axis 0 .. max */
    REP_SCALE_ROW_SHARE,         /* each row's values as shares of the row's total */
    REP_SCALE_SERIES_SHARE       /* each value as a share of its series' total */
} rep_svg_scale;

typedef struct rep_hbar_row {
    const char *label;           /* left of the bar */
    const uint64_t *values;      /* one per series */
    const char *group;           /* when set, a group heading is drawn above this row */
} rep_hbar_row;

typedef struct rep_hbar_chart {
    const char *title;
    const char *subtitle;        /* may be NULL */
    const char *x_label;         /* the axis with its unit, e.g. "cycles" */
    const char *unit;            /* unit of the values in tooltips and the text alternative */
    const rep_svg_series *series;
    size_t nseries;
    const rep_hbar_row *rows;
    size_t nrows;
    rep_svg_scale scale;
    int grouped;                 /* 1: one bar per series side by side; 0: stacked */
    const uint64_t *series_totals;   /* REP_SCALE_SERIES_SHARE: one per series */
} rep_hbar_chart;

int rep_svg_hbars(const rep_hbar_chart *c, kr_buf *out);

/* ---- stacked step areas over time ----
 * The x axis covers [0, x_max] in nbins bins of bin_width x units (the last
 * one may be shorter). A panel's values are series-major: values[s * nbins +
 * k] is series s's mean height over bin k. Series are stacked in order. */

typedef struct rep_area_panel {
    const char *label;           /* e.g. "SE 0" (drawn at the panel's top left) */
    const double *values;
} rep_area_panel;

typedef struct rep_area_mark {   /* a shaded x interval with a label */
    double x0, x1;
    const char *label;
} rep_area_mark;

typedef struct rep_area_chart {
    const char *title;
    const char *subtitle;
    const char *x_label;         /* must say the unit and the clock alignment */
    const char *y_label;
    const char *desc;            /* the text alternative (summary of the data) */
    const rep_svg_series *series;
    size_t nseries;
    const rep_area_panel *panels;
    size_t npanels;
    size_t nbins;
    double bin_width, x_max;
    double hline;                /* dashed reference level, < 0 for none */
    const char *hline_label;
    const rep_area_mark *marks;
    size_t nmarks;
} rep_area_chart;

int rep_svg_areas(const rep_area_chart *c, kr_buf *out);

/* ---- heat strips ----
 * One strip per row of cells; colour lightness follows sqrt(value / max)
 * over all strips (0 is drawn pale grey). */

typedef struct rep_heat_strip {
    const char *label;           /* left of the strip */
    const uint64_t *values;
    const char *const *tips;     /* per-cell tooltip (NULL entries allowed) or NULL */
    size_t ncells;
    const char *first, *last;    /* texts under the strip's two ends */
    const char *mark_label;      /* written above cell `mark` (e.g. the hottest), or NULL */
    size_t mark;
} rep_heat_strip;

typedef struct rep_heat_chart {
    const char *title;
    const char *subtitle;
    const char *x_label;
    const char *value_label;     /* what the colour shows, with its unit */
    const char *desc;
    const rep_heat_strip *strips;
    size_t nstrips;
} rep_heat_chart;

int rep_svg_heat(const rep_heat_chart *c, kr_buf *out);

/* ---- roofline ----
 * Log-log: x = arithmetic intensity (FLOP/byte), y = FLOP/s. The memory roof
 * is y = bw · x up to the highest compute roof; each compute roof is a
 * horizontal line from its ridge point (peak / bw) on; points are the
 * achieved (intensity, FLOP/s). Axes span whole decades around every roof
 * corner and point. */

typedef struct rep_roof_line {
    const char *label;           /* e.g. "matrix_bf16 2306.9 TFLOP/s" */
    double peak;                 /* FLOP/s */
    int highlight;               /* the ceiling the figures use: drawn solid, others dashed */
} rep_roof_line;

typedef struct rep_roof_point {
    const char *label;
    double intensity, flops;     /* FLOP/byte, FLOP/s */
} rep_roof_point;

typedef struct rep_roof_chart {
    const char *title;
    const char *subtitle;
    const char *desc;            /* the text alternative */
    double bw;                   /* peak bytes/s */
    const char *bw_label;
    const rep_roof_line *roofs;
    size_t nroofs;
    const rep_roof_point *points;
    size_t npoints;
} rep_roof_chart;

int rep_svg_roofline(const rep_roof_chart *c, kr_buf *out);

/* A chart that only says there is nothing to draw (same frame and text
 * alternative as the others). */
int rep_svg_empty(const char *title, const char *message, kr_buf *out);

#endif
