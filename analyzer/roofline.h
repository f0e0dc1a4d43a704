/* roofline.h — roofline and speed of light: how far from the hardware is
 * this kernel?
 *
 * Inputs, each with the source it came from:
 *   work     FLOPs: --flops, else the counters' FLOP total (analyzer/counters.h);
 *            bytes: --bytes, else HBM read + write bytes from the counters
 *   time     mean dispatch duration: --time-ns, else the counters' duration,
 *            else the kernel trace (an_kernel_time)
 *   ceiling  (unit, data type): --ceiling, else the counters' largest FLOP
 *            figure, else the ISA: the matrix data type whose MFMA rows have
 *            the most Hit (ties: the earlier type of an_dtype), "vector_fp32"
 *            when the kernel has no MFMA row
 *   device   an_hw (one entry of templates/hw.json, picked by the caller);
 *            NULL = unknown device: no peak-relative figure is computed
 *
 * MFMA data type from a mnemonic v_mfma_[scale_]<out>_<MxNxK><in> (kreport's
 * own): in "f64" fp64, "xf32" xf32, "f32" fp32, "bf16*" bf16, "f16" fp16,
 * "i8" int8, fp8/bf8 pairs fp8, "f8f6f4" fp6_fp4 when the ISA's cbsz and
 * blgp operands are both >= 2 (FP6 or FP4 operands; the FP8 rate applies as
 * soon as one operand is FP8, AMD ROCm blog "Matrix Core Programming on
 * CDNA3 and CDNA4"), else fp8.
 *
 * Figures (kreport's own, the usual roofline model):
 *   achieved FLOP/s = FLOPs / time, bytes/s = bytes / time
 *   intensity       = FLOPs / bytes
 *   ridge           = peak FLOP/s (ceiling) / peak HBM bytes/s
 *   bound           memory when intensity < ridge, else compute; margin =
 *                   intensity / ridge
 *   % of peak       achieved / peak for the ceiling and HBM; in the list of
 *                   every compute ceiling of the device, each data type's
 *                   counted FLOPs against its own ceiling (the total only
 *                   against the chosen one)
 *   target          AN_ROOF_TARGET of the binding ceiling (compute when only
 *                   FLOPs are known, memory when only bytes are): time at the
 *                   target = work / (AN_ROOF_TARGET × peak) (integer ns), and
 *                   the speed-up it implies = time / target time. */
#ifndef KR_ANALYZER_ROOFLINE_H
#define KR_ANALYZER_ROOFLINE_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/counters.h"
#include "bundle/model.h"

#define AN_ROOF_TARGET 0.90
#define AN_HW_MAX_SOURCES 16

typedef struct an_hw_source {
    const char *key, *title, *url;
} an_hw_source;

/* One device of the hardware table; peaks 0 = not known (null in the table). */
typedef struct an_hw {
    const char *name, *gfx;
    int64_t cu_count;                /* -1 unknown */
    double clock_mhz;                /* 0 unknown */
    int64_t lds_kib;                 /* -1 unknown */
    double hbm_gbs;                  /* 0 unknown */
    const char *hbm_source;          /* source key */
    double peak_tflops[AN_UNIT_COUNT][AN_DT_COUNT];
    const char *peak_source[AN_UNIT_COUNT][AN_DT_COUNT];
    an_hw_source sources[AN_HW_MAX_SOURCES];   /* the table's sources */
    size_t nsources;
} an_hw;

/* Title and URL of a source key of hw (NULL when absent). */
const an_hw_source *an_hw_find_source(const an_hw *hw, const char *key);

typedef struct an_roofline_opts {
    const an_hw *hw;                 /* NULL: unknown device */
    const char *device_note;         /* why the device is what it is / unknown */
    uint8_t has_flops, has_bytes, has_time;
    uint64_t flops, bytes, time_ns;  /* --flops, --bytes, --time-ns */
    const char *ceiling;             /* --ceiling key, NULL to choose */
    const char *flops_source, *bytes_source, *time_source;   /* NULL: "--flops", "--bytes", "--time-ns" */
} an_roofline_opts;

typedef struct an_roof_ceiling {
    an_unit unit;
    an_dtype dtype;
    double peak_flops;               /* FLOP/s */
    double pct;                      /* achieved / peak, valid when has_pct */
    uint8_t has_pct;
} an_roof_ceiling;

typedef enum an_roof_bound { AN_BOUND_UNKNOWN = 0, AN_BOUND_MEMORY, AN_BOUND_COMPUTE } an_roof_bound;
const char *an_roof_bound_id(an_roof_bound b);   /* "unknown", "memory", "compute" */

typedef struct an_roofline {
    const char *kernel;              /* kernel the figures are for (points into the caller's string) */
    const char *device;              /* hw name, NULL unknown */
    const char *device_note;
    const an_hw *hw;

    uint8_t has_flops, has_bytes, has_time;
    double flops, bytes;             /* per dispatch */
    uint64_t time_ns;
    const char *flops_source, *bytes_source, *time_source;
    size_t time_dispatches;
    uint8_t time_by_id;              /* trace row of the capture's dispatch id */
    /* dispatch_time_outlier (analyzer/findings.h): the time first chosen was
     * AN_FIND_OUTLIER_RATIO or more from the median of the kernel's
     * dispatches of the same grid, and time_ns is that median */
    uint8_t time_outlier;
    uint64_t time_outlier_ns, time_median_ns;
    size_t time_median_n;

    uint8_t has_ceiling;
    an_unit unit;
    an_dtype dtype;
    const char *ceiling_source;      /* "option", "counters", "isa" */

    double achieved_flops_s, achieved_bytes_s, intensity;
    uint8_t has_achieved_flops, has_achieved_bytes, has_intensity;

    double peak_flops_s, peak_bytes_s, ridge;
    uint8_t has_peak_flops, has_peak_bytes, has_ridge;

    an_roof_bound bound;
    double margin;                   /* intensity / ridge */
    double pct_flops, pct_bytes;
    uint8_t has_pct_flops, has_pct_bytes;

    uint8_t has_target;
    an_roof_bound target_ceiling;    /* which ceiling the target is on */
    double target_pct;               /* AN_ROOF_TARGET */
    uint64_t target_time_ns;
    double target_speedup;           /* time / target time */
    uint8_t at_target;               /* already at or above the target */

    an_roof_ceiling *ceilings;       /* every known FLOP ceiling of the device, in an_unit, an_dtype order (malloc) */
    size_t nceilings;
} an_roofline;

/* One figure of two roofline results (`kreport compare`): delta =
 * candidate − best, ratio = candidate / best (when best ≠ 0). */
typedef struct an_roof_change {
    const char *figure;              /* analysis.json key: "time_ns", "achieved_flops_per_s", ... */
    uint8_t has_best, has_cand, has_ratio;
    double best, cand, delta, ratio;
} an_roof_change;

#define AN_ROOF_NCHANGES 9
/* The AN_ROOF_NCHANGES figures in a fixed order: time_ns, flops, bytes,
 * achieved_flops_per_s, achieved_bytes_per_s, intensity, pct_peak_flops,
 * pct_peak_bytes, target_time_ns. */
void an_roofline_changes(const an_roofline *best, const an_roofline *cand, an_roof_change out[AN_ROOF_NCHANGES]);

/* MFMA data type of one mnemonic and its ISA text (operands), -1 when not
 * an MFMA; exposed for tests. */
int an_roof_mfma_dtype(const char *mnemonic, const char *isa);

/* kernel: the capture's kernel name (may be NULL); counters may be NULL.
 * 0 or KR_INTERNAL (allocation). */
int an_roofline_compute(const kr_capture *c, const char *kernel, const an_counters *counters,
                        const an_roofline_opts *opts, an_roofline *out);
void an_roofline_free(an_roofline *r);

#endif
