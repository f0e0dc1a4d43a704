/* test_limits.c — limits of common/limits.h that are cheapest to reach from
 * memory: KR_MAX_CSV_FIELDS and KR_MAX_CSV_ROWS (bundle/csv.h),
 * KR_MAX_WAVES (filenames.json, docs/formats.md#wave-index) and KR_MAX_JSON_DEPTH for the small
 * JSON files. Each error must name the limit and the position. The peak RSS
 * of the process (getrusage) must stay within what the input itself costs:
 * the CSV of 16 Mi + 1 rows is 32 MiB of text. The file-level limits and
 * memory bounds of whole captures are in tests/limits.sh. */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bundle/csv.h"
#include "bundle/load_filenames.h"
#include "bundle/load_realtime.h"
#include "common/limits.h"
#include "tests/unit/t.h"

#if defined(__SANITIZE_ADDRESS__)
#define RSS_BOUND_MB 2048
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RSS_BOUND_MB 2048
#endif
#endif
#ifndef RSS_BOUND_MB
#define RSS_BOUND_MB 1024
#endif

static long peak_rss_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024;
}

static void test_csv_fields(void)
{
    /* Header of KR_MAX_CSV_FIELDS + 1 one-letter fields: "a,a,...,a\n". */
    size_t n = KR_MAX_CSV_FIELDS + 1;
    char *text = malloc(2 * n);
    for (size_t i = 0; i < n; i++) {
        text[2 * i] = 'a';
        text[2 * i + 1] = i + 1 < n ? ',' : '\n';
    }
    kr_arena a;
    kr_arena_init(&a);
    bundle_csv t;
    kr_err err;
    kr_err_clear(&err);
    T_EQ_I64(bundle_csv_parse(&a, text, 2 * n, "wide.csv", &t, &err), KR_INPUT);
    T_EQ_STR(err.file, "wide.csv");
    T_EQ_STR(err.where, "1:1");
    T_EQ_STR(err.msg, "record exceeds KR_MAX_CSV_FIELDS (4096) fields");
    /* Exactly KR_MAX_CSV_FIELDS fields are accepted. */
    kr_err_clear(&err);
    text[2 * (n - 1) - 1] = '\n';
    T_EQ_I64(bundle_csv_parse(&a, text, 2 * (n - 1), "wide.csv", &t, &err), 0);
    T_EQ_U64(t.ncols, KR_MAX_CSV_FIELDS);
    kr_arena_free(&a);
    free(text);
}

static void test_csv_rows(void)
{
    /* "a\n" then KR_MAX_CSV_ROWS + 1 rows "1\n": the last row is refused at
     * line KR_MAX_CSV_ROWS + 2 (the header is line 1). */
    size_t rows = (size_t)KR_MAX_CSV_ROWS + 1, len = 2 + 2 * rows;
    char *text = malloc(len);
    text[0] = 'a';
    text[1] = '\n';
    for (size_t i = 0; i < rows; i++) {
        text[2 + 2 * i] = '1';
        text[3 + 2 * i] = '\n';
    }
    kr_arena a;
    kr_arena_init(&a);
    bundle_csv t;
    kr_err err;
    kr_err_clear(&err);
    T_EQ_I64(bundle_csv_parse(&a, text, len, "long.csv", &t, &err), KR_INPUT);
    T_EQ_STR(err.file, "long.csv");
    T_EQ_STR(err.where, "line 16777218");
    T_EQ_STR(err.msg, "more than KR_MAX_CSV_ROWS (16777216) rows");
    kr_arena_free(&a);
    free(text);
    /* Text 32 MiB; per row the reader keeps a cell pointer, a flag, a line
     * number and the cell text (about 20 bytes, 320 MiB at the limit, plus
     * array growth): under 1 GiB, 2 GiB with AddressSanitizer. */
    long mb = peak_rss_mb();
    printf("test_limits: peak RSS after the CSV rows case: %ld MiB\n", mb);
    T_CHECK(mb < RSS_BOUND_MB);
}

static void test_max_waves(void)
{
    /* {"wave_filenames":{"0":{"0":{"0":{"0":[...],"1":[...],...}}}}} with
     * KR_MAX_WAVES + 1 entries under one slot. */
    size_t n = (size_t)KR_MAX_WAVES + 1, cap = 64 + n * 48, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text + len, cap - len, "{\"wave_filenames\":{\"0\":{\"0\":{\"0\":{");
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(text + len, cap - len, "%s\"%zu\":[\"se0_sm0_sl0_wv%zu.json\",1,2]", i ? "," : "", i, i);
    len += (size_t)snprintf(text + len, cap - len, "}}}}}");
    kr_capture *c = calloc(1, sizeof *c);
    kr_arena_init(&c->arena);
    kr_err err;
    kr_err_clear(&err);
    T_EQ_I64(bundle_parse_filenames(c, text, len, "filenames.json", &err), KR_INPUT);
    T_EQ_STR(err.file, "filenames.json");
    T_EQ_STR(err.where, "$.wave_filenames.0.0.0");
    T_EQ_STR(err.msg, "more than KR_MAX_WAVES (1048576) wave files");
    kr_arena_free(&c->arena);
    free(c);
    free(text);
}

static void test_json_depth(void)
{
    /* realtime.json with an unknown key holding 65 nested arrays: with the
     * top-level object, the 64th '[' (column 6 + 63 = 69) is level 65. */
    char text[256] = "{\"x\":";
    for (int i = 0; i < 65; i++)
        strcat(text, "[");
    for (int i = 0; i < 65; i++)
        strcat(text, "]");
    strcat(text, "}");
    kr_capture *c = calloc(1, sizeof *c);
    kr_arena_init(&c->arena);
    kr_err err;
    kr_err_clear(&err);
    T_EQ_I64(bundle_parse_realtime(c, text, strlen(text), "realtime.json", &err), KR_INPUT);
    T_EQ_STR(err.file, "realtime.json");
    T_EQ_STR(err.msg, "nesting deeper than KR_MAX_JSON_DEPTH (64) (line 1, column 69)");
    /* 64 levels in all (the object and 63 arrays) are accepted. */
    strcpy(text, "{\"x\":");
    for (int i = 0; i < 63; i++)
        strcat(text, "[");
    for (int i = 0; i < 63; i++)
        strcat(text, "]");
    strcat(text, "}");
    kr_err_clear(&err);
    T_EQ_I64(bundle_parse_realtime(c, text, strlen(text), "realtime.json", &err), 0);
    kr_arena_free(&c->arena);
    free(c);
}

int main(void)
{
    test_csv_fields();
    test_json_depth();
    test_max_waves();
    test_csv_rows();
    return t_done("test_limits");
}
