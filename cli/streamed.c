/* streamed.c — see streamed.h. */
#include "cli/streamed.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "common/err.h"

void cli_memory_setup(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    mallopt(M_TRIM_THRESHOLD, 16 << 20);
#endif
}

int cli_load_streamed(const char *dir, const bundle_opts *bo, int in_memory, int keep_timelines, int flow,
                      kr_capture **cap, an_stream **stream, kr_err *err)
{
    bundle_opts o = *bo;
    *cap = NULL;
    *stream = NULL;
    an_stream *s = NULL;
    kr_wave_sink sink;
    if (!in_memory) {
        if (!(s = an_stream_new(keep_timelines, flow)))
            return kr_err_set(err, KR_INTERNAL, dir, NULL, "out of memory");
        sink = an_stream_sink(s);
        o.sink = &sink;
    }
    int rc = bundle_capture_load(dir, &o, cap, err);
    if (rc || !s || an_stream_exact(s)) {
        if (rc)
            an_stream_free(s);
        else
            *stream = s;
        return rc;
    }
    /* The loader's groups were not the waves' own scopes: load whole. */
    bundle_capture_free(*cap);
    *cap = NULL;
    an_stream_free(s);
    o.sink = NULL;
    return bundle_capture_load(dir, &o, cap, err);
}

int cli_analyze_loaded(an_stream *stream, const kr_capture *c, const an_analysis_opts *ao, an_analysis *out)
{
    return stream ? an_analyze_stream(stream, c, ao, out) : an_analyze(c, ao, out);
}
