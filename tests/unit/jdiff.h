/* jdiff.h — mutated JSON inputs for the differential tests of the loaders
 * that have a streaming parser and a jansson reference (code.json,
 * occupancy.json).
 *
 * jdiff_mutate feeds a seed text and many variants of it to a checker that
 * runs both parsers and returns 1 (both accept, same model), 0 (both reject,
 * same error) or -1 (they disagree). Variants: every truncation, byte
 * replacements / insertions / deletions with JSON-significant bytes,
 * numbers and strings replaced by edge values of every type, duplicated
 * keys, nesting deeper than the scanner's limit, and added whitespace. The
 * random choices come from a fixed-seed generator: runs are repeatable. */
#ifndef KR_TEST_JDIFF_H
#define KR_TEST_JDIFF_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*jdiff_fn)(const char *data, size_t len, const char *label);

typedef struct jdiff_tally {
    size_t accepted, rejected, mismatched;
} jdiff_tally;

static uint64_t jdiff_rng_state = 0x9E3779B97F4A7C15ull;
static inline uint64_t jdiff_rng(void)
{
    uint64_t x = jdiff_rng_state;     /* xorshift64* */
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    jdiff_rng_state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

static inline void jdiff_count(jdiff_tally *t, int r)
{
    if (r > 0)
        t->accepted++;
    else if (r == 0)
        t->rejected++;
    else
        t->mismatched++;
}

/* src with [at, at + cut) replaced by ins. */
static inline void jdiff_splice(const char *src, size_t len, size_t at, size_t cut, const char *ins,
                                jdiff_fn fn, jdiff_tally *t, const char *label)
{
    size_t il = strlen(ins), n = len - cut + il;
    char *buf = malloc(n ? n : 1);
    memcpy(buf, src, at);
    memcpy(buf + at, ins, il);
    memcpy(buf + at + il, src + at + cut, len - at - cut);
    jdiff_count(t, fn(buf, n, label));
    free(buf);
}

static inline void jdiff_mutate(const char *src, size_t len, size_t rounds, jdiff_fn fn, jdiff_tally *t)
{
    /* every truncation */
    for (size_t k = 0; k < len; k++)
        jdiff_count(t, fn(src, k, "truncated"));

    /* single bytes */
    static const char bytes[] = "[]{},:\"0123456789-+.eE \n\t\\u/nultrfasNI\x80\xC3\xFF";
    for (size_t r = 0; r < rounds && len; r++) {
        size_t at = (size_t)(jdiff_rng() % len);
        char b[2] = {bytes[jdiff_rng() % (sizeof bytes - 1)], '\0'};
        switch (jdiff_rng() % 3) {
        case 0: jdiff_splice(src, len, at, 1, b, fn, t, "byte replaced"); break;
        case 1: jdiff_splice(src, len, at, 0, b, fn, t, "byte inserted"); break;
        default: jdiff_splice(src, len, at, 1, "", fn, t, "byte deleted"); break;
        }
    }

    /* tokens: every number, and every string, replaced by edge values */
    static const char *const values[] = {"0", "-0", "-1", "1.5", "1e3", "-2E-2", "01", "1.", "16777216",
        "16777217", "255", "256", "4294967295", "4294967296", "9223372036854775807",
        "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "99999999999999999999", "1e999", "null", "true", "false", "[]", "{}", "[1,2]", "\"\"",
        "\"7\"", "\"a\\u00e9\\n\"", "\"\\u0000\"", "\"\\ud800\"", "\"\\ud83d\\ude00\"", "\"\xc3\xa9\"",
        "\"\xff\"", "\"a,b\"", "\"; k\"", "\"s_nop 0\"", "\"x.py:3 -> y.py:4\"", "NaN", "", "[[[[]]]]"};
    const size_t nvalues = sizeof values / sizeof values[0];
    for (size_t i = 0; i < len; i++) {
        size_t end = i;
        if (src[i] == '"' ) {
            end = i + 1;
            while (end < len && src[end] != '"')
                end += src[end] == '\\' ? 2 : 1;
            end = end < len ? end + 1 : len;
        } else if ((src[i] == '-' || (src[i] >= '0' && src[i] <= '9')) && (i == 0 || !(src[i - 1] >= '0' && src[i - 1] <= '9') )) {
            end = i + 1;
            while (end < len && strchr("0123456789.eE+-", src[end]))
                end++;
        } else {
            continue;
        }
        /* a few values per token, all of them for some tokens */
        size_t tries = jdiff_rng() % 8 == 0 ? nvalues : 2;
        for (size_t k = 0; k < tries; k++)
            jdiff_splice(src, len, i, end - i, values[tries == nvalues ? k : jdiff_rng() % nvalues], fn, t,
                         "token replaced");
        i = end - 1;
    }

    /* a key repeated in its object; a member added at the front of every
     * object ("x": deep nesting, null, a known key) */
    for (size_t i = 0; i < len; i++) {
        if (src[i] != '{')
            continue;
        if (i + 1 < len && src[i + 1] == '"') {
            size_t e = i + 2;
            while (e < len && src[e] != '"')
                e += src[e] == '\\' ? 2 : 1;
            if (e < len) {
                char ins[300];
                snprintf(ins, sizeof ins, "%.*s:null,", (int)(e + 1 - (i + 1)), src + i + 1);
                jdiff_splice(src, len, i + 1, 0, ins, fn, t, "key repeated");
            }
        }
        for (int depth = 62; depth <= 70; depth += 4) {
            char ins[400];
            int k = snprintf(ins, sizeof ins, "\"x\":");
            for (int d = 0; d < depth; d++)
                ins[k++] = '[';
            for (int d = 0; d < depth; d++)
                ins[k++] = ']';
            ins[k++] = ',';
            ins[k] = '\0';
            jdiff_splice(src, len, i + 1, 0, ins, fn, t, "deep member");
        }
        jdiff_splice(src, len, i + 1, 0, "\"\\u0078\":{\"a\":[1,{\"b\":null}],\"c\":\"\\u00e9\"},", fn, t, "odd member");
        jdiff_splice(src, len, i + 1, 0, "\"y\":{\"a\":1,\"a\\u0000\":2},", fn, t, "NUL in a key");
    }

    /* whitespace after separators */
    for (size_t r = 0; r < rounds / 4 && len; r++) {
        size_t at = (size_t)(jdiff_rng() % len);
        while (at < len && src[at] != ',' && src[at] != ':' && src[at] != '[' && src[at] != '{')
            at++;
        if (at < len)
            jdiff_splice(src, len, at + 1, 0, jdiff_rng() % 2 ? " \r\n\t" : "\n  ", fn, t, "whitespace");
    }
}

/* Prints an input that made the parsers disagree (the first few only). */
static inline void jdiff_report(int *failures, const char *label, const char *why, const char *data, size_t len)
{
    if ((*failures)++ >= 5)
        return;
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

#endif
