/* cmd_pack.c — `kreport pack EXAMPLE_DIR -o FILE.tar.zst`: a reproducible
 * archive of an example folder with MANIFEST.json (layout and byte rules:
 * cli/pack.h). The example is validated first (docs/validate.md and the
 * publishing checks V-20a..V-20f); an error finding refuses the pack unless
 * --force. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/capture.h"
#include "bundle/discover.h"
#include "cli/commands.h"
#include "cli/pack.h"
#include "common/buf.h"
#include "common/file.h"
#include "common/outfile.h"
#include "common/pool.h"

static struct {
    const char *output, *name;
    int force, quiet, jobs;
} o;

const cli_opt cmd_pack_options[] = {
    {"output", 'o', OPT_STRING, "FILE", "the archive to write (FILE.tar.zst; required)", &o.output},
    {"name", 0, OPT_STRING, "NAME", "top-level folder name inside the archive (default: the example folder's name)", &o.name},
    {"force", 0, OPT_FLAG, NULL, "pack even when validate finds errors, and overwrite FILE", &o.force},
    {"jobs", 'j', OPT_INT, "N", "wave-file parser threads (default: online CPUs)", &o.jobs},
    {"quiet", 'q', OPT_FLAG, NULL, "print nothing but errors", &o.quiet},
    {0},
};

static int fail(const kr_err *err)
{
    char msg[2048];
    kr_err_format(err, msg, sizeof msg);
    fprintf(stderr, "kreport pack: %s\n", msg);
    return err->code ? err->code : KR_INTERNAL;
}

/* 1 if name is usable as the archive's top folder. */
static int plain_name(const char *name)
{
    if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return 0;
    for (const char *p = name; *p; p++)
        if (*p == '/' || (unsigned char)*p < 0x20)
            return 0;
    return 1;
}

int cli_manifest_build(const char *root, const char *name, const cli_pack_list *l, int jobs, kr_buf *out,
                       kr_err *err)
{
    bundle_example *ex;
    int rc = bundle_example_scan(root, &ex, err);
    if (rc)
        return rc;
    kr_buf_puts(out, "{\n  \"format\": \"" CLI_MANIFEST_FORMAT "\",\n");
    kr_buf_printf(out, "  \"format_version\": %d,\n", CLI_MANIFEST_VERSION);
    kr_buf_puts(out, "  \"kreport_version\": \"" KREPORT_VERSION "\",\n  \"example\": ");
    cli_json_str(out, name);
    kr_buf_puts(out, ",\n  \"captures\": [");
    for (size_t i = 0; i < ex->ncaptures && !rc; i++) {
        bundle_opts bo = {0};
        bo.threads = jobs > 0 ? jobs : kr_cpu_count();
        bo.label = ex->captures[i].label;
        bo.skip_wstates = 1;
        kr_capture *c;
        if ((rc = bundle_capture_load(ex->captures[i].dir, &bo, &c, err)))
            break;
        cli_capture_summary s;
        cli_capture_summarize(c, ex->captures[i].label, &s);
        kr_buf_puts(out, i ? ",\n    " : "\n    ");
        cli_capture_summary_json(out, &s, 4);
        bundle_capture_free(c);
    }
    kr_buf_puts(out, ex->ncaptures ? "\n  ],\n  \"members\": [" : "],\n  \"members\": [");
    size_t nfiles = 0;
    for (size_t i = 0; i < l->n; i++) {
        const cli_pack_entry *e = &l->v[i];
        if (e->is_dir)
            continue;
        kr_buf_puts(out, nfiles++ ? ",\n    {\"path\": " : "\n    {\"path\": ");
        cli_json_str(out, e->path);
        kr_buf_printf(out, ", \"size\": %llu, \"sha256\": \"%s\"}", (unsigned long long)e->size, e->sha256);
    }
    kr_buf_puts(out, nfiles ? "\n  ]\n}\n" : "]\n}\n");
    bundle_example_free(ex);
    if (!rc && out->oom)
        rc = kr_err_set(err, KR_INTERNAL, root, NULL, "out of memory");
    return rc;
}

int cmd_pack(int argc, char **argv)
{
    memset(&o, 0, sizeof o);
    const cli_command *cmd = cli_find("pack");
    char *pos[2];
    int npos, code;
    if (cli_parse(cmd, cmd_pack_options, argc, argv, pos, &npos, 2, &code))
        return code;
    if (npos != 1) {
        cli_usage_error(cmd, npos ? "expects exactly one EXAMPLE_DIR" : "missing EXAMPLE_DIR");
        return KR_USAGE;
    }
    if (!o.output) {
        cli_usage_error(cmd, "missing -o FILE.tar.zst");
        return KR_USAGE;
    }
    char root[4096];
    snprintf(root, sizeof root, "%s", pos[0]);
    for (size_t n = strlen(root); n > 1 && root[n - 1] == '/';)
        root[--n] = '\0';
    const char *name = o.name ? o.name : kr_path_base(root);
    if (!plain_name(name)) {
        cli_usage_error(cmd, "--name must be a plain folder name, not '%s'", name);
        return KR_USAGE;
    }
    kr_err err;
    kr_err_clear(&err);
    if (!bundle_is_example_dir(root)) {
        kr_err_set(&err, KR_INPUT, root, NULL,
                   "not an example folder: expected att_viewer/<label>/ui_output_* captures (`kreport help formats`)");
        return fail(&err);
    }

    /* validate first */
    kr_buf lines;
    kr_buf_init(&lines);
    uint64_t errors = 0;
    int rc = cmd_validate_example_errors(root, o.jobs, &lines, &errors, &err);
    if (rc) {
        kr_buf_free(&lines);
        return fail(&err);
    }
    if (errors) {
        fputs(kr_buf_cstr(&lines), stderr);
        if (!o.force) {
            fprintf(stderr, "kreport pack: %s: validate found %llu error%s (listed above): fix them, or pack "
                            "anyway with --force\n", root, (unsigned long long)errors, errors == 1 ? "" : "s");
            kr_buf_free(&lines);
            return KR_FINDING;
        }
        fprintf(stderr, "kreport pack: %s: packing despite %llu validate error%s (--force)\n", root,
                (unsigned long long)errors, errors == 1 ? "" : "s");
    }
    kr_buf_free(&lines);

    cli_pack_list l;
    if ((rc = cli_pack_collect(root, name, &l, &err)))
        return fail(&err);
    kr_buf manifest, archive;
    kr_buf_init(&manifest);
    kr_buf_init(&archive);
    if (!(rc = cli_manifest_build(root, name, &l, o.jobs, &manifest, &err)))
        rc = cli_pack_write(&l, name, manifest.data, manifest.len, &archive, &err);
    if (!rc) {
        char dir[4096];
        cli_path_parent(o.output, dir, sizeof dir);
        kr_outset *set = kr_outset_new(dir, o.force);
        if (!set)
            rc = kr_err_set(&err, KR_INTERNAL, NULL, NULL, "out of memory");
        else if (!(rc = kr_outset_add(set, kr_path_base(o.output), archive.data, archive.len, &err)))
            rc = kr_outset_commit(set, &err);
        kr_outset_free(set);
    }
    size_t files = 0;
    for (size_t i = 0; i < l.n; i++)
        files += !l.v[i].is_dir;
    cli_pack_list_free(&l);
    kr_buf_free(&manifest);
    size_t bytes = archive.len;
    kr_buf_free(&archive);
    if (rc)
        return fail(&err);
    if (!o.quiet)
        fprintf(stderr, "kreport pack: %s -> %s (%zu files + %s, %zu bytes)\n", root, o.output, files,
                CLI_MANIFEST_NAME, bytes);
    return 0;
}
