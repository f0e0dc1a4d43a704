/* test_run_baseline.c — one side's baseline figures (analyzer/run_baseline.h):
 * calls and classes of a pinned two-kernel set with a kernel-selecting
 * column, the metric CSV and the gate over every CSV, an ambiguous pick with
 * each candidate's figures, and the docs/occupancy.md#limits/docs/occupancy.md#register-counts limits from trace counts
 * with and without a capture's ISA marks (docs/occupancy.md#worked-examples's numbers). The
 * expected values are worked out in the comments. */
#include "analyzer/run_baseline.h"
#include "tests/unit/t.h"

typedef struct { const char *name; uint64_t dur; } step;

/* Dispatches one after the other on agent 2, 1 µs apart. */
static kr_dispatch *make(const step *s, size_t n)
{
    kr_dispatch *d = calloc(n, sizeof *d);
    uint64_t t = 1000000;
    for (size_t i = 0; i < n; i++) {
        d[i].dispatch_id = i + 1;
        d[i].agent = 2;
        d[i].kernel_name = s[i].name;
        d[i].start_ns = t;
        d[i].end_ns = t + s[i].dur;
        d[i].vgpr = 124;
        d[i].accum_vgpr = 0;
        d[i].sgpr = 112;
        d[i].lds_bytes = 49152;
        d[i].scratch_bytes = 0;
        d[i].wg[0] = 256; d[i].wg[1] = d[i].wg[2] = 1;
        d[i].grid[0] = 131072; d[i].grid[1] = d[i].grid[2] = 1;
        t += s[i].dur + 1000;
    }
    return d;
}

#define FW "void at::native::vectorized_elementwise_kernel<4>"

static an_cmp_side side_of(const an_bench_csv *csvs, size_t ncsvs, const an_trace_in *tr, size_t ntr)
{
    an_cmp_side s;
    memset(&s, 0, sizeof s);
    s.path = "run";
    s.csvs = csvs;
    s.ncsvs = ncsvs;
    s.traces = tr;
    s.ntraces = ntr;
    s.gpu_name = "gfx950";
    s.cu_count = 256;
    s.exit_code = -1;
    return s;
}

/* Rows (block_size, variant): (16,a) (16,b) (1024,a) (1024,b), one segment
 * each, K16 on block 16 and K1024 on block 1024, first call cold. Pinned to
 * ^K: 4 segments for 4 rows, row-aligned. --class-by variant; block_size
 * selects the kernel (16 → K16, 1024 → K1024, and variant does not), so it
 * joins the key: 4 classes of one row. Warm calls per row {100,102},
 * {104,106}, {200,204}, {210,212}: class medians 101, 105, 202, 211; all
 * warm: median (106 + 200) / 2 = 153, mean 1238 / 8 = 154.75. */
static void test_classes(void)
{
    step s[] = {{"K16", 110}, {"K16", 100}, {"K16", 102}, {FW, 7}, {"K16", 120}, {"K16", 104}, {"K16", 106}, {FW, 7},
                {"K1024", 220}, {"K1024", 200}, {"K1024", 204}, {FW, 7}, {"K1024", 230}, {"K1024", 210}, {"K1024", 212},
                {FW, 7}};
    kr_dispatch *d = make(s, 16);
    an_trace_in tr = {"t.csv", d, 16, 0, NULL, 0, NULL, 0};
    const char *header[] = {"block_size", "variant", "us_x", "err_x"};
    const char *cells[] = {"16", "a", "10", "0", "16", "b", "11", "0", "1024", "a", "20", "0", "1024", "b", "21", "0"};
    size_t lines[] = {2, 3, 4, 5};
    an_bench_csv csv = {"bench.csv", 0, 4, 4, header, cells, lines};
    an_cmp_side side = side_of(&csv, 1, &tr, 1);
    const char *k[] = {"^K"};
    an_baseline_opts o = {k, 1, NULL, NULL, "variant", 1, 0.01, NULL, NULL};
    an_baseline b;
    kr_err err;
    T_EQ_I64(an_baseline_run(&side, &o, &b, &err), 0);
    T_EQ_U64(b.target.n, 2);
    T_EQ_U64(b.calls.warm_calls, 8);
    T_NEAR(b.calls.warm.median, 153, 1e-9);
    T_NEAR(b.calls.warm.mean, 154.75, 1e-9);
    T_CHECK(b.row_aligned);
    T_EQ_U64(b.nkernel_columns, 1);
    if (b.nkernel_columns)
        T_EQ_STR(b.kernel_columns[0], "block_size");
    T_EQ_U64(b.nclasses, 4);
    double med[] = {101, 105, 202, 211}, metric[] = {10, 11, 20, 21};
    for (size_t c = 0; c < b.nclasses && c < 4; c++) {
        T_EQ_U64(b.classes[c].gpu.n, 2);
        T_NEAR(b.classes[c].gpu.median, med[c], 1e-9);
        T_NEAR(b.classes[c].metric.mean, metric[c], 1e-9);
        T_EQ_U64(b.classes[c].nkernels, 1);
    }
    T_EQ_STR(b.classes[0].label, "variant=a, block_size=16");
    T_EQ_STR(b.classes[0].kernels[0], "K16");
    T_EQ_STR(b.classes[2].kernels[0], "K1024");
    T_NEAR(b.metric.mean, 15.5, 1e-9);
    T_EQ_STR(b.gate_status, "pass");
    T_EQ_STR(b.gate_source, "default");
    T_EQ_U64(b.gate_eval.cells, 4);
    an_baseline_free(&b);
    /* Not pinned: K1024 (total 1276) is picked over K16 (642); 4 × 642 ≥
     * 1276 makes the pick ambiguous. K1024's own calls are 2 segments for 4
     * rows: not row-aligned, no class GPU time. */
    an_baseline_opts o2 = {NULL, 0, NULL, NULL, "variant", 1, 0.01, NULL, NULL};
    T_EQ_I64(an_baseline_run(&side, &o2, &b, &err), 0);
    T_EQ_STR(b.target.names[0], "K1024");
    T_CHECK(!b.row_aligned);
    T_EQ_U64(b.classes[0].gpu.n, 0);
    T_EQ_U64(b.ncandidates, 2);
    if (b.ncandidates == 2) {
        /* K1024 alone: warm {200, 204, 210, 212} → median 207; K16: {100, 102, 104, 106} → 103. */
        T_EQ_STR(b.candidates[0].name, "K1024");
        T_NEAR(b.candidates[0].calls.warm.median, 207, 1e-9);
        T_EQ_STR(b.candidates[1].name, "K16");
        T_NEAR(b.candidates[1].calls.warm.median, 103, 1e-9);
        T_EQ_U64(b.candidates[1].total_ns, 642);
    }
    an_baseline_free(&b);
    /* A --kernel expression matching nothing is a usage error. */
    const char *none[] = {"^nothing$"};
    an_baseline_opts o3 = {none, 1, NULL, NULL, NULL, 1, 0.01, NULL, NULL};
    T_EQ_I64(an_baseline_run(&side, &o3, &b, &err), KR_USAGE);
    an_baseline_free(&b);
    free(d);
}

/* The metric CSV is the plain one; the gate covers every CSV: err_x = 1 in
 * row 2 of the profiled CSV (csv 0) fails it. No trace: no timing. */
static void test_csvs(void)
{
    const char *header[] = {"n", "us_x", "err_x"};
    const char *prof[] = {"1", "5", "0", "2", "6", "1"};
    const char *plain[] = {"1", "4", "0", "2", "8", "0"};
    size_t lines[] = {2, 3};
    an_bench_csv csvs[] = {{"prof/b.csv", 1, 3, 2, header, prof, lines}, {"bench/b.csv", 0, 3, 2, header, plain, lines}};
    an_cmp_side side = side_of(csvs, 2, NULL, 0);
    an_baseline_opts o = {NULL, 0, NULL, NULL, NULL, 1, 0.01, NULL, NULL};
    an_baseline b;
    kr_err err;
    T_EQ_I64(an_baseline_run(&side, &o, &b, &err), 0);
    T_CHECK(!b.has_timing);
    T_EQ_U64(b.metric_csv, 1);
    T_NEAR(b.metric.mean, 6, 1e-9);
    T_EQ_STR(b.gate_status, "fail");
    T_EQ_U64(b.gate_eval.nfails, 1);
    if (b.gate_eval.nfails) {
        T_EQ_U64(b.gate_eval.fails[0].csv, 0);
        T_EQ_U64(b.gate_eval.fails[0].row, 1);
    }
    an_baseline_free(&b);
    /* Exit status when no err_ column: run.meta exit_code 1 fails. */
    const char *h2[] = {"n", "us_x"};
    const char *c2[] = {"1", "4"};
    an_bench_csv one = {"b.csv", 0, 2, 1, h2, c2, NULL};
    an_cmp_side s2 = side_of(&one, 1, NULL, 0);
    s2.exit_code = 1;
    T_EQ_I64(an_baseline_run(&s2, &o, &b, &err), 0);
    T_EQ_STR(b.gate_source, "exit_status");
    T_EQ_STR(b.gate_status, "fail");
    an_baseline_free(&b);
}

/* docs/occupancy.md#worked-examples: arch 124, AGPR 0, SGPR 112, LDS 49152, 256 work-items,
 * 512 workgroups on 256 CUs (gfx950). As reported: V_total 124 → W_vgpr 4,
 * W_sgpr 7, LDS 163840 / 49152 → 3 workgroups × 1 wave per SIMD = 3, slots
 * 8 → 3 waves (LDS). Under-reported (2 × 124 = 248) → W_vgpr 2 → 2 waves
 * (VGPR). With the capture's ISA mark 242 the docs/occupancy.md#register-counts rule gives 248 too. */
static void test_limits(void)
{
    step s[] = {{"F", 93000}, {"F", 91000}, {"F", 92000}};
    kr_dispatch *d = make(s, 3);
    an_trace_in tr = {"t.csv", d, 3, 0, NULL, 0, NULL, 0};
    an_cmp_side side = side_of(NULL, 0, &tr, 1);
    an_baseline_opts o = {NULL, 0, NULL, NULL, NULL, 1, 0.01, NULL, NULL};
    an_baseline b;
    kr_err err;
    T_EQ_I64(an_baseline_run(&side, &o, &b, &err), 0);
    T_EQ_U64(b.nkernels, 1);
    const an_baseline_kernel *k = &b.kernels[0];
    T_EQ_U64(k->occ.v_total, 124);
    T_EQ_U64(k->occ.waves_per_simd, 3);
    T_CHECK(k->occ.limiter[AN_LIM_LDS] && !k->occ.limiter[AN_LIM_VGPR]);
    T_EQ_I64(k->occ.wg_per_cu_grid, 2);
    T_CHECK(k->under_report_possible);
    T_EQ_U64(k->occ_doubled.v_total, 248);
    T_EQ_U64(k->occ_doubled.waves_per_simd, 2);
    T_CHECK(k->occ_doubled.limiter[AN_LIM_VGPR]);
    T_EQ_I64(k->occ_doubled.next_vgpr_max, 168);
    /* A capture's occupancy names the kernel with ISA mark v = 242. */
    an_occ_kernel ck;
    memset(&ck, 0, sizeof ck);
    ck.name = "F";
    ck.isa_v = 242;
    an_occupancy occ;
    memset(&occ, 0, sizeof occ);
    occ.kernels = &ck;
    occ.nkernels = 1;
    an_baseline_use_capture(&b, &occ, "att/ui_output_agent_1_dispatch_2");
    T_CHECK(k->from_capture);
    T_CHECK(k->capture_occ.under_report);
    T_EQ_U64(k->capture_occ.v_total, 248);
    T_EQ_U64(k->capture_occ.waves_per_simd, 2);
    an_baseline_free(&b);
    free(d);
}

int main(void)
{
    test_classes();
    test_csvs();
    test_limits();
    return t_done("test_run_baseline");
}
