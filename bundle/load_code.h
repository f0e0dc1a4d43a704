/* load_code.h — code.json, the static code table (docs/formats.md#code-table).
 *
 * The column map is built from `header` (a comma-separated string or an
 * array of names, docs/formats.md#code-columns); unknown, duplicated or missing required names, rows
 * whose length differs from the header, and a file without `header` (the
 * legacy rocprofv2 format, docs/formats.md#code-table) are input errors. "code": null reads as an
 * empty table (layout KR_LAYOUT_NONE). Per row: ISA, mnemonic and class
 * (docs/instruction-classes.md), label flag (ISA starts with ';', docs/formats.md#label-rows), Source and its frames
 * (docs/formats.md#source-chains; label rows get none), the kernel (index of the nearest label row
 * with a smaller LineNumber; a label row's kernel is itself), the four cycle
 * columns (non-negative) and the PC-sampling columns. Rows stay in file
 * order; c->line_to_row maps LineNumber → row index (-1 unused), duplicate
 * LineNumbers are an input error (docs/formats.md#label-rows, V-6). Every frame's snapshot is -1
 * until bundle_snapshots_resolve runs. Allocates in c->arena. */
#ifndef KR_BUNDLE_LOAD_CODE_H
#define KR_BUNDLE_LOAD_CODE_H

#include <stddef.h>
#include <stdint.h>

#include "bundle/model.h"
#include "common/err.h"

int bundle_parse_code(kr_capture *c, const char *data, size_t len, const char *fname, kr_err *err);
/* The jansson DOM reference: the same accepted inputs, model and messages
 * (bundle_parse_code streams the text with the scanner instead). */
int bundle_parse_code_jansson(kr_capture *c, const char *data, size_t len, const char *fname, kr_err *err);

/* Splits a Source chain into frames (docs/formats.md#source-chains): pieces separated by " -> ",
 * empty pieces dropped; line = the decimal digits after the last ':' (1 or
 * more, fitting uint32, not 0), path = the text before it; otherwise an
 * unparsed frame (line 0, path = the whole piece). Returns 0, or -1 when the
 * arena is exhausted. *frames is NULL when *n == 0. */
int bundle_parse_frames(kr_arena *a, const char *source, kr_frame **frames, uint32_t *n);

#endif
