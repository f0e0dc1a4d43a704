/* findings.c — see findings.h. */
#include "analyzer/findings.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/analysis.h"
#include "common/buf.h"
#include "common/err.h"

static double pct(uint64_t a, uint64_t b) { return b ? 100.0 * (double)a / (double)b : 0; }

/* ---- wait classes ---- */

const char *an_wclass_id(an_wclass k)
{
    static const char *const ids[AN_WC_COUNT] = {"kernarg", "smem", "lds", "crosslane", "vmem_load", "store",
                                                 "barrier", "other", "unlinked"};
    return (unsigned)k < AN_WC_COUNT ? ids[k] : "?";
}

const char *an_wclass_name(an_wclass k)
{
    static const char *const names[AN_WC_COUNT] = {
        "kernel-argument loads", "other scalar memory loads", "LDS data", "cross-lane operations",
        "vector memory loads", "stores", "workgroup barriers", "messages and other producers",
        "no linked producer"};
    return (unsigned)k < AN_WC_COUNT ? names[k] : "?";
}

static int starts(const char *s, const char *p) { return s && strncmp(s, p, strlen(p)) == 0; }

/* The first operand of a row's text, up to ',' or space. */
static void first_operand(const char *isa, char *out, size_t cap)
{
    out[0] = '\0';
    const char *s = isa ? strchr(isa, ' ') : NULL;
    if (!s)
        return;
    while (*s == ' ')
        s++;
    size_t n = strcspn(s, ", ");
    if (n >= cap)
        n = cap - 1;
    memcpy(out, s, n);
    out[n] = '\0';
}

/* An SGPR operand: "s5" or "s[4:5]" into [lo, hi]; 0 when not one. */
static int sgpr_range(const char *op, unsigned *lo, unsigned *hi)
{
    if (sscanf(op, "s[%u:%u]", lo, hi) == 2)
        return 1;
    char rest;
    if (sscanf(op, "s%u%c", lo, &rest) == 1) {
        *hi = *lo;
        return 1;
    }
    return 0;
}

/* The base operand (second) of an s_load, as an SGPR range. */
static int load_base(const char *isa, unsigned *lo, unsigned *hi)
{
    const char *s = isa ? strchr(isa, ',') : NULL;
    if (!s)
        return 0;
    s++;
    while (*s == ' ')
        s++;
    char op[32];
    size_t n = strcspn(s, ", ");
    if (n >= sizeof op)
        return 0;
    memcpy(op, s, n);
    op[n] = '\0';
    return sgpr_range(op, lo, hi);
}

/* Does the row write an SGPR in [lo, hi] (its first operand is an SGPR
 * range overlapping it, for instructions whose first operand is a
 * destination)? */
static int writes_sgprs(const kr_code_row *r, unsigned lo, unsigned hi)
{
    const char *m = r->mnemonic ? r->mnemonic : "";
    static const char *const no_dest[] = {"s_cmp", "s_bitcmp", "s_store", "s_buffer_store", "s_cbranch",
                                          "s_setpc", "s_set", "s_sendmsg", "s_waitcnt", "s_branch", "s_nop",
                                          "s_barrier", "s_sleep", "s_endpgm", "s_dcache", "s_icache",
                                          "s_trap", "s_ttrace", "s_sethalt", "s_setprio"};
    if (starts(m, "s_")) {
        for (size_t i = 0; i < sizeof no_dest / sizeof no_dest[0]; i++)
            if (starts(m, no_dest[i]))
                return 0;
    } else if (!starts(m, "v_readlane") && !starts(m, "v_readfirstlane") && !starts(m, "v_cmp")) {
        return 0;
    }
    char op[32];
    first_operand(r->isa, op, sizeof op);
    unsigned a, b;
    return sgpr_range(op, &a, &b) && a <= hi && b >= lo;
}

an_wclass an_wclass_of_row(const kr_capture *c, uint32_t row)
{
    if (row >= c->nrows)
        return AN_WC_OTHER;
    const kr_code_row *r = &c->rows[row];
    const char *m = r->mnemonic ? r->mnemonic : "";
    switch (r->cls) {
    case KR_CLASS_SMEM: {
        /* a base the kernel has not written before this load is a pointer
         * set at launch: the kernel arguments (or the dispatch packet) */
        unsigned lo, hi;
        if (starts(m, "s_load") && load_base(r->isa, &lo, &hi)) {
            for (uint32_t i = row; i-- > 0;) {
                const kr_code_row *p = &c->rows[i];
                if (p->is_label)
                    return AN_WC_KERNARG;
                if (writes_sgprs(p, lo, hi))
                    return AN_WC_SMEM;
            }
            return AN_WC_KERNARG;
        }
        return AN_WC_SMEM;
    }
    case KR_CLASS_LDS:
        if (starts(m, "ds_bpermute") || starts(m, "ds_permute") || starts(m, "ds_swizzle"))
            return AN_WC_CROSSLANE;
        return AN_WC_LDS;
    case KR_CLASS_VMEM:
    case KR_CLASS_FLAT:
        return strstr(m, "store") ? AN_WC_STORE : AN_WC_VMEM_LOAD;
    case KR_CLASS_BARRIER:
        return AN_WC_BARRIER;
    default:
        return AN_WC_OTHER;
    }
}

/* ---- dispatch time ---- */

static int kernel_match(const char *row, const char *kernel)
{
    if (!row || !kernel)
        return 0;
    size_t n = strlen(kernel);
    if (strncmp(row, kernel, n) != 0)
        return 0;
    return row[n] == '\0' || strcmp(row + n, ".kd") == 0 || row[n] == '(';
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t median_of(const kr_dispatch *d, size_t nd, const char *kernel, uint64_t id, int by_id,
                          size_t *n)
{
    *n = 0;
    const kr_dispatch *own = NULL;
    for (size_t i = 0; i < nd && by_id; i++)
        if (d[i].dispatch_id == id && kernel_match(d[i].kernel_name, kernel))
            own = &d[i];
    uint64_t *v = malloc((nd ? nd : 1) * sizeof *v);
    if (!v)
        return 0;
    const kr_dispatch *grid = own;
    size_t k = 0;
    for (size_t i = 0; i < nd; i++) {
        if (!kernel_match(d[i].kernel_name, kernel) || d[i].end_ns <= d[i].start_ns)
            continue;
        if (!grid)
            grid = &d[i];
        if (memcmp(d[i].grid, grid->grid, sizeof d[i].grid) != 0 || memcmp(d[i].wg, grid->wg, sizeof d[i].wg) != 0) {
            if (!own) {           /* several grids and no own dispatch: no single median */
                free(v);
                return 0;
            }
            continue;
        }
        v[k++] = d[i].end_ns - d[i].start_ns;
    }
    uint64_t med = 0;
    if (k >= AN_FIND_OUTLIER_MIN) {
        qsort(v, k, sizeof *v, cmp_u64);
        med = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
        *n = k;
    }
    free(v);
    return med;
}

uint64_t an_dispatch_median(const kr_capture *c, const char *kernel, size_t *n)
{
    *n = 0;
    if (!kernel || !*kernel)
        return 0;
    if (c->kernel_trace) {
        uint64_t m = median_of(c->kernel_trace->rows, c->kernel_trace->nrows, kernel, c->dispatch_id,
                               c->name_matched, n);
        if (m)
            return m;
    }
    for (size_t p = 0; c->results && p < c->results->nprocs; p++) {
        const kr_process *pr = &c->results->procs[p];
        uint64_t m = median_of(pr->dispatches, pr->ndispatches, kernel, c->dispatch_id, c->name_matched, n);
        if (m)
            return m;
    }
    return 0;
}

/* ---- polling loops ---- */

int an_loop_polls(const kr_capture *c, uint32_t head, uint32_t tail)
{
    if (tail < head || tail >= c->nrows || tail - head + 1 > AN_FIND_SPIN_ROWS)
        return 0;
    int load = 0, cmp = 0;
    for (uint32_t i = head; i <= tail; i++) {
        const kr_code_row *r = &c->rows[i];
        const char *m = r->mnemonic ? r->mnemonic : "";
        switch (r->cls) {
        case KR_CLASS_MATRIX:
        case KR_CLASS_LDS:
            return 0;
        case KR_CLASS_VMEM:
        case KR_CLASS_FLAT:
        case KR_CLASS_SMEM:
            if (strstr(m, "store"))
                return 0;
            load = 1;
            break;
        case KR_CLASS_VALU:
            /* a loop that computes on what it loads is work, not a poll:
             * only compares and lane moves may touch the loaded value */
            if (starts(m, "v_cmp"))
                cmp = 1;
            else if (!starts(m, "v_readfirstlane") && !starts(m, "v_readlane") && !starts(m, "v_mov") &&
                     !starts(m, "v_cndmask"))
                return 0;
            break;
        default:
            if (starts(m, "s_cmp") || starts(m, "s_bitcmp"))
                cmp = 1;
            break;
        }
    }
    return load && cmp;
}

/* ---- findings ---- */

typedef struct {
    an_findings *f;
    size_t cap;
    int oom;
} fb;

static an_rule *add(fb *b, const char *code, const char *severity, double threshold)
{
    if (b->oom)
        return NULL;
    if (b->f->n == b->cap) {
        size_t ncap = b->cap ? 2 * b->cap : 8;
        an_rule *x = realloc(b->f->items, ncap * sizeof *x);
        if (!x) {
            b->oom = 1;
            return NULL;
        }
        b->f->items = x;
        b->cap = ncap;
    }
    an_rule *it = &b->f->items[b->f->n++];
    memset(it, 0, sizeof *it);
    it->code = code;
    it->severity = severity;
    it->threshold = threshold;
    return it;
}

static void fig(an_rule *it, const char *name, double v)
{
    if (it && it->nfigs < AN_FIND_FIGS)
        it->figs[it->nfigs++] = (an_fig){name, v};
}

static void row(an_rule *it, uint32_t r)
{
    if (it && it->nrows < AN_FIND_ROWS)
        it->rows[it->nrows++] = r;
}

static void msg(fb *b, an_rule *it, char *m)
{
    if (!it) {
        free(m);
        return;
    }
    it->message = m;
    if (!m)
        b->oom = 1;
}

static const char *isa(const kr_capture *c, uint32_t r) { return r < c->nrows && c->rows[r].isa ? c->rows[r].isa : ""; }

static uint64_t wave_insts(const kr_wave *w) { return w->num_insts > w->ninsts ? w->num_insts : w->ninsts; }

/* The label row of the kernel whose rows ran the most (a code object may
 * hold several kernels; only the traced one matters), UINT32_MAX none. */
static uint32_t traced_kernel(const kr_capture *c)
{
    uint32_t best = UINT32_MAX, cur = UINT32_MAX;
    uint64_t best_hit = 0, hit = 0;
    for (size_t i = 0; i <= c->nrows; i++) {
        if (i == c->nrows || c->rows[i].is_label) {
            if (cur != UINT32_MAX && (best == UINT32_MAX || hit > best_hit)) {
                best = cur;
                best_hit = hit;
            }
            if (i == c->nrows)
                break;
            cur = (uint32_t)i;
            hit = 0;
            continue;
        }
        hit += c->rows[i].hit;
    }
    return best;
}

static void coverage(fb *b, const an_analysis *a)
{
    const kr_capture *c = a->cap;
    uint32_t kernel = traced_kernel(c);
    uint64_t rows = 0, ran = 0, mf = 0, mf_ran = 0, lds = 0, lds_ran = 0;
    uint32_t first_dead = UINT32_MAX;
    for (size_t i = 0; i < c->nrows; i++) {
        const kr_code_row *r = &c->rows[i];
        if (r->is_label || (kernel != UINT32_MAX && r->kernel != kernel))
            continue;
        rows++;
        ran += r->hit > 0;
        if (!r->hit && first_dead == UINT32_MAX)
            first_dead = (uint32_t)i;
        if (r->cls == KR_CLASS_MATRIX) {
            mf++;
            mf_ran += r->hit > 0;
        } else if (r->cls == KR_CLASS_LDS) {
            lds++;
            lds_ran += r->hit > 0;
        }
    }
    size_t loops_ran = 0;
    uint32_t dead_loop = UINT32_MAX;
    for (size_t i = 0; i < a->phases.nloops; i++) {
        const an_loop *l = &a->phases.loops[i];
        if (kernel != UINT32_MAX && l->kernel != kernel)
            continue;
        if (l->iterations || l->waves_entered)
            loops_ran++;
        else if (l->depth == 0 && (dead_loop == UINT32_MAX ||
                                   l->tail - l->head > a->phases.loops[dead_loop].tail - a->phases.loops[dead_loop].head))
            dead_loop = (uint32_t)i;
    }
    if (!rows || !c->nwaves || !ran)
        return;
    double share = (double)ran / (double)rows;
    int no_mf = mf >= AN_FIND_COVERAGE_CLASS_ROWS && !mf_ran;
    int no_lds = lds >= AN_FIND_COVERAGE_CLASS_ROWS && !lds_ran;
    /* no loop ran, and the largest is a real part of the code */
    int no_loop = !loops_ran && dead_loop != UINT32_MAX &&
                  (double)(a->phases.loops[dead_loop].tail - a->phases.loops[dead_loop].head + 1) >=
                      AN_FIND_COVERAGE_LOOP * (double)rows;
    if (share >= AN_FIND_COVERAGE_ROWS && !no_mf && !no_lds && !no_loop)
        return;
    an_rule *it = add(b, "low_coverage", "warning", AN_FIND_COVERAGE_ROWS);
    fig(it, "executed_row_share", share);
    fig(it, "executed_rows", (double)ran);
    fig(it, "instruction_rows", (double)rows);
    char why[256] = "";
    size_t wl = 0;
    if (no_loop) {
        const an_loop *l = &a->phases.loops[dead_loop];
        wl += (size_t)snprintf(why + wl, sizeof why - wl, "; no loop ran (the largest, vaddr %" PRIu64 "-%" PRIu64
                               ", %u rows, never entered)", c->rows[l->head].vaddr, c->rows[l->tail].vaddr,
                               l->tail - l->head + 1);
        row(it, l->head);
    }
    if (no_mf && wl < sizeof why)
        wl += (size_t)snprintf(why + wl, sizeof why - wl, "; none of the %" PRIu64 " MFMA rows ran", mf);
    if (no_lds && wl < sizeof why)
        wl += (size_t)snprintf(why + wl, sizeof why - wl, "; none of the %" PRIu64 " LDS rows ran", lds);
    if (first_dead != UINT32_MAX)
        row(it, first_dead);
    msg(b, it, kr_strdupf("The traced waves executed %" PRIu64 " of %" PRIu64 " instruction rows (%.1f %%)%s: the capture "
                    "does not show the kernel's work; re-capture a dispatch (or more waves) that runs it.",
                    ran, rows, 100.0 * share, why));
}

static void early_exit(fb *b, const an_analysis *a)
{
    const kr_capture *c = a->cap;
    if (c->nwaves < 2)
        return;
    uint64_t mx = 0, short_max = 0;
    for (size_t w = 0; w < c->nwaves; w++)
        if (wave_insts(&c->waves[w]) > mx)
            mx = wave_insts(&c->waves[w]);
    size_t nshort = 0;
    for (size_t w = 0; w < c->nwaves; w++) {
        uint64_t n = wave_insts(&c->waves[w]);
        if ((double)n < AN_FIND_EARLY_RATIO * (double)mx) {
            nshort++;
            if (n > short_max)
                short_max = n;
        }
    }
    double share = (double)nshort / (double)c->nwaves;
    if (!mx || share < AN_FIND_EARLY_WAVES)
        return;
    an_rule *it = add(b, "early_exit", "warning", AN_FIND_EARLY_WAVES);
    fig(it, "short_wave_share", share);
    fig(it, "short_waves", (double)nshort);
    fig(it, "short_wave_max_instructions", (double)short_max);
    fig(it, "longest_wave_instructions", (double)mx);
    msg(b, it, kr_strdupf("%zu of %zu traced waves ran at most %" PRIu64 " instructions, under %.0f %% of the longest "
                    "wave's %" PRIu64 ": only %zu waves do the work, so the totals weigh the early exits; judge "
                    "the kernel by the long waves or re-capture.", nshort, c->nwaves, short_max,
                    100.0 * AN_FIND_EARLY_RATIO, mx, c->nwaves - nshort));
}

static void outlier(fb *b, const an_analysis *a)
{
    const an_roofline *r = &a->roofline;
    if (!r->time_outlier)
        return;
    double ratio = (double)r->time_outlier_ns / (double)r->time_median_ns;
    an_rule *it = add(b, "dispatch_time_outlier", "warning", AN_FIND_OUTLIER_RATIO);
    fig(it, "ratio_to_median", ratio);
    fig(it, "dispatch_time_ns", (double)r->time_outlier_ns);
    fig(it, "median_time_ns", (double)r->time_median_ns);
    fig(it, "dispatches", (double)r->time_median_n);
    msg(b, it, kr_strdupf("The dispatch time the speed of light would use (%.2f us) is %.2fx the median of the kernel's "
                    "%zu dispatches of the same grid (%.2f us); the median is used instead.",
                    (double)r->time_outlier_ns / 1000.0, ratio, r->time_median_n,
                    (double)r->time_median_ns / 1000.0));
}

static void grid(fb *b, const an_analysis *a)
{
    const an_saturation *s = &a->saturation;
    if (!s->known || s->slots <= 0 || s->workgroups >= s->slots)
        return;
    int below_cus = s->cu_count > 0 && s->workgroups < s->cu_count;
    double fill = (double)s->workgroups / (double)s->slots;
    an_rule *it = add(b, "grid_underfill", below_cus ? "warning" : "info", 1.0);
    fig(it, "slot_fill", fill);
    fig(it, "workgroups", (double)s->workgroups);
    fig(it, "cus", (double)s->cu_count);
    fig(it, "workgroups_per_cu_limit", (double)s->wg_per_cu_limit);
    if (below_cus)
        msg(b, it, kr_strdupf("%" PRId64 " workgroups on %" PRId64 " CUs: %" PRId64 " CUs get no work at all (one "
                        "round holds %" PRId64 " workgroups, %" PRId64 " per CU).", s->workgroups, s->cu_count,
                        s->cu_count - s->workgroups, s->slots, s->wg_per_cu_limit));
    else
        msg(b, it, kr_strdupf("%" PRId64 " workgroups fill %.1f %% of one round of %" PRId64 " workgroup slots (%" PRId64
                        " CUs x %" PRId64 " by the resource limit): the grid, not the resources, caps occupancy.",
                        s->workgroups, 100.0 * fill, s->slots, s->cu_count, s->wg_per_cu_limit));
}

static int narrow_mnemonic(const char *m)
{
    const char *p = strstr(m, "load_");
    if (!p)
        p = strstr(m, "store_");
    if (!p || strstr(m, "atomic"))
        return 0;
    p = strchr(p, '_') + 1;
    static const char *const w[] = {"ubyte", "sbyte", "byte", "ushort", "sshort", "short", "u8", "i8", "b8",
                                    "u16", "i16", "b16", "d16"};
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        if (starts(p, w[i]))
            return 1;
    return 0;
}

static void narrow(fb *b, const an_analysis *a)
{
    const kr_capture *c = a->cap;
    uint64_t hits = 0, nhits = 0, nstall = 0;
    uint32_t top[3] = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
    uint8_t *is_narrow = calloc(c->nrows ? c->nrows : 1, 1);
    if (!is_narrow) {
        b->oom = 1;
        return;
    }
    for (size_t i = 0; i < c->nrows; i++) {
        const kr_code_row *r = &c->rows[i];
        if (r->cls != KR_CLASS_VMEM && r->cls != KR_CLASS_FLAT)
            continue;
        hits += r->hit;
        if (!narrow_mnemonic(r->mnemonic ? r->mnemonic : ""))
            continue;
        is_narrow[i] = 1;
        nhits += r->hit;
        nstall += r->stall;
    }
    for (size_t i = 0; i < a->waits.nproducers; i++)
        if (a->waits.producers[i].row < c->nrows && is_narrow[a->waits.producers[i].row])
            nstall += a->waits.producers[i].stall;
    /* evidence: the narrow rows with the most hits */
    for (size_t i = 0; i < c->nrows; i++) {
        if (!is_narrow[i])
            continue;
        for (int k = 0; k < 3; k++) {
            if (top[k] == UINT32_MAX || c->rows[i].hit > c->rows[top[k]].hit) {
                for (int j = 2; j > k; j--)
                    top[j] = top[j - 1];
                top[k] = (uint32_t)i;
                break;
            }
        }
    }
    free(is_narrow);
    uint64_t total = a->totals.stall;
    double ishare = hits ? (double)nhits / (double)hits : 0, sshare = total ? (double)nstall / (double)total : 0;
    if (!nhits || (ishare < AN_FIND_NARROW_INSTS && sshare < AN_FIND_NARROW_STALL))
        return;
    int by_insts = ishare >= AN_FIND_NARROW_INSTS;
    an_rule *it = add(b, "narrow_access", "info", by_insts ? AN_FIND_NARROW_INSTS : AN_FIND_NARROW_STALL);
    fig(it, by_insts ? "narrow_execution_share" : "narrow_stall_share", by_insts ? ishare : sshare);
    fig(it, by_insts ? "narrow_stall_share" : "narrow_execution_share", by_insts ? sshare : ishare);
    fig(it, "narrow_executions", (double)nhits);
    for (int k = 0; k < 3; k++)
        if (top[k] != UINT32_MAX)
            row(it, top[k]);
    msg(b, it, kr_strdupf("%.1f %% of vector memory executions move under 4 bytes per lane (byte or short accesses), "
                    "holding %.1f %% of stall with the waits on them: pack them into dword or wider accesses.",
                    100.0 * ishare, 100.0 * sshare));
}

static uint32_t neighbour(const kr_capture *c, uint32_t r, int dir)
{
    for (int64_t i = (int64_t)r + dir; i >= 0 && (size_t)i < c->nrows; i += dir) {
        const kr_code_row *x = &c->rows[i];
        if (x->is_label)
            return UINT32_MAX;
        if (x->cls != KR_CLASS_NOP)
            return (uint32_t)i;
    }
    return UINT32_MAX;
}

static void nops(fb *b, const an_analysis *a)
{
    const kr_capture *c = a->cap;
    const an_stall_bucket *k = &a->stalls.kinds[AN_STALL_NOP];
    uint64_t total = a->totals.stall;
    double share = total ? (double)k->stall / (double)total : 0;
    if (share < AN_FIND_WAIT_SHARE)
        return;
    an_rule *it = add(b, "nop_padding", "warning", AN_FIND_WAIT_SHARE);
    fig(it, "nop_stall_share", share);
    fig(it, "nop_stall", (double)k->stall);
    char pairs[512] = "";
    size_t pl = 0;
    for (size_t t = 0; t < k->ntop && t < 3; t++) {
        uint32_t r = k->top[t], p = neighbour(c, r, -1), n = neighbour(c, r, +1);
        row(it, r);
        if (pl < sizeof pairs)
            pl += (size_t)snprintf(pairs + pl, sizeof pairs - pl, "%s`%s` at vaddr %" PRIu64 " between `%s` and `%s`",
                                   t ? "; " : "", isa(c, r), c->rows[r].vaddr,
                                   p == UINT32_MAX ? "kernel entry" : c->rows[p].mnemonic,
                                   n == UINT32_MAX ? "kernel end" : c->rows[n].mnemonic);
    }
    msg(b, it, kr_strdupf("s_nop hazard padding holds %.1f %% of stall (%" PRIu64 " cycles): %s.", 100.0 * share,
                    k->stall, pairs));
}

static void wait_share(fb *b, const an_analysis *a, an_wclass k, const char *code, const char *what,
                       const uint32_t *top, size_t ntop)
{
    const an_findings *f = b->f;
    double share = f->total_stall ? (double)f->wclass_stall[k] / (double)f->total_stall : 0;
    if (share < AN_FIND_WAIT_SHARE)
        return;
    an_rule *it = add(b, code, "warning", AN_FIND_WAIT_SHARE);
    fig(it, "stall_share", share);
    fig(it, "stall", (double)f->wclass_stall[k]);
    fig(it, "waits", (double)f->wclass_waits[k]);
    for (size_t i = 0; i < ntop; i++)
        row(it, top[i]);
    msg(b, it, kr_strdupf("%.1f %% of stall (%" PRIu64 " cycles) is s_waitcnt waiting on %s, over %" PRIu64
                    " wait rows%s%s%s.", 100.0 * share, f->wclass_stall[k], what, f->wclass_waits[k],
                    ntop ? "; top producer `" : "", ntop ? isa(a->cap, top[0]) : "", ntop ? "`" : ""));
}

static void collapse(fb *b, const an_analysis *a)
{
    const an_sources *s = &a->sources;
    if (!s->has_top1 || s->top1_share < AN_FIND_COLLAPSE_TOP || s->mapped_rows < AN_FIND_COLLAPSE_ROWS)
        return;
    an_rule *it = add(b, "source_collapse", "info", AN_FIND_COLLAPSE_TOP);
    fig(it, "top_line_share", s->top1_share);
    fig(it, "mapped_rows", (double)s->mapped_rows);
    fig(it, "distinct_lines", (double)s->distinct_lines);
    if (s->has_effective)
        fig(it, "effective_lines", s->effective_lines);
    for (size_t i = 0; i < a->hotspots.nby_stall && i < 3; i++)
        row(it, a->hotspots.by_stall[i].row);
    msg(b, it, kr_strdupf("%.1f %% of hit + stall maps to one source line while %" PRIu64 " instruction rows carry "
                    "%zu distinct lines: the source mapping is too coarse to act on; read the ISA hotspots instead.",
                    100.0 * s->top1_share, s->mapped_rows, s->distinct_lines));
}

static void spin(fb *b, const an_analysis *a)
{
    const kr_capture *c = a->cap;
    const an_phases *ph = &a->phases;
    for (size_t i = 0; i < ph->nloops; i++) {
        const an_loop *l = &ph->loops[i];
        if (!l->iterations || !an_loop_polls(c, l->head, l->tail))
            continue;
        double share = ph->total_time ? (double)(l->latency + l->idle) / (double)ph->total_time : 0;
        an_rule *it = add(b, "spin_loop", share >= AN_FIND_WAIT_SHARE ? "warning" : "info", 0);
        fig(it, "time_share", share);
        fig(it, "waves_entered", (double)l->waves_entered);
        fig(it, "iterations", (double)l->iterations);
        fig(it, "waves", (double)c->nwaves);
        row(it, l->head);
        row(it, l->tail);
        if (b->f->spin_loop == UINT32_MAX)
            b->f->spin_loop = (uint32_t)i;
        msg(b, it, kr_strdupf("The loop at vaddr %" PRIu64 "-%" PRIu64 " polls memory (a load, a compare and a branch back, "
                        "%u rows) %" PRIu64 " times on %" PRIu64 " of %zu waves, %.1f %% of the time: a wait on "
                        "another workgroup (a semaphore or flag), not the main loop.", c->rows[l->head].vaddr,
                        c->rows[l->tail].vaddr, l->tail - l->head + 1, l->iterations, l->waves_entered,
                        c->nwaves, 100.0 * share));
    }
}

static void inputs(fb *b, const an_analysis *a)
{
    const an_totals *t = &a->totals;
    if (t->records_unknown) {
        double share = t->records ? (double)t->records_unknown / (double)t->records : 0;
        an_rule *it = add(b, "unknown_pc", share >= 0.01 ? "warning" : "info", 0);
        fig(it, "records_unknown", (double)t->records_unknown);
        fig(it, "records", (double)t->records);
        msg(b, it, kr_strdupf("%" PRIu64 " of %" PRIu64 " wave records (%.2f %%) name no code.json row (line 0 or an "
                        "unknown LineNumber): their time is in no row's figures.", t->records_unknown, t->records,
                        100.0 * share));
    }
    uint64_t placed = t->records - t->records_unknown;
    if (t->records && placed != t->hit) {
        an_rule *it = add(b, "sums_mismatch", "warning", 0);
        fig(it, "code_hit", (double)t->hit);
        fig(it, "records_with_row", (double)placed);
        msg(b, it, kr_strdupf("code.json's Hit column sums to %" PRIu64 " but the wave files hold %" PRIu64
                        " records of its rows: the code table and the wave files do not come from the same "
                        "decode; per-row figures may be wrong.", t->hit, placed));
    }
}

/* ---- wait classes ---- */

static void top_insert(uint32_t *top, uint64_t *val, size_t cap, uint32_t r, uint64_t v)
{
    for (size_t k = 0; k < cap; k++) {
        if (top[k] == UINT32_MAX || v > val[k]) {
            for (size_t j = cap - 1; j > k; j--) {
                top[j] = top[j - 1];
                val[j] = val[j - 1];
            }
            top[k] = r;
            val[k] = v;
            return;
        }
    }
}

/* ---- summary ---- */

typedef struct group {
    const char *code;
    uint64_t stall;
    const char *what;
} group;

static int add_action(an_findings *f, const char *code, double share, uint64_t cycles, char *text,
                      const uint32_t *rows, size_t nrows)
{
    if (!text)
        return KR_INTERNAL;
    size_t at = f->nactions;
    while (at > 0 && f->actions[at - 1].share < share)
        at--;
    if (at >= 3) {
        free(text);
        return 0;
    }
    if (f->nactions == 3)
        free(f->actions[2].text);
    else
        f->nactions++;
    memmove(&f->actions[at + 1], &f->actions[at], (f->nactions - 1 - at) * sizeof f->actions[0]);
    an_action *x = &f->actions[at];
    memset(x, 0, sizeof *x);
    x->code = code;
    x->share = share;
    x->cycles = cycles;
    x->text = text;
    for (size_t i = 0; i < nrows && i < 3; i++)
        if (rows[i] != UINT32_MAX)
            x->rows[x->nrows++] = rows[i];
    return 0;
}

static const an_rule *find(const an_findings *f, const char *code)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->items[i].code, code) == 0)
            return &f->items[i];
    return NULL;
}

static int avoid(an_findings *f, char *text)
{
    if (!text)
        return KR_INTERNAL;
    if (f->navoid == 3) {
        free(text);
        return 0;
    }
    f->avoid[f->navoid++] = text;
    return 0;
}

static int summary(an_findings *f, const an_analysis *a, uint32_t top[AN_WC_COUNT][3])
{
    const kr_capture *c = a->cap;
    uint64_t total = f->total_stall;
    int has_mfma = a->classes.by_class[KR_CLASS_MATRIX].hit > 0;
    const an_occ_kernel *k = a->occupancy.nkernels ? &a->occupancy.kernels[a->occupancy.primary] : NULL;
    const an_saturation *s = &a->saturation;
    int rc = 0;

    /* Representative? */
    static const char *const rep_codes[] = {"low_coverage", "early_exit", "unknown_pc", "sums_mismatch"};
    f->representative = 1;
    for (size_t i = 0; i < sizeof rep_codes / sizeof rep_codes[0]; i++) {
        const an_rule *x = find(f, rep_codes[i]);
        if (x && strcmp(x->severity, "warning") == 0 && f->representative) {
            f->representative = 0;
            f->capture_text = kr_strdupf("not representative (`%s`): %s", x->code, x->message);
        }
    }
    if (f->representative) {
        uint64_t ran = 0, rows = 0;
        for (size_t i = 0; i < c->nrows; i++)
            if (!c->rows[i].is_label) {
                rows++;
                ran += c->rows[i].hit > 0;
            }
        f->capture_text = kr_strdupf("representative: %zu waves executed %" PRIu64 " of %" PRIu64
                               " instruction rows; no wave exited early.", c->nwaves, ran, rows);
    }
    if (!f->capture_text)
        return KR_INTERNAL;

    /* Stall groups. */
    group g[AN_WC_COUNT + 3];
    size_t ng = 0;
    static const char *const waits_on[AN_WC_COUNT] = {
        "waits on kernel-argument loads", "waits on scalar memory loads", "waits on LDS data",
        "waits on cross-lane operations", "waits on vector memory loads", "waits on stores",
        "waits at workgroup barriers", "", ""};
    for (int w = 0; w < AN_WC_COUNT; w++)
        if (w != AN_WC_UNLINKED && w != AN_WC_OTHER)
            g[ng++] = (group){an_wclass_id((an_wclass)w), f->wclass_stall[w], waits_on[w]};
    g[ng++] = (group){"nop", f->nop_stall, "s_nop hazard padding"};
    g[ng++] = (group){"alu_dep", f->alu_stall, has_mfma ? "dependency stalls on ALU / MFMA results"
                                                        : "dependency stalls on ALU results"};
    g[ng++] = (group){"mem_issue", f->issue_stall, "stalls issuing memory instructions"};
    size_t best = 0;
    for (size_t i = 1; i < ng; i++)
        if (g[i].stall > g[best].stall)
            best = i;

    /* Bound. */
    const an_state_sums *st = &a->states.all;
    uint64_t life = 0;
    for (int x = 0; x < KR_STATE_COUNT; x++)
        life += st->raw[x];
    double waiting = life ? (double)(st->raw[KR_STATE_WAIT] + st->raw[KR_STATE_STALL]) / (double)life : 0;
    const an_roofline *r = &a->roofline;
    if (r->has_pct_bytes && r->bound == AN_BOUND_MEMORY && r->pct_bytes >= 0.6) {
        f->bound = "memory_bandwidth";
        f->bound_share = r->pct_bytes;
        f->bound_text = kr_strdupf("HBM bandwidth: %.1f %% of the device's peak (intensity %.2f FLOP/byte, below the "
                             "ridge of %.1f).", 100.0 * r->pct_bytes, r->intensity, r->ridge);
    } else if (r->has_pct_flops && r->bound == AN_BOUND_COMPUTE && r->pct_flops >= 0.6) {
        f->bound = "compute_throughput";
        f->bound_share = r->pct_flops;
        f->bound_text = kr_strdupf("Math throughput: %.1f %% of the %s peak.", 100.0 * r->pct_flops,
                             an_ceiling_id(r->unit, r->dtype));
    } else if (life && waiting < 0.35) {
        f->bound = "issue";
        f->bound_share = 1 - waiting;
        f->bound_text = kr_strdupf("Instruction issue: waves issue %.1f %% of their time and wait or stall only %.1f %%; "
                             "fewer or cheaper instructions are what shortens it.", 100.0 * (1 - waiting),
                             100.0 * waiting);
    } else if (total && g[best].stall) {
        f->bound = g[best].code;
        f->bound_share = (double)g[best].stall / (double)total;
        /* the runners-up too, so that a spread is not read as one cause */
        size_t order[AN_WC_COUNT + 3];
        for (size_t i = 0; i < ng; i++) {
            size_t j = i;
            while (j > 0 && g[order[j - 1]].stall < g[i].stall) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = i;
        }
        kr_buf b;
        kr_buf_init(&b);
        kr_buf_printf(&b, "Latency%s%s: waves wait or stall %.1f %% of their time; of the %" PRIu64 " stall cycles, "
                      "%.1f %% are %s", f->bound_share >= 0.5 ? ", mostly " : "",
                      f->bound_share >= 0.5 ? g[best].what : "", 100.0 * waiting, total, 100.0 * f->bound_share,
                      g[best].what);
        for (size_t k = 1; k < 3 && k < ng && g[order[k]].stall; k++)
            kr_buf_printf(&b, ", %.1f %% %s", pct(g[order[k]].stall, total), g[order[k]].what);
        kr_buf_puts(&b, ".");
        f->bound_text = b.oom ? NULL : strdup(kr_buf_cstr(&b));
        kr_buf_free(&b);
    } else {
        f->bound = "unknown";
        f->bound_text = kr_strdupf("Cannot tell: the capture has no stall cycles and no speed-of-light figures.");
    }
    if (!f->bound_text)
        return KR_INTERNAL;

    /* Actions. */
    for (size_t i = 0; i < ng && !rc; i++) {
        double share = total ? (double)g[i].stall / (double)total : 0;
        if (share < AN_FIND_ACTION_MIN)
            continue;
        const char *code = g[i].code;
        char *t = NULL;
        const uint32_t *rows = NULL;
        size_t nrows = 0;
        for (int w = 0; w < AN_WC_COUNT; w++)
            if (strcmp(code, an_wclass_id((an_wclass)w)) == 0) {
                rows = top[w];
                nrows = 3;
            }
        if (strcmp(code, "kernarg") == 0)
            t = kr_strdupf("Hoist and batch the kernel-argument loads: load the arguments with few wide s_load at entry "
                     "and put setup that needs none of them before the first s_waitcnt lgkmcnt (%.1f %% of stall).",
                     100.0 * share);
        else if (strcmp(code, "smem") == 0)
            t = kr_strdupf("Batch the scalar loads and issue them before the work that does not need them (%.1f %% of "
                     "stall waits on them).", 100.0 * share);
        else if (strcmp(code, "lds") == 0)
            t = kr_strdupf("Issue LDS reads earlier or double-buffer LDS so the next tile's reads overlap this tile's "
                     "compute (%.1f %% of stall waits on LDS data).", 100.0 * share);
        else if (strcmp(code, "crosslane") == 0)
            t = kr_strdupf("Use fewer, wider cross-lane steps: reduce more values per lane before exchanging, and "
                     "batch the ds_bpermute/ds_swizzle steps before one wait (%.1f %% of stall, summed over "
                     "their waits).", 100.0 * share);
        else if (strcmp(code, "vmem_load") == 0)
            t = kr_strdupf("Prefetch deeper: issue the vector loads these waits consume earlier (software pipelining) "
                     "or put independent work between load and use (%.1f %% of stall).", 100.0 * share);
        else if (strcmp(code, "store") == 0)
            t = kr_strdupf("Keep stores out of the waits: a vmcnt wait also counts earlier stores, so issue stores after "
                     "the loads the next wait needs (%.1f %% of stall waits on stores).", 100.0 * share);
        else if (strcmp(code, "barrier") == 0)
            t = kr_strdupf("Balance the waves of a workgroup or take barriers out of the hot loop (%.1f %% of stall at "
                     "s_barrier).", 100.0 * share);
        else if (strcmp(code, "nop") == 0) {
            t = kr_strdupf("Interleave independent instructions between the hazard pairs the s_nop pad (%s) so fewer "
                     "wait states are needed (%.1f %% of stall).",
                     has_mfma ? "MFMA results and their readers, VALU writes and their readers"
                              : "VALU writes such as v_cmp and their readers such as v_cndmask", 100.0 * share);
            const an_stall_bucket *nb = &a->stalls.kinds[AN_STALL_NOP];
            rows = nb->top;
            nrows = nb->ntop < 3 ? nb->ntop : 3;
        } else if (strcmp(code, "alu_dep") == 0) {
            t = kr_strdupf("Break dependent ALU chains: interleave independent work so each result is ready when read "
                     "(%.1f %% of stall).", 100.0 * share);
            const an_stall_bucket *vb = &a->stalls.kinds[AN_STALL_VALU_DEP];
            rows = vb->top;
            nrows = vb->ntop < 3 ? vb->ntop : 3;
        } else if (strcmp(code, "mem_issue") == 0) {
            t = kr_strdupf("Spread memory instructions between ALU work, or use wider accesses, to relieve the issue "
                     "queues (%.1f %% of stall).", 100.0 * share);
        }
        if (t)
            rc = add_action(f, code, share, g[i].stall, t, rows ? rows : (const uint32_t[3]){0}, rows ? nrows : 0);
    }
    const an_rule *gf = find(f, "grid_underfill");
    if (!rc && gf && s->slots > 0) {
        double idle = 1.0 - (double)s->workgroups / (double)s->slots;
        rc = add_action(f, "grid_underfill", idle, 0,
                        kr_strdupf("Give the GPU more workgroups: %" PRId64 " fill %.1f %% of the %" PRId64 " slots of one "
                             "round (split the work finer: smaller tiles, split-K, more batches per launch).",
                             s->workgroups, 100.0 * (1 - idle), s->slots), NULL, 0);
    }

    /* What not to do. */
    if (!rc && ((k && k->grid_limited && k->grid_waves_per_simd >= 0) || (gf && s->wg_per_cu_limit > 0)))
        rc = avoid(f, kr_strdupf("cut registers or LDS for occupancy: the grid gives %.2f workgroups per CU, "
                           "below the resource limit of %" PRId64 ", so more room per CU stays empty.",
                           s->wg_per_cu, s->wg_per_cu_limit));
    if (!rc && !f->representative)
        rc = avoid(f, kr_strdupf("tune from this capture's hotspots alone: it does not represent the kernel "
                           "(see the capture line)."));
    uint64_t lgkm_other = f->wclass_stall[AN_WC_KERNARG] + f->wclass_stall[AN_WC_SMEM] +
                          f->wclass_stall[AN_WC_CROSSLANE];
    if (!rc && total && (double)lgkm_other >= AN_FIND_WAIT_SHARE * (double)total &&
        4 * f->wclass_stall[AN_WC_LDS] < lgkm_other)
        rc = avoid(f, f->wclass_stall[AN_WC_LDS]
                          ? kr_strdupf("restructure LDS for the lgkmcnt waits: %.1f %% of stall waits on kernel "
                                       "arguments, scalar loads and cross-lane steps, only %.1f %% on LDS data.",
                                       pct(lgkm_other, total), pct(f->wclass_stall[AN_WC_LDS], total))
                          : kr_strdupf("restructure LDS for the lgkmcnt waits: %.1f %% of stall waits on kernel "
                                       "arguments, scalar loads and cross-lane steps, none on LDS data.",
                                       pct(lgkm_other, total)));
    if (!rc && find(f, "source_collapse"))
        rc = avoid(f, kr_strdupf("rank work by source line: one line carries most of the cost; use the ISA "
                           "hotspots."));
    if (!rc && f->spin_loop != UINT32_MAX)
        rc = avoid(f, kr_strdupf("optimize the polling loop at vaddr %" PRIu64 " as the kernel's main loop: its "
                           "time is spent waiting on other workgroups.",
                           c->rows[a->phases.loops[f->spin_loop].head].vaddr));
    return rc;
}

int an_findings_compute(const an_analysis *a, an_findings *out)
{
    memset(out, 0, sizeof *out);
    out->spin_loop = UINT32_MAX;
    const kr_capture *c = a->cap;
    out->computed = 1;
    out->total_stall = a->totals.stall;
    uint32_t top[AN_WC_COUNT][3];
    uint64_t topv[AN_WC_COUNT][3];
    memset(top, 0xff, sizeof top);
    memset(topv, 0, sizeof topv);
    for (int k = 0; k < AN_WC_COUNT; k++)
        out->wclass_top[k] = UINT32_MAX;
    /* Per producer row, attributed stall summed over the waits. */
    uint64_t *prow = calloc(c->nrows ? c->nrows : 1, sizeof *prow);
    if (!prow)
        return KR_INTERNAL;
    for (size_t i = 0; i < a->waits.nwaits; i++) {
        const an_wait *w = &a->waits.waits[i];
        uint64_t by[AN_WC_COUNT] = {0};
        uint64_t att = 0;
        for (size_t p = 0; p < w->nproducers; p++) {
            const an_wait_producer *pr = &w->producers[p];
            an_wclass k = an_wclass_of_row(c, pr->row);
            by[k] += pr->stall;
            att += pr->stall;
            if (pr->row < c->nrows)
                prow[pr->row] += pr->stall;
        }
        by[AN_WC_UNLINKED] += w->stall > att ? w->stall - att : 0;
        int bk = -1;
        for (int k = 0; k < AN_WC_COUNT; k++) {
            out->wclass_stall[k] += by[k];
            if (by[k] && (bk < 0 || by[k] > by[bk]))
                bk = k;
        }
        if (bk >= 0)
            out->wclass_waits[bk]++;
    }
    for (size_t i = 0; i < c->nrows; i++) {
        const kr_code_row *r = &c->rows[i];
        if (r->cls == KR_CLASS_BARRIER) {
            out->wclass_stall[AN_WC_BARRIER] += r->stall;
            if (r->stall)
                out->wclass_waits[AN_WC_BARRIER]++;
            top_insert(top[AN_WC_BARRIER], topv[AN_WC_BARRIER], 3, (uint32_t)i, r->stall);
        } else if (prow[i]) {
            an_wclass k = an_wclass_of_row(c, (uint32_t)i);
            top_insert(top[k], topv[k], 3, (uint32_t)i, prow[i]);
        }
    }
    free(prow);
    for (int k = 0; k < AN_WC_COUNT; k++)
        out->wclass_top[k] = top[k][0];
    out->nop_stall = a->stalls.kinds[AN_STALL_NOP].stall;
    out->alu_stall = a->stalls.kinds[AN_STALL_MATRIX_DEP].stall + a->stalls.kinds[AN_STALL_VALU_DEP].stall;
    out->issue_stall = a->stalls.kinds[AN_STALL_VMEM_ISSUE].stall + a->stalls.kinds[AN_STALL_FLAT_ISSUE].stall +
                       a->stalls.kinds[AN_STALL_LDS_ISSUE].stall + a->stalls.kinds[AN_STALL_SMEM_ISSUE].stall;

    fb b = {out, 0, 0};
    inputs(&b, a);
    coverage(&b, a);
    early_exit(&b, a);
    outlier(&b, a);
    grid(&b, a);
    narrow(&b, a);
    nops(&b, a);
    {
        size_t n = 0;
        while (n < 3 && top[AN_WC_KERNARG][n] != UINT32_MAX)
            n++;
        wait_share(&b, a, AN_WC_KERNARG, "kernarg_wait", "kernel-argument scalar loads", top[AN_WC_KERNARG], n);
        n = 0;
        while (n < 3 && top[AN_WC_CROSSLANE][n] != UINT32_MAX)
            n++;
        wait_share(&b, a, AN_WC_CROSSLANE, "crosslane_wait", "cross-lane operations (ds_bpermute, ds_permute, "
                   "ds_swizzle)", top[AN_WC_CROSSLANE], n);
    }
    collapse(&b, a);
    spin(&b, a);
    int rc = b.oom ? KR_INTERNAL : summary(out, a, top);
    if (rc) {
        an_findings_free(out);
        return KR_INTERNAL;
    }
    return 0;
}

void an_findings_free(an_findings *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->items[i].message);
    free(f->items);
    free(f->bound_text);
    free(f->capture_text);
    for (size_t i = 0; i < f->nactions; i++)
        free(f->actions[i].text);
    for (size_t i = 0; i < f->navoid; i++)
        free(f->avoid[i]);
    memset(f, 0, sizeof *f);
    f->spin_loop = UINT32_MAX;
}
