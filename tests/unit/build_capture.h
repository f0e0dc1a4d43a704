/* build_capture.h — hand-built captures for analyzer tests: a program (one
 * label row and instruction rows with their Vaddr) and waves of records;
 * rows get their mnemonic and class (bundle/isa.h), LineNumber = index,
 * the kernel index of the label, and code.json Hit/Latency/Stall/Idle
 * recomputed from the records by the docs/formats.md#per-row-sums rule, so every column is
 * consistent with the streams. Everything lives in the capture's arena. */
#ifndef KR_TEST_BUILD_CAPTURE_H
#define KR_TEST_BUILD_CAPTURE_H

#include <stdint.h>
#include <string.h>

#include "bundle/capture.h"
#include "bundle/isa.h"
#include "bundle/model.h"
#include "common/arena.h"

typedef struct tb_row { const char *isa; uint64_t vaddr; } tb_row;
/* One record: time, category, stall, duration, LineNumber (docs/formats.md#instruction-records). */
typedef struct tb_rec { uint64_t time; uint8_t cat; uint32_t stall, dur, line; } tb_rec;
typedef struct tb_wave { uint32_t se, simd, slot; uint64_t begin, end; const tb_rec *recs; size_t n; } tb_wave;

/* rows[0] must be the label row ("; name"). */
static inline void tb_build(kr_capture *c, int64_t gfxip, const tb_row *rows, size_t nrows,
                            const tb_wave *waves, size_t nwaves)
{
    memset(c, 0, sizeof *c);
    kr_arena_init(&c->arena);
    c->gfxip = gfxip;
    c->folder = "hand-built";
    c->rows = kr_arena_alloc(&c->arena, nrows * sizeof *c->rows);
    memset(c->rows, 0, nrows * sizeof *c->rows);
    c->nrows = nrows;
    c->nline_map = nrows;
    c->line_to_row = kr_arena_alloc(&c->arena, nrows * sizeof *c->line_to_row);
    uint32_t kernel = UINT32_MAX;
    for (size_t i = 0; i < nrows; i++) {
        kr_code_row *r = &c->rows[i];
        char m[64];
        r->isa = rows[i].isa;
        bundle_mnemonic(rows[i].isa, m, sizeof m);
        r->mnemonic = kr_arena_strdup(&c->arena, m);
        r->cls = bundle_classify(r->mnemonic);
        r->is_label = rows[i].isa[0] == ';';
        if (r->is_label)
            kernel = (uint32_t)i;
        r->kernel = r->is_label ? UINT32_MAX : kernel;
        r->line = (uint32_t)i;
        r->vaddr = rows[i].vaddr;
        r->source = "";
        c->line_to_row[i] = (int32_t)i;
    }
    c->waves = kr_arena_alloc(&c->arena, (nwaves ? nwaves : 1) * sizeof *c->waves);
    memset(c->waves, 0, (nwaves ? nwaves : 1) * sizeof *c->waves);
    c->nwaves = nwaves;
    for (size_t w = 0; w < nwaves; w++) {
        kr_wave *wv = &c->waves[w];
        wv->se = waves[w].se;
        wv->simd = waves[w].simd;
        wv->slot = waves[w].slot;
        wv->id = 0;
        wv->cu = 1;
        wv->begin = waves[w].begin;
        wv->end = waves[w].end;
        wv->file = "hand-built.json";
        wv->ninsts = waves[w].n;
        wv->insts = kr_arena_alloc(&c->arena, (waves[w].n ? waves[w].n : 1) * sizeof *wv->insts);
        uint64_t prev_done = wv->begin;
        for (size_t i = 0; i < waves[w].n; i++) {
            const tb_rec *x = &waves[w].recs[i];
            kr_inst *in = &wv->insts[i];
            in->time = x->time;
            in->cat = x->cat;
            in->stall = x->stall;
            in->dur = x->dur;
            in->line = x->line;
            const kr_code_row *row = kr_capture_row(c, x->line);
            in->row = row && !row->is_label ? (uint32_t)(row - c->rows) : KR_ROW_NONE;
            if (in->row == KR_ROW_NONE)
                continue;
            kr_code_row *r = &c->rows[in->row];      /* docs/formats.md#per-row-sums */
            r->hit++;
            r->latency += x->dur;
            r->stall += x->stall;
            r->idle += x->time > prev_done ? x->time - prev_done : 0;
            if (x->time + x->dur > prev_done)
                prev_done = x->time + x->dur;
        }
    }
}

/* Attaches a stored waitcnt array (docs/formats.md#waitcnt-arrays) to wave w: entries given as
 * wait lines and producer lists flattened (counts[i] producers each). */
static inline void tb_stored(kr_capture *c, size_t w, const uint32_t *wait_lines, const uint32_t *counts,
                             size_t nentries, const uint32_t *producers)
{
    kr_wave *wv = &c->waves[w];
    size_t np = 0;
    for (size_t i = 0; i < nentries; i++)
        np += counts[i];
    wv->waits = kr_arena_alloc(&c->arena, (nentries ? nentries : 1) * sizeof *wv->waits);
    wv->producers = kr_arena_alloc(&c->arena, (np ? np : 1) * sizeof *wv->producers);
    size_t at = 0;
    for (size_t i = 0; i < nentries; i++) {
        wv->waits[i].wait_line = wait_lines[i];
        wv->waits[i].first = (uint32_t)at;
        wv->waits[i].n = counts[i];
        for (uint32_t k = 0; k < counts[i]; k++, at++)
            wv->producers[at] = producers[at];
    }
    wv->nwaits = nentries;
    wv->nproducers = np;
    wv->has_waitcnt = 1;
}

static inline void tb_free(kr_capture *c) { kr_arena_free(&c->arena); }

#endif
