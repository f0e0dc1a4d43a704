/* chart_roofline.c — the roofline figure of report.html (the "Speed of
 * light" section): analyzer/roofline.h results drawn with rep_svg_roofline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/roofline.h"
#include "common/buf.h"
#include "common/err.h"
#include "report/charts.h"
#include "report/svg.h"

#define MAX_ROOFS (AN_UNIT_COUNT * AN_DT_COUNT)

int rep_chart_roofline(const an_roofline *r, const char *label, kr_buf *out)
{
    kr_buf title;
    kr_buf_init(&title);
    kr_buf_printf(&title, "%s%sroofline on %s", label ? label : "", label ? ": " : "",
                  r->device ? r->device : "an unknown device");
    if (!r->hw || !r->has_peak_bytes || r->nceilings == 0) {
        int rc = rep_svg_empty(kr_buf_cstr(&title),
                               r->hw ? "The hardware table has no HBM or compute peak for this device."
                                     : "Unknown device: no peak-relative figure (give --device).", out);
        kr_buf_free(&title);
        return rc;
    }
    /* Ceilings with equal peaks share one roof (fp16 and bf16 usually). */
    rep_roof_line roofs[MAX_ROOFS];
    kr_buf names[MAX_ROOFS];
    size_t nr = 0;
    for (size_t i = 0; i < r->nceilings && nr < MAX_ROOFS; i++) {
        const an_roof_ceiling *c = &r->ceilings[i];
        int chosen = r->has_ceiling && c->unit == r->unit && c->dtype == r->dtype;
        size_t k = 0;
        while (k < nr && roofs[k].peak != c->peak_flops)
            k++;
        if (k == nr) {
            kr_buf_init(&names[nr]);
            kr_buf_puts(&names[nr], an_ceiling_id(c->unit, c->dtype));
            roofs[nr].peak = c->peak_flops;
            roofs[nr].highlight = chosen;
            nr++;
        } else {
            kr_buf_printf(&names[k], " / %s", an_dtype_id(c->dtype));
            roofs[k].highlight |= chosen;
        }
    }
    for (size_t k = 0; k < nr; k++) {
        kr_buf_printf(&names[k], " %.1f TFLOP/s", roofs[k].peak / 1e12);
        roofs[k].label = kr_buf_cstr(&names[k]);
    }
    char bw[96], pt[160], desc[512];
    snprintf(bw, sizeof bw, "HBM %.0f GB/s", r->peak_bytes_s / 1e9);
    rep_roof_point p = {pt, r->intensity, r->achieved_flops_s};
    int has_point = r->has_intensity && r->has_achieved_flops;
    if (has_point) {
        snprintf(pt, sizeof pt, "this kernel: %.2f FLOP/byte, %.2f TFLOP/s", r->intensity, r->achieved_flops_s / 1e12);
        snprintf(desc, sizeof desc, "Roofline of %s: HBM roof %.0f GB/s, %zu compute roofs; the kernel sits at "
                                    "%.2f FLOP/byte and %.2f TFLOP/s, %s-bound.",
                 r->device, r->peak_bytes_s / 1e9, nr, r->intensity, r->achieved_flops_s / 1e12,
                 an_roof_bound_id(r->bound));
    } else {
        snprintf(desc, sizeof desc, "Roofline of %s: HBM roof %.0f GB/s, %zu compute roofs; no achieved point "
                                    "(FLOPs and bytes per dispatch are not both known).",
                 r->device, r->peak_bytes_s / 1e9, nr);
    }
    rep_roof_chart ch = {0};
    ch.title = kr_buf_cstr(&title);
    ch.subtitle = has_point ? "peaks from templates/hw.json; the point is the achieved FLOP/s at the kernel's "
                              "arithmetic intensity"
                            : "peaks from templates/hw.json; give --flops and --bytes (or collect counters) for "
                              "the kernel's point";
    ch.desc = desc;
    ch.bw = r->peak_bytes_s;
    ch.bw_label = bw;
    ch.roofs = roofs;
    ch.nroofs = nr;
    ch.points = has_point ? &p : NULL;
    ch.npoints = has_point ? 1 : 0;
    int rc = rep_svg_roofline(&ch, out);
    for (size_t k = 0; k < nr; k++)
        kr_buf_free(&names[k]);
    kr_buf_free(&title);
    return rc;
}
