/* cmd_unpack.c — `kreport unpack FILE -C DIR`: extracts an archive written
 * by `kreport pack` (layout: cli/pack.h) into DIR/<name>/.
 *
 * The archive is read whole through bundle_archive_load (every protection
 * of bundle/archive.h: no absolute or ".." paths, no links or devices, size
 * and ratio limits). Before anything is written, <name>/MANIFEST.json must
 * list every file member with its exact size and SHA-256, list nothing that
 * is absent, and every member must lie under <name>/. The tree is written
 * into a temporary folder inside DIR and renamed to DIR/<name> at the end;
 * an existing DIR/<name> is replaced only with --force. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/archive.h"
#include "cli/commands.h"
#include "cli/pack.h"
#include "common/file.h"
#include "common/outfile.h"
#include "common/sha256.h"

#define PATH_CAP 4096

static struct {
    const char *dir;
    int force, quiet;
} o;

const cli_opt cmd_unpack_options[] = {
    {"directory", 'C', OPT_STRING, "DIR", "extract into DIR/<name> (default: the current directory)", &o.dir},
    {"force", 0, OPT_FLAG, NULL, "replace an existing DIR/<name>", &o.force},
    {"quiet", 'q', OPT_FLAG, NULL, "print nothing but errors", &o.quiet},
    {0},
};

static int fail(const kr_err *err)
{
    char msg[2048];
    kr_err_format(err, msg, sizeof msg);
    fprintf(stderr, "kreport unpack: %s\n", msg);
    return err->code ? err->code : KR_INTERNAL;
}

/* Checks the manifest against the members; 0 or KR_INPUT naming the
 * archive and the member or JSON path at fault. */
static int verify(const bundle_archive *a, const char *file, const char *top, kr_err *err)
{
    size_t tl = strlen(top);
    char mpath[PATH_CAP];
    snprintf(mpath, sizeof mpath, "%s/%s", top, CLI_MANIFEST_NAME);
    const bundle_archive_member *m = bundle_archive_find(a, mpath);
    if (!m || m->is_dir)
        return kr_err_set(err, KR_INPUT, file, NULL, "no %s: not an archive written by kreport pack", mpath);
    json_error_t je;
    json_t *root = json_loadb((const char *)m->data, m->len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return kr_err_set(err, KR_INPUT, file, NULL, "member %s: line %d:%d: %s", mpath, je.line, je.column, je.text);
    int rc = 0;
    json_t *fmt = json_object_get(root, "format"), *ver = json_object_get(root, "format_version");
    json_t *members = json_object_get(root, "members");
    if (!json_is_string(fmt) || strcmp(json_string_value(fmt), CLI_MANIFEST_FORMAT) != 0)
        rc = kr_err_set(err, KR_INPUT, file, NULL, "member %s: $.format: expected \"%s\"", mpath, CLI_MANIFEST_FORMAT);
    else if (!json_is_integer(ver) || json_integer_value(ver) != CLI_MANIFEST_VERSION)
        rc = kr_err_set(err, KR_INPUT, file, NULL, "member %s: $.format_version: expected %d", mpath,
                        CLI_MANIFEST_VERSION);
    else if (!json_is_array(members))
        rc = kr_err_set(err, KR_INPUT, file, NULL, "member %s: $.members: expected an array", mpath);
    /* listed[i]: member i of the archive is named by the manifest */
    unsigned char *listed = calloc(a->nmembers ? a->nmembers : 1, 1);
    if (!rc && !listed)
        rc = kr_err_set(err, KR_INTERNAL, file, NULL, "out of memory");
    size_t idx;
    json_t *e;
    if (!rc)
        json_array_foreach(members, idx, e) {
            json_t *jp = json_object_get(e, "path"), *js = json_object_get(e, "size"), *jh = json_object_get(e, "sha256");
            if (!json_is_string(jp) || !json_is_integer(js) || !json_is_string(jh)) {
                rc = kr_err_set(err, KR_INPUT, file, NULL, "member %s: $.members[%zu]: expected {path, size, sha256}",
                                mpath, idx);
                break;
            }
            const char *path = json_string_value(jp);
            const bundle_archive_member *mm = bundle_archive_find(a, path);
            if (!mm || mm->is_dir) {
                rc = kr_err_set(err, KR_INPUT, file, NULL, "member %s: listed in %s but not in the archive", path,
                                CLI_MANIFEST_NAME);
                break;
            }
            size_t at = (size_t)(mm - a->members);
            if (listed[at]) {
                rc = kr_err_set(err, KR_INPUT, file, NULL, "member %s: listed twice in %s", path, CLI_MANIFEST_NAME);
                break;
            }
            listed[at] = 1;
            char hex[KR_SHA256_HEX];
            kr_sha256_hex_of(mm->data, mm->len, hex);
            if ((json_int_t)mm->len != json_integer_value(js)) {
                rc = kr_err_set(err, KR_INPUT, file, NULL, "member %s: %zu bytes, %s says %lld", path, mm->len,
                                CLI_MANIFEST_NAME, (long long)json_integer_value(js));
                break;
            }
            if (strcmp(hex, json_string_value(jh)) != 0) {
                rc = kr_err_set(err, KR_INPUT, file, NULL, "member %s: SHA-256 %s, %s says %s", path, hex,
                                CLI_MANIFEST_NAME, json_string_value(jh));
                break;
            }
        }
    for (size_t i = 0; i < a->nmembers && !rc; i++) {
        const bundle_archive_member *mm = &a->members[i];
        if (strncmp(mm->path, top, tl) != 0 || (mm->path[tl] != '/' && mm->path[tl] != '\0'))
            rc = kr_err_set(err, KR_INPUT, file, NULL, "member %s: outside the top folder %s/", mm->path, top);
        else if (!mm->is_dir && !listed[i] && mm != m)
            rc = kr_err_set(err, KR_INPUT, file, NULL, "member %s: not listed in %s", mm->path, CLI_MANIFEST_NAME);
    }
    free(listed);
    json_decref(root);
    return rc;
}

static int write_file(const char *path, const unsigned char *data, size_t len, unsigned mode, kr_err *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, (mode & 0111) ? 0755 : 0644);
    if (fd < 0)
        return kr_err_set(err, KR_OUTPUT, path, NULL, "cannot create: %s", strerror(errno));
    for (size_t w = 0; w < len;) {
        ssize_t k = write(fd, data + w, len - w);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            int e = errno;
            close(fd);
            return kr_err_set(err, KR_OUTPUT, path, NULL, "write failed: %s", strerror(e));
        }
        w += (size_t)k;
    }
    if (close(fd) != 0)
        return kr_err_set(err, KR_OUTPUT, path, NULL, "write failed: %s", strerror(errno));
    return 0;
}

/* Creates the parent folders of rel below base. */
static int make_parents(const char *base, const char *rel, kr_err *err)
{
    char p[PATH_CAP];
    snprintf(p, sizeof p, "%s/%s", base, rel);
    char *slash = strrchr(p, '/');
    if (!slash)
        return 0;
    *slash = '\0';
    return kr_mkdir_p(p, err);
}

int cmd_unpack(int argc, char **argv)
{
    memset(&o, 0, sizeof o);
    const cli_command *cmd = cli_find("unpack");
    char *pos[2];
    int npos, code;
    if (cli_parse(cmd, cmd_unpack_options, argc, argv, pos, &npos, 2, &code))
        return code;
    if (npos != 1) {
        cli_usage_error(cmd, npos ? "expects exactly one FILE" : "missing FILE");
        return KR_USAGE;
    }
    const char *file = pos[0], *dir = o.dir ? o.dir : ".";
    kr_err err;
    kr_err_clear(&err);
    bundle_archive *a = NULL;
    if (bundle_archive_load(file, &a, &err))
        return fail(&err);
    int rc = 0;
    char top[PATH_CAP] = "";
    if (a->nmembers == 0)
        rc = kr_err_set(&err, KR_INPUT, file, NULL, "empty archive: not written by kreport pack");
    else
        snprintf(top, sizeof top, "%.*s", (int)strcspn(a->members[0].path, "/"), a->members[0].path);
    if (!rc)
        rc = verify(a, file, top, &err);
    char tmp[PATH_CAP] = "", staged[PATH_CAP], final[PATH_CAP];
    if (!rc && !(rc = kr_mkdir_p(dir, &err))) {
        kr_path_join(final, sizeof final, dir, top);
        struct stat st;
        if (!o.force && lstat(final, &st) == 0)
            rc = kr_err_set(&err, KR_OUTPUT, final, NULL, "exists; use --force to replace it");
        else
            rc = cli_temp_dir(dir, "unpack", tmp, sizeof tmp, &err);
    }
    for (size_t i = 0; i < a->nmembers && !rc; i++) {
        const bundle_archive_member *m = &a->members[i];
        char p[PATH_CAP];
        kr_path_join(p, sizeof p, tmp, m->path);
        if ((rc = make_parents(tmp, m->path, &err)))
            break;
        if (m->is_dir)
            rc = kr_mkdir_p(p, &err);
        else
            rc = write_file(p, m->data, m->len, m->mode, &err);
    }
    if (!rc) {
        kr_path_join(staged, sizeof staged, tmp, top);
        rc = cli_install_tree(staged, final, o.force, &err);
    }
    if (*tmp) {
        kr_err e2;
        kr_err_clear(&e2);
        cli_remove_tree(tmp, &e2);
    }
    size_t n = a->nmembers;
    bundle_archive_free(a);
    if (rc)
        return fail(&err);
    if (!o.quiet)
        fprintf(stderr, "kreport unpack: %s -> %s (%zu members, manifest verified)\n", file, final, n);
    return 0;
}
