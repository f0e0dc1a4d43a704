/* flow.c — what the "why a wait is hot" analyses (waits, hidden latency,
 * phases) add to the cost of `kreport analyze`: before and after, measured
 * in one process.
 *
 *   bench_flow CAPTURE_DIR [ROUNDS]
 *
 * Each round, on this thread, interleaved, what `kreport analyze -j 1
 * --format md,json,csv` does (load every input file with the waves streamed
 * through the analyses, REPORT.md, analysis.json and both CSVs):
 *   after  — with every analysis;
 *   before — with an_analysis_opts.no_flow and a stream without them (the
 *            waits, hidden latency and phases are not computed; their
 *            sections still render, empty).
 * Time is this thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so other load
 * on a shared machine disturbs it far less than wall time. Prints the
 * medians and the slowdown: after / before - 1. bench/flow-share gives the
 * same split by callgrind instruction counts. */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyzer/analysis.h"
#include "bundle/capture.h"
#include "cli/streamed.h"
#include "common/buf.h"
#include "common/err.h"
#include "report/doc.h"
#include "report/report.h"
#include "report/sections.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int full_run(const char *dir, int flow, size_t *bytes)
{
    bundle_opts bo = {0};
    bo.threads = 1;
    bo.skip_wstates = 1;
    kr_capture *c = NULL;
    an_stream *stream = NULL;
    kr_err err;
    kr_err_clear(&err);
    if (cli_load_streamed(dir, &bo, 0, 0, flow, &c, &stream, &err)) {
        char msg[1024];
        kr_err_format(&err, msg, sizeof msg);
        fprintf(stderr, "bench_flow: %s\n", msg);
        return -1;
    }
    an_analysis_opts ao = {0};
    ao.threads = 1;
    ao.no_flow = !flow;
    an_analysis a;
    int arc = cli_analyze_loaded(stream, c, &ao, &a);
    an_stream_free(stream);
    if (arc) {
        bundle_capture_free(c);
        return -1;
    }
    const an_analysis *ap = &a;
    const char *label = "capture";
    rep_meta meta = { "capture", NULL, "kreport analyze capture -o OUTPUT_DIR" };
    kr_buf md = {0}, js = {0}, hot = {0}, src = {0};
    int rc = rep_analysis_markdown(&ap, &label, 1, &meta, &md) ||
             rep_analysis_json(&ap, &label, 1, &meta, &js) ||
             rep_hotspots_csv(&ap, &label, 1, &hot) || rep_source_lines_csv(&ap, &label, 1, &src);
    *bytes = md.len + js.len + hot.len + src.len;
    kr_buf_free(&md);
    kr_buf_free(&js);
    kr_buf_free(&hot);
    kr_buf_free(&src);
    an_analysis_free(&a);
    bundle_capture_free(c);
    return rc ? -1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: bench_flow CAPTURE_DIR [ROUNDS]\n");
        return 2;
    }
    const char *dir = argv[1];
    size_t rounds = argc == 3 ? (size_t)strtoul(argv[2], NULL, 10) : 15;
    if (rounds < 3)
        rounds = 3;
    double *ta = calloc(rounds, sizeof *ta), *tb = calloc(rounds, sizeof *tb);
    if (!ta || !tb)
        return 1;
    size_t bytes_after = 0, bytes_before = 0;
    for (size_t r = 0; r < rounds; r++) {
        double t0 = now();
        if (full_run(dir, 1, &bytes_after))
            return 3;
        double t1 = now();
        if (full_run(dir, 0, &bytes_before))
            return 3;
        double t2 = now();
        ta[r] = t1 - t0;
        tb[r] = t2 - t1;
    }
    double after = median(ta, rounds), before = median(tb, rounds);
    printf("capture: %s (%zu rounds, thread CPU time, medians)\n", dir, rounds);
    printf("  analyze -j 1 md,json,csv without waits, hidden latency, phases: %7.2f ms (%zu output bytes)\n",
           before * 1e3, bytes_before);
    printf("  analyze -j 1 md,json,csv with them (what kreport does):          %7.2f ms (%zu output bytes)\n",
           after * 1e3, bytes_after);
    printf("  slowdown caused by those analyses: %.1f %% of one thread's CPU time (with -j 2, other\n"
           "  threads hide part of it in kreport analyze's wall time)\n", 100.0 * (after / before - 1.0));
    free(ta);
    free(tb);
    return 0;
}
