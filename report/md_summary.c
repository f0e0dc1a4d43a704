/* md_summary.c — the decision-first summary that opens REPORT.md (and so
 * report.html), its analysis.json "summary" object, and `analyze --brief`
 * (the summary and the key figures alone). The figures come from
 * analyzer/findings.h; the codes are described by `kreport help findings`. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/fmt.h"
#include "report/doc.h"
#include "report/report.h"
#include "report/sections.h"
#include "report/util.h"

static const char *row_ref(rep_doc *d, const kr_capture *c, uint32_t r)
{
    if (r >= c->nrows)
        return "";
    return rep_fmt(d, "vaddr %" PRIu64 " %s", c->rows[r].vaddr, rep_md_code(d, c->rows[r].isa ? c->rows[r].isa : ""));
}

static void summary_one(rep_doc *d, const an_analysis *a, const char *label)
{
    const an_findings *f = &a->findings;
    const kr_capture *c = a->cap;
    if (label)
        rep_heading(d, 2, "Summary — %s", rep_md_escape(d, label));
    else
        rep_heading(d, 2, "Summary");
    if (!f->computed) {
        rep_para(d, "No summary: the flow analyses (waits, phases) did not run.");
        return;
    }
    kr_buf b;
    kr_buf_init(&b);
    kr_buf_printf(&b, "**Bound:** %s  \n", f->bound_text);
    kr_buf_printf(&b, "**Capture:** %s  \n", f->capture_text);
    if (f->nactions) {
        kr_buf_puts(&b, "**Do first** (ranked by the share of time addressed):\n\n");
        for (size_t i = 0; i < f->nactions; i++) {
            const an_action *x = &f->actions[i];
            kr_buf_printf(&b, "%zu. %s", i + 1, x->text);
            if (x->nrows)
                kr_buf_printf(&b, " Top: %s.", row_ref(d, c, x->rows[0]));
            kr_buf_printf(&b, " `%s`\n", x->code);
        }
        kr_buf_puts(&b, "\n");
    } else {
        kr_buf_puts(&b, "**Do first:** no stall group reaches 5 % of the stall cycles; see the hotspots.  \n");
    }
    for (size_t i = 0; i < f->navoid; i++)
        kr_buf_printf(&b, "**Do not:** %s  \n", f->avoid[i]);
    kr_buf_puts(&b, "**Findings:** ");
    if (!f->n)
        kr_buf_puts(&b, "none fired");
    for (size_t i = 0; i < f->n; i++)
        kr_buf_printf(&b, "%s`%s` (%s)", i ? ", " : "", f->items[i].code, f->items[i].severity);
    kr_buf_puts(&b, "; the Findings section has their figures; method: `kreport help findings`.\n");
    rep_raw(d, kr_buf_cstr(&b));
    kr_buf_free(&b);
}

void rep_md_summary(rep_doc *d, const an_analysis *const *a, const char *const *labels, size_t n)
{
    for (size_t i = 0; i < n; i++)
        summary_one(d, a[i], n > 1 ? labels[i] : NULL);
}

/* The findings with their figures, and the wait classes: the evidence of the
 * summary, one table each. */
void rep_md_findings(rep_doc *d, const an_analysis *const *a, const char *const *labels, size_t n)
{
    rep_heading(d, 2, "Findings");
    rep_para(d, "Method and thresholds: `kreport help findings`.");
    for (size_t i = 0; i < n; i++) {
        const an_findings *f = &a[i]->findings;
        const kr_capture *c = a[i]->cap;
        if (n > 1)
            rep_heading(d, 3, "%s", rep_md_escape(d, labels[i]));
        if (!f->computed) {
            rep_para(d, "Not computed (no flow analyses).");
            continue;
        }
        if (f->n) {
            rep_table *t = rep_table_new(d, "llrrl", "code", "severity", "figure", "threshold", "finding", NULL);
            for (size_t k = 0; k < f->n; k++) {
                const an_rule *x = &f->items[k];
                char v[32], th[32];
                kr_buf rows;
                kr_buf_init(&rows);
                for (size_t r = 0; r < x->nrows; r++)
                    kr_buf_printf(&rows, "%s%s", r ? "; " : " Rows: ", row_ref(d, c, x->rows[r]));
                rep_table_row(t, rep_md_code(d, x->code), x->severity,
                              x->nfigs ? rep_fmt(d, "%s = %s", x->figs[0].name,
                                                 kr_fmt_fixed(v, sizeof v, x->figs[0].value, 3)) : "—",
                              x->threshold > 0 ? kr_fmt_fixed(th, sizeof th, x->threshold, 2) : "any",
                              rep_fmt(d, "%s%s", x->message ? x->message : "",
                                      kr_buf_cstr(&rows)), NULL);
                kr_buf_free(&rows);
            }
        } else {
            rep_para(d, "No finding fired.");
        }
    }
}

/* The stall of the waits by what they wait on (the producer classes of
 * analyzer/findings.h), a subsection of the waits. */
void rep_md_wait_classes(rep_doc *d, const an_analysis *const *a, const char *const *labels, size_t n)
{
    rep_heading(d, 3, "What the waits wait on");
    rep_para(d, "The stall of every wait given to the class of its critical producer (`kreport help findings`, "
                "wait classes).");
    for (size_t i = 0; i < n; i++) {
        const an_findings *f = &a[i]->findings;
        const kr_capture *c = a[i]->cap;
        if (n > 1)
            rep_heading(d, 4, "%s", rep_md_escape(d, labels[i]));
        if (!f->computed) {
            rep_para(d, "Not computed (no flow analyses).");
            continue;
        }
        rep_table *t = rep_table_new(d, "lrrrl", "waits on", "stall", "share of stall", "wait rows",
                                     "top producer", NULL);
        for (int k = 0; k < AN_WC_COUNT; k++) {
            if (!f->wclass_stall[k])
                continue;
            char s[32];
            kr_fmt_fixed(s, sizeof s, f->total_stall ? 100.0 * (double)f->wclass_stall[k] / (double)f->total_stall : 0, 1);
            rep_table_row(t, an_wclass_name((an_wclass)k), rep_u64(d, f->wclass_stall[k]), rep_fmt(d, "%s %%", s),
                          rep_u64(d, f->wclass_waits[k]),
                          f->wclass_top[k] != UINT32_MAX ? row_ref(d, c, f->wclass_top[k]) : "—", NULL);
        }
    }
}

void rep_jw_findings(rep_jw *w, const char *key, const an_analysis *a)
{
    const an_findings *f = &a->findings;
    const kr_capture *c = a->cap;
    if (!f->computed) {
        rep_jw_null(w, key);
        return;
    }
    rep_jw_obj(w, key);
    rep_jw_obj(w, "bound");
    rep_jw_str(w, "code", f->bound);
    rep_jw_str(w, "text", f->bound_text);
    rep_jw_real(w, "share", f->bound_share);
    rep_jw_end(w);
    rep_jw_bool(w, "representative", f->representative);
    rep_jw_str(w, "capture", f->capture_text);
    rep_jw_arr(w, "actions");
    for (size_t i = 0; i < f->nactions; i++) {
        const an_action *x = &f->actions[i];
        rep_jw_obj(w, NULL);
        rep_jw_str(w, "code", x->code);
        rep_jw_str(w, "text", x->text);
        rep_jw_real(w, "share", x->share);
        rep_jw_uint(w, "stall", x->cycles);
        rep_jw_arr(w, "vaddrs");
        for (size_t r = 0; r < x->nrows; r++)
            rep_jw_uint(w, NULL, c->rows[x->rows[r]].vaddr);
        rep_jw_end(w);
        rep_jw_end(w);
    }
    rep_jw_end(w);
    rep_jw_arr(w, "avoid");
    for (size_t i = 0; i < f->navoid; i++)
        rep_jw_str(w, NULL, f->avoid[i]);
    rep_jw_end(w);
    rep_jw_arr(w, "findings");
    for (size_t i = 0; i < f->n; i++) {
        const an_rule *x = &f->items[i];
        rep_jw_obj(w, NULL);
        rep_jw_str(w, "code", x->code);
        rep_jw_str(w, "severity", x->severity);
        rep_jw_str(w, "message", x->message ? x->message : "");
        rep_jw_str_or_null(w, "figure", x->nfigs ? x->figs[0].name : NULL);
        rep_jw_real_or_null(w, "value", x->nfigs > 0, x->nfigs ? x->figs[0].value : 0);
        rep_jw_real_or_null(w, "threshold", x->threshold > 0, x->threshold);
        rep_jw_obj(w, "figures");
        for (size_t k = 0; k < x->nfigs; k++)
            rep_jw_real(w, x->figs[k].name, x->figs[k].value);
        rep_jw_end(w);
        rep_jw_arr(w, "vaddrs");
        for (size_t r = 0; r < x->nrows; r++)
            rep_jw_uint(w, NULL, c->rows[x->rows[r]].vaddr);
        rep_jw_end(w);
        rep_jw_end(w);
    }
    rep_jw_end(w);
    rep_jw_arr(w, "wait_classes");
    for (int k = 0; k < AN_WC_COUNT; k++) {
        rep_jw_obj(w, NULL);
        rep_jw_str(w, "class", an_wclass_id((an_wclass)k));
        rep_jw_uint(w, "stall", f->wclass_stall[k]);
        rep_jw_real(w, "share", f->total_stall ? (double)f->wclass_stall[k] / (double)f->total_stall : 0);
        rep_jw_uint(w, "wait_rows", f->wclass_waits[k]);
        rep_jw_uint_or_null(w, "top_vaddr", f->wclass_top[k] != UINT32_MAX,
                            f->wclass_top[k] != UINT32_MAX ? c->rows[f->wclass_top[k]].vaddr : 0);
        rep_jw_end(w);
    }
    rep_jw_end(w);
    rep_jw_end(w);
}

/* `analyze --brief`: per capture the summary and five key figures. */
int rep_analysis_brief(const an_analysis *const *a, const char *const *labels, size_t n, const rep_meta *meta,
                       kr_buf *out)
{
    (void)meta;
    rep_doc *d = rep_doc_new();
    if (!d)
        return 5;
    size_t shown = n > 2 ? 2 : n;
    for (size_t i = 0; i < shown; i++) {
        const an_analysis *x = a[i];
        summary_one(d, x, n > 1 ? labels[i] : NULL);
        const an_occ_kernel *k = x->occupancy.nkernels ? &x->occupancy.kernels[x->occupancy.primary] : NULL;
        char b1[32], b2[32];
        const an_state_sums *st = &x->states.all;
        uint64_t life = 0;
        for (int s = 0; s < KR_STATE_COUNT; s++)
            life += st->raw[s];
        kr_buf b;
        kr_buf_init(&b);
        kr_buf_printf(&b, "Key figures: %zu waves; Σ stall %" PRIu64 " of Σ latency %" PRIu64 " cycles; wave time "
                      "WAIT + STALL %s %%", x->cap->nwaves, x->totals.stall, x->totals.latency,
                      kr_fmt_fixed(b1, sizeof b1, life ? 100.0 * (double)(st->raw[KR_STATE_WAIT] + st->raw[KR_STATE_STALL]) / (double)life : 0, 1));
        if (k && x->occupancy.modelled)
            kr_buf_printf(&b, "; occupancy %u waves/SIMD (limit), %" PRId64 " by the grid", k->waves_per_simd,
                          k->grid_waves_per_simd);
        if (x->roofline.has_time)
            kr_buf_printf(&b, "; dispatch %s µs", kr_fmt_fixed(b2, sizeof b2, (double)x->roofline.time_ns / 1000.0, 2));
        kr_buf_puts(&b, ".");
        rep_para(d, "%s", kr_buf_cstr(&b));
        kr_buf_free(&b);
    }
    if (n > shown)
        rep_para(d, "%zu more captures: see analysis.json (`summary` of each capture).", n - shown);
    rep_para(d, "Full report: REPORT.md / analysis.json with `-o DIR`.");
    rep_doc_markdown(d, out);
    rep_doc_free(d);
    return out->oom ? 5 : 0;
}
