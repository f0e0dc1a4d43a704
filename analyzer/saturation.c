/* saturation.c — see saturation.h. */
#include "analyzer/saturation.h"

#include <string.h>

void an_saturation_compute(const an_occupancy *occ, int64_t cu_fallback, an_saturation *out)
{
    memset(out, 0, sizeof *out);
    out->verdict = "unknown";
    out->wg_per_cu_limit = out->slots = out->rounds = -1;
    out->workgroups = out->wg_size = out->cu_count = -1;
    if (!occ || occ->nkernels == 0 || occ->primary >= occ->nkernels)
        return;
    const an_occ_kernel *k = &occ->kernels[occ->primary];
    out->workgroups = k->workgroups;
    out->wg_size = k->wg_size;
    out->waves_per_wg = k->waves_per_wg;
    out->waves_per_simd_limit = k->waves_per_simd;
    if (k->cu_count > 0) {
        out->cu_count = k->cu_count;
        out->cu_source = "agent";
    } else if (occ->cu_count > 0) {
        out->cu_count = occ->cu_count;
        out->cu_source = "agent";
    } else if (cu_fallback > 0) {
        out->cu_count = cu_fallback;
        out->cu_source = "hardware table";
    }
    if (out->workgroups <= 0 || out->cu_count <= 0 || out->waves_per_wg == 0)
        return;
    out->known = 1;
    out->wg_per_cu = (double)out->workgroups / (double)out->cu_count;
    out->grid_waves_per_simd = (double)out->workgroups * out->waves_per_wg /
                               ((double)out->cu_count * AN_SAT_SIMDS_PER_CU);
    out->wg_per_cu_limit = k->wg_per_cu_limit;
    if (out->wg_per_cu_limit <= 0)
        return;
    out->slots = out->cu_count * out->wg_per_cu_limit;
    out->rounds = (out->workgroups + out->slots - 1) / out->slots;
    int64_t last = out->workgroups - (out->rounds - 1) * out->slots;
    out->tail_fraction = 1.0 - (double)last / (double)out->slots;
    out->fills = out->workgroups >= out->slots;
    out->verdict = !out->fills ? "underfilled" : out->tail_fraction >= AN_SAT_TAIL ? "tail" : "fills";
}
