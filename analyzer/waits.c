/* waits.c — see waits.h. Linear in records and links: one scan of a
 * wave's records queues the executions of the watched lines per line and
 * places each entry as its wait executes; each execution's links are
 * counted at once into a hash table of distinct links (memory follows the
 * distinct values, not the links), which is bucketed by row once at the
 * end (counting sorts) for the sums and order statistics (weighted
 * selection, analyzer/dist.h). The per-line tables live in the
 * accumulator and are reused from wave to wave. */
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

/* ---- aggregation ----
 *
 * Links are not kept: each distinct link (wait row, producer row,
 * distances, stall, critical) is counted once in a hash table, so memory
 * follows the distinct links, not the links, and the figures do not depend
 * on the order the waves come in. At the end the table gives the per-row
 * sums and the samples the order statistics need (see "finishing"). */

/* A distinct link, 32 bytes: its key in three words (so a lookup compares
 * three words and the hash mixes three) and its counts. The critical flag
 * is dcyc's top bit: cycles are at most 2^63 − 1 (bundle/load_wave.c), so
 * a distance between two of them is too. A count that would pass
 * WAITS_COUNT_MAX starts a second entry of the same key (see find_or_add). */
typedef struct lent {
    uint64_t wp;                     /* wait row << 32 | producer row */
    uint64_t ds;                     /* dinst << 32 | stall of the wait */
    uint64_t dc;                     /* dcyc | critical << 63 */
    uint32_t count;                  /* links */
    uint32_t waited;                 /* of them, the first of their row in their wait execution */
} lent;

#define CRIT_BIT (1ull << 63)

/* The largest count of an entry (a test build lowers it, so that the path
 * a full count takes runs on small inputs). */
#ifndef WAITS_COUNT_MAX
#define WAITS_COUNT_MAX UINT32_MAX
#endif

static inline uint32_t l_w(const lent *l) { return (uint32_t)(l->wp >> 32); }
static inline uint32_t l_p(const lent *l) { return (uint32_t)l->wp; }
static inline uint64_t l_dinst(const lent *l) { return l->ds >> 32; }
static inline uint64_t l_stall(const lent *l) { return (uint32_t)l->ds; }
static inline uint64_t l_dcyc(const lent *l) { return l->dc & ~CRIT_BIT; }
static inline int l_crit(const lent *l) { return (int)(l->dc >> 63); }

/* The distinct links in order of arrival (v[0 .. n), dense, so the pages
 * touched follow the links, and a merge or the finish reads no empty
 * slot) and an open-addressing index over them: slot = hash << 32 |
 * (index + 1), 0 empty (8 bytes a slot; a miss on the hash does not read
 * the entry). After a merge a key may be in the tables of several
 * accumulators (see an_waits_acc_merge). */
typedef struct lmap {
    lent *v;
    size_t n, vcap;
    uint64_t *slot;
    size_t cap;                      /* a power of two, or 0 before the first link */
    uint32_t *seen;                  /* scratch: per row, the last execution that linked it */
    size_t nseen;
    uint32_t epoch;                  /* that execution's number (0: none) */
} lmap;

/* The key's words multiplied by odd constants, folded (one multiply per
 * word, then a final mix of the high bits into the low ones). */
static inline uint32_t hash_of(uint64_t wp, uint64_t ds, uint64_t dc)
{
    uint64_t h = wp * 0x9e3779b97f4a7c15ull;
    h ^= ds * 0xc2b2ae3d27d4eb4full;
    h ^= dc * 0x165667b19e3779f9ull;
    h ^= h >> 32;
    h *= 0xc4ceb9fe1a85ec53ull;
    return (uint32_t)(h >> 32);
}

/* Room for `more` new links: the index at most 3/4 full (a new index of
 * at least 4096 slots, 32 KB, or twice the old, rebuilt from the entries)
 * and the entries' array grown by half when full (from 4096 entries: its
 * pages are touched only as links come, so a generous start costs nothing
 * and saves copies, also when a merge appends another array). */
static int grow_for(lmap *m, size_t more)
{
    size_t need = m->n + more;
    if (4 * need > 3 * m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 4096;
        while (4 * need > 3 * cap)
            cap *= 2;
        uint64_t *slot = calloc(cap, sizeof *slot);
        if (!slot)
            return KR_INTERNAL;
        size_t mask = cap - 1;
        for (size_t k = 0; k < m->n; k++) {    /* every entry: the first empty slot (no lookup) */
            const lent *e = &m->v[k];
            uint64_t h = hash_of(e->wp, e->ds, e->dc);
            size_t j = (size_t)h & mask;
            while (slot[j] != 0)
                j = (j + 1) & mask;
            slot[j] = h << 32 | (uint64_t)(k + 1);
        }
        free(m->slot);
        m->slot = slot;
        m->cap = cap;
    }
    if (need > m->vcap) {
        size_t vcap = m->vcap ? m->vcap + m->vcap / 2 : 4096;
        if (vcap < need)
            vcap = need;
        lent *v = realloc(m->v, vcap * sizeof *v);
        if (!v)
            return KR_INTERNAL;
        m->v = v;
        m->vcap = vcap;
    }
    return 0;
}

static inline int reserve(lmap *m, size_t more)
{
    size_t need = m->n + more;
    return 4 * need > 3 * m->cap || need > m->vcap ? grow_for(m, more) : 0;
}

static void lmap_free(lmap *m)
{
    free(m->v);
    free(m->slot);
    free(m->seen);
    memset(m, 0, sizeof *m);
}

/* The entry of key (wp, ds, dc), added with zero counts when new (room
 * reserved: see reserve). A found entry whose count is full is left as it
 * is: a new one of the same key takes its slot (the finish adds up the
 * entries of a key, see an_waits_acc_merge). */
static inline lent *find_or_add(lmap *m, uint64_t wp, uint64_t ds, uint64_t dc)
{
    const uint32_t h = hash_of(wp, ds, dc);
    const size_t mask = m->cap - 1;
    size_t at = (size_t)h & mask;
    for (;; at = (at + 1) & mask) {
        uint64_t s = m->slot[at];
        if (s == 0)
            break;
        if ((uint32_t)(s >> 32) == h) {
            lent *e = &m->v[(uint32_t)s - 1];
            if (e->wp == wp && e->ds == ds && e->dc == dc) {
                if (e->count != WAITS_COUNT_MAX)
                    return e;
                break;                   /* full: a new entry in this slot */
            }
        }
    }
    lent *e = &m->v[m->n];
    e->wp = wp;
    e->ds = ds;
    e->dc = dc;
    e->count = e->waited = 0;
    m->slot[at] = (uint64_t)h << 32 | (uint64_t)(++m->n);
    return e;
}

/* Counts the links lk[0 .. g) of one wait execution (g >= 1, one
 * wait_rec; critical: see waits.h) into m (room reserved). rank: per row.
 * seen (nrows) with epoch, a number no earlier execution used, tells a
 * producer row's first link in the execution. */
static void count_exec(lmap *m, const kr_inst *insts, uint32_t nrows, const uint8_t *rank, const an_link *lk,
                      size_t g, uint32_t *seen, uint32_t epoch)
{
    const uint32_t wrec = lk[0].wait_rec;
    const kr_inst *wr = &insts[wrec];
    if (wr->row >= nrows)                /* no link of this execution is counted */
        return;
    /* the critical producer: highest rank, then the last issued */
    uint32_t crit = lk[0].prod_rec;
    if (g > 1) {
        uint32_t cr = insts[crit].row;
        int crit_rank = cr < nrows ? rank[cr] : 0;
        for (size_t k = 1; k < g; k++) {
            uint32_t pr = insts[lk[k].prod_rec].row;
            int rk = pr < nrows ? rank[pr] : 0;
            if (rk > crit_rank || (rk == crit_rank && lk[k].prod_rec > crit)) {
                crit = lk[k].prod_rec;
                crit_rank = rk;
            }
        }
    }
    const uint64_t w = (uint64_t)wr->row << 32;
    const uint64_t wtime = wr->time, wstall = wr->stall;
    uint64_t crit_bit = CRIT_BIT;        /* until the critical link is counted */
    for (size_t k = 0; k < g; k++) {
        const uint32_t prec = lk[k].prod_rec;
        const kr_inst *pr = &insts[prec];
        const uint32_t prow = pr->row;
        if (prow >= nrows)
            continue;
        uint32_t first = seen[prow] != epoch;   /* no earlier counted link of this execution has the row */
        seen[prow] = epoch;
        uint64_t issue = pr->time + pr->stall;
        uint64_t dinst = wrec > prec ? wrec - prec : 0, dcyc = wtime > issue ? wtime - issue : 0;
        uint64_t cb = prec == crit ? crit_bit : 0;
        crit_bit ^= cb;
        lent *e = find_or_add(m, w | prow, dinst << 32 | wstall, dcyc | cb);
        e->count++;
        e->waited += first;
    }
}

/* The links an execution's room is made for at a time (count_links). */
#define COUNT_ROOM 4096

/* Counts the links lk[0 .. n) of whole wait executions of one wave (those
 * of one execution together, as place and an_waits_wave_links give them)
 * into m, one execution at a time. Room (reserve) is made for the wave's
 * links left, COUNT_ROOM at most (an execution's links at least): each
 * link adds at most one entry, and the table is never sized for much more
 * than its distinct links. */
static int count_links(lmap *m, const kr_inst *insts, uint32_t nrows, const uint8_t *rank, const an_link *lk,
                       size_t n)
{
    if (n == 0)
        return 0;
    if (m->nseen < nrows) {
        uint32_t *sn = realloc(m->seen, nrows * sizeof *sn);
        if (!sn)
            return KR_INTERNAL;
        memset(sn + m->nseen, 0, (nrows - m->nseen) * sizeof *sn);
        m->seen = sn;
        m->nseen = nrows;
    }
    uint32_t epoch = m->epoch, *seen = m->seen;
    size_t room = 0;                     /* new entries the table has room for */
    for (size_t i = 0; i < n;) {
        size_t x = i + 1;                /* the execution lk[i .. x) */
        while (x < n && lk[x].wait_rec == lk[i].wait_rec)
            x++;
        if (room < x - i) {              /* the wave's links left, at most COUNT_ROOM, at least this execution's */
            room = n - i < COUNT_ROOM ? n - i : COUNT_ROOM;
            room = room > x - i ? room : x - i;
            if (reserve(m, room))
                return KR_INTERNAL;
        }
        room -= x - i;
        if (++epoch == 0) {              /* numbers used up: start over */
            memset(seen, 0, m->nseen * sizeof *seen);
            epoch = 1;
        }
        count_exec(m, insts, nrows, rank, lk + i, x - i, seen, epoch);
        i = x;
    }
    m->epoch = epoch;
    return 0;
}

/* ---- links of one wave ---- */

typedef struct lvec {
    an_link *v;
    size_t n, cap;
} lvec;

/* A wait text naming two or more counters can release through each of them
 * on one execution (two entries with the same wait line, docs/formats.md#waitcnt-arrays). */
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
 * linked list through the record indices). The tables are kept between
 * waves (an accumulator owns one): a wave resets only the queues of the
 * static watch set or the lines its entries named, so it costs its
 * records and entries, not the code table. */
typedef struct fifos {
    uint32_t nlines;                 /* c->nline_map (at least 1) the tables are sized for */
    size_t nrows;                    /* c->nrows likewise */
    uint8_t *need;                   /* per line + 1: 1 producer line, 2 wait line; need[nlines] = 0 */
    uint8_t *rneed;                  /* per row + 1, index row + 1 (KR_ROW_NONE wraps to 0) */
    uint32_t *row1;                  /* per line: its instruction row + 1, 0 when none (see place) */
    const int32_t *row1_of;          /* the line map row1 was built from */
    uint32_t *head, *tail;           /* per line, UINT32_MAX when empty */
    uint32_t *next;                  /* per record */
    size_t cap_next;
    uint32_t *touched;               /* the distinct lines a wave set in need (nlines room), to reset */
    size_t ntouched;
    /* The static watch set of the code table (see place): wait lines are
     * the WAITCNT rows' lines, producer lines those of the memory and
     * message rows. */
    const kr_code_row *rows_of;      /* the code table it was built from */
    uint8_t *sneed, *srneed;         /* like need and rneed */
    uint32_t *sprod;                 /* its producer lines */
    size_t nsprod;
} fifos;

static void fifos_free(fifos *f)
{
    free(f->need);
    free(f->rneed);
    free(f->row1);
    free(f->head);
    free(f->tail);
    free(f->next);
    free(f->touched);
    free(f->sneed);
    free(f->srneed);
    free(f->sprod);
    memset(f, 0, sizeof *f);
}

/* Classes whose rows go into the static watch set as producers. */
static int static_producer(kr_class k)
{
    return k == KR_CLASS_VMEM || k == KR_CLASS_FLAT || k == KR_CLASS_SMEM || k == KR_CLASS_LDS ||
           k == KR_CLASS_MESSAGE;
}

/* Sizes the tables for c (built once per code table) and a wave of ninsts
 * records (need and rneed all 0 on return). */
static int fifos_fit(fifos *f, const kr_capture *c, size_t ninsts)
{
    uint32_t nlines = c->nline_map ? (uint32_t)c->nline_map : 1;
    if (!f->need || f->nlines != nlines || f->nrows != c->nrows || f->row1_of != c->line_to_row ||
        f->rows_of != c->rows) {
        fifos_free(f);
        f->nlines = nlines;
        f->nrows = c->nrows;
        f->need = calloc((size_t)nlines + 1, 1);
        f->rneed = calloc(c->nrows + 1, 1);
        f->sneed = calloc((size_t)nlines + 1, 1);
        f->srneed = calloc(c->nrows + 1, 1);
        f->row1 = malloc(nlines * sizeof *f->row1);
        f->head = malloc(nlines * sizeof *f->head);
        f->tail = malloc(nlines * sizeof *f->tail);
        f->touched = malloc(nlines * sizeof *f->touched);
        f->sprod = malloc(nlines * sizeof *f->sprod);
        if (!f->need || !f->rneed || !f->sneed || !f->srneed || !f->row1 || !f->head || !f->tail || !f->touched ||
            !f->sprod) {
            fifos_free(f);
            return KR_INTERNAL;
        }
        f->row1_of = c->line_to_row;
        f->rows_of = c->rows;
        for (uint32_t l = 0; l < nlines; l++) {
            const kr_code_row *r = kr_capture_row(c, l);
            f->row1[l] = r && !r->is_label ? (uint32_t)(r - c->rows) + 1 : 0;
            if (!f->row1[l])
                continue;
            uint8_t s = r->cls == KR_CLASS_WAITCNT ? 2 : static_producer(r->cls) ? 1 : 0;
            if (s) {
                f->sneed[l] = s;
                f->srneed[f->row1[l]] = 1;
                if (s == 1)
                    f->sprod[f->nsprod++] = l;
            }
        }
    }
    if (ninsts > f->cap_next || !f->next) {
        size_t cap = ninsts > 64 ? ninsts : 64;
        free(f->next);
        f->next = malloc(cap * sizeof *f->next);
        f->cap_next = f->next ? cap : 0;
        if (!f->next)
            return KR_INTERNAL;
    }
    return 0;
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

/* Releases the entry's producers prod[0 .. n) at record rec: each the
 * oldest queued execution of its line, as links from o on (room for n);
 * returns the end of the links. */
static inline an_link *release(uint32_t *head, uint32_t *tail, const uint32_t *next, uint32_t nlines,
                               const uint32_t *prod, uint32_t n, uint32_t rec, an_link *o, uint64_t *lost)
{
    for (uint32_t j = 0; j < n; j++) {
        uint32_t pl = prod[j];
        uint32_t q = pl != 0 && pl < nlines ? head[pl] : UINT32_MAX;
        if (q == UINT32_MAX) {
            (*lost)++;
            continue;
        }
        uint32_t nq = next[q];
        head[pl] = nq;
        if (nq == UINT32_MAX)
            tail[pl] = UINT32_MAX;
        o->wait_rec = rec;
        o->prod_rec = q;
        o++;
    }
    return o;
}

/* line, or nlines when out of range (an index into fifos.need). */
static inline uint32_t line_in(uint32_t line, uint32_t nlines)
{
    return line < nlines ? line : nlines;
}

/* The first record at or after rec that may be an execution of a needed
 * line, or last. skip_rows: by kr_inst.row with rneedm = rneed + 1 indexed
 * by the row as int32_t (KR_ROW_NONE reads rneed[0]; rows are < nrows or
 * KR_ROW_NONE, model.h); skip_lines: by line. Most records are not memory
 * instructions and are skipped several at a time. */
static const kr_inst *skip_rows(const kr_inst *rec, const kr_inst *last, const uint8_t *rneedm)
{
    for (; last - rec >= 8; rec += 8) {
        if (rneedm[(int32_t)rec[0].row]) return rec;
        if (rneedm[(int32_t)rec[1].row]) return rec + 1;
        if (rneedm[(int32_t)rec[2].row]) return rec + 2;
        if (rneedm[(int32_t)rec[3].row]) return rec + 3;
        if (rneedm[(int32_t)rec[4].row]) return rec + 4;
        if (rneedm[(int32_t)rec[5].row]) return rec + 5;
        if (rneedm[(int32_t)rec[6].row]) return rec + 6;
        if (rneedm[(int32_t)rec[7].row]) return rec + 7;
    }
    while (rec < last && !rneedm[(int32_t)rec->row])
        rec++;
    return rec;
}

static const kr_inst *skip_lines(const kr_inst *rec, const kr_inst *last, const uint8_t *need, uint32_t nlines)
{
    while (last - rec >= 4 && !(need[line_in(rec[0].line, nlines)] | need[line_in(rec[1].line, nlines)] |
                                need[line_in(rec[2].line, nlines)] | need[line_in(rec[3].line, nlines)]))
        rec += 4;
    while (rec < last && !need[line_in(rec->line, nlines)])
        rec++;
    return rec;
}

/* The placement of an_waits_place with the tables of f: the links in out
 * (out->n reset first), and with m also counted into m (count_links, rank
 * per row). */
static int place(fifos *f, const kr_capture *c, const kr_wave *w, const kr_wait_entry *waits, size_t nwaits,
                 const uint32_t *producers, lvec *out, uint64_t *unplaced, lmap *m, const uint8_t *rank)
{
    out->n = 0;
    int rc = fifos_fit(f, c, w->ninsts);
    if (rc)
        return rc;
    const uint32_t nlines = f->nlines;
    const uint32_t *row1 = f->row1;
    uint32_t *head = f->head, *tail = f->tail, *next = f->next;
    /* Lines to watch: need[line] has bit 1 for a producer line, bit 2 for a
     * wait line. Watching more lines than the entries name changes nothing:
     * a record is an entry's wait execution only when its line is that
     * entry's wait line, and queued executions of a line no entry names
     * are never released. So when every line the entries name (in range)
     * is in the static watch set of the code table, that set is used as it
     * is (no set-up per wave but emptying its queues); otherwise the lines
     * the entries name are set up for this wave and reset after it. */
    const uint8_t *sneed = f->sneed;
    size_t nprod = 0;                    /* Σ producers: the most links the wave can give */
    int in_static = 1;
    for (size_t e = 0; e < nwaits; e++) {
        uint32_t wl = waits[e].wait_line;
        in_static &= wl >= nlines || (sneed[wl] & 2) != 0;
        const uint32_t *prod = producers + waits[e].first;
        for (uint32_t j = 0; j < waits[e].n; j++)
            in_static &= prod[j] >= nlines || (sneed[prod[j]] & 1) != 0;
        nprod += waits[e].n;
    }
    uint8_t *need, *rneed;
    uint32_t no_row = 0;                 /* some watched line has no instruction row */
    f->ntouched = 0;
    if (in_static) {
        need = f->sneed;                 /* every line of it has an instruction row */
        rneed = f->srneed;
        for (size_t k = 0; k < f->nsprod; k++)
            head[f->sprod[k]] = tail[f->sprod[k]] = UINT32_MAX;
    } else {
        need = f->need;
        rneed = f->rneed;
        for (size_t e = 0; e < nwaits; e++) {
            uint32_t wl = waits[e].wait_line;
            if (wl < nlines) {
                if (!need[wl]) {
                    f->touched[f->ntouched++] = wl;
                    rneed[row1[wl]] = 1;
                    no_row |= row1[wl] == 0;
                }
                need[wl] |= 2;
            }
            const uint32_t *prod = producers + waits[e].first;
            for (uint32_t j = 0; j < waits[e].n; j++) {
                uint32_t pl = prod[j];
                if (pl < nlines && !(need[pl] & 1)) {
                    if (!need[pl]) {
                        f->touched[f->ntouched++] = pl;
                        rneed[row1[pl]] = 1;
                        no_row |= row1[pl] == 0;
                    }
                    need[pl] |= 1;
                    head[pl] = tail[pl] = UINT32_MAX;
                }
            }
        }
    }
    if (out->cap < nprod || !out->v) {
        size_t cap = nprod ? nprod : 1;
        an_link *v = realloc(out->v, cap * sizeof *v);
        if (v) {
            out->v = v;
            out->cap = cap;
        } else {
            rc = KR_INTERNAL;
            nwaits = 0;                  /* reset what was set, then fail */
        }
    }
    /* A record's row is its line's row (docs/formats.md#instruction-records: kr_inst.row is the row of
     * the LineNumber, KR_ROW_NONE for line 0, unknown lines and labels), so
     * when every watched line has an instruction row, only records of the
     * watched rows can be executions of watched lines and the scan filters
     * by row (one load per record, no range check); a record so found still
     * passes the exact line test below. Otherwise (a watched line without
     * a row) it filters by line. */
    const int by_row = !no_row;
    uint64_t lost = 0;
    size_t e = 0;
    const uint32_t nrows = (uint32_t)c->nrows;
    const uint8_t *rneedm = rneed + 1;
    an_link *o = out->v;
    const kr_inst *insts = w->insts, *rec = insts, *last = w->ninsts ? insts + w->ninsts : insts;
    while (e < nwaits) {
        rec = by_row ? skip_rows(rec, last, rneedm) : skip_lines(rec, last, need, nlines);
        if (rec == last)
            break;
        const uint32_t line = rec->line, i = (uint32_t)(rec - insts);
        rec++;
        const uint8_t nd = need[line_in(line, nlines)];
        if (!nd)                         /* another line of a watched row */
            continue;
        if (line == waits[e].wait_line) {
            /* the next execution of the wait line is the entry's */
            o = release(head, tail, next, nlines, producers + waits[e].first, waits[e].n, i, o, &lost);
            e++;
            /* a combined wait: the second counter's entry on the same execution */
            if (e < nwaits && waits[e].wait_line == line) {
                const kr_code_row *wr = kr_capture_row(c, line);
                if (names_several_counters(wr ? wr->isa : NULL) && placeable(f, producers + waits[e].first, waits[e].n)) {
                    o = release(head, tail, next, nlines, producers + waits[e].first, waits[e].n, i, o, &lost);
                    e++;
                }
            }
            continue;
        }
        if (nd & 1) {                    /* queue the execution */
            next[i] = UINT32_MAX;
            if (tail[line] == UINT32_MAX)
                head[line] = i;
            else
                next[tail[line]] = i;
            tail[line] = i;
        }
    }
    out->n = (size_t)(o - out->v);
    if (m && !rc)                        /* out holds every link of the wave (nprod) */
        rc = count_links(m, insts, nrows, rank, out->v, out->n);
    for (size_t k = e; k < nwaits; k++)   /* no execution of the wait left */
        lost += waits[k].n;
    /* reset what this wave set (nothing with the static set) */
    for (size_t k = 0; k < f->ntouched; k++) {
        uint32_t l = f->touched[k];
        f->need[l] = 0;
        f->rneed[row1[l]] = 0;
    }
    f->ntouched = 0;
    if (!rc && unplaced)
        *unplaced += lost;
    return rc;
}

int an_waits_place(const kr_capture *c, const kr_wave *w, const kr_wait_entry *waits, size_t nwaits,
                   const uint32_t *producers, an_link **links, size_t *nlinks, uint64_t *unplaced)
{
    *links = NULL;
    *nlinks = 0;
    fifos f;
    memset(&f, 0, sizeof f);
    lvec out = {0};
    int rc = place(&f, c, w, waits, nwaits, producers, &out, unplaced, NULL, NULL);
    fifos_free(&f);
    if (rc) {
        free(out.v);
        return rc;
    }
    *links = out.v;
    *nlinks = out.n;
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

struct an_waits_acc {
    lmap h;
    lmap *more;                      /* the tables of merged accumulators (an_waits_acc_merge) */
    size_t nmore;
    size_t waves_stored, waves_computed, waves_none;
    uint64_t entries, links_unplaced;
    /* scratch kept between waves (contents do not carry over) */
    fifos f;
    lvec links;
    const kr_code_row *rank_rows;    /* the code table rank was built for */
    size_t rank_nrows;
    uint8_t *rank;                   /* per row: latency_rank of its class */
};

/* Expected-latency class of a producer for the critical choice: vector
 * memory (VMEM, FLAT) 2, scalar memory 1, anything else (LDS, messages) 0. */
static uint8_t class_rank(kr_class k)
{
    return k == KR_CLASS_VMEM || k == KR_CLASS_FLAT ? 2 : k == KR_CLASS_SMEM ? 1 : 0;
}

/* a->rank for c's rows (built once per code table). */
static int fit_rank(an_waits_acc *a, const kr_capture *c)
{
    if (a->rank && a->rank_rows == c->rows && a->rank_nrows == c->nrows)
        return 0;
    free(a->rank);
    a->rank = malloc(c->nrows ? c->nrows : 1);
    if (!a->rank)
        return KR_INTERNAL;
    for (size_t r = 0; r < c->nrows; r++)
        a->rank[r] = class_rank(c->rows[r].cls);
    a->rank_rows = c->rows;
    a->rank_nrows = c->nrows;
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
 * The entries (links by key, see lmap) are bucketed by producer row, then
 * (stably) by wait row, with two counting sorts: a wait row's links form
 * one run of the wait order, and within it each producer's links one run,
 * producers ascending; a producer row's links form one run of the producer
 * order.
 * Sums come from one pass over the runs; order statistics are weighted
 * selections over (value, count) pairs gathered from a run
 * (an_dist_of_weighted gives what an_dist_of gives on the same multiset). */

typedef struct fin {
    const lent **byp, **byw;         /* entries by producer row; by (wait row, producer row) */
    uint32_t *pstart, *wstart;       /* per row r: run [start[r], start[r + 1]) */
    uint64_t *val[4], *cnt[4];       /* scratch for up to four samples of one run */
} fin;

/* Two samples over the links idx[lo .. hi) in one pass: `a_what` over the
 * critical ones only when a_crit (else all), `b_what` over all; values:
 * 0 dinst, 1 dcyc, 2 stall. Sizes and extremes are gathered on the way
 * (an_dist_of_weighted_range). */
static void sample2(fin *f, const lent *const *idx, size_t lo, size_t hi, int a_what, int a_crit, an_dist *a_out,
                    int b_what, an_dist *b_out)
{
    uint64_t *va = f->val[0], *ca = f->cnt[0], *vb = f->val[1], *cb = f->cnt[1];
    uint64_t ta = 0, tb = 0, mna = UINT64_MAX, mxa = 0, mnb = UINT64_MAX, mxb = 0;
    size_t ka = 0, kb = 0;
    for (size_t i = lo; i < hi; i++) {
        const lent *l = idx[i];
        const uint64_t vals[3] = {l_dinst(l), l_dcyc(l), l_stall(l)}, n = l->count;
        uint64_t y = vals[b_what];
        vb[kb] = y;
        cb[kb++] = n;
        tb += n;
        mnb = y < mnb ? y : mnb;
        mxb = y > mxb ? y : mxb;
        if (a_crit && !l_crit(l))
            continue;
        uint64_t x = vals[a_what];
        va[ka] = x;
        ca[ka++] = n;
        ta += n;
        mna = x < mna ? x : mna;
        mxa = x > mxa ? x : mxa;
    }
    an_dist_of_weighted_range(va, ca, ka, ta, mna, mxa, a_out);
    an_dist_of_weighted_range(vb, cb, kb, tb, mnb, mxb, b_out);
}

/* The four samples of a wait (critical links of its run byw[lo .. hi)) in
 * one pass: distance in instructions and cycles, exposed (stall), observed
 * (distance + stall). The sample size and extremes are gathered on the way
 * (an_dist_of_weighted_range). */
static void sample_wait(fin *f, size_t lo, size_t hi, an_wait *wt)
{
    uint64_t *v0 = f->val[0], *v1 = f->val[1], *v2 = f->val[2], *v3 = f->val[3];
    uint64_t *c0 = f->cnt[0], *c1 = f->cnt[1], *c2 = f->cnt[2], *c3 = f->cnt[3];
    uint64_t total = 0, mn[4] = {UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX}, mx[4] = {0, 0, 0, 0};
    size_t k = 0;
    for (size_t i = lo; i < hi; i++) {
        const lent *l = f->byw[i];
        if (!l_crit(l))
            continue;
        uint64_t a = l_dinst(l), b = l_dcyc(l), s = l_stall(l), o = b + s, n = l->count;
        v0[k] = a;
        v1[k] = b;
        v2[k] = s;
        v3[k] = o;
        c0[k] = c1[k] = c2[k] = c3[k] = n;
        total += n;
        mn[0] = a < mn[0] ? a : mn[0];
        mx[0] = a > mx[0] ? a : mx[0];
        mn[1] = b < mn[1] ? b : mn[1];
        mx[1] = b > mx[1] ? b : mx[1];
        mn[2] = s < mn[2] ? s : mn[2];
        mx[2] = s > mx[2] ? s : mx[2];
        mn[3] = o < mn[3] ? o : mn[3];
        mx[3] = o > mx[3] ? o : mx[3];
        k++;
    }
    an_dist_of_weighted_range(v0, c0, k, total, mn[0], mx[0], &wt->dist_insts);
    an_dist_of_weighted_range(v1, c1, k, total, mn[1], mx[1], &wt->dist_cycles);
    an_dist_of_weighted_range(v2, c2, k, total, mn[2], mx[2], &wt->exposed);
    an_dist_of_weighted_range(v3, c3, k, total, mn[3], mx[3], &wt->observed);
}

/* Counting sort of the entries idx[0 .. n) into out by their row (wait or
 * producer; stable); start[0 .. nrows] holds the run sizes at start[row +
 * 1] (start[0] = 0) and receives the run bounds. */
static void bucket(const lent *const *idx, size_t n, int by_wait, size_t nrows, uint32_t *start, const lent **out)
{
    for (size_t r = 1; r <= nrows; r++)
        start[r] += start[r - 1];
    for (size_t i = 0; i < n; i++)
        out[start[by_wait ? l_w(idx[i]) : l_p(idx[i])]++] = idx[i];
    for (size_t r = nrows; r > 0; r--)    /* undo the fill: start[r] = first of row r */
        start[r] = start[r - 1];
    start[0] = 0;
}

static int executed_wait(const kr_code_row *r)
{
    return !r->is_label && r->cls == KR_CLASS_WAITCNT && r->hit > 0;
}

static int build_waits(const kr_capture *c, fin *f, double share, an_waits *out)
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
            np += l_p(f->byw[k]) != l_p(f->byw[k - 1]);
        wt->producers = calloc(np, sizeof *wt->producers);
        if (!wt->producers)
            return KR_INTERNAL;
        an_wait_producer *p = wt->producers - 1;
        for (size_t k = lo; k < hi; k++) {
            const lent *l = f->byw[k];
            if (k == lo || l_p(l) != p->row) {
                p++;
                p->row = l_p(l);
                p->vaddr = c->rows[p->row].vaddr;
            }
            p->links += l->count;
            p->waited += l->waited;
            if (l_crit(l)) {
                p->critical += l->count;
                p->stall += l_stall(l) * l->count;
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
        qsort(wt->producers, wt->nproducers, sizeof *wt->producers, rank_wait_producers);
    }
    qsort(out->waits, out->nwaits, sizeof *out->waits, rank_waits);
    /* order statistics, for the waits that are reported or may be advised
     * on (see an_waits_opts.share); the comparison is the one advice
     * makes, in doubles */
    for (size_t k = 0; k < out->nwaits; k++) {
        an_wait *wt = &out->waits[k];
        size_t lo = f->wstart[wt->row], hi = f->wstart[wt->row + 1];
        if (lo == hi || (k >= out->n && (double)wt->attributed < share * (double)out->total_stall))
            continue;
        wt->sampled = 1;
        sample_wait(f, lo, hi, wt);
        wt->earlier_cycles = wt->exposed.p50;
        if (wt->dist_cycles.n && wt->dist_cycles.p50 > 0) {
            wt->has_extra = 1;
            uint64_t num = wt->earlier_cycles * wt->dist_insts.p50;
            wt->extra_insts = (num + wt->dist_cycles.p50 - 1) / wt->dist_cycles.p50;
        }
    }
    /* per-producer distances, for the waits that are reported */
    for (size_t k = 0; k < out->nwaits && k < out->n; k++) {
        an_wait *wt = &out->waits[k];
        size_t lo = f->wstart[wt->row], hi = f->wstart[wt->row + 1];
        for (size_t s = 0; s < wt->nproducers; s++) {
            an_wait_producer *p = &wt->producers[s];
            size_t a = lo, b = hi;           /* the producer's run: first link with p >= row */
            while (a < b) {
                size_t mid = a + (b - a) / 2;
                if (l_p(f->byw[mid]) < p->row)
                    a = mid + 1;
                else
                    b = mid;
            }
            for (b = a; b < hi && l_p(f->byw[b]) == p->row; b++)
                ;
            sample2(f, f->byw, a, b, 0, 0, &p->dist_insts, 1, &p->dist_cycles);
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
        sample2(f, f->byp, lo, hi, 2, 1, &p->exposed, 1, &p->dist_cycles);
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
    lmap_free(&a->h);
    for (size_t k = 0; k < a->nmore; k++)
        lmap_free(&a->more[k]);
    free(a->more);
    fifos_free(&a->f);
    free(a->links.v);
    free(a->rank);
    free(a);
}

int an_waits_acc_wave(an_waits_acc *a, const kr_capture *c, size_t wi)
{
    const kr_wave *w = &c->waves[wi];
    int rc = fit_rank(a, c);
    if (rc)
        return rc;
    if (w->has_waitcnt) {
        /* an_waits_wave_links and count_links in one: the wave's links
         * are counted as soon as they are placed */
        a->waves_stored++;
        a->entries += w->nwaits;
        return place(&a->f, c, w, w->waits, w->nwaits, w->producers, &a->links, &a->links_unplaced, &a->h, a->rank);
    }
    an_link *lk;
    size_t nlk;
    an_links_source src;
    rc = an_waits_wave_links(c, w, &lk, &nlk, &src, &a->links_unplaced, &a->entries);
    if (rc)
        return rc;
    if (src == AN_LINKS_COMPUTED)
        a->waves_computed++;
    else
        a->waves_none++;
    rc = count_links(&a->h, w->insts, (uint32_t)c->nrows, a->rank, lk, nlk);
    free(lk);
    return rc;
}

int an_waits_acc_merge(an_waits_acc *into, an_waits_acc *from)
{
    /* from's tables move to into's list as they are (no entry is copied
     * or looked up); the finish reads the entries of all of them, where
     * a key in two tables is two entries, which it treats as one (its
     * figures are sums and weighted order statistics over the entries of
     * a row). */
    size_t add = (from->h.n != 0) + from->nmore;
    if (add) {
        lmap *mv = realloc(into->more, (into->nmore + add) * sizeof *mv);
        if (!mv)
            return KR_INTERNAL;
        into->more = mv;
        if (from->h.n) {
            mv[into->nmore++] = from->h;
            memset(&from->h, 0, sizeof from->h);
        }
        for (size_t k = 0; k < from->nmore; k++)
            mv[into->nmore++] = from->more[k];
        from->nmore = 0;
    }
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
    size_t nd = a->h.n, nr = c->nrows;
    for (size_t k = 0; k < a->nmore; k++)
        nd += a->more[k].n;
    nd = nd ? nd : 1;
    const lent **idx = malloc(nd * sizeof *idx);
    f.byp = malloc(nd * sizeof *f.byp);
    f.byw = malloc(nd * sizeof *f.byw);
    f.pstart = malloc((nr + 1) * sizeof *f.pstart);
    f.wstart = malloc((nr + 1) * sizeof *f.wstart);
    int rc = idx && f.byp && f.byw && f.pstart && f.wstart ? 0 : KR_INTERNAL;
    size_t run = 1;                            /* the longest run a sample is drawn from */
    if (!rc) {
        size_t n = 0;                          /* the links (rows < nrows: see count_exec) */
        memset(f.pstart, 0, (nr + 1) * sizeof *f.pstart);
        memset(f.wstart, 0, (nr + 1) * sizeof *f.wstart);
        for (size_t k = 0; k <= a->nmore; k++) {
            const lmap *m = k ? &a->more[k - 1] : &a->h;
            for (size_t i = 0; i < m->n; i++) {
                idx[n++] = &m->v[i];
                f.pstart[l_p(&m->v[i]) + 1]++;
                f.wstart[l_w(&m->v[i]) + 1]++;
            }
        }
        for (size_t r = 0; r < nr; r++) {
            run = f.pstart[r + 1] > run ? f.pstart[r + 1] : run;
            run = f.wstart[r + 1] > run ? f.wstart[r + 1] : run;
        }
        bucket(idx, n, 0, nr, f.pstart, f.byp);
        bucket(f.byp, n, 1, nr, f.wstart, f.byw);
    }
    for (int k = 0; k < 4 && !rc; k++) {
        f.val[k] = malloc(run * sizeof *f.val[k]);
        f.cnt[k] = malloc(run * sizeof *f.cnt[k]);
        if (!f.val[k] || !f.cnt[k])
            rc = KR_INTERNAL;
    }
    if (!rc)
        rc = build_waits(c, &f, opts ? opts->share : 0, out);
    if (!rc)
        rc = build_top(c, &f, out);
    free(idx);
    free(f.byp);
    free(f.byw);
    free(f.pstart);
    free(f.wstart);
    for (int k = 0; k < 4; k++) {
        free(f.val[k]);
        free(f.cnt[k]);
    }
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
