/* sources.c — see sources.h. */
#include "analyzer/sources.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/err.h"

void an_sources_opts_default(an_sources_opts *o)
{
    o->top_lines = AN_SOURCES_TOP_LINES;
    o->context = AN_SOURCES_CONTEXT;
    o->range_gap = AN_SOURCES_RANGE_GAP;
    o->top_ranges = AN_SOURCES_TOP_RANGES;
}

const char *an_src_why_text(an_src_why w)
{
    switch (w) {
    case AN_SRC_RESOLVED: return "resolved";
    case AN_SRC_NO_SNAPSHOTS: return "no snapshots.json in the capture";
    case AN_SRC_NOT_IN_TREE: return "path not in snapshots.json";
    case AN_SRC_UNSAFE: return "unsafe copy name, not opened";
    case AN_SRC_MISSING: return "source copy missing";
    case AN_SRC_OUT_OF_RANGE: return "line beyond the end of the copy";
    case AN_SRC_UNPARSED: return "frame has no line number";
    }
    return "?";
}

const char *an_src_why_id(an_src_why w)
{
    switch (w) {
    case AN_SRC_RESOLVED: return "resolved";
    case AN_SRC_NO_SNAPSHOTS: return "no_snapshots";
    case AN_SRC_NOT_IN_TREE: return "not_in_snapshots";
    case AN_SRC_UNSAFE: return "unsafe";
    case AN_SRC_MISSING: return "missing";
    case AN_SRC_OUT_OF_RANGE: return "out_of_range";
    case AN_SRC_UNPARSED: return "unparsed";
    }
    return "?";
}

/* One (row, distinct frame) pair before grouping. */
typedef struct entry {
    const char *path;
    uint32_t line;
    int32_t snapshot;
    uint32_t row;
    uint8_t innermost;
} entry;

static int path_cmp(const char *a, const char *b)
{
    if (a == b)
        return 0;
    return strcmp(a ? a : "", b ? b : "");
}

static int entry_cmp(const void *pa, const void *pb)
{
    const entry *a = pa, *b = pb;
    int c = path_cmp(a->path, b->path);
    if (c)
        return c;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->row != b->row)
        return a->row < b->row ? -1 : 1;
    return 0;
}

static int line_rank_cmp(const void *pa, const void *pb)
{
    const an_src_line *a = pa, *b = pb;
    if (a->incl.stall != b->incl.stall)
        return a->incl.stall > b->incl.stall ? -1 : 1;
    if (a->incl.latency != b->incl.latency)
        return a->incl.latency > b->incl.latency ? -1 : 1;
    int c = path_cmp(a->path, b->path);
    if (c)
        return c;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    return 0;
}

static void cost_add(an_src_cost *c, const kr_code_row *r)
{
    c->hit += r->hit;
    c->latency += r->latency;
    c->stall += r->stall;
    c->idle += r->idle;
}

static an_src_why why_of(const kr_capture *c, const char *path, uint32_t line, int32_t snap)
{
    (void)path;
    if (line == 0)
        return AN_SRC_UNPARSED;
    if (snap < 0 || (size_t)snap >= c->nsnapshots)
        return c->has_snapshots_json ? AN_SRC_NOT_IN_TREE : AN_SRC_NO_SNAPSHOTS;
    const kr_snapshot *s = &c->snapshots[snap];
    if (!s->safe)
        return AN_SRC_UNSAFE;
    if (!s->loaded || !s->lines)
        return AN_SRC_MISSING;
    if (line > s->nlines)
        return AN_SRC_OUT_OF_RANGE;
    return AN_SRC_RESOLVED;
}

/* Text of 1-based line n of a copy, without its line end. */
static void copy_line(const kr_snapshot *s, size_t n, const char **text, size_t *len)
{
    const char *start = s->lines[n - 1];
    const char *end = s->text + s->len;
    const char *p = start;
    while (p < end && *p != '\n')
        p++;
    if (p > start && p[-1] == '\r')
        p--;
    *text = start;
    *len = (size_t)(p - start);
}

static char *make_snippet(const kr_snapshot *s, uint32_t line, uint32_t ctx,
                          uint32_t *first_out, uint32_t *last_out)
{
    uint32_t first = line > ctx ? line - ctx : 1;
    uint64_t last64 = (uint64_t)line + ctx;
    uint32_t last = last64 > s->nlines ? (uint32_t)s->nlines : (uint32_t)last64;
    char num[16];
    int width = snprintf(num, sizeof num, "%u", last);
    kr_buf b;
    kr_buf_init(&b);
    for (uint32_t n = first; n <= last; n++) {
        const char *text;
        size_t len;
        copy_line(s, n, &text, &len);
        kr_buf_printf(&b, "%s%*u | ", n == line ? ">>> " : "    ", width, n);
        kr_buf_append(&b, text, len);
        kr_buf_putc(&b, '\n');
    }
    if (b.oom) {
        kr_buf_free(&b);
        return NULL;
    }
    *first_out = first;
    *last_out = last;
    if (!b.data) {          /* no line (cannot happen with line in range) */
        char *e = malloc(1);
        if (e)
            e[0] = '\0';
        return e;
    }
    return b.data;          /* ownership moves to the caller */
}

/* ---- basic-block leaders for unmapped ranges ---- */

typedef struct target {
    uint32_t kernel;
    uint64_t vaddr;
} target;

static int target_cmp(const void *pa, const void *pb)
{
    const target *a = pa, *b = pb;
    if (a->kernel != b->kernel)
        return a->kernel < b->kernel ? -1 : 1;
    if (a->vaddr != b->vaddr)
        return a->vaddr < b->vaddr ? -1 : 1;
    return 0;
}

/* s_branch / s_cbranch_* with an integer operand: its target (gfx9 SOPP,
 * target = pc + 4 + 4 × simm16). Returns 0 when the row has none. */
static int branch_target(const kr_code_row *r, uint64_t *out)
{
    const char *m = r->mnemonic ? r->mnemonic : "";
    if (strcmp(m, "s_branch") != 0 && strncmp(m, "s_cbranch", 9) != 0)
        return 0;
    const char *p = strchr(r->isa ? r->isa : "", ' ');
    if (!p)
        return 0;
    while (*p == ' ' || *p == '\t')
        p++;
    char *end;
    long long v = strtoll(p, &end, 0);
    if (end == p || (*end && *end != ' ' && *end != '\t' && *end != ','))
        return 0;
    if (v < -32768 || v > 65535)
        return 0;
    int64_t simm = (int16_t)(uint16_t)(v & 0xffff);
    *out = r->vaddr + 4 + (uint64_t)(simm * 4);
    return 1;
}

static int range_rank_cmp(const an_src_range *a, const an_src_range *b)
{
    if (a->cost.stall != b->cost.stall)
        return a->cost.stall > b->cost.stall ? -1 : 1;
    if (a->cost.latency != b->cost.latency)
        return a->cost.latency > b->cost.latency ? -1 : 1;
    if (a->first_row != b->first_row)
        return a->first_row < b->first_row ? -1 : 1;
    return 0;
}

static void sort_range_index(size_t *idx, size_t n, const an_src_range *ranges)
{
    /* qsort has no context argument: a stable bottom-up merge sort over
     * indices (insertion sort if the scratch array cannot be allocated). */
    if (n < 2)
        return;
    size_t *tmp = malloc(n * sizeof *tmp);
    if (!tmp) {
        for (size_t i = 1; i < n; i++) {
            size_t v = idx[i], j = i;
            while (j > 0 && range_rank_cmp(&ranges[v], &ranges[idx[j - 1]]) < 0) {
                idx[j] = idx[j - 1];
                j--;
            }
            idx[j] = v;
        }
        return;
    }
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = range_rank_cmp(&ranges[idx[j]], &ranges[idx[i]]) < 0 ? idx[j++] : idx[i++];
            while (i < mid)
                tmp[k++] = idx[i++];
            while (j < hi)
                tmp[k++] = idx[j++];
        }
        memcpy(idx, tmp, n * sizeof *idx);
    }
    free(tmp);
}

static int build_ranges(const kr_capture *c, uint32_t gap, an_sources *out)
{
    size_t ntargets = 0;
    target *targets = NULL;
    size_t nbranch = 0;
    for (size_t i = 0; i < c->nrows; i++)
        if (!c->rows[i].is_label && c->rows[i].cls == KR_CLASS_BRANCH)
            nbranch++;
    if (nbranch) {
        targets = malloc(nbranch * sizeof *targets);
        if (!targets)
            return KR_INTERNAL;
        for (size_t i = 0; i < c->nrows; i++) {
            const kr_code_row *r = &c->rows[i];
            uint64_t t;
            if (!r->is_label && r->cls == KR_CLASS_BRANCH && branch_target(r, &t)) {
                targets[ntargets].kernel = r->kernel;
                targets[ntargets].vaddr = t;
                ntargets++;
            }
        }
        qsort(targets, ntargets, sizeof *targets, target_cmp);
    }

    an_src_range *ranges = malloc((c->nrows ? c->nrows : 1) * sizeof *ranges);
    if (!ranges) {
        free(targets);
        return KR_INTERNAL;
    }
    size_t n = 0;
    an_src_range *cur = NULL;
    int prev_branch = 0;
    for (size_t i = 0; i < c->nrows; i++) {
        const kr_code_row *r = &c->rows[i];
        if (r->is_label) {
            cur = NULL;
            prev_branch = 0;
            continue;
        }
        uint8_t mapped = r->nframes > 0;
        const char *path = mapped ? r->frames[0].path : NULL;
        uint32_t line = mapped ? r->frames[0].line : 0;
        int start = cur == NULL || cur->kernel != r->kernel || cur->mapped != mapped;
        if (!start && mapped) {
            if (path_cmp(path, cur->path) != 0)
                start = 1;
            else if ((int64_t)line < (int64_t)cur->line_min - (int64_t)gap ||
                     (int64_t)line > (int64_t)cur->line_max + (int64_t)gap)
                start = 1;
        }
        if (!start && !mapped) {
            target key = {r->kernel, r->vaddr};
            if (prev_branch || (ntargets && bsearch(&key, targets, ntargets, sizeof *targets, target_cmp)))
                start = 1;
        }
        if (start) {
            cur = &ranges[n++];
            memset(cur, 0, sizeof *cur);
            cur->kernel = r->kernel;
            cur->first_row = cur->last_row = (uint32_t)i;
            cur->first_vaddr = cur->last_vaddr = r->vaddr;
            cur->mapped = mapped;
            cur->path = path;
            cur->line_min = cur->line_max = line;
        }
        cur->last_row = (uint32_t)i;
        cur->last_vaddr = r->vaddr;
        if (mapped) {
            if (line < cur->line_min)
                cur->line_min = line;
            if (line > cur->line_max)
                cur->line_max = line;
        }
        cur->rows++;
        cost_add(&cur->cost, r);
        prev_branch = r->cls == KR_CLASS_BRANCH;
    }
    free(targets);

    size_t *rank = malloc((n ? n : 1) * sizeof *rank);
    if (!rank) {
        free(ranges);
        return KR_INTERNAL;
    }
    for (size_t i = 0; i < n; i++)
        rank[i] = i;
    sort_range_index(rank, n, ranges);
    out->ranges = ranges;
    out->nranges = n;
    out->range_rank = rank;
    return 0;
}

int an_sources_compute(const kr_capture *c, const an_sources_opts *opts, an_sources *out)
{
    an_sources_opts o;
    if (opts)
        o = *opts;
    else
        an_sources_opts_default(&o);
    memset(out, 0, sizeof *out);
    out->context = o.context;
    out->range_gap = o.range_gap;
    out->has_snapshots_json = c->has_snapshots_json;

    /* Count (row, distinct frame) pairs. */
    size_t nentries = 0;
    for (size_t i = 0; i < c->nrows; i++) {
        const kr_code_row *r = &c->rows[i];
        if (r->is_label)
            continue;
        out->instruction_rows++;
        if (r->source && r->source[0])
            out->mapped_rows++;
        nentries += r->nframes;
    }
    entry *ents = malloc((nentries ? nentries : 1) * sizeof *ents);
    uint8_t *copy_seen = calloc(c->nsnapshots ? c->nsnapshots : 1, 1);
    if (!ents || !copy_seen) {
        free(ents);
        free(copy_seen);
        return KR_INTERNAL;
    }
    size_t ne = 0;
    for (size_t i = 0; i < c->nrows; i++) {
        const kr_code_row *r = &c->rows[i];
        if (r->is_label)
            continue;
        for (uint32_t f = 0; f < r->nframes; f++) {
            const kr_frame *fr = &r->frames[f];
            out->frames++;
            if (fr->snapshot >= 0 && (size_t)fr->snapshot < c->nsnapshots) {
                out->frames_resolved++;
                if (!copy_seen[fr->snapshot]) {
                    copy_seen[fr->snapshot] = 1;
                    out->copies_used++;
                }
            }
            int dup = 0;   /* inclusive: each (path, line) once per row */
            for (uint32_t g = 0; g < f && !dup; g++)
                dup = r->frames[g].line == fr->line && path_cmp(r->frames[g].path, fr->path) == 0;
            if (dup)
                continue;
            ents[ne].path = fr->path;
            ents[ne].line = fr->line;
            ents[ne].snapshot = fr->snapshot;
            ents[ne].row = (uint32_t)i;
            ents[ne].innermost = f == 0;
            ne++;
        }
    }
    free(copy_seen);
    qsort(ents, ne, sizeof *ents, entry_cmp);

    size_t ngroups = 0;
    for (size_t i = 0; i < ne; i++)
        if (i == 0 || ents[i - 1].line != ents[i].line || path_cmp(ents[i - 1].path, ents[i].path) != 0)
            ngroups++;
    an_src_line *lines = calloc(ngroups ? ngroups : 1, sizeof *lines);
    if (!lines) {
        free(ents);
        return KR_INTERNAL;
    }
    size_t g = 0;
    for (size_t i = 0; i < ne; i++) {
        if (i == 0 || ents[i - 1].line != ents[i].line || path_cmp(ents[i - 1].path, ents[i].path) != 0) {
            an_src_line *l = &lines[g++];
            l->path = ents[i].path;
            l->line = ents[i].line;
            l->snapshot = ents[i].snapshot;
        }
        an_src_line *l = &lines[g - 1];
        const kr_code_row *r = &c->rows[ents[i].row];
        if (l->snapshot < 0 && ents[i].snapshot >= 0)
            l->snapshot = ents[i].snapshot;
        cost_add(&l->incl, r);
        l->incl_rows++;
        if (ents[i].innermost) {
            cost_add(&l->excl, r);
            l->excl_rows++;
        }
    }
    free(ents);
    qsort(lines, ngroups, sizeof *lines, line_rank_cmp);
    out->lines = lines;
    out->nlines = ngroups;
    out->ntop = o.top_lines < ngroups ? o.top_lines : ngroups;

    /* Resolution, snippets, and the innermost weight distribution. */
    for (size_t i = 0; i < ngroups; i++) {
        an_src_line *l = &lines[i];
        l->why = why_of(c, l->path, l->line, l->snapshot);
        if (l->snapshot >= 0 && (size_t)l->snapshot < c->nsnapshots)
            l->copy = c->snapshots[l->snapshot].leaf;
        if (i < out->ntop && l->why == AN_SRC_RESOLVED) {
            l->snippet = make_snippet(&c->snapshots[l->snapshot], l->line, o.context,
                                      &l->snippet_first, &l->snippet_last);
            if (!l->snippet) {
                an_sources_free(out);
                return KR_INTERNAL;
            }
        }
        if (l->excl_rows) {
            out->distinct_lines++;
            out->weight_total += l->excl.hit + l->excl.stall;
        }
    }
    if (out->weight_total > 0) {
        double h = 0.0;
        uint64_t best = 0;
        for (size_t i = 0; i < ngroups; i++) {
            uint64_t w = lines[i].excl.hit + lines[i].excl.stall;
            if (!lines[i].excl_rows || w == 0)
                continue;
            double p = (double)w / (double)out->weight_total;
            h -= p * log(p);
            if (w > best) {
                best = w;
                out->top1_index = i;
            }
        }
        out->has_top1 = 1;
        out->top1_share = (double)best / (double)out->weight_total;
        out->has_effective = 1;
        out->effective_lines = exp(h);
    }

    int rc = build_ranges(c, o.range_gap, out);
    if (rc) {
        an_sources_free(out);
        return rc;
    }
    out->ntop_ranges = o.top_ranges < out->nranges ? o.top_ranges : out->nranges;
    out->fallback = out->instruction_rows > 0 && out->mapped_rows == 0;
    return 0;
}

void an_sources_free(an_sources *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nlines; i++)
        free(r->lines[i].snippet);
    free(r->lines);
    free(r->ranges);
    free(r->range_rank);
    memset(r, 0, sizeof *r);
}
