/* analysis.c — see analysis.h. */
#include "analyzer/analysis.h"

#include <string.h>

#include "analyzer/stream.h"
#include "common/err.h"
#include "common/pool.h"

/* The modules below read only the capture and write only their own result,
 * so they run as independent tasks (common/pool.h); results never depend on
 * thread timing. Advice reads the others' results and runs last. */
enum { T_STATES, T_CLASSES, T_STALLS, T_HOTSPOTS, T_SOURCES, T_OCCUPANCY, T_WAITS, T_HIDDEN,
       T_PHASES, T_COUNT };

typedef struct {
    const kr_capture *c;
    an_analysis *out;
    an_hotspots_opts hot;
    an_occupancy_opts occ;
    an_waits_opts waits;
    an_hidden_opts hidden;
    an_stream *stream;               /* wave-dependent results come from here; NULL: from c's waves */
    int no_flow;                     /* waits, hidden latency and phases are skipped */
    int rc[T_COUNT];
} an_job;

static void run_module(void *ctx, size_t task, int worker)
{
    (void)worker;
    an_job *j = ctx;
    const kr_capture *c = j->c;
    an_analysis *out = j->out;
    int rc = 0;
    /* The tasks' modules, the costliest first so that the threads finish
     * together (streamed pa_mqa big, -j 2, medians of 20 traced runs:
     * stalls 262 µs, occupancy 238, waits 235,
     * hotspots 192, hidden 74, the rest under 25; waits first, since the
     * first two of the three about equal ones start together anyway). */
    static const int module[T_COUNT] = {T_WAITS, T_STALLS, T_OCCUPANCY, T_HOTSPOTS, T_HIDDEN, T_PHASES,
                                        T_SOURCES, T_STATES, T_CLASSES};
    if (task >= T_COUNT)
        return;
    task = (size_t)module[task];
    if (j->no_flow && (task == T_HIDDEN || task == T_WAITS || task == T_PHASES))
        return;
    switch (task) {
    case T_HIDDEN: rc = j->stream ? an_stream_hidden(j->stream, c, &j->hidden, &out->hidden)
            : an_hidden_compute(c, &j->hidden, &out->hidden); break;
    case T_WAITS: rc = j->stream ? an_stream_waits(j->stream, c, &j->waits, &out->waits)
            : an_waits_compute(c, &j->waits, &out->waits); break;
    case T_CLASSES: rc = j->stream ? an_stream_classes(j->stream, c, &out->classes)
            : an_classes_compute(c, &out->classes); break;
    case T_STATES: rc = j->stream ? an_stream_states(j->stream, c, &out->states)
            : an_states_compute(c, &out->states); break;
    case T_STALLS: rc = an_stalls_compute(c, &out->stalls); break;
    case T_HOTSPOTS: rc = an_hotspots_compute(c, &j->hot, &out->hotspots); break;
    case T_SOURCES: rc = an_sources_compute(c, NULL, &out->sources); break;
    case T_OCCUPANCY: rc = an_occupancy_compute(c, &j->occ, &out->occupancy); break;
    case T_PHASES: rc = j->stream ? an_stream_phases(j->stream, c, &out->phases)
            : an_phases_compute(c, &out->phases); break;
    default: return;
    }
    j->rc[task] = rc;
}

static int analyze(const kr_capture *c, const an_analysis_opts *opts, an_stream *stream, an_analysis *out)
{
    memset(out, 0, sizeof *out);
    out->cap = c;
    if (stream)
        an_stream_totals(stream, c, &out->totals);
    else
        an_totals_compute(c, &out->totals);
    an_job job;
    memset(&job, 0, sizeof job);
    job.c = c;
    job.out = out;
    job.stream = stream;
    job.hot.n = AN_HOTSPOTS_DEFAULT_N;
    job.hot.context = AN_HOTSPOTS_DEFAULT_CONTEXT;
    int threads = 1;
    if (opts) {
        if (opts->top)
            job.hot.n = opts->top;
        if (opts->context)
            job.hot.context = opts->context;
        job.occ.target = opts->target;
        job.no_flow = opts->no_flow;
        if (opts->threads > 1)
            threads = opts->threads;
    }
    job.waits.n = job.hot.n;
    job.waits.share = AN_ADVICE_MIN_SHARE;   /* the waits advice may name get their statistics */
    job.hidden.n = job.hot.n;
    if (job.no_flow)
        out->phases.main_loop = AN_PHASE_NONE;   /* the empty result the report reads */
    kr_parallel_for(T_COUNT, threads, run_module, &job);
    int rc = 0;
    for (int t = 0; t < T_COUNT && !rc; t++)   /* the first failure in module order */
        rc = job.rc[t];
    /* Counters, roofline and saturation read the occupancy's kernel. */
    const char *kernel = out->occupancy.nkernels && out->occupancy.primary < out->occupancy.nkernels
                             ? out->occupancy.kernels[out->occupancy.primary].name
                             : NULL;
    const an_roofline_opts *roof = opts ? &opts->roof : NULL;
    if (!rc) {
        an_counters_compute(c, kernel, &out->counters);
        rc = an_roofline_compute(c, kernel, &out->counters, roof, &out->roofline);
        an_saturation_compute(&out->occupancy, roof && roof->hw ? roof->hw->cu_count : -1, &out->saturation);
    }
    if (!rc)
        rc = an_advice_compute(c, &out->totals, &out->states, &out->stalls, &out->sources,
                               &out->occupancy, &out->advice);
    if (!rc && !job.no_flow)
        rc = an_advice_add_flow(c, &out->waits, &out->phases, &out->hidden, &out->advice);
    if (!rc)
        rc = an_advice_add_roofline(&out->roofline, &out->advice);
    if (!rc && !job.no_flow)
        rc = an_findings_compute(out, &out->findings);
    if (rc) {
        an_analysis_free(out);
        return rc;
    }
    return 0;
}

int an_analyze(const kr_capture *c, const an_analysis_opts *opts, an_analysis *out)
{
    return analyze(c, opts, NULL, out);
}

int an_analyze_stream(an_stream *s, const kr_capture *c, const an_analysis_opts *opts, an_analysis *out)
{
    if (an_stream_deferred(s))
        return analyze(c, opts, NULL, out);
    if (an_stream_prepare(s)) {
        memset(out, 0, sizeof *out);
        return KR_INTERNAL;
    }
    return analyze(c, opts, s, out);
}

void an_analysis_free(an_analysis *a)
{
    an_states_free(&a->states);
    an_stalls_free(&a->stalls);
    an_hotspots_free(&a->hotspots);
    an_sources_free(&a->sources);
    an_occupancy_free(&a->occupancy);
    an_advice_free(&a->advice);
    an_waits_free(&a->waits);
    an_hidden_free(&a->hidden);
    an_phases_free(&a->phases);
    an_roofline_free(&a->roofline);
    an_findings_free(&a->findings);
    memset(a, 0, sizeof *a);
}
