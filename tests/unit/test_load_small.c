/* test_load_small.c — filenames.json (docs/formats.md#wave-index), wstates<k>.json (docs/formats.md#wave-state-curves) and
 * occupancy.json (docs/formats.md#occupancy-events) loaders, from hand-written JSON; then the streaming
 * occupancy parser against its jansson reference on every hub
 * occupancy.json and many mutated inputs (same model, or the same error). */
#include <glob.h>
#include <string.h>

#include "bundle/load_filenames.h"
#include "bundle/load_occupancy.h"
#include "bundle/load_wstates.h"
#include "bundle/model.h"
#include "common/file.h"
#include "common/limits.h"
#include "tests/unit/jdiff.h"
#include "tests/unit/t.h"

typedef int (*parse_fn)(kr_capture *, const char *, size_t, const char *, kr_err *);

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

static void expect_err(parse_fn fn, const char *fname, const char *json, const char *where, const char *msg)
{
    kr_capture *c = cap_new();
    kr_err err;
    kr_err_clear(&err);
    T_EQ_I64(fn(c, json, strlen(json), fname, &err), KR_INPUT);
    T_EQ_STR(err.file, fname);
    T_EQ_STR(err.where, where);
    T_EQ_STR(err.msg, msg);
    cap_free(c);
}

static int parse_ws2(kr_capture *c, const char *d, size_t n, const char *f, kr_err *e)
{
    return bundle_parse_wstates(c, 2, d, n, f, e);
}

static void test_filenames(void)
{
    /* Keys deliberately out of order: wave_refs come out sorted by
     * (se, simd, slot, id), numerically (10 after 2). */
    const char *json =
        "{\"counter_names\":[\"SQ_WAVES\",\"SQ_BUSY_CYCLES:0x3\"],\"gfxip\":9,\"gfxv\":\"vega\","
        "\"global_begin_time\":0,\"version\":\"3.0.0\",\"wave_filenames\":{"
        "\"3\":{\"0\":{\"0\":{\"0\":[\"se3_sm0_sl0_wv0.json\",105320,159980]}}},"
        "\"2\":{\"10\":{\"0\":{\"0\":[\"se2_sm10_sl0_wv0.json\",5,6]}},"
        "\"2\":{\"1\":{\"1\":[\"se2_sm2_sl1_wv1.json\",30,40],\"0\":[\"se2_sm2_sl1_wv0.json\",10,20]}}}},"
        "\"pc_sampling\":false,\"unknown_key\":{\"x\":1}}";
    kr_capture *c = cap_new();
    kr_err err;
    T_EQ_I64(bundle_parse_filenames(c, json, strlen(json), "filenames.json", &err), 0);
    T_EQ_STR(c->version, "3.0.0");
    T_EQ_I64(c->gfxip, 9);
    T_EQ_STR(c->gfxv, "vega");
    T_EQ_U64(c->ncounter_names, 2);
    T_EQ_STR(c->counter_names[1], "SQ_BUSY_CYCLES:0x3");
    T_EQ_U64(c->wave_filenames_null, 0);
    T_EQ_U64(c->nwave_refs, 4);
    if (c->nwave_refs == 4) {
        const kr_wave_ref *r = c->wave_refs;
        T_EQ_STR(r[0].file, "se2_sm2_sl1_wv0.json");
        T_EQ_U64(r[0].se, 2); T_EQ_U64(r[0].simd, 2); T_EQ_U64(r[0].slot, 1); T_EQ_U64(r[0].id, 0);
        T_EQ_U64(r[0].begin, 10); T_EQ_U64(r[0].end, 20);
        T_EQ_STR(r[1].file, "se2_sm2_sl1_wv1.json");
        T_EQ_U64(r[1].id, 1);
        T_EQ_STR(r[2].file, "se2_sm10_sl0_wv0.json");
        T_EQ_U64(r[2].simd, 10);
        T_EQ_STR(r[3].file, "se3_sm0_sl0_wv0.json");
        T_EQ_U64(r[3].begin, 105320); T_EQ_U64(r[3].end, 159980);
    }
    cap_free(c);

    /* Empty shell (docs/formats.md#capture-files): null reads as empty; gfxip defaults to 9. */
    c = cap_new();
    const char *shell = "{\"wave_filenames\":null,\"thread_trace\":true,\"other_simd_filenames\":{\"0\":[]}}";
    T_EQ_I64(bundle_parse_filenames(c, shell, strlen(shell), "filenames.json", &err), 0);
    T_EQ_U64(c->wave_filenames_null, 1);
    T_EQ_U64(c->nwave_refs, 0);
    T_EQ_I64(c->gfxip, 9);
    T_CHECK(c->version == NULL);
    cap_free(c);

    expect_err(bundle_parse_filenames, "f.json", "{\"gfxip\":9}", "$", "missing key \"wave_filenames\"");
    expect_err(bundle_parse_filenames, "f.json", "{\"gfxip\":\"9\",\"wave_filenames\":null}", "$.gfxip",
               "expected an integer, found a string");
    expect_err(bundle_parse_filenames, "f.json", "{\"wave_filenames\":{\"x\":{}}}", "$.wave_filenames",
               "key \"x\" is not a decimal SE number");
    expect_err(bundle_parse_filenames, "f.json", "{\"wave_filenames\":{\"1\":{\"0\":{\"-1\":{}}}}}",
               "$.wave_filenames.1.0", "key \"-1\" is not a decimal slot number");
    expect_err(bundle_parse_filenames, "f.json", "{\"wave_filenames\":{\"64\":{}}}", "$.wave_filenames",
               "SE number 64 exceeds KR_MAX_SE (64)");
    expect_err(bundle_parse_filenames, "f.json",
               "{\"wave_filenames\":{\"1\":{\"0\":{\"0\":{\"0\":[\"../se1.json\",1,2]}}}}}",
               "$.wave_filenames.1.0.0.0[0]",
               "wave file name \"../se1.json\" is not a plain file name inside the capture folder");
    expect_err(bundle_parse_filenames, "f.json",
               "{\"wave_filenames\":{\"1\":{\"0\":{\"0\":{\"0\":[\"..\",1,2]}}}}}",
               "$.wave_filenames.1.0.0.0[0]",
               "wave file name \"..\" is not a plain file name inside the capture folder");
    expect_err(bundle_parse_filenames, "f.json",
               "{\"wave_filenames\":{\"1\":{\"0\":{\"0\":{\"0\":[\"a.json\",1]}}}}}",
               "$.wave_filenames.1.0.0.0",
               "expected an array [file, begin, end], found an array of 2 elements");
    expect_err(bundle_parse_filenames, "f.json",
               "{\"wave_filenames\":{\"1\":{\"0\":{\"0\":{\"0\":[\"a.json\",1,2.5]}}}}}",
               "$.wave_filenames.1.0.0.0[2]", "expected a non-negative integer, found a real number");
    expect_err(bundle_parse_filenames, "f.json",
               "{\"wave_filenames\":{\"1\":{\"0\":[]}}}",
               "$.wave_filenames.1.0", "expected an object, found an array");
    /* duplicate key: column 29 is the closing quote of the second "1" */
    expect_err(bundle_parse_filenames, "f.json",
               "{\"wave_filenames\":{\"1\":{},\"1\":{}}}",
               "$.wave_filenames.1", "duplicate key \"1\" (line 1, column 29)");
    expect_err(bundle_parse_filenames, "f.json", "{\"wave_filenames\":null,\"counter_names\":[1]}",
               "$.counter_names[0]", "expected a string, found an integer");
    expect_err(bundle_parse_filenames, "f.json", "{\"wave_filenames\":null,\"pc_sampling\":1}",
               "$.pc_sampling", "expected a boolean, found an integer");
}

static void test_wstates(void)
{
    /* The docs/formats.md#wave-state-curves example. */
    const char *json = "{\"name\":\"wstates1.json\",\"state\":[1,2,3,4,3,2,1,0],"
                       "\"time\":[173024,173032,173036,173040,173056,173060,173068,173072]}";
    kr_capture *c = cap_new();
    kr_err err;
    T_EQ_I64(bundle_parse_wstates(c, 1, json, strlen(json), "wstates1.json", &err), 0);
    T_EQ_U64(c->wstates[1].present, 1);
    T_EQ_U64(c->wstates[0].present, 0);
    T_EQ_STR(c->wstates[1].name, "wstates1.json");
    T_EQ_U64(c->wstates[1].n, 8);
    T_EQ_I64(c->wstates[1].count[3], 4);
    T_EQ_I64(c->wstates[1].count[7], 0);
    T_EQ_U64(c->wstates[1].time[0], 173024);
    T_EQ_U64(c->wstates[1].time[7], 173072);
    cap_free(c);

    expect_err(parse_ws2, "w.json", "{\"name\":\"w\",\"state\":[1,0],\"time\":[5]}", "$",
               "\"state\" has 2 entries but \"time\" has 1");
    expect_err(parse_ws2, "w.json", "{\"name\":\"w\",\"state\":[1,0],\"time\":[5,-6]}", "1:37",
               "expected a non-negative integer in time[1]");
    expect_err(parse_ws2, "w.json", "{\"name\":\"w\",\"state\":[1,0.5],\"time\":[5,6]}", "1:24",
               "expected integer in state[1], found a real number");
    expect_err(parse_ws2, "w.json", "{\"name\":\"w\",\"time\":[5,6]}", "$", "missing key \"state\"");
    expect_err(parse_ws2, "w.json", "{\"name\":\"w\",\"state\":{},\"time\":[5,6]}", "1:21",
               "expected array in state, found '{'");
    expect_err(parse_ws2, "w.json", "{\"name\":\"w\",\"state\":[1],\"state\":[2],\"time\":[5]}", "1:24",
               "duplicate key \"state\"");
    expect_err(parse_ws2, "w.json", "{\"name\":\"w\",\"state\":[1,2", "1:25",
               "expected ',' or ']' in state, found end of input");
}

static void test_occupancy(void)
{
    const char *json =
        "{\"1\":[[173756,6,3,0,1,1],[173764,6,0,0,0,1]],"
        "\"0\":[[100,2,1,7,1,2,0,1,0,5,3]],"
        "\"dispatches\":{\"1\":\"pa_mqa_logits_fp4_kernel_0\",\"0\":\"0 / 0x0\"},"
        "\"version\":\"3.0.0\",\"events\":{\"0\":[{\"kind\":\"event\"}]}}";
    kr_capture *c = cap_new();
    kr_err err;
    T_EQ_I64(bundle_parse_occupancy(c, json, strlen(json), "occupancy.json", &err), 0);
    const kr_occupancy *o = &c->occupancy;
    T_EQ_U64(o->present, 1);
    T_EQ_STR(o->version, "3.0.0");
    T_EQ_U64(o->row_width, 11);
    T_EQ_U64(o->nses, 2);
    if (o->nses == 2) {
        T_EQ_U64(o->ses[0].se, 0);
        T_EQ_U64(o->ses[0].nrows, 1);
        T_EQ_U64(o->ses[0].rows[0].time, 100);
        T_EQ_U64(o->ses[0].rows[0].cu, 2);
        T_EQ_U64(o->ses[0].rows[0].simd, 1);
        T_EQ_U64(o->ses[0].rows[0].slot, 7);
        T_EQ_U64(o->ses[0].rows[0].start, 1);
        T_EQ_U64(o->ses[0].rows[0].kernel_id, 2);
        T_EQ_U64(o->ses[1].se, 1);
        T_EQ_U64(o->ses[1].nrows, 2);
        T_EQ_U64(o->ses[1].rows[1].time, 173764);
        T_EQ_U64(o->ses[1].rows[1].simd, 0);
        T_EQ_U64(o->ses[1].rows[1].start, 0);
    }
    T_EQ_U64(o->ndispatches, 2);
    if (o->ndispatches == 2) {
        T_EQ_U64(o->dispatches[0].id, 0);
        T_EQ_STR(o->dispatches[0].name, "0 / 0x0");
        T_EQ_U64(o->dispatches[1].id, 1);
        T_EQ_STR(o->dispatches[1].name, "pa_mqa_logits_fp4_kernel_0");
    }
    cap_free(c);

    c = cap_new();
    const char *six = "{\"2\":[[1,0,0,0,1,1]],\"version\":\"3.0.0\"}";
    T_EQ_I64(bundle_parse_occupancy(c, six, strlen(six), "occupancy.json", &err), 0);
    T_EQ_U64(c->occupancy.row_width, 6);
    T_EQ_U64(c->occupancy.ndispatches, 0);
    cap_free(c);

    expect_err(bundle_parse_occupancy, "o.json", "{\"0\":[[1,2,3,0,1,1],[1,2,3,0,1,1,0]]}", "$.0[1]",
               "expected an array of 6 or 11 integers, found an array of 7 elements");
    expect_err(bundle_parse_occupancy, "o.json", "{\"0\":[[1,2,3,0,2,1]]}", "$.0[0][4]",
               "start: expected an integer in [0, 1], found 2");
    expect_err(bundle_parse_occupancy, "o.json", "{\"0\":[[1,2,256,0,1,1]]}", "$.0[0][2]",
               "simd: expected an integer in [0, 255], found 256");
    expect_err(bundle_parse_occupancy, "o.json", "{\"0\":[[1,2,3,300,1,1]]}", "$.0[0][3]",
               "slot: expected an integer in [0, 255], found 300");
    expect_err(bundle_parse_occupancy, "o.json", "{\"0\":[[-1,2,3,0,1,1]]}", "$.0[0][0]",
               "time: expected an integer in [0, 9223372036854775807], found -1");
    expect_err(bundle_parse_occupancy, "o.json", "{\"0\":[[1,2,3,0,1,1,0,0,0,0,0.5]]}", "$.0[0][10]",
               "cluster_id: expected an integer, found a real number");
    expect_err(bundle_parse_occupancy, "o.json", "{\"SE0\":[]}", "$",
               "unknown key \"SE0\" (expected a decimal SE number, \"dispatches\", \"version\" or \"events\")");
    expect_err(bundle_parse_occupancy, "o.json", "{\"dispatches\":{\"k\":\"x\"}}", "$.dispatches",
               "key \"k\" is not a decimal kernel id");
    expect_err(bundle_parse_occupancy, "o.json", "{\"dispatches\":{\"1\":2}}", "$.dispatches.1",
               "expected a string, found an integer");
    expect_err(bundle_parse_occupancy, "o.json", "{\"1\":[],\"01\":[]}", "$",
               "SE 1 appears twice (keys with leading zeros?)");
}

/* ---- streaming occupancy parser vs the jansson reference ---- */

static int occ_same(const kr_occupancy *a, const kr_occupancy *b, char *why, size_t cap)
{
#define DIFF(cond, ...) do { if (cond) { snprintf(why, cap, __VA_ARGS__); return 0; } } while (0)
    DIFF(a->present != b->present || a->row_width != b->row_width, "present/row_width");
    DIFF((a->version == NULL) != (b->version == NULL) || (a->version && strcmp(a->version, b->version) != 0),
         "version");
    DIFF(a->nses != b->nses, "nses %zu vs %zu", a->nses, b->nses);
    for (size_t i = 0; i < a->nses; i++) {
        const kr_occ_se *x = &a->ses[i], *y = &b->ses[i];
        DIFF(x->se != y->se || x->nrows != y->nrows, "ses[%zu]", i);
        for (size_t r = 0; r < x->nrows; r++) {
            const kr_occ_row *p = &x->rows[r], *q = &y->rows[r];
            DIFF(p->time != q->time || p->cu != q->cu || p->simd != q->simd || p->slot != q->slot ||
                 p->start != q->start || p->kernel_id != q->kernel_id, "ses[%zu].rows[%zu]", i, r);
        }
    }
    DIFF(a->ndispatches != b->ndispatches, "ndispatches");
    for (size_t i = 0; i < a->ndispatches; i++)
        DIFF(a->dispatches[i].id != b->dispatches[i].id || strcmp(a->dispatches[i].name, b->dispatches[i].name) != 0,
             "dispatches[%zu]", i);
    return 1;
#undef DIFF
}

static int occ_failures;
static int occ_differ(const char *data, size_t len, const char *label)
{
    kr_capture *a = cap_new(), *b = cap_new();
    kr_err ea, eb;
    char *copy = malloc(len ? len : 1);     /* exact size: a sanitizer build sees overreads */
    memcpy(copy, data, len);
    int ra = bundle_parse_occupancy(a, copy, len, "occupancy.json", &ea);
    int rb = bundle_parse_occupancy_jansson(b, copy, len, "occupancy.json", &eb);
    free(copy);
    char why[1600] = "";
    int result;
    if (ra != rb) {
        snprintf(why, sizeof why, "streaming %d (%.60s: %.300s) / jansson %d (%.60s: %.300s)", ra, ea.where,
                 ea.msg, rb, eb.where, eb.msg);
        result = -1;
    } else if (ra == 0) {
        result = occ_same(&a->occupancy, &b->occupancy, why, sizeof why) ? 1 : -1;
    } else {
        result = strcmp(ea.file, eb.file) == 0 && strcmp(ea.where, eb.where) == 0 && strcmp(ea.msg, eb.msg) == 0
                     ? 0 : -1;
        if (result < 0)
            snprintf(why, sizeof why, "errors differ: %.60s: %.300s / %.60s: %.300s", ea.where, ea.msg, eb.where,
                     eb.msg);
    }
    if (result < 0)
        jdiff_report(&occ_failures, label, why, data, len);
    cap_free(a);
    cap_free(b);
    return result;
}

static void test_occupancy_differential(void)
{
    static const char *const ok[] = {
        "{\"1\":[[173756,6,3,0,1,1],[173764,6,0,0,0,1]],\"0\":[[100,2,1,7,1,2,0,1,0,5,3]],"
        "\"dispatches\":{\"1\":\"k\",\"0\":\"0 / 0x0\"},\"version\":\"3.0.0\",\"events\":{\"0\":[{\"kind\":1}]}}",
        " { \"2\" : null , \"007\" : [ [ 1 , 0 , 255 , 255 , 0 , 4294967295 , -1 , 2.5e1 , \"x\" ] ] ,\n"
        "\"\\u0033\":[],\"dispatches\":{},\"events\":null} ",
        "{}",
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        T_EQ_I64(occ_differ(ok[i], strlen(ok[i]), "accepted case"), i == 1 ? 0 : 1);
    static const char *const bad[] = {
        "", "[]", "{\"64\":[]}", "{\"0\":{}}", "{\"0\":[[1,2,3]],\"x\":1}", "{\"0\":[7]}",
        "{\"0\":[[1,2,3,4,5,6,7,8,9,10,11,12]]}", "{\"0\":[[1,2,3,0,\"a\",1,2]]}",
        "{\"0\":[[1,2,3,0,1,1]],\"1\":[[1,2,3,0,1,1.5]]}", "{\"dispatches\":[]}",
        "{\"dispatches\":{\"1\":\"a\",\"01\":\"b\"}}", "{\"version\":3}", "{\"4294967296\":[]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        T_EQ_I64(occ_differ(bad[i], strlen(bad[i]), "rejected case"), 0);

    const char *hub = t_hub();
    if (!hub) {
        printf("test_load_small: hub fixtures absent, skipping the real occupancy.json files\n");
        return;
    }
    char pattern[4096];
    snprintf(pattern, sizeof pattern, "%s/examples/*/att_viewer/*/ui_output_*/occupancy.json", hub);
    glob_t g;
    T_EQ_I64(glob(pattern, 0, NULL, &g), 0);
    T_EQ_U64(g.gl_pathc, 4);
    char *seed = NULL;
    size_t seed_len = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char *data;
        size_t len;
        kr_err e;
        if (kr_file_read(g.gl_pathv[i], KR_MAX_SMALL_FILE_BYTES, &data, &len, &e)) {
            T_CHECK(!"cannot read a hub occupancy.json");
            continue;
        }
        T_EQ_I64(occ_differ(data, len, g.gl_pathv[i]), 1);
        if (!seed || len < seed_len) {
            free(seed);
            seed = data;
            seed_len = len;
        } else {
            free(data);
        }
    }
    globfree(&g);
    if (!seed)
        return;
    /* mutations of a cut-down copy: the first 4 rows of each SE (rows hold
     * integers only, so the first "]]" after a row ends its SE's array) */
    char *cut = malloc(seed_len + 1);
    size_t n = 0;
    for (size_t i = 0; i < seed_len;) {
        if (i + 4 <= seed_len && memcmp(seed + i, "\":[[", 4) == 0) {
            int rows = 0;
            size_t j = i;
            while (j < seed_len && !(seed[j] == ']' && j + 1 < seed_len && seed[j + 1] == ']')) {
                if (seed[j] == ']' && j + 1 < seed_len && seed[j + 1] == ',' && ++rows == 4)
                    break;
                j++;
            }
            memcpy(cut + n, seed + i, j + 1 - i);      /* through the 4th row's ']' */
            n += j + 1 - i;
            while (j < seed_len && !(seed[j] == ']' && j + 1 < seed_len && seed[j + 1] == ']'))
                j++;
            i = j + 1;                                 /* continue at the closing ']' */
            continue;
        }
        cut[n++] = seed[i++];
    }
    T_EQ_I64(occ_differ(cut, n, "seed"), 1);
    jdiff_tally t = {0};
    jdiff_mutate(cut, n, 3000, occ_differ, &t);
    printf("test_load_small: %zu occupancy mutations: %zu accepted by both, %zu rejected by both, %zu mismatched\n",
           t.accepted + t.rejected + t.mismatched, t.accepted, t.rejected, t.mismatched);
    T_EQ_U64(t.mismatched, 0);
    T_CHECK(t.accepted > 100 && t.rejected > 500);
    free(cut);
    free(seed);
}

int main(void)
{
    test_filenames();
    test_wstates();
    test_occupancy();
    test_occupancy_differential();
    return t_done("test_load_small");
}
