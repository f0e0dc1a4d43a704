/* load_wave.h — wave files se<SE>_sm<SIMD>_sl<SLOT>_wv<N>.json (docs/formats.md#wave-files).
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

/* Arrays handed back for reuse, so a loader that drops the records of one
 * wave and parses the next one fills memory already touched instead of
 * growing fresh arrays. Index BUNDLE_SPARE_INSTS.. as below; arr[k] is a
 * malloc'd array of cap[k] elements of that kind, or NULL. The scanner
 * takes a spare array (arr[k] set to NULL) when the wave has elements of
 * that kind and leaves it otherwise; the model is the same as without
 * spares. On success wave_cap[k] is the capacity, in elements, of the
 * wave's array of that kind (0 when NULL), for handing it back later. */
enum { BUNDLE_SPARE_INSTS, BUNDLE_SPARE_TIMELINE, BUNDLE_SPARE_WAITS, BUNDLE_SPARE_PRODUCERS, BUNDLE_SPARE_KINDS };
typedef struct bundle_wave_spare {
    void *arr[BUNDLE_SPARE_KINDS];
    size_t cap[BUNDLE_SPARE_KINDS];
    size_t wave_cap[BUNDLE_SPARE_KINDS];
} bundle_wave_spare;
/* bundle_parse_wave with spare arrays (spare may be NULL). */
int bundle_parse_wave_spare(const char *data, size_t len, const char *fname, kr_wave *out,
                            bundle_wave_spare *spare, kr_err *err);

#endif
