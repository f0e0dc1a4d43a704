/* fuzz_csv_kernel_trace.c — libFuzzer target: bundle_parse_kernel_trace (kernel_trace.csv, docs/formats.md#rocprofv3-csvs). */
#include "bundle/load_csv.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = fz_copy(data, size);
    kr_arena a;
    kr_arena_init(&a);
    kr_kernel_trace *out = NULL;
    kr_err err;
    kr_err_clear(&err);
    int rc = bundle_parse_kernel_trace(&a, buf, size, "out_kernel_trace.csv", &out, &err);
    fz_check(rc, &err);
    if (rc == 0 && !out)
        abort();
    kr_arena_free(&a);
    free(buf);
    return 0;
}
