/* test_rep_hidden.c — the "Hidden and exposed latency" Markdown (totals side
 * by side, ranking) and its analysis.json keys (with the per-class sums),
 * from a hand-built result. */
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
    kr_code_row rows[3];
    memset(rows, 0, sizeof rows);
    rows[0] = (kr_code_row){.isa = "; k", .is_label = 1, .source = ""};
    rows[1] = (kr_code_row){.isa = "s_waitcnt vmcnt(0)", .line = 1, .vaddr = 100, .cls = KR_CLASS_WAITCNT, .source = ""};
    rows[2] = (kr_code_row){.isa = "v_add_f32_e32 v0, v1, v2", .line = 2, .vaddr = 104, .cls = KR_CLASS_VALU, .source = ""};
    an_hidden_row ranked[2] = {
        {.row = 1, .vaddr = 100, .total = 400, .idle = 0, .stall = 400, .issue = 0, .hidden_stall = 100, .non_hidden = 300},
        {.row = 2, .vaddr = 104, .total = 100, .idle = 20, .stall = 0, .issue = 80, .hidden_idle = 20, .hidden_issue = 30,
         .non_hidden = 50},
    };
    an_hidden h;
    memset(&h, 0, sizeof h);
    h.rows = rows;
    h.nrows = 3;
    h.n = 10;
    h.computed = 1;
    h.scopes = 4;
    h.tokens = 9;
    h.all = (an_hidden_sum){500, 20, 400, 80, 20, 100, 30, 350};
    h.cls[KR_CLASS_WAITCNT] = (an_hidden_sum){400, 0, 400, 0, 0, 100, 0, 300};
    h.cls[KR_CLASS_VALU] = (an_hidden_sum){100, 20, 0, 80, 20, 0, 30, 50};
    h.ranked = ranked;
    h.nranked = 2;
    an_hidden empty;
    memset(&empty, 0, sizeof empty);
    empty.n = 10;

    rep_doc *d = rep_doc_new();
    const an_hidden *r[] = {&h, &empty};
    const char *labels[] = {"big", "none"};
    rep_md_hidden(d, r, labels, 2);
    kr_buf b;
    kr_buf_init(&b);
    rep_doc_markdown(d, &b);
    const char *md = kr_buf_cstr(&b);
    T_CHECK(contains(md, "## Hidden and exposed latency\n"));
    T_CHECK(contains(md, "|  | big | none |\n|---|---:|---:|\n| total (Σ Latency + Σ Idle) | 500 | 0 |\n"));
    T_CHECK(contains(md, "| non-hidden | 350 | 0 |\n| non-hidden share | 70.0 % | n/a |\n| (SE, SIMD) scopes | 4 | 0 |\n"));
    T_CHECK(contains(md, "### big\n"));
    T_CHECK(contains(md, "### big\n\n#### Top 2 instructions by non-hidden latency\n"));
    T_CHECK(contains(md, "| 1 | 100 | `s_waitcnt vmcnt(0)` | WAITCNT | 400 | 0 / 400 / 0 | 0 / 100 / 0 | 300 | 85.7 % | — |\n"));
    T_CHECK(contains(md, "| 2 | 104 | `v_add_f32_e32 v0, v1, v2` | VALU | 100 | 20 / 0 / 80 | 20 / 0 / 30 | 50 | 14.3 % | — |\n"));
    T_CHECK(contains(md, "### none\n\nNo instruction records: nothing to compute.\n"));
    kr_buf_free(&b);
    rep_doc_free(d);

    json_t *j = rep_json_hidden(&h);
    static const char *const keys[] = {"computed", "scopes", "tokens", "total", "idle", "stall", "issue", "hidden_idle",
                                       "hidden_stall", "hidden_issue", "non_hidden", "non_hidden_share", "classes",
                                       "n", "top", NULL};
    T_CHECK(has_keys(j, keys));
    T_EQ_U64(json_integer_value(json_object_get(j, "non_hidden")), 350);
    T_EQ_U64(json_array_size(json_object_get(j, "classes")), 2);
    static const char *const cls_keys[] = {"class", "total", "idle", "stall", "issue", "hidden_idle", "hidden_stall",
                                           "hidden_issue", "non_hidden", NULL};
    T_CHECK(has_keys(json_array_get(json_object_get(j, "classes"), 0), cls_keys));
    T_EQ_STR(json_string_value(json_object_get(json_array_get(json_object_get(j, "classes"), 0), "class")), "WAITCNT");
    static const char *const top_keys[] = {"rank", "row", "line", "vaddr", "isa", "class", "total", "idle", "stall",
                                           "issue", "hidden_idle", "hidden_stall", "hidden_issue", "non_hidden", NULL};
    T_CHECK(has_keys(json_array_get(json_object_get(j, "top"), 1), top_keys));
    json_decref(j);
    j = rep_json_hidden(&empty);
    T_CHECK(json_is_null(json_object_get(j, "non_hidden_share")));
    T_CHECK(json_is_false(json_object_get(j, "computed")));
    json_decref(j);
    return t_done("test_rep_hidden");
}
