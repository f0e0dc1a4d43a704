/* fuzz_archive.c — libFuzzer target: bundle_archive_load_mem (tar and zip,
 * gzip / xz / zstd, archive.h) with the default limits, then the source
 * interface over an accepted archive. An accepted archive must hold what
 * archive.h promises: members sorted and unique, paths normalised (relative,
 * no "." or ".." component, no empty component), file data NUL-terminated,
 * and every member found again through bundle_archive_find and
 * bundle_source_kind_of. */
#include "bundle/archive.h"
#include "bundle/source.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int normalised(const char *p)
{
    if (!*p || *p == '/')
        return 0;
    for (const char *c = p; *c;) {
        const char *e = strchr(c, '/');
        size_t n = e ? (size_t)(e - c) : strlen(c);
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            return 0;
        c += n + (e != NULL);
        if (e && !*c)
            return 0;            /* trailing '/' */
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = fz_copy(data, size);
    bundle_archive *a = NULL;
    kr_err err;
    kr_err_clear(&err);
    int rc = bundle_archive_load_mem(buf, size, "fuzz.tar", &a, &err);
    fz_check(rc, &err);
    free(buf);
    if (rc)
        return 0;
    for (size_t i = 0; i < a->nmembers; i++) {
        const bundle_archive_member *m = &a->members[i];
        if (!normalised(m->path) || (i && strcmp(a->members[i - 1].path, m->path) >= 0) ||
            bundle_archive_find(a, m->path) != m || (m->is_dir != (m->data == NULL)) ||
            (m->data && m->data[m->len] != '\0')) {
            fprintf(stderr, "fuzz: member %zu '%s' breaks the archive.h contract\n", i, m->path);
            abort();
        }
    }
    bundle_source *s;
    if (bundle_source_from_archive(a, &s, &err))
        return 0;
    char path[4200];
    for (size_t i = 0; i < a->nmembers; i++) {
        const bundle_archive_member *m = &a->members[i];
        snprintf(path, sizeof path, "fuzz.tar/%s", m->path);
        bundle_source_kind k = bundle_source_kind_of(s, path);
        if (k != (m->is_dir ? BUNDLE_SRC_DIR : BUNDLE_SRC_FILE)) {
            fprintf(stderr, "fuzz: member '%s' has kind %d through the source\n", m->path, (int)k);
            abort();
        }
    }
    bundle_source_entry *v;
    size_t n;
    if (bundle_source_list(s, "fuzz.tar", &v, &n) == 0) {
        for (size_t i = 0; i < n; i++) {
            snprintf(path, sizeof path, "fuzz.tar/%s", v[i].name);
            if (v[i].kind != bundle_source_kind_of(s, path) || (i && strcmp(v[i - 1].name, v[i].name) >= 0))
                abort();
        }
        bundle_source_list_free(v, n);
    }
    bundle_source_free(s);
    return 0;
}
