/* waitcnt.h — waitcnt producer links recomputed from one wave's records
 * (docs/waits.md#producer-links), the same algorithm the ATT writer uses to fill
 * wave.waitcnt (docs/formats.md#waitcnt-arrays).
 *
 * Per wave, in record order: memory instructions push their LineNumber into
 * the FIFO of their counter; each s_waitcnt / s_wait* execution releases the
 * oldest entries beyond the count it waits for. The classifier is the
 * writer's own (not docs/instruction-classes.md), one per family: gfxip 9, gfxip 10/11, gfxip 12.
 * Other gfxip values have no algorithm (the writer then writes null).
 *
 * The result uses the flattened layout of kr_wave (waits + producers), so it
 * can be compared with, or stand in for, a stored array. Cost: O(records)
 * time plus one classification per distinct LineNumber. */
#ifndef KR_ANALYZER_WAITCNT_H
#define KR_ANALYZER_WAITCNT_H

#include <stddef.h>
#include <stdint.h>

#include "bundle/model.h"

/* ISA text of the code row with LineNumber `line`, or NULL when there is no
 * such row. */
typedef const char *(*an_isa_of_line)(void *ctx, uint32_t line);

typedef struct an_waitcnt {
    kr_wait_entry *waits;    /* malloc'd; entry i releases producers[first .. first+n) */
    size_t nwaits;
    uint32_t *producers;     /* malloc'd producer LineNumbers of all entries */
    size_t nproducers;
    uint8_t supported;       /* gfxip 9, 10, 11 or 12 */
    uint8_t stopped;         /* the writer's rule: a record whose row has no
                                ISA text ends the analysis of the wave */
    size_t stop_index;       /* index of that record when stopped */
    /* The dynamic executions behind the links, as indices into the records
     * given: wait_recs[i] is the record of the wait of waits[i],
     * producer_recs[j] the record of producers[j] (malloc'd, same lengths). */
    uint32_t *wait_recs;
    uint32_t *producer_recs;
} an_waitcnt;

/* Runs docs/waits.md#producer-links for gfxip over records insts[0..n). Records with line 0 (unknown
 * PC) are skipped. Returns 0, or KR_INTERNAL when memory runs out (out is
 * then empty). out must be released with an_waitcnt_free. */
int an_waitcnt_links(int64_t gfxip, const kr_inst *insts, size_t n,
                     an_isa_of_line isa_of_line, void *ctx, an_waitcnt *out);

/* The same for one wave of a capture, with the capture's gfxip and rows. */
int an_waitcnt_wave(const kr_capture *c, const kr_wave *w, an_waitcnt *out);

void an_waitcnt_free(an_waitcnt *out);

/* 1 if the ISA text is a memory instruction that pushes onto a counter for
 * gfxip (a possible producer), 0 otherwise (also for unsupported gfxip). */
int an_waitcnt_is_producer(int64_t gfxip, const char *isa);
/* 1 if the ISA text is classified as a wait (WAITCNT) for gfxip. */
int an_waitcnt_is_wait(int64_t gfxip, const char *isa);

/* The count a wait text asks for on counter `name` (docs/waits.md#producer-links step 1): the
 * writer's extraction rule, 0 when the name is absent. */
int64_t an_waitcnt_extract(const char *isa, const char *name);

#endif
