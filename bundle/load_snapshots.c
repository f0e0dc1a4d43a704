/* load_snapshots.c — snapshots.json and source copies (docs/formats.md#source-snapshots); see
 * load_snapshots.h. */
#include "bundle/load_snapshots.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/json_util.h"
#include "bundle/source.h"
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

/* Checks one copy (docs/formats.md#snapshot-safety): returns its resolved path (malloc'd) when it may
 * be read, else NULL with s->problem set. real_folder ends without '/'.
 * Files come from src (bundle/source.h): an archive holds no links, so its
 * copies resolve to themselves. */
static char *check_copy(const bundle_source *src, const char *folder, const char *real_folder, kr_snapshot *s)
{
    if (!bundle_plain_file_name(s->leaf)) {
        s->problem = BUNDLE_SNAP_NOT_PLAIN;
        return NULL;
    }
    s->safe = 1;
    char path[PATH_MAX];
    kr_path_join(path, sizeof path, folder, s->leaf);
    bundle_source_info st;
    if (bundle_source_stat(src, path, 0, &st) != 0) {
        s->problem = BUNDLE_SNAP_MISSING;
        return NULL;
    }
    char *real = bundle_source_realpath(src, path);
    if (!real) {
        s->problem = BUNDLE_SNAP_MISSING;      /* dangling symlink */
        return NULL;
    }
    size_t fl = strlen(real_folder);
    int inside = strncmp(real, real_folder, fl) == 0 && (real[fl] == '/' || fl == 1) && real[fl] != '\0' &&
                 strcmp(real, real_folder) != 0;
    if (!inside) {
        free(real);
        s->safe = 0;
        s->problem = BUNDLE_SNAP_OUTSIDE;
        return NULL;
    }
    if (bundle_source_stat(src, real, 1, &st) != 0 || st.kind != BUNDLE_SRC_FILE) {
        free(real);
        s->problem = BUNDLE_SNAP_NOT_FILE;
        return NULL;
    }
    if (st.size > KR_MAX_SNAPSHOT_BYTES) {
        free(real);
        s->problem = BUNDLE_SNAP_TOO_LARGE;
        return NULL;
    }
    return real;
}

/* Reads a checked copy and indexes its lines. */
static int read_copy(kr_capture *c, const char *real, kr_snapshot *s, kr_err *err)
{
    bundle_blob b;
    kr_err rerr;
    kr_err_clear(&rerr);
    int rc = bundle_source_read(c->source, real, KR_MAX_SNAPSHOT_BYTES, &b, &rerr);
    if (rc) {
        s->problem = kr_arena_printf(&c->arena, "unreadable: %s", rerr.msg);
        return s->problem ? 0 : oom(err, real);
    }
    size_t len = b.len;
    char *text = kr_arena_strndup(&c->arena, b.data, len);
    bundle_blob_free(&b);
    if (!text)
        return oom(err, real);
    size_t nlines = 0;
    for (size_t i = 0; i < len; i++)
        if (i == 0 || text[i - 1] == '\n')
            nlines++;
    const char **lines = kr_arena_array(&c->arena, nlines ? nlines : 1, sizeof *lines);
    if (!lines)
        return oom(err, real);
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

typedef struct copy_ref {
    char *real;              /* resolved path, malloc'd */
    size_t i;                /* index into the snapshot list */
} copy_ref;

static int ref_cmp(const void *a, const void *b)
{
    const copy_ref *x = a, *y = b;
    int d = strcmp(x->real, y->real);
    return d ? d : (x->i > y->i) - (x->i < y->i);
}

/* Checks every copy, then reads each distinct file once: leaves naming the
 * same file (directly or through symlinks inside the folder) share one text,
 * so memory stays bounded by the folder's bytes, not by the leaf count. */
static int load_copies(kr_capture *c, const char *folder, const char *real_folder, snap_list *list, kr_err *err)
{
    int rc = 0;
    copy_ref *refs = calloc(list->n, sizeof *refs);
    size_t n = 0;
    if (!refs)
        return oom(err, folder);
    for (size_t i = 0; i < list->n; i++)
        if ((refs[n].real = check_copy(c->source, folder, real_folder, &list->v[i])) != NULL)
            refs[n++].i = i;
    if (n)
        qsort(refs, n, sizeof *refs, ref_cmp);
    for (size_t g = 0; g < n && !rc;) {
        kr_snapshot *first = &list->v[refs[g].i];
        rc = read_copy(c, refs[g].real, first, err);
        size_t e = g + 1;
        for (; e < n && strcmp(refs[e].real, refs[g].real) == 0; e++) {
            kr_snapshot *s = &list->v[refs[e].i];
            s->text = first->text;
            s->len = first->len;
            s->lines = first->lines;
            s->nlines = first->nlines;
            s->loaded = first->loaded;
            s->problem = first->problem;
        }
        g = e;
    }
    for (size_t k = 0; k < n; k++)
        free(refs[k].real);
    free(refs);
    return rc;
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
        real_folder = bundle_source_realpath(c->source, folder);
        if (!real_folder) {
            rc = kr_err_set(err, KR_INPUT, folder, NULL, "cannot resolve the capture folder: %s", strerror(errno));
            goto out;
        }
        if ((rc = load_copies(c, folder, real_folder, &list, err)))
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
