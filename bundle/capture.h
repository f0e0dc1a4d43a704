/* capture.h — load a whole capture folder into the model.
 *
 * bundle_capture_load reads filenames.json, then everything else in one
 * parallel batch (opts->threads): code.json, wstates, occupancy, realtime,
 * snapshots, every listed wave file, and the results/CSVs found beside the
 * folder (bundle/discover.h) or given in opts. Any malformed file fails the
 * whole load with KR_INPUT and an error naming the file and position;
 * nothing is half-loaded. When several files are broken, the error is the
 * first in this fixed order, whatever the thread count or timing:
 * filenames.json, code.json, wstates0..4, occupancy.json, realtime.json,
 * snapshots.json, the wave files in wave_refs order, then the results.
 * The model does not depend on the thread count either. */
#ifndef KR_BUNDLE_CAPTURE_H
#define KR_BUNDLE_CAPTURE_H

#include "bundle/model.h"
#include "common/err.h"
#include "common/progress.h"

struct bundle_source;      /* bundle/source.h */
typedef struct bundle_opts {
    int threads;                 /* loader threads (wave files and the other files), >= 1 */
    const char *results_path;    /* --results FILE, or NULL to search */
    const char *label;           /* capture label, or NULL */
    int no_discover;             /* do not look for results/CSVs beside the folder
                                    (results_path is still loaded when given) */
    int skip_wstates;            /* do not read wstates<k>.json: analyses derive state
                                    curves from the wave timelines (docs/formats.md#wave-state-curves);
                                    only validate compares against the files */
    int jansson_waves;           /* parse wave files with the jansson reference */
    const struct bundle_source *src;   /* where dir lies (bundle/source.h); NULL: the filesystem */
    kr_progress *progress;       /* wave files parsed are counted here; NULL: none */
    const kr_wave_sink *sink;    /* stream the waves (model.h): the wave files load
                                    once code.json is in, beside the other files, and go
                                    group by group into the sink; their streams are dropped;
                                    NULL: every wave is kept whole */
} bundle_opts;

int bundle_capture_load(const char *dir, const bundle_opts *opts, kr_capture **out, kr_err *err);
/* Releases a capture bundle_capture_load returned (and nothing else: it
 * also owns arenas that are not in the kr_capture). NULL is a no-op. */
void bundle_capture_free(kr_capture *c);

/* 1 if dir holds filenames.json (how a capture folder is recognised, docs/formats.md#capture-folder). */
int bundle_is_capture_dir(const char *dir);
int bundle_is_capture_dir_src(const struct bundle_source *src, const char *dir);

#endif
