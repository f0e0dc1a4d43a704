/* fuzz_bench_csv.c — libFuzzer target: a benchmark CSV (docs/compare.md#correctness-gate) read
 * with the generic reader and compared with itself by the compare pipeline:
 * pairing, classes, script metric and the default correctness gate. */
#include "analyzer/compare_bench.h"
#include "bundle/csv.h"
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
    int rc = bundle_csv_parse(&a, buf, size, "bench.csv", &t, &err);
    fz_check(rc, &err);
    if (rc == 0) {
        an_bench_csv b;
        memset(&b, 0, sizeof b);
        b.path = "bench.csv";
        b.ncols = t.ncols;
        b.nrows = t.nrows;
        b.header = (const char *const *)t.header;
        b.cells = (const char *const *)t.cells;
        b.lines = t.lines;
        an_bench_cmp cmp;
        an_bench_opts o;
        memset(&o, 0, sizeof o);
        if (an_bench_pair(&b, &b, &o, &cmp, &err) == 0) {
            if (an_bench_classes(&cmp, NULL, NULL, 0, &err) == 0)
                (void)an_bench_script(&cmp, 1, 50);
        }
        an_bench_free(&cmp);
        an_gate g;
        if (an_gate_parse("err_* == 0, *max_diff <= 0.5", &g, &err) == 0) {
            an_gate_eval ev;
            if (an_gate_evaluate(&g, &b, 1, &ev) == 0)
                an_gate_eval_free(&ev);
            an_gate_free(&g);
        }
    }
    kr_arena_free(&a);
    free(buf);
    return 0;
}
