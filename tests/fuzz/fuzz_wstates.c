/* fuzz_wstates.c — libFuzzer target: bundle_parse_wstates (wstates<k>.json). */
#include "bundle/load_wstates.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = fz_copy(data, size);
    kr_capture *c = fz_capture_new();
    kr_err err;
    kr_err_clear(&err);
    int rc = bundle_parse_wstates(c, 3, buf, size, "wstates3.json", &err);
    fz_check(rc, &err);
    if (rc == 0 && !c->wstates[3].present)
        abort();
    fz_capture_free(c);
    free(buf);
    return 0;
}
