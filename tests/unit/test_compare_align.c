/* test_compare_align.c — ISA normalization, instruction alignment across a
 * recompile (index, sequence with anchors, mnemonic pairs, one-sided rows,
 * the greedy fallback), and the trace deltas of two identical captures. */
#include "analyzer/analysis.h"
#include "analyzer/compare_trace.h"
#include "bundle/capture.h"
#include "common/arena.h"
#include "tests/unit/t.h"

static void test_normalize(void)
{
    struct { const char *in, *out; } c[] = {
        {"v_add_u32 v12, 0x40, v3", "v_add_u32 v#, #, v#"},
        {"s_load_dwordx2 s[4:5], s[0:1], 0x0", "s_load_dwordx2 s[#:#], s[#:#], #"},
        {"  S_WAITCNT   vmcnt(0)  ; wait for loads", "s_waitcnt vmcnt(#)"},
        {"global_load_dwordx4 v[34:37], v[38:39], off offset:224", "global_load_dwordx4 v[#:#], v[#:#], off offset:#"},
        {"v_mfma_f32_32x32x8f16 a[0:15], v[2:3], v[4:5], a[0:15]", "v_mfma_f32_32x32x8f16 a[#:#], v[#:#], v[#:#], a[#:#]"},
        {"s_cselect_b32 s18, -1, 0", "s_cselect_b32 s#, -#, #"},
        {"s_endpgm", "s_endpgm"},
        {"s_nop 1 // padding", "s_nop #"},
    };
    char buf[256];
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        an_isa_normalize(c[i].in, buf, sizeof buf);
        T_EQ_STR(buf, c[i].out);
    }
    an_isa_normalize("v_add_u32 v1, v2, v3", buf, 8);   /* truncation stays terminated */
    T_EQ_U64(strlen(buf), 7);
}

/* Mnemonics of the hand-built rows live here until main ends. */
static kr_arena mnemonics;

/* Code rows from ISA texts; the mnemonic is the text up to the first space. */
static void rows_of(kr_code_row *r, const char *const *isa, size_t n)
{
    memset(r, 0, n * sizeof *r);
    for (size_t i = 0; i < n; i++) {
        r[i].isa = isa[i];
        r[i].is_label = isa[i][0] == ';';
        r[i].mnemonic = kr_arena_strndup(&mnemonics, isa[i], strcspn(isa[i], " "));
    }
}

static void test_index(void)
{
    const char *isa[] = {"; k", "s_load_dword s4, s[0:1], 0x3c", "v_add_u32 v1, v2, v3", "s_endpgm"};
    kr_code_row a[4], b[4];
    rows_of(a, isa, 4);
    rows_of(b, isa, 4);
    an_alignment al;
    T_EQ_I64(an_align_isa(a, 4, b, 4, &al), 0);
    T_EQ_STR(al.method, "index");
    T_EQ_U64(al.best_rows, 3);     /* the label row is not aligned */
    T_EQ_U64(al.count[AN_PAIR_IDENTICAL], 3);
    T_EQ_U64(al.paired, 3);
    T_NEAR(al.quality, 1.0, 0);
    T_EQ_U64(al.pairs[0].best, 1);
    T_EQ_U64(al.pairs[0].cand, 1);
    an_alignment_free(&al);
}

/* A recompile: registers renumbered (normalized pairs), one instruction
 * inserted on CANDIDATE (v_mov), one removed (s_nop), one whose operand
 * class changed (v_add with an SGPR: mnemonic pair), the rest identical.
 *   BEST                          CANDIDATE
 *   1 s_load_dword s4, s[0:1]     1 s_load_dword s4, s[0:1]      identical
 *   2 v_add_u32 v1, v2, v3        2 v_add_u32 v5, v6, v7         normalized
 *   3 s_nop 0                       -                            best-only
 *   -                             3 v_mov_b32 v9, 0              candidate-only
 *   4 v_mul_f32 v3, v1, v2        4 v_mul_f32 v8, v5, v6         normalized
 *   5 v_add_u32 v4, v3, v1        5 v_add_u32 v4, v3, s1         mnemonic
 *   6 s_waitcnt vmcnt(0)          6 s_waitcnt vmcnt(0)           identical
 *   7 s_endpgm                    7 s_endpgm                     identical
 * Paired 6 of max(7, 7) rows → quality 6/7. */
static void test_sequence(void)
{
    const char *ia[] = {"; k", "s_load_dword s4, s[0:1], 0x3c", "v_add_u32 v1, v2, v3", "s_nop 0",
                        "v_mul_f32 v3, v1, v2", "v_add_u32 v4, v3, v1", "s_waitcnt vmcnt(0)", "s_endpgm"};
    const char *ib[] = {"; k", "s_load_dword s4, s[0:1], 0x3c", "v_add_u32 v5, v6, v7", "v_mov_b32 v9, 0",
                        "v_mul_f32 v8, v5, v6", "v_add_u32 v4, v3, s1", "s_waitcnt vmcnt(0)", "s_endpgm"};
    kr_code_row a[8], b[8];
    rows_of(a, ia, 8);
    rows_of(b, ib, 8);
    an_alignment al;
    T_EQ_I64(an_align_isa(a, 8, b, 8, &al), 0);
    T_EQ_STR(al.method, "sequence");
    T_EQ_U64(al.count[AN_PAIR_IDENTICAL], 3);
    T_EQ_U64(al.count[AN_PAIR_NORMALIZED], 2);
    T_EQ_U64(al.count[AN_PAIR_MNEMONIC], 1);
    T_EQ_U64(al.count[AN_PAIR_BEST_ONLY], 1);
    T_EQ_U64(al.count[AN_PAIR_CAND_ONLY], 1);
    T_EQ_U64(al.paired, 6);
    T_NEAR(al.quality, 6.0 / 7.0, 1e-12);
    /* Order: pairs in row order, BEST's one-sided row before CANDIDATE's. */
    T_EQ_U64(al.npairs, 8);
    T_EQ_U64(al.pairs[2].best, 3);
    T_EQ_U64(al.pairs[2].cand, AN_ALIGN_NONE);
    T_EQ_U64(al.pairs[3].cand, 3);
    T_EQ_U64(al.pairs[3].best, AN_ALIGN_NONE);
    T_EQ_I64(al.pairs[5].kind, AN_PAIR_MNEMONIC);
    T_EQ_U64(al.pairs[5].best, 5);
    an_alignment_free(&al);
}

/* Source-line anchors: a repeated instruction pattern X Y X Y whose copies
 * differ only by source line; CANDIDATE drops the first copy and adds an
 * s_nop before s_endpgm (so the common suffix is s_endpgm alone). By text
 * alone CANDIDATE's X Y could pair with either copy; the anchors (X at line
 * 20 and Y at 21, unique on both sides) pair them with the second.
 *   BEST   X@10 Y@11 X@20 Y@21 E@30       CANDIDATE  X@20 Y@21 N@25 E@30
 * → pairs X@20, Y@21 (anchors), E (suffix); BEST-only X@10 Y@11;
 *   CANDIDATE-only N. */
static void test_anchors(void)
{
    const char *ia[] = {"v_add_u32 v1, v2, v3", "v_mul_f32 v1, v1, v1", "v_add_u32 v1, v2, v3", "v_mul_f32 v1, v1, v1",
                        "s_endpgm"};
    const char *ib[] = {"v_add_u32 v1, v2, v3", "v_mul_f32 v1, v1, v1", "s_nop 0", "s_endpgm"};
    kr_code_row a[5], b[4];
    rows_of(a, ia, 5);
    rows_of(b, ib, 4);
    kr_frame fa[5], fb[4];
    uint32_t la[] = {10, 11, 20, 21, 30}, lb[] = {20, 21, 25, 30};
    for (int i = 0; i < 5; i++) {
        fa[i] = (kr_frame){"k.py", la[i], -1};
        a[i].frames = &fa[i];
        a[i].nframes = 1;
    }
    for (int i = 0; i < 4; i++) {
        fb[i] = (kr_frame){"k.py", lb[i], -1};
        b[i].frames = &fb[i];
        b[i].nframes = 1;
    }
    an_alignment al;
    T_EQ_I64(an_align_isa(a, 5, b, 4, &al), 0);
    T_EQ_U64(al.anchors, 2);
    T_EQ_U64(al.paired, 3);
    T_EQ_U64(al.count[AN_PAIR_BEST_ONLY], 2);
    T_EQ_U64(al.count[AN_PAIR_CAND_ONLY], 1);
    size_t partner0 = SIZE_MAX, partner1 = SIZE_MAX;
    for (size_t i = 0; i < al.npairs; i++) {
        if (al.pairs[i].cand == 0)
            partner0 = al.pairs[i].best;
        if (al.pairs[i].cand == 1)
            partner1 = al.pairs[i].best;
    }
    T_EQ_U64(partner0, 2);
    T_EQ_U64(partner1, 3);
    an_alignment_free(&al);
}

/* No prefix, suffix or anchor (the only unique rows differ between the
 * sides) and a gap above AN_ALIGN_MAX_CELLS: matched greedily and flagged.
 *   BEST       s_a, 2100 × v_nop, s_c
 *   CANDIDATE  s_b, 2101 × v_nop, s_d
 * → 2100 v_nop pairs (normalized: the immediates differ), BEST-only s_a s_c,
 *   CANDIDATE-only s_b, the extra v_nop and s_d; quality 2100 / 2103. */
static void test_greedy(void)
{
    size_t n = 2102, m = 2103;
    kr_code_row *a = calloc(n, sizeof *a), *b = calloc(m, sizeof *b);
    for (size_t i = 0; i < n; i++) {
        a[i].isa = i == 0 ? "s_a" : i == n - 1 ? "s_c" : i % 2 ? "v_nop 1" : "v_nop 2";
        a[i].mnemonic = i == 0 ? "s_a" : i == n - 1 ? "s_c" : "v_nop";
    }
    for (size_t i = 0; i < m; i++) {
        b[i].isa = i == 0 ? "s_b" : i == m - 1 ? "s_d" : i % 2 ? "v_nop 3" : "v_nop 4";
        b[i].mnemonic = i == 0 ? "s_b" : i == m - 1 ? "s_d" : "v_nop";
    }
    T_CHECK((uint64_t)(n + 1) * (m + 1) > AN_ALIGN_MAX_CELLS);
    an_alignment al;
    T_EQ_I64(an_align_isa(a, n, b, m, &al), 0);
    T_CHECK(al.greedy);
    T_EQ_U64(al.anchors, 0);
    T_EQ_U64(al.count[AN_PAIR_NORMALIZED], 2100);
    T_EQ_U64(al.count[AN_PAIR_BEST_ONLY], 2);
    T_EQ_U64(al.count[AN_PAIR_CAND_ONLY], 3);
    T_NEAR(al.quality, 2100.0 / 2103.0, 1e-12);
    an_alignment_free(&al);
    free(a);
    free(b);
}

/* The project's own example capture against itself: index alignment of every
 * instruction row, nothing moved, every delta zero. */
static void test_identical_captures(void)
{
    const char *src = getenv("KR_SRC");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/examples/synth_gfx950/att_viewer/small/ui_output_agent_24601_dispatch_14",
             src ? src : ".");
    if (!bundle_is_capture_dir(dir)) {
        printf("test_compare_align: %s not found; identical-capture check skipped\n", dir);
        return;
    }
    bundle_opts bo = {0};
    bo.threads = 1;
    kr_capture *c1, *c2;
    kr_err err;
    T_EQ_I64(bundle_capture_load(dir, &bo, &c1, &err), 0);
    T_EQ_I64(bundle_capture_load(dir, &bo, &c2, &err), 0);
    an_analysis_opts ao = {0};
    an_analysis x, y;
    T_EQ_I64(an_analyze(c1, &ao, &x), 0);
    T_EQ_I64(an_analyze(c2, &ao, &y), 0);
    an_cmp_trace t;
    T_EQ_I64(an_cmp_trace_compute(&x, &y, 5, &t), 0);
    size_t instr = 0;
    for (size_t i = 0; i < c1->nrows; i++)
        instr += !c1->rows[i].is_label;
    T_EQ_STR(t.align.method, "index");
    T_EQ_U64(t.align.paired, instr);
    T_EQ_U64(t.align.count[AN_PAIR_IDENTICAL], instr);
    T_EQ_U64(t.insts_changed, 0);
    T_EQ_U64(t.ninsts, 0);
    T_EQ_U64(t.lines_best_only + t.lines_cand_only, 0);
    T_EQ_U64(t.lines_both, x.sources.distinct_lines);
    T_EQ_U64(t.stall.best, t.stall.cand);
    T_EQ_U64(t.stall.best, x.totals.stall);
    int same = 1;
    for (unsigned s = 0; s < AN_STATES_N; s++)
        same &= t.states[s].best == t.states[s].cand && t.states[s].best == x.states.all.raw[s];
    T_CHECK(same);
    T_EQ_I64(t.vgpr.best, t.vgpr.cand);
    T_EQ_U64(t.distinct_lines.best, x.sources.distinct_lines);
    an_cmp_trace_free(&t);
    an_analysis_free(&x);
    an_analysis_free(&y);
    bundle_capture_free(c1);
    bundle_capture_free(c2);
}

int main(void)
{
    test_normalize();
    test_index();
    test_sequence();
    test_anchors();
    test_greedy();
    test_identical_captures();
    kr_arena_free(&mnemonics);
    return t_done("test_compare_align");
}
