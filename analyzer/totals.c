/* totals.c — see totals.h. */
#include "analyzer/totals.h"

#include <string.h>

void an_totals_rows(const kr_capture *c, an_totals *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < c->nrows; i++) {
        const kr_code_row *r = &c->rows[i];
        if (r->is_label) {
            out->labels++;
            continue;
        }
        out->rows++;
        out->hit += r->hit;
        out->latency += r->latency;
        out->stall += r->stall;
        out->idle += r->idle;
    }
    out->waves = c->nwaves;
}

void an_totals_add_wave(an_totals *out, const kr_wave *w)
{
    out->records += w->ninsts;
    for (size_t k = 0; k < w->ninsts; k++)
        if (w->insts[k].row == KR_ROW_NONE)
            out->records_unknown++;
}

void an_totals_compute(const kr_capture *c, an_totals *out)
{
    an_totals_rows(c, out);
    for (size_t w = 0; w < c->nwaves; w++)
        an_totals_add_wave(out, &c->waves[w]);
}
