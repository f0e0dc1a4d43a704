/* load_filenames.h — filenames.json, the file that identifies a capture
 * folder (docs/formats.md#wave-index).
 *
 * Fills c->version, gfxip, gfxv, counter_names and wave_refs (the
 * wave_filenames tree SE → SIMD → slot → N → [file, begin, end], flattened
 * and sorted by (se, simd, slot, id)); "wave_filenames": null reads as empty
 * and sets c->wave_filenames_null. A wave file name must be a plain file name
 * inside the folder. Newer keys (other_simd_filenames, shaderdata_filenames,
 * thread_trace, pc_sampling, is_pcs_stochastic) are type-checked and
 * otherwise ignored, as are unknown keys. Allocates in c->arena. */
#ifndef KR_BUNDLE_LOAD_FILENAMES_H
#define KR_BUNDLE_LOAD_FILENAMES_H

#include <stddef.h>

#include "bundle/model.h"
#include "common/err.h"

int bundle_parse_filenames(kr_capture *c, const char *data, size_t len, const char *fname, kr_err *err);

#endif
