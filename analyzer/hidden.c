/* hidden.c — see hidden.h. Rules: FORMATS.md §8.4 (RCV
 * src/analysis/hidden_latency.cpp), per-row split §8.2. */
#include "analyzer/hidden.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"

typedef struct ival {
    int64_t b, e;                    /* [b, e) */
} ival;

/* A condensed set (util or uni): sorted disjoint intervals [b, l] (l = end
 * − 1, so the sentinels below bound every walk), pre = Σ lengths of the
 * intervals before. v[0] = {MIN, MIN, 0} and v[n + 1] = {MAX, MAX, total}
 * are sentinels; the intervals are v[1 .. n]. */
typedef struct seg {
    int64_t b, l, pre;
} seg;

typedef struct iset {
    seg *v;
    size_t n, cap;
} iset;

/* The capacity to grow to for n elements (doubling from 256), or 0 when
 * cap already holds them. */
static size_t grown(size_t cap, size_t n)
{
    if (cap >= n)
        return 0;
    size_t c = cap ? cap : 256;
    while (c < n)
        c *= 2;
    return c;
}

/* Room for n intervals and the two sentinels; the leading one is written. */
static int reserve_set(iset *s, size_t n)
{
    size_t cap = grown(s->cap, n + 2);
    if (cap) {
        seg *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return KR_INTERNAL;
        s->v = v;
        s->cap = cap;
    }
    s->v[0].b = s->v[0].l = INT64_MIN;
    s->v[0].pre = 0;
    return 0;
}

/* Appends [b, e) to a set being written at *o with running total *acc. */
#define EMIT(o, acc, b_, e_) do { \
        (o)->b = (b_); \
        (o)->l = (e_) - 1; \
        (o)->pre = (acc); \
        (acc) += (e_) - (b_); \
        (o)++; \
    } while (0)

/* Ends a set written up to o: the count and the trailing sentinel. */
static void close_set(iset *s, seg *o, int64_t acc)
{
    s->n = (size_t)(o - (s->v + 1));
    o->b = o->l = INT64_MAX;
    o->pre = acc;
}

/* A list of (begin, end) as pushed, before util(). */
typedef struct ilist {
    ival *v;
    size_t n, cap;
} ilist;

static int reserve(ilist *s, size_t n)
{
    size_t cap = grown(s->cap, n);
    if (cap) {
        ival *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return KR_INTERNAL;
        s->v = v;
        s->cap = cap;
    }
    return 0;
}

static int by_begin(const void *a, const void *b)
{
    const ival *x = a, *y = b;
    return (x->b > y->b) - (x->b < y->b);
}

/* The viewer's util() into out: sort by begin; a (begin, length) that starts
 * at or before the end of the open output interval adds its length to it,
 * any other one opens a new interval. The order of equal begins does not
 * change the result (after the first of them, the others all extend the
 * same interval). raw holds (begin, begin + length) as `nruns` runs, one
 * per wave, each sorted by begin when `ordered`; ends[r] is the end of run
 * r (ends is overwritten). Sorted runs are merged pairwise through tmp
 * down to two, which are merged while condensing; otherwise the list is
 * sorted whole. raw's buffer may be swapped with tmp's. */
static int util(ilist *raw, size_t *ends, size_t nruns, int ordered, ilist *tmp, iset *out)
{
    if (reserve_set(out, raw->n))
        return KR_INTERNAL;
    if (raw->n == 0) {
        close_set(out, out->v + 1, 0);
        return 0;
    }
    if (!ordered) {
        qsort(raw->v, raw->n, sizeof *raw->v, by_begin);
        nruns = 1;
    }
    if (nruns > 2 && reserve(tmp, raw->n))
        return KR_INTERNAL;
    while (nruns > 2) {
        ival *a = raw->v, *b = tmp->v;
        size_t m = 0, from = 0;
        for (size_t r = 0; r < nruns; r += 2) {
            size_t end = r + 1 < nruns ? ends[r + 1] : ends[r];
            const ival *x = a + from, *xm = a + ends[r], *y = xm, *ye = a + end;
            ival *o = b + from;
            while (x < xm && y < ye)
                *o++ = y->b < x->b ? *y++ : *x++;
            while (x < xm)
                *o++ = *x++;
            while (y < ye)
                *o++ = *y++;
            ends[m++] = end;
            from = end;
        }
        nruns = m;
        ival *v = raw->v;                  /* the merged list becomes raw */
        size_t cap = raw->cap;
        raw->v = tmp->v;
        raw->cap = tmp->cap;
        tmp->v = v;
        tmp->cap = cap;
    }
    /* the last two runs (or the one) merged on the fly into the condensing */
    size_t split = nruns == 2 ? ends[0] : raw->n;
    const ival *x = raw->v, *xm = raw->v + split, *y = xm, *ye = raw->v + raw->n;
    seg *o = out->v + 1;
    int64_t acc = 0;
    /* the open output interval [ob, oe), from the smallest begin */
    int64_t ob = (x < xm && (y >= ye || x->b <= y->b)) ? x->b : y->b, oe = ob;
    for (;;) {
        const ival *v;
        if (x < xm && (y >= ye || x->b <= y->b))
            v = x++;
        else if (y < ye)
            v = y++;
        else
            break;
        if (v->b > oe) {
            EMIT(o, acc, ob, oe);
            ob = v->b;
            oe = v->e;
        } else {
            oe += v->e - v->b;
        }
    }
    EMIT(o, acc, ob, oe);
    close_set(out, o, acc);
    return 0;
}

/* Ordinary union of two condensed sets; zero-length intervals dropped
 * (inside the open interval they change nothing, outside it they are
 * skipped). */
static int uni(const iset *x, const iset *y, iset *out)
{
    if (reserve_set(out, x->n + y->n))
        return KR_INTERNAL;
    /* both end in a MAX sentinel, so the merge needs no bounds */
    const seg *a = x->v + 1, *b = y->v + 1;
    seg *o = out->v + 1;
    int64_t acc = 0;
    int64_t cb = INT64_MIN, ce = INT64_MIN;   /* the open output interval [cb, ce); none yet */
    for (;;) {
        const seg *nx = a->b <= b->b ? a++ : b++;
        if (nx->b == INT64_MAX)
            break;
        int64_t e = nx->l + 1;
        if (nx->b > ce) {
            if (e > nx->b) {
                if (cb != INT64_MIN)
                    EMIT(o, acc, cb, ce);
                cb = nx->b;
                ce = e;
            }
        } else if (e > ce) {
            ce = e;
        }
    }
    if (cb != INT64_MIN)
        EMIT(o, acc, cb, ce);
    close_set(out, o, acc);
    return 0;
}

/* The first interval (index in 1 .. n + 1) whose end is after x. Points
 * are times or sums of times and cycles: >= 0 (§4 field ranges), so the
 * sentinels stop every walk. */
static size_t seek(const iset *s, int64_t x)
{
    size_t lo = 1, hi = s->n + 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->v[mid].l >= x)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* |s ∩ (−∞, x)|, with the cursor *k (the first interval ending after the
 * last point asked) walked to x: the points of one wave arrive almost in
 * order, so the walk is short; the sentinels bound it. */
static inline int64_t covered(const seg *v, size_t *k, int64_t x)
{
    size_t i = *k;
    while (v[i - 1].l >= x)
        i--;
    while (v[i].l < x)
        i++;
    *k = i;
    return x > v[i].b ? v[i].pre + (x - v[i].b) : v[i].pre;
}

typedef struct triple {
    int64_t idle, stall, issue;
} triple;

/* H(set) of a token: idle [last, clock), stall [clock, s1 = clock + stall),
 * issue [s1, end = clock + cycles) intersected with the set (an empty or
 * reversed idle interval gives 0); the issue part only when with_issue.
 * lo = min(last, clock). */
static inline __attribute__((always_inline)) triple H(const seg *v, size_t *k, int64_t last, int64_t lo,
                                                      int64_t clock, int64_t s1, int64_t end, int with_issue)
{
    triple t = {0, 0, 0};
    size_t i = *k;
    while (v[i - 1].l >= lo)
        i--;
    while (v[i].l < lo)
        i++;
    *k = i;
    if (v[i].b >= (with_issue ? end : s1))     /* no busy interval meets [lo, hi) */
        return t;
    int64_t c1, c2;
    if (last < clock) {
        int64_t c0 = last > v[i].b ? v[i].pre + (last - v[i].b) : v[i].pre;
        c1 = covered(v, k, clock);
        t.idle = c1 - c0;
    } else {
        c1 = clock > v[i].b ? v[i].pre + (clock - v[i].b) : v[i].pre;
    }
    c2 = c1;
    if (s1 > clock) {
        c2 = covered(v, k, s1);
        t.stall = c2 - c1;
    }
    if (with_issue && end > s1)
        t.issue = covered(v, k, end) - c2;
    return t;
}

#define TOTAL(t) ((t).idle + (t).stall + (t).issue)

static int matrix_text(const char *isa)
{
    return isa && (strncmp(isa, "v_mfma", 6) == 0 || strncmp(isa, "v_smfma", 7) == 0 ||
                   strncmp(isa, "v_wmma", 6) == 0 || strncmp(isa, "v_swmma", 7) == 0);
}

static int by_se_simd(const void *a, const void *b, const kr_capture *c)
{
    const kr_wave *x = &c->waves[*(const size_t *)a], *y = &c->waves[*(const size_t *)b];
    if (x->se != y->se) return x->se < y->se ? -1 : 1;
    if (x->simd != y->simd) return x->simd < y->simd ? -1 : 1;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    return i < j ? -1 : i > j;
}

static int rank_rows(const void *a, const void *b)
{
    const an_hidden_row *x = a, *y = b;
    if (x->non_hidden != y->non_hidden) return x->non_hidden > y->non_hidden ? -1 : 1;
    if (x->vaddr != y->vaddr) return x->vaddr < y->vaddr ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* Busy lists as pushed (RAW_*, with TMP for merging) and condensed sets
 * (VALU .. SCAL by util, MATH .. ALL by uni). */
enum { RAW_VALU, RAW_WMMA, RAW_VMEM, RAW_SCAL, TMP, NRAW };
enum { VALU, WMMA, VMEM, SCAL, MATH, VECTOR, ALL, NSETS };

/* Busy list of a token type (pass 1); MATRIX feeds two. */
enum { L_VALU = RAW_VALU, L_WMMA = RAW_WMMA, L_VMEM = RAW_VMEM, L_SCAL = RAW_SCAL, L_NONE, L_MATRIX };

/* A token the per-token pass handles (see scope). */
typedef struct wtok {
    const kr_inst *r;                /* its record */
    int64_t last;                    /* the wave's begin or the previous token's clock + cycles */
    uint32_t wave;                   /* index into order[lo ..] */
    uint32_t l;                      /* its busy list (L_*) */
} wtok;

typedef struct work {
    ilist raw[NRAW];
    iset sets[NSETS];
    size_t *ends;                    /* run ends: 4 lists × waves of the scope */
    size_t nends;
    int64_t *maxc;                   /* per wave: largest cycles of a quiet VALU token */
    wtok *toks;
    size_t ntoks;
    uint8_t list_of[512];            /* [rowk + category]: the busy list (L_*) */
} work;

/* Adds a token's triple to its row. */
#define ADD_ROW(raw, row, nrows, t) do { \
        if (((t).idle | (t).stall | (t).issue) != 0 && (row) < (nrows)) { \
            int64_t *x_ = &(raw)[3 * (size_t)(row)]; \
            x_[0] += (t).idle; \
            x_[1] += (t).stall; \
            x_[2] += (t).issue; \
        } \
    } while (0)

/* Hidden cycles of one scope (waves order[lo..hi)) added to raw[3 * row].
 *
 * Pass 1 builds the busy lists and sorts the tokens: a "quiet" VALU token
 * (no idle before it, no stall) has an all-zero "issue = 0" candidate, so
 * its result is H(wmma) — its issue interval inside MFMA busy time — and a
 * quiet MATRIX token has nothing; every other token goes to the per-token
 * list. Pass 2 evaluates that list with the §8.4 table; pass 3 walks the
 * wmma intervals and adds, per wave, the overlap of each quiet VALU token
 * with them (a merge of the intervals with the records' times, which
 * §4.2 orders). With records out of order (§4.2 broken) every pair goes
 * to util() on its own and every token takes pass 2. */
static int scope(const kr_capture *c, const uint16_t *rowk, const size_t *order, size_t lo, size_t hi,
                 int64_t *raw, work *wk)
{
    iset *sets = wk->sets;
    ilist *rl = wk->raw;
    size_t nw = hi - lo, tokens = 0;
    for (size_t o = lo; o < hi; o++)
        tokens += c->waves[order[o]].ninsts;
    if (wk->nends < 4 * nw) {
        size_t *e = realloc(wk->ends, 4 * nw * sizeof *e);
        if (e)
            wk->ends = e;
        int64_t *m = e ? realloc(wk->maxc, 4 * nw * sizeof *m) : NULL;
        if (!e || !m)
            return KR_INTERNAL;
        wk->maxc = m;
        wk->nends = 4 * nw;
    }
    if (wk->ntoks < tokens) {
        wtok *t = realloc(wk->toks, tokens * sizeof *t);
        if (!t)
            return KR_INTERNAL;
        wk->toks = t;
        wk->ntoks = tokens;
    }
    for (int k = RAW_VALU; k <= RAW_SCAL; k++)
        if (reserve(&rl[k], tokens ? tokens : 1))     /* storage even when empty: no NULL arithmetic */
            return KR_INTERNAL;
    ival *lp[4] = {rl[RAW_VALU].v, rl[RAW_WMMA].v, rl[RAW_VMEM].v, rl[RAW_SCAL].v};
    size_t ln[4] = {0, 0, 0, 0}, nt = 0;
    wtok *tk = wk->toks;
    const uint8_t *list_of = wk->list_of;
    const uint32_t nrows = (uint32_t)c->nrows;
    int ordered = 1;                      /* every wave follows §4.2 (so its times and begins are sorted) */
    /* Pass 1. With a wave's begins in order, its pairs that start at or
     * before the end of its open run [rb, re) join the run (re += length):
     * in util()'s merged order such a pair and every pair of another wave
     * between them extend the same output interval, so util() of the runs
     * equals util() of the pairs. rb = INT64_MIN: no run yet. */
#define RUN(rb_, re_, out_, b_, len_) do { \
        if ((b_) <= (re_)) { \
            (re_) += (len_); \
        } else { \
            if ((rb_) != INT64_MIN) { \
                (out_)->b = (rb_); \
                (out_)->e = (re_); \
                (out_)++; \
            } \
            (rb_) = (b_); \
            (re_) = (b_) + (len_); \
        } \
    } while (0)
    ival *lq[4] = {lp[0], lp[1], lp[2], lp[3]};   /* where each list's next run goes */
    for (size_t o = lo; o < hi; o++) {
        const kr_wave *w = &c->waves[order[o]];
        const kr_inst *r = w->insts, *end = w->ninsts ? w->insts + w->ninsts : w->insts;  /* no NULL + 0 */
        int64_t prev_b = INT64_MIN, last = (int64_t)w->begin, maxc = 0;
        int64_t rb[4] = {INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN}, re[4] = {INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN};
        int64_t vb = INT64_MIN, ve = INT64_MIN;  /* the valu run, kept apart: most tokens are VALU */
        ival *vq = lq[L_VALU];
        uint32_t wave = (uint32_t)(o - lo);
        for (; r < end; r++) {
            uint32_t row = r->row, st = r->stall, du = r->dur;
            unsigned l = list_of[rowk[row < nrows ? row + 1 : 0] + r->cat];
            int64_t clock = (int64_t)r->time;
            int64_t b = clock + st;
            if (__builtin_expect(clock < prev_b, 0))   /* §4.2: time[i+1] >= time[i] + stall[i] */
                ordered = 0;
            prev_b = b;
            int64_t prev = last;
            last = clock + (du > st ? du : st);   /* clock + cycles */
            int64_t len = last - b;
            if (l == L_VALU) {
                RUN(vb, ve, vq, b, len);
                if (st == 0 && prev >= clock) {   /* quiet */
                    if (len > maxc)
                        maxc = len;
                    continue;
                }
            } else if (l < L_NONE) {
                RUN(rb[l], re[l], lq[l], b, len);
            } else if (l == L_MATRIX) {
                RUN(rb[L_WMMA], re[L_WMMA], lq[L_WMMA], b, len);
                RUN(vb, ve, vq, b, 3 * len / 4);
                if (st == 0 && prev >= clock)
                    continue;
            }
            tk[nt].r = r;
            tk[nt].last = prev;
            tk[nt].wave = wave;
            tk[nt++].l = l;
        }
        wk->maxc[o - lo] = maxc;
        rb[L_VALU] = vb;
        re[L_VALU] = ve;
        lq[L_VALU] = vq;
        for (int k = 0; k < 4; k++) {
            if (rb[k] != INT64_MIN) {
                lq[k]->b = rb[k];
                lq[k]->e = re[k];
                lq[k]++;
            }
            wk->ends[(size_t)k * nw + (o - lo)] = (size_t)(lq[k] - lp[k]);
        }
    }
    for (int k = 0; k < 4; k++)
        ln[k] = (size_t)(lq[k] - lp[k]);
#undef RUN
    if (!ordered) {                       /* every pair to util(), sorted whole; every token to pass 2 */
        memset(ln, 0, sizeof ln);
        nt = 0;
        for (size_t o = lo; o < hi; o++) {
            const kr_wave *w = &c->waves[order[o]];
            int64_t last = (int64_t)w->begin;
            for (size_t i = 0; i < w->ninsts; i++) {
                const kr_inst *r = &w->insts[i];
                unsigned l = list_of[rowk[r->row < nrows ? r->row + 1 : 0] + r->cat], k = l;
                int64_t b = (int64_t)r->time + r->stall;
                int64_t len = r->dur > r->stall ? (int64_t)(r->dur - r->stall) : 0;
                if (k == L_MATRIX) {
                    lp[L_WMMA][ln[L_WMMA]].b = b;
                    lp[L_WMMA][ln[L_WMMA]++].e = b + len;
                    k = L_VALU;
                    len = 3 * len / 4;
                }
                if (k < L_NONE) {
                    lp[k][ln[k]].b = b;
                    lp[k][ln[k]++].e = b + len;
                }
                tk[nt].r = r;
                tk[nt].last = last;
                tk[nt].wave = (uint32_t)(o - lo);
                tk[nt++].l = l;
                last = (int64_t)r->time + (r->dur > r->stall ? r->dur : r->stall);
            }
        }
    }
    for (int k = 0; k < 4; k++) {
        rl[k].n = ln[k];
        if (util(&rl[k], &wk->ends[(size_t)k * nw], nw, ordered, &rl[TMP], &sets[VALU + k]))
            return KR_INTERNAL;
    }
    if (uni(&sets[VALU], &sets[WMMA], &sets[MATH]) || uni(&sets[MATH], &sets[VMEM], &sets[VECTOR]) ||
        uni(&sets[VECTOR], &sets[SCAL], &sets[ALL]))
        return KR_INTERNAL;

    /* pass 2: the listed tokens */
    uint32_t at = UINT32_MAX;
    const kr_wave *w = NULL;
    const seg *vv = sets[VALU].v, *vw = sets[WMMA].v, *vm = sets[VMEM].v, *vs = sets[SCAL].v, *vh = sets[MATH].v,
              *vc = sets[VECTOR].v, *va = sets[ALL].v;
    size_t kv = 1, kw = 1, km = 1, ks = 1, kh = 1, kc = 1, ka = 1;
    const int any_wmma = sets[WMMA].n > 0;
    for (const wtok *x = tk, *xend = nt ? tk + nt : tk; x < xend; x++) {
        if (x->wave != at) {                  /* tokens are grouped by wave: cursors from its begin */
            at = x->wave;
            w = &c->waves[order[lo + at]];
            int64_t b = (int64_t)w->begin;
            kv = seek(&sets[VALU], b);
            kw = seek(&sets[WMMA], b);
            km = seek(&sets[VMEM], b);
            ks = seek(&sets[SCAL], b);
            kh = seek(&sets[MATH], b);
            kc = seek(&sets[VECTOR], b);
            ka = seek(&sets[ALL], b);
        }
        const kr_inst *r = x->r;
        int64_t last = x->last;
        int64_t clock = (int64_t)r->time;
        int64_t s1 = clock + r->stall, end = clock + (r->dur > r->stall ? r->dur : r->stall);
        int64_t lo_ = last < clock ? last : clock;
        uint32_t row = r->row;
        triple t, u;
        switch (x->l) {
        case L_MATRIX:
            u = H(vv, &kv, last, lo_, clock, s1, end, 0);
            t = H(vw, &kw, last, lo_, clock, s1, end, 0);
            break;
        case L_VALU:
            t = (triple){0, 0, 0};
            if (any_wmma)
                t = H(vw, &kw, last, lo_, clock, s1, end, 1);
            u = H(vv, &kv, last, lo_, clock, s1, end, 0);
            break;
        case L_VMEM:
            u = H(vh, &kh, last, lo_, clock, s1, end, 1);
            t = H(vm, &km, last, lo_, clock, s1, end, 0);
            break;
        case L_SCAL:
            u = H(vc, &kc, last, lo_, clock, s1, end, 1);
            t = H(vs, &ks, last, lo_, clock, s1, end, 0);
            break;
        default:
            t = H(va, &ka, last, lo_, clock, s1, end, 1);
            u = (triple){0, 0, 0};
            break;
        }
        if (TOTAL(u) > TOTAL(t))
            t = u;
        ADD_ROW(raw, row, nrows, t);
    }
    if (!ordered)
        return 0;

    /* pass 3: quiet VALU tokens inside MFMA busy time */
    const iset *mm = &sets[WMMA];
    for (size_t o = lo; o < hi && mm->n; o++) {
        const kr_wave *wv = &c->waves[order[o]];
        const kr_inst *ins = wv->insts;
        size_t n = wv->ninsts;
        int64_t maxc = wk->maxc[o - lo];
        if (n == 0 || maxc == 0)
            continue;
        size_t a = 0;                     /* first record with time >= iv->b - maxc */
        for (const seg *iv = mm->v + 1, *ivend = mm->v + 1 + mm->n; iv < ivend && a < n; iv++) {
            int64_t ive = iv->l + 1;
            if (ive <= iv->b)
                continue;
            /* earlier quiet VALU tokens end before the interval; iv->b only
             * grows, so the first candidate record only moves forward */
            int64_t from = iv->b - maxc;
            if (a < n && (int64_t)ins[a].time < from) {   /* gallop, then bisect */
                size_t step = 1, lo = a, hi = a + 1;
                while (hi < n && (int64_t)ins[hi].time < from) {
                    lo = hi;
                    step *= 2;
                    hi = lo + step < n ? lo + step : n;
                }
                while (lo + 1 < hi) {            /* ins[lo] < from, ins[hi] >= from (or hi == n) */
                    size_t m = lo + (hi - lo) / 2;
                    if ((int64_t)ins[m].time < from)
                        lo = m;
                    else
                        hi = m;
                }
                a = hi;
            }
            for (size_t i = a; i < n && (int64_t)ins[i].time < ive; i++) {
                const kr_inst *r = &ins[i];
                if (r->cat != KR_CAT_VALU || r->stall != 0 || rowk[r->row < nrows ? r->row + 1 : 0])
                    continue;
                int64_t clock = (int64_t)r->time;
                int64_t last = i ? (int64_t)ins[i - 1].time + (ins[i - 1].dur > ins[i - 1].stall
                                                                  ? ins[i - 1].dur : ins[i - 1].stall)
                                 : (int64_t)wv->begin;
                if (last < clock)
                    continue;                  /* not quiet: pass 2 had it */
                int64_t e = clock + (int64_t)r->dur;
                int64_t x0 = clock > iv->b ? clock : iv->b, x1 = e < ive ? e : ive;
                if (x1 > x0 && r->row < nrows)
                    raw[3 * (size_t)r->row + 2] += x1 - x0;
            }
        }
    }
    return 0;
}

static void add_sum(an_hidden_sum *s, const an_hidden_row *h)
{
    s->total += h->total;
    s->idle += h->idle;
    s->stall += h->stall;
    s->issue += h->issue;
    s->hidden_idle += h->hidden_idle;
    s->hidden_stall += h->hidden_stall;
    s->hidden_issue += h->hidden_issue;
    s->non_hidden += h->non_hidden;
}

static uint64_t clamp_to(int64_t v, uint64_t hi)
{
    if (v <= 0)
        return 0;
    return (uint64_t)v > hi ? hi : (uint64_t)v;
}

/* qsort_r is not C11: a small insertion-free merge sort on indices. */
static void sort_waves(const kr_capture *c, size_t *v, size_t *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    sort_waves(c, v, tmp, h);
    sort_waves(c, v + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = by_se_simd(&v[j], &v[i], c) < 0 ? v[j++] : v[i++];
    while (i < h)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

struct an_hidden_acc {
    uint16_t *rowk;                  /* [0]: no row; [row + 1]: 256 for a matrix row (§8.4), else 0 */
    int64_t *raw;                    /* per row: hidden idle, stall, issue before clamping */
    size_t nrows;
    uint64_t tokens;
    size_t scopes;
    work wk;
};

an_hidden_acc *an_hidden_acc_new(const kr_capture *c)
{
    an_hidden_acc *a = calloc(1, sizeof *a);
    size_t nr = c->nrows ? c->nrows : 1;
    if (!a)
        return NULL;
    a->nrows = c->nrows;
    a->rowk = calloc(nr + 1, sizeof *a->rowk);
    a->raw = calloc(3 * nr, sizeof *a->raw);
    if (!a->rowk || !a->raw) {
        an_hidden_acc_free(a);
        return NULL;
    }
    for (size_t r = 0; r < c->nrows; r++)
        a->rowk[r + 1] = !c->rows[r].is_label && matrix_text(c->rows[r].isa) ? 256 : 0;
    memset(a->wk.list_of, L_NONE, 256);
    memset(a->wk.list_of + 256, L_MATRIX, 256);
    a->wk.list_of[KR_CAT_VALU] = L_VALU;
    a->wk.list_of[KR_CAT_LDS] = a->wk.list_of[KR_CAT_VMEM] = a->wk.list_of[KR_CAT_FLAT] = L_VMEM;
    a->wk.list_of[KR_CAT_SALU] = a->wk.list_of[KR_CAT_SMEM] = L_SCAL;
    return a;
}

int an_hidden_acc_scope(an_hidden_acc *a, const kr_capture *c, const size_t *waves, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        a->tokens += c->waves[waves[i]].ninsts;
    a->scopes++;
    return scope(c, a->rowk, waves, 0, n, a->raw, &a->wk);
}

void an_hidden_acc_merge(an_hidden_acc *into, const an_hidden_acc *from)
{
    into->tokens += from->tokens;
    into->scopes += from->scopes;
    for (size_t k = 0; k < 3 * into->nrows; k++)
        into->raw[k] += from->raw[k];
}

void an_hidden_acc_free(an_hidden_acc *a)
{
    if (!a)
        return;
    for (int k = 0; k < NSETS; k++)
        free(a->wk.sets[k].v);
    for (int k = 0; k < NRAW; k++)
        free(a->wk.raw[k].v);
    free(a->wk.ends);
    free(a->wk.maxc);
    free(a->wk.toks);
    free(a->rowk);
    free(a->raw);
    free(a);
}

int an_hidden_finish(const kr_capture *c, const an_hidden_acc *a, const an_hidden_opts *opts, an_hidden *out)
{
    memset(out, 0, sizeof *out);
    out->rows = c->rows;
    out->nrows = c->nrows;
    out->n = opts && opts->n ? opts->n : AN_HIDDEN_DEFAULT_N;
    out->tokens = a->tokens;
    out->computed = out->tokens > 0;
    out->scopes = a->scopes;
    const int64_t *raw = a->raw;
    size_t nranked = 0;
    for (size_t r = 0; r < c->nrows; r++)
        nranked += !c->rows[r].is_label && c->rows[r].latency + c->rows[r].idle > 0;
    out->ranked = calloc(nranked ? nranked : 1, sizeof *out->ranked);
    if (!out->ranked) {
        an_hidden_free(out);
        return KR_INTERNAL;
    }
    for (size_t r = 0; r < c->nrows; r++) {
        const kr_code_row *row = &c->rows[r];
        if (row->is_label)
            continue;
        an_hidden_row h = {0};
        h.row = (uint32_t)r;
        h.vaddr = row->vaddr;
        uint64_t active = row->latency;
        h.stall = row->stall < active ? row->stall : active;
        h.issue = active - h.stall;
        h.idle = row->idle;
        h.total = active + h.idle;
        h.hidden_idle = clamp_to(raw[3 * r], h.idle);
        h.hidden_stall = clamp_to(raw[3 * r + 1], h.stall);
        h.hidden_issue = clamp_to(raw[3 * r + 2], h.issue);
        h.non_hidden = h.total - (h.hidden_idle + h.hidden_stall + h.hidden_issue);
        add_sum(&out->all, &h);
        if ((unsigned)row->cls < KR_CLASS_COUNT)
            add_sum(&out->cls[row->cls], &h);
        if (h.total > 0)
            out->ranked[out->nranked++] = h;
    }
    qsort(out->ranked, out->nranked, sizeof *out->ranked, rank_rows);
    return 0;
}

int an_hidden_compute(const kr_capture *c, const an_hidden_opts *opts, an_hidden *out)
{
    memset(out, 0, sizeof *out);
    an_hidden_acc *a = an_hidden_acc_new(c);
    size_t *order = malloc((c->nwaves ? c->nwaves : 1) * sizeof *order);
    size_t *tmp = malloc((c->nwaves ? c->nwaves : 1) * sizeof *tmp);
    int rc = (!a || !order || !tmp) ? KR_INTERNAL : 0;
    if (!rc) {
        for (size_t i = 0; i < c->nwaves; i++)
            order[i] = i;
        sort_waves(c, order, tmp, c->nwaves);
        for (size_t lo = 0; lo < c->nwaves && !rc;) {
            size_t hi = lo + 1;
            while (hi < c->nwaves && c->waves[order[hi]].se == c->waves[order[lo]].se &&
                   c->waves[order[hi]].simd == c->waves[order[lo]].simd)
                hi++;
            rc = an_hidden_acc_scope(a, c, order + lo, hi - lo);
            lo = hi;
        }
    }
    if (!rc)
        rc = an_hidden_finish(c, a, opts, out);
    an_hidden_acc_free(a);
    free(order);
    free(tmp);
    return rc;
}

void an_hidden_free(an_hidden *r)
{
    free(r->ranked);
    memset(r, 0, sizeof *r);
}
