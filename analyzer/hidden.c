/* hidden.c — see hidden.h. Rules: FORMATS.md §8.4 (RCV
 * src/analysis/hidden_latency.cpp), per-row split §8.2. */
#include "analyzer/hidden.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"

#define T_MATRIX 0xff                /* token type beside the §4.1 categories */

typedef struct ival {
    int64_t b, e;                    /* [b, e) */
} ival;

/* A list of intervals; once condensed (util) or built by uni, sorted and
 * disjoint, with prefix sums of the lengths and a cursor for H(). */
typedef struct iset {
    ival *v;
    size_t n, cap;
    int64_t *pre;                    /* pre[k] = Σ lengths of v[0 .. k) */
    size_t pcap;
    size_t cur;                      /* intervals with e <= the last point asked */
} iset;

static int reserve(iset *s, size_t n)
{
    if (s->cap >= n)
        return 0;
    size_t cap = s->cap ? s->cap : 256;
    while (cap < n)
        cap *= 2;
    ival *v = realloc(s->v, cap * sizeof *v);
    if (!v)
        return KR_INTERNAL;
    s->v = v;
    s->cap = cap;
    return 0;
}

static int reserve_pre(iset *s)
{
    if (s->pcap >= s->n + 1)
        return 0;
    int64_t *p = realloc(s->pre, (s->n + 1) * sizeof *p);
    if (!p)
        return KR_INTERNAL;
    s->pre = p;
    s->pcap = s->n + 1;
    return 0;
}

/* pre[k] = Σ lengths of v[0 .. k); resets the cursor. */
static int prefix_of(iset *s)
{
    if (reserve_pre(s))
        return KR_INTERNAL;
    int64_t acc = 0, *p = s->pre;
    *p++ = 0;
    for (const ival *v = s->v, *end = s->n ? s->v + s->n : s->v; v < end; v++)
        *p++ = acc += v->e - v->b;
    s->cur = 0;
    return 0;
}

static int by_begin(const void *a, const void *b)
{
    const ival *x = a, *y = b;
    return (x->b > y->b) - (x->b < y->b);
}

/* The viewer's util() into out: sort by begin; a (begin, length) that starts
 * at or before the end of the last output interval adds its length to it.
 * raw holds (begin, begin + length) as `nruns` runs, one per wave, each
 * sorted by begin when `ordered` (§4.2: time[i+1] >= time[i] + stall[i]);
 * ends[r] is the end of run r (ends is overwritten). Sorted runs are
 * merged pairwise (stable) through tmp down to two, which are merged while
 * condensing; otherwise the list is sorted whole. raw's buffer may be
 * swapped with tmp's. */
static int util(iset *raw, size_t *ends, size_t nruns, int ordered, iset *tmp, iset *out)
{
    out->n = 0;
    out->cur = 0;
    if (raw->n == 0)
        return reserve_pre(out);
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
    if (reserve(out, raw->n))
        return KR_INTERNAL;
    /* the last two runs (or the one) merged on the fly into the condensing */
    size_t split = nruns == 2 ? ends[0] : raw->n;
    const ival *x = raw->v, *xm = split ? raw->v + split : raw->v, *y = xm,
               *ye = raw->n ? raw->v + raw->n : raw->v;
    ival *o = out->v;
    int64_t ob = x < xm ? x->b : y->b, oe = ob;   /* the open output interval [ob, oe) */
    while (x < xm || y < ye) {
        const ival *v = (y >= ye || (x < xm && x->b <= y->b)) ? x++ : y++;
        if (v->b > oe) {
            o->b = ob;
            o->e = oe;
            o++;
            ob = v->b;
            oe = v->e;
        } else {
            oe += v->e - v->b;
        }
    }
    o->b = ob;
    o->e = oe;
    o++;
    out->n = (size_t)(o - out->v);
    return prefix_of(out);
}

/* Ordinary union of two sorted disjoint sets; zero-length intervals dropped. */
static int uni(const iset *x, const iset *y, iset *out)
{
    if (reserve(out, x->n + y->n + 1))
        return KR_INTERNAL;
    /* An empty set may have no storage yet (v == NULL): no pointer arithmetic on it. */
    const ival *a = x->v, *ae = x->n ? x->v + x->n : x->v, *b = y->v, *be = y->n ? y->v + y->n : y->v;
    ival *o = out->v;
    int have = 0;
    int64_t cb = 0, ce = 0;                 /* the open output interval */
    while (a < ae || b < be) {
        const ival *nx = (b >= be || (a < ae && a->b <= b->b)) ? a++ : b++;
        if (nx->e <= nx->b)
            continue;
        if (have && nx->b <= ce) {
            if (nx->e > ce)
                ce = nx->e;
        } else {
            if (have) {
                o->b = cb;
                o->e = ce;
                o++;
            }
            cb = nx->b;
            ce = nx->e;
            have = 1;
        }
    }
    if (have) {
        o->b = cb;
        o->e = ce;
        o++;
    }
    out->n = (size_t)(o - out->v);
    return prefix_of(out);
}

/* Moves the cursor to the first interval with e > x (binary search). */
static void seek(iset *s, int64_t x)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->v[mid].e > x)
            hi = mid;
        else
            lo = mid + 1;
    }
    s->cur = lo;
}

/* |s ∩ (−∞, x)| into out, with the cursor k (intervals before it end at or
 * before x) walked from the last point asked: the points of one wave arrive
 * almost in order, so the walk is short. A macro over locals: this is the
 * innermost loop of the analysis. */
#define COVERED(v, n, pre, k, x, out) do { \
        while ((k) > 0 && (v)[(k) - 1].e > (x)) (k)--; \
        while ((k) < (n) && (v)[(k)].e <= (x)) (k)++; \
        (out) = (pre)[(k)]; \
        if ((k) < (n) && (x) > (v)[(k)].b) (out) += (x) - (v)[(k)].b; \
    } while (0)

typedef struct triple {
    int64_t idle, stall, issue;
} triple;

/* H(set) of a token: idle [last, clock), stall [clock, clock + stall),
 * issue [clock + stall, clock + cycles) intersected with s (an empty or
 * reversed idle interval gives 0); the issue part only when with_issue. */
static void H(iset *s, int64_t last, int64_t clock, int64_t stall, int64_t cycles, int with_issue, triple *t)
{
    t->idle = t->stall = t->issue = 0;
    const ival *v = s->v;
    const int64_t *pre = s->pre;
    size_t n = s->n, k = s->cur;
    int64_t c0 = 0, c1, c2, c3 = 0;
    int64_t lo = last < clock ? last : clock;
    int64_t hi = with_issue ? clock + cycles : clock + stall;
    while (k > 0 && v[k - 1].e > lo)
        k--;
    while (k < n && v[k].e <= lo)
        k++;
    s->cur = k;
    if (k == n || v[k].b >= hi)           /* no busy interval meets [lo, hi) */
        return;
    if (last < clock) {
        COVERED(v, n, pre, k, last, c0);
    }
    COVERED(v, n, pre, k, clock, c1);
    if (last < clock)
        t->idle = c1 - c0;
    c2 = c1;
    if (stall > 0) {
        COVERED(v, n, pre, k, clock + stall, c2);
        t->stall = c2 - c1;
    }
    if (with_issue && cycles > stall) {
        COVERED(v, n, pre, k, clock + cycles, c3);
        t->issue = c3 - c2;
    }
    s->cur = k;
}

#define TOTAL(t) ((t).idle + (t).stall + (t).issue)

static int matrix_text(const char *isa)
{
    return isa && (strncmp(isa, "v_mfma", 6) == 0 || strncmp(isa, "v_smfma", 7) == 0 ||
                   strncmp(isa, "v_wmma", 6) == 0 || strncmp(isa, "v_swmma", 7) == 0);
}

/* Token type: the category, or T_MATRIX for a matrix row. */
#define TOKEN_TYPE(r, matrix, nrows) \
    (((r)->row < (nrows) && (matrix)[(r)->row]) ? (unsigned)T_MATRIX : (unsigned)(r)->cat)

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

/* Busy lists as pushed (RAW_*), condensed (VALU .. SCAL) and their unions. */
enum { RAW_VALU, RAW_WMMA, RAW_VMEM, RAW_SCAL, VALU, WMMA, VMEM, SCAL, MATH, VECTOR, ALL, TMP, NSETS };

/* A token the per-token pass handles (see scope). */
typedef struct wtok {
    uint32_t wave;                   /* index into order[lo ..] */
    uint32_t rec;                    /* its type and the previous token's end follow from the records */
} wtok;

typedef struct work {
    iset sets[NSETS];
    size_t *ends;                    /* run ends: 4 lists × waves of the scope */
    size_t nends;
    int64_t *maxc;                   /* per wave: largest cycles of a quiet VALU token */
    wtok *toks;
    size_t ntoks;
} work;

/* Adds a token's triple to its row. */
#define ADD_ROW(raw, c, r, t) do { \
        if (((t).idle | (t).stall | (t).issue) != 0 && (r)->row < (c)->nrows) { \
            int64_t *x_ = &(raw)[3 * (size_t)(r)->row]; \
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
 * §4.2 orders). With records out of order every token takes pass 2. */
static int scope(const kr_capture *c, const uint8_t *matrix, const size_t *order, size_t lo, size_t hi,
                 int64_t *raw, work *wk)
{
    iset *sets = wk->sets;
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
    for (int k = RAW_VALU; k <= RAW_SCAL; k++) {
        sets[k].n = 0;
        if (reserve(&sets[k], tokens))
            return KR_INTERNAL;
    }
    ival *rv = sets[RAW_VALU].v, *rw = sets[RAW_WMMA].v, *rm = sets[RAW_VMEM].v, *rs = sets[RAW_SCAL].v;
    size_t nv = 0, nwm = 0, nm = 0, ns = 0, nt = 0;
    wtok *tk = wk->toks;
    const uint32_t nrows = (uint32_t)c->nrows;
    int ordered = 1;                      /* every wave's begins are nondecreasing */
    for (size_t o = lo; o < hi; o++) {
        const kr_wave *w = &c->waves[order[o]];
        const kr_inst *r = w->insts, *end = w->ninsts ? w->insts + w->ninsts : w->insts;  /* no NULL + 0 */
        int64_t prev_b = INT64_MIN, last = (int64_t)w->begin, maxc = 0;
        uint32_t wave = (uint32_t)(o - lo);
        for (; r < end; r++) {
            uint32_t row = r->row, st = r->stall, du = r->dur;
            unsigned type = row < nrows && matrix[row] ? (unsigned)T_MATRIX : r->cat;
            int64_t clock = (int64_t)r->time;
            int64_t b = clock + st;
            if (b < prev_b)
                ordered = 0;
            prev_b = b;
            int64_t len = du > st ? (int64_t)(du - st) : 0;
            int quiet = st == 0 && last >= clock;
            switch (type) {
            case T_MATRIX:
                rw[nwm].b = b;
                rw[nwm++].e = b + len;
                rv[nv].b = b;
                rv[nv++].e = b + 3 * len / 4;
                break;
            case KR_CAT_VALU:
                rv[nv].b = b;
                rv[nv++].e = b + len;
                if (quiet && len > maxc)
                    maxc = len;
                break;
            case KR_CAT_LDS: case KR_CAT_VMEM: case KR_CAT_FLAT:
                rm[nm].b = b;
                rm[nm++].e = b + len;
                break;
            case KR_CAT_SALU: case KR_CAT_SMEM:
                rs[ns].b = b;
                rs[ns++].e = b + len;
                break;
            default:
                break;
            }
            if (!quiet || (type != KR_CAT_VALU && type != T_MATRIX)) {
                wtok *x = &tk[nt++];
                x->wave = wave;
                x->rec = (uint32_t)(r - w->insts);
            }
            last = b + len;                   /* clock + max(stall, duration) */
        }
        wk->maxc[o - lo] = maxc;
        wk->ends[0 * nw + (o - lo)] = nv;
        wk->ends[1 * nw + (o - lo)] = nwm;
        wk->ends[2 * nw + (o - lo)] = nm;
        wk->ends[3 * nw + (o - lo)] = ns;
    }
    sets[RAW_VALU].n = nv;
    sets[RAW_WMMA].n = nwm;
    sets[RAW_VMEM].n = nm;
    sets[RAW_SCAL].n = ns;
    for (int k = 0; k < 4; k++)
        if (util(&sets[RAW_VALU + k], &wk->ends[(size_t)k * nw], nw, ordered, &sets[TMP], &sets[VALU + k]))
            return KR_INTERNAL;
    if (uni(&sets[VALU], &sets[WMMA], &sets[MATH]) || uni(&sets[MATH], &sets[VMEM], &sets[VECTOR]) ||
        uni(&sets[VECTOR], &sets[SCAL], &sets[ALL]))
        return KR_INTERNAL;
    if (!ordered) {                       /* every token, quiet or not, takes pass 2 */
        nt = 0;
        for (size_t o = lo; o < hi; o++) {
            const kr_wave *w = &c->waves[order[o]];
            for (size_t i = 0; i < w->ninsts; i++) {
                tk[nt].wave = (uint32_t)(o - lo);
                tk[nt++].rec = (uint32_t)i;
            }
        }
    }

    /* pass 2: the listed tokens */
    uint32_t at = UINT32_MAX;
    const kr_wave *w = NULL;
    for (const wtok *x = tk, *xend = nt ? tk + nt : tk; x < xend; x++) {
        if (x->wave != at) {
            at = x->wave;
            w = &c->waves[order[lo + at]];
            for (int k = VALU; k <= ALL; k++)
                seek(&sets[k], (int64_t)w->begin);
        }
        const kr_inst *r = &w->insts[x->rec];
        /* last: the wave's begin, or the previous record's clock + cycles */
        int64_t last = x->rec ? (int64_t)r[-1].time + (r[-1].dur > r[-1].stall ? r[-1].dur : r[-1].stall)
                              : (int64_t)w->begin;
        int64_t clock = (int64_t)r->time, stall = r->stall;
        int64_t cycles = r->dur > r->stall ? r->dur : r->stall;
        triple t = {0, 0, 0}, u = {0, 0, 0};
        switch (TOKEN_TYPE(r, matrix, c->nrows)) {
        case T_MATRIX:
            H(&sets[VALU], last, clock, stall, cycles, 0, &u);
            H(&sets[WMMA], last, clock, stall, cycles, 0, &t);
            if (TOTAL(u) > TOTAL(t))
                t = u;
            break;
        case KR_CAT_VALU:
            if (sets[WMMA].n)
                H(&sets[WMMA], last, clock, stall, cycles, 1, &t);
            H(&sets[VALU], last, clock, stall, cycles, 0, &u);
            if (TOTAL(u) > TOTAL(t))
                t = u;
            break;
        case KR_CAT_VMEM: case KR_CAT_LDS: case KR_CAT_FLAT:
            H(&sets[MATH], last, clock, stall, cycles, 1, &u);
            H(&sets[VMEM], last, clock, stall, cycles, 0, &t);
            if (TOTAL(u) > TOTAL(t))
                t = u;
            break;
        case KR_CAT_SALU: case KR_CAT_SMEM:
            H(&sets[VECTOR], last, clock, stall, cycles, 1, &u);
            H(&sets[SCAL], last, clock, stall, cycles, 0, &t);
            if (TOTAL(u) > TOTAL(t))
                t = u;
            break;
        default:
            H(&sets[ALL], last, clock, stall, cycles, 1, &t);
            break;
        }
        ADD_ROW(raw, c, r, t);
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
        for (const ival *iv = mm->v, *ivend = mm->n ? mm->v + mm->n : mm->v; iv < ivend && a < n; iv++) {
            if (iv->e <= iv->b)
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
            for (size_t i = a; i < n && (int64_t)ins[i].time < iv->e; i++) {
                const kr_inst *r = &ins[i];
                if (r->cat != KR_CAT_VALU || r->stall != 0 || TOKEN_TYPE(r, matrix, c->nrows) != KR_CAT_VALU)
                    continue;
                int64_t clock = (int64_t)r->time;
                int64_t last = i ? (int64_t)ins[i - 1].time + (ins[i - 1].dur > ins[i - 1].stall
                                                                  ? ins[i - 1].dur : ins[i - 1].stall)
                                 : (int64_t)wv->begin;
                if (last < clock)
                    continue;                  /* not quiet: pass 2 had it */
                int64_t e = clock + (int64_t)r->dur;
                int64_t x0 = clock > iv->b ? clock : iv->b, x1 = e < iv->e ? e : iv->e;
                if (x1 > x0 && r->row < c->nrows)
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
    uint8_t *matrix;                 /* per row: a matrix token (§8.4) */
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
    a->matrix = calloc(nr, 1);
    a->raw = calloc(3 * nr, sizeof *a->raw);
    if (!a->matrix || !a->raw) {
        an_hidden_acc_free(a);
        return NULL;
    }
    for (size_t r = 0; r < c->nrows; r++)
        a->matrix[r] = !c->rows[r].is_label && matrix_text(c->rows[r].isa);
    return a;
}

int an_hidden_acc_scope(an_hidden_acc *a, const kr_capture *c, const size_t *waves, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        a->tokens += c->waves[waves[i]].ninsts;
    a->scopes++;
    return scope(c, a->matrix, waves, 0, n, a->raw, &a->wk);
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
    for (int k = 0; k < NSETS; k++) {
        free(a->wk.sets[k].v);
        free(a->wk.sets[k].pre);
    }
    free(a->wk.ends);
    free(a->wk.maxc);
    free(a->wk.toks);
    free(a->matrix);
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
