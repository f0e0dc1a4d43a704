/* md_sources.c — the "Source lines" section (FORMATS.md §2.3–§2.5, §3):
 * mapping quality side by side, then per capture the top source lines with
 * snippets from the capture's source copies and the hottest PC ranges; and
 * the analysis.json object of one capture (every line and every range). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fmt.h"
#include "report/sections.h"
#include "report/util.h"
#include "report/templates.h"

#define MAX_COLS 32

static const char *base_name(const char *path)
{
    const char *p = path ? strrchr(path, '/') : NULL;
    return p && p[1] ? p + 1 : (path ? path : "");
}

/* `file.py:257` for a line; unparsed frames show their text. */
static const char *line_cell(rep_doc *d, const an_src_line *l)
{
    if (l->line == 0)
        return rep_md_code(d, l->path ? l->path : "");
    return rep_md_code(d, rep_fmt(d, "%s:%u", base_name(l->path), l->line));
}

static const char *lang_of(const char *path)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    if (!dot || strchr(dot, '/'))
        return "";
    static const char *const cpp[] = {".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".cu", ".hip", ".cuh", NULL};
    if (strcmp(dot, ".py") == 0)
        return "python";
    for (const char *const *e = cpp; *e; e++)
        if (strcmp(dot, *e) == 0)
            return "cpp";
    return "";
}

static void quality_table(rep_doc *d, const an_sources *const *r, const char *const *labels, size_t n)
{
    const char *h[MAX_COLS];
    char align[MAX_COLS + 1];
    size_t nc = 0;
    h[nc] = "";
    align[nc++] = 'l';
    for (size_t i = 0; i < n && nc < MAX_COLS; i++) {
        h[nc] = rep_label(d, labels, i);
        align[nc++] = 'r';
    }
    align[nc] = '\0';
    rep_table *t = rep_table_newv(d, align, h, nc);
    size_t shown = nc - 1;
    const char *cells[MAX_COLS];
    char b[48];

    cells[0] = "instruction rows with a source location";
    for (size_t i = 0; i < shown; i++)
        cells[i + 1] = rep_fmt(d, "%" PRIu64 " / %" PRIu64 " (%s)", r[i]->mapped_rows, r[i]->instruction_rows,
                               kr_fmt_pct(b, sizeof b, (double)r[i]->mapped_rows, (double)r[i]->instruction_rows, 1));
    rep_table_rowv(t, cells, nc);

    cells[0] = "distinct source lines (innermost)";
    for (size_t i = 0; i < shown; i++)
        cells[i + 1] = rep_u64(d, r[i]->distinct_lines);
    rep_table_rowv(t, cells, nc);

    cells[0] = "frames resolved to a source copy";
    for (size_t i = 0; i < shown; i++)
        cells[i + 1] = r[i]->frames ? rep_fmt(d, "%" PRIu64 " / %" PRIu64, r[i]->frames_resolved, r[i]->frames)
                                    : "n/a";
    rep_table_rowv(t, cells, nc);

    cells[0] = "heaviest line's share of hit + stall";
    for (size_t i = 0; i < shown; i++)
        cells[i + 1] = r[i]->has_top1 ? rep_fmt(d, "%s", kr_fmt_pct(b, sizeof b, r[i]->top1_share, 1.0, 1)) : "n/a";
    rep_table_rowv(t, cells, nc);

    cells[0] = "effective number of lines";
    for (size_t i = 0; i < shown; i++)
        cells[i + 1] = r[i]->has_effective ? rep_fmt(d, "%s", kr_fmt_fixed(b, sizeof b, r[i]->effective_lines, 2))
                                           : "n/a";
    rep_table_rowv(t, cells, nc);
    if (shown < n)
        rep_para(d, "(The first %zu of %zu captures are shown side by side; analysis.json has all.)", shown, n);
}

static void top_lines(rep_doc *d, const an_sources *s)
{
    rep_table *t = rep_table_new(d, "rllrrrrr", "#", "source line", "copy", "stall (incl)", "latency (incl)",
                                 "hits (incl)", "stall (excl)", "latency (excl)", (const char *)NULL);
    for (size_t i = 0; i < s->ntop; i++) {
        const an_src_line *l = &s->lines[i];
        rep_table_row(t, rep_u64(d, i + 1), line_cell(d, l), l->copy ? rep_md_code(d, l->copy) : "—",
                      rep_u64(d, l->incl.stall), rep_u64(d, l->incl.latency), rep_u64(d, l->incl.hit),
                      rep_u64(d, l->excl.stall), rep_u64(d, l->excl.latency), (const char *)NULL);
    }
    if (s->ntop < s->nlines)
        rep_para(d, "%zu more line%s in analysis.json.", s->nlines - s->ntop, s->nlines - s->ntop == 1 ? "" : "s");

    for (size_t i = 0; i < s->ntop; i++) {
        const an_src_line *l = &s->lines[i];
        const char *where = l->line ? rep_md_code(d, rep_fmt(d, "%s:%u", l->path, l->line))
                                    : rep_md_code(d, l->path ? l->path : "");
        if (l->snippet) {
            rep_para(d, "**#%zu** %s — stall %s, latency %s (copy %s, lines %u–%u)", i + 1, where,
                     rep_u64(d, l->incl.stall), rep_u64(d, l->incl.latency), rep_md_code(d, l->copy ? l->copy : ""),
                     l->snippet_first, l->snippet_last);
            rep_code(d, lang_of(l->path), l->snippet);
        } else {
            rep_para(d, "**#%zu** %s — no snippet: %s.", i + 1, where, an_src_why_text(l->why));
        }
    }
}

static void ranges_table(rep_doc *d, const an_sources *s)
{
    rep_table *t = rep_table_new(d, "rllrrrr", "#", "vaddr range", "source", "instructions", "stall",
                                 "latency", "hits", (const char *)NULL);
    for (size_t i = 0; i < s->ntop_ranges; i++) {
        const an_src_range *g = &s->ranges[s->range_rank[i]];
        const char *src;
        if (!g->mapped)
            src = s->fallback ? "basic block" : "(no source)";
        else if (g->line_min == g->line_max)
            src = rep_md_code(d, rep_fmt(d, "%s:%u", base_name(g->path), g->line_min));
        else
            src = rep_md_code(d, rep_fmt(d, "%s:%u-%u", base_name(g->path), g->line_min, g->line_max));
        rep_table_row(t, rep_u64(d, i + 1), rep_fmt(d, "0x%" PRIx64 "–0x%" PRIx64, g->first_vaddr, g->last_vaddr),
                      src, rep_u64(d, g->rows), rep_u64(d, g->cost.stall), rep_u64(d, g->cost.latency), rep_u64(d, g->cost.hit),
                      (const char *)NULL);
    }
    if (s->ntop_ranges < s->nranges)
        rep_para(d, "%zu ranges in total (all in analysis.json).", s->nranges);
}

void rep_md_sources(rep_doc *d, const an_sources *const *r, const char *const *labels, size_t n)
{
    rep_heading(d, 2, "Source lines");
    const char *t = rep_template("sources.md", NULL);
    if (t)
        rep_raw(d, t);
    if (n == 0)
        return;
    rep_heading(d, 3, "Mapping quality");
    quality_table(d, r, labels, n);
    for (size_t i = 0; i < n; i++) {
        const an_sources *s = r[i];
        const char *l = rep_label(d, labels, i);
        if (n > 1)
            rep_heading(d, 3, "%s", l);
        if (s->instruction_rows == 0) {
            rep_para(d, "%s: the code table has no instruction rows.", l);
            continue;
        }
        if (s->fallback) {
            rep_para(d, "%s: no instruction row has a source location (%" PRIu64 "/%" PRIu64 " mapped; the "
                        "kernel was most likely compiled without line tables), so there is no source "
                        "attribution. Instead, the kernel's basic blocks (split at branches and branch "
                        "targets) ranked by stall:",
                     l, s->mapped_rows, s->instruction_rows);
        } else {
            rep_para(d, "Top %zu of %zu source lines by inclusive stall (context ±%u lines):", s->ntop, s->nlines,
                     s->context);
            top_lines(d, s);
            if (!s->has_snapshots_json)
                rep_para(d, "The capture has no snapshots.json: no source copies, so no snippets.");
        }
        if (!s->fallback)
            rep_para(d, "PC ranges by stall (a new range starts when the file changes or the line moves more than "
                        "%u lines away; instructions without a location split at branches and branch targets):",
                     s->range_gap);
        ranges_table(d, s);
    }
}

/* ---- analysis.json ---- */

/* A JSON string of untrusted text: invalid UTF-8 bytes become '?', so the
 * key is never lost. */
static json_t *cost_json(const an_src_cost *c, uint64_t rows)
{
    json_t *o = json_object();
    json_object_set_new(o, "hit", rep_jint(c->hit));
    json_object_set_new(o, "latency", rep_jint(c->latency));
    json_object_set_new(o, "stall", rep_jint(c->stall));
    json_object_set_new(o, "idle", rep_jint(c->idle));
    json_object_set_new(o, "rows", rep_jint(rows));
    return o;
}

json_t *rep_json_sources(const an_sources *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "instruction_rows", rep_jint(r->instruction_rows));
    json_object_set_new(o, "mapped_rows", rep_jint(r->mapped_rows));
    json_object_set_new(o, "frames", rep_jint(r->frames));
    json_object_set_new(o, "frames_resolved", rep_jint(r->frames_resolved));
    json_object_set_new(o, "copies_used", rep_jint(r->copies_used));
    json_object_set_new(o, "has_snapshots_json", json_boolean(r->has_snapshots_json));
    json_object_set_new(o, "distinct_lines", rep_jint(r->distinct_lines));
    json_object_set_new(o, "weight_total", rep_jint(r->weight_total));
    json_object_set_new(o, "top1_share", r->has_top1 ? json_real(r->top1_share) : json_null());
    json_object_set_new(o, "top1_line", r->has_top1 ? rep_jint(r->top1_index + 1) : json_null());
    json_object_set_new(o, "effective_lines", r->has_effective ? json_real(r->effective_lines) : json_null());
    json_object_set_new(o, "context", rep_jint(r->context));
    json_object_set_new(o, "range_gap", rep_jint(r->range_gap));
    json_object_set_new(o, "fallback", json_boolean(r->fallback));
    json_object_set_new(o, "top_lines", rep_jint(r->ntop));
    json_object_set_new(o, "top_ranges", rep_jint(r->ntop_ranges));

    json_t *lines = json_array();
    for (size_t i = 0; i < r->nlines; i++) {
        const an_src_line *l = &r->lines[i];
        json_t *x = json_object();
        json_object_set_new(x, "rank", rep_jint(i + 1));
        json_object_set_new(x, "path", rep_jstr(l->path));
        json_object_set_new(x, "line", l->line ? rep_jint(l->line) : json_null());
        json_object_set_new(x, "copy", l->copy ? rep_jstr(l->copy) : json_null());
        json_object_set_new(x, "resolution", json_string(an_src_why_id(l->why)));
        json_object_set_new(x, "inclusive", cost_json(&l->incl, l->incl_rows));
        json_object_set_new(x, "exclusive", cost_json(&l->excl, l->excl_rows));
        json_object_set_new(x, "snippet_first", l->snippet ? rep_jint(l->snippet_first) : json_null());
        json_object_set_new(x, "snippet_last", l->snippet ? rep_jint(l->snippet_last) : json_null());
        json_object_set_new(x, "snippet", l->snippet ? rep_jstr(l->snippet) : json_null());
        json_array_append_new(lines, x);
    }
    json_object_set_new(o, "lines", lines);

    /* rank of each range (1 = most stall) */
    size_t *rank = r->nranges ? calloc(r->nranges, sizeof *rank) : NULL;
    if (rank)
        for (size_t i = 0; i < r->nranges; i++)
            rank[r->range_rank[i]] = i + 1;
    json_t *ranges = json_array();
    for (size_t i = 0; i < r->nranges; i++) {
        const an_src_range *g = &r->ranges[i];
        json_t *x = json_object();
        json_object_set_new(x, "rank", rank ? rep_jint(rank[i]) : json_null());
        json_object_set_new(x, "kernel_row", g->kernel == UINT32_MAX ? json_null() : rep_jint(g->kernel));
        json_object_set_new(x, "first_row", rep_jint(g->first_row));
        json_object_set_new(x, "last_row", rep_jint(g->last_row));
        json_object_set_new(x, "first_vaddr", rep_jint(g->first_vaddr));
        json_object_set_new(x, "last_vaddr", rep_jint(g->last_vaddr));
        json_object_set_new(x, "mapped", json_boolean(g->mapped));
        json_object_set_new(x, "path", g->path ? rep_jstr(g->path) : json_null());
        json_object_set_new(x, "line_min", g->mapped && g->line_min ? rep_jint(g->line_min) : json_null());
        json_object_set_new(x, "line_max", g->mapped && g->line_max ? rep_jint(g->line_max) : json_null());
        json_object_set_new(x, "rows", rep_jint(g->rows));
        json_object_set_new(x, "hit", rep_jint(g->cost.hit));
        json_object_set_new(x, "latency", rep_jint(g->cost.latency));
        json_object_set_new(x, "stall", rep_jint(g->cost.stall));
        json_object_set_new(x, "idle", rep_jint(g->cost.idle));
        json_array_append_new(ranges, x);
    }
    free(rank);
    json_object_set_new(o, "ranges", ranges);
    return o;
}
