/* fuzz_occupancy.c — libFuzzer target: bundle_parse_occupancy (occupancy.json). */
#include "bundle/load_occupancy.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = fz_copy(data, size);
    kr_capture *c = fz_capture_new();
    kr_err err;
    kr_err_clear(&err);
    fz_check(bundle_parse_occupancy(c, buf, size, "occupancy.json", &err), &err);
    fz_capture_free(c);
    free(buf);
    return 0;
}
