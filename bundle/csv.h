/* csv.h — a generic RFC 4180 reader (docs/formats.md#rocprofv3-csvs).
 *
 * Comma separator; fields optionally quoted with `"`, a quote inside a quoted
 * field written `""`; quoted fields may hold commas and line breaks; lines end
 * with LF or CRLF; a leading UTF-8 byte-order mark is skipped; the first
 * record is the header. Every record must have the header's field count
 * (error "row N has X fields, header has Y" at the row's line). Blank lines at
 * the end of the input are ignored; anywhere else a blank line is a record of
 * one empty field. Rejected: a quote inside an unquoted field, characters after
 * a closing quote, an unterminated quote, a CR not followed by LF outside
 * quotes, NUL bytes, more than KR_MAX_CSV_FIELDS fields per record, more than
 * KR_MAX_CSV_ROWS data rows, fields longer than KR_MAX_STRING_BYTES.
 *
 * The table and its strings live in the caller's arena; nothing points into
 * the input buffer. Cost: one pass, one arena block of about the input size
 * for the text plus one pointer and one flag byte per field. */
#ifndef KR_BUNDLE_CSV_H
#define KR_BUNDLE_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"

typedef struct bundle_csv {
    const char *path;            /* file name used in errors */
    size_t ncols;                /* fields of the header */
    const char **header;         /* ncols names, unquoted */
    uint8_t *header_quoted;      /* ncols flags: 1 when the name was quoted */
    size_t nrows;                /* data rows (header excluded) */
    const char **cells;          /* nrows * ncols, row-major, NUL-terminated */
    uint8_t *quoted;             /* nrows * ncols: 1 when the field was quoted */
    size_t *lines;               /* nrows: 1-based line where the row starts */
} bundle_csv;

/* Parses data[0..len) into *out. fname names the input in errors. */
int bundle_csv_parse(kr_arena *a, const char *data, size_t len, const char *fname,
                     bundle_csv *out, kr_err *err);
/* Reads the file (up to KR_MAX_SMALL_FILE_BYTES) and parses it. */
int bundle_csv_load(kr_arena *a, const char *path, bundle_csv *out, kr_err *err);
struct bundle_source;      /* bundle/source.h */
/* The same, reading from a source (bundle/source.h; NULL: the filesystem). */
int bundle_csv_load_src(kr_arena *a, const struct bundle_source *src, const char *path, bundle_csv *out, kr_err *err);

/* Index of the first header field equal to name ignoring ASCII case (rocpd
 * convert writes Lds_Block_Size where rocprofv3 writes LDS_Block_Size), or -1. */
int bundle_csv_col(const bundle_csv *t, const char *name);

static inline const char *bundle_csv_cell(const bundle_csv *t, size_t row, size_t col)
{
    return t->cells[row * t->ncols + col];
}

static inline int bundle_csv_cell_quoted(const bundle_csv *t, size_t row, size_t col)
{
    return t->quoted[row * t->ncols + col];
}

#endif
