/* progress.h — a one-line progress bar for long runs (files parsed, MB/s,
 * ETA), written to a file descriptor the program names (stderr), never to
 * stdout.
 *
 * Modes: KR_PROGRESS_AUTO draws only when the descriptor is a terminal and
 * the run has lasted about a second (short runs stay silent);
 * KR_PROGRESS_ON draws whatever the descriptor is, from the first update,
 * and always ends with a final line; KR_PROGRESS_OFF never draws.
 * kr_progress_add is safe to call from several threads: counters are
 * atomic and one thread at a time redraws, at most every 100 ms. Cost when
 * off: two atomic additions per call. A NULL kr_progress is a no-op
 * everywhere, so callers need not test. */
#ifndef KR_COMMON_PROGRESS_H
#define KR_COMMON_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

typedef enum kr_progress_mode {
    KR_PROGRESS_AUTO = 0,
    KR_PROGRESS_ON,
    KR_PROGRESS_OFF
} kr_progress_mode;

typedef struct kr_progress kr_progress;

/* label: what is being done ("parsing"), shown before the bar. NULL on
 * allocation failure (callers then run without a bar). */
kr_progress *kr_progress_new(int fd, kr_progress_mode mode, const char *label);
/* Adds files to the expected total (for the bar and the ETA): each load
 * announces its own, so one bar spans several captures. */
void kr_progress_expect(kr_progress *p, uint64_t files);
/* files and bytes finished since the last call. */
void kr_progress_add(kr_progress *p, uint64_t files, uint64_t bytes);
/* Draws the final state (when drawing) and ends the line; later calls
 * draw nothing. */
void kr_progress_done(kr_progress *p);
void kr_progress_free(kr_progress *p);

/* The line for the given state into buf (exposed for tests):
 * "LABEL [#####-----] F/T files  X MB  R MB/s  ETA S s". elapsed_ns 0
 * gives no rate and no ETA. */
void kr_progress_format(char *buf, size_t cap, const char *label, uint64_t files, uint64_t total,
                        uint64_t bytes, uint64_t elapsed_ns);

/* Mode from the command-line flags (--progress, --no-progress, --quiet):
 * --no-progress and --quiet win over --progress. */
kr_progress_mode kr_progress_mode_of(int progress, int no_progress, int quiet);

#endif
