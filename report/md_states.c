/* md_states.c — the "Wave states" section: time per wave state (
 * docs/formats.md#timeline, raw with the clipped totals beside), per SE and SIMD, and the docs/stalls.md#issue-stall-and-idle
 * Issue / Stall / Idle split; Markdown side by side for n captures, and the
 * analysis.json object of one capture. */
#include <stdio.h>

#include "common/fmt.h"
#include "report/sections.h"
#include "report/util.h"
#include "report/templates.h"

#define MAX_COLS 32

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
    rep_table *t = rep_table_newv(d, align, h, nc);
    for (int pass = 0; pass < 2; pass++) {
        const an_states_scope *sc = pass == 0 ? r->per_se : r->per_simd;
        size_t ns = pass == 0 ? r->nse : r->nsimd;
        for (size_t s = 0; s < ns; s++) {
            const char *cells[MAX_COLS];
            size_t c = 0;
            cells[c++] = pass == 0 ? rep_fmt(d, "SE %u", sc[s].se) : rep_fmt(d, "SIMD %u", sc[s].simd);
            cells[c++] = rep_u64(d, sc[s].sums.waves);
            for (unsigned i = 0; i < AN_STATES_N; i++)
                if (show[state_order[i]])
                    cells[c++] = rep_pct(d, sc[s].sums.raw[state_order[i]], sc[s].sums.raw_total);
            cells[c++] = rep_u64(d, sc[s].sums.raw_total);
            rep_table_rowv(t, cells, c);
        }
    }
}

void rep_md_states(rep_doc *d, const an_states *const *r, const char *const *labels, size_t n)
{
    rep_heading(d, 2, "Wave states");
    rep_prose(d, "states.md");
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
        const char *l = rep_label(d, labels, i);
        h[nc] = rep_fmt(d, "%s cycles", l); align[nc++] = 'r';
        h[nc] = rep_fmt(d, "%s share", l); align[nc++] = 'r';
    }
    align[nc] = '\0';
    rep_table *t = rep_table_newv(d, align, h, nc);
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
            cells[c++] = rep_u64(d, r[i]->all.raw[s]);
            cells[c++] = rep_pct(d, r[i]->all.raw[s], r[i]->all.raw_total);
        }
        rep_table_rowv(t, cells, c);
    }
    const char *cells[MAX_COLS];
    size_t c = 0;
    cells[c++] = "**total**";
    for (size_t i = 0; i < shown; i++) {
        cells[c++] = rep_u64(d, r[i]->all.raw_total);
        cells[c++] = rep_pct(d, r[i]->all.raw_total, r[i]->all.raw_total);
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
                 rep_label(d, labels, i), rep_u64(d, s->waves), rep_u64(d, s->waves_with_timeline),
                 rep_u64(d, s->all.clipped_total),
                 removed ? rep_fmt(d, " (%s past the wave ends removed: ", rep_u64(d, removed)) : " (nothing removed",
                 removed ? kr_buf_cstr(&b) : "", ")");
        kr_buf_free(&b);
    }

    /* Per SE and SIMD, one table per capture. */
    for (size_t i = 0; i < n; i++) {
        if (r[i]->nse <= 1 && r[i]->nsimd <= 1)
            continue;
        if (n > 1)
            rep_heading(d, 3, "Per SE and SIMD — %s", rep_label(d, labels, i));
        else
            rep_heading(d, 3, "Per SE and SIMD");
        rep_para(d, "Share of each scope's raw timeline cycles; SIMD rows add up the waves of that SIMD on every SE.");
        scope_table(d, r[i]);
    }

    /* docs/stalls.md#issue-stall-and-idle activity split. */
    rep_heading(d, 3, "Issue, stall and idle");
    nc = 0;
    h[nc] = "part"; align[nc++] = 'l';
    for (size_t i = 0; i < shown; i++) {
        const char *l = rep_label(d, labels, i);
        h[nc] = rep_fmt(d, "%s cycles", l); align[nc++] = 'r';
        h[nc] = rep_fmt(d, "%s share", l); align[nc++] = 'r';
    }
    align[nc] = '\0';
    t = rep_table_newv(d, align, h, nc);
    static const char *const parts[] = {"issue", "stall", "idle", "**total**"};
    for (size_t p = 0; p < 4; p++) {
        c = 0;
        cells[c++] = parts[p];
        for (size_t i = 0; i < shown; i++) {
            const an_activity *a = &r[i]->activity;
            uint64_t v = p == 0 ? a->issue : p == 1 ? a->stall : p == 2 ? a->idle : a->total;
            cells[c++] = rep_u64(d, v);
            cells[c++] = rep_pct(d, v, a->total);
        }
        rep_table_rowv(t, cells, c);
    }
}

/* ---- JSON ---- */

static void state_obj(rep_jw *w, const char *key, const uint64_t v[AN_STATES_N], uint64_t total)
{
    rep_jw_obj(w, key);
    for (unsigned k = 0; k < AN_STATES_N; k++)
        rep_jw_uint(w, an_state_key(k), v[k]);
    rep_jw_uint(w, "total", total);
    rep_jw_end(w);
}

static void share_obj(rep_jw *w, const char *key, const uint64_t v[AN_STATES_N], uint64_t total)
{
    rep_jw_obj(w, key);
    for (unsigned k = 0; k < AN_STATES_N; k++)
        rep_jw_share(w, an_state_key(k), v[k], total);
    rep_jw_end(w);
}

/* The members of one scope's sums (the caller opens and closes the object). */
static void sums_keys(rep_jw *w, const an_state_sums *s, int with_shares)
{
    rep_jw_uint(w, "waves", s->waves);
    state_obj(w, "raw", s->raw, s->raw_total);
    state_obj(w, "clipped", s->clipped, s->clipped_total);
    if (with_shares) {
        share_obj(w, "raw_share", s->raw, s->raw_total);
        share_obj(w, "clipped_share", s->clipped, s->clipped_total);
    }
}

static void scopes(rep_jw *w, const char *key, const an_states_scope *sc, size_t n, int se, int simd)
{
    rep_jw_arr(w, key);
    for (size_t i = 0; i < n; i++) {
        rep_jw_obj(w, NULL);
        sums_keys(w, &sc[i].sums, 0);
        if (se)
            rep_jw_uint(w, "se", sc[i].se);
        if (simd)
            rep_jw_uint(w, "simd", sc[i].simd);
        rep_jw_end(w);
    }
    rep_jw_end(w);
}

void rep_jw_states(rep_jw *w, const char *key, const an_states *r)
{
    rep_jw_obj(w, key);
    rep_jw_uint(w, "waves", r->waves);
    rep_jw_uint(w, "waves_with_timeline", r->waves_with_timeline);
    rep_jw_uint(w, "timeline_entries", r->entries);
    rep_jw_obj(w, "overall");
    sums_keys(w, &r->all, 1);
    rep_jw_end(w);
    scopes(w, "per_se", r->per_se, r->nse, 1, 0);
    scopes(w, "per_simd", r->per_simd, r->nsimd, 0, 1);
    scopes(w, "per_se_simd", r->per_se_simd, r->nse_simd, 1, 1);
    const an_activity *a = &r->activity;
    rep_jw_obj(w, "activity");
    rep_jw_uint(w, "rows", a->rows);
    rep_jw_uint(w, "issue", a->issue);
    rep_jw_uint(w, "stall", a->stall);
    rep_jw_uint(w, "idle", a->idle);
    rep_jw_uint(w, "active", a->active);
    rep_jw_uint(w, "total", a->total);
    rep_jw_share(w, "issue_share", a->issue, a->total);
    rep_jw_share(w, "stall_share", a->stall, a->total);
    rep_jw_share(w, "idle_share", a->idle, a->total);
    rep_jw_end(w);
    rep_jw_end(w);
}

json_t *rep_json_states(const an_states *r)
{
    rep_jw w;
    rep_jw_tree(&w);
    rep_jw_states(&w, NULL, r);
    return rep_jw_tree_end(&w);
}
