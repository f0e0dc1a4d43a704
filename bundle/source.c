/* source.c — the filesystem and in-memory archives behind one interface;
 * see source.h. */
/* realpath(3) is POSIX.1-2008 but glibc declares it under XSI. */
#define _XOPEN_SOURCE 700
#include "bundle/source.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file.h"
#include "common/limits.h"

struct bundle_source {
    bundle_archive *archive;
    char *prefix;                /* the archive path, lexically normalised */
    size_t prefix_len;
};

/* ---- paths ---- */

char *bundle_source_abspath(const bundle_source *s, const char *path)
{
    if (s || path[0] == '/')
        return bundle_path_lexical(path);
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        return NULL;
    size_t cap = strlen(cwd) + strlen(path) + 2;
    char *joined = malloc(cap);
    if (!joined)
        return NULL;
    snprintf(joined, cap, "%s/%s", cwd, path);
    char *out = bundle_path_lexical(joined);
    free(joined);
    return out;
}

/* The member path (malloc'd, "" for the root) that path names inside the
 * archive, or NULL when it lies outside (or on allocation failure). */
static char *member_of(const bundle_source *s, const char *path)
{
    char *p = bundle_path_lexical(path);
    if (!p)
        return NULL;
    char *m = NULL;
    if (strncmp(p, s->prefix, s->prefix_len) == 0) {
        const char *rest = p + s->prefix_len;
        if (*rest == '\0')
            m = strdup("");
        else if (*rest == '/' || (s->prefix_len == 1 && s->prefix[0] == '/'))
            m = strdup(rest + (*rest == '/'));
    }
    free(p);
    return m;
}

static uint64_t fnv(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Kind of a member path inside the archive ("" is the root). */
static bundle_source_kind member_kind(const bundle_archive *a, const char *m, const bundle_archive_member **file)
{
    *file = NULL;
    if (!*m)
        return BUNDLE_SRC_DIR;
    const bundle_archive_member *x = bundle_archive_find(a, m);
    if (x && !x->is_dir) {
        *file = x;
        return BUNDLE_SRC_FILE;
    }
    if (x)
        return BUNDLE_SRC_DIR;
    size_t n = strlen(m);
    size_t i = bundle_archive_lower_bound(a, m);
    /* Implied directory: some member starts with "m/". Members between m
     * and "m/" sort before it ('-', '.', ... < '/'), so scan past them. */
    for (; i < a->nmembers && strncmp(a->members[i].path, m, n) == 0; i++)
        if (a->members[i].path[n] == '/')
            return BUNDLE_SRC_DIR;
    return BUNDLE_SRC_NONE;
}

/* ---- stat, read, list ---- */

int bundle_source_stat(const bundle_source *s, const char *path, int follow, bundle_source_info *st)
{
    memset(st, 0, sizeof *st);
    if (!s) {
        struct stat sb;
        if ((follow ? stat(path, &sb) : lstat(path, &sb)) != 0)
            return -1;
        st->kind = S_ISREG(sb.st_mode) ? BUNDLE_SRC_FILE : S_ISDIR(sb.st_mode) ? BUNDLE_SRC_DIR : BUNDLE_SRC_OTHER;
        st->size = sb.st_size > 0 ? (uint64_t)sb.st_size : 0;
        st->dev = (uint64_t)sb.st_dev;
        st->ino = (uint64_t)sb.st_ino;
        return 0;
    }
    char *m = member_of(s, path);
    if (!m)
        return -1;
    const bundle_archive_member *f;
    st->kind = member_kind(s->archive, m, &f);
    st->size = f ? f->len : 0;
    st->dev = 1;
    st->ino = fnv(m);
    free(m);
    return st->kind == BUNDLE_SRC_NONE ? -1 : 0;
}

bundle_source_kind bundle_source_kind_of(const bundle_source *s, const char *path)
{
    bundle_source_info st;
    return bundle_source_stat(s, path, 1, &st) == 0 ? st.kind : BUNDLE_SRC_NONE;
}

int bundle_source_read(const bundle_source *s, const char *path, uint64_t limit, bundle_blob *b, kr_err *err)
{
    memset(b, 0, sizeof *b);
    if (!s) {
        char *data;
        size_t len;
        int rc = kr_file_read(path, limit, &data, &len, err);
        if (rc)
            return rc;
        b->data = b->owned = data;
        b->len = len;
        return 0;
    }
    char *m = member_of(s, path);
    const bundle_archive_member *f = NULL;
    bundle_source_kind k = m ? member_kind(s->archive, m, &f) : BUNDLE_SRC_NONE;
    free(m);
    if (k == BUNDLE_SRC_NONE)
        return kr_err_set(err, KR_INPUT, path, NULL, "cannot open: no such member in the archive");
    if (k == BUNDLE_SRC_DIR)
        return kr_err_set(err, KR_INPUT, path, NULL, "expected a file, found a directory");
    if ((uint64_t)f->len > limit)
        return kr_err_set(err, KR_INPUT, path, NULL, "file of %zu bytes exceeds the limit of %llu bytes",
                          f->len, (unsigned long long)limit);
    b->data = (const char *)f->data;
    b->len = f->len;
    return 0;
}

void bundle_blob_free(bundle_blob *b)
{
    free(b->owned);
    memset(b, 0, sizeof *b);
}

long bundle_source_read_prefix(const bundle_source *s, const char *path, char *buf, size_t cap)
{
    if (s) {
        char *m = member_of(s, path);
        const bundle_archive_member *f = NULL;
        if (m)
            member_kind(s->archive, m, &f);
        free(m);
        if (!f)
            return -1;
        size_t n = f->len < cap ? f->len : cap;
        memcpy(buf, f->data, n);
        return (long)n;
    }
    /* O_NONBLOCK: a named pipe must not block; only regular files are read. */
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0)
        return -1;
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return -1;
    }
    size_t got = 0;
    while (got < cap) {
        ssize_t n = read(fd, buf + got, cap - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    return (long)got;
}

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const bundle_source_entry *)a)->name, ((const bundle_source_entry *)b)->name);
}

typedef struct entry_list {
    bundle_source_entry *v;
    size_t n, cap;
    int oom;
} entry_list;

static void add_entry(entry_list *l, const char *name, size_t len, bundle_source_kind kind)
{
    if (l->oom)
        return;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        bundle_source_entry *v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            l->oom = 1;
            return;
        }
        l->v = v;
        l->cap = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy) {
        l->oom = 1;
        return;
    }
    memcpy(copy, name, len);
    copy[len] = '\0';
    l->v[l->n].name = copy;
    l->v[l->n].kind = kind;
    l->n++;
}

static void list_archive(const bundle_source *s, const char *m, entry_list *l)
{
    const bundle_archive *a = s->archive;
    size_t n = strlen(m);
    char *key = malloc(n + 2);
    if (!key) {
        l->oom = 1;
        return;
    }
    memcpy(key, m, n);
    if (n)
        key[n++] = '/';
    key[n] = '\0';
    /* Children are the members starting with key; each distinct next
     * component is one entry. They are contiguous in sorted order, but
     * "a/b" and "a/b/c" may have "a/b-x" between them, so a component is
     * skipped only when it equals the previous one added. */
    for (size_t i = bundle_archive_lower_bound(a, key); i < a->nmembers && strncmp(a->members[i].path, key, n) == 0; i++) {
        const char *rest = a->members[i].path + n;
        const char *slash = strchr(rest, '/');
        size_t len = slash ? (size_t)(slash - rest) : strlen(rest);
        bundle_source_kind kind = slash || a->members[i].is_dir ? BUNDLE_SRC_DIR : BUNDLE_SRC_FILE;
        int seen = 0;
        for (size_t k = l->n; k-- > 0 && !seen;) {
            if (strlen(l->v[k].name) == len && memcmp(l->v[k].name, rest, len) == 0)
                seen = 1;
            if (kind == BUNDLE_SRC_FILE)
                break;           /* a file name is never repeated (no duplicates) */
        }
        if (!seen)
            add_entry(l, rest, len, kind);
    }
    free(key);
}

int bundle_source_list(const bundle_source *s, const char *dir, bundle_source_entry **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    entry_list l = {0};
    if (s) {
        char *m = member_of(s, dir);
        const bundle_archive_member *f;
        if (!m || member_kind(s->archive, m, &f) != BUNDLE_SRC_DIR) {
            free(m);
            return -1;
        }
        list_archive(s, m, &l);
        free(m);
    } else {
        DIR *d = opendir(dir);
        if (!d)
            return -1;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            size_t cap = strlen(dir) + strlen(e->d_name) + 2;
            char *p = malloc(cap);
            if (!p) {
                l.oom = 1;
                break;
            }
            bundle_source_kind kind = bundle_source_kind_of(NULL, kr_path_join(p, cap, dir, e->d_name));
            free(p);
            add_entry(&l, e->d_name, strlen(e->d_name), kind);
        }
        closedir(d);
    }
    if (l.oom) {
        bundle_source_list_free(l.v, l.n);
        return -1;
    }
    if (l.n)
        qsort(l.v, l.n, sizeof *l.v, cmp_entry);
    *out = l.v;
    *n = l.n;
    return 0;
}

void bundle_source_list_free(bundle_source_entry *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].name);
    free(v);
}

char *bundle_source_realpath(const bundle_source *s, const char *path)
{
    if (!s)
        return realpath(path, NULL);
    if (bundle_source_kind_of(s, path) == BUNDLE_SRC_NONE)
        return NULL;
    return bundle_path_lexical(path);
}

char *bundle_source_folder_name(const bundle_source *s, const char *dir)
{
    char *p = bundle_path_lexical(dir);
    if (!p)
        return NULL;
    const char *base = kr_path_base(p);
    size_t n = strlen(base), suffix = 0;
    if (s && strcmp(p, s->prefix) == 0 && bundle_archive_has_suffix(base, &suffix))
        n -= suffix;
    char *out = malloc(n + 1);
    if (out) {
        memcpy(out, base, n);
        out[n] = '\0';
    }
    free(p);
    return out;
}

const bundle_archive *bundle_source_archive(const bundle_source *s)
{
    return s ? s->archive : NULL;
}

/* ---- sources and inputs ---- */

int bundle_source_from_archive(bundle_archive *a, bundle_source **out, kr_err *err)
{
    *out = NULL;
    bundle_source *s = calloc(1, sizeof *s);
    if (!s || !(s->prefix = bundle_path_lexical(a->name))) {
        free(s);
        bundle_archive_free(a);
        return kr_err_set(err, KR_INTERNAL, NULL, NULL, "out of memory");
    }
    s->archive = a;
    s->prefix_len = strlen(s->prefix);
    *out = s;
    return 0;
}

void bundle_source_free(bundle_source *s)
{
    if (!s)
        return;
    bundle_archive_free(s->archive);
    free(s->prefix);
    free(s);
}

int bundle_input_open(const char *path, bundle_input *in, kr_err *err)
{
    memset(in, 0, sizeof *in);
    if (!bundle_archive_has_suffix(path, NULL) || !kr_is_regular(path)) {
        if (!(in->root = strdup(path)))
            return kr_err_set(err, KR_INTERNAL, NULL, NULL, "out of memory");
        return 0;
    }
    bundle_archive *a;
    int rc = bundle_archive_load(path, &a, err);
    if (rc || (rc = bundle_source_from_archive(a, &in->src, err)))
        return rc;
    /* The root, or the single directory it holds. */
    bundle_source_entry *top;
    size_t ntop;
    const char *prefix = in->src->prefix;
    size_t cap = strlen(prefix) + 2;
    if (bundle_source_list(in->src, prefix, &top, &ntop) == 0) {
        if (ntop == 1 && top[0].kind == BUNDLE_SRC_DIR) {
            cap += strlen(top[0].name);
            if ((in->root = malloc(cap)))
                kr_path_join(in->root, cap, prefix, top[0].name);
        } else {
            in->root = strdup(prefix);
        }
        bundle_source_list_free(top, ntop);
    }
    if (!in->root) {
        bundle_input_close(in);
        return kr_err_set(err, KR_INTERNAL, path, NULL, "out of memory");
    }
    return 0;
}

void bundle_input_close(bundle_input *in)
{
    bundle_source_free(in->src);
    free(in->root);
    memset(in, 0, sizeof *in);
}
