/* totals.h — capture-wide sums over code.json rows and wave records. */
#ifndef KR_ANALYZER_TOTALS_H
#define KR_ANALYZER_TOTALS_H

#include <stdint.h>

#include "bundle/model.h"

typedef struct an_totals {
    uint64_t rows;           /* instruction rows (labels excluded) */
    uint64_t labels;         /* label rows */
    uint64_t records;        /* dynamic records over all waves (line 0 included) */
    uint64_t records_unknown;/* records with line 0 or no code row */
    uint64_t hit, latency, stall, idle;   /* sums of code.json columns 6-9 */
    uint64_t waves;
} an_totals;

void an_totals_compute(const kr_capture *c, an_totals *out);
/* The same in two steps: the code-row sums and the wave count, then the
 * records of each wave. Streamed waves (analyzer/stream.h) take the record
 * counts from the classes accumulator instead (one pass over the records). */
void an_totals_rows(const kr_capture *c, an_totals *out);
void an_totals_add_wave(an_totals *out, const kr_wave *w);

#endif
