/* md_states.c — the "Wave states" section: time per wave state (FORMATS.md
 * §4.4, raw with the clipped totals beside), per SE and SIMD, and the §8.2
 * Issue / Stall / Idle split; Markdown side by side for n captures, and the
 * analysis.json object of one capture. */
#include <stdio.h>

#include "common/fmt.h"
#include "report/sections.h"
#include "report/templates.h"

#define MAX_COLS 32

/* A table with n headers (at most MAX_COLS; rep_table_new stops at NULL). */
static rep_table *table_newv(rep_doc *d, const char *align, const char *const *h, size_t n)
{
    const char *a[MAX_COLS + 1] = {0};
    for (size_t i = 0; i < n && i < MAX_COLS; i++)
        a[i] = h[i] ? h[i] : "";
    return rep_table_new(d, align, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9],
                         a[10], a[11], a[12], a[13], a[14], a[15], a[16], a[17], a[18], a[19],
                         a[20], a[21], a[22], a[23], a[24], a[25], a[26], a[27], a[28], a[29],
                         a[30], a[31], (const char *)NULL);
}

static const char *num(rep_doc *d, uint64_t v)
{
    char b[32];
    return rep_fmt(d, "%s", kr_fmt_u64(b, sizeof b, v));
}

static const char *pct(rep_doc *d, uint64_t part, uint64_t whole)
{
    char b[32];
    return rep_fmt(d, "%s", kr_fmt_pct(b, sizeof b, (double)part, (double)whole, 1));
}

static const char *label_of(rep_doc *d, const char *const *labels, size_t i)
{
    return labels && labels[i] ? rep_md_escape(d, labels[i]) : rep_fmt(d, "capture %zu", i + 1);
}

static void prose(rep_doc *d, const char *name)
{
    const char *t = rep_template(name, NULL);
    if (t)
        rep_raw(d, t);
}

/* Display order of the states: the four that occur, then EMPTY and OTHER. */
static const unsigned state_order[AN_STATES_N] = {KR_STATE_IDLE, KR_STATE_EXEC, KR_STATE_WAIT,
                                                  KR_STATE_STALL, KR_STATE_EMPTY, AN_STATE_OTHER};

static int always_shown(unsigned s) { return s >= KR_STATE_IDLE && s <= KR_STATE_STALL; }

static void scope_table(rep_doc *d, const an_states *r)
{
    int show[AN_STATES_N] = {0};
    for (unsigned k = 0; k < AN_STATES_N; k++)
        show[k] = always_shown(k) || r->all.raw[k] > 0;
    const char *h[MAX_COLS];
    char align[MAX_COLS + 1];
    size_t nc = 0;
    h[nc] = "scope"; align[nc++] = 'l';
    h[nc] = "waves"; align[nc++] = 'r';
    for (unsigned i = 0; i < AN_STATES_N; i++)
        if (show[state_order[i]]) {
            h[nc] = an_state_key(state_order[i]);
            align[nc++] = 'r';
        }
    h[nc] = "cycles"; align[nc++] = 'r';
    align[nc] = '\0';
    rep_table *t = table_newv(d, align, h, nc);
    for (int pass = 0; pass < 2; pass++) {
        const an_states_scope *sc = pass == 0 ? r->per_se : r->per_simd;
        size_t ns = pass == 0 ? r->nse : r->nsimd;
        for (size_t s = 0; s < ns; s++) {
            const char *cells[MAX_COLS];
            size_t c = 0;
            cells[c++] = pass == 0 ? rep_fmt(d, "SE %u", sc[s].se) : rep_fmt(d, "SIMD %u", sc[s].simd);
            cells[c++] = num(d, sc[s].sums.waves);
            for (unsigned i = 0; i < AN_STATES_N; i++)
                if (show[state_order[i]])
                    cells[c++] = pct(d, sc[s].sums.raw[state_order[i]], sc[s].sums.raw_total);
            cells[c++] = num(d, sc[s].sums.raw_total);
            rep_table_rowv(t, cells, c);
        }
    }
}

void rep_md_states(rep_doc *d, const an_states *const *r, const char *const *labels, size_t n)
{
    rep_heading(d, 2, "Wave states");
    prose(d, "states.md");
    if (n == 0)
        return;
    size_t shown = n > (MAX_COLS - 1) / 2 ? (MAX_COLS - 1) / 2 : n;

    /* Time per state, raw, side by side. */
    rep_heading(d, 3, "Time per state");
    const char *h[MAX_COLS];
    char align[MAX_COLS + 1];
    size_t nc = 0;
    h[nc] = "state"; align[nc++] = 'l';
    for (size_t i = 0; i < shown; i++) {
        const char *l = label_of(d, labels, i);
        h[nc] = rep_fmt(d, "%s cycles", l); align[nc++] = 'r';
        h[nc] = rep_fmt(d, "%s share", l); align[nc++] = 'r';
    }
    align[nc] = '\0';
    rep_table *t = table_newv(d, align, h, nc);
    for (unsigned k = 0; k < AN_STATES_N; k++) {
        unsigned s = state_order[k];
        int show = always_shown(s);
        for (size_t i = 0; i < shown; i++)
            show = show || r[i]->all.raw[s] > 0;
        if (!show)
            continue;
        const char *cells[MAX_COLS];
        size_t c = 0;
        cells[c++] = an_state_key(s);
        for (size_t i = 0; i < shown; i++) {
            cells[c++] = num(d, r[i]->all.raw[s]);
            cells[c++] = pct(d, r[i]->all.raw[s], r[i]->all.raw_total);
        }
        rep_table_rowv(t, cells, c);
    }
    const char *cells[MAX_COLS];
    size_t c = 0;
    cells[c++] = "**total**";
    for (size_t i = 0; i < shown; i++) {
        cells[c++] = num(d, r[i]->all.raw_total);
        cells[c++] = pct(d, r[i]->all.raw_total, r[i]->all.raw_total);
    }
    rep_table_rowv(t, cells, c);
    if (shown < n)
        rep_para(d, "(The first %zu of %zu captures are shown side by side; analysis.json has all.)", shown, n);

    for (size_t i = 0; i < n; i++) {
        const an_states *s = r[i];
        uint64_t removed = s->all.raw_total - s->all.clipped_total;
        kr_buf b;
        kr_buf_init(&b);
        for (unsigned k = 0; k < AN_STATES_N; k++) {
            unsigned st = state_order[k];
            if (s->all.raw[st] > s->all.clipped[st])
                kr_buf_printf(&b, "%s%s %llu", b.len ? ", " : "", an_state_key(st),
                              (unsigned long long)(s->all.raw[st] - s->all.clipped[st]));
        }
        rep_item(d, 0, "%s: %s waves, %s with a timeline; clipped to the waves' `[begin, end)` the total is %s cycles%s%s%s.",
                 label_of(d, labels, i), num(d, s->waves), num(d, s->waves_with_timeline),
                 num(d, s->all.clipped_total),
                 removed ? rep_fmt(d, " (%s past the wave ends removed: ", num(d, removed)) : " (nothing removed",
                 removed ? kr_buf_cstr(&b) : "", ")");
        kr_buf_free(&b);
    }

    /* Per SE and SIMD, one table per capture. */
    for (size_t i = 0; i < n; i++) {
        if (r[i]->nse <= 1 && r[i]->nsimd <= 1)
            continue;
        if (n > 1)
            rep_heading(d, 3, "Per SE and SIMD — %s", label_of(d, labels, i));
        else
            rep_heading(d, 3, "Per SE and SIMD");
        rep_para(d, "Share of each scope's raw timeline cycles; SIMD rows add up the waves of that SIMD on every SE.");
        scope_table(d, r[i]);
    }

    /* §8.2 activity split. */
    rep_heading(d, 3, "Issue, stall and idle");
    nc = 0;
    h[nc] = "part"; align[nc++] = 'l';
    for (size_t i = 0; i < shown; i++) {
        const char *l = label_of(d, labels, i);
        h[nc] = rep_fmt(d, "%s cycles", l); align[nc++] = 'r';
        h[nc] = rep_fmt(d, "%s share", l); align[nc++] = 'r';
    }
    align[nc] = '\0';
    t = table_newv(d, align, h, nc);
    static const char *const parts[] = {"issue", "stall", "idle", "**total**"};
    for (size_t p = 0; p < 4; p++) {
        c = 0;
        cells[c++] = parts[p];
        for (size_t i = 0; i < shown; i++) {
            const an_activity *a = &r[i]->activity;
            uint64_t v = p == 0 ? a->issue : p == 1 ? a->stall : p == 2 ? a->idle : a->total;
            cells[c++] = num(d, v);
            cells[c++] = pct(d, v, a->total);
        }
        rep_table_rowv(t, cells, c);
    }
}

/* ---- JSON ---- */

/* Counts are exact up to INT64_MAX; the analyzer saturates beyond that. */
static json_t *jint(uint64_t v) { return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v); }

static json_t *share(uint64_t part, uint64_t whole)
{
    return whole ? json_real((double)part / (double)whole) : json_null();
}

static json_t *state_obj(const uint64_t v[AN_STATES_N], uint64_t total)
{
    json_t *o = json_object();
    for (unsigned k = 0; k < AN_STATES_N; k++)
        json_object_set_new(o, an_state_key(k), jint(v[k]));
    json_object_set_new(o, "total", jint(total));
    return o;
}

static json_t *share_obj(const uint64_t v[AN_STATES_N], uint64_t total)
{
    json_t *o = json_object();
    for (unsigned k = 0; k < AN_STATES_N; k++)
        json_object_set_new(o, an_state_key(k), share(v[k], total));
    return o;
}

static json_t *sums_obj(const an_state_sums *s, int with_shares)
{
    json_t *o = json_object();
    json_object_set_new(o, "waves", jint(s->waves));
    json_object_set_new(o, "raw", state_obj(s->raw, s->raw_total));
    json_object_set_new(o, "clipped", state_obj(s->clipped, s->clipped_total));
    if (with_shares) {
        json_object_set_new(o, "raw_share", share_obj(s->raw, s->raw_total));
        json_object_set_new(o, "clipped_share", share_obj(s->clipped, s->clipped_total));
    }
    return o;
}

static json_t *scopes(const an_states_scope *sc, size_t n, int se, int simd)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *o = sums_obj(&sc[i].sums, 0);
        if (se)
            json_object_set_new(o, "se", jint(sc[i].se));
        if (simd)
            json_object_set_new(o, "simd", jint(sc[i].simd));
        json_array_append_new(a, o);
    }
    return a;
}

json_t *rep_json_states(const an_states *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "waves", jint(r->waves));
    json_object_set_new(o, "waves_with_timeline", jint(r->waves_with_timeline));
    json_object_set_new(o, "timeline_entries", jint(r->entries));
    json_object_set_new(o, "overall", sums_obj(&r->all, 1));
    json_object_set_new(o, "per_se", scopes(r->per_se, r->nse, 1, 0));
    json_object_set_new(o, "per_simd", scopes(r->per_simd, r->nsimd, 0, 1));
    json_object_set_new(o, "per_se_simd", scopes(r->per_se_simd, r->nse_simd, 1, 1));
    const an_activity *a = &r->activity;
    json_t *act = json_object();
    json_object_set_new(act, "rows", jint(a->rows));
    json_object_set_new(act, "issue", jint(a->issue));
    json_object_set_new(act, "stall", jint(a->stall));
    json_object_set_new(act, "idle", jint(a->idle));
    json_object_set_new(act, "active", jint(a->active));
    json_object_set_new(act, "total", jint(a->total));
    json_object_set_new(act, "issue_share", share(a->issue, a->total));
    json_object_set_new(act, "stall_share", share(a->stall, a->total));
    json_object_set_new(act, "idle_share", share(a->idle, a->total));
    json_object_set_new(o, "activity", act);
    return o;
}
