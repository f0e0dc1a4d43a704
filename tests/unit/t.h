/* t.h — the unit-test harness: checks count, never abort, and the binary ends
 * with "<name>: N passed, N failed" and exit 1 on any failure (77 = skipped). */
#ifndef KR_TEST_T_H
#define KR_TEST_T_H

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int t_passed, t_failed;

#define T_CHECK(cond) do { if (cond) t_passed++; else { t_failed++; \
    fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); } } while (0)
#define T_EQ_U64(a, b) do { uint64_t t_a = (uint64_t)(a), t_b = (uint64_t)(b); \
    if (t_a == t_b) t_passed++; else { t_failed++; fprintf(stderr, \
    "%s:%d: %s == %s failed: %" PRIu64 " != %" PRIu64 "\n", __FILE__, __LINE__, #a, #b, t_a, t_b); } } while (0)
#define T_EQ_I64(a, b) do { int64_t t_a = (int64_t)(a), t_b = (int64_t)(b); \
    if (t_a == t_b) t_passed++; else { t_failed++; fprintf(stderr, \
    "%s:%d: %s == %s failed: %" PRId64 " != %" PRId64 "\n", __FILE__, __LINE__, #a, #b, t_a, t_b); } } while (0)
#define T_EQ_STR(a, b) do { const char *t_a = (a), *t_b = (b); \
    if (t_a && t_b && strcmp(t_a, t_b) == 0) t_passed++; else { t_failed++; fprintf(stderr, \
    "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__, __LINE__, #a, #b, \
    t_a ? t_a : "(null)", t_b ? t_b : "(null)"); } } while (0)
#define T_NEAR(a, b, eps) do { double t_a = (a), t_b = (b); \
    if ((t_a - t_b) <= (eps) && (t_b - t_a) <= (eps)) t_passed++; else { t_failed++; \
    fprintf(stderr, "%s:%d: %s ~ %s failed: %.9g vs %.9g\n", __FILE__, __LINE__, #a, #b, t_a, t_b); } } while (0)

/* Path of the hub fixture (env KR_HUB), or NULL when absent. */
static inline const char *t_hub(void)
{
    const char *h = getenv("KR_HUB");
    if (!h || !*h) h = "../shared/fixtures/hub";
    char probe[4096];
    snprintf(probe, sizeof probe, "%s/examples", h);
    FILE *f = fopen(probe, "r");
    if (!f) return NULL;
    fclose(f);
    return h;
}

/* Removes path and everything below it (temporary test trees). */
static inline void t_rm_rf(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (!S_ISDIR(st.st_mode)) {
        unlink(path);
        return;
    }
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        t_rm_rf(sub);
    }
    if (d)
        closedir(d);
    rmdir(path);
}

static inline int t_done(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, t_passed, t_failed);
    return t_failed ? 1 : (t_passed ? 0 : 77);
}

#endif
