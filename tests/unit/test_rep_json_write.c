/* test_rep_json_write.c — report/json_dump.h's streaming writer (rep_jw).
 *
 * 1. A hand-written document: the exact text of text mode, and the same
 *    bytes from json_dumps of what tree mode builds.
 * 2. The jansson behaviour each call stands for, against the jansson calls
 *    themselves: NaN and infinities drop the member (json_real returns
 *    NULL), rep_jw_sym drops NULL and invalid UTF-8 (json_string), rep_jw_str
 *    writes "" for NULL and '?' for bytes of invalid UTF-8 (rep_jstr), a NULL
 *    or invalid key drops the member and a container's whole contents,
 *    keys inside arrays are ignored, unsigned values clamp at INT64_MAX.
 * 3. Random call sequences run in both modes: text == json_dumps(tree).
 * 4. The hub captures: every section's text equals the dump of its tree,
 *    and the whole analysis.json equals json_dumps(json_loads(itself))
 *    (jansson re-reads and re-writes every number and string). */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "bundle/capture.h"
#include "report/json_dump.h"
#include "report/report.h"
#include "report/sections.h"
#include "report/util.h"
#include "tests/unit/t.h"

#define FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10))

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void)
{
    uint64_t x = rng_state;     /* xorshift64*, fixed seed: deterministic */
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* A description run on a writer (either mode). */
typedef void (*describe_fn)(rep_jw *w, void *ctx);

/* Text mode output as a malloc'd string; *rc from rep_jw_text_end. */
static char *text_of(describe_fn f, void *ctx, int *rc)
{
    kr_buf b;
    kr_buf_init(&b);
    rep_jw *w = malloc(sizeof *w);
    rep_jw_text(w, &b);
    f(w, ctx);
    *rc = rep_jw_text_end(w);
    free(w);
    char *s = strdup(b.data ? b.data : "");
    kr_buf_free(&b);
    return s;
}

static json_t *tree_of(describe_fn f, void *ctx)
{
    rep_jw *w = malloc(sizeof *w);
    rep_jw_tree(w);
    f(w, ctx);
    json_t *v = rep_jw_tree_end(w);
    free(w);
    return v;
}

/* 1 when text mode and json_dumps(tree mode) give the same bytes. */
static int modes_agree(describe_fn f, void *ctx, const char *label)
{
    int rc;
    char *text = text_of(f, ctx, &rc);
    json_t *tree = tree_of(f, ctx);
    char *ref = tree ? json_dumps(tree, FLAGS) : NULL;
    int ok = rc == 0 && ref && strcmp(text, ref) == 0;
    if (!ok) {
        size_t i = 0;
        while (ref && text[i] && text[i] == ref[i])
            i++;
        fprintf(stderr, "%s: rc %d, first difference at %zu: text \"%.60s\" / tree \"%.60s\"\n", label, rc,
                i, text + i, ref ? ref + i : "(null)");
    }
    free(text);
    free(ref);
    json_decref(tree);
    return ok;
}

/* ---- 1 ---- */

static void hand_doc(rep_jw *w, void *ctx)
{
    (void)ctx;
    rep_jw_obj(w, NULL);
    rep_jw_str(w, "name", "a\"b\\c\n\x01/\xc3\xa9");
    rep_jw_int(w, "neg", -42);
    rep_jw_uint(w, "big", UINT64_MAX);            /* rep_jint clamps */
    rep_jw_real(w, "ratio", 0.25);
    rep_jw_real(w, "whole", 3.0);
    rep_jw_real(w, "tiny", 1.5e-7);
    rep_jw_share(w, "share", 1, 3);
    rep_jw_share(w, "none", 1, 0);
    rep_jw_bool(w, "yes", 1);
    rep_jw_null(w, "nothing");
    rep_jw_arr(w, "empty");
    rep_jw_end(w);
    rep_jw_obj(w, "obj");
    rep_jw_end(w);
    rep_jw_arr(w, "list");
    rep_jw_uint(w, "ignored key", 7);
    rep_jw_obj(w, NULL);
    rep_jw_sym(w, "k", "v");
    rep_jw_end(w);
    rep_jw_end(w);
    rep_jw_json(w, "embedded", json_pack("{s:[i,s]}", "x", 1, "y"));
    rep_jw_end(w);
}

static void test_hand_written(void)
{
    int rc;
    char *got = text_of(hand_doc, NULL, &rc);
    T_EQ_I64(rc, 0);
    /* 1/3 to 10 significant digits is 0.3333333333; 1.5e-7 < 1e-4 takes
     * the exponent form without '+' and leading zeros */
    T_EQ_STR(got,
        "{\n"
        "  \"name\": \"a\\\"b\\\\c\\n\\u0001/\xc3\xa9\",\n"
        "  \"neg\": -42,\n"
        "  \"big\": 9223372036854775807,\n"
        "  \"ratio\": 0.25,\n"
        "  \"whole\": 3.0,\n"
        "  \"tiny\": 1.5e-7,\n"
        "  \"share\": 0.3333333333,\n"
        "  \"none\": null,\n"
        "  \"yes\": true,\n"
        "  \"nothing\": null,\n"
        "  \"empty\": [],\n"
        "  \"obj\": {},\n"
        "  \"list\": [\n"
        "    7,\n"
        "    {\n"
        "      \"k\": \"v\"\n"
        "    }\n"
        "  ],\n"
        "  \"embedded\": {\n"
        "    \"x\": [\n"
        "      1,\n"
        "      \"y\"\n"
        "    ]\n"
        "  }\n"
        "}");
    free(got);
    T_CHECK(modes_agree(hand_doc, NULL, "hand"));
}

/* ---- 2 ---- */

static void edge_doc(rep_jw *w, void *ctx)
{
    (void)ctx;
    rep_jw_obj(w, NULL);
    rep_jw_real(w, "nan", NAN);
    rep_jw_real(w, "inf", INFINITY);
    rep_jw_real(w, "minf", -INFINITY);
    rep_jw_sym(w, "sym_null", NULL);
    rep_jw_sym(w, "sym_bad", "x\xff");
    rep_jw_str(w, "str_null", NULL);
    rep_jw_str(w, "str_bad", "a\xc3\xa9\xff\xe2\x82");     /* every high byte, even the valid ones */
    rep_jw_str(w, "str_ok", "\xe2\x82\xac");
    rep_jw_int(w, NULL, 1);
    rep_jw_int(w, "k\xc0\x80", 2);
    rep_jw_obj(w, NULL);                          /* dropped with its contents */
    rep_jw_int(w, "inner", 3);
    rep_jw_arr(w, "deeper");
    rep_jw_int(w, NULL, 4);
    rep_jw_end(w);
    rep_jw_end(w);
    rep_jw_arr(w, "a");
    rep_jw_real(w, NULL, NAN);
    rep_jw_sym(w, NULL, "\xff");
    rep_jw_str(w, NULL, "\xff");
    rep_jw_int(w, NULL, INT64_MIN);
    rep_jw_uint(w, NULL, (uint64_t)INT64_MAX + 1);
    rep_jw_json(w, NULL, NULL);
    rep_jw_end(w);
    rep_jw_int(w, "last", 5);
    rep_jw_end(w);
}

/* The same document through the jansson calls the writer stands for. */
static json_t *edge_jansson(void)
{
    json_t *o = json_object();
    json_object_set_new(o, "nan", json_real(NAN));
    json_object_set_new(o, "inf", json_real(INFINITY));
    json_object_set_new(o, "minf", json_real(-INFINITY));
    json_object_set_new(o, "sym_null", json_string(NULL));
    json_object_set_new(o, "sym_bad", json_string("x\xff"));
    json_object_set_new(o, "str_null", rep_jstr(NULL));
    json_object_set_new(o, "str_bad", rep_jstr("a\xc3\xa9\xff\xe2\x82"));
    json_object_set_new(o, "str_ok", rep_jstr("\xe2\x82\xac"));
    json_object_set_new(o, "k\xc0\x80", json_integer(2));
    json_t *a = json_array();
    json_array_append_new(a, json_real(NAN));
    json_array_append_new(a, json_string("\xff"));
    json_array_append_new(a, rep_jstr("\xff"));
    json_array_append_new(a, json_integer(INT64_MIN));
    json_array_append_new(a, rep_jint((uint64_t)INT64_MAX + 1));
    json_object_set_new(o, "a", a);
    json_object_set_new(o, "last", json_integer(5));
    return o;
}

static void test_edges(void)
{
    int rc;
    char *got = text_of(edge_doc, NULL, &rc);
    T_EQ_I64(rc, 0);
    T_EQ_STR(got,
        "{\n"
        "  \"str_null\": \"\",\n"
        "  \"str_bad\": \"a?????\",\n"
        "  \"str_ok\": \"\xe2\x82\xac\",\n"
        "  \"a\": [\n"
        "    \"?\",\n"
        "    -9223372036854775808,\n"
        "    9223372036854775807\n"
        "  ],\n"
        "  \"last\": 5\n"
        "}");
    json_t *ref = edge_jansson();
    char *want = json_dumps(ref, FLAGS);
    T_EQ_STR(got, want);
    free(want);
    json_decref(ref);
    free(got);
    T_CHECK(modes_agree(edge_doc, NULL, "edges"));

    /* unbalanced or too deep: text mode reports failure */
    kr_buf b;
    kr_buf_init(&b);
    rep_jw *w = malloc(sizeof *w);
    rep_jw_text(w, &b);
    rep_jw_arr(w, NULL);
    T_EQ_I64(rep_jw_text_end(w), -1);
    rep_jw_text(w, &b);
    for (int i = 0; i < REP_JW_DEPTH + 2; i++)
        rep_jw_arr(w, NULL);
    for (int i = 0; i < REP_JW_DEPTH + 2; i++)
        rep_jw_end(w);
    T_EQ_I64(rep_jw_text_end(w), -1);
    free(w);
    kr_buf_free(&b);
}

/* ---- 3 ---- */

static const char *random_string(char *buf)
{
    static const char *const pieces[] = {"a", "Z", "0", " ", "/", "\"", "\\", "\n", "\t", "\x01", "\x7f",
        "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xff", "\xc0\x80", "\xed\xa0\x80", "_", "key"};
    size_t n = rng() % 6, k = 0;
    for (size_t i = 0; i < n; i++) {
        const char *p = pieces[rng() % (sizeof pieces / sizeof pieces[0])];
        size_t m = strlen(p);
        memcpy(buf + k, p, m);
        k += m;
    }
    buf[k] = '\0';
    return buf;
}

static double random_real(void)
{
    uint64_t bits = rng();
    double d;
    switch (rng() % 5) {
    case 0: memcpy(&d, &bits, sizeof d); return d;          /* any double, NaN included */
    case 1: return (double)(bits % 1000000) / (double)(1 + rng() % 1000);
    case 2: return (double)(int64_t)(bits % 100000000000ull) - 5e10;
    case 3: return pow(10.0, (double)((int)(bits % 60) - 30)) * (1 + (double)(rng() % 9));
    default: return rng() % 2 ? NAN : -INFINITY;
    }
}

/* A random member (key may be NULL or not UTF-8; never repeated, as tree
 * mode would replace the earlier member). */
static unsigned key_serial;

static void random_value(rep_jw *w, int depth)
{
    char kb[64], sb[64], kn[80];
    snprintf(kn, sizeof kn, "%u%s", key_serial++, random_string(kb));
    const char *key = rng() % 16 == 0 ? NULL : kn;
    switch (rng() % (depth > 5 ? 8 : 10)) {
    case 0: rep_jw_null(w, key); break;
    case 1: rep_jw_bool(w, key, (int)(rng() % 2)); break;
    case 2: {
        static const int64_t edge[] = {0, -1, 1, INT64_MAX, INT64_MIN, 9, 10, 99, 100, -100, 999999999999};
        rep_jw_int(w, key, rng() % 2 ? (int64_t)rng() : edge[rng() % 11]);
        break;
    }
    case 3: rep_jw_uint(w, key, rng() % 2 ? rng() : rng() % 1000); break;
    case 4: rep_jw_real(w, key, random_real()); break;
    case 5: rep_jw_str(w, key, rng() % 8 ? random_string(sb) : NULL); break;
    case 6: rep_jw_sym(w, key, rng() % 8 ? random_string(sb) : NULL); break;
    case 7: rep_jw_share(w, key, rng() % 100, rng() % 3 ? rng() % 1000 : 0); break;
    case 8:
    case 9: {
        if (rng() % 2)
            rep_jw_obj(w, key);
        else
            rep_jw_arr(w, key);
        for (size_t n = rng() % 5; n > 0; n--)
            random_value(w, depth + 1);
        rep_jw_end(w);
        break;
    }
    }
}

static void random_doc(rep_jw *w, void *ctx)
{
    uint64_t seed = *(uint64_t *)ctx;
    uint64_t keep = rng_state;
    rng_state = seed;
    key_serial = 0;
    if (seed % 2)
        rep_jw_obj(w, NULL);
    else
        rep_jw_arr(w, NULL);
    for (size_t n = 1 + rng() % 8; n > 0; n--)
        random_value(w, 1);
    rep_jw_end(w);
    rng_state = keep;
}

static void test_random(void)
{
    size_t same = 0, runs = 4000;
    for (size_t i = 0; i < runs; i++) {
        uint64_t seed = (rng() & ~1ull) | (i % 2);
        char label[32];
        snprintf(label, sizeof label, "random %zu", i);
        same += (size_t)modes_agree(random_doc, &seed, label);
    }
    T_EQ_U64(same, runs);
}

/* ---- 4 ---- */

static const char *const hub_dirs[] = {
    "examples/pa_mqa_logits_fp4/att_viewer/small/ui_output_agent_32435_dispatch_197",
    "examples/pa_mqa_logits_fp4/att_viewer/big/ui_output_agent_55351_dispatch_426",
    "examples/flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44",
    "examples/flash_attn_func/att_viewer/small/ui_output_agent_58550_dispatch_44_after_loc_fix",
};

enum { S_STATES, S_CLASSES, S_STALLS, S_HOTSPOTS, S_WAITS, S_HIDDEN, S_PHASES, S_SOURCES, S_OCCUPANCY,
       S_ADVICE, S_ROOFLINE, S_COUNTERS, S_SATURATION, S_COUNT };

typedef struct section { const an_analysis *a; int which; } section;

static void section_doc(rep_jw *w, void *ctx)
{
    const section *s = ctx;
    const an_analysis *a = s->a;
    switch (s->which) {
    case S_STATES: rep_jw_states(w, NULL, &a->states); break;
    case S_CLASSES: rep_jw_classes(w, NULL, &a->classes); break;
    case S_STALLS: rep_jw_stalls(w, NULL, &a->stalls); break;
    case S_HOTSPOTS: rep_jw_hotspots(w, NULL, &a->hotspots); break;
    case S_WAITS: rep_jw_waits(w, NULL, &a->waits); break;
    case S_HIDDEN: rep_jw_hidden(w, NULL, &a->hidden); break;
    case S_PHASES: rep_jw_phases(w, NULL, &a->phases); break;
    case S_SOURCES: rep_jw_sources(w, NULL, &a->sources); break;
    case S_OCCUPANCY: rep_jw_occupancy(w, NULL, &a->occupancy); break;
    case S_ADVICE: rep_jw_advice(w, NULL, &a->advice); break;
    case S_ROOFLINE: rep_jw_roofline(w, NULL, &a->roofline); break;
    case S_COUNTERS: rep_jw_counters(w, NULL, &a->counters); break;
    case S_SATURATION: rep_jw_saturation(w, NULL, &a->saturation); break;
    }
}

static void test_hub(const char *hub)
{
    for (size_t ci = 0; ci < sizeof hub_dirs / sizeof hub_dirs[0]; ci++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", hub, hub_dirs[ci]);
        bundle_opts o = {.threads = 2};
        kr_capture *c = NULL;
        kr_err err;
        int rc = bundle_capture_load(dir, &o, &c, &err);
        T_EQ_I64(rc, 0);
        if (rc)
            continue;
        an_analysis_opts ao = {.top = 10, .threads = 1, .context = 4};
        an_analysis a;
        rc = an_analyze(c, &ao, &a);
        T_EQ_I64(rc, 0);
        if (rc) {
            bundle_capture_free(c);
            continue;
        }
        for (int s = 0; s < S_COUNT; s++) {
            section sec = {&a, s};
            char label[64];
            snprintf(label, sizeof label, "capture %zu section %d", ci, s);
            T_CHECK(modes_agree(section_doc, &sec, label));
        }
        const an_analysis *ap = &a;
        const char *label = "big";
        rep_meta meta = {.input = "in", .example = NULL, .rerun = NULL};
        kr_buf out;
        kr_buf_init(&out);
        T_EQ_I64(rep_analysis_json(&ap, &label, 1, &meta, &out), 0);
        json_error_t je;
        json_t *doc = json_loadb(out.data, out.len, 0, &je);
        T_CHECK(doc != NULL);
        char *again = doc ? json_dumps(doc, FLAGS) : NULL;
        T_CHECK(again && strlen(again) + 1 == out.len && strncmp(again, out.data, out.len - 1) == 0);
        T_CHECK(json_is_object(json_object_get(doc, "hotspots")));
        free(again);
        json_decref(doc);
        kr_buf_free(&out);
        an_analysis_free(&a);
        bundle_capture_free(c);
    }
}

int main(void)
{
    test_hand_written();
    test_edges();
    test_random();
    const char *hub = t_hub();
    if (hub)
        test_hub(hub);
    else
        printf("test_rep_json_write: hub fixture not found, hub part skipped\n");
    return t_done("test_rep_json_write");
}
