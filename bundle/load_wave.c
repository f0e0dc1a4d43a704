/* load_wave.c — wave files (docs/formats.md#wave-files): the scanner fast path and the
 * jansson reference, one contract (see load_wave.h).
 *
 * Field ranges: category and timeline state fit uint8_t; stall, duration,
 * line, simd, slot, id and waitcnt lines fit uint32_t; 64-bit unsigned
 * fields (time, begin, end, duration, counts, cycles) accept 0 .. 2^63-1,
 * the integer range JSON parsers (jansson) represent; cu is any int64. The
 * second element of a waitcnt producer pair must be an integer (its value is
 * validate's business, docs/formats.md#waitcnt-arrays [V-12]) and is not stored. `se` is taken from a
 * name of the form "SE<n>" (docs/formats.md#wave-files), else 0. Arrays grow geometrically, so memory
 * stays proportional to the bytes actually read; count fields are never
 * trusted for allocation. */
#include "bundle/load_wave.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/scan.h"
#include "common/limits.h"

#define U64_FIELD_MAX ((uint64_t)INT64_MAX)

static void wave_reset(kr_wave *w)
{
    const char *file = w->file;
    memset(w, 0, sizeof *w);
    w->file = file;
}

void bundle_wave_release(kr_wave *w)
{
    free(w->insts);
    free(w->timeline);
    free(w->waits);
    free(w->producers);
    free((char *)w->name);
    wave_reset(w);
}

/* "SE<digits>" -> digits (fits uint32), else 0. */
static uint32_t se_from_name(const char *name, size_t len)
{
    if (len < 3 || len > 12 || name[0] != 'S' || name[1] != 'E')
        return 0;
    uint64_t v = 0;
    for (size_t i = 2; i < len; i++) {
        if (name[i] < '0' || name[i] > '9')
            return 0;
        v = v * 10 + (uint64_t)(name[i] - '0');
    }
    return v <= UINT32_MAX ? (uint32_t)v : 0;
}

static char *copy_name(const char *s, size_t len)
{
    char *n = malloc(len + 1);
    if (n) {
        memcpy(n, s, len);
        n[len] = '\0';
    }
    return n;
}

/* Makes room for one more element; 0 ok, -1 out of memory. The first
 * block is small: a capture of many tiny waves must not cost kilobytes per
 * wave (memory stays proportional to the bytes read). */
static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 16;
    if (ncap > KR_MAX_RECORDS_PER_WAVE)
        ncap = KR_MAX_RECORDS_PER_WAVE;
    void *t = realloc(*arr, ncap * elem);
    if (!t)
        return -1;
    *arr = t;
    *cap = ncap;
    return 0;
}

/* Room for one more element of kind k: the spare array when the wave's
 * array is still absent and a spare is there, else grow. */
static int room(bundle_wave_spare *sp, int k, void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return 0;
    if (!*arr && sp && sp->arr[k] && sp->cap[k]) {
        *arr = sp->arr[k];
        *cap = sp->cap[k] < KR_MAX_RECORDS_PER_WAVE ? sp->cap[k] : KR_MAX_RECORDS_PER_WAVE;
        sp->arr[k] = NULL;
        sp->cap[k] = 0;
        return 0;
    }
    return grow(arr, cap, n, elem);
}

/* ======================================================================
 * Scanner path
 * ====================================================================== */

enum {
    TOP_DURATION = 1 << 0, TOP_NAME = 1 << 1, TOP_NUM_INSTS = 1 << 2,
    TOP_NUM_STITCHED = 1 << 3, TOP_WAVE = 1 << 4
};
enum {
    W_BEGIN = 1 << 0, W_CU = 1 << 1, W_END = 1 << 2, W_ID = 1 << 3, W_SIMD = 1 << 4,
    W_SLOT = 1 << 5, W_INSTRUCTIONS = 1 << 6, W_TIMELINE = 1 << 7, W_WAITCNT = 1 << 8
};

static int key_is(const char *key, size_t len, const char *name)
{
    size_t n = strlen(name);
    return len == n && memcmp(key, name, n) == 0;
}

static int top_key(const char *k, size_t n)
{
    if (key_is(k, n, "duration")) return TOP_DURATION;
    if (key_is(k, n, "name")) return TOP_NAME;
    if (key_is(k, n, "num_insts")) return TOP_NUM_INSTS;
    if (key_is(k, n, "num_stitched")) return TOP_NUM_STITCHED;
    if (key_is(k, n, "wave")) return TOP_WAVE;
    return 0;
}

static int wave_key(const char *k, size_t n)
{
    if (key_is(k, n, "begin")) return W_BEGIN;
    if (key_is(k, n, "cu")) return W_CU;
    if (key_is(k, n, "end")) return W_END;
    if (key_is(k, n, "id")) return W_ID;
    if (key_is(k, n, "simd")) return W_SIMD;
    if (key_is(k, n, "slot")) return W_SLOT;
    if (key_is(k, n, "instructions")) return W_INSTRUCTIONS;
    if (key_is(k, n, "timeline")) return W_TIMELINE;
    if (key_is(k, n, "waitcnt")) return W_WAITCNT;
    return 0;
}

static int too_many(bundle_scan *s, const char *what)
{
    return bundle_scan_fail(s, s->p, "more than KR_MAX_RECORDS_PER_WAVE (%u) entries in %s",
                            (unsigned)KR_MAX_RECORDS_PER_WAVE, what);
}

static int oom(bundle_scan *s)
{
    return kr_err_set(s->err, KR_INTERNAL, s->fname, NULL, "out of memory");
}

/* Instructions and timeline: after bundle_scan_array_next, a run of
 * compact records "[a,b,...],[a,b,...]" is parsed, stored and counted in
 * one loop. Unchecked reads (scan.h): a record read by the fast readers
 * starts below s->fast_end, or right after a ',' below it; from there the
 * loop reads at most 1 + 5 * BUNDLE_SCAN_FAST_READ bytes of the record and
 * the two bytes after it, well within BUNDLE_SCAN_FAST_SPAN. A record the
 * fast readers do not accept is read by the checked tuple parser from its
 * first byte, so values and errors are the same as without the run; a
 * separator other than ",[" below fast_end (the end of the array,
 * whitespace, anything wrong) goes back to bundle_scan_array_next. */

/* ",[" at q (two bytes compared at once). */
static inline int next_record(const char *q)
{
    uint16_t two, want;
    memcpy(&two, q, 2);
    memcpy(&want, ",[", 2);
    return two == want;
}

static int scan_insts(bundle_scan *s, kr_wave *w, bundle_wave_spare *sp)
{
    static const uint64_t max[5] = {U64_FIELD_MAX, UINT8_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX};
    if (bundle_scan_null(s))
        return 0;
    bundle_scan_arr a;
    if (bundle_scan_array_open(s, &a, "wave.instructions"))
        return KR_INPUT;
    const char *fe = s->fast_end;
    kr_inst *v = NULL;
    size_t n = 0, cap = 0;
    int r;
    while ((r = bundle_scan_array_next(s, &a)) == 1) {
        const char *p = s->p;
        int compact = p < fe && *p == '[';
        for (;;) {
            uint64_t time, cat, stall, dur, line;
            const char *q = p + 1;
            if (!compact || !bundle_scan_fast_field_long(&q, max[0], ',', &time) ||
                !bundle_scan_fast_field(&q, max[1], ',', &cat) ||
                !bundle_scan_fast_field(&q, max[2], ',', &stall) ||
                !bundle_scan_fast_field(&q, max[3], ',', &dur) ||
                !bundle_scan_fast_field(&q, max[4], ']', &line)) {
                uint64_t f[5];          /* the checked path, from the record's first byte */
                s->p = p;
                if (bundle_scan_uint_tuple_slow(s, 5, max, f, "wave.instructions", n))
                    goto fail;
                q = s->p;
                time = f[0];
                cat = f[1];
                stall = f[2];
                dur = f[3];
                line = f[4];
            }
            if (n == cap) {
                s->p = q;               /* errors point after the record */
                if (n == KR_MAX_RECORDS_PER_WAVE) {
                    too_many(s, "wave.instructions");
                    goto fail;
                }
                if (room(sp, BUNDLE_SPARE_INSTS, (void **)&v, &cap, n, sizeof *v)) {
                    oom(s);
                    goto fail;
                }
            }
            kr_inst *in = &v[n++];
            in->time = time;
            in->cat = (uint8_t)cat;
            in->stall = (uint32_t)stall;
            in->dur = (uint32_t)dur;
            in->line = (uint32_t)line;
            in->row = KR_ROW_NONE;
            if (q >= fe || !next_record(q)) {
                s->p = q;
                a.count = n;            /* every element started is stored */
                break;
            }
            p = q + 1;                  /* the next element, as bundle_scan_array_next would */
            compact = 1;
        }
    }
    if (r < 0)
        goto fail;
    w->insts = v;
    w->ninsts = n;
    if (sp)
        sp->wave_cap[BUNDLE_SPARE_INSTS] = cap;
    return 0;
fail:
    free(v);
    return s->err->code ? s->err->code : KR_INPUT;
}

static int scan_timeline(bundle_scan *s, kr_wave *w, bundle_wave_spare *sp)
{
    static const uint64_t max[2] = {UINT8_MAX, U64_FIELD_MAX};
    if (bundle_scan_null(s))
        return 0;
    bundle_scan_arr a;
    if (bundle_scan_array_open(s, &a, "wave.timeline"))
        return KR_INPUT;
    const char *fe = s->fast_end;
    kr_tl *v = NULL;
    size_t n = 0, cap = 0;
    int r;
    while ((r = bundle_scan_array_next(s, &a)) == 1) {
        const char *p = s->p;
        int compact = p < fe && *p == '[';
        for (;;) {
            uint64_t state, cycles;
            const char *q = p + 1;
            if (!compact || !bundle_scan_fast_field(&q, max[0], ',', &state) ||
                !bundle_scan_fast_field(&q, max[1], ']', &cycles)) {
                uint64_t f[2];          /* the checked path, from the record's first byte */
                s->p = p;
                if (bundle_scan_uint_tuple_slow(s, 2, max, f, "wave.timeline", n))
                    goto fail;
                q = s->p;
                state = f[0];
                cycles = f[1];
            }
            if (n == cap) {
                s->p = q;               /* errors point after the record */
                if (n == KR_MAX_RECORDS_PER_WAVE) {
                    too_many(s, "wave.timeline");
                    goto fail;
                }
                if (room(sp, BUNDLE_SPARE_TIMELINE, (void **)&v, &cap, n, sizeof *v)) {
                    oom(s);
                    goto fail;
                }
            }
            v[n].state = (uint8_t)state;
            v[n].cycles = cycles;
            n++;
            if (q >= fe || !next_record(q)) {
                s->p = q;
                a.count = n;
                break;
            }
            p = q + 1;
            compact = 1;
        }
    }
    if (r < 0)
        goto fail;
    w->timeline = v;
    w->ntimeline = n;
    if (sp)
        sp->wave_cap[BUNDLE_SPARE_TIMELINE] = cap;
    return 0;
fail:
    free(v);
    return s->err->code ? s->err->code : KR_INPUT;
}

/* Messages name an element as what[i] or, with k >= 0, what[i][1][k]. */
static const char *elem_path(char *buf, size_t cap, const char *what, size_t i, long k)
{
    if (k < 0)
        snprintf(buf, cap, "%s[%zu]", what, i);
    else
        snprintf(buf, cap, "%s[%zu][1][%ld]", what, i, k);
    return buf;
}

/* After the last expected element of array a: ']' must follow. */
static int close_array(bundle_scan *s, bundle_scan_arr *a, const char *expected, const char *what,
                       size_t i, long k)
{
    int r = bundle_scan_array_next(s, a);
    if (r == 0)
        return 0;
    if (r > 0) {
        char path[128];
        return bundle_scan_fail(s, s->p, "expected %s in %s, found more elements", expected,
                                elem_path(path, sizeof path, what, i, k));
    }
    return KR_INPUT;
}

/* Before an expected element of array a: one must follow. */
static int need_element(bundle_scan *s, bundle_scan_arr *a, const char *expected, const char *what,
                        size_t i, long k)
{
    int r = bundle_scan_array_next(s, a);
    if (r == 1)
        return 0;
    if (r == 0) {
        char path[128];
        return bundle_scan_fail(s, s->p - 1, "expected %s in %s, found fewer elements", expected,
                                elem_path(path, sizeof path, what, i, k));
    }
    return KR_INPUT;
}

typedef struct producers {
    uint32_t *v;
    size_t n, cap;
    bundle_wave_spare *sp;
} producers;

static inline int push_producer(bundle_scan *s, producers *pr, uint64_t line)
{
    if (pr->n == pr->cap) {
        if (pr->n == KR_MAX_RECORDS_PER_WAVE)
            return too_many(s, "wave.waitcnt producers");
        if (room(pr->sp, BUNDLE_SPARE_PRODUCERS, (void **)&pr->v, &pr->cap, pr->n, sizeof *pr->v))
            return oom(s);
    }
    pr->v[pr->n++] = (uint32_t)line;
    return 0;
}

/* Compact entry "[L,[[P,0],...]]" with every group starting below
 * s->fast_end: 0 parsed, 1 not in that form (nothing consumed; the caller
 * rolls producers back and takes the checked path), other: error. Unchecked
 * reads: the head "[L,[" and each pair "[P,0]," touch at most
 * 2 + 2 * BUNDLE_SCAN_FAST_READ bytes from a start below fast_end, well
 * within BUNDLE_SCAN_FAST_SPAN (scan.h). */
static int wait_entry_fast(bundle_scan *s, uint64_t *line, producers *pr)
{
    const char *p = s->p, *fe = s->fast_end;
    uint64_t pl, lane;
    if (!(p < fe && *p == '['))
        return 1;
    p++;
    if (!bundle_scan_fast_field(&p, UINT32_MAX, ',', line) || *p != '[')
        return 1;
    p++;
    if (*p == ']') {
        p++;
    } else {
        for (;;) {
            if (!(p < fe && *p == '['))
                return 1;
            p++;
            /* A lane other than 0 is rare: the checked path counts it. */
            if (!bundle_scan_fast_field(&p, UINT32_MAX, ',', &pl) ||
                !bundle_scan_fast_field(&p, U64_FIELD_MAX, ']', &lane) || lane != 0)
                return 1;
            int rc = push_producer(s, pr, pl);
            if (rc)
                return rc;
            if (*p == ',') {
                p++;
                continue;
            }
            if (*p != ']')
                return 1;
            p++;
            break;
        }
    }
    if (*p != ']')
        return 1;
    s->p = p + 1;
    return 0;
}

static int scan_waitcnt(bundle_scan *s, kr_wave *w, bundle_wave_spare *sp)
{
    if (bundle_scan_null(s))
        return 0;
    bundle_scan_arr a;
    if (bundle_scan_array_open(s, &a, "wave.waitcnt"))
        return KR_INPUT;
    kr_wait_entry *v = NULL;
    producers pr = {NULL, 0, 0, sp};
    size_t n = 0, cap = 0;
    static const char entry_shape[] = "[waitcnt_line, [[producer_line, 0], ...]]";
    static const char pair_shape[] = "[producer_line, 0]";
    int r;
    while ((r = bundle_scan_array_next(s, &a)) == 1) {
        if (n == cap) {
            if (n == KR_MAX_RECORDS_PER_WAVE) {
                too_many(s, "wave.waitcnt");
                goto fail;
            }
            if (room(sp, BUNDLE_SPARE_WAITS, (void **)&v, &cap, n, sizeof *v)) {
                oom(s);
                goto fail;
            }
        }
        kr_wait_entry *e = &v[n];
        uint64_t line = 0;
        size_t first = pr.n;
        int fast = wait_entry_fast(s, &line, &pr);
        if (fast != 0 && fast != 1)
            goto fail;
        if (fast == 1) {
            /* checked path, from the start of the entry */
            pr.n = first;
            bundle_scan_arr ea, pa;
            if (bundle_scan_array_open(s, &ea, "wave.waitcnt entry") ||
                need_element(s, &ea, entry_shape, "wave.waitcnt", n, -1) ||
                bundle_scan_uint(s, UINT32_MAX, &line, "wave.waitcnt[%zu][0]", n) ||
                need_element(s, &ea, entry_shape, "wave.waitcnt", n, -1) ||
                bundle_scan_array_open(s, &pa, "wave.waitcnt producers"))
                goto fail;
            long k = 0;
            while ((r = bundle_scan_array_next(s, &pa)) == 1) {
                bundle_scan_arr qa;
                uint64_t pl = 0;
                int64_t lane = 0;
                if (bundle_scan_array_open(s, &qa, "wave.waitcnt producer") ||
                    need_element(s, &qa, pair_shape, "wave.waitcnt", n, k) ||
                    bundle_scan_uint(s, UINT32_MAX, &pl, "wave.waitcnt[%zu][1][%ld][0]", n, k) ||
                    need_element(s, &qa, pair_shape, "wave.waitcnt", n, k) ||
                    bundle_scan_sint(s, INT64_MIN, INT64_MAX, &lane, "wave.waitcnt[%zu][1][%ld][1]", n, k) ||
                    close_array(s, &qa, pair_shape, "wave.waitcnt", n, k) ||
                    push_producer(s, &pr, pl))
                    goto fail;
                if (lane != 0)
                    w->waitcnt_nonzero_lanes++;
                k++;
            }
            if (r < 0 || close_array(s, &ea, entry_shape, "wave.waitcnt", n, -1))
                goto fail;
        }
        e->wait_line = (uint32_t)line;
        e->first = (uint32_t)first;
        e->n = (uint32_t)(pr.n - first);
        n++;
    }
    if (r < 0)
        goto fail;
    w->waits = v;
    w->nwaits = n;
    w->producers = pr.v;
    w->nproducers = pr.n;
    w->has_waitcnt = 1;
    if (sp) {
        sp->wave_cap[BUNDLE_SPARE_WAITS] = cap;
        sp->wave_cap[BUNDLE_SPARE_PRODUCERS] = pr.cap;
    }
    return 0;
fail:
    free(v);
    free(pr.v);
    return s->err->code ? s->err->code : KR_INPUT;
}

static int scan_wave_object(bundle_scan *s, kr_wave *w, bundle_wave_spare *sp)
{
    bundle_scan_obj o;
    if (bundle_scan_object_open(s, &o, "wave"))
        return KR_INPUT;
    unsigned seen = 0;
    const char *key;
    size_t len;
    int r;
    while ((r = bundle_scan_object_key(s, &o, &key, &len)) == 1) {
        int k = wave_key(key, len);
        if (!k) {
            if (bundle_scan_key_unique(s, &o, key, len) || bundle_scan_skip(s))
                return s->err->code;
            continue;
        }
        if (seen & (unsigned)k)
            return bundle_scan_fail(s, o.key_at, "duplicate key \"%.*s\" in wave", (int)len, key);
        seen |= (unsigned)k;
        uint64_t u;
        int rc = 0;
        switch (k) {
        case W_BEGIN: rc = bundle_scan_uint(s, U64_FIELD_MAX, &w->begin, "wave.begin"); break;
        case W_END: rc = bundle_scan_uint(s, U64_FIELD_MAX, &w->end, "wave.end"); break;
        case W_CU: rc = bundle_scan_sint(s, INT64_MIN, INT64_MAX, &w->cu, "wave.cu"); break;
        case W_ID:
            rc = bundle_scan_uint(s, UINT32_MAX, &u, "wave.id");
            w->id = (uint32_t)u;
            break;
        case W_SIMD:
            rc = bundle_scan_uint(s, UINT32_MAX, &u, "wave.simd");
            w->simd = (uint32_t)u;
            break;
        case W_SLOT:
            rc = bundle_scan_uint(s, UINT32_MAX, &u, "wave.slot");
            w->slot = (uint32_t)u;
            break;
        case W_INSTRUCTIONS: rc = scan_insts(s, w, sp); break;
        case W_TIMELINE: rc = scan_timeline(s, w, sp); break;
        default: rc = scan_waitcnt(s, w, sp); break;
        }
        if (rc)
            return rc;
    }
    if (r < 0)
        return s->err->code;
    static const struct { unsigned bit; const char *name; } required[] = {
        {W_BEGIN, "begin"}, {W_END, "end"}, {W_SIMD, "simd"}, {W_SLOT, "slot"}, {W_ID, "id"}};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!(seen & required[i].bit))
            return bundle_scan_fail(s, s->p - 1, "missing key \"wave.%s\"", required[i].name);
    return 0;
}

static int scan_top(bundle_scan *s, kr_wave *w, bundle_wave_spare *sp)
{
    bundle_scan_obj o;
    if (bundle_scan_object_open(s, &o, "the wave file"))
        return KR_INPUT;
    unsigned seen = 0;
    const char *key;
    size_t len;
    int r;
    while ((r = bundle_scan_object_key(s, &o, &key, &len)) == 1) {
        int k = top_key(key, len);
        if (!k) {
            if (bundle_scan_key_unique(s, &o, key, len) || bundle_scan_skip(s))
                return s->err->code;
            continue;
        }
        if (seen & (unsigned)k)
            return bundle_scan_fail(s, o.key_at, "duplicate key \"%.*s\"", (int)len, key);
        seen |= (unsigned)k;
        int rc = 0;
        switch (k) {
        case TOP_DURATION: rc = bundle_scan_uint(s, U64_FIELD_MAX, &w->duration, "duration"); break;
        case TOP_NUM_INSTS: rc = bundle_scan_uint(s, U64_FIELD_MAX, &w->num_insts, "num_insts"); break;
        case TOP_NUM_STITCHED:
            rc = bundle_scan_uint(s, U64_FIELD_MAX, &w->num_stitched, "num_stitched");
            break;
        case TOP_NAME: {
            const char *str;
            size_t n;
            const char *at = (bundle_scan_peek(s), s->p);
            rc = bundle_scan_string(s, &str, &n, "name");
            if (rc)
                break;
            if (n > KR_MAX_STRING_BYTES) {
                rc = bundle_scan_fail(s, at, "name longer than KR_MAX_STRING_BYTES (%u)",
                                      (unsigned)KR_MAX_STRING_BYTES);
                break;
            }
            w->name = copy_name(str, n);
            if (!w->name)
                rc = oom(s);
            w->se = se_from_name(str, n);
            break;
        }
        default: rc = scan_wave_object(s, w, sp); break;
        }
        if (rc)
            return rc;
    }
    if (r < 0)
        return s->err->code;
    if (!(seen & TOP_WAVE))
        return bundle_scan_fail(s, s->p - 1, "missing key \"wave\"");
    return 0;
}

int bundle_parse_wave(const char *data, size_t len, const char *fname, kr_wave *out, kr_err *err)
{
    return bundle_parse_wave_spare(data, len, fname, out, NULL, err);
}

int bundle_parse_wave_spare(const char *data, size_t len, const char *fname, kr_wave *out,
                            bundle_wave_spare *spare, kr_err *err)
{
    kr_err local;
    if (!err)
        err = &local;
    wave_reset(out);
    if (spare)
        memset(spare->wave_cap, 0, sizeof spare->wave_cap);
    bundle_scan s;
    bundle_scan_init(&s, data, len, fname, err);
    int rc = scan_top(&s, out, spare);
    if (!rc)
        rc = bundle_scan_finish(&s);
    bundle_scan_free(&s);
    if (!rc && !out->name && !(out->name = copy_name("", 0)))
        rc = kr_err_set(err, KR_INTERNAL, fname, NULL, "out of memory");
    if (rc) {
        bundle_wave_release(out);
        return rc;
    }
    out->bytes = len;
    return 0;
}

/* ======================================================================
 * jansson reference path
 * ====================================================================== */

typedef struct jctx {
    const char *fname;
    kr_err *err;
} jctx;

static int jfail(jctx *j, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int jfail(jctx *j, const char *path, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return kr_err_set(j->err, KR_INPUT, j->fname, path, "%s", msg);
}

/* Container nesting of v (v itself counts when it is a container), stopping
 * early once limit is exceeded. */
static int jdepth(json_t *v, int limit)
{
    int inner = 0;
    if ((json_is_object(v) || json_is_array(v)) && limit <= 0)
        return 1;
    if (json_is_object(v)) {
        const char *k;
        json_t *c;
        json_object_foreach(v, k, c) {
            int d = jdepth(c, limit - 1);
            if (d > inner)
                inner = d;
            if (inner >= limit)
                break;
        }
        return inner + 1;
    }
    if (json_is_array(v)) {
        size_t i;
        json_t *c;
        json_array_foreach(v, i, c) {
            int d = jdepth(c, limit - 1);
            if (d > inner)
                inner = d;
            if (inner >= limit)
                break;
        }
        return inner + 1;
    }
    return 0;
}

static int juint(jctx *j, json_t *v, uint64_t max, uint64_t *out, const char *path)
{
    if (!json_is_integer(v))
        return jfail(j, path, "expected integer in %s", path);
    json_int_t x = json_integer_value(v);
    if (x < 0)
        return jfail(j, path, "expected a non-negative integer in %s", path);
    if ((uint64_t)x > max)
        return jfail(j, path, "integer out of range in %s (maximum %llu)", path, (unsigned long long)max);
    *out = (uint64_t)x;
    return 0;
}

static int jsint(jctx *j, json_t *v, int64_t *out, const char *path)
{
    if (!json_is_integer(v))
        return jfail(j, path, "expected integer in %s", path);
    *out = (int64_t)json_integer_value(v);
    return 0;
}

/* v must be an array of exactly n integers within max[]. */
static int jtuple(jctx *j, json_t *v, size_t n, const uint64_t *max, uint64_t *out, const char *what,
                  size_t index)
{
    char path[128];
    snprintf(path, sizeof path, "%s[%zu]", what, index);
    if (!json_is_array(v) || json_array_size(v) != n)
        return jfail(j, path, "expected %zu integers in %s", n, path);
    for (size_t k = 0; k < n; k++) {
        char p2[160];
        snprintf(p2, sizeof p2, "%s[%zu]", path, k);
        if (juint(j, json_array_get(v, k), max[k], &out[k], p2))
            return KR_INPUT;
    }
    return 0;
}

/* 1: an array to read; 0: null; -1: error (err filled). */
static int jarray_or_null(jctx *j, json_t *v, const char *path)
{
    if (json_is_null(v))
        return 0;
    if (!json_is_array(v)) {
        jfail(j, path, "expected array or null in %s", path);
        return -1;
    }
    if (json_array_size(v) > KR_MAX_RECORDS_PER_WAVE) {
        jfail(j, path, "more than KR_MAX_RECORDS_PER_WAVE (%u) entries in %s",
              (unsigned)KR_MAX_RECORDS_PER_WAVE, path);
        return -1;
    }
    return 1;
}

static int jinsts(jctx *j, json_t *v, kr_wave *w)
{
    static const uint64_t max[5] = {U64_FIELD_MAX, UINT8_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX};
    int r = jarray_or_null(j, v, "wave.instructions");
    if (r <= 0)
        return r ? KR_INPUT : 0;
    size_t n = json_array_size(v);
    if (!n)
        return 0;
    kr_inst *a = calloc(n, sizeof *a);
    if (!a)
        return kr_err_set(j->err, KR_INTERNAL, j->fname, NULL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        uint64_t f[5];
        if (jtuple(j, json_array_get(v, i), 5, max, f, "wave.instructions", i)) {
            free(a);
            return KR_INPUT;
        }
        a[i].time = f[0];
        a[i].cat = (uint8_t)f[1];
        a[i].stall = (uint32_t)f[2];
        a[i].dur = (uint32_t)f[3];
        a[i].line = (uint32_t)f[4];
        a[i].row = KR_ROW_NONE;
    }
    w->insts = a;
    w->ninsts = n;
    return 0;
}

static int jtimeline(jctx *j, json_t *v, kr_wave *w)
{
    static const uint64_t max[2] = {UINT8_MAX, U64_FIELD_MAX};
    int r = jarray_or_null(j, v, "wave.timeline");
    if (r <= 0)
        return r ? KR_INPUT : 0;
    size_t n = json_array_size(v);
    if (!n)
        return 0;
    kr_tl *a = calloc(n, sizeof *a);
    if (!a)
        return kr_err_set(j->err, KR_INTERNAL, j->fname, NULL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        uint64_t f[2];
        if (jtuple(j, json_array_get(v, i), 2, max, f, "wave.timeline", i)) {
            free(a);
            return KR_INPUT;
        }
        a[i].state = (uint8_t)f[0];
        a[i].cycles = f[1];
    }
    w->timeline = a;
    w->ntimeline = n;
    return 0;
}

static int jwaitcnt(jctx *j, json_t *v, kr_wave *w)
{
    int r = jarray_or_null(j, v, "wave.waitcnt");
    if (r <= 0)
        return r ? KR_INPUT : 0;
    size_t n = json_array_size(v), np = 0;
    char path[128];
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(v, i);
        snprintf(path, sizeof path, "wave.waitcnt[%zu]", i);
        if (!json_is_array(e) || json_array_size(e) != 2 || !json_is_array(json_array_get(e, 1)))
            return jfail(j, path, "expected [waitcnt_line, [[producer_line, 0], ...]] in %s", path);
        np += json_array_size(json_array_get(e, 1));
    }
    if (np > KR_MAX_RECORDS_PER_WAVE)
        return jfail(j, "wave.waitcnt", "more than KR_MAX_RECORDS_PER_WAVE (%u) entries in %s",
                     (unsigned)KR_MAX_RECORDS_PER_WAVE, "wave.waitcnt producers");
    kr_wait_entry *a = n ? calloc(n, sizeof *a) : NULL;
    uint32_t *prod = np ? calloc(np, sizeof *prod) : NULL;
    if ((n && !a) || (np && !prod)) {
        free(a);
        free(prod);
        return kr_err_set(j->err, KR_INTERNAL, j->fname, NULL, "out of memory");
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(v, i);
        uint64_t line = 0;
        snprintf(path, sizeof path, "wave.waitcnt[%zu][0]", i);
        if (juint(j, json_array_get(e, 0), UINT32_MAX, &line, path))
            goto fail;
        a[i].wait_line = (uint32_t)line;
        a[i].first = (uint32_t)k;
        json_t *list = json_array_get(e, 1);
        for (size_t q = 0; q < json_array_size(list); q++) {
            json_t *pair = json_array_get(list, q);
            snprintf(path, sizeof path, "wave.waitcnt[%zu][1][%zu]", i, q);
            if (!json_is_array(pair) || json_array_size(pair) != 2) {
                jfail(j, path, "expected [producer_line, 0] in %s", path);
                goto fail;
            }
            uint64_t pl = 0;
            int64_t lane = 0;
            char p2[160];
            snprintf(p2, sizeof p2, "%s[0]", path);
            if (juint(j, json_array_get(pair, 0), UINT32_MAX, &pl, p2))
                goto fail;
            snprintf(p2, sizeof p2, "%s[1]", path);
            if (jsint(j, json_array_get(pair, 1), &lane, p2))
                goto fail;
            if (lane != 0)
                w->waitcnt_nonzero_lanes++;
            prod[k++] = (uint32_t)pl;
        }
        a[i].n = (uint32_t)(k - a[i].first);
    }
    w->waits = a;
    w->nwaits = n;
    w->producers = prod;
    w->nproducers = np;
    w->has_waitcnt = 1;
    return 0;
fail:
    free(a);
    free(prod);
    return KR_INPUT;
}

static int jwave(jctx *j, json_t *v, kr_wave *w)
{
    if (!json_is_object(v))
        return jfail(j, "wave", "expected object in wave");
    static const char *const required[] = {"begin", "end", "simd", "slot", "id"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!json_object_get(v, required[i]))
            return jfail(j, "wave", "missing key \"wave.%s\"", required[i]);
    uint64_t u = 0;
    json_t *x;
    if (juint(j, json_object_get(v, "begin"), U64_FIELD_MAX, &w->begin, "wave.begin") ||
        juint(j, json_object_get(v, "end"), U64_FIELD_MAX, &w->end, "wave.end"))
        return KR_INPUT;
    if (juint(j, json_object_get(v, "simd"), UINT32_MAX, &u, "wave.simd"))
        return KR_INPUT;
    w->simd = (uint32_t)u;
    if (juint(j, json_object_get(v, "slot"), UINT32_MAX, &u, "wave.slot"))
        return KR_INPUT;
    w->slot = (uint32_t)u;
    if (juint(j, json_object_get(v, "id"), UINT32_MAX, &u, "wave.id"))
        return KR_INPUT;
    w->id = (uint32_t)u;
    if ((x = json_object_get(v, "cu")) && jsint(j, x, &w->cu, "wave.cu"))
        return KR_INPUT;
    int rc;
    if ((x = json_object_get(v, "instructions")) && (rc = jinsts(j, x, w)))
        return rc;
    if ((x = json_object_get(v, "timeline")) && (rc = jtimeline(j, x, w)))
        return rc;
    if ((x = json_object_get(v, "waitcnt")) && (rc = jwaitcnt(j, x, w)))
        return rc;
    return 0;
}

static int jtop(jctx *j, json_t *root, kr_wave *w)
{
    if (!json_is_object(root))
        return jfail(j, "$", "expected object in the wave file");
    json_t *x;
    if ((x = json_object_get(root, "duration")) && juint(j, x, U64_FIELD_MAX, &w->duration, "duration"))
        return KR_INPUT;
    if ((x = json_object_get(root, "num_insts")) && juint(j, x, U64_FIELD_MAX, &w->num_insts, "num_insts"))
        return KR_INPUT;
    if ((x = json_object_get(root, "num_stitched")) &&
        juint(j, x, U64_FIELD_MAX, &w->num_stitched, "num_stitched"))
        return KR_INPUT;
    if ((x = json_object_get(root, "name"))) {
        if (!json_is_string(x))
            return jfail(j, "name", "expected string in name");
        size_t n = json_string_length(x);
        if (n > KR_MAX_STRING_BYTES)
            return jfail(j, "name", "name longer than KR_MAX_STRING_BYTES (%u)", (unsigned)KR_MAX_STRING_BYTES);
        if (!(w->name = copy_name(json_string_value(x), n)))
            return kr_err_set(j->err, KR_INTERNAL, j->fname, NULL, "out of memory");
        w->se = se_from_name(w->name, n);
    }
    if (!(x = json_object_get(root, "wave")))
        return jfail(j, "$", "missing key \"wave\"");
    return jwave(j, x, w);
}

int bundle_parse_wave_jansson(const char *data, size_t len, const char *fname, kr_wave *out, kr_err *err)
{
    kr_err local;
    if (!err)
        err = &local;
    kr_err_clear(err);
    wave_reset(out);
    jctx j = {fname ? fname : "", err};
    /* jansson silently drops one NUL byte that directly follows a number or
     * a literal; NUL is never valid JSON, so reject it up front. */
    const char *nul = memchr(data, '\0', len);
    if (nul) {
        size_t line, col;
        char where[64];
        bundle_scan_linecol(data, nul, &line, &col);
        snprintf(where, sizeof where, "%zu:%zu", line, col);
        return kr_err_set(err, KR_INPUT, j.fname, where, "NUL byte in input");
    }
    json_error_t je;
    json_t *root = json_loadb(data, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        char where[64];
        snprintf(where, sizeof where, "%d:%d", je.line, je.column);
        return kr_err_set(err, KR_INPUT, j.fname, where, "%s", je.text);
    }
    int rc;
    if (jdepth(root, KR_MAX_JSON_DEPTH + 1) > KR_MAX_JSON_DEPTH)
        rc = jfail(&j, "$", "nesting deeper than KR_MAX_JSON_DEPTH (%d)", KR_MAX_JSON_DEPTH);
    else
        rc = jtop(&j, root, out);
    json_decref(root);
    if (!rc && !out->name && !(out->name = copy_name("", 0)))
        rc = kr_err_set(err, KR_INTERNAL, j.fname, NULL, "out of memory");
    if (rc) {
        bundle_wave_release(out);
        return rc;
    }
    out->bytes = len;
    return 0;
}
