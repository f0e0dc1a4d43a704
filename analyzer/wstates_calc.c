/* wstates_calc.c — see wstates_calc.h. The event rule is docs/formats.md#wave-state-curves verbatim: per
 * timeline entry (s, c) starting at t, +1 at t and -1 at t + c in the list of
 * state s; sort by time; one output step per distinct time holding the
 * running sum after all events at that time (so the tie order cannot
 * matter). */
#include "analyzer/wstates_calc.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"

typedef struct event {
    uint64_t time;
    int64_t delta;
} event;

static int by_time(const void *a, const void *b)
{
    const event *x = a, *y = b;
    return x->time < y->time ? -1 : x->time > y->time;
}

void an_wstates_free(an_wstates_curve out[KR_STATE_COUNT])
{
    for (int k = 0; k < KR_STATE_COUNT; k++) {
        free(out[k].time);
        free(out[k].count);
        out[k].time = NULL;
        out[k].count = NULL;
        out[k].n = 0;
    }
}

int an_wstates_compute(const kr_capture *c, an_wstates_curve out[KR_STATE_COUNT])
{
    memset(out, 0, sizeof *out * KR_STATE_COUNT);
    size_t nev[KR_STATE_COUNT] = {0};
    for (size_t w = 0; w < c->nwaves; w++)
        for (size_t i = 0; i < c->waves[w].ntimeline; i++)
            if (c->waves[w].timeline[i].state < KR_STATE_COUNT)
                nev[c->waves[w].timeline[i].state] += 2;

    for (int k = 0; k < KR_STATE_COUNT; k++) {
        if (nev[k] == 0)
            continue;
        event *ev = malloc(nev[k] * sizeof *ev);
        out[k].time = malloc(nev[k] * sizeof *out[k].time);
        out[k].count = malloc(nev[k] * sizeof *out[k].count);
        if (!ev || !out[k].time || !out[k].count) {
            free(ev);
            an_wstates_free(out);
            return KR_INTERNAL;
        }
        size_t m = 0;
        for (size_t w = 0; w < c->nwaves; w++) {
            const kr_wave *wave = &c->waves[w];
            uint64_t t = wave->begin;
            for (size_t i = 0; i < wave->ntimeline; i++) {
                const kr_tl *e = &wave->timeline[i];
                if (e->state == k) {
                    ev[m].time = t;
                    ev[m++].delta = 1;
                    ev[m].time = t + e->cycles;
                    ev[m++].delta = -1;
                }
                t += e->cycles;
            }
        }
        qsort(ev, m, sizeof *ev, by_time);
        int64_t acc = 0;
        size_t n = 0;
        for (size_t i = 0; i < m; i++) {
            acc += ev[i].delta;
            if (n == 0 || out[k].time[n - 1] != ev[i].time) {
                out[k].time[n] = ev[i].time;
                out[k].count[n++] = acc;
            } else {
                out[k].count[n - 1] = acc;
            }
        }
        out[k].n = n;
        free(ev);
    }
    return 0;
}
