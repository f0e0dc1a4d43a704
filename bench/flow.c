/* flow.c — what the "why a wait is hot" analyses (waits, hidden latency,
 * phases) add to the cost of `kreport analyze`, measured in one process.
 *
 *   bench_flow CAPTURE_DIR [ROUNDS]
 *
 * Each round, on this thread, interleaved:
 *   full — what `kreport analyze -j 1 --format md,json,csv` does: load the
 *          capture (every input file) with the waves streamed through the
 *          analyses, REPORT.md, analysis.json and both CSVs;
 *   flow — the part of that work the flow analyses are: an_waits_compute,
 *          an_hidden_compute, an_phases_compute (on the capture loaded
 *          whole, once, outside the timing) and their Markdown and JSON
 *          sections.
 * Time is this thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so other load
 * on a shared machine disturbs it far less than wall time. Prints the
 * medians and the slowdown the flow analyses cause: full / (full - flow). */
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

static int full_run(const char *dir, size_t *bytes)
{
    bundle_opts bo = {0};
    bo.threads = 1;
    bo.skip_wstates = 1;
    kr_capture *c = NULL;
    an_stream *stream = NULL;
    kr_err err;
    kr_err_clear(&err);
    if (cli_load_streamed(dir, &bo, 0, 0, 1, &c, &stream, &err)) {
        char msg[1024];
        kr_err_format(&err, msg, sizeof msg);
        fprintf(stderr, "bench_flow: %s\n", msg);
        return -1;
    }
    an_analysis_opts ao = {0};
    ao.threads = 1;
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

static int flow_run(const kr_capture *c)
{
    an_waits w;
    an_hidden h;
    an_phases p;
    an_waits_opts wo = { AN_HOTSPOTS_DEFAULT_N };
    an_hidden_opts ho = { AN_HOTSPOTS_DEFAULT_N };
    if (an_waits_compute(c, &wo, &w))
        return -1;
    if (an_hidden_compute(c, &ho, &h)) {
        an_waits_free(&w);
        return -1;
    }
    if (an_phases_compute(c, &p)) {
        an_waits_free(&w);
        an_hidden_free(&h);
        return -1;
    }
    const an_waits *wp = &w;
    const an_hidden *hp = &h;
    const an_phases *pp = &p;
    const char *label = "capture";
    rep_doc *d = rep_doc_new();
    if (!d)
        return -1;
    rep_md_waits(d, &wp, &label, 1);
    rep_md_hidden(d, &hp, &label, 1);
    rep_md_phases(d, &pp, &label, 1);
    kr_buf md = {0};
    rep_doc_markdown(d, &md);
    json_t *j1 = rep_json_waits(&w), *j2 = rep_json_hidden(&h), *j3 = rep_json_phases(&p);
    json_decref(j1);
    json_decref(j2);
    json_decref(j3);
    kr_buf_free(&md);
    rep_doc_free(d);
    an_waits_free(&w);
    an_hidden_free(&h);
    an_phases_free(&p);
    return 0;
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
    bundle_opts bo = {0};
    bo.threads = 1;
    bo.skip_wstates = 1;
    kr_capture *c = NULL;
    kr_err err;
    kr_err_clear(&err);
    if (bundle_capture_load(dir, &bo, &c, &err)) {
        char msg[1024];
        kr_err_format(&err, msg, sizeof msg);
        fprintf(stderr, "bench_flow: %s\n", msg);
        return 3;
    }
    double *tf = calloc(rounds, sizeof *tf), *tw = calloc(rounds, sizeof *tw);
    if (!tf || !tw)
        return 1;
    size_t bytes = 0;
    for (size_t r = 0; r < rounds; r++) {
        double t0 = now();
        if (full_run(dir, &bytes))
            return 1;
        double t1 = now();
        if (flow_run(c))
            return 1;
        double t2 = now();
        tf[r] = t1 - t0;
        tw[r] = t2 - t1;
    }
    double full = median(tf, rounds), flow = median(tw, rounds);
    printf("capture: %s (%zu waves, %zu code rows; %zu rounds, thread CPU time, medians)\n",
           dir, c->nwaves, c->nrows, rounds);
    printf("  analyze -j 1 md,json,csv (load, every analysis, outputs): %7.2f ms (%zu output bytes)\n",
           full * 1e3, bytes);
    printf("  of which waits + hidden latency + phases (+ their sections): %7.2f ms (%.1f %%)\n",
           flow * 1e3, 100.0 * flow / full);
    printf("  slowdown caused by those analyses: %.1f %%\n", 100.0 * (full / (full - flow) - 1.0));
    free(tf);
    free(tw);
    bundle_capture_free(c);
    return 0;
}
