/* test_file.c — whole-file reads (common/file.h): kr_file_read_reuse gives
 * the bytes and errors of kr_file_read, into a buffer that grows only when
 * a file does not fit and is reused otherwise. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file.h"
#include "common/limits.h"
#include "tests/unit/t.h"

/* Writes n bytes of a pattern that depends on seed; returns the path. */
static const char *put(const char *dir, const char *name, size_t n, unsigned seed, char *path, size_t cap)
{
    kr_path_join(path, cap, dir, name);
    FILE *f = fopen(path, "wb");
    T_CHECK(f != NULL);
    for (size_t i = 0; f && i < n; i++)
        fputc((int)('a' + (i * 7 + seed) % 26), f);
    if (f)
        fclose(f);
    return path;
}

/* 1 when buf[0..n) holds put()'s pattern for seed and buf[n] is NUL. */
static int pattern_ok(const char *buf, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (buf[i] != (char)('a' + (i * 7 + seed) % 26))
            return 0;
    return buf[n] == '\0';
}

static void test_reuse(const char *dir)
{
    char p1[4096], p2[4096], p3[4096], p4[4096];
    put(dir, "mid.json", 5000, 1, p1, sizeof p1);
    put(dir, "small.json", 100, 2, p2, sizeof p2);
    put(dir, "big.json", 70000, 3, p3, sizeof p3);
    put(dir, "empty.json", 0, 4, p4, sizeof p4);
    kr_err e;
    char *buf = NULL;
    size_t cap = 0, len = 99;

    T_EQ_I64(kr_file_read_reuse(p1, KR_MAX_FILE_BYTES, &buf, &cap, &len, &e), 0);
    T_EQ_U64(len, 5000);
    T_EQ_U64(cap, 5001);                      /* the file and its NUL */
    T_CHECK(buf && pattern_ok(buf, len, 1));
    char *first = buf;

    /* smaller: the same buffer, same capacity */
    T_EQ_I64(kr_file_read_reuse(p2, KR_MAX_FILE_BYTES, &buf, &cap, &len, &e), 0);
    T_EQ_U64(len, 100);
    T_CHECK(buf == first);
    T_EQ_U64(cap, 5001);
    T_CHECK(pattern_ok(buf, len, 2));

    /* bigger: grows to fit */
    T_EQ_I64(kr_file_read_reuse(p3, KR_MAX_FILE_BYTES, &buf, &cap, &len, &e), 0);
    T_EQ_U64(len, 70000);
    T_EQ_U64(cap, 70001);
    T_CHECK(pattern_ok(buf, len, 3));

    /* a little bigger: by half again (70001 + 35000) */
    char p5[4096];
    put(dir, "bigger.json", 80000, 5, p5, sizeof p5);
    T_EQ_I64(kr_file_read_reuse(p5, KR_MAX_FILE_BYTES, &buf, &cap, &len, &e), 0);
    T_EQ_U64(len, 80000);
    T_EQ_U64(cap, 105001);
    T_CHECK(pattern_ok(buf, len, 5));
    unlink(p5);

    /* empty file: "" */
    T_EQ_I64(kr_file_read_reuse(p4, KR_MAX_FILE_BYTES, &buf, &cap, &len, &e), 0);
    T_EQ_U64(len, 0);
    T_CHECK(buf[0] == '\0');
    T_EQ_U64(cap, 105001);

    /* the same bytes as kr_file_read */
    char *data = NULL;
    size_t dlen = 0;
    T_EQ_I64(kr_file_read(p1, KR_MAX_FILE_BYTES, &data, &dlen, &e), 0);
    T_EQ_I64(kr_file_read_reuse(p1, KR_MAX_FILE_BYTES, &buf, &cap, &len, &e), 0);
    T_EQ_U64(len, dlen);
    T_CHECK(data && memcmp(buf, data, dlen + 1) == 0);
    free(data);

    /* Errors: the same code and message as kr_file_read; the buffer stays. */
    const char *bad[3] = {dir, p3, "/nonexistent/kr_file_test.json"};
    uint64_t limit[3] = {KR_MAX_FILE_BYTES, 69999, KR_MAX_FILE_BYTES};
    for (int k = 0; k < 3; k++) {
        kr_err e1, e2;
        char *keep = buf;
        int r1 = kr_file_read(bad[k], limit[k], &data, &dlen, &e1);
        int r2 = kr_file_read_reuse(bad[k], limit[k], &buf, &cap, &len, &e2);
        T_EQ_I64(r1, KR_INPUT);
        T_EQ_I64(r2, KR_INPUT);
        T_EQ_STR(e2.msg, e1.msg);
        T_EQ_STR(e2.file, e1.file);
        T_CHECK(buf == keep);
        T_EQ_U64(cap, 105001);
    }
    free(buf);

    /* from nothing: a NULL buffer is allocated */
    buf = NULL;
    cap = 0;
    T_EQ_I64(kr_file_read_reuse(p4, KR_MAX_FILE_BYTES, &buf, &cap, &len, &e), 0);
    T_CHECK(buf != NULL && buf[0] == '\0');
    T_EQ_U64(cap, 1);
    free(buf);

    unlink(p1);
    unlink(p2);
    unlink(p3);
    unlink(p4);
}

int main(void)
{
    char dir[] = "/tmp/kr_file_XXXXXX";
    if (mkdtemp(dir)) {
        test_reuse(dir);
        rmdir(dir);
    } else {
        T_CHECK(0);
    }
    return t_done("test_file");
}
