/* test_an_sources.c — analyzer/sources on hand-built captures, then on the
 * real hub captures against docs/formats.md#mapped-rows/docs/formats.md#source-snapshots and an independent
 * recomputation from the model. */
#include <math.h>

#include "analyzer/sources.h"
#include "bundle/capture.h"
#include "bundle/isa.h"
#include "tests/unit/t.h"

/* ---- building a capture by hand ---- */

static kr_frame *frames_of(kr_arena *a, const char *source, uint32_t *n, int32_t (*snap)(const char *))
{
    /* Split on " -> ", line after the last ':' (the chains here are simple). */
    *n = 0;
    if (!source[0])
        return NULL;
    kr_frame *f = kr_arena_array(a, 8, sizeof *f);
    const char *p = source;
    for (;;) {
        const char *q = strstr(p, " -> ");
        size_t len = q ? (size_t)(q - p) : strlen(p);
        char *piece = kr_arena_strndup(a, p, len);
        char *colon = strrchr(piece, ':');
        if (colon && colon[1]) {
            *colon = '\0';
            f[*n].line = (uint32_t)atoi(colon + 1);
        } else {
            f[*n].line = 0;
        }
        f[*n].path = piece;
        f[*n].snapshot = snap(piece);
        (*n)++;
        if (!q)
            break;
        p = q + 4;
    }
    return f;
}

static int32_t snap_ab(const char *path)
{
    if (strcmp(path, "/w/a.py") == 0)
        return 0;
    if (strcmp(path, "/w/b.py") == 0)
        return 1;
    return -1;
}

static int32_t snap_none(const char *path) { (void)path; return -1; }

typedef struct rowspec {
    const char *isa, *source;
    uint64_t vaddr, hit, lat, stall, idle;
} rowspec;

static void build(kr_capture *c, const rowspec *spec, size_t n, int32_t (*snap)(const char *))
{
    c->rows = kr_arena_array(&c->arena, n, sizeof *c->rows);
    c->nrows = n;
    uint32_t kernel = UINT32_MAX;
    for (size_t i = 0; i < n; i++) {
        kr_code_row *r = &c->rows[i];
        char m[64];
        bundle_mnemonic(spec[i].isa, m, sizeof m);
        r->isa = spec[i].isa;
        r->mnemonic = kr_arena_strdup(&c->arena, m);
        r->cls = bundle_classify(m);
        r->is_label = spec[i].isa[0] == ';';
        if (r->is_label)
            kernel = (uint32_t)i;
        r->kernel = kernel;
        r->line = (uint32_t)i;
        r->source = spec[i].source;
        r->codeobj = 1;
        r->vaddr = spec[i].vaddr;
        r->hit = spec[i].hit;
        r->latency = spec[i].lat;
        r->stall = spec[i].stall;
        r->idle = spec[i].idle;
        if (!r->is_label)
            r->frames = frames_of(&c->arena, spec[i].source, &r->nframes, snap);
    }
}

static const an_src_line *find_line(const an_sources *s, const char *path, uint32_t line)
{
    for (size_t i = 0; i < s->nlines; i++)
        if (strcmp(s->lines[i].path, path) == 0 && s->lines[i].line == line)
            return &s->lines[i];
    return NULL;
}

static void test_attribution(void)
{
    static const rowspec spec[] = {
        {"; k0", "", 100, 0, 0, 0, 0},
        {"s_mov_b32 s0, 0", "/w/a.py:10", 100, 2, 8, 0, 4},
        {"v_add_f32_e32 v1, v2, v3", "/w/a.py:12 -> /w/b.py:5", 104, 1, 20, 12, 0},
        {"s_waitcnt lgkmcnt(0)", "/w/a.py:11 -> /w/b.py:5 -> /w/b.py:5", 108, 3, 30, 30, 0},
        {"s_nop 0", "/w/b.py:40", 112, 1, 4, 4, 0},
        {"s_endpgm", "", 116, 1, 100, 0, 0},
    };
    kr_capture c;
    memset(&c, 0, sizeof c);
    kr_arena_init(&c.arena);
    build(&c, spec, sizeof spec / sizeof spec[0], snap_ab);

    /* Copy 0: a.py with 20 lines "l1".."l20"; copy 1: unsafe leaf. */
    static char text[256];
    size_t len = 0;
    for (int i = 1; i <= 20; i++)
        len += (size_t)snprintf(text + len, sizeof text - len, "l%d\n", i);
    static const char *lines[20];
    for (int i = 0, k = 0; i < (int)len; i++)
        if (i == 0 || text[i - 1] == '\n')
            lines[k++] = text + i;
    static kr_snapshot snaps[2];
    snaps[0] = (kr_snapshot){.path = "/w/a.py", .leaf = "source_0_a.py", .safe = 1, .loaded = 1,
                             .text = text, .len = len, .lines = lines, .nlines = 20};
    snaps[1] = (kr_snapshot){.path = "/w/b.py", .leaf = "../b.py", .safe = 0, .problem = "unsafe"};
    c.snapshots = snaps;
    c.nsnapshots = 2;
    c.has_snapshots_json = 1;

    an_sources_opts o;
    an_sources_opts_default(&o);
    T_EQ_U64(o.range_gap, 8);
    o.context = 1;
    an_sources s;
    T_EQ_I64(an_sources_compute(&c, &o, &s), 0);

    T_EQ_U64(s.instruction_rows, 5);
    T_EQ_U64(s.mapped_rows, 4);
    T_EQ_U64(s.nlines, 5);
    T_EQ_U64(s.distinct_lines, 4);           /* a:10, a:12, a:11, b:40 */
    T_EQ_U64(s.frames, 7);                    /* 1 + 2 + 3 + 1 */
    T_EQ_U64(s.frames_resolved, 7);
    T_EQ_U64(s.copies_used, 2);

    /* Rank: inclusive stall 42 (b:5), 30 (a:11), 12 (a:12), 4 (b:40), 0 (a:10). */
    T_EQ_STR(s.lines[0].path, "/w/b.py");
    T_EQ_U64(s.lines[0].line, 5);
    T_EQ_U64(s.lines[1].line, 11);
    T_EQ_U64(s.lines[2].line, 12);
    T_EQ_U64(s.lines[3].line, 40);
    T_EQ_U64(s.lines[4].line, 10);

    const an_src_line *b5 = find_line(&s, "/w/b.py", 5);
    T_CHECK(b5 != NULL);
    if (b5) {
        /* rows 2 and 3; row 3 lists b.py:5 twice but counts once */
        T_EQ_U64(b5->incl.hit, 4);
        T_EQ_U64(b5->incl.latency, 50);
        T_EQ_U64(b5->incl.stall, 42);
        T_EQ_U64(b5->incl_rows, 2);
        T_EQ_U64(b5->excl_rows, 0);
        T_EQ_U64(b5->excl.stall, 0);
        T_EQ_U64(b5->why, AN_SRC_UNSAFE);
        T_CHECK(b5->snippet == NULL);
    }
    const an_src_line *a10 = find_line(&s, "/w/a.py", 10);
    T_CHECK(a10 && a10->excl.idle == 4 && a10->excl.hit == 2 && a10->incl.latency == 8);
    const an_src_line *a11 = find_line(&s, "/w/a.py", 11);
    T_CHECK(a11 != NULL);
    if (a11) {
        T_EQ_U64(a11->why, AN_SRC_RESOLVED);
        T_EQ_STR(a11->copy, "source_0_a.py");
        T_EQ_STR(a11->snippet, "    10 | l10\n>>> 11 | l11\n    12 | l12\n");
        T_EQ_U64(a11->snippet_first, 10);
        T_EQ_U64(a11->snippet_last, 12);
    }

    /* Weight = hit + stall per innermost line: a10 2, a12 13, a11 33, b40 5. */
    T_EQ_U64(s.weight_total, 53);
    T_CHECK(s.has_top1);
    T_NEAR(s.top1_share, 33.0 / 53.0, 1e-12);
    T_EQ_U64(s.lines[s.top1_index].line, 11);
    double h = 0;
    const double w[] = {2, 13, 33, 5};
    for (int i = 0; i < 4; i++)
        h -= w[i] / 53.0 * log(w[i] / 53.0);
    T_CHECK(s.has_effective);
    T_NEAR(s.effective_lines, exp(h), 1e-12);

    /* Ranges with gap 8: rows 1-3 (a.py 10..12), row 4 (b.py), row 5 (unmapped). */
    T_EQ_U64(s.nranges, 3);
    T_EQ_U64(s.ranges[0].first_row, 1);
    T_EQ_U64(s.ranges[0].last_row, 3);
    T_EQ_U64(s.ranges[0].first_vaddr, 100);
    T_EQ_U64(s.ranges[0].last_vaddr, 108);
    T_EQ_U64(s.ranges[0].line_min, 10);
    T_EQ_U64(s.ranges[0].line_max, 12);
    T_EQ_U64(s.ranges[0].cost.stall, 42);
    T_EQ_U64(s.ranges[0].cost.latency, 58);
    T_EQ_U64(s.ranges[0].rows, 3);
    T_EQ_U64(s.ranges[2].mapped, 0);
    T_CHECK(s.ranges[2].path == NULL);
    /* Rank: stall 42, then b.py (4), then unmapped (0 stall, latency 100). */
    T_EQ_U64(s.range_rank[0], 0);
    T_EQ_U64(s.range_rank[1], 1);
    T_EQ_U64(s.range_rank[2], 2);
    T_EQ_U64(s.fallback, 0);
    an_sources_free(&s);

    /* Gap 1: line 12 is more than 1 away from [10, 10]; 11 joins [12, 12]. */
    o.range_gap = 1;
    T_EQ_I64(an_sources_compute(&c, &o, &s), 0);
    T_EQ_U64(s.nranges, 4);
    T_EQ_U64(s.ranges[0].last_row, 1);
    T_EQ_U64(s.ranges[1].first_row, 2);
    T_EQ_U64(s.ranges[1].last_row, 3);
    T_EQ_U64(s.ranges[1].line_min, 11);
    T_EQ_U64(s.ranges[1].line_max, 12);
    an_sources_free(&s);

    /* top_lines 2: only the first two lines get snippets considered. */
    o.top_lines = 2;
    o.context = 30;   /* clamps to the copy: lines 1..20 */
    T_EQ_I64(an_sources_compute(&c, &o, &s), 0);
    T_EQ_U64(s.ntop, 2);
    T_EQ_U64(s.lines[1].snippet_first, 1);
    T_EQ_U64(s.lines[1].snippet_last, 20);
    T_CHECK(s.lines[1].snippet && strstr(s.lines[1].snippet, ">>> 11 | l11\n") != NULL);
    T_CHECK(s.lines[1].snippet && strncmp(s.lines[1].snippet, "     1 | l1\n", 12) == 0);
    T_CHECK(s.lines[2].snippet == NULL);
    an_sources_free(&s);

    /* Without snapshots.json the reason says so. */
    c.has_snapshots_json = 0;
    c.nsnapshots = 0;
    for (size_t i = 0; i < c.nrows; i++)
        for (uint32_t f = 0; f < c.rows[i].nframes; f++)
            c.rows[i].frames[f].snapshot = -1;
    T_EQ_I64(an_sources_compute(&c, NULL, &s), 0);
    T_EQ_U64(s.frames_resolved, 0);
    T_EQ_U64(s.lines[0].why, AN_SRC_NO_SNAPSHOTS);
    T_EQ_STR(an_src_why_text(AN_SRC_NO_SNAPSHOTS), "no snapshots.json in the capture");
    an_sources_free(&s);
    c.has_snapshots_json = 1;
    T_EQ_I64(an_sources_compute(&c, NULL, &s), 0);
    T_EQ_U64(s.lines[0].why, AN_SRC_NOT_IN_TREE);
    an_sources_free(&s);
    kr_arena_free(&c.arena);
}

static void test_fallback(void)
{
    /* No Source anywhere: ranges are basic blocks. */
    static const rowspec spec[] = {
        {"; k", "", 100, 0, 0, 0, 0},
        {"s_mov_b32 s0, 0", "", 100, 1, 4, 0, 0},          /* leader: first */
        {"s_cbranch_scc1 2", "", 104, 1, 8, 0, 0},         /* → 104 + 4 + 8 = 116 */
        {"v_add_f32_e32 v1, v2, v3", "", 108, 1, 8, 4, 0}, /* leader: after branch */
        {"v_mul_f32_e32 v1, v2, v3", "", 112, 5, 40, 20, 0},  /* leader: target of row 6 */
        {"s_nop 0", "", 116, 1, 4, 4, 0},                  /* leader: target of row 2 */
        {"s_branch 65533", "", 120, 1, 4, 0, 0},           /* simm −3 → 124 − 12 = 112 */
        {"s_endpgm", "", 124, 1, 200, 0, 0},               /* leader: after branch */
    };
    kr_capture c;
    memset(&c, 0, sizeof c);
    kr_arena_init(&c.arena);
    build(&c, spec, sizeof spec / sizeof spec[0], snap_none);
    an_sources s;
    T_EQ_I64(an_sources_compute(&c, NULL, &s), 0);
    T_EQ_U64(s.mapped_rows, 0);
    T_EQ_U64(s.instruction_rows, 7);
    T_EQ_U64(s.fallback, 1);
    T_EQ_U64(s.nlines, 0);
    T_EQ_U64(s.has_top1, 0);
    T_EQ_U64(s.has_effective, 0);
    T_EQ_U64(s.nranges, 5);
    const uint32_t first[] = {1, 3, 4, 5, 7}, last[] = {2, 3, 4, 6, 7};
    for (int i = 0; i < 5 && (size_t)i < s.nranges; i++) {
        T_EQ_U64(s.ranges[i].first_row, first[i]);
        T_EQ_U64(s.ranges[i].last_row, last[i]);
    }
    T_EQ_U64(s.ranges[3].first_vaddr, 116);
    T_EQ_U64(s.ranges[3].last_vaddr, 120);
    /* by stall: row 4 (20), row 5-6 (4) vs row 3 (4): latency 8 vs 8 → lower row first */
    T_EQ_U64(s.range_rank[0], 2);
    T_EQ_U64(s.range_rank[1], 1);
    T_EQ_U64(s.range_rank[2], 3);
    an_sources_free(&s);
    kr_arena_free(&c.arena);
}

/* ---- real captures ---- */

typedef struct hubcap {
    const char *rel;
    uint64_t mapped, rows;
} hubcap;

static void test_hub(const char *hub)
{
    static const hubcap caps[] = {
        {"examples/pa_mqa_logits_fp4/att_viewer/small/ui_output_agent_32435_dispatch_197", 0, 726},
        {"examples/pa_mqa_logits_fp4/att_viewer/big/ui_output_agent_55351_dispatch_426", 0, 726},
        {"examples/flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44", 2069, 2069},
        {"examples/flash_attn_func/att_viewer/small/ui_output_agent_58550_dispatch_44_after_loc_fix", 2069, 2069},
    };
    for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", hub, caps[k].rel);
        bundle_opts bo = {.threads = 2};
        kr_capture *c = NULL;
        kr_err err;
        kr_err_clear(&err);
        int rc = bundle_capture_load(dir, &bo, &c, &err);
        T_EQ_I64(rc, 0);
        if (rc) {
            char msg[2048];
            kr_err_format(&err, msg, sizeof msg);
            fprintf(stderr, "load %s: %s\n", dir, msg);
            continue;
        }
        an_sources s;
        T_EQ_I64(an_sources_compute(c, NULL, &s), 0);
        /* docs/formats.md#mapped-rows / facts table */
        T_EQ_U64(s.mapped_rows, caps[k].mapped);
        T_EQ_U64(s.instruction_rows, caps[k].rows);
        T_EQ_U64(s.fallback, caps[k].mapped == 0);

        /* Independent recomputation: Σ exclusive over lines = Σ mapped rows,
         * every inclusive line sum from a direct scan, ranking order. */
        uint64_t stall_rows = 0, hit_rows = 0, frames = 0, frames_res = 0, w_total = 0;
        for (size_t i = 0; i < c->nrows; i++) {
            const kr_code_row *r = &c->rows[i];
            if (r->is_label || r->nframes == 0)
                continue;
            stall_rows += r->stall;
            hit_rows += r->hit;
            w_total += r->hit + r->stall;
            for (uint32_t f = 0; f < r->nframes; f++) {
                frames++;
                frames_res += r->frames[f].snapshot >= 0;
            }
        }
        uint64_t ex_stall = 0, ex_hit = 0;
        for (size_t i = 0; i < s.nlines; i++) {
            ex_stall += s.lines[i].excl.stall;
            ex_hit += s.lines[i].excl.hit;
            if (i > 0) {
                const an_src_line *p = &s.lines[i - 1], *q = &s.lines[i];
                T_CHECK(p->incl.stall > q->incl.stall ||
                        (p->incl.stall == q->incl.stall && p->incl.latency >= q->incl.latency));
            }
        }
        T_EQ_U64(ex_stall, stall_rows);
        T_EQ_U64(ex_hit, hit_rows);
        T_EQ_U64(s.weight_total, w_total);
        T_EQ_U64(s.frames, frames);
        T_EQ_U64(s.frames_resolved, frames_res);
        for (size_t i = 0; i < s.nlines && i < 5; i++) {
            uint64_t st = 0, lat = 0, hit = 0;
            for (size_t r = 0; r < c->nrows; r++) {
                const kr_code_row *row = &c->rows[r];
                if (row->is_label)
                    continue;
                int has = 0;
                for (uint32_t f = 0; f < row->nframes; f++)
                    has |= row->frames[f].line == s.lines[i].line && strcmp(row->frames[f].path, s.lines[i].path) == 0;
                if (has) {
                    st += row->stall;
                    lat += row->latency;
                    hit += row->hit;
                }
            }
            T_EQ_U64(s.lines[i].incl.stall, st);
            T_EQ_U64(s.lines[i].incl.latency, lat);
            T_EQ_U64(s.lines[i].incl.hit, hit);
        }
        /* Ranges partition the instruction rows; their sums equal the totals. */
        uint64_t rrows = 0, rstall = 0, all_stall = 0;
        for (size_t i = 0; i < s.nranges; i++) {
            rrows += s.ranges[i].rows;
            rstall += s.ranges[i].cost.stall;
            if (i > 0)
                T_CHECK(s.ranges[i].first_row > s.ranges[i - 1].last_row);
        }
        for (size_t i = 0; i < c->nrows; i++)
            if (!c->rows[i].is_label)
                all_stall += c->rows[i].stall;
        T_EQ_U64(rrows, caps[k].rows);
        T_EQ_U64(rstall, all_stall);
        if (caps[k].mapped) {
            /* docs/formats.md#source-snapshots: every frame resolves to one of the two copies. */
            T_EQ_U64(s.frames_resolved, s.frames);
            T_EQ_U64(s.copies_used, 2);
            for (size_t i = 0; i < s.nlines; i++) {
                T_EQ_U64(s.lines[i].why, AN_SRC_RESOLVED);
                T_CHECK(s.lines[i].copy && (strcmp(s.lines[i].copy, "source_0_flash_attn_func.py") == 0 ||
                                            strcmp(s.lines[i].copy, "source_1_numeric.py") == 0));
            }
            T_CHECK(s.ntop > 0 && s.lines[0].snippet && strstr(s.lines[0].snippet, ">>> ") != NULL);
            T_CHECK(s.has_effective && s.effective_lines >= 1.0 && s.effective_lines <= (double)s.distinct_lines);
        } else {
            T_EQ_U64(s.nlines, 0);
            T_CHECK(s.nranges > 1);   /* split into basic blocks */
        }
        an_sources_free(&s);
        bundle_capture_free(c);
    }
}

int main(void)
{
    test_attribution();
    test_fallback();
    const char *hub = t_hub();
    if (hub)
        test_hub(hub);
    else
        printf("test_an_sources: hub fixtures absent, skipping the real-capture part\n");
    return t_done("test_an_sources");
}
