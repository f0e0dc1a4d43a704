/* fuzz_csv_counter_collection.c — libFuzzer target: bundle_parse_counter_csv (counter_collection.csv, docs/formats.md#rocprofv3-csvs). */
#include "bundle/load_csv.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = fz_copy(data, size);
    kr_arena a;
    kr_arena_init(&a);
    bundle_counter_csv *out = NULL;
    kr_err err;
    kr_err_clear(&err);
    int rc = bundle_parse_counter_csv(&a, buf, size, "out_counter_collection.csv", &out, &err);
    fz_check(rc, &err);
    if (rc == 0 && !out)
        abort();
    kr_arena_free(&a);
    free(buf);
    return 0;
}
