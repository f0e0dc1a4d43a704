/* test_rep_stalls.c — the "Stalls" Markdown (side by side, union of bucket
 * orders, top rows, hub cross-check, source groups) and its JSON keys, from
 * hand-built results. */
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

/* kind_order: the given kinds first, then the others in enum order. */
static void order_kinds(an_stalls *r, const an_stall_kind *first, size_t n)
{
    int used[AN_STALL_COUNT] = {0};
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        r->kind_order[m++] = first[i];
        used[first[i]] = 1;
    }
    for (unsigned k = 0; k < AN_STALL_COUNT; k++)
        if (!used[k])
            r->kind_order[m++] = (an_stall_kind)k;
}

static void hub_seen(an_stalls *r, const an_hub_sum *seen, size_t n)
{
    int used[AN_HUB_COUNT] = {0};
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        r->hub[m++] = seen[i];
        used[seen[i].bucket] = 1;
    }
    r->nhub_seen = n;
    for (unsigned b = 0; b < AN_HUB_COUNT; b++)
        if (!used[b])
            r->hub[m++] = (an_hub_sum){(an_hub_bucket)b, 0, 0};
}

int main(void)
{
    kr_code_row ra[4], rb[3];
    memset(ra, 0, sizeof ra);
    memset(rb, 0, sizeof rb);
    ra[0] = (kr_code_row){.isa = "; k", .is_label = 1, .source = ""};
    ra[1] = (kr_code_row){.isa = "s_waitcnt vmcnt(5)", .line = 1, .vaddr = 9376, .hit = 512,
                          .latency = 130256, .stall = 130256, .source = ""};
    ra[2] = (kr_code_row){.isa = "s_waitcnt lgkmcnt(0)", .line = 2, .vaddr = 6432, .hit = 32,
                          .latency = 48632, .stall = 48632, .source = ""};
    ra[3] = (kr_code_row){.isa = "v_pk_mul_f32 v[0:1], v[0:1], v[18:19]", .line = 3, .vaddr = 7684,
                          .hit = 512, .latency = 24388, .stall = 22336, .source = ""};
    an_stalls a;
    memset(&a, 0, sizeof a);
    a.rows = ra;
    a.nrows = 4;
    a.kept_rows = 3;
    a.total_cycles = 130256 + 48632 + 24388;   /* 203276 */
    a.total_stall = 130256 + 48632 + 22336;    /* 201224 */
    a.kinds[AN_STALL_WAIT_VMCNT] = (an_stall_bucket){130256, 1, 512, {1}, 1};
    a.kinds[AN_STALL_WAIT_LGKMCNT] = (an_stall_bucket){48632, 1, 32, {2}, 1};
    a.kinds[AN_STALL_VALU_DEP] = (an_stall_bucket){22336, 1, 512, {3}, 1};
    const an_stall_kind ka[] = {AN_STALL_WAIT_VMCNT, AN_STALL_WAIT_LGKMCNT, AN_STALL_VALU_DEP};
    order_kinds(&a, ka, 3);
    const an_hub_sum ha[] = {{AN_HUB_VMEM_WAIT, 130256, 1}, {AN_HUB_LDS_SMEM_WAIT, 48632, 1},
                             {AN_HUB_OTHER, 22336, 1}};
    hub_seen(&a, ha, 3);
    an_hub_source sa[] = {{"<unknown>", 1, 3, 201224, 203276, AN_HUB_VMEM_WAIT}};
    a.sources = sa;
    a.nsources = 1;
    uint32_t topa[] = {1, 2, 3};
    a.hub_top = topa;
    a.nhub_top = 3;

    rb[0] = (kr_code_row){.isa = "; k", .is_label = 1, .source = ""};
    rb[1] = (kr_code_row){.isa = "s_barrier", .line = 1, .vaddr = 100, .hit = 2, .latency = 50,
                          .stall = 40, .source = "k.py:10"};
    rb[2] = (kr_code_row){.isa = "v_add_f32_e32 v1, v2, v3", .line = 2, .vaddr = 104, .hit = 2,
                          .latency = 20, .stall = 10, .source = "k.py:11"};
    an_stalls b;
    memset(&b, 0, sizeof b);
    b.rows = rb;
    b.nrows = 3;
    b.kept_rows = 2;
    b.total_cycles = 70;
    b.total_stall = 50;
    b.kinds[AN_STALL_BARRIER] = (an_stall_bucket){40, 1, 2, {1}, 1};
    b.kinds[AN_STALL_VALU_DEP] = (an_stall_bucket){10, 1, 2, {2}, 1};
    const an_stall_kind kb[] = {AN_STALL_BARRIER, AN_STALL_VALU_DEP};
    order_kinds(&b, kb, 2);
    const an_hub_sum hb[] = {{AN_HUB_BARRIER, 40, 1}, {AN_HUB_OTHER, 10, 1}};
    hub_seen(&b, hb, 2);
    an_hub_source sb[] = {{"k.py:10", 1, 1, 40, 50, AN_HUB_BARRIER}, {"k.py:11", 2, 1, 10, 20, AN_HUB_OTHER},
                          {"k.py:12", 3, 1, 0, 4, AN_HUB_NONE}};
    b.sources = sb;
    b.nsources = 3;

    const an_stalls *rs[] = {&a, &b};
    const char *labels[] = {"big", "b"};
    rep_doc *d = rep_doc_new();
    rep_md_stalls(d, rs, labels, 2);
    kr_buf md;
    kr_buf_init(&md);
    rep_doc_markdown(d, &md);
    const char *m = kr_buf_cstr(&md);

    T_CHECK(strstr(m, "## Stalls\n") != NULL);
    T_CHECK(strstr(m, "|  | big | b |\n|---|---:|---:|\n| rows kept | 3 | 2 |\n"
                      "| total cycles (Σ Latency) | 203276 | 70 |\n"
                      "| total stall (Σ Stall) | 201224 | 50 |\n"
                      "| stall share of latency | 99.0 % | 71.4 % |\n") != NULL);
    /* Union of the orders: big's three, then b's barrier. 130256/201224 = 64.7 %. */
    T_CHECK(strstr(m, "| bucket | big cycles | big share | big rows | b cycles | b share | b rows |\n"
                      "|---|---:|---:|---:|---:|---:|---:|\n"
                      "| `wait_vmcnt` | 130256 | 64.7 % | 1 | 0 | 0.0 % | 0 |\n"
                      "| `wait_lgkmcnt` | 48632 | 24.2 % | 1 | 0 | 0.0 % | 0 |\n"
                      "| `valu_dep` | 22336 | 11.1 % | 1 | 10 | 20.0 % | 1 |\n"
                      "| `barrier` | 0 | 0.0 % | 0 | 40 | 80.0 % | 1 |\n"
                      "| **total** | 201224 | 100.0 % | 3 | 50 | 100.0 % | 2 |\n") != NULL);
    T_CHECK(strstr(m, "#### Top rows per bucket — big\n") != NULL);
    T_CHECK(strstr(m, "| `wait_vmcnt` | 9376 | `s_waitcnt vmcnt(5)` | 512 | 130256 | 100.0 % |\n") != NULL);
    T_CHECK(strstr(m, "| `barrier` | 100 | `s_barrier` | 2 | 40 | 100.0 % |\n") != NULL);
    T_CHECK(strstr(m, "| type | big cycles | big % of stall | b cycles | b % of stall |\n"
                      "|---|---:|---:|---:|---:|\n"
                      "| VMEM-wait | 130256 | 64.7 % | — | — |\n"
                      "| LDS/SMEM-wait | 48632 | 24.2 % | — | — |\n"
                      "| other | 22336 | 11.1 % | 10 | 20.0 % |\n"
                      "| barrier | — | — | 40 | 80.0 % |\n") != NULL);
    T_CHECK(strstr(m, "#### Source groups — big\n\nNo row has a source location") != NULL);
    T_CHECK(strstr(m, "| source | rows | stall | latency | dominant type |\n"
                      "|---|---:|---:|---:|---|\n"
                      "| `k.py:10` | 1 | 40 | 50 | barrier |\n"
                      "| `k.py:11` | 1 | 10 | 20 | other |\n"
                      "| `k.py:12` | 1 | 0 | 4 | - |\n") != NULL);
    if (t_failed)
        fputs(m, stderr);
    kr_buf_free(&md);
    rep_doc_free(d);

    json_t *j = rep_json_stalls(&a);
    static const char *const top[] = {"kept_rows", "total_cycles", "total_stall", "stall_share",
                                      "kreport", "hub", NULL};
    T_CHECK(has_keys(j, top));
    T_EQ_I64(json_integer_value(json_object_get(j, "total_stall")), 201224);
    json_t *kbk = json_object_get(json_object_get(j, "kreport"), "buckets");
    T_EQ_U64(json_array_size(kbk), AN_STALL_COUNT);
    json_t *k0 = json_array_get(kbk, 0);
    static const char *const kk[] = {"bucket", "stall", "share", "rows", "hit", "top", NULL};
    T_CHECK(has_keys(k0, kk));
    T_EQ_STR(json_string_value(json_object_get(k0, "bucket")), "wait_vmcnt");
    json_t *t0 = json_array_get(json_object_get(k0, "top"), 0);
    static const char *const rk[] = {"row", "line", "vaddr", "isa", "hit", "latency", "stall", NULL};
    T_CHECK(has_keys(t0, rk));
    T_EQ_I64(json_integer_value(json_object_get(t0, "vaddr")), 9376);
    T_EQ_STR(json_string_value(json_object_get(t0, "isa")), "s_waitcnt vmcnt(5)");
    /* A bucket without rows: share 0.0, empty top. */
    json_t *k5 = json_array_get(kbk, 5);
    T_EQ_U64(json_array_size(json_object_get(k5, "top")), 0);
    json_t *hub = json_object_get(j, "hub");
    static const char *const hk[] = {"buckets", "sources", "sources_total", "top_instructions",
                                     "top_instructions_total", NULL};
    T_CHECK(has_keys(hub, hk));
    json_t *hb0 = json_array_get(json_object_get(hub, "buckets"), 0);
    static const char *const hbk[] = {"bucket", "name", "seen", "stall", "share", "rows", NULL};
    T_CHECK(has_keys(hb0, hbk));
    T_EQ_STR(json_string_value(json_object_get(hb0, "bucket")), "vmem_wait");
    T_EQ_STR(json_string_value(json_object_get(hb0, "name")), "VMEM-wait");
    T_CHECK(json_is_true(json_object_get(hb0, "seen")));
    T_CHECK(json_is_false(json_object_get(json_array_get(json_object_get(hub, "buckets"), 3), "seen")));
    T_EQ_U64(json_array_size(json_object_get(hub, "buckets")), AN_HUB_COUNT);
    json_t *s0 = json_array_get(json_object_get(hub, "sources"), 0);
    static const char *const sk[] = {"source", "first_row", "rows", "stall", "latency", "dominant", NULL};
    T_CHECK(has_keys(s0, sk));
    T_EQ_STR(json_string_value(json_object_get(s0, "dominant")), "vmem_wait");
    json_t *ti = json_array_get(json_object_get(hub, "top_instructions"), 2);
    static const char *const tk[] = {"row", "line", "vaddr", "isa", "hit", "latency", "stall", "bucket", NULL};
    T_CHECK(has_keys(ti, tk));
    T_EQ_STR(json_string_value(json_object_get(ti, "bucket")), "other");
    json_decref(j);

    j = rep_json_stalls(&b);
    json_t *s2 = json_array_get(json_object_get(json_object_get(j, "hub"), "sources"), 2);
    T_CHECK(json_is_null(json_object_get(s2, "dominant")));
    T_EQ_I64(json_integer_value(json_object_get(json_object_get(j, "hub"), "top_instructions_total")), 0);
    json_decref(j);

    /* Invalid UTF-8 in untrusted text still gives a string. */
    char bad[] = {'s', '_', 'n', 'o', 'p', ' ', (char)0xff, 0};
    rb[2].isa = bad;
    j = rep_json_stalls(&b);
    json_t *vt = json_array_get(json_object_get(json_array_get(json_object_get(json_object_get(j, "kreport"), "buckets"), 1), "top"), 0);
    T_EQ_STR(json_string_value(json_object_get(vt, "isa")), "s_nop ?");
    json_decref(j);
    return t_done("test_rep_stalls");
}
