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
 *    analysis.json, against json_dumps byte for byte. */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "common/file.h"
#include "common/limits.h"
#include "report/json_dump.h"
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

int main(void)
{
    test_hand_written();
    test_failures();
    test_differential();
    return t_done("test_rep_json_dump");
}
