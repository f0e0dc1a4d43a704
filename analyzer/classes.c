/* classes.c — see classes.h. */
#include "analyzer/classes.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"

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

/* Class of the row of a LineNumber (OTHER for values out of range), or
 * 0xFF when the record has no row (docs/formats.md#instruction-records). */
static unsigned class_of_line(const kr_capture *c, uint32_t line)
{
    const kr_code_row *r = c->line_to_row ? kr_capture_row(c, line) : NULL;
    if (!r)
        return 0xFF;
    return (unsigned)r->cls < KR_CLASS_COUNT ? (unsigned)r->cls : KR_CLASS_OTHER;
}

/* One record into the sums. */
static void record_one(const kr_capture *c, an_classes *out, const kr_inst *in)
{
    unsigned k = class_of_line(c, in->line);
    if (k == 0xFF) {
        out->records_unknown++;
        return;
    }
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

/* The code-row figures (everything but the records). */
static void rows_part(const kr_capture *c, an_classes *out)
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
}

/* Records are counted per (class of their row, category) first, then
 * folded into the sums: the class of each LineNumber is looked up once
 * (line_class; UNKNOWN for line 0, unused lines and no map), and each
 * record costs one increment. */
enum { UNKNOWN = KR_CLASS_COUNT, NCAT = 256 };

int an_classes_acc_init(const kr_capture *c, an_classes_acc *a)
{
    memset(a, 0, sizeof *a);
    a->nmap = c->line_to_row ? c->nline_map : 0;
    a->line_class = malloc(a->nmap ? a->nmap : 1);
    a->count = calloc(KR_CLASS_COUNT + 1, sizeof *a->count);
    if (!a->line_class || !a->count) {
        an_classes_acc_free(a);
        return KR_INTERNAL;
    }
    for (size_t l = 0; l < a->nmap; l++) {
        unsigned k = class_of_line(c, (uint32_t)l);
        a->line_class[l] = (uint8_t)(k == 0xFF ? UNKNOWN : k);
    }
    return 0;
}

void an_classes_acc_wave(an_classes_acc *a, const kr_wave *w)
{
    a->written = sat_add(a->written, w->num_insts);
    a->records += w->ninsts;
    uint64_t none = 0;
    for (size_t j = 0; j < w->ninsts; j++) {
        const kr_inst *in = &w->insts[j];
        a->count[in->line < a->nmap ? a->line_class[in->line] : UNKNOWN][in->cat]++;
        none += in->row == KR_ROW_NONE;
    }
    a->row_none += none;
}

void an_classes_acc_merge(an_classes_acc *into, const an_classes_acc *from)
{
    into->written = sat_add(into->written, from->written);
    into->records += from->records;
    into->row_none += from->row_none;
    for (unsigned k = 0; k <= KR_CLASS_COUNT; k++)
        for (unsigned cat = 0; cat < NCAT; cat++)
            into->count[k][cat] += from->count[k][cat];
}

void an_classes_acc_free(an_classes_acc *a)
{
    free(a->line_class);
    free(a->count);
    memset(a, 0, sizeof *a);
}

void an_classes_finish(const kr_capture *c, const an_classes_acc *a, an_classes *out)
{
    rows_part(c, out);
    out->records = a->records;
    for (unsigned cat = 0; cat < NCAT; cat++)
        out->records_unknown += a->count[UNKNOWN][cat];
    for (unsigned k = 0; k < KR_CLASS_COUNT; k++) {
        an_class_sums *s = &out->by_class[k];
        for (unsigned cat = 0; cat < NCAT; cat++) {
            uint64_t n = a->count[k][cat];
            if (!n)
                continue;
            s->records += n;
            if (cat < KR_CAT_COUNT)
                s->records_by_cat[cat] += n;
            else
                s->records_other_cat += n;
            if (!an_class_allows_cat((kr_class)k, cat)) {
                s->records_incompatible += n;
                out->records_incompatible += n;
            }
        }
    }
    /* Streams were dropped only if the files announced records the model lacks. */
    out->records_kept = out->records > 0 || a->written == 0;
}

int an_classes_compute(const kr_capture *c, an_classes *out)
{
    an_classes_acc a;
    if (an_classes_acc_init(c, &a) == 0) {
        for (size_t w = 0; w < c->nwaves; w++)
            an_classes_acc_wave(&a, &c->waves[w]);
        an_classes_finish(c, &a, out);
        an_classes_acc_free(&a);
        return 0;
    }
    /* Without memory for the tables every record is looked up and added on
     * its own; the sums are the same. */
    rows_part(c, out);
    uint64_t written = 0;
    for (size_t w = 0; w < c->nwaves; w++) {
        const kr_wave *wave = &c->waves[w];
        written = sat_add(written, wave->num_insts);
        out->records += wave->ninsts;
        for (size_t j = 0; j < wave->ninsts; j++)
            record_one(c, out, &wave->insts[j]);
    }
    out->records_kept = out->records > 0 || written == 0;
    return 0;
}
