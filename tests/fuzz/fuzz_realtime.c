/* fuzz_realtime.c — libFuzzer target: bundle_parse_realtime (realtime.json). */
#include "bundle/load_realtime.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = fz_copy(data, size);
    kr_capture *c = fz_capture_new();
    kr_err err;
    kr_err_clear(&err);
    fz_check(bundle_parse_realtime(c, buf, size, "realtime.json", &err), &err);
    fz_capture_free(c);
    free(buf);
    return 0;
}
