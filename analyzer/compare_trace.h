/* compare_trace.h — what changed between two thread-trace captures of the
 * same kernel (issue "compare", item 4): wave states, instruction classes,
 * stall buckets, occupancy limiter inputs, source-mapping quality, and the
 * instructions and source lines whose share of the stall cycles moved most.
 *
 * Instruction alignment (kreport's own). Only instruction rows (label rows
 * excluded, docs/formats.md#label-rows) are aligned.
 *   1. Identical ISA text sequences pair by index (method "index").
 *   2. Otherwise (method "sequence"): every row's ISA is normalized — the
 *      mnemonic kept, in the operands every run of digits and every 0x hex
 *      literal becomes `#` (registers and immediates masked), whitespace
 *      collapsed, comments after `;` or `//` dropped. Anchors: rows whose
 *      (normalized ISA, innermost source path:line) occurs exactly once on
 *      each side, kept in a longest increasing chain (patience alignment),
 *      plus the common prefix and suffix of equal (normalized ISA, source
 *      line) rows. Between anchors, a longest common
 *      subsequence of the normalized texts pairs rows; the rows left between
 *      those pairs are paired by a longest common subsequence of mnemonics;
 *      what is still left is one-sided (kept and counted). A gap whose
 *      dynamic-programming table would exceed AN_ALIGN_MAX_CELLS is matched
 *      greedily (equal normalized text within AN_ALIGN_WINDOW rows ahead)
 *      and flagged.
 * Pair kinds: identical (same text), normalized (same normalized text),
 * mnemonic (same mnemonic only), best-only, candidate-only. Quality =
 * paired rows / max(rows of either side).
 *
 * Shares: a row's or line's stall share is its Stall over the capture's
 * Σ Stall (instruction rows), so captures with different wave counts
 * compare; deltas are candidate − best in percentage points. Rankings are
 * by |Δ share| descending, then best row (or path, line), then candidate
 * row. Source lines are keyed by the innermost frame (path, line) with
 * exclusive cost (analyzer/sources.h). */
#ifndef KR_ANALYZER_COMPARE_TRACE_H
#define KR_ANALYZER_COMPARE_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/analysis.h"
#include "bundle/model.h"

#define AN_ALIGN_MAX_CELLS (4u << 20)
#define AN_ALIGN_WINDOW 256
#define AN_ALIGN_NONE UINT32_MAX

/* Normalized ISA (see above) into buf. */
void an_isa_normalize(const char *isa, char *buf, size_t cap);

typedef enum an_pair_kind {
    AN_PAIR_IDENTICAL = 0, AN_PAIR_NORMALIZED, AN_PAIR_MNEMONIC, AN_PAIR_BEST_ONLY, AN_PAIR_CAND_ONLY,
    AN_PAIR_KINDS
} an_pair_kind;

const char *an_pair_kind_id(an_pair_kind k);   /* "identical", "normalized", "mnemonic", "best_only", "candidate_only" */

typedef struct an_align_pair {
    uint32_t best, cand;             /* row indices into the code tables, AN_ALIGN_NONE when one-sided */
    uint8_t kind;
} an_align_pair;

typedef struct an_alignment {
    const char *method;              /* "index" or "sequence" */
    an_align_pair *pairs;            /* in row order */
    size_t npairs;
    size_t best_rows, cand_rows;     /* instruction rows on each side */
    size_t count[AN_PAIR_KINDS];
    size_t paired;                   /* identical + normalized + mnemonic */
    size_t anchors;                  /* patience anchors used */
    double quality;                  /* paired / max(best_rows, cand_rows); 1 when both are empty */
    uint8_t greedy;                  /* some gap was matched greedily */
} an_alignment;

/* 0 or KR_INTERNAL. */
int an_align_isa(const kr_code_row *a, size_t na, const kr_code_row *b, size_t nb, an_alignment *out);
void an_alignment_free(an_alignment *al);

typedef struct an_moved_inst {
    uint32_t best_row, cand_row;     /* AN_ALIGN_NONE when one-sided */
    uint8_t kind;
    uint64_t best_stall, cand_stall, best_latency, cand_latency, best_hit, cand_hit;
    double best_share, cand_share, delta;    /* stall shares and cand − best */
} an_moved_inst;

typedef struct an_moved_line {
    const char *path;
    uint32_t line;
    uint8_t on_best, on_cand;
    uint64_t best_stall, cand_stall;
    double best_share, cand_share, delta;
} an_moved_line;

typedef struct an_pair_u64 { uint64_t best, cand; } an_pair_u64;
typedef struct an_pair_i64 { int64_t best, cand; } an_pair_i64;

typedef struct an_cmp_trace {
    const an_analysis *best, *cand;
    an_pair_u64 waves, records, hit, latency, stall, idle;
    an_pair_u64 states[AN_STATES_N];          /* raw cycles per state (analyzer/states.h) */
    an_pair_u64 states_total;
    an_pair_u64 class_latency[KR_CLASS_COUNT], class_stall[KR_CLASS_COUNT];
    an_pair_u64 kinds[AN_STALL_COUNT];         /* kreport stall buckets */
    an_pair_u64 stall_total;                   /* Σ over the buckets */
    /* Occupancy inputs of the primary kernel (-1 unknown). */
    an_pair_i64 vgpr, arch_vgpr, agpr, sgpr, lds, scratch, wg_size, workgroups, waves_per_simd;
    const char *limiter_best, *limiter_cand;  /* primary limiter name, NULL unknown */
    uint8_t has_achieved_best, has_achieved_cand;
    double achieved_best, achieved_cand;      /* mean waves per SIMD (target CU) */
    /* Mapping quality (analyzer/sources.h). */
    an_pair_u64 mapped, rows, distinct_lines;
    uint8_t has_effective_best, has_effective_cand, has_top1_best, has_top1_cand;
    double effective_best, effective_cand, top1_best, top1_cand;

    an_alignment align;
    an_moved_inst *insts;            /* top entries */
    size_t ninsts;
    size_t insts_changed;            /* aligned entries with a non-zero stall-share change */
    an_moved_line *lines;            /* top entries */
    size_t nlines;
    size_t lines_both, lines_best_only, lines_cand_only;
} an_cmp_trace;

/* top: entries kept per ranking (0 = 10). 0 or KR_INTERNAL. */
int an_cmp_trace_compute(const an_analysis *best, const an_analysis *cand, size_t top, an_cmp_trace *out);
void an_cmp_trace_free(an_cmp_trace *t);

#endif
