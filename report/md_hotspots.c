/* md_hotspots.c — the "Hotspots" section: per capture the top rows by stall
 * and by latency, and a disassembly listing around the top stall rows with
 * `>>>` on the hot line; plus the analysis.json object of one capture. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/fmt.h"
#include "report/sections.h"
#include "report/templates.h"

#define MD_CONTEXTS 5               /* listings shown, from the top of the stall list */
#define MD_ISA_WIDTH 56             /* ISA column of a listing is padded up to this */

static const char *num(rep_doc *d, uint64_t v)
{
    char b[32];
    return rep_fmt(d, "%s", kr_fmt_u64(b, sizeof b, v));
}

static const char *mean(rep_doc *d, const an_hot *e, double v)
{
    char b[32];
    return e->has_mean ? rep_fmt(d, "%s", kr_fmt_fixed(b, sizeof b, v, 1)) : "n/a";
}

static const char *label_of(rep_doc *d, const char *const *labels, size_t i)
{
    return labels && labels[i] ? rep_md_escape(d, labels[i]) : rep_fmt(d, "capture %zu", i + 1);
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
        rep_table_row(t, num(d, i + 1), num(d, e->line), num(d, e->vaddr), rep_md_code(d, r->isa ? r->isa : ""),
                      num(d, e->hit), num(d, by_stall ? e->stall : e->latency),
                      mean(d, e, by_stall ? e->mean_stall : e->mean_latency),
                      num(d, by_stall ? e->latency : e->stall), num(d, e->idle),
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
            rep_heading(d, 3, "%s", label_of(d, labels, i));
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
                     k + 1, rep_md_code(d, row->isa ? row->isa : ""), num(d, e->vaddr), num(d, e->line),
                     num(d, e->stall), num(d, e->hit), mean(d, e, e->mean_stall), bucket_cell(d, e));
            listing(d, h, e);
        }
    }
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

static json_t *entry(const an_hotspots *h, const an_hot *e, size_t rank)
{
    const kr_code_row *r = &h->rows[e->row];
    json_t *o = json_object();
    json_object_set_new(o, "rank", jint(rank));
    json_object_set_new(o, "row", jint(e->row));
    json_object_set_new(o, "line", jint(e->line));
    json_object_set_new(o, "vaddr", jint(e->vaddr));
    json_object_set_new(o, "isa", jstr(r->isa));
    json_object_set_new(o, "source", r->source && r->source[0] ? jstr(r->source) : json_null());
    json_t *fr = json_array();
    for (uint32_t f = 0; f < r->nframes; f++) {
        json_t *fo = json_object();
        json_object_set_new(fo, "path", jstr(r->frames[f].path));
        json_object_set_new(fo, "line", r->frames[f].line ? jint(r->frames[f].line) : json_null());
        json_array_append_new(fr, fo);
    }
    json_object_set_new(o, "frames", fr);
    json_object_set_new(o, "hit", jint(e->hit));
    json_object_set_new(o, "latency", jint(e->latency));
    json_object_set_new(o, "stall", jint(e->stall));
    json_object_set_new(o, "idle", jint(e->idle));
    json_object_set_new(o, "mean_latency", e->has_mean ? json_real(e->mean_latency) : json_null());
    json_object_set_new(o, "mean_stall", e->has_mean ? json_real(e->mean_stall) : json_null());
    json_object_set_new(o, "class", json_string(kr_class_name(e->cls)));
    json_object_set_new(o, "kreport_bucket", json_string(an_stall_kind_key(e->kind)));
    json_object_set_new(o, "hub_bucket", json_string(an_hub_bucket_key(e->hub_bucket)));
    json_t *ctx = json_array();
    for (size_t j = 0; j < e->nctx; j++) {
        const kr_code_row *c = &h->rows[e->ctx[j]];
        json_t *co = json_object();
        json_object_set_new(co, "row", jint(e->ctx[j]));
        json_object_set_new(co, "line", jint(c->line));
        json_object_set_new(co, "vaddr", jint(c->vaddr));
        json_object_set_new(co, "isa", jstr(c->isa));
        json_object_set_new(co, "hit", jint(c->hit));
        json_object_set_new(co, "latency", jint(c->latency));
        json_object_set_new(co, "stall", jint(c->stall));
        json_object_set_new(co, "hot", json_boolean(j == e->ctx_hot));
        json_array_append_new(ctx, co);
    }
    json_object_set_new(o, "context", ctx);
    return o;
}

json_t *rep_json_hotspots(const an_hotspots *h)
{
    json_t *o = json_object();
    json_object_set_new(o, "n", jint(h->n));
    json_object_set_new(o, "context", jint(h->context));
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
