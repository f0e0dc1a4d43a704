/* hidden.c — see hidden.h. Rules: docs/hidden-latency.md (RCV
 * src/analysis/hidden_latency.cpp), per-row split docs/stalls.md#issue-stall-and-idle. */
#include "analyzer/hidden.h"

#include <stddef.h>
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

/* The capacity to grow to for n elements (exactly n: the callers know
 * the count or a tight bound), or 0 when cap already holds them. */
static size_t grown(size_t cap, size_t n)
{
    return cap >= n ? 0 : n;
}

/* The next capacity of a list that grows while it is written (pass 1):
 * by a quarter, so that the unused tail stays small. */
static size_t more(size_t cap)
{
    return cap + cap / 4 + 256;
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

/* Frees a buffer that the rest of the scope does not need. */
static void drop(ilist *s)
{
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

static void drop_set(iset *s)
{
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

static int by_begin(const void *a, const void *b)
{
    const ival *x = a, *y = b;
    return (x->b > y->b) - (x->b < y->b);
}

/* The end of a run of (begin, end) pairs: begin INT64_MAX. */
static const ival run_end = {INT64_MAX, INT64_MAX};

/* The viewer's util() into out: sort by begin; a (begin, length) that starts
 * at or before the end of the open output interval adds its length to it,
 * any other one opens a new interval. The order of equal begins does not
 * change the result (after the first of them, the others all extend the
 * same interval). When `ordered`, raw holds (begin, begin + length) as
 * `nruns` runs, one per wave, each sorted by begin and closed by a run_end
 * at ends[r] (the next run starts after it; ends is overwritten); raw->n
 * counts the run_ends too. Sorted runs are merged pairwise through tmp down
 * to two, which are merged while condensing. Otherwise raw holds raw->n
 * pairs with room for one more, sorted whole here. raw's buffer may be
 * swapped with tmp's. Points are < INT64_MAX (docs/formats.md#wave-files field ranges), so the
 * run_ends stop every merge. */
static int util(ilist *raw, size_t *ends, size_t nruns, int ordered, ilist *tmp, iset *out)
{
    size_t npairs = ordered ? raw->n - nruns : raw->n;
    if (reserve_set(out, npairs))
        return KR_INTERNAL;
    if (npairs == 0) {
        close_set(out, out->v + 1, 0);
        return 0;
    }
    if (!ordered) {
        qsort(raw->v, raw->n, sizeof *raw->v, by_begin);
        raw->v[raw->n] = run_end;
        ends[0] = raw->n;
        nruns = 1;
    }
    if (nruns > 2 && reserve(tmp, raw->n))
        return KR_INTERNAL;
    while (nruns > 2) {
        ival *o = tmp->v;
        size_t m = 0, from = 0;
        for (size_t r = 0; r < nruns; r += 2) {
            const ival *x = raw->v + from;
            const ival *y = r + 1 < nruns ? raw->v + ends[r] + 1 : &run_end;
            for (;;) {
                if (x->b <= y->b) {
                    if (x->b == INT64_MAX)
                        break;
                    *o++ = *x++;
                } else {
                    *o++ = *y++;
                }
            }
            from = (r + 1 < nruns ? ends[r + 1] : ends[r]) + 1;   /* the next pair of runs */
            *o = run_end;
            ends[m++] = (size_t)(o - tmp->v);   /* m <= r: ends[r ..] not yet read are intact */
            o++;
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
    const ival *x = raw->v, *y = nruns == 2 ? raw->v + ends[0] + 1 : &run_end;
    seg *o = out->v + 1;
    int64_t acc = 0;
    /* the open output interval [ob, oe), from the smallest begin */
    int64_t ob = x->b <= y->b ? x->b : y->b, oe = ob;
    for (;;) {
        const ival *v;
        if (x->b <= y->b) {
            if (x->b == INT64_MAX)
                break;
            v = x++;
        } else {
            v = y++;
        }
        /* condensing without a branch on the data (whether a pair opens
         * the next interval follows the two runs' interleaving, which a
         * branch predictor cannot learn): the open interval is written at
         * o every step, and o moves on only when the next one opens (the
         * writes stay within the npairs + 1 slots after v[0]) */
        const int64_t vb = v->b, ve = v->e;
        const int64_t open = -(int64_t)(vb > oe);   /* all ones when [vb, ve) opens the next interval */
        o->b = ob;
        o->l = oe - 1;
        o->pre = acc;
        o += open & 1;
        acc += (oe - ob) & open;
        ob ^= (ob ^ vb) & open;
        const int64_t ext = oe + (ve - vb);
        oe = ext ^ ((ext ^ ve) & open);
    }
    EMIT(o, acc, ob, oe);
    close_set(out, o, acc);
    return 0;
}

/* Ordinary union of two condensed sets; zero-length intervals dropped.
 * Intervals are handled as [b, l] (l = end − 1). The interval of the
 * smaller begin opens an output interval (unless empty), which then takes
 * every interval of either set that starts at or before its end (l + 1),
 * until neither does. */
static int uni(const iset *x, const iset *y, iset *out)
{
    if (reserve_set(out, x->n + y->n))
        return KR_INTERNAL;
    /* both end in a MAX sentinel, so the merge needs no bounds (points are
     * < INT64_MAX, so no end reaches the sentinels' begin) */
    const seg *a = x->v + 1, *b = y->v + 1;
    seg *o = out->v + 1;
    int64_t acc = 0;
    for (;;) {
        const seg *n = a->b <= b->b ? a++ : b++;
        int64_t cb = n->b, cl = n->l;
        if (cb == INT64_MAX)               /* the sentinels: both sets done */
            break;
        if (cl < cb)                       /* empty */
            continue;
        for (;;) {
            if (a->b <= cl + 1) {
                if (a->l > cl)
                    cl = a->l;
                a++;
            } else if (b->b <= cl + 1) {
                if (b->l > cl)
                    cl = b->l;
                b++;
            } else {
                break;
            }
        }
        EMIT(o, acc, cb, cl + 1);
    }
    close_set(out, o, acc);
    return 0;
}

/* A condensed set as the per-token passes walk it: its intervals
 * v[1 .. n] between the sentinels v[0] and top = v[n + 1]. */
typedef struct walk {
    const seg *v, *top;
} walk;

static walk walk_of(const iset *s)
{
    return (walk){s->v, s->v + s->n + 1};
}

/* The interval after the last one in [p, p + n) whose end is not after
 * x, known to be p (p->l < x) or one after it: bisection that halves the
 * count (no pointer differences). */
static inline __attribute__((always_inline)) const seg *last_before(const seg *p, size_t n, int64_t x)
{
    while (n > 1) {                       /* the last with l < x is in [p, p + n) */
        size_t half = n / 2;
        if (p[half].l < x)
            p += half;
        n -= half;
    }
    return p + 1;
}

/* The first interval (in v[1 .. n + 1]) whose end is after x, known to be
 * after i (i->l < x): galloping forward from i, then bisection, so a jump
 * over d intervals costs O(log d). The trailing sentinel (end MAX) bounds
 * the search. */
static const seg *gallop(walk w, const seg *i, int64_t x)
{
    const seg *lo = i;
    size_t step = 2;
    for (;;) {                            /* lo->l < x */
        size_t room = (size_t)(w.top - lo);
        if (room <= step)
            return last_before(lo, room, x);   /* top->l = MAX >= x */
        if (lo[step].l >= x)
            return last_before(lo, step, x);
        lo += step;
        step *= 2;
    }
}

/* The same, known to be before i (i[−1].l >= x): bisection over
 * v[1 .. i − 1] (the leading sentinel has end MIN). */
static const seg *back(walk w, const seg *i, int64_t x)
{
    return last_before(w.v, (size_t)(i - 1 - w.v), x);
}

/* Moves cursor i (in v[1 .. n + 1]) to the first interval whose end is
 * after x: a few steps forward (the usual case: the points of one wave
 * arrive in order and close together), then galloping; backward by
 * bisection. The trailing sentinel (end MAX) stops every forward step
 * inside the array. */
static inline __attribute__((always_inline)) const seg *move_to(walk w, const seg *i, int64_t x)
{
    if (i->l >= x)
        return i[-1].l >= x ? back(w, i, x) : i;
    for (int step = 0; step < 10; step++)
        if ((++i)->l >= x)
            return i;
    return gallop(w, i, x);
}

/* |set ∩ (−∞, x)| with the cursor *k (the first interval ending after the
 * last point asked, which is <= x) moved forward to x. */
static inline __attribute__((always_inline)) int64_t fwd(walk w, const seg **k, int64_t x)
{
    const seg *i = *k;
    if (i->l < x) {
        i++;
        for (int step = 0; step < 6 && i->l < x; step++)
            i++;
        if (i->l < x)
            i = gallop(w, i, x);
    }
    *k = i;
    return x > i->b ? i->pre + (x - i->b) : i->pre;
}

/* The eval_* functions: not inlined, and with gcc not specialized for
 * their caller either (noipa), which measured fewer instructions in their
 * loops. */
#if defined(__GNUC__) && !defined(__clang__)
#define NOIPA __attribute__((noipa))
#else
#define NOIPA __attribute__((noinline))
#endif

typedef struct triple {
    int64_t idle, stall, issue;
} triple;

static inline __attribute__((always_inline)) int64_t H_at(walk w, const seg **k, int64_t lo, int64_t clock,
                                                          int64_t s1, int64_t hi, int with_issue, triple *t);

/* H(set) of a token into *t: its idle [last, clock), stall [clock, s1 =
 * clock + stall) and issue [s1, end = clock + cycles) intersected with
 * the set; the issue part only when with_issue. With lo = min(last,
 * clock) (an empty or reversed idle interval gives 0) the parts are the
 * consecutive [lo, clock), [clock, s1), [s1, hi), hi = end or s1, so each
 * is cov(its end) − cov(its begin), cov(x) = |set ∩ (−∞, x)|. Returns
 * their total, 0 iff every part is 0 (none is negative); *t is set
 * whenever the total is not 0. hi <= lo means every part is empty
 * (nothing to look up). The cursor *k is moved to lo (either way), then only
 * forward, since lo <= clock <= s1 <= hi. */
static inline __attribute__((always_inline)) int64_t H(walk w, const seg **k, int64_t lo, int64_t clock,
                                                       int64_t s1, int64_t hi, int with_issue, triple *t)
{
    if (hi <= lo)
        return 0;
    *k = move_to(w, *k, lo);
    return H_at(w, k, lo, clock, s1, hi, with_issue, t);
}

/* H with hi > lo and the cursor *k already moved to lo. */
static inline __attribute__((always_inline)) int64_t H_at(walk w, const seg **k, int64_t lo, int64_t clock,
                                                          int64_t s1, int64_t hi, int with_issue, triple *t)
{
    const seg *i = *k;
    if (i->b >= hi)                       /* no busy interval meets [lo, hi) */
        return 0;
    if (i->l >= hi - 1) {                 /* [lo, hi) ends inside interval i: cov(x) is */
        int64_t b = i->b;                 /* pre + the stretch of x past b */
        int64_t ml = lo > b ? lo : b, mc = clock > b ? clock : b, ms = s1 > b ? s1 : b;
        t->idle = mc - ml;
        t->stall = ms - mc;
        t->issue = with_issue ? hi - ms : 0;
        return hi - ml;
    }
    int64_t c0 = lo > i->b ? i->pre + (lo - i->b) : i->pre;
    int64_t c1 = lo < clock ? fwd(w, &i, clock) : c0;
    int64_t c2 = s1 > clock ? fwd(w, &i, s1) : c1;
    int64_t c3 = with_issue && hi > s1 ? fwd(w, &i, hi) : c2;
    *k = i;
    t->idle = c1 - c0;
    t->stall = c2 - c1;
    t->issue = c3 - c2;
    return c3 - c0;
}

/* H(x ∪ y) of a token with issue, the same as H of the union set (uni())
 * without building it. When only one of x and y meets [lo, hi), it is H
 * of that one; otherwise the intervals of both that meet [lo, hi) are
 * swept in begin order, and of each only the stretch past the ones before
 * (at) counts, so every covered cycle counts once; each such stretch
 * [b, e) falls into idle, stall and issue at clock and s1. Returns the
 * total and sets *t as H does; the cursors as H's. */
static inline __attribute__((always_inline)) int64_t HU(walk wx, const seg **kx, walk wy, const seg **ky, int64_t lo,
                                                        int64_t clock, int64_t s1, int64_t hi, triple *t)
{
    if (hi <= lo)
        return 0;
    const seg *i = move_to(wx, *kx, lo), *j = move_to(wy, *ky, lo);
    *kx = i;
    *ky = j;
    if (j->b >= hi)
        return H_at(wx, kx, lo, clock, s1, hi, 1, t);
    if (i->b >= hi)
        return H_at(wy, ky, lo, clock, s1, hi, 1, t);
    int64_t idle = 0, stall = 0, issue = 0, at = lo;
    for (;;) {
        const seg *n = i->b <= j->b ? i++ : j++;   /* the sentinels (begin MAX) end both */
        if (n->b >= hi)
            break;
        int64_t b = n->b > at ? n->b : at, e = n->l < hi - 1 ? n->l + 1 : hi;
        if (e <= b)
            continue;
        int64_t mc = clock < b ? b : clock > e ? e : clock, ms = s1 < b ? b : s1 > e ? e : s1;
        idle += mc - b;
        stall += ms - mc;
        issue += e - ms;
        at = e;
    }
    t->idle = idle;
    t->stall = stall;
    t->issue = issue;
    return idle + stall + issue;
}

static int matrix_text(const char *isa)
{
    /* most rows fail the first two tests, before any call */
    if (!isa || isa[0] != 'v' || isa[1] != '_')
        return 0;
    const char *t = isa + 2 + (isa[2] == 's');
    return (t[0] == 'm' && strncmp(t, "mfma", 4) == 0) || (t[0] == 'w' && strncmp(t, "wmma", 4) == 0);
}

static int by_se_simd(const void *a, const void *b, const kr_capture *c)
{
    const kr_wave *x = &c->waves[*(const size_t *)a], *y = &c->waves[*(const size_t *)b];
    if (x->se != y->se) return x->se < y->se ? -1 : 1;
    if (x->simd != y->simd) return x->simd < y->simd ? -1 : 1;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    return i < j ? -1 : i > j;
}

/* A ranked row's key, in the ranking's order (non-hidden latency
 * descending, then vaddr and row ascending) by rkey_before. */
typedef struct rkey {
    uint64_t non_hidden, vaddr;
    uint32_t row;
} rkey;

static inline int rkey_before(const rkey *x, const rkey *y)
{
    if (x->non_hidden != y->non_hidden) return x->non_hidden > y->non_hidden;
    if (x->vaddr != y->vaddr) return x->vaddr < y->vaddr;
    return x->row < y->row;
}

/* Sorts v[0 .. n) by rkey_before with tmp (n keys) as scratch: a
 * bottom-up merge sort, stable, its comparisons inline (a row's key is 24
 * bytes; qsort with a callback on the 88-byte rows took several times as
 * long). The result is in v. */
static void sort_keys(rkey *v, rkey *tmp, size_t n)
{
    rkey *a = v, *b = tmp;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                b[k++] = rkey_before(&a[j], &a[i]) ? a[j++] : a[i++];
            while (i < mid)
                b[k++] = a[i++];
            while (j < hi)
                b[k++] = a[j++];
        }
        rkey *t = a;
        a = b;
        b = t;
    }
    if (a != v)
        memcpy(v, a, n * sizeof *v);
}

/* Busy lists as pushed (RAW_*, with TMP for merging) and condensed sets
 * (VALU .. SCAL by util, MATH and VECTOR by uni; all = vector ∪ scal is
 * not built, see HU). */
enum { RAW_VALU, RAW_WMMA, RAW_VMEM, RAW_SCAL, TMP, NRAW };
enum { VALU, WMMA, VMEM, SCAL, MATH, VECTOR, NSETS };

/* Busy list of a token type (pass 1); MATRIX feeds two, the rest (L_NONE)
 * none. */
enum { L_VALU = RAW_VALU, L_WMMA = RAW_WMMA, L_VMEM = RAW_VMEM, L_SCAL = RAW_SCAL, L_NONE, L_MATRIX, NL };

/* The pass-2 token lists: VALU and MATRIX tokens (both take H(valu) and
 * H(wmma), see eval), VMEM ones, SALU ones, and those of the rest (H(all),
 * flagged TOK_ALL). Each comes in two, the second (T_x + 1) for the tokens
 * pass 1 sorts out, when the scope may take bitmaps (`split`, see scope),
 * as having no idle before them (clock <= last), for which the bitmap pass
 * need not look up or read last: a VALU, MATRIX or rest token goes to
 * T_VALU_N or T_NONE_N, a VMEM or SALU one only with no stall as well, to
 * T_VMEM_Q or T_SCAL_Q (its candidate without issue is then empty, so it
 * is H(math) or H(vector) of its issue interval alone, deval_issue).
 * Without `split` (the walk) the lists are those the walk takes in fewest
 * steps: every token in the first list of its type, and the rest's in
 * T_SCAL, whose sets they share (eval_scal). */
enum { T_VALU, T_VALU_N, T_VMEM, T_VMEM_Q, T_SCAL, T_SCAL_Q, T_NONE, T_NONE_N, NT };

/* A token the per-token pass handles (see scope): the address of its
 * record (whose row is < nrows: tokens without a row add to nothing and
 * are not kept), | TOK_MATRIX for a MATRIX token, whose H(wmma) leaves out
 * issue. Pass 2 reads clock, stall, cycles and row from the record and
 * last, the end of the token before it, from the record before it (see
 * tok): 8 bytes a token, since the token lists are the largest buffers
 * of a scope. A wave's first record has no record before it (its last is
 * the wave's begin): its token points to a copy of it in the scope's
 * firsts, after a stand-in record that ends at the wave's begin (see
 * wave_pass1). Records are 8-byte aligned, so bit 0 is free. */
typedef uintptr_t wtok;
#define TOK_MATRIX ((uintptr_t)1)
#define TOK_ALL TOK_MATRIX           /* in T_SCAL or T_NONE*: a token of the rest, H(all) */
_Static_assert(_Alignof(kr_inst) >= 2, "a record's address must leave bit 0 free");

/* A run of consecutive quiet VALU records of one wave [first, end), whose
 * issue intervals all end at or before hi (see scope). */
typedef struct qseg {
    const kr_inst *first, *end;
    int64_t hi;
} qseg;

typedef struct tlist {
    wtok *v;
    size_t cap;
} tlist;

/* The sizes of the last scope, per token (see estimate): the busy lists
 * (with their run_ends), the token lists, the segments. */
enum { H_RAW = 0, H_TL = 4, H_SEGS = H_TL + NT, NHINT };

/* The scope's buffers. Each is allocated when its phase starts and freed
 * when the scope no longer needs it (see scope), so that the peak is that
 * of the largest phase, not the sum of all. */
typedef struct work {
    ilist raw[NRAW];
    iset sets[NSETS];
    size_t *ends;                    /* run ends: 4 lists × waves of the scope */
    size_t nends;
    kr_inst *firsts;                 /* 2 per wave of the scope: see wtok */
    size_t nfirsts;
    tlist tl[NT];                    /* pass-2 tokens per T_* */
    qseg *segs;                      /* pass-3 segments */
    size_t nsegs, segcap;
    size_t hint[NHINT], hint_tokens; /* the last scope's counts and tokens */
    an_hidden_method method;
    int popcnt;                      /* the CPU has popcnt (HIDDEN_POPCNT) */
    size_t bitmaps;                  /* scopes evaluated on bitmaps */
    struct dblk *dv[3];              /* the bitmaps (dense_phases), allocated and freed in each scope */
} work;

/* The first capacity of a list that grows in pass 1: the last scope's
 * count scaled to this scope's tokens (scopes of a capture are usually
 * alike), plus a margin. */
static size_t estimate(const work *wk, int h, size_t tokens)
{
    /* with no scope before: an eighth of the tokens for each busy list and
     * each type's pair of token lists */
    size_t n = wk->hint_tokens ? (size_t)((double)wk->hint[h] * (double)tokens / (double)wk->hint_tokens)
                               : h >= H_TL && h < H_TL + NT ? tokens / 16 : tokens / 8;
    return n + n / 16 + 512;
}

/* The acc's table: [m * 256 + category] the step of a record (G, see
 * below), m = 0 for a record without a row, 1 for one of an ordinary row,
 * 2 for one of a matrix row; then from TAB_ROWS on [row + 1] = m, [0] = 0
 * for KR_ROW_NONE: ROWM(tab)[(int32_t)row] is m of any record (rows are
 * < nrows or KR_ROW_NONE, model.h), without a bounds test. */
#define TAB_ROWS 768
#define TAB_MATRIX 2
#define ROWM(tab_) ((tab_) + TAB_ROWS + 1)
#define ROW_M(tab_, row_) ((tab_)[TAB_ROWS + 1 + (ptrdiff_t)(int32_t)(row_)])
_Static_assert((int32_t)KR_ROW_NONE == -1, "KR_ROW_NONE must read ROWM[-1]");

/* A record's step: its busy list (L_*) times 2, + 1 when it has a row
 * (its token is kept). L_WMMA and L_MATRIX without a row do not occur. */
#define G(l_, t_) (2 * (l_) + (t_))
#define G_LIST(g_) ((unsigned)(g_) >> 1)

/* Appends the token of record r_ (flags m_) to list l (q[l] its free
 * part, which room() keeps large enough). */
#define PUSH(q_, l_, r_, m_) (*(q_)[l_]++ = (uintptr_t)(r_) | (m_))

/* A token as pass 2 reads it (see wtok). */
typedef struct tokv {
    int64_t lo, clock, s1, end;       /* lo = min(last, clock); end = clock + cycles */
    uint32_t row;
} tokv;

/* Decodes token p; matrix: the list may hold MATRIX tokens (end = s1 for
 * them). last is the end of the record before (clock + cycles), as pass 1
 * computed it (times modular, as there); noidle: the list's tokens have
 * clock <= last (lo = clock, the record before is not read). */
static inline __attribute__((always_inline)) tokv tok_in(wtok p, int matrix, int noidle)
{
    const kr_inst *r = (const kr_inst *)(matrix ? p & ~TOK_MATRIX : p);
    tokv v;
    uint32_t st = r->stall, du = r->dur;
    v.clock = (int64_t)r->time;
    v.s1 = v.clock + st;
    v.end = matrix && (p & TOK_MATRIX) ? v.s1 : v.clock + (du > st ? du : st);
    if (noidle) {
        v.lo = v.clock;
    } else {
        uint32_t pst = r[-1].stall, pdu = r[-1].dur;
        int64_t last = (int64_t)r[-1].time + (pdu > pst ? pdu : pst);
        v.lo = last < v.clock ? last : v.clock;
    }
    v.row = r->row;
    return v;
}

static inline __attribute__((always_inline)) tokv tok(wtok p, int matrix)
{
    return tok_in(p, matrix, 0);
}

/* Pass 2 over one token list: t = H(tset) (the second candidate, which
 * wins ties), u = H(uset); the larger total is added to the token's row.
 * Inlined in the eval_* functions below, so that the flags are
 * constants. */
static inline __attribute__((always_inline)) void eval(const wtok *x, const wtok *xend,
                                                       const iset *tset, int t_issue,
                                                       const iset *uset, int u_issue, int matrix, int64_t *raw)
{
    walk tw = walk_of(tset), uw = walk_of(uset);
    const seg *kt = tw.v + 1, *ku = uw.v + 1;
    for (; x < xend; x++) {
        tokv v = tok(*x, matrix);
        triple t, u = {0, 0, 0};
        int64_t ut = H(uw, &ku, v.lo, v.clock, v.s1, u_issue ? v.end : v.s1, u_issue, &u);
        int64_t tt = H(tw, &kt, v.lo, v.clock, v.s1, t_issue ? v.end : v.s1, t_issue, &t);
        /* the winner added where it is known (no triple copied); with
         * tt = 0 (the usual case) u wins whenever it is not 0 */
        int64_t *y = &raw[3 * (size_t)v.row];
        if (tt != 0 && ut <= tt) {
            y[0] += t.idle;
            y[1] += t.stall;
            y[2] += t.issue;
        } else if (ut != 0) {
            y[0] += u.idle;
            y[1] += u.stall;
            y[2] += u.issue;
        }
    }
}

/* eval with the flags of each token list, as functions of their own (the
 * compiler then keeps each loop's state in registers): VALU (and MATRIX)
 * tokens H(wmma), H(valu) issue = 0; VMEM ones H(vmem) issue = 0,
 * H(math) (eval_own); SALU ones and the rest see eval_scal. */
static NOIPA void eval_valu(const wtok *x, const wtok *xend, const iset *wmma, const iset *valu,
                                                int64_t *raw)
{
    eval(x, xend, wmma, 1, valu, 0, 1, raw);
}

static NOIPA void eval_own(const wtok *x, const wtok *xend, const iset *own, const iset *un,
                                               int64_t *raw)
{
    walk tw = walk_of(own), uw = walk_of(un);
    const seg *kt = tw.v + 1, *ku = uw.v + 1;
    for (; x < xend; x++) {
        tokv v = tok(*x, 0);
        triple t, u = {0, 0, 0};
        /* u = H(un) first: above s1 − lo, the most t = H(own) (issue
         * left out) can be, it wins whatever t is, and t is not needed */
        int64_t ut = H(uw, &ku, v.lo, v.clock, v.s1, v.end, 1, &u);
        const triple *w = &u;
        if (ut <= v.s1 - v.lo) {
            int64_t tt = H(tw, &kt, v.lo, v.clock, v.s1, v.s1, 0, &t);
            if (ut <= tt) {                    /* t wins ties */
                if (tt == 0)
                    continue;
                w = &t;
            }
        }
        int64_t *y = &raw[3 * (size_t)v.row];
        y[0] += w->idle;
        y[1] += w->stall;
        y[2] += w->issue;
    }
}

/* SALU and SMEM tokens (as eval_own with own = scal, un = vector) and,
 * flagged TOK_ALL, those of the rest: H(all), all = vector ∪ scal (HU).
 * One list in record order (unless split), so both kinds move the same
 * two cursors forward in small steps. */
static NOIPA void eval_scal(const wtok *x, const wtok *xend, const iset *scal, const iset *vector, int64_t *raw)
{
    walk sw = walk_of(scal), vw = walk_of(vector);
    const seg *ks = sw.v + 1, *kv = vw.v + 1;
    for (; x < xend; x++) {
        wtok p = *x;
        tokv v = tok(p & ~TOK_ALL, 0);
        triple t, u = {0, 0, 0};
        int64_t *y = &raw[3 * (size_t)v.row];
        if (p & TOK_ALL) {
            if (HU(vw, &kv, sw, &ks, v.lo, v.clock, v.s1, v.end, &t) != 0) {
                y[0] += t.idle;
                y[1] += t.stall;
                y[2] += t.issue;
            }
            continue;
        }
        /* as in eval_own */
        int64_t ut = H(vw, &kv, v.lo, v.clock, v.s1, v.end, 1, &u);
        const triple *w = &u;
        if (ut <= v.s1 - v.lo) {
            int64_t tt = H(sw, &ks, v.lo, v.clock, v.s1, v.s1, 0, &t);
            if (ut <= tt) {
                if (tt == 0)
                    continue;
                w = &t;
            }
        }
        y[0] += w->idle;
        y[1] += w->stall;
        y[2] += w->issue;
    }
}

/* Pass 1's state across the waves of a scope (see scope). */
typedef struct p1 {
    const uint8_t *tab;
    uint32_t nrows;
    ival *lq[4];                     /* where each busy list's next run goes */
    wtok *tq[NT];                    /* per token list: next free token */
    int64_t gend;                    /* the largest end (clock + cycles) of a token of the rest */
    int split;                       /* tokens sorted out to the T_x + 1 lists (see T_VALU) */
    work *wk;
} p1;

/* Whether record x has stall 0 and the VALU category (see wave1): on a
 * little-endian target both are read as one 8-byte word, stall then
 * category then padding, the padding shifted out. */
_Static_assert(sizeof(((kr_inst *)0)->stall) == 4 && sizeof(((kr_inst *)0)->cat) == 1 &&
               offsetof(kr_inst, cat) == offsetof(kr_inst, stall) + 4 &&
               offsetof(kr_inst, stall) + 8 <= sizeof(kr_inst), "stall and cat must be adjacent");
static inline __attribute__((always_inline)) int valu0(const kr_inst *x)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t w;
    memcpy(&w, (const char *)x + offsetof(kr_inst, stall), sizeof w);
    return w << 24 == (uint64_t)KR_CAT_VALU << 56;
#else
    return x->stall == 0 && x->cat == KR_CAT_VALU;
#endif
}

/* Pass 1. With a wave's begins in order, its pairs that start at or
 * before the end re of its open run join the run (re += length): in
 * util()'s merged order such a pair and every pair of another wave
 * between them extend the same output interval, so util() of the runs
 * equals util() of the pairs (and of any mix of runs and pairs that keeps
 * the begins in order). The open run's begin is already written at out;
 * re = INT64_MIN: no run yet (the ends of runs are >= 0, points being
 * >= 0, so re < 0 tells it with one test). */
#define RUN(re_, out_, b_, len_) do { \
    if ((b_) <= (re_)) { \
        (re_) += (len_); \
    } else { \
        if ((re_) >= 0) \
            ((out_)++)->e = (re_); \
        (out_)->b = (b_); \
        (re_) = (b_) + (len_); \
    } \
} while (0)
#define QSEG(first_, end_, hi_) do { \
    gq->first = (first_); \
    gq->end = (end_); \
    gq->hi = (hi_); \
    gq++; \
} while (0)

/* Makes room in buffer *v (*cap elements of size sz, the first used of
 * them written) for keep + want more, growing it by more() at least, and
 * lowers *fit to the free room beyond keep. 0 or KR_INTERNAL. */
static int make_room(void **v, size_t *cap, size_t sz, size_t used, size_t keep, size_t want, size_t *fit)
{
    size_t need = used + keep + want;
    if (*cap < need) {
        size_t c = more(*cap);
        if (c < need)
            c = need;
        void *n = realloc(*v, c * sz);
        if (!n)
            return KR_INTERNAL;
        *v = n;
        *cap = c;
    }
    if (*cap - keep - used < *fit)
        *fit = *cap - keep - used;
    return 0;
}

/* Room for the next *fit of `left` records, each of which adds at most
 * one pair to each busy list, one token and one segment: *fit <= left, and
 * *fit > 0 when left > 0, since buffers with less than 256 free slots (or
 * left) grow. The busy lists keep two more slots free for the part's last
 * valu run and the run_ends. The write positions in p move with their
 * storage. 0 or KR_INTERNAL. */
static int room(p1 *p, size_t left, size_t *fitp)
{
    work *wk = p->wk;
    size_t fit = left, want = left < 256 ? left : 256;
    for (int k = 0; k < 4; k++) {
        ilist *s = &wk->raw[k];
        size_t used = (size_t)(p->lq[k] - s->v);
        void *v = s->v;
        if (make_room(&v, &s->cap, sizeof *s->v, used, 2, want, &fit))
            return KR_INTERNAL;
        s->v = v;
        p->lq[k] = s->v + used;
    }
    for (int l = 0; l < NT; l++) {
        tlist *t = &wk->tl[l];
        size_t used = t->v ? (size_t)(p->tq[l] - t->v) : 0;
        void *v = t->v;
        if (make_room(&v, &t->cap, sizeof *t->v, used, 0, want, &fit))
            return KR_INTERNAL;
        t->v = v;
        p->tq[l] = t->v ? t->v + used : NULL;
    }
    void *v = wk->segs;
    if (make_room(&v, &wk->segcap, sizeof *wk->segs, wk->nsegs, 0, want, &fit))
        return KR_INTERNAL;
    wk->segs = v;
    *fitp = fit;
    return 0;
}

/* Pass 1 over the records [r, end), a part of one wave that fits the
 * buffers (see room): its runs (the last one too: a run cut at a part's
 * end is continued by the next part's first run, which util() joins to
 * it, see RUN), tokens and segments. pb and span as below, from the record
 * before r or the wave's begin. 0, or 1 when the wave breaks docs/formats.md#record-order's order
 * (then the caller starts over unordered). split: p->split, a constant in
 * each of wave1_split and wave1_walk, functions of their own so that the
 * compiler keeps the tight loop's state in registers. */
static inline __attribute__((always_inline)) int wave1(p1 *p, const kr_inst *r, const kr_inst *end, uint64_t pb,
                                                       uint64_t span, int split)
{
    const uint8_t *tab = p->tab;
    qseg *gq = p->wk->segs + p->wk->nsegs;   /* the next segment */
    /* pb = prev_b, the previous record's clock + stall (docs/formats.md#record-order: the
     * next clock is not before it), and span = last − prev_b, where
     * last is the previous token's clock + cycles (so span is its
     * issue length, >= 0); both modular: before the first record
     * prev_b is "−∞" and last is the wave's begin. Then prev_b <=
     * clock <= last is the one unsigned test clock − pb <= span. */
    /* The valu list gets runs (RUN), the others their pairs as they come
     * (util's input may be either, see RUN). */
    int64_t ve = INT64_MIN, gend = p->gend;
    ival *vq = p->lq[L_VALU];
    /* Quiet records: stall 0, VALU category, no idle before them
     * (clock <= last); MROW: of a matrix row. */
#define QUIET(x_) (valu0(x_) && (x_)->time - pb <= span)
#define MROW(x_) (ROW_M(tab, (x_)->row) == TAB_MATRIX)
    for (;;) {                            /* r < end */
        /* Quiet VALU records (not of a matrix row), in a tight loop: the
         * first joins the open valu run (clock <= ve) or opens the next
         * one, exactly as RUN does; either way ve >= its end afterwards,
         * so each next one (clock <= last = the end of the one before)
         * joins. Their tokens are handled by pass 3, which gets each such
         * run of records as a segment ending at or before ve. A quiet
         * MATRIX record ends the segment and is handled below; any other
         * record leaves for the general step, also one out of docs/formats.md#record-order order
         * (clock < prev_b), where the order is given up. */
        if (QUIET(r)) {
            if (MROW(r))
                goto qmatrix;
            const kr_inst *r0 = r;
            if ((int64_t)r->time > ve) {       /* RUN: the next run */
                if (ve >= 0)                   /* as in RUN */
                    (vq++)->e = ve;
                vq->b = ve = (int64_t)r->time;
            }
            /* QUIET(r) with pb and span of r[-1] (quiet: its clock and
             * duration), read from it: nothing to carry from one record to
             * the next but ve */
            for (;;) {
                ve += r->dur;
                if (++r == end || !valu0(r) || r->time - r[-1].time > r[-1].dur)
                    break;
                if (MROW(r)) {
                    QSEG(r0, r, ve);
                    goto qmatrix;
                }
            }
            pb = r[-1].time;
            span = r[-1].dur;
            QSEG(r0, r, ve);
            if (r == end)
                break;
        }
        /* the general step, one record: never a quiet one of the VALU
         * category (those are handled above and below) */
        const kr_inst *x = r++;
        uint32_t row = x->row, st = x->stall, du = x->dur;
        int64_t clock = (int64_t)x->time;
        if (clock < (int64_t)pb)       /* docs/formats.md#record-order broken: time[i+1] < time[i] + stall[i] */
            return 1;
        unsigned m = ROW_M(tab, row);
        int64_t b = clock + st;
        uint32_t cyc = du > st ? du : st, len = cyc - st;
        /* each step with its list as a constant; the steps with a row (odd)
         * keep the token. NI: no idle before it (clock <= last, as in
         * QUIET, with pb and span of the record before), Q: nor stall */
#define NI ((uint64_t)clock - pb <= span)
#define Q (st == 0 && NI)
#define SORT(x_) (split && (x_))
#define PAIR(l_) do { \
            p->lq[l_]->b = b; \
            p->lq[l_]->e = b + len; \
            p->lq[l_]++; \
        } while (0)
#define TOKEN(l_, m_) PUSH(p->tq, l_, x, m_)
        switch (tab[(m << 8) + x->cat]) {   /* the table holds G values only (< 12) */
        case G(L_VALU, 1):                  /* a VALU token with idle or stall */
            TOKEN(T_VALU + SORT(NI), 0);
            /* fall through */
        case G(L_VALU, 0):
            RUN(ve, vq, b, (int64_t)len);
            break;
        case G(L_MATRIX, 1):
            PAIR(L_WMMA);
            RUN(ve, vq, b, 3 * (int64_t)len / 4);
            /* unless quiet (both candidates leave out issue: nothing), the
             * same sets as VALU tokens (pass 2); its H(wmma) leaves out
             * issue (TOK_MATRIX) */
            if (!Q)
                TOKEN(T_VALU + SORT(NI), TOK_MATRIX);
            break;
        case G(L_VMEM, 1):
            TOKEN(T_VMEM + SORT(Q), 0);
            /* fall through */
        case G(L_VMEM, 0):
            PAIR(L_VMEM);
            break;
        case G(L_SCAL, 1):
            TOKEN(T_SCAL + SORT(Q), 0);
            /* fall through */
        case G(L_SCAL, 0):
            PAIR(L_SCAL);
            break;
        case G(L_NONE, 1):
            if (split)
                TOKEN(T_NONE + NI, TOK_ALL);
            else
                TOKEN(T_SCAL, TOK_ALL);
            /* the only token whose end is in no busy list (see scope) */
            gend = b + len > gend ? b + len : gend;
            break;
        default:                            /* no list, no token */
            break;
        }
        pb = (uint64_t)b;
        span = len;
#undef PAIR
#undef TOKEN
#undef NI
#undef Q
#undef SORT
        if (r == end)
            break;
        continue;
    qmatrix:
        /* A quiet MATRIX record: no token (both its candidates leave out
         * issue, so there is nothing to hide), only its pairs: wmma, and
         * 3/4 of its length to the valu run (RUN: after it the next quiet
         * VALU record need not join). */
        p->lq[L_WMMA]->b = (int64_t)r->time;
        p->lq[L_WMMA]->e = (int64_t)r->time + r->dur;
        p->lq[L_WMMA]++;
        RUN(ve, vq, (int64_t)r->time, 3 * (int64_t)r->dur / 4);
        pb = r->time;
        span = r->dur;
        if (++r == end)
            break;
    }
#undef QUIET
#undef MROW
    if (ve != INT64_MIN)
        (vq++)->e = ve;
    p->lq[L_VALU] = vq;
    p->gend = gend;
    p->wk->nsegs = (size_t)(gq - p->wk->segs);
    return 0;
}

static __attribute__((noinline)) int wave1_split(p1 *p, const kr_inst *r, const kr_inst *end, uint64_t pb,
                                                 uint64_t span)
{
    return wave1(p, r, end, pb, span, 1);
}

static __attribute__((noinline)) int wave1_walk(p1 *p, const kr_inst *r, const kr_inst *end, uint64_t pb,
                                                uint64_t span)
{
    return wave1(p, r, end, pb, span, 0);
}

/* Pass 3: quiet VALU tokens inside MFMA busy time (mm = wmma, not
 * empty). A quiet VALU token's result is H(wmma) = |[clock, clock +
 * duration) ∩ wmma| (stall 0, cycles = duration). A segment whose span
 * [first clock, hi) meets no wmma interval adds nothing; otherwise each of
 * its records adds cov(end) − cov(clock). Within a wave the segments and
 * their records come in time order (docs/formats.md#record-order holds here), so the cursor mostly
 * steps forward; it goes back (bisection) at a wave change. */
static void quiet(const iset *mm, const qseg *g, const qseg *gend, uint32_t nrows, int64_t *raw)
{
    walk w = walk_of(mm);
    const seg *k = w.v + 1;
    for (; g < gend; g++) {
        k = move_to(w, k, (int64_t)g->first->time);
        if (k->b >= g->hi)
            continue;
        for (const kr_inst *x = g->first; x < g->end; x++) {
            int64_t clock = (int64_t)x->time, e = clock + x->dur;
            k = move_to(w, k, clock);
            if (k->b >= e || x->row >= nrows)
                continue;
            const seg *i = k;
            int64_t c0 = clock > i->b ? i->pre + (clock - i->b) : i->pre;
            raw[3 * (size_t)x->row + 2] += fwd(w, &i, e) - c0;
        }
    }
}

/* Trims a union to its length (its bound was the sum of both inputs). */
static void fit_set(iset *s)
{
    if (s->cap > s->n + 2 + 64) {
        seg *v = realloc(s->v, (s->n + 2) * sizeof *v);
        if (v) {
            s->v = v;
            s->cap = s->n + 2;
        }
    }
}

/* Whether a buffer of cap elements holding n is worth shrinking: more
 * unused than the estimates leave (see estimate). */
static int slack(size_t cap, size_t n)
{
    return cap - n > n / 8 + 512;
}

/* The token lists tl[from .. to], once evaluated. */
static void drop_tls(tlist *tl, int from, int to)
{
    for (int l = from; l <= to; l++) {
        free(tl[l].v);
        tl[l].v = NULL;
        tl[l].cap = 0;
    }
}

/* The segments, once pass 3 has read them. */
static void drop_segs(work *wk)
{
    free(wk->segs);
    wk->segs = NULL;
    wk->nsegs = wk->segcap = 0;
}

/* The bitmaps' buffers (dense_phases). */
static void drop_dv(work *wk)
{
    for (int k = 0; k < 3; k++) {
        free(wk->dv[k]);
        wk->dv[k] = NULL;
    }
}

/* Room for n tokens in a list that pass 1 grows further if needed. */
static int reserve_tl(tlist *t, size_t n)
{
    if (t->cap >= n)
        return 0;
    wtok *v = realloc(t->v, n * sizeof *v);
    if (!v)
        return KR_INTERNAL;
    t->v = v;
    t->cap = n;
    return 0;
}

/* Points token *t, of wave w's first record, to a copy of that record at
 * f[1] after a stand-in f[0] that ends at the wave's begin (clock begin,
 * no cycles), so that pass 2 reads the right last (see wtok). */
static void first_token(wtok *t, const kr_wave *w, kr_inst *f)
{
    memset(&f[0], 0, sizeof f[0]);
    f[0].time = w->begin;
    f[1] = w->insts[0];
    *t = (uintptr_t)&f[1] | (*t & TOK_MATRIX);
}

/* Pass 1 over one wave, in parts that fit the buffers (room), then the
 * busy lists' run_ends; f: the wave's two slots in the scope's firsts.
 * 0, 1 (docs/formats.md#record-order broken) or KR_INTERNAL. */
static int wave_pass1(p1 *p, const kr_wave *w, kr_inst *f)
{
    const kr_inst *r = w->insts, *end = w->ninsts ? w->insts + w->ninsts : w->insts;
    size_t fit, at[NT];
    if (room(p, w->ninsts, &fit))      /* also the closing slots of an empty wave */
        return KR_INTERNAL;
    for (int l = 0; l < NT; l++)       /* where the wave's tokens start */
        at[l] = p->tq[l] ? (size_t)(p->tq[l] - p->wk->tl[l].v) : 0;
    /* the state before the first record: prev_b "−∞", last the wave's begin */
    uint64_t pb = (uint64_t)INT64_MIN, span = (uint64_t)(int64_t)w->begin - pb;
    while (r < end) {
        if (r > w->insts) {
            if (room(p, (size_t)(end - r), &fit))
                return KR_INTERNAL;
            /* the state after r[−1]: prev_b and the length of its issue */
            uint32_t st = r[-1].stall, du = r[-1].dur;
            pb = r[-1].time + st;
            span = (du > st ? du : st) - st;
        }
        int rc = p->split ? wave1_split(p, r, r + fit, pb, span) : wave1_walk(p, r, r + fit, pb, span);
        if (rc)
            return rc;
        if (r == w->insts)             /* the first record's token, if any, is the first in its list */
            for (int l = 0; l < NT; l++) {
                wtok *t = p->tq[l] ? p->wk->tl[l].v + at[l] : NULL;
                if (t && t < p->tq[l] && (const kr_inst *)(*t & ~TOK_MATRIX) == w->insts)
                    first_token(t, w, f);
            }
        r += fit;
    }
    for (int k = 0; k < 4; k++)
        *p->lq[k]++ = run_end;
    return 0;
}

/* The bitmap form of the busy sets (AN_HIDDEN_BITMAP). A scope's sets
 * share one frame: the cycles [base, base + lim), lim = 64·nb, in nb
 * blocks of 64. A set is nb + 1 blocks: block k holds the busy cycles of
 * [base + 64k, base + 64k + 64) as bits and the count of busy cycles
 * before it; block nb (no bits) holds the set's total. Then |set ∩ (−∞,
 * x)| is one block's count plus the population count of its bits below x:
 * no cursor, no search, and no branch (x is clamped into the frame). */
typedef struct dblk {
    uint64_t bits;
    int64_t pre;
} dblk;

typedef struct dframe {
    int64_t base;
    uint64_t lim;
    size_t nb;
} dframe;

/* A point's place in the frame: its block and the mask of the bits
 * before it. */
typedef struct dpt {
    size_t k;
    uint64_t below;                  /* the mask of those bits; dpoint_n: their number */
} dpt;

/* x's offset in the frame. x is in the frame (frame_of); the bound only
 * keeps a broken invariant within the blocks (a point before base wraps
 * above lim). */
static inline __attribute__((always_inline)) uint64_t doffset(dframe f, int64_t x)
{
    uint64_t d = (uint64_t)x - (uint64_t)f.base;
    return d < f.lim ? d : f.lim;
}

static inline __attribute__((always_inline)) dpt dpoint(dframe f, int64_t x)
{
    uint64_t d = doffset(f, x);
    return (dpt){(size_t)(d >> 6), (UINT64_C(1) << (d & 63)) - 1};
}

/* The same with the number of the bits before x instead of their mask,
 * for the bzhi instruction (the popcnt variant, below). */
static inline __attribute__((always_inline)) dpt dpoint_n(dframe f, int64_t x)
{
    uint64_t d = doffset(f, x);
    return (dpt){(size_t)(d >> 6), d & 63};
}

/* The bitmap functions are not inlined into scope(), so that each loop
 * keeps its state in registers. The x86-64 baseline has no popcnt
 * instruction (a population count is then a libgcc call): with gcc or
 * clang on x86-64 under glibc, which tells whether the CPU has it
 * without executing cpuid again, they are compiled for it too. */
#define DENSE_FN __attribute__((noinline))
#if defined(__x86_64__) && defined(__GNUC__) && defined(__GLIBC__) && defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
#define HIDDEN_POPCNT 1
#endif
#endif
#ifndef HIDDEN_POPCNT
#define HIDDEN_POPCNT 0
#endif

/* The largest frame AUTO takes bitmaps for: three bitmaps of a phase of
 * 32 Ki blocks (2 Mi cycles) take 1.5 MB, what a core's L2 holds beside
 * the tokens; the token passes look them up all over. */
#define DENSE_MAX_BLOCKS 32768

/* The frame of a scope: the span of its four busy sets and of every point
 * passes 2 and 3 look up ([qlo, qhi], see scope), so that a point needs
 * no clamping; when the bitmaps are to be used: always when `force`, else
 * when its blocks are at most one per two records plus 256 and at most
 * DENSE_MAX_BLOCKS. The bitmaps cost a sweep of every block per set
 * (seven sets) where the walk costs steps per token, and they pay only
 * while they stay in the cache: analyze of the synthetic 1 GB bench
 * bundle (a block per four records, 180,000 blocks a scope) took over a
 * third more CPU time on them than walked, the hub captures (a block per
 * eight to twelve records, 850 blocks) less. The three bitmaps then take
 * at most 24 bytes a record beyond 12 KB. sets NULL: the frame of [qlo,
 * qhi] alone. */
static int frame_of(const iset *sets, size_t tokens, int force, int64_t qlo, int64_t qhi, dframe *f)
{
    int64_t lo = qlo, hi = qhi;
    for (int k = VALU; k <= SCAL && sets; k++)
        if (sets[k].n) {
            if (sets[k].v[1].b < lo)
                lo = sets[k].v[1].b;
            if (sets[k].v[sets[k].n].l + 1 > hi)   /* a point may be a set's end */
                hi = sets[k].v[sets[k].n].l + 1;
        }
    f->base = lo <= hi ? lo : 0;
    uint64_t span = lo <= hi ? (uint64_t)hi - (uint64_t)lo + 1 : 0;
    uint64_t nb = span / 64 + (span % 64 != 0);
    if (!force && (nb > (uint64_t)tokens / 2 + 256 || nb > DENSE_MAX_BLOCKS))
        return 0;
    if (nb >= (SIZE_MAX / sizeof(dblk) - 1) / 64)
        return 0;                             /* not addressable: the walk */
    f->nb = (size_t)nb;
    f->lim = 64 * nb;
    return 1;
}

/* The bitmap phases twice: for any CPU, and for an x86-64 one with the
 * popcnt, pclmul and bmi2 instructions (without popcnt a population count
 * is a libgcc call; pclmul makes the fill's prefix XOR one instruction,
 * bzhi a lookup's mask); the accumulator takes the one the CPU runs
 * (an_hidden_acc_new). */
#define DN(name_) name_##_generic
#define DENSE_TARGET
#define DENSE_CLMUL 0
#define DPOINT dpoint
#include "analyzer/hidden_dense.inc"
#undef DN
#undef DENSE_TARGET
#undef DENSE_CLMUL
#undef DPOINT
#if HIDDEN_POPCNT
#include <immintrin.h>
#define DN(name_) name_##_popcnt
#define DENSE_TARGET __attribute__((target("popcnt,pclmul,bmi2")))
#define DENSE_CLMUL 1
#define DPOINT dpoint_n
#include "analyzer/hidden_dense.inc"
#undef DN
#undef DENSE_TARGET
#undef DENSE_CLMUL
#undef DPOINT
#endif

/* Hidden cycles of one scope (waves order[lo..hi)) added to raw[3 * row].
 *
 * Pass 1 (wave1, one pass over each wave's records) builds the busy lists
 * as runs and sorts the tokens: a "quiet" VALU token (no idle before it,
 * no stall) has an all-zero "issue = 0" candidate, so its result is
 * H(wmma) — its issue interval inside MFMA busy time — and a quiet MATRIX
 * token has nothing; every other token with a row goes to a list of its
 * type (as its record's address, see wtok; which list: see T_VALU), and
 * the quiet VALU tokens are noted as segments of consecutive records.
 * Then, one token type at a time, the sets it needs are built (util,
 * uni), its tokens are evaluated
 * with the docs/hidden-latency.md table (pass 2) and what no later step reads is freed:
 * valu and wmma serve the VALU tokens and pass 3 (the overlap of each
 * quiet VALU token with the wmma intervals, skipping whole segments far
 * from them), math = valu ∪ wmma and vmem the VMEM tokens, vector = math
 * ∪ vmem and scal the SALU ones and the rest (H(all), all = vector ∪
 * scal, by HU). So the memory at any time is that of one phase, not of
 * all sets and lists together. The additions to raw are integer sums, so
 * their order does not matter. With records out of order (docs/formats.md#record-order broken)
 * every pair goes to util() on its own and every token takes
 * pass 2. The pass-1 lists start at the last scope's sizes (estimate).
 * Unless the walk is asked for (AN_HIDDEN_WALK) or the scope's clocks
 * already span too much for bitmaps, the four util() sets are built first;
 * when the span of them and of the points looked up is small enough
 * (frame_of) the same phases run on bitmaps (dense_phases: the unions are
 * word-wise ORs, each query O(1)), else as described. */
static int scope(const kr_capture *c, const uint8_t *tab, const size_t *order, size_t lo, size_t hi,
                 int64_t *raw, work *wk)
{
    iset *sets = wk->sets;
    ilist *rl = wk->raw;
    tlist *tl = wk->tl;
    size_t nw = hi - lo, tokens = 0;
    for (size_t o = lo; o < hi; o++)
        tokens += c->waves[order[o]].ninsts;
    if (wk->nends < 4 * nw) {
        size_t *e = realloc(wk->ends, 4 * nw * sizeof *e);
        if (!e)
            return KR_INTERNAL;
        wk->ends = e;
        wk->nends = 4 * nw;
    }
    if (wk->nfirsts < 2 * nw) {           /* not moved until pass 2 is done: tokens point into it */
        kr_inst *f = realloc(wk->firsts, 2 * nw * sizeof *f);
        if (!f)
            return KR_INTERNAL;
        wk->firsts = f;
        wk->nfirsts = 2 * nw;
    }
    for (int k = RAW_VALU; k <= RAW_SCAL; k++)
        if (reserve(&rl[k], estimate(wk, H_RAW + k, tokens) + nw))      /* and a run_end per wave */
            return KR_INTERNAL;
    for (int l = 0; l < NT; l++)
        if (reserve_tl(&tl[l], estimate(wk, H_TL + l, tokens)))
            return KR_INTERNAL;
    size_t ns = estimate(wk, H_SEGS, tokens);
    if (wk->segcap < ns) {
        qseg *g = realloc(wk->segs, ns * sizeof *g);
        if (!g)
            return KR_INTERNAL;
        wk->segs = g;
        wk->segcap = ns;
    }
    size_t ln[4];                         /* the lists' lengths */
    const uint32_t nrows = (uint32_t)c->nrows;
    int ordered = 1;                      /* every wave follows docs/formats.md#record-order (so its times and begins are sorted) */
    /* The span of the points passes 2 and 3 look up (see frame_of): with
     * the order of docs/formats.md#record-order, none is before a wave's begin or first clock;
     * none is after the end of a token (clock + cycles), which is the end
     * of its pair in a busy list (so not after that list's util() end),
     * but for the tokens of the rest (no pair), whose largest end pass 1
     * keeps (gend). Out of order, the loop below finds both. */
    int64_t qlo = INT64_MAX, qclock = INT64_MIN;   /* qclock: the last clock */
    for (size_t o = lo; o < hi; o++) {
        const kr_wave *w = &c->waves[order[o]];
        int64_t b = (int64_t)w->begin;
        if (w->ninsts && (int64_t)w->insts[0].time < b)
            b = (int64_t)w->insts[0].time;
        qlo = b < qlo ? b : qlo;
        if (w->ninsts && (int64_t)w->insts[w->ninsts - 1].time > qclock)
            qclock = (int64_t)w->insts[w->ninsts - 1].time;
    }
    /* Bitmaps are possible only when the frame of [qlo, qclock], which
     * the scope's frame contains, is small enough (see below): only then
     * does pass 1 sort tokens out for them (see T_VALU). */
    dframe f;
    p1 cx;
    cx.split = wk->method == AN_HIDDEN_BITMAP || wk->method == AN_HIDDEN_BITMAP_PORTABLE ||
               (wk->method == AN_HIDDEN_AUTO && frame_of(NULL, tokens, 0, qlo, qclock, &f));
    cx.tab = tab;
    cx.nrows = nrows;
    cx.gend = INT64_MIN;
    cx.wk = wk;
    for (int k = 0; k < 4; k++)
        cx.lq[k] = rl[k].v;
    for (int l = 0; l < NT; l++)
        cx.tq[l] = tl[l].v;
    wk->nsegs = 0;
    for (size_t o = lo; o < hi; o++) {
        const kr_wave *w = &c->waves[order[o]];
        int rc = wave_pass1(&cx, w, &wk->firsts[2 * (o - lo)]);
        if (rc == 1) {
            ordered = 0;
            break;
        }
        if (rc)
            return rc;
        for (int k = 0; k < 4; k++)
            wk->ends[(size_t)k * nw + (o - lo)] = (size_t)(cx.lq[k] - rl[k].v) - 1;   /* its run_end */
    }
    for (int k = 0; k < 4; k++)
        ln[k] = (size_t)(cx.lq[k] - rl[k].v);
    wtok **tq = cx.tq;
    int64_t qhi = cx.gend;
    if (!ordered) {                       /* every pair to util(), sorted whole; every token to pass 2 */
        /* every token to the first list of its type (the rest: see T_VALU) */
        const uint8_t tlist_of[NL] = {[L_VALU] = T_VALU, [L_VMEM] = T_VMEM, [L_SCAL] = T_SCAL,
                                      [L_NONE] = cx.split ? T_NONE : T_SCAL, [L_MATRIX] = T_VALU};
        size_t need[4] = {0, 0, 0, 0}, ntok[NT] = {0};
        for (size_t o = lo; o < hi; o++) {
            const kr_wave *w = &c->waves[order[o]];
            for (size_t i = 0; i < w->ninsts; i++) {
                const kr_inst *r = &w->insts[i];
                uint32_t row = r->row;
                unsigned l = G_LIST(tab[((unsigned)ROW_M(tab, row) << 8) + r->cat]);
                if (l == L_MATRIX) {
                    need[L_WMMA]++;
                    need[L_VALU]++;
                } else if (l < L_NONE) {
                    need[l]++;
                }
                ntok[tlist_of[l]] += row < nrows;
            }
        }
        for (int k = 0; k < 4; k++)
            if (reserve(&rl[k], need[k] + 1))     /* and util()'s run_end */
                return KR_INTERNAL;
        for (int l = 0; l < NT; l++)
            if (reserve_tl(&tl[l], ntok[l]))
                return KR_INTERNAL;
        ival *lp[4] = {rl[RAW_VALU].v, rl[RAW_WMMA].v, rl[RAW_VMEM].v, rl[RAW_SCAL].v};
        memset(ln, 0, sizeof ln);
        for (int l = 0; l < NT; l++)
            tq[l] = tl[l].v;
        for (size_t o = lo; o < hi; o++) {
            const kr_wave *w = &c->waves[order[o]];
            int64_t last = (int64_t)w->begin;    /* as pass 2 reads it (tok) */
            for (size_t i = 0; i < w->ninsts; i++) {
                const kr_inst *r = &w->insts[i];
                uint32_t row = r->row, st = r->stall, cyc = r->dur > st ? r->dur : st;
                unsigned l = G_LIST(tab[((unsigned)ROW_M(tab, row) << 8) + r->cat]), k = l;
                int64_t clock = (int64_t)r->time, b = clock + st;
                int64_t len = (int64_t)(cyc - st);
                int64_t qb = last < clock ? last : clock;
                qlo = qb < qlo ? qb : qlo;
                last = clock + cyc;
                qhi = last > qhi ? last : qhi;
                if (k == L_MATRIX) {
                    lp[L_WMMA][ln[L_WMMA]].b = b;
                    lp[L_WMMA][ln[L_WMMA]++].e = b + len;
                    k = L_VALU;
                }
                if (k < L_NONE) {
                    lp[k][ln[k]].b = b;
                    lp[k][ln[k]++].e = b + (l == L_MATRIX ? 3 * len / 4 : len);
                }
                if (row < nrows) {   /* a MATRIX token's H(wmma) leaves out issue */
                    unsigned t = tlist_of[l];
                    PUSH(tq, t, r, l == L_MATRIX ? TOK_MATRIX : l == L_NONE ? TOK_ALL : 0);
                    if (i == 0)
                        first_token(tq[t] - 1, w, &wk->firsts[2 * (o - lo)]);
                }
            }
        }
    }
    /* lists that grew past their estimate give back the unused part */
    for (int k = 0; k < 4; k++)
        if (slack(rl[k].cap, ln[k] + 1)) {
            ival *v = realloc(rl[k].v, (ln[k] + 1) * sizeof *v);
            if (v) {
                rl[k].v = v;
                rl[k].cap = ln[k] + 1;
            }
        }
    for (int l = 0; l < NT; l++) {
        size_t n = tq[l] ? (size_t)(tq[l] - tl[l].v) : 0;
        if (tl[l].v && slack(tl[l].cap, n + 1)) {
            wtok *v = realloc(tl[l].v, (n + 1) * sizeof *v);
            if (v) {
                tq[l] = v + n;
                tl[l].v = v;
                tl[l].cap = n + 1;
            }
        }
    }
    if (slack(wk->segcap, wk->nsegs + 1)) {
        qseg *g = realloc(wk->segs, (wk->nsegs + 1) * sizeof *g);
        if (g) {
            wk->segs = g;
            wk->segcap = wk->nsegs + 1;
        }
    }
    wk->hint_tokens = tokens;
    for (int k = 0; k < 4; k++) {
        rl[k].n = ln[k];
        wk->hint[H_RAW + k] = ln[k];
    }
    for (int l = 0; l < NT; l++)
        wk->hint[H_TL + l] = tq[l] ? (size_t)(tq[l] - tl[l].v) : 0;
    wk->hint[H_SEGS] = wk->nsegs;

#define UTIL(k_) (util(&rl[k_], &wk->ends[(size_t)(k_) * nw], nw, ordered, &rl[TMP], &sets[VALU + (k_)]) ? \
                  KR_INTERNAL : (drop(&rl[k_]), drop(&rl[TMP]), 0))
    /* A frame too large for AUTO is told before the sets are built (then
     * they are built one at a time, below): it spans the last clock at
     * least (out of order, qhi is exact already). */
    int64_t qlow = ordered ? (qclock > qhi ? qclock : qhi) : qhi;
    if (cx.split && (wk->method != AN_HIDDEN_AUTO || frame_of(NULL, tokens, 0, qlo, qlow, &f))) {
        /* all four busy sets first: their span decides the form */
        for (int k = RAW_VALU; k <= RAW_SCAL; k++)
            if (UTIL(k))
                return KR_INTERNAL;
        if (frame_of(sets, tokens, wk->method >= AN_HIDDEN_BITMAP, qlo, qhi, &f)) {
            wk->bitmaps++;
#if HIDDEN_POPCNT
            if (wk->popcnt && wk->method != AN_HIDDEN_BITMAP_PORTABLE)
                return dense_phases_popcnt(wk, f, ordered, tq, nrows, raw);
#endif
            return dense_phases_generic(wk, f, ordered, tq, nrows, raw);
        }
    }
    /* quiet VALU tokens (pass 3): H(wmma); first, to free the segments */
    if (!sets[WMMA].v && UTIL(RAW_WMMA))
        return KR_INTERNAL;
    if (ordered && sets[WMMA].n != 0)
        quiet(&sets[WMMA], wk->segs, wk->segs + wk->nsegs, nrows, raw);
    drop_segs(wk);
    /* VALU (and MATRIX) tokens: H(wmma), H(valu) */
    if (!sets[VALU].v && UTIL(RAW_VALU))
        return KR_INTERNAL;
    eval_valu(tl[T_VALU].v, tq[T_VALU], &sets[WMMA], &sets[VALU], raw);
    eval_valu(tl[T_VALU_N].v, tq[T_VALU_N], &sets[WMMA], &sets[VALU], raw);
    drop_tls(tl, T_VALU, T_VALU_N);
    if (uni(&sets[VALU], &sets[WMMA], &sets[MATH]))
        return KR_INTERNAL;
    fit_set(&sets[MATH]);
    drop_set(&sets[VALU]);
    drop_set(&sets[WMMA]);
    /* VMEM, LDS, FLAT tokens: H(vmem), H(math) */
    if (!sets[VMEM].v && UTIL(RAW_VMEM))
        return KR_INTERNAL;
    eval_own(tl[T_VMEM].v, tq[T_VMEM], &sets[VMEM], &sets[MATH], raw);
    eval_own(tl[T_VMEM_Q].v, tq[T_VMEM_Q], &sets[VMEM], &sets[MATH], raw);
    drop_tls(tl, T_VMEM, T_VMEM_Q);
    if (uni(&sets[MATH], &sets[VMEM], &sets[VECTOR]))
        return KR_INTERNAL;
    fit_set(&sets[VECTOR]);
    drop_set(&sets[MATH]);
    drop_set(&sets[VMEM]);
    /* SALU, SMEM tokens: H(scal), H(vector) */
    if (!sets[SCAL].v && UTIL(RAW_SCAL))
        return KR_INTERNAL;
    /* and the rest: H(all), all = vector ∪ scal not built */
    for (int l = T_SCAL; l <= T_NONE_N; l++)
        eval_scal(tl[l].v, tq[l], &sets[SCAL], &sets[VECTOR], raw);
    drop_tls(tl, T_SCAL, T_NONE_N);
    drop_set(&sets[VECTOR]);
    drop_set(&sets[SCAL]);
#undef UTIL
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
    uint8_t *tab;                    /* see TAB_ROWS */
    int64_t *raw;                    /* per row: hidden idle, stall, issue before clamping */
    size_t nrows;
    uint64_t tokens;
    size_t scopes;                   /* of them, wk.bitmaps on bitmaps */
    work wk;
};

an_hidden_acc *an_hidden_acc_new(const kr_capture *c)
{
    an_hidden_acc *a = calloc(1, sizeof *a);
    size_t nr = c->nrows ? c->nrows : 1;
    if (!a)
        return NULL;
    a->nrows = c->nrows;
#if HIDDEN_POPCNT
    a->wk.popcnt = CPU_FEATURE_ACTIVE(POPCNT) && CPU_FEATURE_ACTIVE(PCLMULQDQ) && CPU_FEATURE_ACTIVE(BMI2);
#endif
    a->tab = calloc(TAB_ROWS + 1 + nr, 1);
    a->raw = calloc(3 * nr, sizeof *a->raw);
    if (!a->tab || !a->raw) {
        an_hidden_acc_free(a);
        return NULL;
    }
    for (size_t r = 0; r < c->nrows; r++)
        ROWM(a->tab)[r] = !c->rows[r].is_label && matrix_text(c->rows[r].isa) ? TAB_MATRIX : 1;
    for (int m = 0; m < 2; m++) {         /* no row, an ordinary row */
        uint8_t *t = a->tab + 256 * m;
        memset(t, G(L_NONE, m), 256);
        t[KR_CAT_VALU] = G(L_VALU, m);
        t[KR_CAT_LDS] = t[KR_CAT_VMEM] = t[KR_CAT_FLAT] = G(L_VMEM, m);
        t[KR_CAT_SALU] = t[KR_CAT_SMEM] = G(L_SCAL, m);
    }
    memset(a->tab + 256 * TAB_MATRIX, G(L_MATRIX, 1), 256);
    return a;
}

int an_hidden_acc_scope(an_hidden_acc *a, const kr_capture *c, const size_t *waves, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        a->tokens += c->waves[waves[i]].ninsts;
    a->scopes++;
    return scope(c, a->tab, waves, 0, n, a->raw, &a->wk);
}

void an_hidden_acc_method(an_hidden_acc *a, an_hidden_method m)
{
    a->wk.method = m;
}

void an_hidden_acc_merge(an_hidden_acc *into, const an_hidden_acc *from)
{
    into->tokens += from->tokens;
    into->scopes += from->scopes;
    into->wk.bitmaps += from->wk.bitmaps;
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
    drop_dv(&a->wk);
    free(a->wk.ends);
    free(a->wk.firsts);
    free(a->wk.segs);
    for (int l = 0; l < NT; l++)
        free(a->wk.tl[l].v);
    free(a->tab);
    free(a->raw);
    free(a);
}

/* Row r's figures: its docs/stalls.md#issue-stall-and-idle split, and the hidden parts clamped to it. */
static an_hidden_row hidden_row(const kr_capture *c, const int64_t *raw, size_t r)
{
    const kr_code_row *row = &c->rows[r];
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
    return h;
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
    out->bitmap_scopes = a->wk.bitmaps;
    const int64_t *raw = a->raw;
    size_t nranked = 0;
    for (size_t r = 0; r < c->nrows; r++)
        nranked += !c->rows[r].is_label && c->rows[r].latency + c->rows[r].idle > 0;
    out->ranked = calloc(nranked ? nranked : 1, sizeof *out->ranked);
    rkey *key = malloc(2 * (nranked ? nranked : 1) * sizeof *key);
    if (!out->ranked || !key) {
        free(key);
        an_hidden_free(out);
        return KR_INTERNAL;
    }
    /* the sums, and the ranked rows' keys; then the rows in key order */
    size_t nk = 0;
    for (size_t r = 0; r < c->nrows; r++) {
        const kr_code_row *row = &c->rows[r];
        if (row->is_label)
            continue;
        an_hidden_row h = hidden_row(c, raw, r);
        add_sum(&out->all, &h);
        if ((unsigned)row->cls < KR_CLASS_COUNT)
            add_sum(&out->cls[row->cls], &h);
        if (h.total > 0)
            key[nk++] = (rkey){h.non_hidden, h.vaddr, h.row};
    }
    sort_keys(key, key + nk, nk);
    for (size_t k = 0; k < nk; k++)
        out->ranked[k] = hidden_row(c, raw, key[k].row);
    out->nranked = nk;
    free(key);
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
        an_hidden_acc_method(a, opts ? opts->method : AN_HIDDEN_AUTO);
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
