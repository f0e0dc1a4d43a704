/* stream.c — see stream.h. */
#include "analyzer/stream.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"

/* Groups whose records take at most this many bytes may run their hidden
 * latency beside the shared accumulator's (see an_stream.hidden). */
#define STREAM_SIDE_SCOPE_BYTES (8u << 20)

/* One thread's accumulators. */
typedef struct worker_acc {
    an_classes_acc classes;          /* also the records an_totals counts */
    an_hidden_acc *hidden;           /* small groups while the shared one is busy (made on first use) */
    an_waits_acc *waits;
    an_phases_acc *phases;
    int rc;                          /* first failure of this worker */
} worker_acc;

struct an_stream {
    int keep_timelines;
    int flow;                        /* waits, hidden latency and phases are accumulated */
    int deferred;                    /* records kept; an_analyze runs at the end */
    int begun, merged;
    int nworkers;
    worker_acc *w;
    an_state_sums *per_wave;         /* per wave of the capture (each written once) */
    size_t *ntimeline;
    an_phases phases;                /* loops and phases from the code rows */
    /* Hidden latency: one shared accumulator, one group at a time. Its
     * buffers grow to the largest group (about as large as the group's
     * records), so one set of them is what a large capture can afford: a
     * thread that finishes a large group while another's runs waits. A
     * small group (records under STREAM_SIDE_SCOPE_BYTES) goes into the
     * thread's own accumulator instead of waiting; they are merged at the
     * end (sums: the order does not matter). */
    an_hidden_acc *hidden;
    pthread_mutex_t hidden_mu;
    int hidden_mu_ok;
    int phases_taken;
    atomic_int mismatch;             /* a wave's own (SE, SIMD) differs from filenames.json */
};

an_stream *an_stream_new(int keep_timelines, int flow)
{
    an_stream *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    atomic_init(&s->mismatch, 0);
    s->keep_timelines = keep_timelines;
    s->flow = flow;
    return s;
}

static void free_workers(an_stream *s)
{
    for (int k = 0; s->w && k < s->nworkers; k++) {
        an_classes_acc_free(&s->w[k].classes);
        an_hidden_acc_free(s->w[k].hidden);
        an_waits_acc_free(s->w[k].waits);
        an_phases_acc_free(s->w[k].phases);
    }
    free(s->w);
    s->w = NULL;
    s->nworkers = 0;
}

void an_stream_free(an_stream *s)
{
    if (!s)
        return;
    free_workers(s);
    an_hidden_acc_free(s->hidden);
    if (s->hidden_mu_ok)
        pthread_mutex_destroy(&s->hidden_mu);
    free(s->per_wave);
    free(s->ntimeline);
    if (!s->phases_taken)
        an_phases_free(&s->phases);
    free(s);
}

static int sink_begin(void *acc, const kr_capture *c, int workers, unsigned *keep)
{
    an_stream *s = acc;
    *keep = s->keep_timelines ? KR_SINK_KEEP_TIMELINES : 0;
    s->begun = 1;
    if (s->flow && an_phases_needs_streams(c)) {
        /* an_analyze runs at the end, on the whole model */
        s->deferred = 1;
        *keep |= KR_SINK_KEEP_RECORDS | KR_SINK_KEEP_TIMELINES;
        return 0;
    }
    s->nworkers = workers > 1 ? workers : 1;
    s->w = calloc((size_t)s->nworkers, sizeof *s->w);
    s->per_wave = calloc(c->nwaves ? c->nwaves : 1, sizeof *s->per_wave);
    s->ntimeline = calloc(c->nwaves ? c->nwaves : 1, sizeof *s->ntimeline);
    if (!s->w || !s->per_wave || !s->ntimeline)
        return KR_INTERNAL;
    if (!s->flow) {
        for (int k = 0; k < s->nworkers; k++)
            if (an_classes_acc_init(c, &s->w[k].classes))
                return KR_INTERNAL;
        return 0;
    }
    int rc = an_phases_begin(c, &s->phases);
    if (!rc && (!(s->hidden = an_hidden_acc_new(c)) || !(s->hidden_mu_ok = pthread_mutex_init(&s->hidden_mu, NULL) == 0)))
        rc = KR_INTERNAL;
    for (int k = 0; k < s->nworkers && !rc; k++) {
        worker_acc *w = &s->w[k];
        rc = an_classes_acc_init(c, &w->classes);
        if (!rc && (!(w->waits = an_waits_acc_new()) || !(w->phases = an_phases_acc_new(c, &s->phases))))
            rc = KR_INTERNAL;
    }
    return rc;
}

/* One wave: everything but hidden latency, which needs its whole group. */
static int sink_wave(void *acc, const kr_capture *c, size_t wi, int worker)
{
    an_stream *s = acc;
    if (s->deferred)
        return 0;
    worker_acc *w = &s->w[worker < s->nworkers ? worker : 0];
    const kr_wave *wave = &c->waves[wi];
    /* Groups follow filenames.json; hidden latency's scopes follow the
     * wave files' own fields. They agree on every valid capture; when not,
     * the scopes seen here are not the scopes, and the analysis has to be
     * redone on the whole capture. */
    if (wave->se != c->wave_refs[wi].se || wave->simd != c->wave_refs[wi].simd)
        atomic_store(&s->mismatch, 1);
    an_classes_acc_wave(&w->classes, wave);
    an_states_wave(wave, &s->per_wave[wi]);
    s->ntimeline[wi] = wave->ntimeline;
    if (!s->flow)
        return 0;
    int rc = an_waits_acc_wave(w->waits, c, wi);
    if (!rc && s->phases.nloops)
        rc = an_phases_acc_wave(w->phases, c, &s->phases, wi);
    if (rc && !w->rc)
        w->rc = rc;
    return rc;
}

/* A whole (SE, SIMD) group, after each of its waves: hidden latency. */
static int sink_group(void *acc, const kr_capture *c, const size_t *waves, size_t n, int worker)
{
    an_stream *s = acc;
    if (s->deferred || !s->flow)
        return 0;
    worker_acc *w = &s->w[worker < s->nworkers ? worker : 0];
    an_hidden_acc *into = s->hidden;
    int locked = pthread_mutex_trylock(&s->hidden_mu) == 0;
    if (!locked) {
        uint64_t bytes = 0;
        for (size_t k = 0; k < n; k++)
            bytes += (uint64_t)c->waves[waves[k]].ninsts * sizeof(kr_inst);
        if (bytes <= STREAM_SIDE_SCOPE_BYTES && (w->hidden || (w->hidden = an_hidden_acc_new(c)))) {
            into = w->hidden;
        } else {
            pthread_mutex_lock(&s->hidden_mu);
            locked = 1;
        }
    }
    int rc = an_hidden_acc_scope(into, c, waves, n);
    if (locked)
        pthread_mutex_unlock(&s->hidden_mu);
    if (rc && !w->rc)
        w->rc = rc;
    return rc;
}

kr_wave_sink an_stream_sink(an_stream *s)
{
    kr_wave_sink k = {sink_begin, sink_group, s, sink_wave};
    return k;
}

int an_stream_exact(an_stream *s)
{
    return !atomic_load(&s->mismatch);
}

int an_stream_deferred(const an_stream *s)
{
    return s->deferred || !s->begun;
}

/* Worker k's class counts into worker 0's, k ascending (the totals read
 * them first). The other accumulators merge in their own module's task
 * (an_stream_waits, _hidden, _phases), which run side by side. */
static int merge(an_stream *s)
{
    if (s->merged)
        return 0;
    s->merged = 1;
    int rc = 0;
    for (int k = 0; k < s->nworkers && !rc; k++)
        rc = s->w[k].rc;
    for (int k = 1; k < s->nworkers && !rc; k++)
        an_classes_acc_merge(&s->w[0].classes, &s->w[k].classes);
    return rc;
}

void an_stream_totals(an_stream *s, const kr_capture *c, an_totals *out)
{
    an_totals_rows(c, out);
    if (s->nworkers) {
        out->records = s->w[0].classes.records;
        out->records_unknown = s->w[0].classes.row_none;
    }
}

int an_stream_states(an_stream *s, const kr_capture *c, an_states *out)
{
    return an_states_finish(c, s->per_wave, s->ntimeline, out);
}

int an_stream_classes(an_stream *s, const kr_capture *c, an_classes *out)
{
    an_classes_finish(c, &s->w[0].classes, out);
    return 0;
}

int an_stream_hidden(an_stream *s, const kr_capture *c, const an_hidden_opts *opts, an_hidden *out)
{
    for (int k = 0; k < s->nworkers; k++)
        if (s->w[k].hidden)
            an_hidden_acc_merge(s->hidden, s->w[k].hidden);
    return an_hidden_finish(c, s->hidden, opts, out);
}

int an_stream_waits(an_stream *s, const kr_capture *c, const an_waits_opts *opts, an_waits *out)
{
    for (int k = 1; k < s->nworkers; k++)
        if (an_waits_acc_merge(s->w[0].waits, s->w[k].waits)) {
            memset(out, 0, sizeof *out);
            return KR_INTERNAL;
        }
    return an_waits_finish(c, s->w[0].waits, opts, out);
}

int an_stream_phases(an_stream *s, const kr_capture *c, an_phases *out)
{
    *out = s->phases;                /* the result owns the loops now */
    s->phases_taken = 1;
    for (int k = 1; k < s->nworkers; k++)
        if (an_phases_acc_merge(s->w[0].phases, s->w[k].phases))
            return KR_INTERNAL;
    return an_phases_finish(c, s->w[0].phases, out);
}

int an_stream_prepare(an_stream *s)
{
    return merge(s);
}
