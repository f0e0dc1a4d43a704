/* load_realtime.h — realtime.json and the clocks derived from it (docs/formats.md#realtime-samples).
 *
 * Keys `SE<n>` (n < KR_MAX_SE) hold [shader_clock, realtime_clock] samples,
 * each a pair of non-negative 64-bit integers (realtime values exceed 2^47;
 * never read through a double); `metadata` holds `frequency` (Hz) and
 * `descriptor`; other keys are ignored. Fills c->realtime and derives, with
 * bundle_realtime_derive, the measured shader clock (docs/formats.md#clock) and kreport's
 * canonical cross-SE alignment offsets (docs/formats.md#se-alignment). Allocates in c->arena. */
#ifndef KR_BUNDLE_LOAD_REALTIME_H
#define KR_BUNDLE_LOAD_REALTIME_H

#include <stddef.h>

#include "bundle/model.h"
#include "common/err.h"

int bundle_parse_realtime(kr_capture *c, const char *data, size_t len, const char *fname, kr_err *err);

/* Sets rt->clock_hz, rt->aligned and rt->se_offset from rt->ses and
 * rt->frequency. Per SE, lo/hi = the samples with the smallest/largest shader
 * clock; SEs with hi.sc > lo.sc and hi.rc > lo.rc contribute
 * S = Σ(hi.sc − lo.sc) and R = Σ(hi.rc − lo.rc). clock_hz =
 * S × frequency / R (0 when unknown). Alignment (exact rational arithmetic,
 * k = R / S): origin = lo.rc − lo.sc·k for every SE with a sample, anchor =
 * the smallest origin (ties: lowest SE), offset = (origin − origin_anchor)/k
 * rounded half away from zero. aligned = 0 (offsets 0) when fewer than two SEs
 * have samples, S or R is 0, or a value does not fit. */
void bundle_realtime_derive(kr_realtime *rt);

#endif
