/* waits.c — see waits.h. Linear in records and links: records are bucketed
 * by LineNumber; links are counted into a hash table of distinct links
 * (memory follows the distinct values, not the links), which is bucketed
 * by row once at the end (counting sorts) for the sums and order
 * statistics (weighted selection). */
#include "analyzer/waits.h"

#include <stdlib.h>
#include <string.h>

#include "analyzer/waitcnt.h"
#include "common/err.h"

const char *an_links_source_id(an_links_source s)
{
    switch (s) {
    case AN_LINKS_STORED: return "stored";
    case AN_LINKS_COMPUTED: return "computed";
    case AN_LINKS_MIXED: return "mixed";
    default: return "none";
    }
}

/* ---- links of one wave ---- */

typedef struct lvec {
    an_link *v;
    size_t n, cap;
} lvec;

static int lv_push(lvec *l, uint32_t wait_rec, uint32_t prod_rec)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        an_link *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return KR_INTERNAL;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n].wait_rec = wait_rec;
    l->v[l->n].prod_rec = prod_rec;
    l->n++;
    return 0;
}

/* A wait text naming two or more counters can release through each of them
 * on one execution (two entries with the same wait line, §4.5). */
static int names_several_counters(const char *isa)
{
    static const char *const names[] = {"vmcnt", "lgkmcnt", "vscnt", "loadcnt", "storecnt",
                                        "samplecnt", "dscnt", "kmcnt", "expcnt", "bvhcnt"};
    int k = 0;
    for (size_t i = 0; isa && i < sizeof names / sizeof names[0]; i++)
        k += strstr(isa, names[i]) != NULL;
    return k >= 2;
}

/* Per-line FIFOs of the executions seen so far and not yet released (a
 * linked list through the record indices). */
typedef struct fifos {
    uint32_t nlines;
    uint8_t *need;                   /* 1 producer line, 2 wait line */
    uint32_t *head, *tail;           /* per line, UINT32_MAX when empty */
    uint32_t *next;                  /* per record */
} fifos;

static void fifos_free(fifos *f)
{
    free(f->need);
    free(f->head);
    free(f->tail);
    free(f->next);
}

/* 1 when every producer of the entry has a queued (so earlier) unreleased
 * execution (a LineNumber listed m times needs m of them). */
static int placeable(const fifos *f, const uint32_t *prod, uint32_t n)
{
    for (uint32_t j = 0; j < n; j++) {
        uint32_t pl = prod[j];
        if (pl == 0 || pl >= f->nlines)
            return 0;
        uint32_t q = f->head[pl];
        for (uint32_t i = 0; i < j && q != UINT32_MAX; i++)
            if (prod[i] == pl)
                q = f->next[q];
        if (q == UINT32_MAX)
            return 0;
    }
    return 1;
}

/* Releases the entry's producers at record rec. */
static int release(fifos *f, const uint32_t *prod, uint32_t n, uint32_t rec, lvec *out, uint64_t *lost)
{
    for (uint32_t j = 0; j < n; j++) {
        uint32_t pl = prod[j];
        if (pl == 0 || pl >= f->nlines || f->head[pl] == UINT32_MAX) {
            (*lost)++;
            continue;
        }
        uint32_t q = f->head[pl];
        f->head[pl] = f->next[q];
        if (f->head[pl] == UINT32_MAX)
            f->tail[pl] = UINT32_MAX;
        if (lv_push(out, rec, q))
            return KR_INTERNAL;
    }
    return 0;
}

/* line, or nlines when out of range (an index into fifos.need). */
static inline uint32_t line_in(uint32_t line, uint32_t nlines)
{
    return line < nlines ? line : nlines;
}

int an_waits_place(const kr_capture *c, const kr_wave *w, const kr_wait_entry *waits, size_t nwaits,
                   const uint32_t *producers, an_link **links, size_t *nlinks, uint64_t *unplaced)
{
    *links = NULL;
    *nlinks = 0;
    fifos f;
    memset(&f, 0, sizeof f);
    f.nlines = c->nline_map ? (uint32_t)c->nline_map : 1;
    f.need = calloc((size_t)f.nlines + 1, 1);   /* need[nlines] = 0 stands for any line out of range */
    f.head = malloc(f.nlines * sizeof *f.head);
    f.tail = malloc(f.nlines * sizeof *f.tail);
    f.next = malloc((w->ninsts ? w->ninsts : 1) * sizeof *f.next);
    if (!f.need || !f.head || !f.tail || !f.next) {
        fifos_free(&f);
        return KR_INTERNAL;
    }
    for (size_t e = 0; e < nwaits; e++) {
        if (waits[e].wait_line < f.nlines)
            f.need[waits[e].wait_line] |= 2;
        for (uint32_t j = 0; j < waits[e].n; j++) {
            uint32_t pl = producers[waits[e].first + j];
            if (pl < f.nlines) {
                f.need[pl] |= 1;
                f.head[pl] = f.tail[pl] = UINT32_MAX;
            }
        }
    }
    lvec out = {0};
    uint64_t lost = 0;
    size_t e = 0;
    int rc = 0;
    const uint8_t *need = f.need;
    const uint32_t nlines = f.nlines;
    const kr_inst *rec = w->insts, *last = w->ninsts ? w->insts + w->ninsts : w->insts;
    for (; rec < last && e < nwaits; rec++) {
        /* most records are not memory instructions: skip them four at a time */
        while (last - rec >= 4 && !(need[line_in(rec[0].line, nlines)] | need[line_in(rec[1].line, nlines)] |
                                    need[line_in(rec[2].line, nlines)] | need[line_in(rec[3].line, nlines)]))
            rec += 4;
        if (rec == last)
            break;
        while (!need[line_in(rec->line, nlines)])   /* then one at a time */
            if (++rec == last)
                goto done;
        uint32_t line = rec->line;
        size_t i = (size_t)(rec - w->insts);
        if (line == waits[e].wait_line) {
            /* the next execution of the wait line is the entry's */
            rc = release(&f, producers + waits[e].first, waits[e].n, (uint32_t)i, &out, &lost);
            e++;
            /* a combined wait: the second counter's entry on the same execution */
            const kr_code_row *wr = kr_capture_row(c, line);
            if (!rc && e < nwaits && waits[e].wait_line == line && names_several_counters(wr ? wr->isa : NULL) &&
                placeable(&f, producers + waits[e].first, waits[e].n)) {
                rc = release(&f, producers + waits[e].first, waits[e].n, (uint32_t)i, &out, &lost);
                e++;
            }
            if (rc)
                break;
            continue;
        }
        if (f.need[line] & 1) {          /* queue the execution */
            f.next[i] = UINT32_MAX;
            if (f.tail[line] == UINT32_MAX)
                f.head[line] = (uint32_t)i;
            else
                f.next[f.tail[line]] = (uint32_t)i;
            f.tail[line] = (uint32_t)i;
        }
    }
done:
    for (; e < nwaits; e++)               /* no execution of the wait left */
        lost += waits[e].n;
    fifos_free(&f);
    if (rc) {
        free(out.v);
        return rc;
    }
    *links = out.v;
    *nlinks = out.n;
    if (unplaced)
        *unplaced += lost;
    return 0;
}

int an_waits_wave_links(const kr_capture *c, const kr_wave *w, an_link **links, size_t *nlinks,
                        an_links_source *source, uint64_t *unplaced, uint64_t *entries)
{
    *links = NULL;
    *nlinks = 0;
    *source = AN_LINKS_NONE;
    if (w->has_waitcnt) {
        *source = AN_LINKS_STORED;
        if (entries)
            *entries += w->nwaits;
        return an_waits_place(c, w, w->waits, w->nwaits, w->producers, links, nlinks, unplaced);
    }
    an_waitcnt r;
    int rc = an_waitcnt_wave(c, w, &r);
    if (rc)
        return rc;
    if (r.supported) {
        *source = AN_LINKS_COMPUTED;
        if (entries)
            *entries += r.nwaits;
    }
    if (r.supported && r.nproducers) {
        an_link *v = malloc(r.nproducers * sizeof *v);
        if (!v) {
            an_waitcnt_free(&r);
            return KR_INTERNAL;
        }
        size_t k = 0;
        for (size_t e = 0; e < r.nwaits; e++)
            for (uint32_t j = 0; j < r.waits[e].n; j++) {
                v[k].wait_rec = r.wait_recs[e];
                v[k].prod_rec = r.producer_recs[r.waits[e].first + j];
                k++;
            }
        *links = v;
        *nlinks = k;
    }
    an_waitcnt_free(&r);
    return 0;
}

/* ---- aggregation ----
 *
 * Links are not kept: each distinct link (wait row, producer row,
 * distances, stall, critical) is counted once in a hash table, so memory
 * follows the distinct links, not the links, and the figures do not depend
 * on the order the waves come in. At the end the table gives the per-row
 * sums and the samples the order statistics need (see "finishing"). */

typedef struct lent {
    uint32_t w, p;                   /* wait row, producer row */
    uint64_t dinst, dcyc, stall;
    uint32_t critical;               /* 0 or 1; UINT32_MAX: empty slot */
    uint32_t hash;                   /* link_hash, kept for growing */
    uint64_t count;                  /* links */
    uint64_t waited;                 /* of them, the first of their row in their wait execution */
} lent;

typedef struct lmap {
    lent *v;
    size_t cap, n;                   /* cap a power of two, n used */
} lmap;

/* The key fields multiplied by odd constants, folded (one multiply per
 * field, then a final mix of the high bits into the low ones). */
static uint32_t link_hash(const lent *k)
{
    uint64_t h = ((uint64_t)k->w << 32 | k->p) * 0x9e3779b97f4a7c15ull;
    h ^= k->dinst * 0xc2b2ae3d27d4eb4full;
    h ^= k->dcyc * 0x165667b19e3779f9ull;
    h ^= (k->stall << 1 | k->critical) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
    h *= 0xc4ceb9fe1a85ec53ull;
    return (uint32_t)(h >> 32);
}

static int same_link(const lent *e, const lent *k)
{
    return e->hash == k->hash && e->w == k->w && e->p == k->p && e->dinst == k->dinst && e->dcyc == k->dcyc &&
           e->stall == k->stall && e->critical == k->critical;
}

/* The slot of k (k->hash set): its entry or the empty slot it goes to. */
static size_t slot_of(const lmap *m, const lent *k)
{
    size_t mask = m->cap - 1, i = (size_t)k->hash & mask;
    while (m->v[i].critical != UINT32_MAX && !same_link(&m->v[i], k))
        i = (i + 1) & mask;
    return i;
}

static int grow(lmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 1024;
    lent *v = malloc(cap * sizeof *v), *old = m->v;
    if (!v)
        return KR_INTERNAL;
    for (size_t i = 0; i < cap; i++)
        v[i].critical = UINT32_MAX;
    size_t ocap = m->cap;
    m->v = v;
    m->cap = cap;
    size_t mask = cap - 1;
    for (size_t i = 0; i < ocap; i++)     /* distinct keys: the first empty slot */
        if (old[i].critical != UINT32_MAX) {
            size_t j = (size_t)old[i].hash & mask;
            while (v[j].critical != UINT32_MAX)
                j = (j + 1) & mask;
            v[j] = old[i];
        }
    free(old);
    return 0;
}

/* Adds count links (waited of them first of their row) like k (k->hash
 * set). */
static int add_link(lmap *m, const lent *k, uint64_t count, uint64_t waited)
{
    if (4 * (m->n + 1) > 3 * m->cap && grow(m))
        return KR_INTERNAL;
    lent *e = &m->v[slot_of(m, k)];
    if (e->critical == UINT32_MAX) {
        *e = *k;
        e->count = e->waited = 0;
        m->n++;
    }
    e->count += count;
    e->waited += waited;
    return 0;
}

struct an_waits_acc {
    lmap h;
    size_t waves_stored, waves_computed, waves_none;
    uint64_t entries, links_unplaced;
};

/* Expected-latency class of a producer for the critical choice: vector
 * memory (VMEM, FLAT) 2, scalar memory 1, anything else (LDS, messages) 0. */
static int latency_rank(const kr_capture *c, const kr_inst *x)
{
    if (x->row == KR_ROW_NONE || x->row >= c->nrows)
        return 0;
    kr_class k = c->rows[x->row].cls;
    return k == KR_CLASS_VMEM || k == KR_CLASS_FLAT ? 2 : k == KR_CLASS_SMEM ? 1 : 0;
}

/* Links of one wave (critical: see waits.h), grouped by wait execution. */
static int collect_wave(const kr_capture *c, size_t wi, const an_link *lk, size_t n, lmap *m)
{
    const kr_wave *w = &c->waves[wi];
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        uint32_t crit = lk[i].prod_rec;
        int crit_rank = latency_rank(c, &w->insts[crit]);
        while (j < n && lk[j].wait_rec == lk[i].wait_rec) {
            int rk = latency_rank(c, &w->insts[lk[j].prod_rec]);
            if (rk > crit_rank || (rk == crit_rank && lk[j].prod_rec > crit)) {
                crit = lk[j].prod_rec;
                crit_rank = rk;
            }
            j++;
        }
        const kr_inst *wr = &w->insts[lk[i].wait_rec];
        int crit_done = 0;
        for (size_t k = i; k < j; k++) {
            const kr_inst *pr = &w->insts[lk[k].prod_rec];
            if (wr->row == KR_ROW_NONE || pr->row == KR_ROW_NONE || wr->row >= c->nrows || pr->row >= c->nrows)
                continue;
            int first = 1;           /* no earlier counted link of this execution has the row */
            for (size_t q = i; q < k && first; q++) {
                const kr_inst *qr = &w->insts[lk[q].prod_rec];
                first = !(qr->row == pr->row && qr->row < c->nrows);
            }
            uint64_t dinst = lk[k].wait_rec > lk[k].prod_rec ? lk[k].wait_rec - lk[k].prod_rec : 0;
            uint64_t issue = pr->time + pr->stall;
            uint64_t dcyc = wr->time > issue ? wr->time - issue : 0;
            int critical = !crit_done && lk[k].prod_rec == crit;
            crit_done |= critical;
            lent key = {wr->row, pr->row, dinst, dcyc, wr->stall, (uint32_t)critical, 0, 0, 0};
            key.hash = link_hash(&key);
            if (add_link(m, &key, 1, (uint64_t)first))
                return KR_INTERNAL;
        }
        i = j;
    }
    return 0;
}

static int rank_waits(const void *a, const void *b)
{
    const an_wait *x = a, *y = b;
    if (x->stall != y->stall) return x->stall > y->stall ? -1 : 1;
    if (x->vaddr != y->vaddr) return x->vaddr < y->vaddr ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

static int rank_wait_producers(const void *a, const void *b)
{
    const an_wait_producer *x = a, *y = b;
    if (x->stall != y->stall) return x->stall > y->stall ? -1 : 1;
    if (x->waited != y->waited) return x->waited > y->waited ? -1 : 1;
    if (x->vaddr != y->vaddr) return x->vaddr < y->vaddr ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

static int rank_top(const void *a, const void *b)
{
    const an_top_producer *x = a, *y = b;
    if (x->stall != y->stall) return x->stall > y->stall ? -1 : 1;
    if (x->links != y->links) return x->links > y->links ? -1 : 1;
    if (x->vaddr != y->vaddr) return x->vaddr < y->vaddr ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* ---- finishing ----
 *
 * The distinct links are bucketed by producer row, then (stably) by wait
 * row, with two counting sorts: a wait row's links form one run of the
 * wait order, and within it each producer's links one run, producers
 * ascending; a producer row's links form one run of the producer order.
 * Sums come from one pass over the runs; order statistics are weighted
 * selections over (value, count) pairs gathered from a run
 * (an_dist_of_weighted gives what an_dist_of gives on the same multiset). */

typedef struct fin {
    const lent *v;                   /* the table's slots */
    uint32_t *byp, *byw;             /* distinct links by producer row; by (wait row, producer row) */
    uint32_t *pstart, *wstart;       /* per row r: run [start[r], start[r + 1]) */
    uint64_t *val, *cnt;             /* scratch for one sample */
} fin;

enum { V_DINST, V_DCYC, V_STALL, V_OBS };

static uint64_t value_of(const lent *l, int what)
{
    switch (what) {
    case V_DINST: return l->dinst;
    case V_DCYC: return l->dcyc;
    case V_STALL: return l->stall;
    default: return l->dcyc + l->stall;
    }
}

/* The sample of `what` over the links idx[lo .. hi) (critical ones only
 * when crit_only) into out. */
static void sample(fin *f, const uint32_t *idx, size_t lo, size_t hi, int crit_only, int what, an_dist *out)
{
    size_t k = 0;
    for (size_t i = lo; i < hi; i++) {
        const lent *l = &f->v[idx[i]];
        if (crit_only && !l->critical)
            continue;
        f->val[k] = value_of(l, what);
        f->cnt[k] = l->count;
        k++;
    }
    an_dist_of_weighted(f->val, f->cnt, k, out);
}

/* Counting sort of idx[0 .. n) into out by the row key(v[idx[i]]) (stable);
 * start[0 .. nrows] receives the run bounds. */
static void bucket(const lent *v, const uint32_t *idx, size_t n, int by_wait, size_t nrows, uint32_t *start,
                   uint32_t *out)
{
    memset(start, 0, (nrows + 1) * sizeof *start);
    for (size_t i = 0; i < n; i++)
        start[(by_wait ? v[idx[i]].w : v[idx[i]].p) + 1]++;
    for (size_t r = 1; r <= nrows; r++)
        start[r] += start[r - 1];
    for (size_t i = 0; i < n; i++)
        out[start[by_wait ? v[idx[i]].w : v[idx[i]].p]++] = idx[i];
    for (size_t r = nrows; r > 0; r--)    /* undo the fill: start[r] = first of row r */
        start[r] = start[r - 1];
    start[0] = 0;
}

static int executed_wait(const kr_code_row *r)
{
    return !r->is_label && r->cls == KR_CLASS_WAITCNT && r->hit > 0;
}

static int build_waits(const kr_capture *c, fin *f, an_waits *out)
{
    size_t nw = 0;
    for (size_t r = 0; r < c->nrows; r++)
        nw += f->wstart[r + 1] > f->wstart[r] || executed_wait(&c->rows[r]);
    out->waits = calloc(nw ? nw : 1, sizeof *out->waits);
    if (!out->waits)
        return KR_INTERNAL;
    for (size_t r = 0; r < c->nrows; r++) {
        size_t lo = f->wstart[r], hi = f->wstart[r + 1];
        if (lo == hi && !executed_wait(&c->rows[r]))
            continue;
        an_wait *wt = &out->waits[out->nwaits++];
        wt->row = (uint32_t)r;
        wt->vaddr = c->rows[r].vaddr;
        wt->executions = c->rows[r].hit;
        wt->stall = c->rows[r].stall;
        if (lo == hi)
            continue;
        size_t np = 1;
        for (size_t k = lo + 1; k < hi; k++)
            np += f->v[f->byw[k]].p != f->v[f->byw[k - 1]].p;
        wt->producers = calloc(np, sizeof *wt->producers);
        if (!wt->producers)
            return KR_INTERNAL;
        an_wait_producer *p = wt->producers - 1;
        for (size_t k = lo; k < hi; k++) {
            const lent *l = &f->v[f->byw[k]];
            if (k == lo || l->p != p->row) {
                p++;
                p->row = l->p;
                p->vaddr = c->rows[l->p].vaddr;
            }
            p->links += l->count;
            p->waited += l->waited;
            if (l->critical) {
                p->critical += l->count;
                p->stall += l->stall * l->count;
            }
        }
        wt->nproducers = np;
        for (size_t s = 0; s < np; s++) {
            wt->links += wt->producers[s].links;
            wt->linked += wt->producers[s].critical;
            wt->attributed += wt->producers[s].stall;
        }
        out->links += wt->links;
        out->attributed += wt->attributed;
        sample(f, f->byw, lo, hi, 1, V_DINST, &wt->dist_insts);
        sample(f, f->byw, lo, hi, 1, V_DCYC, &wt->dist_cycles);
        sample(f, f->byw, lo, hi, 1, V_STALL, &wt->exposed);
        sample(f, f->byw, lo, hi, 1, V_OBS, &wt->observed);
        wt->earlier_cycles = wt->exposed.p50;
        if (wt->dist_cycles.n && wt->dist_cycles.p50 > 0) {
            wt->has_extra = 1;
            uint64_t num = wt->earlier_cycles * wt->dist_insts.p50;
            wt->extra_insts = (num + wt->dist_cycles.p50 - 1) / wt->dist_cycles.p50;
        }
        qsort(wt->producers, wt->nproducers, sizeof *wt->producers, rank_wait_producers);
    }
    qsort(out->waits, out->nwaits, sizeof *out->waits, rank_waits);
    /* per-producer distances, for the waits that are reported */
    for (size_t k = 0; k < out->nwaits && k < out->n; k++) {
        an_wait *wt = &out->waits[k];
        size_t lo = f->wstart[wt->row], hi = f->wstart[wt->row + 1];
        for (size_t s = 0; s < wt->nproducers; s++) {
            an_wait_producer *p = &wt->producers[s];
            size_t a = lo, b = hi;           /* the producer's run: first link with p >= row */
            while (a < b) {
                size_t mid = a + (b - a) / 2;
                if (f->v[f->byw[mid]].p < p->row)
                    a = mid + 1;
                else
                    b = mid;
            }
            for (b = a; b < hi && f->v[f->byw[b]].p == p->row; b++)
                ;
            sample(f, f->byw, a, b, 0, V_DINST, &p->dist_insts);
            sample(f, f->byw, a, b, 0, V_DCYC, &p->dist_cycles);
        }
    }
    return 0;
}

/* From the (wait, producer) pairs of out->waits. */
static int build_top(const kr_capture *c, fin *f, an_waits *out)
{
    size_t nprod = 0;
    for (size_t r = 0; r < c->nrows; r++)
        nprod += f->pstart[r + 1] > f->pstart[r];
    out->producers = calloc(nprod ? nprod : 1, sizeof *out->producers);
    uint32_t *slot = malloc((c->nrows ? c->nrows : 1) * sizeof *slot);
    uint64_t *best = calloc(2 * (nprod ? nprod : 1), sizeof *best);   /* stall, links of top_wait's pair */
    if (!out->producers || !slot || !best) {
        free(slot);
        free(best);
        return KR_INTERNAL;
    }
    for (size_t r = 0; r < c->nrows; r++) {
        if (f->pstart[r + 1] == f->pstart[r])
            continue;
        an_top_producer *p = &out->producers[out->nproducers];
        slot[r] = (uint32_t)out->nproducers++;
        p->row = (uint32_t)r;
        p->vaddr = c->rows[r].vaddr;
    }
    for (size_t k = 0; k < out->nwaits; k++) {
        const an_wait *wt = &out->waits[k];
        uint32_t wr = wt->row;
        for (size_t s = 0; s < wt->nproducers; s++) {
            const an_wait_producer *e = &wt->producers[s];
            size_t i = slot[e->row];
            an_top_producer *p = &out->producers[i];
            p->links += e->links;
            p->critical += e->critical;
            p->stall += e->stall;
            p->nwaits++;
            /* the wait it got the most stall from (ties: more links, lower vaddr, lower row) */
            uint64_t st = e->stall, nl = e->links, bst = best[2 * i], bnl = best[2 * i + 1];
            int better = p->nwaits == 1 || st > bst ||
                         (st == bst && (nl > bnl ||
                          (nl == bnl && (c->rows[wr].vaddr < c->rows[p->top_wait].vaddr ||
                           (c->rows[wr].vaddr == c->rows[p->top_wait].vaddr && wr < p->top_wait)))));
            if (better) {
                p->top_wait = wr;
                best[2 * i] = st;
                best[2 * i + 1] = nl;
            }
        }
    }
    free(slot);
    free(best);
    qsort(out->producers, out->nproducers, sizeof *out->producers, rank_top);
    for (size_t k = 0; k < out->nproducers && k < out->n; k++) {   /* the reported ones */
        an_top_producer *p = &out->producers[k];
        size_t lo = f->pstart[p->row], hi = f->pstart[p->row + 1];
        sample(f, f->byp, lo, hi, 1, V_STALL, &p->exposed);
        sample(f, f->byp, lo, hi, 0, V_DCYC, &p->dist_cycles);
    }
    return 0;
}

an_waits_acc *an_waits_acc_new(void)
{
    return calloc(1, sizeof(an_waits_acc));
}

void an_waits_acc_free(an_waits_acc *a)
{
    if (!a)
        return;
    free(a->h.v);
    free(a);
}

int an_waits_acc_wave(an_waits_acc *a, const kr_capture *c, size_t wi)
{
    an_link *lk;
    size_t nlk;
    an_links_source src;
    int rc = an_waits_wave_links(c, &c->waves[wi], &lk, &nlk, &src, &a->links_unplaced, &a->entries);
    if (rc)
        return rc;
    if (src == AN_LINKS_STORED)
        a->waves_stored++;
    else if (src == AN_LINKS_COMPUTED)
        a->waves_computed++;
    else
        a->waves_none++;
    rc = collect_wave(c, wi, lk, nlk, &a->h);
    free(lk);
    return rc;
}

int an_waits_acc_merge(an_waits_acc *into, const an_waits_acc *from)
{
    for (size_t i = 0; i < from->h.cap; i++)
        if (from->h.v[i].critical != UINT32_MAX &&
            add_link(&into->h, &from->h.v[i], from->h.v[i].count, from->h.v[i].waited))
            return KR_INTERNAL;
    into->waves_stored += from->waves_stored;
    into->waves_computed += from->waves_computed;
    into->waves_none += from->waves_none;
    into->entries += from->entries;
    into->links_unplaced += from->links_unplaced;
    return 0;
}

int an_waits_finish(const kr_capture *c, const an_waits_acc *a, const an_waits_opts *opts, an_waits *out)
{
    memset(out, 0, sizeof *out);
    out->rows = c->rows;
    out->nrows = c->nrows;
    out->n = opts && opts->n ? opts->n : AN_WAITS_DEFAULT_N;
    for (size_t r = 0; r < c->nrows; r++) {
        if (c->rows[r].is_label)
            continue;
        out->total_stall += c->rows[r].stall;
        if (c->rows[r].cls == KR_CLASS_WAITCNT)
            out->wait_stall += c->rows[r].stall;
    }
    out->waves_stored = a->waves_stored;
    out->waves_computed = a->waves_computed;
    out->waves_none = a->waves_none;
    out->entries = a->entries;
    out->links_unplaced = a->links_unplaced;
    out->source = out->waves_stored && out->waves_computed ? AN_LINKS_MIXED
                : out->waves_stored ? AN_LINKS_STORED
                : out->waves_computed ? AN_LINKS_COMPUTED : AN_LINKS_NONE;
    fin f = {0};
    const lmap *m = &a->h;
    size_t nd = m->n ? m->n : 1, nr = c->nrows;
    f.v = m->v;
    uint32_t *idx = malloc(nd * sizeof *idx);
    f.byp = malloc(nd * sizeof *f.byp);
    f.byw = malloc(nd * sizeof *f.byw);
    f.pstart = malloc((nr + 1) * sizeof *f.pstart);
    f.wstart = malloc((nr + 1) * sizeof *f.wstart);
    f.val = malloc(nd * sizeof *f.val);
    f.cnt = malloc(nd * sizeof *f.cnt);
    int rc = idx && f.byp && f.byw && f.pstart && f.wstart && f.val && f.cnt ? 0 : KR_INTERNAL;
    if (!rc) {
        size_t n = 0;                          /* the used slots (rows < nrows: see collect_wave) */
        for (size_t i = 0; i < m->cap; i++)
            if (m->v[i].critical != UINT32_MAX)
                idx[n++] = (uint32_t)i;
        bucket(f.v, idx, n, 0, nr, f.pstart, f.byp);
        bucket(f.v, f.byp, n, 1, nr, f.wstart, f.byw);
        rc = build_waits(c, &f, out);
    }
    if (!rc)
        rc = build_top(c, &f, out);
    free(idx);
    free(f.byp);
    free(f.byw);
    free(f.pstart);
    free(f.wstart);
    free(f.val);
    free(f.cnt);
    if (rc) {
        an_waits_free(out);
        return rc;
    }
    return 0;
}

int an_waits_compute(const kr_capture *c, const an_waits_opts *opts, an_waits *out)
{
    memset(out, 0, sizeof *out);
    an_waits_acc *a = an_waits_acc_new();
    int rc = a ? 0 : KR_INTERNAL;
    for (size_t wi = 0; wi < c->nwaves && !rc; wi++)
        rc = an_waits_acc_wave(a, c, wi);
    if (!rc)
        rc = an_waits_finish(c, a, opts, out);
    an_waits_acc_free(a);
    return rc;
}

void an_waits_free(an_waits *r)
{
    for (size_t i = 0; i < r->nwaits; i++)
        free(r->waits[i].producers);
    free(r->waits);
    free(r->producers);
    memset(r, 0, sizeof *r);
}
