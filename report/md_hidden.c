/* md_hidden.c — the "Hidden and exposed latency" section (docs/hidden-latency.md,
 * analyzer/hidden.h): totals side by side and the rows ranked by non-hidden
 * latency; plus the analysis.json object of one capture (which also has
 * the sums per instruction class). */
#include <inttypes.h>

#include "common/fmt.h"
#include "report/sections.h"
#include "report/util.h"

#define MAX_COLS 32

static void totals(rep_doc *d, const an_hidden *const *r, const char *const *labels, size_t shown)
{
    const char *h[MAX_COLS];
    char align[MAX_COLS + 1];
    size_t nc = 0;
    h[nc] = "";
    align[nc++] = 'l';
    for (size_t i = 0; i < shown; i++) {
        h[nc] = rep_label(d, labels, i);
        align[nc++] = 'r';
    }
    align[nc] = '\0';
    rep_table *t = rep_table_newv(d, align, h, nc);
    static const char *const what[] = {
        "total (Σ Latency + Σ Idle)", "hidden idle", "hidden stall", "hidden issue", "non-hidden",
        "non-hidden share", "(SE, SIMD) scopes"};
    for (size_t k = 0; k < sizeof what / sizeof what[0]; k++) {
        const char *cells[MAX_COLS];
        size_t c = 0;
        cells[c++] = what[k];
        for (size_t i = 0; i < shown; i++) {
            const an_hidden_sum *s = &r[i]->all;
            switch (k) {
            case 0: cells[c++] = rep_u64(d, s->total); break;
            case 1: cells[c++] = rep_u64(d, s->hidden_idle); break;
            case 2: cells[c++] = rep_u64(d, s->hidden_stall); break;
            case 3: cells[c++] = rep_u64(d, s->hidden_issue); break;
            case 4: cells[c++] = rep_u64(d, s->non_hidden); break;
            case 5: cells[c++] = rep_pct(d, s->non_hidden, s->total); break;
            default: cells[c++] = rep_u64(d, r[i]->scopes); break;
            }
        }
        rep_table_rowv(t, cells, c);
    }
}

static void ranking(rep_doc *d, const an_hidden *h, size_t shown)
{
    rep_table *t = rep_table_new(d, "rrllrrrrrl", "#", "vaddr", "instruction", "class", "total",
                                 "idle / stall / issue", "hidden idle / stall / issue", "non-hidden",
                                 "share of non-hidden", "source", (const char *)NULL);
    for (size_t i = 0; i < shown; i++) {
        const an_hidden_row *x = &h->ranked[i];
        const kr_code_row *r = &h->rows[x->row];
        rep_table_row(t, rep_u64(d, i + 1), rep_u64(d, x->vaddr), rep_md_code(d, r->isa ? r->isa : ""),
                      kr_class_name(r->cls), rep_u64(d, x->total),
                      rep_fmt(d, "%" PRIu64 " / %" PRIu64 " / %" PRIu64, x->idle, x->stall, x->issue),
                      rep_fmt(d, "%" PRIu64 " / %" PRIu64 " / %" PRIu64, x->hidden_idle, x->hidden_stall, x->hidden_issue),
                      rep_u64(d, x->non_hidden), rep_pct(d, x->non_hidden, h->all.non_hidden),
                      rep_source_cell(d, r), (const char *)NULL);
    }
}

void rep_md_hidden(rep_doc *d, const an_hidden *const *r, const char *const *labels, size_t n)
{
    rep_heading(d, 2, "Hidden and exposed latency");
    rep_prose(d, "hidden.md");
    size_t shown = n < MAX_COLS - 1 ? n : MAX_COLS - 1;
    totals(d, r, labels, shown);
    int sub = n > 1 ? 4 : 3;
    for (size_t i = 0; i < n; i++) {
        const an_hidden *h = r[i];
        if (n > 1)
            rep_heading(d, 3, "%s", rep_label(d, labels, i));
        if (!h->computed) {
            rep_para(d, "No instruction records: nothing to compute.");
            continue;
        }
        size_t top = h->nranked < h->n ? h->nranked : h->n;
        rep_heading(d, sub, "Top %zu instructions by non-hidden latency", top);
        ranking(d, h, top);
    }
}

/* ---- JSON ---- */

static void sum_keys(rep_jw *w, const an_hidden_sum *s)
{
    rep_jw_uint(w, "total", s->total);
    rep_jw_uint(w, "idle", s->idle);
    rep_jw_uint(w, "stall", s->stall);
    rep_jw_uint(w, "issue", s->issue);
    rep_jw_uint(w, "hidden_idle", s->hidden_idle);
    rep_jw_uint(w, "hidden_stall", s->hidden_stall);
    rep_jw_uint(w, "hidden_issue", s->hidden_issue);
    rep_jw_uint(w, "non_hidden", s->non_hidden);
}

void rep_jw_hidden(rep_jw *w, const char *key, const an_hidden *h)
{
    rep_jw_obj(w, key);
    rep_jw_bool(w, "computed", h->computed);
    rep_jw_uint(w, "scopes", h->scopes);
    rep_jw_uint(w, "tokens", h->tokens);
    sum_keys(w, &h->all);
    rep_jw_share(w, "non_hidden_share", h->all.non_hidden, h->all.total);
    rep_jw_arr(w, "classes");
    for (int k = 0; k < KR_CLASS_COUNT; k++) {
        if (h->cls[k].total == 0)
            continue;
        rep_jw_obj(w, NULL);
        rep_jw_sym(w, "class", kr_class_name((kr_class)k));
        sum_keys(w, &h->cls[k]);
        rep_jw_end(w);
    }
    rep_jw_end(w);
    rep_jw_uint(w, "n", h->n);
    rep_jw_arr(w, "top");
    size_t shown = h->nranked < h->n ? h->nranked : h->n;
    for (size_t i = 0; i < shown; i++) {
        const an_hidden_row *x = &h->ranked[i];
        const kr_code_row *r = &h->rows[x->row];
        rep_jw_obj(w, NULL);
        rep_jw_uint(w, "rank", i + 1);
        rep_jw_uint(w, "row", x->row);
        rep_jw_uint(w, "line", r->line);
        rep_jw_uint(w, "vaddr", x->vaddr);
        rep_jw_str(w, "isa", r->isa);
        rep_jw_sym(w, "class", kr_class_name(r->cls));
        rep_jw_uint(w, "total", x->total);
        rep_jw_uint(w, "idle", x->idle);
        rep_jw_uint(w, "stall", x->stall);
        rep_jw_uint(w, "issue", x->issue);
        rep_jw_uint(w, "hidden_idle", x->hidden_idle);
        rep_jw_uint(w, "hidden_stall", x->hidden_stall);
        rep_jw_uint(w, "hidden_issue", x->hidden_issue);
        rep_jw_uint(w, "non_hidden", x->non_hidden);
        rep_jw_end(w);
    }
    rep_jw_end(w);
    rep_jw_end(w);
}

json_t *rep_json_hidden(const an_hidden *h)
{
    rep_jw w;
    rep_jw_tree(&w);
    rep_jw_hidden(&w, NULL, h);
    return rep_jw_tree_end(&w);
}
