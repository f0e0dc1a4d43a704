/* streamed.c — see streamed.h. */
#include "cli/streamed.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "report/explorer.h"

void cli_memory_setup(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    mallopt(M_TRIM_THRESHOLD, 16 << 20);
#endif
}

/* report.html's explorer shows the instruction streams of a few waves
 * (report/explorer.h, rep_explorer_pick). A streamed load drops every
 * wave's records after its group, so this sink around the analyses' sink
 * copies the picked waves' records (as many as the page keeps) as each
 * loads, and they are put back on those waves after the load. Only the
 * streamed analyses read records, and they take theirs from the sink, so
 * the results do not change. */
typedef struct keeper {
    kr_wave_sink inner;
    size_t pick[REP_EXPLORER_STREAM_WAVES], npick, per;
    kr_inst *recs[REP_EXPLORER_STREAM_WAVES];
    size_t nrecs[REP_EXPLORER_STREAM_WAVES];
} keeper;

static int keep_begin(void *acc, const kr_capture *c, int workers, unsigned *keep)
{
    keeper *k = acc;
    k->npick = rep_explorer_pick(c, k->pick);
    k->per = rep_explorer_records_per_wave(k->npick);
    return k->inner.begin(k->inner.acc, c, workers, keep);
}

static int keep_group(void *acc, const kr_capture *c, const size_t *waves, size_t n, int worker)
{
    keeper *k = acc;
    return k->inner.group(k->inner.acc, c, waves, n, worker);
}

static int keep_wave(void *acc, const kr_capture *c, size_t wi, int worker)
{
    keeper *k = acc;
    int rc = k->inner.wave ? k->inner.wave(k->inner.acc, c, wi, worker) : 0;
    for (size_t i = 0; i < k->npick && !rc; i++) {
        const kr_wave *w = &c->waves[wi];
        if (k->pick[i] != wi || !w->ninsts || k->recs[i])
            continue;
        size_t n = w->ninsts < k->per ? w->ninsts : k->per;
        if (!(k->recs[i] = malloc(n * sizeof *k->recs[i])))
            return KR_INTERNAL;
        memcpy(k->recs[i], w->insts, n * sizeof *k->recs[i]);
        k->nrecs[i] = n;
    }
    return rc;
}

/* The kept records back on their waves, which own them from then on
 * (bundle_wave_release frees them). */
static void keeper_attach(keeper *k, kr_capture *c)
{
    for (size_t i = 0; i < k->npick; i++) {
        kr_wave *w = k->pick[i] < c->nwaves ? &c->waves[k->pick[i]] : NULL;
        if (!w || w->insts || !k->recs[i])
            continue;
        w->insts = k->recs[i];
        w->ninsts = k->nrecs[i];
        k->recs[i] = NULL;
    }
}

static void keeper_free(keeper *k)
{
    for (size_t i = 0; i < REP_EXPLORER_STREAM_WAVES; i++)
        free(k->recs[i]);
}

int cli_load_streamed(const char *dir, const bundle_opts *bo, int in_memory, int keep_timelines, int flow,
                      kr_capture **cap, an_stream **stream, kr_err *err)
{
    bundle_opts o = *bo;
    *cap = NULL;
    *stream = NULL;
    an_stream *s = NULL;
    kr_wave_sink sink;
    keeper kp;
    memset(&kp, 0, sizeof kp);
    if (!in_memory) {
        if (!(s = an_stream_new(keep_timelines, flow)))
            return kr_err_set(err, KR_INTERNAL, dir, NULL, "out of memory");
        sink = an_stream_sink(s);
        if (keep_timelines) {        /* report.html wanted */
            kp.inner = sink;
            sink = (kr_wave_sink){keep_begin, keep_group, &kp, keep_wave};
        }
        o.sink = &sink;
    }
    int rc = bundle_capture_load(dir, &o, cap, err);
    if (!rc && s && an_stream_exact(s))
        keeper_attach(&kp, *cap);
    keeper_free(&kp);
    if (rc || !s || an_stream_exact(s)) {
        if (rc)
            an_stream_free(s);
        else
            *stream = s;
        return rc;
    }
    /* The loader's groups were not the waves' own scopes: load whole. */
    bundle_capture_free(*cap);
    *cap = NULL;
    an_stream_free(s);
    o.sink = NULL;
    return bundle_capture_load(dir, &o, cap, err);
}

int cli_analyze_loaded(an_stream *stream, const kr_capture *c, const an_analysis_opts *ao, an_analysis *out)
{
    return stream ? an_analyze_stream(stream, c, ao, out) : an_analyze(c, ao, out);
}
