/* phases.h — where in the kernel the time goes: loops found from backward
 * branches, the kernel split into prologue, loops and epilogue by PC
 * ranges, and per-wave iteration counts and iteration costs from the
 * dynamic streams (kreport's own analysis).
 *
 * Loops. A BRANCH row (docs/instruction-classes.md) whose target lies at or before it is a back
 * edge. The target comes from the ISA text (`s_branch` / `s_cbranch_*`
 * simm16 operand: target vaddr = vaddr + 4 + 4 × sign-extended simm16, the
 * SOPP encoding) when it names an instruction row of the same kernel;
 * otherwise (label operands, s_setpc_b64 …) from the streams: the row of
 * the record after a taken (category JUMP) execution. Back edges to the same
 * head form one loop, range [head, last back edge] in row order (rows of a
 * kernel are in address order, docs/formats.md#label-rows). Loops whose ranges partly overlap are
 * merged; a loop inside another is nested (depth = number of enclosing
 * loops).
 *
 * Phases, per kernel (rows between label rows), in row order: prologue
 * (rows before the first top-level loop), each top-level loop, the rows
 * between two top-level loops ("between"), epilogue (rows after the last
 * loop); a kernel without loops is one "straight" phase. Nested loops are
 * listed after their parent as phases of depth >= 1; their figures are part
 * of the parent's. Per phase: instruction rows, Σ Hit / Latency / Stall /
 * Idle of code.json, shares of the capture's Σ (Latency + Idle) and Σ
 * Stall, and the top rows by Stall (then vaddr, then row).
 *
 * Iterations, per wave and loop, over the records with a known row: the wave
 * enters the loop when a record is in the range and the previous one was
 * not (or is the first). An iteration starts at an entry whose record is
 * the loop's head, and after each taken (category JUMP) execution of one of
 * the loop's back edges; a pass entered below the head (a rotated loop
 * entered at its exit test) runs as an entry stub until the first back edge
 * and is no iteration. iterations = entries at the head + taken back edges.
 * The cost of an iteration is prev_done after its last record
 * minus prev_done before its first (prev_done as in docs/formats.md#per-row-sums: latest completion
 * so far, from wave.begin), so consecutive iterations tile the wave's time.
 * First iteration = the first of each entry; steady state = the others.
 * The stub and the wave's time outside a loop belong to no iteration.
 * The main loop: start at the top-level loop with the largest Σ (Latency +
 * Idle) > 0 (ties: lower row; none when no loop ran) and, while one of its directly nested loops holds
 * at least half of that time, descend into the largest such loop (so a
 * persistent outer loop around the hot inner loop names the inner one). */
#ifndef KR_ANALYZER_PHASES_H
#define KR_ANALYZER_PHASES_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/dist.h"
#include "bundle/model.h"

#define AN_PHASE_TOP 3
#define AN_PHASE_NONE UINT32_MAX

typedef enum an_phase_kind {
    AN_PHASE_STRAIGHT = 0,           /* a kernel without loops */
    AN_PHASE_PROLOGUE,
    AN_PHASE_LOOP,
    AN_PHASE_BETWEEN,
    AN_PHASE_EPILOGUE
} an_phase_kind;
const char *an_phase_kind_id(an_phase_kind k);   /* "straight", "prologue", "loop", "between", "epilogue" */

typedef struct an_loop {
    uint32_t head, tail;             /* first and last row index of the range */
    uint32_t parent;                 /* enclosing loop, AN_PHASE_NONE at top level */
    uint32_t depth;
    uint32_t kernel;                 /* label row, AN_PHASE_NONE when unknown */
    uint32_t *backedges;             /* branch rows jumping to head (row order) */
    size_t nbackedges;
    uint8_t from_stream;             /* some back edge was found only in the streams */
    /* dynamic */
    uint64_t waves_entered;
    uint64_t entries, iterations;    /* over all waves */
    uint64_t *wave_entries;          /* per wave (capture order) */
    uint64_t *wave_iterations;
    an_dist per_wave;                /* iterations per wave, over all waves */
    an_dist first_cost;              /* cycles of first iterations */
    an_dist steady_cost;             /* cycles of the other iterations */
    uint64_t latency, idle, stall;   /* code.json Σ over the range */
} an_loop;

typedef struct an_phase {
    an_phase_kind kind;
    uint32_t loop;                   /* index into loops for AN_PHASE_LOOP */
    uint32_t depth;                  /* 0 for top level */
    uint32_t first, last;            /* row range, inclusive */
    uint32_t kernel;                 /* label row, AN_PHASE_NONE when unknown */
    uint64_t rows;                   /* instruction rows */
    uint64_t hit, latency, stall, idle;
    uint32_t top[AN_PHASE_TOP];      /* rows by Stall, rows with Stall > 0 only */
    size_t ntop;
} an_phase;

typedef struct an_phases {
    const kr_code_row *rows;         /* the capture's code table */
    size_t nrows;
    const kr_wave *waves;            /* the capture's waves (wave_entries order) */
    size_t nwaves;
    size_t nkernels;                 /* kernels (label rows) with instruction rows */
    an_loop *loops;                  /* sorted by head, then outer first */
    size_t nloops;
    an_phase *phases;                /* row order; nested loops after their parent */
    size_t nphases;
    uint64_t total_time;             /* Σ (Latency + Idle) over instruction rows */
    uint64_t total_stall;
    uint32_t main_loop;              /* index into loops, AN_PHASE_NONE when there is none */
} an_phases;

/* The target row of a branch from its text (simm16 operand), or -1. */
int64_t an_branch_target(const kr_capture *c, uint32_t row);

int an_phases_compute(const kr_capture *c, an_phases *out);
void an_phases_free(an_phases *r);

/* The same in steps, for waves that are streamed (analysis.h). Possible
 * only when the loops follow from the code rows alone: with a branch whose
 * target the text does not give, back edges come from the streams, which
 * must then be read before the iterations (an_phases_needs_streams is 1).
 * an_phases_begin finds the loops and phases; an accumulator per thread
 * takes waves (w indexes c->waves; each wave once; it writes that wave's
 * slots of out->loops[*].wave_entries / wave_iterations); accumulators are
 * merged (in any order), then an_phases_finish adds the iteration figures
 * and the main loop. */
typedef struct an_phases_acc an_phases_acc;
int an_phases_needs_streams(const kr_capture *c);
int an_phases_begin(const kr_capture *c, an_phases *out);
an_phases_acc *an_phases_acc_new(const kr_capture *c, const an_phases *p);   /* NULL: out of memory */
int an_phases_acc_wave(an_phases_acc *a, const kr_capture *c, an_phases *p, size_t w);
int an_phases_acc_merge(an_phases_acc *into, const an_phases_acc *from);
int an_phases_finish(const kr_capture *c, const an_phases_acc *a, an_phases *out);
void an_phases_acc_free(an_phases_acc *a);

#endif
