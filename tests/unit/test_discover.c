/* test_discover.c — results/CSV discovery beside a capture and example
 * folders (bundle/discover.h, docs/formats.md#joining-a-capture, docs/formats.md#rocprofv3-csvs, docs/formats.md#run-directories). Captures are built
 * by hand (only the identity fields discovery reads); run directories are
 * written to a temporary folder; the hub examples are checked when present. */
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/discover.h"
#include "bundle/load_results.h"
#include "tests/unit/t.h"

static void cap_init(kr_capture *c, const char *dir, const char *label, uint64_t handle, int matched)
{
    memset(c, 0, sizeof *c);
    kr_arena_init(&c->arena);
    c->dir = dir;
    c->label = label;
    c->agent_handle = handle;
    c->name_matched = (uint8_t)matched;
}

static int ends_with(const char *s, const char *suffix)
{
    if (!s)
        return 0;
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

#define T_ENDS(s, suffix) do { const char *t_s = (s); T_CHECK(ends_with(t_s, suffix)); \
    if (!ends_with(t_s, suffix)) fprintf(stderr, "  got %s, want *%s\n", t_s ? t_s : "(null)", suffix); } while (0)

/* ---- temporary run directories ---- */

static char tmp_root[256];
static char created[128][512];
static int ncreated;

static const char *tpath(const char *fmt, ...)
{
    static char buf[4][512];
    static int k;
    char rel[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rel, sizeof rel, fmt, ap);
    va_end(ap);
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmp_root, rel);
    return buf[k];
}

static void mk(const char *rel)
{
    const char *p = tpath("%s", rel);
    mkdir(p, 0700);
    snprintf(created[ncreated++], sizeof created[0], "%s", p);
}

static void put(const char *rel, const char *text)
{
    const char *p = tpath("%s", rel);
    FILE *f = fopen(p, "wb");
    T_CHECK(f != NULL);
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
    snprintf(created[ncreated++], sizeof created[0], "%s", p);
}

static void cleanup(void)
{
    for (int i = ncreated - 1; i >= 0; i--)
        if (remove(created[i]) != 0)
            fprintf(stderr, "  could not remove %s\n", created[i]);
    ncreated = 0;
    rmdir(tmp_root);
}

static const char *RESULTS_GPU7 =
    "{\"rocprofiler-sdk-tool\":[{\"metadata\":{\"pid\":5},\"agents\":["
    "{\"id\":{\"handle\":6},\"type\":1,\"name\":\"cpu\"},"
    "{\"id\":{\"handle\":7},\"type\":2,\"name\":\"gfx942\",\"cu_count\":304}]}]}";
static const char *RESULTS_GPU8 =
    "{\"rocprofiler-sdk-tool\":[{\"agents\":[{\"id\":{\"handle\":8},\"type\":2,\"name\":\"gfx90a\"}]}]}";
static const char *RESULTS_CPU9 =
    "{\"rocprofiler-sdk-tool\":[{\"agents\":[{\"id\":{\"handle\":9},\"type\":1,\"name\":\"cpu\"}]}]}";

static const char *AGENT_INFO =
    "\"Node_Id\",\"Logical_Node_Id\",\"Agent_Type\",\"Cu_Count\",\"Simd_Per_Cu\",\"Max_Waves_Per_Simd\","
    "\"Max_Waves_Per_Cu\",\"Wave_Front_Size\",\"Lds_Size_In_Kb\",\"Max_Engine_Clk_Fcompute\",\"Num_Xcc\","
    "\"Array_Count\",\"Gfx_Target_Version\",\"Name\",\"Product_Name\"\n"
    "0,0,\"CPU\",0,0,0,0,0,0,0,1,0,0,\"EPYC\",\"EPYC\"\n"
    "1,1,\"GPU\",%d,4,8,32,64,64,2100,8,32,90402,\"gfx942\",\"MI300X\"\n";

static const char *TRACE =
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\","
    "\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\","
    "\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\","
    "\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n"
    "\"KERNEL_DISPATCH\",\"Agent 1\",1,0,5,3,40,\"k\",3,100,200,0,0,64,0,32,256,1,1,1024,1,1\n";

static const char *STATS_HEADER = "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\",\"MinNs\",\"MaxNs\",\"StdDev\"\n";

static void write_stats(const char *rel, const char *rows)
{
    char text[1024];
    snprintf(text, sizeof text, "%s%s", STATS_HEADER, rows);
    put(rel, text);
}

static void test_run_dir(void)
{
    snprintf(tmp_root, sizeof tmp_root, "/tmp/kr_test_discover_XXXXXX");
    if (!mkdtemp(tmp_root)) {
        T_CHECK(!"mkdtemp failed");
        return;
    }
    char text[2048];
    mk("run");
    mk("run/ui_output_agent_7_dispatch_3");
    put("run/ui_output_agent_7_dispatch_3/filenames.json", "{}");
    mk("run/ui_output_agent_9_dispatch_3");
    put("run/ui_output_agent_9_dispatch_3/filenames.json", "{}");
    /* Results: a wrong-handle file sorts first; the right one has an odd name. */
    put("run/a_results.json", RESULTS_GPU8);
    put("run/zz_profile.json", RESULTS_GPU7);
    put("run/b_results.json", RESULTS_CPU9);
    put("run/chrome.json", "{\"traceEvents\":[{}]}");
    put("run/notes.json", "not json at all");
    snprintf(text, sizeof text, AGENT_INFO, 304);
    put("run/out_agent_info.csv", text);
    snprintf(text, sizeof text, AGENT_INFO, 111);
    put("run/discover_agent_info.csv", text);
    put("run/out_kernel_trace.csv", TRACE);
    /* Same stats header: HIP API stats sorts before kernel stats. */
    write_stats("run/out_hip_api_stats.csv", "\"hipMemcpy\",2,10,5,100,4,6,1\n");
    write_stats("run/out_domain_stats.csv", "\"KERNEL_DISPATCH\",1,100,100,100,100,100,0\n");
    write_stats("run/out_kernel_stats.csv", "\"k\",1,100,100.000000,100.00,100,100,0.00000000e+00\n");
    put("run/stats_ui_output_agent_7_dispatch_3.csv", "Line,Instruction,Hits\n1,\"s_nop\",3\n");
    put("run/garbage.csv", "a\"b,c\n\"unterminated\n");

    kr_capture c;
    kr_err err;
    const char *cap7 = tpath("run/ui_output_agent_7_dispatch_3");
    cap_init(&c, cap7, NULL, 7, 1);
    int rc = bundle_attach_results(&c, NULL, &err);
    T_EQ_I64(rc, 0);
    if (rc)
        fprintf(stderr, "  %s:%s: %s\n", err.file, err.where, err.msg);
    T_CHECK(c.results != NULL);
    if (c.results) {
        T_ENDS(c.results->path, "/run/zz_profile.json");
        const kr_agent *g = bundle_results_find_agent(c.results, 7);
        T_CHECK(g && g->type == 2 && g->cu_count == 304);
    }
    /* discover_ before other names; kernel stats by name hint, not the HIP file. */
    T_CHECK(c.agent_info && c.agent_info->nagents == 2);
    if (c.agent_info) {
        T_ENDS(c.agent_info->path, "/run/discover_agent_info.csv");
        T_EQ_I64(c.agent_info->agents[1].cu_count, 111);
    }
    T_CHECK(c.kernel_trace && c.kernel_trace->nrows == 1);
    if (c.kernel_trace)
        T_ENDS(c.kernel_trace->path, "/run/out_kernel_trace.csv");
    T_CHECK(c.kernel_stats && c.kernel_stats->nrows == 1);
    if (c.kernel_stats) {
        T_ENDS(c.kernel_stats->path, "/run/out_kernel_stats.csv");
        T_EQ_STR(c.kernel_stats->rows[0].name, "k");
    }
    kr_arena_free(&c.arena);

    /* The label prefix beats discover_; a trailing slash and "." components. */
    snprintf(text, sizeof text, AGENT_INFO, 222);
    put("run/big_agent_info.csv", text);
    cap_init(&c, tpath("run/./ui_output_agent_7_dispatch_3/"), "big", 7, 1);
    T_EQ_I64(bundle_attach_results(&c, NULL, &err), 0);
    T_CHECK(c.agent_info != NULL);
    if (c.agent_info) {
        T_ENDS(c.agent_info->path, "/run/big_agent_info.csv");
        T_EQ_I64(c.agent_info->agents[1].cu_count, 222);
    }
    T_CHECK(c.results != NULL);
    kr_arena_free(&c.arena);

    /* A relative path from inside the capture: "." has the run as parent. */
    char cwd[1024];
    T_CHECK(getcwd(cwd, sizeof cwd) != NULL);
    if (chdir(cap7) == 0) {
        cap_init(&c, ".", NULL, 7, 1);
        T_EQ_I64(bundle_attach_results(&c, NULL, &err), 0);
        T_CHECK(c.results != NULL);
        T_CHECK(c.kernel_trace != NULL);
        kr_arena_free(&c.arena);
        T_CHECK(chdir(cwd) == 0);
    }

    /* Handle 9 is a CPU in b_results.json: no results.json, CSVs still. */
    cap_init(&c, tpath("run/ui_output_agent_9_dispatch_3"), NULL, 9, 1);
    T_EQ_I64(bundle_attach_results(&c, NULL, &err), 0);
    T_CHECK(c.results == NULL);
    T_CHECK(c.kernel_trace != NULL && c.agent_info != NULL && c.kernel_stats != NULL);
    kr_arena_free(&c.arena);

    /* A folder name without a handle never matches a results.json. */
    cap_init(&c, cap7, NULL, 7, 0);
    T_EQ_I64(bundle_attach_results(&c, NULL, &err), 0);
    T_CHECK(c.results == NULL);
    T_CHECK(c.kernel_trace != NULL);
    kr_arena_free(&c.arena);

    /* Explicit files: JSON by content (handle not checked), CSVs by header. */
    cap_init(&c, cap7, NULL, 9, 1);
    T_EQ_I64(bundle_attach_results(&c, tpath("run/a_results.json"), &err), 0);
    T_CHECK(c.results && bundle_results_find_agent(c.results, 8) != NULL);
    T_CHECK(c.kernel_trace == NULL);                 /* no search with an explicit file */
    T_EQ_I64(bundle_attach_results(&c, tpath("run/out_kernel_trace.csv"), &err), 0);
    T_CHECK(c.kernel_trace && c.kernel_trace->nrows == 1);
    T_EQ_I64(bundle_attach_results(&c, tpath("run/out_agent_info.csv"), &err), 0);
    T_CHECK(c.agent_info && c.agent_info->agents[1].cu_count == 304);
    T_EQ_I64(bundle_attach_results(&c, tpath("run/out_kernel_stats.csv"), &err), 0);
    T_CHECK(c.kernel_stats != NULL);
    T_EQ_I64(bundle_attach_results(&c, tpath("run/out_domain_stats.csv"), &err), KR_INPUT);
    T_CHECK(strstr(err.msg, "domain_stats") != NULL);
    T_EQ_I64(bundle_attach_results(&c, tpath("run/chrome.json"), &err), KR_INPUT);
    T_CHECK(strstr(err.msg, "Chrome-trace") != NULL);
    T_EQ_I64(bundle_attach_results(&c, tpath("run/stats_ui_output_agent_7_dispatch_3.csv"), &err), KR_INPUT);
    T_CHECK(strstr(err.msg, "neither") != NULL);
    T_EQ_I64(bundle_attach_results(&c, tpath("run/garbage.csv"), &err), KR_INPUT);
    T_EQ_I64(bundle_attach_results(&c, tpath("run/missing.json"), &err), KR_INPUT);
    kr_arena_free(&c.arena);

    /* A found file of a wanted kind that is malformed fails the attach. */
    put("run/aa_kernel_trace.csv",
        "\"Kind\",\"Agent_Id\",\"Dispatch_Id\",\"Kernel_Name\",\"Start_Timestamp\",\"End_Timestamp\"\n"
        "\"KERNEL_DISPATCH\",\"Agent 1\",3\n");
    cap_init(&c, cap7, NULL, 7, 1);
    T_EQ_I64(bundle_attach_results(&c, NULL, &err), KR_INPUT);
    T_ENDS(err.file, "/run/aa_kernel_trace.csv");
    T_CHECK(strstr(err.msg, "row 1 has 3 fields, header has 6") != NULL);
    kr_arena_free(&c.arena);
    remove(tpath("run/aa_kernel_trace.csv"));
    ncreated--;

    put("run/0_results.json", "{\"rocprofiler-sdk-tool\":[{\"agents\":{}}]}");
    cap_init(&c, cap7, NULL, 7, 1);
    T_EQ_I64(bundle_attach_results(&c, NULL, &err), KR_INPUT);
    T_ENDS(err.file, "/run/0_results.json");
    T_EQ_STR(err.where, "$.rocprofiler-sdk-tool[0].agents");
    kr_arena_free(&c.arena);
    remove(tpath("run/0_results.json"));
    ncreated--;

    /* An example folder built by hand: labels and captures sorted, folders
     * without filenames.json and hidden ones skipped, empty labels allowed. */
    mk("ex");
    mk("ex/att_viewer");
    mk("ex/att_viewer/zeta");
    mk("ex/att_viewer/zeta/ui_output_agent_1_dispatch_2");
    put("ex/att_viewer/zeta/ui_output_agent_1_dispatch_2/filenames.json", "{}");
    mk("ex/att_viewer/alpha");
    mk("ex/att_viewer/alpha/ui_output_agent_5_dispatch_9_b");
    put("ex/att_viewer/alpha/ui_output_agent_5_dispatch_9_b/filenames.json", "{}");
    mk("ex/att_viewer/alpha/ui_output_agent_5_dispatch_9_a");
    put("ex/att_viewer/alpha/ui_output_agent_5_dispatch_9_a/filenames.json", "{}");
    mk("ex/att_viewer/alpha/not_a_capture");
    mk("ex/att_viewer/.hidden");
    mk("ex/att_viewer/.hidden/ui_output_agent_1_dispatch_1");
    put("ex/att_viewer/.hidden/ui_output_agent_1_dispatch_1/filenames.json", "{}");
    mk("ex/att_viewer/empty");
    put("ex/README.md", "# ex\n");
    T_EQ_I64(bundle_is_example_dir(tpath("ex")), 1);
    T_EQ_I64(bundle_is_example_dir(tpath("ex/att_viewer")), 0);
    T_EQ_I64(bundle_is_example_dir(tpath("run")), 0);
    bundle_example *ex = NULL;
    T_EQ_I64(bundle_example_scan(tpath("ex/"), &ex, &err), 0);
    T_CHECK(ex != NULL);
    if (ex) {
        T_EQ_STR(ex->name, "ex");
        T_EQ_U64(ex->ncaptures, 3);
        T_EQ_I64(ex->has_readme, 1);
        T_EQ_I64(ex->has_report, 0);
        if (ex->ncaptures == 3) {
            T_EQ_STR(ex->captures[0].label, "alpha");
            T_ENDS(ex->captures[0].dir, "/alpha/ui_output_agent_5_dispatch_9_a");
            T_EQ_STR(ex->captures[1].label, "alpha");
            T_ENDS(ex->captures[1].dir, "/alpha/ui_output_agent_5_dispatch_9_b");
            T_EQ_STR(ex->captures[2].label, "zeta");
        }
        bundle_example_free(ex);
    }
    T_EQ_I64(bundle_example_scan(tpath("run"), &ex, &err), KR_INPUT);
    T_CHECK(ex == NULL);
    T_EQ_I64(bundle_example_scan(tpath("nothing_here"), &ex, &err), KR_INPUT);

    /* Hub layout by hand: <example>/att_viewer/<label>/<capture> finds
     * <example>/compute_viewer with the label derived from the path. */
    mk("ex/compute_viewer");
    put("ex/compute_viewer/alpha_results.json", "{\"rocprofiler-sdk-tool\":[{\"agents\":[{\"id\":{\"handle\":5},"
                                                 "\"type\":2,\"name\":\"gfx950\"}]}]}");
    snprintf(text, sizeof text, AGENT_INFO, 333);
    put("ex/compute_viewer/alpha_agent_info.csv", text);
    snprintf(text, sizeof text, AGENT_INFO, 444);
    put("ex/compute_viewer/zeta_agent_info.csv", text);
    cap_init(&c, tpath("ex/att_viewer/alpha/ui_output_agent_5_dispatch_9_a"), NULL, 5, 1);
    T_EQ_I64(bundle_attach_results(&c, NULL, &err), 0);
    T_CHECK(c.results != NULL);
    T_CHECK(c.agent_info && c.agent_info->agents[1].cu_count == 333);
    kr_arena_free(&c.arena);
    cap_init(&c, tpath("ex/att_viewer/zeta/ui_output_agent_1_dispatch_2"), NULL, 1, 1);
    T_EQ_I64(bundle_attach_results(&c, NULL, &err), 0);
    T_CHECK(c.results == NULL);
    T_CHECK(c.agent_info && c.agent_info->agents[1].cu_count == 444);
    kr_arena_free(&c.arena);

    cleanup();
}

/* ---- the hub ---- */

static void test_hub(const char *hub)
{
    char dir[1024];
    kr_capture c;
    kr_err err;
    int rc;

    /* flash small 32235: its run's results.json (docs/formats.md#joining-a-capture verified join). */
    snprintf(dir, sizeof dir, "%s/examples/flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44", hub);
    cap_init(&c, dir, "small", 32235, 1);
    rc = bundle_attach_results(&c, NULL, &err);
    T_EQ_I64(rc, 0);
    if (rc)
        fprintf(stderr, "  %s:%s: %s\n", err.file, err.where, err.msg);
    T_CHECK(c.results != NULL);
    if (c.results) {
        T_ENDS(c.results->path, "/compute_viewer/small_results.json");
        const kr_agent *g = bundle_results_find_agent(c.results, 32235);
        T_CHECK(g && g->type == 2);
        T_EQ_STR(g ? g->name : NULL, "gfx950");
        const kr_kernel_symbol *s = bundle_results_find_symbol(c.results, 32235, 4, 5888);
        T_CHECK(s && s->kernel_id == 195);
    }
    T_CHECK(c.agent_info && c.kernel_trace && c.kernel_stats);
    if (c.agent_info && c.kernel_trace && c.kernel_stats) {
        T_ENDS(c.agent_info->path, "/compute_viewer/small_agent_info.csv");
        T_EQ_U64(c.agent_info->nagents, 10);
        T_ENDS(c.kernel_trace->path, "/compute_viewer/discover_kernel_trace.csv");
        T_EQ_U64(c.kernel_trace->nrows, 45);
        T_ENDS(c.kernel_stats->path, "/compute_viewer/discover_kernel_stats.csv");
        T_EQ_U64(c.kernel_stats->nrows, 19);
    }
    kr_arena_free(&c.arena);

    /* The same capture with the label taken from the path. */
    cap_init(&c, dir, NULL, 32235, 1);
    T_EQ_I64(bundle_attach_results(&c, NULL, &err), 0);
    T_CHECK(c.results != NULL);
    if (c.agent_info)
        T_ENDS(c.agent_info->path, "/compute_viewer/small_agent_info.csv");
    kr_arena_free(&c.arena);

    /* flash small 58550 (_after_loc_fix): a later run, no results.json of its
     * own; small_results.json (handle 32235) must not be borrowed. */
    snprintf(dir, sizeof dir,
             "%s/examples/flash_attn_func/att_viewer/small/ui_output_agent_58550_dispatch_44_after_loc_fix", hub);
    cap_init(&c, dir, "small", 58550, 1);
    T_EQ_I64(bundle_attach_results(&c, NULL, &err), 0);
    T_CHECK(c.results == NULL);
    T_CHECK(c.agent_info && c.kernel_trace && c.kernel_stats);
    if (c.agent_info && c.kernel_trace) {
        T_ENDS(c.agent_info->path, "/compute_viewer/small_agent_info.csv");
        T_ENDS(c.kernel_trace->path, "/compute_viewer/discover_kernel_trace.csv");
    }
    kr_arena_free(&c.arena);

    /* pa_mqa: no results.json in the hub; label-specific agent_info files. */
    snprintf(dir, sizeof dir, "%s/examples/pa_mqa_logits_fp4/att_viewer/small/ui_output_agent_32435_dispatch_197", hub);
    cap_init(&c, dir, "small", 32435, 1);
    T_EQ_I64(bundle_attach_results(&c, NULL, &err), 0);
    T_CHECK(c.results == NULL);
    T_CHECK(c.agent_info && c.kernel_trace && c.kernel_stats);
    if (c.agent_info && c.kernel_trace && c.kernel_stats) {
        T_ENDS(c.agent_info->path, "/compute_viewer/small_agent_info.csv");
        T_ENDS(c.kernel_trace->path, "/compute_viewer/discover_kernel_trace.csv");
        T_EQ_U64(c.kernel_trace->nrows, 532);
        T_ENDS(c.kernel_stats->path, "/compute_viewer/discover_kernel_stats.csv");
        T_EQ_U64(c.kernel_stats->nrows, 74);
    }
    kr_arena_free(&c.arena);
    snprintf(dir, sizeof dir, "%s/examples/pa_mqa_logits_fp4/att_viewer/big/ui_output_agent_55351_dispatch_426", hub);
    cap_init(&c, dir, "big", 55351, 1);
    T_EQ_I64(bundle_attach_results(&c, NULL, &err), 0);
    T_CHECK(c.results == NULL);
    T_CHECK(c.agent_info != NULL && c.kernel_trace != NULL);
    if (c.agent_info)
        T_ENDS(c.agent_info->path, "/compute_viewer/big_agent_info.csv");
    kr_arena_free(&c.arena);

    /* Explicit --results with the flash file on the pa_mqa capture is used as given. */
    char res[1024];
    snprintf(res, sizeof res, "%s/examples/flash_attn_func/compute_viewer/small_results.json", hub);
    cap_init(&c, dir, "big", 55351, 1);
    T_EQ_I64(bundle_attach_results(&c, res, &err), 0);
    T_CHECK(c.results != NULL && bundle_results_find_agent(c.results, 55351) == NULL);
    kr_arena_free(&c.arena);

    /* Example folders (docs/formats.md#example-folders). */
    char ex_dir[1024];
    snprintf(ex_dir, sizeof ex_dir, "%s/examples/flash_attn_func", hub);
    T_EQ_I64(bundle_is_example_dir(ex_dir), 1);
    bundle_example *ex = NULL;
    T_EQ_I64(bundle_example_scan(ex_dir, &ex, &err), 0);
    if (ex) {
        T_EQ_STR(ex->name, "flash_attn_func");
        T_EQ_STR(ex->root, ex_dir);
        T_EQ_I64(ex->has_readme, 1);
        T_EQ_I64(ex->has_report, 1);
        T_EQ_U64(ex->ncaptures, 2);
        if (ex->ncaptures == 2) {
            T_EQ_STR(ex->captures[0].label, "small");
            T_ENDS(ex->captures[0].dir, "/att_viewer/small/ui_output_agent_32235_dispatch_44");
            T_EQ_STR(ex->captures[1].label, "small");
            T_ENDS(ex->captures[1].dir, "/att_viewer/small/ui_output_agent_58550_dispatch_44_after_loc_fix");
        }
        bundle_example_free(ex);
    }
    snprintf(ex_dir, sizeof ex_dir, "%s/examples/pa_mqa_logits_fp4", hub);
    T_EQ_I64(bundle_example_scan(ex_dir, &ex, &err), 0);
    if (ex) {
        T_EQ_STR(ex->name, "pa_mqa_logits_fp4");
        T_EQ_U64(ex->ncaptures, 2);
        if (ex->ncaptures == 2) {
            T_EQ_STR(ex->captures[0].label, "big");
            T_ENDS(ex->captures[0].dir, "/att_viewer/big/ui_output_agent_55351_dispatch_426");
            T_EQ_STR(ex->captures[1].label, "small");
            T_ENDS(ex->captures[1].dir, "/att_viewer/small/ui_output_agent_32435_dispatch_197");
        }
        bundle_example_free(ex);
    }
    snprintf(ex_dir, sizeof ex_dir, "%s/examples/pa_mqa_logits_fp4/compute_viewer", hub);
    T_EQ_I64(bundle_is_example_dir(ex_dir), 0);
    snprintf(ex_dir, sizeof ex_dir, "%s/examples", hub);
    T_EQ_I64(bundle_is_example_dir(ex_dir), 0);
}

int main(void)
{
    test_run_dir();
    const char *hub = t_hub();
    if (hub)
        test_hub(hub);
    else
        printf("test_discover: hub fixtures absent, hub checks skipped\n");
    return t_done("test_discover");
}
