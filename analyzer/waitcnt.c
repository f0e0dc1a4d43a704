/* waitcnt.c — see waitcnt.h. Rules: docs/waits.md#producer-links (the writer's
 * waitcnt/{analysis,gfx9,gfx10,gfx12}.cpp); every test below is on the full
 * ISA text, case-sensitive, as the writer does it. */
#include "analyzer/waitcnt.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"

/* Instruction types (low 8 bits) and counter bits of a WAITCNT. */
enum {
    T_NOT_MEM = 1,
    T_SCALAR,
    T_LDS,          /* gfx9/10 LDS_MSG, gfx12 LDS */
    T_LDS_DIRECT,   /* gfx12 */
    T_MSG,          /* gfx12 */
    T_MSG_RTN,      /* gfx10/12 */
    T_GLOBAL,       /* gfx9 */
    T_GLOBAL_LOAD,
    T_GLOBAL_STOR,
    T_FLAT,         /* gfx9 */
    T_FLAT_LOAD,
    T_FLAT_STOR,
    T_BVH,          /* gfx12 */
    T_WAITCNT
};
#define TYPE_MASK 0xff
#define B_LGKM   (1 << 8)
#define B_VM     (1 << 9)
#define B_VS     (1 << 10)
#define B_DS     (1 << 11)
#define B_BVH    (1 << 12)
#define B_EXP    (1 << 13)
#define B_KM     (1 << 14)
#define B_LOAD   (1 << 15)
#define B_STORE  (1 << 16)
#define B_SAMPLE (1 << 17)
#define B_IDLE   (1 << 18)

static int starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }
static int has(const char *s, const char *p) { return strstr(s, p) != NULL; }
/* std::string::find(p) <= 1: found at position 0 or 1. */
static int at01(const char *s, const char *p)
{
    const char *q = strstr(s, p);
    return q && q - s <= 1;
}

static int classify_gfx9(const char *t)
{
    if (starts(t, "s_waitcnt")) {
        int type = T_WAITCNT;
        if (has(t, "lgk")) type |= B_LGKM;
        if (has(t, "vmcnt")) type |= B_VM;
        return type;
    }
    if (starts(t, "v_")) return T_NOT_MEM;
    if (starts(t, "s_")) {
        if (starts(t, "s_load") || starts(t, "s_store")) return T_SCALAR;
        if (starts(t, "s_sendmsg")) return T_LDS;
        return T_NOT_MEM;
    }
    if (starts(t, "global_") || at01(t, "buffer_") || starts(t, "scratch_")) return T_GLOBAL;
    if (starts(t, "flat_")) return T_FLAT;
    if (starts(t, "ds_")) return T_LDS;
    return T_NOT_MEM;
}

static int classify_gfx10(const char *t)
{
    if (starts(t, "s_wait")) {
        if (has(t, "s_wait_alu")) return T_NOT_MEM;
        int type = T_WAITCNT;
        if (has(t, "lgkm")) type |= B_LGKM;
        if (has(t, "vscnt")) type |= B_VS;
        if (has(t, "vmcnt")) type |= B_VM;
        return type;
    }
    if (starts(t, "v_")) return T_NOT_MEM;
    if (starts(t, "s_")) {
        if (starts(t, "s_load") || starts(t, "s_store")) return T_SCALAR;
        if (starts(t, "s_sendmsg"))
            return starts(t, "s_sendmsg_rtn") ? T_MSG_RTN : T_LDS;
        return T_NOT_MEM;
    }
    int store = has(t, "store");
    if (starts(t, "global_") || at01(t, "buffer_") || starts(t, "scratch_"))
        return store ? T_GLOBAL_STOR : T_GLOBAL_LOAD;
    if (starts(t, "flat_")) return store ? T_FLAT_STOR : T_FLAT_LOAD;
    if (starts(t, "ds_")) return T_LDS;
    return T_NOT_MEM;
}

static int classify_gfx12(const char *t)
{
    if (starts(t, "s_wait")) {
        if (has(t, "s_wait_alu")) return T_NOT_MEM;
        if (has(t, "s_wait_idle")) return T_WAITCNT | B_IDLE;
        int type = T_WAITCNT;
        if (has(t, "dscnt")) type |= B_DS;
        if (has(t, "bvhcnt")) type |= B_BVH;
        if (has(t, "expcnt")) type |= B_EXP;
        if (has(t, "kmcnt")) type |= B_KM;
        if (has(t, "loadcnt")) type |= B_LOAD;
        if (has(t, "storecnt")) type |= B_STORE;
        if (has(t, "samplecnt")) type |= B_SAMPLE;
        return type;
    }
    if (starts(t, "v_")) return T_NOT_MEM;
    if (starts(t, "s_")) {
        if (starts(t, "s_load") || starts(t, "s_store")) return T_SCALAR;
        if (starts(t, "s_sendmsg"))
            return starts(t, "s_sendmsg_rtn") ? T_MSG_RTN : T_MSG;
        return T_NOT_MEM;
    }
    if (has(t, "_bvh")) return T_BVH;
    if (at01(t, "ds_"))
        return (has(t, "param_load") || has(t, "ds_direct")) ? T_LDS_DIRECT : T_LDS;
    int store = has(t, "store") || starts(t, "global_wb");
    if (starts(t, "global_") || at01(t, "buffer_") || starts(t, "scratch_"))
        return store ? T_GLOBAL_STOR : T_GLOBAL_LOAD;
    if (starts(t, "flat_")) return store ? T_FLAT_STOR : T_FLAT_LOAD;
    return T_NOT_MEM;
}

/* 9, 10 (also 11) or 12; 0 when gfxip has no algorithm. */
static int family(int64_t gfxip)
{
    if (gfxip == 9) return 9;
    if (gfxip == 10 || gfxip == 11) return 10;
    if (gfxip == 12) return 12;
    return 0;
}

static int classify(int fam, const char *t)
{
    return fam == 9 ? classify_gfx9(t) : fam == 10 ? classify_gfx10(t) : classify_gfx12(t);
}

int an_waitcnt_is_producer(int64_t gfxip, const char *isa)
{
    int fam = family(gfxip);
    if (!fam || !isa)
        return 0;
    int type = classify(fam, isa) & TYPE_MASK;
    return type != T_NOT_MEM && type != T_WAITCNT;
}

int an_waitcnt_is_wait(int64_t gfxip, const char *isa)
{
    int fam = family(gfxip);
    return fam && isa && (classify(fam, isa) & TYPE_MASK) == T_WAITCNT;
}

/* C atoi with a defined result on overflow (clamped to int). */
static int64_t c_atoi(const char *s, int base)
{
    char *end;
    long long v = strtoll(s, &end, base);
    if (v > INT_MAX) return INT_MAX;
    if (v < INT_MIN) return INT_MIN;
    return v;
}

int64_t an_waitcnt_extract(const char *str, const char *name)
{
    const char *pos = strstr(str, name);
    size_t size = strlen(str);
    if (!pos)
        return 0;
    size_t iter = (size_t)(pos - str) + strlen(name) + 1;
    if (iter >= size)
        return 0;
    if (!strstr(str, "0x"))
        return c_atoi(str + iter, 10);
    while (iter < size && str[iter] == ' ')
        iter++;
    if (iter + 2 < size && str[iter] == '0' && str[iter + 1] == 'x')
        return c_atoi(str + iter + 2, 16);
    if (iter < size)
        return c_atoi(str + iter, 10);
    return 0;
}

/* ---- growable lists ---- */

typedef struct ulist {
    uint32_t *v;
    size_t head, len, cap;   /* live elements v[head .. len) */
} ulist;

static int ul_push(ulist *l, uint32_t x)
{
    if (l->len == l->cap) {
        if (l->head > 0 && l->head * 2 >= l->len) {   /* reclaim the consumed front */
            memmove(l->v, l->v + l->head, (l->len - l->head) * sizeof *l->v);
            l->len -= l->head;
            l->head = 0;
        } else {
            size_t cap = l->cap ? l->cap * 2 : 16;
            uint32_t *v = realloc(l->v, cap * sizeof *v);
            if (!v)
                return -1;
            l->v = v;
            l->cap = cap;
        }
    }
    l->v[l->len++] = x;
    return 0;
}

static size_t ul_size(const ulist *l) { return l->len - l->head; }
static void ul_clear(ulist *l) { l->head = l->len = 0; }

typedef struct counter {
    const char *name;
    int parallel;            /* order PARALLEL (1) or SEQUENTIAL (0) */
    ulist list;
} counter;

typedef struct run {
    an_waitcnt *out;
    const kr_inst *insts;    /* the lists hold record indices into this */
    size_t cur;              /* index of the record being handled */
    size_t pcap, wcap;
    int oom;
} run;

/* rec: index of the producer's record; the output gets its LineNumber and,
 * in producer_recs, the index itself. */
static void emit_producer(run *r, uint32_t rec)
{
    an_waitcnt *o = r->out;
    if (r->oom)
        return;
    if (o->nproducers == r->pcap) {
        size_t cap = r->pcap ? r->pcap * 2 : 64;
        uint32_t *p = realloc(o->producers, cap * sizeof *p);
        if (p)
            o->producers = p;
        uint32_t *q = p ? realloc(o->producer_recs, cap * sizeof *q) : NULL;
        if (!p || !q) {
            r->oom = 1;
            return;
        }
        o->producer_recs = q;
        r->pcap = cap;
    }
    o->producer_recs[o->nproducers] = rec;
    o->producers[o->nproducers++] = r->insts[rec].line;
}

static void emit_entry(run *r, uint32_t wait_line, size_t first)
{
    an_waitcnt *o = r->out;
    if (r->oom)
        return;
    if (o->nwaits == r->wcap) {
        size_t cap = r->wcap ? r->wcap * 2 : 32;
        kr_wait_entry *w = realloc(o->waits, cap * sizeof *w);
        if (w)
            o->waits = w;
        uint32_t *q = w ? realloc(o->wait_recs, cap * sizeof *q) : NULL;
        if (!w || !q) {
            r->oom = 1;
            return;
        }
        o->wait_recs = q;
        r->wcap = cap;
    }
    o->wait_recs[o->nwaits] = (uint32_t)r->cur;
    o->waits[o->nwaits].wait_line = wait_line;
    o->waits[o->nwaits].first = (uint32_t)first;
    o->waits[o->nwaits].n = (uint32_t)(o->nproducers - first);
    o->nwaits++;
}

/* MemoryCounter::handle_mem_op: appends the released producers (all flats,
 * then the oldest len - n of the list) to the output; returns how many. */
static size_t handle(run *r, counter *c, const char *text, ulist *flats)
{
    int64_t n = an_waitcnt_extract(text, c->name);
    if (n == 0)
        c->parallel = 0;
    if (c->parallel)
        return 0;
    size_t before = r->out->nproducers;
    for (size_t i = flats->head; i < flats->len; i++)
        emit_producer(r, flats->v[i]);
    ul_clear(flats);
    int64_t size = (int64_t)ul_size(&c->list);
    int64_t k = size - n;
    if (k < 0) k = 0;
    if (k > size) k = size;
    for (int64_t i = 0; i < k; i++)
        emit_producer(r, c->list.v[c->list.head + (size_t)i]);
    c->list.head += (size_t)k;
    if (c->list.head == c->list.len)
        ul_clear(&c->list);
    return r->out->nproducers - before;
}

/* Releases through one counter and emits an entry when something was released. */
static void wait_one(run *r, counter *c, const char *text, ulist *flats, uint32_t line)
{
    size_t first = r->out->nproducers;
    if (handle(r, c, text, flats) > 0)
        emit_entry(r, line, first);
}

/* gfx10 lgkmcnt / gfx12 dscnt: flat loads first, then (if that released
 * anything and flat stores are pending) flat stores into the same entry. */
static void wait_joined(run *r, counter *c, const char *text, ulist *flat_load,
                        ulist *flat_stor, uint32_t line)
{
    size_t first = r->out->nproducers;
    if (handle(r, c, text, flat_load) > 0) {
        if (ul_size(flat_stor) > 0)
            handle(r, c, text, flat_stor);
        emit_entry(r, line, first);
    }
}

static void clear_to(run *r, counter *c)
{
    for (size_t i = c->list.head; i < c->list.len; i++)
        emit_producer(r, c->list.v[i]);
    ul_clear(&c->list);
}

enum { C_LGKM, C_VM, C_VS, C_LOAD, C_STORE, C_SAMPLE, C_DS, C_KM, C_EXP, C_BVH, C_N };

int an_waitcnt_links(int64_t gfxip, const kr_inst *insts, size_t n,
                     an_isa_of_line isa_of_line, void *ctx, an_waitcnt *out)
{
    memset(out, 0, sizeof *out);
    int fam = family(gfxip);
    if (!fam)
        return 0;
    out->supported = 1;

    static const char *const names[C_N] = {"lgkmcnt", "vmcnt", "vscnt", "loadcnt", "storecnt",
                                           "samplecnt", "dscnt", "kmcnt", "expcnt", "bvhcnt"};
    counter ctr[C_N];
    memset(ctr, 0, sizeof ctr);
    for (int i = 0; i < C_N; i++)
        ctr[i].name = names[i];
    ulist flats = {0}, flat_load = {0}, flat_stor = {0}, empty = {0};
    run r = {out, insts, 0, 0, 0, 0};

    /* Text and type per LineNumber, looked up and classified once. */
    uint32_t maxline = 0;
    for (size_t i = 0; i < n; i++)
        if (insts[i].line > maxline)
            maxline = insts[i].line;
    typedef struct known { const char *t; int type; } known;
    known *seen = calloc((size_t)maxline + 1, sizeof *seen);
    if (!seen)
        return KR_INTERNAL;

    for (size_t i = 0; i < n && !r.oom; i++) {
        uint32_t line = insts[i].line;
        uint32_t rec = (uint32_t)i;   /* what the counter lists hold */
        r.cur = i;
        if (line == 0)                   /* unknown PC */
            continue;
        if (!seen[line].type) {
            seen[line].t = isa_of_line(ctx, line);
            seen[line].type = seen[line].t && *seen[line].t ? classify(fam, seen[line].t) : -1;
        }
        const char *t = seen[line].t;
        if (seen[line].type < 0) {
            out->stopped = 1;
            out->stop_index = i;
            break;
        }
        int type = seen[line].type;
        int kind = type & TYPE_MASK;
        if (kind == T_NOT_MEM)
            continue;
        int bad = 0;
        if (fam == 9) {
            switch (kind) {
            case T_LDS: bad = ul_push(&ctr[C_LGKM].list, rec); break;
            case T_SCALAR: ctr[C_LGKM].parallel = 1; bad = ul_push(&ctr[C_LGKM].list, rec); break;
            case T_GLOBAL: bad = ul_push(&ctr[C_VM].list, rec); break;
            case T_FLAT:
                ctr[C_LGKM].parallel = ctr[C_VM].parallel = 1;
                bad = ul_push(&flats, rec);
                break;
            case T_WAITCNT:
                if (type & B_LGKM) wait_one(&r, &ctr[C_LGKM], t, &flats, line);
                if (type & B_VM) wait_one(&r, &ctr[C_VM], t, &flats, line);
                break;
            }
        } else if (fam == 10) {
            switch (kind) {
            case T_LDS: bad = ul_push(&ctr[C_LGKM].list, rec); break;
            case T_MSG_RTN:   /* increments by 2 */
                bad = ul_push(&ctr[C_LGKM].list, rec) || ul_push(&ctr[C_LGKM].list, rec);
                break;
            case T_SCALAR: ctr[C_LGKM].parallel = 1; bad = ul_push(&ctr[C_LGKM].list, rec); break;
            case T_GLOBAL_LOAD: bad = ul_push(&ctr[C_VM].list, rec); break;
            case T_GLOBAL_STOR: bad = ul_push(&ctr[C_VS].list, rec); break;
            case T_FLAT_LOAD:
                ctr[C_LGKM].parallel = ctr[C_VM].parallel = 1;
                bad = ul_push(&flat_load, rec);
                break;
            case T_FLAT_STOR:
                ctr[C_LGKM].parallel = ctr[C_VS].parallel = 1;
                bad = ul_push(&flat_stor, rec);
                break;
            case T_WAITCNT:
                if (type & B_VS) wait_one(&r, &ctr[C_VS], t, &flat_stor, line);
                if (type & B_VM) wait_one(&r, &ctr[C_VM], t, &flat_load, line);
                if (type & B_LGKM) wait_joined(&r, &ctr[C_LGKM], t, &flat_load, &flat_stor, line);
                break;
            }
        } else {
            switch (kind) {
            case T_LDS: bad = ul_push(&ctr[C_DS].list, rec); break;
            case T_LDS_DIRECT: bad = ul_push(&ctr[C_EXP].list, rec); break;
            case T_MSG: bad = ul_push(&ctr[C_KM].list, rec); break;
            case T_MSG_RTN:
                bad = ul_push(&ctr[C_KM].list, rec) || ul_push(&ctr[C_KM].list, rec);
                break;
            case T_SCALAR: ctr[C_KM].parallel = 1; bad = ul_push(&ctr[C_KM].list, rec); break;
            case T_GLOBAL_LOAD: bad = ul_push(&ctr[C_LOAD].list, rec); break;
            case T_GLOBAL_STOR: bad = ul_push(&ctr[C_STORE].list, rec); break;
            case T_FLAT_LOAD:
                ctr[C_DS].parallel = ctr[C_LOAD].parallel = 1;
                bad = ul_push(&flat_load, rec);
                break;
            case T_FLAT_STOR:
                ctr[C_DS].parallel = ctr[C_STORE].parallel = 1;
                bad = ul_push(&flat_stor, rec);
                break;
            case T_BVH: bad = ul_push(&ctr[C_BVH].list, rec); break;
            case T_WAITCNT:
                if (type & B_BVH) wait_one(&r, &ctr[C_BVH], t, &empty, line);
                if (type & B_EXP) wait_one(&r, &ctr[C_EXP], t, &empty, line);
                if (type & B_SAMPLE) wait_one(&r, &ctr[C_SAMPLE], t, &empty, line);
                if (type & B_KM) wait_one(&r, &ctr[C_KM], t, &empty, line);
                if (type & B_STORE) wait_one(&r, &ctr[C_STORE], t, &flat_stor, line);
                if (type & B_LOAD) wait_one(&r, &ctr[C_LOAD], t, &flat_load, line);
                if (type & B_DS) wait_joined(&r, &ctr[C_DS], t, &flat_load, &flat_stor, line);
                if (type & B_IDLE) {
                    /* The writer emits this entry even when nothing was pending. */
                    size_t first = out->nproducers;
                    static const int order[] = {C_LOAD, C_STORE, C_SAMPLE, C_DS, C_KM, C_EXP, C_BVH};
                    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++)
                        clear_to(&r, &ctr[order[k]]);
                    emit_entry(&r, line, first);
                }
                break;
            }
        }
        if (bad)
            r.oom = 1;
    }

    free(seen);
    for (int i = 0; i < C_N; i++)
        free(ctr[i].list.v);
    free(flats.v);
    free(flat_load.v);
    free(flat_stor.v);
    if (r.oom) {
        an_waitcnt_free(out);
        return KR_INTERNAL;
    }
    return 0;
}

static const char *capture_isa(void *ctx, uint32_t line)
{
    const kr_code_row *row = kr_capture_row((const kr_capture *)ctx, line);
    return row ? row->isa : NULL;
}

int an_waitcnt_wave(const kr_capture *c, const kr_wave *w, an_waitcnt *out)
{
    return an_waitcnt_links(c->gfxip, w->insts, w->ninsts, capture_isa, (void *)c, out);
}

void an_waitcnt_free(an_waitcnt *out)
{
    free(out->waits);
    free(out->producers);
    free(out->wait_recs);
    free(out->producer_recs);
    out->waits = NULL;
    out->producers = NULL;
    out->wait_recs = NULL;
    out->producer_recs = NULL;
    out->nwaits = out->nproducers = 0;
}
