/* waits.c — see waits.h. Linear in records and links: records are bucketed
 * by LineNumber, links by wait row and by producer row (counting sorts), so
 * nothing but the final rankings is sorted. */
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

/* ---- aggregation ---- */

/* One link with what the aggregation needs. */
typedef struct jl {
    uint32_t wait_row, prod_row;
    uint64_t exec;                   /* wave index << 32 | wait record: one wait execution */
    uint64_t dinst, dcyc, stall;
    uint8_t critical;
} jl;

typedef struct jvec {
    jl *v;
    size_t n, cap;
} jvec;

/* Expected-latency class of a producer for the critical choice: vector
 * memory (VMEM, FLAT) 2, scalar memory 1, anything else (LDS, messages) 0. */
static int latency_rank(const kr_capture *c, const kr_inst *x)
{
    if (x->row == KR_ROW_NONE || x->row >= c->nrows)
        return 0;
    kr_class k = c->rows[x->row].cls;
    return k == KR_CLASS_VMEM || k == KR_CLASS_FLAT ? 2 : k == KR_CLASS_SMEM ? 1 : 0;
}

/* Links of one wave -> jl records (critical: see waits.h). */
static int collect_wave(const kr_capture *c, size_t wi, const an_link *lk, size_t n, jvec *out)
{
    const kr_wave *w = &c->waves[wi];
    if (out->cap - out->n < n) {
        size_t cap = out->cap ? out->cap : 256;
        while (cap - out->n < n)
            cap *= 2;
        jl *v = realloc(out->v, cap * sizeof *v);
        if (!v)
            return KR_INTERNAL;
        out->v = v;
        out->cap = cap;
    }
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
            jl *x = &out->v[out->n++];
            x->wait_row = wr->row;
            x->prod_row = pr->row;
            x->exec = ((uint64_t)wi << 32) | lk[k].wait_rec;
            x->dinst = lk[k].wait_rec > lk[k].prod_rec ? lk[k].wait_rec - lk[k].prod_rec : 0;
            uint64_t issue = pr->time + pr->stall;
            x->dcyc = wr->time > issue ? wr->time - issue : 0;
            x->stall = wr->stall;
            x->critical = !crit_done && lk[k].prod_rec == crit;
            crit_done |= x->critical;
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

/* Links grouped by a row key (counting sort, stable): group r is
 * order[start[r] .. start[r + 1]). */
static int group_by(const jvec *j, size_t nrows, int by_prod, uint32_t **start_out, uint32_t **order_out)
{
    uint32_t *start = calloc(nrows + 1, sizeof *start);
    uint32_t *order = malloc((j->n ? j->n : 1) * sizeof *order);
    uint32_t *fill = malloc((nrows + 1) * sizeof *fill);
    if (!start || !order || !fill) {
        free(start);
        free(order);
        free(fill);
        return KR_INTERNAL;
    }
    for (size_t k = 0; k < j->n; k++)
        start[(by_prod ? j->v[k].prod_row : j->v[k].wait_row) + 1]++;
    for (size_t r = 1; r <= nrows; r++)
        start[r] += start[r - 1];
    memcpy(fill, start, (nrows + 1) * sizeof *fill);
    for (size_t k = 0; k < j->n; k++)
        order[fill[by_prod ? j->v[k].prod_row : j->v[k].wait_row]++] = (uint32_t)k;
    free(fill);
    *start_out = start;
    *order_out = order;
    return 0;
}

enum { F_DINST, F_DCYC, F_STALL, F_OBSERVED };

/* Order statistics of a field over the links order[lo..hi) (critical ones
 * only when asked). */
static void stats(const jvec *j, const uint32_t *order, size_t lo, size_t hi, int f, int critical_only,
                  uint64_t *tmp, an_dist *out)
{
    size_t k = 0;
    for (size_t i = lo; i < hi; i++) {
        const jl *x = &j->v[order[i]];
        if (critical_only && !x->critical)
            continue;
        tmp[k++] = f == F_DINST ? x->dinst : f == F_DCYC ? x->dcyc : f == F_STALL ? x->stall : x->dcyc + x->stall;
    }
    an_dist_of(tmp, k, out);
}

/* Scratch per code row, reset after each use. */
typedef struct scratch {
    int32_t *slot;                   /* row -> producer slot of the current wait, -1 */
    uint64_t *last_exec;             /* per slot: last wait execution counted, then a fill position */
    uint64_t *acc_stall, *acc_links; /* per wait row, for a producer's top wait */
    uint32_t *touched;
    size_t ntouched;
} scratch;

static int build_waits(const kr_capture *c, const jvec *j, scratch *sc, uint64_t *tmp, an_waits *out)
{
    uint32_t *start, *order;
    if (group_by(j, c->nrows, 0, &start, &order))
        return KR_INTERNAL;
    size_t nw = 0;
    for (size_t r = 0; r < c->nrows; r++)
        nw += start[r + 1] > start[r] ||
              (!c->rows[r].is_label && c->rows[r].cls == KR_CLASS_WAITCNT && c->rows[r].hit > 0);
    out->waits = calloc(nw ? nw : 1, sizeof *out->waits);
    int rc = out->waits ? 0 : KR_INTERNAL;
    for (size_t r = 0; r < c->nrows && !rc; r++) {
        size_t lo = start[r], hi = start[r + 1];
        if (lo == hi && !(!c->rows[r].is_label && c->rows[r].cls == KR_CLASS_WAITCNT && c->rows[r].hit > 0))
            continue;
        an_wait *wt = &out->waits[out->nwaits++];
        wt->row = (uint32_t)r;
        wt->vaddr = c->rows[r].vaddr;
        wt->executions = c->rows[r].hit;
        wt->stall = c->rows[r].stall;
        if (lo == hi)
            continue;
        wt->links = hi - lo;
        /* producers of this wait: slots in first-seen order */
        size_t np = 0;
        for (size_t i = lo; i < hi; i++) {
            const jl *x = &j->v[order[i]];
            if (x->critical) {
                wt->linked++;
                wt->attributed += x->stall;
            }
            if (sc->slot[x->prod_row] < 0) {
                sc->slot[x->prod_row] = (int32_t)np;
                sc->touched[np++] = x->prod_row;
            }
        }
        wt->producers = calloc(np, sizeof *wt->producers);
        if (!wt->producers) {
            rc = KR_INTERNAL;
            break;
        }
        wt->nproducers = np;
        for (size_t s = 0; s < np; s++) {
            wt->producers[s].row = sc->touched[s];
            wt->producers[s].vaddr = c->rows[sc->touched[s]].vaddr;
            sc->last_exec[s] = UINT64_MAX;
        }
        for (size_t i = lo; i < hi; i++) {
            const jl *x = &j->v[order[i]];
            int32_t s = sc->slot[x->prod_row];
            an_wait_producer *p = &wt->producers[s];
            p->links++;
            if (sc->last_exec[s] != x->exec) {   /* links of one execution are adjacent */
                p->waited++;
                sc->last_exec[s] = x->exec;
            }
            if (x->critical) {
                p->critical++;
                p->stall += x->stall;
            }
        }
        stats(j, order, lo, hi, F_DINST, 1, tmp, &wt->dist_insts);
        stats(j, order, lo, hi, F_DCYC, 1, tmp, &wt->dist_cycles);
        stats(j, order, lo, hi, F_STALL, 1, tmp, &wt->exposed);
        stats(j, order, lo, hi, F_OBSERVED, 1, tmp, &wt->observed);
        wt->earlier_cycles = wt->exposed.p50;
        if (wt->dist_cycles.n && wt->dist_cycles.p50 > 0) {
            wt->has_extra = 1;
            uint64_t num = wt->earlier_cycles * wt->dist_insts.p50;
            wt->extra_insts = (num + wt->dist_cycles.p50 - 1) / wt->dist_cycles.p50;
        }
        for (size_t s = 0; s < np; s++)
            sc->slot[sc->touched[s]] = -1;
        qsort(wt->producers, wt->nproducers, sizeof *wt->producers, rank_wait_producers);
    }
    if (!rc)
        qsort(out->waits, out->nwaits, sizeof *out->waits, rank_waits);
    /* per-producer distances, for the waits that are reported */
    for (size_t k = 0; k < out->nwaits && k < out->n && !rc; k++) {
        an_wait *wt = &out->waits[k];
        size_t lo = start[wt->row], hi = start[wt->row + 1], np = wt->nproducers;
        if (lo == hi)
            continue;
        /* slot s fills tmp[off[s] ..): the fill position lives in last_exec */
        size_t off = 0;
        for (size_t s = 0; s < np; s++) {
            sc->slot[wt->producers[s].row] = (int32_t)s;
            sc->last_exec[s] = off;
            off += wt->producers[s].links;
        }
        uint64_t *di = tmp, *dc = tmp + wt->links;
        for (size_t i = lo; i < hi; i++) {
            const jl *x = &j->v[order[i]];
            size_t at = sc->last_exec[sc->slot[x->prod_row]]++;
            di[at] = x->dinst;
            dc[at] = x->dcyc;
        }
        off = 0;
        for (size_t s = 0; s < np; s++) {
            an_wait_producer *p = &wt->producers[s];
            an_dist_of(di + off, p->links, &p->dist_insts);
            an_dist_of(dc + off, p->links, &p->dist_cycles);
            off += p->links;
            sc->slot[p->row] = -1;
        }
    }
    free(start);
    free(order);
    return rc;
}

static int build_top(const kr_capture *c, const jvec *j, scratch *sc, uint64_t *tmp, an_waits *out)
{
    uint32_t *start, *order;
    if (group_by(j, c->nrows, 1, &start, &order))
        return KR_INTERNAL;
    size_t np = 0;
    for (size_t r = 0; r < c->nrows; r++)
        np += start[r + 1] > start[r];
    out->producers = calloc(np ? np : 1, sizeof *out->producers);
    if (!out->producers) {
        free(start);
        free(order);
        return KR_INTERNAL;
    }
    for (size_t r = 0; r < c->nrows; r++) {
        size_t lo = start[r], hi = start[r + 1];
        if (lo == hi)
            continue;
        an_top_producer *p = &out->producers[out->nproducers++];
        p->row = (uint32_t)r;
        p->vaddr = c->rows[r].vaddr;
        p->links = hi - lo;
        sc->ntouched = 0;
        for (size_t i = lo; i < hi; i++) {
            const jl *x = &j->v[order[i]];
            uint32_t wr = x->wait_row;
            if (sc->acc_links[wr] == 0)
                sc->touched[sc->ntouched++] = wr;
            sc->acc_links[wr]++;
            if (x->critical) {
                p->critical++;
                p->stall += x->stall;
                sc->acc_stall[wr] += x->stall;
            }
        }
        p->nwaits = sc->ntouched;
        uint64_t best_stall = 0, best_links = 0;
        for (size_t t = 0; t < sc->ntouched; t++) {
            uint32_t wr = sc->touched[t];
            uint64_t st = sc->acc_stall[wr], nl = sc->acc_links[wr];
            int better = t == 0 || st > best_stall ||
                         (st == best_stall && (nl > best_links ||
                          (nl == best_links && (c->rows[wr].vaddr < c->rows[p->top_wait].vaddr ||
                           (c->rows[wr].vaddr == c->rows[p->top_wait].vaddr && wr < p->top_wait)))));
            if (better) {
                p->top_wait = wr;
                best_stall = st;
                best_links = nl;
            }
            sc->acc_stall[wr] = sc->acc_links[wr] = 0;
        }
    }
    qsort(out->producers, out->nproducers, sizeof *out->producers, rank_top);
    for (size_t k = 0; k < out->nproducers && k < out->n; k++) {   /* the reported ones */
        an_top_producer *p = &out->producers[k];
        size_t lo = start[p->row], hi = start[p->row + 1];
        stats(j, order, lo, hi, F_STALL, 1, tmp, &p->exposed);
        stats(j, order, lo, hi, F_DCYC, 0, tmp, &p->dist_cycles);
    }
    free(start);
    free(order);
    return 0;
}

int an_waits_compute(const kr_capture *c, const an_waits_opts *opts, an_waits *out)
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
    jvec j = {0};
    int rc = 0;
    for (size_t wi = 0; wi < c->nwaves && !rc; wi++) {
        const kr_wave *w = &c->waves[wi];
        an_link *lk;
        size_t nlk;
        an_links_source src;
        rc = an_waits_wave_links(c, w, &lk, &nlk, &src, &out->links_unplaced, &out->entries);
        if (rc)
            break;
        if (src == AN_LINKS_STORED)
            out->waves_stored++;
        else if (src == AN_LINKS_COMPUTED)
            out->waves_computed++;
        else
            out->waves_none++;
        rc = collect_wave(c, wi, lk, nlk, &j);
        free(lk);
    }
    out->source = out->waves_stored && out->waves_computed ? AN_LINKS_MIXED
                : out->waves_stored ? AN_LINKS_STORED
                : out->waves_computed ? AN_LINKS_COMPUTED : AN_LINKS_NONE;
    out->links = j.n;
    for (size_t k = 0; k < j.n; k++)
        if (j.v[k].critical)
            out->attributed += j.v[k].stall;
    size_t nr = c->nrows ? c->nrows : 1;
    uint64_t *tmp = NULL;
    scratch sc = {0};
    if (!rc) {
        tmp = malloc(2 * (j.n ? j.n : 1) * sizeof *tmp);
        sc.slot = malloc(nr * sizeof *sc.slot);
        sc.last_exec = malloc(nr * sizeof *sc.last_exec);
        sc.acc_stall = calloc(nr, sizeof *sc.acc_stall);
        sc.acc_links = calloc(nr, sizeof *sc.acc_links);
        sc.touched = malloc(nr * sizeof *sc.touched);
        if (!tmp || !sc.slot || !sc.last_exec || !sc.acc_stall || !sc.acc_links || !sc.touched)
            rc = KR_INTERNAL;
        else
            for (size_t r = 0; r < nr; r++)
                sc.slot[r] = -1;
    }
    if (!rc)
        rc = build_waits(c, &j, &sc, tmp, out);
    if (!rc)
        rc = build_top(c, &j, &sc, tmp, out);
    free(sc.slot);
    free(sc.last_exec);
    free(sc.acc_stall);
    free(sc.acc_links);
    free(sc.touched);
    free(tmp);
    free(j.v);
    if (rc) {
        an_waits_free(out);
        return rc;
    }
    return 0;
}

void an_waits_free(an_waits *r)
{
    for (size_t i = 0; i < r->nwaits; i++)
        free(r->waits[i].producers);
    free(r->waits);
    free(r->producers);
    memset(r, 0, sizeof *r);
}
