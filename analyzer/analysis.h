/* analysis.h — every single-capture analysis of `kreport analyze`, run in a
 * fixed order on one capture. The result only points into the capture, which
 * must outlive it. */
#ifndef KR_ANALYZER_ANALYSIS_H
#define KR_ANALYZER_ANALYSIS_H

#include <stddef.h>

#include "analyzer/advice.h"
#include "analyzer/classes.h"
#include "analyzer/counters.h"
#include "analyzer/findings.h"
#include "analyzer/hotspots.h"
#include "analyzer/hidden.h"
#include "analyzer/occupancy.h"
#include "analyzer/phases.h"
#include "analyzer/roofline.h"
#include "analyzer/saturation.h"
#include "analyzer/sources.h"
#include "analyzer/stalls.h"
#include "analyzer/states.h"
#include "analyzer/totals.h"
#include "analyzer/waits.h"
#include "bundle/model.h"

typedef struct an_analysis_opts {
    size_t top;              /* hotspot entries per list (--top) */
    int threads;             /* modules run concurrently on up to this many threads */
    size_t context;          /* disassembly context rows each side */
    const char *target;      /* --target override, NULL to detect */
    an_roofline_opts roof;   /* device, --flops/--bytes/--time-ns/--ceiling */
    int no_flow;             /* skip waits, hidden latency and phases (and their advice):
                                their results stay empty; for callers that read none of
                                them (compare) */
} an_analysis_opts;

typedef struct an_analysis {
    const kr_capture *cap;
    an_totals totals;
    an_states states;
    an_classes classes;
    an_stalls stalls;
    an_hotspots hotspots;
    an_sources sources;
    an_occupancy occupancy;
    an_advice advice;
    an_waits waits;          /* s_waitcnt producers, distances, exposed latency */
    an_hidden hidden;        /* docs/hidden-latency.md hidden / non-hidden latency */
    an_phases phases;        /* loops, prologue / loop / epilogue */
    an_counters counters;    /* counter collection of the capture's kernel */
    an_roofline roofline;    /* roofline and speed of light */
    an_saturation saturation;   /* can the grid fill the GPU */
    an_findings findings;    /* rules, wait classes and the summary (last; reads the others) */
} an_analysis;

/* 0 or KR_INTERNAL (allocation). On failure out holds nothing to free. */
int an_analyze(const kr_capture *c, const an_analysis_opts *opts, an_analysis *out);
void an_analysis_free(an_analysis *a);

#endif
