/* md_hotspots.c — the "Hotspots" section: per capture the top rows by stall
 * and by latency, and a disassembly listing around the top stall rows with
 * `>>>` on the hot line; plus the analysis.json object of one capture. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/fmt.h"
#include "report/numtext.h"
#include "report/sections.h"
#include "report/util.h"
#include "report/templates.h"

#define MD_CONTEXTS 5               /* listings shown, from the top of the stall list */
#define MD_ISA_WIDTH 56             /* ISA column of a listing is padded up to this */

static const char *mean(rep_doc *d, const an_hot *e, double v)
{
    return e->has_mean ? rep_fixed(d, v, 1) : "n/a";
}

/* Innermost frame as "file:line" (basename), "+N" when inlined further. */
static const char *source_cell(rep_doc *d, const kr_code_row *r)
{
    if (r->nframes == 0)
        return r->source && r->source[0] ? rep_md_code(d, r->source) : "—";
    const kr_frame *f = &r->frames[0];
    const char *path = f->path ? f->path : "";
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *loc = f->line ? rep_fmt(d, "%s:%u", base, f->line) : base;
    const char *cell = rep_md_code(d, loc);
    return r->nframes > 1 ? rep_fmt(d, "%s (+%u)", cell, r->nframes - 1) : cell;
}

static const char *bucket_cell(rep_doc *d, const an_hot *e)
{
    return rep_fmt(d, "%s (hub: %s)", rep_md_code(d, an_stall_kind_key(e->kind)),
                   rep_md_escape(d, an_hub_bucket_display(e->hub_bucket)));
}

static void list(rep_doc *d, const an_hotspots *h, const an_hot *v, size_t n, int by_stall)
{
    rep_table *t = by_stall
        ? rep_table_new(d, "rrrlrrrrrlll", "#", "line", "vaddr", "instruction", "hit", "stall",
                        "stall/exec", "latency", "idle", "class", "bucket", "source", (const char *)NULL)
        : rep_table_new(d, "rrrlrrrrrlll", "#", "line", "vaddr", "instruction", "hit", "latency",
                        "latency/exec", "stall", "idle", "class", "bucket", "source", (const char *)NULL);
    for (size_t i = 0; i < n; i++) {
        const an_hot *e = &v[i];
        const kr_code_row *r = &h->rows[e->row];
        rep_table_row(t, rep_u64(d, i + 1), rep_u64(d, e->line), rep_u64(d, e->vaddr), rep_md_code(d, r->isa ? r->isa : ""),
                      rep_u64(d, e->hit), rep_u64(d, by_stall ? e->stall : e->latency),
                      mean(d, e, by_stall ? e->mean_stall : e->mean_latency),
                      rep_u64(d, by_stall ? e->latency : e->stall), rep_u64(d, e->idle),
                      kr_class_name(e->cls), bucket_cell(d, e), source_cell(d, r), (const char *)NULL);
    }
}

/* Decimal of v right-aligned in width columns, appended to b. */
static void put_u64(kr_buf *b, uint64_t v, int width)
{
    char t[24], *end = t + sizeof t, *p = rep_u64_digits(end, v);
    for (int pad = width - (int)(end - p); pad > 0; pad--)
        kr_buf_putc(b, ' ');
    kr_buf_append(b, p, (size_t)(end - p));
}

/* The listing around one hot row. */
static void listing(rep_doc *d, const an_hotspots *h, const an_hot *e)
{
    int width = 1;
    size_t isa_w = 0;
    for (size_t j = 0; j < e->nctx; j++) {
        const kr_code_row *r = &h->rows[e->ctx[j]];
        int w = 1;
        for (uint64_t v = r->vaddr; v >= 10; v /= 10)
            w++;
        if (w > width)
            width = w;
        size_t l = strlen(r->isa ? r->isa : "");
        if (l > isa_w)
            isa_w = l;
    }
    if (isa_w > MD_ISA_WIDTH)
        isa_w = MD_ISA_WIDTH;
    static const char spaces[] = "                                                                ";
    kr_buf b;
    kr_buf_init(&b);
    for (size_t j = 0; j < e->nctx; j++) {
        const kr_code_row *r = &h->rows[e->ctx[j]];
        const char *isa = r->isa ? r->isa : "";
        kr_buf_append(&b, j == e->ctx_hot ? ">>> " : "    ", 4);
        put_u64(&b, r->vaddr, width);
        kr_buf_append(&b, "  ", 2);
        /* the ISA text with line breaks and tabs as spaces, padded */
        size_t l = 0;
        const char *run = isa;
        for (const char *p = isa; *p; p++, l++) {
            if (*p == '\n' || *p == '\r' || *p == '\t') {
                kr_buf_append(&b, run, (size_t)(p - run));
                kr_buf_putc(&b, ' ');
                run = p + 1;
            }
        }
        kr_buf_append(&b, run, strlen(run));
        while (l < isa_w) {
            size_t k = isa_w - l < sizeof spaces - 1 ? isa_w - l : sizeof spaces - 1;
            kr_buf_append(&b, spaces, k);
            l += k;
        }
        if (r->hit == 0) {
            kr_buf_puts(&b, "  ; not executed\n");
        } else {
            kr_buf_append(&b, "  ; hit ", 8);
            put_u64(&b, r->hit, 0);
            kr_buf_append(&b, ", stall ", 8);
            put_u64(&b, r->stall, 0);
            kr_buf_append(&b, ", latency ", 10);
            put_u64(&b, r->latency, 0);
            kr_buf_putc(&b, '\n');
        }
    }
    rep_code(d, "", kr_buf_cstr(&b));
    kr_buf_free(&b);
}

void rep_md_hotspots(rep_doc *d, const an_hotspots *const *r, const char *const *labels, size_t n)
{
    rep_heading(d, 2, "Hotspots");
    const char *tp = rep_template("hotspots.md", NULL);
    if (tp)
        rep_raw(d, tp);
    int sub = n > 1 ? 4 : 3;
    for (size_t i = 0; i < n; i++) {
        const an_hotspots *h = r[i];
        if (n > 1)
            rep_heading(d, 3, "%s", rep_label(d, labels, i));
        rep_heading(d, sub, "Top %zu by stall", h->nby_stall);
        if (h->nby_stall)
            list(d, h, h->by_stall, h->nby_stall, 1);
        else
            rep_para(d, "No instruction stalled.");
        rep_heading(d, sub, "Top %zu by latency", h->nby_latency);
        if (h->nby_latency)
            list(d, h, h->by_latency, h->nby_latency, 0);
        else
            rep_para(d, "No instruction was executed.");
        size_t nc = h->nby_stall < MD_CONTEXTS ? h->nby_stall : MD_CONTEXTS;
        if (nc == 0)
            continue;
        rep_heading(d, sub, "Around the top %zu stall rows", nc);
        for (size_t k = 0; k < nc; k++) {
            const an_hot *e = &h->by_stall[k];
            const kr_code_row *row = &h->rows[e->row];
            rep_para(d, "**%zu.** %s at vaddr %s (line %s): stall %s over %s executions (%s per execution), %s.",
                     k + 1, rep_md_code(d, row->isa ? row->isa : ""), rep_u64(d, e->vaddr), rep_u64(d, e->line),
                     rep_u64(d, e->stall), rep_u64(d, e->hit), mean(d, e, e->mean_stall), bucket_cell(d, e));
            listing(d, h, e);
        }
    }
}

/* ---- JSON ---- */

static void entry(rep_jw *w, const an_hotspots *h, const an_hot *e, size_t rank)
{
    const kr_code_row *r = &h->rows[e->row];
    rep_jw_obj(w, NULL);
    rep_jw_uint(w, "rank", rank);
    rep_jw_uint(w, "row", e->row);
    rep_jw_uint(w, "line", e->line);
    rep_jw_uint(w, "vaddr", e->vaddr);
    rep_jw_str(w, "isa", r->isa);
    if (r->source && r->source[0])
        rep_jw_str(w, "source", r->source);
    else
        rep_jw_null(w, "source");
    rep_jw_arr(w, "frames");
    for (uint32_t f = 0; f < r->nframes; f++) {
        rep_jw_obj(w, NULL);
        rep_jw_str(w, "path", r->frames[f].path);
        if (r->frames[f].line)
            rep_jw_uint(w, "line", r->frames[f].line);
        else
            rep_jw_null(w, "line");
        rep_jw_end(w);
    }
    rep_jw_end(w);
    rep_jw_uint(w, "hit", e->hit);
    rep_jw_uint(w, "latency", e->latency);
    rep_jw_uint(w, "stall", e->stall);
    rep_jw_uint(w, "idle", e->idle);
    if (e->has_mean) {
        rep_jw_real(w, "mean_latency", e->mean_latency);
        rep_jw_real(w, "mean_stall", e->mean_stall);
    } else {
        rep_jw_null(w, "mean_latency");
        rep_jw_null(w, "mean_stall");
    }
    rep_jw_sym(w, "class", kr_class_name(e->cls));
    rep_jw_sym(w, "kreport_bucket", an_stall_kind_key(e->kind));
    rep_jw_sym(w, "hub_bucket", an_hub_bucket_key(e->hub_bucket));
    rep_jw_arr(w, "context");
    for (size_t j = 0; j < e->nctx; j++) {
        const kr_code_row *c = &h->rows[e->ctx[j]];
        rep_jw_obj(w, NULL);
        rep_jw_uint(w, "row", e->ctx[j]);
        rep_jw_uint(w, "line", c->line);
        rep_jw_uint(w, "vaddr", c->vaddr);
        rep_jw_str(w, "isa", c->isa);
        rep_jw_uint(w, "hit", c->hit);
        rep_jw_uint(w, "latency", c->latency);
        rep_jw_uint(w, "stall", c->stall);
        rep_jw_bool(w, "hot", j == e->ctx_hot);
        rep_jw_end(w);
    }
    rep_jw_end(w);
    rep_jw_end(w);
}

void rep_jw_hotspots(rep_jw *w, const char *key, const an_hotspots *h)
{
    rep_jw_obj(w, key);
    rep_jw_uint(w, "n", h->n);
    rep_jw_uint(w, "context", h->context);
    rep_jw_arr(w, "by_stall");
    for (size_t i = 0; i < h->nby_stall; i++)
        entry(w, h, &h->by_stall[i], i + 1);
    rep_jw_end(w);
    rep_jw_arr(w, "by_latency");
    for (size_t i = 0; i < h->nby_latency; i++)
        entry(w, h, &h->by_latency[i], i + 1);
    rep_jw_end(w);
    rep_jw_end(w);
}

json_t *rep_json_hotspots(const an_hotspots *h)
{
    rep_jw w;
    rep_jw_tree(&w);
    rep_jw_hotspots(&w, NULL, h);
    return rep_jw_tree_end(&w);
}
