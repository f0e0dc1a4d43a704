/* test_load_snapshots.c — snapshots.json and source copies (docs/formats.md#source-snapshots):
 * path rebuilding, leaf safety (docs/formats.md#snapshot-safety) in a scratch folder with symlinks,
 * line index, frame resolution (docs/formats.md#resolving-frames), and the hub's flash captures. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/load_code.h"
#include "bundle/load_snapshots.h"
#include "bundle/model.h"
#include "common/file.h"
#include "tests/unit/t.h"

static kr_capture *cap_new(void)
{
    kr_capture *c = calloc(1, sizeof *c);
    kr_arena_init(&c->arena);
    return c;
}

static void cap_free(kr_capture *c)
{
    kr_arena_free(&c->arena);
    free(c);
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[4096];
    kr_path_join(path, sizeof path, dir, name);
    FILE *f = fopen(path, "wb");
    T_CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void make_link(const char *dir, const char *name, const char *target)
{
    char path[4096];
    kr_path_join(path, sizeof path, dir, name);
    T_EQ_I64(symlink(target, path), 0);
}

static const char *const TREE =
    "{\"/\":{\"src\":{\"a.py\":\"source_0_a.py\",\"b.py\":\"../x\",\"c.py\":\"/etc/passwd\","
    "\"d.py\":\"source_9_missing.py\",\"e.py\":\"source_2_link.py\",\"g.py\":\"source_3_in.py\","
    "\"h.py\":\"source_4_abs.py\",\"i.py\":\".\",\"j.py\":\"a\\\\b\",\"k.py\":\"\",\"l.py\":\"sub\"}},"
    "\"rel\":{\"f.py\":\"source_1_f.py\"}}";

static const char *const CODE =
    "{\"code\":[[\"; k\",0,0,\"\",1,0,0,0,0,0],"
    "[\"s_nop 0\",0,1,\"/src/a.py:2 -> /src/b.py:1 -> rel/f.py:9 -> /src/g.py:1 -> /src/zz.py:3 -> /src/a.py\","
    "1,0,0,0,0,0]],"
    "\"header\":\"ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle\"}";

static void test_scratch(void)
{
    char root[] = "/tmp/kr_snap_XXXXXX";
    if (!mkdtemp(root)) {
        T_CHECK(0);
        return;
    }
    char cap[4096], out_file[4096], capl[4096], sub[4096];
    kr_path_join(cap, sizeof cap, root, "cap");
    kr_path_join(out_file, sizeof out_file, root, "outside.txt");
    kr_path_join(capl, sizeof capl, root, "capl");
    kr_path_join(sub, sizeof sub, cap, "sub");
    T_EQ_I64(mkdir(cap, 0755), 0);
    T_EQ_I64(mkdir(sub, 0755), 0);
    T_EQ_I64(symlink("cap", capl), 0);
    write_file(root, "outside.txt", "secret\n");
    write_file(cap, "source_0_a.py", "l1\nl2\n\nl4");
    write_file(cap, "source_1_f.py", "x\n");
    make_link(cap, "source_2_link.py", "../outside.txt");
    make_link(cap, "source_3_in.py", "source_0_a.py");
    make_link(cap, "source_4_abs.py", out_file);

    /* Twice: through the folder itself and through a symlink to it. */
    const char *folders[2] = {cap, capl};
    for (int pass = 0; pass < 2; pass++) {
        kr_capture *c = cap_new();
        kr_err err;
        kr_err_clear(&err);
        T_EQ_I64(bundle_parse_code(c, CODE, strlen(CODE), "code.json", &err), 0);
        T_EQ_I64(bundle_parse_snapshots(c, folders[pass], TREE, strlen(TREE), "snapshots.json", &err), 0);
        T_EQ_U64(c->has_snapshots_json, 1);
        T_EQ_U64(c->nsnapshots, 12);
        if (c->nsnapshots != 12) {
            cap_free(c);
            continue;
        }
        const kr_snapshot *s = c->snapshots;
        /* sorted by rebuilt path; '/' (0x2f) sorts before 'r' */
        static const char *const paths[12] = {"/src/a.py", "/src/b.py", "/src/c.py", "/src/d.py",
            "/src/e.py", "/src/g.py", "/src/h.py", "/src/i.py", "/src/j.py", "/src/k.py",
            "/src/l.py", "rel/f.py"};
        for (int i = 0; i < 12; i++)
            T_EQ_STR(s[i].path, paths[i]);
        T_EQ_STR(s[0].leaf, "source_0_a.py");
        T_EQ_U64(s[0].safe, 1);
        T_EQ_U64(s[0].loaded, 1);
        T_CHECK(s[0].problem == NULL);
        T_EQ_U64(s[0].len, 9);            /* l 1 \n l 2 \n \n l 4 */
        T_EQ_STR(s[0].text, "l1\nl2\n\nl4");
        T_EQ_U64(s[0].nlines, 4);
        if (s[0].nlines == 4) {
            T_CHECK(s[0].lines[0] == s[0].text);
            T_CHECK(s[0].lines[1] == s[0].text + 3);
            T_CHECK(s[0].lines[2] == s[0].text + 6);     /* the empty line 3 */
            T_EQ_STR(s[0].lines[3], "l4");
        }
        T_EQ_STR(s[1].leaf, "../x");
        T_EQ_U64(s[1].safe, 0);
        T_EQ_U64(s[1].loaded, 0);
        T_EQ_STR(s[1].problem, "unsafe: not a plain file name");
        T_EQ_U64(s[2].safe, 0);                           /* absolute leaf */
        T_EQ_STR(s[2].problem, "unsafe: not a plain file name");
        T_EQ_U64(s[3].safe, 1);
        T_EQ_U64(s[3].loaded, 0);
        T_EQ_STR(s[3].problem, "missing");
        T_EQ_U64(s[4].safe, 0);                           /* ../outside.txt via symlink */
        T_EQ_U64(s[4].loaded, 0);
        T_EQ_STR(s[4].problem, "unsafe: resolves outside the capture folder");
        T_EQ_U64(s[5].safe, 1);                           /* symlink inside the folder */
        T_EQ_U64(s[5].loaded, 1);
        T_EQ_STR(s[5].text, "l1\nl2\n\nl4");
        T_EQ_U64(s[6].safe, 0);                           /* absolute symlink outside */
        T_EQ_STR(s[6].problem, "unsafe: resolves outside the capture folder");
        T_EQ_STR(s[7].problem, "unsafe: not a plain file name");   /* "." */
        T_EQ_STR(s[8].problem, "unsafe: not a plain file name");   /* "a\\b" */
        T_EQ_STR(s[9].problem, "unsafe: not a plain file name");   /* "" */
        T_EQ_U64(s[10].safe, 1);
        T_EQ_U64(s[10].loaded, 0);
        T_EQ_STR(s[10].problem, "not a regular file");
        T_EQ_U64(s[11].loaded, 1);
        T_EQ_U64(s[11].nlines, 1);
        /* a.py (read once for its leaf and its in-folder link), f.py */
        T_EQ_U64(c->total_bytes, 9 + 2);
        T_CHECK(s[5].text == s[0].text);

        /* Frames: a.py -> 0, b.py unsafe -> -1, rel/f.py -> 11, g.py -> 5,
         * zz.py unknown -> -1, unparsed "/src/a.py" -> -1. */
        T_EQ_U64(c->rows[1].nframes, 6);
        static const int32_t want[6] = {0, -1, 11, 5, -1, -1};
        for (uint32_t f = 0; f < c->rows[1].nframes && f < 6; f++)
            T_EQ_I64(c->rows[1].frames[f].snapshot, want[f]);
        cap_free(c);
    }

    unlink(out_file);
    const char *names[] = {"source_0_a.py", "source_1_f.py", "source_2_link.py", "source_3_in.py",
                           "source_4_abs.py"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char p[4096];
        unlink(kr_path_join(p, sizeof p, cap, names[i]));
    }
    rmdir(sub);
    rmdir(cap);
    unlink(capl);
    T_EQ_I64(rmdir(root), 0);
}

static void expect_err(const char *json, const char *where, const char *msg)
{
    kr_capture *c = cap_new();
    kr_err err;
    kr_err_clear(&err);
    T_EQ_I64(bundle_parse_snapshots(c, "/nonexistent", json, strlen(json), "snapshots.json", &err), KR_INPUT);
    T_EQ_STR(err.file, "snapshots.json");
    T_EQ_STR(err.where, where);
    T_EQ_STR(err.msg, msg);
    cap_free(c);
}

static void test_errors(void)
{
    expect_err("{\"/\":{\"src\":{\"x.py\":3}}}", "$[\"/\"].src[\"x.py\"]",
               "expected an object or a copy file name string, found an integer");
    expect_err("[]", "$", "expected an object, found an array");
    /* column 11: the closing quote of the second "/" */
    expect_err("{\"/\":{},\"/\":{}}", "$[\"/\"]", "duplicate key \"/\" (line 1, column 11)");
    expect_err("{\"/\":{\"a\":null}}", "$[\"/\"].a", "expected an object or a copy file name string, found null");
    /* 70 nested objects: the 65th is one level too deep (the root is level 1). */
    char deep[1024] = "", where[512] = "$";
    for (int i = 0; i < 70; i++)
        strcat(deep, "{\"a\":");
    strcat(deep, "\"x\"");
    for (int i = 0; i < 70; i++)
        strcat(deep, "}");
    for (int i = 0; i < 64; i++)
        strcat(where, ".a");
    /* The JSON reader stops at the 65th '{', byte 64 * 5 = 320 (column 321). */
    expect_err(deep, where, "nesting deeper than KR_MAX_JSON_DEPTH (64) (line 1, column 321)");

    /* An empty tree is fine; nothing is opened. */
    kr_capture *c = cap_new();
    kr_err err;
    T_EQ_I64(bundle_parse_snapshots(c, "/nonexistent", "{}", 2, "snapshots.json", &err), 0);
    T_EQ_U64(c->nsnapshots, 0);
    T_EQ_U64(c->has_snapshots_json, 1);
    cap_free(c);
}

/* docs/formats.md#source-snapshots: on the flash captures every Source frame resolves to a loaded copy
 * and every line is within the copy's line count. */
static void test_hub(void)
{
    const char *hub = t_hub();
    if (!hub) {
        printf("test_load_snapshots: hub fixtures absent, skipping the hub part\n");
        return;
    }
    static const char *const caps[] = {
        "flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44",
        "flash_attn_func/att_viewer/small/ui_output_agent_58550_dispatch_44_after_loc_fix",
    };
    for (size_t i = 0; i < 2; i++) {
        char dir[4096], path[4096];
        snprintf(dir, sizeof dir, "%s/examples/%s", hub, caps[i]);
        kr_capture *c = cap_new();
        kr_err err;
        char *data;
        size_t len;
        T_EQ_I64(kr_file_read(kr_path_join(path, sizeof path, dir, "code.json"), 1 << 30, &data, &len, &err), 0);
        T_EQ_I64(bundle_parse_code(c, data, len, path, &err), 0);
        free(data);
        T_EQ_I64(kr_file_read(kr_path_join(path, sizeof path, dir, "snapshots.json"), 1 << 20, &data, &len, &err), 0);
        T_EQ_I64(bundle_parse_snapshots(c, dir, data, len, path, &err), 0);
        free(data);
        T_EQ_U64(c->nsnapshots, 2);
        if (c->nsnapshots == 2) {
            T_EQ_STR(c->snapshots[0].path,
                     "/sgl-workspace/jin/flash_attn_func_probe/build-fly/python_packages/flydsl/expr/numeric.py");
            T_EQ_STR(c->snapshots[0].leaf, "source_1_numeric.py");
            T_EQ_STR(c->snapshots[1].path, "/sgl-workspace/jin/flash_attn_func_probe/kernels/flash_attn_func.py");
            T_EQ_STR(c->snapshots[1].leaf, "source_0_flash_attn_func.py");
            T_EQ_U64(c->snapshots[0].loaded, 1);
            T_EQ_U64(c->snapshots[1].loaded, 1);
        }
        size_t frames = 0, resolved = 0, in_range = 0;
        for (size_t r = 0; r < c->nrows; r++)
            for (uint32_t f = 0; f < c->rows[r].nframes; f++) {
                const kr_frame *fr = &c->rows[r].frames[f];
                frames++;
                if (fr->snapshot >= 0 && c->snapshots[fr->snapshot].loaded) {
                    resolved++;
                    in_range += fr->line >= 1 && fr->line <= c->snapshots[fr->snapshot].nlines;
                }
            }
        T_EQ_U64(frames, 2069);          /* one frame per mapped row (docs/formats.md#source-chains, docs/formats.md#mapped-rows) */
        T_EQ_U64(resolved, frames);
        T_EQ_U64(in_range, frames);
        cap_free(c);
    }
}

int main(void)
{
    test_scratch();
    test_errors();
    test_hub();
    return t_done("test_load_snapshots");
}
