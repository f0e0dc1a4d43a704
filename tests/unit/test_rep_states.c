/* test_rep_states.c — the "Wave states" Markdown (side by side for two
 * captures) and its analysis.json object, from hand-built results holding
 * the docs/formats.md reference sums of pa_mqa small and big (docs/formats.md#timeline table, docs/stalls.md#issue-stall-and-idle). */
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

static void fill(an_state_sums *s, uint64_t waves, uint64_t idle, uint64_t exec, uint64_t wait,
                 uint64_t stall, uint64_t clip_wait)
{
    memset(s, 0, sizeof *s);
    s->waves = waves;
    s->raw[KR_STATE_IDLE] = s->clipped[KR_STATE_IDLE] = idle;
    s->raw[KR_STATE_EXEC] = s->clipped[KR_STATE_EXEC] = exec;
    s->raw[KR_STATE_WAIT] = wait;
    s->clipped[KR_STATE_WAIT] = clip_wait;
    s->raw[KR_STATE_STALL] = s->clipped[KR_STATE_STALL] = stall;
    s->raw_total = idle + exec + wait + stall;
    s->clipped_total = idle + exec + clip_wait + stall;
}

int main(void)
{
    an_states small, big;
    memset(&small, 0, sizeof small);
    memset(&big, 0, sizeof big);
    /* Reference raw sums (docs/formats.md#timeline facts table); the clipped WAIT values are
     * made up (4 and 60 cycles removed). */
    fill(&small.all, 4, 124, 7380, 11644, 1156, 11640);
    small.waves = small.waves_with_timeline = 4;
    small.activity = (an_activity){.rows = 726, .issue = 7268, .stall = 11820, .idle = 1220,
                                   .active = 19088, .total = 20308};
    an_states_scope small_se[1];
    small_se[0] = (an_states_scope){.se = 3, .simd = UINT32_MAX, .sums = small.all};
    small.per_se = small_se;
    small.nse = 1;
    small.nsimd = 1;

    fill(&big.all, 32, 992, 795648, 465108, 340436, 465048);
    big.waves = big.waves_with_timeline = 32;
    big.activity = (an_activity){.rows = 726, .issue = 690400, .stall = 791816, .idle = 119980,
                                 .active = 1482216, .total = 1602196};
    /* Two SEs and two SIMDs for the scope table. */
    an_states_scope se[2], simd[2];
    se[0] = (an_states_scope){.se = 0, .simd = UINT32_MAX};
    fill(&se[0].sums, 16, 500, 400000, 200000, 99500, 200000);
    se[1] = (an_states_scope){.se = 1, .simd = UINT32_MAX};
    fill(&se[1].sums, 16, 492, 395648, 265108, 240936, 265048);
    simd[0] = (an_states_scope){.se = UINT32_MAX, .simd = 0};
    fill(&simd[0].sums, 16, 0, 1, 1, 2, 1);
    simd[1] = (an_states_scope){.se = UINT32_MAX, .simd = 1};
    fill(&simd[1].sums, 16, 0, 0, 0, 0, 0);
    big.per_se = se;
    big.nse = 2;
    big.per_simd = simd;
    big.nsimd = 2;

    const an_states *rs[] = {&small, &big};
    const char *labels[] = {"small", "big"};
    rep_doc *d = rep_doc_new();
    rep_md_states(d, rs, labels, 2);
    kr_buf md;
    kr_buf_init(&md);
    rep_doc_markdown(d, &md);
    const char *m = kr_buf_cstr(&md);

    T_CHECK(strstr(m, "## Wave states\n") != NULL);
    T_CHECK(strstr(m, "Method: `kreport help wave-states`.") != NULL);   /* template line */
    T_CHECK(strstr(m, "| state | small cycles | small share | big cycles | big share |\n"
                      "|---|---:|---:|---:|---:|\n") != NULL);
    /* 124/20304 = 0.61 %, 992/1602184 = 0.06 % ... as in docs/formats.md#timeline. */
    T_CHECK(strstr(m, "| IDLE | 124 | 0.6 % | 992 | 0.1 % |\n") != NULL);
    T_CHECK(strstr(m, "| EXEC | 7380 | 36.3 % | 795648 | 49.7 % |\n") != NULL);
    T_CHECK(strstr(m, "| WAIT | 11644 | 57.3 % | 465108 | 29.0 % |\n") != NULL);
    T_CHECK(strstr(m, "| STALL | 1156 | 5.7 % | 340436 | 21.2 % |\n") != NULL);
    T_CHECK(strstr(m, "| **total** | 20304 | 100.0 % | 1602184 | 100.0 % |\n") != NULL);
    T_CHECK(strstr(m, "| EMPTY |") == NULL);     /* zero everywhere: not shown */
    T_CHECK(strstr(m, "- small: 4 waves, 4 with a timeline; clipped to the waves' `[begin, end)` the total is 20300 cycles (4 past the wave ends removed: WAIT 4).\n") != NULL);
    T_CHECK(strstr(m, "- big: 32 waves, 32 with a timeline; clipped to the waves' `[begin, end)` the total is 1602124 cycles (60 past the wave ends removed: WAIT 60).\n") != NULL);
    /* Only big has more than one SE. se0: 500+400000+200000+99500 = 700000. */
    T_CHECK(strstr(m, "### Per SE and SIMD — big\n") != NULL);
    T_CHECK(strstr(m, "### Per SE and SIMD — small") == NULL);
    T_CHECK(strstr(m, "| scope | waves | IDLE | EXEC | WAIT | STALL | cycles |\n") != NULL);
    T_CHECK(strstr(m, "| SE 0 | 16 | 0.1 % | 57.1 % | 28.6 % | 14.2 % | 700000 |\n") != NULL);
    T_CHECK(strstr(m, "| SIMD 1 | 16 | n/a | n/a | n/a | n/a | 0 |\n") != NULL);
    /* docs/stalls.md#issue-stall-and-idle: 7268/20308 = 35.8 %, 690400/1602196 = 43.1 % ... */
    T_CHECK(strstr(m, "| part | small cycles | small share | big cycles | big share |\n") != NULL);
    T_CHECK(strstr(m, "| issue | 7268 | 35.8 % | 690400 | 43.1 % |\n") != NULL);
    T_CHECK(strstr(m, "| stall | 11820 | 58.2 % | 791816 | 49.4 % |\n") != NULL);
    T_CHECK(strstr(m, "| idle | 1220 | 6.0 % | 119980 | 7.5 % |\n") != NULL);
    T_CHECK(strstr(m, "| **total** | 20308 | 100.0 % | 1602196 | 100.0 % |\n") != NULL);
    if (t_failed)
        fputs(m, stderr);
    kr_buf_free(&md);
    rep_doc_free(d);

    /* A state value outside the enum shows the OTHER row. */
    an_states odd;
    memset(&odd, 0, sizeof odd);
    odd.all.raw[AN_STATE_OTHER] = 5;
    odd.all.raw_total = 5;
    const an_states *ro[] = {&odd};
    d = rep_doc_new();
    rep_md_states(d, ro, NULL, 1);
    kr_buf_init(&md);
    rep_doc_markdown(d, &md);
    T_CHECK(strstr(kr_buf_cstr(&md), "| OTHER | 5 | 100.0 % |\n") != NULL);
    T_CHECK(strstr(kr_buf_cstr(&md), "| state | capture 1 cycles | capture 1 share |\n") != NULL);
    kr_buf_free(&md);
    rep_doc_free(d);

    /* JSON: exactly the declared keys, integers for cycles. */
    json_t *j = rep_json_states(&big);
    static const char *const top[] = {"waves", "waves_with_timeline", "timeline_entries", "overall",
                                      "per_se", "per_simd", "per_se_simd", "activity", NULL};
    T_CHECK(has_keys(j, top));
    json_t *ov = json_object_get(j, "overall");
    static const char *const ovk[] = {"waves", "raw", "clipped", "raw_share", "clipped_share", NULL};
    T_CHECK(has_keys(ov, ovk));
    static const char *const sk[] = {"EMPTY", "IDLE", "EXEC", "WAIT", "STALL", "OTHER", "total", NULL};
    T_CHECK(has_keys(json_object_get(ov, "raw"), sk));
    T_CHECK(has_keys(json_object_get(ov, "clipped"), sk));
    static const char *const shk[] = {"EMPTY", "IDLE", "EXEC", "WAIT", "STALL", "OTHER", NULL};
    T_CHECK(has_keys(json_object_get(ov, "raw_share"), shk));
    json_t *exec = json_object_get(json_object_get(ov, "raw"), "EXEC");
    T_CHECK(json_is_integer(exec));
    T_EQ_I64(json_integer_value(exec), 795648);
    T_EQ_I64(json_integer_value(json_object_get(json_object_get(ov, "clipped"), "total")), 1602124);
    T_NEAR(json_real_value(json_object_get(json_object_get(ov, "raw_share"), "EXEC")),
           795648.0 / 1602184.0, 1e-12);
    json_t *pse = json_object_get(j, "per_se");
    T_EQ_U64(json_array_size(pse), 2);
    static const char *const sek[] = {"waves", "raw", "clipped", "se", NULL};
    T_CHECK(has_keys(json_array_get(pse, 1), sek));
    T_EQ_I64(json_integer_value(json_object_get(json_array_get(pse, 1), "se")), 1);
    static const char *const simk[] = {"waves", "raw", "clipped", "simd", NULL};
    T_CHECK(has_keys(json_array_get(json_object_get(j, "per_simd"), 0), simk));
    T_EQ_U64(json_array_size(json_object_get(j, "per_se_simd")), 0);
    json_t *act = json_object_get(j, "activity");
    static const char *const ak[] = {"rows", "issue", "stall", "idle", "active", "total",
                                     "issue_share", "stall_share", "idle_share", NULL};
    T_CHECK(has_keys(act, ak));
    T_EQ_I64(json_integer_value(json_object_get(act, "issue")), 690400);
    T_EQ_I64(json_integer_value(json_object_get(act, "total")), 1602196);
    json_decref(j);

    /* Zero totals: shares are null. */
    j = rep_json_states(&odd);
    T_CHECK(json_is_null(json_object_get(json_object_get(j, "activity"), "stall_share")));
    T_CHECK(json_is_null(json_object_get(json_object_get(json_object_get(j, "overall"), "clipped_share"), "IDLE")));
    json_decref(j);
    return t_done("test_rep_states");
}
