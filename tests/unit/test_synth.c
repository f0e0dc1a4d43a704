/* test_synth.c — the synthetic bundle generator (synth/synth.c).
 *
 * Writes bundles into temporary directories with synth_write, reads every
 * file back with jansson and checks (1) the by-construction figures derived
 * by hand below from the construction documented at the top of synth.c, and
 * (2) every identity of docs/formats.md#record-order, docs/formats.md#per-row-sums, docs/formats.md#timeline, docs/formats.md#waitcnt-arrays/docs/waits.md#producer-links, docs/formats.md#wave-state-curves, docs/formats.md#occupancy-events, docs/formats.md#realtime-samples
 * and the docs/formats.md#joining-a-capture join, recomputed here independently of the generator. */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "synth/synth.h"
#include "tests/unit/t.h"

/* ---------------------------------------------------------------- helpers */

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            char *b = realloc(buf, cap + 1);
            if (!b) {
                free(buf);
                buf = NULL;
            }
            buf = b;
        }
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

static json_t *load_json(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    json_error_t e;
    json_t *j = json_load_file(path, JSON_DECODE_ANY, &e);
    if (!j)
        fprintf(stderr, "cannot parse %s: %s (line %d)\n", path, e.text, e.line);
    return j;
}

static int file_exists(const char *dir, const char *name)
{
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0;
}


static char *make_tmp(void)
{
    char tmpl[] = "/tmp/test_synth_XXXXXX";
    char *d = mkdtemp(tmpl);
    return d ? strdup(d) : NULL;
}

static int64_t ji(const json_t *a, size_t i) { return json_integer_value(json_array_get(a, i)); }
static int64_t jo(const json_t *o, const char *k) { return json_integer_value(json_object_get(o, k)); }

/* What `kreport analyze` writes into the example folder: not the generator's. */
static int is_report_output(const char *name)
{
    return !strcmp(name, "REPORT.md") || !strcmp(name, "analysis.json") ||
           !strcmp(name, "hotspots.csv") || !strcmp(name, "source_lines.csv") ||
           !strcmp(name, "report.html");
}

/* Byte-for-byte comparison of two trees (analyze outputs ignored); returns
 * the number of differences. */
static int tree_diff(const char *a, const char *b)
{
    int diffs = 0;
    DIR *d = opendir(a);
    if (!d)
        return 1;
    struct dirent *e;
    int na = 0;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || is_report_output(e->d_name))
            continue;
        na++;
        char pa[4096], pb[4096];
        snprintf(pa, sizeof pa, "%s/%s", a, e->d_name);
        snprintf(pb, sizeof pb, "%s/%s", b, e->d_name);
        struct stat st;
        if (stat(pa, &st) == 0 && S_ISDIR(st.st_mode)) {
            diffs += tree_diff(pa, pb);
            continue;
        }
        size_t la, lb;
        char *ca = read_all(pa, &la), *cb = read_all(pb, &lb);
        if (!ca || !cb || la != lb || memcmp(ca, cb, la) != 0) {
            fprintf(stderr, "differs: %s vs %s\n", pa, pb);
            diffs++;
        }
        free(ca);
        free(cb);
    }
    closedir(d);
    d = opendir(b);
    int nb = 0;
    while (d && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && !is_report_output(e->d_name))
            nb++;
    if (d)
        closedir(d);
    if (na != nb) {
        fprintf(stderr, "entry count differs: %s (%d) vs %s (%d)\n", a, na, b, nb);
        diffs++;
    }
    return diffs;
}

/* The single entry of dir whose name starts with prefix, into out. */
static int find_entry(const char *dir, const char *prefix, char *out, size_t cap)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d)) != NULL)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
            snprintf(out, cap, "%s/%s", dir, e->d_name);
            n++;
        }
    if (d)
        closedir(d);
    return n;
}

/* ------------------------------------------------- docs/waits.md#producer-links gfx9, independently */

typedef struct { unsigned v[64]; unsigned n; int parallel; } counter;

static long extract(const char *t, const char *name)
{
    const char *p = strstr(t, name);
    if (!p)
        return 0;
    p += strlen(name);
    if (*p)
        p++;
    if (!strstr(t, "0x"))
        return atol(p);
    while (*p == ' ')
        p++;
    return (p[0] == '0' && p[1] == 'x') ? strtol(p + 2, NULL, 16) : strtol(p, NULL, 10);
}

/* Appends released lines to out as a JSON-like text "[line,[[p,0],...]]". */
static void handle(counter *c, const char *name, const char *text, counter *flats, unsigned line, char *out,
                   size_t cap)
{
    long n = extract(text, name);
    if (n == 0)
        c->parallel = 0;
    if (c->parallel)
        return;
    long k = (long)c->n - n;
    if (k < 0) k = 0;
    if (k > (long)c->n) k = c->n;
    if (flats->n == 0 && k == 0)
        return;
    size_t len = strlen(out);
    snprintf(out + len, cap - len, "%s[%u,[", len > 1 ? "," : "", line);
    int first = 1;
    for (unsigned i = 0; i < flats->n; i++) {
        len = strlen(out);
        snprintf(out + len, cap - len, "%s[%u,0]", first ? "" : ",", flats->v[i]);
        first = 0;
    }
    flats->n = 0;
    for (long i = 0; i < k; i++) {
        len = strlen(out);
        snprintf(out + len, cap - len, "%s[%u,0]", first ? "" : ",", c->v[i]);
        first = 0;
    }
    memmove(c->v, c->v + k, (c->n - (unsigned)k) * sizeof c->v[0]);
    c->n -= (unsigned)k;
    len = strlen(out);
    snprintf(out + len, cap - len, "]]");
}

static int sw(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

static void push(counter *c, unsigned line)
{
    if (c->n < 64)
        c->v[c->n++] = line;
}

/* ------------------------------------------------------ capture checker */

typedef struct expect {
    int seed0;              /* by-construction timing formulas apply */
    unsigned waves, iterations;
    int gfx942;
} expect;

typedef struct ev { int64_t time; int delta; } ev;
typedef struct evlist { ev *v; size_t n, cap; } evlist;

static void ev_add(evlist *l, int64_t t, int d)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n].time = t;
    l->v[l->n].delta = d;
    l->n++;
}

static int ev_cmp(const void *a, const void *b)
{
    const ev *x = a, *y = b;
    return x->time < y->time ? -1 : x->time > y->time;
}

/* Expected category set of a row from its mnemonic (docs/instruction-classes.md compatibility). */
static int cat_ok(const char *isa, int64_t cat)
{
    if (sw(isa, "s_waitcnt") || sw(isa, "s_nop") || sw(isa, "s_barrier")) return cat == 9;
    if (sw(isa, "s_endpgm")) return cat == 11;
    if (sw(isa, "s_cbranch")) return cat == 7 || cat == 8;
    if (sw(isa, "s_load")) return cat == 1;
    if (sw(isa, "s_")) return cat == 2;
    if (sw(isa, "v_")) return cat == 6;
    if (sw(isa, "ds_")) return cat == 5;
    if (sw(isa, "buffer_")) return cat == 3;
    if (sw(isa, "global_")) return cat == 4;
    return 0;
}

/* SE offsets per docs/formats.md#se-alignment (kreport canonical, equal lo.rc): lo.sc(anchor) − lo.sc(SE). */
static const int64_t OFFSETS[4] = {0, 756, 1508, 2212};

static void check_capture(const char *cap, const expect *ex)
{
    /* filenames.json: exact prefix and key order (docs/formats.md#wave-index) */
    char path[4096];
    snprintf(path, sizeof path, "%s/filenames.json", cap);
    char *raw = read_all(path, NULL);
    static const char FN_PREFIX[] = "{\"counter_names\":[],\"gfxip\":9,\"gfxv\":\"vega\",\"global_begin_time\":0,"
                                    "\"version\":\"3.0.0\",\"wave_filenames\":{\"0\":{\"0\":{\"0\":{\"0\":[";
    T_CHECK(raw && strncmp(raw, FN_PREFIX, sizeof FN_PREFIX - 1) == 0);
    free(raw);
    json_t *fn = load_json(cap, "filenames.json");
    json_t *code = load_json(cap, "code.json");
    T_CHECK(fn && code);
    if (!fn || !code)
        return;
    json_t *rows = json_object_get(code, "code");
    T_EQ_STR(json_string_value(json_object_get(code, "header")),
             "ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle");
    T_EQ_STR(json_string_value(json_object_get(code, "version")), "3.0.0");
    size_t nrows = json_array_size(rows);
    T_EQ_U64(nrows, 46);
    /* docs/formats.md#label-rows row rules */
    const char *isa[64];
    for (size_t i = 0; i < nrows && i < 64; i++) {
        json_t *r = json_array_get(rows, i);
        T_EQ_U64(json_array_size(r), 10);
        isa[i] = json_string_value(json_array_get(r, 0));
        T_EQ_I64(ji(r, 1), 0);
        T_EQ_I64(ji(r, 2), (int64_t)i);
        T_EQ_I64(ji(r, 4), 2);
        if (i >= 2) {
            int64_t step = ji(r, 5) - ji(json_array_get(rows, i - 1), 5);
            T_CHECK(step == 4 || step == 8 || step == 16);
        }
    }
    T_EQ_STR(isa[0], "; synth_kernel_0");
    T_EQ_I64(ji(json_array_get(rows, 0), 5), 6400);
    T_EQ_I64(ji(json_array_get(rows, 1), 5), 6400);
    T_EQ_STR(isa[45], "s_endpgm");
    T_EQ_STR(isa[25], ex->gfx942 ? "ds_read_b64 v[24:25], v3 offset:512" : "ds_read_b64_tr_b16 v[24:25], v3 offset:512");
    T_CHECK(sw(isa[31], ex->gfx942 ? "v_mfma_f32_32x32x8_f16 " : "v_mfma_scale_f32_16x16x128_f8f6f4 "));
    T_EQ_STR(isa[30], "v_mfma_f32_32x32x16_bf16 v[64:79], v[20:23], v[24:27], v[64:79]");
    /* branch operands: target = vaddr + 4 + 4 * simm16 */
    int64_t va12 = ji(json_array_get(rows, 12), 5), va41 = ji(json_array_get(rows, 41), 5);
    T_EQ_I64(va12 + 4 + 4 * atoi(isa[12] + strlen("s_cbranch_scc1 ")), ji(json_array_get(rows, 15), 5));
    long off41 = atol(isa[41] + strlen("s_cbranch_scc1 "));
    T_EQ_I64(va41 + 4 + 4 * (off41 - 65536), ji(json_array_get(rows, 28), 5));
    /* ISA VGPR high-water mark (docs/occupancy.md#register-counts): 96 */
    long vmax = -1;
    for (size_t i = 1; i < nrows; i++)
        for (const char *p = isa[i]; *p; p++) {
            if (*p != 'v' || (p > isa[i] && (p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') ||
                                               (p[-1] >= '0' && p[-1] <= '9'))))
                continue;
            long a = -1;
            if (p[1] == '[') {
                const char *colon = strchr(p, ':');
                if (colon)
                    a = atol(colon + 1);
            } else if (p[1] >= '0' && p[1] <= '9')
                a = atol(p + 1);
            if (a > vmax)
                vmax = a;
        }
    T_EQ_I64(vmax + 1, 96);

    /* waves from filenames.json */
    json_t *wf = json_object_get(fn, "wave_filenames");
    uint64_t hit[46] = {0}, lat[46] = {0}, stl[46] = {0}, idl[46] = {0};
    evlist events[5];
    memset(events, 0, sizeof events);
    unsigned nwaves = 0;
    int64_t se_min[4], se_max[4];
    for (int s = 0; s < 4; s++) {
        se_min[s] = INT64_MAX;
        se_max[s] = 0;
    }
    unsigned nse = (ex->waves + 3) / 4 < 4 ? (ex->waves + 3) / 4 : 4;
    const char *kse, *ksimd, *kslot, *kid;
    json_t *vse, *vsimd, *vslot, *vid;
    json_object_foreach(wf, kse, vse) json_object_foreach(vse, ksimd, vsimd) json_object_foreach(vsimd, kslot, vslot)
        json_object_foreach(vslot, kid, vid)
    {
        unsigned se = (unsigned)atoi(kse), simd = (unsigned)atoi(ksimd), slot = (unsigned)atoi(kslot);
        unsigned id = (unsigned)atoi(kid);
        nwaves++;
        const char *file = json_string_value(json_array_get(vid, 0));
        int64_t begin = ji(vid, 1), end = ji(vid, 2);
        char want[64];
        snprintf(want, sizeof want, "se%u_sm%u_sl%u_wv%u.json", se, simd, slot, id);
        T_EQ_STR(file, want);
        json_t *wj = load_json(cap, file);
        T_CHECK(wj != NULL);
        if (!wj)
            continue;
        char sename[16];
        snprintf(sename, sizeof sename, "SE%u", se);
        T_EQ_STR(json_string_value(json_object_get(wj, "name")), sename);
        json_t *w = json_object_get(wj, "wave");
        json_t *ins = json_object_get(w, "instructions"), *tl = json_object_get(w, "timeline");
        json_t *wc = json_object_get(w, "waitcnt");
        size_t n = json_array_size(ins);
        T_EQ_I64(jo(w, "begin"), begin);
        T_EQ_I64(jo(w, "end"), end);
        T_EQ_I64(jo(wj, "duration"), end - begin);
        T_EQ_I64(jo(wj, "num_insts"), (int64_t)n);
        T_EQ_I64(jo(wj, "num_stitched"), (int64_t)n);
        T_EQ_I64(jo(w, "cu"), 1);
        T_EQ_I64(jo(w, "simd"), simd);
        T_EQ_I64(jo(w, "slot"), slot);
        T_EQ_I64(jo(w, "id"), id);
        T_EQ_U64(n, 29 + 14 * ex->iterations);
        unsigned ordinal = slot * 4 * nse + se * 4 + simd;

        /* docs/formats.md#record-order relations, docs/formats.md#per-row-sums sums, docs/formats.md#timeline identities */
        int64_t prev_done = begin, sum_dur = 0, sum_gap = 0, sum_ovl = 0, wait_dur = 0, other = 0, stall_other = 0;
        int bad42 = 0;
        counter lgkm = {{0}, 0, 0}, vm = {{0}, 0, 0}, flats = {{0}, 0, 0};
        static char wc_text[1 << 16];
        strcpy(wc_text, "[");
        unsigned back_taken = 0, back_not = 0;
        for (size_t i = 0; i < n; i++) {
            json_t *r = json_array_get(ins, i);
            int64_t t = ji(r, 0), cat = ji(r, 1), st = ji(r, 2), du = ji(r, 3), line = ji(r, 4);
            if (json_array_size(r) != 5 || line < 1 || line > 45) {
                bad42++;
                continue;
            }
            if (t % 4 || st % 4 || du % 4 || du < 4 || st < 0 || st > du) bad42++;
            if (!cat_ok(isa[line], cat)) bad42++;
            if (cat == 9 && st != du) bad42++;
            if (cat != 9 && cat != 11 && (du - st < 4 || du - st > 20)) bad42++;
            if (i + 1 < n) {
                json_t *q = json_array_get(ins, i + 1);
                if (ji(q, 0) <= t || ji(q, 0) < t + st) bad42++;
                if (ji(q, 0) + ji(q, 3) < t + du) bad42++;     /* never ends before an earlier record */
            }
            if (line == 41) {
                if (cat == 7) back_taken++;
                else back_not++;
            }
            int64_t gap = t > prev_done ? t - prev_done : 0, ovl = prev_done > t ? prev_done - t : 0;
            hit[line]++;
            lat[line] += (uint64_t)du;
            stl[line] += (uint64_t)st;
            idl[line] += (uint64_t)gap;
            sum_dur += du;
            sum_gap += gap;
            sum_ovl += ovl;
            if (cat == 9 || cat == 11)
                wait_dur += du;
            else {
                other += du;
                stall_other += st;
            }
            if (t + du > prev_done)
                prev_done = t + du;
            /* docs/waits.md#producer-links gfx9 */
            const char *text = isa[line];
            if (sw(text, "s_waitcnt")) {
                if (strstr(text, "lgk")) handle(&lgkm, "lgkmcnt", text, &flats, (unsigned)line, wc_text, sizeof wc_text);
                if (strstr(text, "vmcnt")) handle(&vm, "vmcnt", text, &flats, (unsigned)line, wc_text, sizeof wc_text);
            } else if (sw(text, "v_")) {
            } else if (sw(text, "s_load") || sw(text, "s_store")) {
                lgkm.parallel = 1;
                push(&lgkm, (unsigned)line);
            } else if (sw(text, "s_sendmsg")) {
                push(&lgkm, (unsigned)line);
            } else if (sw(text, "s_")) {
            } else if (sw(text, "global_") || sw(text, "buffer_") || sw(text + 1, "buffer_") || sw(text, "scratch_")) {
                push(&vm, (unsigned)line);
            } else if (sw(text, "flat_")) {
                lgkm.parallel = vm.parallel = 1;
                push(&flats, (unsigned)line);
            } else if (sw(text, "ds_")) {
                push(&lgkm, (unsigned)line);
            }
        }
        T_EQ_I64(bad42, 0);
        T_EQ_U64(back_taken, ex->iterations - 1);
        T_EQ_U64(back_not, 1);
        json_t *first = json_array_get(ins, 0), *last = json_array_get(ins, n - 1);
        T_EQ_I64(ji(last, 1), 11);
        T_EQ_I64(ji(last, 4), 45);
        int64_t last_done = ji(last, 0) + ji(last, 3);
        T_EQ_I64(last_done, prev_done);
        T_CHECK(last_done - end == 0 || last_done - end == 4);
        T_CHECK(ji(first, 0) - begin >= 28);
        T_EQ_I64(sum_dur + sum_gap - sum_ovl, last_done - begin);

        /* timeline */
        int64_t bys[5] = {0}, tsum = 0, tcur = begin;
        size_t ntl = json_array_size(tl);
        int idle_only_first = 1;
        for (size_t i = 0; i < ntl; i++) {
            json_t *e = json_array_get(tl, i);
            int64_t s = ji(e, 0), c = ji(e, 1);
            T_CHECK(s >= 1 && s <= 4 && c > 0);
            if (s < 0 || s > 4)
                continue;
            if (s == 1 && i != 0)
                idle_only_first = 0;
            bys[s] += c;
            tsum += c;
            ev_add(&events[s], tcur, +1);
            ev_add(&events[s], tcur + c, -1);
            tcur += c;
        }
        T_CHECK(idle_only_first);
        T_EQ_I64(ji(json_array_get(tl, 0), 0), 1);
        T_EQ_I64(ji(json_array_get(tl, 0), 1), ji(first, 0) - begin);
        T_EQ_I64(ji(json_array_get(tl, ntl - 1), 0), 3);
        T_EQ_I64(tsum, last_done - begin);
        T_EQ_I64(bys[3], wait_dur);
        T_EQ_I64(bys[1] + bys[2] + bys[4], other + sum_gap - sum_ovl);
        T_CHECK(bys[4] >= stall_other);
        if (tcur > se_max[se]) se_max[se] = tcur;
        if (begin < se_min[se]) se_min[se] = begin;

        /* waitcnt (docs/formats.md#waitcnt-arrays): stored == recomputed; by construction 5 + 2 I entries */
        strcat(wc_text, "]");
        char *stored = json_dumps(wc, JSON_COMPACT | JSON_ENCODE_ANY);
        T_EQ_STR(stored, wc_text);
        free(stored);
        T_EQ_U64(json_array_size(wc), 5 + 2 * ex->iterations);
        T_EQ_I64(ji(json_array_get(wc, 3), 0), 27);     /* combined wait: lgkm entry, then vm entry */
        T_EQ_I64(ji(json_array_get(wc, 4), 0), 27);

        if (ex->seed0) {
            /* hand derivation (construction at the top of synth.c) */
            int64_t s = simd, I = ex->iterations, sumj = 0;
            for (int64_t j = 0; j < I; j++)
                sumj += 336 + 40 * (j % 3) + 8 * s;
            T_EQ_I64(bys[1], 28 + 4 * s);
            T_EQ_I64(bys[3], 1168 + 16 * s + sumj + 240 + 16 * s);
            T_EQ_I64(bys[4], 16 + 12 * I);
            T_EQ_I64(bys[2], 160 + 84 * I);
            T_EQ_I64(end, last_done - (ordinal % 3 == 2 ? 4 : 0));
            /* aligned begin on the SE0 clock */
            T_EQ_I64(begin + OFFSETS[se], 180000 + 4 * ((3 * simd + se) % 4) + 128 * slot);
        }
        json_decref(wj);
    }
    T_EQ_U64(nwaves, ex->waves);

    /* docs/formats.md#per-row-sums: code.json equals the recomputation, and the construction */
    int mismatch = 0;
    for (size_t i = 0; i < nrows; i++) {
        json_t *r = json_array_get(rows, i);
        if ((uint64_t)ji(r, 6) != hit[i] || (uint64_t)ji(r, 7) != lat[i] || (uint64_t)ji(r, 8) != stl[i] ||
            (uint64_t)ji(r, 9) != idl[i])
            mismatch++;
        uint64_t want = i == 0 || i == 13 || i == 14 ? 0 : (i >= 28 && i <= 41) ? ex->waves * ex->iterations : ex->waves;
        if ((uint64_t)ji(r, 6) != want)
            mismatch++;
    }
    T_EQ_I64(mismatch, 0);
    T_EQ_I64(ji(json_array_get(rows, 31), 9), 0);                       /* the overlapped MFMA never idles */
    T_EQ_I64(ji(json_array_get(rows, 31), 7), 16 * (int64_t)(ex->waves * ex->iterations));
    if (ex->seed0) {
        int64_t s37 = 0, s7 = 0, i1 = 0;
        for (unsigned w = 0; w < ex->waves; w++) {
            int64_t s = w % 4;
            for (unsigned j = 0; j < ex->iterations; j++)
                s37 += 320 + 40 * (j % 3) + 8 * s;
            s7 += 600 + 8 * s;
            i1 += 28 + 4 * s;
        }
        T_EQ_I64(ji(json_array_get(rows, 37), 8), s37);
        T_EQ_I64(ji(json_array_get(rows, 37), 7), s37);
        T_EQ_I64(ji(json_array_get(rows, 7), 8), s7);
        T_EQ_I64(ji(json_array_get(rows, 1), 9), i1);
        T_EQ_I64(ji(json_array_get(rows, 28), 9), 8 * (int64_t)(ex->waves * ex->iterations));
    }

    /* docs/formats.md#wave-state-curves wstates */
    for (int k = 0; k < 5; k++) {
        char name[32];
        snprintf(name, sizeof name, "wstates%d.json", k);
        if (!events[k].n) {
            T_CHECK(!file_exists(cap, name));
            continue;
        }
        json_t *ws = load_json(cap, name);
        T_CHECK(ws != NULL);
        if (!ws)
            continue;
        T_EQ_STR(json_string_value(json_object_get(ws, "name")), name);
        qsort(events[k].v, events[k].n, sizeof(ev), ev_cmp);
        json_t *times = json_object_get(ws, "time"), *states = json_object_get(ws, "state");
        size_t m = 0;
        int64_t acc = 0, lt = -1;
        int bad = 0;
        for (size_t i = 0; i < events[k].n; i++) {
            acc += events[k].v[i].delta;
            if (m == 0 || events[k].v[i].time != lt) {
                if (ji(times, m) != events[k].v[i].time) bad++;
                m++;
                lt = events[k].v[i].time;
            }
            if (ji(states, m - 1) != acc && (i + 1 == events[k].n || events[k].v[i + 1].time != lt))
                bad++;
        }
        T_EQ_U64(json_array_size(times), m);
        T_EQ_U64(json_array_size(states), m);
        T_EQ_I64(bad, 0);
        T_EQ_I64(ji(states, m - 1), 0);
        json_decref(ws);
        free(events[k].v);
    }
    T_CHECK(!file_exists(cap, "wstates0.json"));

    /* docs/formats.md#occupancy-events occupancy */
    json_t *occ = load_json(cap, "occupancy.json");
    T_CHECK(occ != NULL);
    if (occ) {
        char *d = json_dumps(json_object_get(occ, "dispatches"), JSON_COMPACT);
        T_EQ_STR(d, "{\"0\":\"0 / 0x0\",\"1\":\"synth_kernel_0\"}");
        free(d);
        T_EQ_STR(json_string_value(json_object_get(occ, "version")), "3.0.0");
        unsigned matched = 0;
        int bad = 0;
        for (unsigned se = 0; se < 4; se++) {
            char key[4];
            snprintf(key, sizeof key, "%u", se);
            json_t *rowsv = json_object_get(occ, key);
            T_CHECK(json_is_array(rowsv));
            int open[16][4][8];
            memset(open, 0, sizeof open);
            int64_t start_at[16][4][8];
            for (size_t i = 0; i < json_array_size(rowsv); i++) {
                json_t *r = json_array_get(rowsv, i);
                int64_t t = ji(r, 0), cu = ji(r, 1), simd = ji(r, 2), slot = ji(r, 3), st = ji(r, 4);
                if (json_array_size(r) != 6 || ji(r, 5) != 1 || cu > 15 || simd > 3 || slot > 7) {
                    bad++;
                    continue;
                }
                if (i) {
                    json_t *p = json_array_get(rowsv, i - 1);
                    if (ji(p, 0) > t || (ji(p, 0) == t && ji(p, 4) > st)) bad++;   /* time, ends first */
                }
                if (t < se_min[se]) se_min[se] = t;
                if (t > se_max[se]) se_max[se] = t;
                if (st) {
                    if (open[cu][simd][slot]) bad++;
                    open[cu][simd][slot] = 1;
                    start_at[cu][simd][slot] = t;
                } else {
                    if (!open[cu][simd][slot]) bad++;
                    open[cu][simd][slot] = 0;
                    if (cu == 1) {
                        /* the pair must be a wave of this SE */
                        char sk[4], lk[4];
                        snprintf(sk, sizeof sk, "%u", (unsigned)simd);
                        snprintf(lk, sizeof lk, "%u", (unsigned)slot);
                        json_t *ent = json_object_get(
                            json_object_get(json_object_get(json_object_get(wf, key), sk), lk), "0");
                        if (ent && ji(ent, 1) == start_at[cu][simd][slot] && ji(ent, 2) == t)
                            matched++;
                        else
                            bad++;
                    }
                }
            }
            for (int a = 0; a < 16; a++)
                for (int b = 0; b < 4; b++)
                    for (int c = 0; c < 8; c++)
                        if (open[a][b][c]) bad++;
        }
        T_EQ_I64(bad, 0);
        T_EQ_U64(matched, ex->waves);
        json_decref(occ);
    }

    /* docs/formats.md#realtime-samples realtime: 2100 MHz exactly, offsets 0/756/1508/2212, samples bracket every time */
    json_t *rt = load_json(cap, "realtime.json");
    T_CHECK(rt != NULL);
    if (rt) {
        int64_t dsc = 0, drc = 0, lo_sc[4] = {0}, lo_rc[4] = {0};
        for (unsigned se = 0; se < 4; se++) {
            char key[8];
            snprintf(key, sizeof key, "SE%u", se);
            json_t *s = json_object_get(rt, key);
            T_EQ_U64(json_array_size(s), 2);
            json_t *lo = json_array_get(s, 0), *hi = json_array_get(s, 1);
            T_CHECK(ji(lo, 1) > (int64_t)1 << 47);
            lo_sc[se] = ji(lo, 0);
            lo_rc[se] = ji(lo, 1);
            dsc += ji(hi, 0) - ji(lo, 0);
            drc += ji(hi, 1) - ji(lo, 1);
            T_CHECK(ji(lo, 0) < se_min[se]);
            T_CHECK(ji(hi, 0) > se_max[se]);
        }
        T_EQ_I64(dsc * 100000000, 2100000000LL * drc);
        int anchor = 0;
        for (int se = 0; se < 4; se++) {
            T_EQ_I64(lo_rc[se], lo_rc[0]);
            if (lo_sc[se] > lo_sc[anchor]) anchor = se;     /* smallest origin when lo.rc are equal */
        }
        for (int se = 0; se < 4; se++)
            T_EQ_I64(lo_sc[anchor] - lo_sc[se], OFFSETS[se]);
        json_t *md = json_object_get(rt, "metadata");
        T_EQ_I64(jo(md, "frequency"), 100000000);
        T_EQ_STR(json_string_value(json_object_get(md, "descriptor")), "[gfx_clock, realtime_clock]");
        json_decref(rt);
    }

    /* docs/formats.md#source-snapshots snapshots: every frame resolves to a copy and its line exists */
    json_t *snap = load_json(cap, "snapshots.json");
    T_CHECK(snap != NULL);
    unsigned chains = 0, empty = 0, unresolved = 0;
    for (size_t i = 1; snap && i < nrows; i++) {
        const char *src = json_string_value(json_array_get(json_array_get(rows, i), 3));
        if (!*src) {
            empty++;
            continue;
        }
        if (strstr(src, " -> "))
            chains++;
        char buf[512];
        snprintf(buf, sizeof buf, "%s", src);
        for (char *frame = buf; frame;) {
            char *sep = strstr(frame, " -> ");
            if (sep)
                *sep = '\0';
            char *colon = strrchr(frame, ':');
            long line = colon ? atol(colon + 1) : 0;
            if (colon)
                *colon = '\0';
            json_t *node = json_object_get(snap, "/");
            char comp[512];
            snprintf(comp, sizeof comp, "%s", frame + 1);
            for (char *tok = strtok(comp, "/"); tok && node; tok = strtok(NULL, "/"))
                node = json_object_get(node, tok);
            if (!json_is_string(node) || line < 1) {
                unresolved++;
            } else {
                char p2[4096];
                snprintf(p2, sizeof p2, "%s/%s", cap, json_string_value(node));
                char *text = read_all(p2, NULL);
                long lines = 0;
                for (char *c = text; c && *c; c++)
                    lines += *c == '\n';
                if (!text || line > lines)
                    unresolved++;
                free(text);
            }
            frame = sep ? sep + 4 : NULL;
        }
    }
    T_EQ_U64(unresolved, 0);
    T_EQ_U64(chains, 8);
    T_EQ_U64(empty, 3);
    json_decref(snap);
    json_decref(fn);
    json_decref(code);
}

/* ------------------------------------------------------------ the tests */

static int write_bundle(const synth_opts *o, char **dir)
{
    *dir = make_tmp();
    kr_err e;
    int rc = synth_write(o, *dir, &e);
    if (rc)
        fprintf(stderr, "synth_write: %s: %s\n", e.file, e.msg);
    return rc;
}

static void test_default_capture(void)
{
    synth_opts o;
    synth_opts_default(&o);
    char *dir;
    T_EQ_I64(write_bundle(&o, &dir), 0);
    char cap[4096];
    T_EQ_I64(find_entry(dir, "ui_output_agent_", cap, sizeof cap), 1);
    T_CHECK(strstr(cap, "ui_output_agent_24601_dispatch_14") != NULL);
    expect ex = {1, 8, 3, 0};
    check_capture(cap, &ex);

    /* hand-derived totals for 8 waves (SIMDs 0..3 on SE0 and SE1), 3 iterations */
    json_t *code = load_json(cap, "code.json");
    json_t *rows = json_object_get(code, "code");
    uint64_t hits = 0;
    for (size_t i = 0; i < json_array_size(rows); i++)
        hits += (uint64_t)ji(json_array_get(rows, i), 6);
    T_EQ_U64(hits, 8 * (29 + 14 * 3));                                 /* 568 records */
    T_EQ_I64(ji(json_array_get(rows, 37), 8), 8 * (320 + 360 + 400) + 24 * 12);   /* 8928 */
    T_EQ_I64(ji(json_array_get(rows, 7), 8), 8 * 600 + 8 * 12);        /* 4896 */
    T_EQ_I64(ji(json_array_get(rows, 1), 9), 8 * 28 + 4 * 12);         /* 272 */
    T_EQ_I64(ji(json_array_get(rows, 15), 9), 8 * 8);                  /* gap 8 before each first load */
    json_decref(code);
    /* wave SE0 SIMD0: IDLE 28, EXEC 412, WAIT 2536, STALL 52; 3028 cycles */
    json_t *w = load_json(cap, "se0_sm0_sl0_wv0.json");
    json_t *tl = json_object_get(json_object_get(w, "wave"), "timeline");
    int64_t by[5] = {0};
    for (size_t i = 0; i < json_array_size(tl); i++)
        by[ji(json_array_get(tl, i), 0)] += ji(json_array_get(tl, i), 1);
    T_EQ_I64(by[1], 28);
    T_EQ_I64(by[2], 412);
    T_EQ_I64(by[3], 2536);
    T_EQ_I64(by[4], 52);
    T_EQ_I64(jo(json_object_get(w, "wave"), "begin"), 180000);
    T_EQ_I64(jo(w, "duration"), 3028);
    char *first = json_dumps(json_array_get(json_object_get(json_object_get(w, "wave"), "waitcnt"), 0), JSON_COMPACT);
    T_EQ_STR(first, "[7,[[1,0],[2,0],[3,0]]]");
    free(first);
    json_decref(w);
    /* wave SE0 SIMD2 (ordinal 2): end is 4 cycles before the last completion */
    w = load_json(cap, "se0_sm2_sl0_wv0.json");
    T_EQ_I64(jo(w, "duration"), 3028 + 60 * 2 - 4);
    json_decref(w);

    /* determinism: a second run writes the same bytes */
    char *dir2;
    T_EQ_I64(write_bundle(&o, &dir2), 0);
    T_EQ_I64(tree_diff(dir, dir2), 0);
    t_rm_rf(dir2);
    free(dir2);

    /* refuse a non-empty directory without force; nothing is touched */
    kr_err e;
    T_EQ_I64(synth_write(&o, dir, &e), KR_OUTPUT);
    o.force = 1;
    T_EQ_I64(synth_write(&o, dir, &e), 0);
    t_rm_rf(dir);
    free(dir);
}

static void test_jitter_and_gfx942(void)
{
    synth_opts o;
    synth_opts_default(&o);
    o.seed = 7;
    o.waves = 5;
    o.iterations = 4;
    o.gfx = SYNTH_GFX942;
    char *dir;
    T_EQ_I64(write_bundle(&o, &dir), 0);
    char cap[4096];
    T_EQ_I64(find_entry(dir, "ui_output_agent_", cap, sizeof cap), 1);
    expect ex = {0, 5, 4, 1};
    check_capture(cap, &ex);
    /* jitter changed something: some main wait is not on the seed-0 formula */
    json_t *code = load_json(cap, "code.json");
    int64_t s0 = 0;
    for (unsigned w = 0; w < 5; w++)
        for (unsigned j = 0; j < 4; j++)
            s0 += 320 + 40 * (j % 3) + 8 * (w % 4);
    T_CHECK(ji(json_array_get(json_object_get(code, "code"), 37), 8) != s0);
    json_decref(code);
    t_rm_rf(dir);
    free(dir);

    /* two slots per SIMD on four SEs */
    synth_opts_default(&o);
    o.waves = 20;
    o.iterations = 1;
    T_EQ_I64(write_bundle(&o, &dir), 0);
    T_EQ_I64(find_entry(dir, "ui_output_agent_", cap, sizeof cap), 1);
    expect ex2 = {1, 20, 1, 0};
    check_capture(cap, &ex2);
    T_CHECK(file_exists(cap, "se3_sm3_sl0_wv0.json"));
    T_CHECK(file_exists(cap, "se0_sm3_sl1_wv0.json"));
    T_CHECK(!file_exists(cap, "se1_sm0_sl1_wv0.json"));
    t_rm_rf(dir);
    free(dir);
}

static int count_fields(const char *line)
{
    int n = 1, q = 0;
    for (const char *p = line; *p && *p != '\n'; p++) {
        if (*p == '"')
            q = !q;
        else if (*p == ',' && !q)
            n++;
    }
    return n;
}

/* Every line has `fields` fields; header names all quoted. */
static int check_csv(const char *dir, const char *name, int fields, int *rows)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t len;
    char *text = read_all(path, &len);
    if (!text)
        return 1;
    int bad = 0, n = 0;
    if (len == 0 || text[len - 1] != '\n')
        bad++;
    for (char *line = text; *line; n++) {
        char *nl = strchr(line, '\n');
        if (count_fields(line) != fields)
            bad++;
        if (n == 0 && line[0] != '"')
            bad++;
        line = nl ? nl + 1 : line + strlen(line);
    }
    free(text);
    *rows = n - 1;
    return bad;
}

static void test_example(void)
{
    synth_opts o;
    synth_opts_default(&o);
    o.layout = SYNTH_LAYOUT_EXAMPLE;
    char *dir;
    T_EQ_I64(write_bundle(&o, &dir), 0);
    T_CHECK(file_exists(dir, "README.md"));
    char small[4096], big[4096], sub[4096];
    snprintf(sub, sizeof sub, "%s/att_viewer/small", dir);
    T_EQ_I64(find_entry(sub, "ui_output_agent_24601_dispatch_14", small, sizeof small), 1);
    snprintf(sub, sizeof sub, "%s/att_viewer/big", dir);
    T_EQ_I64(find_entry(sub, "ui_output_agent_40963_dispatch_38", big, sizeof big), 1);
    expect es = {1, 8, 3, 0}, eb = {1, 32, 6, 0};
    check_capture(small, &es);
    check_capture(big, &eb);

    char cv[4096];
    snprintf(cv, sizeof cv, "%s/compute_viewer", dir);
    const char *labels[2] = {"small", "big"};
    const int64_t handles[2] = {24601, 40963}, dispatch_ids[2] = {14, 38};
    const char *caps[2] = {small, big};
    for (int r = 0; r < 2; r++) {
        char name[64];
        snprintf(name, sizeof name, "%s_results.json", labels[r]);
        json_t *res = load_json(cv, name);
        T_CHECK(res != NULL);
        if (!res)
            continue;
        json_t *procs = json_object_get(res, "rocprofiler-sdk-tool");
        T_EQ_U64(json_array_size(procs), 1);
        json_t *p = json_array_get(procs, 0);
        /* docs/formats.md#joining-a-capture step 1: the agent with handle H is the GPU */
        json_t *agents = json_object_get(p, "agents"), *gpu = NULL;
        T_EQ_U64(json_array_size(agents), 10);
        for (size_t i = 0; i < json_array_size(agents); i++) {
            json_t *a = json_array_get(agents, i);
            if (jo(json_object_get(a, "id"), "handle") == handles[r])
                gpu = a;
        }
        T_CHECK(gpu != NULL);
        if (gpu) {
            T_EQ_U64(json_object_size(gpu), 61);
            T_EQ_I64(jo(gpu, "type"), 2);
            T_EQ_STR(json_string_value(json_object_get(gpu, "name")), "gfx950");
            T_EQ_I64(jo(gpu, "gfx_target_version"), 90500);
            T_EQ_I64(jo(gpu, "cu_count"), 256);
            T_EQ_I64(jo(gpu, "lds_size_in_kb"), 160);
            T_EQ_I64(jo(gpu, "max_engine_clk_fcompute"), 2200);
            T_EQ_I64(jo(gpu, "simd_per_cu"), 4);
            T_EQ_I64(jo(gpu, "max_waves_per_simd"), 8);
            T_EQ_I64(jo(gpu, "wave_front_size"), 64);
            T_CHECK((uint64_t)json_integer_value(json_object_get(gpu, "hive_id")) == 8861873366774386336ull);
        }
        /* docs/formats.md#joining-a-capture step 2: label (Codeobj, Vaddr) joins a kernel symbol */
        json_t *code = load_json(caps[r], "code.json");
        json_t *label = json_array_get(json_object_get(code, "code"), 0);
        json_t *cos = json_object_get(p, "code_objects"), *syms = json_object_get(p, "kernel_symbols");
        json_t *hit = NULL;
        for (size_t i = 0; i < json_array_size(syms); i++) {
            json_t *s = json_array_get(syms, i);
            if (jo(s, "code_object_id") != ji(label, 4))
                continue;
            json_t *co = NULL;
            for (size_t c = 0; c < json_array_size(cos); c++)
                if (jo(json_array_get(cos, c), "code_object_id") == jo(s, "code_object_id"))
                    co = json_array_get(cos, c);
            if (co && jo(s, "kernel_object") - jo(co, "load_delta") + jo(s, "kernel_code_entry_byte_offset") ==
                          ji(label, 5))
                hit = s;
        }
        T_CHECK(hit != NULL);
        if (hit) {
            T_EQ_STR(json_string_value(json_object_get(hit, "kernel_name")), "synth_kernel_0.kd");
            T_EQ_STR(json_string_value(json_object_get(hit, "formatted_kernel_name")), "synth_kernel_0");
            T_EQ_I64(jo(hit, "arch_vgpr_count"), 48);          /* half the ISA mark 96 (docs/occupancy.md#register-counts) */
            T_EQ_I64(jo(hit, "accum_vgpr_count"), 0);
            T_EQ_I64(jo(hit, "group_segment_size"), 16384);
        }
        json_decref(code);
        /* docs/formats.md#joining-a-capture step 3: the dispatch */
        json_t *kd = json_object_get(json_object_get(p, "buffer_records"), "kernel_dispatch");
        int found = 0;
        for (size_t i = 0; i < json_array_size(kd); i++) {
            json_t *di = json_object_get(json_array_get(kd, i), "dispatch_info");
            if (jo(di, "dispatch_id") == dispatch_ids[r]) {
                found++;
                T_EQ_I64(jo(json_object_get(di, "agent_id"), "handle"), handles[r]);
                T_EQ_I64(jo(di, "kernel_id"), 3);
            }
        }
        T_EQ_I64(found, 1);
        T_CHECK(json_array_size(kd) > 5);
        json_t *att = json_object_get(json_object_get(p, "strings"), "att_filenames");
        T_EQ_U64(json_array_size(att), 8);
        json_decref(res);
        int rows;
        snprintf(name, sizeof name, "%s_agent_info.csv", labels[r]);
        T_EQ_I64(check_csv(cv, name, 53, &rows), 0);
        T_EQ_I64(rows, 10);
    }
    int rows;
    T_EQ_I64(check_csv(cv, "discover_kernel_trace.csv", 22, &rows), 0);
    T_EQ_I64(rows, 12);
    T_EQ_I64(check_csv(cv, "discover_kernel_stats.csv", 8, &rows), 0);
    T_EQ_I64(rows, 4);
    T_EQ_I64(check_csv(cv, "discover_domain_stats.csv", 8, &rows), 0);
    T_EQ_I64(rows, 1);
    T_EQ_I64(check_csv(cv, "discover_agent_info.csv", 53, &rows), 0);
    /* kernel_stats agrees with kernel_trace for synth_kernel_0 (9 calls) */
    char path[8192];
    snprintf(path, sizeof path, "%s/discover_kernel_trace.csv", cv);
    char *trace = read_all(path, NULL);
    unsigned long long calls = 0, total = 0, mn = ~0ull, mx = 0;
    for (char *line = trace ? strchr(trace, '\n') : NULL; line && line[1]; line = strchr(line + 1, '\n')) {
        char one[1024];
        const char *nl = strchr(line + 1, '\n');
        size_t len = nl ? (size_t)(nl - line - 1) : strlen(line + 1);
        snprintf(one, sizeof one, "%.*s", (int)len, line + 1);
        if (!strstr(one, ",\"synth_kernel_0\","))
            continue;
        char *q = strstr(one, ",\"synth_kernel_0\",") + strlen(",\"synth_kernel_0\",");
        unsigned long long corr, start, end;
        if (sscanf(q, "%llu,%llu,%llu", &corr, &start, &end) == 3) {
            calls++;
            total += end - start;
            if (end - start < mn) mn = end - start;
            if (end - start > mx) mx = end - start;
        }
    }
    free(trace);
    T_EQ_U64(calls, 9);
    snprintf(path, sizeof path, "%s/discover_kernel_stats.csv", cv);
    char *stats = read_all(path, NULL);
    char *line = stats ? strstr(stats, "\n\"synth_kernel_0\",") : NULL;
    T_CHECK(line != NULL);
    if (line) {
        unsigned long long c, t, lo, hi;
        double avg, pct;
        T_EQ_I64(sscanf(line + strlen("\n\"synth_kernel_0\","), "%llu,%llu,%lf,%lf,%llu,%llu", &c, &t, &avg, &pct,
                        &lo, &hi), 6);
        T_EQ_U64(c, calls);
        T_EQ_U64(t, total);
        T_EQ_U64(lo, mn);
        T_EQ_U64(hi, mx);
        T_NEAR(avg, (double)total / (double)calls, 1e-6);
        /* the synthetic kernel dominates the discovery run: it is the first row */
        T_CHECK(strncmp(strchr(stats, '\n') + 1, "\"synth_kernel_0\",", 17) == 0);
    }
    free(stats);

    /* the committed example equals a fresh generation, byte for byte */
    const char *src = getenv("KR_SRC");
    if (src && *src) {
        char committed[4096];
        snprintf(committed, sizeof committed, "%s/examples/synth_gfx950", src);
        struct stat st;
        if (stat(committed, &st) == 0)
            T_EQ_I64(tree_diff(committed, dir), 0);
        else
            printf("test_synth: %s absent, committed-example comparison skipped\n", committed);
    }
    t_rm_rf(dir);
    free(dir);
}

static void test_run_and_errors(void)
{
    synth_opts o;
    synth_opts_default(&o);
    o.layout = SYNTH_LAYOUT_RUN;
    char *dir;
    T_EQ_I64(write_bundle(&o, &dir), 0);
    T_CHECK(file_exists(dir, "out_results.json"));
    T_CHECK(file_exists(dir, "out_agent_info.csv"));
    int rows;
    T_EQ_I64(check_csv(dir, "out_kernel_trace.csv", 22, &rows), 0);
    T_EQ_I64(rows, 16);
    char cap[4096];
    T_EQ_I64(find_entry(dir, "ui_output_agent_24601_dispatch_14", cap, sizeof cap), 1);
    expect ex = {1, 8, 3, 0};
    check_capture(cap, &ex);
    /* the empty shell of the earlier traced dispatch (docs/formats.md#capture-files) */
    char shell[4096];
    T_EQ_I64(find_entry(dir, "ui_output_agent_24601_dispatch_12", shell, sizeof shell), 1);
    json_t *fn = load_json(shell, "filenames.json"), *code = load_json(shell, "code.json");
    T_CHECK(fn && json_is_null(json_object_get(fn, "wave_filenames")));
    T_CHECK(code && json_is_null(json_object_get(code, "code")));
    T_CHECK(file_exists(shell, "occupancy.json") && file_exists(shell, "realtime.json"));
    /* every occupancy kernel id is a key of dispatches (docs/formats.md#occupancy-events), in the shell too */
    json_t *occ = load_json(shell, "occupancy.json");
    json_t *disp = json_object_get(occ, "dispatches");
    int unknown = 0;
    size_t nrows = 0;
    for (unsigned se = 0; se < 4; se++) {
        char key[4];
        snprintf(key, sizeof key, "%u", se);
        json_t *r = json_object_get(occ, key);
        for (size_t i = 0; i < json_array_size(r); i++, nrows++) {
            char id[24];
            snprintf(id, sizeof id, "%lld", (long long)ji(json_array_get(r, i), 5));
            if (!json_object_get(disp, id))
                unknown++;
        }
    }
    T_CHECK(nrows > 0);
    T_EQ_I64(unknown, 0);
    json_decref(occ);
    json_decref(fn);
    json_decref(code);
    t_rm_rf(dir);
    free(dir);

    /* usage errors, and a failed run leaves nothing behind */
    kr_err e;
    dir = make_tmp();
    char target[4096];
    snprintf(target, sizeof target, "%s/new/deeper", dir);
    synth_opts_default(&o);
    o.waves = 0;
    T_EQ_I64(synth_write(&o, target, &e), KR_USAGE);
    o.waves = SYNTH_MAX_WAVES + 1;
    T_EQ_I64(synth_write(&o, target, &e), KR_USAGE);
    o.waves = 8;
    o.iterations = 0;
    T_EQ_I64(synth_write(&o, target, &e), KR_USAGE);
    T_CHECK(!file_exists(dir, "new"));
    /* a file where the directory should be: exit 4 */
    char blocker[4096];
    snprintf(blocker, sizeof blocker, "%s/file", dir);
    FILE *f = fopen(blocker, "w");
    if (f)
        fclose(f);
    synth_opts_default(&o);
    T_EQ_I64(synth_write(&o, blocker, &e), KR_OUTPUT);
    snprintf(target, sizeof target, "%s/file/sub", dir);
    T_EQ_I64(synth_write(&o, target, &e), KR_OUTPUT);
    /* parents are created */
    snprintf(target, sizeof target, "%s/a/b", dir);
    T_EQ_I64(synth_write(&o, target, &e), 0);
    T_EQ_I64(find_entry(target, "ui_output_agent_", cap, sizeof cap), 1);
    t_rm_rf(dir);
    free(dir);
}

static void test_size(void)
{
    synth_opts o;
    synth_opts_default(&o);
    o.waves = 32;
    o.size_mb = 2;
    synth_plan plan;
    kr_err e;
    T_EQ_I64(synth_plan_make(&o, &plan, &e), 0);
    T_EQ_U64(plan.ncaptures, 1);
    T_CHECK(plan.cap[0].iterations > 3);
    char *dir;
    T_EQ_I64(write_bundle(&o, &dir), 0);
    char cap[4096];
    T_EQ_I64(find_entry(dir, "ui_output_agent_", cap, sizeof cap), 1);
    uint64_t total = 0;
    DIR *d = opendir(cap);
    struct dirent *ent;
    while (d && (ent = readdir(d)) != NULL)
        if (strncmp(ent->d_name, "se", 2) == 0) {
            char p[8192];
            struct stat st;
            snprintf(p, sizeof p, "%s/%s", cap, ent->d_name);
            if (stat(p, &st) == 0)
                total += (uint64_t)st.st_size;
        }
    if (d)
        closedir(d);
    T_CHECK(total > (2u << 20) * 9 / 10 && total < (2u << 20) * 11 / 10);
    expect ex = {1, 32, plan.cap[0].iterations, 0};
    check_capture(cap, &ex);
    t_rm_rf(dir);
    free(dir);
}

int main(void)
{
    test_default_capture();
    test_jitter_and_gfx942();
    test_example();
    test_run_and_errors();
    test_size();
    return t_done("test_synth");
}
