/* states.c — see states.h. */
#include "analyzer/states.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"

static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

const char *an_state_key(unsigned s)
{
    return s < KR_STATE_COUNT ? kr_state_name(s) : (s == AN_STATE_OTHER ? "OTHER" : "?");
}

/* Raw and clipped sums of one wave's timeline (docs/formats.md#timeline). */
void an_states_wave(const kr_wave *w, an_state_sums *s)
{
    memset(s, 0, sizeof *s);
    s->waves = 1;
    uint64_t t = w->begin;
    for (size_t i = 0; i < w->ntimeline; i++) {
        const kr_tl *e = &w->timeline[i];
        unsigned k = e->state < KR_STATE_COUNT ? e->state : AN_STATE_OTHER;
        uint64_t lo = t, hi = sat_add(t, e->cycles);
        s->raw[k] = sat_add(s->raw[k], e->cycles);
        uint64_t clo = lo > w->begin ? lo : w->begin;
        uint64_t chi = hi < w->end ? hi : w->end;
        if (chi > clo)
            s->clipped[k] = sat_add(s->clipped[k], chi - clo);
        t = hi;
    }
    for (unsigned k = 0; k < AN_STATES_N; k++) {
        s->raw_total = sat_add(s->raw_total, s->raw[k]);
        s->clipped_total = sat_add(s->clipped_total, s->clipped[k]);
    }
}

static void sums_add(an_state_sums *to, const an_state_sums *from)
{
    to->waves += from->waves;
    for (unsigned k = 0; k < AN_STATES_N; k++) {
        to->raw[k] = sat_add(to->raw[k], from->raw[k]);
        to->clipped[k] = sat_add(to->clipped[k], from->clipped[k]);
    }
    to->raw_total = sat_add(to->raw_total, from->raw_total);
    to->clipped_total = sat_add(to->clipped_total, from->clipped_total);
}

typedef struct keyed {
    uint32_t se, simd;
    size_t wave;
} keyed;

static int cmp_se_simd(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->se != y->se)
        return x->se < y->se ? -1 : 1;
    if (x->simd != y->simd)
        return x->simd < y->simd ? -1 : 1;
    return x->wave < y->wave ? -1 : (x->wave > y->wave);
}

/* Groups the waves by key (sorted in place by cmp) into a new scope array. */
static an_states_scope *group(keyed *k, size_t n, const an_state_sums *per_wave,
                              int use_se, int use_simd, size_t *nout)
{
    *nout = 0;
    if (n == 0)
        return NULL;
    an_states_scope *out = calloc(n, sizeof *out);
    if (!out)
        return NULL;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t se = use_se ? k[i].se : UINT32_MAX, simd = use_simd ? k[i].simd : UINT32_MAX;
        if (m == 0 || out[m - 1].se != se || out[m - 1].simd != simd) {
            out[m].se = se;
            out[m].simd = simd;
            m++;
        }
        sums_add(&out[m - 1].sums, &per_wave[k[i].wave]);
    }
    *nout = m;
    return out;
}

static int cmp_simd(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->simd != y->simd)
        return x->simd < y->simd ? -1 : 1;
    return x->wave < y->wave ? -1 : (x->wave > y->wave);
}

int an_states_compute(const kr_capture *c, an_states *out)
{
    an_state_sums *per_wave = calloc(c->nwaves ? c->nwaves : 1, sizeof *per_wave);
    size_t *ntl = calloc(c->nwaves ? c->nwaves : 1, sizeof *ntl);
    int rc = per_wave && ntl ? 0 : KR_INTERNAL;
    for (size_t w = 0; w < c->nwaves && !rc; w++) {
        an_states_wave(&c->waves[w], &per_wave[w]);
        ntl[w] = c->waves[w].ntimeline;
    }
    if (!rc)
        rc = an_states_finish(c, per_wave, ntl, out);
    else
        memset(out, 0, sizeof *out);
    free(per_wave);
    free(ntl);
    return rc;
}

int an_states_finish(const kr_capture *c, const an_state_sums *per_wave, const size_t *ntimeline, an_states *out)
{
    memset(out, 0, sizeof *out);
    out->waves = c->nwaves;

    /* docs/stalls.md#issue-stall-and-idle activity split over instruction rows. */
    for (size_t i = 0; i < c->nrows; i++) {
        const kr_code_row *r = &c->rows[i];
        if (r->is_label)
            continue;
        uint64_t stall = r->stall < r->latency ? r->stall : r->latency;
        an_activity *a = &out->activity;
        a->rows++;
        a->active = sat_add(a->active, r->latency);
        a->stall = sat_add(a->stall, stall);
        a->issue = sat_add(a->issue, r->latency - stall);
        a->idle = sat_add(a->idle, r->idle);
    }
    out->activity.total = sat_add(out->activity.active, out->activity.idle);

    if (c->nwaves == 0)
        return 0;
    keyed *k = calloc(c->nwaves, sizeof *k);
    if (!k)
        goto oom;
    for (size_t w = 0; w < c->nwaves; w++) {
        const kr_wave *wave = &c->waves[w];
        sums_add(&out->all, &per_wave[w]);
        out->entries += ntimeline[w];
        if (ntimeline[w])
            out->waves_with_timeline++;
        k[w] = (keyed){wave->se, wave->simd, w};
    }
    qsort(k, c->nwaves, sizeof *k, cmp_se_simd);
    out->per_se_simd = group(k, c->nwaves, per_wave, 1, 1, &out->nse_simd);
    out->per_se = group(k, c->nwaves, per_wave, 1, 0, &out->nse);
    qsort(k, c->nwaves, sizeof *k, cmp_simd);
    out->per_simd = group(k, c->nwaves, per_wave, 0, 1, &out->nsimd);
    if (!out->per_se_simd || !out->per_se || !out->per_simd)
        goto oom;
    free(k);
    return 0;
oom:
    free(k);
    an_states_free(out);
    return KR_INTERNAL;
}

void an_states_free(an_states *r)
{
    if (!r)
        return;
    free(r->per_se);
    free(r->per_simd);
    free(r->per_se_simd);
    memset(r, 0, sizeof *r);
}
