/* fuzz_wave_diff.c — libFuzzer target: the wave scanner and the jansson
 * reference must accept the same inputs and build the same model
 * (load_wave.h: one contract, two parsers). */
#include "bundle/load_wave.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static int same_wave(const kr_wave *a, const kr_wave *b)
{
    if (!same_str(a->name, b->name) || a->se != b->se || a->simd != b->simd || a->slot != b->slot ||
        a->id != b->id || a->cu != b->cu || a->begin != b->begin || a->end != b->end ||
        a->duration != b->duration || a->num_insts != b->num_insts || a->num_stitched != b->num_stitched ||
        a->ninsts != b->ninsts || a->ntimeline != b->ntimeline || a->nwaits != b->nwaits ||
        a->nproducers != b->nproducers || a->has_waitcnt != b->has_waitcnt ||
        a->waitcnt_nonzero_lanes != b->waitcnt_nonzero_lanes)
        return 0;
    for (size_t i = 0; i < a->ninsts; i++) {
        const kr_inst *x = &a->insts[i], *y = &b->insts[i];
        if (x->time != y->time || x->line != y->line || x->dur != y->dur || x->stall != y->stall || x->cat != y->cat)
            return 0;
    }
    for (size_t i = 0; i < a->ntimeline; i++)
        if (a->timeline[i].cycles != b->timeline[i].cycles || a->timeline[i].state != b->timeline[i].state)
            return 0;
    for (size_t i = 0; i < a->nwaits; i++)
        if (a->waits[i].wait_line != b->waits[i].wait_line || a->waits[i].first != b->waits[i].first ||
            a->waits[i].n != b->waits[i].n)
            return 0;
    return a->nproducers == 0 || memcmp(a->producers, b->producers, a->nproducers * sizeof *a->producers) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = fz_copy(data, size);
    kr_wave ws, wj;
    memset(&ws, 0, sizeof ws);
    memset(&wj, 0, sizeof wj);
    kr_err es, ej;
    kr_err_clear(&es);
    kr_err_clear(&ej);
    int rs = bundle_parse_wave(buf, size, "w.json", &ws, &es);
    int rj = bundle_parse_wave_jansson(buf, size, "w.json", &wj, &ej);
    fz_check(rs, &es);
    fz_check(rj, &ej);
    if ((rs == 0) != (rj == 0)) {
        fprintf(stderr, "fuzz: scanner %s, jansson %s\n  scanner: %s: %s\n  jansson: %s: %s\n",
                rs ? "rejects" : "accepts", rj ? "rejects" : "accepts", es.where, es.msg, ej.where, ej.msg);
        abort();
    }
    if (rs == 0 && !same_wave(&ws, &wj)) {
        fprintf(stderr, "fuzz: scanner and jansson build different waves\n");
        abort();
    }
    bundle_wave_release(&ws);
    bundle_wave_release(&wj);
    free(buf);
    return 0;
}
