/* test_an_hidden.c — hidden / non-hidden latency (docs/hidden-latency.md): each
 * rule on hand-built waves whose answers are worked out in the comments,
 * and the docs/hidden-latency.md reference table exactly on the four hub captures. */
#include "analyzer/hidden.h"
#include "bundle/capture.h"
#include "tests/unit/build_capture.h"
#include "tests/unit/t.h"

enum { R_VALU = 1, R_WAIT, R_MFMA, R_VMEM, R_SALU };

static const tb_row prog[] = {
    {"; k", 0},
    {"v_add_f32_e32 v0, v1, v2", 0},
    {"s_waitcnt vmcnt(0)", 4},
    {"v_mfma_f32_32x32x8_f16 v[0:15], v[16:17], v[18:19], v[0:15]", 8},
    {"buffer_load_dword v1, v2, s[0:3], 0 offen", 16},
    {"s_add_i32 s0, s0, 1", 24},
};
#define NPROG (sizeof prog / sizeof prog[0])

static const an_hidden_row *row_of(const an_hidden *h, uint32_t row)
{
    for (size_t i = 0; i < h->nranked; i++)
        if (h->ranked[i].row == row)
            return &h->ranked[i];
    return NULL;
}

/* Every test runs with each way of querying the busy sets (hidden.h);
 * the results must not depend on it. */
static const an_hidden_method methods[] = {AN_HIDDEN_AUTO, AN_HIDDEN_WALK, AN_HIDDEN_BITMAP,
                                           AN_HIDDEN_BITMAP_PORTABLE};
#define NMETHODS (sizeof methods / sizeof methods[0])
static an_hidden_method g_method;    /* the one the tests use now */

static int compute(const kr_capture *c, an_hidden *h)
{
    an_hidden_opts o = {0};
    o.method = g_method;
    int rc = an_hidden_compute(c, &o, h);
    /* the bitmaps are taken exactly when asked (or chosen) */
    if (!rc && g_method == AN_HIDDEN_WALK)
        T_EQ_U64(h->bitmap_scopes, 0);
    if (!rc && g_method >= AN_HIDDEN_BITMAP)
        T_EQ_U64(h->bitmap_scopes, h->scopes);
    return rc;
}

static void run(const tb_wave *w, size_t nw, an_hidden *h, kr_capture *c)
{
    tb_build(c, 9, prog, NPROG, w, nw);
    T_EQ_I64(compute(c, h), 0);
}


/* The ranking's order (hidden.h): non-hidden latency descending, then
 * vaddr, then row ascending; strict, rows being distinct. */
static int ranked_before(const an_hidden_row *x, const an_hidden_row *y)
{
    if (x->non_hidden != y->non_hidden)
        return x->non_hidden > y->non_hidden;
    if (x->vaddr != y->vaddr)
        return x->vaddr < y->vaddr;
    return x->row < y->row;
}

/* A. Another wave's VALU hides a wait; util() adds lengths instead of
 * taking the union: X [100,120) and Y [110,130) condense to [100,140), so
 * Z's 40-cycle wait stall [100,140) is hidden in full (a true union would
 * hide 30). VALU rows hide nothing (no wmma). */
static void test_other_wave_and_util(void)
{
    static const tb_rec x[] = {{100, KR_CAT_VALU, 0, 20, R_VALU}};
    static const tb_rec y[] = {{110, KR_CAT_VALU, 0, 20, R_VALU}};
    static const tb_rec z[] = {{100, KR_CAT_IMMED, 40, 40, R_WAIT}};
    tb_wave w[] = {{0, 0, 0, 100, 120, x, 1}, {0, 0, 1, 110, 130, y, 1}, {0, 0, 2, 100, 140, z, 1}};
    kr_capture c;
    an_hidden h;
    run(w, 3, &h, &c);
    T_EQ_U64(h.scopes, 1);
    T_EQ_U64(h.all.total, 80);
    T_EQ_U64(h.all.hidden_stall, 40);
    T_EQ_U64(h.all.hidden_idle, 0);
    T_EQ_U64(h.all.hidden_issue, 0);
    T_EQ_U64(h.all.non_hidden, 40);
    const an_hidden_row *r = row_of(&h, R_WAIT);
    T_CHECK(r && r->hidden_stall == 40 && r->non_hidden == 0);
    r = row_of(&h, R_VALU);
    T_CHECK(r && r->total == 40 && r->non_hidden == 40);
    /* ranking: non-hidden descending */
    T_EQ_U64(h.nranked, 2);
    T_EQ_U64(h.ranked[0].row, R_VALU);
    an_hidden_free(&h);
    tb_free(&c);

    /* B. The same with the wait on another SIMD: a different scope, nothing hidden. */
    tb_wave w2[] = {{0, 0, 0, 100, 120, x, 1}, {0, 0, 1, 110, 130, y, 1}, {0, 1, 0, 100, 140, z, 1}};
    run(w2, 3, &h, &c);
    T_EQ_U64(h.scopes, 2);
    T_EQ_U64(h.all.hidden_stall, 0);
    T_EQ_U64(h.all.non_hidden, 80);
    an_hidden_free(&h);
    tb_free(&c);
}

/* C. MATRIX adds 3/4 of its length to valu: X's MFMA [100,116) gives wmma
 * [100,116) and valu [100,112); with Y's VALU [112,116) valu condenses to
 * [100,116). Y's VALU (stall [104,112), issue [112,116)): H(valu) without
 * issue = (0,8,0), H(wmma) = (0,8,4); 8 > 12 is false, so (0,8,4). The
 * quiet MFMA hides nothing. */
static void test_matrix_and_valu(void)
{
    static const tb_rec x[] = {{100, KR_CAT_VALU, 0, 16, R_MFMA}};
    static const tb_rec y[] = {{104, KR_CAT_VALU, 8, 12, R_VALU}};
    tb_wave w[] = {{0, 0, 0, 100, 116, x, 1}, {0, 0, 1, 104, 116, y, 1}};
    kr_capture c;
    an_hidden h;
    run(w, 2, &h, &c);
    const an_hidden_row *v = row_of(&h, R_VALU), *m = row_of(&h, R_MFMA);
    T_CHECK(v && m);
    if (v && m) {
        T_EQ_U64(v->stall, 8);
        T_EQ_U64(v->issue, 4);
        T_EQ_U64(v->hidden_stall, 8);
        T_EQ_U64(v->hidden_issue, 4);
        T_EQ_U64(v->non_hidden, 0);
        T_EQ_U64(m->non_hidden, 16);
    }
    T_EQ_U64(h.all.total, 28);
    T_EQ_U64(h.all.non_hidden, 16);
    T_EQ_U64(h.cls[KR_CLASS_MATRIX].non_hidden, 16);
    T_EQ_U64(h.cls[KR_CLASS_VALU].hidden_issue, 4);
    an_hidden_free(&h);
    tb_free(&c);
}

/* D. The tie rule: Y's VALU (idle [96,100), issue [100,104)) gets
 * H(valu) without issue = (4,0,0) and H(wmma) = (0,0,4); equal totals go
 * to the second candidate, so the row hides 4 issue cycles, not 4 idle.
 * valu = X [96,100) + Z's MFMA 3/4 [100,103) + Y [100,104) -> [96,107);
 * wmma = [100,104). */
static void test_tie(void)
{
    static const tb_rec x[] = {{96, KR_CAT_VALU, 0, 4, R_VALU}};
    static const tb_rec y[] = {{100, KR_CAT_VALU, 0, 4, R_VALU}};
    static const tb_rec z[] = {{100, KR_CAT_VALU, 0, 4, R_MFMA}};
    tb_wave w[] = {{0, 0, 0, 96, 100, x, 1}, {0, 0, 1, 96, 104, y, 1}, {0, 0, 2, 100, 104, z, 1}};
    kr_capture c;
    an_hidden h;
    run(w, 3, &h, &c);
    const an_hidden_row *v = row_of(&h, R_VALU);
    T_CHECK(v != NULL);
    if (v) {
        T_EQ_U64(v->idle, 4);           /* Y: 100 - begin 96 */
        T_EQ_U64(v->total, 12);
        T_EQ_U64(v->hidden_idle, 0);
        T_EQ_U64(v->hidden_issue, 4);
        T_EQ_U64(v->non_hidden, 8);
    }
    T_EQ_U64(h.all.non_hidden, 12);
    an_hidden_free(&h);
    tb_free(&c);
}

/* E. VMEM and SALU. valu = [200,210) (X), vmem = [208,212) (Y's load,
 * idle [200,204), stall [204,208), issue [208,212)), scal = [200,204) (Z).
 * Y: H(math) = (4,4,2) beats H(vmem) without issue = 0. Z's SALU issue
 * [200,204) lies in vector = [200,212): H(vector) = (0,0,4) beats 0. */
static void test_vmem_salu(void)
{
    static const tb_rec x[] = {{200, KR_CAT_VALU, 0, 10, R_VALU}};
    static const tb_rec y[] = {{204, KR_CAT_VMEM, 4, 8, R_VMEM}};
    static const tb_rec z[] = {{200, KR_CAT_SALU, 0, 4, R_SALU}};
    tb_wave w[] = {{1, 2, 0, 200, 210, x, 1}, {1, 2, 1, 200, 212, y, 1}, {1, 2, 2, 200, 204, z, 1}};
    kr_capture c;
    an_hidden h;
    run(w, 3, &h, &c);
    const an_hidden_row *m = row_of(&h, R_VMEM), *s = row_of(&h, R_SALU), *v = row_of(&h, R_VALU);
    T_CHECK(m && s && v);
    if (m && s && v) {
        T_EQ_U64(m->idle, 4);
        T_EQ_U64(m->hidden_idle, 4);
        T_EQ_U64(m->hidden_stall, 4);
        T_EQ_U64(m->hidden_issue, 2);
        T_EQ_U64(m->non_hidden, 2);
        T_EQ_U64(s->hidden_issue, 4);
        T_EQ_U64(s->non_hidden, 0);
        T_EQ_U64(v->non_hidden, 10);
    }
    T_EQ_U64(h.all.total, 26);
    T_EQ_U64(h.all.hidden_idle, 4);
    T_EQ_U64(h.all.hidden_stall, 4);
    T_EQ_U64(h.all.hidden_issue, 6);
    T_EQ_U64(h.all.non_hidden, 12);
    /* ranking by non-hidden: VALU 10, VMEM 2, SALU 0 */
    T_EQ_U64(h.nranked, 3);
    if (h.nranked == 3) {
        T_EQ_U64(h.ranked[0].row, R_VALU);
        T_EQ_U64(h.ranked[1].row, R_VMEM);
        T_EQ_U64(h.ranked[2].row, R_SALU);
    }
    an_hidden_free(&h);
    tb_free(&c);
}

/* F. Records out of order (X's second VALU begins at 105 < 100 + 10): the
 * lists are sorted whole. valu = (105,5) then (110,10) -> [105,120).
 * Y's wait stall [100,140) hides 15; X's first VALU (stall [100,110))
 * hides 5 through H(valu); its second is quiet (last 120 >= 105). */
static void test_out_of_order(void)
{
    static const tb_rec x[] = {{100, KR_CAT_VALU, 10, 20, R_VALU}, {105, KR_CAT_VALU, 0, 5, R_VALU}};
    static const tb_rec y[] = {{100, KR_CAT_IMMED, 40, 40, R_WAIT}};
    tb_wave w[] = {{0, 0, 0, 100, 120, x, 2}, {0, 0, 1, 100, 140, y, 1}};
    kr_capture c;
    an_hidden h;
    run(w, 2, &h, &c);
    const an_hidden_row *v = row_of(&h, R_VALU), *q = row_of(&h, R_WAIT);
    T_CHECK(v && q);
    if (v && q) {
        T_EQ_U64(v->hidden_stall, 5);
        T_EQ_U64(v->non_hidden, 20);
        T_EQ_U64(q->hidden_stall, 15);
        T_EQ_U64(q->non_hidden, 25);
    }
    T_EQ_U64(h.all.total, 65);
    T_EQ_U64(h.all.non_hidden, 45);
    an_hidden_free(&h);
    tb_free(&c);
}

/* G. util() condenses the merged list from its smallest begin, whatever
 * the order of the waves: X (listed first) has VALU [200,210), Y has VALU
 * [100,110) and then a wait at 105 (stall [105,135), no idle: the VALU
 * ends at 110). valu = all = [100,110) + [200,210), so the wait hides
 * [105,110) = 5 (starting the condensing at X's 200 would fold Y's VALU
 * into [200,220) and hide nothing). The quiet VALUs hide nothing. */
static void test_util_smallest_begin(void)
{
    static const tb_rec x[] = {{200, KR_CAT_VALU, 0, 10, R_VALU}};
    static const tb_rec y[] = {{100, KR_CAT_VALU, 0, 10, R_VALU}, {105, KR_CAT_IMMED, 30, 30, R_WAIT}};
    tb_wave w[] = {{0, 0, 0, 200, 210, x, 1}, {0, 0, 1, 100, 135, y, 2}};
    kr_capture c;
    an_hidden h;
    run(w, 2, &h, &c);
    const an_hidden_row *q = row_of(&h, R_WAIT), *v = row_of(&h, R_VALU);
    T_CHECK(q && v);
    if (q && v) {
        T_EQ_U64(q->stall, 30);
        T_EQ_U64(q->idle, 0);
        T_EQ_U64(q->hidden_stall, 5);
        T_EQ_U64(q->non_hidden, 25);
        T_EQ_U64(v->total, 20);
        T_EQ_U64(v->non_hidden, 20);
    }
    T_EQ_U64(h.all.total, 50);
    T_EQ_U64(h.all.non_hidden, 45);
    an_hidden_free(&h);
    tb_free(&c);
}

/* H. A quiet MFMA between quiet VALU records of one wave: X's VALU
 * [100,104), MFMA [104,112) (wmma [104,112); 3/4 of it, 6, to valu: the
 * run [100,110)) and VALU [111,115), which begins after the run's end, so
 * it opens the next run: valu = [100,110), [111,115) and Y's [116,118).
 * X's last VALU (quiet) hides |[111,115) ∩ wmma| = 1 issue cycle, its
 * first none. Y's VALU (stall [112,116), issue [116,118)): H(valu)
 * without issue = (0,3,0) beats H(wmma) = 0, so 3 stall cycles are hidden
 * (2 had the run gone on to 114). The quiet MFMA hides nothing. */
static void test_quiet_matrix_run(void)
{
    static const tb_rec x[] = {{100, KR_CAT_VALU, 0, 4, R_VALU}, {104, KR_CAT_VALU, 0, 8, R_MFMA},
                               {111, KR_CAT_VALU, 0, 4, R_VALU}};
    static const tb_rec y[] = {{112, KR_CAT_VALU, 4, 6, R_VALU}};
    tb_wave w[] = {{0, 0, 0, 100, 115, x, 3}, {0, 0, 1, 112, 118, y, 1}};
    kr_capture c;
    an_hidden h;
    run(w, 2, &h, &c);
    const an_hidden_row *v = row_of(&h, R_VALU), *m = row_of(&h, R_MFMA);
    T_CHECK(v && m);
    if (v && m) {
        T_EQ_U64(v->hidden_idle, 0);
        T_EQ_U64(v->hidden_stall, 3);
        T_EQ_U64(v->hidden_issue, 1);
        T_EQ_U64(m->non_hidden, m->total);
    }
    an_hidden_free(&h);
    tb_free(&c);
}

/* ---- an independent transcription of docs/hidden-latency.md, for randomized comparison ----
 * Straight from the text: util() sorts the whole list and condenses it,
 * union() merges the intervals of both sets, H() intersects each
 * sub-interval with every interval of the set. Quadratic, for small
 * captures only. */
typedef struct rv_pair { int64_t b, len; } rv_pair;
typedef struct rv_set { int64_t *b, *e; size_t n; } rv_set;

static int rv_by_b(const void *a, const void *b)
{
    const rv_pair *x = a, *y = b;
    return (x->b > y->b) - (x->b < y->b);
}

static void rv_util(rv_pair *p, size_t n, rv_set *out)
{
    out->b = calloc(n + 1, sizeof *out->b);
    out->e = calloc(n + 1, sizeof *out->e);
    out->n = 0;
    if (!n)
        return;
    qsort(p, n, sizeof *p, rv_by_b);
    int64_t ob = p[0].b, ol = 0;                 /* out = [(begin of first, 0)] */
    for (size_t i = 0; i < n; i++) {
        if (p[i].b > ob + ol) {
            out->b[out->n] = ob;
            out->e[out->n++] = ob + ol;
            ob = p[i].b;
            ol = p[i].len;
        } else {
            ol += p[i].len;
        }
    }
    out->b[out->n] = ob;
    out->e[out->n++] = ob + ol;
}

static void rv_union(const rv_set *x, const rv_set *y, rv_set *out)
{
    size_t n = x->n + y->n;
    rv_pair *p = calloc(n + 1, sizeof *p);
    size_t m = 0;
    for (size_t i = 0; i < x->n; i++)
        if (x->e[i] > x->b[i])
            p[m++] = (rv_pair){x->b[i], x->e[i]};
    for (size_t i = 0; i < y->n; i++)
        if (y->e[i] > y->b[i])
            p[m++] = (rv_pair){y->b[i], y->e[i]};
    qsort(p, m, sizeof *p, rv_by_b);             /* .len holds the end here */
    out->b = calloc(m + 1, sizeof *out->b);
    out->e = calloc(m + 1, sizeof *out->e);
    out->n = 0;
    for (size_t i = 0; i < m; i++) {
        if (out->n && p[i].b <= out->e[out->n - 1]) {
            if (p[i].len > out->e[out->n - 1])
                out->e[out->n - 1] = p[i].len;
        } else {
            out->b[out->n] = p[i].b;
            out->e[out->n++] = p[i].len;
        }
    }
    free(p);
}

/* |[x, y) ∩ s|: the intervals are disjoint and sorted with increasing
 * ends, so bisect for the first one ending after x and add up from there. */
static int64_t rv_meet(const rv_set *s, int64_t x, int64_t y)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->e[mid] > x)
            hi = mid;
        else
            lo = mid + 1;
    }
    int64_t t = 0;
    for (size_t i = lo; i < s->n && s->b[i] < y; i++) {
        int64_t a = x > s->b[i] ? x : s->b[i], b = y < s->e[i] ? y : s->e[i];
        if (b > a)
            t += b - a;
    }
    return t;
}

typedef struct rv_h { int64_t idle, stall, issue; } rv_h;

static rv_h rv_H(const rv_set *s, int64_t last, int64_t clock, int64_t st, int64_t cyc, int issue)
{
    rv_h h = {rv_meet(s, last, clock), rv_meet(s, clock, clock + st), issue ? rv_meet(s, clock + st, clock + cyc) : 0};
    return h;
}

static int rv_matrix(const char *isa)
{
    return !strncmp(isa, "v_mfma", 6) || !strncmp(isa, "v_smfma", 7) || !strncmp(isa, "v_wmma", 6) ||
           !strncmp(isa, "v_swmma", 7);
}

/* raw[3 * row ..] += the chosen triples of every token of scope (se, simd). */
static void rv_scope(const kr_capture *c, uint32_t se, uint32_t simd, int64_t *raw)
{
    size_t cap = 1;
    for (size_t w = 0; w < c->nwaves; w++)
        cap += c->waves[w].ninsts;
    rv_pair *l[4];                               /* valu, wmma, vmem, scal */
    size_t n[4] = {0, 0, 0, 0};
    for (int k = 0; k < 4; k++)
        l[k] = calloc(cap, sizeof *l[k]);
    for (size_t w = 0; w < c->nwaves; w++) {
        const kr_wave *wv = &c->waves[w];
        if (wv->se != se || wv->simd != simd)
            continue;
        for (size_t i = 0; i < wv->ninsts; i++) {
            const kr_inst *r = &wv->insts[i];
            int64_t b = (int64_t)r->time + r->stall, cyc = r->dur > r->stall ? r->dur : r->stall;
            int64_t len = cyc - r->stall;
            int mx = r->row != KR_ROW_NONE && rv_matrix(c->rows[r->row].isa);
            if (mx) {
                l[1][n[1]++] = (rv_pair){b, len};
                l[0][n[0]++] = (rv_pair){b, 3 * len / 4};
            } else if (r->cat == KR_CAT_VALU) {
                l[0][n[0]++] = (rv_pair){b, len};
            } else if (r->cat == KR_CAT_LDS || r->cat == KR_CAT_VMEM || r->cat == KR_CAT_FLAT) {
                l[2][n[2]++] = (rv_pair){b, len};
            } else if (r->cat == KR_CAT_SALU || r->cat == KR_CAT_SMEM) {
                l[3][n[3]++] = (rv_pair){b, len};
            }
        }
    }
    rv_set valu, wmma, vmem, scal, math, vector, all;
    rv_util(l[0], n[0], &valu);
    rv_util(l[1], n[1], &wmma);
    rv_util(l[2], n[2], &vmem);
    rv_util(l[3], n[3], &scal);
    rv_union(&valu, &wmma, &math);
    rv_union(&math, &vmem, &vector);
    rv_union(&vector, &scal, &all);
    for (size_t w = 0; w < c->nwaves; w++) {
        const kr_wave *wv = &c->waves[w];
        if (wv->se != se || wv->simd != simd)
            continue;
        int64_t last = (int64_t)wv->begin;
        for (size_t i = 0; i < wv->ninsts; i++) {
            const kr_inst *r = &wv->insts[i];
            int64_t clock = (int64_t)r->time, st = r->stall, cyc = r->dur > r->stall ? r->dur : r->stall;
            int mx = r->row != KR_ROW_NONE && rv_matrix(c->rows[r->row].isa);
            rv_h a, b;                           /* a: first candidate, b: second (wins ties) */
            if (mx) {
                a = rv_H(&valu, last, clock, st, cyc, 0);
                b = rv_H(&wmma, last, clock, st, cyc, 0);
            } else if (r->cat == KR_CAT_VALU) {
                a = rv_H(&valu, last, clock, st, cyc, 0);
                b = rv_H(&wmma, last, clock, st, cyc, 1);
            } else if (r->cat == KR_CAT_LDS || r->cat == KR_CAT_VMEM || r->cat == KR_CAT_FLAT) {
                a = rv_H(&math, last, clock, st, cyc, 1);
                b = rv_H(&vmem, last, clock, st, cyc, 0);
            } else if (r->cat == KR_CAT_SALU || r->cat == KR_CAT_SMEM) {
                a = rv_H(&vector, last, clock, st, cyc, 1);
                b = rv_H(&scal, last, clock, st, cyc, 0);
            } else {
                a = (rv_h){0, 0, 0};
                b = rv_H(&all, last, clock, st, cyc, 1);
            }
            rv_h t = a.idle + a.stall + a.issue > b.idle + b.stall + b.issue ? a : b;
            if (r->row != KR_ROW_NONE) {
                raw[3 * r->row] += t.idle;
                raw[3 * r->row + 1] += t.stall;
                raw[3 * r->row + 2] += t.issue;
            }
            last = clock + cyc;
        }
    }
    rv_set *sets[] = {&valu, &wmma, &vmem, &scal, &math, &vector, &all};
    for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
        free(sets[k]->b);
        free(sets[k]->e);
    }
    for (int k = 0; k < 4; k++)
        free(l[k]);
}

static uint64_t rv_clamp(int64_t v, uint64_t hi)
{
    return v <= 0 ? 0 : (uint64_t)v > hi ? hi : (uint64_t)v;
}

static uint64_t rv_state = 88172645463325252ull;

static uint32_t rv_rand(uint32_t n)             /* xorshift64, uniform enough for n small */
{
    rv_state ^= rv_state << 13;
    rv_state ^= rv_state >> 7;
    rv_state ^= rv_state << 17;
    return (uint32_t)((rv_state >> 11) % n);
}

static const tb_row rv_prog[] = {
    {"; k", 0},
    {"v_add_f32_e32 v0, v1, v2", 0},
    {"s_waitcnt vmcnt(0)", 4},
    {"v_mfma_f32_32x32x8_f16 v[0:15], v[16:17], v[18:19], v[0:15]", 8},
    {"buffer_load_dword v1, v2, s[0:3], 0 offen", 16},
    {"s_add_i32 s0, s0, 1", 24},
    {"v_smfma_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v[10]", 32},
    {"v_wmma_f32_16x16x16_f16 v[0:7], v[8:11], v[12:15], v[0:7]", 40},
    {"ds_read_b128 v[0:3], v4", 48},
    {"s_load_dwordx2 s[0:1], s[2:3], 0x0", 56},
    {"s_nop 0", 64},
    {"s_cbranch_scc1 16", 68},
    {"v_swmma_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v[10]", 72},
    {"s_endpgm", 76},
};
#define RV_NPROG (sizeof rv_prog / sizeof rv_prog[0])

/* The streamed API (hidden.h) on the same capture: its scopes, last first,
 * dealt to two accumulators in turn, merged and finished, give exactly the
 * result of an_hidden_compute (every field of every ranked row). */
static void rv_streamed(const kr_capture *c, const an_hidden *want)
{
    size_t *idx = calloc(c->nwaves + 1, sizeof *idx), n = 0;
    an_hidden_acc *a[2] = {an_hidden_acc_new(c), an_hidden_acc_new(c)};
    T_CHECK(idx && a[0] && a[1]);
    if (!idx || !a[0] || !a[1])
        goto out;
    an_hidden_acc_method(a[0], g_method);
    an_hidden_acc_method(a[1], g_method);
    int turn = 0, rc = 0;
    for (int se = 3; se >= 0; se--)
        for (int simd = 3; simd >= 0; simd--) {
            n = 0;
            for (size_t i = 0; i < c->nwaves; i++)
                if (c->waves[i].se == (uint32_t)se && c->waves[i].simd == (uint32_t)simd)
                    idx[n++] = i;
            if (n) {
                rc |= an_hidden_acc_scope(a[turn], c, idx, n);
                turn ^= 1;
            }
        }
    T_EQ_I64(rc, 0);
    an_hidden_acc_merge(a[0], a[1]);
    an_hidden got;
    T_EQ_I64(an_hidden_finish(c, a[0], NULL, &got), 0);
    T_EQ_U64(got.scopes, want->scopes);
    T_EQ_U64(got.bitmap_scopes, want->bitmap_scopes);
    T_EQ_U64(got.tokens, want->tokens);
    T_EQ_U64(got.nranked, want->nranked);
    uint64_t bad = 0;
    for (size_t i = 0; i < got.nranked && i < want->nranked; i++) {
        const an_hidden_row *x = &got.ranked[i], *y = &want->ranked[i];
        bad += x->row != y->row || x->vaddr != y->vaddr || x->total != y->total || x->idle != y->idle ||
               x->stall != y->stall || x->issue != y->issue || x->hidden_idle != y->hidden_idle ||
               x->hidden_stall != y->hidden_stall || x->hidden_issue != y->hidden_issue ||
               x->non_hidden != y->non_hidden;
    }
    for (int k = -1; k < KR_CLASS_COUNT; k++) {
        const an_hidden_sum *x = k < 0 ? &got.all : &got.cls[k], *y = k < 0 ? &want->all : &want->cls[k];
        bad += x->total != y->total || x->idle != y->idle || x->stall != y->stall || x->issue != y->issue ||
               x->hidden_idle != y->hidden_idle || x->hidden_stall != y->hidden_stall ||
               x->hidden_issue != y->hidden_issue || x->non_hidden != y->non_hidden;
    }
    T_EQ_U64(bad, 0);
    an_hidden_free(&got);
out:
    an_hidden_acc_free(a[0]);
    an_hidden_acc_free(a[1]);
    free(idx);
}

/* The shape of a random capture. */
typedef struct rv_cfg {
    size_t maxw, maxr;               /* waves, records per wave (at most) */
    uint32_t nse, nsimd;             /* scopes: se < nse, simd < nsimd */
    uint32_t unordered;              /* one wave in `unordered` breaks docs/formats.md#record-order order */
    uint32_t valu;                   /* VALU records per 8 (the rest drawn from all categories) */
} rv_cfg;

/* One random capture's result with g_method against the reference's raw
 * sums (rv_scope): every row clamped as an_hidden_finish does. */
static void rv_check(int iter, const kr_capture *c, const int64_t *raw)
{
    an_hidden h;
    int rc = compute(c, &h);
    T_EQ_I64(rc, 0);
    uint64_t bad = 0, nranked = 0, nh = 0;
    for (size_t r = 0; r < RV_NPROG && !rc; r++) {
        const kr_code_row *row = &c->rows[r];
        if (row->is_label)
            continue;
        uint64_t stall = row->stall < row->latency ? row->stall : row->latency;
        uint64_t issue = row->latency - stall, total = row->latency + row->idle;
        uint64_t hi = rv_clamp(raw[3 * r], row->idle), hs = rv_clamp(raw[3 * r + 1], stall),
                 hu = rv_clamp(raw[3 * r + 2], issue);
        nh += total - hi - hs - hu;
        if (!total)
            continue;
        nranked++;
        const an_hidden_row *x = row_of(&h, (uint32_t)r);
        if (!x || x->hidden_idle != hi || x->hidden_stall != hs || x->hidden_issue != hu ||
            x->non_hidden != total - hi - hs - hu) {
            bad++;
            if (x)
                fprintf(stderr, "iter %d method %d row %zu: hidden %" PRIu64 "/%" PRIu64 "/%" PRIu64
                        ", reference %" PRIu64 "/%" PRIu64 "/%" PRIu64 " (raw %" PRId64 "/%" PRId64 "/%" PRId64
                        ")\n", iter, (int)g_method, r, x->hidden_idle, x->hidden_stall, x->hidden_issue, hi, hs, hu,
                        raw[3 * r], raw[3 * r + 1], raw[3 * r + 2]);
        }
    }
    for (size_t i = 1; i < h.nranked; i++)
        bad += !ranked_before(&h.ranked[i - 1], &h.ranked[i]);
    T_EQ_U64(bad, 0);
    T_EQ_U64(h.nranked, nranked);
    T_EQ_U64(h.all.non_hidden, nh);
    if (!rc && iter % 7 == 0)
        rv_streamed(c, &h);
    if (!rc)
        an_hidden_free(&h);
}

/* One random capture: waves spread over the scopes; records mostly in docs/formats.md#record-order
 * order (with overlaps, idle gaps, stalls) and sometimes out of it; lines
 * include the label row and out-of-range ones (no row); categories and
 * rows drawn independently, so MFMA rows also come with other categories. */
static void rv_one(int iter, const rv_cfg *cfg)
{
    tb_rec *recs = calloc(cfg->maxw * cfg->maxr + 1, sizeof *recs);
    tb_wave *w = calloc(cfg->maxw, sizeof *w);
    static const uint8_t cats[] = {KR_CAT_VALU, KR_CAT_VALU, KR_CAT_VALU, KR_CAT_VMEM, KR_CAT_FLAT, KR_CAT_LDS,
                                   KR_CAT_SALU, KR_CAT_SMEM, KR_CAT_IMMED, KR_CAT_JUMP, KR_CAT_MESSAGE,
                                   KR_CAT_NONE, KR_CAT_BVH, 200};
    size_t nw = 1 + rv_rand((uint32_t)cfg->maxw);
    int dense = rv_rand(2);
    for (size_t k = 0; k < nw; k++) {
        size_t n = rv_rand(4) == 0 ? rv_rand(3) : rv_rand((uint32_t)cfg->maxr + 1);
        int ordered = rv_rand(cfg->unordered) != 0;
        uint64_t t = 100 + rv_rand(dense ? 40 : 400);
        uint64_t begin = t >= 8 ? t - rv_rand(16) + (rv_rand(4) == 0 ? 12 : 0) : t;
        tb_rec *wr = recs + k * cfg->maxr;
        for (size_t i = 0; i < n; i++) {
            tb_rec *r = &wr[i];
            r->cat = rv_rand(8) < cfg->valu ? KR_CAT_VALU : cats[rv_rand(sizeof cats)];
            uint32_t pick = rv_rand(RV_NPROG + 3);
            r->line = pick < RV_NPROG ? pick : (pick == RV_NPROG ? 0 : 1000 + pick);
            if (r->cat == KR_CAT_VALU)       /* mostly plain VALU rows, some MFMA ones */
                r->line = rv_rand(3) == 0 ? (uint32_t[]){3, 6, 7, 12}[rv_rand(4)] : rv_rand(4) ? 1 : r->line;
            r->stall = rv_rand(3) ? 0 : 4 * rv_rand(12) + rv_rand(2);
            r->dur = rv_rand(5) ? 4 + 4 * rv_rand(4) : rv_rand(40);
            if (rv_rand(8) == 0)
                r->dur = r->stall > 2 ? r->stall - 2 : 0;   /* stall > duration */
            r->time = t;
            if (ordered) {
                uint64_t cyc = r->dur > r->stall ? r->dur : r->stall;
                uint64_t next = t + r->stall + (rv_rand(3) ? cyc - r->stall : rv_rand(8));
                t = next + (rv_rand(3) == 0 ? rv_rand(30) : 0);
                if (t == r->time)
                    t++;
            } else {
                t = t + rv_rand(40) - (t > 200 ? rv_rand(30) : 0);
            }
        }
        w[k] = (tb_wave){rv_rand(cfg->nse), rv_rand(cfg->nsimd), (uint32_t)k, begin, t + 8, wr, n};
    }
    kr_capture c;
    tb_build(&c, 9, rv_prog, RV_NPROG, w, nw);
    if (iter % 2)                                /* room above every sum: the raw sums compare unclamped */
        for (size_t r = 1; r < RV_NPROG; r++) {
            c.rows[r].idle += 1000000;
            c.rows[r].stall += 1000000;
            c.rows[r].latency += 2000000;
        }
    int64_t *raw = calloc(3 * RV_NPROG, sizeof *raw);
    for (uint32_t se = 0; se < cfg->nse; se++)
        for (uint32_t simd = 0; simd < cfg->nsimd; simd++)
            rv_scope(&c, se, simd, raw);
    for (size_t m = 0; m < NMETHODS; m++) {
        g_method = methods[m];
        rv_check(iter, &c, raw);
    }
    free(raw);
    tb_free(&c);
    free(recs);
    free(w);
}

/* Random captures against the transcription above: every row's clamped
 * hidden idle, stall and issue must agree exactly. */
static void test_random_vs_reference(void)
{
    /* small: many waves, every shape, a sixth of the waves out of order */
    static const rv_cfg small = {16, 90, 2, 2, 6, 3};
    for (int i = 0; i < 3000; i++)
        rv_one(i, &small);
    /* large: long VALU-heavy waves, a few per scope, rarely out of order
     * (long jumps of the interval cursors, many runs per busy list) */
    static const rv_cfg large = {8, 3000, 1, 2, 40, 6};
    for (int i = 0; i < 40; i++)
        rv_one(3000 + i, &large);
}

/* A result whose rows have room above every sum: each row's hidden idle,
 * stall and issue must be the reference's raw sums themselves (none
 * negative), and something must be hidden. */
static void rv_unclamped(const an_hidden *h, const int64_t *raw)
{
    uint64_t bad = 0, hidden = 0;
    for (size_t r = 1; r < RV_NPROG; r++) {
        const an_hidden_row *x = row_of(h, (uint32_t)r);
        if (!x)
            continue;
        bad += raw[3 * r] < 0 || raw[3 * r + 1] < 0 || raw[3 * r + 2] < 0 ||
               x->hidden_idle != (uint64_t)raw[3 * r] || x->hidden_stall != (uint64_t)raw[3 * r + 1] ||
               x->hidden_issue != (uint64_t)raw[3 * r + 2];
        hidden += x->hidden_idle + x->hidden_stall + x->hidden_issue;
    }
    T_EQ_U64(bad, 0);
    T_CHECK(hidden > 0);
}

/* Scopes of very different sizes in one accumulator: the buffers sized
 * from the previous scope must grow in the middle of a wave (a small scope
 * before a large one), give back what a large one left unused, and close
 * an empty wave (with a null record array, as for "instructions": null)
 * or one of a single record. Every row's hidden
 * idle, stall and issue must equal the transcription's raw sums (the rows
 * get room above every sum, so nothing is clamped), directly and through
 * the streamed API with the scopes in reverse order. */
static void test_scope_sizes(void)
{
    static const struct { uint32_t se, simd; size_t n; } spec[] = {
        {0, 0, 4}, {0, 1, 6000}, {0, 1, 0}, {0, 1, 5000}, {0, 1, 7000}, {0, 2, 2}, {0, 3, 20000},
        {0, 3, 20000}, {1, 0, 0}, {1, 0, 1}, {1, 1, 3}, {1, 1, 9000}, {1, 1, 0},
    };
    enum { NW = sizeof spec / sizeof spec[0] };
    size_t total = 0;
    for (size_t k = 0; k < NW; k++)
        total += spec[k].n;
    tb_rec *recs = calloc(total + 1, sizeof *recs);
    tb_wave w[NW];
    static const uint8_t cats[] = {KR_CAT_VMEM, KR_CAT_LDS, KR_CAT_SALU, KR_CAT_SMEM, KR_CAT_IMMED, KR_CAT_JUMP};
    size_t at = 0;
    for (size_t k = 0; k < NW; k++) {
        tb_rec *wr = recs + at;
        uint64_t t = 100 + rv_rand(50), begin = t - 8;
        for (size_t i = 0; i < spec[k].n; i++) {
            tb_rec *r = &wr[i];
            uint32_t kind = rv_rand(16);
            /* mostly quiet VALU runs (no stall, no gap), some MFMA, the rest mixed */
            r->cat = kind < 11 ? KR_CAT_VALU : cats[rv_rand(sizeof cats)];
            r->line = r->cat == KR_CAT_VALU ? (kind == 0 ? 12 : kind == 1 ? 3 : 1) : 2 + rv_rand(RV_NPROG - 2);
            r->stall = kind < 9 ? 0 : 4 * rv_rand(6);
            r->dur = r->stall + 4 + 4 * rv_rand(3);
            r->time = t;
            t += r->stall + (kind < 9 ? r->dur - r->stall : 4 + 4 * rv_rand(8));
        }
        w[k] = (tb_wave){spec[k].se, spec[k].simd, (uint32_t)k, begin, t + 8, wr, spec[k].n};
        at += spec[k].n;
    }
    kr_capture c;
    tb_build(&c, 9, rv_prog, RV_NPROG, w, NW);
    for (size_t k = 0; k < c.nwaves; k++)
        if (c.waves[k].ninsts == 0)
            c.waves[k].insts = NULL;
    for (size_t r = 1; r < RV_NPROG; r++) {
        c.rows[r].idle += 100000000;
        c.rows[r].stall += 100000000;
        c.rows[r].latency += 200000000;
    }
    int64_t *raw = calloc(3 * RV_NPROG, sizeof *raw);
    for (uint32_t se = 0; se < 2; se++)
        for (uint32_t simd = 0; simd < 4; simd++)
            rv_scope(&c, se, simd, raw);
    an_hidden h;
    T_EQ_I64(compute(&c, &h), 0);
    T_EQ_U64(h.scopes, 6);
    T_EQ_U64(h.tokens, total);
    rv_unclamped(&h, raw);
    rv_streamed(&c, &h);
    an_hidden_free(&h);
    free(raw);
    tb_free(&c);
    free(recs);
}

/* The sums of the SIMD 0 .. nsimd − 1 scopes of SE 0 by the reference
 * (rv_scope) equal the result before clamping (c's rows get room enough);
 * the result has nsimd scopes, and bitmaps of them on bitmaps unless
 * bitmaps < 0. */
static void check_unclamped(kr_capture *c, int nsimd, long bitmaps)
{
    for (size_t r = 1; r < RV_NPROG; r++) {
        c->rows[r].idle += 100000000;
        c->rows[r].stall += 100000000;
        c->rows[r].latency += 200000000;
    }
    int64_t *raw = calloc(3 * RV_NPROG, sizeof *raw);
    T_CHECK(raw != NULL);
    for (int simd = 0; simd < nsimd; simd++)
        rv_scope(c, 0, (uint32_t)simd, raw);
    an_hidden h;
    T_EQ_I64(compute(c, &h), 0);
    T_EQ_U64(h.scopes, (uint64_t)nsimd);
    if (bitmaps >= 0)
        T_EQ_U64(h.bitmap_scopes, (uint64_t)bitmaps);
    if (raw)
        rv_unclamped(&h, raw);
    an_hidden_free(&h);
    free(raw);
}

/* A scope whose records are far apart in time (two waves, a record every
 * 50,000 cycles: a span of 10 M cycles, 156,000 blocks of 64 for 400
 * records) is walked under AUTO, while a compact scope beside it takes
 * bitmaps; forced bitmaps give the same. Either way every row equals the
 * transcription's raw sums (nothing clamped). */
static void test_sparse_span(void)
{
    enum { N = 200 };
    tb_rec *recs = calloc(3 * N, sizeof *recs);
    T_CHECK(recs != NULL);
    if (!recs)
        return;
    for (size_t i = 0; i < N; i++) {
        uint64_t at = 1000 + 50000 * (uint64_t)i;
        /* wave 0: VALU busy [at, at + 40), then an MFMA every 4th */
        recs[i] = (tb_rec){at, KR_CAT_VALU, 0, 40, i % 4 ? 1 : 3};
        /* wave 1: a wait that stalls across it, and a load after it */
        recs[N + i] = i % 2 ? (tb_rec){at + 5, KR_CAT_IMMED, 30, 30, 2}
                            : (tb_rec){at + 20, KR_CAT_VMEM, 12, 40, 4};
        /* wave 2, another scope: compact, SALU beside VALU */
        recs[2 * N + i] = (tb_rec){100 + 8 * (uint64_t)i, i % 3 ? KR_CAT_VALU : KR_CAT_SALU, i % 5 ? 0 : 4, 8,
                                   i % 3 ? 1 : 5};
    }
    tb_wave w[3] = {
        {0, 0, 0, 900, 1000 + 50000 * (uint64_t)N, recs, N},
        {0, 0, 1, 990, 1000 + 50000 * (uint64_t)N + 60, recs + N, N},
        {0, 1, 0, 90, 100 + 8 * (uint64_t)N + 20, recs + 2 * N, N},
    };
    kr_capture c;
    tb_build(&c, 9, rv_prog, RV_NPROG, w, 3);
    check_unclamped(&c, 2, g_method == AN_HIDDEN_AUTO ? 1 : -1);
    tb_free(&c);
    free(recs);
}

/* A scope whose clocks are compact but whose last token, an s_nop of the
 * rest, ends 5,000,000 cycles later: under AUTO, pass 1 sorts the tokens
 * out for bitmaps (the frame of the first and last clocks, 42 blocks, is
 * small) but the frame with that end (78,167 blocks) is not, so the sorted
 * lists are walked (T_VALU in hidden.c). Every kind of token occurs with
 * and without idle or stall: VALU, MFMA, VMEM, SALU, SMEM and the rest.
 * The sums equal the reference under every method. */
static void test_split_walk(void)
{
    enum { N = 300 };
    static const uint8_t cat[] = {KR_CAT_VALU, KR_CAT_SALU, KR_CAT_VMEM, KR_CAT_IMMED, KR_CAT_VALU, KR_CAT_SMEM,
                                  KR_CAT_VALU, KR_CAT_LDS};
    static const uint32_t line[] = {1, 5, 4, 10, 3, 9, 1, 8};
    tb_rec *recs = calloc(2 * N, sizeof *recs);
    T_CHECK(recs != NULL);
    if (!recs)
        return;
    for (size_t wv = 0; wv < 2; wv++) {
        uint64_t t = 100 + 3 * wv;
        for (size_t i = 0; i < N; i++) {
            size_t k = (i * 5 + wv) % 8;
            uint32_t stall = i % 3 == 0 ? (uint32_t)(i % 7) : 0, dur = 6 + (uint32_t)(i % 5);
            recs[wv * N + i] = (tb_rec){t, cat[k], stall, dur > stall ? dur : stall, line[k]};
            /* the next clock: at the end (no idle) or, every fourth, 3 later */
            t += (dur > stall ? dur : stall) + (i % 4 == 3 ? 3 : 0);
        }
    }
    recs[2 * N - 1] = (tb_rec){recs[2 * N - 2].time + 12, KR_CAT_IMMED, 0, 5000000, 10};
    tb_wave w[2] = {
        {0, 0, 0, 90, recs[N - 1].time + 20, recs, N},
        {0, 0, 1, 95, recs[2 * N - 1].time + 5000000, recs + N, N},
    };
    kr_capture c;
    tb_build(&c, 9, rv_prog, RV_NPROG, w, 2);
    check_unclamped(&c, 1, g_method == AN_HIDDEN_AUTO || g_method == AN_HIDDEN_WALK ? 0 : 1);
    tb_free(&c);
    free(recs);
}

/* The frame's edges, by hand. SIMD 0: a VALU record busy [1000, 1064),
 * exactly one block of 64, and in another wave an s_nop stalled over
 * [1000, 1100), past the frame's end: H(all) of its stall is all 64 busy
 * cycles. SIMD 1: only s_waitcnt records, so every busy set is empty (a
 * frame of no blocks): nothing is hidden. */
static void test_frame_edges(void)
{
    static const tb_rec a[] = {{1000, KR_CAT_VALU, 0, 64, 1}};
    static const tb_rec b[] = {{1000, KR_CAT_IMMED, 100, 100, 10}};
    static const tb_rec d[] = {{500, KR_CAT_IMMED, 40, 40, 2}, {600, KR_CAT_IMMED, 8, 8, 2}};
    tb_wave w[3] = {
        {0, 0, 0, 1000, 1100, a, 1},
        {0, 0, 1, 1000, 1100, b, 1},
        {0, 1, 0, 400, 700, d, 2},
    };
    kr_capture c;
    tb_build(&c, 9, rv_prog, RV_NPROG, w, 3);
    c.rows[10].stall = c.rows[10].latency = 100;
    c.rows[2].stall = c.rows[2].latency = 48;
    c.rows[2].idle = 160;
    an_hidden h;
    T_EQ_I64(compute(&c, &h), 0);
    const an_hidden_row *nop = row_of(&h, 10), *wait = row_of(&h, 2);
    T_CHECK(nop && wait);
    if (nop && wait) {
        T_EQ_U64(nop->hidden_stall, 64);
        T_EQ_U64(nop->non_hidden, 36);
        T_EQ_U64(wait->hidden_idle + wait->hidden_stall + wait->hidden_issue, 0);
        T_EQ_U64(wait->non_hidden, 208);
    }
    an_hidden_free(&h);
    tb_free(&c);
}

/* The docs/hidden-latency.md reference table (computed there with an independent Python
 * transcription of the viewer's algorithm). */
static void test_hub(void)
{
    const char *hub = t_hub();
    if (!hub) {
        printf("test_an_hidden: hub fixtures absent, skipping the real-capture part\n");
        return;
    }
    static const struct {
        const char *dir;
        uint64_t total, idle, stall, issue, non_hidden;
    } ref[] = {
        {"examples/pa_mqa_logits_fp4/att_viewer/small/ui_output_agent_32435_dispatch_197", 20308, 0, 4, 0, 20304},
        {"examples/pa_mqa_logits_fp4/att_viewer/big/ui_output_agent_55351_dispatch_426", 1602196, 68280, 405280, 53717,
         1074919},
        {"examples/flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44", 220372, 0, 108, 0, 220264},
        {"examples/flash_attn_func/att_viewer/small/ui_output_agent_58550_dispatch_44_after_loc_fix", 368140, 0, 164, 0,
         367976},
    };
    for (size_t k = 0; k < sizeof ref / sizeof ref[0]; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", hub, ref[k].dir);
        bundle_opts opts = {0};
        opts.threads = 2;
        opts.no_discover = 1;
        kr_capture *c = NULL;
        kr_err err;
        kr_err_clear(&err);
        int rc = bundle_capture_load(path, &opts, &c, &err);
        T_EQ_I64(rc, 0);
        if (rc)
            continue;
        an_hidden h;
        T_EQ_I64(compute(c, &h), 0);
        if (g_method == AN_HIDDEN_AUTO)        /* a few cycles per record: bitmaps */
            T_EQ_U64(h.bitmap_scopes, h.scopes);
        T_EQ_U64(h.all.total, ref[k].total);
        T_EQ_U64(h.all.hidden_idle, ref[k].idle);
        T_EQ_U64(h.all.hidden_stall, ref[k].stall);
        T_EQ_U64(h.all.hidden_issue, ref[k].issue);
        T_EQ_U64(h.all.non_hidden, ref[k].non_hidden);
        /* per row: non-hidden = total - hidden, hidden within the docs/stalls.md#issue-stall-and-idle split */
        uint64_t bad = 0, sum = 0;
        for (size_t i = 0; i < h.nranked; i++) {
            const an_hidden_row *r = &h.ranked[i];
            bad += r->hidden_idle > r->idle || r->hidden_stall > r->stall || r->hidden_issue > r->issue ||
                   r->non_hidden != r->total - r->hidden_idle - r->hidden_stall - r->hidden_issue ||
                   (i && !ranked_before(&h.ranked[i - 1], r));
            sum += r->non_hidden;
        }
        T_EQ_U64(bad, 0);
        T_EQ_U64(sum, ref[k].non_hidden);
        an_hidden_free(&h);
        bundle_capture_free(c);
    }
}

int main(void)
{
    for (size_t m = 0; m < NMETHODS; m++) {
        g_method = methods[m];
        test_other_wave_and_util();
        test_matrix_and_valu();
        test_tie();
        test_vmem_salu();
        test_out_of_order();
        test_util_smallest_begin();
        test_quiet_matrix_run();
        test_scope_sizes();
        test_sparse_span();
        test_split_walk();
        test_frame_edges();
        test_hub();
    }
    test_random_vs_reference();     /* each capture with every method */
    return t_done("test_an_hidden");
}
