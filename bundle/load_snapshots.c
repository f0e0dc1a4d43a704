/* load_snapshots.c — snapshots.json and source copies (FORMATS.md §3); see
 * load_snapshots.h. */
/* realpath(3) is POSIX.1-2008 but glibc declares it under XSI. */
#define _XOPEN_SOURCE 700
#include "bundle/load_snapshots.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bundle/json_util.h"
#include "common/buf.h"
#include "common/file.h"
#include "common/limits.h"

typedef struct snap_list {
    kr_snapshot *v;
    size_t n, cap;
} snap_list;

static int oom(kr_err *err, const char *fname)
{
    return kr_err_set(err, KR_INTERNAL, fname, NULL, "out of memory");
}

/* Depth-first walk; `path` holds the path of `node`. */
static int walk(bundle_jctx *j, kr_capture *c, const json_t *node, kr_buf *path, unsigned depth, snap_list *out)
{
    int rc;
    if (depth > KR_MAX_JSON_DEPTH)
        return bundle_jerr(j, "tree deeper than KR_MAX_JSON_DEPTH (%d)", KR_MAX_JSON_DEPTH);
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)node, key, v) {
        size_t keep = path->len;
        if (keep && path->data[keep - 1] != '/')
            kr_buf_putc(path, '/');
        kr_buf_puts(path, key);
        if (path->oom)
            return oom(j->err, j->fname);
        size_t m = bundle_jpush_key(j, key);
        if (json_is_object(v)) {
            if ((rc = walk(j, c, v, path, depth + 1, out)))
                return rc;
        } else if (json_is_string(v)) {
            const char *leaf;
            if ((rc = bundle_jget_str(j, v, &leaf, NULL)))
                return rc;
            if (out->n == out->cap) {
                size_t cap = out->cap ? out->cap * 2 : 16;
                kr_snapshot *nv = realloc(out->v, cap * sizeof *nv);
                if (!nv)
                    return oom(j->err, j->fname);
                out->v = nv;
                out->cap = cap;
            }
            kr_snapshot *s = &out->v[out->n++];
            memset(s, 0, sizeof *s);
            s->path = kr_arena_strndup(&c->arena, path->data, path->len);
            s->leaf = kr_arena_strdup(&c->arena, leaf);
            if (!s->path || !s->leaf)
                return oom(j->err, j->fname);
        } else {
            return bundle_jerr(j, "expected an object or a copy file name string, found %s", bundle_json_kind(v));
        }
        bundle_jpop(j, m);
        path->len = keep;
        if (path->data)
            path->data[keep] = '\0';
    }
    return 0;
}

static int snap_cmp(const void *a, const void *b)
{
    const kr_snapshot *x = a, *y = b;
    int d = strcmp(x->path, y->path);
    return d ? d : strcmp(x->leaf, y->leaf);
}

/* Checks and reads one copy (§3.3). real_folder ends without '/'. */
static int load_copy(kr_capture *c, const char *folder, const char *real_folder, kr_snapshot *s, kr_err *err)
{
    if (!bundle_plain_file_name(s->leaf)) {
        s->problem = BUNDLE_SNAP_NOT_PLAIN;
        return 0;
    }
    s->safe = 1;
    char path[PATH_MAX];
    kr_path_join(path, sizeof path, folder, s->leaf);
    struct stat st;
    if (lstat(path, &st) != 0) {
        s->problem = BUNDLE_SNAP_MISSING;
        return 0;
    }
    char *real = realpath(path, NULL);
    if (!real) {
        s->problem = BUNDLE_SNAP_MISSING;      /* dangling symlink */
        return 0;
    }
    size_t fl = strlen(real_folder);
    int inside = strncmp(real, real_folder, fl) == 0 && (real[fl] == '/' || fl == 1) && real[fl] != '\0' &&
                 strcmp(real, real_folder) != 0;
    if (!inside) {
        free(real);
        s->safe = 0;
        s->problem = BUNDLE_SNAP_OUTSIDE;
        return 0;
    }
    if (stat(real, &st) != 0 || !S_ISREG(st.st_mode)) {
        free(real);
        s->problem = BUNDLE_SNAP_NOT_FILE;
        return 0;
    }
    if ((uint64_t)st.st_size > KR_MAX_SNAPSHOT_BYTES) {
        free(real);
        s->problem = BUNDLE_SNAP_TOO_LARGE;
        return 0;
    }
    char *data;
    size_t len;
    kr_err rerr;
    kr_err_clear(&rerr);
    int rc = kr_file_read(real, KR_MAX_SNAPSHOT_BYTES, &data, &len, &rerr);
    free(real);
    if (rc) {
        s->problem = kr_arena_printf(&c->arena, "unreadable: %s", rerr.msg);
        return s->problem ? 0 : oom(err, path);
    }
    char *text = kr_arena_strndup(&c->arena, data, len);
    free(data);
    if (!text)
        return oom(err, path);
    size_t nlines = 0;
    for (size_t i = 0; i < len; i++)
        if (i == 0 || text[i - 1] == '\n')
            nlines++;
    const char **lines = kr_arena_array(&c->arena, nlines ? nlines : 1, sizeof *lines);
    if (!lines)
        return oom(err, path);
    size_t k = 0;
    for (size_t i = 0; i < len; i++)
        if (i == 0 || text[i - 1] == '\n')
            lines[k++] = text + i;
    s->text = text;
    s->len = len;
    s->lines = lines;
    s->nlines = nlines;
    s->loaded = 1;
    c->total_bytes += len;
    return 0;
}

int bundle_parse_snapshots(kr_capture *c, const char *folder, const char *data, size_t len,
                           const char *fname, kr_err *err)
{
    json_t *root;
    int rc = bundle_json_parse(data, len, fname, &root, err);
    if (rc)
        return rc;
    bundle_jctx j;
    bundle_jctx_init(&j, fname, err);
    snap_list list = {0};
    kr_buf path;
    kr_buf_init(&path);
    char *real_folder = NULL;

    if ((rc = bundle_jexpect_object(&j, root)))
        goto out;
    if ((rc = walk(&j, c, root, &path, 1, &list)))
        goto out;
    if (list.n) {
        qsort(list.v, list.n, sizeof *list.v, snap_cmp);
        real_folder = realpath(folder, NULL);
        if (!real_folder) {
            rc = kr_err_set(err, KR_INPUT, folder, NULL, "cannot resolve the capture folder: %s", strerror(errno));
            goto out;
        }
        for (size_t i = 0; i < list.n; i++)
            if ((rc = load_copy(c, folder, real_folder, &list.v[i], err)))
                goto out;
        c->snapshots = kr_arena_array(&c->arena, list.n, sizeof *c->snapshots);
        if (!c->snapshots) {
            rc = oom(err, fname);
            goto out;
        }
        memcpy(c->snapshots, list.v, list.n * sizeof *list.v);
    }
    c->nsnapshots = list.n;
    c->has_snapshots_json = 1;
    bundle_snapshots_resolve(c);
    rc = 0;
out:
    free(real_folder);
    free(list.v);
    kr_buf_free(&path);
    json_decref(root);
    return rc;
}

void bundle_snapshots_resolve(kr_capture *c)
{
    for (size_t r = 0; r < c->nrows; r++) {
        kr_code_row *row = &c->rows[r];
        for (uint32_t f = 0; f < row->nframes; f++) {
            kr_frame *fr = &row->frames[f];
            fr->snapshot = -1;
            if (fr->line == 0)
                continue;
            /* First snapshot with this path (sorted by path, then leaf). */
            size_t lo = 0, hi = c->nsnapshots;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (strcmp(c->snapshots[mid].path, fr->path) < 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (size_t i = lo; i < c->nsnapshots && strcmp(c->snapshots[i].path, fr->path) == 0; i++)
                if (c->snapshots[i].loaded) {
                    fr->snapshot = (int32_t)i;
                    break;
                }
        }
    }
}
