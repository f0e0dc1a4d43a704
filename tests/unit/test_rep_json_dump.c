/* test_rep_json_dump.c — report/json_dump.h: the bytes of analysis.json.
 *
 * 1. Hand-written documents with their exact text (jansson's layout:
 *    two-space indent, ": ", empty containers inline, reals with 10
 *    significant digits, ".0" on integral reals, exponents without '+' and
 *    leading zeros, \uXXXX upper-case for control bytes, '/' and non-ASCII
 *    as is).
 * 2. Failures: a string that is not UTF-8, a root that is not a container:
 *    -1, the buffer unchanged, exactly where json_dumps returns NULL.
 * 3. Differential: generated documents (nesting, escapes, UTF-8, integers
 *    at the int64 limits, reals of every magnitude) and the committed
 *    analysis.json, against json_dumps byte for byte.
 * 4. Numbers without printf: rep_json_real_text on hand-checked values
 *    (ties to even at the 10th digit, the %g switch at 1e-4 and 1e10,
 *    subnormals, the largest double, -0.0, NaN and infinities) and on
 *    millions of values against jansson's own text; rep_fixed_text against
 *    printf's "%.*f"; integers at every power-of-ten boundary against
 *    json_dumps. */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "common/file.h"
#include "common/limits.h"
#include "report/json_dump.h"
#include "report/numtext.h"
#include "tests/unit/t.h"

#define FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10))

static uint64_t rng_state = 0x243F6A8885A308D3ull;
static uint64_t rng(void)
{
    uint64_t x = rng_state;     /* xorshift64*, fixed seed: deterministic */
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* rep_json_dump of v as a C string ("" and *rc = -1 on failure). */
static char *dump(const json_t *v, int *rc)
{
    kr_buf b;
    kr_buf_init(&b);
    *rc = rep_json_dump(v, &b);
    char *s = strdup(b.data ? b.data : "");
    kr_buf_free(&b);
    return s;
}

/* 1 when rep_json_dump and json_dumps agree on v (both fail or same bytes). */
static int agree(const json_t *v, const char *label)
{
    int rc;
    char *ours = dump(v, &rc);
    char *ref = json_dumps(v, FLAGS);
    int ok = ref ? rc == 0 && strcmp(ours, ref) == 0 : rc == -1 && ours[0] == '\0';
    if (!ok) {
        fprintf(stderr, "%s: rep_json_dump %s / json_dumps %s\n", label, rc ? "failed" : "ok",
                ref ? "ok" : "failed");
        if (ref) {
            size_t i = 0;
            while (ours[i] && ours[i] == ref[i])
                i++;
            fprintf(stderr, "  first difference at byte %zu: ours \"%.40s\" / jansson \"%.40s\"\n", i,
                    ours + i, ref + i);
        }
    }
    free(ours);
    free(ref);
    return ok;
}

static void expect_text(json_t *v, const char *want)
{
    int rc;
    char *got = dump(v, &rc);
    T_EQ_I64(rc, 0);
    T_EQ_STR(got, want);
    T_CHECK(agree(v, want));
    free(got);
    json_decref(v);
}

/* ---- 1 ---- */

static void test_hand_written(void)
{
    json_t *o = json_object();
    json_object_set_new(o, "b", json_integer(-7));
    json_object_set_new(o, "a", json_array());
    json_object_set_new(o, "e", json_object());
    json_t *arr = json_array();
    json_array_append_new(arr, json_real(1.0));
    json_array_append_new(arr, json_real(0.1));
    json_array_append_new(arr, json_real(1234567.123456789));
    json_array_append_new(arr, json_real(1e20));
    json_array_append_new(arr, json_real(-2.5e-7));
    json_array_append_new(arr, json_real(-0.0));
    json_array_append_new(arr, json_true());
    json_array_append_new(arr, json_false());
    json_array_append_new(arr, json_null());
    json_object_set_new(o, "x/y", arr);
    json_object_set_new(o, "s", json_string("q\"b\\s\n\t\x01\x1f/\xc3\xa9"));
    json_object_set_new(o, "n", json_integer(INT64_MIN));
    /* insertion order, not key order */
    expect_text(o,
        "{\n"
        "  \"b\": -7,\n"
        "  \"a\": [],\n"
        "  \"e\": {},\n"
        "  \"x/y\": [\n"
        "    1.0,\n"
        "    0.1,\n"
        "    1234567.123,\n"
        "    1e20,\n"
        "    -2.5e-7,\n"
        "    -0.0,\n"
        "    true,\n"
        "    false,\n"
        "    null\n"
        "  ],\n"
        "  \"s\": \"q\\\"b\\\\s\\n\\t\\u0001\\u001F/\xc3\xa9\",\n"
        "  \"n\": -9223372036854775808\n"
        "}");

    json_t *nested = json_array();
    json_t *inner = json_object();
    json_object_set_new(inner, "k", json_pack("[i, [i]]", 1, 2));
    json_array_append_new(nested, inner);
    json_array_append_new(nested, json_string(""));
    expect_text(nested,
        "[\n"
        "  {\n"
        "    \"k\": [\n"
        "      1,\n"
        "      [\n"
        "        2\n"
        "      ]\n"
        "    ]\n"
        "  },\n"
        "  \"\"\n"
        "]");
    expect_text(json_object(), "{}");
    expect_text(json_array(), "[]");
    /* 12 levels: deeper than the 32-space block indent() copies from */
    json_t *deep = json_array(), *at = deep;
    for (int d = 0; d < 20; d++) {
        json_t *next = json_array();
        json_array_append_new(at, next);
        at = next;
    }
    json_array_append_new(at, json_integer(0));
    T_CHECK(agree(deep, "deep"));
    json_decref(deep);
}

/* ---- 2 ---- */

static void test_failures(void)
{
    kr_buf b;
    kr_buf_init(&b);
    kr_buf_puts(&b, "keep");
    static const char *const bad[] = {"\xff", "a\xc0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "ok\xe2\x82"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "v", json_stringn_nocheck(bad[i], strlen(bad[i])));
        T_EQ_I64(rep_json_dump(o, &b), -1);
        T_EQ_STR(b.data, "keep");                /* nothing of the partial text stays */
        T_CHECK(agree(o, "bad utf-8"));
        json_decref(o);
    }
    json_t *s = json_string("x");
    T_EQ_I64(rep_json_dump(s, &b), -1);
    T_CHECK(json_dumps(s, FLAGS) == NULL);
    json_decref(s);
    T_EQ_U64(b.len, 4);
    kr_buf_free(&b);
}

/* ---- 3 ---- */

static char *random_text(size_t *len)
{
    static const char *const pieces[] = {"a", "Z", "0", " ", "/", "\"", "\\", "\n", "\r", "\t", "\b", "\f",
        "\x01", "\x1f", "\x7f", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "_", "key", "-"};
    size_t n = rng() % 8, cap = 8 * 4 + 1, k = 0;
    char *s = malloc(cap);
    for (size_t i = 0; i < n; i++) {
        const char *p = pieces[rng() % (sizeof pieces / sizeof pieces[0])];
        size_t m = strlen(p);
        memcpy(s + k, p, m);
        k += m;
    }
    s[k] = '\0';
    *len = k;
    return s;
}

static double random_real(void)
{
    for (;;) {
        uint64_t bits = rng();
        double d;
        switch (rng() % 4) {
        case 0:                  /* any finite double */
            memcpy(&d, &bits, sizeof d);
            if (isfinite(d))
                return d;
            break;
        case 1:                  /* ratios and shares */
            return (double)(bits % 1000000) / (double)(1 + rng() % 1000);
        case 2:                  /* integral values, where ".0" is appended */
            return (double)(int64_t)(bits % 100000000000ull) - 5e10;
        default:                 /* powers of ten around the %g switch */
            return pow(10.0, (double)((int)(bits % 50) - 25)) * (1 + (double)(rng() % 9));
        }
    }
}

static json_t *random_value(int depth)
{
    unsigned kind = (unsigned)(rng() % (depth > 4 ? 6 : 8));
    switch (kind) {
    case 0: return json_null();
    case 1: return rng() % 2 ? json_true() : json_false();
    case 2: {
        static const int64_t edge[] = {0, -1, 1, INT64_MAX, INT64_MIN, 10, -10, 999999999999};
        return json_integer(rng() % 3 ? (json_int_t)(rng() % 2000000) - 1000000 : edge[rng() % 8]);
    }
    case 3: return json_real(random_real());
    case 4:
    case 5: {
        size_t len;
        char *t = random_text(&len);
        json_t *v = json_stringn(t, len);
        free(t);
        return v;
    }
    case 6: {
        json_t *a = json_array();
        for (size_t n = rng() % 5; n > 0; n--)
            json_array_append_new(a, random_value(depth + 1));
        return a;
    }
    default: {
        json_t *o = json_object();
        for (size_t n = rng() % 5; n > 0; n--) {
            size_t len;
            char *k = random_text(&len);
            json_object_setn_new(o, k, len, random_value(depth + 1));
            free(k);
        }
        return o;
    }
    }
}

static void test_differential(void)
{
    size_t same = 0, runs = 3000;
    for (size_t i = 0; i < runs; i++) {
        json_t *root = rng() % 2 ? json_object() : json_array();
        for (size_t n = 1 + rng() % 6; n > 0; n--) {
            json_t *v = random_value(1);
            if (json_is_object(root)) {
                char key[16];
                snprintf(key, sizeof key, "k%zu", n);
                json_object_set_new(root, key, v);
            } else {
                json_array_append_new(root, v);
            }
        }
        char label[32];
        snprintf(label, sizeof label, "generated %zu", i);
        same += (size_t)agree(root, label);
        json_decref(root);
    }
    T_EQ_U64(same, runs);

    /* reals alone, many more of them */
    size_t nreal = 20000;
    json_t *a = json_array();
    for (size_t i = 0; i < nreal; i++)
        json_array_append_new(a, json_real(random_real()));
    T_CHECK(agree(a, "reals"));
    json_decref(a);

    /* the committed example's analysis.json, loaded and written again */
    const char *src = getenv("KR_SRC");
    char path[4096];
    snprintf(path, sizeof path, "%s/examples/synth_gfx950/analysis.json", src && *src ? src : "..");
    char *data;
    size_t len;
    kr_err err;
    if (!kr_file_exists(path) || kr_file_read(path, KR_MAX_SMALL_FILE_BYTES, &data, &len, &err)) {
        printf("test_rep_json_dump: %s not found, skipped\n", path);
        return;
    }
    json_t *doc = json_loadb(data, len, 0, NULL);
    T_CHECK(doc != NULL);
    if (doc) {
        T_CHECK(agree(doc, path));
        int rc;
        char *ours = dump(doc, &rc);
        /* the file is json_dumps output plus a newline */
        T_EQ_U64(strlen(ours) + 1, len);
        T_CHECK(strncmp(ours, data, strlen(ours)) == 0);
        free(ours);
        json_decref(doc);
    }
    free(data);
}

/* ---- 4 ---- */

/* jansson's text for one real: json_dumps of [v], brackets removed. */
static void jansson_real(double v, char *out, size_t cap)
{
    json_t *a = json_array();
    json_array_append_new(a, json_real(v));
    char *t = json_dumps(a, JSON_COMPACT | JSON_REAL_PRECISION(10));
    size_t n = strlen(t);
    snprintf(out, cap, "%.*s", (int)(n - 2), t + 1);
    free(t);
    json_decref(a);
}

static void test_numbers(void)
{
    /* hand-checked: 10 significant digits, ties (exact binary values with a
     * 5 in the 11th digit) to the even neighbour, style f for exponents
     * -4..9 with ".0" on integral values, otherwise style e */
    static const struct { double v; const char *text; } hand[] = {
        {0.0, "0.0"}, {-0.0, "-0.0"}, {1.0, "1.0"}, {-7.0, "-7.0"}, {0.5, "0.5"}, {0.1, "0.1"},
        {1.0 / 3.0, "0.3333333333"}, {2.0 / 3.0, "0.6666666667"},
        {12345678905.0, "1.23456789e10"},      /* ...890|5: tie, 0 is even */
        {12345678915.0, "1.234567892e10"},     /* ...891|5: tie, up to even 2 */
        {1234567890.5, "1234567890.0"},        /* tie at the first decimal */
        {1234567891.5, "1234567892.0"},
        {123456789.25, "123456789.2"},         /* tie, 2 is even */
        {123456789.75, "123456789.8"},
        {9999999999.0, "9999999999.0"}, {9999999999.5, "1e10"}, {99999999995.0, "1e11"},
        {1e10, "1e10"}, {1e9, "1000000000.0"}, {0.0001, "0.0001"}, {0.00012345678912, "0.0001234567891"},
        {1e-5, "1e-5"}, {-2.5e-7, "-2.5e-7"}, {1e20, "1e20"}, {1e100, "1e100"}, {1e-100, "1e-100"},
        {5e-324, "4.940656458e-324"}, {1.7976931348623157e308, "1.797693135e308"},
        {1519.75, "1519.75"}, {2213.2512, "2213.2512"}, {0.999999999951, "1.0"}, {0.99999999994, "0.9999999999"},
    };
    for (size_t i = 0; i < sizeof hand / sizeof hand[0]; i++) {
        char got[32], ref[64];
        size_t n = rep_json_real_text(got, hand[i].v);
        T_EQ_STR(got, hand[i].text);
        T_EQ_U64(n, strlen(hand[i].text));
        jansson_real(hand[i].v, ref, sizeof ref);
        T_EQ_STR(got, ref);
    }
    char b[32];
    T_EQ_U64(rep_json_real_text(b, NAN), 0);
    T_EQ_U64(rep_json_real_text(b, INFINITY), 0);
    T_EQ_U64(rep_json_real_text(b, -INFINITY), 0);

    /* ties built on purpose: k + 0.5 and 10 k + 5 have a 5 as exact 11th
     * digit; (10 k + 5) / 8 is an exact binary fraction just past it */
    size_t bad = 0, total = 0;
    for (int64_t k = 1000000000; k < 1000000000 + 20000; k++) {
        double v = ((double)k * 10.0 + 5.0) / 8.0;
        double vs[] = {(double)k + 0.5, (double)k * 10 + 5, v, -((double)k + 0.5)};
        for (size_t j = 0; j < 4; j++) {
            char got[32], ref[64];
            rep_json_real_text(got, vs[j]);
            jansson_real(vs[j], ref, sizeof ref);
            bad += strcmp(got, ref) != 0;
            total++;
        }
    }
    /* every magnitude and shape of double */
    for (size_t i = 0; i < 600000; i++) {
        double v = random_real();
        if (i % 3 == 0)
            v = (double)(rng() % 100000000000ull) / (double)(1ull << (rng() % 40));
        char got[32], ref[64];
        rep_json_real_text(got, v);
        jansson_real(v, ref, sizeof ref);
        if (strcmp(got, ref) && bad < 5)
            fprintf(stderr, "real %.17g: ours %s, jansson %s\n", v, got, ref);
        bad += strcmp(got, ref) != 0;
        total++;
    }
    T_EQ_U64(bad, 0);
    T_CHECK(total > 600000);

    /* fixed decimals: printf's "%.*f" (report cells and percentages) */
    static const struct { double v; int dec; const char *text; } fixed[] = {
        {0.0, 1, "0.0"}, {-0.0, 1, "-0.0"}, {0.25, 1, "0.2"}, {0.35, 1, "0.3"}, {0.75, 1, "0.8"},
        {2.5, 0, "2"}, {3.5, 0, "4"}, {-0.04, 1, "-0.0"}, {36.75, 1, "36.8"}, {99.95, 1, "100.0"},
        {1519.75, 1, "1519.8"}, {2213.2512, 2, "2213.25"}, {7.875, 2, "7.88"}, {1e-9, 3, "0.000"},
        {123456789012.5, 0, "123456789012"}, {1e300, 1, ""}, {1.0 / 3.0, 6, "0.333333"},
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        char got[32], ref[400];
        size_t n = rep_fixed_text(got, fixed[i].v, fixed[i].dec);
        snprintf(ref, sizeof ref, "%.*f", fixed[i].dec, fixed[i].v);
        if (fixed[i].text[0]) {
            T_EQ_STR(got, fixed[i].text);
            T_EQ_U64(n, strlen(fixed[i].text));
        }
        T_CHECK(n == 0 ? strlen(ref) >= 32 : strcmp(got, ref) == 0);
    }
    T_EQ_U64(rep_fixed_text(b, NAN, 1), 0);
    T_EQ_U64(rep_fixed_text(b, INFINITY, 2), 0);
    size_t fbad = 0;
    for (size_t i = 0; i < 300000; i++) {
        double v = i % 2 ? random_real() : (double)(int64_t)(rng() % 2000001 - 1000000) / (double)(1 + rng() % 400);
        if (i % 7 == 0)
            v = (double)(rng() % 100000) / 8.0;        /* exact ties at 1 and 2 decimals */
        int dec = (int)(rng() % 7);
        char got[32], ref[400];
        size_t n = rep_fixed_text(got, v, dec);
        snprintf(ref, sizeof ref, "%.*f", dec, v);
        int ok = n == 0 ? strlen(ref) >= 32 : strcmp(got, ref) == 0;
        if (!ok && fbad < 5)
            fprintf(stderr, "fixed %.17g %d: ours %s, printf %s\n", v, dec, n ? got : "(none)", ref);
        fbad += !ok;
    }
    T_EQ_U64(fbad, 0);

    /* integers: every power of ten and its neighbours, both signs */
    json_t *ints = json_array();
    int64_t p = 1;
    for (int e = 0; e <= 18; e++) {
        for (int64_t d = -1; d <= 1; d++) {
            json_array_append_new(ints, json_integer(p + d));
            json_array_append_new(ints, json_integer(-(p + d)));
        }
        if (e < 18)
            p *= 10;
    }
    json_array_append_new(ints, json_integer(INT64_MAX));
    json_array_append_new(ints, json_integer(INT64_MIN));
    json_array_append_new(ints, json_integer(INT64_MIN + 1));
    T_CHECK(agree(ints, "integers"));
    json_decref(ints);
}

int main(void)
{
    test_hand_written();
    test_failures();
    test_differential();
    test_numbers();
    return t_done("test_rep_json_dump");
}
