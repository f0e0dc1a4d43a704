/* ingest.c — wave-file ingest throughput (docs/architecture.md#speed), the
 * helper behind bench/ingest.
 *
 *   bench_ingest LABEL DIR [LABEL DIR ...]
 *       Reads every wave file (se*_sm*_sl*_wv*.json) under each DIR into
 *       memory, then measures, single-threaded and best of 3: a plain integer
 *       scan of the same bytes (the ceiling), bundle_parse_wave (the
 *       scanner) and bundle_parse_wave_jansson; prints MB/s and the ratios.
 *   bench_ingest --generate DIR SIZE_MB
 *       Writes about SIZE_MB of realistic wave files into DIR
 *       (deterministic), for when no generated capture is available.
 *
 * I/O is excluded from every measurement. Absolute numbers on a shared
 * machine are noise; the ratios are the figures. */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bundle/load_wave.h"
#include "common/file.h"
#include "common/limits.h"
#include "common/outfile.h"

typedef struct wave_file {
    char *path;
    char *data;
    size_t len;
} wave_file;

typedef struct file_set {
    wave_file *files;
    size_t n, cap;
    uint64_t bytes;
} file_set;

static int collect(file_set *set, const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "bench_ingest: cannot open %s: %s\n", dir, strerror(errno));
        return -1;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        kr_path_join(path, sizeof path, dir, e->d_name);
        if (kr_is_dir(path)) {
            if (depth < 8 && collect(set, path, depth + 1)) {
                closedir(d);
                return -1;
            }
            continue;
        }
        if (fnmatch("se*_sm*_sl*_wv*.json", e->d_name, 0) != 0)
            continue;
        if (set->n == set->cap) {
            set->cap = set->cap ? set->cap * 2 : 64;
            set->files = realloc(set->files, set->cap * sizeof *set->files);
            if (!set->files) {
                closedir(d);
                return -1;
            }
        }
        wave_file *f = &set->files[set->n];
        kr_err err;
        if (kr_file_read(path, KR_MAX_FILE_BYTES, &f->data, &f->len, &err)) {
            char msg[2048];
            kr_err_format(&err, msg, sizeof msg);
            fprintf(stderr, "bench_ingest: %s\n", msg);
            closedir(d);
            return -1;
        }
        f->path = strdup(path);
        set->bytes += f->len;
        set->n++;
    }
    closedir(d);
    return 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The ceiling: find digit runs and accumulate their values. */
static uint64_t int_scan(const char *p, size_t n)
{
    const char *end = p + n;
    uint64_t sum = 0;
    while (p < end) {
        unsigned d = (unsigned)(unsigned char)*p - '0';
        p++;
        if (d < 10) {
            uint64_t v = d;
            while (p < end && (d = (unsigned)(unsigned char)*p - '0') < 10) {
                v = v * 10 + d;
                p++;
            }
            sum += v;
        }
    }
    return sum;
}

typedef int (*parse_fn)(const char *, size_t, const char *, kr_wave *, kr_err *);

/* Seconds for one pass over the set; -1 on a parse error. */
static double pass_parse(const file_set *set, parse_fn parse, uint64_t *records)
{
    double t0 = now();
    uint64_t rec = 0;
    for (size_t i = 0; i < set->n; i++) {
        kr_wave w = {0};
        kr_err err;
        if (parse(set->files[i].data, set->files[i].len, set->files[i].path, &w, &err)) {
            char msg[2048];
            kr_err_format(&err, msg, sizeof msg);
            fprintf(stderr, "bench_ingest: %s\n", msg);
            return -1;
        }
        rec += w.ninsts;
        bundle_wave_release(&w);
    }
    *records = rec;
    return now() - t0;
}

static volatile uint64_t sink;

static double pass_scan(const file_set *set, uint64_t *unused)
{
    (void)unused;
    double t0 = now();
    uint64_t s = 0;
    for (size_t i = 0; i < set->n; i++)
        s += int_scan(set->files[i].data, set->files[i].len);
    sink = s;
    return now() - t0;
}

static int measure(const char *label, const char *dir)
{
    file_set set = {0};
    if (collect(&set, dir, 0))
        return 1;
    if (!set.n) {
        fprintf(stderr, "bench_ingest: no wave files under %s\n", dir);
        return 1;
    }
    double mb = (double)set.bytes / (1024.0 * 1024.0);
    printf("%s: %zu wave files, %.1f MB (%s)\n", label, set.n, mb, dir);
    double best[3] = {1e30, 1e30, 1e30};
    uint64_t rec_k = 0, rec_j = 0;
    for (int rep = 0; rep < 3; rep++) {
        double t;
        t = pass_scan(&set, NULL);
        if (t < best[0])
            best[0] = t;
        if ((t = pass_parse(&set, bundle_parse_wave, &rec_k)) < 0)
            return 1;
        if (t < best[1])
            best[1] = t;
        if ((t = pass_parse(&set, bundle_parse_wave_jansson, &rec_j)) < 0)
            return 1;
        if (t < best[2])
            best[2] = t;
    }
    if (rec_k != rec_j) {
        fprintf(stderr, "bench_ingest: record counts differ: %" PRIu64 " vs %" PRIu64 "\n", rec_k, rec_j);
        return 1;
    }
    double scan = mb / best[0], kr = mb / best[1], jn = mb / best[2];
    printf("  plain integer scan      %9.1f MB/s\n", scan);
    printf("  bundle_parse_wave       %9.1f MB/s  (%" PRIu64 " records)\n", kr, rec_k);
    printf("  bundle_parse_wave_jansson %7.1f MB/s\n", jn);
    printf("  ratio kreport/scan      %9.2f\n", kr / scan);
    printf("  ratio kreport/jansson   %9.2f\n", kr / jn);
    for (size_t i = 0; i < set.n; i++) {
        free(set.files[i].data);
        free(set.files[i].path);
    }
    free(set.files);
    return 0;
}

/* ---- generator ---- */

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint64_t rng(void)
{
    uint64_t x = rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* One wave of about `target` bytes with the shape of docs/formats.md#wave-files: records
 * [time, category, stall, duration, line], a timeline, waitcnt entries. */
static int write_wave(const char *path, unsigned se, unsigned simd, unsigned slot, size_t target)
{
    size_t cap = target + (1u << 16);
    char *buf = malloc(cap), *tail = malloc(1u << 20);
    if (!buf || !tail)
        return -1;
    size_t n = 0, tn = 0;
    uint64_t begin = 173032 + 4 * (rng() % 1000), t = begin + 28;
    /* records go to buf, waitcnt entries to tail; the header is written first */
    size_t records = 0, waits = 0;
    uint64_t exec = 0, wait = 0, stall_sum = 0;
    unsigned line = 1;
    tn += (size_t)snprintf(tail + tn, (1u << 20) - tn, "\"waitcnt\":[");
    while (n + 200 < target) {
        unsigned r = (unsigned)(rng() % 100), cat, stall = 0, dur = 4;
        if (r < 45)
            cat = 6;                                   /* VALU */
        else if (r < 65)
            cat = 2;                                   /* SALU */
        else if (r < 75)
            cat = 5;                                   /* LDS */
        else if (r < 82)
            cat = 3;                                   /* VMEM */
        else if (r < 87)
            cat = 1;                                   /* SMEM */
        else if (r < 95)
            cat = 9;                                   /* IMMED: s_waitcnt / s_nop */
        else
            cat = 7;                                   /* JUMP */
        if (cat == 9) {
            stall = dur = 4 * (unsigned)(1 + rng() % 200);
            wait += dur;
            if (waits < 4000 && tn + 64 < (1u << 20)) {
                tn += (size_t)snprintf(tail + tn, (1u << 20) - tn, "%s[%u,[[%u,0],[%u,0]]]", waits ? "," : "",
                                       line, line > 2 ? line - 2 : 1, line > 1 ? line - 1 : 1);
                waits++;
            }
        } else if (rng() % 4 == 0) {
            stall = 4 * (unsigned)(rng() % 40);
            dur = stall + 4 * (unsigned)(1 + rng() % 4);
            stall_sum += stall;
            exec += dur - stall;
        } else {
            exec += 4;
        }
        n += (size_t)snprintf(buf + n, cap - n, "%s[%" PRIu64 ",%u,%u,%u,%u]", records ? "," : "", t, cat,
                              stall, dur, line);
        records++;
        t += dur > 4 ? (uint64_t)dur : 4 + 4 * (rng() % 3);
        line = line >= 726 ? 1 : line + 1;
    }
    n += (size_t)snprintf(buf + n, cap - n, "%s[%" PRIu64 ",11,0,188,727]", records ? "," : "", t);
    records++;
    uint64_t end = t + 188;
    tn += (size_t)snprintf(tail + tn, (1u << 20) - tn, "]}}");
    FILE *f = fopen(path, "wb");
    if (!f) {
        free(buf);
        free(tail);
        return -1;
    }
    fprintf(f,
            "{\"duration\":%" PRIu64 ",\"name\":\"SE%u\",\"num_insts\":%zu,\"num_stitched\":%zu,"
            "\"wave\":{\"begin\":%" PRIu64 ",\"cu\":1,\"end\":%" PRIu64 ",\"id\":0,\"instructions\":[",
            end - begin, se, records, records, begin, end);
    fwrite(buf, 1, n, f);
    fprintf(f, "],\"simd\":%u,\"slot\":%u,\"timeline\":[[1,28],[2,%" PRIu64 "],[4,%" PRIu64 "],[3,%" PRIu64 "]],",
            simd, slot, exec, stall_sum, wait + 188);
    fwrite(tail, 1, tn, f);
    int bad = ferror(f);
    bad |= fclose(f);
    free(buf);
    free(tail);
    return bad ? -1 : 0;
}

static int generate(const char *dir, unsigned size_mb)
{
    kr_err err;
    if (kr_mkdir_p(dir, &err)) {
        fprintf(stderr, "bench_ingest: cannot create %s: %s\n", dir, err.msg);
        return 1;
    }
    const size_t per_file = 4u << 20;
    size_t files = ((size_t)size_mb << 20) / per_file;
    if (!files)
        files = 1;
    for (size_t i = 0; i < files; i++) {
        unsigned se = (unsigned)(i / 16), simd = (unsigned)(i % 4), slot = (unsigned)(i / 4 % 4);
        char name[64], path[4096];
        snprintf(name, sizeof name, "se%u_sm%u_sl%u_wv0.json", se, simd, slot);
        kr_path_join(path, sizeof path, dir, name);
        if (write_wave(path, se, simd, slot, per_file)) {
            fprintf(stderr, "bench_ingest: cannot write %s\n", path);
            return 1;
        }
    }
    printf("generated %zu wave files of ~%zu MB in %s\n", files, per_file >> 20, dir);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--generate") == 0)
        return generate(argv[2], (unsigned)strtoul(argv[3], NULL, 10));
    if (argc < 3 || (argc - 1) % 2) {
        fprintf(stderr, "usage: bench_ingest LABEL DIR [LABEL DIR ...]\n"
                        "       bench_ingest --generate DIR SIZE_MB\n");
        return 2;
    }
    int rc = 0;
    for (int i = 1; i + 1 < argc; i += 2)
        rc |= measure(argv[i], argv[i + 1]);
    return rc;
}
