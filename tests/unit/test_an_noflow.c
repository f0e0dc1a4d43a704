/* test_an_noflow.c — an_analysis_opts.no_flow (what compare runs): the
 * waits, hidden latency and phases are left empty and every other result
 * equals the full analysis, in memory and streamed (an_stream_new with
 * flow 0), on the hub captures. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/analysis.h"
#include "analyzer/stream.h"
#include "bundle/capture.h"
#include "common/buf.h"
#include "report/report.h"
#include "report/sections.h"
#include "tests/unit/t.h"

static char *dump(json_t *j)
{
    char *s = j ? json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
    json_decref(j);
    return s;
}

static void same_section(json_t *a, json_t *b, const char *what, const char *label)
{
    char *x = dump(a), *y = dump(b);
    T_CHECK(x && y && strcmp(x, y) == 0);
    if (!x || !y || strcmp(x, y) != 0)
        fprintf(stderr, "%s: %s differs without the flow analyses\n", label, what);
    free(x);
    free(y);
}

static void check(const char *dir, const char *label)
{
    kr_err err;
    kr_capture *c = NULL;
    bundle_opts bo = {.threads = 2, .no_discover = 1, .skip_wstates = 1};
    T_EQ_I64(bundle_capture_load(dir, &bo, &c, &err), 0);
    if (!c)
        return;
    an_analysis_opts full = {.threads = 2}, lean = {.threads = 2, .no_flow = 1};
    an_analysis a, b;
    T_EQ_I64(an_analyze(c, &full, &a), 0);
    T_EQ_I64(an_analyze(c, &lean, &b), 0);
    /* the full analysis has flow results on these captures */
    T_CHECK(a.waits.nwaits > 0);
    T_CHECK(a.hidden.nrows > 0);
    /* the lean one none */
    T_EQ_U64(b.waits.nwaits, 0);
    T_EQ_U64(b.waits.nproducers, 0);
    T_EQ_U64(b.hidden.nrows, 0);
    T_EQ_U64(b.phases.nloops, 0);
    T_EQ_U64(b.totals.records, a.totals.records);
    same_section(rep_json_states(&a.states), rep_json_states(&b.states), "states", label);
    same_section(rep_json_classes(&a.classes), rep_json_classes(&b.classes), "classes", label);
    same_section(rep_json_stalls(&a.stalls), rep_json_stalls(&b.stalls), "stalls", label);
    same_section(rep_json_sources(&a.sources), rep_json_sources(&b.sources), "sources", label);
    same_section(rep_json_occupancy(&a.occupancy), rep_json_occupancy(&b.occupancy), "occupancy", label);
    const rep_meta meta = {"capture", NULL, "kreport analyze capture -o OUTPUT_DIR"};
    /* the lean analysis renders (its flow sections empty) */
    const an_analysis *bp = &b;
    kr_buf md = {0}, js = {0};
    T_EQ_I64(rep_analysis_markdown(&bp, &label, 1, &meta, &md), 0);
    T_EQ_I64(rep_analysis_json(&bp, &label, 1, &meta, &js), 0);
    T_CHECK(md.len > 0 && js.len > 0);
    kr_buf_free(&md);
    kr_buf_free(&js);

    /* streamed with flow 0: the same as the lean in-memory analysis */
    an_stream *s = an_stream_new(0, 0);
    T_CHECK(s != NULL);
    kr_wave_sink sink = an_stream_sink(s);
    bundle_opts so = bo;
    so.sink = &sink;
    kr_capture *sc = NULL;
    an_analysis d;
    T_EQ_I64(bundle_capture_load(dir, &so, &sc, &err), 0);
    if (sc && an_stream_exact(s)) {
        T_EQ_I64(an_analyze_stream(s, sc, &lean, &d), 0);
        T_EQ_U64(d.waits.nwaits, 0);
        T_EQ_U64(d.hidden.nrows, 0);
        T_EQ_U64(d.phases.nloops, 0);
        T_EQ_U64(d.totals.records, b.totals.records);
        same_section(rep_json_states(&b.states), rep_json_states(&d.states), "streamed states", label);
        same_section(rep_json_classes(&b.classes), rep_json_classes(&d.classes), "streamed classes", label);
        same_section(rep_json_stalls(&b.stalls), rep_json_stalls(&d.stalls), "streamed stalls", label);
        an_analysis_free(&d);
    }
    an_stream_free(s);
    bundle_capture_free(sc);
    an_analysis_free(&a);
    an_analysis_free(&b);
    bundle_capture_free(c);
}

int main(void)
{
    const char *hub = t_hub();
    if (!hub) {
        printf("test_an_noflow: hub fixture absent; skipped\n");
        return 77;
    }
    static const char *const caps[] = {
        "examples/pa_mqa_logits_fp4/att_viewer/big/ui_output_agent_55351_dispatch_426",
        "examples/flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44",
    };
    for (size_t i = 0; i < sizeof caps / sizeof *caps; i++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", hub, caps[i]);
        check(dir, caps[i]);
    }
    return t_done("test_an_noflow");
}
