/* test_scan.c — the JSON scanner primitives (bundle/scan.h): numbers,
 * strings, containers, skipping, depth limit, tuples, error positions; the
 * unchecked fast readers against strtoull and against the checked path. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/scan.h"
#include "common/limits.h"
#include "tests/unit/t.h"

static bundle_scan S;
static kr_err E;

static void start(const char *text)
{
    bundle_scan_free(&S);
    bundle_scan_init(&S, text, strlen(text), "t.json", &E);
}

/* Number token: returns 0/KR_INPUT and fills n. */
static int num(const char *text, bundle_scan_num *n)
{
    start(text);
    return bundle_scan_number(&S, n);
}

static void test_numbers(void)
{
    bundle_scan_num n;
    T_EQ_I64(num("0", &n), 0);
    T_CHECK(n.is_int && !n.neg && n.mag == 0);
    T_EQ_I64(num("-0", &n), 0);
    T_CHECK(n.is_int && n.neg && n.mag == 0);
    T_EQ_I64(num("173060,", &n), 0);
    T_EQ_U64(n.mag, 173060);
    T_EQ_U64(S.p - S.base, 6);                      /* stops before ',' */
    T_EQ_I64(num("9223372036854775807", &n), 0);    /* INT64_MAX */
    T_EQ_U64(n.mag, INT64_MAX);
    T_EQ_I64(num("9223372036854775808", &n), KR_INPUT);
    T_CHECK(strstr(E.msg, "64-bit") != NULL);
    T_EQ_STR(E.where, "1:1");
    T_EQ_I64(num("-9223372036854775808", &n), 0);   /* INT64_MIN */
    T_CHECK(n.neg && n.mag == (uint64_t)1 << 63);
    T_EQ_I64(num("-9223372036854775809", &n), KR_INPUT);
    T_EQ_I64(num("18446744073709551616", &n), KR_INPUT);    /* 2^64 */
    T_EQ_I64(num("01", &n), KR_INPUT);
    T_CHECK(strstr(E.msg, "leading zero") != NULL);
    T_EQ_I64(num("-01", &n), KR_INPUT);
    T_EQ_I64(num("1.5", &n), 0);
    T_CHECK(!n.is_int);
    T_EQ_I64(num("1E5", &n), 0);
    T_CHECK(!n.is_int);
    T_EQ_I64(num("-2.5e-3]", &n), 0);
    T_CHECK(!n.is_int && n.neg);
    T_EQ_U64(S.p - S.base, 7);
    T_EQ_I64(num("1e400", &n), KR_INPUT);             /* overflows a double */
    T_CHECK(strstr(E.msg, "out of range") != NULL);
    T_EQ_I64(num("1e-400", &n), 0);                   /* underflow is fine */
    T_EQ_I64(num("-", &n), KR_INPUT);
    T_EQ_I64(num("1.", &n), KR_INPUT);
    T_EQ_I64(num("1.e5", &n), KR_INPUT);
    T_EQ_I64(num(".5", &n), KR_INPUT);
    T_EQ_I64(num("1e", &n), KR_INPUT);
    T_EQ_I64(num("1e+", &n), KR_INPUT);
    T_EQ_I64(num("-Infinity", &n), KR_INPUT);
    T_EQ_I64(num("99999999999999999999999.0", &n), 0); /* a real, not an integer overflow */
}

static void test_uint_sint(void)
{
    uint64_t u = 7;
    int64_t i = 7;
    start("  42 ");
    T_EQ_I64(bundle_scan_uint(&S, 255, &u, "x"), 0);
    T_EQ_U64(u, 42);
    start("256");
    T_EQ_I64(bundle_scan_uint(&S, 255, &u, "a.b[%d]", 3), KR_INPUT);
    T_EQ_STR(E.msg, "integer out of range in a.b[3] (maximum 255)");
    T_EQ_STR(E.file, "t.json");
    T_EQ_STR(E.where, "1:1");
    start("\n  -3");
    T_EQ_I64(bundle_scan_uint(&S, 255, &u, "wave.begin"), KR_INPUT);
    T_EQ_STR(E.msg, "expected a non-negative integer in wave.begin");
    T_EQ_STR(E.where, "2:3");
    start("-0");
    T_EQ_I64(bundle_scan_uint(&S, 255, &u, "x"), 0);  /* -0 is 0 */
    T_EQ_U64(u, 0);
    start("4.0");
    T_EQ_I64(bundle_scan_uint(&S, 255, &u, "w.instructions[12][3]"), KR_INPUT);
    T_EQ_STR(E.msg, "expected integer in w.instructions[12][3], found a real number");
    start("\"4\"");
    T_EQ_I64(bundle_scan_uint(&S, 255, &u, "w.instructions[12][3]"), KR_INPUT);
    T_EQ_STR(E.msg, "expected integer in w.instructions[12][3], found '\"'");
    start("null");
    T_EQ_I64(bundle_scan_uint(&S, 255, &u, "k"), KR_INPUT);
    start("-9223372036854775808");
    T_EQ_I64(bundle_scan_sint(&S, INT64_MIN, INT64_MAX, &i, "cu"), 0);
    T_EQ_I64(i, INT64_MIN);
    start("-5");
    T_EQ_I64(bundle_scan_sint(&S, -4, 4, &i, "cu"), KR_INPUT);
    T_EQ_STR(E.msg, "integer out of range in cu (-4..4)");
    start("-4");
    T_EQ_I64(bundle_scan_sint(&S, -4, 4, &i, "cu"), 0);
    T_EQ_I64(i, -4);
}

static int str(const char *text, size_t textlen, const char **s, size_t *len)
{
    bundle_scan_free(&S);
    bundle_scan_init(&S, text, textlen, "t.json", &E);
    return bundle_scan_string(&S, s, len, "name");
}

static void test_strings(void)
{
    const char *s;
    size_t n;
    T_EQ_I64(str("\"SE1\"", 5, &s, &n), 0);
    T_CHECK(n == 3 && memcmp(s, "SE1", 3) == 0);
    T_CHECK(s == S.base + 1);                       /* no copy without escapes */
    T_EQ_I64(str("\"\"", 2, &s, &n), 0);
    T_EQ_U64(n, 0);
    const char *esc = "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"";
    T_EQ_I64(str(esc, strlen(esc), &s, &n), 0);
    T_CHECK(n == 12 && memcmp(s, "a\"b\\c/d\b\f\n\r\t", 12) == 0);
    T_EQ_I64(str("\"\\u00e9x\"", 9, &s, &n), 0);    /* U+00E9 -> C3 A9 */
    T_CHECK(n == 3 && memcmp(s, "\xC3\xA9x", 3) == 0);
    T_EQ_I64(str("\"\\u20AC\"", 8, &s, &n), 0);     /* U+20AC -> E2 82 AC */
    T_CHECK(n == 3 && memcmp(s, "\xE2\x82\xAC", 3) == 0);
    T_EQ_I64(str("\"\\ud83d\\ude00\"", 14, &s, &n), 0);   /* U+1F600 -> F0 9F 98 80 */
    T_CHECK(n == 4 && memcmp(s, "\xF0\x9F\x98\x80", 4) == 0);
    T_EQ_I64(str("\"\xC3\xA9\"", 4, &s, &n), 0);    /* raw UTF-8 passes */
    T_CHECK(n == 2 && memcmp(s, "\xC3\xA9", 2) == 0);
    T_EQ_I64(str("\"\xF0\x9F\x98\x80\"", 6, &s, &n), 0);
    /* rejected */
    T_EQ_I64(str("\"\\ud83d\"", 8, &s, &n), KR_INPUT);
    T_CHECK(strstr(E.msg, "surrogate") != NULL);
    T_EQ_I64(str("\"\\ude00\"", 8, &s, &n), KR_INPUT);
    T_EQ_I64(str("\"\\ud83d\\u0041\"", 14, &s, &n), KR_INPUT);
    T_EQ_I64(str("\"\\u0000\"", 8, &s, &n), KR_INPUT);
    T_EQ_I64(str("\"\\u12G4\"", 8, &s, &n), KR_INPUT);
    T_EQ_I64(str("\"\\x\"", 4, &s, &n), KR_INPUT);
    T_CHECK(strstr(E.msg, "invalid escape") != NULL);
    T_EQ_STR(E.where, "1:2");
    T_EQ_I64(str("\"a\tb\"", 5, &s, &n), KR_INPUT);
    T_EQ_STR(E.msg, "control character 0x09 in string");
    T_EQ_STR(E.where, "1:3");
    T_EQ_I64(str("\"a\nb\"", 5, &s, &n), KR_INPUT);
    T_EQ_I64(str("\"a\0b\"", 5, &s, &n), KR_INPUT);
    T_EQ_I64(str("\"abc", 4, &s, &n), KR_INPUT);
    T_EQ_STR(E.msg, "unterminated string");
    T_EQ_I64(str("\"\xC0\x80\"", 4, &s, &n), KR_INPUT);     /* overlong */
    T_EQ_I64(str("\"\xED\xA0\x80\"", 5, &s, &n), KR_INPUT); /* encoded surrogate */
    T_EQ_I64(str("\"\xF5\x80\x80\x80\"", 6, &s, &n), KR_INPUT);
    T_EQ_I64(str("\"\xE2\x82\"", 4, &s, &n), KR_INPUT);     /* truncated sequence */
    T_EQ_I64(str("\"\x80\"", 3, &s, &n), KR_INPUT);         /* lone continuation */
    T_EQ_I64(str("\"\xF4\x90\x80\x80\"", 6, &s, &n), KR_INPUT); /* above U+10FFFF */
    T_EQ_I64(str("abc", 3, &s, &n), KR_INPUT);
    T_EQ_STR(E.msg, "expected string in name, found 'a'");
}

static void test_containers(void)
{
    bundle_scan_obj o;
    bundle_scan_arr a;
    const char *k;
    size_t n;
    uint64_t u;

    start(" { \"a\" : 1 , \"b\":[ 2 ,3 ] } ");
    T_EQ_I64(bundle_scan_object_open(&S, &o, NULL), 0);
    T_EQ_I64(S.depth, 1);
    T_EQ_I64(bundle_scan_object_key(&S, &o, &k, &n), 1);
    T_CHECK(n == 1 && k[0] == 'a');
    T_EQ_I64(bundle_scan_uint(&S, 9, &u, "a"), 0);
    T_EQ_U64(u, 1);
    T_EQ_I64(bundle_scan_object_key(&S, &o, &k, &n), 1);
    T_CHECK(n == 1 && k[0] == 'b');
    T_EQ_I64(bundle_scan_array_open(&S, &a, "b"), 0);
    T_EQ_I64(S.depth, 2);
    uint64_t sum = 0;
    int r;
    while ((r = bundle_scan_array_next(&S, &a)) == 1) {
        T_EQ_I64(bundle_scan_uint(&S, 9, &u, "b[]"), 0);
        sum += u;
    }
    T_EQ_I64(r, 0);
    T_EQ_U64(sum, 5);
    T_EQ_U64(a.count, 2);
    T_EQ_I64(bundle_scan_object_key(&S, &o, &k, &n), 0);
    T_EQ_I64(S.depth, 0);
    T_EQ_I64(bundle_scan_finish(&S), 0);

    start("{}");
    T_EQ_I64(bundle_scan_object_open(&S, &o, NULL), 0);
    T_EQ_I64(bundle_scan_object_key(&S, &o, &k, &n), 0);
    start("[]");
    T_EQ_I64(bundle_scan_array_open(&S, &a, NULL), 0);
    T_EQ_I64(bundle_scan_array_next(&S, &a), 0);

    /* trailing commas */
    start("{\"a\":1,}");
    bundle_scan_object_open(&S, &o, "top");
    bundle_scan_object_key(&S, &o, &k, &n);
    bundle_scan_uint(&S, 9, &u, "a");
    T_EQ_I64(bundle_scan_object_key(&S, &o, &k, &n), -1);
    T_EQ_STR(E.msg, "expected a key string in top, found '}'");
    T_EQ_STR(E.where, "1:8");
    start("[1,]");
    T_EQ_I64(bundle_scan_skip(&S), KR_INPUT);
    T_EQ_STR(E.where, "1:4");
    /* missing colon, missing comma */
    start("{\"a\" 1}");
    bundle_scan_object_open(&S, &o, NULL);
    T_EQ_I64(bundle_scan_object_key(&S, &o, &k, &n), -1);
    T_EQ_STR(E.msg, "expected ':' after key, found '1'");
    start("[1 2]");
    T_EQ_I64(bundle_scan_skip(&S), KR_INPUT);
    T_EQ_STR(E.msg, "expected ',' or ']', found '2'");
    T_EQ_STR(E.where, "1:4");
    start("[");
    T_EQ_I64(bundle_scan_skip(&S), KR_INPUT);
    T_CHECK(strstr(E.msg, "end of input") != NULL);
    start("5");
    T_EQ_I64(bundle_scan_array_open(&S, &a, "wave.timeline"), KR_INPUT);
    T_EQ_STR(E.msg, "expected array in wave.timeline, found '5'");

    /* duplicate keys: unique per object, escapes decoded before comparing */
    start("{\"a\":1,\"b\":{\"a\":2},\"\\u0061\":3}");
    T_EQ_I64(bundle_scan_skip(&S), KR_INPUT);
    T_EQ_STR(E.msg, "duplicate key \"a\"");
    T_EQ_STR(E.where, "1:20");
    start("{\"a\":1,\"b\":{\"a\":2},\"c\":3}");
    T_EQ_I64(bundle_scan_skip(&S), 0);

    /* null */
    start("  null,");
    T_EQ_I64(bundle_scan_null(&S), 1);
    T_EQ_U64(S.p - S.base, 6);
    start("nul");
    T_EQ_I64(bundle_scan_null(&S), 0);
    start("[1]");
    T_EQ_I64(bundle_scan_null(&S), 0);
    T_EQ_U64(S.p - S.base, 0);
}

static void test_skip_and_depth(void)
{
    start("{\"x\":[true,false,null,-1.5e3,\"s\\n\",{\"y\":[]},{}],\"z\":0}  \n");
    T_EQ_I64(bundle_scan_skip(&S), 0);
    T_EQ_I64(bundle_scan_finish(&S), 0);
    T_EQ_I64(S.depth, 0);
    start("{} x");
    T_EQ_I64(bundle_scan_skip(&S), 0);
    T_EQ_I64(bundle_scan_finish(&S), KR_INPUT);
    T_EQ_STR(E.msg, "expected end of input, found 'x'");
    T_EQ_STR(E.where, "1:4");
    const char *bad[] = {"tru", "nulll", "NaN", "Infinity", "+1", "'a'", "[1,,2]", "{,}", "{\"a\"}",
                         "{\"a\":}", "[01]", "[1.]", "\xEF\xBB\xBF[]", "[\"\\u0000\"]", "]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        start(bad[i]);
        int rc = bundle_scan_skip(&S);
        if (!rc)
            rc = bundle_scan_finish(&S);
        T_EQ_I64(rc, KR_INPUT);
    }
    /* KR_MAX_JSON_DEPTH containers pass, one more fails. */
    char deep[2 * KR_MAX_JSON_DEPTH + 8];
    for (int extra = 0; extra <= 1; extra++) {
        int d = KR_MAX_JSON_DEPTH + extra, k = 0;
        for (int i = 0; i < d; i++)
            deep[k++] = '[';
        for (int i = 0; i < d; i++)
            deep[k++] = ']';
        deep[k] = '\0';
        start(deep);
        int rc = bundle_scan_skip(&S);
        T_EQ_I64(rc, extra ? KR_INPUT : 0);
        if (extra) {
            T_CHECK(strstr(E.msg, "KR_MAX_JSON_DEPTH") != NULL);
            T_EQ_STR(E.where, "1:65");
        }
    }
}

static void test_linecol(void)
{
    size_t l, c;
    const char *t = "ab\ncd\xC3\xA9" "ef\n";
    bundle_scan_linecol(t, t, &l, &c);
    T_CHECK(l == 1 && c == 1);
    bundle_scan_linecol(t, t + 2, &l, &c);
    T_CHECK(l == 1 && c == 3);
    bundle_scan_linecol(t, t + 3, &l, &c);
    T_CHECK(l == 2 && c == 1);
    bundle_scan_linecol(t, t + 7, &l, &c);          /* 'e' after a 2-byte character */
    T_CHECK(l == 2 && c == 4);
    /* The first error wins. */
    start("x");
    bundle_scan_fail(&S, S.base, "first");
    bundle_scan_fail(&S, S.base, "second");
    T_EQ_STR(E.msg, "first");
}

/* Tuples through the fast path (far from the end) and the slow path (near
 * the end, or with whitespace) give the same values. */
static void test_tuples(void)
{
    static const uint64_t max5[5] = {INT64_MAX, 255, UINT32_MAX, UINT32_MAX, UINT32_MAX};
    char buf[1024];
    uint64_t f[5];
    /* 40 compact records then padding: the first ones take the fast path. */
    size_t k = 0;
    k += (size_t)snprintf(buf + k, sizeof buf - k, "[");
    for (int i = 0; i < 20; i++)
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%s[%d,%d,0,4,%d]", i ? "," : "",
                              173060 + 4 * i, i % 13, i + 1);
    k += (size_t)snprintf(buf + k, sizeof buf - k, "]");
    bundle_scan_free(&S);
    bundle_scan_init(&S, buf, k, "t.json", &E);
    T_CHECK(S.fast_end > S.base);
    bundle_scan_arr a;
    bundle_scan_array_open(&S, &a, "w");
    uint64_t sum_time = 0, sum_line = 0, n = 0;
    int r;
    while ((r = bundle_scan_array_next(&S, &a)) == 1) {
        T_EQ_I64(bundle_scan_uint_tuple(&S, 5, max5, f, "w", (size_t)n), 0);
        T_EQ_U64(f[1], n % 13);
        sum_time += f[0];
        sum_line += f[4];
        n++;
    }
    T_EQ_I64(r, 0);
    T_EQ_U64(n, 20);
    T_EQ_U64(sum_time, 20 * 173060 + 4 * 190);     /* 4 * (0 + ... + 19) */
    T_EQ_U64(sum_line, 210);                        /* 1 + ... + 20 */

    /* whitespace, 19-digit values and -0 take the slow path */
    start("[ 9223372036854775807 , -0,\n1 ,2,3 ]");
    T_EQ_I64(bundle_scan_uint_tuple(&S, 5, max5, f, "w", 0), 0);
    T_CHECK(f[0] == INT64_MAX && f[1] == 0 && f[2] == 1 && f[3] == 2 && f[4] == 3);

    /* errors name the element */
    const struct { const char *in, *msg, *where; } cases[] = {
        {"[1,2,3,4]", "expected 5 integers in w[7], found 4", "1:9"},
        {"[1,2,3,4,5,6]", "expected 5 integers in w[7], found more", "1:11"},
        {"[1,256,3,4,5]", "integer out of range in w[7][1] (maximum 255)", "1:4"},
        {"[1,2,3,4294967296,5]", "integer out of range in w[7][3] (maximum 4294967295)", "1:8"},
        {"[1,2,-3,4,5]", "expected a non-negative integer in w[7][2]", "1:6"},
        {"[1,2,3,4,5.0]", "expected integer in w[7][4], found a real number", "1:10"},
        {"[1,2,3,4,[5]]", "expected integer in w[7][4], found '['", "1:10"},
        {"{\"a\":1}", "expected array in w[7], found '{'", "1:1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* once near the end (slow path), once followed by padding (fast path first) */
        for (int pad = 0; pad <= 1; pad++) {
            char in[512];
            size_t len = strlen(cases[i].in);
            memcpy(in, cases[i].in, len);
            if (pad) {
                memset(in + len, ' ', 300);
                in[len + 300] = ']';
                len += 301;
            }
            in[len] = '\0';
            start(in);
            T_CHECK(pad == 0 || S.fast_end > S.base);
            T_EQ_I64(bundle_scan_uint_tuple(&S, 5, max5, f, "w", 7), KR_INPUT);
            T_EQ_STR(E.msg, cases[i].msg);
            T_EQ_STR(E.where, cases[i].where);
        }
    }
    /* A buffer of digits only never enables the fast path. */
    start("12345678901234567890123456789012345678901234567890123456789012345678901234567890"
          "12345678901234567890123456789012345678901234567890123456789012345678901234567890");
    T_CHECK(S.fast_end == S.base);
}


/* ---- the unchecked fast readers against independent references ---- */

/* Number texts: every digit count 1..19 at its smallest and largest value
 * and two mixed patterns, the field limits (max and max + 1), leading zeros
 * and things that are not plain integers. */
static size_t number_texts(char texts[][32], size_t cap)
{
    static const char *const fixed[] = {
        "0", "00", "01", "007", "0999999999999999", "255", "256", "4294967295", "4294967296",
        "9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616",
        "99999999999999999999", "-1", "-0", "+1", "1.5", "1e3", "", "x",
    };
    size_t n = 0;
    for (int nd = 1; nd <= 19; nd++) {
        static const char mixed1[] = "1234567890123456789", mixed2[] = "9876543210987654321";
        texts[n][0] = '1';
        memset(texts[n] + 1, '0', (size_t)nd - 1);
        texts[n++][nd] = '\0';
        memset(texts[n], '9', (size_t)nd);
        texts[n++][nd] = '\0';
        snprintf(texts[n++], 32, "%.*s", nd, mixed1);
        snprintf(texts[n++], 32, "%.*s", nd, mixed2);
    }
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0] && n < cap; i++)
        snprintf(texts[n++], 32, "%s", fixed[i]);
    return n;
}

/* Independent reading of t as a JSON integer token for a field 0..max
 * (max <= INT64_MAX): 1 and *v when t is 1-19 digits without a leading zero
 * and its value (by strtoull) is <= max, or "-0"; else 0. */
static int plain_uint(const char *t, uint64_t max, uint64_t *v)
{
    size_t len = strlen(t);
    if (strcmp(t, "-0") == 0) {
        *v = 0;
        return 1;
    }
    if (len == 0 || len > 19 || strspn(t, "0123456789") != len || (t[0] == '0' && len > 1))
        return 0;
    *v = strtoull(t, NULL, 10);
    return *v <= max;
}

static void test_fast_field(void)
{
    static const uint64_t maxes[] = {9, 99, 255, 999, UINT32_MAX, INT64_MAX};
    static char texts[200][32];
    size_t nt = number_texts(texts, 200);
    int checked = 0;
    for (size_t i = 0; i < nt; i++) {
        for (size_t m = 0; m < sizeof maxes / sizeof maxes[0]; m++) {
            for (int variant = 0; variant < 4; variant++) {
                /* the separator, then bytes that must not matter: non-digits
                 * or more digits; an exact-size heap buffer of
                 * BUNDLE_SCAN_FAST_READ bytes at least */
                char sep = variant & 1 ? ']' : ',';
                const char *tail = variant & 2 ? "12345678901234567890" : "xxxxxxxxxxxxxxxxxxxx";
                char text[80];
                int len = snprintf(text, sizeof text, "%s%c%s", texts[i], sep, tail);
                char *buf = malloc((size_t)len);
                memcpy(buf, text, (size_t)len);
                uint64_t want = 0, got = 7;
                size_t tl = strlen(texts[i]);
                int ok = plain_uint(texts[i], maxes[m], &want) && tl <= BUNDLE_SCAN_FAST_DIGITS &&
                         texts[i][0] != '-';
                const char *p = buf;
                int r = bundle_scan_fast_field(&p, maxes[m], sep, &got);
                T_EQ_I64(r, ok);
                if (r != ok)
                    fprintf(stderr, "  fast_field \"%s\" max %llu\n", texts[i], (unsigned long long)maxes[m]);
                if (ok) {
                    T_EQ_U64(got, want);
                    T_EQ_U64(p - buf, tl + 1);
                } else {
                    T_CHECK(p == buf && got == 7);
                }
                /* the long-field reader: the same, except that a lone 0
                 * goes to the checked path */
                p = buf;
                got = 7;
                r = bundle_scan_fast_field_long(&p, maxes[m], sep, &got);
                int ok_long = ok && strcmp(texts[i], "0") != 0;
                T_EQ_I64(r, ok_long);
                T_CHECK(ok_long ? got == want && (size_t)(p - buf) == tl + 1 : p == buf && got == 7);
                /* a different separator is never accepted */
                p = buf;
                T_EQ_I64(bundle_scan_fast_field(&p, maxes[m], sep == ',' ? ']' : ',', &got), 0);
                T_CHECK(p == buf);
                free(buf);
                checked++;
            }
        }
    }
    T_CHECK(checked > 400);
    /* a maximum of every digit count 1..18: max itself is accepted (up to
     * BUNDLE_SCAN_FAST_DIGITS digits), max + 1 never */
    for (int nd = 1; nd <= 18; nd++) {
        static const char mixed[] = "123456789012345678";
        char t[32];
        for (int kind = 0; kind < 2; kind++) {
            if (kind) {
                snprintf(t, sizeof t, "%.*s", nd, mixed);
            } else {
                memset(t, '9', (size_t)nd);
                t[nd] = '\0';
            }
            uint64_t max = strtoull(t, NULL, 10);
            for (uint64_t add = 0; add <= 1; add++) {
                char text[64];
                int len = snprintf(text, sizeof text, "%llu,xxxxxxxxxxxxxxxxxxxx", (unsigned long long)(max + add));
                char *buf = malloc((size_t)len);
                memcpy(buf, text, (size_t)len);
                const char *p = buf;
                uint64_t got = 0;
                int ok = add == 0 && nd <= BUNDLE_SCAN_FAST_DIGITS;
                T_EQ_I64(bundle_scan_fast_field(&p, max, ',', &got), ok);
                T_CHECK(ok ? got == max : p == buf);
                p = buf;
                T_EQ_I64(bundle_scan_fast_field_long(&p, max, ',', &got), ok);
                free(buf);
            }
        }
    }
    /* SWAR core pieces by hand */
    T_EQ_U64(bundle_scan_swar8(bundle_scan_load8("12345678") ^ BUNDLE_SCAN_B8('0')), 12345678);
    T_EQ_U64(bundle_scan_swar8(bundle_scan_load8("90000009") ^ BUNDLE_SCAN_B8('0')), 90000009);
    /* flags: '1','2',',' -> the first flagged byte is byte 2 */
    T_EQ_U64(bundle_scan_nondigits(bundle_scan_load8("12,45678") ^ BUNDLE_SCAN_B8('0')) & 0xFFFFFF,
             0x800000);
    /* bytes >= 0x8a carry into the next byte; the first flag stays exact */
    T_EQ_U64(__builtin_ctzll(bundle_scan_nondigits(bundle_scan_load8("1\xff" "000000") ^ BUNDLE_SCAN_B8('0'))),
             15);
    T_EQ_U64(bundle_scan_nondigits(bundle_scan_load8("99999999") ^ BUNDLE_SCAN_B8('0')), 0);
}

/* One tuple through bundle_scan_uint_tuple on an exact-size heap copy of
 * text, with the fast path allowed or (checked) disabled. */
typedef struct tuple_result {
    int rc;
    uint64_t v[5];
    size_t consumed;
    char msg[256], where[32];
} tuple_result;

static tuple_result tuple_run(const char *text, size_t len, int checked, int n, const uint64_t *max)
{
    tuple_result t;
    memset(&t, 0, sizeof t);
    char *buf = malloc(len ? len : 1);
    memcpy(buf, text, len);
    bundle_scan_free(&S);
    bundle_scan_init(&S, buf, len, "t.json", &E);
    if (checked)
        S.fast_end = S.base;
    t.rc = bundle_scan_uint_tuple(&S, n, max, t.v, "w", 7);
    t.consumed = (size_t)(S.p - S.base);
    snprintf(t.msg, sizeof t.msg, "%s", t.rc ? E.msg : "");
    snprintf(t.where, sizeof t.where, "%s", t.rc ? E.where : "");
    bundle_scan_free(&S);
    free(buf);
    return t;
}

static int tuple_same(const tuple_result *a, const tuple_result *b, int n)
{
    if (a->rc != b->rc || strcmp(a->msg, b->msg) != 0 || strcmp(a->where, b->where) != 0)
        return 0;
    if (a->rc)
        return 1;
    return a->consumed == b->consumed && memcmp(a->v, b->v, (size_t)n * sizeof a->v[0]) == 0;
}

static void test_fast_tuples(void)
{
    static const uint64_t max5[5] = {INT64_MAX, 255, UINT32_MAX, UINT32_MAX, UINT32_MAX};
    static char texts[200][32];
    size_t nt = number_texts(texts, 200);
    char in[600];
    /* every number text in every field, far from the end (fast path
     * allowed) and checked: the same values or the same error */
    for (size_t i = 0; i < nt; i++) {
        for (int k = 0; k < 5; k++) {
            size_t len = 0, at = 0;
            len += (size_t)snprintf(in + len, sizeof in - len, "[");
            for (int j = 0; j < 5; j++) {
                len += (size_t)snprintf(in + len, sizeof in - len, "%s", j ? "," : "");
                if (j == k)
                    at = len;
                len += (size_t)snprintf(in + len, sizeof in - len, "%s", j == k ? texts[i] : "1");
            }
            len += (size_t)snprintf(in + len, sizeof in - len, "]");
            memset(in + len, ' ', 200);
            in[len + 200] = ']';
            tuple_result fast = tuple_run(in, len + 201, 0, 5, max5);
            tuple_result slow = tuple_run(in, len + 201, 1, 5, max5);
            T_CHECK(tuple_same(&fast, &slow, 5));
            uint64_t want;
            if (plain_uint(texts[i], max5[k], &want)) {
                T_EQ_I64(fast.rc, 0);
                T_EQ_U64(fast.v[k], want);
                T_EQ_U64(fast.consumed, len);
            } else {
                /* every error here is about the token at field k */
                char where[32];
                snprintf(where, sizeof where, "1:%zu", at + 1);
                T_EQ_I64(fast.rc, KR_INPUT);
                T_EQ_STR(fast.where, where);
            }
            if (!tuple_same(&fast, &slow, 5))
                fprintf(stderr, "  tuple %.*s: fast %d %s %s / checked %d %s %s\n", (int)len, in, fast.rc,
                        fast.where, fast.msg, slow.rc, slow.where, slow.msg);
        }
    }
    /* whitespace inside a tuple, and the same tuple compact */
    static const char *const spaced[] = {
        "[ 173060,1,0,4,12]", "[173060 ,1,0,4,12]", "[173060, 1,0,4,12]", "[173060,1,0,4,12 ]",
        "[173060,1,0,4,\n12]", "[173060,1,0,4,\t12]", "[173060,1,0,4,12\r]",
    };
    for (size_t i = 0; i < sizeof spaced / sizeof spaced[0]; i++) {
        size_t len = strlen(spaced[i]);
        memcpy(in, spaced[i], len);
        memset(in + len, ' ', 200);
        in[len + 200] = ']';
        tuple_result fast = tuple_run(in, len + 201, 0, 5, max5);
        tuple_result slow = tuple_run(in, len + 201, 1, 5, max5);
        T_CHECK(tuple_same(&fast, &slow, 5));
        T_EQ_I64(fast.rc, 0);
        T_CHECK(fast.v[0] == 173060 && fast.v[1] == 1 && fast.v[2] == 0 && fast.v[3] == 4 && fast.v[4] == 12);
        T_EQ_U64(fast.consumed, len);
    }
    /* a tuple at every distance from the end of an exact-size buffer:
     * "[123456789012345,1,0,4,123]" then pad spaces and ']' */
    static const char tup[] = "[123456789012345,1,0,4,123]";
    size_t tl = strlen(tup);
    for (size_t pad = 0; pad <= 200; pad++) {
        memcpy(in, tup, tl);
        memset(in + tl, ' ', pad);
        in[tl + pad] = ']';
        tuple_result fast = tuple_run(in, tl + pad + 1, 0, 5, max5);
        tuple_result slow = tuple_run(in, tl + pad + 1, 1, 5, max5);
        T_CHECK(tuple_same(&fast, &slow, 5));
        T_EQ_I64(fast.rc, 0);
        T_CHECK(fast.v[0] == 123456789012345ull && fast.v[1] == 1 && fast.v[4] == 123);
    }
    /* a run of compact tuples whose last one is cut at every byte: the
     * earlier tuples take the fast path, the cut one fails exactly as on
     * the checked path */
    for (size_t cut = 1; cut < tl; cut++) {
        size_t len = 0;
        for (int j = 0; j < 12; j++)
            len += (size_t)snprintf(in + len, sizeof in - len, "%s,", tup);
        memcpy(in + len, tup, cut);
        len += cut;
        tuple_result res[2];
        for (int checked = 0; checked <= 1; checked++) {
            char *buf = malloc(len);
            memcpy(buf, in, len);
            bundle_scan_free(&S);
            bundle_scan_init(&S, buf, len, "t.json", &E);
            if (checked)
                S.fast_end = S.base;
            int rc = 0, count = 0;
            uint64_t sum = 0;
            while (!rc && S.p < S.end) {
                rc = bundle_scan_uint_tuple(&S, 5, max5, res[checked].v, "w", (size_t)count);
                if (!rc) {
                    sum += res[checked].v[0] + res[checked].v[4];
                    count++;
                    if (S.p < S.end && *S.p == ',')
                        S.p++;
                }
            }
            T_EQ_I64(count, 12);
            T_EQ_U64(sum, 12 * (123456789012345ull + 123));
            res[checked].rc = rc;
            snprintf(res[checked].msg, sizeof res[checked].msg, "%s", E.msg);
            snprintf(res[checked].where, sizeof res[checked].where, "%s", E.where);
            bundle_scan_free(&S);
            free(buf);
        }
        T_EQ_I64(res[0].rc, KR_INPUT);
        T_EQ_STR(res[0].msg, res[1].msg);
        T_EQ_STR(res[0].where, res[1].where);
    }
}

int main(void)
{
    test_numbers();
    test_uint_sint();
    test_strings();
    test_containers();
    test_skip_and_depth();
    test_linecol();
    test_tuples();
    test_fast_field();
    test_fast_tuples();
    bundle_scan_free(&S);
    return t_done("test_scan");
}
