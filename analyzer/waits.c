/* waits.c — see waits.h. Linear in records and links: records are bucketed
 * by LineNumber; links are counted into a hash table of distinct links
 * (memory follows the distinct values, not the links), which is expanded
 * and sorted once at the end for the sums and order statistics. */
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

int an_waits_place(const kr_capture *c, const kr_wave *w, const kr_wait_entry *waits, size_t nwaits,
                   const uint32_t *producers, an_link **links, size_t *nlinks, uint64_t *unplaced)
{
    *links = NULL;
    *nlinks = 0;
    fifos f;
    memset(&f, 0, sizeof f);
    f.nlines = c->nline_map ? (uint32_t)c->nline_map : 1;
    f.need = calloc(f.nlines, 1);
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
        uint32_t line = rec->line;
        if (line >= nlines || !need[line])
            continue;                         /* most records: not a memory instruction */
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
 * on the order the waves come in. At the end the table is expanded into the
 * per-row sums and the histograms the order statistics need
 * (an_dist_of_counts gives what an_dist_of gives on the same multiset). */

typedef struct lent {
    uint32_t w, p;                   /* wait row, producer row */
    uint64_t dinst, dcyc, stall;
    uint32_t critical;               /* 0 or 1; UINT32_MAX: empty slot */
    uint64_t count;                  /* links */
    uint64_t waited;                 /* of them, the first of their row in their wait execution */
} lent;

typedef struct lmap {
    lent *v;
    size_t cap, n;                   /* cap a power of two, n used */
} lmap;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

static int same_link(const lent *e, const lent *k)
{
    return e->w == k->w && e->p == k->p && e->dinst == k->dinst && e->dcyc == k->dcyc && e->stall == k->stall &&
           e->critical == k->critical;
}

static size_t slot_of(const lmap *m, const lent *k)
{
    uint64_t h = mix(((uint64_t)k->w << 32 | k->p) ^ mix(k->dinst * 0x9e3779b97f4a7c15ull + k->dcyc) ^
                     (k->stall << 1 | k->critical));
    size_t mask = m->cap - 1, i = (size_t)h & mask;
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
    for (size_t i = 0; i < ocap; i++)
        if (old[i].critical != UINT32_MAX)
            m->v[slot_of(m, &old[i])] = old[i];
    free(old);
    return 0;
}

/* Adds count links (waited of them first of their row) like k. */
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

/* Histogram kinds of the expanded table: a = wait row (W_*, WP_*) or
 * producer row (P_*); b = producer row (WP_*) or 0. W_* and P_STALL count
 * critical links only; H_PAIR entries carry the per-(wait, producer) sums. */
enum { H_W_DINST, H_W_DCYC, H_W_STALL, H_W_OBS, H_WP_DINST, H_WP_DCYC, H_P_STALL, H_P_DCYC, H_PAIR };

typedef struct hent {
    uint64_t ab;                     /* a << 32 | b */
    uint64_t value;                  /* the value counted (0 for H_PAIR) */
    uint32_t kind;
    uint64_t count;                  /* links with this value (H_PAIR: links) */
    uint64_t waited, critical, stall;   /* H_PAIR only */
} hent;

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
            lent key = {wr->row, pr->row, dinst, dcyc, wr->stall, (uint32_t)critical, 0, 0};
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

/* The used entries, sorted by (kind, a, b, value): each histogram is a run
 * with its values ascending. */
static int by_key(const void *a, const void *b)
{
    const hent *x = a, *y = b;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    if (x->ab != y->ab) return x->ab < y->ab ? -1 : 1;
    return (x->value > y->value) - (x->value < y->value);
}

/* by_key's order on a 128-bit key: (kind, a, b) packed into hi — rows are
 * below KR_MAX_CODE_ROWS = 2^23 — and the value. */
typedef struct skey {
    uint64_t hi, value;
    size_t i;
} skey;

#define SKEY_LT(x, y) ((x)->hi < (y)->hi || ((x)->hi == (y)->hi && (x)->value < (y)->value))

/* Sorts v[0 .. n) in by_key order: a bottom-up merge sort of packed keys
 * (an inline comparison instead of qsort's callback, which dominated the
 * finish step), then one permutation of the entries. 0 or KR_INTERNAL. */
static int sort_entries(hent **pv, size_t n)
{
    if (n < 2)
        return 0;
    hent *v = *pv;
    for (size_t i = 0; i < n; i++)
        if ((v[i].ab >> 32) >= (1u << 23) || (v[i].ab & 0xffffffffu) >= (1u << 23) || v[i].kind >= (1u << 17)) {
            qsort(v, n, sizeof *v, by_key);       /* keys that do not pack */
            return 0;
        }
    skey *k = malloc(n * sizeof *k), *tmp = malloc(n * sizeof *tmp);
    hent *out = malloc(n * sizeof *out);
    if (!k || !tmp || !out) {
        free(k);
        free(tmp);
        free(out);
        return KR_INTERNAL;
    }
    for (size_t i = 0; i < n; i++) {
        k[i].hi = (uint64_t)v[i].kind << 46 | (v[i].ab >> 32) << 23 | (v[i].ab & 0xffffffffu);
        k[i].value = v[i].value;
        k[i].i = i;
    }
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi)
                tmp[o++] = SKEY_LT(&k[b], &k[a]) ? k[b++] : k[a++];
            while (a < mid)
                tmp[o++] = k[a++];
            while (b < hi)
                tmp[o++] = k[b++];
        }
        skey *x = k;
        k = tmp;
        tmp = x;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = v[k[i].i];
    free(k);
    free(tmp);
    free(v);
    *pv = out;
    return 0;
}

typedef struct table {
    hent *v;
    size_t n;
    size_t start[H_PAIR + 2];        /* kind k is v[start[k] .. start[k + 1]) */
    uint64_t *val, *cnt;             /* scratch for one histogram */
} table;

/* The histogram (kind, a, b) into out (empty sample when absent). */
static void dist_of(table *t, uint32_t kind, uint32_t a, uint32_t b, an_dist *out)
{
    uint64_t ab = (uint64_t)a << 32 | b;
    size_t lo = t->start[kind], hi = t->start[kind + 1];
    while (lo < hi) {                  /* first entry with key >= ab */
        size_t mid = lo + (hi - lo) / 2;
        if (t->v[mid].ab < ab)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t k = 0;
    for (size_t i = lo; i < t->start[kind + 1] && t->v[i].ab == ab; i++, k++) {
        t->val[k] = t->v[i].value;
        t->cnt[k] = t->v[i].count;
    }
    an_dist_of_counts(t->val, t->cnt, k, out);
}

static void put(table *t, uint32_t kind, uint32_t a, uint32_t b, uint64_t value, uint64_t count)
{
    hent *e = &t->v[t->n++];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->ab = (uint64_t)a << 32 | b;
    e->value = value;
    e->count = count;
}

/* A distinct link's contributions to the sums and histograms. */
static void expand(const lent *l, table *t)
{
    put(t, H_PAIR, l->w, l->p, 0, l->count);
    hent *pair = &t->v[t->n - 1];
    pair->waited = l->waited;
    pair->critical = l->critical ? l->count : 0;
    pair->stall = l->critical ? l->stall * l->count : 0;
    put(t, H_WP_DINST, l->w, l->p, l->dinst, l->count);
    put(t, H_WP_DCYC, l->w, l->p, l->dcyc, l->count);
    put(t, H_P_DCYC, l->p, 0, l->dcyc, l->count);
    if (l->critical) {
        put(t, H_W_DINST, l->w, 0, l->dinst, l->count);
        put(t, H_W_DCYC, l->w, 0, l->dcyc, l->count);
        put(t, H_W_STALL, l->w, 0, l->stall, l->count);
        put(t, H_W_OBS, l->w, 0, l->dcyc + l->stall, l->count);
        put(t, H_P_STALL, l->p, 0, l->stall, l->count);
    }
}

static int build_waits(const kr_capture *c, table *t, an_waits *out)
{
    /* pairs are sorted by (wait row, producer row) */
    const hent *pv = t->v + t->start[H_PAIR];
    size_t np = t->start[H_PAIR + 1] - t->start[H_PAIR];
    size_t nw = 0;
    for (size_t r = 0, i = 0; r < c->nrows; r++) {
        int linked = 0;
        while (i < np && (pv[i].ab >> 32) < r)
            i++;
        linked = i < np && (pv[i].ab >> 32) == r;
        nw += linked || (!c->rows[r].is_label && c->rows[r].cls == KR_CLASS_WAITCNT && c->rows[r].hit > 0);
    }
    out->waits = calloc(nw ? nw : 1, sizeof *out->waits);
    if (!out->waits)
        return KR_INTERNAL;
    size_t i = 0;
    for (size_t r = 0; r < c->nrows; r++) {
        size_t lo = i;
        while (i < np && (pv[i].ab >> 32) == r)
            i++;
        size_t hi = i;
        if (lo == hi && !(!c->rows[r].is_label && c->rows[r].cls == KR_CLASS_WAITCNT && c->rows[r].hit > 0))
            continue;
        an_wait *wt = &out->waits[out->nwaits++];
        wt->row = (uint32_t)r;
        wt->vaddr = c->rows[r].vaddr;
        wt->executions = c->rows[r].hit;
        wt->stall = c->rows[r].stall;
        if (lo == hi)
            continue;
        wt->producers = calloc(hi - lo, sizeof *wt->producers);
        if (!wt->producers)
            return KR_INTERNAL;
        wt->nproducers = hi - lo;
        for (size_t k = lo; k < hi; k++) {
            an_wait_producer *p = &wt->producers[k - lo];
            p->row = (uint32_t)pv[k].ab;
            p->vaddr = c->rows[p->row].vaddr;
            p->links = pv[k].count;
            p->waited = pv[k].waited;
            p->critical = pv[k].critical;
            p->stall = pv[k].stall;
            wt->links += p->links;
            wt->linked += p->critical;
            wt->attributed += p->stall;
        }
        dist_of(t, H_W_DINST, (uint32_t)r, 0, &wt->dist_insts);
        dist_of(t, H_W_DCYC, (uint32_t)r, 0, &wt->dist_cycles);
        dist_of(t, H_W_STALL, (uint32_t)r, 0, &wt->exposed);
        dist_of(t, H_W_OBS, (uint32_t)r, 0, &wt->observed);
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
        for (size_t s = 0; s < wt->nproducers; s++) {
            an_wait_producer *p = &wt->producers[s];
            dist_of(t, H_WP_DINST, wt->row, p->row, &p->dist_insts);
            dist_of(t, H_WP_DCYC, wt->row, p->row, &p->dist_cycles);
        }
    }
    return 0;
}

static int build_top(const kr_capture *c, table *t, an_waits *out)
{
    const hent *pv = t->v + t->start[H_PAIR];
    size_t np = t->start[H_PAIR + 1] - t->start[H_PAIR];
    /* the pairs of each producer row: indices sorted by (producer, wait) */
    uint32_t *by_prod = malloc((np ? np : 1) * sizeof *by_prod);
    uint32_t *start = calloc(c->nrows + 1, sizeof *start);
    if (!by_prod || !start) {
        free(by_prod);
        free(start);
        return KR_INTERNAL;
    }
    for (size_t k = 0; k < np; k++)
        start[(uint32_t)pv[k].ab + 1]++;
    for (size_t r = 1; r <= c->nrows; r++)
        start[r] += start[r - 1];
    size_t nprod = 0;
    for (size_t r = 0; r < c->nrows; r++)
        nprod += start[r + 1] > start[r];
    for (size_t k = 0; k < np; k++)          /* stable: waits ascending within a producer */
        by_prod[start[(uint32_t)pv[k].ab]++] = (uint32_t)k;
    for (size_t r = c->nrows; r > 0; r--)    /* undo the fill: start[r] = first of row r */
        start[r] = start[r - 1];
    start[0] = 0;
    out->producers = calloc(nprod ? nprod : 1, sizeof *out->producers);
    if (!out->producers) {
        free(by_prod);
        free(start);
        return KR_INTERNAL;
    }
    for (size_t r = 0; r < c->nrows; r++) {
        size_t lo = start[r], hi = start[r + 1];
        if (lo == hi)
            continue;
        an_top_producer *p = &out->producers[out->nproducers++];
        p->row = (uint32_t)r;
        p->vaddr = c->rows[r].vaddr;
        p->nwaits = hi - lo;
        uint64_t best_stall = 0, best_links = 0;
        for (size_t k = lo; k < hi; k++) {
            const hent *e = &pv[by_prod[k]];
            uint32_t wr = (uint32_t)(e->ab >> 32);
            p->links += e->count;
            p->critical += e->critical;
            p->stall += e->stall;
            uint64_t st = e->stall, nl = e->count;
            int better = k == lo || st > best_stall ||
                         (st == best_stall && (nl > best_links ||
                          (nl == best_links && (c->rows[wr].vaddr < c->rows[p->top_wait].vaddr ||
                           (c->rows[wr].vaddr == c->rows[p->top_wait].vaddr && wr < p->top_wait)))));
            if (better) {
                p->top_wait = wr;
                best_stall = st;
                best_links = nl;
            }
        }
    }
    free(by_prod);
    free(start);
    qsort(out->producers, out->nproducers, sizeof *out->producers, rank_top);
    for (size_t k = 0; k < out->nproducers && k < out->n; k++) {   /* the reported ones */
        an_top_producer *p = &out->producers[k];
        dist_of(t, H_P_STALL, p->row, 0, &p->exposed);
        dist_of(t, H_P_DCYC, p->row, 0, &p->dist_cycles);
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
    table t = {0};
    size_t cap = 9 * (a->h.n ? a->h.n : 1);  /* at most 9 entries per distinct link */
    t.v = malloc(cap * sizeof *t.v);
    t.val = malloc(cap * sizeof *t.val);
    t.cnt = malloc(cap * sizeof *t.cnt);
    int rc = t.v && t.val && t.cnt ? 0 : KR_INTERNAL;
    if (!rc) {
        for (size_t i = 0; i < a->h.cap; i++)
            if (a->h.v[i].critical != UINT32_MAX)
                expand(&a->h.v[i], &t);
        rc = sort_entries(&t.v, t.n);
    }
    if (!rc) {
        size_t m = 0;                          /* equal keys summed */
        for (size_t i = 0; i < t.n; i++) {
            if (m && t.v[m - 1].kind == t.v[i].kind && t.v[m - 1].ab == t.v[i].ab && t.v[m - 1].value == t.v[i].value) {
                t.v[m - 1].count += t.v[i].count;
                t.v[m - 1].waited += t.v[i].waited;
                t.v[m - 1].critical += t.v[i].critical;
                t.v[m - 1].stall += t.v[i].stall;
            } else {
                t.v[m++] = t.v[i];
            }
        }
        t.n = m;
        for (size_t i = 0, k = 0; k <= H_PAIR + 1; k++) {
            while (i < t.n && t.v[i].kind < k)
                i++;
            t.start[k] = i;
        }
        for (size_t i = t.start[H_PAIR]; i < t.start[H_PAIR + 1]; i++) {
            out->links += t.v[i].count;
            out->attributed += t.v[i].stall;
        }
        rc = build_waits(c, &t, out);
    }
    if (!rc)
        rc = build_top(c, &t, out);
    free(t.v);
    free(t.val);
    free(t.cnt);
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
