/* test_load_results.c — rocprofv3 results.json (bundle/load_results.h, docs/formats.md#results-json).
 * Hand-written documents for recognition, types, paths, large integers,
 * dispatch and counter records; the hub's small_results.json against the
 * figures of docs/formats.md#results-json and docs/formats.md#agent-info-csv and the code.json label row of its capture. */
#include "bundle/load_csv.h"
#include "bundle/load_results.h"
#include "common/file.h"
#include "common/limits.h"
#include "tests/unit/t.h"

static int parse(kr_arena *a, const char *json, kr_results **r, kr_err *err)
{
    kr_err_clear(err);
    return bundle_parse_results(a, json, strlen(json), "mem.json", r, err);
}

static void expect_error(const char *json, const char *where, const char *msg_part)
{
    kr_arena a;
    kr_arena_init(&a);
    kr_results *r = (kr_results *)1;
    kr_err err;
    T_EQ_I64(parse(&a, json, &r, &err), KR_INPUT);
    T_CHECK(r == NULL);
    T_EQ_STR(err.file, "mem.json");
    if (where)
        T_EQ_STR(err.where, where);
    T_CHECK(strstr(err.msg, msg_part) != NULL);
    if (!strstr(err.msg, msg_part))
        fprintf(stderr, "  message was: %s (at %s)\n", err.msg, err.where);
    kr_arena_free(&a);
}

static void test_recognition(void)
{
    expect_error("{\"traceEvents\":[{}],\"otherData\":{}}", NULL, "rocprof v1/v2 Chrome-trace");
    expect_error("{}", NULL, "not a rocprofv3 results.json");
    expect_error("[1,2]", NULL, "not a rocprofv3 results.json");
    expect_error("{\"rocprofiler-sdk-tool\":{}}", "$.rocprofiler-sdk-tool", "expected an array, found an object");
    expect_error("{\"rocprofiler-sdk-tool\":[]", NULL, "invalid JSON");
    expect_error("{\"rocprofiler-sdk-tool\":[],\"rocprofiler-sdk-tool\":[]}", NULL, "duplicate");
    expect_error("{\"rocprofiler-sdk-tool\":[7]}", "$.rocprofiler-sdk-tool[0]", "expected an object, found an integer");

    T_EQ_I64(bundle_results_sniff("{\"rocprofiler-sdk-tool\":[", 25), 1);
    T_EQ_I64(bundle_results_sniff("{ \"traceEvents\":[{}", 19), 2);
    T_EQ_I64(bundle_results_sniff("{\"code\":[]}", 11), 0);

    /* A UTF-8 byte-order mark is skipped. */
    {
        kr_arena a0;
        kr_arena_init(&a0);
        kr_results *r0;
        kr_err e0;
        T_EQ_I64(parse(&a0, "\xEF\xBB\xBF{\"rocprofiler-sdk-tool\":[{\"metadata\":{\"pid\":3}}]}", &r0, &e0), 0);
        T_CHECK(r0 && r0->procs[0].pid == 3);
        kr_arena_free(&a0);
    }

    /* Empty process: every section optional. */
    kr_arena a;
    kr_arena_init(&a);
    kr_results *r;
    kr_err err;
    T_EQ_I64(parse(&a, "{\"rocprofiler-sdk-tool\":[{}]}", &r, &err), 0);
    T_EQ_U64(r->nprocs, 1);
    T_EQ_I64(r->procs[0].pid, -1);
    T_EQ_U64(r->procs[0].nagents, 0);
    T_EQ_U64(r->procs[0].nsymbols, 0);
    T_EQ_STR(r->path, "mem.json");
    T_CHECK(bundle_results_find_agent(r, 1) == NULL);
    kr_arena_free(&a);
}

/* Two processes; ids deliberately differ from array positions (docs/formats.md#results-json). */
static const char *TWO_PROCS =
    "{\"rocprofiler-sdk-tool\":["
    "{\"metadata\":{\"pid\":11},"
    " \"agents\":[{\"id\":{\"handle\":100},\"type\":1,\"name\":\"cpu\"}],"
    " \"strings\":{\"att_filenames\":[\"a.att\",\"b.att\"],"
    "              \"code_object_snapshot_filenames\":[{\"key\":1,\"value\":\"x.out\"}]}},"
    "{\"metadata\":{\"pid\":22,\"init_time\":1,\"fini_time\":2},"
    " \"agents\":[{\"id\":{\"handle\":7},\"type\":2,\"name\":\"gfx942\",\"product_name\":\"MI300X\","
    "             \"gfx_target_version\":90402,\"node_id\":3,\"logical_node_id\":1,\"cu_count\":304,"
    "             \"simd_per_cu\":4,\"max_waves_per_simd\":8,\"max_waves_per_cu\":32,\"wave_front_size\":64,"
    "             \"lds_size_in_kb\":64,\"max_engine_clk_fcompute\":2100,\"num_xcc\":8,\"array_count\":32,"
    "             \"hive_id\":18446744073709551615}],"
    " \"counters\":[{\"id\":{\"handle\":5},\"name\":\"SQ_WAVES\",\"agent_id\":{\"handle\":7}}],"
    " \"code_objects\":[{\"code_object_id\":9,\"agent_id\":{\"handle\":7},\"uri\":\"file:///k.hsaco\","
    "                    \"load_base\":4096,\"load_size\":100,\"load_delta\":4096},"
    "                   {\"code_object_id\":3,\"agent_id\":{\"handle\":8},\"load_delta\":0}],"
    " \"kernel_symbols\":[{\"kernel_id\":40,\"code_object_id\":9,\"kernel_name\":\"k.kd\","
    "                      \"formatted_kernel_name\":\"k\",\"kernel_object\":5120,"
    "                      \"kernel_code_entry_byte_offset\":256,\"group_segment_size\":1024,"
    "                      \"private_segment_size\":0,\"sgpr_count\":32,\"arch_vgpr_count\":64,"
    "                      \"accum_vgpr_count\":8},"
    "                     {\"kernel_id\":41,\"code_object_id\":3,\"kernel_name\":\"other.kd\",\"kernel_object\":1280}],"
    " \"buffer_records\":{\"kernel_dispatch\":[{\"kind\":11,\"operation\":1,\"thread_id\":5,"
    "     \"correlation_id\":{\"internal\":77,\"external\":0},"
    "     \"start_timestamp\":1000,\"end_timestamp\":94960,"
    "     \"dispatch_info\":{\"size\":0,\"agent_id\":{\"handle\":7},\"queue_id\":{\"handle\":1},"
    "       \"kernel_id\":40,\"dispatch_id\":44,\"private_segment_size\":16,\"group_segment_size\":1024,"
    "       \"workgroup_size\":{\"x\":256,\"y\":1,\"z\":1},\"grid_size\":{\"x\":131072,\"y\":2,\"z\":1}}}],"
    "   \"hip_api\":[]},"
    " \"callback_records\":{\"counter_collection\":[{"
    "     \"dispatch_data\":{\"size\":0,\"correlation_id\":{\"internal\":77,\"external\":0},"
    "       \"dispatch_info\":{\"agent_id\":{\"handle\":7},\"queue_id\":{\"handle\":1},\"kernel_id\":40,"
    "         \"dispatch_id\":44,\"workgroup_size\":{\"x\":256,\"y\":1,\"z\":1},\"grid_size\":{\"x\":1,\"y\":1,\"z\":1}}},"
    "     \"records\":[{\"counter_id\":{\"handle\":5},\"value\":2048},{\"counter_id\":{\"handle\":6},\"value\":0.5}],"
    "     \"thread_id\":5,\"arch_vgpr_count\":64,\"sgpr_count\":32,\"lds_block_size_v\":1024}]}}"
    "]}";

static void test_model(void)
{
    kr_arena a;
    kr_arena_init(&a);
    kr_results *r;
    kr_err err;
    T_EQ_I64(parse(&a, TWO_PROCS, &r, &err), 0);
    if (!r) {
        fprintf(stderr, "  %s: %s\n", err.where, err.msg);
        kr_arena_free(&a);
        return;
    }
    T_EQ_U64(r->nprocs, 2);
    T_EQ_I64(r->procs[0].pid, 11);
    T_EQ_I64(r->procs[1].pid, 22);
    T_EQ_U64(r->procs[0].natt_filenames, 2);
    T_EQ_STR(r->procs[0].att_filenames[1], "b.att");
    /* Agents from both processes; absent fields read -1. */
    const kr_agent *cpu = bundle_results_find_agent(r, 100);
    T_CHECK(cpu && cpu->type == 1 && cpu->cu_count == -1);
    const kr_agent *g = bundle_results_find_agent(r, 7);
    T_CHECK(g != NULL);
    if (g) {
        T_EQ_I64(g->type, 2);
        T_EQ_STR(g->name, "gfx942");
        T_EQ_STR(g->product_name, "MI300X");
        T_EQ_I64(g->gfx_target_version, 90402);
        T_EQ_I64(g->node_id, 3);
        T_EQ_I64(g->logical_node_id, 1);
        T_EQ_I64(g->cu_count, 304);
        T_EQ_I64(g->lds_size_in_kb, 64);
        T_EQ_I64(g->max_engine_clk_fcompute, 2100);
        T_EQ_I64(g->num_xcc, 8);
        T_EQ_I64(g->array_count, 32);
    }
    const kr_process *p = &r->procs[1];
    T_EQ_U64(p->nsymbols, 2);
    T_EQ_I64(p->symbols[1].sgpr_count, -1);
    T_EQ_I64(p->symbols[1].arch_vgpr_count, -1);
    T_EQ_I64(p->symbols[1].accum_vgpr_count, -1);
    T_EQ_I64(p->symbols[1].group_segment_size, -1);
    T_EQ_U64(p->ncode_objects, 2);
    T_EQ_STR(p->code_objects[0].uri, "file:///k.hsaco");
    T_EQ_U64(p->code_objects[0].agent_handle, 7);

    /* docs/formats.md#joining-a-capture step 2 by id: 5120 - 4096 + 256 = 1280. */
    const kr_kernel_symbol *s = bundle_results_find_symbol(r, 7, 9, 5120 - 4096 + 256);
    T_CHECK(s && s->kernel_id == 40);
    T_CHECK(bundle_results_find_symbol(r, 0, 9, 1280) == s);      /* any agent */
    T_CHECK(bundle_results_find_symbol(r, 7, 9, 1284) == NULL);   /* wrong vaddr */
    T_CHECK(bundle_results_find_symbol(r, 8, 9, 1280) == NULL);   /* code object of another agent */
    T_CHECK(bundle_results_find_symbol(r, 7, 0, 1280) == NULL);   /* position 0 is not id 0 */
    T_CHECK(bundle_results_find_symbol(r, 7, -1, 1280) == NULL);
    /* Symbol 41: code object 3 (agent 8, delta 0): 1280 - 0 + 0. */
    s = bundle_results_find_symbol(r, 8, 3, 1280);
    T_CHECK(s && s->kernel_id == 41);
    const kr_code_object *o = bundle_results_find_code_object(r, 7, 9);
    T_CHECK(o && o->load_delta == 4096 && o->load_base == 4096 && o->load_size == 100);

    /* kernel_dispatch record with the symbol's name and registers. */
    T_EQ_U64(p->ndispatches, 1);
    const kr_dispatch *d = &p->dispatches[0];
    T_EQ_U64(d->dispatch_id, 44);
    T_EQ_U64(d->kernel_id, 40);
    T_EQ_U64(d->correlation_id, 77);
    T_EQ_I64(d->agent, 7);
    T_EQ_STR(d->kernel_name, "k");
    T_EQ_U64(d->end_ns - d->start_ns, 93960);
    T_EQ_I64(d->lds_bytes, 1024);
    T_EQ_I64(d->scratch_bytes, 16);
    T_EQ_I64(d->vgpr, 64);
    T_EQ_I64(d->accum_vgpr, 8);
    T_EQ_I64(d->sgpr, 32);
    T_EQ_U64(d->wg[0], 256);
    T_EQ_U64(d->grid[0], 131072);
    T_EQ_U64(d->grid[1], 2);

    /* Counter records: names by counter id, else "counter_<id>". */
    T_EQ_U64(p->ncounters, 2);
    T_EQ_U64(p->counters[0].dispatch_id, 44);
    T_EQ_STR(p->counters[0].kernel_name, "k");
    T_EQ_STR(p->counters[0].counter, "SQ_WAVES");
    T_NEAR(p->counters[0].value, 2048.0, 0.0);
    T_EQ_STR(p->counters[1].counter, "counter_6");
    T_NEAR(p->counters[1].value, 0.5, 0.0);

    /* Filtered parse: only with a GPU agent of that handle; the arena stays
     * untouched otherwise. */
    kr_arena b;
    kr_arena_init(&b);
    kr_results *m = (kr_results *)1;
    T_EQ_I64(bundle_parse_results_for_agent(&b, TWO_PROCS, strlen(TWO_PROCS), "mem.json", 100, &m, &err), 0);
    T_CHECK(m == NULL);                       /* handle 100 is a CPU */
    T_EQ_I64(bundle_parse_results_for_agent(&b, TWO_PROCS, strlen(TWO_PROCS), "mem.json", 58550, &m, &err), 0);
    T_CHECK(m == NULL);
    T_EQ_U64(b.bytes, 0);
    T_EQ_I64(bundle_parse_results_for_agent(&b, TWO_PROCS, strlen(TWO_PROCS), "mem.json", 7, &m, &err), 0);
    T_CHECK(m != NULL && m->nprocs == 2);
    kr_arena_free(&b);
    kr_arena_free(&a);
}

static void test_integers(void)
{
    kr_arena a;
    kr_arena_init(&a);
    kr_results *r;
    kr_err err;
    /* 2^64 - 1 in an unsigned field is a value, not an error. */
    T_EQ_I64(parse(&a,
                   "{\"rocprofiler-sdk-tool\":[{\"agents\":[{\"id\":{\"handle\":18446744073709551615},\"type\":2,"
                   "\"hive_id\":9223372036854775808}]}]}",
                   &r, &err), 0);
    T_CHECK(r && bundle_results_find_agent(r, UINT64_MAX) != NULL);
    /* 2^63 - 1 and 2^53 + 1 stay exact (never through double). */
    T_EQ_I64(parse(&a,
                   "{\"rocprofiler-sdk-tool\":[{\"agents\":[{\"id\":{\"handle\":9007199254740993},\"type\":2}],"
                   "\"kernel_symbols\":[{\"kernel_id\":9223372036854775807,\"code_object_id\":1}]}]}",
                   &r, &err), 0);
    T_CHECK(r && bundle_results_find_agent(r, 9007199254740993ull) != NULL);
    T_CHECK(r && bundle_results_find_agent(r, 9007199254740992ull) == NULL);
    T_EQ_U64(r->procs[0].symbols[0].kernel_id, 9223372036854775807ull);
    kr_arena_free(&a);

    /* Above 2^64 - 1: an error with the literal's line:col (line 2, col 11). */
    expect_error("{\"rocprofiler-sdk-tool\":[{\n\"agents\":[18446744073709551616]}]}", "2:11", "exceeds 2^64 - 1");
    /* Above 2^63 - 1 in a signed field: the JSON path. */
    expect_error("{\"rocprofiler-sdk-tool\":[{\"agents\":[{\"id\":{\"handle\":1},\"type\":2,"
                 "\"cu_count\":9223372036854775808}]}]}",
                 "$.rocprofiler-sdk-tool[0].agents[0].cu_count", "exceeds the signed 64-bit range");
    /* A negative value in an unsigned field; a real where an integer is due. */
    expect_error("{\"rocprofiler-sdk-tool\":[{\"kernel_symbols\":[{\"kernel_id\":-1,\"code_object_id\":1}]}]}",
                 "$.rocprofiler-sdk-tool[0].kernel_symbols[0].kernel_id", "non-negative");
    expect_error("{\"rocprofiler-sdk-tool\":[{\"agents\":[{\"id\":{\"handle\":1},\"type\":2,\"cu_count\":256.0}]}]}",
                 "$.rocprofiler-sdk-tool[0].agents[0].cu_count", "expected an integer, found a real number");
    /* A large literal where a string is due is reported as such. */
    expect_error("{\"rocprofiler-sdk-tool\":[{\"agents\":[{\"id\":{\"handle\":1},\"type\":2,"
                 "\"name\":18446744073709551615}]}]}",
                 "$.rocprofiler-sdk-tool[0].agents[0].name", "expected a string, found an integer above 2^63 - 1");

    /* Syntax error positions survive the rewrite of large literals: same
     * line as the literal shifts by exactly the one extra digit; a later
     * line is unaffected. */
    kr_arena_init(&a);
    kr_err e1, e2;
    const char *big = "{\"a\":18446744073709551615, \"b\": x}";
    const char *small = "{\"a\":1844674407370955161, \"b\": x}";
    T_EQ_I64(bundle_parse_results(&a, big, strlen(big), "m", &r, &e1), KR_INPUT);
    T_EQ_I64(bundle_parse_results(&a, small, strlen(small), "m", &r, &e2), KR_INPUT);
    unsigned l1 = 0, c1 = 0, l2 = 0, c2 = 0;
    T_EQ_I64(sscanf(e1.where, "%u:%u", &l1, &c1), 2);
    T_EQ_I64(sscanf(e2.where, "%u:%u", &l2, &c2), 2);
    T_EQ_U64(l1, 1);
    T_EQ_U64(l2, 1);
    T_EQ_U64(c1, c2 + 1);
    const char *big2 = "{\"a\":18446744073709551615,\n \"b\": x}";
    const char *small2 = "{\"a\":1,\n \"b\": x}";
    T_EQ_I64(bundle_parse_results(&a, big2, strlen(big2), "m", &r, &e1), KR_INPUT);
    T_EQ_I64(bundle_parse_results(&a, small2, strlen(small2), "m", &r, &e2), KR_INPUT);
    T_EQ_STR(e1.where, e2.where);
    T_CHECK(strncmp(e1.where, "2:", 2) == 0);
    /* Digits inside strings are not literals. */
    T_EQ_I64(parse(&a, "{\"rocprofiler-sdk-tool\":[{\"agents\":[{\"id\":{\"handle\":3},\"type\":2,"
                       "\"name\":\"99999999999999999999999\"}]}]}", &r, &err), 0);
    T_EQ_STR(r->procs[0].agents[0].name, "99999999999999999999999");
    kr_arena_free(&a);
}

static void test_types(void)
{
    expect_error("{\"rocprofiler-sdk-tool\":[{\"agents\":{}}]}", "$.rocprofiler-sdk-tool[0].agents",
                 "expected an array, found an object");
    expect_error("{\"rocprofiler-sdk-tool\":[{\"agents\":[{\"type\":2}]}]}", "$.rocprofiler-sdk-tool[0].agents[0].id",
                 "missing required key");
    expect_error("{\"rocprofiler-sdk-tool\":[{\"agents\":[{\"id\":{\"handle\":\"7\"},\"type\":2}]}]}",
                 "$.rocprofiler-sdk-tool[0].agents[0].id.handle", "expected a non-negative integer, found a string");
    expect_error("{\"rocprofiler-sdk-tool\":[{\"kernel_symbols\":[{\"kernel_id\":1,\"code_object_id\":1},"
                 "{\"kernel_id\":2,\"code_object_id\":1,\"arch_vgpr_count\":\"x\"}]}]}",
                 "$.rocprofiler-sdk-tool[0].kernel_symbols[1].arch_vgpr_count", "expected an integer, found a string");
    expect_error("{\"rocprofiler-sdk-tool\":[{\"metadata\":[]}]}", "$.rocprofiler-sdk-tool[0].metadata",
                 "expected an object");
    expect_error("{\"rocprofiler-sdk-tool\":[{\"metadata\":{\"pid\":\"1\"}}]}",
                 "$.rocprofiler-sdk-tool[0].metadata.pid", "expected an integer");
    expect_error("{\"rocprofiler-sdk-tool\":[{\"strings\":{\"att_filenames\":[\"a\",3]}}]}",
                 "$.rocprofiler-sdk-tool[0].strings.att_filenames[1]", "expected a string");
    expect_error("{\"rocprofiler-sdk-tool\":[{\"strings\":{\"code_object_snapshot_filenames\":[\"\",5]}}]}",
                 "$.rocprofiler-sdk-tool[0].strings.code_object_snapshot_filenames[1]", "a string or a {key, value}");
    expect_error("{\"rocprofiler-sdk-tool\":[{\"counters\":{}}]}", "$.rocprofiler-sdk-tool[0].counters",
                 "expected an array");
    expect_error("{\"rocprofiler-sdk-tool\":[{\"buffer_records\":{\"kernel_dispatch\":[{\"start_timestamp\":1,"
                 "\"end_timestamp\":2,\"dispatch_info\":{\"agent_id\":{\"handle\":1},\"kernel_id\":1,"
                 "\"dispatch_id\":1,\"grid_size\":{\"x\":1,\"y\":1}}}]}}]}",
                 "$.rocprofiler-sdk-tool[0].buffer_records.kernel_dispatch[0].dispatch_info.grid_size.z",
                 "missing required key");
    expect_error("{\"rocprofiler-sdk-tool\":[{\"buffer_records\":{\"kernel_dispatch\":[{\"start_timestamp\":1,"
                 "\"end_timestamp\":2,\"dispatch_info\":{\"agent_id\":{\"handle\":1},\"kernel_id\":1,"
                 "\"dispatch_id\":1,\"workgroup_size\":{\"x\":4294967296,\"y\":1,\"z\":1}}}]}}]}",
                 "$.rocprofiler-sdk-tool[0].buffer_records.kernel_dispatch[0].dispatch_info.workgroup_size.x",
                 "exceeds 2^32 - 1");
    expect_error("{\"rocprofiler-sdk-tool\":[{\"callback_records\":{\"counter_collection\":[{\"dispatch_data\":"
                 "{\"dispatch_info\":{\"dispatch_id\":3}},\"records\":[{\"counter_id\":{\"handle\":1},\"value\":\"1\"}]}]}}]}",
                 "$.rocprofiler-sdk-tool[0].callback_records.counter_collection[0].records[0].value",
                 "expected a number");

    /* Both forms of code_object_snapshot_filenames are accepted. */
    kr_arena a;
    kr_arena_init(&a);
    kr_results *r;
    kr_err err;
    T_EQ_I64(parse(&a, "{\"rocprofiler-sdk-tool\":[{\"strings\":{\"code_object_snapshot_filenames\":"
                       "[\"\",\"out_gfx950_code_object_id_1.out\"]}},"
                       "{\"strings\":{\"code_object_snapshot_filenames\":[{\"key\":1,\"value\":\"x\"}]}}]}",
                   &r, &err), 0);
    T_EQ_U64(r->nprocs, 2);
    /* correlation_id as a bare integer; null values read as absent. */
    T_EQ_I64(parse(&a, "{\"rocprofiler-sdk-tool\":[{\"counters\":null,\"buffer_records\":{\"kernel_dispatch\":["
                       "{\"correlation_id\":9,\"start_timestamp\":1,\"end_timestamp\":2,"
                       "\"dispatch_info\":{\"agent_id\":5,\"kernel_id\":1,\"dispatch_id\":1}}]}}]}",
                   &r, &err), 0);
    T_EQ_U64(r->procs[0].dispatches[0].correlation_id, 9);
    T_EQ_I64(r->procs[0].dispatches[0].agent, 5);
    T_EQ_STR(r->procs[0].dispatches[0].kernel_name, "");
    T_EQ_I64(r->procs[0].dispatches[0].vgpr, -1);
    T_EQ_I64(r->procs[0].dispatches[0].lds_bytes, -1);
    kr_arena_free(&a);
}

static void test_hub(const char *hub)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/examples/flash_attn_func/compute_viewer/small_results.json", hub);
    kr_arena a;
    kr_arena_init(&a);
    kr_results *r;
    kr_err err;
    int rc = bundle_load_results(&a, path, &r, &err);
    T_EQ_I64(rc, 0);
    if (rc) {
        fprintf(stderr, "  %s:%s: %s\n", err.file, err.where, err.msg);
        kr_arena_free(&a);
        return;
    }
    T_EQ_U64(r->nprocs, 1);
    const kr_process *p = &r->procs[0];
    T_EQ_I64(p->pid, 700119);
    T_EQ_U64(p->nagents, 10);

    /* Agent 32235: the first gfx950 (docs/formats.md#results-json, docs/formats.md#joining-a-capture). */
    const kr_agent *g = bundle_results_find_agent(r, 32235);
    T_CHECK(g != NULL);
    if (g) {
        T_EQ_I64(g->type, 2);
        T_EQ_STR(g->name, "gfx950");
        T_EQ_STR(g->product_name, "AMD Instinct MI350X");
        T_EQ_I64(g->gfx_target_version, 90500);
        T_EQ_I64(g->node_id, 2);
        T_EQ_I64(g->logical_node_id, 2);
        T_EQ_I64(g->cu_count, 256);
        T_EQ_I64(g->simd_per_cu, 4);
        T_EQ_I64(g->max_waves_per_simd, 8);
        T_EQ_I64(g->max_waves_per_cu, 32);
        T_EQ_I64(g->wave_front_size, 64);
        T_EQ_I64(g->lds_size_in_kb, 160);
        T_EQ_I64(g->max_engine_clk_fcompute, 2200);
        T_EQ_I64(g->num_xcc, 8);
        T_EQ_I64(g->array_count, 32);
    }
    T_CHECK(bundle_results_find_agent(r, 58550) == NULL);      /* the _after_loc_fix run */

    /* The agent table agrees with the same run's agent_info CSV (docs/formats.md#agent-info-csv),
     * joined by node id. */
    snprintf(path, sizeof path, "%s/examples/flash_attn_func/compute_viewer/small_agent_info.csv", hub);
    kr_agent_info *ai;
    T_EQ_I64(bundle_load_agent_info(&a, path, &ai, &err), 0);
    size_t joined = 0;
    for (size_t i = 0; ai && i < p->nagents; i++) {
        const kr_agent *x = &p->agents[i];
        for (size_t k = 0; k < ai->nagents; k++) {
            const kr_agent *y = &ai->agents[k];
            if (y->node_id != x->node_id)
                continue;
            joined++;
            T_EQ_I64(x->type, y->type);
            T_EQ_I64(x->logical_node_id, y->logical_node_id);
            T_EQ_I64(x->cu_count, y->cu_count);
            T_EQ_I64(x->simd_per_cu, y->simd_per_cu);
            T_EQ_I64(x->lds_size_in_kb, y->lds_size_in_kb);
            T_EQ_I64(x->max_engine_clk_fcompute, y->max_engine_clk_fcompute);
            T_EQ_I64(x->gfx_target_version, y->gfx_target_version);
            if (x->type == 2)
                T_EQ_STR(x->name, y->name);
        }
    }
    T_EQ_U64(joined, 10);

    /* Kernel symbol 195, looked up by id in the test (docs/formats.md#results-json, docs/occupancy.md#worked-examples). */
    const kr_kernel_symbol *s195 = NULL;
    size_t accum_zero = 0, arch_mult4 = 0;
    for (size_t i = 0; i < p->nsymbols; i++) {
        if (p->symbols[i].kernel_id == 195)
            s195 = &p->symbols[i];
        accum_zero += p->symbols[i].accum_vgpr_count == 0;
        arch_mult4 += p->symbols[i].arch_vgpr_count % 4 == 0;
    }
    T_EQ_U64(p->nsymbols, 2217);              /* placeholder + 2216 (docs/formats.md#joining-a-capture) */
    T_EQ_U64(accum_zero, 2217);
    T_EQ_U64(arch_mult4, 2217);
    T_CHECK(s195 != NULL);
    if (s195) {
        T_EQ_STR(s195->kernel_name, "flash_attn_func_kernel_0.kd");
        T_EQ_STR(s195->formatted_name, "flash_attn_func_kernel_0");
        T_EQ_I64(s195->arch_vgpr_count, 124);
        T_EQ_I64(s195->accum_vgpr_count, 0);
        T_EQ_I64(s195->sgpr_count, 112);
        T_EQ_I64(s195->group_segment_size, 49152);
        T_EQ_I64(s195->private_segment_size, 0);
        T_EQ_U64(s195->code_object_id, 4);
        T_EQ_U64(s195->kernel_object, 123610977633920ull);
        T_EQ_U64(s195->kernel_code_entry_byte_offset, 4224);
    }
    const kr_code_object *o = bundle_results_find_code_object(r, 32235, 4);
    T_CHECK(o && o->load_delta == 123610977632256ll);
    /* docs/formats.md#label-rows/docs/formats.md#joining-a-capture join: 123610977633920 - 123610977632256 + 4224 = 5888. */
    T_EQ_U64(123610977633920ull - 123610977632256ull + 4224ull, 5888);
    const kr_kernel_symbol *s = bundle_results_find_symbol(r, 32235, 4, 5888);
    T_CHECK(s != NULL && s == s195);
    T_CHECK(bundle_results_find_symbol(r, 32235, 4, 5892) == NULL);
    T_CHECK(bundle_results_find_symbol(r, 58550, 4, 5888) == NULL);

    /* That (Codeobj, Vaddr) is the label row of the capture of this run. */
    snprintf(path, sizeof path,
             "%s/examples/flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44/code.json", hub);
    char *code;
    size_t len;
    if (kr_file_read(path, KR_MAX_SMALL_FILE_BYTES, &code, &len, &err) == 0) {
        T_CHECK(strstr(code, "[\"; flash_attn_func_kernel_0\",0,0,\"\",4,5888,") != NULL);
        free(code);
    }

    /* strings.att_filenames: out_32235_shader_engine_<SE>_<D>.att, SE 0-3 x D 42, 44. */
    T_EQ_U64(p->natt_filenames, 8);
    unsigned seen = 0;
    for (size_t i = 0; i < p->natt_filenames; i++) {
        unsigned se, disp;
        char tail[8];
        if (sscanf(p->att_filenames[i], "out_32235_shader_engine_%u_%u%7s", &se, &disp, tail) == 3 &&
            strcmp(tail, ".att") == 0 && se < 4 && (disp == 42 || disp == 44))
            seen |= 1u << (se * 2 + (disp == 44));
    }
    T_EQ_U64(seen, 0xFF);
    T_EQ_U64(p->ndispatches, 0);
    T_EQ_U64(p->ncounters, 0);

    /* Filtered parse: 32235 matches, 58550 does not (docs/formats.md#joining-a-capture step 1). */
    snprintf(path, sizeof path, "%s/examples/flash_attn_func/compute_viewer/small_results.json", hub);
    char *data;
    if (kr_file_read(path, KR_MAX_SMALL_FILE_BYTES, &data, &len, &err) == 0) {
        kr_arena b;
        kr_arena_init(&b);
        kr_results *m;
        T_EQ_I64(bundle_parse_results_for_agent(&b, data, len, path, 58550, &m, &err), 0);
        T_CHECK(m == NULL);
        T_EQ_U64(b.bytes, 0);
        T_EQ_I64(bundle_parse_results_for_agent(&b, data, len, path, 32236, &m, &err), 0);
        T_CHECK(m != NULL);                   /* another GPU of the same run */
        T_EQ_I64(bundle_parse_results_for_agent(&b, data, len, path, 32233, &m, &err), 0);
        T_CHECK(m == NULL);                   /* a CPU agent */
        T_EQ_I64(bundle_results_sniff(data, len < 4096 ? len : 4096), 1);
        kr_arena_free(&b);
        free(data);
    }
    kr_arena_free(&a);
}

int main(void)
{
    test_recognition();
    test_model();
    test_integers();
    test_types();
    const char *hub = t_hub();
    if (hub)
        test_hub(hub);
    else
        printf("test_load_results: hub fixtures absent, hub checks skipped\n");
    return t_done("test_load_results");
}
