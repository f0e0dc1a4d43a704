/* sources.h — PC → source attribution (docs/formats.md#source-chains, docs/formats.md#source-snapshots).
 *
 * Per source line (path, line) over instruction rows (labels excluded):
 * inclusive cost (every distinct frame of a row's chain gets the row's
 * Hit/Latency/Stall/Idle) and exclusive cost (innermost frame, frames[0],
 * only). Lines are ranked by inclusive Stall, then inclusive Latency, then
 * path and line (byte order), so the order is total and deterministic.
 *
 * PC ranges (kreport's own): instruction rows of one kernel, in row order,
 * are merged while their innermost frame keeps the same path and its line
 * stays within [min − gap, max + gap] of the lines merged so far (gap =
 * range_gap, default 8). A row without a Source starts a new range at every
 * basic-block leader (the kernel's first row, the row after a branch, and a
 * row whose Vaddr is the target of an s_branch/s_cbranch_* immediate,
 * target = vaddr + 4 + 4 × simm16), so a kernel compiled without line tables
 * still splits into hot regions.
 *
 * Mapping quality: mapped k/N (docs/formats.md#mapped-rows: N excludes label rows), distinct
 * innermost lines, and the distribution of weight = Hit + Stall per row over
 * distinct innermost lines (rows of weight 0 ignored): top-1 share and the
 * effective number of lines exp(H), H = −Σ p ln p (natural log). Both are
 * unknown (has_* = 0) when the total weight is 0. */
#ifndef KR_ANALYZER_SOURCES_H
#define KR_ANALYZER_SOURCES_H

#include <stddef.h>
#include <stdint.h>

#include "bundle/model.h"

#define AN_SOURCES_TOP_LINES   20
#define AN_SOURCES_CONTEXT     3
#define AN_SOURCES_RANGE_GAP   8
#define AN_SOURCES_TOP_RANGES  20

typedef struct an_sources_opts {
    size_t top_lines;        /* lines that get a snippet and a report row */
    uint32_t context;        /* ±K lines of snippet context */
    uint32_t range_gap;      /* line jump that starts a new PC range */
    size_t top_ranges;       /* ranges shown in the report (JSON has all) */
} an_sources_opts;

void an_sources_opts_default(an_sources_opts *o);

/* Why a line has no snippet (docs/formats.md#resolving-frames, docs/formats.md#snapshot-safety). */
typedef enum an_src_why {
    AN_SRC_RESOLVED = 0,
    AN_SRC_NO_SNAPSHOTS,     /* the capture has no snapshots.json */
    AN_SRC_NOT_IN_TREE,      /* the path is not in snapshots.json */
    AN_SRC_UNSAFE,           /* leaf name rejected by docs/formats.md#snapshot-safety, not opened */
    AN_SRC_MISSING,          /* leaf recorded but the copy was not read */
    AN_SRC_OUT_OF_RANGE,     /* line beyond the copy's last line */
    AN_SRC_UNPARSED          /* frame without ":line" (docs/formats.md#source-chains) */
} an_src_why;

/* Short English reason ("no snapshots.json", ...). */
const char *an_src_why_text(an_src_why w);
/* Stable identifier for JSON ("resolved", "no_snapshots", ...). */
const char *an_src_why_id(an_src_why w);

typedef struct an_src_cost {
    uint64_t hit, latency, stall, idle;
} an_src_cost;

typedef struct an_src_line {
    const char *path;        /* frame path (points into the capture) */
    uint32_t line;           /* 0 for an unparsed frame */
    int32_t snapshot;        /* index into c->snapshots, -1 unresolved */
    const char *copy;        /* the copy's leaf name, NULL when none */
    an_src_cost incl, excl;
    uint64_t incl_rows;      /* instruction rows whose chain holds the line */
    uint64_t excl_rows;      /* instruction rows whose innermost frame it is */
    an_src_why why;
    /* Snippet (top lines only, when resolved): lines first..last of the copy,
     * one per text line, the line itself marked ">>> ". malloc'd. */
    char *snippet;
    uint32_t snippet_first, snippet_last;
} an_src_line;

typedef struct an_src_range {
    uint32_t kernel;         /* row index of the kernel's label, UINT32_MAX none */
    uint32_t first_row, last_row;   /* indices into c->rows */
    uint64_t first_vaddr, last_vaddr;
    uint8_t mapped;          /* innermost frame present */
    const char *path;        /* innermost path, NULL when unmapped */
    uint32_t line_min, line_max;    /* 0 when unmapped */
    uint32_t rows;           /* instruction rows in the range */
    an_src_cost cost;        /* sums of the rows' columns */
} an_src_range;

typedef struct an_sources {
    uint64_t instruction_rows;      /* N of mapped k/N */
    uint64_t mapped_rows;           /* k: non-empty Source */
    uint64_t frames, frames_resolved;   /* over instruction rows */
    size_t copies_used;             /* distinct snapshot copies frames resolve to */
    uint8_t has_snapshots_json;

    size_t distinct_lines;          /* distinct innermost (path, line) */
    uint64_t weight_total;          /* Σ Hit + Stall over mapped rows */
    uint8_t has_top1;
    double top1_share;              /* heaviest innermost line / weight_total */
    size_t top1_index;              /* into lines[] */
    uint8_t has_effective;
    double effective_lines;         /* exp(Shannon entropy) */

    an_src_line *lines;             /* every line, ranked */
    size_t nlines;
    size_t ntop;                    /* lines[0 .. ntop) are the top lines */

    an_src_range *ranges;           /* in row order */
    size_t nranges;
    size_t *range_rank;             /* nranges indices, by Stall desc, Latency desc, vaddr */
    size_t ntop_ranges;             /* how many of range_rank the report shows */
    uint8_t fallback;               /* no row mapped: ranges are basic blocks */

    uint32_t context, range_gap;    /* options used */
} an_sources;

/* opts may be NULL (defaults). Returns 0 or KR_INTERNAL (allocation). */
int an_sources_compute(const kr_capture *c, const an_sources_opts *opts, an_sources *out);
void an_sources_free(an_sources *r);

#endif
