/* roofline.c — see roofline.h. */
#include "analyzer/roofline.h"

#include <stdlib.h>
#include <string.h>

#include "analyzer/findings.h"
#include "common/err.h"

const char *an_roof_bound_id(an_roof_bound b)
{
    switch (b) {
    case AN_BOUND_MEMORY: return "memory";
    case AN_BOUND_COMPUTE: return "compute";
    default: return "unknown";
    }
}

const an_hw_source *an_hw_find_source(const an_hw *hw, const char *key)
{
    for (size_t i = 0; hw && key && i < hw->nsources; i++)
        if (strcmp(hw->sources[i].key, key) == 0)
            return &hw->sources[i];
    return NULL;
}

/* ---- MFMA data type from the ISA ---- */

static int digits(const char *s, size_t *n)
{
    size_t i = 0;
    while (s[i] >= '0' && s[i] <= '9')
        i++;
    *n = i;
    return i > 0;
}

/* Value of "key:N" in the operand text, -1 when absent. */
static long operand_value(const char *isa, const char *key)
{
    const char *p = strstr(isa, key);
    if (!p)
        return -1;
    p += strlen(key);
    size_t n;
    if (!digits(p, &n))
        return -1;
    return strtol(p, NULL, 10);
}

int an_roof_mfma_dtype(const char *mnemonic, const char *isa)
{
    if (!mnemonic)
        return -1;
    const char *p = NULL;
    if (strncmp(mnemonic, "v_mfma_", 7) == 0)
        p = mnemonic + 7;
    else if (strncmp(mnemonic, "v_smfmac_", 9) == 0)
        p = mnemonic + 9;
    if (!p)
        return -1;
    /* Find the MxNxK shape, then the input type after it. */
    for (; *p; p++) {
        size_t a, b, c;
        if (digits(p, &a) && p[a] == 'x' && digits(p + a + 1, &b) && p[a + 1 + b] == 'x' &&
            digits(p + a + 2 + b, &c)) {
            p += a + 2 + b + c;
            break;
        }
    }
    if (!*p)
        return -1;
    if (*p == '_')
        p++;
    if (strncmp(p, "f8f6f4", 6) == 0) {
        long cbsz = isa ? operand_value(isa, "cbsz:") : -1, blgp = isa ? operand_value(isa, "blgp:") : -1;
        return cbsz >= 2 && blgp >= 2 ? AN_DT_FP6_FP4 : AN_DT_FP8;
    }
    if (strncmp(p, "xf32", 4) == 0) return AN_DT_XF32;
    if (strncmp(p, "f64", 3) == 0) return AN_DT_FP64;
    if (strncmp(p, "f32", 3) == 0) return AN_DT_FP32;
    if (strncmp(p, "bf16", 4) == 0) return AN_DT_BF16;
    if (strncmp(p, "f16", 3) == 0) return AN_DT_FP16;
    if (strncmp(p, "i8", 2) == 0) return AN_DT_INT8;
    if (strncmp(p, "fp8", 3) == 0 || strncmp(p, "bf8", 3) == 0) return AN_DT_FP8;
    return -1;
}

/* Ceiling from the ISA: the MFMA type with the most Hit (rows counted when
 * no row was hit). 0 when the capture has no instruction rows. */
static int isa_ceiling(const kr_capture *c, an_unit *u, an_dtype *d)
{
    uint64_t hits[AN_DT_COUNT] = {0}, rows[AN_DT_COUNT] = {0};
    size_t ninst = 0;
    for (size_t i = 0; i < c->nrows; i++) {
        const kr_code_row *r = &c->rows[i];
        if (r->is_label)
            continue;
        ninst++;
        int t = an_roof_mfma_dtype(r->mnemonic, r->isa);
        if (t < 0)
            continue;
        hits[t] += r->hit;
        rows[t]++;
    }
    if (ninst == 0)
        return 0;
    uint64_t total = 0;
    for (int t = 0; t < AN_DT_COUNT; t++)
        total += hits[t];
    const uint64_t *w = total ? hits : rows;
    int best = -1;
    for (int t = 0; t < AN_DT_COUNT; t++)
        if (w[t] > 0 && (best < 0 || w[t] > w[best]))
            best = t;
    *u = best < 0 ? AN_UNIT_VECTOR : AN_UNIT_MATRIX;
    *d = best < 0 ? AN_DT_FP32 : (an_dtype)best;
    return 1;
}

/* ---- entry ---- */

int an_roofline_compute(const kr_capture *c, const char *kernel, const an_counters *k,
                        const an_roofline_opts *opts, an_roofline *out)
{
    memset(out, 0, sizeof *out);
    an_roofline_opts none = {0};
    if (!opts)
        opts = &none;
    const an_hw *hw = opts->hw;
    out->kernel = kernel;
    out->hw = hw;
    out->device = hw ? hw->name : NULL;
    out->device_note = opts->device_note;

    /* Work and time. */
    if (opts->has_flops) {
        out->has_flops = 1;
        out->flops = (double)opts->flops;
        out->flops_source = opts->flops_source ? opts->flops_source : "--flops";
    } else if (k && k->has_flops_total) {
        out->has_flops = 1;
        out->flops = k->flops_total;
        out->flops_source = "counters";
    } else if (k && k->has_int8_ops) {
        out->has_flops = 1;
        out->flops = k->int8_ops;
        out->flops_source = "counters (INT8 operations)";
    }
    if (opts->has_bytes) {
        out->has_bytes = 1;
        out->bytes = (double)opts->bytes;
        out->bytes_source = opts->bytes_source ? opts->bytes_source : "--bytes";
    } else if (k && (k->has_read || k->has_write)) {
        out->has_bytes = 1;
        out->bytes = k->read_bytes + k->write_bytes;
        out->bytes_source = "counters";
    }
    if (opts->has_time && opts->time_ns > 0) {
        out->has_time = 1;
        out->time_ns = opts->time_ns;
        out->time_source = opts->time_source ? opts->time_source : "--time-ns";
    } else if (k && k->duration_ns > 0) {
        out->has_time = 1;
        out->time_ns = k->duration_ns;
        out->time_source = k->duration_source;
        out->time_dispatches = k->duration_dispatches;
        out->time_by_id = k->duration_by_id;
    } else {
        uint64_t t = an_kernel_time(c, kernel, &out->time_source, &out->time_dispatches, &out->time_by_id);
        if (t > 0) {
            out->has_time = 1;
            out->time_ns = t;
        }
    }

    if (out->has_time && !(opts->has_time && opts->time_ns > 0)) {
        size_t nm = 0;
        uint64_t med = an_dispatch_median(c, kernel, &nm);
        if (med && ((double)out->time_ns >= AN_FIND_OUTLIER_RATIO * (double)med ||
                    (double)med >= AN_FIND_OUTLIER_RATIO * (double)out->time_ns)) {
            out->time_outlier = 1;
            out->time_outlier_ns = out->time_ns;
            out->time_median_ns = med;
            out->time_median_n = nm;
            out->time_ns = med;
            out->time_dispatches = nm;
            out->time_by_id = 0;
        }
    }

    /* Ceiling. */
    if (opts->ceiling && an_ceiling_parse(opts->ceiling, &out->unit, &out->dtype) == 0) {
        out->has_ceiling = 1;
        out->ceiling_source = "option";
    } else if (k && k->has_flops_total) {
        double best = -1;
        for (int u = 0; u < AN_UNIT_COUNT; u++)
            for (int d = 0; d < AN_DT_COUNT; d++)
                if (k->has_flops[u][d] && d != AN_DT_INT8 && k->flops[u][d] > best) {
                    best = k->flops[u][d];
                    out->unit = (an_unit)u;
                    out->dtype = (an_dtype)d;
                }
        out->has_ceiling = 1;
        out->ceiling_source = "counters";
    } else if (isa_ceiling(c, &out->unit, &out->dtype)) {
        out->has_ceiling = 1;
        out->ceiling_source = "isa";
    }

    /* Achieved. */
    double secs = out->has_time ? (double)out->time_ns * 1e-9 : 0;
    if (out->has_flops && secs > 0) {
        out->achieved_flops_s = out->flops / secs;
        out->has_achieved_flops = 1;
    }
    if (out->has_bytes && secs > 0) {
        out->achieved_bytes_s = out->bytes / secs;
        out->has_achieved_bytes = 1;
    }
    if (out->has_flops && out->has_bytes && out->bytes > 0) {
        out->intensity = out->flops / out->bytes;
        out->has_intensity = 1;
    }

    /* Peaks: only from a known device. */
    if (hw) {
        if (out->has_ceiling && hw->peak_tflops[out->unit][out->dtype] > 0) {
            out->peak_flops_s = hw->peak_tflops[out->unit][out->dtype] * 1e12;
            out->has_peak_flops = 1;
        }
        if (hw->hbm_gbs > 0) {
            out->peak_bytes_s = hw->hbm_gbs * 1e9;
            out->has_peak_bytes = 1;
        }
        size_t n = 0;
        for (int u = 0; u < AN_UNIT_COUNT; u++)
            for (int d = 0; d < AN_DT_COUNT; d++)
                n += hw->peak_tflops[u][d] > 0;
        if (n) {
            if (!(out->ceilings = calloc(n, sizeof *out->ceilings)))
                return KR_INTERNAL;
            for (int u = 0; u < AN_UNIT_COUNT; u++)
                for (int d = 0; d < AN_DT_COUNT; d++) {
                    if (!(hw->peak_tflops[u][d] > 0))
                        continue;
                    an_roof_ceiling *ce = &out->ceilings[out->nceilings++];
                    ce->unit = (an_unit)u;
                    ce->dtype = (an_dtype)d;
                    ce->peak_flops = hw->peak_tflops[u][d] * 1e12;
                    /* A type's own counted FLOPs against its ceiling; the
                     * total only against the chosen ceiling. */
                    if (k && k->has_flops[u][d] && !opts->has_flops && secs > 0) {
                        ce->pct = k->flops[u][d] / secs / ce->peak_flops;
                        ce->has_pct = 1;
                    } else if (out->has_achieved_flops && out->has_ceiling && out->unit == (an_unit)u &&
                               out->dtype == (an_dtype)d) {
                        ce->pct = out->achieved_flops_s / ce->peak_flops;
                        ce->has_pct = 1;
                    }
                }
        }
    }
    if (out->has_peak_flops && out->has_peak_bytes) {
        out->ridge = out->peak_flops_s / out->peak_bytes_s;
        out->has_ridge = 1;
    }
    if (out->has_achieved_flops && out->has_peak_flops) {
        out->pct_flops = out->achieved_flops_s / out->peak_flops_s;
        out->has_pct_flops = 1;
    }
    if (out->has_achieved_bytes && out->has_peak_bytes) {
        out->pct_bytes = out->achieved_bytes_s / out->peak_bytes_s;
        out->has_pct_bytes = 1;
    }
    if (out->has_intensity && out->has_ridge && out->ridge > 0) {
        out->bound = out->intensity < out->ridge ? AN_BOUND_MEMORY : AN_BOUND_COMPUTE;
        out->margin = out->intensity / out->ridge;
    }

    /* Target on the binding ceiling (or the only one known). */
    an_roof_bound tc = out->bound;
    if (tc == AN_BOUND_UNKNOWN)
        tc = out->has_pct_flops && !out->has_bytes ? AN_BOUND_COMPUTE
           : out->has_pct_bytes && !out->has_flops ? AN_BOUND_MEMORY : AN_BOUND_UNKNOWN;
    if (tc != AN_BOUND_UNKNOWN && out->has_time) {
        double work = tc == AN_BOUND_MEMORY ? out->bytes : out->flops;
        double peak = tc == AN_BOUND_MEMORY ? out->peak_bytes_s : out->peak_flops_s;
        if (peak > 0 && work > 0) {
            double t = work / (AN_ROOF_TARGET * peak) * 1e9;
            out->has_target = 1;
            out->target_ceiling = tc;
            out->target_pct = AN_ROOF_TARGET;
            out->target_time_ns = (uint64_t)(t + 0.5);
            out->target_speedup = t > 0 ? (double)out->time_ns / t : 0;
            out->at_target = t >= (double)out->time_ns;
        }
    }
    return 0;
}

void an_roofline_free(an_roofline *r)
{
    free(r->ceilings);
    memset(r, 0, sizeof *r);
}

void an_roofline_changes(const an_roofline *b, const an_roofline *c, an_roof_change out[AN_ROOF_NCHANGES])
{
    const an_roofline *s[2] = {b, c};
    for (int k = 0; k < AN_ROOF_NCHANGES; k++) {
        an_roof_change *x = &out[k];
        memset(x, 0, sizeof *x);
        for (int q = 0; q < 2; q++) {
            const an_roofline *r = s[q];
            uint8_t has = 0;
            double v = 0;
            switch (k) {
            case 0: x->figure = "time_ns"; has = r->has_time; v = (double)r->time_ns; break;
            case 1: x->figure = "flops"; has = r->has_flops; v = r->flops; break;
            case 2: x->figure = "bytes"; has = r->has_bytes; v = r->bytes; break;
            case 3: x->figure = "achieved_flops_per_s"; has = r->has_achieved_flops; v = r->achieved_flops_s; break;
            case 4: x->figure = "achieved_bytes_per_s"; has = r->has_achieved_bytes; v = r->achieved_bytes_s; break;
            case 5: x->figure = "intensity"; has = r->has_intensity; v = r->intensity; break;
            case 6: x->figure = "pct_peak_flops"; has = r->has_pct_flops; v = r->pct_flops; break;
            case 7: x->figure = "pct_peak_bytes"; has = r->has_pct_bytes; v = r->pct_bytes; break;
            default: x->figure = "target_time_ns"; has = r->has_target; v = (double)r->target_time_ns; break;
            }
            if (q == 0) {
                x->has_best = has;
                x->best = v;
            } else {
                x->has_cand = has;
                x->cand = v;
            }
        }
        if (x->has_best && x->has_cand) {
            x->delta = x->cand - x->best;
            if (x->best != 0) {
                x->ratio = x->cand / x->best;
                x->has_ratio = 1;
            }
        }
    }
}
