/* test_rep_classes.c — the "Instruction classes" Markdown and JSON, from
 * hand-built results holding docs/instruction-classes.md's per-class reference sums of
 * pa_mqa big and flash small 32235. */
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

static void set(an_classes *r, kr_class k, uint64_t rows, uint64_t hit, uint64_t lat, uint64_t stall,
                uint64_t idle)
{
    an_class_sums *s = &r->by_class[k];
    s->rows = rows; s->hit = hit; s->latency = lat; s->stall = stall; s->idle = idle;
}

/* Totals from the facts table; the test checks the class rows add up to them. */
static void totals(an_classes *r, uint64_t rows, uint64_t hit, uint64_t lat, uint64_t stall, uint64_t idle)
{
    r->rows = rows; r->hit = hit; r->latency = lat; r->stall = stall; r->idle = idle;
    uint64_t s[5] = {0};
    for (unsigned k = 0; k < KR_CLASS_COUNT; k++) {
        s[0] += r->by_class[k].rows; s[1] += r->by_class[k].hit; s[2] += r->by_class[k].latency;
        s[3] += r->by_class[k].stall; s[4] += r->by_class[k].idle;
    }
    T_EQ_U64(s[0], rows); T_EQ_U64(s[1], hit); T_EQ_U64(s[2], lat); T_EQ_U64(s[3], stall); T_EQ_U64(s[4], idle);
}

int main(void)
{
    an_classes big, flash;
    memset(&big, 0, sizeof big);
    memset(&flash, 0, sizeof flash);
    set(&big, KR_CLASS_VALU, 520, 130304, 782436, 259592, 8864);
    set(&big, KR_CLASS_WAITCNT, 35, 7840, 451424, 451424, 0);
    set(&big, KR_CLASS_MATRIX, 32, 8704, 92868, 29712, 332);
    set(&big, KR_CLASS_VMEM, 31, 5792, 67108, 42380, 43360);
    set(&big, KR_CLASS_LDS, 16, 4352, 41504, 4540, 30188);
    set(&big, KR_CLASS_SALU, 67, 6912, 28888, 1184, 35628);
    set(&big, KR_CLASS_SMEM, 15, 480, 1972, 40, 992);
    set(&big, KR_CLASS_NOP, 5, 640, 2944, 2944, 0);
    set(&big, KR_CLASS_BRANCH, 4, 576, 2332, 0, 616);
    set(&big, KR_CLASS_MESSAGE, 1, 32, 10740, 0, 0);
    totals(&big, 726, 165632, 1482216, 791816, 119980);
    big.records_kept = 1;
    big.records = 165632;
    big.by_class[KR_CLASS_BRANCH].records = 576;
    big.by_class[KR_CLASS_BRANCH].records_by_cat[KR_CAT_JUMP] = 512;
    big.by_class[KR_CLASS_BRANCH].records_by_cat[KR_CAT_NEXT] = 64;

    set(&flash, KR_CLASS_VALU, 1370, 17668, 86732, 10224, 852);
    set(&flash, KR_CLASS_WAITCNT, 84, 1488, 46792, 46792, 0);
    set(&flash, KR_CLASS_MATRIX, 64, 1280, 14088, 8924, 0);
    set(&flash, KR_CLASS_VMEM, 44, 416, 17148, 15380, 1124);
    set(&flash, KR_CLASS_LDS, 96, 1920, 9148, 1456, 4800);
    set(&flash, KR_CLASS_SALU, 204, 916, 3788, 0, 4172);
    set(&flash, KR_CLASS_SMEM, 5, 20, 80, 0, 972);
    set(&flash, KR_CLASS_NOP, 186, 2516, 19872, 19872, 0);
    set(&flash, KR_CLASS_BARRIER, 4, 80, 5236, 5236, 240);
    set(&flash, KR_CLASS_BRANCH, 11, 104, 424, 0, 152);
    set(&flash, KR_CLASS_MESSAGE, 1, 4, 4752, 0, 0);
    totals(&flash, 2069, 26412, 208060, 107884, 12312);
    flash.records_kept = 0;

    const an_classes *rs[] = {&big, &flash};
    const char *labels[] = {"big", "flash"};
    rep_doc *d = rep_doc_new();
    rep_md_classes(d, rs, labels, 2);
    kr_buf md;
    kr_buf_init(&md);
    rep_doc_markdown(d, &md);
    const char *m = kr_buf_cstr(&md);

    T_CHECK(strstr(m, "## Instruction classes\n") != NULL);
    T_CHECK(strstr(m, "### big\n\n| class | rows | hit | latency | stall | idle | % of latency | % of stall |\n"
                      "|---|---:|---:|---:|---:|---:|---:|---:|\n"
                      "| VALU | 520 | 130304 | 782436 | 259592 | 8864 | 52.8 % | 32.8 % |\n"
                      "| WAITCNT | 35 | 7840 | 451424 | 451424 | 0 | 30.5 % | 57.0 % |\n"
                      "| MATRIX | 32 | 8704 | 92868 | 29712 | 332 | 6.3 % | 3.8 % |\n") != NULL);
    /* BARRIER has no rows in big: skipped; the docs/instruction-classes.md order continues. */
    T_CHECK(strstr(m, "| NOP | 5 | 640 | 2944 | 2944 | 0 | 0.2 % | 0.4 % |\n"
                      "| BRANCH | 4 | 576 | 2332 | 0 | 616 | 0.2 % | 0.0 % |\n") != NULL);
    T_CHECK(strstr(m, "| **total** | 726 | 165632 | 1482216 | 791816 | 119980 | 100.0 % | 100.0 % |\n") != NULL);
    T_CHECK(strstr(m, "- 165632 records checked against their row's class: 0 with a category the class does not allow, 0 with an unknown PC.\n") != NULL);
    T_CHECK(strstr(m, "- Branch executions: 512 taken, 64 not taken.\n") != NULL);
    T_CHECK(strstr(m, "| BARRIER | 4 | 80 | 5236 | 5236 | 240 | 2.5 % | 4.9 % |\n") != NULL);
    T_CHECK(strstr(m, "- The record streams were not kept, so the trace categories were not checked.\n") != NULL);
    T_CHECK(strstr(m, "| class | big % of latency | big % of stall | flash % of latency | flash % of stall |\n") != NULL);
    T_CHECK(strstr(m, "| BARRIER | — | — | 2.5 % | 4.9 % |\n") != NULL);
    /* 19872/208060 = 9.55 %, 19872/107884 = 18.42 % */
    T_CHECK(strstr(m, "| NOP | 0.2 % | 0.4 % | 9.6 % | 18.4 % |\n") != NULL);
    T_CHECK(strstr(m, "| FLAT |") == NULL);
    if (t_failed)
        fputs(m, stderr);
    kr_buf_free(&md);
    rep_doc_free(d);

    /* One capture: no sub-heading, no side-by-side table. */
    d = rep_doc_new();
    rep_md_classes(d, rs, labels, 1);
    kr_buf_init(&md);
    rep_doc_markdown(d, &md);
    T_CHECK(strstr(kr_buf_cstr(&md), "### big") == NULL);
    T_CHECK(strstr(kr_buf_cstr(&md), "Shares side by side") == NULL);
    kr_buf_free(&md);
    rep_doc_free(d);

    json_t *j = rep_json_classes(&big);
    static const char *const top[] = {"rows", "hit", "latency", "stall", "idle", "classes", "records", NULL};
    T_CHECK(has_keys(j, top));
    json_t *cl = json_object_get(j, "classes");
    T_EQ_U64(json_array_size(cl), KR_CLASS_COUNT - 1);
    json_t *valu = json_array_get(cl, 0);
    static const char *const ck[] = {"class", "rows", "hit", "latency", "stall", "idle", "latency_share",
                                     "stall_share", "records", "records_by_category",
                                     "records_other_category", "records_incompatible", NULL};
    T_CHECK(has_keys(valu, ck));
    T_EQ_STR(json_string_value(json_object_get(valu, "class")), "VALU");
    T_EQ_I64(json_integer_value(json_object_get(valu, "latency")), 782436);
    T_NEAR(json_real_value(json_object_get(valu, "stall_share")), 259592.0 / 791816.0, 1e-12);
    T_EQ_U64(json_object_size(json_object_get(valu, "records_by_category")), KR_CAT_COUNT);
    json_t *br = json_array_get(cl, 9);
    T_EQ_STR(json_string_value(json_object_get(br, "class")), "BRANCH");
    T_EQ_I64(json_integer_value(json_object_get(json_object_get(br, "records_by_category"), "JUMP")), 512);
    json_t *bar = json_array_get(cl, 8);
    T_EQ_STR(json_string_value(json_object_get(bar, "class")), "BARRIER");
    T_EQ_I64(json_integer_value(json_object_get(bar, "rows")), 0);
    static const char *const rk[] = {"kept", "total", "unknown", "incompatible", NULL};
    T_CHECK(has_keys(json_object_get(j, "records"), rk));
    T_CHECK(json_is_true(json_object_get(json_object_get(j, "records"), "kept")));
    json_decref(j);

    j = rep_json_classes(&flash);
    T_CHECK(json_is_null(json_object_get(json_object_get(j, "records"), "total")));
    T_CHECK(json_is_null(json_object_get(json_array_get(json_object_get(j, "classes"), 0), "records")));
    json_decref(j);
    an_classes empty;
    memset(&empty, 0, sizeof empty);
    j = rep_json_classes(&empty);
    T_CHECK(json_is_null(json_object_get(json_array_get(json_object_get(j, "classes"), 0), "latency_share")));
    json_decref(j);
    return t_done("test_rep_classes");
}
