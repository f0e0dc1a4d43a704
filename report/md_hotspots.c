/* md_hotspots.c — the "Hotspots" section: per capture the top rows by stall
 * and by latency, and a disassembly listing around the top stall rows with
 * `>>>` on the hot line; plus the analysis.json object of one capture. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/fmt.h"
#include "report/sections.h"
#include "report/util.h"
#include "report/templates.h"

#define MD_CONTEXTS 5               /* listings shown, from the top of the stall list */
#define MD_ISA_WIDTH 56             /* ISA column of a listing is padded up to this */

static const char *mean(rep_doc *d, const an_hot *e, double v)
{
    char b[32];
    return e->has_mean ? rep_fmt(d, "%s", kr_fmt_fixed(b, sizeof b, v, 1)) : "n/a";
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

/* The listing around one hot row. */
static void listing(rep_doc *d, const an_hotspots *h, const an_hot *e)
{
    int width = 1;
    size_t isa_w = 0;
    for (size_t j = 0; j < e->nctx; j++) {
        const kr_code_row *r = &h->rows[e->ctx[j]];
        char b[32];
        int w = snprintf(b, sizeof b, "%" PRIu64, r->vaddr);
        if (w > width)
            width = w;
        size_t l = strlen(r->isa ? r->isa : "");
        if (l > isa_w)
            isa_w = l;
    }
    if (isa_w > MD_ISA_WIDTH)
        isa_w = MD_ISA_WIDTH;
    kr_buf b;
    kr_buf_init(&b);
    for (size_t j = 0; j < e->nctx; j++) {
        const kr_code_row *r = &h->rows[e->ctx[j]];
        const char *isa = r->isa ? r->isa : "";
        kr_buf_printf(&b, "%s%*" PRIu64 "  ", j == e->ctx_hot ? ">>> " : "    ", width, r->vaddr);
        size_t l = 0;
        for (const char *p = isa; *p; p++, l++)
            kr_buf_putc(&b, (*p == '\n' || *p == '\r' || *p == '\t') ? ' ' : *p);
        for (; l < isa_w; l++)
            kr_buf_putc(&b, ' ');
        if (r->hit == 0)
            kr_buf_puts(&b, "  ; not executed\n");
        else
            kr_buf_printf(&b, "  ; hit %" PRIu64 ", stall %" PRIu64 ", latency %" PRIu64 "\n",
                          r->hit, r->stall, r->latency);
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

static json_t *entry(const an_hotspots *h, const an_hot *e, size_t rank)
{
    const kr_code_row *r = &h->rows[e->row];
    json_t *o = json_object();
    json_object_set_new(o, "rank", rep_jint(rank));
    json_object_set_new(o, "row", rep_jint(e->row));
    json_object_set_new(o, "line", rep_jint(e->line));
    json_object_set_new(o, "vaddr", rep_jint(e->vaddr));
    json_object_set_new(o, "isa", rep_jstr(r->isa));
    json_object_set_new(o, "source", r->source && r->source[0] ? rep_jstr(r->source) : json_null());
    json_t *fr = json_array();
    for (uint32_t f = 0; f < r->nframes; f++) {
        json_t *fo = json_object();
        json_object_set_new(fo, "path", rep_jstr(r->frames[f].path));
        json_object_set_new(fo, "line", r->frames[f].line ? rep_jint(r->frames[f].line) : json_null());
        json_array_append_new(fr, fo);
    }
    json_object_set_new(o, "frames", fr);
    json_object_set_new(o, "hit", rep_jint(e->hit));
    json_object_set_new(o, "latency", rep_jint(e->latency));
    json_object_set_new(o, "stall", rep_jint(e->stall));
    json_object_set_new(o, "idle", rep_jint(e->idle));
    json_object_set_new(o, "mean_latency", e->has_mean ? json_real(e->mean_latency) : json_null());
    json_object_set_new(o, "mean_stall", e->has_mean ? json_real(e->mean_stall) : json_null());
    json_object_set_new(o, "class", json_string(kr_class_name(e->cls)));
    json_object_set_new(o, "kreport_bucket", json_string(an_stall_kind_key(e->kind)));
    json_object_set_new(o, "hub_bucket", json_string(an_hub_bucket_key(e->hub_bucket)));
    json_t *ctx = json_array();
    for (size_t j = 0; j < e->nctx; j++) {
        const kr_code_row *c = &h->rows[e->ctx[j]];
        json_t *co = json_object();
        json_object_set_new(co, "row", rep_jint(e->ctx[j]));
        json_object_set_new(co, "line", rep_jint(c->line));
        json_object_set_new(co, "vaddr", rep_jint(c->vaddr));
        json_object_set_new(co, "isa", rep_jstr(c->isa));
        json_object_set_new(co, "hit", rep_jint(c->hit));
        json_object_set_new(co, "latency", rep_jint(c->latency));
        json_object_set_new(co, "stall", rep_jint(c->stall));
        json_object_set_new(co, "hot", json_boolean(j == e->ctx_hot));
        json_array_append_new(ctx, co);
    }
    json_object_set_new(o, "context", ctx);
    return o;
}

json_t *rep_json_hotspots(const an_hotspots *h)
{
    json_t *o = json_object();
    json_object_set_new(o, "n", rep_jint(h->n));
    json_object_set_new(o, "context", rep_jint(h->context));
    json_t *a = json_array();
    for (size_t i = 0; i < h->nby_stall; i++)
        json_array_append_new(a, entry(h, &h->by_stall[i], i + 1));
    json_object_set_new(o, "by_stall", a);
    a = json_array();
    for (size_t i = 0; i < h->nby_latency; i++)
        json_array_append_new(a, entry(h, &h->by_latency[i], i + 1));
    json_object_set_new(o, "by_latency", a);
    return o;
}
