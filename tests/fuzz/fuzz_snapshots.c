/* fuzz_snapshots.c — libFuzzer target: bundle_parse_snapshots (snapshots.json,
 * docs/formats.md#source-snapshots) against a temporary capture folder that holds a copy, an
 * empty copy, a directory, symlinks inside, outside (relative and absolute)
 * and dangling. The code table has frames for the resolution step. No leaf
 * may ever be loaded unless it is a plain name resolving inside the folder. */
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/load_code.h"
#include "bundle/load_snapshots.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[64], folder[128];

static void put(const char *name, const char *text)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", folder, name);
    FILE *f = fopen(p, "w");
    if (!f)
        abort();
    fputs(text, f);
    fclose(f);
}

static void link_to(const char *target, const char *name)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", folder, name);
    if (symlink(target, p) != 0)
        abort();
}

static void cleanup(void)
{
    static const char *const names[] = {"source_0_a.py", "source_1_b.py", "source_2_out", "source_3_abs",
        "source_5_in", "source_6_dangling", "source_7_dot"};
    char p[256];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(p, sizeof p, "%s/%s", folder, names[i]);
        unlink(p);
    }
    snprintf(p, sizeof p, "%s/source_4_dir", folder);
    rmdir(p);
    rmdir(folder);
    snprintf(p, sizeof p, "%s/outside.py", root);
    unlink(p);
    rmdir(root);
}

static void setup(void)
{
    snprintf(root, sizeof root, "/tmp/kr_fuzz_snap.XXXXXX");
    if (!mkdtemp(root))
        abort();
    snprintf(folder, sizeof folder, "%s/cap", root);
    if (mkdir(folder, 0700) != 0)
        abort();
    atexit(cleanup);
    char p[256];
    snprintf(p, sizeof p, "%s/outside.py", root);
    FILE *f = fopen(p, "w");
    if (!f)
        abort();
    fputs("secret\n", f);
    fclose(f);
    put("source_0_a.py", "one\ntwo\nthree\n");
    put("source_1_b.py", "");
    link_to("../outside.py", "source_2_out");
    link_to("/etc/hostname", "source_3_abs");
    snprintf(p, sizeof p, "%s/source_4_dir", folder);
    if (mkdir(p, 0700) != 0)
        abort();
    link_to("source_0_a.py", "source_5_in");
    link_to("missing.py", "source_6_dangling");
    link_to(".", "source_7_dot");
}

static const char code[] =
    "{\"code\":[[\"; k\",0,0,\"\",1,256,0,0,0,0],"
    "[\"s_nop 0\",0,1,\"/x/a.py:2 -> /x/b.py:1\",1,256,1,4,4,0],"
    "[\"s_nop 0\",0,2,\"a.py:1\",1,260,1,4,4,0],"
    "[\"s_nop 0\",0,3,\"../b.py:3 -> /:1 -> //x//a.py:9\",1,264,1,4,4,0],"
    "[\"s_endpgm\",0,4,\"\",1,268,1,4,0,0]],"
    "\"header\":\"ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle\",\"version\":\"3.0.0\"}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!root[0])
        setup();
    char *buf = fz_copy(data, size);
    kr_capture *c = fz_capture_new();
    kr_err err;
    kr_err_clear(&err);
    if (bundle_parse_code(c, code, sizeof code - 1, "code.json", &err))
        abort();
    int rc = bundle_parse_snapshots(c, folder, buf, size, "snapshots.json", &err);
    fz_check(rc, &err);
    for (size_t i = 0; rc == 0 && i < c->nsnapshots; i++) {
        const kr_snapshot *s = &c->snapshots[i];
        if (s->loaded && (!s->safe || strstr(s->text, "secret") || strchr(s->leaf, '/')))
            abort();
    }
    for (size_t r = 0; rc == 0 && r < c->nrows; r++)
        for (uint32_t f = 0; f < c->rows[r].nframes; f++) {
            int32_t k = c->rows[r].frames[f].snapshot;
            if (k >= 0 && ((size_t)k >= c->nsnapshots || !c->snapshots[k].loaded))
                abort();
        }
    fz_capture_free(c);
    free(buf);
    return 0;
}
