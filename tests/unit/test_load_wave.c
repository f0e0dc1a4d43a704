/* test_load_wave.c — wave-file loaders (bundle/load_wave.h, docs/formats.md#wave-files).
 *
 * 1. Hand-written files: exact models, exact errors (message and line:col).
 * 2. Differential: every wave file of every hub capture through the scanner
 *    and through jansson; identical models; record, waitcnt and timeline
 *    totals equal docs/formats.md.
 * 3. Mutations (truncation, byte flips/inserts/deletes, number replacements,
 *    duplicate keys, deep nesting, pretty-printing): both parsers accept the
 *    same inputs and, when they accept, build the same model.
 * 4. The fast record loops: numbers at field limits, leading zeros and
 *    non-integers inside long compact arrays give the checked path's values
 *    and errors; whitespace; records near and cut at the end of the buffer. */
#include <glob.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/load_wave.h"
#include "common/file.h"
#include "common/limits.h"
#include "tests/unit/t.h"

/* ---- helpers ---- */

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

/* 1 when equal; otherwise 0 and a reason. */
static int wave_same(const kr_wave *a, const kr_wave *b, char *why, size_t cap)
{
#define DIFF(cond, ...) do { if (cond) { snprintf(why, cap, __VA_ARGS__); return 0; } } while (0)
    DIFF(strcmp(a->name, b->name) != 0, "name '%s' vs '%s'", a->name, b->name);
    DIFF(a->se != b->se || a->simd != b->simd || a->slot != b->slot || a->id != b->id, "se/simd/slot/id");
    DIFF(a->cu != b->cu, "cu");
    DIFF(a->begin != b->begin || a->end != b->end, "begin/end");
    DIFF(a->duration != b->duration, "duration");
    DIFF(a->num_insts != b->num_insts || a->num_stitched != b->num_stitched, "num_insts/num_stitched");
    DIFF(a->has_waitcnt != b->has_waitcnt, "has_waitcnt");
    DIFF(a->bytes != b->bytes, "bytes");
    DIFF(a->ninsts != b->ninsts, "ninsts %zu vs %zu", a->ninsts, b->ninsts);
    for (size_t i = 0; i < a->ninsts; i++) {
        const kr_inst *x = &a->insts[i], *y = &b->insts[i];
        DIFF(x->time != y->time || x->cat != y->cat || x->stall != y->stall || x->dur != y->dur ||
             x->line != y->line || x->row != y->row, "instructions[%zu]", i);
    }
    DIFF(a->ntimeline != b->ntimeline, "ntimeline");
    for (size_t i = 0; i < a->ntimeline; i++)
        DIFF(a->timeline[i].state != b->timeline[i].state || a->timeline[i].cycles != b->timeline[i].cycles,
             "timeline[%zu]", i);
    DIFF(a->nwaits != b->nwaits, "nwaits");
    for (size_t i = 0; i < a->nwaits; i++)
        DIFF(a->waits[i].wait_line != b->waits[i].wait_line || a->waits[i].first != b->waits[i].first ||
             a->waits[i].n != b->waits[i].n, "waitcnt[%zu]", i);
    DIFF(a->nproducers != b->nproducers, "nproducers");
    for (size_t i = 0; i < a->nproducers; i++)
        DIFF(a->producers[i] != b->producers[i], "producers[%zu]", i);
    return 1;
#undef DIFF
}

static int released(const kr_wave *w, const char *file)
{
    return w->file == file && !w->name && !w->insts && !w->timeline && !w->waits && !w->producers &&
           !w->ninsts && !w->ntimeline && !w->nwaits && !w->nproducers && !w->has_waitcnt && !w->bytes;
}

/* Differential run on one input. Returns 1 if both accept (models compared),
 * 0 if both reject, -1 on disagreement (printed once per group). */
static int diff_failures;
static int differ(const char *data, size_t len, const char *label)
{
    static const char fname[] = "se0_sm0_sl0_wv0.json";
    kr_wave a = {.file = fname}, b = {.file = fname};
    kr_err ea, eb;
    /* an exact-size copy, so a sanitizer build catches any read past len */
    char *copy = malloc(len ? len : 1);
    memcpy(copy, data, len);
    int ra = bundle_parse_wave(copy, len, "mut.json", &a, &ea);
    int rb = bundle_parse_wave_jansson(copy, len, "mut.json", &b, &eb);
    free(copy);
    int result;
    char why[640] = "";
    if ((ra == 0) != (rb == 0)) {
        snprintf(why, sizeof why, "scanner %s (%.40s: %.200s) / jansson %s (%.40s: %.200s)", ra ? "rejects" : "accepts",
                 ea.where, ea.msg, rb ? "rejects" : "accepts", eb.where, eb.msg);
        result = -1;
    } else if (ra == 0) {
        result = wave_same(&a, &b, why, sizeof why) ? 1 : -1;
    } else {
        result = (ra == KR_INPUT && rb == KR_INPUT && released(&a, fname) && released(&b, fname)) ? 0 : -1;
        if (result < 0)
            snprintf(why, sizeof why, "codes %d/%d or output not released", ra, rb);
    }
    if (result < 0 && diff_failures++ < 5) {
        fprintf(stderr, "differential mismatch (%s): %s\n  input (%zu bytes): ", label, why, len);
        for (size_t i = 0; i < len && i < 400; i++) {
            unsigned char c = (unsigned char)data[i];
            if (c >= 0x20 && c < 0x7f)
                fputc(c, stderr);
            else
                fprintf(stderr, "\\x%02x", c);
        }
        fputc('\n', stderr);
    }
    bundle_wave_release(&a);
    bundle_wave_release(&b);
    return result;
}

/* ---- 1. hand-written files ---- */

static const char FILE_A[] =
    "{\"duration\":40,\"name\":\"SE2\",\"num_insts\":2,\"num_stitched\":2,"
    "\"wave\":{\"begin\":100,\"cu\":1,\"end\":140,\"id\":0,"
    "\"instructions\":[[104,1,0,4,1],[108,11,0,32,2]],\"simd\":3,\"slot\":1,"
    "\"timeline\":[[1,4],[2,4],[3,32]],\"waitcnt\":[[2,[[1,0]]],[7,[]],[9,[[3,0],[4,0],[3,0]]]]}}";

static const char FILE_NULLS[] =
    "{\"name\":\"SE0\",\"wave\":{\"begin\":0,\"end\":0,\"id\":0,\"simd\":0,\"slot\":0,"
    "\"instructions\":null,\"timeline\":null,\"waitcnt\":null}}";

static const char FILE_ODD[] =
    "{ \"x-unknown\" : {\"a\":[1,2.5,-3e2,true,false,null,\"s\\u00e9\\n\",{\"b\":{}}]},\r\n"
    "  \"name\" : \"S\\u0045\" ,\n"
    "  \"wave\" : { \"dispatcher\": 5, \"begin\": 1, \"end\": 9, \"simd\": 0, \"slot\": 2, \"id\": 7,\n"
    "    \"cu\": -1, \"instructions\": [ [ 2 , 6 , 0 , 4 , 0 ] ] , \"timeline\": [[4, 5]],\n"
    "    \"waitcnt\": [] , \"info\": {\"x\": [[]]} } , \"num_insts\": 9223372036854775807 }\n";

static void test_hand_written(void)
{
    const char *f = "se2_sm3_sl1_wv0.json";
    kr_wave w = {.file = f};
    kr_err e;
    T_EQ_I64(bundle_parse_wave(FILE_A, strlen(FILE_A), "a.json", &w, &e), 0);
    T_CHECK(w.file == f);
    T_EQ_STR(w.name, "SE2");
    T_EQ_U64(w.se, 2);
    T_EQ_U64(w.duration, 40);
    T_EQ_U64(w.num_insts, 2);
    T_EQ_U64(w.num_stitched, 2);
    T_EQ_U64(w.begin, 100);
    T_EQ_U64(w.end, 140);
    T_EQ_I64(w.cu, 1);
    T_EQ_U64(w.simd, 3);
    T_EQ_U64(w.slot, 1);
    T_EQ_U64(w.id, 0);
    T_EQ_U64(w.bytes, strlen(FILE_A));
    T_EQ_U64(w.ninsts, 2);
    if (w.ninsts == 2) {
        T_CHECK(w.insts[0].time == 104 && w.insts[0].cat == 1 && w.insts[0].stall == 0 &&
                w.insts[0].dur == 4 && w.insts[0].line == 1 && w.insts[0].row == KR_ROW_NONE);
        T_CHECK(w.insts[1].time == 108 && w.insts[1].cat == 11 && w.insts[1].stall == 0 &&
                w.insts[1].dur == 32 && w.insts[1].line == 2 && w.insts[1].row == KR_ROW_NONE);
    }
    T_EQ_U64(w.ntimeline, 3);
    if (w.ntimeline == 3)
        T_CHECK(w.timeline[0].state == 1 && w.timeline[0].cycles == 4 && w.timeline[2].state == 3 &&
                w.timeline[2].cycles == 32);
    T_EQ_U64(w.has_waitcnt, 1);
    T_EQ_U64(w.nwaits, 3);
    T_EQ_U64(w.nproducers, 4);
    if (w.nwaits == 3 && w.nproducers == 4) {
        T_CHECK(w.waits[0].wait_line == 2 && w.waits[0].first == 0 && w.waits[0].n == 1);
        T_CHECK(w.waits[1].wait_line == 7 && w.waits[1].first == 1 && w.waits[1].n == 0);
        T_CHECK(w.waits[2].wait_line == 9 && w.waits[2].first == 1 && w.waits[2].n == 3);
        T_CHECK(w.producers[0] == 1 && w.producers[1] == 3 && w.producers[2] == 4 && w.producers[3] == 3);
    }
    bundle_wave_release(&w);
    T_CHECK(released(&w, f));
    T_EQ_I64(differ(FILE_A, strlen(FILE_A), "A"), 1);

    /* null arrays read as empty; has_waitcnt 0; optional keys absent */
    T_EQ_I64(bundle_parse_wave(FILE_NULLS, strlen(FILE_NULLS), "n.json", &w, &e), 0);
    T_CHECK(!w.insts && !w.ninsts && !w.timeline && !w.ntimeline && !w.waits && !w.nwaits);
    T_EQ_U64(w.has_waitcnt, 0);
    T_EQ_U64(w.duration, 0);
    T_EQ_I64(w.cu, 0);
    bundle_wave_release(&w);
    T_EQ_I64(differ(FILE_NULLS, strlen(FILE_NULLS), "nulls"), 1);

    /* whitespace, escapes, unknown keys of every type */
    T_EQ_I64(bundle_parse_wave(FILE_ODD, strlen(FILE_ODD), "o.json", &w, &e), 0);
    T_EQ_STR(w.name, "SE");                     /* "S\u0045" */
    T_EQ_U64(w.se, 0);                          /* no digits: not "SE<n>" */
    T_EQ_I64(w.cu, -1);
    T_EQ_U64(w.num_insts, INT64_MAX);
    T_EQ_U64(w.ninsts, 1);
    T_EQ_U64(w.ntimeline, 1);
    T_EQ_U64(w.has_waitcnt, 1);
    T_EQ_U64(w.nwaits, 0);
    T_EQ_U64(w.id, 7);
    bundle_wave_release(&w);
    T_EQ_I64(differ(FILE_ODD, strlen(FILE_ODD), "odd"), 1);

    /* name length: KR_MAX_STRING_BYTES passes, one more byte fails */
    for (int extra = 0; extra <= 1; extra++) {
        size_t nl = KR_MAX_STRING_BYTES + (size_t)extra, k = 0;
        char *big = malloc(nl + 128);
        k += (size_t)snprintf(big, 16, "{\"name\":\"");
        memset(big + k, 'a', nl);
        k += nl;
        k += (size_t)snprintf(big + k, 100, "\",\"wave\":{\"begin\":5,\"end\":6,\"simd\":1,\"slot\":2,\"id\":3}}");
        int rc = bundle_parse_wave(big, k, "big.json", &w, &e);
        T_EQ_I64(rc, extra ? KR_INPUT : 0);
        if (rc)
            T_EQ_STR(e.msg, "name longer than KR_MAX_STRING_BYTES (65536)");
        else
            T_EQ_U64(strlen(w.name), KR_MAX_STRING_BYTES);
        bundle_wave_release(&w);
        T_EQ_I64(differ(big, k, "long name"), extra ? 0 : 1);
        free(big);
    }

    /* minimal file: only the required keys */
    const char *minimal = "{\"wave\":{\"begin\":5,\"end\":6,\"simd\":1,\"slot\":2,\"id\":3}}";
    T_EQ_I64(bundle_parse_wave(minimal, strlen(minimal), "m.json", &w, &e), 0);
    T_EQ_STR(w.name, "");
    T_EQ_U64(w.has_waitcnt, 0);
    bundle_wave_release(&w);
    T_EQ_I64(differ(minimal, strlen(minimal), "minimal"), 1);
}

/* Exact errors of the scanner: message and position ("line:col" of the
 * first byte of `mark`, an occurrence chosen by `nth`). */
typedef struct err_case {
    const char *in;
    const char *msg;
    const char *mark;        /* NULL: position given literally in where */
    int nth;
    const char *where;
} err_case;

#define W0 "{\"wave\":{\"begin\":1,\"end\":2,\"simd\":0,\"slot\":0,\"id\":0,"

static void test_errors(void)
{
    static const err_case cases[] = {
        {W0 "\"instructions\":[[1,2,3,4,5],[1,2,3,4.5,5]]}}",
         "expected integer in wave.instructions[1][3], found a real number", "4.5", 1, NULL},
        {W0 "\"instructions\":[[1,256,3,4,5]]}}",
         "integer out of range in wave.instructions[0][1] (maximum 255)", "256", 1, NULL},
        {W0 "\"instructions\":[[1,2,-3,4,5]]}}",
         "expected a non-negative integer in wave.instructions[0][2]", "-3", 1, NULL},
        {W0 "\"instructions\":[[1,2,3,4,4294967296]]}}",
         "integer out of range in wave.instructions[0][4] (maximum 4294967295)", "4294967296", 1, NULL},
        {W0 "\"instructions\":[[18446744073709551616,2,3,4,5]]}}",
         "integer out of the 64-bit signed range", "1844", 1, NULL},
        {W0 "\"instructions\":[[9223372036854775808,2,3,4,5]]}}",
         "integer out of the 64-bit signed range", "9223", 1, NULL},
        {W0 "\"instructions\":[[1,2,3,4]]}}",
         "expected 5 integers in wave.instructions[0], found 4", "]]", 1, NULL},
        {W0 "\"instructions\":[[1,2,3,4,5],]}}",
         "expected array in wave.instructions[1], found ']'", "]}", 1, NULL},
        {W0 "\"instructions\":[[1,2,3,4,5]}}",
         "expected ',' or ']' in wave.instructions, found '}'", "}", 1, NULL},
        {W0 "\"timeline\":[[1]]}}", "expected 2 integers in wave.timeline[0], found 1", "]]", 1, NULL},
        {W0 "\"timeline\":[[256,4]]}}", "integer out of range in wave.timeline[0][0] (maximum 255)",
         "256", 1, NULL},
        {W0 "\"timeline\":{}}}", "expected array in wave.timeline, found '{'", "{}", 1, NULL},
        {W0 "\"waitcnt\":[[5,[[1,0.5]]]]}}",
         "expected integer in wave.waitcnt[0][1][0][1], found a real number", "0.5", 1, NULL},
        {W0 "\"waitcnt\":[[5]]}}",
         "expected [waitcnt_line, [[producer_line, 0], ...]] in wave.waitcnt[0], found fewer elements",
         "]]", 1, NULL},
        {W0 "\"waitcnt\":[[5,[[1]]]]}}",
         "expected [producer_line, 0] in wave.waitcnt[0][1][0], found fewer elements", "]]", 1, NULL},
        {W0 "\"waitcnt\":[[5,[],1]]}}",
         "expected [waitcnt_line, [[producer_line, 0], ...]] in wave.waitcnt[0], found more elements",
         "1]]", 1, NULL},
        {"{\"wave\":{\"end\":2,\"simd\":0,\"slot\":0,\"id\":0}}", "missing key \"wave.begin\"", "}", 1, NULL},
        {"{\"wave\":{\"begin\":1,\"end\":2,\"simd\":0,\"slot\":0}}", "missing key \"wave.id\"", "}", 1, NULL},
        {"{\"name\":\"SE1\"}", "missing key \"wave\"", "}", 1, NULL},
        {W0 "\"end\":3}}", "duplicate key \"end\" in wave", "\"end\"", 2, NULL},
        {W0 "\"x\":1,\"x\":2}}", "duplicate key \"x\" in wave", "\"x\"", 2, NULL},
        {"{\"name\":\"a\",\"n\\u0061me\":\"b\"," "\"wave\":{\"begin\":1,\"end\":2,\"simd\":0,\"slot\":0,\"id\":0}}",
         "duplicate key \"name\"", "\"n\\u", 1, NULL},
        {"{\"wave\":{\"begin\":NaN,\"end\":2,\"simd\":0,\"slot\":0,\"id\":0}}",
         "expected integer in wave.begin, found 'N'", "NaN", 1, NULL},
        {"{\"wave\":{\"begin\":01,\"end\":2,\"simd\":0,\"slot\":0,\"id\":0}}",
         "invalid number (leading zero)", "01", 1, NULL},
        {"{\"wave\":{\"begin\":1,\"end\":2,\"simd\":0,\"slot\":0,\"id\":0,\"cu\":1.0}}",
         "expected integer in wave.cu, found a real number", "1.0", 1, NULL},
        {"{\"wave\":null}", "expected object in wave, found 'n'", "null", 1, NULL},
        {"{\"name\":5,\"wave\":{}}", "expected string in name, found '5'", "5", 1, NULL},
        {"[]", "expected object in the wave file, found '['", NULL, 0, "1:1"},
        {"", "expected object in the wave file, found end of input", NULL, 0, "1:1"},
        {"{\"wave\":{\"begin\":1,\"end\":2,\"simd\":0,\"slot\":0,\"id\":0}} x", "expected end of input, found 'x'",
         "x", 1, NULL},
        {"{\"wave\":{\"begin\":1,\"end\":2,\"simd\":0,\"slot\":0,\"id\":0},}",
         "expected a key string in the wave file, found '}'", NULL, 0, "1:54"},
        {"{\"wave\":{\"begin\":1,\"end\":2,\"simd\":0,\"slot\":0,\"id\":0},\"z\":\"a\tb\"}",
         "control character 0x09 in string", "\t", 1, NULL},
        /* positions on later lines */
        {"{\n  \"wave\": {\n    \"begin\": -1, \"end\": 2}}", "expected a non-negative integer in wave.begin",
         NULL, 0, "3:14"},
        {"{\n\"name\": \"\xC3\xA9\xC3\xA9\", \"wave\": {\"begin\": 1.5}}",
         "expected integer in wave.begin, found a real number", NULL, 0, "2:33"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const err_case *c = &cases[i];
        kr_wave w = {0};
        kr_err e;
        int rc = bundle_parse_wave(c->in, strlen(c->in), "se1_sm0_sl0_wv0.json", &w, &e);
        T_EQ_I64(rc, KR_INPUT);
        T_EQ_STR(e.msg, c->msg);
        T_EQ_STR(e.file, "se1_sm0_sl0_wv0.json");
        char where[32];
        if (c->mark) {
            const char *at = c->in;
            for (int k = 0; k < c->nth; k++) {
                at = strstr(k ? at + 1 : at, c->mark);
                if (!at)
                    break;
            }
            T_CHECK(at != NULL);
            /* all marks are on line 1 of ASCII inputs: column = offset + 1 */
            snprintf(where, sizeof where, "1:%zu", at ? (size_t)(at - c->in) + 1 : 0);
        } else {
            snprintf(where, sizeof where, "%s", c->where);
        }
        T_EQ_STR(e.where, where);
        if (strcmp(e.msg, c->msg) != 0 || strcmp(e.where, where) != 0)
            fprintf(stderr, "  case %zu: %s\n", i, c->in);
        T_CHECK(released(&w, NULL));
        /* the reference rejects it too, with jansson's line:column for syntax */
        kr_err je;
        T_EQ_I64(bundle_parse_wave_jansson(c->in, strlen(c->in), "se1_sm0_sl0_wv0.json", &w, &je), KR_INPUT);
        T_EQ_STR(je.file, "se1_sm0_sl0_wv0.json");
        T_CHECK(je.where[0] != '\0');
        T_CHECK(released(&w, NULL));
    }
    /* jansson's syntax errors carry its line:column */
    kr_err je;
    kr_wave w = {0};
    const char *bad = "{\n\"wave\": [1,]}";
    T_EQ_I64(bundle_parse_wave_jansson(bad, strlen(bad), "j.json", &w, &je), KR_INPUT);
    json_error_t jr;
    json_t *none = json_loadb(bad, strlen(bad), JSON_REJECT_DUPLICATES, &jr);
    T_CHECK(none == NULL);
    char where[64];
    snprintf(where, sizeof where, "%d:%d", jr.line, jr.column);
    T_EQ_STR(je.where, where);
    T_EQ_STR(where, "2:12");
}

/* ---- 2. the hub captures ---- */

typedef struct capture_facts {
    const char *folder;
    size_t waves;
    uint64_t records, waitcnt;
    uint64_t state[5];       /* timeline Σ cycles by state 0..4 */
} capture_facts;

/* docs/formats.md. */
static const capture_facts FACTS[] = {
    {"ui_output_agent_32435_dispatch_197", 4, 1576, 84, {0, 124, 7380, 11644, 1156}},
    {"ui_output_agent_55351_dispatch_426", 32, 165632, 7808, {0, 992, 795648, 465108, 340436}},
    {"ui_output_agent_32235_dispatch_44", 4, 26412, 1404, {0, 972, 106540, 76652, 36100}},
    {"ui_output_agent_58550_dispatch_44_after_loc_fix", 8, 43360, 2264, {0, 1788, 180416, 126860, 58912}},
};
#define NFACTS (sizeof FACTS / sizeof FACTS[0])

typedef struct capture_sums {
    size_t waves;
    uint64_t records, waitcnt, state[5];
} capture_sums;

static char *hub_smallest, *hub_big_one;    /* inputs for the mutation tests */
static size_t hub_smallest_len, hub_big_len;

static void test_hub(void)
{
    const char *hub = t_hub();
    if (!hub) {
        printf("test_load_wave: hub fixtures absent, skipping the real-capture checks\n");
        return;
    }
    char pattern[4096];
    snprintf(pattern, sizeof pattern,
             "%s/examples/*/att_viewer/*/ui_output_*/se*_sm*_sl*_wv*.json", hub);
    glob_t g;
    int grc = glob(pattern, 0, NULL, &g);
    T_EQ_I64(grc, 0);
    if (grc)
        return;
    T_EQ_U64(g.gl_pathc, 48);                   /* 4 + 32 + 4 + 8 wave files */
    capture_sums sums[NFACTS];
    memset(sums, 0, sizeof sums);
    size_t agree = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *path = g.gl_pathv[i];
        char *data;
        size_t len;
        kr_err e;
        if (kr_file_read(path, KR_MAX_FILE_BYTES, &data, &len, &e)) {
            T_CHECK(!"cannot read a hub wave file");
            continue;
        }
        const char *base = kr_path_base(path);
        kr_wave a = {.file = base}, b = {.file = base};
        kr_err ea, eb;
        int ra = bundle_parse_wave(data, len, base, &a, &ea);
        int rb = bundle_parse_wave_jansson(data, len, base, &b, &eb);
        T_EQ_I64(ra, 0);
        T_EQ_I64(rb, 0);
        if (ra || rb) {
            fprintf(stderr, "%s: %s: %s / %s: %s\n", path, ea.where, ea.msg, eb.where, eb.msg);
        } else {
            char why[256];
            if (wave_same(&a, &b, why, sizeof why))
                agree++;
            else
                fprintf(stderr, "%s: models differ: %s\n", path, why);
            /* Facts verified on all wave files (docs/formats.md#wave-files): file name fields,
             * name "SE<se>", duration = end - begin, counts = records, CU 1. */
            unsigned se, simd, slot, id;
            T_EQ_I64(sscanf(base, "se%u_sm%u_sl%u_wv%u.json", &se, &simd, &slot, &id), 4);
            char name[32];
            snprintf(name, sizeof name, "SE%u", se);
            T_EQ_STR(a.name, name);
            T_EQ_U64(a.se, se);
            T_CHECK(a.simd == simd && a.slot == slot && a.id == id);
            T_EQ_I64(a.cu, 1);
            T_EQ_U64(a.duration, a.end - a.begin);
            T_EQ_U64(a.num_insts, a.ninsts);
            T_EQ_U64(a.num_stitched, a.ninsts);
            T_EQ_U64(a.bytes, len);
            T_EQ_U64(a.has_waitcnt, 1);
            T_CHECK(a.ninsts > 0 && a.insts[a.ninsts - 1].cat == KR_CAT_MESSAGE);  /* s_endpgm last (docs/formats.md#record-order) */
            size_t rows_none = 0;
            for (size_t k = 0; k < a.ninsts; k++)
                rows_none += a.insts[k].row == KR_ROW_NONE;
            T_EQ_U64(rows_none, a.ninsts);
            for (size_t f = 0; f < NFACTS; f++) {
                if (!strstr(path, FACTS[f].folder) ||
                    path[strstr(path, FACTS[f].folder) - path + strlen(FACTS[f].folder)] != '/')
                    continue;
                capture_sums *cs = &sums[f];
                cs->waves++;
                cs->records += a.ninsts;
                cs->waitcnt += a.nwaits;
                for (size_t k = 0; k < a.ntimeline; k++)
                    if (a.timeline[k].state < 5)
                        cs->state[a.timeline[k].state] += a.timeline[k].cycles;
            }
            /* keep two inputs for the mutation tests */
            if (!hub_smallest || len < hub_smallest_len) {
                free(hub_smallest);
                hub_smallest = malloc(len + 1);   /* NUL-terminated: splice() uses strstr */
                memcpy(hub_smallest, data, len);
                hub_smallest[len] = '\0';
                hub_smallest_len = len;
            }
            if (strstr(path, "55351_dispatch_426/se0_sm0_sl0_wv0.json")) {
                hub_big_one = malloc(len + 1);
                memcpy(hub_big_one, data, len);
                hub_big_one[len] = '\0';
                hub_big_len = len;
            }
        }
        bundle_wave_release(&a);
        bundle_wave_release(&b);
        free(data);
    }
    T_EQ_U64(agree, g.gl_pathc);
    for (size_t f = 0; f < NFACTS; f++) {
        T_EQ_U64(sums[f].waves, FACTS[f].waves);
        T_EQ_U64(sums[f].records, FACTS[f].records);
        T_EQ_U64(sums[f].waitcnt, FACTS[f].waitcnt);
        for (int s = 0; s < 5; s++)
            T_EQ_U64(sums[f].state[s], FACTS[f].state[s]);
    }
    globfree(&g);
}

/* ---- 3. mutations ---- */

typedef struct tally {
    size_t accepted, rejected, mismatched;
} tally;

static void count(tally *t, int r)
{
    if (r > 0)
        t->accepted++;
    else if (r == 0)
        t->rejected++;
    else
        t->mismatched++;
}

static void mutate_bytes(const char *src, size_t len, size_t rounds, tally *t, const char *label)
{
    static const char interesting[] = "[]{},:\"0123456789-+.eE \n\t\\u/nultrfasNI\x80\xC3\xFF";
    char *buf = malloc(len + 8);
    for (size_t r = 0; r < rounds; r++) {
        size_t n = len, pos = (size_t)(rng() % (len + 1));
        memcpy(buf, src, len);
        unsigned kind = (unsigned)(rng() % 5);
        char c = (rng() & 1) ? (char)(rng() & 0xFF) : interesting[rng() % (sizeof interesting - 1)];
        if (kind == 0 && pos < len) {
            buf[pos] ^= (char)(1u << (rng() % 8));              /* flip a bit */
        } else if (kind == 1 && pos < len) {
            buf[pos] = c;                                        /* replace */
        } else if (kind == 2) {
            memmove(buf + pos + 1, buf + pos, len - pos);        /* insert */
            buf[pos] = c;
            n++;
        } else if (kind == 3 && pos < len) {
            memmove(buf + pos, buf + pos + 1, len - pos - 1);    /* delete */
            n--;
        } else {
            n = pos;                                             /* truncate */
        }
        count(t, differ(buf, n, label));
    }
    free(buf);
}

static void truncations(const char *src, size_t len, size_t step, size_t tail, tally *t, const char *label)
{
    for (size_t n = 0; n < len; n += step)
        count(t, differ(src, n, label));
    for (size_t n = len > tail ? len - tail : 0; n <= len; n++)
        count(t, differ(src, n, label));
}

/* Replaces number tokens (digit runs outside strings) with odd values. */
static void replace_numbers(const char *src, size_t len, size_t positions, tally *t, const char *label)
{
    static const char *const repl[] = {
        "1.5", "-1", "-0", "0", "18446744073709551616", "99999999999999999999", "9223372036854775807",
        "9223372036854775808", "-9223372036854775808", "4294967295", "4294967296", "255", "256", "1e400",
        "1e2", "1E-2", "NaN", "Infinity", "-Infinity", "0x10", "01", "00", "-", "1.", ".5", "true", "null",
        "\"5\"", "[]", "{}", "[1,2,3,4,5]", "1 2", "-01"};
    size_t nrepl = sizeof repl / sizeof repl[0];
    /* number starts */
    size_t *starts = malloc(sizeof *starts * (len + 1)), nstarts = 0;
    int in_string = 0;
    for (size_t i = 0; i < len; i++) {
        char c = src[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = 0;
        } else if (c == '"') {
            in_string = 1;
        } else if (((c >= '0' && c <= '9') || c == '-') &&
                   (i == 0 || !((src[i - 1] >= '0' && src[i - 1] <= '9') || src[i - 1] == '-'))) {
            starts[nstarts++] = i;
        }
    }
    char *buf = malloc(len + 64);
    for (size_t k = 0; k < positions && nstarts; k++) {
        size_t s = starts[rng() % nstarts], e = s + 1;
        while (e < len && src[e] >= '0' && src[e] <= '9')
            e++;
        const char *r = repl[rng() % nrepl];
        size_t rl = strlen(r);
        memcpy(buf, src, s);
        memcpy(buf + s, r, rl);
        memcpy(buf + s + rl, src + e, len - e);
        count(t, differ(buf, s + rl + len - e, label));
    }
    free(buf);
    free(starts);
}

/* Inserts `text` right after the first occurrence of `after`. */
static char *splice(const char *src, size_t len, const char *after, const char *text, size_t *outlen)
{
    const char *at = strstr(src, after);
    if (!at)
        return NULL;
    size_t pos = (size_t)(at - src) + strlen(after), tl = strlen(text);
    char *buf = malloc(len + tl + 1);
    memcpy(buf, src, pos);
    memcpy(buf + pos, text, tl);
    memcpy(buf + pos + tl, src + pos, len - pos);
    buf[len + tl] = '\0';
    *outlen = len + tl;
    return buf;
}

/* Structural edits with a known verdict, checked on both parsers. */
static void structural(const char *src, size_t len, const char *label)
{
    static const struct { const char *after, *text; int ok; } edits[] = {
        {"{", "\"name\":\"SE9\",", 0},                     /* duplicate top-level key */
        {"\"wave\":{", "\"begin\":1,", 0},                 /* duplicate wave key */
        {"\"wave\":{", "\"b\\u0065gin\":1,", 0},           /* same key, escaped */
        {"{", "\"x\":1,\"x\":1,", 0},                      /* duplicate unknown key */
        {"{", "\"x\":{\"y\":1,\"y\":2},", 0},              /* duplicate inside an ignored value */
        {"{", "\"x\":{\"y\":1,\"z\":2},", 1},
        {"{", "\"x\":NaN,", 0},
        {"{", "\"x\":-Infinity,", 0},
        {"{", "\"x\":1e999,", 0},
        {"{", "\"x\":1e-999,", 1},
        {"{", "\"x\":18446744073709551616,", 0},
        {"{", "\"x\":-9223372036854775808,", 1},
        {"{", "\"x\":\"\\ud800\",", 0},
        {"{", "\"x\":\"\\u0000\",", 0},
        {"{", "\"\\u0000\":1,", 0},
        {"{", "\"x\":\"\xF0\x9F\x98\x80\",", 1},
        {"{", "\"x\":\"\xED\xA0\x80\",", 0},
        {"{", "\"x\":[1,2,],", 0},
        {"{", "\"x\":'a',", 0},
        {"{", " \t\r\n", 1},
        {"{", "\f", 0},
        {"\"wave\":{", "\"extra\":[[[[]]]],", 1},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        size_t n;
        char *buf = splice(src, len, edits[i].after, edits[i].text, &n);
        if (!buf)
            continue;
        int r = differ(buf, n, label);
        T_EQ_I64(r, edits[i].ok ? 1 : 0);
        free(buf);
    }
    /* Nesting: the top object is depth 1, so an ignored top-level value may
     * hold KR_MAX_JSON_DEPTH - 1 containers, one inside "wave" one fewer. */
    for (int where = 0; where < 2; where++) {
        for (int extra = 0; extra <= 1; extra++) {
            int d = KR_MAX_JSON_DEPTH - 1 - where + extra;
            char text[4 * KR_MAX_JSON_DEPTH + 32];
            size_t k = (size_t)snprintf(text, sizeof text, "\"deep\":");
            for (int q = 0; q < d; q++)
                text[k++] = '[';
            for (int q = 0; q < d; q++)
                text[k++] = ']';
            text[k++] = ',';
            text[k] = '\0';
            size_t n;
            char *buf = splice(src, len, where ? "\"wave\":{" : "{", text, &n);
            if (!buf)
                continue;
            T_EQ_I64(differ(buf, n, label), extra ? 0 : 1);
            free(buf);
        }
    }
    /* very deep (beyond jansson's own limit) */
    size_t big = 5000;
    char *deep = malloc(2 * big + 16);
    memcpy(deep, "{\"a\":", 5);
    memset(deep + 5, '[', big);
    memset(deep + 5 + big, ']', big);
    memcpy(deep + 5 + 2 * big, "}", 1);
    T_EQ_I64(differ(deep, 2 * big + 6, label), 0);
    free(deep);
}

/* Compact vs pretty-printed: same model (whitespace everywhere). */
static void pretty(const char *src, size_t len, const char *label)
{
    json_error_t je;
    json_t *root = json_loadb(src, len, 0, &je);
    T_CHECK(root != NULL);
    if (!root)
        return;
    char *text = json_dumps(root, JSON_INDENT(2));
    json_decref(root);
    kr_wave a = {0}, b = {0};
    kr_err e;
    T_EQ_I64(bundle_parse_wave(src, len, "c.json", &a, &e), 0);
    T_EQ_I64(bundle_parse_wave(text, strlen(text), "p.json", &b, &e), 0);
    b.bytes = a.bytes;
    char why[256] = "";
    T_CHECK(wave_same(&a, &b, why, sizeof why));
    if (why[0])
        fprintf(stderr, "%s pretty: %s\n", label, why);
    T_EQ_I64(differ(text, strlen(text), label), 1);
    bundle_wave_release(&a);
    bundle_wave_release(&b);
    free(text);
}

/* A generated wave long enough for the fast path, checked against the values
 * written. */
static void generated(void)
{
    size_t n = 3000;
    size_t cap = n * 64 + 65536, k = 0;
    char *buf = malloc(cap);
    uint64_t *tm = malloc(n * sizeof *tm);
    uint32_t *vals = malloc(n * 4 * sizeof *vals);
    k += (size_t)snprintf(buf + k, cap - k,
                          "{\"duration\":1,\"name\":\"SE3\",\"wave\":{\"begin\":7,\"end\":8,\"simd\":2,\"slot\":5,"
                          "\"id\":1,\"instructions\":[");
    uint64_t t = 173060;
    for (size_t i = 0; i < n; i++) {
        t += 4 * (1 + rng() % 50);
        uint32_t cat = (uint32_t)(rng() % 13), stall = (uint32_t)(4 * (rng() % 300)),
                 dur = stall + 4 + (uint32_t)(rng() % 3) * 4, line = (uint32_t)(rng() % 5000);
        if (i % 97 == 0)
            stall = dur = UINT32_MAX;                    /* extreme but valid */
        if (i == n / 2)
            t = (uint64_t)INT64_MAX - 1000000000ull;     /* 19 digits: slow path */
        tm[i] = t;
        vals[4 * i] = cat;
        vals[4 * i + 1] = stall;
        vals[4 * i + 2] = dur;
        vals[4 * i + 3] = line;
        k += (size_t)snprintf(buf + k, cap - k, "%s[%llu,%u,%u,%u,%u]", i ? "," : "", (unsigned long long)t, cat,
                              stall, dur, line);
    }
    k += (size_t)snprintf(buf + k, cap - k, "],\"timeline\":[[1,28],[4,1000000]],\"waitcnt\":[");
    /* waitcnt entries, mostly compact; some with a negative or huge lane,
     * spaces or a 19-digit lane, which leave the compact form */
    size_t nw = 600, np = 0;
    uint32_t *wl = malloc(nw * sizeof *wl), *wn = malloc(nw * sizeof *wn), *pv = malloc(nw * 4 * sizeof *pv);
    for (size_t i = 0; i < nw; i++) {
        wl[i] = (uint32_t)(rng() % 100000);
        wn[i] = (uint32_t)(rng() % 5);
        k += (size_t)snprintf(buf + k, cap - k, "%s[%u,%s[", i ? "," : "", wl[i], i % 50 == 7 ? " " : "");
        for (uint32_t q = 0; q < wn[i]; q++) {
            pv[np] = (uint32_t)(rng() % 4000);
            const char *lane = i % 37 == 5 ? "-1" : i % 41 == 9 ? "9223372036854775807" : "0";
            k += (size_t)snprintf(buf + k, cap - k, "%s[%u,%s]", q ? "," : "", pv[np], lane);
            np++;
        }
        k += (size_t)snprintf(buf + k, cap - k, "]]");
    }
    k += (size_t)snprintf(buf + k, cap - k, "]}}");
    kr_wave w = {0};
    kr_err e;
    T_EQ_I64(bundle_parse_wave(buf, k, "g.json", &w, &e), 0);
    T_EQ_U64(w.ninsts, n);
    size_t bad = 0;
    for (size_t i = 0; i < w.ninsts && i < n; i++)
        bad += w.insts[i].time != tm[i] || w.insts[i].cat != vals[4 * i] || w.insts[i].stall != vals[4 * i + 1] ||
               w.insts[i].dur != vals[4 * i + 2] || w.insts[i].line != vals[4 * i + 3] ||
               w.insts[i].row != KR_ROW_NONE;
    T_EQ_U64(bad, 0);
    T_EQ_U64(w.ntimeline, 2);
    T_EQ_U64(w.se, 3);
    T_EQ_U64(w.nwaits, nw);
    T_EQ_U64(w.nproducers, np);
    size_t bad_w = 0, first = 0;
    for (size_t i = 0; i < w.nwaits && i < nw; i++) {
        bad_w += w.waits[i].wait_line != wl[i] || w.waits[i].n != wn[i] || w.waits[i].first != first;
        first += wn[i];
    }
    T_EQ_U64(bad_w, 0);
    size_t bad_p = 0;
    for (size_t i = 0; i < w.nproducers && i < np; i++)
        bad_p += w.producers[i] != pv[i];
    T_EQ_U64(bad_p, 0);
    free(wl);
    free(wn);
    free(pv);
    bundle_wave_release(&w);
    T_EQ_I64(differ(buf, k, "generated"), 1);
    tally tl = {0};
    replace_numbers(buf, k, 300, &tl, "generated numbers");
    T_EQ_U64(tl.mismatched, 0);
    T_CHECK(tl.accepted > 0 && tl.rejected > 0);
    free(buf);
    free(tm);
    free(vals);
}

static void test_mutations(void)
{
    /* The big real wave (~125 KB) costs most per input (jansson); few rounds. */
    struct { const char *label; const char *data; size_t len; size_t rounds, step, tail, numbers; } inputs[] = {
        {"A", FILE_A, strlen(FILE_A), 3000, 1, 0, 400},
        {"nulls", FILE_NULLS, strlen(FILE_NULLS), 1500, 1, 0, 100},
        {"odd", FILE_ODD, strlen(FILE_ODD), 3000, 1, 0, 400},
        {"hub smallest", hub_smallest, hub_smallest_len, 1000, 29, 64, 300},
        {"hub big wave", hub_big_one, hub_big_len, 40, 9973, 6, 20},
    };
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        if (!inputs[i].data)
            continue;
        tally t = {0};
        diff_failures = 0;
        truncations(inputs[i].data, inputs[i].len, inputs[i].step, inputs[i].tail, &t, inputs[i].label);
        mutate_bytes(inputs[i].data, inputs[i].len, inputs[i].rounds, &t, inputs[i].label);
        replace_numbers(inputs[i].data, inputs[i].len, inputs[i].numbers, &t, inputs[i].label);
        structural(inputs[i].data, inputs[i].len, inputs[i].label);
        pretty(inputs[i].data, inputs[i].len, inputs[i].label);
        T_EQ_U64(t.mismatched, 0);
        /* the mutations exercised both outcomes */
        T_CHECK(t.accepted > 0);
        T_CHECK(t.rejected > 0);
        printf("%s: %zu mutated inputs, %zu accepted, %zu rejected by both\n", inputs[i].label,
               t.accepted + t.rejected + t.mismatched, t.accepted, t.rejected);
    }
    generated();
}


/* ---- spare arrays (bundle_parse_wave_spare) ---- */

/* A malloc'd array of cap elements of size elem, filled with junk so a
 * parse that reads stale bytes shows. */
static void *junk(size_t cap, size_t elem)
{
    unsigned char *p = malloc(cap * elem);
    for (size_t i = 0; p && i < cap * elem; i++)
        p[i] = (unsigned char)(0xA5 ^ i);
    return p;
}

static void test_spare(void)
{
    kr_err e;
    char why[256] = "";
    kr_wave plain = {0}, w = {0};
    T_EQ_I64(bundle_parse_wave(FILE_A, strlen(FILE_A), "a.json", &plain, &e), 0);

    /* FILE_A has 2 instructions, 3 timeline entries, 3 waitcnt entries and
     * 4 producers. Spares: insts of 1 (too small: grows), timeline of 8
     * (fits, the same memory is used), waits of 3 (exactly), producers of
     * 2 (grows). */
    bundle_wave_spare sp = {{junk(1, sizeof(kr_inst)), junk(8, sizeof(kr_tl)), junk(3, sizeof(kr_wait_entry)),
                             junk(2, sizeof(uint32_t))}, {1, 8, 3, 2}, {0, 0, 0, 0}};
    void *tl = sp.arr[BUNDLE_SPARE_TIMELINE], *wt = sp.arr[BUNDLE_SPARE_WAITS];
    T_EQ_I64(bundle_parse_wave_spare(FILE_A, strlen(FILE_A), "a.json", &w, &sp, &e), 0);
    T_CHECK(wave_same(&plain, &w, why, sizeof why));
    for (int k = 0; k < BUNDLE_SPARE_KINDS; k++)
        T_CHECK(sp.arr[k] == NULL && sp.cap[k] == 0);        /* every kind taken */
    T_CHECK(w.timeline == tl);
    T_CHECK(w.waits == wt);
    T_EQ_U64(sp.wave_cap[BUNDLE_SPARE_TIMELINE], 8);
    T_EQ_U64(sp.wave_cap[BUNDLE_SPARE_WAITS], 3);
    T_EQ_U64(sp.wave_cap[BUNDLE_SPARE_INSTS], 2);           /* 1 doubled */
    T_EQ_U64(sp.wave_cap[BUNDLE_SPARE_PRODUCERS], 4);       /* 2 doubled */

    /* The wave's arrays handed back as spares for the next file (what a
     * streaming loader does): FILE_ODD (1 instruction, 1 timeline entry,
     * empty waitcnt) takes insts and timeline, leaves waits and producers. */
    bundle_wave_spare next = {{w.insts, w.timeline, w.waits, w.producers},
                              {sp.wave_cap[0], sp.wave_cap[1], sp.wave_cap[2], sp.wave_cap[3]}, {0, 0, 0, 0}};
    w.insts = NULL;                       /* the arrays now belong to next; the name is w's */
    w.timeline = NULL;
    w.waits = NULL;
    w.producers = NULL;
    bundle_wave_release(&w);
    kr_wave odd_plain = {0}, odd = {0};
    T_EQ_I64(bundle_parse_wave(FILE_ODD, strlen(FILE_ODD), "o.json", &odd_plain, &e), 0);
    T_EQ_I64(bundle_parse_wave_spare(FILE_ODD, strlen(FILE_ODD), "o.json", &odd, &next, &e), 0);
    T_CHECK(wave_same(&odd_plain, &odd, why, sizeof why));
    T_CHECK(next.arr[BUNDLE_SPARE_INSTS] == NULL && next.arr[BUNDLE_SPARE_TIMELINE] == NULL);
    T_CHECK(next.arr[BUNDLE_SPARE_WAITS] == wt && next.cap[BUNDLE_SPARE_WAITS] == 3);
    T_CHECK(next.arr[BUNDLE_SPARE_PRODUCERS] != NULL && next.cap[BUNDLE_SPARE_PRODUCERS] == 4);
    T_CHECK(odd.waits == NULL && odd.nwaits == 0 && odd.producers == NULL);   /* [] reads as before */
    T_EQ_U64(next.wave_cap[BUNDLE_SPARE_INSTS], 2);
    T_EQ_U64(next.wave_cap[BUNDLE_SPARE_TIMELINE], 8);
    T_EQ_U64(next.wave_cap[BUNDLE_SPARE_WAITS], 0);
    bundle_wave_release(&odd);
    bundle_wave_release(&odd_plain);

    /* null arrays take nothing */
    kr_wave n = {0};
    T_EQ_I64(bundle_parse_wave_spare(FILE_NULLS, strlen(FILE_NULLS), "n.json", &n, &next, &e), 0);
    T_CHECK(!n.insts && !n.timeline && !n.waits && !n.producers);
    T_CHECK(next.arr[BUNDLE_SPARE_WAITS] == wt);
    for (int k = 0; k < BUNDLE_SPARE_KINDS; k++)
        T_EQ_U64(next.wave_cap[k], 0);
    bundle_wave_release(&n);

    /* An error after a spare was taken: the same error as without spares,
     * the taken array is released with the wave, the others stay. */
    const char *bad = "{\"wave\":{\"begin\":1,\"end\":2,\"simd\":0,\"slot\":0,\"id\":0,"
        "\"instructions\":[[1,2,0,4,1],[2,2,0,4,2]],\"timeline\":[[1,\"x\"]]}}";
    kr_err e1, e2;
    kr_wave b1 = {0}, b2 = {0};
    next.arr[BUNDLE_SPARE_INSTS] = junk(4, sizeof(kr_inst));
    next.cap[BUNDLE_SPARE_INSTS] = 4;
    T_EQ_I64(bundle_parse_wave(bad, strlen(bad), "b.json", &b1, &e1), KR_INPUT);
    T_EQ_I64(bundle_parse_wave_spare(bad, strlen(bad), "b.json", &b2, &next, &e2), KR_INPUT);
    T_EQ_STR(e2.msg, e1.msg);
    T_EQ_STR(e2.where, e1.where);
    T_CHECK(next.arr[BUNDLE_SPARE_INSTS] == NULL);
    T_CHECK(next.arr[BUNDLE_SPARE_WAITS] == wt);
    T_CHECK(b2.insts == NULL && b2.ninsts == 0);
    for (int k = 0; k < BUNDLE_SPARE_KINDS; k++)
        free(next.arr[k]);
    bundle_wave_release(&plain);
}


/* ---- 4. the fast record loops (compact records far from the end) ---- */

/* The checked path's verdict on number text t in field 0..max, written out
 * from the scanner's documented messages: NULL when accepted (value in
 * *v), else the message; path names the field. */
static const char *expect_number(const char *t, uint64_t max, const char *path, char found, uint64_t *v,
                                 char *msg, size_t cap)
{
    size_t len = strlen(t);
    if (len == 0 || t[0] == '+' || t[0] == 'x') {
        snprintf(msg, cap, "expected integer in %s, found '%c'", path, len ? t[0] : found);
        return msg;
    }
    if (strpbrk(t, ".eE")) {
        snprintf(msg, cap, "expected integer in %s, found a real number", path);
        return msg;
    }
    if (t[0] == '-') {
        if (strcmp(t, "-0") == 0) {
            *v = 0;
            return NULL;
        }
        snprintf(msg, cap, "expected a non-negative integer in %s", path);
        return msg;
    }
    if (t[0] == '0' && len > 1)
        return "invalid number (leading zero)";
    if (len > 19 || strtoull(t, NULL, 10) > (uint64_t)INT64_MAX)
        return "integer out of the 64-bit signed range";
    *v = strtoull(t, NULL, 10);
    if (*v > max) {
        snprintf(msg, cap, "integer out of range in %s (maximum %llu)", path, (unsigned long long)max);
        return msg;
    }
    return NULL;
}

/* Number texts: each digit count 1..19 at its smallest and largest value,
 * the field limits (max, max + 1), leading zeros, non-integers. */
static size_t record_texts(char texts[][32], size_t cap)
{
    static const char *const fixed[] = {
        "0", "00", "01", "007", "09999999", "255", "256", "4294967295", "4294967296", "9223372036854775807",
        "9223372036854775808", "18446744073709551616", "99999999999999999999", "-1", "-0", "+1", "1.5",
        "1e3", "", "x",
    };
    size_t n = 0;
    for (int nd = 1; nd <= 19 && n + 2 <= cap; nd++) {
        texts[n][0] = '1';
        memset(texts[n] + 1, '0', (size_t)nd - 1);
        texts[n++][nd] = '\0';
        memset(texts[n], '9', (size_t)nd);
        texts[n++][nd] = '\0';
    }
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0] && n < cap; i++)
        snprintf(texts[n++], 32, "%s", fixed[i]);
    return n;
}

static void test_fast_records(void)
{
    static const uint64_t imax[5] = {INT64_MAX, UINT8_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX};
    static const uint64_t tmax[2] = {UINT8_MAX, INT64_MAX};
    static char texts[80][32];
    size_t nt = record_texts(texts, 80);
    size_t cap = 8192;
    char *buf = malloc(cap);
    diff_failures = 0;
    /* record 10 of 40 (far from the end: the fast loop reaches it) carries
     * text t in field k; instructions (5 fields) and timeline (2 fields) */
    for (int arr = 0; arr < 2; arr++) {
        int nf = arr ? 2 : 5;
        const uint64_t *max = arr ? tmax : imax;
        const char *name = arr ? "timeline" : "instructions";
        for (size_t i = 0; i < nt; i++) {
            for (int k = 0; k < nf; k++) {
                size_t len = 0, at = 0;
                len += (size_t)snprintf(buf + len, cap - len, W0 "\"%s\":[", name);
                for (int r = 0; r < 40; r++) {
                    len += (size_t)snprintf(buf + len, cap - len, "%s[", r ? "," : "");
                    for (int j = 0; j < nf; j++) {
                        len += (size_t)snprintf(buf + len, cap - len, "%s", j ? "," : "");
                        if (r == 10 && j == k)
                            at = len;
                        /* field 0 of instructions is a 6-digit time, the rest 1-3 digits */
                        if (r == 10 && j == k)
                            len += (size_t)snprintf(buf + len, cap - len, "%s", texts[i]);
                        else if (!arr && j == 0)
                            len += (size_t)snprintf(buf + len, cap - len, "%d", 173060 + 4 * r);
                        else
                            len += (size_t)snprintf(buf + len, cap - len, "%d", (r * 37 + j * 11) % (j ? 250 : 5));
                    }
                    len += (size_t)snprintf(buf + len, cap - len, "]");
                }
                len += (size_t)snprintf(buf + len, cap - len, "]}}");
                char path[64], msgbuf[160];
                snprintf(path, sizeof path, "wave.%s[10][%d]", name, k);
                uint64_t want = 0;
                const char *msg = expect_number(texts[i], max[k], path, k + 1 < nf ? ',' : ']', &want, msgbuf,
                                                sizeof msgbuf);
                char *copy = malloc(len);      /* exact size: ASan sees any overread */
                memcpy(copy, buf, len);
                kr_wave w = {0};
                kr_err e;
                int rc = bundle_parse_wave(copy, len, "f.json", &w, &e);
                free(copy);
                if (!msg) {
                    T_EQ_I64(rc, 0);
                    size_t nrec = arr ? w.ntimeline : w.ninsts;
                    T_EQ_U64(nrec, 40);
                    if (!rc && nrec == 40) {
                        uint64_t got = arr ? (k ? w.timeline[10].cycles : w.timeline[10].state)
                                     : k == 0 ? w.insts[10].time : k == 1 ? w.insts[10].cat
                                     : k == 2 ? w.insts[10].stall : k == 3 ? w.insts[10].dur : w.insts[10].line;
                        T_EQ_U64(got, want);
                        /* a neighbour read by the fast loop */
                        T_EQ_U64(arr ? w.timeline[11].cycles : w.insts[11].time,
                                 arr ? (11 * 37 + 11) % 250 : 173060 + 44);
                    }
                } else {
                    char where[32];
                    snprintf(where, sizeof where, "1:%zu", at + 1);
                    T_EQ_I64(rc, KR_INPUT);
                    T_EQ_STR(e.msg, msg);
                    T_EQ_STR(e.where, where);
                    if (rc != KR_INPUT || strcmp(e.msg, msg) != 0 || strcmp(e.where, where) != 0)
                        fprintf(stderr, "  %s field %d text \"%s\": %s %s\n", name, k, texts[i], e.where, e.msg);
                }
                bundle_wave_release(&w);
                T_EQ_I64(differ(buf, len, "fast records"), msg ? 0 : 1);
            }
        }
    }
    /* whitespace inside and between records far from the end: the same
     * model as the compact text */
    static const char *const spaced[] = {
        "[ 173060,1,0,4,12]", "[173060 ,1,0,4,12]", "[173060,1, 0,4,12]", "[173060,1,0,4,12 ]",
        "[173060,1,0,4,\n12]", " [173060,1,0,4,12]", "[173060,1,0,4,12] ",
    };
    for (size_t i = 0; i < sizeof spaced / sizeof spaced[0]; i++) {
        size_t len = (size_t)snprintf(buf, cap, W0 "\"instructions\":[");
        for (int r = 0; r < 12; r++)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", r ? "," : "",
                                    r == 4 ? spaced[i] : "[173060,1,0,4,12]");
        len += (size_t)snprintf(buf + len, cap - len, "]}}");
        kr_wave w = {0};
        kr_err e;
        T_EQ_I64(bundle_parse_wave(buf, len, "s.json", &w, &e), 0);
        T_EQ_U64(w.ninsts, 12);
        size_t bad = 0;
        for (size_t r = 0; r < w.ninsts; r++)
            bad += w.insts[r].time != 173060 || w.insts[r].cat != 1 || w.insts[r].stall != 0 ||
                   w.insts[r].dur != 4 || w.insts[r].line != 12;
        T_EQ_U64(bad, 0);
        bundle_wave_release(&w);
    }
    /* the instructions array last in the file: its final records lie within
     * BUNDLE_SCAN_FAST_SPAN of the end (checked path), the earlier ones not;
     * every cut of the last 300 bytes agrees with jansson on an exact-size
     * copy, and the complete file keeps every value */
    {
        size_t len = (size_t)snprintf(buf, cap, W0 "\"instructions\":[");
        for (int r = 0; r < 60; r++)
            len += (size_t)snprintf(buf + len, cap - len, "%s[%llu,%d,%d,%d,%d]", r ? "," : "",
                                    100000000000000ull + 4ull * (unsigned)r, r % 10, r * 3, r * 3 + 4, 1000 + r);
        len += (size_t)snprintf(buf + len, cap - len, "]}}");
        kr_wave w = {0};
        kr_err e;
        T_EQ_I64(bundle_parse_wave(buf, len, "e.json", &w, &e), 0);
        T_EQ_U64(w.ninsts, 60);
        size_t bad = 0;
        for (size_t r = 0; r < w.ninsts; r++)
            bad += w.insts[r].time != 100000000000000ull + 4 * r || w.insts[r].cat != r % 10 ||
                   w.insts[r].stall != 3 * r || w.insts[r].dur != 3 * r + 4 || w.insts[r].line != 1000 + r;
        T_EQ_U64(bad, 0);
        bundle_wave_release(&w);
        tally t = {0};
        for (size_t n = len - 300; n <= len; n++)
            count(&t, differ(buf, n, "cut records"));
        T_EQ_U64(t.mismatched, 0);
        T_EQ_U64(t.accepted, 1);
        /* cut inside the last record: the checked path names the record */
        char *at = strstr(buf, "[100000000000236,9,177,181,1059]");
        T_CHECK(at != NULL);
        if (at) {
            size_t n = (size_t)(at - buf) + 9;        /* "[10000000" */
            T_EQ_I64(bundle_parse_wave(buf, n, "e.json", &w, &e), KR_INPUT);
            T_EQ_STR(e.msg, "expected ',' or ']' in wave.instructions[59], found end of input");
        }
    }
    free(buf);
}

int main(void)
{
    test_hand_written();
    test_spare();
    test_errors();
    test_fast_records();
    test_hub();
    test_mutations();
    free(hub_smallest);
    free(hub_big_one);
    return t_done("test_load_wave");
}
