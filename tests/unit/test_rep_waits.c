/* test_rep_waits.c — the "Waits and their producers" Markdown (links
 * sentence, hot-wait table, producers of a hot wait, producer ranking) and
 * the keys of its analysis.json object, from a hand-built result. */
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
    kr_frame fr = {"/src/k.py", 7, -1};
    kr_code_row rows[4];
    memset(rows, 0, sizeof rows);
    rows[0] = (kr_code_row){.isa = "; k", .is_label = 1, .source = ""};
    rows[1] = (kr_code_row){.isa = "s_waitcnt vmcnt(0)", .line = 1, .vaddr = 100, .hit = 4, .stall = 400,
                            .cls = KR_CLASS_WAITCNT, .source = ""};
    rows[2] = (kr_code_row){.isa = "buffer_load_dword v1, v0, s[0:3], 0 offen", .line = 2, .vaddr = 80,
                            .cls = KR_CLASS_VMEM, .source = "/src/k.py:7", .frames = &fr, .nframes = 1};
    rows[3] = (kr_code_row){.isa = "ds_read_b32 v5, v6", .line = 3, .vaddr = 90, .cls = KR_CLASS_LDS, .source = ""};
    an_dist d9 = {3, 9, 9, 9, 9, 9}, dc = {3, 80, 80, 88, 96, 96}, ex = {3, 90, 90, 100, 110, 110},
            ob = {3, 180, 180, 188, 196, 196}, d4 = {3, 4, 4, 4, 4, 4};
    an_wait_producer prods[2] = {
        {.row = 2, .vaddr = 80, .waited = 3, .links = 3, .critical = 3, .stall = 300, .dist_insts = d9, .dist_cycles = dc},
        {.row = 3, .vaddr = 90, .waited = 3, .links = 3, .critical = 0, .stall = 0, .dist_insts = d4, .dist_cycles = d4},
    };
    an_wait wt = {.row = 1, .vaddr = 100, .executions = 4, .stall = 400, .linked = 3, .links = 6, .attributed = 300,
                  .dist_insts = d9, .dist_cycles = dc, .exposed = ex, .observed = ob, .earlier_cycles = 100,
                  .has_extra = 1, .extra_insts = 12, .producers = prods, .nproducers = 2};
    an_top_producer tops[2] = {
        {.row = 2, .vaddr = 80, .stall = 300, .links = 3, .critical = 3, .nwaits = 1, .top_wait = 1, .exposed = ex,
         .dist_cycles = dc},
        {.row = 3, .vaddr = 90, .stall = 0, .links = 3, .critical = 0, .nwaits = 1, .top_wait = 1},
    };
    an_waits w = {.rows = rows, .nrows = 4, .n = 10, .source = AN_LINKS_STORED, .waves_stored = 2, .entries = 4,
                  .links = 6, .wait_stall = 400, .attributed = 300, .total_stall = 500, .waits = &wt, .nwaits = 1,
                  .producers = tops, .nproducers = 2};

    rep_doc *d = rep_doc_new();
    const an_waits *r[] = {&w};
    const char *labels[] = {"big"};
    rep_md_waits(d, r, labels, 1);
    kr_buf b;
    kr_buf_init(&b);
    rep_doc_markdown(d, &b);
    const char *md = kr_buf_cstr(&b);
    T_CHECK(contains(md, "## Waits and their producers\n"));
    T_CHECK(contains(md, "Links from the stored `waitcnt` arrays of all 2 waves: 4 entries, 6 producer executions "
                         "linked. The waits stalled 400 cycles (80.0 % of all stall cycles); 300 of them (75.0 %)"));
    T_CHECK(contains(md, "### Top 1 waits by stall\n"));
    T_CHECK(contains(md, "| 1 | 100 | `s_waitcnt vmcnt(0)` | 4 | 400 | 80.0 % | 3 | 80 "
                         "`buffer_load_dword v1, v0, s[0:3], 0 offen`, 75.0 % | 9 | 88 (80–96) | 100 (90–110) | "
                         "100 cycles / 12 instr. |\n"));
    T_CHECK(contains(md, "**1.** `s_waitcnt vmcnt(0)` at vaddr 100 (line 1): 400 stall cycles over 4 executions; "
                         "3 linked executions (critical producer issued 9 instr. / 88 cycles before the wait, p50); "
                         "observed producer latency 188 cycles"));
    T_CHECK(contains(md, "| 80 | `buffer_load_dword v1, v0, s[0:3], 0 offen` | VMEM | `k.py:7` | 3 (75.0 %) | 3 | 3 "
                         "| 300 | 9 | 88 (80–96) |\n"));
    T_CHECK(contains(md, "| 90 | `ds_read_b32 v5, v6` | LDS | — | 3 (75.0 %) | 3 | 0 | 0 | 4 | 4 |\n"));
    /* the producer ranking lists producers with attributed stall only */
    T_CHECK(contains(md, "### Top 1 producers by attributed stall\n"));
    T_CHECK(contains(md, "| 1 | 80 | `buffer_load_dword v1, v0, s[0:3], 0 offen` | VMEM | `k.py:7` | 300 | 60.0 % | 3 "
                         "| 3 | 1 | 100 | 100 (90–110) | 88 (80–96) |\n"));
    T_CHECK(!strstr(md, "| 2 | 90 |"));
    kr_buf_free(&b);
    rep_doc_free(d);

    json_t *j = rep_json_waits(&w);
    static const char *const top_keys[] = {"links_source", "waves_stored", "waves_computed", "waves_none", "entries",
                                           "links", "links_unplaced", "total_stall", "wait_stall", "attributed_stall",
                                           "n", "waits", "top_producers", NULL};
    T_CHECK(has_keys(j, top_keys));
    T_EQ_STR(json_string_value(json_object_get(j, "links_source")), "stored");
    json_t *w0 = json_array_get(json_object_get(j, "waits"), 0);
    static const char *const wait_keys[] = {"rank", "row", "line", "vaddr", "isa", "source", "executions", "stall",
                                            "stall_share", "linked", "links", "attributed_stall",
                                            "distance_instructions", "distance_cycles", "exposed_latency",
                                            "observed_latency", "issue_earlier_cycles", "independent_instructions",
                                            "producers", NULL};
    T_CHECK(has_keys(w0, wait_keys));
    T_EQ_U64(json_integer_value(json_object_get(w0, "independent_instructions")), 12);
    static const char *const dist_keys[] = {"n", "min", "p10", "p50", "p90", "max", NULL};
    T_CHECK(has_keys(json_object_get(w0, "exposed_latency"), dist_keys));
    T_EQ_U64(json_integer_value(json_object_get(json_object_get(w0, "exposed_latency"), "p50")), 100);
    json_t *p0 = json_array_get(json_object_get(w0, "producers"), 0);
    static const char *const prod_keys[] = {"row", "line", "vaddr", "isa", "source", "class", "waited", "waited_share",
                                            "links", "critical", "attributed_stall", "distance_instructions_p50",
                                            "distance_cycles_p50", NULL};
    T_CHECK(has_keys(p0, prod_keys));
    T_NEAR(json_real_value(json_object_get(p0, "waited_share")), 0.75, 1e-12);
    json_t *t0 = json_array_get(json_object_get(j, "top_producers"), 0);
    static const char *const top_prod_keys[] = {"rank", "row", "line", "vaddr", "isa", "source", "class",
                                                "attributed_stall", "stall_share", "links", "critical", "waits",
                                                "top_wait_row", "top_wait_vaddr", "exposed_latency",
                                                "distance_cycles_p50", NULL};
    T_CHECK(has_keys(t0, top_prod_keys));
    /* an empty sample is null, not 0 */
    json_t *t1 = json_array_get(json_object_get(j, "top_producers"), 1);
    T_CHECK(json_is_null(json_object_get(json_object_get(t1, "exposed_latency"), "p50")));
    T_CHECK(json_is_null(json_object_get(t1, "distance_cycles_p50")));
    json_decref(j);
    return t_done("test_rep_waits");
}
