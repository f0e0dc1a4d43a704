/* test_scan.c — the JSON scanner primitives (bundle/scan.h): numbers,
 * strings, containers, skipping, depth limit, tuples, error positions. */
#include <stdint.h>
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

int main(void)
{
    test_numbers();
    test_uint_sint();
    test_strings();
    test_containers();
    test_skip_and_depth();
    test_linecol();
    test_tuples();
    bundle_scan_free(&S);
    return t_done("test_scan");
}
