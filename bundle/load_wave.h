/* load_wave.h — wave files se<SE>_sm<SIMD>_sl<SLOT>_wv<N>.json (FORMATS.md §4).
 *
 * Two parsers with one contract: the purpose-built streaming scanner (fast
 * path, bundle/scan.c) and a jansson reference. Both fill a kr_wave whose
 * arrays (insts, timeline, waits, producers) and strings (name) are malloc'd
 * and released by bundle_wave_release; `file` is left for the caller. Both
 * accept exactly the same inputs and produce the same model (differential
 * test). Records keep `line` as written; `row` is set to KR_ROW_NONE and
 * filled later by the capture loader. Semantics (stall <= duration, sorted
 * times, ...) are validate's business; the parsers check structure, types and
 * ranges only: every number an integer that fits its field, null arrays read
 * as empty, unknown keys ignored. Errors name the file and line:col. */
#ifndef KR_BUNDLE_LOAD_WAVE_H
#define KR_BUNDLE_LOAD_WAVE_H

#include <stddef.h>

#include "bundle/model.h"
#include "common/err.h"

int bundle_parse_wave(const char *data, size_t len, const char *fname, kr_wave *out, kr_err *err);
int bundle_parse_wave_jansson(const char *data, size_t len, const char *fname, kr_wave *out, kr_err *err);
void bundle_wave_release(kr_wave *w);

#endif
