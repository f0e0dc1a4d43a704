/* fuzz_wave.c — libFuzzer target: bundle_parse_wave (a wave file, docs/formats.md#wave-files). */
#include "bundle/load_wave.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = fz_copy(data, size);
    kr_wave w;
    memset(&w, 0, sizeof w);
    kr_err err;
    kr_err_clear(&err);
    int rc = bundle_parse_wave(buf, size, "se0_sm0_sl0_wv0.json", &w, &err);
    fz_check(rc, &err);
    /* Waitcnt entries index the producer array (docs/formats.md#waitcnt-arrays). */
    for (size_t i = 0; rc == 0 && i < w.nwaits; i++)
        if (w.waits[i].first > w.nproducers || w.waits[i].n > w.nproducers - w.waits[i].first)
            abort();
    bundle_wave_release(&w);
    free(buf);
    return 0;
}
