/* doc.c — see doc.h. */
#include "report/doc.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"

typedef enum { B_HEADING, B_PARA, B_ITEM, B_CODE, B_RAW, B_TABLE } rep_kind;

struct rep_table {
    rep_doc *doc;
    size_t ncols;
    char *align;
    char **cells;            /* rows * ncols, row 0 = header */
    size_t nrows, cap;
};

typedef struct {
    rep_kind kind;
    int level;               /* heading level, or ordered flag for items */
    char *text;
    char *lang;
    rep_table *table;
} rep_block;

struct rep_doc {
    kr_arena arena;
    rep_block *blocks;
    size_t n, cap;
};

rep_doc *rep_doc_new(void)
{
    rep_doc *d = calloc(1, sizeof *d);
    if (d)
        kr_arena_init(&d->arena);
    return d;
}

void rep_doc_free(rep_doc *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n; i++)
        if (d->blocks[i].table)
            free(d->blocks[i].table->cells);
    free(d->blocks);
    kr_arena_free(&d->arena);
    free(d);
}

static rep_block *push(rep_doc *d, rep_kind kind)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 64;
        rep_block *b = realloc(d->blocks, cap * sizeof *b);
        if (!b)
            abort();          /* out of memory while building a report */
        d->blocks = b;
        d->cap = cap;
    }
    rep_block *b = &d->blocks[d->n++];
    memset(b, 0, sizeof *b);
    b->kind = kind;
    return b;
}

static char *keep(rep_doc *d, const char *s, size_t n)
{
    char *p = kr_arena_strndup(&d->arena, s, n);
    if (!p)
        abort();          /* out of memory while building a report */
    return p;
}

/* printf into the arena: one formatting pass when the text fits a small
 * block (almost always), a second only for longer text. */
static char *vfmt(rep_doc *d, const char *fmt, va_list ap)
{
    if (fmt[0] == '%' && fmt[1] == 's' && fmt[2] == '\0') {
        const char *a = va_arg(ap, const char *);
        return keep(d, a, strlen(a));
    }
    char small[512];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return keep(d, "", 0);
    if ((size_t)n < sizeof small)
        return keep(d, small, (size_t)n);
    char *p = kr_arena_alloc(&d->arena, (size_t)n + 1);
    if (!p)
        abort();
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

const char *rep_strn(rep_doc *d, const char *s, size_t n) { return keep(d, s, n); }

const char *rep_fmt(rep_doc *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = vfmt(d, fmt, ap);
    va_end(ap);
    return s;
}

void rep_heading(rep_doc *d, int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rep_block *b = push(d, B_HEADING);
    b->level = level;
    b->text = vfmt(d, fmt, ap);
    va_end(ap);
}

void rep_para(rep_doc *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rep_block *b = push(d, B_PARA);
    b->text = vfmt(d, fmt, ap);
    va_end(ap);
}

void rep_item(rep_doc *d, int ordered, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rep_block *b = push(d, B_ITEM);
    b->level = ordered;
    b->text = vfmt(d, fmt, ap);
    va_end(ap);
}

void rep_code(rep_doc *d, const char *lang, const char *text)
{
    rep_block *b = push(d, B_CODE);
    b->lang = kr_arena_strdup(&d->arena, lang ? lang : "");
    b->text = kr_arena_strdup(&d->arena, text);
}

void rep_raw(rep_doc *d, const char *markdown)
{
    rep_block *b = push(d, B_RAW);
    b->text = kr_arena_strdup(&d->arena, markdown);
}

static void table_add(rep_table *t, const char *const *cells, size_t n)
{
    if (t->nrows == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        char **c = realloc(t->cells, cap * t->ncols * sizeof *c);
        if (!c)
            abort();
        t->cells = c;
        t->cap = cap;
    }
    for (size_t i = 0; i < t->ncols; i++) {
        const char *c = i < n && cells[i] ? cells[i] : "";
        t->cells[t->nrows * t->ncols + i] = keep(t->doc, c, strlen(c));
    }
    t->nrows++;
}

rep_table *rep_table_new(rep_doc *d, const char *align, ...)
{
    const char *hdr[64];
    size_t n = 0;
    va_list ap;
    va_start(ap, align);
    const char *h;
    while ((h = va_arg(ap, const char *)) != NULL && n < 64)
        hdr[n++] = h;
    va_end(ap);
    return rep_table_newv(d, align, hdr, n);
}

rep_table *rep_table_newv(rep_doc *d, const char *align, const char *const *hdr, size_t n)
{
    rep_table *t = kr_arena_alloc(&d->arena, sizeof *t);
    t->doc = d;
    t->ncols = n;
    t->align = kr_arena_strdup(&d->arena, align ? align : "");
    table_add(t, (const char *const *)hdr, n);
    rep_block *b = push(d, B_TABLE);
    b->table = t;
    return t;
}

void rep_table_rowv(rep_table *t, const char *const *cells, size_t n) { table_add(t, cells, n); }

void rep_table_row(rep_table *t, ...)
{
    const char *cells[64];
    size_t n = 0;
    va_list ap;
    va_start(ap, t);
    const char *c;
    while (n < t->ncols && (c = va_arg(ap, const char *)) != NULL)
        cells[n++] = c;
    va_end(ap);
    table_add(t, cells, n);
}

/* A table cell: '|' escaped, line breaks as spaces; plain runs appended
 * whole. */
static void put_cell(kr_buf *out, const char *s)
{
    for (;;) {
        const char *e = s;
        while (*e && *e != '|' && *e != '\n' && *e != '\r')
            e++;
        kr_buf_append(out, s, (size_t)(e - s));
        if (!*e)
            return;
        if (*e == '|')
            kr_buf_append(out, "\\|", 2);
        else
            kr_buf_putc(out, ' ');
        s = e + 1;
    }
}

static void put_str(kr_buf *out, const char *s) { kr_buf_append(out, s, strlen(s)); }

void rep_doc_markdown(const rep_doc *d, kr_buf *out)
{
    for (size_t i = 0; i < d->n; i++) {
        const rep_block *b = &d->blocks[i];
        int list_continues = b->kind == B_ITEM && i + 1 < d->n &&
                             d->blocks[i + 1].kind == B_ITEM && d->blocks[i + 1].level == b->level;
        switch (b->kind) {
        case B_HEADING:
            for (int k = 0; k < b->level; k++)
                kr_buf_putc(out, '#');
            kr_buf_putc(out, ' ');
            put_str(out, b->text);
            kr_buf_append(out, "\n\n", 2);
            break;
        case B_PARA:
            put_str(out, b->text);
            kr_buf_append(out, "\n\n", 2);
            break;
        case B_RAW: {
            size_t n = strlen(b->text);
            while (n && b->text[n - 1] == '\n')
                n--;
            kr_buf_append(out, b->text, n);
            kr_buf_append(out, "\n\n", 2);
            break;
        }
        case B_ITEM: {
            int number = 1;
            for (size_t j = i; j > 0 && d->blocks[j - 1].kind == B_ITEM &&
                               d->blocks[j - 1].level == b->level; j--)
                number++;
            if (b->level)
                kr_buf_printf(out, "%d. ", number);
            else
                kr_buf_append(out, "- ", 2);
            put_str(out, b->text);
            kr_buf_putc(out, '\n');
            if (!list_continues)
                kr_buf_putc(out, '\n');
            break;
        }
        case B_CODE: {
            const char *fence = strstr(b->text, "```") ? "````" : "```";
            size_t n = strlen(b->text);
            put_str(out, fence);
            put_str(out, b->lang);
            kr_buf_putc(out, '\n');
            kr_buf_append(out, b->text, n);
            if (!(n && b->text[n - 1] == '\n'))
                kr_buf_putc(out, '\n');
            put_str(out, fence);
            kr_buf_append(out, "\n\n", 2);
            break;
        }
        case B_TABLE: {
            const rep_table *t = b->table;
            size_t nalign = strlen(t->align);
            for (size_t r = 0; r < t->nrows; r++) {
                kr_buf_putc(out, '|');
                for (size_t c = 0; c < t->ncols; c++) {
                    kr_buf_putc(out, ' ');
                    put_cell(out, t->cells[r * t->ncols + c]);
                    kr_buf_append(out, " |", 2);
                }
                kr_buf_putc(out, '\n');
                if (r == 0) {
                    kr_buf_putc(out, '|');
                    for (size_t c = 0; c < t->ncols; c++) {
                        if (c < nalign && t->align[c] == 'r')
                            kr_buf_append(out, "---:|", 5);
                        else
                            kr_buf_append(out, "---|", 4);
                    }
                    kr_buf_putc(out, '\n');
                }
            }
            kr_buf_putc(out, '\n');
            break;
        }
        }
    }
}

/* What rep_md_escape does with a byte: 1 puts a backslash before it (one
 * of \\ ` * _ [ ] < > | #), 2 makes it a space (line breaks). */
static const unsigned char md_special[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 2, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 1,
    1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

const char *rep_md_escape(rep_doc *d, const char *text)
{
    const char *start = text ? text : "";
    size_t len = strlen(start);
    char *r = kr_arena_alloc(&d->arena, 2 * len + 1);     /* room for every byte escaped */
    if (!r)
        abort();
    char *o = r;
    for (const char *s = start; *s; s++) {
        unsigned k = md_special[(unsigned char)*s];
        if (k == 0) {
            *o++ = *s;
        } else if (k == 2) {
            *o++ = ' ';
        } else if (*s == '_' && s > start && isalnum((unsigned char)s[-1]) && isalnum((unsigned char)s[1])) {
            *o++ = '_';          /* an underscore inside a word never starts emphasis in GFM */
        } else {
            *o++ = '\\';
            *o++ = *s;
        }
    }
    *o = '\0';
    return r;
}

const char *rep_md_code(rep_doc *d, const char *text)
{
    /* Use a fence one backtick longer than the longest run inside. */
    size_t run = 0, longest = 0, len = 0;
    for (const char *s = text; *s; s++, len++) {
        run = *s == '`' ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    int pad = longest || text[0] == '`';
    size_t n = 2 * (longest + 1) + (size_t)pad + (longest ? 1 : 0) + len;
    char *r = kr_arena_alloc(&d->arena, n + 1);
    if (!r)
        abort();
    char *o = r;
    for (size_t i = 0; i <= longest; i++)
        *o++ = '`';
    if (pad)
        *o++ = ' ';
    for (const char *s = text; *s; s++)
        *o++ = (*s == '\n' || *s == '\r') ? ' ' : *s;
    if (longest)
        *o++ = ' ';
    for (size_t i = 0; i <= longest; i++)
        *o++ = '`';
    *o = '\0';
    return r;
}
