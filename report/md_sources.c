/* md_sources.c — the "Source lines" section (docs/formats.md#source-chains, docs/formats.md#source-snapshots):
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
static void cost_json(rep_jw *w, const char *key, const an_src_cost *c, uint64_t rows)
{
    rep_jw_obj(w, key);
    rep_jw_uint(w, "hit", c->hit);
    rep_jw_uint(w, "latency", c->latency);
    rep_jw_uint(w, "stall", c->stall);
    rep_jw_uint(w, "idle", c->idle);
    rep_jw_uint(w, "rows", rows);
    rep_jw_end(w);
}

void rep_jw_sources(rep_jw *w, const char *key, const an_sources *r)
{
    rep_jw_obj(w, key);
    rep_jw_uint(w, "instruction_rows", r->instruction_rows);
    rep_jw_uint(w, "mapped_rows", r->mapped_rows);
    rep_jw_uint(w, "frames", r->frames);
    rep_jw_uint(w, "frames_resolved", r->frames_resolved);
    rep_jw_uint(w, "copies_used", r->copies_used);
    rep_jw_bool(w, "has_snapshots_json", r->has_snapshots_json);
    rep_jw_uint(w, "distinct_lines", r->distinct_lines);
    rep_jw_uint(w, "weight_total", r->weight_total);
    if (r->has_top1) {
        rep_jw_real(w, "top1_share", r->top1_share);
        rep_jw_uint(w, "top1_line", r->top1_index + 1);
    } else {
        rep_jw_null(w, "top1_share");
        rep_jw_null(w, "top1_line");
    }
    if (r->has_effective)
        rep_jw_real(w, "effective_lines", r->effective_lines);
    else
        rep_jw_null(w, "effective_lines");
    rep_jw_uint(w, "context", r->context);
    rep_jw_uint(w, "range_gap", r->range_gap);
    rep_jw_bool(w, "fallback", r->fallback);
    rep_jw_uint(w, "top_lines", r->ntop);
    rep_jw_uint(w, "top_ranges", r->ntop_ranges);

    rep_jw_arr(w, "lines");
    for (size_t i = 0; i < r->nlines; i++) {
        const an_src_line *l = &r->lines[i];
        rep_jw_obj(w, NULL);
        rep_jw_uint(w, "rank", i + 1);
        rep_jw_str(w, "path", l->path);
        if (l->line)
            rep_jw_uint(w, "line", l->line);
        else
            rep_jw_null(w, "line");
        if (l->copy)
            rep_jw_str(w, "copy", l->copy);
        else
            rep_jw_null(w, "copy");
        rep_jw_sym(w, "resolution", an_src_why_id(l->why));
        cost_json(w, "inclusive", &l->incl, l->incl_rows);
        cost_json(w, "exclusive", &l->excl, l->excl_rows);
        if (l->snippet) {
            rep_jw_uint(w, "snippet_first", l->snippet_first);
            rep_jw_uint(w, "snippet_last", l->snippet_last);
            rep_jw_str(w, "snippet", l->snippet);
        } else {
            rep_jw_null(w, "snippet_first");
            rep_jw_null(w, "snippet_last");
            rep_jw_null(w, "snippet");
        }
        rep_jw_end(w);
    }
    rep_jw_end(w);

    /* rank of each range (1 = most stall) */
    size_t *rank = r->nranges ? calloc(r->nranges, sizeof *rank) : NULL;
    if (rank)
        for (size_t i = 0; i < r->nranges; i++)
            rank[r->range_rank[i]] = i + 1;
    rep_jw_arr(w, "ranges");
    for (size_t i = 0; i < r->nranges; i++) {
        const an_src_range *g = &r->ranges[i];
        rep_jw_obj(w, NULL);
        if (rank)
            rep_jw_uint(w, "rank", rank[i]);
        else
            rep_jw_null(w, "rank");
        if (g->kernel == UINT32_MAX)
            rep_jw_null(w, "kernel_row");
        else
            rep_jw_uint(w, "kernel_row", g->kernel);
        rep_jw_uint(w, "first_row", g->first_row);
        rep_jw_uint(w, "last_row", g->last_row);
        rep_jw_uint(w, "first_vaddr", g->first_vaddr);
        rep_jw_uint(w, "last_vaddr", g->last_vaddr);
        rep_jw_bool(w, "mapped", g->mapped);
        if (g->path)
            rep_jw_str(w, "path", g->path);
        else
            rep_jw_null(w, "path");
        if (g->mapped && g->line_min)
            rep_jw_uint(w, "line_min", g->line_min);
        else
            rep_jw_null(w, "line_min");
        if (g->mapped && g->line_max)
            rep_jw_uint(w, "line_max", g->line_max);
        else
            rep_jw_null(w, "line_max");
        rep_jw_uint(w, "rows", g->rows);
        rep_jw_uint(w, "hit", g->cost.hit);
        rep_jw_uint(w, "latency", g->cost.latency);
        rep_jw_uint(w, "stall", g->cost.stall);
        rep_jw_uint(w, "idle", g->cost.idle);
        rep_jw_end(w);
    }
    free(rank);
    rep_jw_end(w);
    rep_jw_end(w);
}

json_t *rep_json_sources(const an_sources *r)
{
    rep_jw w;
    rep_jw_tree(&w);
    rep_jw_sources(&w, NULL, r);
    return rep_jw_tree_end(&w);
}
