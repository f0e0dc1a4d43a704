/* waits.h — why a wait is hot: per s_waitcnt row, the producers it waited
 * on, how early they issued and how much of their latency stayed exposed
 * (kreport's own analysis over the links of docs/formats.md#waitcnt-arrays / docs/waits.md#producer-links).
 *
 * Links. Per wave, the wave file's stored `waitcnt` array when present
 * (kr_wave.has_waitcnt), otherwise the docs/waits.md#producer-links recomputation
 * (analyzer/waitcnt.h, which gives the records directly; gfxip 9-12 only).
 * A link joins one dynamic execution of a wait to one dynamic execution of
 * a producer. A stored array names LineNumbers only, so it is placed on
 * the records: each entry on the next execution of its wait row, except
 * that an entry repeating the previous entry's wait line stays on the same
 * execution when the wait names two or more counters and every producer of
 * the entry has an unreleased execution before it (the second counter of a
 * combined wait, docs/formats.md#waitcnt-arrays); each producer on the oldest not yet released
 * execution of its row before the wait (the counters release oldest
 * first). On every hub capture this placement reproduces the records the
 * recomputation links (tests/unit/test_an_waits.c); `validate` compares
 * the arrays themselves [V-12].
 *
 * Per linked execution (a wait execution with >= 1 link):
 *   critical producer  the one the wait most likely waited for: among the
 *                      released producers of the highest expected-latency
 *                      class (vector memory VMEM/FLAT > scalar memory SMEM >
 *                      the rest: LDS, messages), the one issued last (largest
 *                      record index). Within one in-order counter the last
 *                      issued completes last; across counters (a combined
 *                      `vmcnt(0) lgkmcnt(0)`) the trace has no completion
 *                      times, so the class decides;
 *   distance           wait record index − producer record index
 *                      (instructions), and wait.time − (producer.time +
 *                      producer.stall) (cycles: producer issue to the wait's
 *                      first issue attempt);
 *   exposed latency    the wait's stall: the part of the producer's observed
 *                      latency (issue to release = distance + stall) that
 *                      the distance did not cover. To remove it the critical
 *                      producer would have to issue that many cycles earlier,
 *                      or that much independent work would have to sit
 *                      between it and the wait;
 *   attributed stall   the wait's stall, credited to the critical producer.
 * Executions that released nothing (no link) keep their stall unattributed.
 *
 * Per wait row, over its linked executions: distance (critical producer) in
 * instructions and cycles, exposed latency and observed latency as order
 * statistics (analyzer/dist.h: nearest-rank min/p10/p50/p90/max);
 * earlier_cycles = exposed p50; extra_insts = ceil(earlier_cycles ×
 * distance_insts p50 / distance_cycles p50), the independent instructions
 * needed at the rate observed between producer and wait. Per producer row
 * of the wait: executions of the wait that released >= 1 of its executions
 * ("waited", share = waited / executions of the wait), executions in which
 * it was critical and the stall attributed to it, its distances over all its
 * links at this wait.
 *
 * Orders: waits by stall descending, then vaddr, then row index; producers
 * of a wait and the capture-wide producer ranking by attributed stall
 * descending, then waited (links) descending, then vaddr, then row. Every
 * executed WAITCNT row (docs/instruction-classes.md) is listed; executions and stall are the row's
 * code.json Hit and Stall. The distances of a wait's producers and the
 * order statistics of the capture-wide producers are computed for the
 * first n entries of their rankings (the reported ones); the others have
 * empty samples (n == 0). A wait's own order statistics (and
 * earlier_cycles, extra_insts) likewise for the first n waits, and for
 * the others whose attributed stall reaches an_waits_opts.share of the
 * total (an_wait.sampled). */
#ifndef KR_ANALYZER_WAITS_H
#define KR_ANALYZER_WAITS_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/dist.h"
#include "bundle/model.h"

#define AN_WAITS_DEFAULT_N 10

typedef struct an_waits_opts {
    size_t n;                        /* hot waits and top producers shown (default 10) */
    /* A wait past the first n gets its order statistics when its
     * attributed stall is at least this share of total_stall (advice's
     * threshold, AN_ADVICE_MIN_SHARE); 0 (the default): every wait. */
    double share;
} an_waits_opts;

typedef enum an_links_source {
    AN_LINKS_NONE = 0,               /* no stored array and no algorithm for the gfxip */
    AN_LINKS_STORED,                 /* every wave had a stored array */
    AN_LINKS_COMPUTED,               /* no wave had one: recomputed (docs/waits.md#producer-links) */
    AN_LINKS_MIXED                   /* some of each */
} an_links_source;
const char *an_links_source_id(an_links_source s);   /* "none", "stored", "computed", "mixed" */

typedef struct an_wait_producer {
    uint32_t row;                    /* producer row index */
    uint64_t vaddr;
    uint64_t waited;                 /* wait executions that released >= 1 of its executions */
    uint64_t links;                  /* its executions released by this wait */
    uint64_t critical;               /* wait executions where it was the critical producer */
    uint64_t stall;                  /* stall attributed (Σ wait stall over those) */
    an_dist dist_insts, dist_cycles; /* over its links at this wait */
} an_wait_producer;

typedef struct an_wait {
    uint32_t row;                    /* the wait row */
    uint64_t vaddr;
    uint64_t executions, stall;      /* code.json Hit and Stall */
    uint64_t linked;                 /* executions with >= 1 link */
    uint64_t links;                  /* producer executions released */
    uint64_t attributed;             /* Σ stall over linked executions */
    an_dist dist_insts, dist_cycles; /* critical producer -> wait, per linked execution */
    an_dist exposed;                 /* stall per linked execution */
    an_dist observed;                /* dist_cycles + stall per linked execution */
    uint8_t sampled;                 /* the order statistics above were computed (see an_waits_opts.share) */
    uint64_t earlier_cycles;         /* exposed.p50 */
    uint8_t has_extra;               /* extra_insts is defined (distance p50 > 0 cycles) */
    uint64_t extra_insts;
    an_wait_producer *producers;
    size_t nproducers;
} an_wait;

typedef struct an_top_producer {
    uint32_t row;
    uint64_t vaddr;
    uint64_t stall;                  /* attributed over all waits */
    uint64_t links;                  /* executions released by any wait */
    uint64_t critical;
    size_t nwaits;                   /* distinct wait rows that released it */
    uint32_t top_wait;               /* wait row it got the most stall from (ties: more links, lower vaddr) */
    an_dist exposed;                 /* wait stall over the executions where it was critical */
    an_dist dist_cycles;             /* over all its links */
} an_top_producer;

typedef struct an_waits {
    const kr_code_row *rows;         /* the capture's code table */
    size_t nrows;
    size_t n;                        /* option used */
    an_links_source source;
    size_t waves_stored;             /* waves whose stored array was used */
    size_t waves_computed;           /* waves without a stored array, recomputed */
    size_t waves_none;               /* waves without links (no array, no algorithm) */
    uint64_t entries;                /* waitcnt entries used */
    uint64_t links;                  /* producer executions joined to a wait execution */
    uint64_t links_unplaced;         /* stored producers with no earlier unreleased execution */
    uint64_t wait_stall;             /* Σ Stall of WAITCNT rows */
    uint64_t attributed;             /* Σ attributed stall */
    uint64_t total_stall;            /* Σ Stall of all rows */
    an_wait *waits;                  /* every executed WAITCNT row, ranked */
    size_t nwaits;
    an_top_producer *producers;      /* every producer row with a link, ranked */
    size_t nproducers;
} an_waits;

/* One link resolved to records of one wave (used by the tests too). */
typedef struct an_link {
    uint32_t wait_rec, prod_rec;     /* indices into kr_wave.insts */
} an_link;

/* The links of one wave, in entry order: from the stored array when present
 * (placed on records as described above), else recomputed. *source is set
 * to AN_LINKS_STORED, AN_LINKS_COMPUTED or AN_LINKS_NONE; *unplaced and
 * *entries (may be NULL) are increased by the stored producers that could
 * not be placed and the entries used. *links is malloc'd (free it).
 * Returns 0 or KR_INTERNAL. */
int an_waits_wave_links(const kr_capture *c, const kr_wave *w, an_link **links, size_t *nlinks,
                        an_links_source *source, uint64_t *unplaced, uint64_t *entries);

/* Places a flattened waitcnt array (waits/producers as in kr_wave) on the
 * records of w by the stored-array rule above. *links malloc'd. */
int an_waits_place(const kr_capture *c, const kr_wave *w, const kr_wait_entry *waits, size_t nwaits,
                   const uint32_t *producers, an_link **links, size_t *nlinks, uint64_t *unplaced);

/* opts may be NULL. 0 or KR_INTERNAL. Free with an_waits_free. */
int an_waits_compute(const kr_capture *c, const an_waits_opts *opts, an_waits *out);
void an_waits_free(an_waits *r);

/* The same in steps, for waves that are streamed (analysis.h): an
 * accumulator per thread takes waves (wi indexes c->waves; each wave once),
 * accumulators are merged in a fixed order, then finished into the result
 * (which does not depend on the order the waves came in). */
typedef struct an_waits_acc an_waits_acc;
an_waits_acc *an_waits_acc_new(void);          /* NULL: out of memory */
int an_waits_acc_wave(an_waits_acc *a, const kr_capture *c, size_t wi);
/* into takes from's links (the two may trade tables: free both as usual) */
int an_waits_acc_merge(an_waits_acc *into, an_waits_acc *from);
int an_waits_finish(const kr_capture *c, const an_waits_acc *a, const an_waits_opts *opts, an_waits *out);
void an_waits_acc_free(an_waits_acc *a);

#endif
