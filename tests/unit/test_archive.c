/* test_archive.c — bundle/archive.h and bundle/source.h: archives written
 * here with libarchive's writer (every format and filter kreport reads),
 * each protection of archive.h with its exact message, the limits with
 * small values, the source interface over an archive, and a synthetic
 * capture loaded from a .tar.zst in memory equal to the same capture loaded
 * from its folder. */
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/archive.h"
#include "bundle/capture.h"
#include "bundle/load_snapshots.h"
#include "bundle/source.h"
#include "synth/synth.h"
#include "common/file.h"
#include "tests/unit/t.h"

/* One entry to write: 'f' file, 'd' directory, 'l' symlink, 'h' hard link,
 * 'c' character device, 'p' named pipe. size > 0 writes that many zero
 * bytes instead of data. */
typedef struct ent {
    char type;
    const char *path;
    const char *data;        /* file bytes, or the link target */
    size_t size;
} ent;

typedef struct mem {
    unsigned char *buf;
    size_t len;
} mem;

/* Writes the entries as format ("tar" or "zip") through filter ("none",
 * "gzip", "xz", "zstd") into memory. */
static mem make_archive(const char *format, const char *filter, const ent *e, size_t n)
{
    size_t cap = 64u << 20, used = 0;
    mem m = {malloc(cap), 0};
    struct archive *a = archive_write_new();
    if (!strcmp(format, "zip"))
        archive_write_set_format_zip(a);
    else
        archive_write_set_format_pax_restricted(a);
    if (!strcmp(filter, "gzip"))
        archive_write_add_filter_gzip(a);
    else if (!strcmp(filter, "xz"))
        archive_write_add_filter_xz(a);
    else if (!strcmp(filter, "zstd"))
        archive_write_add_filter_zstd(a);
    T_CHECK(archive_write_open_memory(a, m.buf, cap, &used) == ARCHIVE_OK);
    static unsigned char zeros[1 << 16];
    for (size_t i = 0; i < n; i++) {
        struct archive_entry *x = archive_entry_new();
        archive_entry_set_pathname(x, e[i].path);
        archive_entry_set_perm(x, e[i].type == 'd' ? 0755 : 0644);
        size_t size = e[i].type == 'f' ? (e[i].size ? e[i].size : strlen(e[i].data)) : 0;
        switch (e[i].type) {
        case 'f': archive_entry_set_filetype(x, AE_IFREG); archive_entry_set_size(x, (la_int64_t)size); break;
        case 'd': archive_entry_set_filetype(x, AE_IFDIR); break;
        case 'l': archive_entry_set_filetype(x, AE_IFLNK); archive_entry_set_symlink(x, e[i].data); break;
        case 'h': archive_entry_set_filetype(x, AE_IFREG); archive_entry_set_hardlink(x, e[i].data); break;
        case 'c': archive_entry_set_filetype(x, AE_IFCHR); archive_entry_set_rdev(x, 0x0103); break;
        case 'p': archive_entry_set_filetype(x, AE_IFIFO); break;
        }
        T_CHECK(archive_write_header(a, x) == ARCHIVE_OK);
        if (e[i].type == 'f' && e[i].size) {
            for (size_t done = 0; done < size;) {
                size_t k = size - done < sizeof zeros ? size - done : sizeof zeros;
                archive_write_data(a, zeros, k);
                done += k;
            }
        } else if (e[i].type == 'f') {
            archive_write_data(a, e[i].data, size);
        }
        archive_entry_free(x);
    }
    T_CHECK(archive_write_close(a) == ARCHIVE_OK);
    archive_write_free(a);
    m.len = used;
    return m;
}

/* Loads m and returns the formatted error ("" when it loaded). */
static const char *load_msg(const mem *m, const bundle_archive_limits *lim, bundle_archive **out)
{
    static char msg[2048];
    kr_err err;
    kr_err_clear(&err);
    bundle_archive *a = NULL;
    int rc = bundle_archive_load_mem_limits(m->buf, m->len, "x.tar", lim, &a, &err);
    msg[0] = '\0';
    if (rc) {
        kr_err_format(&err, msg, sizeof msg);
        T_EQ_I64(rc, KR_INPUT);
        T_CHECK(a == NULL);
    }
    if (out)
        *out = a;
    else
        bundle_archive_free(a);
    return msg;
}

/* Every format and filter: members normalised, sorted, contents intact. */
static void test_formats(void)
{
    static const ent e[] = {
        {'d', "./cap/", NULL, 0},
        {'f', "./cap/b.json", "{\"b\":2}", 0},
        {'f', "cap//a.json", "[1,2,3]", 0},
        {'f', "cap/sub/c.txt", "c", 0},
        {'h', "cap/sub/d.txt", "cap/sub/c.txt", 0},
    };
    static const char *const combos[][2] = {
        {"tar", "none"}, {"tar", "gzip"}, {"tar", "xz"}, {"tar", "zstd"}, {"zip", "none"},
    };
    for (size_t k = 0; k < sizeof combos / sizeof combos[0]; k++) {
        /* zip stores no hard links: leave the last entry out. */
        size_t n = strcmp(combos[k][0], "zip") ? 5 : 4;
        mem m = make_archive(combos[k][0], combos[k][1], e, n);
        bundle_archive *a;
        T_EQ_STR(load_msg(&m, NULL, &a), "");
        if (!a) {
            free(m.buf);
            continue;
        }
        T_EQ_U64(a->nmembers, n);
        /* Sorted bytewise: "cap" < "cap/a.json" < "cap/b.json" < "cap/sub/c.txt" < "cap/sub/d.txt". */
        T_EQ_STR(a->members[0].path, "cap");
        T_CHECK(a->members[0].is_dir && a->members[0].data == NULL);
        T_EQ_STR(a->members[1].path, "cap/a.json");
        T_EQ_U64(a->members[1].len, 7);
        T_CHECK(memcmp(a->members[1].data, "[1,2,3]", 8) == 0);     /* NUL-terminated */
        T_EQ_U64(a->members[1].mode, 0644);
        const bundle_archive_member *c = bundle_archive_find(a, "cap/sub/c.txt");
        T_CHECK(c && c->len == 1 && c->data[0] == 'c');
        T_CHECK(bundle_archive_find(a, "cap/sub") == NULL);           /* implied, no member */
        if (n == 5) {
            const bundle_archive_member *d = bundle_archive_find(a, "cap/sub/d.txt");
            T_CHECK(d && d->len == 1 && d->data[0] == 'c' && d->data != c->data);
        }
        bundle_archive_free(a);
        free(m.buf);
    }
}

/* One hostile archive per protection, each with its message. */
static void test_hostile(void)
{
    static const struct {
        ent e[2];
        size_t n;
        const char *want;
    } cases[] = {
        {{{'f', "/etc/passwd", "x", 0}}, 1, "x.tar: member /etc/passwd: absolute path refused"},
        {{{'f', "a/../../b", "x", 0}}, 1, "x.tar: member a/../../b: path leaves the archive root (\"..\")"},
        {{{'f', "a/..", "x", 0}}, 1, "x.tar: member a/..: path leaves the archive root (\"..\")"},
        {{{'l', "cap/link", "../../etc/passwd", 0}}, 1,
         "x.tar: member cap/link: symbolic link refused (archives may not hold links; store the file itself)"},
        {{{'l', "cap/inside", "code.json", 0}}, 1,
         "x.tar: member cap/inside: symbolic link refused (archives may not hold links; store the file itself)"},
        {{{'h', "cap/h", "../outside", 0}}, 1, "x.tar: member cap/h: hard link to ../outside, outside the archive root"},
        {{{'h', "cap/h", "/etc/shadow", 0}}, 1, "x.tar: member cap/h: hard link to /etc/shadow, outside the archive root"},
        {{{'h', "cap/h", "cap/none", 0}}, 1,
         "x.tar: member cap/h: hard link to cap/none, which is not a regular file stored in the archive"},
        {{{'c', "cap/tty", NULL, 0}}, 1, "x.tar: member cap/tty: device file, named pipe or socket refused"},
        {{{'p', "cap/fifo", NULL, 0}}, 1, "x.tar: member cap/fifo: device file, named pipe or socket refused"},
        {{{'f', "cap/a", "1", 0}, {'f', "./cap//a", "2", 0}}, 2, "x.tar: member cap/a: duplicate path"},
        {{{'f', "cap", "1", 0}, {'f', "cap/a", "2", 0}}, 2, "x.tar: member cap: both a file and a directory"},
        {{{'f', ".", "1", 0}}, 1, "x.tar: member .: names the archive root but is not a directory"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mem m = make_archive("tar", "none", cases[i].e, cases[i].n);
        T_EQ_STR(load_msg(&m, NULL, NULL), cases[i].want);
        free(m.buf);
    }
    /* Not an archive at all, and a truncated one. */
    mem junk = {(unsigned char *)strdup("just some text, no archive"), 26};
    T_CHECK(strncmp(load_msg(&junk, NULL, NULL), "x.tar: not a readable archive: ", 31) == 0);
    free(junk.buf);
    static const ent one[] = {{'f', "a.json", NULL, 100000}};
    mem t = make_archive("tar", "gzip", one, 1);
    t.len /= 2;
    T_CHECK(strlen(load_msg(&t, NULL, NULL)) > 0);
    free(t.buf);
}

/* The limits, set small; the defaults are those of common/limits.h. */
static void test_limits(void)
{
    bundle_archive_limits d;
    bundle_archive_limits_default(&d);
    T_EQ_U64(d.max_members, (1u << 20) + 4096u);
    T_EQ_U64(d.max_bytes, 16ull << 30);
    T_EQ_U64(d.max_ratio, 200);
    T_EQ_U64(d.ratio_floor, 64ull << 20);
    T_EQ_U64(d.max_path, 1024);

    static const ent four[] = {
        {'f', "a", "12345678901234567890123456789012345678901234567890123456789", 0},  /* 59 bytes */
        {'f', "b", "12345678901234567890123456789012345678901234567890123456789", 0},
        {'f', "c", "x", 0},
        {'f', "d", "y", 0},
    };
    mem m = make_archive("tar", "none", four, 4);
    bundle_archive_limits lim = d;
    lim.max_members = 3;
    T_EQ_STR(load_msg(&m, &lim, NULL), "x.tar: more members than KR_MAX_ARCHIVE_MEMBERS (3)");
    lim = d;
    lim.max_members = 4;
    T_EQ_STR(load_msg(&m, &lim, NULL), "");
    /* 59 + 59 = 118 > 100: refused at the second member, before reading it. */
    lim = d;
    lim.max_bytes = 100;
    T_EQ_STR(load_msg(&m, &lim, NULL), "x.tar: member b: decompressed archive exceeds KR_MAX_ARCHIVE_BYTES (100 bytes)");
    lim.max_bytes = 120;                 /* 59 + 59 + 1 + 1 = 120 */
    T_EQ_STR(load_msg(&m, &lim, NULL), "");
    lim = d;
    lim.max_member_bytes = 58;
    T_EQ_STR(load_msg(&m, &lim, NULL), "x.tar: member a: exceeds KR_MAX_FILE_BYTES (58 bytes)");
    free(m.buf);

    /* A bomb: 4 MiB of zeros gzip to a few KiB, a ratio far above 200. */
    static const ent bomb[] = {{'f', "zeros.json", NULL, 4u << 20}};
    mem b = make_archive("tar", "gzip", bomb, 1);
    T_CHECK(b.len < (4u << 20) / 200);
    lim = d;
    lim.ratio_floor = 1u << 20;
    char want[256];
    snprintf(want, sizeof want, "x.tar: member zeros.json: decompressed bytes exceed KR_MAX_ARCHIVE_RATIO "
             "(200 times the archive's %zu bytes): a decompression bomb?", b.len);
    T_EQ_STR(load_msg(&b, &lim, NULL), want);
    lim.ratio_floor = 8u << 20;          /* below the floor the ratio is not checked */
    T_EQ_STR(load_msg(&b, &lim, NULL), "");
    free(b.buf);

    /* Path length: 11 bytes against a limit of 10. */
    static const ent longp[] = {{'f', "abcde/fghij", "x", 0}};
    mem p = make_archive("tar", "none", longp, 1);
    lim = d;
    lim.max_path = 10;
    T_EQ_STR(load_msg(&p, &lim, NULL), "x.tar: member abcde/fghij...: path longer than KR_MAX_ARCHIVE_PATH (10 bytes)");
    lim.max_path = 11;
    T_EQ_STR(load_msg(&p, &lim, NULL), "");
    free(p.buf);
}

/* The source interface over an archive named "d/x.tar". */
static void test_source(void)
{
    static const ent e[] = {
        {'f', "top/a.json", "{}", 0},
        {'f', "top/a-b/z", "z", 0},
        {'f', "top/a/y", "yy", 0},
        {'d', "top/e", NULL, 0},
        {'f', "top/.hidden", "h", 0},
    };
    mem m = make_archive("tar", "none", e, 5);
    kr_err err;
    kr_err_clear(&err);
    bundle_archive *a;
    T_EQ_I64(bundle_archive_load_mem(m.buf, m.len, "d/x.tar", &a, &err), 0);
    bundle_source *s;
    T_EQ_I64(bundle_source_from_archive(a, &s, &err), 0);
    T_CHECK(bundle_source_archive(s) == a);
    T_EQ_I64(bundle_source_kind_of(s, "d/x.tar"), BUNDLE_SRC_DIR);
    T_EQ_I64(bundle_source_kind_of(s, "./d//x.tar/"), BUNDLE_SRC_DIR);
    T_EQ_I64(bundle_source_kind_of(s, "d/x.tar/top"), BUNDLE_SRC_DIR);     /* implied */
    T_EQ_I64(bundle_source_kind_of(s, "d/x.tar/top/a"), BUNDLE_SRC_DIR);   /* after "a-b" in sort order */
    T_EQ_I64(bundle_source_kind_of(s, "d/x.tar/top/e"), BUNDLE_SRC_DIR);   /* explicit, empty */
    T_EQ_I64(bundle_source_kind_of(s, "d/x.tar/top/a.json"), BUNDLE_SRC_FILE);
    T_EQ_I64(bundle_source_kind_of(s, "d/x.tar/top/e/../a.json"), BUNDLE_SRC_FILE);
    T_EQ_I64(bundle_source_kind_of(s, "d/x.tar/top/missing"), BUNDLE_SRC_NONE);
    /* Outside the archive nothing exists, whatever is on disk. */
    T_EQ_I64(bundle_source_kind_of(s, "d/x.tar/.."), BUNDLE_SRC_NONE);
    T_EQ_I64(bundle_source_kind_of(s, "d/x.tar/../x.tar/top/a.json"), BUNDLE_SRC_FILE);
    T_EQ_I64(bundle_source_kind_of(s, "/"), BUNDLE_SRC_NONE);
    T_EQ_I64(bundle_source_kind_of(s, "d/x.tarx/top/a.json"), BUNDLE_SRC_NONE);

    bundle_source_entry *v;
    size_t n;
    T_EQ_I64(bundle_source_list(s, "d/x.tar", &v, &n), 0);
    T_EQ_U64(n, 1);
    T_EQ_STR(v[0].name, "top");
    bundle_source_list_free(v, n);
    T_EQ_I64(bundle_source_list(s, "d/x.tar/top", &v, &n), 0);
    /* Bytewise: ".hidden" < "a" < "a-b" < "a.json" < "e". */
    T_EQ_U64(n, 5);
    if (n == 5) {
        T_EQ_STR(v[0].name, ".hidden");
        T_EQ_STR(v[1].name, "a");
        T_EQ_I64(v[1].kind, BUNDLE_SRC_DIR);
        T_EQ_STR(v[2].name, "a-b");
        T_EQ_I64(v[2].kind, BUNDLE_SRC_DIR);
        T_EQ_STR(v[3].name, "a.json");
        T_EQ_I64(v[3].kind, BUNDLE_SRC_FILE);
        T_EQ_STR(v[4].name, "e");
    }
    bundle_source_list_free(v, n);
    T_EQ_I64(bundle_source_list(s, "d/x.tar/top/a.json", &v, &n), -1);

    bundle_blob b;
    T_EQ_I64(bundle_source_read(s, "d/x.tar/top/a/y", 100, &b, &err), 0);
    T_EQ_U64(b.len, 2);
    T_EQ_STR(b.data, "yy");
    T_CHECK(b.owned == NULL);            /* borrowed from the archive, not copied */
    bundle_blob_free(&b);
    T_EQ_I64(bundle_source_read(s, "d/x.tar/top/a/y", 1, &b, &err), KR_INPUT);
    T_EQ_STR(err.file, "d/x.tar/top/a/y");
    T_EQ_I64(bundle_source_read(s, "d/x.tar/top/nope", 100, &b, &err), KR_INPUT);
    T_EQ_STR(err.msg, "cannot open: no such member in the archive");
    char pre[4];
    T_EQ_I64(bundle_source_read_prefix(s, "d/x.tar/top/a.json", pre, sizeof pre), 2);
    T_EQ_I64(bundle_source_read_prefix(s, "d/x.tar/top", pre, sizeof pre), -1);

    bundle_source_info st, st2;
    T_EQ_I64(bundle_source_stat(s, "d/x.tar/top/a/y", 1, &st), 0);
    T_EQ_U64(st.size, 2);
    T_EQ_I64(bundle_source_stat(s, "d/x.tar/top/a", 1, &st), 0);
    T_EQ_I64(bundle_source_stat(s, "d/x.tar/top/a-b", 1, &st2), 0);
    T_CHECK(st.ino != st2.ino);          /* distinct directories, distinct identities */

    char *r = bundle_source_realpath(s, "d/x.tar/top/e/../a.json");
    T_EQ_STR(r, "d/x.tar/top/a.json");
    free(r);
    T_CHECK(bundle_source_realpath(s, "d/x.tar/top/none") == NULL);
    char *f = bundle_source_folder_name(s, "d/x.tar/");
    T_EQ_STR(f, "x");                    /* the root goes by the archive name */
    free(f);
    f = bundle_source_folder_name(s, "d/x.tar/top");
    T_EQ_STR(f, "top");
    free(f);
    f = bundle_source_folder_name(NULL, "a/ui_output_agent_1_dispatch_2.tar/");
    T_EQ_STR(f, "ui_output_agent_1_dispatch_2.tar");     /* on disk: just the last component */
    free(f);
    bundle_source_free(s);
    free(m.buf);

    /* On disk: the suffix names the format and the first bytes confirm it. */
    static const ent small[] = {{'f', "a", "1", 0}};
    static const struct {
        const char *fmt, *filter, *suffix;
    } disk[] = {{"tar", "none", ".tar"}, {"tar", "gzip", ".tgz"}, {"tar", "xz", ".tar.xz"},
                {"tar", "zstd", ".tar.zst"}, {"zip", "none", ".zip"}};
    char dir[] = "/tmp/kr_test_archive_XXXXXX";
    T_CHECK(mkdtemp(dir) != NULL);
    for (size_t i = 0; i < sizeof disk / sizeof disk[0]; i++) {
        mem w = make_archive(disk[i].fmt, disk[i].filter, small, 1);
        char good[4200], wrong[4200];
        snprintf(good, sizeof good, "%s/x%s", dir, disk[i].suffix);
        snprintf(wrong, sizeof wrong, "%s/x%s", dir, i == 0 ? ".tar.gz" : ".tar");
        FILE *f = fopen(good, "wb");
        T_CHECK(f && fwrite(w.buf, 1, w.len, f) == w.len && fclose(f) == 0);
        T_EQ_I64(bundle_archive_is_archive(good), 1);
        T_CHECK(rename(good, wrong) == 0);
        T_EQ_I64(bundle_archive_is_archive(wrong), 0);      /* magic of another format */
        T_CHECK(rename(wrong, good) == 0);
        bundle_archive *x;
        T_EQ_I64(bundle_archive_load(good, &x, &err), 0);
        if (x) {
            T_EQ_STR(x->name, good);
            T_EQ_U64(x->nmembers, 1);
        }
        bundle_archive_free(x);
        unlink(good);
        free(w.buf);
    }
    T_EQ_I64(bundle_archive_is_archive(dir), 0);            /* a directory */
    rmdir(dir);

    T_CHECK(bundle_archive_has_suffix("a.tar.zst", NULL));
    size_t sl = 0;
    T_CHECK(bundle_archive_has_suffix("a.tgz", &sl) && sl == 4);
    T_CHECK(!bundle_archive_has_suffix("a.zst", NULL));
    T_CHECK(!bundle_archive_has_suffix(".tar", NULL));
}

/* Appends every file of dir (recursively, names relative to base) to e. */
static size_t collect(const char *dir, const char *rel, ent *e, size_t n, size_t cap, char **bufs)
{
    DIR *d = opendir(dir);
    struct dirent *x;
    while (d && (x = readdir(d)) != NULL && n < cap) {
        if (x->d_name[0] == '.')
            continue;
        char p[4096], r[4096];
        snprintf(p, sizeof p, "%s/%s", dir, x->d_name);
        snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", x->d_name);
        if (kr_is_dir(p)) {
            n = collect(p, r, e, n, cap, bufs);
            continue;
        }
        size_t len;
        kr_err err;
        if (kr_file_read(p, 1u << 30, &bufs[n], &len, &err))
            continue;
        e[n] = (ent){'f', strdup(r), bufs[n], 0};
        n++;
    }
    if (d)
        closedir(d);
    return n;
}

static uint64_t records(const kr_capture *c)
{
    uint64_t r = 0;
    for (size_t i = 0; i < c->nwaves; i++)
        r += c->waves[i].ninsts;
    return r;
}

/* A synthetic capture as a .tar.zst held in memory, the capture folder at
 * the archive's root: loads like the folder, takes its name from the
 * archive, and its snapshot leaves stay inside (docs/formats.md#snapshot-safety). */
static void test_capture(void)
{
    char tmp[] = "/tmp/kr_test_archive_XXXXXX";
    if (!mkdtemp(tmp)) {
        T_CHECK(0);
        return;
    }
    synth_opts o;
    synth_opts_default(&o);
    kr_err err;
    kr_err_clear(&err);
    T_EQ_I64(synth_write(&o, tmp, &err), 0);
    synth_plan plan;
    T_EQ_I64(synth_plan_make(&o, &plan, &err), 0);
    char folder[4096];
    snprintf(folder, sizeof folder, "%s/%s", tmp, plan.cap[0].folder);

    ent e[64];
    char *bufs[64] = {0};
    size_t n = collect(folder, "", e, 0, 60, bufs);
    T_CHECK(n > 10);
    /* A snapshot leaf naming a file beside the folder, which the archive holds. */
    static const char snap[] = "{\"/\":{\"synth\":{\"kernels\":{\"synth_kernel.py\":\"source_0_synth_kernel.py\"},"
                               "\"lib\":{\"synth_ops.py\":\"../outside.py\"}}}}";
    for (size_t i = 0; i < n; i++)
        if (!strcmp(e[i].path, "snapshots.json"))
            e[i].data = snap;
    e[n++] = (ent){'f', "../outside.py", "print('outside')\n", 0};
    mem m = make_archive("tar", "zstd", e, n);
    bundle_archive *a;
    char name[4096];
    snprintf(name, sizeof name, "%s/%s.tar.zst", tmp, plan.cap[0].folder);
    /* The member "../outside.py" is refused first: hostile. */
    T_EQ_I64(bundle_archive_load_mem(m.buf, m.len, name, &a, &err), KR_INPUT);
    T_EQ_STR(err.msg, "member ../outside.py: path leaves the archive root (\"..\")");
    free(m.buf);
    e[n - 1].path = "outside.py";        /* now inside the archive, beside the snapshots */
    m = make_archive("tar", "zstd", e, n);
    T_EQ_I64(bundle_archive_load_mem(m.buf, m.len, name, &a, &err), 0);
    bundle_source *s;
    T_EQ_I64(bundle_source_from_archive(a, &s, &err), 0);

    bundle_opts bo = {.threads = 2, .no_discover = 1, .src = s};
    kr_capture *ca = NULL, *cf = NULL;
    T_EQ_I64(bundle_capture_load(name, &bo, &ca, &err), 0);
    bundle_opts fo = {.threads = 2, .no_discover = 1};
    T_EQ_I64(bundle_capture_load(folder, &fo, &cf, &err), 0);
    if (ca && cf) {
        T_EQ_STR(ca->folder, plan.cap[0].folder);
        T_EQ_U64(ca->agent_handle, plan.cap[0].agent);
        T_EQ_U64(ca->dispatch_id, plan.cap[0].dispatch);
        T_EQ_U64(ca->nwaves, plan.cap[0].waves);
        T_EQ_U64(records(ca), plan.cap[0].records);
        T_EQ_U64(records(ca), records(cf));
        T_EQ_U64(ca->nrows, cf->nrows);
        /* Extra: the added outside.py and source_1_synth_ops.py, which the
         * rewritten snapshots.json no longer names. */
        T_EQ_U64(cf->nextra_files, 0);
        T_EQ_U64(ca->nextra_files, 2);
        if (ca->nextra_files == 2) {
            T_EQ_STR(ca->extra_files[0], "outside.py");
            T_EQ_STR(ca->extra_files[1], "source_1_synth_ops.py");
        }
        T_EQ_U64(ca->nsnapshots, 2);
        for (size_t i = 0; i < ca->nsnapshots; i++) {
            const kr_snapshot *sn = &ca->snapshots[i];
            if (!strcmp(sn->leaf, "../outside.py")) {
                T_EQ_U64(sn->safe, 0);
                T_EQ_U64(sn->loaded, 0);
                T_EQ_STR(sn->problem, BUNDLE_SNAP_NOT_PLAIN);
            } else {
                T_EQ_STR(sn->leaf, "source_0_synth_kernel.py");
                T_EQ_U64(sn->loaded, 1);
                const bundle_archive_member *mm = bundle_archive_find(a, "source_0_synth_kernel.py");
                T_CHECK(mm && sn->len == mm->len && memcmp(sn->text, mm->data, mm->len) == 0);
            }
        }
    }
    bundle_capture_free(ca);
    bundle_capture_free(cf);
    bundle_source_free(s);
    free(m.buf);
    for (size_t i = 0; i + 1 < n; i++) {
        free((char *)e[i].path);
        free(bufs[i]);
    }
    char cmd[8300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    T_CHECK(system(cmd) == 0);
}

int main(void)
{
    test_formats();
    test_hostile();
    test_limits();
    test_source();
    test_capture();
    return t_done("test_archive");
}
