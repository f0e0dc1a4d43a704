/* synth.h — the deterministic bundle generator behind `kreport synth`.
 *
 * synth_write writes rocprofv3-shaped files (docs/formats.md#capture-folder, docs/formats.md#results-json) for a
 * small synthetic kernel whose every figure is known by construction (the
 * construction is documented at the top of synth.c). Same options, same
 * bytes: no time, no pid, one seeded PRNG (splitmix64). Wave files are
 * streamed to disk; memory stays proportional to the number of waves, so
 * --size-mb can produce benchmark inputs of any size.
 *
 * Layouts (what DIR receives):
 *   capture  DIR/ui_output_agent_<H>_dispatch_<D>/           (docs/formats.md#capture-folder)
 *   example  DIR/README.md, DIR/att_viewer/{small,big}/ui_output_*,
 *            DIR/compute_viewer/{small,big}_results.json, ..._agent_info.csv,
 *            discover_{agent_info,domain_stats,kernel_stats,kernel_trace}.csv (docs/formats.md#example-folders)
 *   run      DIR/ui_output_agent_<H>_dispatch_<D>/ (+ an empty shell for an
 *            earlier traced dispatch), out_results.json, out_kernel_trace.csv,
 *            out_agent_info.csv (docs/formats.md#run-directories)
 * With counters (not "none"), counter_collection.csv goes into DIR (capture
 * layout), DIR/out_counter_collection.csv (run) or DIR/compute_viewer/
 * (example); the "passes" dialect writes pass_1/ and pass_2/ folders there.
 */
#ifndef KR_SYNTH_SYNTH_H
#define KR_SYNTH_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

typedef enum { SYNTH_LAYOUT_CAPTURE = 0, SYNTH_LAYOUT_EXAMPLE, SYNTH_LAYOUT_RUN } synth_layout;
typedef enum { SYNTH_GFX950 = 0, SYNTH_GFX942 } synth_gfx;
/* counter_collection.csv dialects (docs/formats.md#counter-collection-csv): none; the current one;
 * the old one (no Accum_VGPR_Count, no timestamps); the current one without
 * Kernel_Id; the current one split over pass_1/ and pass_2/ folders. */
typedef enum {
    SYNTH_CTR_NONE = 0, SYNTH_CTR_CURRENT, SYNTH_CTR_OLD, SYNTH_CTR_NO_KERNEL_ID, SYNTH_CTR_PASSES
} synth_counters;

#define SYNTH_MAX_WAVES 128u        /* 4 SEs x 4 SIMDs x 8 slots */
#define SYNTH_MAX_ITERATIONS 1000000u
#define SYNTH_MAX_SIZE_MB 65536u

typedef struct synth_opts {
    synth_layout layout;
    synth_gfx gfx;
    uint64_t seed;          /* 0: no jitter, every cycle follows the formulas of synth.c */
    unsigned waves;         /* traced waves of the (small) capture, 1..SYNTH_MAX_WAVES */
    unsigned iterations;    /* loop trip count, 1..SYNTH_MAX_ITERATIONS */
    unsigned size_mb;       /* 0: off; else iterations are chosen so the wave files of
                               the capture (example layout: the big one) total about N MiB */
    int force;              /* write into an existing non-empty DIR */
    synth_counters counters;    /* counter collection of a separate run (see synth.c) */
} synth_opts;

/* Defaults: capture layout, gfx950, seed 0, 8 waves, 3 iterations. */
void synth_opts_default(synth_opts *o);

/* What synth_write will produce for one capture (resolved after --size-mb). */
typedef struct synth_capture_info {
    char label[16];         /* "" (capture/run layouts), "small" or "big" (example) */
    char folder[96];        /* ui_output_agent_<H>_dispatch_<D> */
    uint64_t agent;         /* <H> */
    uint64_t dispatch;      /* <D> */
    unsigned waves, iterations;
    uint64_t records;       /* Σ records over all waves = waves × (29 + 14 × iterations) */
} synth_capture_info;

typedef struct synth_plan {
    size_t ncaptures;       /* 1, or 2 for the example layout */
    synth_capture_info cap[2];
} synth_plan;

/* Resolves the options into the captures that synth_write would write. */
int synth_plan_make(const synth_opts *o, synth_plan *plan, kr_err *err);

/* Writes the bundle into dir (created if missing). Errors: KR_USAGE for
 * invalid options, KR_OUTPUT when dir is non-empty without force or cannot be
 * written. On failure no file of this run is left in place. */
int synth_write(const synth_opts *o, const char *dir, kr_err *err);

/* Names for messages and the generated README. */
const char *synth_gfx_name(synth_gfx g);
const char *synth_layout_name(synth_layout l);
const char *synth_counters_name(synth_counters c);   /* "none", "current", "old", "no-kernel-id", "passes" */

#endif
