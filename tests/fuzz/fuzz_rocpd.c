/* fuzz_rocpd.c — libFuzzer target: bundle_parse_rocpd (rocpd SQLite
 * databases, docs/formats.md#rocpd-databases) on databases held in memory, mutated from the
 * seeds tests/fuzz/seeds.sh builds with tests/tools/mkrocpd.py; then the
 * agent choice on an accepted file. SQLite's own checks and the loader's
 * limits (bundle/load_rocpd.h) must turn every mutation into a clean error. */
#include "bundle/load_rocpd.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = fz_copy(data, size);
    kr_arena a;
    kr_arena_init(&a);
    kr_rocpd *db = NULL;
    kr_err err;
    kr_err_clear(&err);
    int rc = bundle_parse_rocpd(&a, buf, size, "fuzz_results.db", &db, &err);
    fz_check(rc, &err);
    if (rc == 0) {
        char note[300];
        if (!db->trace || !db->agents || (db->trace->nrows > 0 && !db->trace->rows))
            abort();
        (void)bundle_rocpd_agent(db, 1, 32235, note, sizeof note);
        (void)bundle_rocpd_agent(db, 0, 0, note, sizeof note);
        for (size_t i = 0; i < db->ncounters; i++)
            if (!db->counters[i].counter || !db->counters[i].kernel_name)
                abort();
    }
    kr_arena_free(&a);
    free(buf);
    return 0;
}
