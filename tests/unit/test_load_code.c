/* test_load_code.c — code.json loader (docs/formats.md#code-table): layouts, rows,
 * frames, kernels, line map, and the exact input errors; then the streaming
 * parser (bundle_parse_code) against the jansson reference
 * (bundle_parse_code_jansson): every hub code.json and many mutated inputs
 * must be accepted by both with the same model, or rejected by both with
 * the same error (file, position, message). */
#include <glob.h>
#include <string.h>

#include "bundle/load_code.h"
#include "bundle/model.h"
#include "common/file.h"
#include "common/limits.h"
#include "tests/unit/jdiff.h"
#include "tests/unit/t.h"

#define HDR10 "\"header\":\"ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle\""

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

static int parse(kr_capture *c, const char *json, kr_err *err)
{
    kr_err_clear(err);
    return bundle_parse_code(c, json, strlen(json), "code.json", err);
}

static int str_same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* 1 when the two models are equal; otherwise 0 and a reason. */
static int code_same(const kr_capture *a, const kr_capture *b, char *why, size_t cap)
{
#define DIFF(cond, ...) do { if (cond) { snprintf(why, cap, __VA_ARGS__); return 0; } } while (0)
    DIFF(a->layout != b->layout, "layout %d vs %d", a->layout, b->layout);
    DIFF(!str_same(a->code_version, b->code_version), "version");
    DIFF(a->nrows != b->nrows, "nrows %zu vs %zu", a->nrows, b->nrows);
    for (size_t i = 0; i < a->nrows; i++) {
        const kr_code_row *x = &a->rows[i], *y = &b->rows[i];
        DIFF(!str_same(x->isa, y->isa) || !str_same(x->mnemonic, y->mnemonic) || !str_same(x->source, y->source),
             "rows[%zu] text", i);
        DIFF(x->line != y->line || x->kernel != y->kernel || x->codeobj != y->codeobj || x->vaddr != y->vaddr,
             "rows[%zu] line/kernel/codeobj/vaddr", i);
        DIFF(x->hit != y->hit || x->latency != y->latency || x->stall != y->stall || x->idle != y->idle,
             "rows[%zu] cycles", i);
        DIFF(x->pc_issued != y->pc_issued || x->pc_stalled != y->pc_stalled || x->service_type != y->service_type,
             "rows[%zu] pc sampling", i);
        DIFF(x->cls != y->cls || x->is_label != y->is_label || x->zero_col != y->zero_col, "rows[%zu] class", i);
        DIFF(x->nframes != y->nframes, "rows[%zu] nframes", i);
        for (uint32_t f = 0; f < x->nframes; f++)
            DIFF(!str_same(x->frames[f].path, y->frames[f].path) || x->frames[f].line != y->frames[f].line ||
                 x->frames[f].snapshot != y->frames[f].snapshot, "rows[%zu].frames[%u]", i, f);
    }
    DIFF(a->nline_map != b->nline_map, "nline_map");
    for (size_t l = 0; l < a->nline_map; l++)
        DIFF(a->line_to_row[l] != b->line_to_row[l], "line_to_row[%zu]", l);
    return 1;
#undef DIFF
}

/* Both parsers on one input: 1 both accept (same model), 0 both reject (same
 * error), -1 otherwise. */
static int diff_failures;
static int differ(const char *data, size_t len, const char *label)
{
    kr_capture *a = cap_new(), *b = cap_new();
    kr_err ea, eb;
    char *copy = malloc(len ? len : 1);     /* exact size: a sanitizer build sees overreads */
    memcpy(copy, data, len);
    int ra = bundle_parse_code(a, copy, len, "code.json", &ea);
    int rb = bundle_parse_code_jansson(b, copy, len, "code.json", &eb);
    free(copy);
    char why[1600] = "";
    int result;
    if (ra != rb) {
        snprintf(why, sizeof why, "streaming %d (%.60s: %.300s) / jansson %d (%.60s: %.300s)", ra, ea.where,
                 ea.msg, rb, eb.where, eb.msg);
        result = -1;
    } else if (ra == 0) {
        result = code_same(a, b, why, sizeof why) ? 1 : -1;
    } else {
        result = strcmp(ea.file, eb.file) == 0 && strcmp(ea.where, eb.where) == 0 && strcmp(ea.msg, eb.msg) == 0
                     ? 0 : -1;
        if (result < 0)
            snprintf(why, sizeof why, "errors differ: %.60s: %.300s / %.60s: %.300s", ea.where, ea.msg, eb.where,
                     eb.msg);
    }
    if (result < 0)
        jdiff_report(&diff_failures, label, why, data, len);
    cap_free(a);
    cap_free(b);
    return result;
}

/* Parses json expecting an input error at `where` with message `msg`. */
static void expect_err(const char *json, const char *where, const char *msg)
{
    kr_capture *c = cap_new();
    kr_err err;
    int rc = parse(c, json, &err);
    T_EQ_I64(rc, KR_INPUT);
    T_EQ_STR(err.file, "code.json");
    T_EQ_STR(err.where, where);
    T_EQ_STR(err.msg, msg);
    cap_free(c);
}

static void test_ten_columns(void)
{
    const char *json =
        "{\"code\":["
        "[\"; kern_a\",0,0,\"kern_a(int)\",4,5888,0,0,0,0],"
        "[\"s_load_dword s4, s[0:1], 0x3c\",0,1,\"/w/a.py:872\",4,5888,8,32,0,1788],"
        "[\"v_mfma_f32_32x32x16_bf16 v[0:15], v[16:17], v[18:19], v[0:15]\",0,2,"
        "\"/w/b.py:10 ->  -> /w/a.py:3 -> nocolon -> C:/x/y.py:12\",4,5896,2,64,16,0],"
        "[\"S_ENDPGM\",7,3,\"\",4,5904,1,200,0,4]],"
        HDR10 ",\"version\":\"3.0.0\"}";
    kr_capture *c = cap_new();
    kr_err err;
    T_EQ_I64(parse(c, json, &err), 0);
    T_EQ_I64(c->layout, KR_LAYOUT_10);
    T_EQ_STR(c->code_version, "3.0.0");
    T_EQ_U64(c->nrows, 4);
    if (c->nrows == 4) {
        const kr_code_row *r = c->rows;
        T_EQ_STR(r[0].isa, "; kern_a");
        T_EQ_STR(r[0].mnemonic, ";");
        T_EQ_I64(r[0].cls, KR_CLASS_LABEL);
        T_EQ_U64(r[0].is_label, 1);
        T_EQ_STR(r[0].source, "kern_a(int)");
        T_EQ_U64(r[0].nframes, 0);          /* a label's Source is a name (docs/formats.md#label-rows) */
        T_EQ_U64(r[0].kernel, 0);
        T_EQ_I64(r[0].codeobj, 4);
        T_EQ_U64(r[0].vaddr, 5888);

        T_EQ_STR(r[1].mnemonic, "s_load_dword");
        T_EQ_I64(r[1].cls, KR_CLASS_SMEM);
        T_EQ_U64(r[1].is_label, 0);
        T_EQ_U64(r[1].line, 1);
        T_EQ_U64(r[1].kernel, 0);
        T_EQ_U64(r[1].hit, 8);
        T_EQ_U64(r[1].latency, 32);
        T_EQ_U64(r[1].stall, 0);
        T_EQ_U64(r[1].idle, 1788);
        T_EQ_U64(r[1].nframes, 1);
        T_EQ_STR(r[1].frames[0].path, "/w/a.py");
        T_EQ_U64(r[1].frames[0].line, 872);
        T_EQ_I64(r[1].frames[0].snapshot, -1);

        T_EQ_I64(r[2].cls, KR_CLASS_MATRIX);
        T_EQ_U64(r[2].vaddr, 5896);
        T_EQ_U64(r[2].stall, 16);
        /* " -> " split, the empty piece dropped, line after the LAST ':' */
        T_EQ_U64(r[2].nframes, 4);
        if (r[2].nframes == 4) {
            T_EQ_STR(r[2].frames[0].path, "/w/b.py");
            T_EQ_U64(r[2].frames[0].line, 10);
            T_EQ_STR(r[2].frames[1].path, "/w/a.py");
            T_EQ_U64(r[2].frames[1].line, 3);
            T_EQ_STR(r[2].frames[2].path, "nocolon");
            T_EQ_U64(r[2].frames[2].line, 0);
            T_EQ_STR(r[2].frames[3].path, "C:/x/y.py");
            T_EQ_U64(r[2].frames[3].line, 12);
        }
        T_EQ_STR(r[3].mnemonic, "s_endpgm");        /* lower-cased */
        T_EQ_I64(r[3].cls, KR_CLASS_MESSAGE);
        T_EQ_U64(r[3].nframes, 0);
        T_EQ_U64(r[3].idle, 4);
        T_EQ_U64(r[3].pc_issued, 0);
        T_EQ_I64(r[3].zero_col, 7);         /* kept for validate (V-4) */
        T_EQ_I64(r[2].zero_col, 0);
    }
    T_EQ_U64(c->nline_map, 4);
    for (uint32_t l = 0; l < 4 && c->nline_map == 4; l++)
        T_EQ_I64(c->line_to_row[l], l);
    T_CHECK(kr_capture_row(c, 0) == NULL);      /* line 0 = unknown PC */
    T_CHECK(kr_capture_row(c, 2) == &c->rows[2]);
    T_CHECK(kr_capture_row(c, 4) == NULL);
    cap_free(c);
}

static void test_frames(void)
{
    kr_arena a;
    kr_arena_init(&a);
    kr_frame *f;
    uint32_t n;
    T_EQ_I64(bundle_parse_frames(&a, "", &f, &n), 0);
    T_EQ_U64(n, 0);
    T_CHECK(f == NULL);
    T_EQ_I64(bundle_parse_frames(&a, " -> ", &f, &n), 0);
    T_EQ_U64(n, 0);
    /* ":0", trailing ':', non-digits and no ':' are unparsed (line 0, whole text) */
    T_EQ_I64(bundle_parse_frames(&a, "a.py:0 -> b.py: -> c.py:12x -> d.py:4294967295 -> :7", &f, &n), 0);
    T_EQ_U64(n, 5);
    if (n == 5) {
        T_EQ_STR(f[0].path, "a.py:0");
        T_EQ_U64(f[0].line, 0);
        T_EQ_STR(f[1].path, "b.py:");
        T_EQ_U64(f[1].line, 0);
        T_EQ_STR(f[2].path, "c.py:12x");
        T_EQ_U64(f[2].line, 0);
        T_EQ_STR(f[3].path, "d.py");
        T_EQ_U64(f[3].line, 4294967295u);
        T_EQ_STR(f[4].path, "");
        T_EQ_U64(f[4].line, 7);
    }
    T_EQ_I64(bundle_parse_frames(&a, "x.py:1 -> ", &f, &n), 0);
    T_EQ_U64(n, 1);
    T_EQ_I64(bundle_parse_frames(&a, "d.py:4294967296", &f, &n), 0);   /* > UINT32_MAX */
    T_EQ_U64(n, 1);
    T_EQ_U64(f[0].line, 0);
    kr_arena_free(&a);
}

/* Kernels follow LineNumber order, not file order; sparse line maps. */
static void test_kernels_and_map(void)
{
    const char *json =
        "{\"code\":["
        "[\"v_add_f32 v1, v2, v3\",0,7,\"\",1,112,0,0,0,0],"
        "[\"; k2\",0,5,\"\",1,100,0,0,0,0],"
        "[\"; k1\",0,0,\"\",1,0,0,0,0,0],"
        "[\"s_nop 0\",0,1,\"\",1,4,0,0,0,0]],"
        HDR10 "}";
    kr_capture *c = cap_new();
    kr_err err;
    T_EQ_I64(parse(c, json, &err), 0);
    T_EQ_U64(c->nrows, 4);
    T_EQ_U64(c->nline_map, 8);
    if (c->nrows == 4 && c->nline_map == 8) {
        static const int32_t map[8] = {2, 3, -1, -1, -1, 1, -1, 0};
        for (int l = 0; l < 8; l++)
            T_EQ_I64(c->line_to_row[l], map[l]);
        T_EQ_U64(c->rows[0].kernel, 1);     /* line 7 follows label line 5 (row 1) */
        T_EQ_U64(c->rows[1].kernel, 1);
        T_EQ_U64(c->rows[2].kernel, 2);
        T_EQ_U64(c->rows[3].kernel, 2);
        T_EQ_I64(c->rows[0].cls, KR_CLASS_VALU);
        T_EQ_I64(c->rows[3].cls, KR_CLASS_NOP);
        T_CHECK(c->code_version == NULL);
    }
    cap_free(c);

    c = cap_new();
    T_EQ_I64(parse(c, "{\"code\":[[\"s_nop 0\",0,3,\"\",1,4,0,0,0,0]]," HDR10 "}", &err), 0);
    T_EQ_U64(c->nrows, 1);
    T_EQ_U64(c->rows[0].kernel, UINT32_MAX);
    cap_free(c);
}

static void test_pc_layouts(void)
{
    kr_capture *c = cap_new();
    kr_err err;
    const char *j13 =
        "{\"code\":[[\"s_nop 0\",0,1,\"\",2,16,0,0,0,0,5,7,[1,2,0,4,0,0,0,0,0,0]]],"
        "\"header\":[\"ISA\",\"_\",\"LineNumber\",\"Source\",\"Codeobj\",\"Vaddr\",\"Hit\",\"Latency\","
        "\"Stall\",\"Idle\",\"PC_Issued\",\"PC_Stalled\",\"Stall_Reasons\"],\"version\":\"3.0.0\"}";
    T_EQ_I64(parse(c, j13, &err), 0);
    T_EQ_I64(c->layout, KR_LAYOUT_13);
    T_EQ_U64(c->nrows, 1);
    T_EQ_U64(c->rows[0].pc_issued, 5);
    T_EQ_U64(c->rows[0].pc_stalled, 7);
    cap_free(c);

    c = cap_new();
    /* Columns are found by name, in any order. */
    const char *j14 =
        "{\"code\":[[0,\"v_mov_b32 v0, 0\",9,\"\",3,32,1,8,4,0,2,11,12,[0,1,2,3,4,5,6,7]]],"
        "\"header\":\"_, ISA, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle, "
        "ServiceType, Issued, Stalled, NotIssuedReasons\",\"version\":\"3.0.0\"}";
    T_EQ_I64(parse(c, j14, &err), 0);
    T_EQ_I64(c->layout, KR_LAYOUT_14);
    T_EQ_STR(c->rows[0].isa, "v_mov_b32 v0, 0");
    T_EQ_U64(c->rows[0].line, 9);
    T_EQ_U64(c->rows[0].latency, 8);
    T_EQ_U64(c->rows[0].stall, 4);
    T_EQ_I64(c->rows[0].service_type, 2);
    T_EQ_U64(c->rows[0].pc_issued, 11);
    T_EQ_U64(c->rows[0].pc_stalled, 12);
    T_EQ_U64(c->nline_map, 10);
    cap_free(c);

    /* Empty shell: "code": null (docs/formats.md#capture-files, V-1). */
    c = cap_new();
    T_EQ_I64(parse(c, "{\"code\":null," HDR10 ",\"version\":\"3.0.0\"}", &err), 0);
    T_EQ_I64(c->layout, KR_LAYOUT_NONE);
    T_EQ_U64(c->nrows, 0);
    T_EQ_U64(c->nline_map, 0);
    T_CHECK(kr_capture_row(c, 1) == NULL);
    cap_free(c);
}

static void test_errors(void)
{
    expect_err("{\"code\":[[\"s_nop 0\",0,1,\"\",1,4,\"8\",0,0,0]]," HDR10 "}",
               "$.code[0][6]", "Hit: expected a non-negative integer, found a string");
    expect_err("{\"code\":[[\"s_nop 0\",0,1,\"\",1,4,1,4,-4,0]]," HDR10 "}",
               "$.code[0][8]", "Stall: expected a non-negative integer, found -4");
    expect_err("{\"code\":[[\"s_nop 0\",0,1,\"\",1,4,1,4.0,0,0]]," HDR10 "}",
               "$.code[0][7]", "Latency: expected a non-negative integer, found a real number");
    expect_err("{\"code\":[[\"s_nop 0\",0,1,7,1,4,1,4,0,0]]," HDR10 "}",
               "$.code[0][3]", "Source: expected a string, found an integer");
    expect_err("{\"code\":[[\"s_nop 0\",0,1,\"\",1,4,1,4,0,0],{}]," HDR10 "}",
               "$.code[1]", "expected an array, found an object");
    expect_err("{\"code\":{}," HDR10 "}", "$.code", "expected an array, found an object");
    expect_err("{" HDR10 "}", "$", "missing key \"code\"");
    expect_err("{\"code\":[],\"top_n\":[]}", "$",
               "missing key \"header\": not a rocprofv3 code.json (format 3.0.0); "
               "a code.json without a header is the legacy rocprofv2 ATT plugin format");
    /* column 17: the closing quote of the second "code" */
    expect_err("{\"code\":[],\"code\":[]," HDR10 "}", "$.code",
               "duplicate key \"code\" (line 1, column 17)");
    expect_err("{\"code\":[],\"header\":\"ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle, Foo\"}",
               "$.header", "unknown column name \"Foo\" in header "
               "\"ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle, Foo\"");
    expect_err("{\"code\":[],\"header\":\"ISA, Hit, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle\"}",
               "$.header", "duplicate column name \"Hit\" in header "
               "\"ISA, Hit, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle\"");
    expect_err("{\"code\":[],\"header\":[\"ISA\",\"_\",\"LineNumber\",\"Source\",\"Codeobj\",\"Vaddr\",\"Hit\",\"Latency\",\"Stall\"]}",
               "$.header", "missing required column \"Idle\" in header "
               "\"ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall\"");
    expect_err("{\"code\":[],\"header\":[\"ISA\",3]}", "$.header[1]", "expected a string, found an integer");
    expect_err("{\"code\":[],\"header\":7}", "$.header",
               "expected a string or an array of column names, found an integer");
    expect_err("{\"code\":[[\"s_nop 0\",0,1,\"\",1,4,1,4,0]]," HDR10 "}", "$.code[0]",
               "row has 9 elements, the header \"ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, "
               "Latency, Stall, Idle\" names 10 columns");
    expect_err("{\"code\":[[\"; k\",0,0,\"\",1,4,0,0,0,0],[\"s_nop 0\",0,1,\"\",1,4,1,4,0,0],"
               "[\"s_nop 1\",0,1,\"\",1,8,1,4,0,0]]," HDR10 "}",
               "$.code[2][2]", "duplicate LineNumber 1 (already used by $.code[1])");
    expect_err("{\"code\":[[\"s_nop 0\",0,16777217,\"\",1,4,1,4,0,0]]," HDR10 "}",
               "$.code[0][2]", "LineNumber: expected an integer in [0, KR_MAX_LINE_NUMBER = 16777216], found 16777217");
    expect_err("{\"code\":[[\"s_nop 0\",0,-1,\"\",1,4,1,4,0,0]]," HDR10 "}",
               "$.code[0][2]", "LineNumber: expected an integer in [0, KR_MAX_LINE_NUMBER = 16777216], found -1");
    expect_err("{\"code\":[[\"s_nop 0\",0,1,\"\",1,4,1,4,0,0]]," HDR10 ",\"version\":3}",
               "$.version", "expected a string, found an integer");
    /* > 2^63 - 1: jansson refuses it (never a double); column 53 is the last digit */
    expect_err("{\"code\":[[\"s_nop 0\",0,1,\"\",1,4,1,99999999999999999999,0,0]]," HDR10 "}",
               "$.code[0][7]", "invalid JSON: too big integer near '99999999999999999999' (line 1, column 53)");
    expect_err("[1]", "$", "expected an object, found an array");
}

/* Hand-written inputs of every shape both parsers must agree on. */
static void test_differential_cases(void)
{
    static const char *const ok[] = {
        "{\"code\":[[\"; k\",0,0,\"k()\",1,0,0,0,0,0],[\"s_nop 0\",0,1,\"a.py:1 -> b.py:2\",1,4,1,2,0,3]]," HDR10 "}",
        /* whitespace everywhere, escapes, unknown members of every type, key order */
        " {\r\n \"version\" : \"3.\\u0030.0\" , \"x\" : {\"a\":[1,2.5,-3e2,true,false,null,\"\\u00e9\"]},\n"
        "  \"header\" : [ \"ISA\" , \"_\",\"LineNumber\",\"Source\",\"Codeobj\",\"Vaddr\",\"Hit\","
        "\"Latency\",\"Stall\",\"Idle\" ] ,\n  \"code\" : [ [ \"V_ADD_F32\\tv1\" , -0 , 2 , \"\\/w\\\\x.py:7\" ,"
        " -5 , 9223372036854775807 , 0 , 1 , 2 , 3 ] ] }\n",
        "{\"code\":null," HDR10 "}",
        "{\"code\":[]," HDR10 ",\"version\":\"\"}",
        "{\"header\":\" ISA ,\\t_, LineNumber,Source,Codeobj,Vaddr,Hit,Latency,Stall,Idle,ServiceType,Issued,"
        "Stalled,NotIssuedReasons\",\"code\":[[\"v_mfma x\",0,1,\"\",2,8,1,2,3,4,-1,5,6,[0,1,2]]]}",
        "{\"header\":[\"ISA\",\"_\",\"LineNumber\",\"Source\",\"Codeobj\",\"Vaddr\",\"Hit\",\"Latency\","
        "\"Stall\",\"Idle\",\"PC_Issued\",\"PC_Stalled\",\"Stall_Reasons\"],\"code\":[[\"s_waitcnt 0\",0,16777216,"
        "\"\",2,8,1,2,3,4,5,6,[]]]}",
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        T_EQ_I64(differ(ok[i], strlen(ok[i]), "accepted case"), 1);
    static const char *const bad[] = {
        "", "  ", "7", "null", "[]", "{}", "{\"code\":[]}", "{\"header\":\"ISA\"}",
        "{\"code\":[[\"s_nop 0\",0,1,\"\",1,4,1,4,0,0],]," HDR10 "}",
        "{\"code\":[[\"s_nop 0\",0,1,\"\",1,4,1,4,0,0,9]]," HDR10 "}",
        "{\"code\":[[1,0,1,\"\",1,4,1,4,0]]," HDR10 "}",                         /* length before cells */
        "{\"code\":[[\"s_nop 0\",0,1,\"\",1,4,1,4,0,0]]," HDR10 ",\"header\":1}",
        "{\"code\":[[\"s_nop 0\",0,1,\"\",1,4,1,4,0,0]],\"header\":[\"ISA\",\"ISA\"]}",
        "{\"code\":[[\"s_nop 0\",0,1,\"\",1,4,1,4,0,0]],\"header\":[1,\"Foo\"]}",  /* type before name */
        "{\"code\":[[\"s_nop 0\",0,1,\"\",1,4,1,4,0,0]]," HDR10 ",\"version\":null}",
        "{\"code\":[[\"s_nop 0\",0,1,\"\",1,4,1,4,0,0]," HDR10 "}",
        "{\"code\":7," HDR10 "}",
        "{\"header\":\"ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle, NotIssuedReasons\","
        "\"code\":[[\"s_nop 0\",0,1,\"\",1,4,1,4,0,0,[1,-2,3.5]]]}",
        "{\"header\":\"ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle, Stall_Reasons\","
        "\"code\":[[\"s_nop 0\",0,1,\"\",1,4,1,4,0,0,{}]]}",
        "{\"code\":[[\"s_nop 0\",0,1,\"\",1,4,1,4,0,0],[\"s_nop 0\",0,1,\"\",1,4,1,4,0,0]]," HDR10 "}",
        "{\"x\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
        "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],\"code\":[]}",
        /* nesting deeper than KR_MAX_JSON_DEPTH, even in an ignored member (limits.h) */
        "{\"x\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
        "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],\"code\":[]," HDR10 "}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        T_EQ_I64(differ(bad[i], strlen(bad[i]), "rejected case"), 0);

    /* a string of KR_MAX_STRING_BYTES passes, one byte more fails */
    for (int extra = 0; extra <= 1; extra++) {
        size_t n = KR_MAX_STRING_BYTES + (size_t)extra, k = 0;
        char *big = malloc(n + 256);
        k += (size_t)snprintf(big, 32, "{\"code\":[[\"s_nop 0\",0,1,\"");
        memset(big + k, 'a', n);
        k += n;
        k += (size_t)snprintf(big + k, 200, "\",1,4,1,4,0,0]]," HDR10 "}");
        T_EQ_I64(differ(big, k, "long Source"), extra ? 0 : 1);
        free(big);
    }
}

/* Every hub code.json, then mutations of a cut-down one. */
static void test_differential_hub(void)
{
    const char *hub = t_hub();
    if (!hub) {
        printf("test_load_code: hub fixtures absent, skipping the real code.json files\n");
        return;
    }
    char pattern[4096];
    snprintf(pattern, sizeof pattern, "%s/examples/*/att_viewer/*/ui_output_*/code.json", hub);
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
            T_CHECK(!"cannot read a hub code.json");
            continue;
        }
        T_EQ_I64(differ(data, len, g.gl_pathv[i]), 1);
        /* the seed for mutations: the first 12 rows of the smallest file */
        if (!seed || len < seed_len) {
            free(seed);
            const char *p = data;
            for (int rows = 0; rows < 13 && p; rows++)
                p = strstr(p + 1, "],[");
            const char *hdr = strstr(data, "]],\"header\"");
            if (p && hdr && p < hdr) {
                size_t head = (size_t)(p - data) + 1, tail = len - (size_t)(hdr - data) - 1;
                seed = malloc(head + tail);
                memcpy(seed, data, head);
                memcpy(seed + head, hdr + 1, tail);
                seed_len = head + tail;
            } else {
                seed = NULL;
            }
        }
        free(data);
    }
    globfree(&g);
    T_CHECK(seed != NULL);
    if (!seed)
        return;
    T_EQ_I64(differ(seed, seed_len, "seed"), 1);
    jdiff_tally t = {0};
    jdiff_mutate(seed, seed_len, 3000, differ, &t);
    printf("test_load_code: %zu mutations: %zu accepted by both, %zu rejected by both, %zu mismatched\n",
           t.accepted + t.rejected + t.mismatched, t.accepted, t.rejected, t.mismatched);
    T_EQ_U64(t.mismatched, 0);
    T_CHECK(t.accepted > 100 && t.rejected > 1000);
    free(seed);
}

int main(void)
{
    test_ten_columns();
    test_frames();
    test_kernels_and_map();
    test_pc_layouts();
    test_errors();
    test_differential_cases();
    test_differential_hub();
    return t_done("test_load_code");
}
