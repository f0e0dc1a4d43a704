/* report.c — REPORT.md, analysis.json and the CSVs of `kreport analyze`.
 *
 * Section order of REPORT.md is fixed: title, the summary
 * (report/md_summary.c), capture (kernel, target), capture facts,
 * findings, wave states, instruction classes, stalls, occupancy,
 * hotspots, waits and their producers (and what they wait on), hidden and
 * exposed latency, phases and loops, source lines, recommendations, files
 * and re-run. */
#include "report/report.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "common/fmt.h"
#include "report/doc.h"
#include "report/json_dump.h"
#include "report/sections.h"
#include "report/templates.h"
#include "report/util.h"

/* ---- facts derived from the capture (shared by Markdown and JSON) ---- */

typedef struct facts {
    const char *kernel;          /* first label's symbol without "; " */
    size_t nses;
    uint32_t ses[64];
    uint64_t span_raw;           /* max(end) - min(begin), raw clocks */
    uint64_t span_aligned;       /* the same after docs/formats.md#se-alignment offsets; = raw when not aligned */
    int aligned;
    double clock_mhz;            /* 0 when unknown */
    uint64_t wave_bytes;
} facts;

static void facts_of(const kr_capture *c, facts *f)
{
    memset(f, 0, sizeof *f);
    f->kernel = NULL;
    for (size_t i = 0; i < c->nrows; i++)
        if (c->rows[i].is_label) {
            const char *s = c->rows[i].isa + 1;
            while (*s == ' ')
                s++;
            f->kernel = s;
            break;
        }
    uint64_t lo = UINT64_MAX, hi = 0;
    int64_t alo = INT64_MAX, ahi = INT64_MIN;
    f->aligned = c->realtime.aligned;
    for (size_t w = 0; w < c->nwaves; w++) {
        const kr_wave *wv = &c->waves[w];
        int seen = 0;
        for (size_t s = 0; s < f->nses; s++)
            seen |= f->ses[s] == wv->se;
        if (!seen && f->nses < 64)
            f->ses[f->nses++] = wv->se;
        if (wv->begin < lo)
            lo = wv->begin;
        if (wv->end > hi)
            hi = wv->end;
        int64_t off = (f->aligned && wv->se < 64) ? c->realtime.se_offset[wv->se] : 0;
        if ((int64_t)wv->begin + off < alo)
            alo = (int64_t)wv->begin + off;
        if ((int64_t)wv->end + off > ahi)
            ahi = (int64_t)wv->end + off;
        f->wave_bytes += wv->bytes;
    }
    for (size_t i = 1; i < f->nses; i++)       /* sort SE ids */
        for (size_t j = i; j > 0 && f->ses[j - 1] > f->ses[j]; j--) {
            uint32_t t = f->ses[j];
            f->ses[j] = f->ses[j - 1];
            f->ses[j - 1] = t;
        }
    if (c->nwaves) {
        f->span_raw = hi > lo ? hi - lo : 0;
        f->span_aligned = ahi > alo ? (uint64_t)(ahi - alo) : 0;
    }
    f->clock_mhz = c->realtime.clock_hz / 1e6;
}

static const char *kernel_name(const an_analysis *a)
{
    facts f;
    facts_of(a->cap, &f);
    return f.kernel ? f.kernel : "unknown kernel";
}

/* ---- Markdown ---- */

static const char *u64s(rep_doc *d, uint64_t v) { return rep_u64(d, v); }

static void header(rep_doc *d, const an_analysis *const *a, const char *const *labels, size_t n)
{
    rep_heading(d, 1, "%s — thread-trace analysis", rep_md_escape(d, kernel_name(a[0])));
    rep_md_summary(d, a, labels, n);
}

static void capture_facts(rep_doc *d, const an_analysis *const *a, const char *const *labels, size_t n,
                          const rep_meta *meta)
{
    rep_heading(d, 2, "Capture facts");
    const an_occupancy *o = &a[0]->occupancy;
    rep_para(d, "Kernel %s on **%s** (target from %s, gfxip %" PRId64 "). %s %zu capture%s, analyzed by kreport %s.",
             rep_md_code(d, kernel_name(a[0])), rep_md_escape(d, o->target ? o->target : "unknown"),
             rep_md_escape(d, o->target_source ? o->target_source : "nothing"), a[0]->cap->gfxip,
             meta && meta->example ? rep_fmt(d, "Example %s:", rep_md_code(d, meta->example)) : "Input:",
             n, n == 1 ? "" : "s", KREPORT_VERSION);
    const char *t = rep_template("facts.md", NULL);
    if (t)
        rep_raw(d, t);
    char align[40] = "l";
    const char *hdr[33] = {"fact"};
    for (size_t i = 0; i < n && i < 31; i++) {
        hdr[i + 1] = rep_md_escape(d, labels[i]);
        strcat(align, "r");
    }
    rep_table *tb = rep_table_new(d, align, hdr[0], hdr[1], hdr[2], hdr[3], hdr[4], hdr[5], hdr[6],
                                  hdr[7], hdr[8], (const char *)NULL);
    size_t ncol = n < 8 ? n : 8;
    enum { F_FOLDER, F_AGENT, F_GFXIP, F_TARGET, F_SES, F_WAVES, F_STATIC, F_RECORDS, F_HIT, F_MAPPED,
           F_SPAN_RAW, F_SPAN_AL, F_CLOCK, F_US, F_LAT, F_STALL, F_IDLE, F_RESULTS, F_COUNT };
    static const char *names[F_COUNT] = {
        "folder", "agent handle / dispatch", "gfxip", "target", "shader engines (SE ids)", "waves",
        "static instructions", "dynamic records", "Σ Hit (code.json)", "rows mapped to source",
        "span, raw SE clocks (cycles)", "span, SE clocks aligned (cycles)", "measured shader clock",
        "span (µs)", "Σ Latency (cycles)", "Σ Stall (cycles)", "Σ Idle (cycles)", "results.json"};
    for (int r = 0; r < F_COUNT; r++) {
        const char *cells[9] = {names[r]};
        for (size_t i = 0; i < ncol; i++) {
            const an_analysis *x = a[i];
            const kr_capture *c = x->cap;
            facts f;
            facts_of(c, &f);
            char b[64];
            const char *v = "";
            switch (r) {
            case F_FOLDER: v = rep_md_code(d, c->folder); break;
            case F_AGENT: v = c->name_matched ? rep_fmt(d, "%" PRIu64 " / %" PRIu64, c->agent_handle, c->dispatch_id)
                                              : "not in the folder name"; break;
            case F_GFXIP: v = rep_fmt(d, "%" PRId64, c->gfxip); break;
            case F_TARGET: v = rep_fmt(d, "%s (%s)", rep_md_escape(d, x->occupancy.target ? x->occupancy.target : "unknown"),
                                       rep_md_escape(d, x->occupancy.target_source ? x->occupancy.target_source : "none")); break;
            case F_SES: {
                kr_buf sb;
                kr_buf_init(&sb);
                kr_buf_printf(&sb, "%zu (", f.nses);
                for (size_t s = 0; s < f.nses; s++)
                    kr_buf_printf(&sb, "%s%u", s ? ", " : "", f.ses[s]);
                kr_buf_puts(&sb, ")");
                v = rep_fmt(d, "%s", kr_buf_cstr(&sb));
                kr_buf_free(&sb);
                break;
            }
            case F_WAVES: v = u64s(d, c->nwaves); break;
            case F_STATIC: v = u64s(d, x->totals.rows); break;
            case F_RECORDS: v = u64s(d, x->totals.records); break;
            case F_HIT: v = u64s(d, x->totals.hit); break;
            case F_MAPPED: v = rep_fmt(d, "%" PRIu64 " / %" PRIu64, x->sources.mapped_rows, x->sources.instruction_rows); break;
            case F_SPAN_RAW: v = u64s(d, f.span_raw); break;
            case F_SPAN_AL: v = f.aligned ? u64s(d, f.span_aligned) : "not aligned (no realtime.json)"; break;
            case F_CLOCK: v = f.clock_mhz > 0 ? rep_fmt(d, "%s MHz", kr_fmt_fixed(b, sizeof b, f.clock_mhz, 2)) : "unknown"; break;
            case F_US: v = f.clock_mhz > 0 ? kr_fmt_fixed(b, sizeof b, (double)(f.aligned ? f.span_aligned : f.span_raw) / f.clock_mhz, 2) : "unknown";
                       v = rep_fmt(d, "%s", v); break;
            case F_LAT: v = u64s(d, x->totals.latency); break;
            case F_STALL: v = u64s(d, x->totals.stall); break;
            case F_IDLE: v = u64s(d, x->totals.idle); break;
            case F_RESULTS: v = c->results ? rep_md_code(d, kr_path_base(c->results->path)) : "none found"; break;
            }
            cells[i + 1] = v;
        }
        rep_table_rowv(tb, cells, ncol + 1);
    }
    if (n > 8)
        rep_para(d, "Only the first 8 captures are shown side by side; analysis.json has all %zu.", n);
}

static void files_section(rep_doc *d, const an_analysis *const *a, const char *const *labels, size_t n,
                          const rep_meta *meta)
{
    rep_heading(d, 2, "Files and how to re-run");
    rep_table *t = rep_table_new(d, "lll", "capture", "beside the capture", "files not named by the format",
                                 (const char *)NULL);
    for (size_t i = 0; i < n; i++) {
        const kr_capture *c = a[i]->cap;
        kr_buf b;
        kr_buf_init(&b);
        if (c->results)
            kr_buf_printf(&b, "results.json `%s`", kr_path_base(c->results->path));
        if (c->kernel_trace)
            kr_buf_printf(&b, "%skernel_trace `%s`", b.len ? ", " : "", kr_path_base(c->kernel_trace->path));
        if (c->agent_info)
            kr_buf_printf(&b, "%sagent_info `%s`", b.len ? ", " : "", kr_path_base(c->agent_info->path));
        if (c->kernel_stats)
            kr_buf_printf(&b, "%skernel_stats `%s`", b.len ? ", " : "", kr_path_base(c->kernel_stats->path));
        if (!b.len)
            kr_buf_puts(&b, "none found");
        kr_buf e;
        kr_buf_init(&e);
        for (size_t k = 0; k < c->nextra_files; k++)
            kr_buf_printf(&e, "%s`%s`", k ? ", " : "", c->extra_files[k]);
        if (!e.len)
            kr_buf_puts(&e, "none");
        rep_table_row(t, rep_md_escape(d, labels[i]), rep_fmt(d, "%s", kr_buf_cstr(&b)),
                      rep_fmt(d, "%s", kr_buf_cstr(&e)), (const char *)NULL);
        kr_buf_free(&b);
        kr_buf_free(&e);
    }
    rep_para(d, "Outputs: `REPORT.md` (this file), `analysis.json` (schema `kreport.analysis` version 1), "
                "`hotspots.csv`, `source_lines.csv`.");
    if (meta && meta->rerun)
        rep_code(d, "sh", meta->rerun);
}

int rep_analysis_markdown(const an_analysis *const *a, const char *const *labels, size_t n,
                          const rep_meta *meta, kr_buf *out)
{
    if (n == 0)
        return 0;
    rep_doc *d = rep_doc_new();
    if (!d)
        return 5;
    const an_states *st[n];
    const an_classes *cl[n];
    const an_stalls *sl[n];
    const an_hotspots *hs[n];
    const an_waits *wt[n];
    const an_hidden *hd[n];
    const an_phases *ph[n];
    const an_sources *so[n];
    const an_occupancy *oc[n];
    const an_advice *ad[n];
    const kr_capture *cp[n];
    for (size_t i = 0; i < n; i++) {
        st[i] = &a[i]->states;
        cl[i] = &a[i]->classes;
        sl[i] = &a[i]->stalls;
        hs[i] = &a[i]->hotspots;
        wt[i] = &a[i]->waits;
        hd[i] = &a[i]->hidden;
        ph[i] = &a[i]->phases;
        so[i] = &a[i]->sources;
        oc[i] = &a[i]->occupancy;
        ad[i] = &a[i]->advice;
        cp[i] = a[i]->cap;
    }
    header(d, a, labels, n);
    capture_facts(d, a, labels, n, meta);
    rep_md_findings(d, a, labels, n);
    rep_md_states(d, st, labels, n);
    rep_md_classes(d, cl, labels, n);
    rep_md_stalls(d, sl, labels, n);
    rep_md_occupancy(d, oc, labels, n);
    rep_md_roofline(d, a, labels, n);
    rep_md_hotspots(d, hs, labels, n);
    rep_md_waits(d, wt, labels, n);
    rep_md_wait_classes(d, a, labels, n);
    rep_md_hidden(d, hd, labels, n);
    rep_md_phases(d, ph, labels, n);
    rep_md_sources(d, so, labels, n);
    rep_md_advice(d, ad, cp, labels, n);
    files_section(d, a, labels, n, meta);
    rep_doc_markdown(d, out);
    rep_doc_free(d);
    return out->oom ? 5 : 0;
}

/* ---- analysis.json ---- */

/* The "occupancy" summary object of one capture. */
static void occupancy_summary(rep_jw *w, const an_occupancy *o)
{
    const an_occ_kernel *k = o->nkernels ? &o->kernels[o->primary] : NULL;
    int model = k && o->modelled;
    rep_jw_obj(w, "occupancy");
    if (k)
        rep_jw_sym(w, "source", an_occ_source_id(k->source));
    else
        rep_jw_null(w, "source");
    rep_jw_int_or_null(w, "vgpr_reported", k && k->reported_arch_vgpr >= 0, k ? k->reported_arch_vgpr : 0);
    rep_jw_uint_or_null(w, "vgpr_total", k != NULL, k ? k->v_total : 0);
    rep_jw_uint_or_null(w, "vgpr_isa_mark", k != NULL, k ? k->isa_v : 0);
    if (k)
        rep_jw_bool(w, "vgpr_under_report", k->under_report);
    else
        rep_jw_null(w, "vgpr_under_report");
    rep_jw_int_or_null(w, "agpr", k && k->reported_accum_vgpr >= 0, k ? k->reported_accum_vgpr : 0);
    rep_jw_int_or_null(w, "sgpr", k && k->reported_sgpr >= 0, k ? k->reported_sgpr : 0);
    rep_jw_int_or_null(w, "lds_bytes", k && k->lds_bytes >= 0, k ? k->lds_bytes : 0);
    rep_jw_int_or_null(w, "wg_size", k && k->wg_size >= 0, k ? k->wg_size : 0);
    rep_jw_uint_or_null(w, "waves_per_simd", model, model ? k->waves_per_simd : 0);
    if (model) {
        rep_jw_arr(w, "limiter");
        for (int l = 0; l < AN_LIM_COUNT; l++)
            if (k->limiter[l])
                rep_jw_sym(w, NULL, an_occ_lim_id((an_occ_lim)l));
        rep_jw_end(w);
    } else {
        rep_jw_null(w, "limiter");
    }
    if (model && k->next_waves && k->next_vgpr_max >= 0) {
        rep_jw_obj(w, "next_step");
        rep_jw_int(w, "waves_per_simd", (int)k->next_waves);
        rep_jw_int(w, "vgpr_max", k->next_vgpr_max);
        rep_jw_int(w, "vgpr_have", (int)k->v_total);
        rep_jw_end(w);
    } else {
        rep_jw_null(w, "next_step");
    }
    const an_occ_achieved *ac = &o->achieved;
    if (ac->present && ac->has_target) {
        rep_jw_uint(w, "achieved_max_waves_per_simd", ac->target_max_per_simd);
        rep_jw_real(w, "achieved_mean_waves_per_simd", ac->target_mean_per_simd);
    } else {
        rep_jw_null(w, "achieved_max_waves_per_simd");
        rep_jw_null(w, "achieved_mean_waves_per_simd");
    }
    rep_jw_str_or_null(w, "verdict", o->verdict);
    rep_jw_end(w);
}

/* The "mapping" summary; no member at all when a real in it is not finite
 * (json_pack failed on the NULL json_real gives). */
static void mapping_json(rep_jw *w, const an_sources *so)
{
    if ((so->has_top1 && !isfinite(so->top1_share)) || (so->has_effective && !isfinite(so->effective_lines)))
        return;
    rep_jw_obj(w, "mapping");
    rep_jw_int(w, "mapped", (json_int_t)so->mapped_rows);
    rep_jw_int(w, "rows", (json_int_t)so->instruction_rows);
    rep_jw_int(w, "distinct_lines", (json_int_t)so->distinct_lines);
    if (so->has_top1)
        rep_jw_real(w, "top1_share", so->top1_share);
    else
        rep_jw_null(w, "top1_share");
    if (so->has_effective)
        rep_jw_real(w, "effective_lines", so->effective_lines);
    else
        rep_jw_null(w, "effective_lines");
    rep_jw_end(w);
}

/* The members of one capture's analysis (the caller opens the object). */
static void capture_json(rep_jw *w, const an_analysis *x, const char *label)
{
    const kr_capture *c = x->cap;
    facts f;
    facts_of(c, &f);
    const an_occupancy *o = &x->occupancy;
    rep_jw_str_or_null(w, "kernel", f.kernel);
    rep_jw_str_or_null(w, "target", o->target);
    rep_jw_str_or_null(w, "target_source", o->target_source);
    rep_jw_int(w, "gfxip", c->gfxip);
    rep_jw_findings(w, "summary", x);

    rep_jw_obj(w, "capture");
    rep_jw_str(w, "label", label);
    rep_jw_str(w, "folder", c->folder);
    rep_jw_uint_or_null(w, "agent_handle", c->name_matched, c->agent_handle);
    rep_jw_uint_or_null(w, "dispatch_id", c->name_matched, c->dispatch_id);
    rep_jw_uint(w, "waves", c->nwaves);
    rep_jw_arr(w, "shader_engines");
    for (size_t s = 0; s < f.nses; s++)
        rep_jw_uint(w, NULL, f.ses[s]);
    rep_jw_end(w);
    rep_jw_uint(w, "span_cycles_raw", f.span_raw);
    rep_jw_uint_or_null(w, "span_cycles_aligned", f.aligned, f.span_aligned);
    if (f.clock_mhz > 0) {
        rep_jw_real(w, "clock_mhz", f.clock_mhz);
        rep_jw_real(w, "span_us", (double)(f.aligned ? f.span_aligned : f.span_raw) / f.clock_mhz);
    } else {
        rep_jw_null(w, "clock_mhz");
        rep_jw_null(w, "span_us");
    }
    if (c->results)
        rep_jw_str(w, "results_json", kr_path_base(c->results->path));
    else
        rep_jw_null(w, "results_json");
    rep_jw_end(w);

    rep_jw_obj(w, "totals");
    rep_jw_int(w, "records", (json_int_t)x->totals.records);
    rep_jw_int(w, "records_unknown_pc", (json_int_t)x->totals.records_unknown);
    rep_jw_int(w, "rows", (json_int_t)x->totals.rows);
    rep_jw_int(w, "hit", (json_int_t)x->totals.hit);
    rep_jw_int(w, "latency", (json_int_t)x->totals.latency);
    rep_jw_int(w, "stall", (json_int_t)x->totals.stall);
    rep_jw_int(w, "idle", (json_int_t)x->totals.idle);
    rep_jw_end(w);
    rep_jw_obj(w, "wave_states");
    for (unsigned s = 0; s < KR_STATE_COUNT; s++) {
        static const char *keys[] = {"empty", "idle", "exec", "wait", "stall"};
        rep_jw_uint(w, keys[s], x->states.all.raw[s]);
    }
    rep_jw_end(w);
    rep_jw_states(w, "states", &x->states);
    rep_jw_classes(w, "classes", &x->classes);
    rep_jw_arr(w, "stall_buckets");
    for (size_t b = 0; b < x->stalls.nhub_seen; b++) {
        const char *key = an_hub_bucket_key(x->stalls.hub[b].bucket);
        if (!key)
            continue;            /* json_pack's "s" refuses NULL: no element */
        rep_jw_obj(w, NULL);
        rep_jw_str(w, "bucket", key);
        rep_jw_int(w, "stall", (json_int_t)x->stalls.hub[b].stall);
        rep_jw_end(w);
    }
    rep_jw_end(w);
    rep_jw_stalls(w, "stalls", &x->stalls);
    rep_jw_hotspots(w, "hotspots", &x->hotspots);
    rep_jw_waits(w, "waits", &x->waits);
    rep_jw_hidden(w, "hidden_latency", &x->hidden);
    rep_jw_phases(w, "phases", &x->phases);
    rep_jw_sources(w, "source_lines", &x->sources);
    mapping_json(w, &x->sources);
    occupancy_summary(w, o);
    rep_jw_occupancy(w, "occupancy_detail", &x->occupancy);
    rep_jw_roofline(w, "roofline", &x->roofline);
    rep_jw_counters(w, "counters", &x->counters);
    rep_jw_saturation(w, "saturation", &x->saturation);
    rep_jw_advice(w, "advice", &x->advice);
}

int rep_analysis_json(const an_analysis *const *a, const char *const *labels, size_t n,
                      const rep_meta *meta, kr_buf *out)
{
    rep_jw *w = malloc(sizeof *w);
    if (!w)
        return 5;
    /* the bytes json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
     * JSON_REAL_PRECISION(10)) gives for the document, written as it is
     * described */
    rep_jw_text(w, out);
    rep_jw_obj(w, NULL);
    rep_jw_str(w, "schema", "kreport.analysis");
    rep_jw_int(w, "schema_version", 1);
    rep_jw_str(w, "kreport_version", KREPORT_VERSION);
    rep_jw_str_or_null(w, "input", meta ? meta->input : NULL);
    if (meta && meta->example) {
        rep_jw_str(w, "example", meta->example);
        rep_jw_arr(w, "captures");
        for (size_t i = 0; i < n; i++) {
            rep_jw_obj(w, NULL);
            capture_json(w, a[i], labels[i]);
            rep_jw_end(w);
        }
        rep_jw_end(w);
    } else if (n >= 1) {
        capture_json(w, a[0], labels[0]);
    }
    rep_jw_end(w);
    int rc = rep_jw_text_end(w);
    free(w);
    if (rc)
        return 5;
    kr_buf_putc(out, '\n');
    return out->oom ? 5 : 0;
}

/* ---- CSV ---- */

static void csv_field(kr_buf *b, const char *s)
{
    if (strpbrk(s, ",\"\r\n")) {
        kr_buf_putc(b, '"');
        for (; *s; s++) {
            if (*s == '"')
                kr_buf_putc(b, '"');
            kr_buf_putc(b, *s);
        }
        kr_buf_putc(b, '"');
    } else {
        kr_buf_puts(b, s);
    }
}

static void source_of(const kr_code_row *r, kr_buf *b)
{
    kr_buf_reset(b);
    kr_buf_puts(b, r->source ? r->source : "");
}

int rep_hotspots_csv(const an_analysis *const *a, const char *const *labels, size_t n, kr_buf *out)
{
    kr_buf_puts(out, "capture,list,rank,row,line,vaddr,isa,class,hub_bucket,stall_kind,hit,latency,stall,idle,"
                     "mean_latency,mean_stall,source\r\n");
    kr_buf src;
    kr_buf_init(&src);
    for (size_t i = 0; i < n; i++) {
        const an_hotspots *h = &a[i]->hotspots;
        for (int list = 0; list < 2; list++) {
            const an_hot *v = list == 0 ? h->by_stall : h->by_latency;
            size_t nv = list == 0 ? h->nby_stall : h->nby_latency;
            for (size_t k = 0; k < nv; k++) {
                const an_hot *e = &v[k];
                const kr_code_row *r = &h->rows[e->row];
                csv_field(out, labels[i]);
                kr_buf_printf(out, ",%s,%zu,%u,%u,%" PRIu64 ",", list == 0 ? "stall" : "latency", k + 1,
                              e->row, e->line, e->vaddr);
                csv_field(out, r->isa);
                kr_buf_printf(out, ",%s,%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",",
                              kr_class_name(e->cls), an_hub_bucket_key(e->hub_bucket), an_stall_kind_key(e->kind),
                              e->hit, e->latency, e->stall, e->idle);
                if (e->has_mean)
                    kr_buf_printf(out, "%.2f,%.2f,", e->mean_latency, e->mean_stall);
                else
                    kr_buf_puts(out, ",,");
                source_of(r, &src);
                csv_field(out, kr_buf_cstr(&src));
                kr_buf_puts(out, "\r\n");
            }
        }
    }
    kr_buf_free(&src);
    return out->oom ? 5 : 0;
}

int rep_source_lines_csv(const an_analysis *const *a, const char *const *labels, size_t n, kr_buf *out)
{
    kr_buf_puts(out, "capture,rank,path,line,incl_rows,incl_hit,incl_latency,incl_stall,incl_idle,"
                     "excl_rows,excl_hit,excl_latency,excl_stall,excl_idle,snapshot,status\r\n");
    for (size_t i = 0; i < n; i++) {
        const an_sources *s = &a[i]->sources;
        for (size_t k = 0; k < s->nlines; k++) {
            const an_src_line *l = &s->lines[k];
            csv_field(out, labels[i]);
            kr_buf_printf(out, ",%zu,", k + 1);
            csv_field(out, l->path ? l->path : "");
            kr_buf_printf(out, ",%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                               ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",",
                          l->line, l->incl_rows, l->incl.hit, l->incl.latency, l->incl.stall, l->incl.idle,
                          l->excl_rows, l->excl.hit, l->excl.latency, l->excl.stall, l->excl.idle);
            csv_field(out, l->copy ? l->copy : "");
            kr_buf_printf(out, ",%s\r\n", an_src_why_id(l->why));
        }
    }
    return out->oom ? 5 : 0;
}
