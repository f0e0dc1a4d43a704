/* test_load_realtime.c — realtime.json (docs/formats.md#realtime-samples): 64-bit samples, the
 * measured clock (docs/formats.md#clock) and kreport's canonical SE alignment (docs/formats.md#se-alignment). */
#include <string.h>

#include "bundle/load_realtime.h"
#include "bundle/model.h"
#include "common/file.h"
#include "tests/unit/t.h"

static kr_capture *cap_new(void)
{
    kr_capture *c = calloc(1, sizeof *c);
    kr_arena_init(&c->arena);
    return c;
}

static void cap_free(kr_capture *c)
{
    kr_arena_free(&c->arena);
    free(c);
}

static kr_capture *parse_ok(const char *json)
{
    kr_capture *c = cap_new();
    kr_err err;
    kr_err_clear(&err);
    int rc = bundle_parse_realtime(c, json, strlen(json), "realtime.json", &err);
    T_EQ_I64(rc, 0);
    if (rc)
        fprintf(stderr, "  %s: %s\n", err.where, err.msg);
    return c;
}

static void expect_err(const char *json, const char *where, const char *msg)
{
    kr_capture *c = cap_new();
    kr_err err;
    kr_err_clear(&err);
    T_EQ_I64(bundle_parse_realtime(c, json, strlen(json), "realtime.json", &err), KR_INPUT);
    T_EQ_STR(err.file, "realtime.json");
    T_EQ_STR(err.where, where);
    T_EQ_STR(err.msg, msg);
    cap_free(c);
}

/* The docs/formats.md#realtime-samples example (two SEs). */
static void test_example(void)
{
    kr_capture *c = parse_ok(
        "{\"SE1\":[[6176,201188776746001],[201296,201188776754817]],"
        "\"SE0\":[[6932,201188776746001],[202052,201188776754817]],"
        "\"other\":5,"
        "\"metadata\":{\"descriptor\":\"[gfx_clock, realtime_clock]\",\"frequency\":100000000}}");
    const kr_realtime *rt = &c->realtime;
    T_EQ_U64(rt->present, 1);
    T_EQ_U64(rt->frequency, 100000000);
    T_EQ_STR(rt->descriptor, "[gfx_clock, realtime_clock]");
    T_EQ_U64(rt->nses, 2);
    T_EQ_U64(rt->ses[0].se, 0);
    T_EQ_U64(rt->ses[0].n, 2);
    T_EQ_U64(rt->ses[0].samples[1].shader, 202052);
    T_EQ_U64(rt->ses[0].samples[1].realtime, 201188776754817ull);   /* > 2^47, exact */
    T_EQ_U64(rt->ses[1].se, 1);
    /* S = (202052-6932) + (201296-6176) = 390240; R = 2 * 8816 = 17632 */
    T_NEAR(rt->clock_hz, 390240.0 * 1e8 / 17632.0, 1e-3);
    /* Equal lo.rc: offset = lo.sc(anchor) - lo.sc(SE) = 6932 - 6176. */
    T_EQ_U64(rt->aligned, 1);
    T_EQ_I64(rt->se_offset[0], 0);
    T_EQ_I64(rt->se_offset[1], 756);
    cap_free(c);
}

/* k = R/S = 2 exactly; origins 80 (SE0), 81 (SE1), 75 (SE2). */
static void test_rounding(void)
{
    kr_capture *c = parse_ok(
        "{\"SE0\":[[20,120],[10,100]],\"SE1\":[[10,101],[20,121]]}");
    const kr_realtime *rt = &c->realtime;
    T_EQ_U64(rt->frequency, 0);
    T_NEAR(rt->clock_hz, 0.0, 0.0);          /* no frequency: unknown */
    T_EQ_U64(rt->aligned, 1);
    T_EQ_I64(rt->se_offset[0], 0);           /* anchor: origin 80 */
    T_EQ_I64(rt->se_offset[1], 1);           /* (81-80)/2 = 0.5 rounds away from zero */
    cap_free(c);

    c = parse_ok(
        "{\"SE0\":[[10,100],[20,120]],\"SE1\":[[10,101],[20,121]],\"SE2\":[[10,95],[20,115]],"
        "\"metadata\":{\"frequency\":1000}}");
    rt = &c->realtime;
    /* S = 30, R = 60: 30 * 1000 / 60 = 500 Hz */
    T_NEAR(rt->clock_hz, 500.0, 1e-9);
    T_EQ_U64(rt->aligned, 1);
    T_EQ_I64(rt->se_offset[2], 0);           /* anchor: origin 75 */
    T_EQ_I64(rt->se_offset[0], 3);           /* (80-75)/2 = 2.5 -> 3 */
    T_EQ_I64(rt->se_offset[1], 3);           /* (81-75)/2 = 3 */
    cap_free(c);

    /* Equal origins: the lowest SE is the anchor. */
    c = parse_ok("{\"SE3\":[[10,100],[20,120]],\"SE1\":[[10,100],[20,120]]}");
    T_EQ_U64(c->realtime.aligned, 1);
    T_EQ_I64(c->realtime.se_offset[1], 0);
    T_EQ_I64(c->realtime.se_offset[3], 0);
    cap_free(c);
}

static void test_no_alignment(void)
{
    /* One SE: a clock but no alignment. */
    kr_capture *c = parse_ok("{\"SE0\":[[10,100],[20,120]],\"metadata\":{\"frequency\":100}}");
    T_NEAR(c->realtime.clock_hz, 50.0, 1e-9);
    T_EQ_U64(c->realtime.aligned, 0);
    cap_free(c);
    /* Shader clock not advancing: no k. */
    c = parse_ok("{\"SE0\":[[10,100],[10,120]],\"SE1\":[[10,100]]}");
    T_EQ_U64(c->realtime.aligned, 0);
    T_NEAR(c->realtime.clock_hz, 0.0, 0.0);
    cap_free(c);
    /* null samples read as none. */
    c = parse_ok("{\"SE0\":null,\"metadata\":{}}");
    T_EQ_U64(c->realtime.present, 1);
    T_EQ_U64(c->realtime.nses, 1);
    T_EQ_U64(c->realtime.ses[0].n, 0);
    T_EQ_U64(c->realtime.aligned, 0);
    cap_free(c);
    /* 2^53 + 1 and 2^63 - 1 survive (no double on the way). */
    c = parse_ok("{\"SE0\":[[9007199254740993,9223372036854775807]]}");
    T_EQ_U64(c->realtime.ses[0].samples[0].shader, 9007199254740993ull);
    T_EQ_U64(c->realtime.ses[0].samples[0].realtime, 9223372036854775807ull);
    cap_free(c);
}

static void test_errors(void)
{
    expect_err("{\"SE0\":[[10,100]],\"SE1\":[[10,-5]]}", "$.SE1[0][1]",
               "expected a non-negative integer, found -5");
    expect_err("{\"SE0\":[[10.5,100]]}", "$.SE0[0][0]",
               "expected a non-negative integer, found a real number");
    expect_err("{\"SE0\":[[10,100,3]]}", "$.SE0[0]",
               "expected a sample [shader_clock, realtime_clock], found an array of 3 elements");
    expect_err("{\"SE0\":{}}", "$.SE0", "expected an array, found an object");
    expect_err("{\"SE64\":[]}", "$", "key \"SE64\": SE number exceeds KR_MAX_SE (64)");
    expect_err("{\"SE1\":[],\"SE01\":[]}", "$", "SE1 appears twice (keys with leading zeros?)");
    expect_err("{\"metadata\":{\"frequency\":\"100\"}}", "$.metadata.frequency",
               "expected a non-negative integer, found a string");
    expect_err("{\"metadata\":[]}", "$.metadata", "expected an object, found an array");
    /* 2^63: column 30 is the last digit */
    expect_err("{\"SE0\":[[1,9223372036854775808]]}", "$.SE0[0][1]",
               "invalid JSON: too big integer near '9223372036854775808' (line 1, column 30)");
}

/* docs/formats.md: clocks and SE offsets on the four hub captures. */
static void test_hub(void)
{
    const char *hub = t_hub();
    if (!hub) {
        printf("test_load_realtime: hub fixtures absent, skipping the hub part\n");
        return;
    }
    static const struct { const char *dir; double mhz; } caps[] = {
        {"pa_mqa_logits_fp4/att_viewer/small/ui_output_agent_32435_dispatch_197", 2213.25},
        {"pa_mqa_logits_fp4/att_viewer/big/ui_output_agent_55351_dispatch_426", 2147.61},
        {"flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44", 2188.95},
        {"flash_attn_func/att_viewer/small/ui_output_agent_58550_dispatch_44_after_loc_fix", 2190.93},
    };
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/examples/%s/realtime.json", hub, caps[i].dir);
        char *data;
        size_t len;
        kr_err err;
        T_EQ_I64(kr_file_read(path, 1 << 20, &data, &len, &err), 0);
        kr_capture *c = cap_new();
        T_EQ_I64(bundle_parse_realtime(c, data, len, path, &err), 0);
        free(data);
        const kr_realtime *rt = &c->realtime;
        T_EQ_U64(rt->nses, 4);
        T_EQ_U64(rt->frequency, 100000000);
        T_NEAR(rt->clock_hz / 1e6, caps[i].mhz, 0.005);
        T_EQ_U64(rt->aligned, 1);
        T_EQ_I64(rt->se_offset[0], 0);
        T_EQ_I64(rt->se_offset[1], 756);
        T_EQ_I64(rt->se_offset[2], 1508);
        T_EQ_I64(rt->se_offset[3], 2212);
        cap_free(c);
    }
}

int main(void)
{
    test_example();
    test_rounding();
    test_no_alignment();
    test_errors();
    test_hub();
    return t_done("test_load_realtime");
}
