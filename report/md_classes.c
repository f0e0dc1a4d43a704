/* md_classes.c — the "Instruction classes" section (FORMATS.md §8.1): one
 * table per capture in the §8.1 display order, the record-level category
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

json_t *rep_json_classes(const an_classes *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "rows", rep_jint(r->rows));
    json_object_set_new(o, "hit", rep_jint(r->hit));
    json_object_set_new(o, "latency", rep_jint(r->latency));
    json_object_set_new(o, "stall", rep_jint(r->stall));
    json_object_set_new(o, "idle", rep_jint(r->idle));
    json_t *arr = json_array();
    for (size_t i = 0; i < an_class_norder; i++) {
        kr_class k = an_class_order[i];
        const an_class_sums *s = &r->by_class[k];
        json_t *c = json_object();
        json_object_set_new(c, "class", json_string(kr_class_name(k)));
        json_object_set_new(c, "rows", rep_jint(s->rows));
        json_object_set_new(c, "hit", rep_jint(s->hit));
        json_object_set_new(c, "latency", rep_jint(s->latency));
        json_object_set_new(c, "stall", rep_jint(s->stall));
        json_object_set_new(c, "idle", rep_jint(s->idle));
        json_object_set_new(c, "latency_share", rep_jshare(s->latency, r->latency));
        json_object_set_new(c, "stall_share", rep_jshare(s->stall, r->stall));
        json_object_set_new(c, "records", r->records_kept ? rep_jint(s->records) : json_null());
        json_t *cats = json_object();
        for (unsigned cat = 0; cat < KR_CAT_COUNT; cat++)
            json_object_set_new(cats, kr_cat_name(cat),
                                r->records_kept ? rep_jint(s->records_by_cat[cat]) : json_null());
        json_object_set_new(c, "records_by_category", cats);
        int kept = r->records_kept;
        json_object_set_new(c, "records_other_category", kept ? rep_jint(s->records_other_cat) : json_null());
        json_object_set_new(c, "records_incompatible", kept ? rep_jint(s->records_incompatible) : json_null());
        json_array_append_new(arr, c);
    }
    json_object_set_new(o, "classes", arr);
    json_t *rec = json_object();
    json_object_set_new(rec, "kept", json_boolean(r->records_kept));
    json_object_set_new(rec, "total", r->records_kept ? rep_jint(r->records) : json_null());
    json_object_set_new(rec, "unknown", r->records_kept ? rep_jint(r->records_unknown) : json_null());
    json_object_set_new(rec, "incompatible", r->records_kept ? rep_jint(r->records_incompatible) : json_null());
    json_object_set_new(o, "records", rec);
    return o;
}
