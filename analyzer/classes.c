/* classes.c — see classes.h. */
#include "analyzer/classes.h"

#include <string.h>

const kr_class an_class_order[] = {
    KR_CLASS_VALU, KR_CLASS_WAITCNT, KR_CLASS_MATRIX, KR_CLASS_VMEM, KR_CLASS_LDS,
    KR_CLASS_SALU, KR_CLASS_SMEM, KR_CLASS_NOP, KR_CLASS_BARRIER, KR_CLASS_BRANCH,
    KR_CLASS_MESSAGE, KR_CLASS_FLAT, KR_CLASS_IMMED_OTHER, KR_CLASS_OTHER};
const size_t an_class_norder = sizeof an_class_order / sizeof an_class_order[0];

static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

int an_class_allows_cat(kr_class cls, unsigned cat)
{
    if (cat == KR_CAT_CONTEXT)               /* no PC: never on a row, allowed for any */
        return 1;
    switch (cls) {
    case KR_CLASS_SMEM: return cat == KR_CAT_SMEM;
    case KR_CLASS_SALU: return cat == KR_CAT_SALU;
    case KR_CLASS_VMEM: return cat == KR_CAT_VMEM || cat == KR_CAT_FLAT;
    case KR_CLASS_FLAT: return cat == KR_CAT_FLAT;
    case KR_CLASS_LDS: return cat == KR_CAT_LDS;
    case KR_CLASS_VALU:
    case KR_CLASS_MATRIX: return cat == KR_CAT_VALU;
    case KR_CLASS_BRANCH: return cat == KR_CAT_JUMP || cat == KR_CAT_NEXT;
    case KR_CLASS_WAITCNT:
    case KR_CLASS_BARRIER:
    case KR_CLASS_NOP:
    case KR_CLASS_IMMED_OTHER: return cat == KR_CAT_IMMED;
    case KR_CLASS_MESSAGE: return cat == KR_CAT_MESSAGE;
    default: return 0;                       /* LABEL, OTHER: no category fits */
    }
}

int an_classes_compute(const kr_capture *c, an_classes *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < c->nrows; i++) {
        const kr_code_row *r = &c->rows[i];
        if (r->is_label)
            continue;
        unsigned k = (unsigned)r->cls < KR_CLASS_COUNT ? (unsigned)r->cls : KR_CLASS_OTHER;
        an_class_sums *s = &out->by_class[k];
        s->rows++;
        s->hit = sat_add(s->hit, r->hit);
        s->latency = sat_add(s->latency, r->latency);
        s->stall = sat_add(s->stall, r->stall);
        s->idle = sat_add(s->idle, r->idle);
        out->rows++;
        out->hit = sat_add(out->hit, r->hit);
        out->latency = sat_add(out->latency, r->latency);
        out->stall = sat_add(out->stall, r->stall);
        out->idle = sat_add(out->idle, r->idle);
    }

    uint64_t written = 0;
    for (size_t w = 0; w < c->nwaves; w++) {
        const kr_wave *wave = &c->waves[w];
        written = sat_add(written, wave->num_insts);
        for (size_t j = 0; j < wave->ninsts; j++) {
            const kr_inst *in = &wave->insts[j];
            out->records++;
            const kr_code_row *r = c->line_to_row ? kr_capture_row(c, in->line) : NULL;
            if (!r) {
                out->records_unknown++;
                continue;
            }
            unsigned k = (unsigned)r->cls < KR_CLASS_COUNT ? (unsigned)r->cls : KR_CLASS_OTHER;
            an_class_sums *s = &out->by_class[k];
            s->records++;
            if (in->cat < KR_CAT_COUNT)
                s->records_by_cat[in->cat]++;
            else
                s->records_other_cat++;
            if (!an_class_allows_cat((kr_class)k, in->cat)) {
                s->records_incompatible++;
                out->records_incompatible++;
            }
        }
    }
    /* Streams were dropped only if the files announced records the model lacks. */
    out->records_kept = out->records > 0 || written == 0;
    return 0;
}
