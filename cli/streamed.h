/* streamed.h — loading a capture with its waves streamed through the
 * analyses (analyzer/stream.h), for the commands that analyze captures. */
#ifndef KR_CLI_STREAMED_H
#define KR_CLI_STREAMED_H

#include "analyzer/stream.h"
#include "bundle/capture.h"

/* Process-wide allocator settings for the streamed loads: blocks of 1 MiB
 * and more (record arrays, file buffers) are mapped and unmapped on their
 * own, so memory a finished group of waves released is given back instead
 * of lingering in the heap (glibc's default threshold adapts upwards and
 * keeps it); smaller blocks freed at the top of a heap stay with the
 * process (up to 16 MiB) instead of being returned at once: the analyses
 * free and allocate their per-group buffers again and again, and every
 * page given back costs a page fault (a few microseconds on a virtual
 * machine) when it is touched again. No effect on other C libraries. */
void cli_memory_setup(void);

/* Loads dir with bo (its sink is set here) and the waves streamed; *stream
 * receives the accumulators for cli_analyze_loaded, or NULL when in_memory
 * is set or when the capture had to be loaded whole (its wave files'
 * (SE, SIMD) differ from filenames.json, an_stream_exact). keep_timelines:
 * the timelines stay in the model (the HTML charts draw them). flow 0: the
 * waits, hidden latency and phases are not accumulated (analyze with
 * an_analysis_opts.no_flow). Returns 0
 * or an error code with err filled; on failure nothing is left to free. */
int cli_load_streamed(const char *dir, const bundle_opts *bo, int in_memory, int keep_timelines, int flow,
                      kr_capture **cap, an_stream **stream, kr_err *err);

/* The analysis of a capture cli_load_streamed returned: an_analyze_stream
 * with its stream, an_analyze without. 0 or KR_INTERNAL. */
int cli_analyze_loaded(an_stream *stream, const kr_capture *c, const an_analysis_opts *ao, an_analysis *out);

#endif
