/* test_load_stream.c — the streamed capture load (bundle/capture.h with a
 * kr_wave_sink, model.h): every wave the sink sees, and every stream it
 * asked to keep, equals the wave of the whole (in-memory) load, at 1 and 2
 * threads and for every KR_SINK_KEEP_* choice; dropped streams are reused
 * by the waves parsed after them. Inputs: a generated capture whose waves
 * differ in size (spare arrays that are too small, too big or absent) and
 * the hub captures when present. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/capture.h"
#include "common/file.h"
#include "tests/unit/t.h"

/* 1 when the streams of a and b are equal (records with their rows). */
static int streams_same(const kr_wave *a, const kr_wave *b, int records, int timeline)
{
    if (records) {
        if (a->ninsts != b->ninsts || a->nwaits != b->nwaits || a->nproducers != b->nproducers)
            return 0;
        for (size_t i = 0; i < a->ninsts; i++) {
            const kr_inst *x = &a->insts[i], *y = &b->insts[i];
            if (x->time != y->time || x->cat != y->cat || x->stall != y->stall || x->dur != y->dur ||
                x->line != y->line || x->row != y->row)
                return 0;
        }
        for (size_t i = 0; i < a->nwaits; i++)
            if (a->waits[i].wait_line != b->waits[i].wait_line || a->waits[i].first != b->waits[i].first ||
                a->waits[i].n != b->waits[i].n)
                return 0;
        for (size_t i = 0; i < a->nproducers; i++)
            if (a->producers[i] != b->producers[i])
                return 0;
    }
    if (timeline) {
        if (a->ntimeline != b->ntimeline)
            return 0;
        for (size_t i = 0; i < a->ntimeline; i++)
            if (a->timeline[i].state != b->timeline[i].state || a->timeline[i].cycles != b->timeline[i].cycles)
                return 0;
    }
    return a->has_waitcnt == b->has_waitcnt && a->bytes == b->bytes;
}

typedef struct probe {
    const kr_capture *ref;       /* the whole load */
    unsigned keep;
    size_t seen, mismatched, groups, group_waves;
    const void **insts;          /* per wave: its record array when seen */
} probe;

static int p_begin(void *acc, const kr_capture *c, int workers, unsigned *keep)
{
    probe *p = acc;
    *keep = p->keep;
    return 0;
}

static int p_wave(void *acc, const kr_capture *c, size_t i, int worker)
{
    probe *p = acc;
    __atomic_fetch_add(&p->seen, 1, __ATOMIC_RELAXED);
    if (!streams_same(&c->waves[i], &p->ref->waves[i], 1, 1))
        __atomic_fetch_add(&p->mismatched, 1, __ATOMIC_RELAXED);
    p->insts[i] = c->waves[i].insts;
    return 0;
}

/* At the group's call every wave of it still has its streams. */
static int p_group(void *acc, const kr_capture *c, const size_t *waves, size_t n, int worker)
{
    probe *p = acc;
    __atomic_fetch_add(&p->groups, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&p->group_waves, n, __ATOMIC_RELAXED);
    for (size_t k = 0; k < n; k++)
        if (!streams_same(&c->waves[waves[k]], &p->ref->waves[waves[k]], 1, 1))
            __atomic_fetch_add(&p->mismatched, 1, __ATOMIC_RELAXED);
    return 0;
}

/* Number of (SE, SIMD) groups of c. */
static size_t count_groups(const kr_capture *c)
{
    size_t n = 0;
    for (size_t i = 0; i < c->nwave_refs; i++) {
        size_t j = 0;
        while (j < i && !(c->wave_refs[j].se == c->wave_refs[i].se && c->wave_refs[j].simd == c->wave_refs[i].simd))
            j++;
        n += j == i;
    }
    return n;
}

static void check_capture(const char *dir, const char *label)
{
    kr_err err;
    kr_capture *ref = NULL;
    bundle_opts whole = {.threads = 1, .no_discover = 1, .skip_wstates = 1};
    T_EQ_I64(bundle_capture_load(dir, &whole, &ref, &err), 0);
    if (!ref) {
        fprintf(stderr, "%s: %s\n", label, err.msg);
        return;
    }
    size_t ngroups = count_groups(ref);
    static const unsigned keeps[4] = {0, KR_SINK_KEEP_TIMELINES, KR_SINK_KEEP_RECORDS,
                                      KR_SINK_KEEP_RECORDS | KR_SINK_KEEP_TIMELINES};
    /* one, two and three threads (more threads than a group has waves) */
    for (int run = 1; run <= 3; run++) {
        int threads = run;
        for (int k = 0; k < 4; k++) {
            probe p = {ref, keeps[k], 0, 0, 0, 0, calloc(ref->nwaves + 1, sizeof(void *))};
            kr_wave_sink sink = {p_begin, p_group, &p, p_wave};
            bundle_opts o = whole;
            o.threads = threads;
            o.sink = &sink;
            kr_capture *c = NULL;
            T_EQ_I64(bundle_capture_load(dir, &o, &c, &err), 0);
            T_EQ_U64(p.seen, ref->nwaves);
            T_EQ_U64(p.mismatched, 0);
            T_EQ_U64(p.groups, ngroups);
            T_EQ_U64(p.group_waves, ref->nwaves);
            if (p.mismatched)
                fprintf(stderr, "%s: threads %d keep %u: %zu mismatches\n", label, threads, keeps[k], p.mismatched);
            if (c) {
                int rec = (keeps[k] & KR_SINK_KEEP_RECORDS) != 0, tl = (keeps[k] & KR_SINK_KEEP_TIMELINES) != 0;
                size_t kept = 0, dropped = 0;
                for (size_t i = 0; i < c->nwaves; i++) {
                    kept += streams_same(&c->waves[i], &ref->waves[i], rec, tl);
                    dropped += (rec || !c->waves[i].insts) && (tl || !c->waves[i].timeline);
                }
                T_EQ_U64(kept, c->nwaves);
                T_EQ_U64(dropped, c->nwaves);
                T_EQ_U64(c->total_bytes, ref->total_bytes);
                /* One thread, records dropped, several groups: a later
                 * wave's records lie where an earlier group's were. */
                if (threads == 1 && !rec && ngroups > 1) {
                    size_t reused = 0;
                    for (size_t i = 0; i < c->nwaves; i++)
                        for (size_t j = 0; j < c->nwaves; j++)
                            reused += i != j && p.insts[i] && p.insts[i] == p.insts[j];
                    T_CHECK(reused > 0);
                }
                bundle_capture_free(c);
            }
            free(p.insts);
        }
    }
    bundle_capture_free(ref);
}

/* ---- a generated capture ---- */

/* dir/name := text; every byte written. */
static void put(const char *dir, const char *name, const char *text)
{
    char path[4096];
    size_t n = strlen(text), wrote = 0;
    FILE *f = fopen(kr_path_join(path, sizeof path, dir, name), "wb");
    if (f) {
        wrote = fwrite(text, 1, n, f);
        wrote = fclose(f) == 0 ? wrote : 0;
    }
    T_EQ_U64(wrote, n);
}

static const char *const CODE =
    "{\"code\":[[\"; k1\",0,0,\"\",1,0,0,0,0,0],[\"s_nop 0\",0,1,\"\",1,0,2,12,8,20],"
    "[\"s_endpgm\",0,2,\"\",1,4,2,80,0,10],[\"; k2\",0,3,\"\",1,64,0,0,0,0]],"
    "\"header\":\"ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle\",\"version\":\"3.0.0\"}";

/* Wave q of the generated capture: its record, timeline and waitcnt counts
 * vary with q (some waves have none of a kind, some null arrays). */
static char *wave_text(unsigned q, unsigned se, unsigned simd, unsigned slot)
{
    size_t cap = 1 << 20, n = 0;
    char *t = malloc(cap);
    unsigned ni = (q * 37u) % 200u, nt = (q * 11u) % 9u, nw = (q * 5u) % 7u;
    n += (size_t)snprintf(t + n, cap - n, "{\"duration\":10,\"name\":\"SE%u\",\"wave\":{\"begin\":100,\"end\":%u,"
                          "\"id\":0,\"simd\":%u,\"slot\":%u,\"instructions\":", se, 100 + 4 * ni + 4, simd, slot);
    if (q % 5 == 4) {
        n += (size_t)snprintf(t + n, cap - n, "null");
    } else {
        t[n++] = '[';
        for (unsigned i = 0; i < ni; i++)
            n += (size_t)snprintf(t + n, cap - n, "%s[%u,%u,%u,4,%u]", i ? "," : "", 100 + 4 * i, 1 + i % 11,
                                  i % 3, (i + q) % 5);
        t[n++] = ']';
    }
    n += (size_t)snprintf(t + n, cap - n, ",\"timeline\":[");
    for (unsigned i = 0; i < nt; i++)
        n += (size_t)snprintf(t + n, cap - n, "%s[%u,%u]", i ? "," : "", 1 + i % 4, 4 + i);
    n += (size_t)snprintf(t + n, cap - n, "],\"waitcnt\":[");
    for (unsigned i = 0; i < nw; i++) {
        n += (size_t)snprintf(t + n, cap - n, "%s[%u,[", i ? "," : "", 2);
        for (unsigned k = 0; k < (i + q) % 4; k++)
            n += (size_t)snprintf(t + n, cap - n, "%s[%u,0]", k ? "," : "", 1 + k % 2);
        n += (size_t)snprintf(t + n, cap - n, "]]");
    }
    snprintf(t + n, cap - n, "]}}");
    return t;
}

static void make_capture(const char *dir)
{
    T_EQ_I64(mkdir(dir, 0755), 0);
    char fn[8192], name[64];
    size_t n = (size_t)snprintf(fn, sizeof fn, "{\"counter_names\":[],\"gfxip\":9,\"gfxv\":\"vega\","
                                "\"global_begin_time\":0,\"version\":\"3.0.0\",\"wave_filenames\":{");
    unsigned q = 0;
    for (unsigned se = 0; se < 2; se++) {
        n += (size_t)snprintf(fn + n, sizeof fn - n, "%s\"%u\":{", se ? "," : "", se);
        for (unsigned simd = 0; simd < 3; simd++) {
            n += (size_t)snprintf(fn + n, sizeof fn - n, "%s\"%u\":{", simd ? "," : "", simd);
            for (unsigned slot = 0; slot < 3; slot++, q++) {
                snprintf(name, sizeof name, "se%u_sm%u_sl%u_wv0.json", se, simd, slot);
                char *w = wave_text(q, se, simd, slot);
                put(dir, name, w);
                free(w);
                n += (size_t)snprintf(fn + n, sizeof fn - n, "%s\"%u\":{\"0\":[\"%s\",100,200]}", slot ? "," : "",
                                      slot, name);
            }
            n += (size_t)snprintf(fn + n, sizeof fn - n, "}");
        }
        n += (size_t)snprintf(fn + n, sizeof fn - n, "}");
    }
    snprintf(fn + n, sizeof fn - n, "}}");
    put(dir, "filenames.json", fn);
    put(dir, "code.json", CODE);
}

static void rm_capture(const char *dir)
{
    char p[4096], name[64];
    for (unsigned se = 0; se < 2; se++)
        for (unsigned simd = 0; simd < 3; simd++)
            for (unsigned slot = 0; slot < 3; slot++) {
                snprintf(name, sizeof name, "se%u_sm%u_sl%u_wv0.json", se, simd, slot);
                unlink(kr_path_join(p, sizeof p, dir, name));
            }
    unlink(kr_path_join(p, sizeof p, dir, "filenames.json"));
    unlink(kr_path_join(p, sizeof p, dir, "code.json"));
    rmdir(dir);
}

int main(void)
{
    char root[] = "/tmp/kr_stream_XXXXXX";
    if (mkdtemp(root)) {
        char dir[4096];
        kr_path_join(dir, sizeof dir, root, "ui_output_agent_1_dispatch_2");
        make_capture(dir);
        check_capture(dir, "generated");
        rm_capture(dir);
        rmdir(root);
    } else {
        T_CHECK(0);
    }
    const char *hub = t_hub();
    if (!hub) {
        printf("test_load_stream: hub fixtures absent, hub part skipped\n");
    } else {
        static const char *const caps[] = {
            "examples/pa_mqa_logits_fp4/att_viewer/big/ui_output_agent_55351_dispatch_426",
            "examples/pa_mqa_logits_fp4/att_viewer/small/ui_output_agent_32435_dispatch_197",
            "examples/flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44"};
        for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
            char dir[4096];
            check_capture(kr_path_join(dir, sizeof dir, hub, caps[i]), caps[i]);
        }
    }
    return t_done("test_load_stream");
}
