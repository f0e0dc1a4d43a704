/* analysis.c — see analysis.h. */
#include "analyzer/analysis.h"

#include <string.h>

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
    int rc[T_COUNT];
} an_job;

static void run_module(void *ctx, size_t task, int worker)
{
    (void)worker;
    an_job *j = ctx;
    const kr_capture *c = j->c;
    an_analysis *out = j->out;
    int rc = 0;
    switch (task) {
    /* Costliest first, so two threads finish together. */
    case 0: rc = an_hidden_compute(c, &j->hidden, &out->hidden); task = T_HIDDEN; break;
    case 1: rc = an_waits_compute(c, &j->waits, &out->waits); task = T_WAITS; break;
    case 2: rc = an_classes_compute(c, &out->classes); task = T_CLASSES; break;
    case 3: rc = an_states_compute(c, &out->states); task = T_STATES; break;
    case 4: rc = an_stalls_compute(c, &out->stalls); task = T_STALLS; break;
    case 5: rc = an_hotspots_compute(c, &j->hot, &out->hotspots); task = T_HOTSPOTS; break;
    case 6: rc = an_sources_compute(c, NULL, &out->sources); task = T_SOURCES; break;
    case 7: rc = an_occupancy_compute(c, &j->occ, &out->occupancy); task = T_OCCUPANCY; break;
    case 8: rc = an_phases_compute(c, &out->phases); task = T_PHASES; break;
    default: return;
    }
    j->rc[task] = rc;
}

int an_analyze(const kr_capture *c, const an_analysis_opts *opts, an_analysis *out)
{
    memset(out, 0, sizeof *out);
    out->cap = c;
    an_totals_compute(c, &out->totals);
    an_job job;
    memset(&job, 0, sizeof job);
    job.c = c;
    job.out = out;
    job.hot.n = AN_HOTSPOTS_DEFAULT_N;
    job.hot.context = AN_HOTSPOTS_DEFAULT_CONTEXT;
    int threads = 1;
    if (opts) {
        if (opts->top)
            job.hot.n = opts->top;
        if (opts->context)
            job.hot.context = opts->context;
        job.occ.target = opts->target;
        if (opts->threads > 1)
            threads = opts->threads;
    }
    job.waits.n = job.hot.n;
    job.hidden.n = job.hot.n;
    kr_parallel_for(T_COUNT, threads, run_module, &job);
    int rc = 0;
    for (int t = 0; t < T_COUNT && !rc; t++)   /* the first failure in module order */
        rc = job.rc[t];
    if (!rc)
        rc = an_advice_compute(c, &out->totals, &out->states, &out->stalls, &out->sources,
                               &out->occupancy, &out->advice);
    if (!rc)
        rc = an_advice_add_flow(c, &out->waits, &out->phases, &out->hidden, &out->advice);
    if (rc) {
        an_analysis_free(out);
        return rc;
    }
    return 0;
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
    memset(a, 0, sizeof *a);
}
