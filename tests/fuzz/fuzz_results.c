/* fuzz_results.c — libFuzzer target: bundle_parse_results and
 * bundle_parse_results_for_agent (rocprofv3 results.json, docs/formats.md#results-json),
 * then the lookups analyze uses on an accepted file. */
#include "bundle/load_results.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = fz_copy(data, size);
    kr_arena a;
    kr_arena_init(&a);
    kr_results *r = NULL;
    kr_err err;
    kr_err_clear(&err);
    (void)bundle_results_sniff(buf, size);
    int rc = bundle_parse_results(&a, buf, size, "results.json", &r, &err);
    fz_check(rc, &err);
    if (rc == 0) {
        for (size_t p = 0; p < r->nprocs; p++)
            for (size_t i = 0; i < r->procs[p].nagents; i++) {
                uint64_t h = r->procs[p].agents[i].handle;
                if (bundle_results_find_agent(r, h) == NULL)
                    abort();
                (void)bundle_results_find_code_object(r, h, 1);
                (void)bundle_results_find_symbol(r, h, 1, 5888);
            }
        kr_results *r2 = NULL;
        kr_err_clear(&err);
        rc = bundle_parse_results_for_agent(&a, buf, size, "results.json", 32235, &r2, &err);
        if (rc)          /* the same file must be accepted again */
            abort();
    }
    kr_arena_free(&a);
    free(buf);
    return 0;
}
