/* test_waitcnt.c — the docs/waits.md#producer-links producer-link algorithm on hand-built record
 * streams for gfx9, gfx10/11 and gfx12 (expected entries worked out by hand
 * from the rules in docs/waits.md#producer-links, written next to each case), and on the
 * real captures: recomputed links equal the stored waitcnt arrays on every
 * wave (docs/formats.md#waitcnt-arrays, reference totals 84 / 7808 / 1404 / 2264 entries). */
#include <stdint.h>

#include "analyzer/waitcnt.h"
#include "bundle/capture.h"
#include "tests/unit/t.h"

/* A program: isa[line] is the ISA text of LineNumber `line` (1-based). */
typedef struct prog {
    const char *const *isa;
    uint32_t n;
} prog;

static const char *prog_isa(void *ctx, uint32_t line)
{
    const prog *p = ctx;
    return line >= 1 && line <= p->n ? p->isa[line - 1] : NULL;
}

/* Runs the lines in order (one record per line) and returns out. */
static an_waitcnt run(int64_t gfxip, const char *const *isa, uint32_t nisa,
                      const uint32_t *lines, size_t nlines)
{
    kr_inst recs[64];
    memset(recs, 0, sizeof recs);
    for (size_t i = 0; i < nlines; i++) {
        recs[i].time = 100 + 4 * i;
        recs[i].line = lines[i];
        recs[i].row = KR_ROW_NONE;
    }
    prog p = {isa, nisa};
    an_waitcnt out;
    int rc = an_waitcnt_links(gfxip, recs, nlines, prog_isa, &p, &out);
    T_EQ_I64(rc, 0);
    return out;
}

/* Checks entry e: wait line and producers (n of them). */
static void check_entry(const an_waitcnt *w, size_t e, uint32_t wait_line,
                        const uint32_t *prod, uint32_t n)
{
    T_CHECK(e < w->nwaits);
    if (e >= w->nwaits)
        return;
    T_EQ_U64(w->waits[e].wait_line, wait_line);
    T_EQ_U64(w->waits[e].n, n);
    for (uint32_t i = 0; i < n && i < w->waits[e].n; i++)
        T_EQ_U64(w->producers[w->waits[e].first + i], prod[i]);
}

#define ARR(...) ((const uint32_t[]){__VA_ARGS__})
#define NARR(...) (sizeof((const uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t))

static void test_extract(void)
{
    T_EQ_I64(an_waitcnt_extract("s_waitcnt lgkmcnt(3)", "lgkmcnt"), 3);
    T_EQ_I64(an_waitcnt_extract("s_waitcnt vmcnt(2) lgkmcnt(0)", "vmcnt"), 2);
    T_EQ_I64(an_waitcnt_extract("s_waitcnt vmcnt(2) lgkmcnt(0)", "lgkmcnt"), 0);
    T_EQ_I64(an_waitcnt_extract("s_waitcnt vmcnt(2)", "expcnt"), 0);   /* absent */
    T_EQ_I64(an_waitcnt_extract("s_waitcnt vmcnt(0x3f)", "vmcnt"), 63);
    /* gfx12 form: name, space, hex. */
    T_EQ_I64(an_waitcnt_extract("s_wait_loadcnt 0x3", "loadcnt"), 3);
    T_EQ_I64(an_waitcnt_extract("s_wait_loadcnt 2", "loadcnt"), 2);
    /* The name is found inside the mnemonic: the skip lands on "null", atoi 0. */
    T_EQ_I64(an_waitcnt_extract("s_waitcnt_vscnt null, 0x0", "vscnt"), 0);
    /* Combined gfx12 mnemonic: after "loadcnt_" comes "dscnt ..." -> 0. */
    T_EQ_I64(an_waitcnt_extract("s_wait_loadcnt_dscnt 0x1", "loadcnt"), 0);
    /* Name at the very end: nothing to parse. */
    T_EQ_I64(an_waitcnt_extract("s_waitcnt vmcnt", "vmcnt"), 0);
}

static void test_gfx9(void)
{
    static const char *const isa[] = {
        /* 1 */ "s_load_dwordx2 s[8:9], s[0:1], 0x130",
        /* 2 */ "s_load_dword s30, s[0:1], 0x148",
        /* 3 */ "s_waitcnt lgkmcnt(0)",
        /* 4 */ "buffer_load_dword v1, v0, s[8:11], 0 offen",
        /* 5 */ "buffer_load_dwordx4 v[2:5], v0, s[8:11], 0 offen",
        /* 6 */ "global_load_dwordx4 v[6:9], v[0:1], off",
        /* 7 */ "s_waitcnt vmcnt(1)",
        /* 8 */ "ds_read_b128 v[10:13], v0",
        /* 9 */ "ds_read_b128 v[14:17], v0 offset:16",
        /* 10 */ "s_waitcnt lgkmcnt(1)",
        /* 11 */ "s_waitcnt vmcnt(0) lgkmcnt(0)",
        /* 12 */ "v_add_f32_e32 v1, v2, v3",
        /* 13 */ "flat_load_dword v1, v[2:3]",
        /* 14 */ "s_waitcnt vmcnt(0)",
        /* 15 */ "s_sendmsg sendmsg(MSG_GS_DONE)",
        /* 16 */ "tbuffer_load_format_x v1, v0, s[4:7], 0 offen",
        /* 17 */ "buffer_store_dword v1, v0, s[8:11], 0 offen",
        /* 18 */ "s_waitcnt expcnt(0)",
        /* 19 */ "s_nop 0",
    };
    /* Scalar loads make lgkmcnt unordered; lgkmcnt(0) restores order and
     * releases both (entry 3: [1,2]). vmcnt(1) with 3 loads outstanding
     * releases the oldest 2 ([4,5]). lgkmcnt(1) with 2 ds_reads releases [8].
     * The combined wait handles lgkm first ([9]), then vm ([6]). */
    {
        static const uint32_t lines[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
        an_waitcnt w = run(9, isa, 19, lines, 12);
        T_CHECK(w.supported);
        T_EQ_U64(w.nwaits, 5);
        T_EQ_U64(w.nproducers, 7);
        check_entry(&w, 0, 3, ARR(1, 2), 2);
        check_entry(&w, 1, 7, ARR(4, 5), 2);
        check_entry(&w, 2, 10, ARR(8), 1);
        check_entry(&w, 3, 11, ARR(9), 1);
        check_entry(&w, 4, 11, ARR(6), 1);
        an_waitcnt_free(&w);
    }
    /* An outstanding scalar load: lgkmcnt(1) links nothing (PARALLEL), then
     * lgkmcnt(0) releases everything in push order [1, 8]. */
    {
        static const uint32_t lines[] = {1, 8, 10, 3};
        an_waitcnt w = run(9, isa, 19, lines, 4);
        T_EQ_U64(w.nwaits, 1);
        check_entry(&w, 0, 3, ARR(1, 8), 2);
        an_waitcnt_free(&w);
    }
    /* FLAT: both counters unordered, the flat goes to the shared flats list;
     * vmcnt(0) releases flats first, then the vm list: [13, 4]. The following
     * lgkmcnt(0) finds flats empty and releases the ds_read [8]. s_sendmsg
     * pushes to lgkm; tbuffer_ (buffer_ at position 1) and buffer_store push
     * to vm. expcnt is ignored: s_waitcnt expcnt(0) has neither bit. */
    {
        static const uint32_t lines[] = {4, 13, 8, 14, 3, 15, 16, 17, 18, 11};
        an_waitcnt w = run(9, isa, 19, lines, 10);
        T_EQ_U64(w.nwaits, 4);
        check_entry(&w, 0, 14, ARR(13, 4), 2);
        check_entry(&w, 1, 3, ARR(8), 1);
        check_entry(&w, 2, 11, ARR(15), 1);
        check_entry(&w, 3, 11, ARR(16, 17), 2);
        an_waitcnt_free(&w);
    }
    /* Unknown PC (line 0) is skipped; a line without a row stops the wave. */
    {
        static const uint32_t lines[] = {4, 0, 14, 99, 4, 14};
        an_waitcnt w = run(9, isa, 19, lines, 6);
        T_EQ_U64(w.nwaits, 1);
        check_entry(&w, 0, 14, ARR(4), 1);
        T_CHECK(w.stopped);
        T_EQ_U64(w.stop_index, 3);
        an_waitcnt_free(&w);
    }
    /* A wait with nothing outstanding produces no entry. */
    {
        static const uint32_t lines[] = {11, 12, 19};
        an_waitcnt w = run(9, isa, 19, lines, 3);
        T_EQ_U64(w.nwaits, 0);
        T_EQ_U64(w.nproducers, 0);
        an_waitcnt_free(&w);
    }
    /* Unsupported gfxip: nothing, flagged. */
    {
        static const uint32_t lines[] = {4, 14};
        an_waitcnt w = run(8, isa, 19, lines, 2);
        T_CHECK(!w.supported);
        T_EQ_U64(w.nwaits, 0);
        an_waitcnt_free(&w);
    }
    T_CHECK(an_waitcnt_is_producer(9, "buffer_store_dword v1, v0, s[8:11], 0 offen"));
    T_CHECK(an_waitcnt_is_producer(9, "s_sendmsg sendmsg(MSG_GS_DONE)"));
    T_CHECK(!an_waitcnt_is_producer(9, "s_buffer_load_dword s0, s[4:7], 0x0"));  /* not memory here */
    T_CHECK(!an_waitcnt_is_producer(9, "s_memtime s[0:1]"));
    T_CHECK(!an_waitcnt_is_producer(9, "s_waitcnt vmcnt(0)"));
    T_CHECK(an_waitcnt_is_wait(9, "s_waitcnt vmcnt(0)"));
    T_CHECK(!an_waitcnt_is_wait(9, "s_wait_loadcnt 0x0"));   /* gfx9 tests s_waitcnt only */
}

static void test_gfx10(void)
{
    static const char *const isa[] = {
        /* 1 */ "global_load_dword v1, v[2:3], off",
        /* 2 */ "global_store_dword v[2:3], v1, off",
        /* 3 */ "flat_load_dword v4, v[2:3]",
        /* 4 */ "flat_store_dword v[2:3], v4",
        /* 5 */ "ds_read_b32 v5, v0",
        /* 6 */ "s_sendmsg_rtn_b32 s0, sendmsg(MSG_RTN_GET_DOORBELL)",
        /* 7 */ "s_waitcnt vmcnt(0) lgkmcnt(0)",
        /* 8 */ "s_waitcnt_vscnt null, 0x0",
        /* 9 */ "s_waitcnt_depctr 0xffe3",
        /* 10 */ "s_wait_alu 0xfffe",
        /* 11 */ "s_load_dword s1, s[0:1], 0x0",
        /* 12 */ "s_waitcnt lgkmcnt(1)",
    };
    /* vm first: handle(vm, flat_load) releases flat_load [3] then vm [1].
     * lgkm: handle(lgkm, flat_load) (now empty) releases the lgkm list
     * [5, 6, 6] (msg_rtn counts twice); flat_stor is non-empty, so a second
     * handle(lgkm, flat_stor) appends [4] to the same entry. vscnt: the
     * extraction lands on "null" -> 0 -> releases the store [2]. depctr and
     * s_wait_alu release nothing. */
    static const uint32_t lines[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    for (int64_t gfxip = 10; gfxip <= 11; gfxip++) {
        an_waitcnt w = run(gfxip, isa, 12, lines, 10);
        T_CHECK(w.supported);
        T_EQ_U64(w.nwaits, 3);
        check_entry(&w, 0, 7, ARR(3, 1), 2);
        check_entry(&w, 1, 7, ARR(5, 6, 6, 4), 4);
        check_entry(&w, 2, 8, ARR(2), 1);
        an_waitcnt_free(&w);
    }
    /* Scalar load: lgkmcnt(1) links nothing; lgkmcnt(0) then releases all. */
    {
        static const uint32_t l2[] = {11, 5, 12, 7};
        an_waitcnt w = run(10, isa, 12, l2, 4);
        T_EQ_U64(w.nwaits, 1);
        check_entry(&w, 0, 7, ARR(11, 5), 2);
        an_waitcnt_free(&w);
    }
    T_CHECK(!an_waitcnt_is_producer(10, "s_wait_alu 0xfffe"));
    T_CHECK(an_waitcnt_is_wait(10, "s_waitcnt_depctr 0xffe3"));
}

static void test_gfx12(void)
{
    static const char *const isa[] = {
        /* 1 */ "global_load_b32 v1, v[2:3], off",
        /* 2 */ "global_store_b32 v[2:3], v1, off",
        /* 3 */ "ds_load_b32 v5, v0",
        /* 4 */ "s_load_b32 s1, s[0:1], 0x0",
        /* 5 */ "s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)",
        /* 6 */ "image_bvh_intersect_ray v[0:3], v[4:15], s[0:3]",
        /* 7 */ "s_wait_loadcnt 0x0",
        /* 8 */ "s_wait_kmcnt 0x1",
        /* 9 */ "s_wait_dscnt 0x0",
        /* 10 */ "global_load_b32 v7, v[2:3], off",
        /* 11 */ "s_wait_idle",
        /* 12 */ "ds_param_load v0, attr0.x",
        /* 13 */ "s_wait_expcnt 0x0",
        /* 14 */ "s_wait_alu 0xfffe",
        /* 15 */ "flat_load_b32 v1, v[2:3]",
        /* 16 */ "flat_store_b32 v[2:3], v1",
        /* 17 */ "s_wait_storecnt_dscnt 0x0",
        /* 18 */ "global_wb scope:SCOPE_SYS",
        /* 19 */ "s_wait_storecnt 0x0",
    };
    /* loadcnt(0) releases [1]; kmcnt 1 with the scalar load outstanding is
     * PARALLEL -> nothing; dscnt(0) releases [3]. s_wait_idle then releases
     * every list in the order load, store, sample, ds, km, exp, bvh:
     * [10, 2, 4, 5, 6]; a second s_wait_idle emits an empty entry (the writer
     * emits it unconditionally). ds_param_load goes to expcnt. */
    {
        static const uint32_t lines[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 11, 12, 14, 13};
        an_waitcnt w = run(12, isa, 19, lines, 15);
        T_CHECK(w.supported);
        T_EQ_U64(w.nwaits, 5);
        check_entry(&w, 0, 7, ARR(1), 1);
        check_entry(&w, 1, 9, ARR(3), 1);
        check_entry(&w, 2, 11, ARR(10, 2, 4, 5, 6), 5);
        check_entry(&w, 3, 11, ARR(0), 0);
        check_entry(&w, 4, 13, ARR(12), 1);
        an_waitcnt_free(&w);
    }
    /* Flat ops: storecnt handles flat_stor; the combined mnemonic also has
     * the dscnt bit: handle(ds, flat_load) releases [15] and then appends
     * handle(ds, flat_stor) — already emptied by storecnt, so not called.
     * Order within one wait: store entry first ([16] + list [2]), then ds.
     * global_wb counts as a store. */
    {
        static const uint32_t lines[] = {2, 15, 16, 17, 18, 19};
        an_waitcnt w = run(12, isa, 19, lines, 6);
        T_EQ_U64(w.nwaits, 3);
        check_entry(&w, 0, 17, ARR(16, 2), 2);
        check_entry(&w, 1, 17, ARR(15), 1);
        check_entry(&w, 2, 19, ARR(18), 1);
        an_waitcnt_free(&w);
    }
    T_CHECK(an_waitcnt_is_producer(12, "global_wb scope:SCOPE_SYS"));
    T_CHECK(!an_waitcnt_is_producer(12, "s_wait_alu 0xfffe"));
}

/* Real captures: recompute on every wave and compare with the stored array. */
static void test_hub(void)
{
    const char *hub = t_hub();
    if (!hub) {
        printf("test_waitcnt: hub fixtures absent, skipping the real-capture part\n");
        return;
    }
    static const struct { const char *dir; uint64_t entries; } caps[] = {
        {"examples/pa_mqa_logits_fp4/att_viewer/small/ui_output_agent_32435_dispatch_197", 84},
        {"examples/pa_mqa_logits_fp4/att_viewer/big/ui_output_agent_55351_dispatch_426", 7808},
        {"examples/flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44", 1404},
        {"examples/flash_attn_func/att_viewer/small/ui_output_agent_58550_dispatch_44_after_loc_fix", 2264},
    };
    for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", hub, caps[k].dir);
        bundle_opts opts = {0};
        opts.threads = 2;
        opts.no_discover = 1;
        kr_capture *c = NULL;
        kr_err err;
        kr_err_clear(&err);
        int rc = bundle_capture_load(path, &opts, &c, &err);
        T_EQ_I64(rc, 0);
        if (rc) {
            fprintf(stderr, "load %s: %s\n", path, err.msg);
            continue;
        }
        uint64_t total = 0, stored_total = 0, mismatched_waves = 0;
        for (size_t i = 0; i < c->nwaves; i++) {
            const kr_wave *w = &c->waves[i];
            an_waitcnt r;
            T_EQ_I64(an_waitcnt_wave(c, w, &r), 0);
            int same = r.nwaits == w->nwaits && r.nproducers == w->nproducers && !r.stopped;
            for (size_t e = 0; same && e < r.nwaits; e++)
                same = r.waits[e].wait_line == w->waits[e].wait_line &&
                       r.waits[e].n == w->waits[e].n &&
                       memcmp(r.producers + r.waits[e].first, w->producers + w->waits[e].first,
                              r.waits[e].n * sizeof(uint32_t)) == 0;
            if (!same)
                mismatched_waves++;
            total += r.nwaits;
            stored_total += w->nwaits;
            an_waitcnt_free(&r);
        }
        T_EQ_U64(mismatched_waves, 0);
        T_EQ_U64(total, caps[k].entries);
        T_EQ_U64(stored_total, caps[k].entries);
        bundle_capture_free(c);
    }
}

int main(void)
{
    test_extract();
    test_gfx9();
    test_gfx10();
    test_gfx12();
    test_hub();
    return t_done("test_waitcnt");
}
