/* explorer.c — see explorer.h. The document is written by hand (not with
 * jansson) because its rows are arrays of numbers and a capture can have
 * tens of thousands of them: one pass, no tree. Every number is an integer
 * (cycles, counts, row indices); -1 stands for "unknown". */
#include "report/explorer.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "report/charts.h"

/* Length of the valid UTF-8 sequence at p (1-4), or 0. */
static size_t utf8_len(const unsigned char *p)
{
    if (p[0] < 0x80)
        return 1;
    size_t n = p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 && p[0] < 0xE0 ? 2 : 0;
    for (size_t k = 1; k < n; k++)
        if ((p[k] & 0xC0) != 0x80)
            return 0;
    return n;
}

/* A JSON string of text[0 .. len): bytes that are not UTF-8 become '?';
 * < > & and control characters are \u escapes. */
static void jstr_n(kr_buf *out, const char *text, size_t len)
{
    const unsigned char *p = (const unsigned char *)(text ? text : "");
    const unsigned char *end = p + (text ? len : 0);
    kr_buf_putc(out, '"');
    while (p < end) {
        unsigned char ch = *p;
        if (ch == '"' || ch == '\\') {
            kr_buf_putc(out, '\\');
            kr_buf_putc(out, (char)ch);
            p++;
        } else if (ch < 0x20 || ch == '<' || ch == '>' || ch == '&' || ch == 0x7F) {
            kr_buf_printf(out, "\\u%04x", ch);
            p++;
        } else if (ch < 0x80) {
            kr_buf_putc(out, (char)ch);
            p++;
        } else {
            size_t n = (size_t)(end - p) >= 4 ? utf8_len(p) : 0;
            if (!n && (size_t)(end - p) < 4) {      /* near the end: check within bounds */
                unsigned char tail[4] = {0};
                memcpy(tail, p, (size_t)(end - p));
                n = utf8_len(tail);
                if (n > (size_t)(end - p))
                    n = 0;
            }
            if (n) {
                kr_buf_append(out, p, n);
                p += n;
            } else {
                kr_buf_putc(out, '?');
                p++;
            }
        }
    }
    kr_buf_putc(out, '"');
}

void rep_explorer_jstr(kr_buf *out, const char *text) { jstr_n(out, text, text ? strlen(text) : 0); }

static void jstr(kr_buf *out, const char *text) { rep_explorer_jstr(out, text); }

static void ju(kr_buf *out, uint64_t v) { kr_buf_printf(out, "%llu", (unsigned long long)v); }
static void ji(kr_buf *out, int64_t v) { kr_buf_printf(out, "%lld", (long long)v); }

/* v[0 .. n) each followed by a comma. */
static void ju_list(kr_buf *out, size_t n, const uint64_t *v)
{
    for (size_t i = 0; i < n; i++)
        kr_buf_printf(out, "%llu,", (unsigned long long)v[i]);
}

static int64_t se_offset(const kr_capture *c, uint32_t se)
{
    return c->realtime.aligned && se < 64 ? c->realtime.se_offset[se] : 0;
}

/* ---- the waves whose streams are kept ---- */

static uint64_t wave_length(const kr_capture *c, size_t w)
{
    if (c->nwave_refs == c->nwaves)
        return c->wave_refs[w].end > c->wave_refs[w].begin ? c->wave_refs[w].end - c->wave_refs[w].begin : 0;
    return c->waves[w].end > c->waves[w].begin ? c->waves[w].end - c->waves[w].begin : 0;
}

static uint32_t wave_se(const kr_capture *c, size_t w)
{
    return c->nwave_refs == c->nwaves ? c->wave_refs[w].se : c->waves[w].se;
}

static int size_cmp(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

size_t rep_explorer_pick(const kr_capture *c, size_t *waves)
{
    size_t k = 0;
    unsigned char *taken = calloc(c->nwaves ? c->nwaves : 1, 1);
    if (!taken)
        return 0;
    /* rounds: in each, per SE ascending, its longest wave not yet taken */
    while (k < REP_EXPLORER_STREAM_WAVES && k < c->nwaves) {
        size_t before = k;
        int64_t last_se = -1;
        for (;;) {
            /* the next SE above last_se that has an untaken wave */
            int64_t se = -1;
            for (size_t w = 0; w < c->nwaves; w++)
                if (!taken[w] && (int64_t)wave_se(c, w) > last_se && (se < 0 || (int64_t)wave_se(c, w) < se))
                    se = wave_se(c, w);
            if (se < 0 || k >= REP_EXPLORER_STREAM_WAVES)
                break;
            size_t best = SIZE_MAX;
            for (size_t w = 0; w < c->nwaves; w++)
                if (!taken[w] && wave_se(c, w) == (uint32_t)se &&
                    (best == SIZE_MAX || wave_length(c, w) > wave_length(c, best)))
                    best = w;
            taken[best] = 1;
            waves[k++] = best;
            last_se = se;
        }
        if (k == before)
            break;
    }
    free(taken);
    qsort(waves, k, sizeof *waves, size_cmp);
    return k;
}

size_t rep_explorer_records_per_wave(size_t k)
{
    return k ? REP_EXPLORER_STREAM_RECORDS / k : 0;
}

/* ---- the document ---- */

static void rows_json(const an_analysis *a, kr_buf *out, const char **files, size_t nfiles)
{
    const kr_capture *c = a->cap;
    size_t nr = c->nrows;
    int64_t *nonhidden = malloc((nr ? nr : 1) * sizeof *nonhidden);
    int32_t *loop = malloc((nr ? nr : 1) * sizeof *loop);
    int32_t *phase = malloc((nr ? nr : 1) * sizeof *phase);
    if (!nonhidden || !loop || !phase) {
        out->oom = 1;
        goto done;
    }
    for (size_t r = 0; r < nr; r++) {
        /* hidden latency known: 0 for rows it did not rank (total 0) */
        nonhidden[r] = a->hidden.computed && !c->rows[r].is_label ? 0 : -1;
        loop[r] = phase[r] = -1;
    }
    for (size_t i = 0; i < a->hidden.nranked; i++)
        if (a->hidden.ranked[i].row < nr)
            nonhidden[a->hidden.ranked[i].row] = (int64_t)a->hidden.ranked[i].non_hidden;
    /* innermost loop: loops are sorted by head, outer first, so a later
     * loop that holds the row is nested deeper */
    for (size_t l = 0; l < a->phases.nloops; l++)
        for (uint32_t r = a->phases.loops[l].head; r <= a->phases.loops[l].tail && r < nr; r++)
            loop[r] = (int32_t)l;
    for (size_t p = 0; p < a->phases.nphases; p++)
        if (a->phases.phases[p].depth == 0)
            for (uint32_t r = a->phases.phases[p].first; r <= a->phases.phases[p].last && r < nr; r++)
                phase[r] = (int32_t)p;
    kr_buf_puts(out, "\"rows\":[");
    for (size_t r = 0; r < nr; r++) {
        const kr_code_row *row = &c->rows[r];
        int64_t file = -1;
        uint32_t line = 0;
        if (row->nframes && row->frames[0].line) {
            for (size_t f = 0; f < nfiles; f++)
                if (files[f] == row->frames[0].path || strcmp(files[f], row->frames[0].path) == 0) {
                    file = (int64_t)f;
                    break;
                }
            line = row->frames[0].line;
        }
        kr_buf_puts(out, r ? ",\n[" : "\n[");
        kr_buf_printf(out, "\"%llx\",", (unsigned long long)row->vaddr);
        jstr(out, row->isa);
        kr_buf_printf(out, ",%lld,%u,", (long long)file, line);
        ju_list(out, 4, (const uint64_t[]){row->hit, row->latency, row->stall, row->idle});
        ji(out, nonhidden[r]);
        kr_buf_printf(out, ",%d,%d,%d,%d,%d]", (int)row->cls, row->is_label ? -1 : (int)an_stall_kind_of(row),
                      loop[r], phase[r], row->line ? 1 : 0);
    }
    kr_buf_puts(out, "]");
done:
    free(nonhidden);
    free(loop);
    free(phase);
}

/* Distinct innermost frame paths with a line, in first-seen row order. */
static const char **innermost_files(const kr_capture *c, size_t *n)
{
    const char **files = malloc((c->nrows ? c->nrows : 1) * sizeof *files);
    *n = 0;
    if (!files)
        return NULL;
    for (size_t r = 0; r < c->nrows; r++) {
        const kr_code_row *row = &c->rows[r];
        if (!row->nframes || !row->frames[0].line)
            continue;
        int have = 0;
        for (size_t f = 0; f < *n && !have; f++)
            have = files[f] == row->frames[0].path || strcmp(files[f], row->frames[0].path) == 0;
        if (!have)
            files[(*n)++] = row->frames[0].path;
    }
    return files;
}

/* The snapshot an innermost path resolves to, or -1. */
static int32_t file_snapshot(const kr_capture *c, const char *path)
{
    for (size_t r = 0; r < c->nrows; r++) {
        const kr_code_row *row = &c->rows[r];
        if (row->nframes && row->frames[0].line && strcmp(row->frames[0].path, path) == 0 &&
            row->frames[0].snapshot >= 0)
            return row->frames[0].snapshot;
    }
    return -1;
}

static void sources_json(const an_analysis *a, kr_buf *out, const char **files, size_t nfiles)
{
    const kr_capture *c = a->cap;
    size_t total = 0;
    kr_buf_puts(out, "\"files\":[");
    for (size_t f = 0; f < nfiles; f++) {
        kr_buf_puts(out, f ? ",\n{\"path\":" : "\n{\"path\":");
        jstr(out, files[f]);
        int32_t s = file_snapshot(c, files[f]);
        const kr_snapshot *sn = s >= 0 && (size_t)s < c->nsnapshots ? &c->snapshots[s] : NULL;
        if (!sn || !sn->loaded || !sn->text) {
            kr_buf_puts(out, ",\"why\":");
            jstr(out, !sn ? "no captured copy of this file (snapshots)"
                          : sn->problem ? sn->problem : "its captured copy was not read");
        } else if (sn->len > REP_EXPLORER_SOURCE_FILE || total + sn->len > REP_EXPLORER_SOURCE_TOTAL) {
            kr_buf_printf(out, ",\"why\":\"its captured copy (%zu bytes) is past the page's source budget "
                               "(%u bytes a file, %u in all)\"",
                          sn->len, REP_EXPLORER_SOURCE_FILE, REP_EXPLORER_SOURCE_TOTAL);
        } else {
            total += sn->len;
            kr_buf_puts(out, ",\"copy\":");
            jstr(out, sn->leaf);
            kr_buf_puts(out, ",\"text\":");
            jstr_n(out, sn->text, sn->len);
        }
        kr_buf_putc(out, '}');
    }
    kr_buf_puts(out, "],\n\"lines\":[");
    /* per (file, line): exclusive and inclusive Hit, Latency, Stall, Idle */
    size_t k = 0;
    for (size_t i = 0; i < a->sources.nlines; i++) {
        const an_src_line *l = &a->sources.lines[i];
        int64_t file = -1;
        for (size_t f = 0; f < nfiles && file < 0 && l->line; f++)
            if (strcmp(files[f], l->path) == 0)
                file = (int64_t)f;
        if (file < 0)
            continue;
        kr_buf_printf(out, "%s[%lld,%u,", k++ ? "," : "", (long long)file, l->line);
        ju_list(out, 8, (const uint64_t[]){l->excl.hit, l->excl.latency, l->excl.stall, l->excl.idle,
                                           l->incl.hit, l->incl.latency, l->incl.stall, l->incl.idle});
        out->len--;                      /* the last comma */
        kr_buf_putc(out, ']');
    }
    kr_buf_puts(out, "]");
}

static void dist_p50(kr_buf *out, const an_dist *d)
{
    if (d->n)
        ju(out, d->p50);
    else
        kr_buf_puts(out, "-1");
}

static void waits_json(const an_analysis *a, kr_buf *out)
{
    const an_waits *w = &a->waits;
    kr_buf_printf(out, "\"links\":\"%s\",\"waits\":[", an_links_source_id(w->source));
    for (size_t i = 0; i < w->nwaits; i++) {
        const an_wait *x = &w->waits[i];
        kr_buf_printf(out, "%s[%u,", i ? ",\n" : "\n", x->row);
        ju_list(out, 4, (const uint64_t[]){x->executions, x->stall, x->linked, x->attributed});
        if (x->sampled)
            dist_p50(out, &x->exposed);
        else
            kr_buf_puts(out, "-1");
        kr_buf_puts(out, ",[");
        for (size_t p = 0; p < x->nproducers; p++) {
            const an_wait_producer *pr = &x->producers[p];
            kr_buf_printf(out, "%s[%u,", p ? "," : "", pr->row);
            ju_list(out, 4, (const uint64_t[]){pr->waited, pr->links, pr->critical, pr->stall});
            dist_p50(out, &pr->dist_insts);
            kr_buf_putc(out, ',');
            dist_p50(out, &pr->dist_cycles);
            kr_buf_putc(out, ']');
        }
        kr_buf_puts(out, "]]");
    }
    kr_buf_puts(out, "]");
}

static void phases_json(const an_analysis *a, kr_buf *out)
{
    const an_phases *ph = &a->phases;
    kr_buf_puts(out, "\"loops\":[");
    for (size_t l = 0; l < ph->nloops; l++) {
        const an_loop *lp = &ph->loops[l];
        kr_buf_printf(out, "%s[%u,%u,%u,", l ? "," : "", lp->head, lp->tail, lp->depth);
        ju(out, lp->iterations);
        kr_buf_printf(out, ",%d]", l == ph->main_loop ? 1 : 0);
    }
    kr_buf_puts(out, "],\"phases\":[");
    for (size_t p = 0; p < ph->nphases; p++) {
        const an_phase *x = &ph->phases[p];
        kr_buf_printf(out, "%s[\"%s\",%u,%u,%u,%lld]", p ? "," : "", an_phase_kind_id(x->kind), x->first, x->last,
                      x->depth, x->kind == AN_PHASE_LOOP ? (long long)x->loop : -1LL);
    }
    kr_buf_puts(out, "]");
}

static void series_json(const kr_capture *c, kr_buf *out, int64_t *t0)
{
    rep_state_series ss;
    rep_occ_series os;
    int rc = rep_state_series_compute(c, REP_EXPLORER_BINS, &ss);
    int rc2 = rep_occ_series_compute(c, REP_EXPLORER_BINS, &os);
    if (rc || rc2) {
        out->oom = 1;
        rep_state_series_free(&ss);
        rep_occ_series_free(&os);
        return;
    }
    *t0 = ss.bins.t0;
    kr_buf_printf(out, "\"aligned\":%d,\"t0\":%lld,\"span\":%llu,\"se\":{\"width\":%llu,\"n\":%zu,\"ids\":[",
                  ss.aligned, (long long)ss.bins.t0, (unsigned long long)ss.bins.span,
                  (unsigned long long)ss.bins.width, ss.bins.n);
    for (size_t s = 0; s < ss.nses; s++)
        kr_buf_printf(out, "%s%u", s ? "," : "", ss.ses[s]);
    /* cycles[se][state][bin] */
    kr_buf_puts(out, "],\"cycles\":[");
    for (size_t s = 0; s < ss.nses; s++) {
        kr_buf_puts(out, s ? ",[" : "[");
        for (size_t st = 0; st < KR_STATE_COUNT; st++) {
            kr_buf_puts(out, st ? ",[" : "[");
            for (size_t b = 0; b < ss.bins.n; b++) {
                if (b)
                    kr_buf_putc(out, ',');
                ju(out, ss.cycles[(s * KR_STATE_COUNT + st) * ss.bins.n + b]);
            }
            kr_buf_putc(out, ']');
        }
        kr_buf_putc(out, ']');
    }
    kr_buf_printf(out, "]},\n\"occ\":{\"t0\":%lld,\"width\":%llu,\"n\":%zu,\"peak\":%u,\"ids\":[",
                  (long long)os.bins.t0, (unsigned long long)os.bins.width, os.bins.n, os.peak);
    for (size_t s = 0; s < os.nses; s++)
        kr_buf_printf(out, "%s%u", s ? "," : "", os.ses[s]);
    kr_buf_puts(out, "],\"cycles\":[");
    for (size_t s = 0; s < os.nses; s++) {
        kr_buf_puts(out, s ? ",[" : "[");
        for (size_t b = 0; b < os.bins.n; b++) {
            if (b)
                kr_buf_putc(out, ',');
            ju(out, os.cycles[s * os.bins.n + b]);
        }
        kr_buf_putc(out, ']');
    }
    kr_buf_puts(out, "]}");
    rep_state_series_free(&ss);
    rep_occ_series_free(&os);
}

/* A wave's timeline as [state, cycles, ...]: its runs (equal neighbours
 * merged), or, past max_runs, max_runs equal bins of its length, each the
 * state with the most cycles in it (ties: the lower state). *binned set
 * then. */
static void timeline_json(const kr_wave *w, size_t max_runs, kr_buf *out, int *binned)
{
    size_t runs = 0;
    uint64_t len = 0;
    for (size_t e = 0; e < w->ntimeline; e++) {
        runs += e == 0 || w->timeline[e].state != w->timeline[e - 1].state;
        len += w->timeline[e].cycles;
    }
    *binned = runs > max_runs;
    kr_buf_putc(out, '[');
    size_t k = 0;
    if (!*binned) {
        for (size_t e = 0; e < w->ntimeline;) {
            uint8_t s = w->timeline[e].state;
            uint64_t cyc = 0;
            for (; e < w->ntimeline && w->timeline[e].state == s; e++)
                cyc += w->timeline[e].cycles;
            kr_buf_printf(out, "%s%u,", k++ ? "," : "", s);
            ju(out, cyc);
        }
    } else {
        rep_timebins tb;
        rep_timebins_make(0, len, max_runs, &tb);
        uint64_t acc[8];
        size_t e = 0;
        uint64_t used = 0;                   /* cycles of entry e used */
        int prev = -1;
        uint64_t prev_cyc = 0;
        for (size_t b = 0; b < tb.n; b++) {
            uint64_t blen = rep_timebins_len(&tb, b), need = blen;
            memset(acc, 0, sizeof acc);
            while (need && e < w->ntimeline) {
                uint64_t left = w->timeline[e].cycles - used, take = left < need ? left : need;
                acc[w->timeline[e].state < 8 ? w->timeline[e].state : 7] += take;
                need -= take;
                used += take;
                if (used == w->timeline[e].cycles) {
                    e++;
                    used = 0;
                }
            }
            int best = 0;
            for (int s = 1; s < 8; s++)
                if (acc[s] > acc[best])
                    best = s;
            if (best == prev) {
                prev_cyc += blen;
            } else {
                if (prev >= 0) {
                    kr_buf_printf(out, "%s%d,", k++ ? "," : "", prev);
                    ju(out, prev_cyc);
                }
                prev = best;
                prev_cyc = blen;
            }
        }
        if (prev >= 0) {
            kr_buf_printf(out, "%s%d,", k++ ? "," : "", prev);
            ju(out, prev_cyc);
        }
    }
    kr_buf_putc(out, ']');
}

static void waves_json(const kr_capture *c, int64_t t0, kr_buf *out)
{
    size_t pick[REP_EXPLORER_STREAM_WAVES];
    size_t np = rep_explorer_pick(c, pick);
    size_t per = rep_explorer_records_per_wave(np);
    size_t max_runs = c->nwaves ? REP_EXPLORER_RUNS / c->nwaves : REP_EXPLORER_RUNS;
    if (max_runs < 16)
        max_runs = 16;
    /* [se, simd, slot, id, cu, begin, end, records, binned, timeline] */
    kr_buf_puts(out, "\"waves\":[");
    for (size_t w = 0; w < c->nwaves; w++) {
        const kr_wave *wv = &c->waves[w];
        int64_t off = se_offset(c, wv->se) - t0;
        kr_buf_printf(out, "%s[%u,%u,%u,%u,%lld,%lld,%lld,", w ? ",\n" : "\n", wv->se, wv->simd, wv->slot, wv->id,
                      (long long)wv->cu, (long long)((int64_t)wv->begin + off), (long long)((int64_t)wv->end + off));
        ju(out, wv->num_insts);
        int binned = 0;
        kr_buf outtl;
        kr_buf_init(&outtl);
        timeline_json(wv, max_runs, &outtl, &binned);
        kr_buf_printf(out, ",%d,", binned);
        kr_buf_append(out, outtl.data ? outtl.data : "[]", outtl.data ? outtl.len : 2);
        out->oom |= outtl.oom;
        kr_buf_free(&outtl);
        kr_buf_putc(out, ']');
    }
    /* streams: {"wave": index, "total": records, "rec": [dt, row, dur, stall, cat, ...]}; dt from the
     * previous record (the first from t0, aligned); row -1 for an unknown PC */
    kr_buf_printf(out, "],\n\"stream_cap\":%zu,\"streams\":[", per);
    size_t k = 0;
    for (size_t i = 0; i < np; i++) {
        const kr_wave *wv = &c->waves[pick[i]];
        if (!wv->insts)
            continue;
        size_t n = wv->ninsts < per ? wv->ninsts : per;
        kr_buf_printf(out, "%s{\"wave\":%zu,\"total\":%zu,\"rec\":[", k++ ? ",\n" : "\n", pick[i], wv->ninsts);
        int64_t prev = t0 - se_offset(c, wv->se);   /* in the SE's clock */
        for (size_t r = 0; r < n; r++) {
            const kr_inst *in = &wv->insts[r];
            kr_buf_printf(out, "%s%lld,%lld,%u,%u,%u", r ? "," : "", (long long)((int64_t)in->time - prev),
                          in->row == KR_ROW_NONE ? -1LL : (long long)in->row, in->dur, in->stall, in->cat);
            prev = (int64_t)in->time;
        }
        kr_buf_puts(out, "]}");
    }
    kr_buf_puts(out, "]");
}

int rep_explorer_json(const an_analysis *const *a, const char *const *labels, size_t n, kr_buf *out)
{
    kr_buf_puts(out, "{\"classes\":[");
    for (int k = 0; k < KR_CLASS_COUNT; k++)
        kr_buf_printf(out, "%s\"%s\"", k ? "," : "", kr_class_name((kr_class)k));
    kr_buf_puts(out, "],\"buckets\":[");
    for (unsigned k = 0; k < AN_STALL_COUNT; k++)
        kr_buf_printf(out, "%s\"%s\"", k ? "," : "", an_stall_kind_key(k));
    kr_buf_puts(out, "],\"states\":[");
    for (unsigned k = 0; k < KR_STATE_COUNT; k++)
        kr_buf_printf(out, "%s\"%s\"", k ? "," : "", kr_state_name(k));
    kr_buf_puts(out, "],\"cats\":[");
    for (unsigned k = 0; k < KR_CAT_COUNT; k++)
        kr_buf_printf(out, "%s\"%s\"", k ? "," : "", kr_cat_name(k));
    kr_buf_printf(out, "],\"limits\":{\"stream_waves\":%d,\"stream_records\":%d,\"runs\":%d,\"bins\":%d},"
                       "\"captures\":[",
                  REP_EXPLORER_STREAM_WAVES, REP_EXPLORER_STREAM_RECORDS, REP_EXPLORER_RUNS, REP_EXPLORER_BINS);
    for (size_t i = 0; i < n && !out->oom; i++) {
        const kr_capture *c = a[i]->cap;
        size_t nfiles = 0;
        const char **files = innermost_files(c, &nfiles);
        if (!files)
            return KR_INTERNAL;
        kr_buf_puts(out, i ? ",\n{\"label\":" : "\n{\"label\":");
        jstr(out, labels && labels[i] ? labels[i] : c->folder);
        kr_buf_puts(out, ",\"folder\":");
        jstr(out, c->folder);
        kr_buf_printf(out, ",\"nwaves\":%zu,\"hidden\":%d,\n", c->nwaves, a[i]->hidden.computed ? 1 : 0);
        rows_json(a[i], out, files, nfiles);
        kr_buf_puts(out, ",\n");
        sources_json(a[i], out, files, nfiles);
        kr_buf_puts(out, ",\n");
        waits_json(a[i], out);
        kr_buf_puts(out, ",\n");
        phases_json(a[i], out);
        kr_buf_puts(out, ",\n");
        int64_t t0 = 0;
        series_json(c, out, &t0);
        kr_buf_puts(out, ",\n");
        waves_json(c, t0, out);
        kr_buf_puts(out, "}");
        free(files);
    }
    kr_buf_puts(out, "]}");
    return out->oom ? KR_INTERNAL : 0;
}
