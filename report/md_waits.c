/* md_waits.c — the "Waits and their producers" section (analyzer/waits.h):
 * per capture where the links came from, the hot waits with their top
 * producer, distance and exposed latency, the producers of the hottest
 * waits, and the producers ranked by attributed stall; plus the
 * analysis.json object of one capture. */
#include <inttypes.h>
#include <string.h>

#include "common/file.h"
#include "common/fmt.h"
#include "report/sections.h"
#include "report/util.h"

#define MD_DETAIL 2                 /* hot waits whose producers are listed */
#define MD_PRODUCERS 6              /* producers listed per wait */

/* ---- shared with md_hidden.c and md_phases.c ---- */

const char *rep_source_cell(rep_doc *d, const kr_code_row *r)
{
    if (r->nframes == 0)
        return r->source && r->source[0] ? rep_md_code(d, r->source) : "—";
    const kr_frame *f = &r->frames[0];
    const char *loc = f->line ? rep_fmt(d, "%s:%u", kr_path_base(f->path ? f->path : ""), f->line)
                              : kr_path_base(f->path ? f->path : "");
    const char *cell = rep_md_code(d, loc);
    return r->nframes > 1 ? rep_fmt(d, "%s (+%u)", cell, r->nframes - 1) : cell;
}

const char *rep_dist_cell(rep_doc *d, const an_dist *x)
{
    if (!x->n)
        return "—";
    if (x->p10 == x->p90)
        return rep_u64(d, x->p50);
    return rep_fmt(d, "%" PRIu64 " (%" PRIu64 "–%" PRIu64 ")", x->p50, x->p10, x->p90);
}

void rep_jw_dist(rep_jw *w, const char *key, const an_dist *x)
{
    rep_jw_obj(w, key);
    rep_jw_uint(w, "n", x->n);
    if (x->n) {
        rep_jw_uint(w, "min", x->min);
        rep_jw_uint(w, "p10", x->p10);
        rep_jw_uint(w, "p50", x->p50);
        rep_jw_uint(w, "p90", x->p90);
        rep_jw_uint(w, "max", x->max);
    } else {
        rep_jw_null(w, "min");
        rep_jw_null(w, "p10");
        rep_jw_null(w, "p50");
        rep_jw_null(w, "p90");
        rep_jw_null(w, "max");
    }
    rep_jw_end(w);
}

json_t *rep_json_dist(const an_dist *x)
{
    rep_jw w;
    rep_jw_tree(&w);
    rep_jw_dist(&w, NULL, x);
    return rep_jw_tree_end(&w);
}

/* ---- Markdown ---- */

static const char *isa_cell(rep_doc *d, const kr_code_row *r)
{
    return rep_md_code(d, r->isa ? r->isa : "");
}

static void links_para(rep_doc *d, const an_waits *w)
{
    size_t waves = w->waves_stored + w->waves_computed + w->waves_none;
    const char *from;
    switch (w->source) {
    case AN_LINKS_STORED:
        from = rep_fmt(d, "the stored `waitcnt` arrays of all %zu waves", w->waves_stored);
        break;
    case AN_LINKS_COMPUTED:
        from = rep_fmt(d, "the recomputation from the instruction stream for all %zu waves (no wave file stores a `waitcnt` array)",
                       w->waves_computed);
        break;
    case AN_LINKS_MIXED:
        from = rep_fmt(d, "the stored `waitcnt` arrays of %zu waves and the recomputation from the instruction stream for %zu waves "
                          "without one", w->waves_stored, w->waves_computed);
        break;
    default:
        from = rep_fmt(d, "nowhere: none of the %zu waves stores a `waitcnt` array and gfxip has no recomputation rules (`kreport help waits`)", waves);
        break;
    }
    rep_para(d, "Links from %s: %s entries, %s producer executions linked%s. The waits stalled %s cycles "
                "(%s of all stall cycles); %s of them (%s) fall in executions that released a producer and are "
                "attributed to it.",
             from, rep_u64(d, w->entries), rep_u64(d, w->links),
             w->links_unplaced ? rep_fmt(d, " (%s stored producers without an earlier execution)",
                                         rep_u64(d, w->links_unplaced)) : "",
             rep_u64(d, w->wait_stall), rep_pct(d, w->wait_stall, w->total_stall), rep_u64(d, w->attributed),
             rep_pct(d, w->attributed, w->wait_stall));
}

static void hot_table(rep_doc *d, const an_waits *w, size_t shown)
{
    rep_table *t = rep_table_new(d, "rrlrrrrlrrrr", "#", "vaddr", "wait", "executions", "stall", "share of stall",
                                 "linked", "top producer (vaddr, waited on)", "distance instr.", "distance cycles",
                                 "exposed cycles", "issue earlier / insert", (const char *)NULL);
    for (size_t i = 0; i < shown; i++) {
        const an_wait *x = &w->waits[i];
        const kr_code_row *r = &w->rows[x->row];
        const char *top = "—";
        if (x->nproducers) {
            const an_wait_producer *p = &x->producers[0];
            top = rep_fmt(d, "%s %s, %s", rep_u64(d, p->vaddr), isa_cell(d, &w->rows[p->row]),
                          rep_pct(d, p->waited, x->executions));
        }
        const char *fix = x->linked == 0 ? "—"
            : x->has_extra ? rep_fmt(d, "%s cycles / %s instr.", rep_u64(d, x->earlier_cycles), rep_u64(d, x->extra_insts))
                           : rep_fmt(d, "%s cycles", rep_u64(d, x->earlier_cycles));
        rep_table_row(t, rep_u64(d, i + 1), rep_u64(d, x->vaddr), isa_cell(d, r), rep_u64(d, x->executions),
                      rep_u64(d, x->stall), rep_pct(d, x->stall, w->total_stall), rep_u64(d, x->linked), top,
                      rep_dist_cell(d, &x->dist_insts), rep_dist_cell(d, &x->dist_cycles),
                      rep_dist_cell(d, &x->exposed), fix, (const char *)NULL);
    }
}

static void detail(rep_doc *d, const an_waits *w, size_t k)
{
    const an_wait *x = &w->waits[k];
    const kr_code_row *r = &w->rows[x->row];
    const char *src = rep_source_cell(d, r);
    rep_para(d, "**%zu.** %s at vaddr %s (line %s%s%s): %s stall cycles over %s executions; %s linked executions "
                "(critical producer issued %s instr. / %s cycles before the wait, p50); observed producer "
                "latency %s cycles (p50 of distance + stall).",
             k + 1, isa_cell(d, r), rep_u64(d, x->vaddr), rep_u64(d, r->line), strcmp(src, "—") ? ", " : "",
             strcmp(src, "—") ? src : "",
             rep_u64(d, x->stall), rep_u64(d, x->executions), rep_u64(d, x->linked),
             x->dist_insts.n ? rep_u64(d, x->dist_insts.p50) : "—", x->dist_cycles.n ? rep_u64(d, x->dist_cycles.p50) : "—",
             x->observed.n ? rep_u64(d, x->observed.p50) : "—");
    rep_table *t = rep_table_new(d, "rlllrrrrrr", "vaddr", "producer", "class", "source", "waited on", "links",
                                 "critical", "attributed stall", "distance instr.", "distance cycles",
                                 (const char *)NULL);
    size_t shown = x->nproducers < MD_PRODUCERS ? x->nproducers : MD_PRODUCERS;
    for (size_t i = 0; i < shown; i++) {
        const an_wait_producer *p = &x->producers[i];
        const kr_code_row *pr = &w->rows[p->row];
        rep_table_row(t, rep_u64(d, p->vaddr), isa_cell(d, pr), kr_class_name(pr->cls), rep_source_cell(d, pr),
                      rep_fmt(d, "%s (%s)", rep_u64(d, p->waited), rep_pct(d, p->waited, x->executions)),
                      rep_u64(d, p->links), rep_u64(d, p->critical), rep_u64(d, p->stall),
                      rep_dist_cell(d, &p->dist_insts), rep_dist_cell(d, &p->dist_cycles), (const char *)NULL);
    }
    if (x->nproducers > shown)
        rep_para(d, "… and %zu more producers (analysis.json lists all).", x->nproducers - shown);
}

static void top_producers(rep_doc *d, const an_waits *w, size_t shown)
{
    rep_table *t = rep_table_new(d, "rrlllrrrrrrrr", "#", "vaddr", "producer", "class", "source", "attributed stall",
                                 "share of stall", "links", "critical", "waits", "main wait (vaddr)",
                                 "exposed cycles", "distance cycles", (const char *)NULL);
    for (size_t i = 0; i < shown; i++) {
        const an_top_producer *p = &w->producers[i];
        const kr_code_row *r = &w->rows[p->row];
        rep_table_row(t, rep_u64(d, i + 1), rep_u64(d, p->vaddr), isa_cell(d, r), kr_class_name(r->cls),
                      rep_source_cell(d, r), rep_u64(d, p->stall), rep_pct(d, p->stall, w->total_stall),
                      rep_u64(d, p->links), rep_u64(d, p->critical), rep_u64(d, p->nwaits),
                      rep_u64(d, w->rows[p->top_wait].vaddr), rep_dist_cell(d, &p->exposed),
                      rep_dist_cell(d, &p->dist_cycles), (const char *)NULL);
    }
}

void rep_md_waits(rep_doc *d, const an_waits *const *r, const char *const *labels, size_t n)
{
    rep_heading(d, 2, "Waits and their producers");
    rep_prose(d, "waits.md");
    int sub = n > 1 ? 4 : 3;
    for (size_t i = 0; i < n; i++) {
        const an_waits *w = r[i];
        if (n > 1)
            rep_heading(d, 3, "%s", rep_label(d, labels, i));
        links_para(d, w);
        size_t hot = 0;                  /* waits that stalled */
        while (hot < w->nwaits && w->waits[hot].stall > 0)
            hot++;
        if (hot == 0) {
            rep_para(d, "No wait stalled.");
            continue;
        }
        size_t shown = hot < w->n ? hot : w->n;
        rep_heading(d, sub, "Top %zu waits by stall", shown);
        hot_table(d, w, shown);
        size_t nd = 0;
        for (size_t k = 0; k < shown && nd < MD_DETAIL; k++)
            if (w->waits[k].nproducers)
                nd++;
        if (nd) {
            rep_heading(d, sub, "Producers of the top %zu waits", nd);
            for (size_t k = 0, done = 0; k < shown && done < nd; k++)
                if (w->waits[k].nproducers) {
                    detail(d, w, k);
                    done++;
                }
        }
        size_t np = 0;                   /* producers with attributed stall */
        while (np < w->nproducers && np < w->n && w->producers[np].stall > 0)
            np++;
        if (np) {
            rep_heading(d, sub, "Top %zu producers by attributed stall", np);
            top_producers(d, w, np);
        }
    }
}

/* ---- JSON ---- */

static void row_keys(rep_jw *w, const kr_code_row *rows, uint32_t row)
{
    const kr_code_row *r = &rows[row];
    rep_jw_uint(w, "row", row);
    rep_jw_uint(w, "line", r->line);
    rep_jw_uint(w, "vaddr", r->vaddr);
    rep_jw_str(w, "isa", r->isa);
    if (r->source && r->source[0])
        rep_jw_str(w, "source", r->source);
    else
        rep_jw_null(w, "source");
}

void rep_jw_waits(rep_jw *j, const char *key, const an_waits *w)
{
    rep_jw_obj(j, key);
    rep_jw_sym(j, "links_source", an_links_source_id(w->source));
    rep_jw_uint(j, "waves_stored", w->waves_stored);
    rep_jw_uint(j, "waves_computed", w->waves_computed);
    rep_jw_uint(j, "waves_none", w->waves_none);
    rep_jw_uint(j, "entries", w->entries);
    rep_jw_uint(j, "links", w->links);
    rep_jw_uint(j, "links_unplaced", w->links_unplaced);
    rep_jw_uint(j, "total_stall", w->total_stall);
    rep_jw_uint(j, "wait_stall", w->wait_stall);
    rep_jw_uint(j, "attributed_stall", w->attributed);
    rep_jw_uint(j, "n", w->n);
    rep_jw_arr(j, "waits");
    for (size_t i = 0; i < w->nwaits && i < w->n; i++) {
        const an_wait *x = &w->waits[i];
        rep_jw_obj(j, NULL);
        rep_jw_uint(j, "rank", i + 1);
        row_keys(j, w->rows, x->row);
        rep_jw_uint(j, "executions", x->executions);
        rep_jw_uint(j, "stall", x->stall);
        rep_jw_share(j, "stall_share", x->stall, w->total_stall);
        rep_jw_uint(j, "linked", x->linked);
        rep_jw_uint(j, "links", x->links);
        rep_jw_uint(j, "attributed_stall", x->attributed);
        rep_jw_dist(j, "distance_instructions", &x->dist_insts);
        rep_jw_dist(j, "distance_cycles", &x->dist_cycles);
        rep_jw_dist(j, "exposed_latency", &x->exposed);
        rep_jw_dist(j, "observed_latency", &x->observed);
        rep_jw_uint_or_null(j, "issue_earlier_cycles", x->linked != 0, x->earlier_cycles);
        rep_jw_uint_or_null(j, "independent_instructions", x->has_extra != 0, x->extra_insts);
        rep_jw_arr(j, "producers");
        for (size_t k = 0; k < x->nproducers; k++) {
            const an_wait_producer *p = &x->producers[k];
            rep_jw_obj(j, NULL);
            row_keys(j, w->rows, p->row);
            rep_jw_sym(j, "class", kr_class_name(w->rows[p->row].cls));
            rep_jw_uint(j, "waited", p->waited);
            rep_jw_share(j, "waited_share", p->waited, x->executions);
            rep_jw_uint(j, "links", p->links);
            rep_jw_uint(j, "critical", p->critical);
            rep_jw_uint(j, "attributed_stall", p->stall);
            rep_jw_uint_or_null(j, "distance_instructions_p50", p->dist_insts.n != 0, p->dist_insts.p50);
            rep_jw_uint_or_null(j, "distance_cycles_p50", p->dist_cycles.n != 0, p->dist_cycles.p50);
            rep_jw_end(j);
        }
        rep_jw_end(j);
        rep_jw_end(j);
    }
    rep_jw_end(j);
    rep_jw_arr(j, "top_producers");
    for (size_t i = 0; i < w->nproducers && i < w->n; i++) {
        const an_top_producer *p = &w->producers[i];
        rep_jw_obj(j, NULL);
        rep_jw_uint(j, "rank", i + 1);
        row_keys(j, w->rows, p->row);
        rep_jw_sym(j, "class", kr_class_name(w->rows[p->row].cls));
        rep_jw_uint(j, "attributed_stall", p->stall);
        rep_jw_share(j, "stall_share", p->stall, w->total_stall);
        rep_jw_uint(j, "links", p->links);
        rep_jw_uint(j, "critical", p->critical);
        rep_jw_uint(j, "waits", p->nwaits);
        rep_jw_uint(j, "top_wait_row", p->top_wait);
        rep_jw_uint(j, "top_wait_vaddr", w->rows[p->top_wait].vaddr);
        rep_jw_dist(j, "exposed_latency", &p->exposed);
        rep_jw_uint_or_null(j, "distance_cycles_p50", p->dist_cycles.n != 0, p->dist_cycles.p50);
        rep_jw_end(j);
    }
    rep_jw_end(j);
    rep_jw_end(j);
}

json_t *rep_json_waits(const an_waits *w)
{
    rep_jw j;
    rep_jw_tree(&j);
    rep_jw_waits(&j, NULL, w);
    return rep_jw_tree_end(&j);
}
