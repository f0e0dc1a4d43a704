/* test_explorer.c — the explorer's data (report/explorer.c), read back with
 * jansson and compared with the model and the analyses it comes from:
 * on the bundle `kreport synth` writes (8 waves on SE 0-1), every row's
 * columns, the non-hidden latency (its sum against an_hidden's total),
 * the waits and producers, each wave's timeline (the runs add up to the
 * wave's timeline cycles), and the kept streams (times rebuilt from the
 * deltas equal the records' aligned times); on hand-made captures the
 * pick rule, the binning of a long timeline and the escaping of text. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analyzer/analysis.h"
#include "bundle/capture.h"
#include "synth/synth.h"
#include "common/buf.h"
#include "report/explorer.h"
#include "tests/unit/t.h"

static json_t *parse(const kr_buf *b)
{
    json_error_t e;
    json_t *j = json_loadb(b->data, b->len, 0, &e);
    if (!j)
        fprintf(stderr, "explorer JSON: %s at line %d\n", e.text, e.line);
    return j;
}

static int64_t at(json_t *a, size_t i) { return json_integer_value(json_array_get(a, i)); }

static void check_synth(const kr_capture *c, const an_analysis *an, json_t *cap)
{
    json_t *rows = json_object_get(cap, "rows");
    T_EQ_U64(json_array_size(rows), c->nrows);
    uint64_t nh_sum = 0;
    for (size_t r = 0; r < c->nrows && r < json_array_size(rows); r++) {
        json_t *row = json_array_get(rows, r);
        char va[32];
        snprintf(va, sizeof va, "%llx", (unsigned long long)c->rows[r].vaddr);
        T_EQ_STR(json_string_value(json_array_get(row, 0)), va);
        T_EQ_STR(json_string_value(json_array_get(row, 1)), c->rows[r].isa);
        T_EQ_U64(at(row, 4), c->rows[r].hit);
        T_EQ_U64(at(row, 5), c->rows[r].latency);
        T_EQ_U64(at(row, 6), c->rows[r].stall);
        T_EQ_U64(at(row, 7), c->rows[r].idle);
        T_EQ_I64(at(row, 9), c->rows[r].cls);
        if (!c->rows[r].is_label && at(row, 8) >= 0)
            nh_sum += (uint64_t)at(row, 8);
    }
    T_CHECK(an->hidden.computed);
    T_EQ_U64(nh_sum, an->hidden.all.non_hidden);

    json_t *waits = json_object_get(cap, "waits");
    T_EQ_U64(json_array_size(waits), an->waits.nwaits);
    for (size_t i = 0; i < an->waits.nwaits && i < json_array_size(waits); i++) {
        json_t *w = json_array_get(waits, i);
        T_EQ_U64(at(w, 0), an->waits.waits[i].row);
        T_EQ_U64(at(w, 2), an->waits.waits[i].stall);
        json_t *prods = json_array_get(w, 6);
        T_EQ_U64(json_array_size(prods), an->waits.waits[i].nproducers);
        for (size_t p = 0; p < json_array_size(prods); p++)
            T_EQ_U64(at(json_array_get(prods, p), 0), an->waits.waits[i].producers[p].row);
    }
    T_CHECK(an->waits.nwaits > 0);

    json_t *waves = json_object_get(cap, "waves");
    T_EQ_U64(json_array_size(waves), c->nwaves);
    int64_t t0 = json_integer_value(json_object_get(cap, "t0"));
    for (size_t w = 0; w < c->nwaves && w < json_array_size(waves); w++) {
        json_t *wv = json_array_get(waves, w);
        int64_t off = c->realtime.aligned ? c->realtime.se_offset[c->waves[w].se] : 0;
        T_EQ_I64(at(wv, 5), (int64_t)c->waves[w].begin + off - t0);
        T_EQ_I64(at(wv, 8), 0);                     /* not binned */
        json_t *tl = json_array_get(wv, 9);
        uint64_t sum = 0, want = 0;
        for (size_t k = 1; k < json_array_size(tl); k += 2)
            sum += (uint64_t)at(tl, k);
        for (size_t k = 0; k < c->waves[w].ntimeline; k++)
            want += c->waves[w].timeline[k].cycles;
        T_EQ_U64(sum, want);
        T_CHECK(want > 0);
    }
    /* 8 waves: every stream is kept, whole */
    json_t *streams = json_object_get(cap, "streams");
    T_EQ_U64(json_array_size(streams), c->nwaves);
    for (size_t s = 0; s < json_array_size(streams); s++) {
        json_t *st = json_array_get(streams, s);
        size_t w = (size_t)json_integer_value(json_object_get(st, "wave"));
        T_EQ_U64(w, s);
        if (w >= c->nwaves)
            continue;
        const kr_wave *wv = &c->waves[w];
        json_t *rec = json_object_get(st, "rec");
        T_EQ_U64(json_array_size(rec), wv->ninsts * 5);
        int64_t off = c->realtime.aligned ? c->realtime.se_offset[wv->se] : 0, t = 0;
        int ok = 1;
        for (size_t k = 0; k < wv->ninsts && k * 5 + 4 < json_array_size(rec); k++) {
            t += at(rec, k * 5);
            ok &= t == (int64_t)wv->insts[k].time + off - t0;
            ok &= at(rec, k * 5 + 1) == (wv->insts[k].row == KR_ROW_NONE ? -1 : (int64_t)wv->insts[k].row);
            ok &= at(rec, k * 5 + 3) == (int64_t)wv->insts[k].stall;
        }
        T_CHECK(ok);
    }
}

static void test_synth(void)
{
    char tmpl[] = "/tmp/test_explorer_XXXXXX";
    char *dir = mkdtemp(tmpl);
    T_CHECK(dir != NULL);
    if (!dir)
        return;
    synth_opts so;
    synth_opts_default(&so);
    kr_err err;
    kr_err_clear(&err);
    T_EQ_U64(synth_write(&so, dir, &err), 0);
    char cdir[4200];
    snprintf(cdir, sizeof cdir, "%s/ui_output_agent_24601_dispatch_14", dir);
    bundle_opts bo = {0};
    bo.threads = 1;
    bo.skip_wstates = 1;
    kr_capture *cap = NULL;
    int rc = bundle_capture_load(cdir, &bo, &cap, &err);
    T_EQ_U64(rc, 0);
    if (!rc) {
        an_analysis an;
        an_analysis_opts ao = {0};
        T_EQ_U64(an_analyze(cap, &ao, &an), 0);
        const an_analysis *ap[1] = {&an};
        const char *labels[1] = {"synth <&>"};
        kr_buf out;
        kr_buf_init(&out);
        T_EQ_U64(rep_explorer_json(ap, labels, 1, &out), 0);
        /* sits in a script element of a page that is XML too */
        T_CHECK(!memchr(out.data, '<', out.len) && !memchr(out.data, '>', out.len) && !memchr(out.data, '&', out.len));
        json_t *j = parse(&out);
        T_CHECK(j != NULL);
        if (j) {
            json_t *c0 = json_array_get(json_object_get(j, "captures"), 0);
            T_EQ_STR(json_string_value(json_object_get(c0, "label")), "synth <&>");
            check_synth(cap, &an, c0);
            json_decref(j);
        }
        kr_buf_free(&out);
        an_analysis_free(&an);
        bundle_capture_free(cap);
    }
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    T_EQ_U64(system(cmd), 0);
}

/* Pick: 20 waves, SE 0 has 10 (lengths 10..19 by index), SE 1 has 6
 * (lengths 5 each: ties to the lower index), SE 2 has 4 (lengths 100 - i).
 * Rounds take, per SE ascending, its longest: SE 0 by length descending
 * (waves 9, 8, 7, ...), SE 1 by index (10, 11, ...), SE 2 (16, 17, ...).
 * Four rounds take 12 (SE 2 then runs out), two more rounds take SE 0's
 * and SE 1's next two each: 16 waves. */
static void test_pick(void)
{
    kr_capture c;
    memset(&c, 0, sizeof c);
    kr_wave waves[20];
    kr_wave_ref refs[20];
    memset(waves, 0, sizeof waves);
    memset(refs, 0, sizeof refs);
    for (size_t i = 0; i < 20; i++) {
        uint32_t se = i < 10 ? 0 : i < 16 ? 1 : 2;
        uint64_t len = i < 10 ? 10 + i : i < 16 ? 5 : 100 - i;
        refs[i] = (kr_wave_ref){se, 0, 0, (uint32_t)i, NULL, 1000, 1000 + len};
        waves[i].se = se;
    }
    c.waves = waves;
    c.nwaves = 20;
    c.wave_refs = refs;
    c.nwave_refs = 20;
    size_t pick[REP_EXPLORER_STREAM_WAVES];
    size_t n = rep_explorer_pick(&c, pick);
    T_EQ_U64(n, 16);
    /* SE 0: 9 8 7 6 5 4; SE 1: 10 11 12 13 14 15; SE 2: 16 17 18 19 */
    static const size_t want[16] = {4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19};
    for (size_t i = 0; i < n && i < 16; i++)
        T_EQ_U64(pick[i], want[i]);
    T_EQ_U64(rep_explorer_records_per_wave(16), REP_EXPLORER_STREAM_RECORDS / 16);
    /* fewer waves than the bound: all of them */
    c.nwaves = c.nwave_refs = 3;
    T_EQ_U64(rep_explorer_pick(&c, pick), 3);
}

/* One wave whose timeline alternates EXEC and WAIT a cycle at a time,
 * 200,000 runs: past REP_EXPLORER_RUNS, so drawn from bins of 2 cycles,
 * each a tie (1 EXEC, 1 WAIT) that goes to the lower state: one EXEC run
 * of 200,000 cycles. A row's text with markup and a byte that is not
 * UTF-8. */
static void test_binned_and_text(void)
{
    kr_capture c;
    memset(&c, 0, sizeof c);
    kr_wave w;
    memset(&w, 0, sizeof w);
    size_t nt = 200000;
    kr_tl *tl = malloc(nt * sizeof *tl);
    T_CHECK(tl != NULL);
    if (!tl)
        return;
    for (size_t k = 0; k < nt; k++)
        tl[k] = (kr_tl){1, (uint8_t)(k % 2 ? KR_STATE_WAIT : KR_STATE_EXEC)};
    w.timeline = tl;
    w.ntimeline = nt;
    w.begin = 50;
    w.end = 50 + nt;
    kr_code_row row;
    memset(&row, 0, sizeof row);
    row.isa = "v_mov <b>&amp; \xff\"x\"";
    row.mnemonic = "v_mov";
    row.cls = KR_CLASS_VALU;
    row.hit = 3;
    c.rows = &row;
    c.nrows = 1;
    c.waves = &w;
    c.nwaves = 1;
    c.folder = "fake";
    an_analysis an;
    memset(&an, 0, sizeof an);
    an.cap = &c;
    const an_analysis *ap[1] = {&an};
    kr_buf out;
    kr_buf_init(&out);
    T_EQ_U64(rep_explorer_json(ap, NULL, 1, &out), 0);
    json_t *j = parse(&out);
    T_CHECK(j != NULL);
    if (j) {
        json_t *cap = json_array_get(json_object_get(j, "captures"), 0);
        json_t *wv = json_array_get(json_object_get(cap, "waves"), 0);
        T_EQ_I64(at(wv, 8), 1);
        json_t *runs = json_array_get(wv, 9);
        T_EQ_U64(json_array_size(runs), 2);
        T_EQ_I64(at(runs, 0), KR_STATE_EXEC);
        T_EQ_I64(at(runs, 1), (int64_t)nt);
        json_t *r0 = json_array_get(json_object_get(cap, "rows"), 0);
        T_EQ_STR(json_string_value(json_array_get(r0, 1)), "v_mov <b>&amp; ?\"x\"");
        T_EQ_I64(at(r0, 8), -1);                    /* no hidden latency computed */
        T_EQ_U64(json_array_size(json_object_get(cap, "streams")), 0);
        json_decref(j);
    }
    kr_buf_free(&out);
    free(tl);
}

int main(void)
{
    test_pick();
    test_binned_and_text();
    test_synth();
    printf("test_explorer: %d passed, %d failed\n", t_passed, t_failed);
    return t_failed ? 1 : 0;
}
