/* md_stalls.c — the "Stalls" section: kreport's taxonomy side by side with
 * its top rows per bucket, then the hub analyzer's buckets and source groups
 * for cross-checking (FORMATS.md §8.5); plus the analysis.json object of one
 * capture. */
#include <stdlib.h>
#include <string.h>

#include "common/fmt.h"
#include "report/sections.h"
#include "report/templates.h"

#define MAX_COLS 32
#define MD_TOP_PER_BUCKET 3
#define MD_SOURCES 10
#define JSON_SOURCES 50
#define JSON_TOP 20

static rep_table *table_newv(rep_doc *d, const char *align, const char *const *h, size_t n)
{
    const char *a[MAX_COLS + 1] = {0};
    for (size_t i = 0; i < n && i < MAX_COLS; i++)
        a[i] = h[i] ? h[i] : "";
    return rep_table_new(d, align, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9],
                         a[10], a[11], a[12], a[13], a[14], a[15], a[16], a[17], a[18], a[19],
                         a[20], a[21], a[22], a[23], a[24], a[25], a[26], a[27], a[28], a[29],
                         a[30], a[31], (const char *)NULL);
}

static const char *num(rep_doc *d, uint64_t v)
{
    char b[32];
    return rep_fmt(d, "%s", kr_fmt_u64(b, sizeof b, v));
}

static const char *pct(rep_doc *d, uint64_t part, uint64_t whole)
{
    char b[32];
    return rep_fmt(d, "%s", kr_fmt_pct(b, sizeof b, (double)part, (double)whole, 1));
}

static const char *label_of(rep_doc *d, const char *const *labels, size_t i)
{
    return labels && labels[i] ? rep_md_escape(d, labels[i]) : rep_fmt(d, "capture %zu", i + 1);
}

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
            h[nc] = suffix[s][0] ? rep_fmt(d, "%s %s", label_of(d, labels, i), suffix[s])
                                 : label_of(d, labels, i);
            align[nc++] = 'r';
        }
    align[nc] = '\0';
    return table_newv(d, align, h, nc);
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
            cells[c++] = w == 0 ? num(d, r[i]->kept_rows) : w == 1 ? num(d, r[i]->total_cycles)
                       : w == 2 ? num(d, r[i]->total_stall) : pct(d, r[i]->total_stall, r[i]->total_cycles);
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
            cells[c++] = num(d, b->stall);
            cells[c++] = pct(d, b->stall, r[i]->total_stall);
            cells[c++] = num(d, b->rows);
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
        cells[c++] = num(d, r[i]->total_stall);
        cells[c++] = pct(d, r[i]->total_stall, r[i]->total_stall);
        cells[c++] = num(d, rows);
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
                          num(d, row->vaddr), rep_md_code(d, row->isa ? row->isa : ""), num(d, row->hit),
                          num(d, row->stall), pct(d, row->stall, b->stall), (const char *)NULL);
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
            cells[c++] = s ? num(d, s->stall) : "—";
            cells[c++] = s ? pct(d, s->stall, r[i]->total_stall) : "—";
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
        rep_table_row(t, rep_md_code(d, s->source), num(d, s->rows), num(d, s->stall),
                      num(d, s->latency), rep_md_escape(d, an_hub_bucket_display(s->dominant)),
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
            rep_heading(d, 4, "Top rows per bucket — %s", label_of(d, labels, i));
        else
            rep_heading(d, 4, "Top rows per bucket");
        kind_tops(d, r[i]);
    }

    rep_heading(d, 3, "Cross-check: the hub's hotspot_analyzer.py");
    rep_para(d, "Buckets by substring tests on the instruction text, first match wins (FORMATS.md §8.5).");
    hub(d, r, labels, shown);
    for (size_t i = 0; i < n; i++) {
        if (n > 1)
            rep_heading(d, 4, "Source groups — %s", label_of(d, labels, i));
        else
            rep_heading(d, 4, "Source groups");
        hub_sources(d, r[i]);
    }
    if (shown < n)
        rep_para(d, "(The first %zu of %zu captures are shown side by side; analysis.json has all.)", shown, n);
}

/* ---- JSON ---- */

static json_t *jint(uint64_t v) { return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v); }

/* A JSON string of untrusted text; bytes that are not valid UTF-8 become '?'. */
static json_t *jstr(const char *s)
{
    json_t *j = json_string(s ? s : "");
    if (j)
        return j;
    size_t n = strlen(s);
    char *c = malloc(n + 1);
    if (!c)
        return json_null();
    for (size_t i = 0; i <= n; i++)
        c[i] = (unsigned char)s[i] >= 0x80 ? '?' : s[i];
    j = json_string(c);
    free(c);
    return j ? j : json_null();
}

static json_t *share(uint64_t part, uint64_t whole)
{
    return whole ? json_real((double)part / (double)whole) : json_null();
}

static json_t *row_obj(const an_stalls *r, uint32_t idx)
{
    const kr_code_row *row = &r->rows[idx];
    json_t *o = json_object();
    json_object_set_new(o, "row", jint(idx));
    json_object_set_new(o, "line", jint(row->line));
    json_object_set_new(o, "vaddr", jint(row->vaddr));
    json_object_set_new(o, "isa", jstr(row->isa));
    json_object_set_new(o, "hit", jint(row->hit));
    json_object_set_new(o, "latency", jint(row->latency));
    json_object_set_new(o, "stall", jint(row->stall));
    return o;
}

json_t *rep_json_stalls(const an_stalls *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "kept_rows", jint(r->kept_rows));
    json_object_set_new(o, "total_cycles", jint(r->total_cycles));
    json_object_set_new(o, "total_stall", jint(r->total_stall));
    json_object_set_new(o, "stall_share", share(r->total_stall, r->total_cycles));

    json_t *kb = json_array();
    for (size_t k = 0; k < AN_STALL_COUNT; k++) {
        an_stall_kind kind = r->kind_order[k];
        const an_stall_bucket *b = &r->kinds[kind];
        json_t *e = json_object();
        json_object_set_new(e, "bucket", json_string(an_stall_kind_key(kind)));
        json_object_set_new(e, "stall", jint(b->stall));
        json_object_set_new(e, "share", share(b->stall, r->total_stall));
        json_object_set_new(e, "rows", jint(b->rows));
        json_object_set_new(e, "hit", jint(b->hit));
        json_t *top = json_array();
        for (size_t j = 0; j < b->ntop; j++)
            json_array_append_new(top, row_obj(r, b->top[j]));
        json_object_set_new(e, "top", top);
        json_array_append_new(kb, e);
    }
    json_t *kr = json_object();
    json_object_set_new(kr, "buckets", kb);
    json_object_set_new(o, "kreport", kr);

    json_t *h = json_object();
    json_t *hb = json_array();
    for (size_t k = 0; k < AN_HUB_COUNT; k++) {
        const an_hub_sum *s = &r->hub[k];
        json_t *e = json_object();
        json_object_set_new(e, "bucket", json_string(an_hub_bucket_key(s->bucket)));
        json_object_set_new(e, "name", json_string(an_hub_bucket_display(s->bucket)));
        json_object_set_new(e, "seen", json_boolean(k < r->nhub_seen));
        json_object_set_new(e, "stall", jint(s->stall));
        json_object_set_new(e, "share", share(s->stall, r->total_stall));
        json_object_set_new(e, "rows", jint(s->rows));
        json_array_append_new(hb, e);
    }
    json_object_set_new(h, "buckets", hb);
    json_t *src = json_array();
    for (size_t i = 0; i < r->nsources && i < JSON_SOURCES; i++) {
        const an_hub_source *s = &r->sources[i];
        json_t *e = json_object();
        json_object_set_new(e, "source", jstr(s->source));
        json_object_set_new(e, "first_row", jint(s->first_row));
        json_object_set_new(e, "rows", jint(s->rows));
        json_object_set_new(e, "stall", jint(s->stall));
        json_object_set_new(e, "latency", jint(s->latency));
        json_object_set_new(e, "dominant", s->dominant < AN_HUB_COUNT
                                               ? json_string(an_hub_bucket_key(s->dominant)) : json_null());
        json_array_append_new(src, e);
    }
    json_object_set_new(h, "sources", src);
    json_object_set_new(h, "sources_total", jint(r->nsources));
    json_t *top = json_array();
    for (size_t i = 0; i < r->nhub_top && i < JSON_TOP; i++) {
        json_t *e = row_obj(r, r->hub_top[i]);
        an_hub_bucket b = an_hub_bucket_of(r->rows[r->hub_top[i]].isa);
        json_object_set_new(e, "bucket", json_string(an_hub_bucket_key(b)));
        json_array_append_new(top, e);
    }
    json_object_set_new(h, "top_instructions", top);
    json_object_set_new(h, "top_instructions_total", jint(r->nhub_top));
    json_object_set_new(o, "hub", h);
    return o;
}
