/* stream.h — the analyses of `kreport analyze` fed while the wave files
 * load (docs/architecture.md#streaming), so the records of a capture need not
 * all be in memory at once.
 *
 * an_stream_sink gives the loader a wave sink (bundle/model.h). For every
 * wave it runs the wave-dependent analyses into per-thread accumulators:
 * record counts (totals, classes), timeline sums (states), waitcnt links
 * (waits) and loop iterations (phases); for every group (all waves of one
 * (SE, SIMD) pair) the hidden latency of the scope (docs/hidden-latency.md). After the load,
 * an_analyze_stream merges the accumulators in worker order and runs
 * everything else as an_analyze does; the result is the same as an_analyze
 * on the fully loaded capture, whatever the thread count.
 *
 * Loops found only in the streams (a branch whose text gives no target)
 * need every record before the iterations can be counted: then the sink
 * asks the loader to keep the records and an_analyze_stream runs
 * an_analyze on them. Timelines are kept when keep_timelines is set (the
 * HTML charts draw them). */
#ifndef KR_ANALYZER_STREAM_H
#define KR_ANALYZER_STREAM_H

#include "analyzer/analysis.h"
#include "bundle/model.h"

typedef struct an_stream an_stream;

/* NULL when out of memory. flow 0: the waits, hidden latency and phases
 * are not accumulated (for an an_analyze_stream with opts->no_flow). */
an_stream *an_stream_new(int keep_timelines, int flow);
/* The sink to put in the loader's options; valid while s lives. */
kr_wave_sink an_stream_sink(an_stream *s);
/* After the load of c through the sink: the analysis, as an_analyze(c,
 * opts) gives it. 0 or KR_INTERNAL; on failure out holds nothing to free. */
int an_analyze_stream(an_stream *s, const kr_capture *c, const an_analysis_opts *opts, an_analysis *out);
void an_stream_free(an_stream *s);
/* 0 when the groups the loader formed (by filenames.json) were not the
 * (SE, SIMD) scopes of the wave files themselves (a capture that fails
 * validate): the caller must then load the capture whole and run
 * an_analyze. */
int an_stream_exact(an_stream *s);

/* The wave-dependent results from the merged accumulators (used by
 * an_analyze_stream; each is called at most once, after
 * an_stream_prepare, which merges the accumulators: 0 or KR_INTERNAL). */
int an_stream_prepare(an_stream *s);
void an_stream_totals(an_stream *s, const kr_capture *c, an_totals *out);
int an_stream_states(an_stream *s, const kr_capture *c, an_states *out);
int an_stream_classes(an_stream *s, const kr_capture *c, an_classes *out);
int an_stream_hidden(an_stream *s, const kr_capture *c, const an_hidden_opts *opts, an_hidden *out);
int an_stream_waits(an_stream *s, const kr_capture *c, const an_waits_opts *opts, an_waits *out);
int an_stream_phases(an_stream *s, const kr_capture *c, an_phases *out);
/* 1 when the records were kept and an_analyze must run instead. */
int an_stream_deferred(const an_stream *s);

#endif
