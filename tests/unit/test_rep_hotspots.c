/* test_rep_hotspots.c — the "Hotspots" Markdown (top tables, source cells,
 * the `>>>` listing) and its JSON keys, from a hand-built result over the
 * pa_mqa prologue rows (values as in its code.json). */
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

int main(void)
{
    kr_code_row rows[11];
    memset(rows, 0, sizeof rows);
    static const struct { const char *isa; uint64_t vaddr, hit, lat, stall, idle; kr_class cls; } s[] = {
        {"; pa_mqa_logits_fp4_kernel_0", 6400, 0, 0, 0, 0, KR_CLASS_LABEL},
        {"s_load_dwordx2 s[8:9], s[0:1], 0x130", 6400, 32, 128, 0, 992, KR_CLASS_SMEM},
        {"s_load_dword s30, s[0:1], 0x148", 6408, 32, 128, 0, 0, KR_CLASS_SMEM},
        {"s_lshl_b32 s2, s2, 4", 6416, 32, 128, 0, 0, KR_CLASS_SALU},
        {"s_mov_b32 s11, 0x27000", 6420, 32, 128, 0, 0, KR_CLASS_SALU},
        {"s_mov_b32 s10, -1", 6428, 32, 136, 0, 0, KR_CLASS_SALU},
        {"s_waitcnt lgkmcnt(0)", 6432, 32, 48632, 48632, 0, KR_CLASS_WAITCNT},
        {"s_and_b32 s9, s9, 0xffff", 6436, 32, 148, 4, 0, KR_CLASS_SALU},
        {"v_mov_b32_e32 v1, s2", 6444, 32, 400, 252, 0, KR_CLASS_VALU},
        {"buffer_load_dwordx4 v[2:5], v1, s[8:11], 0 offen", 6448, 32, 312, 164, 236, KR_CLASS_VMEM},
        {"v_and_b32_e32 v45, 0xc0, v0", 6456, 0, 0, 0, 0, KR_CLASS_VALU},
    };
    for (size_t i = 0; i < 11; i++)
        rows[i] = (kr_code_row){.isa = s[i].isa, .line = (uint32_t)i, .vaddr = s[i].vaddr, .hit = s[i].hit,
                                .latency = s[i].lat, .stall = s[i].stall, .idle = s[i].idle,
                                .cls = s[i].cls, .is_label = i == 0, .source = "", .kernel = 0};
    kr_frame fr[] = {{"/a/b/kern.py", 258, -1}, {"/a/b/caller.py", 12, -1}};
    rows[6].frames = fr;
    rows[6].nframes = 2;
    rows[6].source = "/a/b/kern.py:258 -> /a/b/caller.py:12";
    rows[9].source = "weird";

    uint32_t ctx6[] = {2, 3, 4, 5, 6, 7, 8, 9, 10}, ctx8[] = {4, 5, 6, 7, 8, 9, 10};
    an_hot h6 = {.row = 6, .line = 6, .vaddr = 6432, .hit = 32, .latency = 48632, .stall = 48632,
                 .has_mean = 1, .mean_latency = 1519.75, .mean_stall = 1519.75,
                 .hub_bucket = AN_HUB_LDS_SMEM_WAIT, .kind = AN_STALL_WAIT_LGKMCNT,
                 .cls = KR_CLASS_WAITCNT, .ctx = ctx6, .nctx = 9, .ctx_hot = 4};
    an_hot h8 = {.row = 8, .line = 8, .vaddr = 6444, .hit = 32, .latency = 400, .stall = 252,
                 .has_mean = 1, .mean_latency = 12.5, .mean_stall = 7.875,
                 .hub_bucket = AN_HUB_OTHER, .kind = AN_STALL_VALU_DEP, .cls = KR_CLASS_VALU,
                 .ctx = ctx8, .nctx = 7, .ctx_hot = 4};
    an_hot h9 = {.row = 9, .line = 9, .vaddr = 6448, .hit = 0, .latency = 312, .stall = 164, .idle = 236,
                 .has_mean = 0, .hub_bucket = AN_HUB_VMEM_LOAD, .kind = AN_STALL_VMEM_ISSUE,
                 .cls = KR_CLASS_VMEM, .ctx = ctx8 + 5, .nctx = 2, .ctx_hot = 0};
    an_hot by_stall[] = {h6, h8, h9}, by_lat[] = {h6, h8};
    an_hotspots h = {.rows = rows, .nrows = 11, .n = 3, .context = 4, .by_stall = by_stall,
                     .nby_stall = 3, .by_latency = by_lat, .nby_latency = 2};

    const an_hotspots *rs[] = {&h};
    const char *labels[] = {"big"};
    rep_doc *d = rep_doc_new();
    rep_md_hotspots(d, rs, labels, 1);
    kr_buf md;
    kr_buf_init(&md);
    rep_doc_markdown(d, &md);
    const char *m = kr_buf_cstr(&md);

    T_CHECK(strstr(m, "## Hotspots\n") != NULL);
    T_CHECK(strstr(m, "### big") == NULL);        /* one capture: no label heading */
    T_CHECK(strstr(m, "### Top 3 by stall\n\n"
                      "| # | line | vaddr | instruction | hit | stall | stall/exec | latency | idle | class | bucket | source |\n"
                      "|---:|---:|---:|---|---:|---:|---:|---:|---:|---|---|---|\n"
                      "| 1 | 6 | 6432 | `s_waitcnt lgkmcnt(0)` | 32 | 48632 | 1519.8 | 48632 | 0 | WAITCNT | `wait_lgkmcnt` (hub: LDS/SMEM-wait) | `kern.py:258` (+1) |\n"
                      "| 2 | 8 | 6444 | `v_mov_b32_e32 v1, s2` | 32 | 252 | 7.9 | 400 | 0 | VALU | `valu_dep` (hub: other) | — |\n"
                      "| 3 | 9 | 6448 | `buffer_load_dwordx4 v[2:5], v1, s[8:11], 0 offen` | 0 | 164 | n/a | 312 | 236 | VMEM | `vmem_issue` (hub: VMEM-load) | `weird` |\n") != NULL);
    T_CHECK(strstr(m, "### Top 2 by latency\n\n"
                      "| # | line | vaddr | instruction | hit | latency | latency/exec | stall | idle | class | bucket | source |\n"
                      "|---:|---:|---:|---|---:|---:|---:|---:|---:|---|---|---|\n"
                      "| 1 | 6 | 6432 | `s_waitcnt lgkmcnt(0)` | 32 | 48632 | 1519.8 | 48632 |") != NULL);
    T_CHECK(strstr(m, "| 2 | 8 | 6444 | `v_mov_b32_e32 v1, s2` | 32 | 400 | 12.5 | 252 | 0 | VALU |") != NULL);
    T_CHECK(strstr(m, "### Around the top 3 stall rows\n\n"
                      "**1.** `s_waitcnt lgkmcnt(0)` at vaddr 6432 (line 6): stall 48632 over 32 executions (1519.8 per execution), `wait_lgkmcnt` (hub: LDS/SMEM-wait).\n\n"
                      "```\n"
                      "    6408  s_load_dword s30, s[0:1], 0x148                   ; hit 32, stall 0, latency 128\n"
                      "    6416  s_lshl_b32 s2, s2, 4                              ; hit 32, stall 0, latency 128\n"
                      "    6420  s_mov_b32 s11, 0x27000                            ; hit 32, stall 0, latency 128\n"
                      "    6428  s_mov_b32 s10, -1                                 ; hit 32, stall 0, latency 136\n"
                      ">>> 6432  s_waitcnt lgkmcnt(0)                              ; hit 32, stall 48632, latency 48632\n"
                      "    6436  s_and_b32 s9, s9, 0xffff                          ; hit 32, stall 4, latency 148\n"
                      "    6444  v_mov_b32_e32 v1, s2                              ; hit 32, stall 252, latency 400\n"
                      "    6448  buffer_load_dwordx4 v[2:5], v1, s[8:11], 0 offen  ; hit 32, stall 164, latency 312\n"
                      "    6456  v_and_b32_e32 v45, 0xc0, v0                       ; not executed\n"
                      "```\n") != NULL);
    T_CHECK(strstr(m, "**3.** `buffer_load_dwordx4 v[2:5], v1, s[8:11], 0 offen` at vaddr 6448 (line 9): stall 164 over 0 executions (n/a per execution)") != NULL);
    if (t_failed)
        fputs(m, stderr);
    kr_buf_free(&md);
    rep_doc_free(d);

    /* Two captures: one heading per label; an empty result says so. */
    an_hotspots empty = {.rows = rows, .nrows = 11, .n = 10, .context = 4};
    const an_hotspots *two[] = {&h, &empty};
    const char *l2[] = {"big", "small"};
    d = rep_doc_new();
    rep_md_hotspots(d, two, l2, 2);
    kr_buf_init(&md);
    rep_doc_markdown(d, &md);
    m = kr_buf_cstr(&md);
    T_CHECK(strstr(m, "### big\n\n#### Top 3 by stall\n") != NULL);
    T_CHECK(strstr(m, "### small\n\n#### Top 0 by stall\n\nNo instruction stalled.\n") != NULL);
    T_CHECK(strstr(m, "No instruction was executed.") != NULL);
    kr_buf_free(&md);
    rep_doc_free(d);

    json_t *j = rep_json_hotspots(&h);
    static const char *const top[] = {"n", "context", "by_stall", "by_latency", NULL};
    T_CHECK(has_keys(j, top));
    T_EQ_I64(json_integer_value(json_object_get(j, "n")), 3);
    json_t *e = json_array_get(json_object_get(j, "by_stall"), 0);
    static const char *const ek[] = {"rank", "row", "line", "vaddr", "isa", "source", "frames", "hit",
                                     "latency", "stall", "idle", "mean_latency", "mean_stall", "class",
                                     "kreport_bucket", "hub_bucket", "context", NULL};
    T_CHECK(has_keys(e, ek));
    T_EQ_I64(json_integer_value(json_object_get(e, "rank")), 1);
    T_EQ_I64(json_integer_value(json_object_get(e, "vaddr")), 6432);
    T_CHECK(json_is_integer(json_object_get(e, "stall")));
    T_NEAR(json_real_value(json_object_get(e, "mean_stall")), 1519.75, 1e-12);
    T_EQ_STR(json_string_value(json_object_get(e, "kreport_bucket")), "wait_lgkmcnt");
    T_EQ_STR(json_string_value(json_object_get(e, "hub_bucket")), "lds_smem_wait");
    T_EQ_STR(json_string_value(json_object_get(e, "class")), "WAITCNT");
    json_t *f1 = json_array_get(json_object_get(e, "frames"), 1);
    static const char *const fk[] = {"path", "line", NULL};
    T_CHECK(has_keys(f1, fk));
    T_EQ_STR(json_string_value(json_object_get(f1, "path")), "/a/b/caller.py");
    T_EQ_I64(json_integer_value(json_object_get(f1, "line")), 12);
    json_t *ctx = json_object_get(e, "context");
    T_EQ_U64(json_array_size(ctx), 9);
    json_t *c4 = json_array_get(ctx, 4);
    static const char *const ck[] = {"row", "line", "vaddr", "isa", "hit", "latency", "stall", "hot", NULL};
    T_CHECK(has_keys(c4, ck));
    T_CHECK(json_is_true(json_object_get(c4, "hot")));
    T_CHECK(json_is_false(json_object_get(json_array_get(ctx, 0), "hot")));
    T_EQ_I64(json_integer_value(json_object_get(json_array_get(ctx, 0), "row")), 2);
    json_t *e3 = json_array_get(json_object_get(j, "by_stall"), 2);
    T_CHECK(json_is_null(json_object_get(e3, "mean_stall")));
    json_t *e2 = json_array_get(json_object_get(j, "by_stall"), 1);
    T_CHECK(json_is_null(json_object_get(e2, "source")));
    T_EQ_U64(json_array_size(json_object_get(e2, "frames")), 0);
    T_EQ_U64(json_array_size(json_object_get(j, "by_latency")), 2);
    json_decref(j);
    return t_done("test_rep_hotspots");
}
