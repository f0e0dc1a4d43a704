/* doc.h — the document model REPORT.md, COMPARE.md and the HTML pages share.
 *
 * A document is a list of blocks: headings, paragraphs (inline Markdown the
 * caller composed, with rep_md_escape for untrusted text), bullet/numbered
 * lists, fenced code blocks and tables. rep_doc_markdown renders it to
 * GitHub-flavoured Markdown; the HTML writer renders that Markdown through
 * cmark-gfm, so both always say the same thing. The document owns every
 * string it is given (copied). */
#ifndef KR_REPORT_DOC_H
#define KR_REPORT_DOC_H

#include <stddef.h>

#include "common/buf.h"

typedef struct rep_doc rep_doc;
typedef struct rep_table rep_table;

rep_doc *rep_doc_new(void);
void rep_doc_free(rep_doc *d);

void rep_heading(rep_doc *d, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void rep_para(rep_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One list item; consecutive items of the same kind form one list. */
void rep_item(rep_doc *d, int ordered, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void rep_code(rep_doc *d, const char *lang, const char *text);
/* Raw Markdown block, emitted as is (used for static prose from templates/). */
void rep_raw(rep_doc *d, const char *markdown);

/* A table: align is one char per column, 'l' or 'r'. Cells are inline
 * Markdown; use rep_md_escape on untrusted text ('|' is escaped anyway). */
rep_table *rep_table_new(rep_doc *d, const char *align, ...);   /* headers, NULL-terminated */
void rep_table_row(rep_table *t, ...);                           /* cells, NULL-terminated */
void rep_table_rowv(rep_table *t, const char *const *cells, size_t n);
/* A table with n headers from an array (align as for rep_table_new). */
rep_table *rep_table_newv(rep_doc *d, const char *align, const char *const *headers, size_t n);

/* Markdown of the whole document (appended to out). */
void rep_doc_markdown(const rep_doc *d, kr_buf *out);

/* Escapes Markdown-active characters for inline text: \ ` * _ [ ] < > | # and
 * newlines become spaces. Returns a pointer into an internal copy the
 * document keeps until freed. */
const char *rep_md_escape(rep_doc *d, const char *text);
/* `code span` of text (backticks chosen to be safe), kept by the document. */
const char *rep_md_code(rep_doc *d, const char *text);
/* Copy of the n bytes at s (NUL-terminated), kept by the document. */
const char *rep_strn(rep_doc *d, const char *s, size_t n);
/* printf into a string kept by the document. */
const char *rep_fmt(rep_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
