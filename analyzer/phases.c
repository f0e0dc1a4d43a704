/* phases.c — see phases.h. */
#include "analyzer/phases.h"

#include <stdlib.h>
#include <string.h>

#include "analyzer/findings.h"
#include "common/err.h"

const char *an_phase_kind_id(an_phase_kind k)
{
    switch (k) {
    case AN_PHASE_PROLOGUE: return "prologue";
    case AN_PHASE_LOOP: return "loop";
    case AN_PHASE_BETWEEN: return "between";
    case AN_PHASE_EPILOGUE: return "epilogue";
    default: return "straight";
    }
}

/* ---- static targets ---- */

/* s_branch / s_cbranch_*: the branches whose operand is a simm16 (SOPP). */
static int sopp_branch(const kr_code_row *r)
{
    const char *m = r->mnemonic ? r->mnemonic : "";
    return strcmp(m, "s_branch") == 0 || strncmp(m, "s_cbranch", 9) == 0;
}

/* First row of the kernel segment holding row (label excluded) and one past its last. */
static void segment(const kr_capture *c, uint32_t row, size_t *lo, size_t *hi)
{
    size_t a = row, b = row + 1;
    while (a > 0 && !c->rows[a - 1].is_label && c->rows[a - 1].kernel == c->rows[row].kernel)
        a--;
    while (b < c->nrows && !c->rows[b].is_label && c->rows[b].kernel == c->rows[row].kernel)
        b++;
    *lo = a;
    *hi = b;
}

/* Row in [lo, hi) with the given vaddr (rows in address order), or -1. */
static int64_t row_at(const kr_capture *c, size_t lo, size_t hi, uint64_t vaddr)
{
    size_t a = lo, b = hi;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (c->rows[m].vaddr < vaddr)
            a = m + 1;
        else
            b = m;
    }
    return a < hi && c->rows[a].vaddr == vaddr && !c->rows[a].is_label ? (int64_t)a : -1;
}

int64_t an_branch_target(const kr_capture *c, uint32_t row)
{
    if (row >= c->nrows)
        return -1;
    const kr_code_row *r = &c->rows[row];
    if (r->is_label || !r->isa || !sopp_branch(r))
        return -1;
    const char *p = strchr(r->isa, ' ');
    if (!p)
        return -1;
    while (*p == ' ')
        p++;
    int neg = 0;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    int base = 10;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    int64_t v = 0;
    int digits = 0;
    for (;; p++) {
        int d;
        if (*p >= '0' && *p <= '9') d = *p - '0';
        else if (base == 16 && *p >= 'a' && *p <= 'f') d = *p - 'a' + 10;
        else if (base == 16 && *p >= 'A' && *p <= 'F') d = *p - 'A' + 10;
        else break;
        v = v * base + d;
        digits++;
        if (v > 65535)
            return -1;
    }
    if (!digits || (*p && *p != ' ' && *p != ','))
        return -1;
    if (neg)
        v = -v;
    else if (v >= 32768)
        v -= 65536;                       /* printed unsigned */
    if (v < -32768)
        return -1;
    int64_t target = (int64_t)r->vaddr + 4 + 4 * v;
    if (target < 0)
        return -1;
    size_t lo, hi;
    segment(c, row, &lo, &hi);
    return row_at(c, lo, hi, (uint64_t)target);
}

/* ---- growable u32 / u64 vectors ---- */

typedef struct u32v { uint32_t *v; size_t n, cap; } u32v;
typedef struct u64v { uint64_t *v; size_t n, cap; } u64v;

static int u32_push(u32v *a, uint32_t x)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 8;
        uint32_t *v = realloc(a->v, cap * sizeof *v);
        if (!v)
            return KR_INTERNAL;
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return 0;
}

static int u64_push(u64v *a, uint64_t x)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 64;
        uint64_t *v = realloc(a->v, cap * sizeof *v);
        if (!v)
            return KR_INTERNAL;
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return 0;
}

/* ---- loops ---- */

typedef struct edge { uint32_t branch, head; uint8_t stream; } edge;

static int by_head_branch(const void *a, const void *b)
{
    const edge *x = a, *y = b;
    if (x->head != y->head) return x->head < y->head ? -1 : 1;
    return x->branch < y->branch ? -1 : x->branch > y->branch;
}

static int by_head_outer(const void *a, const void *b)
{
    const an_loop *x = a, *y = b;
    if (x->head != y->head) return x->head < y->head ? -1 : 1;
    return x->tail > y->tail ? -1 : x->tail < y->tail;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Back edges: static targets, then the streams for branches without one. */
static int find_edges(const kr_capture *c, edge **edges, size_t *nedges)
{
    edge *e = NULL;
    size_t n = 0, cap = 0;
    uint8_t *unparsed = calloc(c->nrows ? c->nrows : 1, 1);
    if (!unparsed)
        return KR_INTERNAL;
    int rc = 0;
    for (size_t r = 0; r < c->nrows && !rc; r++) {
        const kr_code_row *row = &c->rows[r];
        if (row->is_label || row->cls != KR_CLASS_BRANCH || !sopp_branch(row))
            continue;
        int64_t t = an_branch_target(c, (uint32_t)r);
        if (t < 0) {
            unparsed[r] = 1;
            continue;
        }
        if ((size_t)t > r)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            edge *ne = realloc(e, cap * sizeof *ne);
            if (!ne) { rc = KR_INTERNAL; break; }
            e = ne;
        }
        e[n].branch = (uint32_t)r;
        e[n].head = (uint32_t)t;
        e[n].stream = 0;
        n++;
    }
    /* Streams: the row after a taken execution of an unparsed branch. */
    int any_unparsed = 0;
    for (size_t r = 0; r < c->nrows && !any_unparsed; r++)
        any_unparsed = unparsed[r];
    for (size_t w = 0; w < c->nwaves && !rc && any_unparsed; w++) {
        const kr_wave *wv = &c->waves[w];
        uint32_t pending = KR_ROW_NONE;
        for (size_t i = 0; i < wv->ninsts && !rc; i++) {
            const kr_inst *x = &wv->insts[i];
            if (x->line == 0 || x->row == KR_ROW_NONE || x->row >= c->nrows)
                continue;
            if (pending != KR_ROW_NONE) {
                uint32_t t = x->row;
                if (t <= pending && c->rows[t].kernel == c->rows[pending].kernel) {
                    int seen = 0;
                    for (size_t k = 0; k < n && !seen; k++)
                        seen = e[k].branch == pending && e[k].head == t;
                    if (!seen) {
                        if (n == cap) {
                            cap = cap ? cap * 2 : 16;
                            edge *ne = realloc(e, cap * sizeof *ne);
                            if (!ne) { rc = KR_INTERNAL; break; }
                            e = ne;
                        }
                        e[n].branch = pending;
                        e[n].head = t;
                        e[n].stream = 1;
                        n++;
                    }
                }
                pending = KR_ROW_NONE;
            }
            if (unparsed[x->row] && x->cat == KR_CAT_JUMP)
                pending = x->row;
        }
    }
    free(unparsed);
    if (rc) {
        free(e);
        return rc;
    }
    *edges = e;
    *nedges = n;
    return 0;
}

static int build_loops(const kr_capture *c, an_phases *out)
{
    edge *e = NULL;
    size_t ne = 0;
    int rc = find_edges(c, &e, &ne);
    if (rc)
        return rc;
    if (ne)
        qsort(e, ne, sizeof *e, by_head_branch);
    size_t nl = 0;
    for (size_t k = 0; k < ne; k++)
        nl += k == 0 || e[k].head != e[k - 1].head;
    out->loops = calloc(nl ? nl : 1, sizeof *out->loops);
    u32v *be = calloc(nl ? nl : 1, sizeof *be);
    if (!out->loops || !be) {
        free(e);
        free(be);
        return KR_INTERNAL;
    }
    for (size_t k = 0; k < ne && !rc; k++) {
        if (k == 0 || e[k].head != e[k - 1].head) {
            an_loop *l = &out->loops[out->nloops++];
            l->head = l->tail = e[k].head;
            l->parent = AN_PHASE_NONE;
            l->kernel = c->rows[e[k].head].kernel;
        }
        an_loop *l = &out->loops[out->nloops - 1];
        if (e[k].branch > l->tail)
            l->tail = e[k].branch;
        l->from_stream |= e[k].stream;
        if (!be[out->nloops - 1].n || be[out->nloops - 1].v[be[out->nloops - 1].n - 1] != e[k].branch)
            rc = u32_push(&be[out->nloops - 1], e[k].branch);
    }
    free(e);
    /* Merge partly overlapping loops until none is left. */
    for (int changed = 1; changed && !rc;) {
        changed = 0;
        for (size_t i = 0; i < out->nloops && !changed && !rc; i++)
            for (size_t j = 0; j < out->nloops && !changed && !rc; j++) {
                an_loop *a = &out->loops[i], *b = &out->loops[j];
                if (i == j || !(a->head < b->head && b->head <= a->tail && a->tail < b->tail))
                    continue;
                a->tail = b->tail;
                a->from_stream |= b->from_stream;
                for (size_t k = 0; k < be[j].n && !rc; k++)
                    rc = u32_push(&be[i], be[j].v[k]);
                free(be[j].v);
                out->loops[j] = out->loops[out->nloops - 1];
                be[j] = be[out->nloops - 1];
                out->nloops--;
                changed = 1;
            }
    }
    for (size_t i = 0; i < out->nloops; i++) {
        qsort(be[i].v, be[i].n, sizeof *be[i].v, cmp_u32);
        out->loops[i].backedges = be[i].v;
        out->loops[i].nbackedges = be[i].n;
    }
    free(be);
    if (rc)
        return rc;
    qsort(out->loops, out->nloops, sizeof *out->loops, by_head_outer);
    /* Nesting: loops are now in preorder (head ascending, outer first). */
    uint32_t stack[64];
    size_t sp = 0;
    for (size_t i = 0; i < out->nloops; i++) {
        an_loop *l = &out->loops[i];
        while (sp && out->loops[stack[sp - 1]].tail < l->head)
            sp--;
        l->parent = sp ? stack[sp - 1] : AN_PHASE_NONE;
        l->depth = l->parent == AN_PHASE_NONE ? 0 : out->loops[l->parent].depth + 1;
        if (sp < sizeof stack / sizeof stack[0])
            stack[sp++] = (uint32_t)i;
    }
    return 0;
}

/* ---- phases ---- */

static int phase_push(an_phases *out, size_t *cap, const kr_capture *c, an_phase_kind kind, uint32_t loop,
                      uint32_t depth, size_t first, size_t last)
{
    if (out->nphases == *cap) {
        size_t ncap = *cap ? *cap * 2 : 8;
        an_phase *p = realloc(out->phases, ncap * sizeof *p);
        if (!p)
            return KR_INTERNAL;
        out->phases = p;
        *cap = ncap;
    }
    an_phase *p = &out->phases[out->nphases++];
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->loop = loop;
    p->depth = depth;
    p->first = (uint32_t)first;
    p->last = (uint32_t)last;
    p->kernel = c->rows[first].kernel;
    for (size_t r = first; r <= last; r++) {
        const kr_code_row *row = &c->rows[r];
        if (row->is_label)
            continue;
        p->rows++;
        p->hit += row->hit;
        p->latency += row->latency;
        p->stall += row->stall;
        p->idle += row->idle;
        if (row->stall == 0)
            continue;
        /* insert into the top list: stall desc, vaddr, row */
        size_t k = p->ntop;
        while (k > 0) {
            const kr_code_row *q = &c->rows[p->top[k - 1]];
            int before = q->stall > row->stall || (q->stall == row->stall && q->vaddr <= row->vaddr);
            if (before)
                break;
            k--;
        }
        if (k >= AN_PHASE_TOP)
            continue;
        size_t end = p->ntop < AN_PHASE_TOP ? p->ntop : AN_PHASE_TOP - 1;
        memmove(&p->top[k + 1], &p->top[k], (end - k) * sizeof p->top[0]);
        p->top[k] = (uint32_t)r;
        if (p->ntop < AN_PHASE_TOP)
            p->ntop++;
    }
    if (kind == AN_PHASE_LOOP) {
        an_loop *l = &out->loops[loop];
        l->latency = p->latency;
        l->idle = p->idle;
        l->stall = p->stall;
    }
    return 0;
}

static int build_phases(const kr_capture *c, an_phases *out)
{
    size_t cap = 0;
    int rc = 0;
    size_t li = 0;                    /* next loop (loops are in row order) */
    for (size_t r = 0; r < c->nrows && !rc;) {
        if (c->rows[r].is_label) {
            r++;
            continue;
        }
        size_t lo, hi;
        segment(c, (uint32_t)r, &lo, &hi);
        out->nkernels++;
        size_t at = lo;               /* first row not yet in a phase */
        int any = 0;
        while (li < out->nloops && out->loops[li].head < hi && !rc) {
            an_loop *l = &out->loops[li];
            if (l->depth == 0) {
                if (l->head > at)
                    rc = phase_push(out, &cap, c, any ? AN_PHASE_BETWEEN : AN_PHASE_PROLOGUE,
                                    AN_PHASE_NONE, 0, at, l->head - 1);
                at = (size_t)l->tail + 1;
                any = 1;
            }
            if (!rc)
                rc = phase_push(out, &cap, c, AN_PHASE_LOOP, (uint32_t)li, l->depth, l->head, l->tail);
            li++;
        }
        if (!rc && at < hi)
            rc = phase_push(out, &cap, c, any ? AN_PHASE_EPILOGUE : AN_PHASE_STRAIGHT, AN_PHASE_NONE, 0,
                            at, hi - 1);
        r = hi;
    }
    return rc;
}

/* ---- iterations from the streams ---- */

typedef struct lstate {
    int in;                           /* the wave is inside the loop */
    int active;                       /* an iteration is running (not the entry stub) */
    uint64_t start;                   /* prev_done when the iteration began */
    uint64_t index;                   /* iteration within the entry */
} lstate;

static int finish_iteration(u64v *first, u64v *steady, lstate *s, uint64_t done)
{
    uint64_t cost = done > s->start ? done - s->start : 0;
    return u64_push(s->index == 0 ? first : steady, cost);
}

struct an_phases_acc {
    size_t nl;
    uint32_t *inner;                  /* row -> innermost loop holding it */
    uint32_t *edge_of;                /* row -> loop it is a back edge of */
    uint32_t *quick;                  /* inner[row], or a value no loop index takes for a back edge */
    uint32_t *quick1;                 /* quick1[row + 1] = quick[row]; quick1[0] stands for KR_ROW_NONE */
    lstate *st;
    u64v *first, *steady;             /* per loop: iteration costs */
};

void an_phases_acc_free(an_phases_acc *a)
{
    if (!a)
        return;
    for (size_t i = 0; a->first && i < a->nl; i++)
        free(a->first[i].v);
    for (size_t i = 0; a->steady && i < a->nl; i++)
        free(a->steady[i].v);
    free(a->first);
    free(a->steady);
    free(a->inner);
    free(a->edge_of);
    free(a->quick);
    free(a->quick1);
    free(a->st);
    free(a);
}

an_phases_acc *an_phases_acc_new(const kr_capture *c, const an_phases *p)
{
    an_phases_acc *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    size_t nl = a->nl = p->nloops, nr = c->nrows ? c->nrows : 1;
    a->inner = malloc(nr * sizeof *a->inner);
    a->edge_of = malloc(nr * sizeof *a->edge_of);
    a->quick = malloc(nr * sizeof *a->quick);
    a->quick1 = malloc((nr + 1) * sizeof *a->quick1);
    a->st = calloc(nl ? nl : 1, sizeof *a->st);
    a->first = calloc(nl ? nl : 1, sizeof *a->first);
    a->steady = calloc(nl ? nl : 1, sizeof *a->steady);
    if (!a->inner || !a->edge_of || !a->quick || !a->quick1 || !a->st || !a->first || !a->steady) {
        an_phases_acc_free(a);
        return NULL;
    }
    for (size_t r = 0; r < c->nrows; r++)
        a->inner[r] = a->edge_of[r] = AN_PHASE_NONE;
    for (size_t i = 0; i < nl; i++) {          /* preorder: inner loops overwrite */
        for (size_t r = p->loops[i].head; r <= p->loops[i].tail; r++)
            a->inner[r] = (uint32_t)i;
        for (size_t k = 0; k < p->loops[i].nbackedges; k++)
            a->edge_of[p->loops[i].backedges[k]] = (uint32_t)i;
    }
    for (size_t r = 0; r < c->nrows; r++)
        a->quick1[r + 1] = a->quick[r] = a->edge_of[r] == AN_PHASE_NONE ? a->inner[r] : AN_PHASE_NONE - 1;
    /* prev is a loop index or AN_PHASE_NONE, never AN_PHASE_NONE - 1 (loop
     * indices are far below it) */
    a->quick1[0] = AN_PHASE_NONE - 1;
    return a;
}

int an_phases_acc_wave(an_phases_acc *a, const kr_capture *c, an_phases *out, size_t w)
{
    size_t nl = a->nl;
    if (nl == 0)
        return 0;
    const uint32_t *inner = a->inner, *edge_of = a->edge_of, *quick = a->quick;
    lstate *st = a->st;
    u64v *first = a->first, *steady = a->steady;
    int rc = 0;
    const kr_wave *wv = &c->waves[w];
    uint64_t done = wv->begin;
    uint32_t prev = AN_PHASE_NONE;             /* innermost loop of the previous record */
    memset(st, 0, nl * sizeof *st);
    const uint32_t nrows = (uint32_t)c->nrows;
    const kr_inst *x = wv->insts, *xend = wv->ninsts ? wv->insts + wv->ninsts : wv->insts;
    /* quickm[(int32_t)row] is quick[row]; KR_ROW_NONE (-1 as int32_t)
     * reads quickm[-1], a value no loop index takes, so a record without a
     * row ends a run and takes the careful path below (rows are < nrows or
     * KR_ROW_NONE, model.h) */
    const uint32_t *quickm = a->quick1 + 1;
    for (; x < xend; x++) {
        /* Runs of records in the innermost loop of the previous one that are
         * no back edge change nothing but prev_done: eight at a time. */
        while (xend - x >= 8) {
            if (quickm[(int32_t)x[0].row] != prev || quickm[(int32_t)x[1].row] != prev ||
                quickm[(int32_t)x[2].row] != prev || quickm[(int32_t)x[3].row] != prev ||
                quickm[(int32_t)x[4].row] != prev || quickm[(int32_t)x[5].row] != prev ||
                quickm[(int32_t)x[6].row] != prev || quickm[(int32_t)x[7].row] != prev)
                break;
            for (int k = 0; k < 8; k++) {
                uint64_t end = x[k].time + x[k].dur;
                done = done > end ? done : end;
            }
            x += 8;
        }
        if (x == xend)
            break;
        uint32_t row = x->row;
        if (row >= nrows)             /* unknown PC (line 0) or label: KR_ROW_NONE */
            continue;
        if (quick[row] == prev) {     /* same innermost loop, not a back edge: nothing changes */
            uint64_t end = x->time + x->dur;
            if (end > done)
                done = end;
            continue;
        }
        uint32_t cur = inner[row];
        if (cur != prev) {
            /* leave the loops of prev's chain that do not hold this row */
            for (uint32_t l = prev; l != AN_PHASE_NONE && !rc; l = out->loops[l].parent) {
                if (x->row >= out->loops[l].head && x->row <= out->loops[l].tail)
                    break;
                if (st[l].active)
                    rc = finish_iteration(&first[l], &steady[l], &st[l], done);
                st[l].in = st[l].active = 0;
            }
            /* enter the loops of cur's chain the wave was not in */
            for (uint32_t l = cur; l != AN_PHASE_NONE; l = out->loops[l].parent) {
                if (st[l].in)
                    break;
                st[l].in = 1;
                st[l].active = x->row == out->loops[l].head;   /* else the entry stub */
                st[l].start = done;
                st[l].index = 0;
                out->loops[l].wave_entries[w]++;
                out->loops[l].wave_iterations[w] += (uint64_t)st[l].active;
            }
            prev = cur;
        }
        uint64_t end = x->time + x->dur;
        if (end > done)
            done = end;
        if (rc)
            break;
        uint32_t l = edge_of[x->row];
        if (l != AN_PHASE_NONE && x->cat == KR_CAT_JUMP && st[l].in) {
            if (st[l].active) {
                rc = finish_iteration(&first[l], &steady[l], &st[l], done);
                st[l].index++;
            }
            st[l].active = 1;
            st[l].start = done;
            out->loops[l].wave_iterations[w]++;
            /* loops nested in l are left by the jump to l's head */
        }
    }
    for (uint32_t l = prev; l != AN_PHASE_NONE && !rc; l = out->loops[l].parent) {
        if (st[l].active)
            rc = finish_iteration(&first[l], &steady[l], &st[l], done);
        st[l].in = st[l].active = 0;
    }
    return rc;
}

static int u64_append(u64v *to, const u64v *from)
{
    for (size_t k = 0; k < from->n; k++)
        if (u64_push(to, from->v[k]))
            return KR_INTERNAL;
    return 0;
}

int an_phases_acc_merge(an_phases_acc *into, const an_phases_acc *from)
{
    for (size_t i = 0; i < into->nl && i < from->nl; i++)
        if (u64_append(&into->first[i], &from->first[i]) || u64_append(&into->steady[i], &from->steady[i]))
            return KR_INTERNAL;
    return 0;
}

int an_phases_needs_streams(const kr_capture *c)
{
    for (size_t r = 0; r < c->nrows; r++) {
        const kr_code_row *row = &c->rows[r];
        if (!row->is_label && row->cls == KR_CLASS_BRANCH && sopp_branch(row) && an_branch_target(c, (uint32_t)r) < 0)
            return 1;
    }
    return 0;
}

int an_phases_begin(const kr_capture *c, an_phases *out)
{
    memset(out, 0, sizeof *out);
    out->rows = c->rows;
    out->nrows = c->nrows;
    out->waves = c->waves;
    out->nwaves = c->nwaves;
    out->main_loop = AN_PHASE_NONE;
    for (size_t r = 0; r < c->nrows; r++)
        if (!c->rows[r].is_label) {
            out->total_time += c->rows[r].latency + c->rows[r].idle;
            out->total_stall += c->rows[r].stall;
        }
    int rc = build_loops(c, out);
    if (!rc)
        rc = build_phases(c, out);
    size_t nw = c->nwaves;
    for (size_t i = 0; i < out->nloops && !rc; i++) {
        out->loops[i].wave_entries = calloc(nw ? nw : 1, sizeof(uint64_t));
        out->loops[i].wave_iterations = calloc(nw ? nw : 1, sizeof(uint64_t));
        if (!out->loops[i].wave_entries || !out->loops[i].wave_iterations)
            rc = KR_INTERNAL;
    }
    if (rc)
        an_phases_free(out);
    return rc;
}

int an_phases_finish(const kr_capture *c, const an_phases_acc *a, an_phases *out)
{
    size_t nl = out->nloops, nw = c->nwaves;
    uint64_t *per_wave = malloc((nw ? nw : 1) * sizeof *per_wave);
    if (!per_wave) {
        an_phases_free(out);
        return KR_INTERNAL;
    }
    for (size_t i = 0; i < nl; i++) {
        an_loop *l = &out->loops[i];
        for (size_t w = 0; w < nw; w++) {
            l->entries += l->wave_entries[w];
            l->iterations += l->wave_iterations[w];
            l->waves_entered += l->wave_entries[w] > 0;
            per_wave[w] = l->wave_iterations[w];
        }
        an_dist_of(per_wave, nw, &l->per_wave);
        an_dist_of(a->first[i].v, a->first[i].n, &l->first_cost);
        an_dist_of(a->steady[i].v, a->steady[i].n, &l->steady_cost);
    }
    free(per_wave);
    uint64_t best = 0;
    for (size_t i = 0; i < out->nloops; i++) {
        const an_loop *l = &out->loops[i];
        /* a loop that polls memory (a semaphore wait) is never the main loop */
        if (l->depth == 0 && l->latency + l->idle > best && !an_loop_polls(c, l->head, l->tail)) {
            out->main_loop = (uint32_t)i;
            best = l->latency + l->idle;
        }
    }
    while (out->main_loop != AN_PHASE_NONE) {
        uint32_t m = out->main_loop, pick = AN_PHASE_NONE;
        uint64_t have = out->loops[m].latency + out->loops[m].idle, top = 0;
        for (size_t i = m + 1; i < out->nloops; i++) {
            const an_loop *l = &out->loops[i];
            uint64_t t = l->latency + l->idle;
            if (l->parent == m && 2 * t >= have && t > 0 && (pick == AN_PHASE_NONE || t > top)) {
                pick = (uint32_t)i;
                top = t;
            }
        }
        if (pick == AN_PHASE_NONE)
            break;
        out->main_loop = pick;
    }
    return 0;
}

int an_phases_compute(const kr_capture *c, an_phases *out)
{
    int rc = an_phases_begin(c, out);
    if (rc)
        return rc;
    an_phases_acc *a = an_phases_acc_new(c, out);
    rc = a ? 0 : KR_INTERNAL;
    for (size_t w = 0; w < c->nwaves && !rc && out->nloops; w++)
        rc = an_phases_acc_wave(a, c, out, w);
    if (!rc)
        rc = an_phases_finish(c, a, out);
    else
        an_phases_free(out);
    an_phases_acc_free(a);
    return rc;
}

void an_phases_free(an_phases *r)
{
    for (size_t i = 0; i < r->nloops; i++) {
        free(r->loops[i].backedges);
        free(r->loops[i].wave_entries);
        free(r->loops[i].wave_iterations);
    }
    free(r->loops);
    free(r->phases);
    memset(r, 0, sizeof *r);
}
