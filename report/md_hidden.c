/* md_hidden.c — the "Hidden and exposed latency" section (FORMATS.md §8.4,
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

static void sum_keys(json_t *o, const an_hidden_sum *s)
{
    json_object_set_new(o, "total", rep_jint(s->total));
    json_object_set_new(o, "idle", rep_jint(s->idle));
    json_object_set_new(o, "stall", rep_jint(s->stall));
    json_object_set_new(o, "issue", rep_jint(s->issue));
    json_object_set_new(o, "hidden_idle", rep_jint(s->hidden_idle));
    json_object_set_new(o, "hidden_stall", rep_jint(s->hidden_stall));
    json_object_set_new(o, "hidden_issue", rep_jint(s->hidden_issue));
    json_object_set_new(o, "non_hidden", rep_jint(s->non_hidden));
}

json_t *rep_json_hidden(const an_hidden *h)
{
    json_t *o = json_object();
    json_object_set_new(o, "computed", json_boolean(h->computed));
    json_object_set_new(o, "scopes", rep_jint(h->scopes));
    json_object_set_new(o, "tokens", rep_jint(h->tokens));
    sum_keys(o, &h->all);
    json_object_set_new(o, "non_hidden_share", rep_jshare(h->all.non_hidden, h->all.total));
    json_t *cl = json_array();
    for (int k = 0; k < KR_CLASS_COUNT; k++) {
        if (h->cls[k].total == 0)
            continue;
        json_t *e = json_object();
        json_object_set_new(e, "class", json_string(kr_class_name((kr_class)k)));
        sum_keys(e, &h->cls[k]);
        json_array_append_new(cl, e);
    }
    json_object_set_new(o, "classes", cl);
    json_object_set_new(o, "n", rep_jint(h->n));
    json_t *top = json_array();
    size_t shown = h->nranked < h->n ? h->nranked : h->n;
    for (size_t i = 0; i < shown; i++) {
        const an_hidden_row *x = &h->ranked[i];
        const kr_code_row *r = &h->rows[x->row];
        json_t *e = json_object();
        json_object_set_new(e, "rank", rep_jint(i + 1));
        json_object_set_new(e, "row", rep_jint(x->row));
        json_object_set_new(e, "line", rep_jint(r->line));
        json_object_set_new(e, "vaddr", rep_jint(x->vaddr));
        json_object_set_new(e, "isa", rep_jstr(r->isa));
        json_object_set_new(e, "class", json_string(kr_class_name(r->cls)));
        json_object_set_new(e, "total", rep_jint(x->total));
        json_object_set_new(e, "idle", rep_jint(x->idle));
        json_object_set_new(e, "stall", rep_jint(x->stall));
        json_object_set_new(e, "issue", rep_jint(x->issue));
        json_object_set_new(e, "hidden_idle", rep_jint(x->hidden_idle));
        json_object_set_new(e, "hidden_stall", rep_jint(x->hidden_stall));
        json_object_set_new(e, "hidden_issue", rep_jint(x->hidden_issue));
        json_object_set_new(e, "non_hidden", rep_jint(x->non_hidden));
        json_array_append_new(top, e);
    }
    json_object_set_new(o, "top", top);
    return o;
}
