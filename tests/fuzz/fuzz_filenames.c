/* fuzz_filenames.c — libFuzzer target: bundle_parse_filenames (filenames.json). */
#include "bundle/load_filenames.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = fz_copy(data, size);
    kr_capture *c = fz_capture_new();
    kr_err err;
    kr_err_clear(&err);
    fz_check(bundle_parse_filenames(c, buf, size, "filenames.json", &err), &err);
    fz_capture_free(c);
    free(buf);
    return 0;
}
