/* pack.c — see pack.h. */
#include "cli/pack.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "analyzer/validate.h"
#include "bundle/archive_api.h"
#include "bundle/source.h"
#include "common/file.h"
#include "common/limits.h"

#define LA bundle_archive_table

#define PATH_CAP 4096

/* ---- member list ---- */

static int list_add(cli_pack_list *l, const char *path, const char *src, int is_dir, unsigned mode)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        cli_pack_entry *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    cli_pack_entry *e = &l->v[l->n];
    memset(e, 0, sizeof *e);
    e->path = strdup(path);
    e->src = strdup(src);
    e->is_dir = (uint8_t)is_dir;
    e->mode = mode;
    if (!e->path || !e->src) {
        free(e->path);
        free(e->src);
        return -1;
    }
    l->n++;
    return 0;
}

void cli_pack_list_free(cli_pack_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].path);
        free(l->v[i].src);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* Streams a file through SHA-256; *size gets its length. */
static int hash_file(const char *path, uint64_t *size, char hex[KR_SHA256_HEX], kr_err *err)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0)
        return kr_err_set(err, KR_INPUT, path, NULL, "cannot open: %s", strerror(errno));
    kr_sha256 s;
    kr_sha256_init(&s);
    unsigned char buf[1 << 16];
    uint64_t total = 0;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            return kr_err_set(err, KR_INPUT, path, NULL, "read failed: %s", strerror(e));
        }
        if (n == 0)
            break;
        kr_sha256_update(&s, buf, (size_t)n);
        total += (uint64_t)n;
    }
    close(fd);
    kr_sha256_hex(&s, hex);
    *size = total;
    return 0;
}

/* Hashes one file of an archive source from the member bytes. */
static int hash_member(const bundle_source *src, const char *path, uint64_t *size, char hex[KR_SHA256_HEX],
                       kr_err *err)
{
    bundle_blob b;
    int rc = bundle_source_read(src, path, KR_MAX_FILE_BYTES, &b, err);
    if (rc)
        return rc;
    kr_sha256_hex_of(b.data, b.len, hex);
    *size = b.len;
    bundle_blob_free(&b);
    return 0;
}

static int walk(const bundle_source *src, const char *dir, const char *apath, int depth, cli_pack_list *out,
                kr_err *err)
{
    if (depth > 64)
        return kr_err_set(err, KR_INPUT, dir, NULL, "directories nested deeper than 64 levels");
    bundle_source_entry *ents;
    size_t n;
    if (bundle_source_list(src, dir, &ents, &n) != 0)
        return kr_err_set(err, KR_INPUT, dir, NULL, "cannot open directory: %s", src ? "not listed" : strerror(errno));
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        const char *name = ents[i].name;
        if (name[0] == '.' || (depth == 0 && strcmp(name, CLI_MANIFEST_NAME) == 0))
            continue;
        char path[PATH_CAP], ap[PATH_CAP];
        kr_path_join(path, sizeof path, dir, name);
        snprintf(ap, sizeof ap, "%s/%s", apath, name);
        bundle_source_info st, target;
        if (bundle_source_stat(src, path, 0, &st) != 0) {
            rc = kr_err_set(err, KR_INPUT, path, NULL, "cannot stat: %s", src ? "not found" : strerror(errno));
        } else if (st.kind == BUNDLE_SRC_OTHER &&
                   (bundle_source_stat(src, path, 1, &target) != 0 || target.kind != BUNDLE_SRC_OTHER)) {
            rc = kr_err_set(err, KR_INPUT, path, NULL,
                            "is a symbolic link: an example archive holds only regular files and directories; "
                            "replace the link with a copy of its target or remove it");
        } else if (st.kind == BUNDLE_SRC_DIR) {
            if (list_add(out, ap, path, 1, 0755))
                rc = kr_err_set(err, KR_INTERNAL, path, NULL, "out of memory");
            else
                rc = walk(src, path, ap, depth + 1, out, err);
        } else if (st.kind == BUNDLE_SRC_FILE) {
            struct stat sb;
            unsigned mode = !src && stat(path, &sb) == 0 && (sb.st_mode & 0111) ? 0755 : 0644;
            if (list_add(out, ap, path, 0, mode)) {
                rc = kr_err_set(err, KR_INTERNAL, path, NULL, "out of memory");
            } else {
                cli_pack_entry *e = &out->v[out->n - 1];
                rc = src ? hash_member(src, path, &e->size, e->sha256, err)
                         : hash_file(path, &e->size, e->sha256, err);
            }
        } else {
            rc = kr_err_set(err, KR_INPUT, path, NULL,
                            "is neither a regular file nor a directory (a pipe, socket or device): remove it");
        }
    }
    bundle_source_list_free(ents, n);
    return rc;
}

static int entry_cmp(const void *a, const void *b)
{
    return strcmp(((const cli_pack_entry *)a)->path, ((const cli_pack_entry *)b)->path);
}

int cli_pack_collect(const char *root, const char *name, cli_pack_list *out, kr_err *err)
{
    return cli_pack_collect_src(NULL, root, name, out, err);
}

int cli_pack_collect_src(const bundle_source *src, const char *root, const char *name, cli_pack_list *out,
                         kr_err *err)
{
    memset(out, 0, sizeof *out);
    if (bundle_source_kind_of(src, root) != BUNDLE_SRC_DIR)
        return kr_err_set(err, KR_INPUT, root, NULL, "not a directory");
    if (list_add(out, name, root, 1, 0755))
        return kr_err_set(err, KR_INTERNAL, root, NULL, "out of memory");
    int rc = walk(src, root, name, 0, out, err);
    if (rc) {
        cli_pack_list_free(out);
        return rc;
    }
    qsort(out->v + 1, out->n - 1, sizeof *out->v, entry_cmp);
    return 0;
}

/* ---- tar.zst writer ---- */

typedef struct zsink {
    ZSTD_CCtx *cctx;
    kr_buf *out;
    int failed;
} zsink;

static int zsink_push(zsink *z, const void *data, size_t len, ZSTD_EndDirective mode)
{
    ZSTD_inBuffer in = {data, len, 0};
    unsigned char chunk[1 << 16];
    for (;;) {
        ZSTD_outBuffer o = {chunk, sizeof chunk, 0};
        size_t left = ZSTD_compressStream2(z->cctx, &o, &in, mode);
        if (ZSTD_isError(left))
            return -1;
        kr_buf_append(z->out, chunk, o.pos);
        if (z->out->oom)
            return -1;
        if (mode == ZSTD_e_end ? left == 0 : in.pos == in.size)
            return 0;
    }
}

static la_ssize_t tar_write_cb(struct archive *a, void *ctx, const void *data, size_t len)
{
    (void)a;
    zsink *z = ctx;
    if (zsink_push(z, data, len, ZSTD_e_continue)) {
        z->failed = 1;
        return -1;
    }
    return (la_ssize_t)len;
}

static int write_member(struct archive *a, const char *path, int is_dir, unsigned mode, const void *data,
                        size_t len, kr_err *err)
{
    struct archive_entry *e = LA.archive_entry_new();
    if (!e)
        return kr_err_set(err, KR_INTERNAL, path, NULL, "out of memory");
    LA.archive_entry_set_pathname(e, path);
    LA.archive_entry_set_filetype(e, is_dir ? AE_IFDIR : AE_IFREG);
    LA.archive_entry_set_perm(e, mode);
    LA.archive_entry_set_size(e, is_dir ? 0 : (la_int64_t)len);
    LA.archive_entry_set_mtime(e, 0, 0);
    LA.archive_entry_set_uid(e, 0);
    LA.archive_entry_set_gid(e, 0);
    int rc = 0;
    if (LA.archive_write_header(a, e) != ARCHIVE_OK)
        rc = kr_err_set(err, KR_INTERNAL, path, NULL, "tar header: %s", LA.archive_error_string(a));
    else if (!is_dir && len && LA.archive_write_data(a, data, len) != (la_ssize_t)len)
        rc = kr_err_set(err, KR_INTERNAL, path, NULL, "tar data: %s", LA.archive_error_string(a));
    LA.archive_entry_free(e);
    return rc;
}

int cli_pack_write(const cli_pack_list *l, const char *name, const char *manifest, size_t manifest_len,
                   kr_buf *out, kr_err *err)
{
    if (bundle_archive_api(err))
        return KR_INTERNAL;
    zsink z = {ZSTD_createCCtx(), out, 0};
    struct archive *a = LA.archive_write_new();
    int rc = 0;
    if (!z.cctx || !a) {
        rc = kr_err_set(err, KR_INTERNAL, NULL, NULL, "out of memory");
        goto done;
    }
    ZSTD_CCtx_setParameter(z.cctx, ZSTD_c_compressionLevel, CLI_PACK_ZSTD_LEVEL);
    ZSTD_CCtx_setParameter(z.cctx, ZSTD_c_checksumFlag, 1);
    if (LA.archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
        LA.archive_write_open(a, &z, NULL, tar_write_cb, NULL) != ARCHIVE_OK) {
        rc = kr_err_set(err, KR_INTERNAL, NULL, NULL, "tar writer: %s", LA.archive_error_string(a));
        goto done;
    }
    char mpath[PATH_CAP];
    snprintf(mpath, sizeof mpath, "%s/%s", name, CLI_MANIFEST_NAME);
    for (size_t i = 0; i < l->n && !rc; i++) {
        const cli_pack_entry *e = &l->v[i];
        if (e->is_dir) {
            rc = write_member(a, e->path, 1, e->mode, NULL, 0, err);
        } else {
            char *data = NULL;
            size_t len = 0;
            if ((rc = kr_file_read(e->src, KR_MAX_FILE_BYTES, &data, &len, err)))
                break;
            char hex[KR_SHA256_HEX];
            kr_sha256_hex_of(data, len, hex);
            if (len != e->size || strcmp(hex, e->sha256) != 0)
                rc = kr_err_set(err, KR_INPUT, e->src, NULL, "changed while packing (size or SHA-256 differs)");
            else
                rc = write_member(a, e->path, 0, e->mode, data, len, err);
            free(data);
        }
        if (!rc && i == 0)   /* MANIFEST.json right after the root directory */
            rc = write_member(a, mpath, 0, 0644, manifest, manifest_len, err);
    }
    if (!rc && LA.archive_write_close(a) != ARCHIVE_OK)
        rc = kr_err_set(err, KR_INTERNAL, NULL, NULL, "tar writer: %s", LA.archive_error_string(a));
    if (!rc && (z.failed || zsink_push(&z, NULL, 0, ZSTD_e_end)))
        rc = kr_err_set(err, KR_INTERNAL, NULL, NULL, "zstd compression failed (out of memory?)");
done:
    if (a)
        LA.archive_write_free(a);
    ZSTD_freeCCtx(z.cctx);
    return rc;
}

/* ---- capture summary ---- */

void cli_capture_summarize(const kr_capture *c, const char *label, cli_capture_summary *s)
{
    memset(s, 0, sizeof *s);
    s->label = label ? label : "";
    s->folder = c->folder ? c->folder : "";
    s->agent = c->agent_handle;
    s->dispatch = c->dispatch_id;
    s->name_matched = c->name_matched;
    s->kernel = "";
    for (size_t i = 0; i < c->nrows; i++) {
        const kr_code_row *r = &c->rows[i];
        if (r->is_label) {
            if (!*s->kernel)
                s->kernel = an_label_name(r);
            continue;
        }
        s->instruction_rows++;
        s->mapped_rows += r->source && *r->source;
    }
    an_target t;
    an_validate_target(c, NULL, &t);
    s->target = t.name ? t.name : "";
    s->waves = c->nwaves;
    for (size_t i = 0; i < c->nwaves; i++)
        s->records += c->waves[i].ninsts;
    s->shell = c->nwaves == 0;
}

void cli_json_str(kr_buf *b, const char *s)
{
    kr_buf_putc(b, '"');
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"': kr_buf_puts(b, "\\\""); break;
        case '\\': kr_buf_puts(b, "\\\\"); break;
        case '\n': kr_buf_puts(b, "\\n"); break;
        case '\r': kr_buf_puts(b, "\\r"); break;
        case '\t': kr_buf_puts(b, "\\t"); break;
        default:
            if (*p < 0x20)
                kr_buf_printf(b, "\\u%04x", *p);
            else
                kr_buf_putc(b, (char)*p);
        }
    }
    kr_buf_putc(b, '"');
}

void cli_capture_summary_json(kr_buf *b, const cli_capture_summary *s, int indent)
{
    const char *pad = "                ";
    int in = indent < 14 ? indent : 14;
    kr_buf_puts(b, "{\n");
#define KEY(k) kr_buf_printf(b, "%.*s\"%s\": ", in + 2, pad, k)
    KEY("label"); cli_json_str(b, s->label); kr_buf_puts(b, ",\n");
    KEY("folder"); cli_json_str(b, s->folder); kr_buf_puts(b, ",\n");
    KEY("agent"); s->name_matched ? kr_buf_printf(b, "%" PRIu64, s->agent) : kr_buf_puts(b, "null");
    kr_buf_puts(b, ",\n");
    KEY("dispatch"); s->name_matched ? kr_buf_printf(b, "%" PRIu64, s->dispatch) : kr_buf_puts(b, "null");
    kr_buf_puts(b, ",\n");
    KEY("kernel"); cli_json_str(b, s->kernel); kr_buf_puts(b, ",\n");
    KEY("target"); cli_json_str(b, s->target); kr_buf_puts(b, ",\n");
    KEY("waves"); kr_buf_printf(b, "%" PRIu64 ",\n", s->waves);
    KEY("records"); kr_buf_printf(b, "%" PRIu64 ",\n", s->records);
    KEY("instruction_rows"); kr_buf_printf(b, "%" PRIu64 ",\n", s->instruction_rows);
    KEY("mapped_rows"); kr_buf_printf(b, "%" PRIu64 ",\n", s->mapped_rows);
    KEY("empty_shell"); kr_buf_puts(b, s->shell ? "true\n" : "false\n");
#undef KEY
    kr_buf_printf(b, "%.*s}", in, pad);
}

/* ---- directories ---- */

int cli_remove_tree(const char *path, kr_err *err)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : kr_err_set(err, KR_OUTPUT, path, NULL, "cannot stat: %s", strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (!d)
            return kr_err_set(err, KR_OUTPUT, path, NULL, "cannot open directory: %s", strerror(errno));
        struct dirent *e;
        int rc = 0;
        while (!rc && (e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char p[PATH_CAP];
            rc = cli_remove_tree(kr_path_join(p, sizeof p, path, e->d_name), err);
        }
        closedir(d);
        if (rc)
            return rc;
        if (rmdir(path) != 0)
            return kr_err_set(err, KR_OUTPUT, path, NULL, "cannot remove directory: %s", strerror(errno));
        return 0;
    }
    if (unlink(path) != 0)
        return kr_err_set(err, KR_OUTPUT, path, NULL, "cannot remove: %s", strerror(errno));
    return 0;
}

int cli_temp_dir(const char *parent, const char *tag, char *out, size_t cap, kr_err *err)
{
    snprintf(out, cap, "%s/.kreport-%s-XXXXXX", parent, tag);
    if (!mkdtemp(out))
        return kr_err_set(err, KR_OUTPUT, parent, NULL, "cannot create a temporary directory: %s",
                          strerror(errno));
    return 0;
}

int cli_install_tree(const char *staged, const char *final, int force, kr_err *err)
{
    struct stat st;
    int exists = lstat(final, &st) == 0;
    if (exists && !force)
        return kr_err_set(err, KR_OUTPUT, final, NULL, "exists; use --force to overwrite");
    char aside[PATH_CAP];
    if (exists) {
        snprintf(aside, sizeof aside, "%s.kreport-old-XXXXXX", final);
        if (!mkdtemp(aside))
            return kr_err_set(err, KR_OUTPUT, final, NULL, "cannot create a temporary name: %s", strerror(errno));
        /* rename over the (empty) placeholder directory. */
        if (rename(final, aside) != 0) {
            int e = errno;
            rmdir(aside);
            return kr_err_set(err, KR_OUTPUT, final, NULL, "cannot move the old copy aside: %s", strerror(e));
        }
    }
    if (rename(staged, final) != 0) {
        int e = errno;
        if (exists)
            rename(aside, final);
        return kr_err_set(err, KR_OUTPUT, final, NULL, "cannot move into place: %s", strerror(e));
    }
    if (exists)
        return cli_remove_tree(aside, err);
    return 0;
}

void cli_path_parent(const char *path, char *out, size_t cap)
{
    snprintf(out, cap, "%s", path);
    size_t n = strlen(out);
    while (n > 1 && out[n - 1] == '/')
        out[--n] = '\0';
    char *slash = strrchr(out, '/');
    if (!slash)
        snprintf(out, cap, ".");
    else if (slash == out)
        out[1] = '\0';
    else
        *slash = '\0';
}
