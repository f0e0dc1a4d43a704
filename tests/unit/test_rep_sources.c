/* test_rep_sources.c — report/md_sources.c on hand-built results: exact
 * Markdown rows and the exact key sets of the analysis.json object. */
#include "report/sections.h"
#include "tests/unit/t.h"

static int has(const char *md, const char *needle)
{
    int ok = strstr(md, needle) != NULL;
    if (!ok)
        fprintf(stderr, "missing in Markdown: %s\n", needle);
    return ok;
}

static void check_keys(json_t *o, const char *const *keys)
{
    size_t n = 0;
    T_CHECK(json_is_object(o));
    for (; keys[n]; n++)
        if (!json_object_get(o, keys[n])) {
            T_CHECK(!"key missing");
            fprintf(stderr, "missing key %s\n", keys[n]);
        }
    T_EQ_U64(json_object_size(o), n);
}

static void fill(an_sources *s, an_src_line *lines, an_src_range *ranges, size_t *rank)
{
    memset(s, 0, sizeof *s);
    s->instruction_rows = 3;
    s->mapped_rows = 2;
    s->frames = 3;
    s->frames_resolved = 2;
    s->copies_used = 1;
    s->has_snapshots_json = 1;
    s->distinct_lines = 2;
    s->weight_total = 40;
    s->has_top1 = 1;
    s->top1_share = 0.75;
    s->top1_index = 0;
    s->has_effective = 1;
    s->effective_lines = 1.75;
    s->context = 3;
    s->range_gap = 8;

    memset(lines, 0, 3 * sizeof *lines);
    lines[0] = (an_src_line){.path = "/w/k.py", .line = 7, .snapshot = 0, .copy = "source_0_k.py",
                             .incl = {3, 40, 30, 2}, .excl = {2, 30, 20, 1}, .incl_rows = 2, .excl_rows = 1,
                             .why = AN_SRC_RESOLVED, .snippet = ">>> 7 | x = 1\n", .snippet_first = 7,
                             .snippet_last = 7};
    lines[1] = (an_src_line){.path = "/w/lib.h", .line = 12, .snapshot = -1, .incl = {1, 10, 5, 0},
                             .excl = {1, 10, 5, 0}, .incl_rows = 1, .excl_rows = 1, .why = AN_SRC_NOT_IN_TREE};
    lines[2] = (an_src_line){.path = "/w/k.py", .line = 9, .snapshot = 0, .copy = "source_0_k.py",
                             .incl = {1, 4, 0, 0}, .excl = {0, 0, 0, 0}, .incl_rows = 1, .excl_rows = 0,
                             .why = AN_SRC_RESOLVED};
    s->lines = lines;
    s->nlines = 3;
    s->ntop = 2;

    ranges[0] = (an_src_range){.kernel = 0, .first_row = 1, .last_row = 2, .first_vaddr = 0x100,
                               .last_vaddr = 0x104, .mapped = 1, .path = "/w/k.py", .line_min = 7,
                               .line_max = 9, .rows = 2, .cost = {3, 40, 30, 2}};
    ranges[1] = (an_src_range){.kernel = 0, .first_row = 3, .last_row = 3, .first_vaddr = 0x108,
                               .last_vaddr = 0x108, .mapped = 0, .rows = 1, .cost = {1, 10, 5, 0}};
    rank[0] = 0;
    rank[1] = 1;
    s->ranges = ranges;
    s->nranges = 2;
    s->range_rank = rank;
    s->ntop_ranges = 2;
}

static void test_markdown(void)
{
    an_sources a, b;
    an_src_line la[3], lb[3];
    an_src_range ra[2], rb[2];
    size_t ka[2], kb[2];
    fill(&a, la, ra, ka);
    fill(&b, lb, rb, kb);
    /* b: nothing mapped (the pa_mqa shape), ranges are basic blocks */
    b.instruction_rows = 726;
    b.mapped_rows = 0;
    b.frames = b.frames_resolved = 0;
    b.distinct_lines = 0;
    b.weight_total = 0;
    b.has_top1 = b.has_effective = 0;
    b.nlines = b.ntop = 0;
    b.fallback = 1;
    rb[0].mapped = 0;
    rb[0].path = NULL;
    rb[0].line_min = rb[0].line_max = 0;

    const an_sources *r[2] = {&a, &b};
    const char *labels[2] = {"small", "pa"};
    rep_doc *d = rep_doc_new();
    rep_md_sources(d, r, labels, 2);
    kr_buf out;
    kr_buf_init(&out);
    rep_doc_markdown(d, &out);
    const char *md = kr_buf_cstr(&out);

    T_CHECK(has(md, "## Source lines\n"));
    T_CHECK(has(md, "Method: `kreport help sources`."));   /* templates/sources.md */
    T_CHECK(has(md, "|  | small | pa |\n"));
    T_CHECK(has(md, "| instruction rows with a source location | 2 / 3 (66.7 %) | 0 / 726 (0.0 %) |\n"));
    T_CHECK(has(md, "| distinct source lines (innermost) | 2 | 0 |\n"));
    T_CHECK(has(md, "| frames resolved to a source copy | 2 / 3 | n/a |\n"));
    T_CHECK(has(md, "| heaviest line's share of hit + stall | 75.0 % | n/a |\n"));
    T_CHECK(has(md, "| effective number of lines | 1.75 | n/a |\n"));
    T_CHECK(has(md, "### small\n"));
    T_CHECK(has(md, "Top 2 of 3 source lines by inclusive stall (context ±3 lines):"));
    T_CHECK(has(md, "| # | source line | copy | stall (incl) | latency (incl) | hits (incl) | stall (excl) | latency (excl) |\n"));
    T_CHECK(has(md, "| 1 | `k.py:7` | `source_0_k.py` | 30 | 40 | 3 | 20 | 30 |\n"));
    T_CHECK(has(md, "| 2 | `lib.h:12` | — | 5 | 10 | 1 | 5 | 10 |\n"));
    T_CHECK(has(md, "1 more line in analysis.json."));
    T_CHECK(has(md, "**#1** `/w/k.py:7` — stall 30, latency 40 (copy `source_0_k.py`, lines 7–7)\n"));
    T_CHECK(has(md, "```python\n>>> 7 | x = 1\n```\n"));
    T_CHECK(has(md, "**#2** `/w/lib.h:12` — no snippet: path not in snapshots.json.\n"));
    T_CHECK(has(md, "| # | vaddr range | source | instructions | stall | latency | hits |\n"));
    T_CHECK(has(md, "| 1 | 0x100–0x104 | `k.py:7-9` | 2 | 30 | 40 | 3 |\n"));
    T_CHECK(has(md, "| 2 | 0x108–0x108 | (no source) | 1 | 5 | 10 | 1 |\n"));
    /* the unmapped capture says so and shows basic blocks */
    T_CHECK(has(md, "pa: no instruction row has a source location (0/726 mapped;"));
    T_CHECK(has(md, "| 1 | 0x100–0x104 | basic block | 2 | 30 | 40 | 3 |\n"));
    const char *pa = strstr(md, "### pa\n");
    T_CHECK(pa && strstr(pa, "PC ranges by stall") == NULL);
    T_CHECK(strstr(md, "PC ranges by stall (a new range starts when the file changes or the line moves more than 8 "
                       "lines away;") != NULL);
    kr_buf_free(&out);
    rep_doc_free(d);

    /* One capture: no per-capture heading; no snapshots.json is said plainly. */
    a.has_snapshots_json = 0;
    const an_sources *one[1] = {&a};
    d = rep_doc_new();
    rep_md_sources(d, one, NULL, 1);
    kr_buf_init(&out);
    rep_doc_markdown(d, &out);
    md = kr_buf_cstr(&out);
    T_CHECK(has(md, "|  | capture 1 |\n"));
    T_CHECK(strstr(md, "### capture 1") == NULL);
    T_CHECK(has(md, "The capture has no snapshots.json: no source copies, so no snippets."));
    kr_buf_free(&out);
    rep_doc_free(d);
}

static void test_json(void)
{
    an_sources a;
    an_src_line la[3];
    an_src_range ra[2];
    size_t ka[2];
    fill(&a, la, ra, ka);
    ka[0] = 1;      /* the unmapped range first: rank must follow */
    ka[1] = 0;
    json_t *j = rep_json_sources(&a);
    static const char *const top[] = {"instruction_rows", "mapped_rows", "frames", "frames_resolved",
        "copies_used", "has_snapshots_json", "distinct_lines", "weight_total", "top1_share", "top1_line",
        "effective_lines", "context", "range_gap", "fallback", "top_lines", "top_ranges", "lines", "ranges", NULL};
    check_keys(j, top);
    T_EQ_I64(json_integer_value(json_object_get(j, "mapped_rows")), 2);
    T_EQ_I64(json_integer_value(json_object_get(j, "instruction_rows")), 3);
    T_NEAR(json_real_value(json_object_get(j, "top1_share")), 0.75, 1e-12);
    T_EQ_I64(json_integer_value(json_object_get(j, "top1_line")), 1);
    T_CHECK(json_is_false(json_object_get(j, "fallback")));
    json_t *lines = json_object_get(j, "lines");
    T_EQ_U64(json_array_size(lines), 3);
    static const char *const lk[] = {"rank", "path", "line", "copy", "resolution", "inclusive", "exclusive",
        "snippet_first", "snippet_last", "snippet", NULL};
    static const char *const ck[] = {"hit", "latency", "stall", "idle", "rows", NULL};
    for (size_t i = 0; i < json_array_size(lines); i++) {
        json_t *l = json_array_get(lines, i);
        check_keys(l, lk);
        check_keys(json_object_get(l, "inclusive"), ck);
        check_keys(json_object_get(l, "exclusive"), ck);
    }
    json_t *l1 = json_array_get(lines, 1);
    T_CHECK(json_is_null(json_object_get(l1, "copy")));
    T_CHECK(json_is_null(json_object_get(l1, "snippet")));
    T_EQ_STR(json_string_value(json_object_get(l1, "resolution")), "not_in_snapshots");
    json_t *l0 = json_array_get(lines, 0);
    T_EQ_STR(json_string_value(json_object_get(l0, "snippet")), ">>> 7 | x = 1\n");
    T_EQ_I64(json_integer_value(json_object_get(json_object_get(l0, "inclusive"), "stall")), 30);
    T_EQ_I64(json_integer_value(json_object_get(json_object_get(l0, "exclusive"), "rows")), 1);
    T_CHECK(json_is_integer(json_object_get(json_object_get(l0, "inclusive"), "latency")));

    json_t *ranges = json_object_get(j, "ranges");
    T_EQ_U64(json_array_size(ranges), 2);
    static const char *const rk[] = {"rank", "kernel_row", "first_row", "last_row", "first_vaddr", "last_vaddr",
        "mapped", "path", "line_min", "line_max", "rows", "hit", "latency", "stall", "idle", NULL};
    for (size_t i = 0; i < json_array_size(ranges); i++)
        check_keys(json_array_get(ranges, i), rk);
    json_t *r0 = json_array_get(ranges, 0), *r1 = json_array_get(ranges, 1);
    T_EQ_I64(json_integer_value(json_object_get(r0, "rank")), 2);
    T_EQ_I64(json_integer_value(json_object_get(r1, "rank")), 1);
    T_EQ_I64(json_integer_value(json_object_get(r0, "first_vaddr")), 0x100);
    T_EQ_I64(json_integer_value(json_object_get(r0, "line_max")), 9);
    T_CHECK(json_is_null(json_object_get(r1, "path")));
    T_CHECK(json_is_null(json_object_get(r1, "line_min")));
    json_decref(j);

    /* Unknown shares are null, not 0. */
    a.has_top1 = a.has_effective = 0;
    j = rep_json_sources(&a);
    check_keys(j, top);
    T_CHECK(json_is_null(json_object_get(j, "top1_share")));
    T_CHECK(json_is_null(json_object_get(j, "top1_line")));
    T_CHECK(json_is_null(json_object_get(j, "effective_lines")));
    json_decref(j);
}

int main(void)
{
    test_markdown();
    test_json();
    return t_done("test_rep_sources");
}
