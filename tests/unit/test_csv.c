/* test_csv.c — the RFC 4180 reader (bundle/csv.h) and the typed rocprofv3
 * CSVs (bundle/load_csv.h), docs/formats.md#rocprofv3-csvs. Hand-written inputs for every
 * lexical rule and both dialects; the hub CSVs checked against docs/formats.md
 * figures and against each other (kernel_stats recomputed from kernel_trace). */
#include <dirent.h>

#include "bundle/csv.h"
#include "bundle/load_csv.h"
#include "common/buf.h"
#include "common/file.h"
#include "common/limits.h"
#include "tests/unit/t.h"

static int parse(kr_arena *a, const char *text, bundle_csv *t, kr_err *err)
{
    kr_err_clear(err);
    return bundle_csv_parse(a, text, strlen(text), "mem.csv", t, err);
}

static void test_basic(void)
{
    kr_arena a;
    kr_arena_init(&a);
    bundle_csv t;
    kr_err err;
    T_EQ_I64(parse(&a, "\"A\",\"B\",C\n1,\"x y\",\n\"\",2,\"z\"\n", &t, &err), 0);
    T_EQ_U64(t.ncols, 3);
    T_EQ_U64(t.nrows, 2);
    T_EQ_STR(t.header[0], "A");
    T_EQ_STR(t.header[2], "C");
    T_EQ_U64(t.header_quoted[0], 1);
    T_EQ_U64(t.header_quoted[2], 0);
    T_EQ_STR(bundle_csv_cell(&t, 0, 0), "1");
    T_EQ_U64(bundle_csv_cell_quoted(&t, 0, 0), 0);
    T_EQ_STR(bundle_csv_cell(&t, 0, 1), "x y");
    T_EQ_U64(bundle_csv_cell_quoted(&t, 0, 1), 1);
    T_EQ_STR(bundle_csv_cell(&t, 0, 2), "");           /* trailing comma: empty last field */
    T_EQ_U64(bundle_csv_cell_quoted(&t, 0, 2), 0);
    T_EQ_STR(bundle_csv_cell(&t, 1, 0), "");           /* "" is an empty quoted field */
    T_EQ_U64(bundle_csv_cell_quoted(&t, 1, 0), 1);
    T_EQ_U64(t.lines[0], 2);
    T_EQ_U64(t.lines[1], 3);
    T_EQ_I64(bundle_csv_col(&t, "B"), 1);
    T_EQ_I64(bundle_csv_col(&t, "D"), -1);
    T_EQ_STR(t.path, "mem.csv");

    /* "" escapes, quoted commas and quoted newlines (line numbers follow). */
    T_EQ_I64(parse(&a, "Name,V\n\"say \"\"hi\"\", a,b\",1\n\"two\nlines\",2\nlast,3", &t, &err), 0);
    T_EQ_U64(t.nrows, 3);
    T_EQ_STR(bundle_csv_cell(&t, 0, 0), "say \"hi\", a,b");
    T_EQ_STR(bundle_csv_cell(&t, 1, 0), "two\nlines");
    T_EQ_U64(t.lines[1], 3);
    T_EQ_U64(t.lines[2], 5);                           /* the quoted newline counts as a line */
    T_EQ_STR(bundle_csv_cell(&t, 2, 1), "3");          /* no final newline */

    /* CRLF line ends and a UTF-8 BOM. */
    T_EQ_I64(parse(&a, "\xEF\xBB\xBF\"Name\",\"Calls\"\r\n\"k\",9\r\n\"m\r\nn\",1\r\n", &t, &err), 0);
    T_EQ_STR(t.header[0], "Name");
    T_EQ_U64(t.nrows, 2);
    T_EQ_STR(bundle_csv_cell(&t, 0, 1), "9");
    T_EQ_STR(bundle_csv_cell(&t, 1, 0), "m\r\nn");     /* quoted CRLF kept as written */

    /* Trailing blank lines are not rows; a header alone is a table of 0 rows. */
    T_EQ_I64(parse(&a, "A,B\n1,2\n\n\r\n\n", &t, &err), 0);
    T_EQ_U64(t.nrows, 1);
    T_EQ_I64(parse(&a, "A,B\n", &t, &err), 0);
    T_EQ_U64(t.nrows, 0);
    T_EQ_U64(t.ncols, 2);
    /* A one-column table: a blank line in the middle is an empty record. */
    T_EQ_I64(parse(&a, "A\nx\n\ny\n", &t, &err), 0);
    T_EQ_U64(t.nrows, 3);
    T_EQ_STR(bundle_csv_cell(&t, 1, 0), "");
    kr_arena_free(&a);
}

static void expect_error(const char *text, const char *where, const char *msg_part)
{
    kr_arena a;
    kr_arena_init(&a);
    bundle_csv t;
    kr_err err;
    int rc = parse(&a, text, &t, &err);
    T_EQ_I64(rc, KR_INPUT);
    T_EQ_STR(err.file, "mem.csv");
    if (where)
        T_EQ_STR(err.where, where);
    T_CHECK(strstr(err.msg, msg_part) != NULL);
    if (!strstr(err.msg, msg_part))
        fprintf(stderr, "  message was: %s\n", err.msg);
    kr_arena_free(&a);
}

static void test_errors(void)
{
    expect_error("A,B,C\n1,2,3\n4,5\n", "line 3", "row 2 has 2 fields, header has 3");
    expect_error("A,B\n1,2,3\n", "line 2", "row 1 has 3 fields, header has 2");
    /* A quoted newline shifts the line of the ragged row. */
    expect_error("A,B\n\"x\ny\",1\n2\n", "line 4", "row 2 has 1 fields, header has 2");
    expect_error("A,B\n1,\"open\n", "2:3", "unterminated quoted field");
    expect_error("A,B\n1,ab\"c\n", "2:5", "quote inside an unquoted field");
    expect_error("A,B\n\"x\"y,1\n", "2:4", "after a closing quote");
    expect_error("A,B\r1,2\n", "1:4", "carriage return");
    expect_error("", NULL, "empty CSV");
    expect_error("\xEF\xBB\xBF", NULL, "empty CSV");
    expect_error("\n\n", NULL, "empty CSV");

    kr_arena a;
    kr_arena_init(&a);
    bundle_csv t;
    kr_err err;
    const char nul_text[] = "A,B\n1,x\0y\n";
    T_EQ_I64(bundle_csv_parse(&a, nul_text, sizeof nul_text - 1, "mem.csv", &t, &err), KR_INPUT);
    T_CHECK(strstr(err.msg, "NUL") != NULL);

    /* KR_MAX_CSV_FIELDS: exactly the limit passes, one more fails. */
    kr_buf b;
    kr_buf_init(&b);
    for (int i = 0; i < KR_MAX_CSV_FIELDS; i++)
        kr_buf_puts(&b, i ? ",c" : "c");
    kr_buf_puts(&b, "\n");
    T_EQ_I64(bundle_csv_parse(&a, b.data, b.len, "wide.csv", &t, &err), 0);
    T_EQ_U64(t.ncols, KR_MAX_CSV_FIELDS);
    kr_buf_reset(&b);
    for (int i = 0; i <= KR_MAX_CSV_FIELDS; i++)
        kr_buf_puts(&b, i ? ",c" : "c");
    T_EQ_I64(bundle_csv_parse(&a, b.data, b.len, "wide.csv", &t, &err), KR_INPUT);
    T_CHECK(strstr(err.msg, "KR_MAX_CSV_FIELDS") != NULL);
    kr_buf_free(&b);
    kr_arena_free(&a);
}

/* ---- typed CSVs, hand-written ---- */

static const char *CURRENT_TRACE =
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\","
    "\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\","
    "\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\","
    "\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n"
    "\"KERNEL_DISPATCH\",\"Agent 3\",1,0,77,12,195,\"k<int, 2>(a, b)\",12,1000,1500,512,16,128,64,96,"
    "256,1,1,131072,2,3\n";

static void test_kernel_trace_dialects(void)
{
    kr_arena a;
    kr_arena_init(&a);
    kr_err err;
    kr_kernel_trace *kt;
    T_EQ_I64(bundle_parse_kernel_trace(&a, CURRENT_TRACE, strlen(CURRENT_TRACE), "t.csv", &kt, &err), 0);
    T_EQ_U64(kt->nrows, 1);
    T_EQ_U64(kt->old_dialect, 0);
    T_EQ_U64(kt->agent_index, KR_AGENT_RELATIVE);
    kr_dispatch *d = &kt->rows[0];
    T_EQ_I64(d->agent, 3);
    T_EQ_U64(d->dispatch_id, 12);
    T_EQ_U64(d->kernel_id, 195);
    T_EQ_STR(d->kernel_name, "k<int, 2>(a, b)");
    T_EQ_U64(d->correlation_id, 12);
    T_EQ_U64(d->end_ns - d->start_ns, 500);
    T_EQ_I64(d->lds_bytes, 512);
    T_EQ_I64(d->scratch_bytes, 16);
    T_EQ_I64(d->vgpr, 128);
    T_EQ_I64(d->accum_vgpr, 64);
    T_EQ_I64(d->sgpr, 96);
    T_EQ_U64(d->wg[0], 256);
    T_EQ_U64(d->grid[0], 131072);
    T_EQ_U64(d->grid[1], 2);
    T_EQ_U64(d->grid[2], 3);
    T_EQ_STR(kt->path, "t.csv");

    /* Old dialect (rocprofiler-sdk <= late 2024): numeric Agent_Id,
     * Private/Group_Segment_Size, no register columns. Columns shuffled and an
     * unknown extra column: names decide. */
    const char *old =
        "Kind,Agent_Id,Queue_Id,Thread_Id,Dispatch_Id,Kernel_Id,Kernel_Name,Correlation_Id,"
        "Start_Timestamp,End_Timestamp,Private_Segment_Size,Group_Segment_Size,Workgroup_Size_X,"
        "Workgroup_Size_Y,Workgroup_Size_Z,Grid_Size_X,Grid_Size_Y,Grid_Size_Z,Extra\n"
        "\"KERNEL_DISPATCH\",2,9,5,7,44,\"kern\",8,100,350,32,49152,64,2,1,4096,8,1,\"whatever\"\n"
        "\"KERNEL_DISPATCH\",5,9,5,8,44,\"kern\",9,400,450,0,0,64,1,1,64,1,1,\"\"\n";
    T_EQ_I64(bundle_parse_kernel_trace(&a, old, strlen(old), "old.csv", &kt, &err), 0);
    T_EQ_U64(kt->old_dialect, 1);
    T_EQ_U64(kt->agent_index, KR_AGENT_NUMERIC);
    T_EQ_U64(kt->nrows, 2);
    T_EQ_I64(kt->rows[0].agent, 2);
    T_EQ_I64(kt->rows[1].agent, 5);
    T_EQ_I64(kt->rows[0].lds_bytes, 49152);
    T_EQ_I64(kt->rows[0].scratch_bytes, 32);
    T_EQ_I64(kt->rows[0].vgpr, -1);
    T_EQ_I64(kt->rows[0].accum_vgpr, -1);
    T_EQ_I64(kt->rows[0].sgpr, -1);
    T_EQ_U64(kt->rows[0].wg[1], 2);
    T_EQ_U64(kt->rows[0].grid[1], 8);
    T_EQ_U64(kt->rows[1].end_ns - kt->rows[1].start_ns, 50);

    /* Shuffled current dialect without Accum_VGPR_Count, "GPU N" agents. */
    const char *typed =
        "Grid_Size_Z,Grid_Size_Y,Grid_Size_X,Workgroup_Size_Z,Workgroup_Size_Y,Workgroup_Size_X,"
        "SGPR_Count,VGPR_Count,Scratch_Size,LDS_Block_Size,End_Timestamp,Start_Timestamp,"
        "Correlation_Id,Kernel_Name,Kernel_Id,Dispatch_Id,Agent_Id\n"
        "1,1,512,1,1,512,32,8,0,0,20,10,1,\"copy\",8,1,\"GPU 0\"\n";
    T_EQ_I64(bundle_parse_kernel_trace(&a, typed, strlen(typed), "typed.csv", &kt, &err), 0);
    T_EQ_U64(kt->agent_index, KR_AGENT_TYPED);
    T_EQ_I64(kt->rows[0].agent, 0);
    T_EQ_I64(kt->rows[0].accum_vgpr, -1);
    T_EQ_I64(kt->rows[0].vgpr, 8);
    T_EQ_I64(kt->rows[0].sgpr, 32);
    T_EQ_U64(kt->rows[0].grid[0], 512);
    T_EQ_STR(kt->rows[0].kernel_name, "copy");
    kr_arena_free(&a);
}

static void expect_typed_error(int which, const char *text, const char *where, const char *msg_part)
{
    kr_arena a;
    kr_arena_init(&a);
    kr_err err;
    kr_err_clear(&err);
    int rc;
    void *out = NULL;
    switch (which) {
    case 0: rc = bundle_parse_kernel_trace(&a, text, strlen(text), "bad.csv", (kr_kernel_trace **)&out, &err); break;
    case 1: rc = bundle_parse_agent_info(&a, text, strlen(text), "bad.csv", (kr_agent_info **)&out, &err); break;
    case 2: rc = bundle_parse_kernel_stats(&a, text, strlen(text), "bad.csv", (kr_kernel_stats **)&out, &err); break;
    default: rc = bundle_parse_counter_csv(&a, text, strlen(text), "bad.csv", (bundle_counter_csv **)&out, &err); break;
    }
    T_EQ_I64(rc, KR_INPUT);
    T_CHECK(out == NULL);
    T_EQ_STR(err.file, "bad.csv");
    if (where)
        T_EQ_STR(err.where, where);
    T_CHECK(strstr(err.msg, msg_part) != NULL);
    if (!strstr(err.msg, msg_part))
        fprintf(stderr, "  message was: %s\n", err.msg);
    kr_arena_free(&a);
}

static void test_typed_errors(void)
{
    /* Missing required columns, named. */
    expect_typed_error(0, "Agent_Id,Dispatch_Id\n\"Agent 1\",3\n", "line 1", "missing column Kernel_Id");
    char buf[4096];
    /* Drop Kernel_Name from the current-dialect header and row. */
    snprintf(buf, sizeof buf, "%s",
             "Agent_Id,Dispatch_Id,Kernel_Id,Correlation_Id,Start_Timestamp,End_Timestamp,LDS_Block_Size,"
             "Scratch_Size,VGPR_Count,SGPR_Count,Workgroup_Size_X,Workgroup_Size_Y,Workgroup_Size_Z,"
             "Grid_Size_X,Grid_Size_Y,Grid_Size_Z\n");
    expect_typed_error(0, buf, "line 1", "missing column Kernel_Name");
    /* Neither LDS_Block_Size nor Group_Segment_Size. */
    expect_typed_error(0,
                       "Agent_Id,Dispatch_Id,Kernel_Id,Kernel_Name,Correlation_Id,Start_Timestamp,End_Timestamp,"
                       "Workgroup_Size_X,Workgroup_Size_Y,Workgroup_Size_Z,Grid_Size_X,Grid_Size_Y,Grid_Size_Z\n",
                       "line 1", "LDS_Block_Size");
    /* Current dialect requires the register columns. */
    expect_typed_error(0,
                       "Agent_Id,Dispatch_Id,Kernel_Id,Kernel_Name,Correlation_Id,Start_Timestamp,End_Timestamp,"
                       "LDS_Block_Size,Scratch_Size,SGPR_Count,Workgroup_Size_X,Workgroup_Size_Y,Workgroup_Size_Z,"
                       "Grid_Size_X,Grid_Size_Y,Grid_Size_Z\n",
                       "line 1", "missing column VGPR_Count");
    /* A non-integer in an integer column: row, line and column name. */
    snprintf(buf, sizeof buf, "%s", CURRENT_TRACE);
    char *p = strstr(buf, ",12,195,");
    memcpy(p, ",1x,195,", 8);
    expect_typed_error(0, buf, "line 2", "row 1, column Dispatch_Id: expected a non-negative integer, found \"1x\"");
    snprintf(buf, sizeof buf, "%s", CURRENT_TRACE);
    p = strstr(buf, ",128,64,96,");
    memcpy(p, ",12.5,6,96,", 11);
    expect_typed_error(0, buf, "line 2", "column VGPR_Count: expected an integer, found \"12.5\"");
    /* Workgroup and grid sizes must fit 32 bits. */
    snprintf(buf, sizeof buf, "%s", CURRENT_TRACE);
    p = strstr(buf, "131072,2,3");
    memcpy(p, "999999999999,2,3\n", 18);
    expect_typed_error(0, buf, "line 2", "column Grid_Size_X");
    /* Agent_Id forms: unknown form, and forms mixed across rows. */
    snprintf(buf, sizeof buf, "%s", CURRENT_TRACE);
    p = strstr(buf, "Agent 3");
    memcpy(p, "Node 3 ", 7);
    expect_typed_error(0, buf, "line 2", "column Agent_Id");
    expect_typed_error(0,
                       "Agent_Id,Dispatch_Id,Kernel_Id,Kernel_Name,Correlation_Id,Start_Timestamp,End_Timestamp,"
                       "Private_Segment_Size,Group_Segment_Size,Workgroup_Size_X,Workgroup_Size_Y,Workgroup_Size_Z,"
                       "Grid_Size_X,Grid_Size_Y,Grid_Size_Z\n"
                       "\"Agent 2\",1,1,\"k\",1,0,1,0,0,1,1,1,1,1,1\n"
                       "2,2,1,\"k\",2,0,1,0,0,1,1,1,1,1,1\n",
                       "line 3", "Agent_Id: expected the same form as in row 1");
    /* Duplicate used column. */
    expect_typed_error(2, "Name,Calls,Calls,TotalDurationNs,AverageNs,Percentage,MinNs,MaxNs,StdDev\n", "line 1",
                       "column Calls appears twice");
    /* Stats: missing StdDev, bad float, negative count. */
    expect_typed_error(2, "Name,Calls,TotalDurationNs,AverageNs,Percentage,MinNs,MaxNs\n", "line 1",
                       "missing column StdDev");
    expect_typed_error(2,
                       "Name,Calls,TotalDurationNs,AverageNs,Percentage,MinNs,MaxNs,StdDev\n"
                       "\"k\",1,5,5.0,100.00,5,5,0\n\"m\",1,5,abc,1,5,5,0\n",
                       "line 3", "row 2, column AverageNs: expected a number, found \"abc\"");
    expect_typed_error(2,
                       "Name,Calls,TotalDurationNs,AverageNs,Percentage,MinNs,MaxNs,StdDev\n"
                       "\"k\",-1,5,5.0,100.00,5,5,0\n",
                       "line 2", "column Calls");
    expect_typed_error(2,
                       "Name,Calls,TotalDurationNs,AverageNs,Percentage,MinNs,MaxNs,StdDev\n"
                       "\"k\",1,5,,100.00,5,5,0\n",
                       "line 2", "column AverageNs");
    /* Agent info: missing Cu_Count. */
    expect_typed_error(1, "Node_Id,Logical_Node_Id,Agent_Type,Name\n0,0,\"CPU\",\"x\"\n", "line 1",
                       "missing column Product_Name");
    /* Counter collection: missing Counter_Value, bad value. */
    expect_typed_error(3, "Dispatch_Id,Kernel_Name,Counter_Name\n", "line 1", "missing column Counter_Value");
    expect_typed_error(3, "Dispatch_Id,Kernel_Name,Counter_Name,Counter_Value\n1,\"k\",\"SQ_WAVES\",1e\n",
                       "line 2", "column Counter_Value");
    /* Lexical errors come through with the file name. */
    expect_typed_error(2, "Name,Calls\n\"k\",1,2\n", "line 2", "row 1 has 3 fields, header has 2");
}

static void test_stats_and_counters(void)
{
    kr_arena a;
    kr_arena_init(&a);
    kr_err err;
    kr_kernel_stats *ks;
    const char *stats =
        "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\",\"MinNs\",\"MaxNs\",\"StdDev\"\n"
        "\"a\",3,30,10.000000,75.00,5,15,5.000000\n"
        "\"b, c\",1,10,10.000000,25.00,10,10,0.00000000e+00\n";
    T_EQ_I64(bundle_parse_kernel_stats(&a, stats, strlen(stats), "s.csv", &ks, &err), 0);
    T_EQ_U64(ks->nrows, 2);
    T_EQ_STR(ks->rows[1].name, "b, c");
    T_EQ_U64(ks->rows[0].calls, 3);
    T_EQ_U64(ks->rows[0].total_ns, 30);
    T_NEAR(ks->rows[0].average_ns, 10.0, 1e-12);
    T_NEAR(ks->rows[0].percentage, 75.0, 1e-12);
    T_EQ_U64(ks->rows[0].min_ns, 5);
    T_EQ_U64(ks->rows[0].max_ns, 15);
    T_NEAR(ks->rows[0].stddev, 5.0, 1e-12);
    T_NEAR(ks->rows[1].stddev, 0.0, 0.0);

    /* Counter collection, current dialect (docs/formats.md#counter-collection-csv) and the old one. */
    const char *cc =
        "\"Correlation_Id\",\"Dispatch_Id\",\"Agent_Id\",\"Queue_Id\",\"Process_Id\",\"Thread_Id\","
        "\"Grid_Size\",\"Kernel_Id\",\"Kernel_Name\",\"Workgroup_Size\",\"LDS_Block_Size\",\"Scratch_Size\","
        "\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Counter_Name\",\"Counter_Value\","
        "\"Start_Timestamp\",\"End_Timestamp\"\n"
        "4,44,\"Agent 2\",1,700119,700119,131072,195,\"flash\",256,49152,0,124,0,112,\"SQ_WAVES\",2048,10,20\n"
        "4,44,\"Agent 2\",1,700119,700119,131072,195,\"flash\",256,49152,0,124,0,112,\"GRBM_COUNT\",1.5e3,10,20\n";
    bundle_counter_csv *cv;
    T_EQ_I64(bundle_parse_counter_csv(&a, cc, strlen(cc), "cc.csv", &cv, &err), 0);
    T_EQ_U64(cv->nrows, 2);
    T_EQ_U64(cv->old_dialect, 0);
    T_EQ_U64(cv->rows[0].dispatch_id, 44);
    T_EQ_STR(cv->rows[0].kernel_name, "flash");
    T_EQ_STR(cv->rows[0].counter, "SQ_WAVES");
    T_NEAR(cv->rows[0].value, 2048.0, 0.0);
    T_EQ_STR(cv->rows[1].counter, "GRBM_COUNT");
    T_NEAR(cv->rows[1].value, 1500.0, 0.0);
    const char *cc_old =
        "Correlation_Id,Dispatch_Id,Agent_Id,Queue_Id,Process_Id,Thread_Id,Grid_Size,Kernel_Id,Kernel_Name,"
        "Workgroup_Size,LDS_Block_Size,Scratch_Size,VGPR_Count,SGPR_Count,Counter_Name,Counter_Value\n"
        "1,7,2,1,10,10,64,3,\"k\",64,0,0,8,16,\"SQ_INSTS_VALU\",12\n";
    T_EQ_I64(bundle_parse_counter_csv(&a, cc_old, strlen(cc_old), "cc_old.csv", &cv, &err), 0);
    T_EQ_U64(cv->old_dialect, 1);
    T_EQ_U64(cv->rows[0].dispatch_id, 7);
    T_EQ_STR(cv->rows[0].counter, "SQ_INSTS_VALU");
    T_NEAR(cv->rows[0].value, 12.0, 0.0);

    /* Classification from headers. */
    bundle_csv t;
    T_EQ_I64(bundle_csv_parse(&a, CURRENT_TRACE, strlen(CURRENT_TRACE), "x", &t, &err), 0);
    T_EQ_U64(bundle_csv_kind(t.header, t.ncols), BUNDLE_CSV_KERNEL_TRACE);
    T_EQ_I64(bundle_csv_parse(&a, cc, strlen(cc), "x", &t, &err), 0);
    T_EQ_U64(bundle_csv_kind(t.header, t.ncols), BUNDLE_CSV_COUNTER_COLLECTION);
    T_EQ_I64(bundle_csv_parse(&a, cc_old, strlen(cc_old), "x", &t, &err), 0);
    T_EQ_U64(bundle_csv_kind_of(&t, NULL), BUNDLE_CSV_COUNTER_COLLECTION);
    T_EQ_I64(bundle_csv_parse(&a, stats, strlen(stats), "x", &t, &err), 0);
    T_EQ_U64(bundle_csv_kind(t.header, t.ncols), BUNDLE_CSV_KERNEL_STATS);
    T_EQ_U64(bundle_csv_kind_of(&t, NULL), BUNDLE_CSV_KERNEL_STATS);        /* lower-case names */
    T_EQ_U64(bundle_csv_kind_of(&t, "x_domain_stats.csv"), BUNDLE_CSV_DOMAIN_STATS);
    T_EQ_U64(bundle_csv_kind_of(&t, "out_hip_api_stats.csv"), BUNDLE_CSV_UNKNOWN);
    const char *dom = "Name,Calls,TotalDurationNs,AverageNs,Percentage,MinNs,MaxNs,StdDev\n"
                      "\"KERNEL_DISPATCH\",1,5,5,100,5,5,0\n\"HIP_API\",1,5,5,100,5,5,0\n";
    T_EQ_I64(bundle_csv_parse(&a, dom, strlen(dom), "x", &t, &err), 0);
    T_EQ_U64(bundle_csv_kind_of(&t, NULL), BUNDLE_CSV_DOMAIN_STATS);
    T_EQ_U64(bundle_csv_kind_of(&t, "renamed_kernel_stats.csv"), BUNDLE_CSV_KERNEL_STATS);
    T_EQ_I64(bundle_csv_parse(&a, "A,B\n1,2\n", 8, "x", &t, &err), 0);
    T_EQ_U64(bundle_csv_kind_of(&t, NULL), BUNDLE_CSV_UNKNOWN);
    T_EQ_STR(bundle_csv_type_name(BUNDLE_CSV_AGENT_INFO), "agent_info");
    kr_arena_free(&a);
}

/* ---- the hub CSVs ---- */

static size_t count_newlines(const char *path)
{
    char *data;
    size_t len, n = 0;
    kr_err err;
    if (kr_file_read(path, KR_MAX_SMALL_FILE_BYTES, &data, &len, &err) != 0)
        return (size_t)-1;
    for (size_t i = 0; i < len; i++)
        n += data[i] == '\n';
    free(data);
    return n;
}

static void test_hub_all_csvs(const char *hub)
{
    const char *examples[] = {"flash_attn_func", "pa_mqa_logits_fp4"};
    size_t seen = 0;
    for (int e = 0; e < 2; e++) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/examples/%s/compute_viewer", hub, examples[e]);
        DIR *d = opendir(dir);
        T_CHECK(d != NULL);
        if (!d)
            continue;
        struct dirent *ent;
        while ((ent = readdir(d)) != NULL) {
            size_t n = strlen(ent->d_name);
            if (n < 4 || strcmp(ent->d_name + n - 4, ".csv") != 0)
                continue;
            char path[2048];
            snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
            kr_arena a;
            kr_arena_init(&a);
            bundle_csv t;
            kr_err err;
            int rc = bundle_csv_load(&a, path, &t, &err);
            T_EQ_I64(rc, 0);
            if (rc) {
                fprintf(stderr, "  %s: %s\n", path, err.msg);
                kr_arena_free(&a);
                continue;
            }
            seen++;
            /* No quoted newlines in the hub files (docs/formats.md#rocprofv3-csvs): rows = lines - 1. */
            T_EQ_U64(t.nrows, count_newlines(path) - 1);
            for (size_t c = 0; c < t.ncols; c++)
                T_CHECK(t.header_quoted[c]);                  /* every header name quoted */
            bundle_csv_type k = bundle_csv_kind_of(&t, ent->d_name);
            if (strstr(ent->d_name, "agent_info")) {
                T_EQ_U64(k, BUNDLE_CSV_AGENT_INFO);
                T_EQ_U64(t.ncols, 53);
                T_EQ_U64(t.nrows, 10);
                kr_agent_info *ai;
                T_EQ_I64(bundle_agent_info_from_csv(&a, &t, &ai, &err), 0);
                size_t gpus = 0, cpus = 0;
                for (size_t i = 0; i < ai->nagents; i++) {
                    const kr_agent *g = &ai->agents[i];
                    T_EQ_U64(g->handle, 0);
                    T_EQ_I64(g->node_id, (int64_t)i);
                    if (g->type == 1) {
                        cpus++;
                        T_CHECK(i < 2);
                        continue;
                    }
                    gpus++;
                    T_EQ_I64(g->type, 2);
                    T_EQ_STR(g->name, "gfx950");
                    T_EQ_STR(g->product_name, "AMD Instinct MI350X");
                    T_EQ_I64(g->gfx_target_version, 90500);
                    T_EQ_I64(g->cu_count, 256);
                    T_EQ_I64(g->simd_per_cu, 4);
                    T_EQ_I64(g->max_waves_per_simd, 8);
                    T_EQ_I64(g->max_waves_per_cu, 32);
                    T_EQ_I64(g->lds_size_in_kb, 160);
                    T_EQ_I64(g->wave_front_size, 64);
                    T_EQ_I64(g->num_xcc, 8);
                    T_EQ_I64(g->array_count, 32);
                    T_EQ_I64(g->max_engine_clk_fcompute, 2200);
                }
                T_EQ_U64(cpus, 2);
                T_EQ_U64(gpus, 8);
            } else if (strstr(ent->d_name, "kernel_trace")) {
                T_EQ_U64(k, BUNDLE_CSV_KERNEL_TRACE);
                T_EQ_U64(t.ncols, 22);
            } else if (strstr(ent->d_name, "kernel_stats")) {
                T_EQ_U64(k, BUNDLE_CSV_KERNEL_STATS);
                T_EQ_U64(bundle_csv_kind_of(&t, NULL), BUNDLE_CSV_KERNEL_STATS);   /* by content too */
                T_EQ_U64(t.ncols, 8);
            } else if (strstr(ent->d_name, "domain_stats")) {
                T_EQ_U64(k, BUNDLE_CSV_DOMAIN_STATS);
                T_EQ_U64(bundle_csv_kind_of(&t, NULL), BUNDLE_CSV_DOMAIN_STATS);
                T_EQ_U64(t.nrows, 1);
                T_EQ_STR(bundle_csv_cell(&t, 0, 0), "KERNEL_DISPATCH");
            } else {
                T_CHECK(!"unexpected CSV in the hub");
            }
            kr_arena_free(&a);
        }
        closedir(d);
    }
    /* flash: 4 discover_ + small_agent_info; pa_mqa: 4 discover_ + small_ and big_agent_info. */
    T_EQ_U64(seen, 11);
}

/* kernel_stats recomputed from kernel_trace: calls, total, min, max per name,
 * and the domain_stats totals from all rows (docs/formats.md#stats-csvs). */
static void cross_check(const char *hub, const char *example, const char *kernel, size_t ntrace,
                        uint64_t domain_total)
{
    char p1[1024], p2[1024], p3[1024];
    snprintf(p1, sizeof p1, "%s/examples/%s/compute_viewer/discover_kernel_trace.csv", hub, example);
    snprintf(p2, sizeof p2, "%s/examples/%s/compute_viewer/discover_kernel_stats.csv", hub, example);
    snprintf(p3, sizeof p3, "%s/examples/%s/compute_viewer/discover_domain_stats.csv", hub, example);
    kr_arena a;
    kr_arena_init(&a);
    kr_err err;
    kr_kernel_trace *kt;
    kr_kernel_stats *ks, *ds;
    T_EQ_I64(bundle_load_kernel_trace(&a, p1, &kt, &err), 0);
    T_EQ_I64(bundle_load_kernel_stats(&a, p2, &ks, &err), 0);
    T_EQ_I64(bundle_load_kernel_stats(&a, p3, &ds, &err), 0);
    if (!kt || !ks || !ds) {
        kr_arena_free(&a);
        return;
    }
    T_EQ_U64(kt->nrows, ntrace);
    T_EQ_U64(kt->old_dialect, 0);
    T_EQ_U64(kt->agent_index, KR_AGENT_RELATIVE);
    uint64_t all = 0;
    for (size_t i = 0; i < kt->nrows; i++) {
        T_EQ_I64(kt->rows[i].agent, 2);                 /* "Agent 2" = node 2, the first gfx950 */
        T_CHECK(kt->rows[i].end_ns >= kt->rows[i].start_ns);
        all += kt->rows[i].end_ns - kt->rows[i].start_ns;
    }
    T_EQ_U64(ds->nrows, 1);
    T_EQ_STR(ds->rows[0].name, "KERNEL_DISPATCH");
    T_EQ_U64(ds->rows[0].calls, ntrace);
    T_EQ_U64(ds->rows[0].total_ns, domain_total);
    T_EQ_U64(all, domain_total);
    size_t kernel_rows = 0;
    for (size_t s = 0; s < ks->nrows; s++) {
        const kr_kernel_stat *st = &ks->rows[s];
        uint64_t calls = 0, total = 0, mn = UINT64_MAX, mx = 0;
        for (size_t i = 0; i < kt->nrows; i++) {
            if (strcmp(kt->rows[i].kernel_name, st->name) != 0)
                continue;
            uint64_t dur = kt->rows[i].end_ns - kt->rows[i].start_ns;
            calls++;
            total += dur;
            mn = dur < mn ? dur : mn;
            mx = dur > mx ? dur : mx;
        }
        T_EQ_U64(st->calls, calls);
        T_EQ_U64(st->total_ns, total);
        T_EQ_U64(st->min_ns, mn);
        T_EQ_U64(st->max_ns, mx);
        T_NEAR(st->average_ns, (double)total / (double)calls, 5e-7);
        T_NEAR(st->percentage, 100.0 * (double)total / (double)all, 0.0051);
        if (s > 0)
            T_CHECK(st->total_ns <= ks->rows[s - 1].total_ns);   /* sorted by total, descending */
        if (strcmp(st->name, kernel) == 0)
            kernel_rows++;
    }
    T_EQ_U64(kernel_rows, 1);
    kr_arena_free(&a);
}

static void test_hub_values(const char *hub)
{
    char path[1024];
    kr_arena a;
    kr_arena_init(&a);
    kr_err err;

    /* flash discovery trace (docs/formats.md#kernel-trace-csv): flash_attn_func_kernel_0 rows 124/0/112,
     * wg 256, grid 131072 work-items, LDS block 49152; one dispatch of 93960 ns. */
    snprintf(path, sizeof path, "%s/examples/flash_attn_func/compute_viewer/discover_kernel_trace.csv", hub);
    kr_kernel_trace *kt;
    T_EQ_I64(bundle_load_kernel_trace(&a, path, &kt, &err), 0);
    size_t flash_rows = 0, has_93960 = 0;
    for (size_t i = 0; kt && i < kt->nrows; i++) {
        const kr_dispatch *d = &kt->rows[i];
        if (strcmp(d->kernel_name, "flash_attn_func_kernel_0") != 0)
            continue;
        flash_rows++;
        T_EQ_I64(d->vgpr, 124);
        T_EQ_I64(d->accum_vgpr, 0);
        T_EQ_I64(d->sgpr, 112);
        T_EQ_U64(d->wg[0], 256);
        T_EQ_U64(d->wg[1], 1);
        T_EQ_U64(d->grid[0], 131072);
        T_EQ_U64(d->grid[0] / d->wg[0], 512);           /* workgroups */
        T_EQ_I64(d->lds_bytes, 49152);
        has_93960 += d->end_ns - d->start_ns == 93960;
    }
    T_EQ_U64(flash_rows, 9);
    T_EQ_U64(has_93960, 1);

    /* flash kernel_stats (docs/formats.md#stats-csvs): 9 calls, 839765 ns, 93307.222222 average. */
    snprintf(path, sizeof path, "%s/examples/flash_attn_func/compute_viewer/discover_kernel_stats.csv", hub);
    kr_kernel_stats *ks;
    T_EQ_I64(bundle_load_kernel_stats(&a, path, &ks, &err), 0);
    const kr_kernel_stat *fs = NULL;
    for (size_t i = 0; ks && i < ks->nrows; i++)
        if (strcmp(ks->rows[i].name, "flash_attn_func_kernel_0") == 0)
            fs = &ks->rows[i];
    T_CHECK(fs != NULL);
    if (fs) {
        T_EQ_U64(fs->calls, 9);
        T_EQ_U64(fs->total_ns, 839765);
        T_NEAR(fs->average_ns, 93307.222222, 1e-9);
        T_NEAR(fs->average_ns, 839765.0 / 9.0, 5e-7);
        T_NEAR(fs->percentage, 42.08, 1e-12);
    }
    /* The exponent-form StdDev of a one-call kernel. */
    T_EQ_STR(ks->rows[1].name, "attn_fwd");
    T_NEAR(ks->rows[1].stddev, 0.0, 0.0);

    /* pa_mqa trace (docs/formats.md#kernel-trace-csv, docs/occupancy.md#worked-examples): VGPR 48, SGPR 48, grid 129792 = 507 x 256. */
    snprintf(path, sizeof path, "%s/examples/pa_mqa_logits_fp4/compute_viewer/discover_kernel_trace.csv", hub);
    T_EQ_I64(bundle_load_kernel_trace(&a, path, &kt, &err), 0);
    size_t pa_rows = 0;
    for (size_t i = 0; kt && i < kt->nrows; i++) {
        const kr_dispatch *d = &kt->rows[i];
        if (strcmp(d->kernel_name, "pa_mqa_logits_fp4_kernel_0") != 0)
            continue;
        pa_rows++;
        T_EQ_I64(d->vgpr, 48);
        T_EQ_I64(d->accum_vgpr, 0);
        T_EQ_I64(d->sgpr, 48);
        T_EQ_U64(d->grid[0], 129792);
        T_EQ_U64(d->grid[0] / d->wg[0], 507);
    }
    T_CHECK(pa_rows > 0);
    kr_arena_free(&a);

    cross_check(hub, "flash_attn_func", "flash_attn_func_kernel_0", 45, 1995814);
    cross_check(hub, "pa_mqa_logits_fp4", "pa_mqa_logits_fp4_kernel_0", 532, 96412501);
}

/* ---- the tokenizer against its byte-at-a-time predecessor ----
 *
 * bundle_csv_parse copies runs of field bytes at once; ref_csv_parse below
 * is the previous byte-at-a-time loop, kept verbatim as the oracle. Both
 * must give the same table or the same error on every input. */

typedef struct ref_field_vec {
    const char **text;
    uint8_t *quoted;
    size_t n, cap;
} ref_field_vec;

typedef struct ref_line_vec {
    size_t *v;
    size_t n, cap;
} ref_line_vec;

static int ref_fields_push(ref_field_vec *f, const char *text, uint8_t quoted)
{
    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 256;
        const char **t = realloc(f->text, cap * sizeof *t);
        if (!t)
            return -1;
        f->text = t;
        uint8_t *q = realloc(f->quoted, cap);
        if (!q)
            return -1;
        f->quoted = q;
        f->cap = cap;
    }
    f->text[f->n] = text;
    f->quoted[f->n] = quoted;
    f->n++;
    return 0;
}

static int ref_lines_push(ref_line_vec *l, size_t line)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        size_t *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = line;
    return 0;
}

static int ref_pos_err(kr_err *err, const char *fname, size_t line, size_t col, const char *msg)
{
    char where[64];
    snprintf(where, sizeof where, "%zu:%zu", line, col);
    return kr_err_set(err, KR_INPUT, fname, where, "%s", msg);
}

static int ref_csv_parse(kr_arena *a, const char *data, size_t len, const char *fname,
                     bundle_csv *out, kr_err *err)
{
    memset(out, 0, sizeof *out);
    out->path = fname ? kr_arena_strdup(a, fname) : "";
    size_t pos = 0;
    if (len >= 3 && (unsigned char)data[0] == 0xEF && (unsigned char)data[1] == 0xBB &&
        (unsigned char)data[2] == 0xBF)
        pos = 3;

    /* Unescaped text never exceeds the input: each field's NUL replaces its
     * separator, and the last field may need one byte more. */
    char *text = kr_arena_alloc(a, len + 2);
    if (!text)
        return kr_err_set(err, KR_INTERNAL, fname, NULL, "out of memory for %zu bytes of CSV", len);
    size_t tl = 0;

    ref_field_vec f = {0};
    ref_line_vec rows = {0};
    size_t line = 1, line_start = pos;
    size_t ncols = 0, header_done = 0;
    size_t blank_checked_to = 0;   /* input before this offset is known not to be trailing blanks */
    int rc = 0;

    while (pos < len) {
        if (pos >= blank_checked_to) {
            size_t p = pos;
            while (p < len && (data[p] == '\n' || (data[p] == '\r' && p + 1 < len && data[p + 1] == '\n')))
                p += data[p] == '\r' ? 2 : 1;
            if (p >= len)
                break;     /* only blank lines remain */
            blank_checked_to = p;
        }
        size_t record_line = line;
        size_t first = f.n;
        for (;;) {
            char *start = text + tl;
            uint8_t quoted = 0;
            if (pos < len && data[pos] == '"') {
                size_t open_line = line, open_col = pos - line_start + 1;
                quoted = 1;
                pos++;
                for (;;) {
                    if (pos >= len) {
                        rc = ref_pos_err(err, fname, open_line, open_col, "unterminated quoted field");
                        goto done;
                    }
                    char ch = data[pos];
                    if (ch == '"') {
                        if (pos + 1 < len && data[pos + 1] == '"') {
                            text[tl++] = '"';
                            pos += 2;
                            continue;
                        }
                        pos++;
                        break;
                    }
                    if (ch == '\0') {
                        rc = ref_pos_err(err, fname, line, pos - line_start + 1, "NUL byte in CSV");
                        goto done;
                    }
                    if (ch == '\n') {
                        line++;
                        line_start = pos + 1;
                    }
                    text[tl++] = ch;
                    pos++;
                }
                if (pos < len && data[pos] != ',' && data[pos] != '\n' && data[pos] != '\r') {
                    rc = ref_pos_err(err, fname, line, pos - line_start + 1,
                                 "expected ',' or end of line after a closing quote");
                    goto done;
                }
            } else {
                while (pos < len && data[pos] != ',' && data[pos] != '\n' && data[pos] != '\r') {
                    char ch = data[pos];
                    if (ch == '"') {
                        rc = ref_pos_err(err, fname, line, pos - line_start + 1,
                                     "quote inside an unquoted field (quote the whole field and write \"\" for a quote)");
                        goto done;
                    }
                    if (ch == '\0') {
                        rc = ref_pos_err(err, fname, line, pos - line_start + 1, "NUL byte in CSV");
                        goto done;
                    }
                    text[tl++] = ch;
                    pos++;
                }
            }
            if ((size_t)(text + tl - start) > KR_MAX_STRING_BYTES) {
                rc = ref_pos_err(err, fname, record_line, 1,
                             "field exceeds KR_MAX_STRING_BYTES (64 KiB)");
                goto done;
            }
            text[tl++] = '\0';
            if (f.n - first >= KR_MAX_CSV_FIELDS) {
                rc = ref_pos_err(err, fname, record_line, 1, "record exceeds KR_MAX_CSV_FIELDS (4096) fields");
                goto done;
            }
            if (ref_fields_push(&f, start, quoted) != 0) {
                rc = kr_err_set(err, KR_INTERNAL, fname, NULL, "out of memory");
                goto done;
            }
            if (pos >= len)
                break;
            if (data[pos] == ',') {
                pos++;
                continue;
            }
            if (data[pos] == '\n') {
                pos++;
            } else if (pos + 1 < len && data[pos + 1] == '\n') {
                pos += 2;       /* CRLF */
            } else {
                rc = ref_pos_err(err, fname, line, pos - line_start + 1, "carriage return not followed by a line feed");
                goto done;
            }
            line++;
            line_start = pos;
            break;
        }
        size_t nfields = f.n - first;
        if (!header_done) {
            ncols = nfields;
            header_done = 1;
        } else {
            if (nfields != ncols) {
                char where[64];
                snprintf(where, sizeof where, "line %zu", record_line);
                rc = kr_err_set(err, KR_INPUT, fname, where, "row %zu has %zu fields, header has %zu",
                                rows.n + 1, nfields, ncols);
                goto done;
            }
            if (rows.n >= KR_MAX_CSV_ROWS) {
                char where[64];
                snprintf(where, sizeof where, "line %zu", record_line);
                rc = kr_err_set(err, KR_INPUT, fname, where, "more than KR_MAX_CSV_ROWS (%u) rows",
                                (unsigned)KR_MAX_CSV_ROWS);
                goto done;
            }
            if (ref_lines_push(&rows, record_line) != 0) {
                rc = kr_err_set(err, KR_INTERNAL, fname, NULL, "out of memory");
                goto done;
            }
        }
    }
    if (!header_done) {
        rc = kr_err_set(err, KR_INPUT, fname, NULL, "empty CSV: no header row");
        goto done;
    }

    out->ncols = ncols;
    out->nrows = rows.n;
    out->header = kr_arena_array(a, ncols, sizeof *out->header);
    out->header_quoted = kr_arena_alloc(a, ncols);
    out->cells = kr_arena_array(a, rows.n * ncols + 1, sizeof *out->cells);
    out->quoted = kr_arena_alloc(a, rows.n * ncols + 1);
    out->lines = kr_arena_array(a, rows.n + 1, sizeof *out->lines);
    if (!out->header || !out->header_quoted || !out->cells || !out->quoted || !out->lines) {
        rc = kr_err_set(err, KR_INTERNAL, fname, NULL, "out of memory");
        goto done;
    }
    memcpy(out->header, f.text, ncols * sizeof *f.text);
    memcpy(out->header_quoted, f.quoted, ncols);
    if (rows.n) {
        memcpy(out->cells, f.text + ncols, rows.n * ncols * sizeof *f.text);
        memcpy(out->quoted, f.quoted + ncols, rows.n * ncols);
        memcpy(out->lines, rows.v, rows.n * sizeof *rows.v);
    }

done:
    free(f.text);
    free(f.quoted);
    free(rows.v);
    if (rc)
        memset(out, 0, sizeof *out);
    return rc;
}

static uint64_t csv_rng_state = 0x853C49E6748FEA9Bull;
static uint64_t csv_rng(void)
{
    uint64_t x = csv_rng_state;     /* xorshift64*, fixed seed */
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    csv_rng_state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* 1 when both parsers agree on data[0..len). */
static int csv_agree(const char *data, size_t len)
{
    kr_arena a, b;
    kr_arena_init(&a);
    kr_arena_init(&b);
    bundle_csv x, y;
    kr_err ex, ey;
    kr_err_clear(&ex);
    kr_err_clear(&ey);
    char *copy = malloc(len ? len : 1);     /* exact size: a sanitizer build sees overreads */
    memcpy(copy, data, len);
    int rx = bundle_csv_parse(&a, copy, len, "t.csv", &x, &ex);
    int ry = ref_csv_parse(&b, copy, len, "t.csv", &y, &ey);
    free(copy);
    int ok = rx == ry;
    if (ok && rx)
        ok = strcmp(ex.where, ey.where) == 0 && strcmp(ex.msg, ey.msg) == 0 && strcmp(ex.file, ey.file) == 0;
    if (ok && !rx) {
        ok = x.ncols == y.ncols && x.nrows == y.nrows;
        for (size_t c = 0; ok && c < x.ncols; c++)
            ok = strcmp(x.header[c], y.header[c]) == 0 && x.header_quoted[c] == y.header_quoted[c];
        for (size_t i = 0; ok && i < x.nrows * x.ncols; i++)
            ok = strcmp(x.cells[i], y.cells[i]) == 0 && x.quoted[i] == y.quoted[i];
        for (size_t r = 0; ok && r < x.nrows; r++)
            ok = x.lines[r] == y.lines[r];
    }
    if (!ok)
        fprintf(stderr, "csv parsers disagree (%d: %s %s / %d: %s %s) on: %.*s\n", rx, ex.where, ex.msg, ry, ey.where,
                ey.msg, (int)(len < 200 ? len : 200), data);
    kr_arena_free(&a);
    kr_arena_free(&b);
    return ok;
}

static void test_against_reference(const char *hub)
{
    static const char *const seeds[] = {
        "a,b,c\n1,2,3\n",
        "\xEF\xBB\xBF\"Kernel_Name\",x\r\n\"a, \"\"b\"\"\nc\",2\r\n\n\n",
        "x\n\n\"\"\n,\n\"q\"\"\"\n",
        "h1,h2\n\"unterminated,2\n",
    };
    static const char bytes[] = ",\"\n\r\0ab \xC3";
    size_t runs = 0, agreed = 0;
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
        const char *src = seeds[s];
        size_t len = strlen(src);
        for (size_t k = 0; k <= len; k++, runs++)
            agreed += (size_t)csv_agree(src, k);                     /* every truncation */
        char buf[128];
        for (int r = 0; r < 2000; r++, runs++) {                   /* byte edits */
            size_t n = len, at = (size_t)(csv_rng() % (len + 1));
            memcpy(buf, src, len);
            char b = bytes[csv_rng() % (sizeof bytes - 1)];
            if (csv_rng() % 2 && at < n) {
                buf[at] = b;
            } else {
                memmove(buf + at + 1, buf + at, n - at);
                buf[at] = b;
                n++;
            }
            agreed += (size_t)csv_agree(buf, n);
        }
    }
    /* the hub's CSVs */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/examples", hub ? hub : "");
    DIR *ex = hub ? opendir(dir) : NULL;
    struct dirent *e;
    while (ex && (e = readdir(ex)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char cv[4096];
        snprintf(cv, sizeof cv, "%s/%s/compute_viewer", dir, e->d_name);
        DIR *d = opendir(cv);
        struct dirent *f;
        while (d && (f = readdir(d)) != NULL) {
            size_t fl = strlen(f->d_name);
            if (fl < 4 || strcmp(f->d_name + fl - 4, ".csv") != 0)
                continue;
            char path[8192], *data;
            size_t len;
            kr_err err;
            snprintf(path, sizeof path, "%s/%s", cv, f->d_name);
            if (kr_file_read(path, KR_MAX_SMALL_FILE_BYTES, &data, &len, &err) == 0) {
                runs++;
                agreed += (size_t)csv_agree(data, len);
                free(data);
            }
        }
        if (d)
            closedir(d);
    }
    if (ex)
        closedir(ex);
    T_EQ_U64(agreed, runs);
}

int main(void)
{
    test_basic();
    test_errors();
    test_kernel_trace_dialects();
    test_typed_errors();
    test_stats_and_counters();
    const char *hub = t_hub();
    test_against_reference(hub);
    if (hub) {
        test_hub_all_csvs(hub);
        test_hub_values(hub);
    } else {
        printf("test_csv: hub fixtures absent, hub checks skipped\n");
    }
    return t_done("test_csv");
}
