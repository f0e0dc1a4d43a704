/* synth.c — deterministic rocprofv3-shaped bundles with known answers.
 *
 * CONSTRUCTION (everything below is what the tests derive by hand; section
 * numbers are docs/formats.md).
 *
 * Kernel. One code object (id 2), one kernel `synth_kernel_0`, entry Vaddr
 * 6400. code.json has a label row (LineNumber 0) and 45 instruction rows
 * (LineNumber = array index, Vaddr steps 4/8/16). Row numbers:
 *   1-3   s_load_dwordx2/x2/s_load_dword (kernargs)       SMEM
 *   4-6   SALU setup (5, 6 have an empty Source)
 *   7     s_waitcnt lgkmcnt(0)
 *   8-11  SALU/VALU setup, 12 s_cbranch_scc1 2 (always taken, skips 13-14,
 *         so rows 13-14 have Hit 0)
 *   15-17 buffer_load_dwordx4, global_load_dwordx4 (category 4), buffer_load
 *   18    VALU, 19 s_waitcnt vmcnt(1), 20-21 ds_write_b128, 22 s_waitcnt
 *         lgkmcnt(0), 23 s_barrier, 24 ds_read_b128, 25 ds_read_b64_tr_b16
 *         (gfx942 flavour: ds_read_b64), 26 s_mov_b32, 27 s_waitcnt vmcnt(0)
 *         lgkmcnt(0) (a combined wait: two waitcnt entries with line 27)
 *   28-41 the loop body, executed `iterations` times: 28 buffer_load,
 *         29 ds_read_b128, 30 v_mfma_f32_32x32x16_bf16, 31 v_mfma_scale_f32_
 *         16x16x128_f8f6f4 (gfx942: v_mfma_f32_32x32x8_f16), 32 s_waitcnt
 *         lgkmcnt(0), 33 v_pk_mul_f32, 34 v_add_f32, 35 v_max_f32 (v95: VGPR
 *         mark 96), 36 s_nop 1, 37 s_waitcnt vmcnt(0) (the main wait),
 *         38-40 VALU/SALU, 41 s_cbranch_scc1 back to 28 (category 7 on every
 *         iteration but the last, 8 on the last)
 *   42-45 v_mov, two buffer_store_dword, s_endpgm (category 11)
 * Sources: /synth/kernels/synth_kernel.py:<n>, eight rows carry a 2-frame
 * chain "/synth/lib/synth_ops.py:<m> -> /synth/kernels/synth_kernel.py:<n>";
 * both files are copied as source_0_/source_1_ and listed in snapshots.json.
 *
 * Records per wave: 25 (prologue) + 14 per iteration + 4 = 29 + 14 I.
 * Hit: rows 1-12, 15-27, 42-45 = W; rows 28-41 = W I; rows 13-14 = 0.
 *
 * Timing with seed 0 (s = the wave's SIMD, j = iteration 0..I-1). Each
 * record is (gap, stall, duration); time = previous completion + gap, except
 * row 31, which starts 8 cycles after row 30 (an overlap of 8 cycles).
 *   row 1: gap = 28 + 4 s (the IDLE entry), stall 0, duration 4
 *   row 7: stall = duration = 600 + 8 s           row 19: 400 + 16 s
 *   row 22: 56    row 23 (barrier): 24 + 8 (3 - s)    row 27: 64
 *   rows 32, 36: 8    row 37 (main wait): 320 + 40 (j mod 3) + 8 s
 *   rows 15, 17, 28, 43: gap 8, duration 4;  rows 20, 24, 29: gap 8, duration 8
 *   row 16: gap 8, stall 4, duration 12;  rows 21, 25: stall 4, duration 12
 *   rows 30, 31: duration 16;  row 33: stall 12, duration 20;  row 44: stall 4,
 *   duration 8;  row 45 (s_endpgm): duration 240 + 16 s;  all others: (0, 0, 4)
 * Per wave: prologue 1320 + 16 s cycles after the IDLE, each iteration
 * 432 + 40 (j mod 3) + 8 s, epilogue 264 + 16 s. Timeline totals per wave:
 *   IDLE  = 28 + 4 s
 *   WAIT  = 1168 + 16 s + Σ_j (336 + 40 (j mod 3) + 8 s) + 240 + 16 s
 *   STALL = 16 + 12 I
 *   EXEC  = 160 + 84 I
 *   total = last completion - begin = IDLE + WAIT + STALL + EXEC
 * (I = 3: IDLE 28 + 4 s, WAIT 2536 + 56 s, STALL 52, EXEC 412, total 3028 + 60 s.)
 * end = last completion, minus 4 for every wave whose ordinal is 2 mod 3.
 * Timeline entries: a record contributes [gap → EXEC (IDLE for the first)],
 * then IMMED/MESSAGE → one WAIT entry of its duration (never merged), others
 * → STALL for its stall and EXEC for the rest, clipped at the previous
 * completion; consecutive EXEC/STALL pieces merge.
 *
 * Waves. W waves on nse = min(4, ceil(W / 4)) SEs; wave i: slot = i / (4 nse),
 * SE = (i mod 4 nse) / 4, SIMD = i mod 4, sequence N = 0, CU 1. Begin on the
 * SE0-equivalent clock: 180000 + 4 ((3 SIMD + SE) mod 4) + 128 slot; an SE's
 * raw clock reads 0/756/1508/2212 less for SE 0/1/2/3.
 * realtime.json: two samples per SE (0..3); lo = (7196 - offset_SE, RC0),
 * hi = (lo.sc + 21 Δ, RC0 + Δ): the docs/formats.md#clock clock is exactly 2100 MHz and the
 * docs/formats.md#se-alignment offsets are exactly 0/756/1508/2212.
 * occupancy.json: start/end rows of every traced wave (CU 1) plus CUs 0, 2, 5
 * on every SE (CU 2 SIMD 0 slot 0 hosts two waves back to back: an end and a
 * start at the same time, written end first).
 *
 * Seed N > 0 adds jitter (multiples of 4) to begins, the IDLE, waits, gaps
 * before memory ops, some SALU gaps and VALU stalls, and the s_endpgm drain,
 * from one splitmix64 stream per wave; every docs/formats.md#wave-files identity still holds.
 * The rocprofv3 side (results.json, CSVs) always takes its timestamps from
 * the seeded stream; on gfx950 it reports arch_vgpr_count 48 (half of the
 * ISA mark 96: the docs/occupancy.md#register-counts under-report), on gfx942 96.
 *
 * Counter collection (--counters, docs/formats.md#counter-collection-csv): a separate run of three dispatches
 * (ids 1 fill kernel, 2 and 3 synth_kernel_0) with the same values for both
 * synth dispatches. With W = 1024 waves (grid 65536 / 64) and I = iterations,
 * per synth dispatch (each loop iteration of a wave issues one
 * v_mfma_f32_32x32x16_bf16 = 64 MOPs, one f8f6f4 MFMA with FP8 operands =
 * 128 MOPs (gfx942: v_mfma_f32_32x32x8_f16 = 32 MOPs F16), one v_add_f32 and
 * one v_pk_mul_f32, counted as one MUL):
 *   SQ_WAVES W; SQ_INSTS_MFMA 2 W I; SQ_INSTS_VALU_MFMA_MOPS_BF16 64 W I;
 *   SQ_INSTS_VALU_MFMA_MOPS_F8 128 W I (gfx942: _F16 32 W I);
 *   SQ_INSTS_VALU_ADD_F32 W I; SQ_INSTS_VALU_MUL_F32 W I;
 *   TCC_EA0_RDREQ 4096 + 3072 I, TCC_EA0_RDREQ_32B 1024, TCC_BUBBLE 1024 I,
 *   TCC_EA0_WRREQ 2048, TCC_EA0_WRREQ_64B 1024 (old dialect instead:
 *   FETCH_SIZE 256 I + 224 and WRITE_SIZE 96, in KiB: the same bytes);
 *   TCC_HIT 3072, TCC_MISS 1024 (current dialects spell them TCC_HIT_sum,
 *   TCC_MISS_sum); SQ_LDS_BANK_CONFLICT 128 I, SQ_LDS_IDX_ACTIVE 1024 I;
 *   GRBM_GUI_ACTIVE 50000.
 * So FLOPs = 512 (64 + 128) W I + 64 (W I + W I) = 98432 W I (gfx950),
 * HBM read = 262144 I + 229376 bytes, write = 98304 bytes. The fill
 * dispatch has SQ_WAVES 128 and FETCH/RDREQ figures of 10 (to be ignored).
 * Timestamps (current dialects) come from the seeded stream like the
 * kernel traces'.
 */
#include "synth/synth.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ======================================================================
 * PRNG
 * ====================================================================== */

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t rnd_below(uint64_t *s, uint32_t n)
{
    return (uint32_t)(splitmix64(s) % n);
}

/* ======================================================================
 * The program (one kernel, 45 instruction rows)
 * ====================================================================== */

#define NROWS 45u
#define ROW_SKIP_BRANCH 12u
#define ROW_SKIP_TARGET 15u
#define ROW_LOOP_TOP 28u
#define ROW_MFMA0 30u
#define ROW_MFMA1 31u
#define ROW_MAIN_WAIT 37u
#define ROW_BACKEDGE 41u
#define ROW_ENDPGM 45u
#define ENTRY_VADDR 6400u
#define CODE_OBJECT_ID 2u
#define KERNEL_NAME "synth_kernel_0"
#define KERNEL_ID 3u
#define TARGET_CU 1u

#define SRC_K "/synth/kernels/synth_kernel.py"
#define SRC_O "/synth/lib/synth_ops.py"
#define CH(o, k) SRC_O ":" #o " -> " SRC_K ":" #k
#define KS(k) SRC_K ":" #k

typedef struct row_def {
    const char *isa950, *isa942;    /* isa942 NULL: same text */
    uint8_t size950, size942;       /* encoding bytes */
    uint8_t cat;                    /* trace category (branches: 7, 8 on fall-through) */
    uint8_t target;                 /* branch target row, 0 = not a branch */
    const char *src;
} row_def;

static const row_def PROGRAM[NROWS + 1] = {
    {"; " KERNEL_NAME, NULL, 0, 0, 0, 0, ""},
    {"s_load_dwordx2 s[4:5], s[0:1], 0x0", NULL, 8, 8, 1, 0, KS(12)},
    {"s_load_dwordx2 s[8:9], s[0:1], 0x8", NULL, 8, 8, 1, 0, KS(12)},
    {"s_load_dword s12, s[0:1], 0x10", NULL, 8, 8, 1, 0, KS(13)},
    {"s_lshl_b32 s2, s2, 6", NULL, 4, 4, 2, 0, KS(15)},
    {"s_mov_b32 s7, 0x27000", NULL, 8, 8, 2, 0, ""},
    {"s_mov_b32 s6, -1", NULL, 4, 4, 2, 0, ""},
    {"s_waitcnt lgkmcnt(0)", NULL, 4, 4, 9, 0, KS(13)},
    {"s_and_b32 s5, s5, 0xffff", NULL, 8, 8, 2, 0, KS(16)},
    {"v_lshlrev_b32_e32 v1, 4, v0", NULL, 4, 4, 6, 0, KS(17)},
    {"v_add_u32_e32 v2, s2, v1", NULL, 4, 4, 6, 0, KS(17)},
    {"s_cmp_lg_u32 s12, 0", NULL, 4, 4, 2, 0, KS(18)},
    {"s_cbranch_scc1 %u", NULL, 4, 4, 7, ROW_SKIP_TARGET, KS(18)},
    {"v_mov_b32_e32 v90, 0", NULL, 4, 4, 6, 0, KS(19)},
    {"v_mov_b32_e32 v91, 0", NULL, 4, 4, 6, 0, KS(19)},
    {"buffer_load_dwordx4 v[4:7], v2, s[4:7], 0 offen", NULL, 8, 8, 3, 0, CH(8, 22)},
    {"global_load_dwordx4 v[8:11], v[18:19], off", NULL, 8, 8, 4, 0, CH(12, 23)},
    {"buffer_load_dwordx4 v[12:15], v2, s[4:7], 0 offen offset:1024", NULL, 8, 8, 3, 0, CH(8, 24)},
    {"v_lshlrev_b32_e32 v3, 3, v0", NULL, 4, 4, 6, 0, KS(25)},
    {"s_waitcnt vmcnt(1)", NULL, 4, 4, 9, 0, KS(26)},
    {"ds_write_b128 v3, v[4:7]", NULL, 8, 8, 5, 0, KS(27)},
    {"ds_write_b128 v3, v[8:11] offset:1024", NULL, 8, 8, 5, 0, KS(28)},
    {"s_waitcnt lgkmcnt(0)", NULL, 4, 4, 9, 0, KS(28)},
    {"s_barrier", NULL, 4, 4, 9, 0, KS(28)},
    {"ds_read_b128 v[20:23], v3", NULL, 8, 8, 5, 0, KS(30)},
    {"ds_read_b64_tr_b16 v[24:25], v3 offset:512", "ds_read_b64 v[24:25], v3 offset:512", 8, 8, 5, 0, CH(18, 31)},
    {"s_mov_b32 s13, 0", NULL, 4, 4, 2, 0, KS(33)},
    {"s_waitcnt vmcnt(0) lgkmcnt(0)", NULL, 4, 4, 9, 0, KS(34)},
    {"buffer_load_dwordx4 v[28:31], v2, s[4:7], 0 offen offset:2048", NULL, 8, 8, 3, 0, CH(8, 36)},
    {"ds_read_b128 v[32:35], v3 offset:2048", NULL, 8, 8, 5, 0, KS(37)},
    {"v_mfma_f32_32x32x16_bf16 v[64:79], v[20:23], v[24:27], v[64:79]", NULL, 8, 8, 6, 0, CH(15, 38)},
    {"v_mfma_scale_f32_16x16x128_f8f6f4 v[80:83], v[36:43], v[44:51], v[80:83], v52, v53 op_sel_hi:[0,0,0]",
     "v_mfma_f32_32x32x8_f16 v[80:95], v[36:37], v[44:45], v[80:95]", 16, 8, 6, 0, CH(21, 39)},
    {"s_waitcnt lgkmcnt(0)", NULL, 4, 4, 9, 0, KS(40)},
    {"v_pk_mul_f32 v[84:85], v[64:65], v[32:33]", NULL, 8, 8, 6, 0, CH(24, 41)},
    {"v_add_f32_e32 v86, v84, v85", NULL, 4, 4, 6, 0, KS(42)},
    {"v_max_f32_e32 v87, v86, v95", NULL, 4, 4, 6, 0, KS(42)},
    {"s_nop 1", NULL, 4, 4, 9, 0, ""},
    {"s_waitcnt vmcnt(0)", NULL, 4, 4, 9, 0, KS(44)},
    {"v_add_u32_e32 v2, 0x100, v2", NULL, 8, 8, 6, 0, KS(45)},
    {"s_add_i32 s13, s13, 1", NULL, 4, 4, 2, 0, KS(46)},
    {"s_cmp_lt_i32 s13, s12", NULL, 4, 4, 2, 0, KS(47)},
    {"s_cbranch_scc1 %u", NULL, 4, 4, 7, ROW_LOOP_TOP, KS(47)},
    {"v_mov_b32_e32 v5, v87", NULL, 4, 4, 6, 0, KS(48)},
    {"buffer_store_dword v5, v2, s[8:11], 0 offen", NULL, 8, 8, 3, 0, KS(49)},
    {"buffer_store_dword v86, v2, s[8:11], 0 offen offset:4", NULL, 8, 8, 3, 0, KS(50)},
    {"s_endpgm", NULL, 4, 4, 11, 0, KS(50)},
};

/* The two source files the frames point at (docs/formats.md#source-snapshots). Line numbers matter. */
static const char SRC_KERNEL_TEXT[] =
    "# synth_kernel.py - the synthetic kernel of `kreport synth`.\n"
    "# FlyDSL-style source whose lines the synthetic code.json points at.\n"
    "# Illustrative only: it documents what each instruction stands for.\n"
    "\n"
    "import synth_ops as ops\n"
    "\n"
    "BLOCK = 256\n"
    "TILE = 64\n"
    "\n"
    "\n"
    "@ops.kernel(block=BLOCK)\n"
    "def synth_kernel(a_ptr, b_ptr, c_ptr, n_iter):\n"                 /* 12 */
    "    n = ops.arg(n_iter)\n"                                         /* 13 */
    "    # one tile of TILE rows per workgroup\n"
    "    tile = ops.workgroup_id() * TILE\n"                            /* 15 */
    "    c_desc = ops.buffer_desc(c_ptr)\n"                             /* 16 */
    "    lane = ops.lane_id() * 16 + tile\n"                            /* 17 */
    "    if n == 0:\n"                                                  /* 18 */
    "        ops.zero_fill(c_desc, lane)\n"                             /* 19 */
    "\n"
    "    # stage the first A and B tiles through LDS\n"
    "    a0 = ops.buffer_load(a_ptr, lane)\n"                           /* 22 */
    "    b0 = ops.global_load(b_ptr, lane)\n"                           /* 23 */
    "    a1 = ops.buffer_load(a_ptr, lane + 1024)\n"                    /* 24 */
    "    lds = ops.lds_offset(lane)\n"                                  /* 25 */
    "    ops.wait_vm(1)\n"                                              /* 26 */
    "    ops.lds_store(lds, a0)\n"                                      /* 27 */
    "    ops.lds_store(lds + 1024, b0); ops.barrier()\n"                /* 28 */
    "\n"
    "    x = ops.lds_load(lds)\n"                                       /* 30 */
    "    y = ops.lds_load_transposed(lds + 512)\n"                      /* 31 */
    "\n"
    "    i = 0\n"                                                       /* 33 */
    "    ops.wait_all()\n"                                              /* 34 */
    "    while True:\n"
    "        a = ops.buffer_load(a_ptr, lane + 2048)\n"                 /* 36 */
    "        b = ops.lds_load(lds + 2048)\n"                            /* 37 */
    "        acc = ops.mfma(x, y, acc)\n"                               /* 38 */
    "        acc2 = ops.mfma_scaled(a, b, acc2)\n"                      /* 39 */
    "        ops.wait_lds()\n"                                          /* 40 */
    "        p = ops.pk_mul(acc, b)\n"                                  /* 41 */
    "        m = ops.max(p[0] + p[1], acc2)\n"                          /* 42 */
    "        # the loads of this iteration must land before the next one\n"
    "        ops.wait_vm(0)\n"                                          /* 44 */
    "        lane += 256\n"                                             /* 45 */
    "        i += 1\n"                                                  /* 46 */
    "        if i >= n: break\n"                                        /* 47 */
    "    out = ops.convert(m)\n"                                        /* 48 */
    "    ops.buffer_store(c_desc, lane, out)\n"                         /* 49 */
    "    ops.buffer_store(c_desc, lane + 4, p)\n"                       /* 50 */
    "\n"
    "\n"
    "def launch(a, b, c, n):\n"
    "    grid = (a.numel() // (BLOCK * 4), 1, 1)\n"
    "    synth_kernel[grid](a, b, c, n)\n";

static const char SRC_OPS_TEXT[] =
    "# synth_ops.py - helpers used by synth_kernel.py (synthetic, illustrative).\n"
    "# Each helper lowers to one AMDGPU instruction of the synthetic capture.\n"
    "\n"
    "from synth_runtime import rocdl\n"
    "\n"
    "\n"
    "def buffer_load(ptr, offset):\n"
    "    return rocdl.raw_buffer_load_x4(ptr, offset)\n"                /* 8 */
    "\n"
    "\n"
    "def global_load(ptr, offset):\n"
    "    return rocdl.global_load_x4(ptr, offset)\n"                    /* 12 */
    "\n"
    "def mfma(a, b, acc):\n"
    "    return rocdl.mfma_f32_32x32x16_bf16(a, b, acc)\n"              /* 15 */
    "\n"
    "def lds_load_transposed(offset):\n"
    "    return rocdl.ds_read_tr16_b64(offset)\n"                       /* 18 */
    "\n"
    "def mfma_scaled(a, b, acc):\n"
    "    return rocdl.mfma_scale_f32_16x16x128_f8f6f4(a, b, acc)\n"     /* 21 */
    "\n"
    "def pk_mul(x, y):\n"
    "    return rocdl.pk_mul_f32(x, y)\n";                              /* 24 */

/* docs/waits.md#producer-links gfx9 memory classes. */
enum { MEM_NONE = 0, MEM_WAITCNT, MEM_SCALAR, MEM_LDS_MSG, MEM_GLOBAL, MEM_FLAT };

typedef struct prow {
    char isa[128];
    const char *src;
    uint64_t vaddr;
    uint8_t cat;
    uint8_t mem, lgk, vm;           /* docs/waits.md#producer-links class and waitcnt counter bits */
} prow;

typedef struct program {
    prow r[NROWS + 1];
} program;

static int starts_with(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

/* docs/waits.md#producer-links gfx9 classifier, on the full ISA text. */
static uint8_t wc_classify(const char *t, uint8_t *lgk, uint8_t *vm)
{
    *lgk = *vm = 0;
    if (starts_with(t, "s_waitcnt")) {
        *lgk = strstr(t, "lgk") != NULL;
        *vm = strstr(t, "vmcnt") != NULL;
        return MEM_WAITCNT;
    }
    if (starts_with(t, "v_"))
        return MEM_NONE;
    if (starts_with(t, "s_load") || starts_with(t, "s_store"))
        return MEM_SCALAR;
    if (starts_with(t, "s_sendmsg"))
        return MEM_LDS_MSG;
    if (starts_with(t, "s_"))
        return MEM_NONE;
    if (starts_with(t, "global_") || starts_with(t, "buffer_") || (t[0] && starts_with(t + 1, "buffer_")) ||
        starts_with(t, "scratch_"))
        return MEM_GLOBAL;
    if (starts_with(t, "flat_"))
        return MEM_FLAT;
    if (starts_with(t, "ds_"))
        return MEM_LDS_MSG;
    return MEM_NONE;
}

static void program_build(program *p, synth_gfx gfx)
{
    uint64_t va = ENTRY_VADDR;
    for (unsigned i = 0; i <= NROWS; i++) {
        const row_def *d = &PROGRAM[i];
        prow *r = &p->r[i];
        r->src = d->src;
        r->cat = d->cat;
        r->vaddr = va;
        va += gfx == SYNTH_GFX942 ? d->size942 : d->size950;
    }
    for (unsigned i = 0; i <= NROWS; i++) {
        const row_def *d = &PROGRAM[i];
        prow *r = &p->r[i];
        const char *text = gfx == SYNTH_GFX942 && d->isa942 ? d->isa942 : d->isa950;
        if (d->target) {
            /* simm16 in dwords relative to the next instruction, printed unsigned */
            int64_t off = ((int64_t)p->r[d->target].vaddr - (int64_t)(r->vaddr + 4)) / 4;
            unsigned enc = (unsigned)(off & 0xffff);
            snprintf(r->isa, sizeof r->isa, text, enc);
        } else {
            snprintf(r->isa, sizeof r->isa, "%s", text);
        }
        r->mem = i == 0 ? MEM_NONE : wc_classify(r->isa, &r->lgk, &r->vm);
    }
}

/* ======================================================================
 * Captures and waves
 * ====================================================================== */

static const uint64_t SE_OFFSET[4] = {0, 756, 1508, 2212};
#define GLOBAL_BEGIN 180000u
#define RT_LO_SC0 7196u
#define CLOCK_RATIO 21u             /* shader cycles per 10 ns tick: 2100 MHz */

typedef struct wave {
    unsigned se, simd, slot, id, ordinal;
    uint64_t begin, end, last_done;
    uint64_t nrec, nwait;
    uint64_t rng_seed;
} wave;

typedef struct capture {
    synth_gfx gfx;
    uint64_t seed;
    unsigned nwaves, iterations, nse;
    uint64_t agent, dispatch;
    char folder[96];
    char label[16];
    const program *prog;
    wave *w;
    uint64_t hit[NROWS + 1], lat[NROWS + 1], stall[NROWS + 1], idle[NROWS + 1];
    uint64_t span_max;          /* max over waves of last completion - begin */
    uint64_t gmax;              /* latest SE0-equivalent time of any row/record */
    uint64_t rc0, drc;          /* realtime: first sample and tick span */
} capture;

/* ---- one wave's record stream ---- */

typedef struct rec {
    uint64_t time;
    uint32_t cat, stall, dur, line;
    uint64_t pd;                /* completion of everything before (wave.begin at first) */
    int first;
} rec;

typedef struct wavegen {
    const capture *c;
    const wave *w;
    uint64_t rng;
    unsigned row, iter;
    int started, done;
    uint64_t prev_done, last_time;
} wavegen;

static void wg_init(wavegen *g, const capture *c, const wave *w)
{
    memset(g, 0, sizeof *g);
    g->c = c;
    g->w = w;
    g->rng = w->rng_seed;
    g->row = 1;
    g->prev_done = w->begin;
}

static uint32_t jit4(wavegen *g, uint32_t n)
{
    return g->c->seed ? 4 * rnd_below(&g->rng, n) : 0;
}

static uint32_t pick(wavegen *g, const uint32_t *v, uint32_t n)
{
    return g->c->seed ? v[rnd_below(&g->rng, n)] : 0;
}

/* (gap, stall, duration) of one execution of row at iteration j (see top). */
static void row_timing(wavegen *g, unsigned row, unsigned j, uint32_t *gap, uint32_t *stall, uint32_t *dur)
{
    static const uint32_t SALU_GAP[5] = {0, 0, 4, 12, 16};
    static const uint32_t VALU_STALL[5] = {0, 0, 0, 4, 8};
    uint32_t s = g->w->simd;
    *gap = 0;
    *stall = 0;
    *dur = 4;
    switch (row) {
    case 1: *gap = 28 + 4 * s + jit4(g, 4); break;
    case 7: *stall = *dur = 600 + 8 * s + jit4(g, 16); break;
    case 8: case 11: case 26: case 39: *gap = pick(g, SALU_GAP, 5); break;
    case 9: case 10: case 34: case 35: case 38: case 42:
        *stall = pick(g, VALU_STALL, 5);
        *dur = 4 + *stall;
        break;
    case 15: case 17: case 28: case 43: *gap = 8 + jit4(g, 3); break;
    case 16: *gap = 8 + jit4(g, 3); *stall = 4; *dur = 12; break;
    case 19: *stall = *dur = 400 + 16 * s + jit4(g, 16); break;
    case 20: case 24: case 29: *gap = 8 + jit4(g, 3); *dur = 8; break;
    case 21: case 25: *stall = 4; *dur = 12; break;
    case 22: *stall = *dur = 56; break;
    case 23: *stall = *dur = 24 + 8 * (3 - s) + jit4(g, 8); break;
    case 27: *stall = *dur = 64; break;
    case ROW_MFMA0: case ROW_MFMA1: *dur = 16; break;
    case 32: case 36: *stall = *dur = 8; break;
    case 33: *stall = 12; *dur = 20; break;
    case ROW_MAIN_WAIT: *stall = *dur = 320 + 40 * (j % 3) + 8 * s + jit4(g, 16); break;
    case 44: *stall = 4; *dur = 8; break;
    case ROW_ENDPGM: *dur = 240 + 16 * s + jit4(g, 32); break;
    default: break;
    }
}

static int wg_next(wavegen *g, rec *r)
{
    if (g->done)
        return 0;
    unsigned row = g->row, j = g->iter;
    uint32_t gap, stall, dur;
    row_timing(g, row, j, &gap, &stall, &dur);
    uint64_t time;
    if (row == ROW_MFMA1)
        time = g->last_time + 8;                    /* overlaps row 30 by 8 cycles */
    else
        time = g->prev_done + gap;
    r->time = time;
    r->cat = g->c->prog->r[row].cat;
    if (row == ROW_BACKEDGE && j + 1 == g->c->iterations)
        r->cat = 8;                                 /* fall through on the last trip */
    r->stall = stall;
    r->dur = dur;
    r->line = row;
    r->pd = g->prev_done;
    r->first = !g->started;
    g->started = 1;
    if (time + dur > g->prev_done)
        g->prev_done = time + dur;
    g->last_time = time;
    if (row == ROW_SKIP_BRANCH)
        g->row = ROW_SKIP_TARGET;
    else if (row == ROW_BACKEDGE) {
        if (j + 1 < g->c->iterations) {
            g->iter++;
            g->row = ROW_LOOP_TOP;
        } else
            g->row = ROW_BACKEDGE + 1;
    } else if (row == ROW_ENDPGM)
        g->done = 1;
    else
        g->row = row + 1;
    return 1;
}

/* ---- timeline (docs/formats.md#timeline) from the record stream ---- */

typedef struct seg {
    uint8_t state, nomerge;
    uint64_t cycles;
} seg;

typedef struct tlgen {
    wavegen g;
    seg q[4];
    unsigned qn, qi;
    seg pending;
    int has_pending;
} tlgen;

static void tl_init(tlgen *t, const capture *c, const wave *w)
{
    memset(t, 0, sizeof *t);
    wg_init(&t->g, c, w);
}

static void tl_push(tlgen *t, uint8_t state, uint8_t nomerge, uint64_t cycles)
{
    if (cycles == 0)
        return;
    t->q[t->qn].state = state;
    t->q[t->qn].nomerge = nomerge;
    t->q[t->qn].cycles = cycles;
    t->qn++;
}

static void tl_segments(tlgen *t, const rec *r)
{
    t->qn = t->qi = 0;
    uint64_t start = r->time > r->pd ? r->time : r->pd;
    uint64_t done = r->time + r->dur;
    if (r->time > r->pd)
        tl_push(t, r->first ? 1 : 2, r->first, r->time - r->pd);
    if (done <= start)
        return;
    if (r->cat == 9 || r->cat == 11) {
        tl_push(t, 3, 1, done - start);
        return;
    }
    uint64_t stall_end = r->time + r->stall;
    if (stall_end > start)
        tl_push(t, 4, 0, stall_end - start);
    uint64_t issue_from = stall_end > start ? stall_end : start;
    tl_push(t, 2, 0, done - issue_from);
}

static int tl_next(tlgen *t, unsigned *state, uint64_t *cycles)
{
    for (;;) {
        if (t->qi < t->qn) {
            seg s = t->q[t->qi++];
            if (t->has_pending && !s.nomerge && !t->pending.nomerge && s.state == t->pending.state) {
                t->pending.cycles += s.cycles;
                continue;
            }
            if (t->has_pending) {
                *state = t->pending.state;
                *cycles = t->pending.cycles;
                t->pending = s;
                return 1;
            }
            t->pending = s;
            t->has_pending = 1;
            continue;
        }
        rec r;
        if (!wg_next(&t->g, &r)) {
            if (t->has_pending) {
                *state = t->pending.state;
                *cycles = t->pending.cycles;
                t->has_pending = 0;
                return 1;
            }
            return 0;
        }
        tl_segments(t, &r);
    }
}

/* ---- waitcnt producer links (docs/waits.md#producer-links, gfx9) ---- */

#define WC_CAP 64u                  /* the program keeps at most 4 outstanding per list */

typedef struct wc_list {
    uint32_t v[WC_CAP];
    unsigned n;
} wc_list;

typedef struct wc_counter {
    const char *name;
    wc_list list;
    int parallel;
} wc_counter;

typedef struct wc_state {
    wc_counter lgkm, vm;
    wc_list flats;
} wc_state;

static void wc_init(wc_state *s)
{
    memset(s, 0, sizeof *s);
    s->lgkm.name = "lgkmcnt";
    s->vm.name = "vmcnt";
}

static void wc_push(wc_list *l, uint32_t line)
{
    if (l->n == WC_CAP) {           /* cannot happen with this program; keep the newest */
        memmove(l->v, l->v + 1, (WC_CAP - 1) * sizeof l->v[0]);
        l->n--;
    }
    l->v[l->n++] = line;
}

static long wc_extract(const char *t, const char *name)
{
    const char *p = strstr(t, name);
    if (!p)
        return 0;
    size_t skip = strlen(name) + 1;
    p = strlen(p) >= skip ? p + skip : p + strlen(p);
    if (!strstr(t, "0x"))
        return atol(p);
    while (*p == ' ')
        p++;
    if (p[0] == '0' && p[1] == 'x')
        return strtol(p + 2, NULL, 16);
    return strtol(p, NULL, 10);
}

/* Releases per docs/waits.md#producer-links handle(); the released lines go to out (n returned). */
static unsigned wc_handle(wc_counter *c, const char *text, wc_list *flats, uint32_t *out)
{
    long n = wc_extract(text, c->name);
    if (n == 0)
        c->parallel = 0;
    if (c->parallel)
        return 0;
    unsigned len = c->list.n;
    long k = (long)len - n;
    if (k < 0)
        k = 0;
    if (k > (long)len)
        k = len;
    unsigned m = 0;
    for (unsigned i = 0; i < flats->n; i++)
        out[m++] = flats->v[i];
    flats->n = 0;
    for (long i = 0; i < k; i++)
        out[m++] = c->list.v[i];
    memmove(c->list.v, c->list.v + k, (len - (unsigned)k) * sizeof c->list.v[0]);
    c->list.n = len - (unsigned)k;
    return m;
}

/* Feeds one record; calls emit(ctx, line, producers, n) per produced entry. */
typedef void (*wc_emit_fn)(void *ctx, uint32_t line, const uint32_t *prod, unsigned n);

static void wc_feed(wc_state *s, const program *p, const rec *r, wc_emit_fn emit, void *ctx)
{
    const prow *row = &p->r[r->line];
    uint32_t out[2 * WC_CAP];
    switch (row->mem) {
    case MEM_LDS_MSG: wc_push(&s->lgkm.list, r->line); break;
    case MEM_SCALAR: s->lgkm.parallel = 1; wc_push(&s->lgkm.list, r->line); break;
    case MEM_GLOBAL: wc_push(&s->vm.list, r->line); break;
    case MEM_FLAT:
        s->lgkm.parallel = s->vm.parallel = 1;
        wc_push(&s->flats, r->line);
        break;
    case MEM_WAITCNT:
        if (row->lgk) {
            unsigned n = wc_handle(&s->lgkm, row->isa, &s->flats, out);
            if (n)
                emit(ctx, r->line, out, n);
        }
        if (row->vm) {
            unsigned n = wc_handle(&s->vm, row->isa, &s->flats, out);
            if (n)
                emit(ctx, r->line, out, n);
        }
        break;
    default: break;
    }
}

/* ======================================================================
 * Output: buffered files written as temporaries, renamed together
 * ====================================================================== */

#define OUT_BUF (1u << 16)

typedef struct sy_out {
    int fd;                     /* -1: count only */
    size_t item;                /* index in the tx file set */
    int err;                    /* errno of the first failure */
    uint64_t total;
    size_t len;
    char buf[OUT_BUF];
} sy_out;

static void o_flush(sy_out *o)
{
    if (o->fd >= 0 && !o->err) {
        const char *p = o->buf;
        size_t left = o->len;
        while (left) {
            ssize_t w = write(o->fd, p, left);
            if (w < 0) {
                if (errno == EINTR)
                    continue;
                o->err = errno;
                break;
            }
            p += w;
            left -= (size_t)w;
        }
    }
    o->len = 0;
}

static void o_write(sy_out *o, const void *data, size_t n)
{
    const char *p = data;
    o->total += n;
    while (n) {
        if (o->len == OUT_BUF)
            o_flush(o);
        size_t room = OUT_BUF - o->len;
        size_t k = n < room ? n : room;
        memcpy(o->buf + o->len, p, k);
        o->len += k;
        p += k;
        n -= k;
    }
}

static void o_puts(sy_out *o, const char *s) { o_write(o, s, strlen(s)); }

static void o_putc(sy_out *o, char c)
{
    if (o->len == OUT_BUF)
        o_flush(o);
    o->buf[o->len++] = c;
    o->total++;
}

static void o_u64(sy_out *o, uint64_t v)
{
    char t[24];
    int n = 0;
    do {
        t[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    if (o->len + 24 > OUT_BUF)
        o_flush(o);
    for (int i = n - 1; i >= 0; i--)
        o->buf[o->len++] = t[i];
    o->total += (uint64_t)n;
}

static void o_i64(sy_out *o, int64_t v)
{
    if (v < 0) {
        o_putc(o, '-');
        o_u64(o, (uint64_t)(-(v + 1)) + 1);
    } else
        o_u64(o, (uint64_t)v);
}

static void o_printf(sy_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void o_printf(sy_out *o, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        o_write(o, tmp, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        o->err = ENOMEM;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    o_write(o, big, (size_t)n);
    free(big);
}

/* JSON string (quotes, backslashes and control characters escaped). */
static void o_jstr(sy_out *o, const char *s)
{
    o_putc(o, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            o_putc(o, '\\');
            o_putc(o, (char)*p);
        } else if (*p < 0x20) {
            char e[8];
            snprintf(e, sizeof e, "\\u%04x", *p);
            o_puts(o, e);
        } else
            o_putc(o, (char)*p);
    }
    o_putc(o, '"');
}

/* CSV string field, always quoted, inner quotes doubled (docs/formats.md#rocprofv3-csvs). */
static void o_cstr(sy_out *o, const char *s)
{
    o_putc(o, '"');
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            o_putc(o, '"');
        o_putc(o, *p);
    }
    o_putc(o, '"');
}

/* The set of files of one run: temporaries renamed into place at the end. */
typedef struct tx_item {
    char *tmp, *fin;
} tx_item;

typedef struct tx {
    tx_item *items;
    size_t n, cap;
    char **dirs;                /* directories this run created, in creation order */
    size_t nd, capd;
    kr_err *err;
    int failed;
} tx;

static int tx_fail(tx *t, int code, const char *file, const char *fmt, const char *detail)
{
    if (!t->failed)
        kr_err_set(t->err, code, file, NULL, fmt, detail);
    t->failed = 1;
    return code;
}

static int tx_mkdir(tx *t, const char *path)
{
    if (t->failed)
        return KR_OUTPUT;
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return 0;
        return tx_fail(t, KR_OUTPUT, path, "%s", "exists and is not a directory");
    }
    if (mkdir(path, 0777) != 0)
        return tx_fail(t, KR_OUTPUT, path, "cannot create directory: %s", strerror(errno));
    if (t->nd == t->capd) {
        size_t c = t->capd ? t->capd * 2 : 16;
        char **d = realloc(t->dirs, c * sizeof *d);
        if (!d)
            return tx_fail(t, KR_INTERNAL, path, "%s", "out of memory");
        t->dirs = d;
        t->capd = c;
    }
    if (!(t->dirs[t->nd] = strdup(path)))
        return tx_fail(t, KR_INTERNAL, path, "%s", "out of memory");
    t->nd++;
    return 0;
}

static sy_out *tx_open(tx *t, const char *dir, const char *name)
{
    if (t->failed)
        return NULL;
    char fin[4096], tmp[4096];
    snprintf(fin, sizeof fin, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp.XXXXXX", dir, name);
    if (t->n == t->cap) {
        size_t c = t->cap ? t->cap * 2 : 32;
        tx_item *it = realloc(t->items, c * sizeof *it);
        if (!it) {
            tx_fail(t, KR_INTERNAL, fin, "%s", "out of memory");
            return NULL;
        }
        t->items = it;
        t->cap = c;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        tx_fail(t, KR_OUTPUT, fin, "cannot create: %s", strerror(errno));
        return NULL;
    }
    sy_out *o = calloc(1, sizeof *o);
    char *a = strdup(tmp), *b = strdup(fin);
    if (!o || !a || !b) {
        close(fd);
        unlink(tmp);
        free(o);
        free(a);
        free(b);
        tx_fail(t, KR_INTERNAL, fin, "%s", "out of memory");
        return NULL;
    }
    t->items[t->n].tmp = a;
    t->items[t->n].fin = b;
    o->fd = fd;
    o->item = t->n;
    t->n++;
    return o;
}

static int tx_close(tx *t, sy_out *o)
{
    if (!o)
        return KR_OUTPUT;
    o_flush(o);
    int e = o->err;
    if (fchmod(o->fd, 0644) != 0 && !e)
        e = errno;
    if (close(o->fd) != 0 && !e)
        e = errno;
    size_t item = o->item;
    free(o);
    if (e)
        return tx_fail(t, KR_OUTPUT, t->items[item].fin, "write failed: %s", strerror(e));
    return t->failed ? KR_OUTPUT : 0;
}

/* Whole small file from a buffer. */
static int tx_file(tx *t, const char *dir, const char *name, const char *data, size_t len)
{
    sy_out *o = tx_open(t, dir, name);
    if (!o)
        return KR_OUTPUT;
    o_write(o, data, len);
    return tx_close(t, o);
}

static int tx_commit(tx *t)
{
    for (size_t i = 0; i < t->n; i++) {
        if (rename(t->items[i].tmp, t->items[i].fin) != 0) {
            int e = errno;
            tx_fail(t, KR_OUTPUT, t->items[i].fin, "cannot rename into place: %s", strerror(e));
            for (size_t j = 0; j < i; j++)
                unlink(t->items[j].fin);
            for (size_t j = i; j < t->n; j++)
                unlink(t->items[j].tmp);
            return KR_OUTPUT;
        }
    }
    return 0;
}

/* Frees the set; after a failure removes the temporaries and the
 * directories this run created (deepest first). */
static void tx_free(tx *t, int committed)
{
    for (size_t i = 0; i < t->n; i++) {
        if (!committed)
            unlink(t->items[i].tmp);
        free(t->items[i].tmp);
        free(t->items[i].fin);
    }
    free(t->items);
    for (size_t i = t->nd; i-- > 0;) {
        if (!committed)
            rmdir(t->dirs[i]);
        free(t->dirs[i]);
    }
    free(t->dirs);
}

/* ======================================================================
 * Building a capture: placement, pass A (code.json sums, ends)
 * ====================================================================== */

typedef struct occ_row {
    uint64_t time;
    uint8_t cu, simd, slot, start;
} occ_row;

typedef struct cap_params {
    const char *label;
    uint64_t agent, dispatch;
    unsigned waves, iterations;
    uint64_t stream;            /* distinguishes the captures of one bundle */
    uint64_t rc0;               /* realtime clock of the first sample */
} cap_params;

typedef struct capture_ext {
    capture c;
    occ_row *occ[4];
    size_t nocc[4];
} capture_ext;

static void cap_free(capture_ext *x)
{
    free(x->c.w);
    for (int s = 0; s < 4; s++)
        free(x->occ[s]);
    memset(x, 0, sizeof *x);
}

static int occ_cmp(const void *a, const void *b)
{
    const occ_row *x = a, *y = b;
    if (x->time != y->time) return x->time < y->time ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;   /* ends first */
    if (x->cu != y->cu) return x->cu < y->cu ? -1 : 1;
    if (x->simd != y->simd) return x->simd < y->simd ? -1 : 1;
    return (int)x->slot - (int)y->slot;
}

static int occ_add(capture_ext *x, unsigned se, uint64_t time, unsigned cu, unsigned simd, unsigned slot, unsigned start)
{
    size_t n = x->nocc[se];
    occ_row *r = realloc(x->occ[se], (n + 1) * sizeof *r);
    if (!r)
        return -1;
    r[n].time = time;
    r[n].cu = (uint8_t)cu;
    r[n].simd = (uint8_t)simd;
    r[n].slot = (uint8_t)slot;
    r[n].start = (uint8_t)start;
    x->occ[se] = r;
    x->nocc[se] = n + 1;
    return 0;
}

/* Waves of other CUs on every SE (not traced; docs/formats.md#occupancy-events lists all CUs of an SE). */
static int occ_others(capture_ext *x, uint64_t span_ref)
{
    static const unsigned CUS[3] = {0, 2, 5};
    for (unsigned se = 0; se < 4; se++) {
        for (unsigned ci = 0; ci < 3; ci++) {
            for (unsigned simd = 0; simd < 4; simd++) {
                uint64_t start = GLOBAL_BEGIN - 40 + 16 * ci + 4 * simd - SE_OFFSET[se];
                uint64_t end = start + span_ref + 52 * ci + 12 * simd;
                if (occ_add(x, se, start, CUS[ci], simd, 0, 1) || occ_add(x, se, end, CUS[ci], simd, 0, 0))
                    return -1;
                uint64_t gend = end + SE_OFFSET[se];
                if (gend > x->c.gmax)
                    x->c.gmax = gend;
                if (CUS[ci] == 2 && simd == 0) {
                    /* a second wave in the same slot, starting as the first ends */
                    uint64_t end2 = end + (span_ref / 8) * 4;
                    if (occ_add(x, se, end, 2, 0, 0, 1) || occ_add(x, se, end2, 2, 0, 0, 0))
                        return -1;
                    if (end2 + SE_OFFSET[se] > x->c.gmax)
                        x->c.gmax = end2 + SE_OFFSET[se];
                }
            }
        }
        qsort(x->occ[se], x->nocc[se], sizeof(occ_row), occ_cmp);
    }
    return 0;
}

static void count_emit(void *ctx, uint32_t line, const uint32_t *prod, unsigned n)
{
    (void)line;
    (void)prod;
    (void)n;
    (*(uint64_t *)ctx)++;
}

static void realtime_span(capture *c)
{
    c->drc = (c->gmax + 24000 - RT_LO_SC0) / CLOCK_RATIO + 1;
}

static int cap_init(capture_ext *x, const program *p, const synth_opts *o, const cap_params *cp, kr_err *err)
{
    capture *c = &x->c;
    memset(x, 0, sizeof *x);
    c->gfx = o->gfx;
    c->seed = o->seed;
    c->nwaves = cp->waves;
    c->iterations = cp->iterations;
    c->nse = (cp->waves + 3) / 4 < 4 ? (cp->waves + 3) / 4 : 4;
    c->agent = cp->agent;
    c->dispatch = cp->dispatch;
    c->prog = p;
    c->rc0 = cp->rc0;
    snprintf(c->label, sizeof c->label, "%s", cp->label);
    snprintf(c->folder, sizeof c->folder, "ui_output_agent_%llu_dispatch_%llu",
             (unsigned long long)cp->agent, (unsigned long long)cp->dispatch);
    c->w = calloc(cp->waves, sizeof *c->w);
    if (!c->w)
        return kr_err_set(err, KR_INTERNAL, NULL, NULL, "out of memory");
    uint64_t rng = o->seed * 0x2545f4914f6cdd1dull + cp->stream;
    unsigned per_slot = 4 * c->nse;
    for (unsigned i = 0; i < cp->waves; i++) {
        wave *w = &c->w[i];
        w->ordinal = i;
        w->slot = i / per_slot;
        w->se = (i % per_slot) / 4;
        w->simd = i % 4;
        w->id = 0;
        uint64_t g = GLOBAL_BEGIN + 4 * ((3 * w->simd + w->se) % 4) + 128 * w->slot;
        if (o->seed)
            g += 4 * rnd_below(&rng, 8);
        w->begin = g - SE_OFFSET[w->se];
        w->rng_seed = splitmix64(&rng);
    }
    /* pass A: code.json sums (docs/formats.md#per-row-sums), record counts, ends, waitcnt counts */
    for (unsigned i = 0; i < cp->waves; i++) {
        wave *w = &c->w[i];
        wavegen g;
        wg_init(&g, c, w);
        wc_state wc;
        wc_init(&wc);
        rec r;
        uint64_t prev_done = w->begin;
        while (wg_next(&g, &r)) {
            c->hit[r.line] += 1;
            c->lat[r.line] += r.dur;
            c->stall[r.line] += r.stall;
            c->idle[r.line] += r.time > prev_done ? r.time - prev_done : 0;
            if (r.time + r.dur > prev_done)
                prev_done = r.time + r.dur;
            w->nrec++;
            wc_feed(&wc, p, &r, count_emit, &w->nwait);
        }
        w->last_done = prev_done;
        w->end = prev_done - (i % 3 == 2 ? 4 : 0);
        if (prev_done - w->begin > c->span_max)
            c->span_max = prev_done - w->begin;
        if (prev_done + SE_OFFSET[w->se] > c->gmax)
            c->gmax = prev_done + SE_OFFSET[w->se];
        if (occ_add(x, w->se, w->begin, TARGET_CU, w->simd, w->slot, 1) ||
            occ_add(x, w->se, w->end, TARGET_CU, w->simd, w->slot, 0))
            return kr_err_set(err, KR_INTERNAL, NULL, NULL, "out of memory");
    }
    if (occ_others(x, c->span_max))
        return kr_err_set(err, KR_INTERNAL, NULL, NULL, "out of memory");
    realtime_span(c);
    return 0;
}

/* ======================================================================
 * Capture folder files (docs/formats.md#capture-folder)
 * ====================================================================== */

static void wave_file_name(const wave *w, char *buf, size_t cap)
{
    snprintf(buf, cap, "se%u_sm%u_sl%u_wv%u.json", w->se, w->simd, w->slot, w->id);
}

typedef struct wc_text {
    sy_out *o;
    int any;
} wc_text;

static void text_emit(void *ctx, uint32_t line, const uint32_t *prod, unsigned n)
{
    wc_text *t = ctx;
    if (t->any)
        o_putc(t->o, ',');
    t->any = 1;
    o_putc(t->o, '[');
    o_u64(t->o, line);
    o_puts(t->o, ",[");
    for (unsigned i = 0; i < n; i++) {
        if (i)
            o_putc(t->o, ',');
        o_putc(t->o, '[');
        o_u64(t->o, prod[i]);
        o_puts(t->o, ",0]");
    }
    o_puts(t->o, "]]");
}

/* One wave file (docs/formats.md#wave-files), streamed: records, timeline and waitcnt are each
 * regenerated from the wave's seed instead of being held in memory. */
static void write_wave(const capture *c, const wave *w, sy_out *o)
{
    o_puts(o, "{\"duration\":");
    o_u64(o, w->end - w->begin);
    o_printf(o, ",\"name\":\"SE%u\",\"num_insts\":", w->se);
    o_u64(o, w->nrec);
    o_puts(o, ",\"num_stitched\":");
    o_u64(o, w->nrec);
    o_puts(o, ",\"wave\":{\"begin\":");
    o_u64(o, w->begin);
    o_printf(o, ",\"cu\":%u,\"end\":", TARGET_CU);
    o_u64(o, w->end);
    o_printf(o, ",\"id\":%u,\"instructions\":[", w->id);
    wavegen g;
    wg_init(&g, c, w);
    rec r;
    int first = 1;
    while (wg_next(&g, &r)) {
        if (!first)
            o_putc(o, ',');
        first = 0;
        o_putc(o, '[');
        o_u64(o, r.time);
        o_putc(o, ',');
        o_u64(o, r.cat);
        o_putc(o, ',');
        o_u64(o, r.stall);
        o_putc(o, ',');
        o_u64(o, r.dur);
        o_putc(o, ',');
        o_u64(o, r.line);
        o_putc(o, ']');
    }
    o_printf(o, "],\"simd\":%u,\"slot\":%u,\"timeline\":[", w->simd, w->slot);
    tlgen t;
    tl_init(&t, c, w);
    unsigned st;
    uint64_t cy;
    first = 1;
    while (tl_next(&t, &st, &cy)) {
        if (!first)
            o_putc(o, ',');
        first = 0;
        o_putc(o, '[');
        o_u64(o, st);
        o_putc(o, ',');
        o_u64(o, cy);
        o_putc(o, ']');
    }
    o_puts(o, "],\"waitcnt\":");
    if (!w->nwait) {
        o_puts(o, "null}}");
        return;
    }
    o_putc(o, '[');
    wg_init(&g, c, w);
    wc_state wc;
    wc_init(&wc);
    wc_text tx_ctx = {o, 0};
    while (wg_next(&g, &r))
        wc_feed(&wc, c->prog, &r, text_emit, &tx_ctx);
    o_puts(o, "]}}");
}

static void write_code(const capture *c, sy_out *o)
{
    const program *p = c->prog;
    o_puts(o, "{\"code\":[");
    for (unsigned i = 0; i <= NROWS; i++) {
        const prow *r = &p->r[i];
        if (i)
            o_putc(o, ',');
        o_putc(o, '[');
        o_jstr(o, r->isa);
        o_printf(o, ",0,%u,", i);
        o_jstr(o, r->src);
        o_printf(o, ",%u,", CODE_OBJECT_ID);
        o_u64(o, r->vaddr);
        o_putc(o, ',');
        o_u64(o, c->hit[i]);
        o_putc(o, ',');
        o_u64(o, c->lat[i]);
        o_putc(o, ',');
        o_u64(o, c->stall[i]);
        o_putc(o, ',');
        o_u64(o, c->idle[i]);
        o_putc(o, ']');
    }
    o_puts(o, "],\"header\":\"ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle\","
              "\"version\":\"3.0.0\"}");
}

static int wave_key_cmp(const void *a, const void *b)
{
    const wave *x = *(const wave *const *)a, *y = *(const wave *const *)b;
    if (x->se != y->se) return x->se < y->se ? -1 : 1;
    if (x->simd != y->simd) return x->simd < y->simd ? -1 : 1;
    if (x->slot != y->slot) return x->slot < y->slot ? -1 : 1;
    return (int)x->id - (int)y->id;
}

static int write_filenames(const capture *c, sy_out *o)
{
    o_puts(o, "{\"counter_names\":[],\"gfxip\":9,\"gfxv\":\"vega\",\"global_begin_time\":0,"
              "\"version\":\"3.0.0\",\"wave_filenames\":");
    if (!c || !c->nwaves) {
        o_puts(o, "null}");
        return 0;
    }
    const wave **sorted = malloc(c->nwaves * sizeof *sorted);
    if (!sorted)
        return -1;
    for (unsigned i = 0; i < c->nwaves; i++)
        sorted[i] = &c->w[i];
    /* keys are decimal strings sorted as strings; all are single digits here */
    qsort(sorted, c->nwaves, sizeof *sorted, wave_key_cmp);
    o_putc(o, '{');
    int cse = -1, csimd = -1, cslot = -1;
    for (unsigned k = 0; k < c->nwaves; k++) {
        const wave *w = sorted[k];
        if ((int)w->se != cse) {
            if (cse != -1)
                o_puts(o, "}}},");
            o_printf(o, "\"%u\":{", w->se);
            cse = (int)w->se;
            csimd = -1;
        }
        if ((int)w->simd != csimd) {
            if (csimd != -1)
                o_puts(o, "}},");
            o_printf(o, "\"%u\":{", w->simd);
            csimd = (int)w->simd;
            cslot = -1;
        }
        if ((int)w->slot != cslot) {
            if (cslot != -1)
                o_puts(o, "},");
            o_printf(o, "\"%u\":{", w->slot);
            cslot = (int)w->slot;
        } else
            o_putc(o, ',');
        char name[64];
        wave_file_name(w, name, sizeof name);
        o_printf(o, "\"%u\":[\"%s\",", w->id, name);
        o_u64(o, w->begin);
        o_putc(o, ',');
        o_u64(o, w->end);
        o_putc(o, ']');
    }
    o_puts(o, "}}}}}");
    free(sorted);
    return 0;
}

/* dispatches: the writer's kernel map is process-wide (docs/formats.md#occupancy-events), so an empty
 * shell lists the kernel too: its other-CU rows run it. */
static void write_occupancy(const capture_ext *x, sy_out *o)
{
    o_putc(o, '{');
    for (unsigned se = 0; se < 4; se++) {
        o_printf(o, "\"%u\":[", se);
        for (size_t i = 0; i < x->nocc[se]; i++) {
            const occ_row *r = &x->occ[se][i];
            if (i)
                o_putc(o, ',');
            o_putc(o, '[');
            o_u64(o, r->time);
            o_printf(o, ",%u,%u,%u,%u,1]", r->cu, r->simd, r->slot, r->start);
        }
        o_puts(o, "],");
    }
    o_puts(o, "\"dispatches\":{\"0\":\"0 / 0x0\",\"1\":\"" KERNEL_NAME "\"},\"version\":\"3.0.0\"}");
}

static void write_realtime(const capture *c, sy_out *o)
{
    o_putc(o, '{');
    for (unsigned se = 0; se < 4; se++) {
        uint64_t lo = RT_LO_SC0 - SE_OFFSET[se];
        o_printf(o, "\"SE%u\":[[", se);
        o_u64(o, lo);
        o_putc(o, ',');
        o_u64(o, c->rc0);
        o_puts(o, "],[");
        o_u64(o, lo + CLOCK_RATIO * c->drc);
        o_putc(o, ',');
        o_u64(o, c->rc0 + c->drc);
        o_puts(o, "]],");
    }
    o_puts(o, "\"metadata\":{\"descriptor\":\"[gfx_clock, realtime_clock]\",\"frequency\":100000000}}");
}

static const char SNAPSHOTS_JSON[] =
    "{\"/\":{\"synth\":{\"kernels\":{\"synth_kernel.py\":\"source_0_synth_kernel.py\"},"
    "\"lib\":{\"synth_ops.py\":\"source_1_synth_ops.py\"}}}}";

/* ---- wstates (docs/formats.md#wave-state-curves): k-way merge of every wave's timeline ---- */

typedef struct ws_build {
    sy_out *state_out;          /* the wstates<k>.json file */
    FILE *times;                /* its "time" array, spooled */
    int64_t acc, pacc;
    uint64_t ptime;
    int has_p, nvals;
} ws_build;

typedef struct ws_wave {
    tlgen t;
    uint64_t time;
    int cur;                    /* state whose entry ends at `time`, -1 none */
} ws_wave;

static void ws_flush(ws_build *b)
{
    if (b->nvals)
        o_putc(b->state_out, ',');
    o_i64(b->state_out, b->pacc);
    if (b->nvals)
        fputc(',', b->times);
    fprintf(b->times, "%llu", (unsigned long long)b->ptime);
    b->nvals++;
}

static int ws_event(tx *t, const char *dir, ws_build *bs, unsigned k, uint64_t time, int delta)
{
    ws_build *b = &bs[k];
    if (!b->state_out) {
        char name[32];
        snprintf(name, sizeof name, "wstates%u.json", k);
        b->state_out = tx_open(t, dir, name);
        b->times = tmpfile();
        if (!b->state_out || !b->times)
            return tx_fail(t, KR_OUTPUT, dir, "%s", "cannot create a wstates file");
        o_printf(b->state_out, "{\"name\":\"%s\",\"state\":[", name);
    }
    b->acc += delta;
    if (b->has_p && b->ptime == time) {
        b->pacc = b->acc;
        return 0;
    }
    if (b->has_p)
        ws_flush(b);
    b->ptime = time;
    b->pacc = b->acc;
    b->has_p = 1;
    return 0;
}

static int ws_less(const ws_wave *a, size_t ia, const ws_wave *b, size_t ib)
{
    return a->time != b->time ? a->time < b->time : ia < ib;
}

static void heap_down(ws_wave *w, size_t *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && ws_less(&w[h[l]], h[l], &w[h[m]], h[m])) m = l;
        if (r < n && ws_less(&w[h[r]], h[r], &w[h[m]], h[m])) m = r;
        if (m == i)
            return;
        size_t tmp = h[i];
        h[i] = h[m];
        h[m] = tmp;
        i = m;
    }
}

static int write_wstates(const capture *c, tx *t, const char *dir)
{
    size_t n = c->nwaves;
    ws_wave *w = calloc(n ? n : 1, sizeof *w);
    size_t *h = calloc(n ? n : 1, sizeof *h);
    ws_build bs[5];
    memset(bs, 0, sizeof bs);
    int rc = 0;
    if (!w || !h) {
        rc = tx_fail(t, KR_INTERNAL, dir, "%s", "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        tl_init(&w[i].t, c, &c->w[i]);
        w[i].time = c->w[i].begin;
        w[i].cur = -1;
        h[i] = i;
    }
    for (size_t i = n / 2; i-- > 0;)
        heap_down(w, h, n, i);
    size_t hn = n;
    while (hn && !rc) {
        ws_wave *m = &w[h[0]];
        uint64_t time = m->time;
        if (m->cur >= 0)
            rc = ws_event(t, dir, bs, (unsigned)m->cur, time, -1);
        unsigned st;
        uint64_t cy;
        if (tl_next(&m->t, &st, &cy)) {
            if (!rc)
                rc = ws_event(t, dir, bs, st, time, +1);
            m->cur = (int)st;
            m->time = time + cy;
        } else {
            h[0] = h[--hn];
        }
        heap_down(w, h, hn, 0);
    }
    for (unsigned k = 0; k < 5 && !rc; k++) {
        ws_build *b = &bs[k];
        if (!b->state_out)
            continue;
        if (b->has_p)
            ws_flush(b);
        o_puts(b->state_out, "],\"time\":[");
        fflush(b->times);
        rewind(b->times);
        char buf[1 << 14];
        size_t got;
        while ((got = fread(buf, 1, sizeof buf, b->times)) > 0)
            o_write(b->state_out, buf, got);
        if (ferror(b->times))
            rc = tx_fail(t, KR_OUTPUT, dir, "%s", "cannot read back a spooled wstates array");
        o_puts(b->state_out, "]}");
    }
done:
    for (unsigned k = 0; k < 5; k++) {
        if (bs[k].state_out) {
            int r2 = tx_close(t, bs[k].state_out);
            if (!rc)
                rc = r2;
        }
        if (bs[k].times)
            fclose(bs[k].times);
    }
    free(w);
    free(h);
    return rc;
}

/* The whole capture folder. */
static int cap_write(const capture_ext *x, tx *t, const char *parent)
{
    const capture *c = &x->c;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", parent, c->folder);
    if (tx_mkdir(t, dir))
        return KR_OUTPUT;
    sy_out *o;
    if (!(o = tx_open(t, dir, "filenames.json")))
        return KR_OUTPUT;
    if (write_filenames(c, o))
        tx_fail(t, KR_INTERNAL, dir, "%s", "out of memory");
    if (tx_close(t, o))
        return KR_OUTPUT;
    if (!(o = tx_open(t, dir, "code.json")))
        return KR_OUTPUT;
    write_code(c, o);
    if (tx_close(t, o))
        return KR_OUTPUT;
    for (unsigned i = 0; i < c->nwaves; i++) {
        char name[64];
        wave_file_name(&c->w[i], name, sizeof name);
        if (!(o = tx_open(t, dir, name)))
            return KR_OUTPUT;
        write_wave(c, &c->w[i], o);
        if (tx_close(t, o))
            return KR_OUTPUT;
    }
    if (write_wstates(c, t, dir))
        return KR_OUTPUT;
    if (!(o = tx_open(t, dir, "occupancy.json")))
        return KR_OUTPUT;
    write_occupancy(x, o);
    if (tx_close(t, o))
        return KR_OUTPUT;
    if (!(o = tx_open(t, dir, "realtime.json")))
        return KR_OUTPUT;
    write_realtime(c, o);
    if (tx_close(t, o))
        return KR_OUTPUT;
    if (tx_file(t, dir, "snapshots.json", SNAPSHOTS_JSON, sizeof SNAPSHOTS_JSON - 1) ||
        tx_file(t, dir, "source_0_synth_kernel.py", SRC_KERNEL_TEXT, sizeof SRC_KERNEL_TEXT - 1) ||
        tx_file(t, dir, "source_1_synth_ops.py", SRC_OPS_TEXT, sizeof SRC_OPS_TEXT - 1))
        return KR_OUTPUT;
    return 0;
}

/* An empty shell (docs/formats.md#capture-files): a traced dispatch whose target CU ran none of the
 * kernel's waves; wave_filenames and code are null. */
static int shell_write(tx *t, const char *parent, uint64_t agent, uint64_t dispatch, uint64_t rc0)
{
    capture_ext x;
    memset(&x, 0, sizeof x);
    x.c.rc0 = rc0;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/ui_output_agent_%llu_dispatch_%llu", parent,
             (unsigned long long)agent, (unsigned long long)dispatch);
    int rc = KR_OUTPUT;
    if (tx_mkdir(t, dir))
        goto done;
    if (occ_others(&x, 3028)) {
        tx_fail(t, KR_INTERNAL, dir, "%s", "out of memory");
        goto done;
    }
    realtime_span(&x.c);
    sy_out *o;
    if (!(o = tx_open(t, dir, "filenames.json")))
        goto done;
    write_filenames(NULL, o);
    if (tx_close(t, o))
        goto done;
    static const char CODE_NULL[] =
        "{\"code\":null,\"header\":\"ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle\","
        "\"version\":\"3.0.0\"}";
    if (tx_file(t, dir, "code.json", CODE_NULL, sizeof CODE_NULL - 1))
        goto done;
    if (!(o = tx_open(t, dir, "occupancy.json")))
        goto done;
    write_occupancy(&x, o);
    if (tx_close(t, o))
        goto done;
    if (!(o = tx_open(t, dir, "realtime.json")))
        goto done;
    write_realtime(&x.c, o);
    if (tx_close(t, o))
        goto done;
    rc = 0;
done:
    cap_free(&x);
    return rc;
}

/* ======================================================================
 * rocprofv3 side: agents, dispatches, results.json (docs/formats.md#results-json), CSVs (docs/formats.md#rocprofv3-csvs)
 * ====================================================================== */

/* Minimal compact JSON writer with comma bookkeeping (cereal key order is
 * the order of the calls). */
typedef struct jw {
    sy_out *o;
    int depth;
    unsigned char first[32];
} jw;

static void jw_key(jw *j, const char *key)
{
    if (!j->first[j->depth])
        o_putc(j->o, ',');
    j->first[j->depth] = 0;
    if (key) {
        o_jstr(j->o, key);
        o_putc(j->o, ':');
    }
}
static void jw_open(jw *j, const char *key, char c)
{
    jw_key(j, key);
    o_putc(j->o, c);
    j->first[++j->depth] = 1;
}
static void jw_obj(jw *j, const char *key) { jw_open(j, key, '{'); }
static void jw_arr(jw *j, const char *key) { jw_open(j, key, '['); }
static void jw_end(jw *j, char c) { o_putc(j->o, c); j->depth--; }
static void jw_u(jw *j, const char *key, uint64_t v) { jw_key(j, key); o_u64(j->o, v); }
static void jw_i(jw *j, const char *key, int64_t v) { jw_key(j, key); o_i64(j->o, v); }
static void jw_s(jw *j, const char *key, const char *s) { jw_key(j, key); o_jstr(j->o, s); }
static void jw_b(jw *j, const char *key, int v) { jw_key(j, key); o_puts(j->o, v ? "true" : "false"); }
static void jw_handle(jw *j, const char *key, uint64_t h)
{
    jw_obj(j, key);
    jw_u(j, "handle", h);
    jw_end(j, '}');
}

/* ---- agents ---- */

typedef struct agent {
    uint64_t handle;
    int type;                   /* 1 CPU, 2 GPU */
    unsigned node, type_index;
    int gpu_index;
    unsigned cpu_cores, simd_count, caches_count, io_links_count;
    uint64_t cpu_core_id_base, simd_id_base;
    unsigned max_waves_per_simd, lds_kb, num_gws, wave_front, num_xcc, cu_count, array_count;
    unsigned shader_banks, arrays_per_engine, cu_per_array, simd_per_cu, scratch_slots;
    unsigned gfx_target, vendor_id, device_id, location_id, drm_minor;
    unsigned sdma, sdma_xgmi, sdma_queues, cp_queues, clk_c, clk_f, sdma_fw, fw;
    uint64_t capability;
    unsigned cu_per_engine, max_waves_per_cu, family, wg_max;
    uint64_t grid_max, hive_id;
    unsigned gpu_id;
    unsigned wg_dim, grid_x, grid_yz;
    const char *name, *vendor, *product, *model;
    unsigned heap_type, mem_width, mem_clk;
    uint64_t mem_bytes;
    unsigned uuid[8];
} agent;

#define NAGENTS 10u                 /* 2 CPUs + 8 GPUs, handles consecutive (docs/formats.md#capture-folder) */
#define CPU_NAME "AMD EPYC 9575F 64-Core Processor"

static void agents_make(agent *a, uint64_t first_gpu_handle, synth_gfx gfx)
{
    static const unsigned LOCATION[8] = {29952, 1280, 25856, 5376, 62720, 34048, 58624, 38144};
    static const unsigned GPU_ID[8] = {12605, 54552, 64816, 6421, 37212, 30073, 23889, 47476};
    memset(a, 0, NAGENTS * sizeof *a);
    for (unsigned i = 0; i < NAGENTS; i++) {
        agent *x = &a[i];
        x->handle = first_gpu_handle - 2 + i;
        x->node = i;
        if (i < 2) {
            x->type = 1;
            x->type_index = i;
            x->gpu_index = -1;
            x->cpu_cores = 64;
            x->io_links_count = 5;
            x->cpu_core_id_base = 128 * i;
            x->num_xcc = 1;
            x->cu_count = 64;
            x->clk_c = 3300;
            x->family = 26;
            x->name = CPU_NAME;
            x->vendor = "CPU";
            x->product = CPU_NAME;
            x->model = "";
            x->heap_type = 0;
            x->mem_width = 80;
            x->mem_clk = 6400;
            x->mem_bytes = 1622974296064ull;
            continue;
        }
        unsigned g = i - 2;
        int is942 = gfx == SYNTH_GFX942;
        x->type = 2;
        x->type_index = g;
        x->gpu_index = (int)g;
        x->simd_count = is942 ? 1216 : 1024;
        x->caches_count = 3;
        x->io_links_count = 8;
        x->simd_id_base = 2147487744ull + 36ull * g;
        x->max_waves_per_simd = 8;
        x->lds_kb = is942 ? 64 : 160;
        x->num_gws = 64;
        x->wave_front = 64;
        x->num_xcc = 8;
        x->cu_count = is942 ? 304 : 256;
        x->array_count = 32;
        x->shader_banks = 32;
        x->arrays_per_engine = 1;
        x->cu_per_array = is942 ? 10 : 9;
        x->simd_per_cu = 4;
        x->scratch_slots = 32;
        x->gfx_target = is942 ? 90402 : 90500;
        x->vendor_id = 4098;
        x->device_id = is942 ? 29857 : 30112;
        x->location_id = LOCATION[g];
        x->drm_minor = 128 + 8 * g;
        x->sdma = 2;
        x->sdma_xgmi = 14;
        x->sdma_queues = 8;
        x->cp_queues = 24;
        x->clk_c = 3300;
        x->clk_f = is942 ? 2100 : 2200;
        x->sdma_fw = is942 ? 9 : 12;
        x->fw = is942 ? 25 : 30;
        x->capability = 2755109504ull;
        x->cu_per_engine = is942 ? 10 : 8;
        x->max_waves_per_cu = 32;
        x->family = 141;
        x->wg_max = 1024;
        x->grid_max = 4294967295ull;
        x->hive_id = is942 ? 7302811243154289301ull : 8861873366774386336ull;
        x->gpu_id = GPU_ID[g];
        x->wg_dim = 1024;
        x->grid_x = 2147483647u;
        x->grid_yz = 65535;
        x->name = is942 ? "gfx942" : "gfx950";
        x->vendor = "AMD";
        x->product = is942 ? "AMD Instinct MI300X" : "AMD Instinct MI350X";
        x->model = "ip discovery";
        x->heap_type = 1;
        x->mem_width = 8192;
        x->mem_clk = is942 ? 1300 : 2000;
        x->mem_bytes = is942 ? 206141652992ull : 309220868096ull;
        for (unsigned b = 0; b < 8; b++)
            x->uuid[b] = (unsigned)((GPU_ID[g] * 2654435761u >> (b * 3)) & 0xff);
    }
}

static void jw_agent(jw *j, const agent *a, const agent *all)
{
    static const char *CAPS[24] = {
        "HotPluggable", "HSAMMUPresent", "SharedWithGraphics", "QueueSizePowerOfTwo", "QueueSize32bit",
        "QueueIdleEvent", "VALimit", "WatchPointsSupported", "WatchPointsTotalBits", "DoorbellType",
        "AQLQueueDoubleMap", "DebugTrapSupported", "WaveLaunchTrapOverrideSupported",
        "WaveLaunchModeSupported", "PreciseMemoryOperationsSupported", "DEPRECATED_SRAM_EDCSupport",
        "Mem_EDCSupport", "RASEventNotify", "ASICRevision", "SRAM_EDCSupport", "SVMAPISupported",
        "CoherentHostAccess", "DebugSupportedFirmware", NULL};
    static const unsigned GPU_CAPS[23] = {0, 0, 0, 0, 0, 0, 0, 1, 2, 2, 0, 1, 1, 1, 1, 0, 1, 1, 0, 1, 0, 0, 1};
    int gpu = a->type == 2;
    jw_obj(j, NULL);
    jw_u(j, "size", 312);
    jw_handle(j, "id", a->handle);
    jw_u(j, "type", (uint64_t)a->type);
    jw_u(j, "cpu_cores_count", a->cpu_cores);
    jw_u(j, "simd_count", a->simd_count);
    jw_u(j, "mem_banks_count", 1);
    jw_u(j, "caches_count", a->caches_count);
    jw_u(j, "io_links_count", a->io_links_count);
    jw_u(j, "cpu_core_id_base", a->cpu_core_id_base);
    jw_u(j, "simd_id_base", a->simd_id_base);
    jw_u(j, "max_waves_per_simd", a->max_waves_per_simd);
    jw_u(j, "lds_size_in_kb", a->lds_kb);
    jw_u(j, "gds_size_in_kb", 0);
    jw_u(j, "num_gws", a->num_gws);
    jw_u(j, "wave_front_size", a->wave_front);
    jw_u(j, "num_xcc", a->num_xcc);
    jw_u(j, "cu_count", a->cu_count);
    jw_u(j, "array_count", a->array_count);
    jw_u(j, "num_shader_banks", a->shader_banks);
    jw_u(j, "simd_arrays_per_engine", a->arrays_per_engine);
    jw_u(j, "cu_per_simd_array", a->cu_per_array);
    jw_u(j, "simd_per_cu", a->simd_per_cu);
    jw_u(j, "max_slots_scratch_cu", a->scratch_slots);
    jw_u(j, "gfx_target_version", a->gfx_target);
    jw_u(j, "vendor_id", a->vendor_id);
    jw_u(j, "device_id", a->device_id);
    jw_u(j, "location_id", a->location_id);
    jw_u(j, "domain", 0);
    jw_u(j, "drm_render_minor", a->drm_minor);
    jw_u(j, "num_sdma_engines", a->sdma);
    jw_u(j, "num_sdma_xgmi_engines", a->sdma_xgmi);
    jw_u(j, "num_sdma_queues_per_engine", a->sdma_queues);
    jw_u(j, "num_cp_queues", a->cp_queues);
    jw_u(j, "max_engine_clk_ccompute", a->clk_c);
    jw_u(j, "max_engine_clk_fcompute", a->clk_f);
    jw_obj(j, "sdma_fw_version");
    jw_u(j, "uCodeSDMA", a->sdma_fw);
    jw_u(j, "uCodeRes", 0);
    jw_end(j, '}');
    jw_obj(j, "fw_version");
    jw_u(j, "uCode", a->fw);
    jw_u(j, "Major", 0);
    jw_u(j, "Minor", 0);
    jw_u(j, "Stepping", 0);
    jw_end(j, '}');
    jw_obj(j, "capability");
    for (unsigned k = 0; CAPS[k]; k++)
        jw_u(j, CAPS[k], gpu ? GPU_CAPS[k] : 0);
    jw_end(j, '}');
    jw_u(j, "cu_per_engine", a->cu_per_engine);
    jw_u(j, "max_waves_per_cu", a->max_waves_per_cu);
    jw_u(j, "family_id", a->family);
    jw_u(j, "workgroup_max_size", a->wg_max);
    jw_u(j, "grid_max_size", a->grid_max);
    jw_u(j, "local_mem_size", 0);
    jw_u(j, "hive_id", a->hive_id);
    jw_u(j, "gpu_id", a->gpu_id);
    jw_obj(j, "workgroup_max_dim");
    jw_u(j, "x", a->wg_dim);
    jw_u(j, "y", a->wg_dim);
    jw_u(j, "z", a->wg_dim);
    jw_end(j, '}');
    jw_obj(j, "grid_max_dim");
    jw_u(j, "x", a->grid_x);
    jw_u(j, "y", a->grid_yz);
    jw_u(j, "z", a->grid_yz);
    jw_end(j, '}');
    jw_s(j, "name", a->name);
    jw_s(j, "vendor_name", a->vendor);
    jw_s(j, "product_name", a->product);
    jw_s(j, "model_name", a->model);
    jw_u(j, "node_id", a->node);
    jw_u(j, "logical_node_id", a->node);
    jw_u(j, "logical_node_type_id", a->type_index);
    jw_obj(j, "runtime_visibility");
    jw_u(j, "hsa", 1);
    jw_u(j, "hip", 1);
    jw_u(j, "rccl", 1);
    jw_u(j, "rocdecode", 1);
    jw_end(j, '}');
    jw_obj(j, "uuid");
    jw_obj(j, "bytes");
    for (unsigned b = 0; b < 16; b++) {
        char k[16];
        snprintf(k, sizeof k, "value%u", b);
        jw_u(j, k, b < 8 ? a->uuid[b] : 0);
    }
    jw_end(j, '}');
    jw_end(j, '}');
    jw_arr(j, "mem_banks");
    jw_obj(j, NULL);
    jw_u(j, "heap_type", a->heap_type);
    jw_obj(j, "flags");
    jw_u(j, "HotPluggable", 0);
    jw_u(j, "NonVolatile", 0);
    jw_end(j, '}');
    jw_u(j, "width", a->mem_width);
    jw_u(j, "mem_clk_max", a->mem_clk);
    jw_u(j, "size_in_bytes", a->mem_bytes);
    jw_end(j, '}');
    jw_end(j, ']');
    jw_arr(j, "caches");
    static const unsigned CACHE_SIZE[3] = {32, 4096, 262144}, CACHE_LINE[3] = {128, 128, 64};
    for (unsigned k = 0; k < a->caches_count; k++) {
        jw_obj(j, NULL);
        jw_u(j, "processor_id_low", a->simd_id_base);
        jw_u(j, "size", CACHE_SIZE[k]);
        jw_u(j, "level", k + 1);
        jw_u(j, "cache_line_size", CACHE_LINE[k]);
        jw_u(j, "cache_lines_per_tag", 0);
        jw_u(j, "association", 0);
        jw_u(j, "latency", 0);
        jw_obj(j, "type");
        jw_u(j, "Data", 1);
        jw_u(j, "Instruction", 0);
        jw_u(j, "CPU", 0);
        jw_u(j, "HSACU", 1);
        jw_end(j, '}');
        jw_end(j, '}');
    }
    jw_end(j, ']');
    jw_arr(j, "io_links");
    for (unsigned k = 0; k < NAGENTS; k++) {
        const agent *to = &all[k];
        int link_type, weight;
        if (to == a)
            continue;
        if (gpu) {
            if (to->type == 1 && to->node != 0)
                continue;
            link_type = to->type == 1 ? 2 : 11;
            weight = to->type == 1 ? 20 : 15;
        } else {
            if (to->type == 2 && (to->node - 2) / 4 != a->node)
                continue;
            link_type = to->type == 1 ? 1 : 2;
            weight = to->type == 1 ? 32 : 20;
        }
        jw_obj(j, NULL);
        jw_u(j, "type", (uint64_t)link_type);
        jw_u(j, "version_major", 0);
        jw_u(j, "version_minor", 0);
        jw_u(j, "node_from", a->node);
        jw_u(j, "node_to", to->node);
        jw_u(j, "weight", (uint64_t)weight);
        jw_u(j, "min_latency", 0);
        jw_u(j, "max_latency", 0);
        jw_u(j, "min_bandwidth", gpu && to->type == 2 ? 64000 : 0);
        jw_u(j, "max_bandwidth", gpu || to->type == 2 ? 64000 : 0);
        jw_u(j, "recommended_transfer_size", 0);
        jw_obj(j, "flags");
        jw_u(j, "Override", gpu || to->type == 2);
        jw_u(j, "NonCoherent", !gpu && to->type == 2);
        jw_u(j, "NoAtomics32bit", 0);
        jw_u(j, "NoAtomics64bit", 0);
        jw_u(j, "NoPeerToPeerDMA", 0);
        jw_end(j, '}');
        jw_end(j, '}');
    }
    jw_end(j, ']');
    jw_i(j, "gpu_index", a->gpu_index);
    jw_end(j, '}');
}

static const char *AGENT_INFO_HEADER =
    "\"Node_Id\",\"Logical_Node_Id\",\"Agent_Type\",\"Cpu_Cores_Count\",\"Simd_Count\",\"Cpu_Core_Id_Base\","
    "\"Simd_Id_Base\",\"Max_Waves_Per_Simd\",\"Lds_Size_In_Kb\",\"Gds_Size_In_Kb\",\"Num_Gws\",\"Wave_Front_Size\","
    "\"Num_Xcc\",\"Cu_Count\",\"Array_Count\",\"Num_Shader_Banks\",\"Simd_Arrays_Per_Engine\",\"Cu_Per_Simd_Array\","
    "\"Simd_Per_Cu\",\"Max_Slots_Scratch_Cu\",\"Gfx_Target_Version\",\"Vendor_Id\",\"Device_Id\",\"Location_Id\","
    "\"Domain\",\"Drm_Render_Minor\",\"Num_Sdma_Engines\",\"Num_Sdma_Xgmi_Engines\",\"Num_Sdma_Queues_Per_Engine\","
    "\"Num_Cp_Queues\",\"Max_Engine_Clk_Ccompute\",\"Max_Engine_Clk_Fcompute\",\"Sdma_Fw_Version\",\"Fw_Version\","
    "\"Capability\",\"Cu_Per_Engine\",\"Max_Waves_Per_Cu\",\"Family_Id\",\"Workgroup_Max_Size\",\"Grid_Max_Size\","
    "\"Local_Mem_Size\",\"Hive_Id\",\"Gpu_Id\",\"Workgroup_Max_Dim_X\",\"Workgroup_Max_Dim_Y\",\"Workgroup_Max_Dim_Z\","
    "\"Grid_Max_Dim_X\",\"Grid_Max_Dim_Y\",\"Grid_Max_Dim_Z\",\"Name\",\"Vendor_Name\",\"Product_Name\",\"Model_Name\"\n";

static void write_agent_info(sy_out *o, const agent *a)
{
    o_puts(o, AGENT_INFO_HEADER);
    for (unsigned i = 0; i < NAGENTS; i++) {
        const agent *x = &a[i];
        int gpu = x->type == 2;
        o_printf(o, "%u,%u,", x->node, x->node);
        o_cstr(o, gpu ? "GPU" : "CPU");
        o_printf(o, ",%u,%u,%llu,%llu,%u,%u,0,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u,0,%u,%u,%u,%u,%u,%u,%u,%u,%u,%llu,"
                    "%u,%u,%u,%u,%llu,0,%llu,%u,%u,%u,%u,%u,%u,%u,",
                 x->cpu_cores, x->simd_count, (unsigned long long)x->cpu_core_id_base,
                 (unsigned long long)x->simd_id_base, x->max_waves_per_simd, x->lds_kb, x->num_gws,
                 x->wave_front, x->num_xcc, x->cu_count, x->array_count, x->shader_banks,
                 x->arrays_per_engine, x->cu_per_array, x->simd_per_cu, x->scratch_slots, x->gfx_target,
                 x->vendor_id, x->device_id, x->location_id, x->drm_minor, x->sdma, x->sdma_xgmi,
                 x->sdma_queues, x->cp_queues, x->clk_c, x->clk_f, x->sdma_fw, x->fw,
                 (unsigned long long)(gpu ? x->capability : 0), x->cu_per_engine, x->max_waves_per_cu,
                 x->family, x->wg_max, (unsigned long long)x->grid_max, (unsigned long long)x->hive_id,
                 x->gpu_id, x->wg_dim, x->wg_dim, x->wg_dim, x->grid_x, x->grid_yz, x->grid_yz);
        o_cstr(o, x->name);
        o_putc(o, ',');
        o_cstr(o, x->vendor);
        o_putc(o, ',');
        o_cstr(o, x->product);
        o_putc(o, ',');
        o_cstr(o, x->model);
        o_putc(o, '\n');
    }
}

/* ---- kernels and dispatches ---- */

typedef struct kinfo {
    unsigned id;
    const char *name;           /* formatted name (CSV Kernel_Name) */
    const char *symbol;         /* kernel_symbols[].kernel_name */
    unsigned code_object, lds, scratch, vgpr, agpr, sgpr, wg;
    uint64_t grid;
    uint64_t kd_offset, entry_offset;   /* in the code object */
    unsigned kernarg;
} kinfo;

enum { K_FILL = 0, K_COPY, K_SYNTH, K_ELEMENTWISE, K_COUNT };

static void kernels_make(kinfo *k, synth_gfx gfx)
{
    memset(k, 0, K_COUNT * sizeof *k);
    k[K_FILL] = (kinfo){1, "__amd_rocclr_fillBufferAligned", "__amd_rocclr_fillBufferAligned.kd", 1, 0, 0, 8, 0,
                        32, 256, 8192, 0x1000, 0x1100, 80};
    k[K_COPY] = (kinfo){2, "__amd_rocclr_copyBuffer", "__amd_rocclr_copyBuffer.kd", 1, 0, 0, 8, 0,
                        32, 512, 512, 0x1040, 0x2100, 80};
    /* gfx950 before rocm-systems PR #5862 reports half the allocation (docs/occupancy.md#register-counts) */
    k[K_SYNTH] = (kinfo){KERNEL_ID, KERNEL_NAME, KERNEL_NAME ".kd", CODE_OBJECT_ID, 16384, 0,
                         gfx == SYNTH_GFX942 ? 96 : 48, 0, 32, 256, 65536, 0x700, ENTRY_VADDR - 0x700, 32};
    k[K_ELEMENTWISE] = (kinfo){4,
                               "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
                               "std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)",
                               NULL, 0, 0, 0, 16, 0, 32, 256, 262144, 0, 0, 0};
}

typedef struct dispatch {
    uint64_t id, start, end;
    unsigned kernel;            /* K_* */
} dispatch;

/* A run's dispatch sequence: kernels before the traced ones, then the
 * kernel of interest (warm-up, traced, timed); timestamps in ns. */
static size_t dispatches_make(dispatch *d, size_t cap, const unsigned *pattern, size_t npattern, uint64_t t0,
                              uint64_t *rng, const uint64_t *traced, size_t ntraced)
{
    uint64_t t = t0;
    size_t n = 0;
    for (size_t i = 0; i < npattern && n < cap; i++) {
        unsigned k = pattern[i];
        uint64_t dur;
        switch (k) {
        case K_FILL: dur = 1900 + rnd_below(rng, 300); break;
        case K_COPY: dur = 2900 + rnd_below(rng, 500); break;
        case K_ELEMENTWISE: dur = 7000 + rnd_below(rng, 400); break;
        default: dur = 23800 + rnd_below(rng, 1600); break;
        }
        uint64_t id = n + 1;
        for (size_t q = 0; q < ntraced; q++)
            if (traced[q] == id)
                dur = dur * 5 / 4 + rnd_below(rng, 900);      /* thread-trace overhead */
        t += 3000 + rnd_below(rng, 9000);
        d[n].id = id;
        d[n].kernel = k;
        d[n].start = t;
        d[n].end = t + dur;
        t = d[n].end;
        n++;
    }
    return n;
}

static void write_kernel_trace(sy_out *o, const dispatch *d, size_t n, const kinfo *k, unsigned agent_node,
                               uint64_t thread)
{
    o_puts(o, "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\","
              "\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\","
              "\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\","
              "\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n");
    char agent_id[32];
    snprintf(agent_id, sizeof agent_id, "Agent %u", agent_node);
    for (size_t i = 0; i < n; i++) {
        const kinfo *ki = &k[d[i].kernel];
        o_cstr(o, "KERNEL_DISPATCH");
        o_putc(o, ',');
        o_cstr(o, agent_id);
        o_printf(o, ",1,0,%llu,%llu,%u,", (unsigned long long)thread, (unsigned long long)d[i].id, ki->id);
        o_cstr(o, ki->name);
        o_printf(o, ",%llu,%llu,%llu,%u,%u,%u,%u,%u,%u,1,1,%llu,1,1\n", (unsigned long long)d[i].id,
                 (unsigned long long)d[i].start, (unsigned long long)d[i].end, (ki->lds + 511) / 512 * 512,
                 ki->scratch, ki->vgpr, ki->agpr, ki->sgpr, ki->wg, (unsigned long long)ki->grid);
    }
}

/* Percentage as rocprofv3 prints it (docs/formats.md#rocprofv3-csvs): 2 decimals, 4 significant
 * digits below 1. */
static void fmt_pct(char *buf, size_t cap, double v)
{
    if (v >= 1.0)
        snprintf(buf, cap, "%.2f", v);
    else
        snprintf(buf, cap, "%.4g", v);
}

static void fmt_stddev(char *buf, size_t cap, double v)
{
    if (v == 0.0)
        snprintf(buf, cap, "%.8e", v);
    else
        snprintf(buf, cap, "%.6f", v);
}

typedef struct stat_row {
    const char *name;
    uint64_t calls, total, min, max;
    double sumsq_dev;
} stat_row;

static void write_stats_row(sy_out *o, const stat_row *r, uint64_t grand)
{
    double avg = (double)r->total / (double)r->calls;
    double sd = r->calls > 1 ? sqrt(r->sumsq_dev / (double)(r->calls - 1)) : 0.0;
    char pct[32], sds[48];
    fmt_pct(pct, sizeof pct, 100.0 * (double)r->total / (double)grand);
    fmt_stddev(sds, sizeof sds, sd);
    o_cstr(o, r->name);
    o_printf(o, ",%llu,%llu,%.6f,%s,%llu,%llu,%s\n", (unsigned long long)r->calls, (unsigned long long)r->total,
             avg, pct, (unsigned long long)r->min, (unsigned long long)r->max, sds);
}

static const char *STATS_HEADER =
    "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\",\"MinNs\",\"MaxNs\",\"StdDev\"\n";

/* kernel_stats.csv and domain_stats.csv (docs/formats.md#stats-csvs) from a kernel trace. */
static void write_stats(sy_out *ks, sy_out *ds, const dispatch *d, size_t n, const kinfo *k)
{
    stat_row rows[K_COUNT];
    memset(rows, 0, sizeof rows);
    uint64_t grand = 0;
    for (size_t i = 0; i < n; i++) {
        stat_row *r = &rows[d[i].kernel];
        uint64_t dur = d[i].end - d[i].start;
        r->name = k[d[i].kernel].name;
        if (!r->calls || dur < r->min) r->min = dur;
        if (dur > r->max) r->max = dur;
        r->calls++;
        r->total += dur;
        grand += dur;
    }
    for (size_t i = 0; i < n; i++) {
        stat_row *r = &rows[d[i].kernel];
        double dev = (double)(d[i].end - d[i].start) - (double)r->total / (double)r->calls;
        r->sumsq_dev += dev * dev;
    }
    unsigned order[K_COUNT];
    unsigned m = 0;
    for (unsigned i = 0; i < K_COUNT; i++)
        if (rows[i].calls)
            order[m++] = i;
    for (unsigned i = 1; i < m; i++)            /* by total descending, then name */
        for (unsigned j = i; j > 0; j--) {
            const stat_row *a = &rows[order[j - 1]], *b = &rows[order[j]];
            if (a->total > b->total || (a->total == b->total && strcmp(a->name, b->name) <= 0))
                break;
            unsigned tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    o_puts(ks, STATS_HEADER);
    for (unsigned i = 0; i < m; i++)
        write_stats_row(ks, &rows[order[i]], grand);
    if (ds) {
        stat_row all = {"KERNEL_DISPATCH", 0, 0, 0, 0, 0.0};
        for (size_t i = 0; i < n; i++) {
            uint64_t dur = d[i].end - d[i].start;
            if (!all.calls || dur < all.min) all.min = dur;
            if (dur > all.max) all.max = dur;
            all.calls++;
            all.total += dur;
        }
        for (size_t i = 0; i < n; i++) {
            double dev = (double)(d[i].end - d[i].start) - (double)all.total / (double)all.calls;
            all.sumsq_dev += dev * dev;
        }
        o_puts(ds, STATS_HEADER);
        write_stats_row(ds, &all, all.total);
    }
}

/* ---- results.json ---- */

typedef struct run_info {
    uint64_t agent;             /* H: handle of the first GPU */
    uint64_t pid;
    uint64_t traced[2];
    size_t ntraced;
    const dispatch *d;
    size_t nd;
    uint64_t load_base;         /* code object 2 */
    const char *output_path;
    synth_gfx gfx;
} run_info;

static void jw_str_list(jw *j, const char *key, const char *const *v, size_t n)
{
    jw_arr(j, key);
    for (size_t i = 0; i < n; i++)
        jw_s(j, NULL, v[i]);
    jw_end(j, ']');
}

static void jw_kinds(jw *j, const char *key, const char *const *kinds, size_t n)
{
    static const char *const DISPATCH_OPS[3] = {"KERNEL_DISPATCH_NONE", "KERNEL_DISPATCH_ENQUEUE",
                                                "KERNEL_DISPATCH_COMPLETE"};
    jw_arr(j, key);
    for (size_t i = 0; i < n; i++) {
        jw_obj(j, NULL);
        jw_s(j, "kind", kinds[i]);
        if (strcmp(kinds[i], "KERNEL_DISPATCH") == 0)
            jw_str_list(j, "operations", DISPATCH_OPS, 3);
        else
            jw_str_list(j, "operations", NULL, 0);
        jw_end(j, '}');
    }
    jw_end(j, ']');
}

static void write_results(sy_out *o, const run_info *ri, const agent *agents, const kinfo *k)
{
    static const char *const CB_KINDS[] = {
        "NONE", "HSA_CORE_API", "HSA_AMD_EXT_API", "HSA_IMAGE_EXT_API", "HSA_FINALIZE_EXT_API",
        "HIP_RUNTIME_API", "HIP_COMPILER_API", "MARKER_CORE_API", "MARKER_CONTROL_API", "MARKER_NAME_API",
        "CODE_OBJECT", "SCRATCH_MEMORY", "KERNEL_DISPATCH", "MEMORY_COPY", "RCCL_API", "OMPT",
        "MEMORY_ALLOCATION", "RUNTIME_INITIALIZATION", "ROCDECODE_API", "ROCJPEG_API", "HIP_STREAM",
        "MARKER_CORE_RANGE_API"};
    static const char *const BUF_KINDS[] = {
        "NONE", "HSA_CORE_API", "HSA_AMD_EXT_API", "HSA_IMAGE_EXT_API", "HSA_FINALIZE_EXT_API",
        "HIP_RUNTIME_API", "HIP_COMPILER_API", "MARKER_CORE_API", "MARKER_CONTROL_API", "MARKER_NAME_API",
        "MEMORY_COPY", "KERNEL_DISPATCH", "SCRATCH_MEMORY", "CORRELATION_ID_RETIREMENT", "RCCL_API", "OMPT",
        "MEMORY_ALLOCATION", "RUNTIME_INITIALIZATION", "ROCDECODE_API", "ROCJPEG_API", "HIP_STREAM",
        "HIP_RUNTIME_API_EXT", "HIP_COMPILER_API_EXT", "ROCDECODE_API_EXT", "KFD_EVENT_PAGE_MIGRATE",
        "KFD_EVENT_PAGE_FAULT", "KFD_EVENT_QUEUE", "KFD_EVENT_UNMAP_FROM_GPU", "KFD_EVENT_DROPPED_EVENTS",
        "KFD_PAGE_MIGRATE", "KFD_PAGE_FAULT", "KFD_QUEUE", "MARKER_CORE_RANGE_API"};
    static const char *const BUF_RECORDS[] = {
        "hip_api", "hsa_api", "marker_api", "rccl_api", "memory_copy", "memory_allocation",
        "scratch_memory", "rocdecode_api", "rocjpeg_api", "pc_sample_host_trap", "pc_sample_stochastic"};
    const char *gfx = synth_gfx_name(ri->gfx);
    jw j;
    memset(&j, 0, sizeof j);
    j.o = o;
    j.first[0] = 1;
    jw_obj(&j, NULL);
    jw_arr(&j, "rocprofiler-sdk-tool");
    jw_obj(&j, NULL);

    jw_obj(&j, "metadata");
    jw_obj(&j, "node");
    jw_u(&j, "id", 0);
    jw_u(&j, "hash", 0);
    jw_s(&j, "machine_id", "5e7f1c2a9b3d4e6f8a0b1c2d3e4f5a6b");
    jw_s(&j, "system_name", "Linux");
    jw_s(&j, "hostname", "synth-node");
    jw_s(&j, "release", "6.8.0-71-generic");
    jw_s(&j, "version", "#71-Ubuntu SMP PREEMPT_DYNAMIC Tue Jul 22 16:52:38 UTC 2025");
    jw_s(&j, "hardware_name", "x86_64");
    jw_s(&j, "domain_name", "(none)");
    jw_end(&j, '}');
    jw_u(&j, "pid", ri->pid);
    uint64_t first = ri->nd ? ri->d[0].start : 0, last = ri->nd ? ri->d[ri->nd - 1].end : 0;
    jw_u(&j, "init_time", first - 3500000000ull);
    jw_u(&j, "fini_time", last + 180000000ull);
    static const char *const CMD[] = {"python", "synth_kernel_test.py", "--iters", "9"};
    jw_str_list(&j, "command", CMD, 4);
    jw_obj(&j, "config");
    jw_s(&j, "output_path", ri->output_path);
    jw_s(&j, "output_file", "out");
    jw_s(&j, "tmp_directory", "/synth");
    jw_s(&j, "raw_output_path", ri->output_path);
    jw_s(&j, "raw_output_file", "out");
    jw_s(&j, "raw_tmp_directory", "%cwd%");
    jw_u(&j, "perfetto_shmem_size_hint", 64);
    jw_u(&j, "perfetto_buffer_size", 1048576);
    jw_s(&j, "perfetto_buffer_fill_policy", "discard");
    jw_s(&j, "perfetto_backend", "inprocess");
    jw_b(&j, "summary", 0);
    jw_b(&j, "summary_per_domain", 0);
    jw_str_list(&j, "summary_groups", NULL, 0);
    jw_s(&j, "summary_unit", "nsec");
    jw_s(&j, "summary_file", "stderr");
    jw_b(&j, "csv_output", 1);
    jw_b(&j, "json_output", 1);
    jw_b(&j, "pftrace_output", 0);
    jw_b(&j, "otf2_output", 0);
    jw_b(&j, "summary_output", 0);
    jw_b(&j, "rocpd_output", 0);
    jw_b(&j, "kernel_rename", 0);
    jw_b(&j, "group_by_queue", 0);
    jw_end(&j, '}');
    jw_end(&j, '}');

    jw_arr(&j, "agents");
    for (unsigned i = 0; i < NAGENTS; i++)
        jw_agent(&j, &agents[i], agents);
    jw_end(&j, ']');
    jw_arr(&j, "counters");
    jw_end(&j, ']');

    jw_obj(&j, "strings");
    jw_kinds(&j, "callback_records", CB_KINDS, sizeof CB_KINDS / sizeof CB_KINDS[0]);
    jw_kinds(&j, "buffer_records", BUF_KINDS, sizeof BUF_KINDS / sizeof BUF_KINDS[0]);
    jw_arr(&j, "marker_api");
    jw_end(&j, ']');
    jw_obj(&j, "correlation_id");
    jw_arr(&j, "external");
    jw_end(&j, ']');
    jw_end(&j, '}');
    jw_obj(&j, "counters");
    jw_arr(&j, "dimension_ids");
    jw_end(&j, ']');
    jw_end(&j, '}');
    jw_arr(&j, "pc_sample_instructions");
    jw_end(&j, ']');
    jw_arr(&j, "pc_sample_comments");
    jw_end(&j, ']');
    jw_arr(&j, "att_filenames");
    for (size_t q = 0; q < ri->ntraced; q++)
        for (unsigned se = 0; se < 4; se++) {
            char name[96];
            snprintf(name, sizeof name, "out_%llu_shader_engine_%u_%llu.att", (unsigned long long)ri->agent, se,
                     (unsigned long long)ri->traced[q]);
            jw_s(&j, NULL, name);
        }
    jw_end(&j, ']');
    jw_arr(&j, "code_object_snapshot_filenames");
    jw_s(&j, NULL, "");
    for (unsigned c = 1; c <= 2; c++) {
        char name[64];
        snprintf(name, sizeof name, "out_%s_code_object_id_%u.out", gfx, c);
        jw_s(&j, NULL, name);
    }
    jw_end(&j, ']');
    jw_end(&j, '}');

    /* code objects: 0 placeholder, 1 runtime blit kernels, 2 the synthetic kernel */
    uint64_t base[3] = {0, ri->load_base + 0x5c000, ri->load_base};
    uint64_t size[3] = {0, 176360, 24576};
    jw_arr(&j, "code_objects");
    for (unsigned c = 0; c <= 2; c++) {
        jw_obj(&j, NULL);
        jw_u(&j, "size", c ? 88 : 0);
        jw_u(&j, "code_object_id", c);
        jw_handle(&j, "agent_id", c ? ri->agent : 0);
        char uri[128] = "";
        if (c)
            snprintf(uri, sizeof uri, "memory://%llu#offset=0x%llx&size=%llu", (unsigned long long)ri->pid,
                     (unsigned long long)(0x619b7d8c3730ull + 0x40000ull * c), (unsigned long long)size[c]);
        jw_s(&j, "uri", uri);
        jw_u(&j, "load_base", base[c]);
        jw_u(&j, "load_size", c ? size[c] - 1024 : 0);
        jw_u(&j, "load_delta", base[c]);
        jw_u(&j, "storage_type", c ? 2 : 0);
        if (c) {
            jw_u(&j, "memory_base", 107320454166320ull + 0x40000ull * c);
            jw_u(&j, "memory_size", size[c]);
        }
        jw_end(&j, '}');
    }
    jw_end(&j, ']');

    /* kernel symbols: 0 placeholder, then fill, copy, synth (ids 1..3) */
    jw_arr(&j, "kernel_symbols");
    for (unsigned s = 0; s <= 3; s++) {
        const kinfo *ki = s == 0 ? NULL : &k[s == 1 ? K_FILL : s == 2 ? K_COPY : K_SYNTH];
        jw_obj(&j, NULL);
        jw_u(&j, "size", ki ? 88 : 0);
        jw_u(&j, "kernel_id", ki ? ki->id : 0);
        jw_u(&j, "code_object_id", ki ? ki->code_object : 0);
        jw_s(&j, "kernel_name", ki ? ki->symbol : "");
        uint64_t kobj = ki ? base[ki->code_object] + ki->kd_offset : 0;
        jw_u(&j, "kernel_object", kobj);
        jw_u(&j, "kernarg_segment_size", ki ? ki->kernarg : 0);
        jw_u(&j, "kernarg_segment_alignment", ki ? 16 : 0);
        jw_u(&j, "group_segment_size", ki ? ki->lds : 0);
        jw_u(&j, "private_segment_size", 0);
        jw_u(&j, "sgpr_count", ki ? ki->sgpr : 0);
        jw_u(&j, "arch_vgpr_count", ki ? ki->vgpr : 0);
        jw_u(&j, "accum_vgpr_count", ki ? ki->agpr : 0);
        jw_u(&j, "kernel_code_entry_byte_offset", ki ? ki->entry_offset : 0);
        jw_handle(&j, "kernel_address", ki ? kobj + ki->entry_offset : 0);
        jw_s(&j, "formatted_kernel_name", ki ? ki->name : "0");
        jw_s(&j, "demangled_kernel_name", ki ? ki->symbol : "0");
        jw_s(&j, "truncated_kernel_name", ki ? ki->symbol : "0");
        jw_end(&j, '}');
    }
    jw_end(&j, ']');

    jw_arr(&j, "host_functions");
    jw_obj(&j, NULL);
    jw_u(&j, "size", 0);
    jw_u(&j, "host_function_id", 0);
    jw_u(&j, "kernel_id", 0);
    jw_u(&j, "code_object_id", 0);
    jw_handle(&j, "host_function", 0);
    jw_handle(&j, "modules", 0);
    jw_s(&j, "device_function", "");
    jw_u(&j, "thread_limit", 0);
    static const char *const DIMS[4] = {"thread_ids", "block_ids", "block_dims", "grid_dims"};
    for (unsigned q = 0; q < 4; q++) {
        jw_obj(&j, DIMS[q]);
        jw_u(&j, "x", 0);
        jw_u(&j, "y", 0);
        jw_u(&j, "z", 0);
        jw_end(&j, '}');
    }
    jw_u(&j, "workgroup_size", 0);
    jw_s(&j, "formatted_host_function_name", "");
    jw_s(&j, "demangled_host_function_name", "");
    jw_s(&j, "truncated_host_function_name", "");
    jw_end(&j, '}');
    jw_end(&j, ']');
    jw_arr(&j, "summary");
    jw_end(&j, ']');
    jw_obj(&j, "callback_records");
    jw_arr(&j, "counter_collection");
    jw_end(&j, ']');
    jw_end(&j, '}');

    jw_obj(&j, "buffer_records");
    jw_arr(&j, "kernel_dispatch");
    for (size_t i = 0; i < ri->nd; i++) {
        const dispatch *d = &ri->d[i];
        const kinfo *ki = &k[d->kernel];
        jw_obj(&j, NULL);
        jw_u(&j, "size", 104);
        jw_u(&j, "kind", 11);
        jw_u(&j, "operation", 2);
        jw_u(&j, "thread_id", ri->pid);
        jw_obj(&j, "correlation_id");
        jw_u(&j, "internal", d->id);
        jw_u(&j, "external", 0);
        jw_u(&j, "ancestor", 0);
        jw_end(&j, '}');
        jw_u(&j, "start_timestamp", d->start);
        jw_u(&j, "end_timestamp", d->end);
        jw_obj(&j, "dispatch_info");
        jw_u(&j, "size", 88);
        jw_handle(&j, "agent_id", ri->agent);
        jw_handle(&j, "queue_id", 1);
        jw_u(&j, "kernel_id", ki->id);
        jw_u(&j, "dispatch_id", d->id);
        jw_u(&j, "private_segment_size", ki->scratch);
        jw_u(&j, "group_segment_size", ki->lds);
        jw_obj(&j, "workgroup_size");
        jw_u(&j, "x", ki->wg);
        jw_u(&j, "y", 1);
        jw_u(&j, "z", 1);
        jw_end(&j, '}');
        jw_obj(&j, "grid_size");
        jw_u(&j, "x", ki->grid);
        jw_u(&j, "y", 1);
        jw_u(&j, "z", 1);
        jw_end(&j, '}');
        jw_end(&j, '}');
        jw_end(&j, '}');
    }
    jw_end(&j, ']');
    for (size_t q = 0; q < sizeof BUF_RECORDS / sizeof BUF_RECORDS[0]; q++) {
        jw_arr(&j, BUF_RECORDS[q]);
        jw_end(&j, ']');
    }
    jw_end(&j, '}');

    jw_end(&j, '}');
    jw_end(&j, ']');
    jw_end(&j, '}');
}

/* ======================================================================
 * Layouts
 * ====================================================================== */

typedef struct run_const {
    uint64_t agent, dispatch, pid, stream, rc0, t0, load_base;
} run_const;

/* The small run (also the capture and run layouts) and the big run. */
static const run_const RUN_SMALL = {24601, 14, 51234, 1, 201234560004217ull, 2011851578225778ull, 0x7f3a52e00000ull};
static const run_const RUN_BIG = {40963, 38, 61234, 2, 201298760008331ull, 2011862290113454ull, 0x7f3a61400000ull};
#define DISCOVER_T0 2011840011223344ull
#define MAX_DISPATCHES 64u

const char *synth_gfx_name(synth_gfx g) { return g == SYNTH_GFX942 ? "gfx942" : "gfx950"; }

const char *synth_counters_name(synth_counters c)
{
    static const char *const names[] = {"none", "current", "old", "no-kernel-id", "passes"};
    return (unsigned)c < sizeof names / sizeof names[0] ? names[c] : "?";
}

const char *synth_layout_name(synth_layout l)
{
    return l == SYNTH_LAYOUT_EXAMPLE ? "example" : l == SYNTH_LAYOUT_RUN ? "run" : "capture";
}

void synth_opts_default(synth_opts *o)
{
    memset(o, 0, sizeof *o);
    o->layout = SYNTH_LAYOUT_CAPTURE;
    o->gfx = SYNTH_GFX950;
    o->seed = 0;
    o->waves = 8;
    o->iterations = 3;
}

static uint64_t wave_bytes(const capture *c)
{
    sy_out *o = calloc(1, sizeof *o);
    if (!o)
        return 0;
    o->fd = -1;
    for (unsigned i = 0; i < c->nwaves; i++)
        write_wave(c, &c->w[i], o);
    uint64_t total = o->total;
    free(o);
    return total;
}

/* Iterations that make the capture's wave files total about size_mb MiB. */
static int iterations_for_size(const synth_opts *o, const run_const *rc, unsigned waves, unsigned *iterations,
                               kr_err *err)
{
    program p;
    program_build(&p, o->gfx);
    uint64_t b[2];
    for (unsigned k = 0; k < 2; k++) {
        capture_ext x;
        cap_params cp = {"", rc->agent, rc->dispatch, waves, k + 1, rc->stream, rc->rc0};
        int r = cap_init(&x, &p, o, &cp, err);
        if (r) {
            cap_free(&x);
            return r;
        }
        b[k] = wave_bytes(&x.c);
        cap_free(&x);
    }
    uint64_t per_iter = b[1] > b[0] ? b[1] - b[0] : 1;
    uint64_t base = b[0] > per_iter ? b[0] - per_iter : 0;
    uint64_t target = (uint64_t)o->size_mb << 20;
    uint64_t it = target > base ? (target - base) / per_iter : 1;
    if (it < 1)
        it = 1;
    if (it > SYNTH_MAX_ITERATIONS)
        it = SYNTH_MAX_ITERATIONS;
    if (it > 2) {
        /* numbers get wider as times grow: measure the estimate once (no disk
         * I/O, nothing held) and rescale */
        capture_ext x;
        cap_params cp = {"", rc->agent, rc->dispatch, waves, (unsigned)it, rc->stream, rc->rc0};
        int r = cap_init(&x, &p, o, &cp, err);
        if (r) {
            cap_free(&x);
            return r;
        }
        uint64_t got = wave_bytes(&x.c);
        cap_free(&x);
        if (got > base && got != target)
            it = (uint64_t)((double)it * (double)(target - base) / (double)(got - base) + 0.5);
        if (it < 1)
            it = 1;
        if (it > SYNTH_MAX_ITERATIONS)
            it = SYNTH_MAX_ITERATIONS;
    }
    *iterations = (unsigned)it;
    return 0;
}

static void info_fill(synth_capture_info *ci, const char *label, const run_const *rc, unsigned waves,
                      unsigned iterations)
{
    memset(ci, 0, sizeof *ci);
    snprintf(ci->label, sizeof ci->label, "%s", label);
    snprintf(ci->folder, sizeof ci->folder, "ui_output_agent_%llu_dispatch_%llu", (unsigned long long)rc->agent,
             (unsigned long long)rc->dispatch);
    ci->agent = rc->agent;
    ci->dispatch = rc->dispatch;
    ci->waves = waves;
    ci->iterations = iterations;
    ci->records = (uint64_t)waves * (29 + 14 * (uint64_t)iterations);
}

int synth_plan_make(const synth_opts *o, synth_plan *plan, kr_err *err)
{
    memset(plan, 0, sizeof *plan);
    if (o->layout != SYNTH_LAYOUT_CAPTURE && o->layout != SYNTH_LAYOUT_EXAMPLE && o->layout != SYNTH_LAYOUT_RUN)
        return kr_err_set(err, KR_USAGE, NULL, NULL, "unknown layout");
    if (o->gfx != SYNTH_GFX950 && o->gfx != SYNTH_GFX942)
        return kr_err_set(err, KR_USAGE, NULL, NULL, "unknown target");
    if (o->waves < 1 || o->waves > SYNTH_MAX_WAVES)
        return kr_err_set(err, KR_USAGE, NULL, NULL, "--waves must be 1..%u, got %u", SYNTH_MAX_WAVES, o->waves);
    if (o->iterations < 1 || o->iterations > SYNTH_MAX_ITERATIONS)
        return kr_err_set(err, KR_USAGE, NULL, NULL, "--iterations must be 1..%u, got %u", SYNTH_MAX_ITERATIONS,
                          o->iterations);
    if (o->size_mb > SYNTH_MAX_SIZE_MB)
        return kr_err_set(err, KR_USAGE, NULL, NULL, "--size-mb must be at most %u, got %u", SYNTH_MAX_SIZE_MB,
                          o->size_mb);
    if (o->layout == SYNTH_LAYOUT_EXAMPLE) {
        unsigned big_waves = 4 * o->waves < SYNTH_MAX_WAVES ? 4 * o->waves : SYNTH_MAX_WAVES;
        unsigned big_it = 2 * o->iterations < SYNTH_MAX_ITERATIONS ? 2 * o->iterations : SYNTH_MAX_ITERATIONS;
        if (o->size_mb) {
            int r = iterations_for_size(o, &RUN_BIG, big_waves, &big_it, err);
            if (r)
                return r;
        }
        plan->ncaptures = 2;
        info_fill(&plan->cap[0], "small", &RUN_SMALL, o->waves, o->iterations);
        info_fill(&plan->cap[1], "big", &RUN_BIG, big_waves, big_it);
        return 0;
    }
    unsigned it = o->iterations;
    if (o->size_mb) {
        int r = iterations_for_size(o, &RUN_SMALL, o->waves, &it, err);
        if (r)
            return r;
    }
    plan->ncaptures = 1;
    info_fill(&plan->cap[0], "", &RUN_SMALL, o->waves, it);
    return 0;
}

static int build_and_write(const synth_opts *o, const program *p, const synth_capture_info *ci,
                           const run_const *rc, tx *t, const char *parent)
{
    capture_ext x;
    cap_params cp = {ci->label, ci->agent, ci->dispatch, ci->waves, ci->iterations, rc->stream, rc->rc0};
    int r = cap_init(&x, p, o, &cp, t->err);
    if (r) {
        t->failed = 1;
        cap_free(&x);
        return r;
    }
    r = cap_write(&x, t, parent);
    cap_free(&x);
    return r;
}

/* One ATT run's results.json, kernel trace and agent table. */
typedef struct run_files {
    const char *results, *kernel_trace, *agent_info;   /* NULL: not written */
} run_files;

static int write_run_side(const synth_opts *o, const run_const *rc, tx *t, const char *dir, const run_files *names,
                          const char *output_path)
{
    agent agents[NAGENTS];
    kinfo k[K_COUNT];
    agents_make(agents, rc->agent, o->gfx);
    kernels_make(k, o->gfx);
    unsigned pattern[MAX_DISPATCHES];
    size_t np = 0;
    pattern[np++] = K_FILL;
    pattern[np++] = K_FILL;
    pattern[np++] = K_COPY;
    while (np < rc->dispatch + 2 && np < MAX_DISPATCHES)
        pattern[np++] = K_SYNTH;
    uint64_t rng = o->seed * 0x9e3779b97f4a7c15ull + 1000 + rc->stream;
    run_info ri;
    memset(&ri, 0, sizeof ri);
    ri.traced[0] = rc->dispatch;
    ri.traced[1] = rc->dispatch - 2;
    ri.ntraced = 2;
    dispatch d[MAX_DISPATCHES];
    ri.nd = dispatches_make(d, MAX_DISPATCHES, pattern, np, rc->t0, &rng, ri.traced, ri.ntraced);
    ri.d = d;
    ri.agent = rc->agent;
    ri.pid = rc->pid;
    ri.load_base = rc->load_base;
    ri.output_path = output_path;
    ri.gfx = o->gfx;
    sy_out *out;
    if (names->results) {
        if (!(out = tx_open(t, dir, names->results)))
            return KR_OUTPUT;
        write_results(out, &ri, agents, k);
        if (tx_close(t, out))
            return KR_OUTPUT;
    }
    if (names->kernel_trace) {
        if (!(out = tx_open(t, dir, names->kernel_trace)))
            return KR_OUTPUT;
        write_kernel_trace(out, d, ri.nd, k, 2, ri.pid);
        if (tx_close(t, out))
            return KR_OUTPUT;
    }
    if (names->agent_info) {
        if (!(out = tx_open(t, dir, names->agent_info)))
            return KR_OUTPUT;
        write_agent_info(out, agents);
        if (tx_close(t, out))
            return KR_OUTPUT;
    }
    return 0;
}

/* ---- counter collection (docs/formats.md#counter-collection-csv) ---- */

#define COUNTER_T0 2011871122334455ull

typedef struct ctr_value {
    const char *name;
    uint64_t value;
    unsigned pass;              /* 1: SQ/GRBM counters, 2: TCC counters (passes dialect) */
} ctr_value;

/* The counters of one dispatch (see the CONSTRUCTION comment). */
static size_t counter_values(ctr_value *v, unsigned kernel, synth_gfx gfx, synth_counters dialect, uint64_t iters)
{
    size_t n = 0;
    const uint64_t W = 1024, I = iters;
    int cur = dialect != SYNTH_CTR_OLD;
    if (kernel != K_SYNTH) {
        v[n++] = (ctr_value){"SQ_WAVES", 128, 1};
        v[n++] = cur ? (ctr_value){"TCC_EA0_RDREQ", 10, 2} : (ctr_value){"FETCH_SIZE", 10, 2};
        return n;
    }
    v[n++] = (ctr_value){"GRBM_GUI_ACTIVE", 50000, 1};
    v[n++] = (ctr_value){"SQ_WAVES", W, 1};
    v[n++] = (ctr_value){"SQ_INSTS_MFMA", 2 * W * I, 1};
    v[n++] = (ctr_value){"SQ_INSTS_VALU_MFMA_MOPS_BF16", 64 * W * I, 1};
    if (gfx == SYNTH_GFX942)
        v[n++] = (ctr_value){"SQ_INSTS_VALU_MFMA_MOPS_F16", 32 * W * I, 1};
    else
        v[n++] = (ctr_value){"SQ_INSTS_VALU_MFMA_MOPS_F8", 128 * W * I, 1};
    v[n++] = (ctr_value){"SQ_INSTS_VALU_ADD_F32", W * I, 1};
    v[n++] = (ctr_value){"SQ_INSTS_VALU_MUL_F32", W * I, 1};
    v[n++] = (ctr_value){"SQ_LDS_BANK_CONFLICT", 128 * I, 1};
    v[n++] = (ctr_value){"SQ_LDS_IDX_ACTIVE", 1024 * I, 1};
    if (cur) {
        v[n++] = (ctr_value){"TCC_EA0_RDREQ", 4096 + 3072 * I, 2};
        v[n++] = (ctr_value){"TCC_EA0_RDREQ_32B", 1024, 2};
        v[n++] = (ctr_value){"TCC_BUBBLE", 1024 * I, 2};
        v[n++] = (ctr_value){"TCC_EA0_WRREQ", 2048, 2};
        v[n++] = (ctr_value){"TCC_EA0_WRREQ_64B", 1024, 2};
        v[n++] = (ctr_value){"TCC_HIT_sum", 3072, 2};
        v[n++] = (ctr_value){"TCC_MISS_sum", 1024, 2};
    } else {
        v[n++] = (ctr_value){"FETCH_SIZE", 256 * I + 224, 2};
        v[n++] = (ctr_value){"WRITE_SIZE", 96, 2};
        v[n++] = (ctr_value){"TCC_HIT", 3072, 2};
        v[n++] = (ctr_value){"TCC_MISS", 1024, 2};
    }
    return n;
}

/* One counter_collection.csv of the dialect; pass 0 = every counter. */
static void write_counter_csv(sy_out *o, synth_counters dialect, unsigned pass, const dispatch *d, size_t nd,
                              const kinfo *k, synth_gfx gfx, uint64_t iters)
{
    int kid = dialect != SYNTH_CTR_NO_KERNEL_ID, accum = dialect != SYNTH_CTR_OLD, ts = dialect != SYNTH_CTR_OLD;
    o_printf(o, "\"Correlation_Id\",\"Dispatch_Id\",\"Agent_Id\",\"Queue_Id\",\"Process_Id\",\"Thread_Id\","
                "\"Grid_Size\",%s\"Kernel_Name\",\"Workgroup_Size\",\"LDS_Block_Size\",\"Scratch_Size\","
                "\"VGPR_Count\",%s\"SGPR_Count\",\"Counter_Name\",\"Counter_Value\"%s\n",
             kid ? "\"Kernel_Id\"," : "", accum ? "\"Accum_VGPR_Count\"," : "",
             ts ? ",\"Start_Timestamp\",\"End_Timestamp\"" : "");
    for (size_t i = 0; i < nd; i++) {
        const kinfo *ki = &k[d[i].kernel];
        ctr_value v[24];
        size_t nv = counter_values(v, d[i].kernel, gfx, dialect, iters);
        for (size_t j = 0; j < nv; j++) {
            if (pass && v[j].pass != pass)
                continue;
            o_printf(o, "%llu,%llu,", (unsigned long long)d[i].id, (unsigned long long)d[i].id);
            o_cstr(o, "Agent 2");
            o_printf(o, ",1,61717,61717,%llu,", (unsigned long long)ki->grid);
            if (kid)
                o_printf(o, "%u,", ki->id);
            o_cstr(o, ki->name);
            o_printf(o, ",%u,%u,%u,%u,", ki->wg, (ki->lds + 511) / 512 * 512, ki->scratch, ki->vgpr);
            if (accum)
                o_printf(o, "%u,", ki->agpr);
            o_printf(o, "%u,", ki->sgpr);
            o_cstr(o, v[j].name);
            o_printf(o, ",%llu", (unsigned long long)v[j].value);
            if (ts)
                o_printf(o, ",%llu,%llu", (unsigned long long)d[i].start, (unsigned long long)d[i].end);
            o_putc(o, '\n');
        }
    }
}

/* The counter run's CSV(s) into dir: <prefix>counter_collection.csv, or
 * pass_1/ and pass_2/ for the passes dialect. */
static int write_counters(const synth_opts *o, tx *t, const char *dir, const char *prefix)
{
    if (o->counters == SYNTH_CTR_NONE)
        return 0;
    kinfo k[K_COUNT];
    kernels_make(k, o->gfx);
    static const unsigned PATTERN[3] = {K_FILL, K_SYNTH, K_SYNTH};
    uint64_t rng = o->seed * 0x9e3779b97f4a7c15ull + 5000;
    dispatch d[3];
    size_t nd = dispatches_make(d, 3, PATTERN, 3, COUNTER_T0, &rng, NULL, 0);
    char name[128];
    snprintf(name, sizeof name, "%scounter_collection.csv", prefix);
    unsigned npasses = o->counters == SYNTH_CTR_PASSES ? 2 : 1;
    for (unsigned p = 1; p <= npasses; p++) {
        char sub[4096];
        if (npasses > 1) {
            snprintf(sub, sizeof sub, "%s/pass_%u", dir, p);
            if (tx_mkdir(t, sub))
                return KR_OUTPUT;
        } else {
            snprintf(sub, sizeof sub, "%s", dir);
        }
        sy_out *out = tx_open(t, sub, name);
        if (!out)
            return KR_OUTPUT;
        write_counter_csv(out, o->counters, npasses > 1 ? p : 0, d, nd, k, o->gfx, o->iterations);
        if (tx_close(t, out))
            return KR_OUTPUT;
    }
    return 0;
}

/* The separate `--stats --kernel-trace` discovery run of an example (docs/formats.md#run-directories). */
static int write_discovery(const synth_opts *o, tx *t, const char *dir)
{
    agent agents[NAGENTS];
    kinfo k[K_COUNT];
    agents_make(agents, 7 + 2, o->gfx);
    kernels_make(k, o->gfx);
    static const unsigned PATTERN[12] = {K_FILL, K_ELEMENTWISE, K_COPY, K_SYNTH, K_SYNTH, K_SYNTH,
                                         K_SYNTH, K_SYNTH, K_SYNTH, K_SYNTH, K_SYNTH, K_SYNTH};
    uint64_t rng = o->seed * 0x9e3779b97f4a7c15ull + 3000;
    dispatch d[12];
    size_t nd = dispatches_make(d, 12, PATTERN, 12, DISCOVER_T0, &rng, NULL, 0);
    sy_out *a = tx_open(t, dir, "discover_kernel_trace.csv");
    if (!a)
        return KR_OUTPUT;
    write_kernel_trace(a, d, nd, k, 2, 48211);
    if (tx_close(t, a))
        return KR_OUTPUT;
    sy_out *ks = tx_open(t, dir, "discover_kernel_stats.csv");
    sy_out *ds = tx_open(t, dir, "discover_domain_stats.csv");
    if (!ks || !ds) {
        tx_close(t, ks);
        tx_close(t, ds);
        return KR_OUTPUT;
    }
    write_stats(ks, ds, d, nd, k);
    int r1 = tx_close(t, ks), r2 = tx_close(t, ds);
    if (r1 || r2)
        return KR_OUTPUT;
    if (!(a = tx_open(t, dir, "discover_agent_info.csv")))
        return KR_OUTPUT;
    write_agent_info(a, agents);
    return tx_close(t, a);
}

static int write_example_readme(const synth_opts *o, const synth_plan *plan, tx *t, const char *dir)
{
    sy_out *out = tx_open(t, dir, "README.md");
    if (!out)
        return KR_OUTPUT;
    const synth_capture_info *s = &plan->cap[0], *b = &plan->cap[1];
    const char *gfx = synth_gfx_name(o->gfx);
    o_printf(out, "# " KERNEL_NAME " (synthetic, %s)\n\n", gfx);
    o_puts(out, "A synthetic example folder in the hub layout, written by `kreport synth`. Every\n"
                "file has the shape rocprofv3 writes; every number is known by construction\n"
                "(the construction is described at the top of `synth/synth.c` in the kreport\n"
                "sources). Nothing here was measured on a GPU.\n\n");
    o_printf(out, "Regenerate (byte for byte): `kreport synth <dir> --layout example --gfx %s --seed %llu "
                  "--waves %u --iterations %u",
             gfx, (unsigned long long)o->seed, o->waves, o->iterations);
    if (o->size_mb)
        o_printf(out, " --size-mb %u", o->size_mb);
    o_puts(out, "`\n\n## Files\n\n| path | content |\n|---|---|\n");
    o_printf(out, "| `att_viewer/small/%s/` | ATT capture: %u waves, %u loop iterations, %llu records |\n",
             s->folder, s->waves, s->iterations, (unsigned long long)s->records);
    o_printf(out, "| `att_viewer/big/%s/` | ATT capture: %u waves, %u loop iterations, %llu records |\n",
             b->folder, b->waves, b->iterations, (unsigned long long)b->records);
    o_printf(out, "| `compute_viewer/small_results.json` | rocprofv3 results.json of the small run (agent %llu) |\n",
             (unsigned long long)s->agent);
    o_printf(out, "| `compute_viewer/big_results.json` | rocprofv3 results.json of the big run (agent %llu) |\n",
             (unsigned long long)b->agent);
    o_puts(out, "| `compute_viewer/small_agent_info.csv`, `big_agent_info.csv` | agent tables of the two runs |\n"
                "| `compute_viewer/discover_kernel_trace.csv` | kernel trace of a separate discovery run |\n"
                "| `compute_viewer/discover_kernel_stats.csv`, `discover_domain_stats.csv` | its statistics |\n"
                "| `compute_viewer/discover_agent_info.csv` | its agent table |\n\n");
    o_puts(out, "## Dispatch naming\n\n"
                "Capture folders are named `ui_output_agent_<H>_dispatch_<D>`: `<H>` is the\n"
                "rocprofiler agent handle of the GPU (not a process id; it joins the capture to\n"
                "`agents[].id.handle` in the run's results.json) and `<D>` the process-wide\n"
                "dispatch id.\n");
    return tx_close(t, out);
}

static int dir_state(const char *dir, int *exists, int *empty)
{
    struct stat st;
    *exists = *empty = 0;
    if (stat(dir, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode))
        return -2;
    *exists = 1;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    *empty = 1;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            *empty = 0;
            break;
        }
    closedir(d);
    return 0;
}

/* Creates dir and its missing parents, each recorded for cleanup. */
static int tx_mkdir_p(tx *t, const char *dir)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", dir);
    size_t n = strlen(tmp);
    while (n > 1 && tmp[n - 1] == '/')
        tmp[--n] = '\0';
    for (size_t i = 1; i <= n; i++) {
        if (tmp[i] == '/' || tmp[i] == '\0') {
            char c = tmp[i];
            tmp[i] = '\0';
            if (tx_mkdir(t, tmp))
                return KR_OUTPUT;
            tmp[i] = c;
        }
    }
    return 0;
}

int synth_write(const synth_opts *o, const char *dir, kr_err *err)
{
    kr_err_clear(err);
    synth_plan plan;
    int r = synth_plan_make(o, &plan, err);
    if (r)
        return r;
    int exists, empty;
    int ds = dir_state(dir, &exists, &empty);
    if (ds == -2)
        return kr_err_set(err, KR_OUTPUT, dir, NULL, "exists and is not a directory");
    if (ds < 0)
        return kr_err_set(err, KR_OUTPUT, dir, NULL, "cannot read: %s", strerror(errno));
    if (exists && !empty && !o->force)
        return kr_err_set(err, KR_OUTPUT, dir, NULL, "exists and is not empty; use --force to write into it");
    tx t;
    memset(&t, 0, sizeof t);
    t.err = err;
    program p;
    program_build(&p, o->gfx);
    char path[4096];
    if (tx_mkdir_p(&t, dir))
        goto done;
    if (o->layout == SYNTH_LAYOUT_CAPTURE) {
        if (build_and_write(o, &p, &plan.cap[0], &RUN_SMALL, &t, dir) == 0)
            write_counters(o, &t, dir, "");
    } else if (o->layout == SYNTH_LAYOUT_RUN) {
        if (build_and_write(o, &p, &plan.cap[0], &RUN_SMALL, &t, dir))
            goto done;
        if (shell_write(&t, dir, RUN_SMALL.agent, RUN_SMALL.dispatch - 2, RUN_SMALL.rc0 - 40000))
            goto done;
        run_files names = {"out_results.json", "out_kernel_trace.csv", "out_agent_info.csv"};
        if (write_run_side(o, &RUN_SMALL, &t, dir, &names, "/synth/prof/att") == 0)
            write_counters(o, &t, dir, "out_");
    } else {
        if (write_example_readme(o, &plan, &t, dir))
            goto done;
        snprintf(path, sizeof path, "%s/att_viewer", dir);
        if (tx_mkdir(&t, path))
            goto done;
        const run_const *rcs[2] = {&RUN_SMALL, &RUN_BIG};
        for (unsigned i = 0; i < 2; i++) {
            snprintf(path, sizeof path, "%s/att_viewer/%s", dir, plan.cap[i].label);
            if (tx_mkdir(&t, path) || build_and_write(o, &p, &plan.cap[i], rcs[i], &t, path))
                goto done;
        }
        snprintf(path, sizeof path, "%s/compute_viewer", dir);
        if (tx_mkdir(&t, path))
            goto done;
        run_files small = {"small_results.json", NULL, "small_agent_info.csv"};
        run_files big = {"big_results.json", NULL, "big_agent_info.csv"};
        if (write_run_side(o, &RUN_SMALL, &t, path, &small, "/synth/prof/att_small") ||
            write_run_side(o, &RUN_BIG, &t, path, &big, "/synth/prof/att_big"))
            goto done;
        if (write_discovery(o, &t, path) == 0)
            write_counters(o, &t, path, "");
    }
done:
    if (!t.failed)
        tx_commit(&t);
    int failed = t.failed;
    tx_free(&t, !failed);
    if (failed && !err->code)
        kr_err_set(err, KR_OUTPUT, dir, NULL, "writing failed");
    return failed ? err->code : 0;
}
