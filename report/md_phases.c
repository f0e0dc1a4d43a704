/* md_phases.c — the "Phases and loops" section (analyzer/phases.h): per
 * capture the loops with iterations per wave and first-iteration vs
 * steady-state cost, the phase table with shares and top stall rows, and
 * the main loop in one sentence; plus the analysis.json object. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/fmt.h"
#include "report/sections.h"
#include "report/util.h"

/* "L<k>" for loop index k (preorder, 1-based). */
static const char *loop_name(rep_doc *d, size_t k) { return rep_fmt(d, "L%zu", k + 1); }

static const char *kernel_of(const an_phases *p, uint32_t label)
{
    if (label == AN_PHASE_NONE || label >= p->nrows || !p->rows[label].isa)
        return NULL;
    const char *s = p->rows[label].isa;
    if (*s == ';')
        s++;
    while (*s == ' ')
        s++;
    return s;
}

static const char *phase_name(rep_doc *d, const an_phases *p, const an_phase *ph)
{
    if (ph->kind != AN_PHASE_LOOP)
        return an_phase_kind_id(ph->kind);
    const an_loop *l = &p->loops[ph->loop];
    if (l->parent == AN_PHASE_NONE)
        return rep_fmt(d, "loop %s", loop_name(d, ph->loop));
    return rep_fmt(d, "%s↳ loop %s (in %s)", ph->depth > 1 ? rep_fmt(d, "%*s", (int)(2 * (ph->depth - 1)), "") : "",
                   loop_name(d, ph->loop), loop_name(d, l->parent));
}

static const char *range(rep_doc *d, const an_phases *p, uint32_t first, uint32_t last)
{
    return rep_fmt(d, "%" PRIu64 "–%" PRIu64, p->rows[first].vaddr, p->rows[last].vaddr);
}

static const char *top_cell(rep_doc *d, const an_phases *p, const an_phase *ph)
{
    if (ph->ntop == 0)
        return "—";
    kr_buf b;
    kr_buf_init(&b);
    for (size_t k = 0; k < ph->ntop; k++) {
        const kr_code_row *r = &p->rows[ph->top[k]];
        kr_buf_printf(&b, "%s%" PRIu64 " %s %" PRIu64, k ? "; " : "", r->vaddr, rep_md_code(d, r->isa ? r->isa : ""),
                      r->stall);
    }
    const char *s = rep_fmt(d, "%s", kr_buf_cstr(&b));
    kr_buf_free(&b);
    return s;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* "16 on 32 waves" or "4 on 6 waves, 6 on 2 waves" (iterations ascending). */
static const char *per_wave_cell(rep_doc *d, const an_phases *p, const an_loop *l)
{
    if (p->nwaves == 0)
        return "—";
    uint64_t *v = malloc(p->nwaves * sizeof *v);
    if (!v)
        return "—";
    memcpy(v, l->wave_iterations, p->nwaves * sizeof *v);
    qsort(v, p->nwaves, sizeof *v, cmp_u64);
    kr_buf b;
    kr_buf_init(&b);
    for (size_t i = 0; i < p->nwaves;) {
        size_t j = i;
        while (j < p->nwaves && v[j] == v[i])
            j++;
        kr_buf_printf(&b, "%s%" PRIu64 " on %zu wave%s", i ? ", " : "", v[i], j - i, j - i == 1 ? "" : "s");
        i = j;
    }
    free(v);
    const char *s = rep_fmt(d, "%s", kr_buf_cstr(&b));
    kr_buf_free(&b);
    return s;
}

static void loops_table(rep_doc *d, const an_phases *p)
{
    rep_table *t = rep_table_new(d, "llrlrrlrr", "loop", "vaddr range", "depth", "back edges (vaddr)",
                                 "waves entered", "iterations", "iterations per wave", "first iteration (cycles)",
                                 "steady state (cycles)", (const char *)NULL);
    for (size_t k = 0; k < p->nloops; k++) {
        const an_loop *l = &p->loops[k];
        kr_buf b;
        kr_buf_init(&b);
        for (size_t e = 0; e < l->nbackedges; e++)
            kr_buf_printf(&b, "%s%" PRIu64, e ? ", " : "", p->rows[l->backedges[e]].vaddr);
        if (l->from_stream)
            kr_buf_puts(&b, " (from the streams)");
        const char *edges = rep_fmt(d, "%s", kr_buf_cstr(&b));
        kr_buf_free(&b);
        rep_table_row(t, l->parent == AN_PHASE_NONE ? loop_name(d, k)
                                                    : rep_fmt(d, "%s (in %s)", loop_name(d, k), loop_name(d, l->parent)),
                      range(d, p, l->head, l->tail), rep_u64(d, l->depth), edges, rep_u64(d, l->waves_entered),
                      rep_u64(d, l->iterations), per_wave_cell(d, p, l), rep_dist_cell(d, &l->first_cost),
                      rep_dist_cell(d, &l->steady_cost), (const char *)NULL);
    }
}

static void phases_table(rep_doc *d, const an_phases *p)
{
    int kernels = p->nkernels > 1;
    rep_table *t = kernels
        ? rep_table_new(d, "lllrrrrrrrl", "kernel", "phase", "vaddr range", "instructions", "hit", "latency",
                        "stall", "idle", "share of time", "share of stall", "top stall rows (vaddr, stall)",
                        (const char *)NULL)
        : rep_table_new(d, "llrrrrrrrl", "phase", "vaddr range", "instructions", "hit", "latency", "stall",
                        "idle", "share of time", "share of stall", "top stall rows (vaddr, stall)",
                        (const char *)NULL);
    for (size_t k = 0; k < p->nphases; k++) {
        const an_phase *ph = &p->phases[k];
        const char *cells[12];
        size_t c = 0;
        if (kernels) {
            const char *kn = kernel_of(p, ph->kernel);
            cells[c++] = kn ? rep_md_code(d, kn) : "unknown";
        }
        cells[c++] = phase_name(d, p, ph);
        cells[c++] = range(d, p, ph->first, ph->last);
        cells[c++] = rep_u64(d, ph->rows);
        cells[c++] = rep_u64(d, ph->hit);
        cells[c++] = rep_u64(d, ph->latency);
        cells[c++] = rep_u64(d, ph->stall);
        cells[c++] = rep_u64(d, ph->idle);
        cells[c++] = rep_pct(d, ph->latency + ph->idle, p->total_time);
        cells[c++] = rep_pct(d, ph->stall, p->total_stall);
        cells[c++] = top_cell(d, p, ph);
        rep_table_rowv(t, cells, c);
    }
}

static void main_para(rep_doc *d, const an_phases *p)
{
    if (p->main_loop == AN_PHASE_NONE) {
        rep_para(d, p->nloops ? "No loop was executed by the traced waves." : "No loop: the kernel has no backward branch.");
        return;
    }
    const an_loop *l = &p->loops[p->main_loop];
    char ratio[32] = "n/a";
    if (l->first_cost.n && l->steady_cost.n && l->steady_cost.p50)
        kr_fmt_fixed(ratio, sizeof ratio, (double)l->first_cost.p50 / (double)l->steady_cost.p50, 2);
    rep_para(d, "**Main loop %s** (vaddr %s, %s of the time): %s iterations per wave (p50; min %s, max %s) over "
                "%s entering waves. First iteration %s cycles (p50 over %s; min %s, max %s); steady state %s cycles "
                "(p50 over %s; min %s, max %s); first / steady = %s.",
             loop_name(d, p->main_loop), range(d, p, l->head, l->tail), rep_pct(d, l->latency + l->idle, p->total_time),
             rep_u64(d, l->per_wave.p50), rep_u64(d, l->per_wave.min), rep_u64(d, l->per_wave.max),
             rep_u64(d, l->waves_entered),
             l->first_cost.n ? rep_u64(d, l->first_cost.p50) : "—", rep_u64(d, l->first_cost.n),
             l->first_cost.n ? rep_u64(d, l->first_cost.min) : "—", l->first_cost.n ? rep_u64(d, l->first_cost.max) : "—",
             l->steady_cost.n ? rep_u64(d, l->steady_cost.p50) : "—", rep_u64(d, l->steady_cost.n),
             l->steady_cost.n ? rep_u64(d, l->steady_cost.min) : "—", l->steady_cost.n ? rep_u64(d, l->steady_cost.max) : "—",
             ratio);
}

void rep_md_phases(rep_doc *d, const an_phases *const *r, const char *const *labels, size_t n)
{
    rep_heading(d, 2, "Phases and loops");
    rep_prose(d, "phases.md");
    int sub = n > 1 ? 4 : 3;
    for (size_t i = 0; i < n; i++) {
        const an_phases *p = r[i];
        if (n > 1)
            rep_heading(d, 3, "%s", rep_label(d, labels, i));
        main_para(d, p);
        if (p->nloops) {
            rep_heading(d, sub, "Loops");
            loops_table(d, p);
        }
        if (p->nphases) {
            rep_heading(d, sub, "Phases");
            phases_table(d, p);
        }
    }
}

/* ---- JSON ---- */

void rep_jw_phases(rep_jw *w, const char *key, const an_phases *p)
{
    rep_jw_obj(w, key);
    rep_jw_uint(w, "total_time", p->total_time);
    rep_jw_uint(w, "total_stall", p->total_stall);
    rep_jw_uint(w, "kernels", p->nkernels);
    if (p->main_loop == AN_PHASE_NONE)
        rep_jw_null(w, "main_loop");
    else
        rep_jw_uint(w, "main_loop", p->main_loop);
    rep_jw_arr(w, "loops");
    for (size_t k = 0; k < p->nloops; k++) {
        const an_loop *l = &p->loops[k];
        rep_jw_obj(w, NULL);
        rep_jw_uint(w, "index", k);
        rep_jw_uint(w, "head_row", l->head);
        rep_jw_uint(w, "tail_row", l->tail);
        rep_jw_uint(w, "head_vaddr", p->rows[l->head].vaddr);
        rep_jw_uint(w, "tail_vaddr", p->rows[l->tail].vaddr);
        rep_jw_uint(w, "depth", l->depth);
        if (l->parent == AN_PHASE_NONE)
            rep_jw_null(w, "parent");
        else
            rep_jw_uint(w, "parent", l->parent);
        rep_jw_arr(w, "back_edge_rows");
        for (size_t b = 0; b < l->nbackedges; b++)
            rep_jw_uint(w, NULL, l->backedges[b]);
        rep_jw_end(w);
        rep_jw_bool(w, "from_stream", l->from_stream);
        rep_jw_uint(w, "latency", l->latency);
        rep_jw_uint(w, "stall", l->stall);
        rep_jw_uint(w, "idle", l->idle);
        rep_jw_uint(w, "waves_entered", l->waves_entered);
        rep_jw_uint(w, "entries", l->entries);
        rep_jw_uint(w, "iterations", l->iterations);
        rep_jw_dist(w, "iterations_per_wave", &l->per_wave);
        rep_jw_dist(w, "first_iteration_cycles", &l->first_cost);
        rep_jw_dist(w, "steady_iteration_cycles", &l->steady_cost);
        rep_jw_arr(w, "per_wave");
        for (size_t v = 0; v < p->nwaves && l->wave_iterations; v++) {
            rep_jw_obj(w, NULL);
            rep_jw_str(w, "wave", p->waves[v].file);
            rep_jw_uint(w, "entries", l->wave_entries[v]);
            rep_jw_uint(w, "iterations", l->wave_iterations[v]);
            rep_jw_end(w);
        }
        rep_jw_end(w);
        rep_jw_end(w);
    }
    rep_jw_end(w);
    rep_jw_arr(w, "phases");
    for (size_t k = 0; k < p->nphases; k++) {
        const an_phase *ph = &p->phases[k];
        const char *kn = kernel_of(p, ph->kernel);
        rep_jw_obj(w, NULL);
        rep_jw_sym(w, "kind", an_phase_kind_id(ph->kind));
        if (ph->kind == AN_PHASE_LOOP)
            rep_jw_uint(w, "loop", ph->loop);
        else
            rep_jw_null(w, "loop");
        rep_jw_uint(w, "depth", ph->depth);
        if (kn)
            rep_jw_str(w, "kernel", kn);
        else
            rep_jw_null(w, "kernel");
        rep_jw_uint(w, "first_row", ph->first);
        rep_jw_uint(w, "last_row", ph->last);
        rep_jw_uint(w, "first_vaddr", p->rows[ph->first].vaddr);
        rep_jw_uint(w, "last_vaddr", p->rows[ph->last].vaddr);
        rep_jw_uint(w, "instructions", ph->rows);
        rep_jw_uint(w, "hit", ph->hit);
        rep_jw_uint(w, "latency", ph->latency);
        rep_jw_uint(w, "stall", ph->stall);
        rep_jw_uint(w, "idle", ph->idle);
        rep_jw_share(w, "time_share", ph->latency + ph->idle, p->total_time);
        rep_jw_share(w, "stall_share", ph->stall, p->total_stall);
        rep_jw_arr(w, "top_stall");
        for (size_t t = 0; t < ph->ntop; t++) {
            const kr_code_row *r = &p->rows[ph->top[t]];
            rep_jw_obj(w, NULL);
            rep_jw_uint(w, "row", ph->top[t]);
            rep_jw_uint(w, "vaddr", r->vaddr);
            rep_jw_str(w, "isa", r->isa);
            rep_jw_uint(w, "stall", r->stall);
            rep_jw_end(w);
        }
        rep_jw_end(w);
        rep_jw_end(w);
    }
    rep_jw_end(w);
    rep_jw_end(w);
}

json_t *rep_json_phases(const an_phases *p)
{
    rep_jw w;
    rep_jw_tree(&w);
    rep_jw_phases(&w, NULL, p);
    return rep_jw_tree_end(&w);
}
