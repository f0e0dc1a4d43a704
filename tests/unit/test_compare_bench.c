/* test_compare_bench.c — gate expressions, result/config columns, row
 * pairing, classes, the metric default, target-class specs and the split
 * predicate (docs/compare.md#correctness-gate, docs/compare.md#script-metric, docs/compare.md#config-classes, docs/compare.md#overall-verdict), on tables written here; every
 * expected value is worked out in the comments. */
#include <math.h>

#include "analyzer/compare_bench.h"
#include "tests/unit/t.h"

static an_bench_csv table(const char *path, const char *const *header, size_t ncols, const char *const *cells,
                          size_t nrows)
{
    an_bench_csv t = {path, 0, ncols, nrows, header, cells, NULL};
    return t;
}

static void test_gate_parse(void)
{
    an_gate g;
    kr_err err;
    T_EQ_I64(an_gate_parse("err_*", &g, &err), 0);
    T_EQ_U64(g.n, 1);
    T_EQ_STR(g.terms[0].pattern, "err_*");
    T_EQ_I64(g.terms[0].op, AN_GATE_OK);
    T_NEAR(g.terms[0].value, 0, 0);
    T_EQ_STR(g.text, "err_* == 0");
    an_gate_free(&g);

    T_EQ_I64(an_gate_parse(" err_flydsl_ps ,x_max_diff<=0.5 && y>1e-3,z!=2", &g, &err), 0);
    T_EQ_U64(g.n, 4);
    T_EQ_I64(g.terms[1].op, AN_GATE_LE);
    T_NEAR(g.terms[1].value, 0.5, 0);
    T_EQ_I64(g.terms[2].op, AN_GATE_GT);
    T_NEAR(g.terms[2].value, 1e-3, 0);
    T_EQ_I64(g.terms[3].op, AN_GATE_NE);
    T_EQ_STR(g.text, "err_flydsl_ps == 0, x_max_diff <= 0.5, y > 1e-3, z != 2");
    an_gate_free(&g);

    T_EQ_I64(an_gate_parse("== 0", &g, &err), KR_USAGE);
    T_EQ_I64(an_gate_parse("a <= x", &g, &err), KR_USAGE);
    T_EQ_I64(an_gate_parse("a b", &g, &err), KR_USAGE);
    T_EQ_I64(an_gate_parse("a,", &g, &err), KR_USAGE);
    T_CHECK(strstr(err.msg, "--gate") != NULL);
}

static void test_gate_match(void)
{
    T_CHECK(an_gate_match("err_*", "err_gluon"));
    T_CHECK(!an_gate_match("err_*", "x_err_gluon"));
    T_CHECK(an_gate_match("*_max_diff", "flydsl_ps_max_diff"));
    T_CHECK(!an_gate_match("*_max_diff", "flydsl_ps_max_diff_thr"));
    T_CHECK(an_gate_match("*max*diff*", "a_max_b_diff_c"));
    T_CHECK(an_gate_match("a*b*c", "abc"));
    T_CHECK(!an_gate_match("a*b*c", "acb"));
    T_CHECK(an_gate_match("exact", "exact"));
    T_CHECK(!an_gate_match("exact", "exact2"));
}

static void test_gate_evaluate(void)
{
    /* err_a: 0, 0.0, "", NaN, 1, x → the last four fail (empty, NaN and text
     * are not numbers; 1 != 0); diff <= 0.5: 0.1 0.5 0.6 ... → 0.6 and 2 fail. */
    const char *h[] = {"cfg", "err_a", "diff"};
    const char *c[] = {"1", "0", "0.1", "2", "0.0", "0.5", "3", "", "0.6", "4", "NaN", "0", "5", "1", "0",
                       "6", "x", "2"};
    an_bench_csv t = table("t.csv", h, 3, c, 6);
    an_gate g;
    kr_err err;
    T_EQ_I64(an_gate_parse("err_*, diff <= 0.5", &g, &err), 0);
    an_gate_eval e;
    T_EQ_I64(an_gate_evaluate(&g, &t, 1, &e), 0);
    T_EQ_U64(e.cells, 12);
    T_EQ_U64(e.nfails, 6);
    /* In (row, col) order: row 2 err_a, row 2 diff, row 3 err_a, row 4 err_a, row 5 err_a, row 5 diff. */
    T_EQ_U64(e.fails[0].row, 2);
    T_EQ_U64(e.fails[0].col, 1);
    T_EQ_U64(e.fails[1].row, 2);
    T_EQ_U64(e.fails[1].col, 2);
    T_EQ_U64(e.fails[5].row, 5);
    T_EQ_U64(e.fails[5].col, 2);
    T_EQ_U64(e.ncolumns, 2);
    T_EQ_STR(e.columns[0], "diff");
    T_EQ_STR(e.columns[1], "err_a");
    T_CHECK(e.term_matched[0] && e.term_matched[1]);
    an_gate_eval_free(&e);
    an_gate_free(&g);
}

static void test_columns(void)
{
    const char *result[] = {"us_flydsl_ps", "err_gluon", "flydsl_ps_max_diff", "flydsl_ps_max_diff_thr", "TFLOPS",
                            "achieved_gbps", "speedup", "ratio_x", "kernel_time", "lat_us", "LAT_MS"};
    for (size_t i = 0; i < sizeof result / sizeof result[0]; i++)
        T_CHECK(an_bench_is_result_column(result[i]));
    const char *config[] = {"block_size", "num_heads", "query_length", "trans_v", "compute_type", "usage"};
    for (size_t i = 0; i < sizeof config / sizeof config[0]; i++)
        T_CHECK(!an_bench_is_result_column(config[i]));
    double v;
    T_CHECK(an_bench_number(" 0.0 ", &v) && v == 0);
    T_CHECK(!an_bench_number("", &v));
    T_CHECK(!an_bench_number("NaN", &v));
    T_CHECK(!an_bench_number("inf", &v));
    T_CHECK(!an_bench_number("1x", &v));
    char b[32];
    an_bench_norm(" True ", b, sizeof b);
    T_EQ_STR(b, "1");
    an_bench_norm("false", b, sizeof b);
    T_EQ_STR(b, "0");
    an_bench_norm("(8, 1)", b, sizeof b);
    T_EQ_STR(b, "(8, 1)");
}

/* BEST rows (bs, q, trans, us_gluon, us_flydsl_ps, err):
 *   0: 16 1 True   10 20      1: 16 1 True 11 22 (duplicate key of row 0)
 *   2: 16 2 True   12 30      3: 1024 1 True 13 40
 * CANDIDATE in another order, booleans written "true"/"1":
 *   0: 1024 1 1    13 36      1: 16 1 true 10 18
 *   2: 16 2 True   12 33      3: 16 1 True 11 22
 * Keys ignore us_* and err_*; duplicates pair in file order: BEST 0 ↔ CAND 1,
 * BEST 1 ↔ CAND 3, BEST 2 ↔ CAND 2, BEST 3 ↔ CAND 0. Ratios of us_flydsl_ps
 * (the default metric: us_gluon has the reference token "gluon"): 0.9, 1.0,
 * 1.1, 0.9. Classes (block_size, query_length via the mtp alias): (16,1)
 * rows 0,1 → geomean √(0.9·1.0) = 0.948683; (16,2) → 1.1; (1024,1) → 0.9. */
static const char *H[] = {"block_size", "query_length", "trans_v", "us_gluon", "us_flydsl_ps", "err_flydsl_ps"};
static const char *B[] = {"16", "1", "True", "10", "20", "0", "16", "1", "True", "11", "22", "0",
                          "16", "2", "True", "12", "30", "0", "1024", "1", "True", "13", "40", "0"};
static const char *C[] = {"1024", "1", "1", "13", "36", "0", "16", "1", "true", "10", "18", "0",
                          "16", "2", "True", "12", "33", "0", "16", "1", "True", "11", "22", "0"};

static void test_pairing(void)
{
    an_bench_csv b = table("b.csv", H, 6, B, 4), c = table("c.csv", H, 6, C, 4);
    an_bench_cmp m;
    kr_err err;
    T_EQ_I64(an_bench_pair(&b, &c, NULL, &m, &err), 0);
    T_EQ_U64(m.nconfig, 3);
    T_EQ_STR(m.config[2], "trans_v");
    T_EQ_U64(m.nrows, 4);
    T_EQ_U64(m.nunpaired_best + m.nunpaired_cand, 0);
    size_t want[4] = {1, 3, 2, 0};
    for (size_t i = 0; i < 4; i++) {
        T_EQ_U64(m.rows[i].best_row, i);
        T_EQ_U64(m.rows[i].cand_row, want[i]);
    }
    T_EQ_STR(m.metric, "us_flydsl_ps");
    T_EQ_STR(m.metric_source, "default");
    T_NEAR(m.rows[0].ratio, 0.9, 1e-12);
    T_NEAR(m.rows[2].ratio, 1.1, 1e-12);
    T_NEAR(m.best_mean, (20 + 22 + 30 + 40) / 4.0, 1e-12);
    T_NEAR(m.cand_mean, (18 + 22 + 33 + 36) / 4.0, 1e-12);
    T_EQ_STR(m.rows[0].label, "block_size=16, query_length=1, trans_v=True");
    T_EQ_I64(an_bench_classes(&m, NULL, NULL, 0, &err), 0);
    T_EQ_STR(m.class_source, "default");
    T_EQ_U64(m.nclass_cols, 2);
    T_EQ_STR(m.class_cols[1], "query_length");
    T_EQ_U64(m.nclasses, 3);
    T_EQ_STR(m.classes[0].label, "block_size=16, query_length=1");
    T_EQ_U64(m.classes[0].nrows, 2);
    T_NEAR(m.classes[0].geomean_ratio, sqrt(0.9), 1e-12);
    T_EQ_U64(m.classes[0].best_row, 0);
    T_EQ_U64(m.classes[0].worst_row, 1);
    T_NEAR(m.classes[1].geomean_ratio, 1.1, 1e-12);
    T_EQ_STR(m.classes[2].label, "block_size=1024, query_length=1");
    /* Script geomean over all rows: (0.9·1.0·1.1·0.9)^(1/4); the bootstrap is
     * seeded (same seed, same interval) and brackets the resampled means. */
    T_EQ_I64(an_bench_script(&m, 42, 2000), 0);
    T_NEAR(m.geomean_ratio, pow(0.9 * 1.0 * 1.1 * 0.9, 0.25), 1e-12);
    double lo = m.boot_lo, hi = m.boot_hi;
    T_CHECK(lo >= 0.9 - 1e-12 && hi <= 1.1 + 1e-12 && lo <= m.geomean_ratio && m.geomean_ratio <= hi);
    T_EQ_I64(an_bench_script(&m, 42, 2000), 0);
    T_CHECK(lo == m.boot_lo && hi == m.boot_hi);
    /* --class-by and unknown columns. */
    T_EQ_I64(an_bench_classes(&m, "trans_v", NULL, 0, &err), 0);
    T_EQ_U64(m.nclasses, 1);
    T_EQ_STR(m.classes[0].label, "trans_v=True");
    T_EQ_I64(an_bench_classes(&m, "nope", NULL, 0, &err), KR_USAGE);
    /* Target class spec: mtp is an alias of query_length; 1024,1 is row 3 only. */
    an_target_spec ts;
    T_EQ_I64(an_target_parse(&m, "block_size=1024,mtp=1", &ts, &err), 0);
    T_EQ_U64(ts.n, 2);
    T_CHECK(!an_target_matches(&m, &ts, 0) && an_target_matches(&m, &ts, 3));
    an_target_free(&ts);
    T_EQ_I64(an_target_parse(&m, "global", &ts, &err), 0);
    T_EQ_U64(ts.n, 0);
    T_EQ_I64(an_target_parse(&m, "heads=8", &ts, &err), KR_USAGE);
    T_EQ_I64(an_target_parse(&m, "block_size", &ts, &err), KR_USAGE);
    an_bench_free(&m);

    /* --metric must exist; only a reference us_ column: it is taken, said so. */
    an_bench_opts o = {"us_nothing", NULL, AN_DIR_AUTO, NULL};
    T_EQ_I64(an_bench_pair(&b, &c, &o, &m, &err), KR_USAGE);
    an_bench_free(&m);
    const char *h2[] = {"block_size", "us_gluon"};
    const char *c2[] = {"16", "10"};
    an_bench_csv b2 = table("b.csv", h2, 2, c2, 1);
    T_EQ_I64(an_bench_pair(&b2, &b2, NULL, &m, &err), 0);
    T_EQ_STR(m.metric, "us_gluon");
    T_EQ_STR(m.metric_source, "first us_ column");
    an_bench_free(&m);
}

/* A missing row is unpaired on both sides; a float config column whose values
 * never repeat is re-labelled a result and pairing is retried. */
static void test_unpaired_and_relabel(void)
{
    const char *h[] = {"block_size", "scale", "us_x"};
    const char *b[] = {"16", "0.125", "1", "32", "0.250", "2"};
    const char *c[] = {"16", "0.126", "1", "32", "0.251", "2"};
    an_bench_csv tb = table("b.csv", h, 3, b, 2), tc = table("c.csv", h, 3, c, 2);
    an_bench_cmp m;
    kr_err err;
    T_EQ_I64(an_bench_pair(&tb, &tc, NULL, &m, &err), 0);
    T_EQ_U64(m.nrelabelled, 1);
    T_EQ_STR(m.relabelled[0], "scale");
    T_EQ_U64(m.nrows, 2);
    T_EQ_U64(m.nconfig, 1);
    an_bench_free(&m);

    const char *c3[] = {"16", "1", "64", "2"};
    const char *h3[] = {"block_size", "us_x"};
    const char *b3[] = {"16", "1", "32", "2"};
    an_bench_csv x = table("b.csv", h3, 2, b3, 2), y = table("c.csv", h3, 2, c3, 2);
    T_EQ_I64(an_bench_pair(&x, &y, NULL, &m, &err), 0);
    T_EQ_U64(m.nrows, 1);
    T_EQ_U64(m.nunpaired_best, 1);
    T_EQ_U64(m.unpaired_best[0], 1);
    T_EQ_U64(m.nunpaired_cand, 1);
    T_EQ_U64(m.unpaired_cand[0], 1);
    an_bench_free(&m);

    const char *h4[] = {"block_size", "extra", "us_x"};
    const char *b4[] = {"16", "a", "1"};
    an_bench_csv z = table("c.csv", h4, 3, b4, 1);
    T_EQ_I64(an_bench_pair(&x, &z, NULL, &m, &err), 0);
    T_CHECK(m.config_differs);
    T_CHECK(strstr(m.config_diff, "extra") != NULL);
    an_bench_free(&m);
}

/* Classes block_size {16, 1024} × query_length {1, 2, 3} (one row each, in
 * that order: class k = 3·(bs index) + (q − 1)). */
static void test_predicate(void)
{
    const char *h[] = {"block_size", "query_length", "us_x"};
    const char *cells[] = {"16", "1", "1", "16", "2", "1", "16", "3", "1", "1024", "1", "1", "1024", "2", "1",
                           "1024", "3", "1"};
    an_bench_csv t = table("t.csv", h, 3, cells, 6);
    an_bench_cmp m;
    kr_err err;
    T_EQ_I64(an_bench_pair(&t, &t, NULL, &m, &err), 0);
    T_EQ_I64(an_bench_classes(&m, NULL, NULL, 0, &err), 0);
    T_EQ_U64(m.nclasses, 6);
    struct { uint8_t sel[6]; const char *want, *want_eq; } cases[] = {
        /* docs/compare.md#worked-examples: 1024 with q 1, 2 → "block_size == 1024 && query_length <= 2". */
        {{0, 0, 0, 1, 1, 0}, "block_size == 1024 && query_length <= 2", "block_size=1024, query_length<=2"},
        /* every query length of block 16: the query_length term drops out. */
        {{1, 1, 1, 0, 0, 0}, "block_size == 16", "block_size=16"},
        {{0, 0, 0, 0, 1, 1}, "block_size == 1024 && query_length >= 2", "block_size=1024, query_length>=2"},
        {{0, 0, 0, 1, 0, 1}, "block_size == 1024 && query_length in {1, 3}", "block_size=1024, query_length in {1, 3}"},
        {{0, 1, 0, 0, 0, 0}, "block_size == 16 && query_length == 2", "block_size=16, query_length=2"},
        /* (16,3) and (1024,1): the product {16,1024}×{1,3} would also pick (16,1), (1024,3) → disjunction. */
        {{0, 0, 1, 1, 0, 0}, "(block_size == 16 && query_length == 3) || (block_size == 1024 && query_length == 1)",
         "block_size=16, query_length=3; block_size=1024, query_length=1"},
        {{1, 1, 1, 1, 1, 1}, "all classes", "all classes"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *p = an_bench_predicate(&m, cases[i].sel, 0), *q = an_bench_predicate(&m, cases[i].sel, 1);
        T_EQ_STR(p, cases[i].want);
        T_EQ_STR(q, cases[i].want_eq);
        free(p);
        free(q);
    }
    uint8_t none[6] = {0};
    T_CHECK(an_bench_predicate(&m, none, 0) == NULL);
    an_bench_free(&m);
}

/* Column kinds (docs/compare.md "Benchmark CSV columns"): each name's kind
 * as the rules read, first match wins. */
static void test_column_kinds(void)
{
    struct { const char *name; an_col_kind kind; } k[] = {
        {"Check", AN_COL_GATE_TEXT},       {"benchmark_status", AN_COL_GATE_TEXT}, {"STATUS", AN_COL_GATE_TEXT},
        {"correct", AN_COL_GATE_BOOL},     {"is_correct", AN_COL_GATE_BOOL},       {"valid", AN_COL_GATE_BOOL},
        {"err_flydsl_ps", AN_COL_GATE_NUMBER},
        {"max_err", AN_COL_ERROR_SIZE},    {"mean_err", AN_COL_ERROR_SIZE},        {"max_abs_err", AN_COL_ERROR_SIZE},
        {"err_max", AN_COL_ERROR_SIZE},    {"min_cos", AN_COL_ERROR_SIZE},         {"cos_sim", AN_COL_ERROR_SIZE},
        {"flydsl_ps_max_diff", AN_COL_ERROR_SIZE}, {"atol", AN_COL_ERROR_SIZE},    {"snr_db", AN_COL_ERROR_SIZE},
        {"correctness_error", AN_COL_ERROR_SIZE},
        {"us_flydsl_ps", AN_COL_METRIC_LOWER}, {"median_us", AN_COL_METRIC_LOWER}, {"time_ms", AN_COL_METRIC_LOWER},
        {"Latency", AN_COL_METRIC_LOWER},  {"kernel time (us)", AN_COL_METRIC_LOWER},
        {"Forward TFLOPS", AN_COL_METRIC_HIGHER}, {"effective_gbps", AN_COL_METRIC_HIGHER},
        {"Bandwidth (GB/s)", AN_COL_METRIC_HIGHER}, {"tokens/s", AN_COL_METRIC_HIGHER}, {"speedup", AN_COL_METRIC_HIGHER},
        {"block_size", AN_COL_CONFIG},     {"num_heads", AN_COL_CONFIG},          {"shape_id", AN_COL_CONFIG},
        {"provider", AN_COL_CONFIG},       {"dtype", AN_COL_CONFIG},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        if (an_bench_column_kind(k[i].name) != k[i].kind)
            fprintf(stderr, "column %s\n", k[i].name);
        T_EQ_I64(an_bench_column_kind(k[i].name), k[i].kind);
    }
    /* Gate cells: pass words, fail words, skips. */
    T_EQ_I64(an_bench_gate_cell("Check", " PASS "), 1);
    T_EQ_I64(an_bench_gate_cell("Check", "ok"), 1);
    T_EQ_I64(an_bench_gate_cell("Check", "FAIL"), 0);
    T_EQ_I64(an_bench_gate_cell("Check", "mismatch"), 0);
    T_EQ_I64(an_bench_gate_cell("Check", "skipped (unsupported)"), -1);
    T_EQ_I64(an_bench_gate_cell("Check", ""), -1);
    T_EQ_I64(an_bench_gate_cell("benchmark_status", "incorrect"), 0);
    T_EQ_I64(an_bench_gate_cell("correct", "True"), 1);
    T_EQ_I64(an_bench_gate_cell("correct", "1"), 1);
    T_EQ_I64(an_bench_gate_cell("correct", "False"), 0);
    T_EQ_I64(an_bench_gate_cell("correct", ""), 0);
    T_EQ_I64(an_bench_gate_cell("err_x", "0.0"), 1);
    T_EQ_I64(an_bench_gate_cell("err_x", "1"), 0);
    T_EQ_I64(an_bench_gate_cell("err_x", "NaN"), 0);
}

/* Metric direction: a TFLOPS gain is a time-like ratio below 1; an unknown
 * direction is refused naming both flags; the flags override the name. */
static void test_direction(void)
{
    const char *h[] = {"seqlen", "Forward TFLOPS", "Check"};
    const char *cb[] = {"512", "100", "PASS", "1024", "200", "PASS"};
    const char *cc[] = {"512", "105", "PASS", "1024", "200", "PASS"};
    an_bench_csv b = table("b.csv", h, 3, cb, 2), c = table("c.csv", h, 3, cc, 2);
    an_bench_cmp m;
    kr_err err;
    T_EQ_I64(an_bench_pair(&b, &c, NULL, &m, &err), 0);
    T_EQ_STR(m.metric, "Forward TFLOPS");
    T_CHECK(m.metric_higher);
    T_EQ_U64(m.nconfig, 1);                          /* Check is a gate, not config */
    T_NEAR(m.rows[0].ratio, 100.0 / 105.0, 1e-12);  /* time-like: best / cand */
    T_NEAR(m.rows[1].ratio, 1, 0);
    an_bench_free(&m);
    an_bench_opts o = {"seqlen", NULL, AN_DIR_AUTO, NULL};
    T_EQ_I64(an_bench_pair(&b, &c, &o, &m, &err), KR_USAGE);
    T_CHECK(strstr(err.msg, "--higher-is-better") && strstr(err.msg, "--lower-is-better"));
    an_bench_free(&m);
    an_bench_opts lo = {"Forward TFLOPS", NULL, AN_DIR_LOWER, NULL};
    T_EQ_I64(an_bench_pair(&b, &c, &lo, &m, &err), 0);
    T_CHECK(!m.metric_higher);
    T_NEAR(m.rows[0].ratio, 105.0 / 100.0, 1e-12);
    an_bench_free(&m);
    /* --config keys the rows by the named columns alone. */
    const char *h2[] = {"run_id", "shape_id", "median_us"};
    const char *b2[] = {"r1", "sha1:aa", "10", "r1", "sha1:bb", "20"};
    const char *c2[] = {"r2", "sha1:bb", "19", "r2", "sha1:aa", "11"};
    an_bench_csv x = table("b.csv", h2, 3, b2, 2), y = table("c.csv", h2, 3, c2, 2);
    an_bench_opts k = {NULL, NULL, AN_DIR_AUTO, "shape_id"};
    T_EQ_I64(an_bench_pair(&x, &y, &k, &m, &err), 0);
    T_EQ_U64(m.nrows, 2);
    T_EQ_U64(m.rows[0].cand_row, 1);
    T_NEAR(m.rows[0].ratio, 1.1, 1e-12);
    T_EQ_STR(m.metric, "median_us");
    an_bench_free(&m);
    an_bench_opts none = {NULL, NULL, AN_DIR_AUTO, NULL};
    T_EQ_I64(an_bench_pair(&x, &y, &none, &m, &err), 0);
    T_EQ_U64(m.nrows, 0);                            /* run_id differs: nothing pairs without --config */
    an_bench_free(&m);
}

int main(void)
{
    test_column_kinds();
    test_direction();
    test_gate_parse();
    test_gate_match();
    test_gate_evaluate();
    test_columns();
    test_pairing();
    test_unpaired_and_relabel();
    test_predicate();
    return t_done("test_compare_bench");
}
