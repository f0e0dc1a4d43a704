/* hotspots.c — see hotspots.h. */
#include "analyzer/hotspots.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"

typedef struct cand {
    uint64_t metric, vaddr;
    uint32_t row;
} cand;

static int cmp_cand(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->metric != y->metric)
        return x->metric > y->metric ? -1 : 1;
    if (x->vaddr != y->vaddr)
        return x->vaddr < y->vaddr ? -1 : 1;
    return x->row < y->row ? -1 : (x->row > y->row);
}

/* Row indices of the top `n` instruction rows by stall (by_stall) or latency. */
static size_t select_top(const kr_capture *c, int by_stall, size_t n, cand *buf)
{
    size_t m = 0;
    for (size_t i = 0; i < c->nrows; i++) {
        const kr_code_row *r = &c->rows[i];
        uint64_t v = by_stall ? r->stall : r->latency;
        if (!r->is_label && v > 0)
            buf[m++] = (cand){v, r->vaddr, (uint32_t)i};
    }
    qsort(buf, m, sizeof *buf, cmp_cand);
    return m < n ? m : n;
}

static int same_block(const kr_code_row *a, const kr_code_row *b)
{
    return !b->is_label && a->kernel == b->kernel;
}

/* Fills e from row idx; ctx is written at *pool (advanced). */
static void fill(const kr_capture *c, uint32_t idx, size_t k, an_hot *e, uint32_t **pool)
{
    const kr_code_row *r = &c->rows[idx];
    memset(e, 0, sizeof *e);
    e->row = idx;
    e->line = r->line;
    e->vaddr = r->vaddr;
    e->hit = r->hit;
    e->latency = r->latency;
    e->stall = r->stall;
    e->idle = r->idle;
    if (r->hit > 0) {
        e->has_mean = 1;
        e->mean_latency = (double)r->latency / (double)r->hit;
        e->mean_stall = (double)r->stall / (double)r->hit;
    }
    e->hub_bucket = an_hub_bucket_of(r->isa);
    e->kind = an_stall_kind_of(r);
    e->cls = r->cls;

    size_t lo = idx, hi = idx;
    while (lo > 0 && idx - (lo - 1) <= k && same_block(r, &c->rows[lo - 1]))
        lo--;
    while (hi + 1 < c->nrows && (hi + 1) - idx <= k && same_block(r, &c->rows[hi + 1]))
        hi++;
    uint32_t *ctx = *pool;
    for (size_t j = lo; j <= hi; j++)
        ctx[j - lo] = (uint32_t)j;
    e->ctx = ctx;
    e->nctx = hi - lo + 1;
    e->ctx_hot = idx - lo;
    *pool += e->nctx;
}

int an_hotspots_compute(const kr_capture *c, const an_hotspots_opts *opts, an_hotspots *out)
{
    memset(out, 0, sizeof *out);
    out->rows = c->rows;
    out->nrows = c->nrows;
    out->n = opts ? opts->n : AN_HOTSPOTS_DEFAULT_N;
    out->context = opts ? opts->context : AN_HOTSPOTS_DEFAULT_CONTEXT;
    if (c->nrows == 0 || out->n == 0)
        return 0;
    size_t n = out->n < c->nrows ? out->n : c->nrows;
    size_t k = out->context < c->nrows ? out->context : c->nrows;

    cand *buf = calloc(c->nrows, sizeof *buf);
    out->by_stall = calloc(n, sizeof *out->by_stall);
    out->by_latency = calloc(n, sizeof *out->by_latency);
    /* At most 2k + 1 context rows per entry, and never more than the table. */
    size_t per = 2 * k + 1 < c->nrows ? 2 * k + 1 : c->nrows;
    out->ctx_pool = calloc(2 * n, per * sizeof *out->ctx_pool);
    if (!buf || !out->by_stall || !out->by_latency || !out->ctx_pool) {
        free(buf);
        an_hotspots_free(out);
        return KR_INTERNAL;
    }
    uint32_t *pool = out->ctx_pool;
    out->nby_stall = select_top(c, 1, n, buf);
    for (size_t i = 0; i < out->nby_stall; i++)
        fill(c, buf[i].row, k, &out->by_stall[i], &pool);
    out->nby_latency = select_top(c, 0, n, buf);
    for (size_t i = 0; i < out->nby_latency; i++)
        fill(c, buf[i].row, k, &out->by_latency[i], &pool);
    free(buf);
    return 0;
}

void an_hotspots_free(an_hotspots *r)
{
    if (!r)
        return;
    free(r->by_stall);
    free(r->by_latency);
    free(r->ctx_pool);
    memset(r, 0, sizeof *r);
}
