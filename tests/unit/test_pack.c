/* test_pack.c — cli/pack.c (member list, tar.zst writer, paths) and the
 * publishing checks V-20a .. V-20f of analyzer/validate.c on hand-built
 * facts. Expected hashes are the NIST "abc" vector and sha256sum of "";
 * the archive is read back with bundle_archive_load_mem, and listed again
 * through it (cli_pack_collect_src) against the list from disk. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/validate.h"
#include "bundle/archive.h"
#include "bundle/source.h"
#include "cli/pack.h"
#include "common/err.h"
#include "tests/unit/t.h"

static void put(const char *dir, const char *name, const char *text, int mode)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    chmod(p, (mode_t)mode);
}

/* The finding with this id whose message contains text, or NULL. */
static const an_finding *find(const an_validation *v, const char *id, const char *text)
{
    for (size_t i = 0; i < v->nfindings; i++)
        if (strcmp(v->findings[i].id, id) == 0 && strstr(v->findings[i].message, text))
            return &v->findings[i];
    return NULL;
}

static an_example_capture cap(const char *label, const char *folder, uint64_t waves, uint64_t records)
{
    an_example_capture c;
    memset(&c, 0, sizeof c);
    c.label = label;
    c.folder = folder;
    c.waves = waves;
    c.records = records;
    c.shell = waves == 0;
    c.instruction_rows = 10;
    c.mapped_rows = 10;
    c.name_matched = 1;
    c.workgroups = c.cu_count = -1;
    c.results_match = -1;
    return c;
}

static void test_checks(void)
{
    an_example_capture caps[5];
    caps[0] = cap("big", "ui_output_agent_1_dispatch_2", 4, 100);        /* fewer records than small */
    caps[1] = cap("big", "ui_output_agent_1_dispatch_3", 0, 0);          /* empty shell */
    caps[2] = cap("small", "ui_output_agent_5_dispatch_6", 8, 900);
    caps[3] = cap("small", "ui_output_agent_5_dispatch_7", 8, 900);      /* duplicate of [2] */
    caps[4] = cap("x", "ui_output_agent_9_dispatch_9", 2, 10);
    caps[2].content_digest = caps[3].content_digest = "d1";
    caps[0].content_digest = "d0";
    caps[0].workgroups = 69;                                           /* 69 < 256 CUs: underfilled */
    caps[0].cu_count = 256;
    caps[0].mapped_rows = 0;
    caps[4].results_match = 0;
    caps[4].agent_handle = 9;
    caps[4].results_agents = "32235, 32236";
    const char *unlabelled[] = {"ui_output_agent_4_dispatch_4"};
    an_example_facts f;
    memset(&f, 0, sizeof f);
    f.name = "k";
    f.has_readme = f.has_report = 1;
    f.readme_text = "# k\n\nnothing about it\n";
    f.report_text = "# report\n";
    f.captures = caps;
    f.ncaptures = 5;
    f.unlabelled = unlabelled;
    f.nunlabelled = 1;
    an_validation v;
    T_EQ_U64(an_validate_example(&f, NULL, &v), 0);
    const an_finding *x;
    T_CHECK((x = find(&v, "V-20a", "is an empty shell")) && x->severity == AN_SEV_ERROR &&
            strcmp(x->location, "att_viewer/big/ui_output_agent_1_dispatch_3") == 0);
    T_CHECK((x = find(&v, "V-20b", "has the same files as att_viewer/small/ui_output_agent_5_dispatch_6")) &&
            x->severity == AN_SEV_ERROR && strcmp(x->location, "att_viewer/small/ui_output_agent_5_dispatch_7") == 0);
    T_CHECK((x = find(&v, "V-20c", "capture has no label")) && x->severity == AN_SEV_WARNING &&
            strcmp(x->location, "att_viewer/ui_output_agent_4_dispatch_4") == 0);
    T_CHECK(find(&v, "V-20c", "the small capture has more records (900) than big/ui_output_agent_1_dispatch_2 (100)"));
    T_CHECK((x = find(&v, "V-20d", "0/10 instruction rows are source-mapped and neither")) &&
            x->severity == AN_SEV_WARNING);
    /* primary: the first big capture with waves, whatever the wave counts */
    T_CHECK((x = find(&v, "V-20e", "does not fill the GPU: 69 workgroups on 256 CUs")) &&
            x->severity == AN_SEV_WARNING && strcmp(x->location, "att_viewer/big/ui_output_agent_1_dispatch_2") == 0);
    T_CHECK((x = find(&v, "V-20f", "has no GPU agent with handle 9 of capture x/ui_output_agent_9_dispatch_9 "
                                   "(its GPU agents: 32235, 32236)")) &&
            strcmp(x->location, "compute_viewer/x_results.json") == 0);
    T_EQ_U64(v.errors, 2);
    T_EQ_U64(v.warnings, 5);
    an_validation_free(&v);

    /* The notes turn V-20d and V-20e into infos; a word match, not a substring. */
    f.readme_text = "## Source Mapping note\n\nThe BIG trace is underfilled by design.\n";
    T_EQ_U64(an_validate_example(&f, NULL, &v), 0);
    T_CHECK((x = find(&v, "V-20d", "README.md says why")) && x->severity == AN_SEV_INFO);
    T_CHECK((x = find(&v, "V-20e", "primary capture is underfilled: 69 workgroups on 256 CUs; README.md marks it so")) &&
            x->severity == AN_SEV_INFO);
    an_validation_free(&v);
    f.readme_text = "the bigger trace is underfilled\n";
    T_EQ_U64(an_validate_example(&f, NULL, &v), 0);
    T_CHECK((x = find(&v, "V-20e", "does not fill the GPU")) && x->severity == AN_SEV_WARNING);
    an_validation_free(&v);

    /* Without a big label the primary is the capture with the most waves;
     * a tail at 25 % or more is underfilled. */
    an_example_capture two[2] = {cap("small", "a", 4, 10), cap("mid", "b", 8, 20)};
    two[1].has_occupancy = 1;
    two[1].low_fraction = 0.25;
    two[0].has_occupancy = 1;
    two[0].low_fraction = 0.9;
    memset(&f, 0, sizeof f);
    f.name = "k";
    f.has_readme = f.has_report = 1;
    f.captures = two;
    f.ncaptures = 2;
    T_EQ_U64(an_validate_example(&f, NULL, &v), 0);
    T_CHECK((x = find(&v, "V-20e", "for 25% of the dispatch")) && strcmp(x->location, "att_viewer/mid/b") == 0);
    T_EQ_U64(v.errors, 0);
    an_validation_free(&v);
    two[1].low_fraction = 0.2499;
    T_EQ_U64(an_validate_example(&f, NULL, &v), 0);
    T_CHECK(!find(&v, "V-20e", ""));
    an_validation_free(&v);
}

static void test_paths(void)
{
    char out[256];
    cli_path_parent("a/b/c.tar.zst", out, sizeof out);
    T_EQ_STR(out, "a/b");
    cli_path_parent("c.tar.zst", out, sizeof out);
    T_EQ_STR(out, ".");
    cli_path_parent("/c", out, sizeof out);
    T_EQ_STR(out, "/");
    cli_path_parent("a/b/", out, sizeof out);
    T_EQ_STR(out, "a");
}

static void test_collect_and_write(void)
{
    char root[] = "/tmp/kr-test-pack-XXXXXX";
    if (!mkdtemp(root)) {
        T_CHECK(0);
        return;
    }
    char sub[4096], p[4096];
    snprintf(sub, sizeof sub, "%s/b", root);
    mkdir(sub, 0700);
    put(root, "z.txt", "abc", 0600);
    put(root, "a.sh", "", 0700);
    put(sub, "inner.json", "abc", 0644);
    put(root, ".hidden", "x", 0644);
    put(root, "MANIFEST.json", "{}", 0644);        /* an old manifest: skipped */
    kr_err err;
    kr_err_clear(&err);
    cli_pack_list l;
    T_EQ_U64(cli_pack_collect(root, "ex", &l, &err), 0);
    /* root first, then bytewise order: "ex/a.sh" < "ex/b" < "ex/b/inner.json" < "ex/z.txt" */
    T_EQ_U64(l.n, 5);
    if (l.n == 5) {
        T_EQ_STR(l.v[0].path, "ex");
        T_EQ_STR(l.v[1].path, "ex/a.sh");
        T_EQ_STR(l.v[2].path, "ex/b");
        T_EQ_STR(l.v[3].path, "ex/b/inner.json");
        T_EQ_STR(l.v[4].path, "ex/z.txt");
        T_EQ_U64(l.v[1].mode, 0755);
        T_EQ_U64(l.v[2].mode, 0755);
        T_EQ_U64(l.v[4].mode, 0644);
        T_EQ_U64(l.v[1].size, 0);
        T_EQ_STR(l.v[1].sha256, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        T_EQ_U64(l.v[4].size, 3);
        T_EQ_STR(l.v[4].sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
    const char *manifest = "{\"format\": \"kreport.manifest\"}\n";
    kr_buf a1, a2;
    kr_buf_init(&a1);
    kr_buf_init(&a2);
    T_EQ_U64(cli_pack_write(&l, "ex", manifest, strlen(manifest), &a1, &err), 0);
    T_EQ_U64(cli_pack_write(&l, "ex", manifest, strlen(manifest), &a2, &err), 0);
    T_CHECK(a1.len > 0 && a1.len == a2.len && memcmp(a1.data, a2.data, a1.len) == 0);
    /* zstd frame magic 28 b5 2f fd */
    T_CHECK(a1.len > 4 && (unsigned char)a1.data[0] == 0x28 && (unsigned char)a1.data[1] == 0xb5 &&
            (unsigned char)a1.data[2] == 0x2f && (unsigned char)a1.data[3] == 0xfd);
    bundle_archive *ar = NULL;
    T_EQ_U64(bundle_archive_load_mem(a1.data, a1.len, "t.tar.zst", &ar, &err), 0);
    if (ar) {
        const bundle_archive_member *m = bundle_archive_find(ar, "ex/MANIFEST.json");
        T_CHECK(m && m->len == strlen(manifest) && memcmp(m->data, manifest, m->len) == 0);
        m = bundle_archive_find(ar, "ex/b/inner.json");
        T_CHECK(m && m->len == 3 && memcmp(m->data, "abc", 3) == 0 && (m->mode & 0777) == 0644);
        m = bundle_archive_find(ar, "ex/a.sh");
        T_CHECK(m && (m->mode & 0777) == 0755);
        T_CHECK(!bundle_archive_find(ar, "ex/.hidden"));
        /* The same list read back through the archive: member bytes hashed
         * (sizes and SHA-256 equal to the files on disk), the archive's own
         * MANIFEST.json at the root skipped, modes 0644 for members. */
        bundle_source *src = NULL;
        T_EQ_U64(bundle_source_from_archive(ar, &src, &err), 0);
        cli_pack_list la;
        T_EQ_U64(cli_pack_collect_src(src, "t.tar.zst/ex", "ex", &la, &err), 0);
        T_EQ_U64(la.n, l.n);
        for (size_t i = 0; i < la.n && la.n == l.n; i++) {
            T_EQ_STR(la.v[i].path, l.v[i].path);
            T_EQ_U64(la.v[i].is_dir, l.v[i].is_dir);
            T_EQ_U64(la.v[i].size, l.v[i].size);
            T_EQ_STR(la.v[i].sha256, l.v[i].sha256);
        }
        if (la.n == 5) {
            T_EQ_STR(la.v[3].src, "t.tar.zst/ex/b/inner.json");
            T_EQ_U64(la.v[1].mode, 0644);
        }
        cli_pack_list_free(&la);
        T_EQ_U64(cli_pack_collect_src(src, "t.tar.zst/nothere", "ex", &la, &err), KR_INPUT);
        bundle_source_free(src);
    }
    /* a file that changed after listing is refused */
    put(root, "z.txt", "abd", 0600);
    kr_buf_reset(&a2);
    T_EQ_U64(cli_pack_write(&l, "ex", manifest, strlen(manifest), &a2, &err), KR_INPUT);
    T_CHECK(strstr(err.msg, "changed while packing") != NULL);
    kr_buf_free(&a1);
    kr_buf_free(&a2);
    cli_pack_list_free(&l);
    /* a symbolic link is refused, naming it */
    snprintf(p, sizeof p, "%s/link", root);
    T_EQ_U64(symlink("z.txt", p), 0);
    kr_err_clear(&err);
    T_EQ_U64(cli_pack_collect(root, "ex", &l, &err), KR_INPUT);
    T_CHECK(strstr(err.file, "/link") && strstr(err.msg, "symbolic link"));
    cli_pack_list_free(&l);
    /* a named pipe is refused as neither file nor directory */
    unlink(p);
    snprintf(p, sizeof p, "%s/fifo", root);
    T_EQ_U64(mkfifo(p, 0600), 0);
    kr_err_clear(&err);
    T_EQ_U64(cli_pack_collect(root, "ex", &l, &err), KR_INPUT);
    T_CHECK(strstr(err.file, "/fifo") && strstr(err.msg, "neither a regular file nor a directory"));
    cli_pack_list_free(&l);
    T_EQ_U64(cli_remove_tree(root, &err), 0);
    T_CHECK(access(root, F_OK) != 0);
}

int main(void)
{
    test_checks();
    test_paths();
    test_collect_and_write();
    return t_done("test_pack");
}
