/* test_load_code.c — code.json loader (FORMATS.md §2): layouts, rows,
 * frames, kernels, line map, and the exact input errors. */
#include <string.h>

#include "bundle/load_code.h"
#include "bundle/model.h"
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
        T_EQ_U64(r[0].nframes, 0);          /* a label's Source is a name (§2.4) */
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

    /* Empty shell: "code": null (§1.2, V-1). */
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
               "$.code[0][2]", "LineNumber: expected an integer in [0, 16777216], found 16777217");
    expect_err("{\"code\":[[\"s_nop 0\",0,-1,\"\",1,4,1,4,0,0]]," HDR10 "}",
               "$.code[0][2]", "LineNumber: expected an integer in [0, 16777216], found -1");
    expect_err("{\"code\":[[\"s_nop 0\",0,1,\"\",1,4,1,4,0,0]]," HDR10 ",\"version\":3}",
               "$.version", "expected a string, found an integer");
    /* > 2^63 - 1: jansson refuses it (never a double); column 53 is the last digit */
    expect_err("{\"code\":[[\"s_nop 0\",0,1,\"\",1,4,1,99999999999999999999,0,0]]," HDR10 "}",
               "$.code[0][7]", "invalid JSON: too big integer near '99999999999999999999' (line 1, column 53)");
    expect_err("[1]", "$", "expected an object, found an array");
}

int main(void)
{
    test_ten_columns();
    test_frames();
    test_kernels_and_map();
    test_pc_layouts();
    test_errors();
    return t_done("test_load_code");
}
