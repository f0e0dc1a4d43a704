/* csv.c — see csv.h. RFC 4180 with the choices listed there (docs/formats.md#rocprofv3-csvs). */
#include "bundle/csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bundle/source.h"
#include "common/file.h"
#include "common/limits.h"

typedef struct field_vec {
    const char **text;
    uint8_t *quoted;
    size_t n, cap;
} field_vec;

typedef struct line_vec {
    size_t *v;
    size_t n, cap;
} line_vec;

static int fields_push(field_vec *f, const char *text, uint8_t quoted)
{
    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 256;
        const char **t = realloc(f->text, cap * sizeof *t);
        if (!t)
            return -1;
        f->text = t;
        uint8_t *q = realloc(f->quoted, cap);
        if (!q)
            return -1;
        f->quoted = q;
        f->cap = cap;
    }
    f->text[f->n] = text;
    f->quoted[f->n] = quoted;
    f->n++;
    return 0;
}

static int lines_push(line_vec *l, size_t line)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        size_t *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = line;
    return 0;
}

/* Bytes that end a run of unquoted field text: the separators and the
 * bytes that are errors there. */
static const uint8_t unquoted_stop[256] = {[','] = 1, ['\n'] = 1, ['\r'] = 1, ['"'] = 1, [0] = 1};

static int pos_err(kr_err *err, const char *fname, size_t line, size_t col, const char *msg)
{
    char where[64];
    snprintf(where, sizeof where, "%zu:%zu", line, col);
    return kr_err_set(err, KR_INPUT, fname, where, "%s", msg);
}

int bundle_csv_parse(kr_arena *a, const char *data, size_t len, const char *fname,
                     bundle_csv *out, kr_err *err)
{
    memset(out, 0, sizeof *out);
    out->path = fname ? kr_arena_strdup(a, fname) : "";
    size_t pos = 0;
    if (len >= 3 && (unsigned char)data[0] == 0xEF && (unsigned char)data[1] == 0xBB &&
        (unsigned char)data[2] == 0xBF)
        pos = 3;

    /* Unescaped text never exceeds the input: each field's NUL replaces its
     * separator, and the last field may need one byte more. */
    char *text = kr_arena_alloc(a, len + 2);
    if (!text)
        return kr_err_set(err, KR_INTERNAL, fname, NULL, "out of memory for %zu bytes of CSV", len);
    size_t tl = 0;

    field_vec f = {0};
    line_vec rows = {0};
    size_t line = 1, line_start = pos;
    size_t ncols = 0, header_done = 0;
    size_t blank_checked_to = 0;   /* input before this offset is known not to be trailing blanks */
    int rc = 0;

    while (pos < len) {
        if (pos >= blank_checked_to) {
            size_t p = pos;
            while (p < len && (data[p] == '\n' || (data[p] == '\r' && p + 1 < len && data[p + 1] == '\n')))
                p += data[p] == '\r' ? 2 : 1;
            if (p >= len)
                break;     /* only blank lines remain */
            blank_checked_to = p;
        }
        size_t record_line = line;
        size_t first = f.n;
        for (;;) {
            char *start = text + tl;
            uint8_t quoted = 0;
            if (pos < len && data[pos] == '"') {
                size_t open_line = line, open_col = pos - line_start + 1;
                quoted = 1;
                pos++;
                size_t quote = 0;        /* the next '"' at or after pos, len if none; 0: not searched yet */
                for (;;) {
                    /* copy the run of ordinary bytes at once: up to the next
                     * quote, line feed or NUL (each quote is searched once) */
                    if (quote < pos) {
                        const char *q = memchr(data + pos, '"', len - pos);
                        quote = q ? (size_t)(q - data) : len;
                    }
                    size_t end = quote;
                    const char *nl = memchr(data + pos, '\n', end - pos);
                    if (nl)
                        end = (size_t)(nl - data);
                    const char *nul = memchr(data + pos, '\0', end - pos);
                    if (nul)
                        end = (size_t)(nul - data);
                    memcpy(text + tl, data + pos, end - pos);
                    tl += end - pos;
                    pos = end;
                    if (pos >= len) {
                        rc = pos_err(err, fname, open_line, open_col, "unterminated quoted field");
                        goto done;
                    }
                    char ch = data[pos];
                    if (ch == '"') {
                        if (pos + 1 < len && data[pos + 1] == '"') {
                            text[tl++] = '"';
                            pos += 2;
                            continue;
                        }
                        pos++;
                        break;
                    }
                    if (ch == '\0') {
                        rc = pos_err(err, fname, line, pos - line_start + 1, "NUL byte in CSV");
                        goto done;
                    }
                    if (ch == '\n') {
                        line++;
                        line_start = pos + 1;
                    }
                    text[tl++] = ch;
                    pos++;
                }
                if (pos < len && data[pos] != ',' && data[pos] != '\n' && data[pos] != '\r') {
                    rc = pos_err(err, fname, line, pos - line_start + 1,
                                 "expected ',' or end of line after a closing quote");
                    goto done;
                }
            } else {
                /* the run up to the first byte that ends or breaks the field */
                size_t end = pos;
                while (end < len && !unquoted_stop[(unsigned char)data[end]])
                    end++;
                memcpy(text + tl, data + pos, end - pos);
                tl += end - pos;
                pos = end;
                if (pos < len && data[pos] == '"') {
                    rc = pos_err(err, fname, line, pos - line_start + 1,
                                 "quote inside an unquoted field (quote the whole field and write \"\" for a quote)");
                    goto done;
                }
                if (pos < len && data[pos] == '\0') {
                    rc = pos_err(err, fname, line, pos - line_start + 1, "NUL byte in CSV");
                    goto done;
                }
            }
            if ((size_t)(text + tl - start) > KR_MAX_STRING_BYTES) {
                rc = pos_err(err, fname, record_line, 1,
                             "field exceeds KR_MAX_STRING_BYTES (64 KiB)");
                goto done;
            }
            text[tl++] = '\0';
            if (f.n - first >= KR_MAX_CSV_FIELDS) {
                rc = pos_err(err, fname, record_line, 1, "record exceeds KR_MAX_CSV_FIELDS (4096) fields");
                goto done;
            }
            if (fields_push(&f, start, quoted) != 0) {
                rc = kr_err_set(err, KR_INTERNAL, fname, NULL, "out of memory");
                goto done;
            }
            if (pos >= len)
                break;
            if (data[pos] == ',') {
                pos++;
                continue;
            }
            if (data[pos] == '\n') {
                pos++;
            } else if (pos + 1 < len && data[pos + 1] == '\n') {
                pos += 2;       /* CRLF */
            } else {
                rc = pos_err(err, fname, line, pos - line_start + 1, "carriage return not followed by a line feed");
                goto done;
            }
            line++;
            line_start = pos;
            break;
        }
        size_t nfields = f.n - first;
        if (!header_done) {
            ncols = nfields;
            header_done = 1;
        } else {
            if (nfields != ncols) {
                char where[64];
                snprintf(where, sizeof where, "line %zu", record_line);
                rc = kr_err_set(err, KR_INPUT, fname, where, "row %zu has %zu fields, header has %zu",
                                rows.n + 1, nfields, ncols);
                goto done;
            }
            if (rows.n >= KR_MAX_CSV_ROWS) {
                char where[64];
                snprintf(where, sizeof where, "line %zu", record_line);
                rc = kr_err_set(err, KR_INPUT, fname, where, "more than KR_MAX_CSV_ROWS (%u) rows",
                                (unsigned)KR_MAX_CSV_ROWS);
                goto done;
            }
            if (lines_push(&rows, record_line) != 0) {
                rc = kr_err_set(err, KR_INTERNAL, fname, NULL, "out of memory");
                goto done;
            }
        }
    }
    if (!header_done) {
        rc = kr_err_set(err, KR_INPUT, fname, NULL, "empty CSV: no header row");
        goto done;
    }

    out->ncols = ncols;
    out->nrows = rows.n;
    out->header = kr_arena_array(a, ncols, sizeof *out->header);
    out->header_quoted = kr_arena_alloc(a, ncols);
    out->cells = kr_arena_array(a, rows.n * ncols + 1, sizeof *out->cells);
    out->quoted = kr_arena_alloc(a, rows.n * ncols + 1);
    out->lines = kr_arena_array(a, rows.n + 1, sizeof *out->lines);
    if (!out->header || !out->header_quoted || !out->cells || !out->quoted || !out->lines) {
        rc = kr_err_set(err, KR_INTERNAL, fname, NULL, "out of memory");
        goto done;
    }
    memcpy(out->header, f.text, ncols * sizeof *f.text);
    memcpy(out->header_quoted, f.quoted, ncols);
    if (rows.n) {
        memcpy(out->cells, f.text + ncols, rows.n * ncols * sizeof *f.text);
        memcpy(out->quoted, f.quoted + ncols, rows.n * ncols);
        memcpy(out->lines, rows.v, rows.n * sizeof *rows.v);
    }

done:
    free(f.text);
    free(f.quoted);
    free(rows.v);
    if (rc)
        memset(out, 0, sizeof *out);
    return rc;
}

int bundle_csv_load_src(kr_arena *a, const bundle_source *src, const char *path, bundle_csv *out, kr_err *err)
{
    bundle_blob b;
    int rc = bundle_source_read(src, path, KR_MAX_SMALL_FILE_BYTES, &b, err);
    if (rc)
        return rc;
    rc = bundle_csv_parse(a, b.data, b.len, path, out, err);
    bundle_blob_free(&b);
    return rc;
}

int bundle_csv_load(kr_arena *a, const char *path, bundle_csv *out, kr_err *err)
{
    return bundle_csv_load_src(a, NULL, path, out, err);
}

int bundle_csv_col(const bundle_csv *t, const char *name)
{
    for (size_t i = 0; i < t->ncols; i++)
        if (strcasecmp(t->header[i], name) == 0)
            return (int)i;
    return -1;
}
