/* md_classes.c — the "Instruction classes" section (docs/instruction-classes.md): one
 * table per capture in the docs/instruction-classes.md display order, the record-level category
 * check, and for several captures the shares side by side; plus the
 * analysis.json object of one capture. */
#include "common/fmt.h"
#include "report/sections.h"
#include "report/util.h"
#include "report/templates.h"

#define MAX_COLS 32

static void class_table(rep_doc *d, const an_classes *r)
{
    rep_table *t = rep_table_new(d, "lrrrrrrr", "class", "rows", "hit", "latency", "stall", "idle",
                                 "% of latency", "% of stall", (const char *)NULL);
    for (size_t i = 0; i < an_class_norder; i++) {
        kr_class k = an_class_order[i];
        const an_class_sums *s = &r->by_class[k];
        if (s->rows == 0)
            continue;
        rep_table_row(t, kr_class_name(k), rep_u64(d, s->rows), rep_u64(d, s->hit), rep_u64(d, s->latency),
                      rep_u64(d, s->stall), rep_u64(d, s->idle), rep_pct(d, s->latency, r->latency),
                      rep_pct(d, s->stall, r->stall), (const char *)NULL);
    }
    rep_table_row(t, "**total**", rep_u64(d, r->rows), rep_u64(d, r->hit), rep_u64(d, r->latency),
                  rep_u64(d, r->stall), rep_u64(d, r->idle), rep_pct(d, r->latency, r->latency),
                  rep_pct(d, r->stall, r->stall), (const char *)NULL);
}

static void record_check(rep_doc *d, const an_classes *r)
{
    if (!r->records_kept) {
        rep_item(d, 0, "The record streams were not kept, so the trace categories were not checked.");
        return;
    }
    rep_item(d, 0, "%s records checked against their row's class: %s with a category the class does not allow, %s with an unknown PC.",
             rep_u64(d, r->records), rep_u64(d, r->records_incompatible), rep_u64(d, r->records_unknown));
    const an_class_sums *b = &r->by_class[KR_CLASS_BRANCH];
    if (b->records)
        rep_item(d, 0, "Branch executions: %s taken, %s not taken.",
                 rep_u64(d, b->records_by_cat[KR_CAT_JUMP]), rep_u64(d, b->records_by_cat[KR_CAT_NEXT]));
}

void rep_md_classes(rep_doc *d, const an_classes *const *r, const char *const *labels, size_t n)
{
    rep_heading(d, 2, "Instruction classes");
    const char *t = rep_template("classes.md", NULL);
    if (t)
        rep_raw(d, t);
    for (size_t i = 0; i < n; i++) {
        if (n > 1)
            rep_heading(d, 3, "%s", rep_label(d, labels, i));
        class_table(d, r[i]);
        record_check(d, r[i]);
    }
    if (n < 2)
        return;

    size_t shown = n > (MAX_COLS - 1) / 2 ? (MAX_COLS - 1) / 2 : n;
    rep_heading(d, 3, "Shares side by side");
    const char *h[MAX_COLS];
    char align[MAX_COLS + 1];
    size_t nc = 0;
    h[nc] = "class"; align[nc++] = 'l';
    for (size_t i = 0; i < shown; i++) {
        const char *l = rep_label(d, labels, i);
        h[nc] = rep_fmt(d, "%s %% of latency", l); align[nc++] = 'r';
        h[nc] = rep_fmt(d, "%s %% of stall", l); align[nc++] = 'r';
    }
    align[nc] = '\0';
    rep_table *tab = rep_table_newv(d, align, h, nc);
    for (size_t k = 0; k < an_class_norder; k++) {
        kr_class cls = an_class_order[k];
        int any = 0;
        for (size_t i = 0; i < shown; i++)
            any = any || r[i]->by_class[cls].rows > 0;
        if (!any)
            continue;
        const char *cells[MAX_COLS];
        size_t c = 0;
        cells[c++] = kr_class_name(cls);
        for (size_t i = 0; i < shown; i++) {
            const an_class_sums *s = &r[i]->by_class[cls];
            cells[c++] = s->rows ? rep_pct(d, s->latency, r[i]->latency) : "—";
            cells[c++] = s->rows ? rep_pct(d, s->stall, r[i]->stall) : "—";
        }
        rep_table_rowv(tab, cells, c);
    }
    if (shown < n)
        rep_para(d, "(The first %zu of %zu captures are shown side by side.)", shown, n);
}

/* ---- JSON ---- */

void rep_jw_classes(rep_jw *w, const char *key, const an_classes *r)
{
    int kept = r->records_kept;
    rep_jw_obj(w, key);
    rep_jw_uint(w, "rows", r->rows);
    rep_jw_uint(w, "hit", r->hit);
    rep_jw_uint(w, "latency", r->latency);
    rep_jw_uint(w, "stall", r->stall);
    rep_jw_uint(w, "idle", r->idle);
    rep_jw_arr(w, "classes");
    for (size_t i = 0; i < an_class_norder; i++) {
        kr_class k = an_class_order[i];
        const an_class_sums *s = &r->by_class[k];
        rep_jw_obj(w, NULL);
        rep_jw_sym(w, "class", kr_class_name(k));
        rep_jw_uint(w, "rows", s->rows);
        rep_jw_uint(w, "hit", s->hit);
        rep_jw_uint(w, "latency", s->latency);
        rep_jw_uint(w, "stall", s->stall);
        rep_jw_uint(w, "idle", s->idle);
        rep_jw_share(w, "latency_share", s->latency, r->latency);
        rep_jw_share(w, "stall_share", s->stall, r->stall);
        if (kept)
            rep_jw_uint(w, "records", s->records);
        else
            rep_jw_null(w, "records");
        rep_jw_obj(w, "records_by_category");
        for (unsigned cat = 0; cat < KR_CAT_COUNT; cat++) {
            if (kept)
                rep_jw_uint(w, kr_cat_name(cat), s->records_by_cat[cat]);
            else
                rep_jw_null(w, kr_cat_name(cat));
        }
        rep_jw_end(w);
        if (kept) {
            rep_jw_uint(w, "records_other_category", s->records_other_cat);
            rep_jw_uint(w, "records_incompatible", s->records_incompatible);
        } else {
            rep_jw_null(w, "records_other_category");
            rep_jw_null(w, "records_incompatible");
        }
        rep_jw_end(w);
    }
    rep_jw_end(w);
    rep_jw_obj(w, "records");
    rep_jw_bool(w, "kept", kept);
    if (kept) {
        rep_jw_uint(w, "total", r->records);
        rep_jw_uint(w, "unknown", r->records_unknown);
        rep_jw_uint(w, "incompatible", r->records_incompatible);
    } else {
        rep_jw_null(w, "total");
        rep_jw_null(w, "unknown");
        rep_jw_null(w, "incompatible");
    }
    rep_jw_end(w);
    rep_jw_end(w);
}

json_t *rep_json_classes(const an_classes *r)
{
    rep_jw w;
    rep_jw_tree(&w);
    rep_jw_classes(&w, NULL, r);
    return rep_jw_tree_end(&w);
}
