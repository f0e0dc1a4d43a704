/* validate.c — see validate.h. Each check_* function implements the docs/validate.md
 * rows named in its comment; section numbers are docs/formats.md's.
 *
 * Layout: finding bookkeeping (budget per check, docs/validate.md order); helpers shared
 * with info (target, symbol join, ISA marks, span); capture checks in docs/validate.md
 * order (folder, code rows, per-wave records and timelines, waitcnt, docs/formats.md#per-row-sums
 * sums, wstates, occupancy, realtime, results); an_validate; example-folder
 * checks (V-20, V-22). */
#include "analyzer/validate.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/occupancy.h"
#include "analyzer/waitcnt.h"
#include "analyzer/wstates_calc.h"
#include "common/err.h"

/* docs/validate.md ids in table order; findings are sorted by this order. */
enum {
    V1, V2, V2a, V2b, V3, V4, V4a, V5, V6, V6a, V7, V8, V8a, V8b, V8c, V8d, V9, V10,
    V11, V11a, V12, V13, V14, V15, V16, V16a, V17, V18, V18a, V19, V20,
    V20a, V20b, V20c, V20d, V20e, V20f, V21, V22, NCHECKS
};
static const char *const check_ids[NCHECKS] = {
    "V-1", "V-2", "V-2a", "V-2b", "V-3", "V-4", "V-4a", "V-5", "V-6", "V-6a", "V-7", "V-8",
    "V-8a", "V-8b", "V-8c", "V-8d", "V-9", "V-10", "V-11", "V-11a", "V-12", "V-13", "V-14",
    "V-15", "V-16", "V-16a", "V-17", "V-18", "V-18a", "V-19", "V-20", "V-20a", "V-20b", "V-20c",
    "V-20d", "V-20e", "V-20f", "V-21", "V-22"};

#define DEFAULT_MAX_PER_CHECK 20
/* SEs checked for realtime coverage: the model's se_offset table size. */
#define KR_MAX_SE_CHECK 64

typedef struct pending {
    int check;
    an_severity sev;
    size_t seq;
    const char *loc, *msg;
    uint8_t summary;
} pending;

typedef struct vctx {
    const kr_capture *c;
    an_validation *v;
    size_t max;
    uint64_t count[NCHECKS][3];
    pending *list;
    size_t n, cap;
    an_target target;
} vctx;

const char *an_severity_name(an_severity s)
{
    return s == AN_SEV_ERROR ? "error" : s == AN_SEV_WARNING ? "warning" : "info";
}

static void push(vctx *x, int check, an_severity sev, const char *loc, const char *msg, int summary)
{
    if (x->v->oom)
        return;
    if (!loc || !msg) {
        x->v->oom = 1;
        return;
    }
    if (x->n == x->cap) {
        size_t cap = x->cap ? x->cap * 2 : 64;
        pending *p = realloc(x->list, cap * sizeof *p);
        if (!p) {
            x->v->oom = 1;
            return;
        }
        x->list = p;
        x->cap = cap;
    }
    x->list[x->n] = (pending){check, sev, x->n, loc, msg, (uint8_t)summary};
    x->n++;
}

/* Counts one occurrence; 1 when it is to be listed (within the budget). */
static int note(vctx *x, int check, an_severity sev)
{
    if (sev == AN_SEV_ERROR) x->v->errors++;
    else if (sev == AN_SEV_WARNING) x->v->warnings++;
    else x->v->infos++;
    return ++x->count[check][sev] <= x->max;
}

static void add_listed(vctx *x, int check, an_severity sev, const char *loc, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void add_listed(vctx *x, int check, an_severity sev, const char *loc, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    push(x, check, sev, kr_arena_strdup(&x->v->arena, loc), kr_arena_strdup(&x->v->arena, msg), 0);
}

/* One finding: counted always, listed (and its location built) only within
 * the budget, so a badly broken capture costs no memory per occurrence. */
#define add(x, check, sev, loc, ...) \
    do { if (note((x), (check), (sev))) add_listed((x), (check), (sev), (loc), __VA_ARGS__); } while (0)

/* Location helper: printf into the arena. */
#define LOC(...) kr_arena_printf(&x->v->arena, __VA_ARGS__)

static int by_order(const void *a, const void *b)
{
    const pending *p = a, *q = b;
    if (p->check != q->check) return p->check < q->check ? -1 : 1;
    return p->seq < q->seq ? -1 : p->seq > q->seq;
}

static void finish(vctx *x)
{
    for (int k = 0; k < NCHECKS; k++)
        for (int s = 0; s < 3; s++)
            if (x->count[k][s] > x->max) {
                char msg[128];
                snprintf(msg, sizeof msg, "(%" PRIu64 " more not listed)",
                         x->count[k][s] - x->max);
                push(x, k, (an_severity)s, kr_arena_strdup(&x->v->arena, ""),
                     kr_arena_strdup(&x->v->arena, msg), 1);
            }
    if (x->n)
        qsort(x->list, x->n, sizeof *x->list, by_order);
    an_validation *v = x->v;
    if (x->n && !v->oom) {
        v->findings = malloc(x->n * sizeof *v->findings);
        if (!v->findings) {
            v->oom = 1;
        } else {
            for (size_t i = 0; i < x->n; i++)
                v->findings[i] = (an_finding){check_ids[x->list[i].check], x->list[i].sev,
                                              x->list[i].loc, x->list[i].msg, x->list[i].summary};
            v->nfindings = v->cap = x->n;
        }
    }
    free(x->list);
    x->list = NULL;
}

void an_validation_free(an_validation *v)
{
    free(v->findings);
    kr_arena_free(&v->arena);
    memset(v, 0, sizeof *v);
}

/* ---- helpers shared with info ---- */

static int starts(const char *s, const char *p) { return s && strncmp(s, p, strlen(p)) == 0; }
static int is_word(int ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
}
static int is_digit(int ch) { return ch >= '0' && ch <= '9'; }

const char *an_label_name(const kr_code_row *label)
{
    const char *s = label->isa ? label->isa : "";
    if (*s == ';')
        s++;
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

static const char *gfx_of_version(int64_t v)
{
    switch (v) {
    case 90500: return "gfx950";
    case 90402: return "gfx942";
    case 90010: return "gfx90a";
    default: return NULL;
    }
}

static const kr_agent *results_gpu_agent(const kr_capture *c, uint64_t handle)
{
    if (!c->results)
        return NULL;
    for (size_t p = 0; p < c->results->nprocs; p++)
        for (size_t a = 0; a < c->results->procs[p].nagents; a++) {
            const kr_agent *ag = &c->results->procs[p].agents[a];
            if (ag->handle == handle && ag->type == 2)
                return ag;
        }
    return NULL;
}

void an_validate_target(const kr_capture *c, const char *override_name, an_target *out)
{
    memset(out, 0, sizeof *out);
    if (override_name && *override_name) {
        out->name = override_name;
        snprintf(out->source, sizeof out->source, "--target");
        return;
    }
    if (c->name_matched) {
        const kr_agent *ag = results_gpu_agent(c, c->agent_handle);
        if (ag && ag->name && *ag->name) {
            out->name = ag->name;
            out->agent = ag;
            out->from_results = 1;
            snprintf(out->source, sizeof out->source, "results.json agent %" PRIu64, ag->handle);
            return;
        }
    }
    if (c->agent_info) {
        for (size_t a = 0; a < c->agent_info->nagents; a++) {
            const kr_agent *ag = &c->agent_info->agents[a];
            if (ag->type != 2)
                continue;
            const char *name = (ag->name && *ag->name) ? ag->name : gfx_of_version(ag->gfx_target_version);
            if (!name)
                continue;
            out->name = name;
            out->agent = ag;
            const char *p = c->agent_info->path ? c->agent_info->path : "agent_info.csv";
            const char *base = strrchr(p, '/');
            snprintf(out->source, sizeof out->source, "%s", base ? base + 1 : p);
            return;
        }
    }
    static const char *const gfx950_marks[] = {"v_mfma_scale_", "v_mfma_f32_16x16x128",
        "v_mfma_f32_32x32x64", "ds_read_b64_tr_b", "v_permlane32_swap", NULL};
    for (size_t i = 0; i < c->nrows; i++) {
        const char *m = c->rows[i].mnemonic;
        if (c->rows[i].is_label || !m)
            continue;
        for (const char *const *g = gfx950_marks; *g; g++)
            if (starts(m, *g)) {
                out->name = "gfx950";
                snprintf(out->source, sizeof out->source, "ISA heuristic: %s", m);
                return;
            }
    }
    if (c->gfxip == 9)
        snprintf(out->source, sizeof out->source, "unknown gfx9 target");
    else
        snprintf(out->source, sizeof out->source, "unknown target");
}

const kr_kernel_symbol *an_validate_symbol(const kr_capture *c, const kr_code_row *label)
{
    if (!c->results || !label)
        return NULL;
    for (size_t p = 0; p < c->results->nprocs; p++) {
        const kr_process *pr = &c->results->procs[p];
        for (size_t k = 0; k < pr->nsymbols; k++) {
            const kr_kernel_symbol *s = &pr->symbols[k];
            if (label->codeobj < 0 || s->code_object_id != (uint64_t)label->codeobj)
                continue;
            for (size_t o = 0; o < pr->ncode_objects; o++) {
                const kr_code_object *co = &pr->code_objects[o];
                if (co->id != s->code_object_id)
                    continue;
                uint64_t entry = s->kernel_object - (uint64_t)co->load_delta + s->kernel_code_entry_byte_offset;
                if (entry == label->vaddr)
                    return s;
            }
        }
    }
    return NULL;
}

int an_validate_reg_counts(const kr_capture *c, const kr_code_row *label, an_reg_counts *out)
{
    memset(out, 0, sizeof *out);
    const kr_kernel_symbol *s = an_validate_symbol(c, label);
    if (s) {
        out->arch_vgpr = s->arch_vgpr_count;
        out->accum_vgpr = s->accum_vgpr_count;
        out->sgpr = s->sgpr_count;
        out->source = "results.json kernel_symbols";
        return 1;
    }
    if (c->kernel_trace && label) {
        const char *name = an_label_name(label);
        for (size_t i = 0; i < c->kernel_trace->nrows; i++) {
            const kr_dispatch *d = &c->kernel_trace->rows[i];
            if (d->kernel_name && strcmp(d->kernel_name, name) == 0) {
                out->arch_vgpr = d->vgpr;
                out->accum_vgpr = d->accum_vgpr;
                out->sgpr = d->sgpr;
                out->source = c->rocpd && c->kernel_trace == c->rocpd->trace ? "the rocpd database" : "kernel_trace.csv";
                return 1;
            }
        }
    }
    return 0;
}

/* docs/occupancy.md#register-counts patterns: a register letter not preceded by a word character,
 * followed by digits not followed by a word character, or by [lo:hi]. */
static void marks_of_text(const char *t, an_isa_marks *m)
{
    for (size_t p = 0; t[p]; p++) {
        char l = t[p];
        if (l != 'v' && l != 'a' && l != 's')
            continue;
        if (p > 0 && is_word((unsigned char)t[p - 1]))
            continue;
        uint64_t idx;
        size_t q = p + 1;
        if (is_digit((unsigned char)t[q])) {
            idx = 0;
            while (is_digit((unsigned char)t[q]) && idx < (1u << 30))
                idx = idx * 10 + (uint64_t)(t[q++] - '0');
            if (is_word((unsigned char)t[q]))
                continue;
        } else if (t[q] == '[') {
            q++;
            if (!is_digit((unsigned char)t[q]))
                continue;
            while (is_digit((unsigned char)t[q]))
                q++;
            if (t[q] != ':')
                continue;
            q++;
            if (!is_digit((unsigned char)t[q]))
                continue;
            idx = 0;
            while (is_digit((unsigned char)t[q]) && idx < (1u << 30))
                idx = idx * 10 + (uint64_t)(t[q++] - '0');
            if (t[q] != ']')
                continue;
        } else {
            continue;
        }
        uint32_t *slot = l == 'v' ? &m->v : l == 'a' ? &m->a : &m->s;
        if (idx + 1 > *slot)
            *slot = (uint32_t)(idx + 1);
    }
}

void an_validate_isa_marks(const kr_capture *c, size_t label, an_isa_marks *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = label + 1; i < c->nrows && !c->rows[i].is_label; i++)
        if (c->rows[i].isa)
            marks_of_text(c->rows[i].isa, out);
}

void an_validate_span(const kr_capture *c, an_span *out)
{
    memset(out, 0, sizeof *out);
    out->clock_mhz = c->realtime.clock_hz > 0 ? c->realtime.clock_hz / 1e6 : 0;
    if (c->nwaves == 0)
        return;
    uint64_t lo = UINT64_MAX, hi = 0;
    int64_t alo = INT64_MAX, ahi = INT64_MIN;
    int one_se = 1, aligned = c->realtime.aligned;
    for (size_t i = 0; i < c->nwaves; i++) {
        const kr_wave *w = &c->waves[i];
        if (w->begin < lo) lo = w->begin;
        if (w->end > hi) hi = w->end;
        if (w->se != c->waves[0].se) one_se = 0;
        if (w->se >= 64) {
            aligned = 0;
            continue;
        }
        int64_t off = c->realtime.se_offset[w->se];
        if ((int64_t)w->begin + off < alo) alo = (int64_t)w->begin + off;
        if ((int64_t)w->end + off > ahi) ahi = (int64_t)w->end + off;
    }
    out->raw = hi >= lo ? hi - lo : 0;
    if (aligned && ahi >= alo) {
        out->aligned = (uint64_t)(ahi - alo);
        out->has_aligned = 1;
    }
    if (out->clock_mhz > 0 && (out->has_aligned || one_se)) {
        uint64_t cyc = out->has_aligned ? out->aligned : out->raw;
        out->us = (double)cyc / out->clock_mhz;
        out->has_us = 1;
    }
}

/* ---- checks ---- */

static const char *wave_file(const kr_capture *c, size_t i)
{
    if (c->waves[i].file)
        return c->waves[i].file;
    if (i < c->nwave_refs && c->wave_refs[i].file)
        return c->wave_refs[i].file;
    return "?";
}

static const char *row_loc(vctx *x, size_t i)
{
    return LOC("code.json row %zu (LineNumber %" PRIu32 ")", i, x->c->rows[i].line);
}

/* 1 if name is se<SE>_sm<SIMD>_sl<SLOT>_wv<N>.json. */
static int wave_like(const char *name)
{
    unsigned a, b, d, e;
    char tail[8];
    int n = 0;
    if (sscanf(name, "se%u_sm%u_sl%u_wv%u%7s%n", &a, &b, &d, &e, tail, &n) != 5)
        return 0;
    return strcmp(tail, ".json") == 0 && name[n] == '\0';
}

static int str_ptr_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* V-1 empty shell, V-2 keys vs files, V-2a versions, V-2b one CU. */
static void check_folder(vctx *x)
{
    const kr_capture *c = x->c;
    if (c->nwaves == 0)
        add(x, V1, AN_SEV_INFO, "filenames.json", "empty shell: no wave files%s",
            c->wave_filenames_null ? " (\"wave_filenames\": null)" : "");
    if (c->layout == KR_LAYOUT_NONE)
        add(x, V1, AN_SEV_INFO, "code.json", "no code rows (\"code\": null or empty)");
    for (size_t i = 0; i < c->nextra_files; i++)
        if (!wave_like(c->extra_files[i]))
            add(x, V1, AN_SEV_INFO, c->extra_files[i], "file not described by `kreport help formats` (ignored)");

    for (size_t i = 0; i < c->nwave_refs; i++) {
        const kr_wave_ref *r = &c->wave_refs[i];
        const char *loc = LOC("filenames.json $.wave_filenames.%u.%u.%u.%u", r->se, r->simd, r->slot, r->id);
        char expect[96];
        snprintf(expect, sizeof expect, "se%u_sm%u_sl%u_wv%u.json", r->se, r->simd, r->slot, r->id);
        if (!r->file || strcmp(r->file, expect) != 0)
            add(x, V2, AN_SEV_ERROR, loc, "file name %s does not match its keys (expected %s)",
                r->file ? r->file : "(none)", expect);
        if (i >= c->nwaves)
            continue;
        const kr_wave *w = &c->waves[i];
        const char *f = wave_file(c, i);
        char se_name[32];
        snprintf(se_name, sizeof se_name, "SE%u", r->se);
        if (!w->name || strcmp(w->name, se_name) != 0)
            add(x, V2, AN_SEV_ERROR, LOC("%s $.name", f), "name \"%s\" != \"%s\" from filenames.json keys",
                w->name ? w->name : "", se_name);
        if (w->simd != r->simd || w->slot != r->slot || w->id != r->id)
            add(x, V2, AN_SEV_ERROR, LOC("%s $.wave", f),
                "simd/slot/id %u/%u/%u != %u/%u/%u from filenames.json keys",
                w->simd, w->slot, w->id, r->simd, r->slot, r->id);
        if (w->begin != r->begin || w->end != r->end)
            add(x, V2, AN_SEV_ERROR, LOC("%s $.wave.begin", f),
                "begin/end %" PRIu64 "/%" PRIu64 " != %" PRIu64 "/%" PRIu64 " in filenames.json",
                w->begin, w->end, r->begin, r->end);
    }
    for (size_t i = 0; i < c->nextra_files; i++)
        if (wave_like(c->extra_files[i]))
            add(x, V2, AN_SEV_ERROR, c->extra_files[i], "wave file not listed in filenames.json");
    /* The same file under two keys (sorted names: duplicates are adjacent). */
    const char **names = malloc((c->nwave_refs + 1) * sizeof *names);
    if (!names) {
        x->v->oom = 1;
    } else {
        size_t n = 0;
        for (size_t i = 0; i < c->nwave_refs; i++)
            if (c->wave_refs[i].file)
                names[n++] = c->wave_refs[i].file;
        qsort(names, n, sizeof *names, str_ptr_cmp);
        for (size_t i = 1; i < n; i++)
            if (strcmp(names[i], names[i - 1]) == 0)
                add(x, V2, AN_SEV_ERROR, "filenames.json $.wave_filenames", "file %s is listed twice", names[i]);
        free(names);
    }

    if (!c->version || strcmp(c->version, "3.0.0") != 0)
        add(x, V2a, AN_SEV_WARNING, "filenames.json $.version", "version \"%s\", expected \"3.0.0\"",
            c->version ? c->version : "(absent)");
    if (!c->code_version || strcmp(c->code_version, "3.0.0") != 0)
        add(x, V2a, AN_SEV_WARNING, "code.json $.version", "version \"%s\", expected \"3.0.0\"",
            c->code_version ? c->code_version : "(absent)");
    if (c->occupancy.present && (!c->occupancy.version || strcmp(c->occupancy.version, "3.0.0") != 0))
        add(x, V2a, AN_SEV_WARNING, "occupancy.json $.version", "version \"%s\", expected \"3.0.0\"",
            c->occupancy.version ? c->occupancy.version : "(absent)");

    for (size_t i = 1; i < c->nwaves; i++)
        if (c->waves[i].cu != c->waves[0].cu)
            add(x, V2b, AN_SEV_WARNING, LOC("%s $.wave.cu", wave_file(c, i)),
                "cu %" PRId64 " != %" PRId64 " of %s (one target CU expected)",
                c->waves[i].cu, c->waves[0].cu, wave_file(c, 0));
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t p = *(const uint64_t *)a, q = *(const uint64_t *)b;
    return p < q ? -1 : p > q;
}

/* V-4, V-4a, V-5, V-6, V-6a, V-7 over code.json rows and snapshots. */
static void check_code(vctx *x)
{
    const kr_capture *c = x->c;
    size_t k_mapped = 0, n_instr = 0;

    for (size_t i = 0; i < c->nrows; i++) {
        const kr_code_row *r = &c->rows[i];
        if (r->stall > r->latency)
            add(x, V4, AN_SEV_ERROR, row_loc(x, i), "Stall %" PRIu64 " > Latency %" PRIu64, r->stall, r->latency);
        if (r->hit == 0 && (r->latency || r->stall || r->idle))
            add(x, V4, AN_SEV_ERROR, row_loc(x, i),
                "Hit 0 but Latency/Stall/Idle %" PRIu64 "/%" PRIu64 "/%" PRIu64, r->latency, r->stall, r->idle);
        if (r->zero_col != 0)
            add(x, V4, AN_SEV_ERROR, row_loc(x, i), "column _ is %" PRId64 ", expected 0", r->zero_col);
        if (r->latency % 4 || r->stall % 4 || r->idle % 4)
            add(x, V4a, AN_SEV_INFO, row_loc(x, i),
                "cycle columns not multiples of 4: Latency/Stall/Idle %" PRIu64 "/%" PRIu64 "/%" PRIu64,
                r->latency, r->stall, r->idle);
        if (r->is_label)
            continue;
        n_instr++;
        if (r->source && *r->source)
            k_mapped++;
        if (r->source && *r->source && r->nframes == 0)
            add(x, V5, AN_SEV_WARNING, row_loc(x, i), "Source \"%s\" has no frame", r->source);
        for (uint32_t f = 0; f < r->nframes; f++)
            if (r->frames[f].line == 0)
                add(x, V5, AN_SEV_WARNING, row_loc(x, i), "Source frame \"%s\" has no :line >= 1",
                    r->frames[f].path ? r->frames[f].path : "");
    }

    /* V-6: unique LineNumbers (E); order, labels first, Vaddr steps (W). */
    if (c->nrows > 1) {
        uint64_t *key = malloc(c->nrows * sizeof *key);
        if (!key) {
            x->v->oom = 1;
        } else {
            for (size_t i = 0; i < c->nrows; i++)
                key[i] = ((uint64_t)c->rows[i].line << 32) | (uint64_t)i;
            /* (line, index) pairs sorted: equal lines become adjacent */
            qsort(key, c->nrows, sizeof *key, u64_cmp);
            for (size_t i = 1; i < c->nrows; i++)
                if (key[i] >> 32 == key[i - 1] >> 32)
                    add(x, V6, AN_SEV_ERROR, row_loc(x, (size_t)(key[i] & 0xffffffffu)),
                        "LineNumber %" PRIu64 " also used by row %" PRIu64, key[i] >> 32,
                        key[i - 1] & 0xffffffffu);
            free(key);
        }
    }
    int have_label = 0;
    const kr_code_row *prev_instr = NULL;
    for (size_t i = 0; i < c->nrows; i++) {
        const kr_code_row *r = &c->rows[i];
        if (i > 0 && r->line <= c->rows[i - 1].line)
            add(x, V6, AN_SEV_WARNING, row_loc(x, i), "LineNumber %" PRIu32 " not above the previous row's %" PRIu32,
                r->line, c->rows[i - 1].line);
        if (r->is_label) {
            have_label = 1;
            prev_instr = NULL;
            continue;
        }
        if (!have_label)
            add(x, V6, AN_SEV_WARNING, row_loc(x, i), "instruction row before any label row (kernel unknown)");
        if (prev_instr) {
            uint64_t step = r->vaddr - prev_instr->vaddr;
            if (r->vaddr <= prev_instr->vaddr || (step != 4 && step != 8 && step != 12 && step != 16))
                add(x, V6, AN_SEV_WARNING, row_loc(x, i),
                    "Vaddr %" PRIu64 " after %" PRIu64 ": step not 4, 8, 12 or 16", r->vaddr, prev_instr->vaddr);
        }
        prev_instr = r;
    }

    /* V-6a */
    add(x, V6a, AN_SEV_INFO, "code.json", "source mapping %zu/%zu instruction rows", k_mapped, n_instr);
    if (k_mapped == 0 && c->has_snapshots_json && c->nsnapshots > 0)
        add(x, V6a, AN_SEV_INFO, "snapshots.json", "no row has a Source, yet snapshots.json lists %zu copies",
            c->nsnapshots);
    if (k_mapped > 0 && !c->has_snapshots_json)
        add(x, V6a, AN_SEV_INFO, "snapshots.json",
            "rows have Source but no snapshots.json (sources not found at decode time)");

    /* V-7 */
    for (size_t i = 0; i < c->nsnapshots; i++) {
        const kr_snapshot *s = &c->snapshots[i];
        const char *loc = LOC("snapshots.json %s", s->path ? s->path : "?");
        if (!s->safe)
            add(x, V7, AN_SEV_ERROR, loc, "unsafe leaf \"%s\": %s (not opened)", s->leaf ? s->leaf : "",
                s->problem ? s->problem : "not a plain file name inside the folder");
        else if (!s->loaded)
            add(x, V7, AN_SEV_WARNING, loc, "copy %s not readable: %s", s->leaf ? s->leaf : "",
                s->problem ? s->problem : "missing");
    }
    if (c->has_snapshots_json) {
        for (size_t i = 0; i < c->nrows; i++) {
            const kr_code_row *r = &c->rows[i];
            if (r->is_label)
                continue;
            for (uint32_t f = 0; f < r->nframes; f++) {
                const kr_frame *fr = &r->frames[f];
                if (fr->line == 0)
                    continue;   /* unparsed frame: V-5 */
                if (fr->snapshot < 0 || (size_t)fr->snapshot >= c->nsnapshots) {
                    /* A path whose leaf is unsafe or unreadable was reported
                     * once above, not again per frame. */
                    int known = 0;
                    for (size_t k = 0; k < c->nsnapshots && !known; k++)
                        known = fr->path && c->snapshots[k].path && strcmp(fr->path, c->snapshots[k].path) == 0;
                    if (!known)
                        add(x, V7, AN_SEV_WARNING, row_loc(x, i), "frame path %s does not resolve in snapshots.json",
                            fr->path ? fr->path : "");
                    continue;
                }
                const kr_snapshot *s = &c->snapshots[fr->snapshot];
                if (s->loaded && fr->line > s->nlines)
                    add(x, V7, AN_SEV_WARNING, row_loc(x, i), "line %" PRIu32 " beyond the %zu lines of %s",
                        fr->line, s->nlines, s->leaf ? s->leaf : "");
            }
        }
    }
}

/* The category a docs/instruction-classes.md class allows (docs/instruction-classes.md compatibility table). */
static int class_allows(kr_class cls, unsigned cat)
{
    if (cat == KR_CAT_CONTEXT)
        return 1;
    switch (cls) {
    case KR_CLASS_SMEM: return cat == KR_CAT_SMEM;
    case KR_CLASS_SALU: return cat == KR_CAT_SALU;
    case KR_CLASS_VMEM: return cat == KR_CAT_VMEM || cat == KR_CAT_FLAT;
    case KR_CLASS_FLAT: return cat == KR_CAT_FLAT;
    case KR_CLASS_LDS: return cat == KR_CAT_LDS;
    case KR_CLASS_VALU:
    case KR_CLASS_MATRIX: return cat == KR_CAT_VALU;
    case KR_CLASS_BRANCH: return cat == KR_CAT_JUMP || cat == KR_CAT_NEXT;
    case KR_CLASS_WAITCNT:
    case KR_CLASS_BARRIER:
    case KR_CLASS_NOP:
    case KR_CLASS_IMMED_OTHER: return cat == KR_CAT_IMMED;
    case KR_CLASS_MESSAGE: return cat == KR_CAT_MESSAGE;
    default: return 0;
    }
}

typedef struct sums {
    uint64_t *hit, *lat, *stall, *idle;
    uint64_t known_records;
} sums;

/* V-8, V-8a..d, V-9, V-11, V-11a, V-17 per wave; accumulates docs/formats.md#per-row-sums sums. */
static void check_wave(vctx *x, size_t wi, sums *s)
{
    const kr_capture *c = x->c;
    const kr_wave *w = &c->waves[wi];
    const char *f = wave_file(c, wi);

    /* V-8d */
    if (w->begin >= w->end)
        add(x, V8d, AN_SEV_ERROR, LOC("%s $.wave", f), "begin %" PRIu64 " not before end %" PRIu64, w->begin, w->end);
    else if (w->duration != w->end - w->begin)
        add(x, V8d, AN_SEV_ERROR, LOC("%s $.duration", f), "duration %" PRIu64 " != end - begin = %" PRIu64,
            w->duration, w->end - w->begin);
    if (w->num_insts != w->ninsts || w->num_stitched != w->ninsts)
        add(x, V8d, AN_SEV_ERROR, LOC("%s $.num_insts", f),
            "num_insts %" PRIu64 " / num_stitched %" PRIu64 " != %zu records", w->num_insts, w->num_stitched,
            w->ninsts);

    uint64_t prev_done = w->begin, sum_wait_records = 0;
    for (size_t i = 0; i < w->ninsts; i++) {
        const kr_inst *r = &w->insts[i];
        /* V-8a */
        if (r->stall > r->dur)
            add(x, V8a, AN_SEV_ERROR, LOC("%s $.wave.instructions[%zu]", f, i),
                "stall %" PRIu32 " > duration %" PRIu32, r->stall, r->dur);
        if (r->cat >= KR_CAT_COUNT)
            add(x, V8a, AN_SEV_ERROR, LOC("%s $.wave.instructions[%zu][1]", f, i),
                "category %u outside 0..12", (unsigned)r->cat);
        if (r->dur == 0)
            add(x, V8a, AN_SEV_WARNING, LOC("%s $.wave.instructions[%zu][3]", f, i), "duration 0");
        /* V-8b */
        if (i == 0 && r->time < w->begin)
            add(x, V8b, AN_SEV_WARNING, LOC("%s $.wave.instructions[0]", f),
                "first record time %" PRIu64 " before begin %" PRIu64, r->time, w->begin);
        if (i > 0) {
            const kr_inst *p = &w->insts[i - 1];
            if (r->time <= p->time)
                add(x, V8b, AN_SEV_WARNING, LOC("%s $.wave.instructions[%zu]", f, i),
                    "time %" PRIu64 " not after the previous record's %" PRIu64, r->time, p->time);
            else if (r->time < p->time + p->stall)
                add(x, V8b, AN_SEV_WARNING, LOC("%s $.wave.instructions[%zu]", f, i),
                    "time %" PRIu64 " before the previous record issued (%" PRIu64 ")", r->time,
                    p->time + p->stall);
        }
        /* V-8c */
        if (r->cat == KR_CAT_IMMED && r->stall != r->dur)
            add(x, V8c, AN_SEV_WARNING, LOC("%s $.wave.instructions[%zu]", f, i),
                "IMMED record with stall %" PRIu32 " != duration %" PRIu32, r->stall, r->dur);
        if (r->cat == KR_CAT_IMMED || r->cat == KR_CAT_MESSAGE)
            sum_wait_records += r->dur;
        /* V-8 */
        if (r->line == 0) {
            add(x, V8, AN_SEV_WARNING, LOC("%s $.wave.instructions[%zu][4]", f, i), "line 0: unknown PC");
            continue;   /* docs/formats.md#per-row-sums: skipped entirely */
        }
        s->known_records++;
        const kr_code_row *row = kr_capture_row(c, r->line);
        if (!row) {
            add(x, V8, AN_SEV_ERROR, LOC("%s $.wave.instructions[%zu][4]", f, i),
                "line %" PRIu32 " names no code.json row", r->line);
            continue;
        }
        if (row->is_label)
            add(x, V8, AN_SEV_ERROR, LOC("%s $.wave.instructions[%zu][4]", f, i),
                "line %" PRIu32 " names a label row", r->line);
        else if (r->cat < KR_CAT_COUNT && !class_allows(row->cls, r->cat))   /* V-17 */
            add(x, V17, AN_SEV_WARNING, LOC("%s $.wave.instructions[%zu][1]", f, i),
                "category %s not allowed for %s (%s)", kr_cat_name(r->cat), row->mnemonic ? row->mnemonic : "",
                kr_class_name(row->cls));
        /* docs/formats.md#per-row-sums */
        size_t ri = (size_t)(row - c->rows);
        s->hit[ri] += 1;
        s->lat[ri] += r->dur;
        s->stall[ri] += r->stall;
        s->idle[ri] += r->time > prev_done ? r->time - prev_done : 0;
        if (r->time + r->dur > prev_done)
            prev_done = r->time + r->dur;
    }

    /* V-9 */
    uint64_t done = 0;
    if (w->ninsts == 0) {
        add(x, V9, AN_SEV_WARNING, LOC("%s $.wave.instructions", f), "no instruction records (possibly truncated wave)");
    } else {
        const kr_inst *last = &w->insts[w->ninsts - 1];
        const kr_code_row *row = kr_capture_row(c, last->line);
        done = last->time + last->dur;
        if (!row || !row->mnemonic || strcmp(row->mnemonic, "s_endpgm") != 0)
            add(x, V9, AN_SEV_WARNING, LOC("%s $.wave.instructions[%zu]", f, w->ninsts - 1),
                "last record is %s, not s_endpgm (possibly truncated wave)",
                row && row->mnemonic ? row->mnemonic : "an unknown row");
        int64_t over = (int64_t)(done - w->end);
        if (over < 0 || over > 4)
            add(x, V9, AN_SEV_WARNING, LOC("%s $.wave.instructions[%zu]", f, w->ninsts - 1),
                "last completion %" PRIu64 " - end %" PRIu64 " = %" PRId64 ", outside [0, 4] (possibly truncated wave)",
                done, w->end, over);
    }

    /* V-11, V-11a */
    if (w->ntimeline > 0) {
        uint64_t total = 0, wait = 0;
        size_t zero = 0, first_zero = 0;
        for (size_t i = 0; i < w->ntimeline; i++) {
            const kr_tl *e = &w->timeline[i];
            if (e->state >= KR_STATE_COUNT)
                add(x, V11, AN_SEV_ERROR, LOC("%s $.wave.timeline[%zu][0]", f, i), "state %u outside 0..4",
                    (unsigned)e->state);
            if (e->cycles == 0 && zero++ == 0)
                first_zero = i;
            total += e->cycles;
            if (e->state == KR_STATE_WAIT)
                wait += e->cycles;
        }
        /* A 0 is information (docs/validate.md V-11): rocprofv3 writes such
         * entries in real captures; they add nothing to any sum. */
        if (zero)
            add(x, V11, AN_SEV_INFO, LOC("%s $.wave.timeline[%zu][1]", f, first_zero),
                "%zu timeline entr%s of duration 0 (written by rocprofv3; they add nothing to the state sums)", zero,
                zero == 1 ? "y" : "ies");
        if (w->ninsts > 0 && total != done - w->begin)
            add(x, V11, AN_SEV_WARNING, LOC("%s $.wave.timeline", f),
                "sum %" PRIu64 " != last completion - begin = %" PRIu64, total, done - w->begin);
        if (w->end > w->begin) {
            int64_t over = (int64_t)total - (int64_t)(w->end - w->begin);
            if (over > 0 && over <= 4)
                add(x, V11, AN_SEV_INFO, LOC("%s $.wave.timeline", f),
                    "timeline ends %" PRId64 " cycles after the wave end (s_endpgm drain)", over);
            else if (over != 0)
                add(x, V11, AN_SEV_WARNING, LOC("%s $.wave.timeline", f),
                    "sum %" PRIu64 " differs from end - begin = %" PRIu64 " by %" PRId64 " cycles (outside [0, 4])",
                    total, w->end - w->begin, over);
        }
        if (w->ninsts > 0) {
            uint64_t gap = w->insts[0].time - w->begin;
            if (w->timeline[0].state != KR_STATE_IDLE || w->timeline[0].cycles != gap)
                add(x, V11a, AN_SEV_INFO, LOC("%s $.wave.timeline[0]", f),
                    "first entry [%u, %" PRIu64 "], observed identity is [1 (IDLE), %" PRIu64 "]",
                    (unsigned)w->timeline[0].state, w->timeline[0].cycles, gap);
        }
        if (wait != sum_wait_records)
            add(x, V11a, AN_SEV_INFO, LOC("%s $.wave.timeline", f),
                "WAIT %" PRIu64 " != sum of IMMED and MESSAGE record durations %" PRIu64, wait, sum_wait_records);
    }
}

static void fmt_entry(char *buf, size_t cap, uint32_t line, const uint32_t *p, uint32_t n)
{
    size_t len = (size_t)snprintf(buf, cap, "[%" PRIu32 ", [", line);
    for (uint32_t i = 0; i < n && len < cap; i++) {
        if (i == 6 && n > 7) {
            len += (size_t)snprintf(buf + len, cap - len, "... %" PRIu32 " more", n - 6);
            break;
        }
        len += (size_t)snprintf(buf + len, cap - len, "%s%" PRIu32, i ? ", " : "", p[i]);
    }
    if (len < cap)
        snprintf(buf + len, cap - len, "]]");
}

/* V-12 per wave. */
static void check_waitcnt(vctx *x, size_t wi)
{
    const kr_capture *c = x->c;
    const kr_wave *w = &c->waves[wi];
    const char *f = wave_file(c, wi);

    for (size_t e = 0; e < w->nwaits; e++) {
        const kr_wait_entry *we = &w->waits[e];
        const kr_code_row *row = kr_capture_row(c, we->wait_line);
        if (!row || !starts(row->mnemonic, "s_wait"))
            add(x, V12, AN_SEV_WARNING, LOC("%s $.wave.waitcnt[%zu][0]", f, e),
                "waitcnt_line %" PRIu32 " is %s, not an s_waitcnt/s_wait* row", we->wait_line,
                row && row->mnemonic ? row->mnemonic : "no code.json row");
        for (uint32_t k = 0; k < we->n; k++) {
            if ((size_t)we->first + k >= w->nproducers)
                break;
            uint32_t pl = w->producers[we->first + k];
            const kr_code_row *pr = kr_capture_row(c, pl);
            int mem = pr && (an_waitcnt_is_producer(c->gfxip, pr->isa) || pr->cls == KR_CLASS_SMEM ||
                             pr->cls == KR_CLASS_LDS || pr->cls == KR_CLASS_VMEM || pr->cls == KR_CLASS_FLAT);
            if (!mem)
                add(x, V12, AN_SEV_WARNING, LOC("%s $.wave.waitcnt[%zu][1][%" PRIu32 "]", f, e, k),
                    "producer %" PRIu32 " is %s, not a memory instruction", pl,
                    pr && pr->mnemonic ? pr->mnemonic : "no code.json row");
        }
    }

    if (w->waitcnt_nonzero_lanes > 0)
        add(x, V12, AN_SEV_WARNING, LOC("%s $.wave.waitcnt", f),
            "%zu producer pair(s) with a second element other than 0", w->waitcnt_nonzero_lanes);

    an_waitcnt r;
    if (an_waitcnt_wave(c, w, &r) != 0) {
        x->v->oom = 1;
        return;
    }
    if (!r.supported) {
        if (w->nwaits > 0)
            add(x, V12, AN_SEV_WARNING, LOC("%s $.wave.waitcnt", f),
                "gfxip %" PRId64 " has no waitcnt algorithm (`kreport help waits`); %zu stored entries not checked", c->gfxip,
                w->nwaits);
        an_waitcnt_free(&r);
        return;
    }
    size_t n = r.nwaits < w->nwaits ? r.nwaits : w->nwaits;
    size_t e = 0;
    for (; e < n; e++) {
        const kr_wait_entry *a = &w->waits[e], *b = &r.waits[e];
        if (a->wait_line != b->wait_line || a->n != b->n ||
            (size_t)a->first + a->n > w->nproducers ||
            memcmp(w->producers + a->first, r.producers + b->first, (size_t)a->n * sizeof(uint32_t)) != 0)
            break;
    }
    if (e < n || r.nwaits != w->nwaits) {
        char sa[160] = "(none)", sb[160] = "(none)";
        if (e < w->nwaits && (size_t)w->waits[e].first + w->waits[e].n <= w->nproducers)
            fmt_entry(sa, sizeof sa, w->waits[e].wait_line, w->producers + w->waits[e].first, w->waits[e].n);
        if (e < r.nwaits)
            fmt_entry(sb, sizeof sb, r.waits[e].wait_line, r.producers + r.waits[e].first, r.waits[e].n);
        add(x, V12, AN_SEV_WARNING, LOC("%s $.wave.waitcnt[%zu]", f, e),
            "stored %s != recomputed %s (%zu stored%s entries, %zu recomputed for gfxip %" PRId64 ")", sa, sb,
            w->nwaits, w->has_waitcnt ? "" : " (null)", r.nwaits, c->gfxip);
    }
    an_waitcnt_free(&r);
}

/* V-10 per row and the capture-level truncation check. */
static void check_sums(vctx *x, const sums *s)
{
    const kr_capture *c = x->c;
    uint64_t hit_sum = 0;
    for (size_t i = 0; i < c->nrows; i++) {
        const kr_code_row *r = &c->rows[i];
        hit_sum += r->hit;
        if (r->hit == s->hit[i] && r->latency == s->lat[i] && r->stall == s->stall[i] && r->idle == s->idle[i])
            continue;
        char msg[512];
        size_t len = 0;
        const char *names[4] = {"Hit", "Latency", "Stall", "Idle"};
        uint64_t have[4] = {r->hit, r->latency, r->stall, r->idle};
        uint64_t want[4] = {s->hit[i], s->lat[i], s->stall[i], s->idle[i]};
        msg[0] = '\0';
        for (int k = 0; k < 4; k++)
            if (have[k] != want[k] && len < sizeof msg)
                len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%s %" PRIu64 " != %" PRIu64,
                                        len ? ", " : "", names[k], have[k], want[k]);
        add(x, V10, AN_SEV_ERROR, row_loc(x, i), "%s recomputed from wave files", msg);
    }
    if (c->nwaves > 0 && hit_sum != s->known_records)
        add(x, V10, AN_SEV_ERROR, "code.json",
            "sum of Hit %" PRIu64 " != %" PRIu64 " wave records with a known PC (truncated capture?)", hit_sum,
            s->known_records);
}

/* V-13 */
static void check_wstates(vctx *x)
{
    const kr_capture *c = x->c;
    an_wstates_curve cur[KR_STATE_COUNT];
    if (an_wstates_compute(c, cur) != 0) {
        x->v->oom = 1;
        return;
    }
    for (int k = 0; k < KR_STATE_COUNT; k++) {
        const kr_wstates *st = &c->wstates[k];
        char fname[32];
        snprintf(fname, sizeof fname, "wstates%d.json", k);
        if (!st->present) {
            if (cur[k].n > 0)
                add(x, V13, AN_SEV_WARNING, fname, "missing: state %d (%s) occurs in the wave timelines", k,
                    kr_state_name((unsigned)k));
            continue;
        }
        if (cur[k].n == 0) {
            add(x, V13, AN_SEV_WARNING, fname, "present although state %d (%s) never occurs", k,
                kr_state_name((unsigned)k));
            continue;
        }
        if (!st->name || strcmp(st->name, fname) != 0)
            add(x, V13, AN_SEV_WARNING, LOC("%s $.name", fname), "name \"%s\" != \"%s\"", st->name ? st->name : "",
                fname);
        if (st->n > 0 && st->count[st->n - 1] != 0)
            add(x, V13, AN_SEV_WARNING, LOC("%s $.state[%zu]", fname, st->n - 1), "last value %" PRId64 ", expected 0",
                st->count[st->n - 1]);
        size_t n = st->n < cur[k].n ? st->n : cur[k].n, i = 0;
        while (i < n && st->time[i] == cur[k].time[i] && st->count[i] == cur[k].count[i])
            i++;
        if (i < n)
            add(x, V13, AN_SEV_WARNING, LOC("%s $.time[%zu]", fname, i),
                "step (%" PRIu64 ", %" PRId64 ") != (%" PRIu64 ", %" PRId64 ") recomputed from the timelines",
                st->time[i], st->count[i], cur[k].time[i], cur[k].count[i]);
        else if (st->n != cur[k].n)
            add(x, V13, AN_SEV_WARNING, LOC("%s $.time", fname), "%zu steps != %zu recomputed from the timelines",
                st->n, cur[k].n);
    }
    an_wstates_free(cur);
}

typedef struct occ_ref {
    uint32_t se, simd, slot;
    uint64_t begin, end;
    size_t index;            /* wave index or row index */
} occ_ref;

static int occ_cmp(const void *a, const void *b)
{
    const occ_ref *p = a, *q = b;
    if (p->se != q->se) return p->se < q->se ? -1 : 1;
    if (p->simd != q->simd) return p->simd < q->simd ? -1 : 1;
    if (p->slot != q->slot) return p->slot < q->slot ? -1 : 1;
    if (p->begin != q->begin) return p->begin < q->begin ? -1 : 1;
    if (p->end != q->end) return p->end < q->end ? -1 : 1;
    return p->index < q->index ? -1 : p->index > q->index;
}

typedef struct slot_key {
    uint32_t cu, simd, slot;
    size_t index;
} slot_key;

static int slot_cmp(const void *a, const void *b)
{
    const slot_key *p = a, *q = b;
    if (p->cu != q->cu) return p->cu < q->cu ? -1 : 1;
    if (p->simd != q->simd) return p->simd < q->simd ? -1 : 1;
    if (p->slot != q->slot) return p->slot < q->slot ? -1 : 1;
    return p->index < q->index ? -1 : p->index > q->index;
}

/* V-14, V-15 */
static void check_occupancy(vctx *x)
{
    const kr_capture *c = x->c;
    const kr_occupancy *o = &c->occupancy;
    if (!o->present)
        return;
    size_t total = 0;
    for (size_t s = 0; s < o->nses; s++) {
        const kr_occ_se *se = &o->ses[s];
        total += se->nrows;
        for (size_t i = 0; i < se->nrows; i++) {
            const kr_occ_row *r = &se->rows[i];
            if (r->start > 1)
                add(x, V14, AN_SEV_ERROR, LOC("occupancy.json $.%u[%zu][4]", se->se, i), "start %u not 0 or 1",
                    (unsigned)r->start);
            if (r->simd > 3)
                add(x, V14, AN_SEV_ERROR, LOC("occupancy.json $.%u[%zu][2]", se->se, i), "simd %u outside 0..3",
                    (unsigned)r->simd);
            int known = 0;
            for (size_t d = 0; d < o->ndispatches && !known; d++)
                known = o->dispatches[d].id == r->kernel_id;
            if (!known)
                add(x, V14, AN_SEV_ERROR, LOC("occupancy.json $.%u[%zu][5]", se->se, i),
                    "kernel id %" PRIu32 " is not a key of dispatches", r->kernel_id);
        }
    }

    /* V-15: per (SE, cu, simd, slot) in file order, start and end alternate. */
    occ_ref *pairs = malloc((total + 1) * sizeof *pairs);
    occ_ref *wv = malloc((c->nwaves + 1) * sizeof *wv);
    slot_key *keys = NULL;
    size_t maxrows = 0;
    for (size_t s = 0; s < o->nses; s++)
        if (o->ses[s].nrows > maxrows) maxrows = o->ses[s].nrows;
    keys = malloc((maxrows + 1) * sizeof *keys);
    if (!pairs || !wv || !keys) {
        free(pairs);
        free(wv);
        free(keys);
        x->v->oom = 1;
        return;
    }
    int64_t target_cu = c->nwaves ? c->waves[0].cu : -1;
    size_t np = 0;
    for (size_t s = 0; s < o->nses; s++) {
        const kr_occ_se *se = &o->ses[s];
        for (size_t i = 0; i < se->nrows; i++)
            keys[i] = (slot_key){se->rows[i].cu, se->rows[i].simd, se->rows[i].slot, i};
        qsort(keys, se->nrows, sizeof *keys, slot_cmp);
        for (size_t i = 0; i < se->nrows;) {
            size_t j = i;
            int open = 0;
            size_t open_at = 0;
            for (; j < se->nrows && keys[j].cu == keys[i].cu && keys[j].simd == keys[i].simd &&
                   keys[j].slot == keys[i].slot; j++) {
                const kr_occ_row *r = &se->rows[keys[j].index];
                const char *loc = LOC("occupancy.json $.%u[%zu]", se->se, keys[j].index);
                if (r->start == 1) {
                    if (open)
                        add(x, V15, AN_SEV_WARNING, loc, "start while the wave started at row %zu is still open",
                            open_at);
                    open = 1;
                    open_at = keys[j].index;
                } else if (r->start == 0) {
                    if (!open) {
                        add(x, V15, AN_SEV_WARNING, loc, "end without a start (cu %" PRIu32 " simd %u slot %u)",
                            r->cu, (unsigned)r->simd, (unsigned)r->slot);
                        continue;
                    }
                    const kr_occ_row *st = &se->rows[open_at];
                    if (r->time < st->time)
                        add(x, V15, AN_SEV_WARNING, loc, "end %" PRIu64 " before its start %" PRIu64, r->time,
                            st->time);
                    if ((int64_t)r->cu == target_cu)
                        pairs[np++] = (occ_ref){se->se, r->simd, r->slot, st->time, r->time, open_at};
                    open = 0;
                }
            }
            if (open)
                add(x, V15, AN_SEV_WARNING, LOC("occupancy.json $.%u[%zu]", se->se, open_at),
                    "start never ended (cu %" PRIu32 " simd %u slot %u)", se->rows[open_at].cu,
                    (unsigned)se->rows[open_at].simd, (unsigned)se->rows[open_at].slot);
            i = j;
        }
    }
    /* Target-CU pairs versus wave files, as multisets. */
    if (c->nwaves > 0) {
        for (size_t i = 0; i < c->nwaves; i++)
            wv[i] = (occ_ref){c->waves[i].se, c->waves[i].simd, c->waves[i].slot, c->waves[i].begin,
                              c->waves[i].end, i};
        qsort(wv, c->nwaves, sizeof *wv, occ_cmp);
        qsort(pairs, np, sizeof *pairs, occ_cmp);
        size_t a = 0, b = 0;
        while (a < c->nwaves || b < np) {
            int cmp;
            if (a == c->nwaves) cmp = 1;
            else if (b == np) cmp = -1;
            else {
                occ_ref p = wv[a], q = pairs[b];
                p.index = q.index = 0;
                cmp = occ_cmp(&p, &q);
            }
            if (cmp == 0) {
                a++;
                b++;
            } else if (cmp < 0) {
                add(x, V15, AN_SEV_WARNING, LOC("%s $.wave", wave_file(c, wv[a].index)),
                    "no occupancy start/end pair (%" PRIu64 ", %" PRIu64 ") for SE%u simd %u slot %u", wv[a].begin,
                    wv[a].end, wv[a].se, wv[a].simd, wv[a].slot);
                a++;
            } else {
                add(x, V15, AN_SEV_WARNING, LOC("occupancy.json $.%u[%zu]", pairs[b].se, pairs[b].index),
                    "target-CU wave (%" PRIu64 ", %" PRIu64 ") on simd %u slot %u matches no wave file",
                    pairs[b].begin, pairs[b].end, pairs[b].simd, pairs[b].slot);
                b++;
            }
        }
    }
    free(pairs);
    free(wv);
    free(keys);
}

static const kr_rt_se *rt_se(const kr_realtime *rt, uint32_t se)
{
    for (size_t i = 0; i < rt->nses; i++)
        if (rt->ses[i].se == se)
            return &rt->ses[i];
    return NULL;
}

/* V-16, V-16a */
static void check_realtime(vctx *x)
{
    const kr_capture *c = x->c;
    const kr_realtime *rt = &c->realtime;
    if (!rt->present) {
        add(x, V16a, AN_SEV_INFO, "realtime.json", "absent: no time conversion and no cross-SE alignment");
        return;
    }
    for (size_t s = 0; s < rt->nses; s++) {
        const kr_rt_se *se = &rt->ses[s];
        if (se->n < 2)
            add(x, V16, AN_SEV_WARNING, LOC("realtime.json $.SE%u", se->se), "%zu sample(s); 2 are needed for a clock",
                se->n);
        for (size_t i = 1; i < se->n; i++) {
            const kr_rt_sample *p = &se->samples[i - 1], *q = &se->samples[i];
            int up_sc = q->shader > p->shader, up_rc = q->realtime > p->realtime;
            int down_sc = q->shader < p->shader, down_rc = q->realtime < p->realtime;
            if (!((up_sc && up_rc) || (down_sc && down_rc)))
                add(x, V16, AN_SEV_WARNING, LOC("realtime.json $.SE%u[%zu]", se->se, i),
                    "shader clock %" PRIu64 " -> %" PRIu64 " and realtime %" PRIu64 " -> %" PRIu64
                    " do not increase together", p->shader, q->shader, p->realtime, q->realtime);
        }
    }
    if (rt->frequency == 0)
        add(x, V16, AN_SEV_WARNING, "realtime.json $.metadata.frequency",
            "realtime frequency absent or 0: no time conversion");
    const kr_agent *ag = x->target.agent;
    if (rt->clock_hz > 0 && ag && ag->max_engine_clk_fcompute > 0) {
        double mhz = rt->clock_hz / 1e6, max = (double)ag->max_engine_clk_fcompute;
        if (mhz > 1.10 * max || mhz < 0.90 * max)
            add(x, V16, AN_SEV_WARNING, "realtime.json",
                "measured shader clock %.2f MHz is not within 10 %% of the agent's max engine clock %" PRId64 " MHz",
                mhz, ag->max_engine_clk_fcompute);
    }
    /* V-16a: every SE with waves or occupancy rows has two samples. */
    uint8_t need[KR_MAX_SE_CHECK];
    memset(need, 0, sizeof need);
    for (size_t i = 0; i < c->nwaves; i++)
        if (c->waves[i].se < KR_MAX_SE_CHECK) need[c->waves[i].se] = 1;
    for (size_t s = 0; s < c->occupancy.nses; s++)
        if (c->occupancy.ses[s].nrows > 0 && c->occupancy.ses[s].se < KR_MAX_SE_CHECK)
            need[c->occupancy.ses[s].se] = 1;
    for (uint32_t se = 0; se < KR_MAX_SE_CHECK; se++) {
        if (!need[se])
            continue;
        const kr_rt_se *r = rt_se(rt, se);
        if (!r || r->n < 2)
            add(x, V16a, AN_SEV_WARNING, LOC("realtime.json $.SE%u", se),
                "SE%u has waves or occupancy rows but %s: no cross-SE alignment", se,
                r ? "fewer than 2 samples" : "no samples");
    }
}

/* V-18a, V-21 */
static void check_results(vctx *x)
{
    const kr_capture *c = x->c;
    if (!c->name_matched) {
        add(x, V18a, AN_SEV_WARNING, c->folder ? c->folder : "(folder)",
            "folder name gives no agent handle (ui_output_agent_<H>_dispatch_<D>): results cannot be joined");
    } else if (!c->results && c->rocpd) {
        /* A rocpd database holds the agents, symbols and dispatches (docs/formats.md#rocpd-databases);
         * only which GPU agent ran the capture may be open. */
        add(x, V18a, c->rocpd_gpu ? AN_SEV_INFO : AN_SEV_WARNING, c->rocpd->path,
            "no results.json; the rocpd database (schema %s) gives the agents and dispatches; its agent: %s",
            c->rocpd->schema_version, c->rocpd_agent ? c->rocpd_agent : "?");
    } else if (!c->results) {
        add(x, V18a, AN_SEV_WARNING, c->folder ? c->folder : "(folder)",
            "no results.json for this capture (no GPU agent with handle %" PRIu64 " in a results.json found)",
            c->agent_handle);
    } else if (!results_gpu_agent(c, c->agent_handle)) {
        add(x, V18a, AN_SEV_WARNING, c->results->path ? c->results->path : "results.json",
            "no GPU agent with handle %" PRIu64 " (the capture's <H>)", c->agent_handle);
    } else {
        for (size_t i = 0; i < c->nrows; i++)
            if (c->rows[i].is_label && !an_validate_symbol(c, &c->rows[i]))
                add(x, V18a, AN_SEV_WARNING, row_loc(x, i),
                    "label %s (Codeobj %" PRId64 ", Vaddr %" PRIu64 ") joins no kernel symbol of %s",
                    an_label_name(&c->rows[i]), c->rows[i].codeobj, c->rows[i].vaddr,
                    c->results->path ? c->results->path : "results.json");
    }

    if (!x->target.name || strcmp(x->target.name, "gfx950") != 0)
        return;
    for (size_t i = 0; i < c->nrows; i++) {
        if (!c->rows[i].is_label)
            continue;
        an_reg_counts rc;
        if (!an_validate_reg_counts(c, &c->rows[i], &rc) || rc.accum_vgpr != 0 || rc.arch_vgpr < 0)
            continue;
        an_isa_marks m;
        an_validate_isa_marks(c, i, &m);
        if ((int64_t)m.v <= rc.arch_vgpr)
            continue;
        uint64_t total = 2 * (uint64_t)rc.arch_vgpr, mark8 = ((uint64_t)m.v + 7) / 8 * 8;
        if (mark8 > total)
            total = mark8;
        add(x, V21, AN_SEV_WARNING, row_loc(x, i),
            "rocprofv3 under-reported VGPRs (PR #5862): %s reports arch_vgpr_count %" PRId64
            " and accum_vgpr_count 0, the ISA uses %" PRIu32 " VGPRs; corrected total %" PRIu64,
            rc.source, rc.arch_vgpr, m.v, total);
    }
}

int an_validate(const kr_capture *c, const an_validate_opts *opts, an_validation *out)
{
    memset(out, 0, sizeof *out);
    kr_arena_init(&out->arena);
    vctx x;
    memset(&x, 0, sizeof x);
    x.c = c;
    x.v = out;
    x.max = opts && opts->max_per_check ? opts->max_per_check : DEFAULT_MAX_PER_CHECK;
    an_validate_target(c, opts ? opts->target : NULL, &x.target);

    check_folder(&x);
    check_code(&x);

    sums s;
    memset(&s, 0, sizeof s);
    size_t nr = c->nrows ? c->nrows : 1;
    s.hit = calloc(nr, sizeof *s.hit);
    s.lat = calloc(nr, sizeof *s.lat);
    s.stall = calloc(nr, sizeof *s.stall);
    s.idle = calloc(nr, sizeof *s.idle);
    if (!s.hit || !s.lat || !s.stall || !s.idle) {
        out->oom = 1;
    } else {
        for (size_t i = 0; i < c->nwaves; i++) {
            check_wave(&x, i, &s);
            check_waitcnt(&x, i);
        }
        check_sums(&x, &s);
    }
    free(s.hit);
    free(s.lat);
    free(s.stall);
    free(s.idle);

    check_wstates(&x);
    check_occupancy(&x);
    check_realtime(&x);
    check_results(&x);
    finish(&x);
    return out->oom ? KR_INTERNAL : 0;
}

/* ---- example folders ---- */

static int ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n > k && memcmp(s + n - k, suffix, k) == 0;
}

static int name_char(int ch) { return is_word(ch) || ch == '.' || ch == '-'; }

void an_readme_names(const char *text, void (*fn)(void *ctx, const char *name), void *ctx)
{
    static const char *const exts[] = {".json", ".csv", ".py", ".yaml", ".yml", NULL};
    char **seen = NULL;
    size_t nseen = 0, cap = 0;
    for (size_t p = 0; text && text[p];) {
        if (!name_char((unsigned char)text[p])) {
            p++;
            continue;
        }
        size_t q = p;
        while (name_char((unsigned char)text[q]))
            q++;
        size_t n = q - p;
        char before = p > 0 ? text[p - 1] : ' ', after = text[q];
        int ok = text[p] != '.' && n < 256 && after != '/' && after != '*' && before != '*' &&
                 before != '<' && before != '>';
        int ext = 0;
        for (const char *const *e = exts; *e && !ext; e++)
            ext = ends_with(text + p, n, *e);
        if (ok && ext) {
            int dup = 0;
            for (size_t i = 0; i < nseen && !dup; i++)
                dup = strlen(seen[i]) == n && memcmp(seen[i], text + p, n) == 0;
            if (!dup) {
                if (nseen == cap) {
                    size_t nc = cap ? cap * 2 : 16;
                    char **v = realloc(seen, nc * sizeof *v);
                    if (!v)
                        break;
                    seen = v;
                    cap = nc;
                }
                char *copy = malloc(n + 1);
                if (!copy)
                    break;
                memcpy(copy, text + p, n);
                copy[n] = '\0';
                seen[nseen++] = copy;
                fn(ctx, copy);
            }
        }
        p = q;
    }
    for (size_t i = 0; i < nseen; i++)
        free(seen[i]);
    free(seen);
}

/* 1-based line of offset off in text. */
static size_t line_of(const char *text, size_t off)
{
    size_t line = 1;
    for (size_t i = 0; i < off; i++)
        line += text[i] == '\n';
    return line;
}

/* V-22: "1=EXEC" (spaces allowed around '=') or the word SLEEP. */
static void check_report_labels(vctx *x, const char *text)
{
    for (size_t p = 0; text[p]; p++) {
        if (text[p] == '1' && (p == 0 || !is_word((unsigned char)text[p - 1]))) {
            size_t q = p + 1;
            while (text[q] == ' ')
                q++;
            if (text[q] == '=') {
                q++;
                while (text[q] == ' ')
                    q++;
                if (strncmp(text + q, "EXEC", 4) == 0 && !is_word((unsigned char)text[q + 4])) {
                    add(x, V22, AN_SEV_INFO, LOC("REPORT.md line %zu", line_of(text, p)),
                        "calls state 1 EXEC: the states are 1 IDLE, 2 EXEC, 3 WAIT, 4 STALL (`kreport help wave-states`); "
                        "the report's state names are off by one");
                    return;
                }
            }
        }
        if (strncmp(text + p, "SLEEP", 5) == 0 && (p == 0 || !is_word((unsigned char)text[p - 1])) &&
            !is_word((unsigned char)text[p + 5])) {
            add(x, V22, AN_SEV_INFO, LOC("REPORT.md line %zu", line_of(text, p)),
                "mentions a SLEEP state, which does not exist: the states are 1 IDLE, 2 EXEC, 3 WAIT, 4 STALL "
                "(`kreport help wave-states`); the report's state names are off by one");
            return;
        }
    }
}

/* ---- publishing checks V-20a .. V-20f (see validate.h) ---- */

/* 1 if some line of text contains every needle (ASCII case-insensitive);
 * a needle that starts with '=' must match as a whole word. */
static int line_has(const char *text, const char *n1, const char *n2)
{
    if (!text)
        return 0;
    const char *needles[2] = {n1, n2};
    for (const char *line = text; *line;) {
        size_t len = strcspn(line, "\n");
        int all = 1;
        for (int k = 0; k < 2 && all; k++) {
            if (!needles[k])
                continue;
            int word = needles[k][0] == '=';
            const char *nd = needles[k] + word;
            size_t nl = strlen(nd);
            int found = 0;
            for (size_t i = 0; i + nl <= len && !found; i++) {
                size_t j = 0;
                while (j < nl && tolower((unsigned char)line[i + j]) == tolower((unsigned char)nd[j]))
                    j++;
                found = j == nl && (!word || ((i == 0 || !is_word((unsigned char)line[i - 1])) &&
                                              (i + nl == len || !is_word((unsigned char)line[i + nl]))));
            }
            all = found;
        }
        if (all)
            return 1;
        line += len + (line[len] == '\n');
    }
    return 0;
}

/* The documents a marking may be in: README.md, then REPORT.md. */
static const char *doc_with(const an_example_facts *f, const char *n1, const char *n2)
{
    if (line_has(f->readme_text, n1, n2))
        return "README.md";
    if (line_has(f->report_text, n1, n2))
        return "REPORT.md";
    return NULL;
}

static void check_publishing(vctx *x, const an_example_facts *f)
{
    for (size_t i = 0; i < f->nunlabelled; i++)
        add(x, V20c, AN_SEV_WARNING, LOC("att_viewer/%s", f->unlabelled[i]),
            "capture has no label: move it to att_viewer/<label>/ (the hub uses small for the prologue "
            "shape and big for the candidate primary shape)");
    const an_example_capture *primary = NULL;
    uint64_t small_max = 0, big_min = UINT64_MAX;
    const an_example_capture *small_c = NULL, *big_c = NULL;
    for (size_t i = 0; i < f->ncaptures; i++) {
        const an_example_capture *c = &f->captures[i];
        const char *where = LOC("att_viewer/%s/%s", c->label, c->folder);
        if (c->shell)
            add(x, V20a, AN_SEV_ERROR, where,
                "is an empty shell (no waves; rocprofv3 reserves the slot before tracing starts): delete "
                "att_viewer/%s/%s, or re-capture if it was the only trace of this shape (AGENTS.md Gotcha 3)",
                c->label, c->folder);
        for (size_t k = 0; k < i && c->content_digest; k++)
            if (f->captures[k].content_digest && strcmp(f->captures[k].content_digest, c->content_digest) == 0) {
                add(x, V20b, AN_SEV_ERROR, where,
                    "has the same files as att_viewer/%s/%s: keep one of the two folders and delete the other",
                    f->captures[k].label, f->captures[k].folder);
                break;
            }
        if (c->shell)
            continue;
        if (strcmp(c->label, "small") == 0 && c->records >= small_max) {
            small_max = c->records;
            small_c = c;
        }
        if (strcmp(c->label, "big") == 0 && c->records < big_min) {
            big_min = c->records;
            big_c = c;
        }
        if (c->instruction_rows > 0 && c->mapped_rows == 0) {
            const char *doc = doc_with(f, "source mapping", NULL);
            if (doc)
                add(x, V20d, AN_SEV_INFO, where,
                    "0/%" PRIu64 " instruction rows are source-mapped; %s says why (a source mapping note)",
                    c->instruction_rows, doc);
            else
                add(x, V20d, AN_SEV_WARNING, where,
                    "0/%" PRIu64 " instruction rows are source-mapped and neither README.md nor REPORT.md says "
                    "why: re-capture with FLYDSL_DEBUG_ENABLE_DEBUG_INFO=1 and a fresh FLYDSL_RUNTIME_CACHE_DIR "
                    "(AGENTS.md Step 7a), or add a \"Source mapping note\" to README.md",
                    c->instruction_rows);
        }
        if (strcmp(c->label, "big") == 0 ? !primary || strcmp(primary->label, "big") != 0
                                         : !primary || (strcmp(primary->label, "big") != 0 && c->waves > primary->waves))
            primary = c;
        if (c->results_match == 0 && c->results_file)
            add(x, V20f, AN_SEV_WARNING, LOC("compute_viewer/%s", c->results_file),
                "has no GPU agent with handle %" PRIu64 " of capture %s/%s (its GPU agents: %s), so it comes "
                "from another run: add the rocpd database of the run that wrote %s, or give that capture its own "
                "label", c->agent_handle, c->label, c->folder, c->results_agents ? c->results_agents : "none",
                c->folder);
        else if (c->results_match == 0)
            add(x, V20f, AN_SEV_WARNING, LOC("compute_viewer/%s_results.json", c->label),
                "has no GPU agent with handle %" PRIu64 " of capture %s/%s (its GPU agents: %s), so it comes "
                "from another run: add the results.json of the run that wrote %s, or give that capture its own "
                "label", c->agent_handle, c->label, c->folder, c->results_agents ? c->results_agents : "none",
                c->folder);
    }
    if (small_c && big_c && small_max > big_min)
        add(x, V20c, AN_SEV_WARNING, LOC("att_viewer/%s/%s", small_c->label, small_c->folder),
            "the small capture has more records (%" PRIu64 ") than big/%s (%" PRIu64 "): the labels look "
            "swapped; small is the prologue shape, big the larger candidate primary shape (AGENTS.md)",
            small_max, big_c->folder, big_min);
    if (primary) {
        char why[256] = "";
        if (primary->workgroups >= 0 && primary->cu_count > 0 && primary->workgroups < primary->cu_count)
            snprintf(why, sizeof why, "%" PRId64 " workgroups on %" PRId64 " CUs", primary->workgroups,
                     primary->cu_count);
        if (primary->has_occupancy && primary->low_fraction >= AN_OCC_TAIL_FRACTION)
            snprintf(why + strlen(why), sizeof why - strlen(why),
                     "%san achieved-occupancy tail, the traced CU below half its peak for %.0f%% of the "
                     "dispatch", *why ? " and " : "", primary->low_fraction * 100.0);
        if (*why) {
            char label_word[128];
            snprintf(label_word, sizeof label_word, "=%s", primary->label);
            const char *doc = doc_with(f, label_word, "underfilled");
            const char *where = LOC("att_viewer/%s/%s", primary->label, primary->folder);
            if (doc)
                add(x, V20e, AN_SEV_INFO, where, "primary capture is underfilled: %s; %s marks it so", why, doc);
            else
                add(x, V20e, AN_SEV_WARNING, where,
                    "primary capture does not fill the GPU: %s. Size the grid to the target parallelism and "
                    "re-capture (AGENTS.md Step 5), or mark the %s trace as underfilled in REPORT.md",
                    why, primary->label);
        }
    }
}

int an_validate_example(const an_example_facts *f, const an_validate_opts *opts, an_validation *out)
{
    memset(out, 0, sizeof *out);
    kr_arena_init(&out->arena);
    vctx ctx, *x = &ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.v = out;
    ctx.max = opts && opts->max_per_check ? opts->max_per_check : DEFAULT_MAX_PER_CHECK;

    if (!f->has_readme)
        add(x, V20, AN_SEV_WARNING, "README.md", "missing (`kreport help formats`)");
    if (!f->has_report)
        add(x, V20, AN_SEV_WARNING, "REPORT.md",
            "missing (`kreport help formats`): write the analysis (AGENTS.md Step 9), or start from `kreport analyze EXAMPLE "
            "--format md`");
    for (size_t i = 0; i < f->nlabels; i++) {
        const an_example_label *l = &f->labels[i];
        if (l->ncaptures == 0)
            add(x, V20, AN_SEV_WARNING, LOC("att_viewer/%s", l->label), "holds no capture folder");
        if (!l->has_results)
            add(x, V20, AN_SEV_WARNING, LOC("compute_viewer/%s_results.json", l->label),
                "missing: no results.json for label %s (nor a rocpd %s_results.db)", l->label, l->label);
    }
    for (size_t i = 0; i < f->nreadme_missing; i++)
        add(x, V20, AN_SEV_WARNING, "README.md", "names %s, which is not in the example folder: add the file, or drop it from README.md",
            f->readme_missing[i]);
    check_publishing(x, f);
    if (f->report_text)
        check_report_labels(x, f->report_text);
    finish(x);
    return out->oom ? KR_INTERNAL : 0;
}
