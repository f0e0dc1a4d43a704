/* explorer.h — the instruction-level explorer of report.html: the data of
 * every capture as one JSON document, read by the page's script
 * (templates/explorer.js) to draw the instruction table, the source pane,
 * the waits and their producers, and the timelines.
 *
 * What the page holds, and its bounds (so the page's size does not grow
 * with the length of the capture beyond these):
 *   - every code row with its code.json columns, non-hidden latency
 *     (analyzer/hidden.h), class, stall bucket (analyzer/stalls.h taxonomy
 *     b), innermost loop and top-level phase (analyzer/phases.h);
 *   - every executed wait with its producers (analyzer/waits.h), over the
 *     whole dispatch;
 *   - per source line the inclusive and exclusive totals
 *     (analyzer/sources.h), and the text of the captured source copies the
 *     rows point to, each file up to REP_EXPLORER_SOURCE_FILE bytes and all
 *     of them up to REP_EXPLORER_SOURCE_TOTAL (a file past either is left
 *     out and the page says so);
 *   - per SE the waves in each state and the resident waves over time, in
 *     REP_EXPLORER_BINS bins of whole cycles;
 *   - per wave its state timeline, run-length coded; a wave whose timeline
 *     has more runs than its share of REP_EXPLORER_RUNS is drawn from
 *     equal bins of its lifetime, each showing the state it spent the most
 *     cycles in (the page says which waves are binned);
 *   - the instruction streams of at most REP_EXPLORER_STREAM_WAVES waves
 *     (rep_explorer_pick), at most REP_EXPLORER_STREAM_RECORDS records
 *     together (each wave the same share, its first records).
 * So a capture's data is at most about 40 bytes per code row plus
 * REP_EXPLORER_SOURCE_TOTAL of source, 1 MiB of wave timelines and 1.5 MiB
 * of streams, whatever its number of waves or records. */
#ifndef KR_REPORT_EXPLORER_H
#define KR_REPORT_EXPLORER_H

#include <stddef.h>

#include "analyzer/analysis.h"
#include "common/buf.h"

#define REP_EXPLORER_BINS 1000
#define REP_EXPLORER_RUNS 131072              /* timeline runs over all waves */
#define REP_EXPLORER_STREAM_WAVES 16
#define REP_EXPLORER_STREAM_RECORDS 131072
#define REP_EXPLORER_SOURCE_FILE (1u << 20)
#define REP_EXPLORER_SOURCE_TOTAL (4u << 20)

/* The waves whose instruction streams the page keeps: the longest wave of
 * each SE first (SEs ascending), then the next longest of each SE in turn,
 * until REP_EXPLORER_STREAM_WAVES; lengths from filenames.json (end −
 * begin) when it lists every wave, else from the wave files; ties go to
 * the lower index. Writes indices into c->waves, ascending, to waves (room
 * for REP_EXPLORER_STREAM_WAVES) and returns how many. Needs only the list
 * of waves, so a streamed load can decide before the records come. */
size_t rep_explorer_pick(const kr_capture *c, size_t *waves);

/* Records each picked wave keeps when k waves are picked. */
size_t rep_explorer_records_per_wave(size_t k);

/* The JSON document of captures a[0 .. n) (labels as in report.html),
 * appended to out; '<', '>' and '&' are written as \u escapes so the text
 * can sit inside a <script> element of a page that is also well-formed
 * XML. Streams come from the picked waves whose records are in the model
 * (a wave without them has none). 0 or KR_INTERNAL. */
int rep_explorer_json(const an_analysis *const *a, const char *const *labels, size_t n, kr_buf *out);

/* text as a JSON string with the escapes above (bytes that are not UTF-8
 * become '?'), appended to out. */
void rep_explorer_jstr(kr_buf *out, const char *text);

#endif
