/* fuzz_bundle.c — libFuzzer target: a whole capture folder. The input is
 * split into files, written to a temporary run directory, loaded with
 * bundle_capture_load and, when accepted, analyzed (an_analyze, an_validate)
 * and rendered by every report writer.
 *
 * Input format: lines "=== NAME" start a file; its content runs to the next
 * such line. NAME is a plain file name ([A-Za-z0-9._-], at most 64 bytes)
 * inside the capture folder; "=== ^NAME" puts the file beside the folder
 * (the run directory, where results.json and CSVs are discovered);
 * "=== NAME/" makes a directory; "=== NAME -> TARGET" makes a symlink to one
 * of a fixed set of targets (inside, outside, absolute, dangling). Other
 * headers are ignored. */
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/analysis.h"
#include "analyzer/validate.h"
#include "bundle/capture.h"
#include "common/buf.h"
#include "report/report.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[64], run[128], folder[192];

static void empty_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char p[512];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && strcmp(p, folder) != 0)
            rmdir(p);
        else if (strcmp(p, folder) != 0)
            unlink(p);
    }
    closedir(d);
}

static void cleanup(void)
{
    empty_dir(folder);
    rmdir(folder);
    empty_dir(run);
    rmdir(run);
    char p[256];
    snprintf(p, sizeof p, "%s/outside.py", root);
    unlink(p);
    rmdir(root);
}

static void setup(void)
{
    snprintf(root, sizeof root, "/tmp/kr_fuzz_bundle.XXXXXX");
    if (!mkdtemp(root))
        abort();
    snprintf(run, sizeof run, "%s/run", root);
    snprintf(folder, sizeof folder, "%s/ui_output_agent_32235_dispatch_44", run);
    if (mkdir(run, 0700) != 0 || mkdir(folder, 0700) != 0)
        abort();
    char p[256];
    snprintf(p, sizeof p, "%s/outside.py", root);
    FILE *f = fopen(p, "w");
    if (!f)
        abort();
    fputs("outside\n", f);
    fclose(f);
    atexit(cleanup);
}

static int plain(const char *s, size_t n)
{
    if (n == 0 || n > 64 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
        return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '.' || ch == '_' || ch == '-'))
            return 0;
    }
    return 1;
}

static const char *const link_targets[] = {"../../outside.py", "/etc/hostname", "code.json",
                                           "missing.json", ".", ".."};

/* One "=== ..." header and its content. */
static void make_entry(const char *hdr, size_t hn, const char *body, size_t bn)
{
    const char *dir = folder;
    if (hn && hdr[0] == '^') {
        dir = run;
        hdr++, hn--;
    }
    char p[512];
    const char *arrow = NULL;
    for (size_t i = 0; i + 4 <= hn; i++)
        if (memcmp(hdr + i, " -> ", 4) == 0) {
            arrow = hdr + i;
            break;
        }
    if (arrow) {
        size_t nn = (size_t)(arrow - hdr), tn = hn - nn - 4;
        if (!plain(hdr, nn))
            return;
        for (size_t t = 0; t < sizeof link_targets / sizeof *link_targets; t++)
            if (strlen(link_targets[t]) == tn && memcmp(link_targets[t], arrow + 4, tn) == 0) {
                snprintf(p, sizeof p, "%s/%.*s", dir, (int)nn, hdr);
                if (symlink(link_targets[t], p) != 0) {
                    /* an existing name: keep the first */
                }
            }
        return;
    }
    if (hn && hdr[hn - 1] == '/') {
        if (plain(hdr, hn - 1)) {
            snprintf(p, sizeof p, "%s/%.*s", dir, (int)(hn - 1), hdr);
            (void)mkdir(p, 0700);
        }
        return;
    }
    if (!plain(hdr, hn))
        return;
    snprintf(p, sizeof p, "%s/%.*s", dir, (int)hn, hdr);
    struct stat st;
    if (lstat(p, &st) == 0)          /* keep the first entry of a name */
        return;
    FILE *f = fopen(p, "wb");
    if (!f)
        return;
    if (bn)
        fwrite(body, 1, bn, f);
    fclose(f);
}

static void write_folder(const char *d, size_t n)
{
    const char *end = d + n, *p = d;
    /* Find the first header. */
    while (p < end && !(end - p >= 4 && memcmp(p, "=== ", 4) == 0 && (p == d || p[-1] == '\n'))) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
    }
    while (p < end) {
        const char *h = p + 4;
        const char *nl = memchr(h, '\n', (size_t)(end - h));
        const char *hend = nl ? nl : end;
        const char *body = nl ? nl + 1 : end;
        const char *q = body;
        while (q < end && !(end - q >= 4 && memcmp(q, "=== ", 4) == 0 && q[-1] == '\n')) {
            const char *n2 = memchr(q, '\n', (size_t)(end - q));
            q = n2 ? n2 + 1 : end;
        }
        size_t bn = (size_t)(q - body);
        if (bn && q < end)
            bn--;                    /* the newline before the next header */
        make_entry(h, (size_t)(hend - h), body, bn);
        p = q;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!root[0])
        setup();
    empty_dir(folder);
    empty_dir(run);
    write_folder((const char *)data, size);

    bundle_opts bo = {0};
    bo.threads = 1;
    bo.skip_wstates = size & 1;
    kr_capture *c = NULL;
    kr_err err;
    kr_err_clear(&err);
    int rc = bundle_capture_load(folder, &bo, &c, &err);
    fz_check(rc, &err);
    if (rc)
        return 0;
    an_analysis_opts ao;
    memset(&ao, 0, sizeof ao);
    ao.top = 10;
    ao.context = 4;
    ao.threads = 1;
    an_analysis res;
    if (an_analyze(c, &ao, &res) == 0) {
        const an_analysis *rp = &res;
        const char *label = "small";
        rep_meta meta;
        memset(&meta, 0, sizeof meta);
        meta.input = "ui_output_agent_32235_dispatch_44";
        meta.rerun = "kreport analyze X -o OUTPUT_DIR";
        kr_buf b;
        kr_buf_init(&b);
        (void)rep_analysis_markdown(&rp, &label, 1, &meta, &b);
        kr_buf_reset(&b);
        (void)rep_analysis_json(&rp, &label, 1, &meta, &b);
        kr_buf_reset(&b);
        (void)rep_hotspots_csv(&rp, &label, 1, &b);
        kr_buf_reset(&b);
        (void)rep_source_lines_csv(&rp, &label, 1, &b);
        kr_buf_free(&b);
        an_analysis_free(&res);
    }
    an_validate_opts vo;
    memset(&vo, 0, sizeof vo);
    an_validation v;
    (void)an_validate(c, &vo, &v);
    an_validation_free(&v);
    bundle_capture_free(c);
    return 0;
}
