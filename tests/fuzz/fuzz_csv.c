/* fuzz_csv.c — libFuzzer target: the generic RFC 4180 reader
 * (bundle_csv_parse, docs/formats.md#rocprofv3-csvs) and the header classification. */
#include "bundle/csv.h"
#include "bundle/load_csv.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = fz_copy(data, size);
    kr_arena a;
    kr_arena_init(&a);
    bundle_csv t;
    kr_err err;
    kr_err_clear(&err);
    int rc = bundle_csv_parse(&a, buf, size, "table.csv", &t, &err);
    fz_check(rc, &err);
    if (rc == 0) {
        for (size_t r = 0; r < t.nrows; r++)
            for (size_t col = 0; col < t.ncols; col++)
                if (!bundle_csv_cell(&t, r, col))
                    abort();
        (void)bundle_csv_type_name(bundle_csv_kind_of(&t, NULL));
        (void)bundle_csv_kind_of(&t, "x_domain_stats.csv");
    }
    kr_arena_free(&a);
    free(buf);
    return 0;
}
