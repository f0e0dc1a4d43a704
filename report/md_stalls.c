/* md_stalls.c — the "Stalls" section: kreport's taxonomy side by side with
 * its top rows per bucket, then the hub analyzer's buckets and source groups
 * for cross-checking (docs/hotspots.md#hub-analyzer); plus the analysis.json object of one
 * capture. */
#include <stdlib.h>
#include <string.h>

#include "common/fmt.h"
#include "report/sections.h"
#include "report/util.h"
#include "report/templates.h"

#define MAX_COLS 32
#define MD_TOP_PER_BUCKET 3
#define MD_SOURCES 10
#define JSON_SOURCES 50
#define JSON_TOP 20

/* Side-by-side header: first column, then per capture the given suffixes. */
static rep_table *side_table(rep_doc *d, const char *first, const char *const *labels, size_t shown,
                             const char *const *suffix, size_t nsuffix)
{
    const char *h[MAX_COLS];
    char align[MAX_COLS + 1];
    size_t nc = 0;
    h[nc] = first; align[nc++] = 'l';
    for (size_t i = 0; i < shown; i++)
        for (size_t s = 0; s < nsuffix; s++) {
            h[nc] = suffix[s][0] ? rep_fmt(d, "%s %s", rep_label(d, labels, i), suffix[s])
                                 : rep_label(d, labels, i);
            align[nc++] = 'r';
        }
    align[nc] = '\0';
    return rep_table_newv(d, align, h, nc);
}

static void totals(rep_doc *d, const an_stalls *const *r, const char *const *labels, size_t shown)
{
    static const char *const suffix[] = {""};
    rep_table *t = side_table(d, "", labels, shown, suffix, 1);
    static const char *const what[] = {"rows kept", "total cycles (Σ Latency)", "total stall (Σ Stall)",
                                       "stall share of latency"};
    for (size_t w = 0; w < 4; w++) {
        const char *cells[MAX_COLS];
        size_t c = 0;
        cells[c++] = what[w];
        for (size_t i = 0; i < shown; i++)
            cells[c++] = w == 0 ? rep_u64(d, r[i]->kept_rows) : w == 1 ? rep_u64(d, r[i]->total_cycles)
                       : w == 2 ? rep_u64(d, r[i]->total_stall) : rep_pct(d, r[i]->total_stall, r[i]->total_cycles);
        rep_table_rowv(t, cells, c);
    }
}

static void kinds(rep_doc *d, const an_stalls *const *r, const char *const *labels, size_t shown)
{
    /* Rows: the union of the captures' orders, skipping empty buckets. */
    an_stall_kind order[AN_STALL_COUNT];
    int used[AN_STALL_COUNT] = {0};
    size_t m = 0;
    for (size_t i = 0; i < shown; i++)
        for (size_t k = 0; k < AN_STALL_COUNT; k++) {
            an_stall_kind kind = r[i]->kind_order[k];
            if (r[i]->kinds[kind].rows > 0 && !used[kind]) {
                used[kind] = 1;
                order[m++] = kind;
            }
        }
    static const char *const suffix[] = {"cycles", "share", "rows"};
    rep_table *t = side_table(d, "bucket", labels, shown, suffix, 3);
    for (size_t k = 0; k < m; k++) {
        const char *cells[MAX_COLS];
        size_t c = 0;
        cells[c++] = rep_md_code(d, an_stall_kind_key(order[k]));
        for (size_t i = 0; i < shown; i++) {
            const an_stall_bucket *b = &r[i]->kinds[order[k]];
            cells[c++] = rep_u64(d, b->stall);
            cells[c++] = rep_pct(d, b->stall, r[i]->total_stall);
            cells[c++] = rep_u64(d, b->rows);
        }
        rep_table_rowv(t, cells, c);
    }
    const char *cells[MAX_COLS];
    size_t c = 0;
    cells[c++] = "**total**";
    for (size_t i = 0; i < shown; i++) {
        uint64_t rows = 0;
        for (size_t k = 0; k < AN_STALL_COUNT; k++)
            rows += r[i]->kinds[k].rows;
        cells[c++] = rep_u64(d, r[i]->total_stall);
        cells[c++] = rep_pct(d, r[i]->total_stall, r[i]->total_stall);
        cells[c++] = rep_u64(d, rows);
    }
    rep_table_rowv(t, cells, c);
}

static void kind_tops(rep_doc *d, const an_stalls *r)
{
    rep_table *t = rep_table_new(d, "lrlrrr", "bucket", "vaddr", "instruction", "hit", "stall",
                                 "% of bucket", (const char *)NULL);
    for (size_t k = 0; k < AN_STALL_COUNT; k++) {
        an_stall_kind kind = r->kind_order[k];
        const an_stall_bucket *b = &r->kinds[kind];
        for (size_t j = 0; j < b->ntop && j < MD_TOP_PER_BUCKET; j++) {
            const kr_code_row *row = &r->rows[b->top[j]];
            rep_table_row(t, j == 0 ? rep_md_code(d, an_stall_kind_key(kind)) : "",
                          rep_u64(d, row->vaddr), rep_md_code(d, row->isa ? row->isa : ""), rep_u64(d, row->hit),
                          rep_u64(d, row->stall), rep_pct(d, row->stall, b->stall), (const char *)NULL);
        }
    }
}

static void hub(rep_doc *d, const an_stalls *const *r, const char *const *labels, size_t shown)
{
    unsigned order[AN_HUB_COUNT];
    int used[AN_HUB_COUNT] = {0};
    size_t m = 0;
    for (size_t i = 0; i < shown; i++)
        for (size_t k = 0; k < r[i]->nhub_seen; k++) {
            an_hub_bucket b = r[i]->hub[k].bucket;
            if (!used[b]) {
                used[b] = 1;
                order[m++] = b;
            }
        }
    static const char *const suffix[] = {"cycles", "% of stall"};
    rep_table *t = side_table(d, "type", labels, shown, suffix, 2);
    for (size_t k = 0; k < m; k++) {
        const char *cells[MAX_COLS];
        size_t c = 0;
        cells[c++] = rep_md_escape(d, an_hub_bucket_display(order[k]));
        for (size_t i = 0; i < shown; i++) {
            const an_hub_sum *s = NULL;
            for (size_t j = 0; j < r[i]->nhub_seen; j++)
                if (r[i]->hub[j].bucket == order[k])
                    s = &r[i]->hub[j];
            cells[c++] = s ? rep_u64(d, s->stall) : "—";
            cells[c++] = s ? rep_pct(d, s->stall, r[i]->total_stall) : "—";
        }
        rep_table_rowv(t, cells, c);
    }
}

static void hub_sources(rep_doc *d, const an_stalls *r)
{
    if (r->nsources == 0 || (r->nsources == 1 && strcmp(r->sources[0].source, "<unknown>") == 0)) {
        rep_para(d, "No row has a source location, so the hub's source grouping has one group (`<unknown>`).");
        return;
    }
    rep_table *t = rep_table_new(d, "lrrrl", "source", "rows", "stall", "latency", "dominant type",
                                 (const char *)NULL);
    for (size_t i = 0; i < r->nsources && i < MD_SOURCES; i++) {
        const an_hub_source *s = &r->sources[i];
        rep_table_row(t, rep_md_code(d, s->source), rep_u64(d, s->rows), rep_u64(d, s->stall),
                      rep_u64(d, s->latency), rep_md_escape(d, an_hub_bucket_display(s->dominant)),
                      (const char *)NULL);
    }
    if (r->nsources > MD_SOURCES)
        rep_para(d, "(%zu of %zu source groups shown.)", (size_t)MD_SOURCES, r->nsources);
}

void rep_md_stalls(rep_doc *d, const an_stalls *const *r, const char *const *labels, size_t n)
{
    rep_heading(d, 2, "Stalls");
    const char *tp = rep_template("stalls.md", NULL);
    if (tp)
        rep_raw(d, tp);
    if (n == 0)
        return;
    size_t shown = n > (MAX_COLS - 1) / 3 ? (MAX_COLS - 1) / 3 : n;
    totals(d, r, labels, shown);

    rep_heading(d, 3, "By kind of stalled instruction");
    kinds(d, r, labels, shown);
    for (size_t i = 0; i < n; i++) {
        if (n > 1)
            rep_heading(d, 4, "Top rows per bucket — %s", rep_label(d, labels, i));
        else
            rep_heading(d, 4, "Top rows per bucket");
        kind_tops(d, r[i]);
    }

    rep_heading(d, 3, "Cross-check: the hub's hotspot_analyzer.py");
    rep_para(d, "Buckets by substring tests on the instruction text, first match wins (`kreport help stalls`).");
    hub(d, r, labels, shown);
    for (size_t i = 0; i < n; i++) {
        if (n > 1)
            rep_heading(d, 4, "Source groups — %s", rep_label(d, labels, i));
        else
            rep_heading(d, 4, "Source groups");
        hub_sources(d, r[i]);
    }
    if (shown < n)
        rep_para(d, "(The first %zu of %zu captures are shown side by side; analysis.json has all.)", shown, n);
}

/* ---- JSON ---- */

/* The members of one row's object (the caller opens and closes it). */
static void row_keys(rep_jw *w, const an_stalls *r, uint32_t idx)
{
    const kr_code_row *row = &r->rows[idx];
    rep_jw_uint(w, "row", idx);
    rep_jw_uint(w, "line", row->line);
    rep_jw_uint(w, "vaddr", row->vaddr);
    rep_jw_str(w, "isa", row->isa);
    rep_jw_uint(w, "hit", row->hit);
    rep_jw_uint(w, "latency", row->latency);
    rep_jw_uint(w, "stall", row->stall);
}

void rep_jw_stalls(rep_jw *w, const char *key, const an_stalls *r)
{
    rep_jw_obj(w, key);
    rep_jw_uint(w, "kept_rows", r->kept_rows);
    rep_jw_uint(w, "total_cycles", r->total_cycles);
    rep_jw_uint(w, "total_stall", r->total_stall);
    rep_jw_share(w, "stall_share", r->total_stall, r->total_cycles);

    rep_jw_obj(w, "kreport");
    rep_jw_arr(w, "buckets");
    for (size_t k = 0; k < AN_STALL_COUNT; k++) {
        an_stall_kind kind = r->kind_order[k];
        const an_stall_bucket *b = &r->kinds[kind];
        rep_jw_obj(w, NULL);
        rep_jw_sym(w, "bucket", an_stall_kind_key(kind));
        rep_jw_uint(w, "stall", b->stall);
        rep_jw_share(w, "share", b->stall, r->total_stall);
        rep_jw_uint(w, "rows", b->rows);
        rep_jw_uint(w, "hit", b->hit);
        rep_jw_arr(w, "top");
        for (size_t j = 0; j < b->ntop; j++) {
            rep_jw_obj(w, NULL);
            row_keys(w, r, b->top[j]);
            rep_jw_end(w);
        }
        rep_jw_end(w);
        rep_jw_end(w);
    }
    rep_jw_end(w);
    rep_jw_end(w);

    rep_jw_obj(w, "hub");
    rep_jw_arr(w, "buckets");
    for (size_t k = 0; k < AN_HUB_COUNT; k++) {
        const an_hub_sum *s = &r->hub[k];
        rep_jw_obj(w, NULL);
        rep_jw_sym(w, "bucket", an_hub_bucket_key(s->bucket));
        rep_jw_sym(w, "name", an_hub_bucket_display(s->bucket));
        rep_jw_bool(w, "seen", k < r->nhub_seen);
        rep_jw_uint(w, "stall", s->stall);
        rep_jw_share(w, "share", s->stall, r->total_stall);
        rep_jw_uint(w, "rows", s->rows);
        rep_jw_end(w);
    }
    rep_jw_end(w);
    rep_jw_arr(w, "sources");
    for (size_t i = 0; i < r->nsources && i < JSON_SOURCES; i++) {
        const an_hub_source *s = &r->sources[i];
        rep_jw_obj(w, NULL);
        rep_jw_str(w, "source", s->source);
        rep_jw_uint(w, "first_row", s->first_row);
        rep_jw_uint(w, "rows", s->rows);
        rep_jw_uint(w, "stall", s->stall);
        rep_jw_uint(w, "latency", s->latency);
        if (s->dominant < AN_HUB_COUNT)
            rep_jw_sym(w, "dominant", an_hub_bucket_key(s->dominant));
        else
            rep_jw_null(w, "dominant");
        rep_jw_end(w);
    }
    rep_jw_end(w);
    rep_jw_uint(w, "sources_total", r->nsources);
    rep_jw_arr(w, "top_instructions");
    for (size_t i = 0; i < r->nhub_top && i < JSON_TOP; i++) {
        rep_jw_obj(w, NULL);
        row_keys(w, r, r->hub_top[i]);
        an_hub_bucket b = an_hub_bucket_of(r->rows[r->hub_top[i]].isa);
        rep_jw_sym(w, "bucket", an_hub_bucket_key(b));
        rep_jw_end(w);
    }
    rep_jw_end(w);
    rep_jw_uint(w, "top_instructions_total", r->nhub_top);
    rep_jw_end(w);
    rep_jw_end(w);
}

json_t *rep_json_stalls(const an_stalls *r)
{
    rep_jw w;
    rep_jw_tree(&w);
    rep_jw_stalls(&w, NULL, r);
    return rep_jw_tree_end(&w);
}
