/* fuzz_code.c — libFuzzer target: bundle_parse_code (code.json). */
#include "bundle/load_code.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = fz_copy(data, size);
    kr_capture *c = fz_capture_new();
    kr_err err;
    kr_err_clear(&err);
    int rc = bundle_parse_code(c, buf, size, "code.json", &err);
    fz_check(rc, &err);
    /* The LineNumber index must agree with the rows (docs/formats.md#label-rows). */
    for (size_t r = 0; rc == 0 && r < c->nrows; r++)
        if (c->rows[r].line >= c->nline_map || c->line_to_row[c->rows[r].line] != (int32_t)r)
            abort();
    fz_capture_free(c);
    free(buf);
    return 0;
}
