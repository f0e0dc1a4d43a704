/* analysis.c — see analysis.h. */
#include "analyzer/analysis.h"

#include <string.h>

#include "common/err.h"

int an_analyze(const kr_capture *c, const an_analysis_opts *opts, an_analysis *out)
{
    memset(out, 0, sizeof *out);
    out->cap = c;
    an_totals_compute(c, &out->totals);
    an_hotspots_opts hot = { AN_HOTSPOTS_DEFAULT_N, AN_HOTSPOTS_DEFAULT_CONTEXT };
    an_occupancy_opts occ = { NULL };
    if (opts) {
        if (opts->top)
            hot.n = opts->top;
        if (opts->context)
            hot.context = opts->context;
        occ.target = opts->target;
    }
    int rc = an_states_compute(c, &out->states);
    if (!rc)
        rc = an_classes_compute(c, &out->classes);
    if (!rc)
        rc = an_stalls_compute(c, &out->stalls);
    if (!rc)
        rc = an_hotspots_compute(c, &hot, &out->hotspots);
    if (!rc)
        rc = an_sources_compute(c, NULL, &out->sources);
    if (!rc)
        rc = an_occupancy_compute(c, &occ, &out->occupancy);
    an_waits_opts wo = { hot.n };
    an_hidden_opts ho = { hot.n };
    if (!rc)
        rc = an_waits_compute(c, &wo, &out->waits);
    if (!rc)
        rc = an_hidden_compute(c, &ho, &out->hidden);
    if (!rc)
        rc = an_phases_compute(c, &out->phases);
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
