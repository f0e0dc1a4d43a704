/* hotspots.h — the instructions that cost the most, with their neighbourhood.
 *
 * Two lists of at most opts.n instruction rows (labels excluded): by Stall
 * (rows with Stall > 0) and by Latency (rows with Latency > 0), each ordered
 * by the metric descending, then vaddr ascending, then row index ascending
 * (docs/architecture.md#conventions tie-break). Each entry carries the row's code.json columns, the
 * mean latency and stall per execution (only when Hit > 0), the hub bucket
 * and kreport stall bucket (analyzer/stalls.h) and the class (docs/instruction-classes.md), and a
 * disassembly context: up to opts.context instruction rows before and after
 * it that belong to the same kernel (kr_code_row.kernel), in row order,
 * skipping label rows. */
#ifndef KR_ANALYZER_HOTSPOTS_H
#define KR_ANALYZER_HOTSPOTS_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/stalls.h"
#include "bundle/model.h"

typedef struct an_hotspots_opts {
    size_t n;                        /* entries per list (default 10) */
    size_t context;                  /* rows each side (default 4) */
} an_hotspots_opts;

#define AN_HOTSPOTS_DEFAULT_N 10
#define AN_HOTSPOTS_DEFAULT_CONTEXT 4

typedef struct an_hot {
    uint32_t row;                    /* index into an_hotspots.rows */
    uint32_t line;                   /* LineNumber */
    uint64_t vaddr;
    uint64_t hit, latency, stall, idle;
    uint8_t has_mean;                /* hit > 0 */
    double mean_latency, mean_stall; /* per execution; 0 when !has_mean */
    an_hub_bucket hub_bucket;
    an_stall_kind kind;
    kr_class cls;
    const uint32_t *ctx;             /* row indices in row order, the hot row included */
    size_t nctx;
    size_t ctx_hot;                  /* position of the hot row in ctx */
} an_hot;

typedef struct an_hotspots {
    const kr_code_row *rows;         /* the capture's code table */
    size_t nrows;
    size_t n, context;               /* options used */
    an_hot *by_stall;
    size_t nby_stall;
    an_hot *by_latency;
    size_t nby_latency;
    uint32_t *ctx_pool;              /* storage behind every ctx */
} an_hotspots;

/* opts may be NULL (defaults). 0, or KR_INTERNAL when out of memory. Free
 * with an_hotspots_free. */
int an_hotspots_compute(const kr_capture *c, const an_hotspots_opts *opts, an_hotspots *out);
void an_hotspots_free(an_hotspots *r);

#endif
