/* archive.c — archives loaded into memory with every protection of
 * archive.h; see there for the rules. libarchive does the decoding (tar and
 * zip formats; gzip, xz and zstd filters); this file decides what is kept. */
#include "bundle/archive.h"

#include "bundle/archive_api.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/file.h"
#include "common/limits.h"

#define LA bundle_archive_table

void bundle_archive_limits_default(bundle_archive_limits *l)
{
    l->max_members = KR_MAX_ARCHIVE_MEMBERS;
    l->max_bytes = KR_MAX_ARCHIVE_BYTES;
    l->max_member_bytes = KR_MAX_FILE_BYTES;
    l->max_ratio = KR_MAX_ARCHIVE_RATIO;
    l->ratio_floor = KR_ARCHIVE_RATIO_FLOOR;
    l->max_path = KR_MAX_ARCHIVE_PATH;
}

/* ---- recognising an archive by name and first bytes ---- */

enum { KIND_NONE, KIND_TAR, KIND_GZ, KIND_XZ, KIND_ZST, KIND_ZIP };

static const struct {
    const char *suffix;
    int kind;
} suffixes[] = {
    {".tar", KIND_TAR}, {".tar.gz", KIND_GZ}, {".tgz", KIND_GZ},
    {".tar.xz", KIND_XZ}, {".tar.zst", KIND_ZST}, {".zip", KIND_ZIP},
};

static int suffix_kind(const char *path, size_t *suffix_len)
{
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t m = strlen(suffixes[i].suffix);
        if (n > m && strcmp(path + n - m, suffixes[i].suffix) == 0) {
            if (suffix_len)
                *suffix_len = m;
            return suffixes[i].kind;
        }
    }
    return KIND_NONE;
}

int bundle_archive_has_suffix(const char *path, size_t *suffix_len)
{
    return suffix_kind(path, suffix_len) != KIND_NONE;
}

static int magic_matches(int kind, const unsigned char *b, size_t n)
{
    switch (kind) {
    case KIND_TAR: return n >= 262 && memcmp(b + 257, "ustar", 5) == 0;
    case KIND_GZ: return n >= 2 && b[0] == 0x1f && b[1] == 0x8b;
    case KIND_XZ: return n >= 6 && memcmp(b, "\xfd" "7zXZ\0", 6) == 0;
    case KIND_ZST: return n >= 4 && memcmp(b, "\x28\xb5\x2f\xfd", 4) == 0;
    case KIND_ZIP: return n >= 4 && (memcmp(b, "PK\3\4", 4) == 0 || memcmp(b, "PK\5\6", 4) == 0);
    default: return 0;
    }
}

int bundle_archive_is_archive(const char *path)
{
    int kind = suffix_kind(path, NULL);
    if (kind == KIND_NONE || !kr_is_regular(path))
        return 0;
    unsigned char head[512];
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    return magic_matches(kind, head, n);
}

/* ---- paths ---- */

/* Lexically normalised path (malloc'd): repeated '/' and "." dropped, ".."
 * removes the previous component (kept at the start of a relative path,
 * dropped at "/"). "" becomes ".". */
char *bundle_path_lexical(const char *path)
{
    size_t n = strlen(path);
    char *out = malloc(n + 2);
    if (!out)
        return NULL;
    int absolute = path[0] == '/';
    size_t k = 0, floor = 0;     /* out[0..floor) holds leading ".." that cannot be resolved */
    if (absolute)
        out[k++] = '/', floor = 1;
    for (const char *p = path; *p;) {
        while (*p == '/')
            p++;
        const char *e = p;
        while (*e && *e != '/')
            e++;
        size_t m = (size_t)(e - p);
        if (m == 0 || (m == 1 && p[0] == '.')) {
            p = e;
            continue;
        }
        if (m == 2 && p[0] == '.' && p[1] == '.') {
            if (k > floor) {
                while (k > floor && out[k - 1] != '/')
                    k--;
                if (k > floor)
                    k--;                 /* the slash before the component */
                p = e;
                continue;
            }
            if (absolute) {
                p = e;
                continue;
            }
        }
        if (k > 0 && out[k - 1] != '/')
            out[k++] = '/';
        memcpy(out + k, p, m);
        k += m;
        if (m == 2 && p[0] == '.' && p[1] == '.')
            floor = k;
        p = e;
    }
    if (k == 0)
        out[k++] = '.';
    out[k] = '\0';
    return out;
}

/* ---- loading ---- */

typedef struct loader {
    struct archive *ar;
    const char *name;
    const bundle_archive_limits *lim;
    size_t archive_len;
    uint64_t total;              /* decompressed bytes so far (hard-link copies included) */
    bundle_archive *out;
    size_t cap;
    char **link_targets;         /* per member: normalised hard-link target or NULL */
    kr_err *err;
} loader;

static int bad(loader *l, const char *member, const char *fmt, const char *detail)
{
    char msg[600];
    snprintf(msg, sizeof msg, fmt, detail ? detail : "");
    if (member)
        return kr_err_set(l->err, KR_INPUT, l->name, NULL, "member %s: %s", member, msg);
    return kr_err_set(l->err, KR_INPUT, l->name, NULL, "%s", msg);
}

/* 1 if some component of p is "..". */
static int has_dotdot(const char *p)
{
    for (const char *c = p; (c = strstr(c, "..")) != NULL; c += 2)
        if ((c == p || c[-1] == '/') && (c[2] == '\0' || c[2] == '/'))
            return 1;
    return 0;
}

/* Normalised form of raw into a malloc'd string (NULL on a refusal, with
 * the error set; *empty = 1 when raw names the root itself). */
static char *normalise(loader *l, const char *raw, int *empty)
{
    *empty = 0;
    if (strlen(raw) > l->lim->max_path) {
        /* The message shows the path's first 64 bytes, not all of it. */
        char lim[64], shown[80];
        snprintf(lim, sizeof lim, "%llu", (unsigned long long)l->lim->max_path);
        snprintf(shown, sizeof shown, "%.64s...", raw);
        bad(l, shown, "path longer than KR_MAX_ARCHIVE_PATH (%s bytes)", lim);
        return NULL;
    }
    if (raw[0] == '/') {
        bad(l, raw, "absolute path refused", NULL);
        return NULL;
    }
    if (has_dotdot(raw)) {
        bad(l, raw, "path leaves the archive root (\"..\")", NULL);
        return NULL;
    }
    char *out = bundle_path_lexical(raw);
    if (!out) {
        kr_err_set(l->err, KR_INTERNAL, l->name, NULL, "out of memory");
        return NULL;
    }
    if (strcmp(out, ".") == 0)
        out[0] = '\0';
    *empty = out[0] == '\0';
    return out;
}

static int u64_limit(loader *l, const char *member, const char *what, uint64_t limit)
{
    char msg[200];
    snprintf(msg, sizeof msg, "%s (%llu bytes)", what, (unsigned long long)limit);
    return bad(l, member, "%s", msg);
}

/* Refuses the next `more` bytes when they would pass a limit. */
static int budget(loader *l, const char *member, uint64_t member_bytes, uint64_t more)
{
    const bundle_archive_limits *lim = l->lim;
    if (member_bytes > lim->max_member_bytes)
        return u64_limit(l, member, "exceeds KR_MAX_FILE_BYTES", lim->max_member_bytes);
    uint64_t total = l->total + more;
    if (total < l->total || total > lim->max_bytes)
        return u64_limit(l, member, "decompressed archive exceeds KR_MAX_ARCHIVE_BYTES", lim->max_bytes);
    if (total > lim->ratio_floor && total / lim->max_ratio > (uint64_t)l->archive_len) {
        char msg[200];
        snprintf(msg, sizeof msg, "decompressed bytes exceed KR_MAX_ARCHIVE_RATIO (%llu times the archive's %zu bytes): "
                 "a decompression bomb?", (unsigned long long)lim->max_ratio, l->archive_len);
        return bad(l, member, "%s", msg);
    }
    return 0;
}

static int add_member(loader *l, bundle_archive_member **m)
{
    bundle_archive *a = l->out;
    if (a->nmembers >= l->lim->max_members) {
        char lim[64];
        snprintf(lim, sizeof lim, "%llu", (unsigned long long)l->lim->max_members);
        return bad(l, NULL, "more members than KR_MAX_ARCHIVE_MEMBERS (%s)", lim);
    }
    if (a->nmembers == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        bundle_archive_member *v = realloc(a->members, cap * sizeof *v);
        char **t = realloc(l->link_targets, cap * sizeof *t);
        if (v)
            a->members = v;
        if (t)
            l->link_targets = t;
        if (!v || !t)
            return kr_err_set(l->err, KR_INTERNAL, l->name, NULL, "out of memory");
        l->cap = cap;
    }
    *m = &a->members[a->nmembers];
    memset(*m, 0, sizeof **m);
    l->link_targets[a->nmembers] = NULL;
    a->nmembers++;
    return 0;
}

/* Reads the current entry's data into m: exactly the declared size when the
 * header gives one (one allocation, one copy), else growing by doubling. */
static int read_data(loader *l, bundle_archive_member *m, struct archive_entry *e)
{
    int sized = LA.archive_entry_size_is_set(e);
    uint64_t declared = sized && LA.archive_entry_size(e) > 0 ? (uint64_t)LA.archive_entry_size(e) : 0;
    int rc = budget(l, m->path, declared, declared);
    if (rc)
        return rc;
    size_t cap = sized ? (size_t)declared + 1 : 4096, got = 0;
    unsigned char *buf = malloc(cap);
    if (!buf)
        return kr_err_set(l->err, KR_INTERNAL, l->name, NULL, "member %s: out of memory (%zu bytes)", m->path, cap);
    m->data = buf;
    for (;;) {
        if (!sized && got + 1 >= cap) {
            unsigned char *nb = cap * 2 > cap ? realloc(buf, cap * 2) : NULL;
            if (!nb)
                return kr_err_set(l->err, KR_INTERNAL, l->name, NULL, "member %s: out of memory", m->path);
            m->data = buf = nb;
            cap *= 2;
        }
        unsigned char probe;
        int probing = sized && got == declared;
        la_ssize_t n = probing ? LA.archive_read_data(l->ar, &probe, 1) : LA.archive_read_data(l->ar, buf + got, cap - 1 - got);
        if (n < 0)
            return bad(l, m->path, "cannot read: %s", LA.archive_error_string(l->ar));
        if (n == 0)
            break;
        if (probing)
            return bad(l, m->path, "holds more bytes than its header declares", NULL);
        got += (size_t)n;
        if (!sized && (rc = budget(l, m->path, got, got)))
            return rc;
    }
    l->total += sized ? declared : got;
    buf[got] = '\0';
    m->len = got;
    return 0;
}

static int cmp_member(const void *a, const void *b)
{
    return strcmp(((const bundle_archive_member *)a)->path, ((const bundle_archive_member *)b)->path);
}

size_t bundle_archive_lower_bound(const bundle_archive *a, const char *key)
{
    size_t lo = 0, hi = a->nmembers;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(a->members[mid].path, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const bundle_archive_member *bundle_archive_find(const bundle_archive *a, const char *path)
{
    if (!a || !path)
        return NULL;
    size_t i = bundle_archive_lower_bound(a, path);
    return i < a->nmembers && strcmp(a->members[i].path, path) == 0 ? &a->members[i] : NULL;
}

/* 1 if some member lies below path ("path/..."). */
static int has_children(const bundle_archive *a, const char *path)
{
    size_t n = strlen(path);
    char *key = malloc(n + 2);
    if (!key)
        return 0;
    memcpy(key, path, n);
    key[n] = '/';
    key[n + 1] = '\0';
    size_t i = bundle_archive_lower_bound(a, key);
    int yes = i < a->nmembers && strncmp(a->members[i].path, key, n + 1) == 0;
    free(key);
    return yes;
}

/* After sorting: duplicates, file/directory clashes, hard links. Hard-link
 * targets are looked up among the regular files (links to links refused). */
static int check_and_link(loader *l)
{
    bundle_archive *a = l->out;
    /* The link targets travel with their members through the sort. */
    for (size_t i = 0; i < a->nmembers; i++)
        if (l->link_targets[i])
            a->members[i].mode |= 0x80000000u;     /* marks "hard link" until resolved */
    char **targets = l->link_targets;
    size_t nlinks = 0;
    for (size_t i = 0; i < a->nmembers; i++)
        if (targets[i]) {
            /* Keep the target in data (as text) through the sort. */
            a->members[i].data = (unsigned char *)targets[i];
            targets[i] = NULL;
            nlinks++;
        }
    if (a->nmembers)
        qsort(a->members, a->nmembers, sizeof *a->members, cmp_member);
    for (size_t i = 0; i + 1 < a->nmembers; i++)
        if (strcmp(a->members[i].path, a->members[i + 1].path) == 0)
            return bad(l, a->members[i].path, "duplicate path", NULL);
    for (size_t i = 0; i < a->nmembers; i++)
        if (!a->members[i].is_dir && has_children(a, a->members[i].path))
            return bad(l, a->members[i].path, "both a file and a directory", NULL);
    if (!nlinks)
        return 0;
    for (size_t i = 0; i < a->nmembers; i++) {
        bundle_archive_member *m = &a->members[i];
        if (!(m->mode & 0x80000000u))
            continue;
        const char *target = (const char *)m->data;
        const bundle_archive_member *t = bundle_archive_find(a, target);
        if (!t || t->is_dir || (t->mode & 0x80000000u))
            return bad(l, m->path, "hard link to %s, which is not a regular file stored in the archive", target);
        int rc = budget(l, m->path, t->len, t->len);
        if (rc)
            return rc;
        unsigned char *copy = malloc(t->len + 1);
        if (!copy)
            return kr_err_set(l->err, KR_INTERNAL, l->name, NULL, "out of memory");
        memcpy(copy, t->data, t->len + 1);
        l->total += t->len;
        free(m->data);
        m->data = copy;
        m->len = t->len;
        m->mode &= ~0x80000000u;
    }
    return 0;
}

static int read_all(loader *l)
{
    struct archive_entry *e;
    for (;;) {
        int r = LA.archive_read_next_header(l->ar, &e);
        if (r == ARCHIVE_EOF)
            return 0;
        if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
            return bad(l, NULL, "not a readable archive: %s",
                       LA.archive_error_string(l->ar) ? LA.archive_error_string(l->ar) : "unknown format");
        const char *raw = LA.archive_entry_pathname(e);
        if (!raw)
            raw = LA.archive_entry_pathname_utf8(e);
        if (!raw)
            return bad(l, NULL, "a member has no usable path", NULL);
        int empty, rc;
        char *path = normalise(l, raw, &empty);
        if (!path)
            return l->err->code;
        const char *link = LA.archive_entry_hardlink(e);
        mode_t type = LA.archive_entry_filetype(e);
        if (empty) {                     /* "./" names the root itself */
            free(path);
            if (!link && type == AE_IFDIR)
                continue;
            return bad(l, raw, "names the archive root but is not a directory", NULL);
        }
        if (!link && type == AE_IFLNK) {
            free(path);
            return bad(l, raw, "symbolic link refused (archives may not hold links; store the file itself)", NULL);
        }
        if (!link && type != AE_IFREG && type != AE_IFDIR) {
            free(path);
            return bad(l, raw, "device file, named pipe or socket refused", NULL);
        }
        char *target = NULL;
        if (link) {
            int target_empty;
            if (link[0] == '/' || has_dotdot(link)) {
                free(path);
                return bad(l, raw, "hard link to %s, outside the archive root", link);
            }
            if (!(target = normalise(l, link, &target_empty))) {
                free(path);
                return l->err->code;
            }
        }
        bundle_archive_member *m = NULL;
        if ((rc = add_member(l, &m))) {
            free(path);
            free(target);
            return rc;
        }
        m->path = path;
        m->mode = (unsigned)LA.archive_entry_perm(e);
        if (target) {
            l->link_targets[l->out->nmembers - 1] = target;
            continue;
        }
        if (type == AE_IFDIR) {
            m->is_dir = 1;
            continue;
        }
        if ((rc = read_data(l, m, e)))
            return rc;
    }
}

int bundle_archive_load_mem_limits(const void *data, size_t len, const char *name,
                                   const bundle_archive_limits *limits, bundle_archive **out, kr_err *err)
{
    *out = NULL;
    if (bundle_archive_api(err))
        return KR_INTERNAL;
    bundle_archive_limits defaults;
    if (!limits) {
        bundle_archive_limits_default(&defaults);
        limits = &defaults;
    }
    bundle_archive *a = calloc(1, sizeof *a);
    if (!a || !(a->name = strdup(name ? name : "(archive)"))) {
        free(a);
        return kr_err_set(err, KR_INTERNAL, name, NULL, "out of memory");
    }
    loader l = {0};
    l.name = a->name;
    l.lim = limits;
    l.archive_len = len;
    l.out = a;
    l.err = err;
    l.ar = LA.archive_read_new();
    int rc;
    if (!l.ar) {
        rc = kr_err_set(err, KR_INTERNAL, a->name, NULL, "out of memory");
        goto done;
    }
    LA.archive_read_support_filter_gzip(l.ar);
    LA.archive_read_support_filter_xz(l.ar);
    LA.archive_read_support_filter_zstd(l.ar);
    LA.archive_read_support_format_tar(l.ar);
    LA.archive_read_support_format_zip(l.ar);
    if (LA.archive_read_open_memory(l.ar, data, len) != ARCHIVE_OK) {
        rc = bad(&l, NULL, "not a readable archive: %s",
                 LA.archive_error_string(l.ar) ? LA.archive_error_string(l.ar) : "unknown format");
        goto done;
    }
    if ((rc = read_all(&l)) == 0)
        rc = check_and_link(&l);
done:
    if (l.ar)
        LA.archive_read_free(l.ar);
    if (l.link_targets) {
        for (size_t i = 0; i < a->nmembers; i++)
            free(l.link_targets[i]);
        free(l.link_targets);
    }
    if (rc) {
        bundle_archive_free(a);
        return rc;
    }
    *out = a;
    return 0;
}

int bundle_archive_load_mem(const void *data, size_t len, const char *name, bundle_archive **out, kr_err *err)
{
    return bundle_archive_load_mem_limits(data, len, name, NULL, out, err);
}

int bundle_archive_load(const char *path, bundle_archive **out, kr_err *err)
{
    *out = NULL;
    char *data;
    size_t len;
    int rc = kr_file_read(path, KR_MAX_FILE_BYTES, &data, &len, err);
    if (rc)
        return rc;
    rc = bundle_archive_load_mem(data, len, path, out, err);
    free(data);
    return rc;
}

void bundle_archive_free(bundle_archive *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->nmembers; i++) {
        free(a->members[i].path);
        free(a->members[i].data);
    }
    free(a->members);
    free(a->name);
    free(a);
}
