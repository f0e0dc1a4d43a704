/* test_rep_phases.c — the "Phases and loops" Markdown (main loop sentence,
 * loop table with the per-wave iteration histogram, phase table) and its
 * analysis.json keys, from a hand-built result. */
#include "report/sections.h"
#include "tests/unit/t.h"

static int has_keys(json_t *o, const char *const *keys)
{
    size_t n = 0;
    int ok = json_is_object(o);
    for (; keys[n]; n++)
        if (!json_object_get(o, keys[n])) {
            fprintf(stderr, "missing key %s\n", keys[n]);
            ok = 0;
        }
    if (ok && json_object_size(o) != n) {
        fprintf(stderr, "%zu keys, expected %zu\n", json_object_size(o), n);
        ok = 0;
    }
    return ok;
}

static int contains(const char *hay, const char *needle)
{
    if (strstr(hay, needle))
        return 1;
    fprintf(stderr, "not found: %s\n", needle);
    return 0;
}

int main(void)
{
    kr_code_row rows[6];
    memset(rows, 0, sizeof rows);
    rows[0] = (kr_code_row){.isa = "; k", .is_label = 1, .source = ""};
    rows[1] = (kr_code_row){.isa = "s_mov_b32 s0, 0", .line = 1, .vaddr = 0, .stall = 0, .source = ""};
    rows[2] = (kr_code_row){.isa = "v_add_f32_e32 v0, v1, v2", .line = 2, .vaddr = 4, .source = ""};
    rows[3] = (kr_code_row){.isa = "s_waitcnt vmcnt(0)", .line = 3, .vaddr = 8, .stall = 90, .source = ""};
    rows[4] = (kr_code_row){.isa = "s_cbranch_scc1 65533", .line = 4, .vaddr = 12, .source = ""};
    rows[5] = (kr_code_row){.isa = "s_endpgm", .line = 5, .vaddr = 16, .source = ""};
    kr_wave waves[3];
    memset(waves, 0, sizeof waves);
    waves[0].file = "se0_sm0_sl0_wv0.json";
    waves[1].file = "se0_sm1_sl0_wv0.json";
    waves[2].file = "se0_sm2_sl0_wv0.json";
    uint32_t be[] = {4};
    uint64_t entries[] = {1, 1, 1}, iters[] = {4, 4, 6};
    an_loop loop = {.head = 2, .tail = 4, .parent = AN_PHASE_NONE, .depth = 0, .kernel = 0, .backedges = be,
                    .nbackedges = 1, .waves_entered = 3, .entries = 3, .iterations = 14, .wave_entries = entries,
                    .wave_iterations = iters, .per_wave = {3, 4, 4, 4, 6, 6}, .first_cost = {3, 120, 120, 130, 140, 140},
                    .steady_cost = {11, 60, 60, 65, 70, 70}, .latency = 300, .idle = 10, .stall = 90};
    an_phase ph[3] = {
        {.kind = AN_PHASE_PROLOGUE, .loop = AN_PHASE_NONE, .first = 1, .last = 1, .kernel = 0, .rows = 1, .hit = 3,
         .latency = 12, .stall = 0, .idle = 28},
        {.kind = AN_PHASE_LOOP, .loop = 0, .first = 2, .last = 4, .kernel = 0, .rows = 3, .hit = 42, .latency = 300,
         .stall = 90, .idle = 10, .top = {3}, .ntop = 1},
        {.kind = AN_PHASE_EPILOGUE, .loop = AN_PHASE_NONE, .first = 5, .last = 5, .kernel = 0, .rows = 1, .hit = 3,
         .latency = 50, .stall = 0, .idle = 0},
    };
    an_phases p = {.rows = rows, .nrows = 6, .waves = waves, .nwaves = 3, .nkernels = 1, .loops = &loop, .nloops = 1,
                   .phases = ph, .nphases = 3, .total_time = 400, .total_stall = 90, .main_loop = 0};

    rep_doc *d = rep_doc_new();
    const an_phases *r[] = {&p};
    const char *labels[] = {"big"};
    rep_md_phases(d, r, labels, 1);
    kr_buf b;
    kr_buf_init(&b);
    rep_doc_markdown(d, &b);
    const char *md = kr_buf_cstr(&b);
    T_CHECK(contains(md, "## Phases and loops\n"));
    T_CHECK(contains(md, "**Main loop L1** (vaddr 4–12, 77.5 % of the time): 4 iterations per wave (p50; min 4, max 6) "
                         "over 3 entering waves. First iteration 130 cycles (p50 over 3; min 120, max 140); steady state "
                         "65 cycles (p50 over 11; min 60, max 70); first / steady = 2.00.\n"));
    T_CHECK(contains(md, "| L1 | 4–12 | 0 | 12 | 3 | 14 | 4 on 2 waves, 6 on 1 wave | 130 (120–140) | 65 (60–70) |\n"));
    T_CHECK(contains(md, "| prologue | 0–0 | 1 | 3 | 12 | 0 | 28 | 10.0 % | 0.0 % | — |\n"));
    T_CHECK(contains(md, "| loop L1 | 4–12 | 3 | 42 | 300 | 90 | 10 | 77.5 % | 100.0 % | 8 `s_waitcnt vmcnt(0)` 90 |\n"));
    T_CHECK(contains(md, "| epilogue | 16–16 | 1 | 3 | 50 | 0 | 0 | 12.5 % | 0.0 % | — |\n"));
    kr_buf_free(&b);
    rep_doc_free(d);

    json_t *j = rep_json_phases(&p);
    static const char *const keys[] = {"total_time", "total_stall", "kernels", "main_loop", "loops", "phases", NULL};
    T_CHECK(has_keys(j, keys));
    json_t *l0 = json_array_get(json_object_get(j, "loops"), 0);
    static const char *const loop_keys[] = {"index", "head_row", "tail_row", "head_vaddr", "tail_vaddr", "depth", "parent",
                                            "back_edge_rows", "from_stream", "latency", "stall", "idle", "waves_entered",
                                            "entries", "iterations", "iterations_per_wave", "first_iteration_cycles",
                                            "steady_iteration_cycles", "per_wave", NULL};
    T_CHECK(has_keys(l0, loop_keys));
    T_CHECK(json_is_null(json_object_get(l0, "parent")));
    T_EQ_U64(json_array_size(json_object_get(l0, "per_wave")), 3);
    static const char *const pw_keys[] = {"wave", "entries", "iterations", NULL};
    json_t *pw2 = json_array_get(json_object_get(l0, "per_wave"), 2);
    T_CHECK(has_keys(pw2, pw_keys));
    T_EQ_U64(json_integer_value(json_object_get(pw2, "iterations")), 6);
    T_EQ_STR(json_string_value(json_object_get(pw2, "wave")), "se0_sm2_sl0_wv0.json");
    json_t *p1 = json_array_get(json_object_get(j, "phases"), 1);
    static const char *const phase_keys[] = {"kind", "loop", "depth", "kernel", "first_row", "last_row", "first_vaddr",
                                             "last_vaddr", "instructions", "hit", "latency", "stall", "idle",
                                             "time_share", "stall_share", "top_stall", NULL};
    T_CHECK(has_keys(p1, phase_keys));
    T_EQ_STR(json_string_value(json_object_get(p1, "kind")), "loop");
    T_EQ_STR(json_string_value(json_object_get(p1, "kernel")), "k");
    T_CHECK(json_is_null(json_object_get(json_array_get(json_object_get(j, "phases"), 0), "loop")));
    json_decref(j);
    return t_done("test_rep_phases");
}
