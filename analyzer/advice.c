/* advice.c — see advice.h. */
#include "analyzer/advice.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "analyzer/findings.h"
#include "common/err.h"

typedef struct {
    const char *id;
    an_stall_kind kinds[4];
    size_t nkinds;
    const char *what;        /* title stem */
    const char *action;
} stall_rule;

static const stall_rule stall_rules[] = {
    {"vmem_wait", {AN_STALL_WAIT_VMCNT, AN_STALL_WAIT_VM_LGKM}, 2,
     "waits for vector memory (s_waitcnt vmcnt)",
     "Issue the loads these waits consume earlier (deeper prefetch / software pipelining), "
     "or place independent work between each load and its first use."},
    {"lgkm_wait", {AN_STALL_WAIT_LGKMCNT}, 1,
     "waits for LDS, scalar memory or messages (s_waitcnt lgkmcnt)",
     "Issue the LDS reads or scalar (kernarg) loads earlier and batch them before one wait; "
     "double-buffer LDS so reads of the next tile overlap compute on this one."},
    {"barrier", {AN_STALL_BARRIER}, 1,
     "waits at workgroup barriers (s_barrier)",
     "Balance the work between the waves of a workgroup, or remove barriers from the hot loop "
     "(split producer and consumer waves, or use double-buffered LDS with one barrier per tile)."},
    {"nop", {AN_STALL_NOP}, 1,
     "spent in s_nop dependency padding",
     "Interleave independent instructions after the MFMA / VALU producers so the compiler "
     "needs fewer wait states."},
    {"alu_dep", {AN_STALL_MATRIX_DEP, AN_STALL_VALU_DEP}, 2,
     "stalls of ALU / MFMA instructions on earlier results",
     "Reorder the dependent chain: consume the earliest-written results first and interleave "
     "independent work so each result is ready when it is read."},
    {"mem_issue", {AN_STALL_VMEM_ISSUE, AN_STALL_FLAT_ISSUE, AN_STALL_LDS_ISSUE, AN_STALL_SMEM_ISSUE}, 4,
     "stalls issuing memory instructions (queue back-pressure)",
     "Spread memory instructions between ALU work instead of issuing them in bursts, "
     "or use wider accesses (fewer instructions for the same bytes)."},
};

static void item_free(an_advice_item *it)
{
    free(it->title);
    free(it->action);
    free(it->evidence);
    free(it->summary);
}

static int push(an_advice *a, size_t *cap, an_advice_item *it)
{
    if (it->evidence && !it->summary)
        it->summary = strdup(it->evidence);
    if (!it->title || !it->action || !it->evidence || !it->summary) {
        item_free(it);
        return KR_INTERNAL;
    }
    if (a->n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 8;
        an_advice_item *items = realloc(a->items, ncap * sizeof *items);
        if (!items) {
            item_free(it);
            return KR_INTERNAL;
        }
        a->items = items;
        *cap = ncap;
    }
    a->items[a->n++] = *it;
    return 0;
}

static void describe_row(kr_buf *b, const kr_capture *c, uint32_t row, uint64_t total_stall)
{
    const kr_code_row *r = &c->rows[row];
    kr_buf_printf(b, "vaddr %" PRIu64 " \"%s\": %" PRIu64 " stall cycles", r->vaddr, r->isa, r->stall);
    if (total_stall)
        kr_buf_printf(b, " (%.1f %%)", 100.0 * (double)r->stall / (double)total_stall);
    if (r->hit)
        kr_buf_printf(b, " over %" PRIu64 " executions", r->hit);
    if (r->nframes && r->frames[0].line) {
        const char *p = r->frames[0].path;
        const char *base = strrchr(p, '/');
        kr_buf_printf(b, ", %s:%u", base ? base + 1 : p, r->frames[0].line);
    }
}



/* Executed rows of a class (and, for LDS, not a cross-lane step). */
static int ran(const kr_capture *c, kr_class cls, int lds_data)
{
    for (size_t i = 0; i < c->nrows; i++) {
        const kr_code_row *r = &c->rows[i];
        if (r->cls != cls || !r->hit)
            continue;
        if (lds_data && an_wclass_of_row(c, (uint32_t)i) != AN_WC_LDS)
            continue;
        return 1;
    }
    return 0;
}

/* The rule's action where its premise holds in this kernel: no LDS advice
 * without LDS data instructions, no MFMA wording without MFMA. */
static const char *premise_action(const kr_capture *c, const stall_rule *rule)
{
    if (strcmp(rule->id, "lgkm_wait") == 0) {
        int lds = ran(c, KR_CLASS_LDS, 1), smem = ran(c, KR_CLASS_SMEM, 0);
        if (!lds)
            return smem ? "Batch the scalar (kernel-argument) loads before one wait and put work that needs none "
                          "of them between the loads and the wait; cross-lane steps (ds_bpermute, ds_swizzle) "
                          "are cheaper when fewer and wider. The Findings section splits these waits by producer."
                        : "Fewer, wider cross-lane steps, batched before one wait. The Findings section splits "
                          "these waits by producer.";
        if (!smem)
            return "Issue the LDS reads earlier and batch them before one wait; double-buffer LDS so reads of the "
                   "next tile overlap compute on this one.";
    }
    if (strcmp(rule->id, "barrier") == 0 && !ran(c, KR_CLASS_LDS, 1))
        return "Balance the work between the waves of a workgroup, or remove barriers from the hot loop "
               "(split producer and consumer waves).";
    if (strcmp(rule->id, "nop") == 0 && !ran(c, KR_CLASS_MATRIX, 0))
        return "Interleave independent instructions between the VALU producers and their readers (such as "
               "v_cmp and v_cndmask) so the compiler needs fewer wait states.";
    return rule->action;
}

static int stall_rule_item(const kr_capture *c, const an_stalls *st, const stall_rule *rule,
                           an_advice_item *it)
{
    memset(it, 0, sizeof *it);
    it->id = rule->id;
    it->share = -1;
    uint64_t cycles = 0;
    uint32_t cand[4 * AN_STALL_TOP];
    size_t ncand = 0;
    for (size_t k = 0; k < rule->nkinds; k++) {
        const an_stall_bucket *b = &st->kinds[rule->kinds[k]];
        cycles += b->stall;
        for (size_t t = 0; t < b->ntop && ncand < sizeof cand / sizeof cand[0]; t++)
            cand[ncand++] = b->top[t];
    }
    if (!st->total_stall || cycles == 0)
        return 1;
    double share = (double)cycles / (double)st->total_stall;
    if (share < AN_ADVICE_MIN_SHARE)
        return 1;
    /* Top rows across the group: stall descending, then vaddr, then row. */
    for (size_t i = 1; i < ncand; i++) {
        uint32_t x = cand[i];
        size_t j = i;
        while (j > 0) {
            const kr_code_row *a = &c->rows[cand[j - 1]], *b = &c->rows[x];
            int before = a->stall > b->stall ||
                         (a->stall == b->stall && (a->vaddr < b->vaddr ||
                                                   (a->vaddr == b->vaddr && cand[j - 1] < x)));
            if (before)
                break;
            cand[j] = cand[j - 1];
            j--;
        }
        cand[j] = x;
    }
    it->cycles = cycles;
    it->share = share;
    /* no MFMA wording without MFMA */
    const char *what = strcmp(rule->id, "alu_dep") == 0 && !ran(c, KR_CLASS_MATRIX, 0)
                           ? "stalls of ALU instructions on earlier results" : rule->what;
    it->title = kr_strdupf("%.1f %% of stall cycles are %s", 100.0 * share, what);
    it->action = kr_strdupf("%s", premise_action(c, rule));
    kr_buf b;
    kr_buf_init(&b);
    kr_buf_printf(&b, "%" PRIu64 " of %" PRIu64 " stall cycles", cycles, st->total_stall);
    it->summary = strdup(kr_buf_cstr(&b));
    for (size_t i = 0; i < ncand && it->nrows < AN_ADVICE_ROWS; i++) {
        it->rows[it->nrows++] = cand[i];
        kr_buf_puts(&b, it->nrows == 1 ? "; top: " : "; ");
        describe_row(&b, c, cand[i], st->total_stall);
    }
    it->evidence = b.oom ? NULL : strdup(kr_buf_cstr(&b));
    kr_buf_free(&b);
    return 0;
}

int an_advice_compute(const kr_capture *c, const an_totals *totals, const an_states *states,
                      const an_stalls *stalls, const an_sources *sources,
                      const an_occupancy *occ, an_advice *out)
{
    (void)totals;
    (void)states;
    memset(out, 0, sizeof *out);
    size_t cap = 0;
    const size_t nrules = sizeof stall_rules / sizeof stall_rules[0];
    an_advice_item found[sizeof stall_rules / sizeof stall_rules[0]];
    size_t nfound = 0;
    for (size_t r = 0; r < nrules; r++) {
        an_advice_item it;
        if (stall_rule_item(c, stalls, &stall_rules[r], &it) == 0)
            found[nfound++] = it;
    }
    /* Rank by cycles descending; rule order breaks ties (stable insertion). */
    for (size_t i = 1; i < nfound; i++) {
        an_advice_item x = found[i];
        size_t j = i;
        while (j > 0 && found[j - 1].cycles < x.cycles) {
            found[j] = found[j - 1];
            j--;
        }
        found[j] = x;
    }
    int rc = 0;
    for (size_t i = 0; i < nfound; i++) {
        if (rc) {
            item_free(&found[i]);
            continue;
        }
        rc = push(out, &cap, &found[i]);
    }
    if (rc) {
        an_advice_free(out);
        return rc;
    }

    const an_occ_kernel *k = (occ && occ->nkernels) ? &occ->kernels[occ->primary] : NULL;
    if (k && occ->modelled && k->grid_limited && k->grid_waves_per_simd >= 0) {
        an_advice_item it = {0};
        it.id = "grid";
        it.share = -1;
        it.title = kr_strdupf("The grid cannot fill the GPU: at most %" PRId64 " waves/SIMD resident, "
                        "below the resource limit of %u", k->grid_waves_per_simd, k->waves_per_simd);
        it.action = kr_strdupf("Give each CU more workgroups (a larger problem, smaller workgroups or a "
                         "persistent-grid schedule) before tuning registers; a capture of an "
                         "underfilled grid also over-weights the prologue and tail.");
        it.evidence = kr_strdupf("%" PRId64 " workgroups over %" PRId64 " CUs = %" PRId64
                           " per CU (limit %" PRId64 ")", k->workgroups, k->cu_count,
                           k->wg_per_cu_grid, k->wg_per_cu_limit);
        if ((rc = push(out, &cap, &it)))
            goto fail;
    }
    /* No register or LDS advice when the grid binds (more room per CU would
     * stay empty). */
    int grid_binds = k && occ->modelled && k->grid_limited;
    if (grid_binds) {
        /* nothing: the grid rule above says what binds */
    } else if (k && occ->modelled && k->next_waves && k->next_vgpr_max >= 0 && k->limiter[AN_LIM_VGPR] &&
               !k->limiter[AN_LIM_LDS]) {
        an_advice_item it = {0};
        it.id = "occupancy";
        it.share = -1;
        it.title = kr_strdupf("Occupancy is VGPR-limited at %u waves/SIMD; %u waves/SIMD needs "
                        "<= %" PRId64 " VGPRs (have %u)", k->waves_per_simd, k->next_waves,
                        k->next_vgpr_max, k->v_total);
        it.action = kr_strdupf("Cut %" PRId64 " VGPRs (shorter live ranges, fewer prefetch registers, "
                         "recompute instead of keep) if the stalls above are latency that more "
                         "resident waves would hide.", (int64_t)k->v_total - k->next_vgpr_max);
        it.evidence = kr_strdupf("VGPR total %u (source %s), W_vgpr %d, limiter VGPR", k->v_total,
                           an_occ_source_id(k->source), k->w[AN_LIM_VGPR]);
        if ((rc = push(out, &cap, &it)))
            goto fail;
    } else if (k && occ->modelled && k->next_waves && k->waves_per_simd < 8) {
        an_advice_item it = {0};
        it.id = "occupancy";
        it.share = -1;
        it.title = kr_strdupf("Occupancy is limited by %s at %u waves/SIMD",
                        an_occ_lim_name(k->primary), k->waves_per_simd);
        it.action = kr_strdupf("Reduce the %s use per workgroup to allow %u waves/SIMD.",
                         an_occ_lim_name(k->primary), k->next_waves);
        it.evidence = kr_strdupf("W_vgpr %d, W_sgpr %d, W_lds %d, W_wg %d", k->w[AN_LIM_VGPR],
                           k->w[AN_LIM_SGPR], k->w[AN_LIM_LDS], k->w[AN_LIM_WG]);
        if ((rc = push(out, &cap, &it)))
            goto fail;
    }
    if (k && k->under_report) {
        an_advice_item it = {0};
        it.id = "vgpr_report";
        it.share = -1;
        it.title = kr_strdupf("rocprofv3 under-reported this kernel's VGPRs: %" PRId64
                        " reported, the ISA uses %u", k->reported_arch_vgpr, k->isa_v);
        it.action = kr_strdupf("Use the corrected total (%u) for occupancy decisions; rocprofv3 builds "
                         "without the gfx950 fix report half the allocation and no AGPRs.", k->v_total);
        it.evidence = kr_strdupf("reported arch_vgpr %" PRId64 ", accum_vgpr %" PRId64
                           ", ISA high-water mark v%u", k->reported_arch_vgpr,
                           k->reported_accum_vgpr, k->isa_v ? k->isa_v - 1 : 0);
        if ((rc = push(out, &cap, &it)))
            goto fail;
    }
    if (sources && sources->instruction_rows && sources->mapped_rows == 0) {
        an_advice_item it = {0};
        it.id = "mapping";
        it.share = -1;
        it.title = kr_strdupf("No instruction maps to source (0/%" PRIu64 " rows)", sources->instruction_rows);
        it.action = kr_strdupf("Rebuild the kernel with line tables (debug line info) and re-capture, "
                         "so hot PCs map to source lines; until then, use the PC ranges.");
        it.evidence = kr_strdupf("the Source column of code.json is empty on every instruction row");
        if ((rc = push(out, &cap, &it)))
            goto fail;
    }
    return 0;
fail:
    an_advice_free(out);
    return rc;
}

/* ---- wait, loop and latency rules ---- */

static const char *isa_of(const kr_capture *c, uint32_t row)
{
    return row < c->nrows && c->rows[row].isa ? c->rows[row].isa : "";
}

static int wait_items(const kr_capture *c, const an_waits *w, an_advice *a, size_t *cap)
{
    uint64_t total = w->total_stall;
    size_t made = 0;
    for (size_t i = 0; i < w->nwaits && made < AN_ADVICE_WAITS; i++) {
        const an_wait *x = &w->waits[i];
        if (!total || x->nproducers == 0 || (double)x->attributed < AN_ADVICE_MIN_SHARE * (double)total)
            continue;
        const an_wait_producer *p = &x->producers[0];
        if (p->stall == 0)
            continue;
        an_advice_item it = {0};
        it.id = "wait_producer";
        it.cycles = x->attributed;
        it.share = (double)x->attributed / (double)total;
        it.rows[it.nrows++] = x->row;
        it.rows[it.nrows++] = p->row;
        it.title = kr_strdupf("%.1f %% of stall cycles wait at %s (vaddr %" PRIu64 ") for %s (vaddr %" PRIu64 ")",
                        100.0 * it.share, isa_of(c, x->row), x->vaddr, isa_of(c, p->row), p->vaddr);
        if (an_wclass_of_row(c, p->row) == AN_WC_KERNARG)
            it.action = kr_strdupf("The producer at vaddr %" PRIu64 " loads a kernel argument at the kernel's entry and "
                             "cannot issue earlier: batch the argument loads into few wide s_load and put setup that "
                             "needs none of them before the wait at vaddr %" PRIu64 " (~%" PRIu64 " cycles exposed, "
                             "p50).", p->vaddr, x->vaddr, x->earlier_cycles);
        else if (x->has_extra)
            it.action = kr_strdupf("Issue the producer at vaddr %" PRIu64 " ~%" PRIu64 " cycles earlier (the exposed "
                             "latency, p50), or place ~%" PRIu64 " independent instructions between it and the "
                             "wait at vaddr %" PRIu64 "; today it issues %" PRIu64 " instructions / %" PRIu64
                             " cycles before the wait (p50).", p->vaddr, x->earlier_cycles, x->extra_insts,
                             x->vaddr, x->dist_insts.p50, x->dist_cycles.p50);
        else
            it.action = kr_strdupf("Issue the producer at vaddr %" PRIu64 " ~%" PRIu64 " cycles earlier (the exposed "
                             "latency, p50); today it issues right before the wait at vaddr %" PRIu64 ".",
                             p->vaddr, x->earlier_cycles, x->vaddr);
        it.evidence = kr_strdupf("wait: %" PRIu64 " stall cycles over %" PRIu64 " executions, %" PRIu64
                           " attributed over %" PRIu64 " linked executions; this producer was waited on in %"
                           PRIu64 " of %" PRIu64 " executions and was the critical one in %" PRIu64
                           " (%" PRIu64 " stall cycles); exposed latency p10/p50/p90 %" PRIu64 "/%" PRIu64
                           "/%" PRIu64 " cycles", x->stall, x->executions, x->attributed, x->linked,
                           p->waited, x->executions, p->critical, p->stall, x->exposed.p10, x->exposed.p50,
                           x->exposed.p90);
        int rc = push(a, cap, &it);
        if (rc)
            return rc;
        made++;
    }
    return 0;
}

static uint64_t phase_time(const an_phase *p) { return p->latency + p->idle; }

static int loop_items(const kr_capture *c, const an_phases *ph, an_advice *a, size_t *cap)
{
    if (ph->main_loop == AN_PHASE_NONE)
        return 0;
    const an_loop *m = &ph->loops[ph->main_loop];
    uint64_t va = c->rows[m->head].vaddr, vb = c->rows[m->tail].vaddr;
    if (m->first_cost.n && m->steady_cost.n &&
        (double)m->first_cost.p50 >= AN_ADVICE_FIRST_RATIO * (double)m->steady_cost.p50) {
        an_advice_item it = {0};
        it.id = "first_iteration";
        it.share = -1;
        it.rows[it.nrows++] = m->head;
        it.title = kr_strdupf("The first iteration of the main loop (vaddr %" PRIu64 "-%" PRIu64 ") costs %" PRIu64
                        " cycles, a steady-state one %" PRIu64 " (p50)", va, vb, m->first_cost.p50,
                        m->steady_cost.p50);
        it.action = kr_strdupf("Start the first iteration's loads in the prologue (software pipelining: load tile "
                         "i+1 while computing tile i), so the loop is entered with its data in flight.");
        it.evidence = kr_strdupf("%" PRIu64 " first and %" PRIu64 " steady-state iterations over %" PRIu64
                           " waves; iterations per wave min/p50/max %" PRIu64 "/%" PRIu64 "/%" PRIu64,
                           m->first_cost.n, m->steady_cost.n, m->waves_entered, m->per_wave.min,
                           m->per_wave.p50, m->per_wave.max);
        int rc = push(a, cap, &it);
        if (rc)
            return rc;
    }
    uint64_t pro = 0, epi = 0;
    for (size_t i = 0; i < ph->nphases; i++) {
        if (ph->phases[i].kind == AN_PHASE_PROLOGUE)
            pro += phase_time(&ph->phases[i]);
        else if (ph->phases[i].kind == AN_PHASE_EPILOGUE)
            epi += phase_time(&ph->phases[i]);
    }
    if (ph->total_time && (double)(pro + epi) >= AN_ADVICE_EDGE_SHARE * (double)ph->total_time) {
        an_advice_item it = {0};
        it.id = "prologue";
        it.share = -1;
        it.title = kr_strdupf("Prologue and epilogue take %.1f %% of the cycles",
                        100.0 * (double)(pro + epi) / (double)ph->total_time);
        it.action = kr_strdupf("Amortise the fixed cost over more loop iterations per wave (more work per "
                         "workgroup, a persistent grid), and overlap the prologue's loads with its setup.");
        it.evidence = kr_strdupf("prologue %" PRIu64 ", epilogue %" PRIu64 ", main loop %" PRIu64 " of %" PRIu64
                           " cycles (Latency + Idle); main loop iterations per wave p50 %" PRIu64,
                           pro, epi, m->latency + m->idle, ph->total_time, m->per_wave.p50);
        int rc = push(a, cap, &it);
        if (rc)
            return rc;
    }
    return 0;
}

static int exposed_item(const kr_capture *c, const an_hidden *h, int grid_limited, an_advice *a, size_t *cap)
{
    if (!h->computed || !h->all.total ||
        (double)h->all.non_hidden < AN_ADVICE_EXPOSED_SHARE * (double)h->all.total)
        return 0;
    an_advice_item it = {0};
    it.id = "exposed";
    it.share = -1;
    it.title = kr_strdupf("%.1f %% of the cycles are not hidden by other work on the same SIMD",
                    100.0 * (double)h->all.non_hidden / (double)h->all.total);
    it.action = kr_strdupf("Exposed latency is what no other wave or pipe covers: %s, would hide it; start with the "
                     "rows below.", grid_limited ? "more workgroups (the grid caps the waves per SIMD) or more "
                                                   "independent instructions between a long-latency instruction "
                                                   "and its first use"
                                                 : "more resident waves per SIMD, or more independent instructions "
                                                   "between a long-latency instruction and its first use");
    kr_buf b;
    kr_buf_init(&b);
    kr_buf_printf(&b, "%" PRIu64 " of %" PRIu64 " cycles non-hidden", h->all.non_hidden, h->all.total);
    it.summary = kr_strdupf("%s", kr_buf_cstr(&b));
    for (size_t i = 0; i < h->nranked && it.nrows < AN_ADVICE_ROWS; i++) {
        const an_hidden_row *r = &h->ranked[i];
        it.rows[it.nrows++] = r->row;
        kr_buf_printf(&b, "%svaddr %" PRIu64 " `%s`: %" PRIu64 " of %" PRIu64, it.nrows == 1 ? "; top: " : "; ",
                      r->vaddr, isa_of(c, r->row), r->non_hidden, r->total);
    }
    it.evidence = b.oom ? NULL : strdup(kr_buf_cstr(&b));
    kr_buf_free(&b);
    return push(a, cap, &it);
}

int an_advice_add_flow(const kr_capture *c, const an_waits *waits, const an_phases *phases,
                       const an_hidden *hidden, an_advice *a)
{
    size_t cap = a->n;
    int rc = 0;
    if (waits)
        rc = wait_items(c, waits, a, &cap);
    if (!rc && phases)
        rc = loop_items(c, phases, a, &cap);
    int grid_limited = 0;           /* the structural "grid" rule fired */
    for (size_t i = 0; i < a->n; i++)
        grid_limited |= strcmp(a->items[i].id, "grid") == 0;
    if (!rc && hidden)
        rc = exposed_item(c, hidden, grid_limited, a, &cap);
    if (rc)
        an_advice_free(a);
    return rc;
}

void an_advice_free(an_advice *a)
{
    for (size_t i = 0; i < a->n; i++)
        item_free(&a->items[i]);
    free(a->items);
    memset(a, 0, sizeof *a);
}

int an_advice_add_roofline(const an_roofline *r, an_advice *a)
{
    if (!r || !r->has_target)
        return 0;
    int memory = r->target_ceiling == AN_BOUND_MEMORY;
    double pct = 100.0 * (memory ? r->pct_bytes : r->pct_flops);
    const char *peak = memory ? "peak HBM bandwidth" : an_ceiling_id(r->unit, r->dtype);
    const char *how = r->bound == AN_BOUND_UNKNOWN ? "bound unknown (give both FLOPs and bytes)"
                      : memory ? "memory-bound" : "compute-bound";
    an_advice_item it = {0};
    it.id = "roofline";
    it.share = -1;
    const char *what = r->bound == AN_BOUND_UNKNOWN ? (memory ? "HBM traffic" : "Math throughput")
                       : memory ? "Memory-bound" : "Compute-bound";
    if (r->at_target)
        it.title = kr_strdupf("%s at %.1f %% of %s on %s: within the %.0f %% target", what, pct, peak, r->device,
                        100.0 * r->target_pct);
    else
        it.title = kr_strdupf("%s at %.1f %% of %s on %s: %.0f %% would take %.2f us per dispatch (%.2fx faster)", what,
                        pct, peak, r->device, 100.0 * r->target_pct, (double)r->target_time_ns / 1000.0,
                        r->target_speedup);
    if (r->at_target)
        it.action = kr_strdupf("Little is left on this ceiling: a faster kernel needs less work (%s) rather than "
                         "better scheduling.", memory ? "fewer HBM bytes: reuse, fusion, narrower types"
                                                      : "fewer FLOPs or a lower-precision data type");
    else if (memory)
        it.action = kr_strdupf("Cut HBM traffic (reuse tiles in LDS or registers, fuse passes, narrower types) and keep "
                         "more bytes in flight (wider, coalesced loads issued earlier) before tuning the math.");
    else if (r->unit == AN_UNIT_MATRIX)
        it.action = kr_strdupf("Keep the matrix units fed: fewer non-MFMA instructions per MFMA, deeper software "
                         "pipelining of the loads, enough waves to cover the MFMA latency; a lower-precision "
                         "ceiling is faster if accuracy allows.");
    else
        it.action = kr_strdupf("Keep the vector ALUs fed: fewer instructions per FLOP (packed or fused operations), "
                         "deeper software pipelining of the loads, enough waves to cover the latency; a "
                         "lower-precision type is faster if accuracy allows.");
    if (r->has_intensity)
        it.evidence = kr_strdupf("%s; intensity %.2f FLOP/byte vs ridge %.1f FLOP/byte; %.1f %% of peak FLOP/s, "
                           "%.1f %% of peak HBM; %" PRIu64 " ns per dispatch (%s)", how, r->intensity, r->ridge,
                           100.0 * r->pct_flops, 100.0 * r->pct_bytes, r->time_ns,
                           r->time_source ? r->time_source : "?");
    else
        it.evidence = kr_strdupf("%s; %.1f %% of %s; %" PRIu64 " ns per dispatch (%s)", how, pct, peak, r->time_ns,
                           r->time_source ? r->time_source : "?");
    size_t cap = a->n;
    int rc = push(a, &cap, &it);
    if (rc) {
        an_advice_free(a);
        return rc;
    }
    /* push appended it: rotate it to the front. */
    an_advice_item first = a->items[a->n - 1];
    memmove(a->items + 1, a->items, (a->n - 1) * sizeof *a->items);
    a->items[0] = first;
    return 0;
}
