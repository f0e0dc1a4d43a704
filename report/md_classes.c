/* md_classes.c — the "Instruction classes" section (FORMATS.md §8.1): one
 * table per capture in the §8.1 display order, the record-level category
 * check, and for several captures the shares side by side; plus the
 * analysis.json object of one capture. */
#include "common/fmt.h"
#include "report/sections.h"
#include "report/templates.h"

#define MAX_COLS 32

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

static void class_table(rep_doc *d, const an_classes *r)
{
    rep_table *t = rep_table_new(d, "lrrrrrrr", "class", "rows", "hit", "latency", "stall", "idle",
                                 "% of latency", "% of stall", (const char *)NULL);
    for (size_t i = 0; i < an_class_norder; i++) {
        kr_class k = an_class_order[i];
        const an_class_sums *s = &r->by_class[k];
        if (s->rows == 0)
            continue;
        rep_table_row(t, kr_class_name(k), num(d, s->rows), num(d, s->hit), num(d, s->latency),
                      num(d, s->stall), num(d, s->idle), pct(d, s->latency, r->latency),
                      pct(d, s->stall, r->stall), (const char *)NULL);
    }
    rep_table_row(t, "**total**", num(d, r->rows), num(d, r->hit), num(d, r->latency),
                  num(d, r->stall), num(d, r->idle), pct(d, r->latency, r->latency),
                  pct(d, r->stall, r->stall), (const char *)NULL);
}

static void record_check(rep_doc *d, const an_classes *r)
{
    if (!r->records_kept) {
        rep_item(d, 0, "The record streams were not kept, so the trace categories were not checked.");
        return;
    }
    rep_item(d, 0, "%s records checked against their row's class: %s with a category the class does not allow, %s with an unknown PC.",
             num(d, r->records), num(d, r->records_incompatible), num(d, r->records_unknown));
    const an_class_sums *b = &r->by_class[KR_CLASS_BRANCH];
    if (b->records)
        rep_item(d, 0, "Branch executions: %s taken, %s not taken.",
                 num(d, b->records_by_cat[KR_CAT_JUMP]), num(d, b->records_by_cat[KR_CAT_NEXT]));
}

void rep_md_classes(rep_doc *d, const an_classes *const *r, const char *const *labels, size_t n)
{
    rep_heading(d, 2, "Instruction classes");
    const char *t = rep_template("classes.md", NULL);
    if (t)
        rep_raw(d, t);
    for (size_t i = 0; i < n; i++) {
        if (n > 1)
            rep_heading(d, 3, "%s", label_of(d, labels, i));
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
        const char *l = label_of(d, labels, i);
        h[nc] = rep_fmt(d, "%s %% of latency", l); align[nc++] = 'r';
        h[nc] = rep_fmt(d, "%s %% of stall", l); align[nc++] = 'r';
    }
    align[nc] = '\0';
    rep_table *tab = table_newv(d, align, h, nc);
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
            cells[c++] = s->rows ? pct(d, s->latency, r[i]->latency) : "—";
            cells[c++] = s->rows ? pct(d, s->stall, r[i]->stall) : "—";
        }
        rep_table_rowv(tab, cells, c);
    }
    if (shown < n)
        rep_para(d, "(The first %zu of %zu captures are shown side by side.)", shown, n);
}

/* ---- JSON ---- */

static json_t *jint(uint64_t v) { return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v); }

static json_t *share(uint64_t part, uint64_t whole)
{
    return whole ? json_real((double)part / (double)whole) : json_null();
}

json_t *rep_json_classes(const an_classes *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "rows", jint(r->rows));
    json_object_set_new(o, "hit", jint(r->hit));
    json_object_set_new(o, "latency", jint(r->latency));
    json_object_set_new(o, "stall", jint(r->stall));
    json_object_set_new(o, "idle", jint(r->idle));
    json_t *arr = json_array();
    for (size_t i = 0; i < an_class_norder; i++) {
        kr_class k = an_class_order[i];
        const an_class_sums *s = &r->by_class[k];
        json_t *c = json_object();
        json_object_set_new(c, "class", json_string(kr_class_name(k)));
        json_object_set_new(c, "rows", jint(s->rows));
        json_object_set_new(c, "hit", jint(s->hit));
        json_object_set_new(c, "latency", jint(s->latency));
        json_object_set_new(c, "stall", jint(s->stall));
        json_object_set_new(c, "idle", jint(s->idle));
        json_object_set_new(c, "latency_share", share(s->latency, r->latency));
        json_object_set_new(c, "stall_share", share(s->stall, r->stall));
        json_object_set_new(c, "records", r->records_kept ? jint(s->records) : json_null());
        json_t *cats = json_object();
        for (unsigned cat = 0; cat < KR_CAT_COUNT; cat++)
            json_object_set_new(cats, kr_cat_name(cat),
                                r->records_kept ? jint(s->records_by_cat[cat]) : json_null());
        json_object_set_new(c, "records_by_category", cats);
        int kept = r->records_kept;
        json_object_set_new(c, "records_other_category", kept ? jint(s->records_other_cat) : json_null());
        json_object_set_new(c, "records_incompatible", kept ? jint(s->records_incompatible) : json_null());
        json_array_append_new(arr, c);
    }
    json_object_set_new(o, "classes", arr);
    json_t *rec = json_object();
    json_object_set_new(rec, "kept", json_boolean(r->records_kept));
    json_object_set_new(rec, "total", r->records_kept ? jint(r->records) : json_null());
    json_object_set_new(rec, "unknown", r->records_kept ? jint(r->records_unknown) : json_null());
    json_object_set_new(rec, "incompatible", r->records_kept ? jint(r->records_incompatible) : json_null());
    json_object_set_new(o, "records", rec);
    return o;
}
