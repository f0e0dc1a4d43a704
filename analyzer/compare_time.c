/* compare_time.c — see compare_time.h (docs/compare.md#deciding-metric). */
#include "analyzer/compare_time.h"

#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

int an_time_is_helper(const char *name) { return strncmp(name, "__amd_rocclr_", 13) == 0; }

int an_time_is_framework(const char *name)
{
    return strstr(name, "at::native::") || strstr(name, "Cijk_") || strstr(name, "rocprim::");
}

typedef struct dref {
    const kr_dispatch *d;
    uint32_t trace;
} dref;

static int cmp_by_name(const void *a, const void *b)
{
    const dref *x = a, *y = b;
    int c = strcmp(x->d->kernel_name ? x->d->kernel_name : "", y->d->kernel_name ? y->d->kernel_name : "");
    if (c)
        return c;
    if (x->trace != y->trace)
        return x->trace < y->trace ? -1 : 1;
    if (x->d->start_ns != y->d->start_ns)
        return x->d->start_ns < y->d->start_ns ? -1 : 1;
    return x->d->dispatch_id < y->d->dispatch_id ? -1 : x->d->dispatch_id > y->d->dispatch_id;
}

static int cmp_by_time(const void *a, const void *b)
{
    const dref *x = a, *y = b;
    if (x->d->agent != y->d->agent)
        return x->d->agent < y->d->agent ? -1 : 1;
    if (x->d->start_ns != y->d->start_ns)
        return x->d->start_ns < y->d->start_ns ? -1 : 1;
    return x->d->dispatch_id < y->d->dispatch_id ? -1 : x->d->dispatch_id > y->d->dispatch_id;
}

static int cmp_kstat(const void *a, const void *b)
{
    const an_kernel_stat *x = a, *y = b;
    if (x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    return strcmp(x->name, y->name);
}

static double dur(const kr_dispatch *d) { return d->end_ns > d->start_ns ? (double)(d->end_ns - d->start_ns) : 0; }

static int dropped(const an_trace_in *t, uint64_t id)
{
    for (size_t i = 0; i < t->ndrop; i++)
        if (t->drop_ids[i] == id)
            return 1;
    return 0;
}

/* The dispatches of the traces used, as references. */
static int collect(const an_trace_in *traces, const an_side_time *s, dref **out, size_t *n, size_t *ndropped)
{
    size_t total = 0;
    for (size_t i = 0; i < s->ntraces_used; i++)
        total += traces[s->trace_index[i]].n;
    dref *r = malloc((total ? total : 1) * sizeof *r);
    if (!r)
        return KR_INTERNAL;
    size_t k = 0, nd = 0;
    for (size_t i = 0; i < s->ntraces_used; i++) {
        const an_trace_in *t = &traces[s->trace_index[i]];
        for (size_t j = 0; j < t->n; j++) {
            if (!t->d[j].kernel_name)
                continue;
            if (t->att_pass && dropped(t, t->d[j].dispatch_id)) {
                nd++;
                continue;
            }
            r[k].d = &t->d[j];
            r[k].trace = (uint32_t)i;
            k++;
        }
    }
    *out = r;
    *n = k;
    if (ndropped)
        *ndropped = nd;
    return 0;
}

/* x exceeds the median m of the others by more than max(theta, 3 × 1.4826 × MAD / m). */
static int cold_outlier(double x, const an_desc *others, double theta)
{
    if (others->n == 0 || others->median <= 0)
        return 0;
    double rel = 3 * 1.4826 * others->mad / others->median;
    double lim = theta > rel ? theta : rel;
    return x > others->median * (1 + lim);
}

int an_time_kernels(const an_trace_in *traces, size_t ntraces, double theta, an_side_time *out)
{
    memset(out, 0, sizeof *out);
    out->trace_index = calloc(ntraces + 1, sizeof *out->trace_index);
    out->segments_per_trace = calloc(ntraces + 1, sizeof *out->segments_per_trace);
    if (!out->trace_index || !out->segments_per_trace)
        return KR_INTERNAL;
    for (size_t i = 0; i < ntraces; i++)
        if (!traces[i].att_pass)
            out->trace_index[out->ntraces_used++] = (uint32_t)i;
    if (out->ntraces_used == 0) {
        for (size_t i = 0; i < ntraces; i++)
            out->trace_index[out->ntraces_used++] = (uint32_t)i;
        out->used_att_pass = out->ntraces_used > 0;
    }
    dref *r;
    size_t n;
    if (collect(traces, out, &r, &n, &out->dropped_captured))
        return KR_INTERNAL;
    qsort(r, n, sizeof *r, cmp_by_name);
    size_t nk = 0;
    for (size_t i = 0; i < n; i++)
        nk += i == 0 || strcmp(r[i].d->kernel_name, r[i - 1].d->kernel_name) != 0;
    out->kernels = calloc(nk + 1, sizeof *out->kernels);
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!out->kernels || !v) {
        free(r);
        free(v);
        return KR_INTERNAL;
    }
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && strcmp(r[j].d->kernel_name, r[i].d->kernel_name) == 0)
            j++;
        an_kernel_stat *k = &out->kernels[out->nkernels++];
        const kr_dispatch *first = r[i].d;
        k->name = first->kernel_name;
        k->helper = (uint8_t)an_time_is_helper(k->name);
        k->framework = (uint8_t)an_time_is_framework(k->name);
        for (size_t q = i; q < j; q++) {
            v[q - i] = dur(r[q].d);
            k->total_ns += (uint64_t)v[q - i];
        }
        if (an_desc_compute(v, j - i, &k->all) || an_desc_compute(v + 1, j - i - 1, &k->rest)) {
            free(r);
            free(v);
            return KR_INTERNAL;
        }
        k->first_ns = v[0];
        k->ns = malloc((j - i) * sizeof *k->ns);
        if (!k->ns) {
            free(r);
            free(v);
            return KR_INTERNAL;
        }
        memcpy(k->ns, v, (j - i) * sizeof *k->ns);
        k->first_cold = (uint8_t)cold_outlier(v[0], &k->rest, theta);
        k->vgpr = first->vgpr;
        k->agpr = first->accum_vgpr;
        k->sgpr = first->sgpr;
        k->lds = first->lds_bytes;
        k->scratch = first->scratch_bytes;
        uint64_t wg = (uint64_t)first->wg[0] * (first->wg[1] ? first->wg[1] : 1) * (first->wg[2] ? first->wg[2] : 1);
        k->wg_size = wg ? (int64_t)wg : -1;
        if (first->wg[0] && first->grid[0]) {
            uint64_t g = 1;
            for (int a = 0; a < 3; a++) {
                uint64_t w = first->wg[a] ? first->wg[a] : 1, gs = first->grid[a] ? first->grid[a] : 1;
                g *= (gs + w - 1) / w;
            }
            k->grid_wg = (int64_t)g;
        } else {
            k->grid_wg = -1;
        }
        i = j;
    }
    qsort(out->kernels, out->nkernels, sizeof *out->kernels, cmp_kstat);
    free(r);
    free(v);
    return 0;
}

int an_time_kernel_index(const an_side_time *s, const char *name)
{
    for (size_t i = 0; i < s->nkernels; i++)
        if (strcmp(s->kernels[i].name, name) == 0)
            return (int)i;
    return -1;
}

int an_target_has(const an_target *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->names[i], name) == 0)
            return 1;
    return 0;
}

void an_target_free_set(an_target *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->names[i]);
    free(t->names);
    for (size_t i = 0; i < t->njoined; i++)
        free(t->joined[i]);
    free(t->joined);
    for (size_t i = 0; i < t->ncompanions; i++)
        free(t->companions[i]);
    free(t->companions);
    for (size_t i = 0; i < t->nuntimed; i++)
        free(t->untimed[i]);
    free(t->untimed);
    free(t->why);
    free(t->runner_up);
    memset(t, 0, sizeof *t);
}

static int add_name(char ***v, size_t *n, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*v)[i], name) == 0)
            return 0;
    char **nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        return KR_INTERNAL;
    *v = nv;
    if (!(nv[*n] = xstrdup(name)))
        return KR_INTERNAL;
    (*n)++;
    return 0;
}

static uint64_t total_of(const an_side_time *s, const char *name)
{
    int i = an_time_kernel_index(s, name);
    return i < 0 ? 0 : s->kernels[i].total_ns;
}

/* Order of the set: BEST total (then CANDIDATE total) descending, then name. */
static int before(const an_side_time *best, const an_side_time *cand, const char *x, const char *y)
{
    uint64_t tx = total_of(best, x), ty = total_of(best, y);
    if (tx != ty)
        return tx > ty;
    tx = total_of(cand, x);
    ty = total_of(cand, y);
    if (tx != ty)
        return tx > ty;
    return strcmp(x, y) < 0;
}

static void sort_set(const an_side_time *best, const an_side_time *cand, an_target *t)
{
    for (size_t i = 1; i < t->n; i++)     /* insertion sort: the set is small */
        for (size_t j = i; j > 0 && before(best, cand, t->names[j], t->names[j - 1]); j--) {
            char *tmp = t->names[j];
            t->names[j] = t->names[j - 1];
            t->names[j - 1] = tmp;
        }
}

int an_target_add_companions(const an_side_time *best, const an_side_time *cand, an_target *t, char **names, size_t n,
                             int timed)
{
    for (size_t i = 0; i < n; i++) {
        if (an_target_has(t, names[i]))
            continue;
        if (add_name(&t->companions, &t->ncompanions, names[i]) ||
            (timed ? add_name(&t->names, &t->n, names[i]) : add_name(&t->untimed, &t->nuntimed, names[i])))
            return KR_INTERNAL;
    }
    sort_set(best, cand, t);
    return 0;
}

typedef struct gapk { const char *name; size_t clean, alone_multi; } gapk;

int an_time_companions(const an_trace_in *traces, const an_side_time *s, const an_target *t, size_t min_clean,
                       char ***out, size_t *nout)
{
    dref *r;
    size_t n;
    if (collect(traces, s, &r, &n, NULL))
        return KR_INTERNAL;
    gapk *ks = NULL;
    size_t nk = 0, kcap = 0, gaps = 0, empty = 0;
    int rc = KR_INTERNAL;
    size_t start = 0;
    while (start < n) {
        size_t end = start;
        while (end < n && r[end].trace == r[start].trace)
            end++;
        qsort(r + start, end - start, sizeof *r, cmp_by_time);
        size_t prev = SIZE_MAX;
        for (size_t i = start; i < end; i++) {
            if (!an_target_has(t, r[i].d->kernel_name))
                continue;
            if (prev != SIZE_MAX && r[prev].d->agent == r[i].d->agent) {
                /* The gap (prev, i): its non-helper kernels. */
                const char *only = NULL;
                size_t count = 0;
                int mixed = 0;
                for (size_t q = prev + 1; q < i; q++) {
                    const char *nm = r[q].d->kernel_name;
                    if (an_time_is_helper(nm))
                        continue;
                    if (!only)
                        only = nm;
                    else if (strcmp(only, nm))
                        mixed = 1;
                    count++;
                }
                gaps++;
                if (!only) {
                    empty++;
                } else if (!mixed) {
                    size_t q = 0;
                    while (q < nk && strcmp(ks[q].name, only))
                        q++;
                    if (q == nk) {
                        if (nk == kcap) {
                            kcap = kcap ? kcap * 2 : 8;
                            gapk *nv = realloc(ks, kcap * sizeof *nv);
                            if (!nv)
                                goto out;
                            ks = nv;
                        }
                        ks[nk++] = (gapk){only, 0, 0};
                    }
                    if (count == 1)
                        ks[q].clean++;
                    else
                        ks[q].alone_multi++;
                }
            }
            prev = i;
        }
        start = end;
    }
    for (size_t q = 0; q < nk; q++)
        if (ks[q].clean >= 2 && ks[q].clean >= min_clean && 2 * ks[q].clean >= gaps && ks[q].alone_multi == 0 && empty == 0 &&
            add_name(out, nout, ks[q].name))
            goto out;
    rc = 0;
out:
    free(ks);
    free(r);
    return rc;
}

static int loop_kernel(const an_kernel_stat *k)
{
    return !k->helper && !k->framework && k->all.n >= AN_TIME_MIN_LOOP;
}

int an_time_target(const an_side_time *best, const an_side_time *cand, const char *const *regex, size_t nregex,
                   an_target *out, kr_err *err)
{
    memset(out, 0, sizeof *out);
    char why[1024];
    if (nregex) {
        out->how = "option";
        for (size_t e = 0; e < nregex; e++) {
            regex_t re;
            int rc = regcomp(&re, regex[e], REG_EXTENDED | REG_NOSUB);
            if (rc) {
                char msg[256];
                regerror(rc, &re, msg, sizeof msg);
                return kr_err_set(err, KR_USAGE, NULL, NULL, "--kernel '%s': %s", regex[e], msg);
            }
            const an_side_time *sides[2] = {best, cand};
            for (int s = 0; s < 2; s++)
                for (size_t i = 0; i < sides[s]->nkernels; i++)
                    if (regexec(&re, sides[s]->kernels[i].name, 0, NULL, 0) == 0 &&
                        add_name(&out->names, &out->n, sides[s]->kernels[i].name)) {
                        regfree(&re);
                        return KR_INTERNAL;
                    }
            regfree(&re);
        }
        snprintf(why, sizeof why, "named by --kernel (%zu expression%s, %zu kernel name%s matched)", nregex,
                 nregex == 1 ? "" : "s", out->n, out->n == 1 ? "" : "s");
    } else {
        out->how = "auto";
        const an_kernel_stat *pick = NULL, *second = NULL;
        const char *rule = "the largest total GPU time on BEST among non-framework kernels with >= 3 dispatches";
        for (size_t i = 0; i < best->nkernels; i++) {
            const an_kernel_stat *k = &best->kernels[i];
            if (!loop_kernel(k))
                continue;
            if (!pick)
                pick = k;
            else if (!second)
                second = k;
        }
        if (!pick) {
            rule = "the largest total GPU time on BEST among non-helper kernels (no non-framework kernel has >= 3 dispatches)";
            for (size_t i = 0; i < best->nkernels && !pick; i++)
                if (!best->kernels[i].helper && !best->kernels[i].framework)
                    pick = &best->kernels[i];
            for (size_t i = 0; i < best->nkernels && !pick; i++)
                if (!best->kernels[i].helper)
                    pick = &best->kernels[i];
            for (size_t i = 0; i < best->nkernels && !pick; i++)
                pick = &best->kernels[i];
        }
        if (!second) {
            /* Runner-up for the report: the next non-helper kernel by total. */
            for (size_t i = 0; i < best->nkernels && !second; i++)
                if (&best->kernels[i] != pick && !best->kernels[i].helper)
                    second = &best->kernels[i];
        }
        if (pick) {
            if (add_name(&out->names, &out->n, pick->name))
                return KR_INTERNAL;
            out->pick_total_ns = pick->total_ns;
            if (second) {
                out->runner_up = xstrdup(second->name);
                out->runner_up_total_ns = second->total_ns;
                out->ambiguous = loop_kernel(second) && 4 * second->total_ns >= pick->total_ns;
            }
            snprintf(why, sizeof why, "auto: %s (%zu dispatches, %.1f µs in total)", rule, pick->all.n,
                     (double)pick->total_ns / 1000.0);
        } else {
            snprintf(why, sizeof why, "auto: no kernel dispatch on BEST");
        }
        /* One-sided timed loops join the set (renamed or newly specialized kernels). */
        const an_side_time *sides[2] = {best, cand}, *others[2] = {cand, best};
        for (int s = 0; s < 2; s++)
            for (size_t i = 0; i < sides[s]->nkernels; i++) {
                const an_kernel_stat *k = &sides[s]->kernels[i];
                if (!loop_kernel(k) || an_time_kernel_index(others[s], k->name) >= 0 || an_target_has(out, k->name))
                    continue;
                if (add_name(&out->names, &out->n, k->name) || add_name(&out->joined, &out->njoined, k->name))
                    return KR_INTERNAL;
            }
    }
    sort_set(best, cand, out);
    out->why = xstrdup(why);
    return out->why ? 0 : KR_INTERNAL;
}

void an_side_time_free(an_side_time *s)
{
    for (size_t i = 0; i < s->nkernels; i++)
        free(s->kernels[i].ns);
    free(s->kernels);
    free(s->calls);
    free(s->rows_no_warm);
    free(s->segments_per_trace);
    free(s->trace_index);
    memset(s, 0, sizeof *s);
}

static int is_untimed(const an_target *t, const char *name)
{
    for (size_t i = 0; i < t->nuntimed; i++)
        if (!strcmp(t->untimed[i], name))
            return 1;
    return 0;
}

static int push_call(an_side_time *s, size_t *cap, an_call c)
{
    if (s->ncalls == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        an_call *n = realloc(s->calls, *cap * sizeof *n);
        if (!n)
            return KR_INTERNAL;
        s->calls = n;
    }
    s->calls[s->ncalls++] = c;
    return 0;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int an_time_calls(const an_trace_in *traces, size_t ntraces, const an_target *t, size_t skip_first,
                  size_t nrows, double theta, an_side_time *s)
{
    (void)ntraces;
    free(s->calls);
    s->calls = NULL;
    s->ncalls = 0;
    s->nsegments = 0;
    s->cold_segments = s->segments_with_warm = 0;
    dref *r;
    size_t n;
    if (collect(traces, s, &r, &n, NULL))
        return KR_INTERNAL;
    size_t cap = 0;
    /* Per trace: split by agent and time. */
    size_t start = 0;
    while (start < n) {
        size_t end = start;
        while (end < n && r[end].trace == r[start].trace)
            end++;
        qsort(r + start, end - start, sizeof *r, cmp_by_time);
        uint32_t seg = 0;
        size_t i = start;
        while (i < end) {
            const kr_dispatch *d = r[i].d;
            if (!an_target_has(t, d->kernel_name)) {
                i++;
                continue;
            }
            /* A segment starts here; it runs while target or helper kernels
             * follow on the same agent. */
            const char *first_name = d->kernel_name;
            int kfirst = an_time_kernel_index(s, first_name);
            uint32_t idx = 0;
            double cur = -1;
            size_t j = i;
            for (; j < end; j++) {
                const kr_dispatch *e = r[j].d;
                if (e->agent != d->agent)
                    break;
                if (an_target_has(t, e->kernel_name)) {
                    if (strcmp(e->kernel_name, first_name) == 0) {
                        if (cur >= 0 && push_call(s, &cap, (an_call){cur, r[start].trace, seg, idx++, (uint32_t)kfirst,
                                                                     SIZE_MAX, 0}))
                            goto oom;
                        cur = 0;
                    }
                    if (cur >= 0)
                        cur += dur(e);
                } else if (!an_time_is_helper(e->kernel_name) && !is_untimed(t, e->kernel_name)) {
                    break;
                }
            }
            if (cur >= 0 && push_call(s, &cap, (an_call){cur, r[start].trace, seg, idx++, (uint32_t)kfirst, SIZE_MAX, 0}))
                goto oom;
            seg++;
            i = j;
        }
        s->segments_per_trace[r[start].trace] = seg;
        s->nsegments += seg;
        start = end;
    }
    free(r);
    r = NULL;
    /* Row mapping: a trace's segments map in order to its rows (every row
     * of the CSV, or the rows of its shape), k segments per row. */
    s->row_aligned = nrows > 0 && s->ntraces_used > 0;
    s->segments_per_row = 0;
    for (size_t tr = 0; tr < s->ntraces_used && s->row_aligned; tr++) {
        const an_trace_in *ti = &traces[s->trace_index[tr]];
        size_t m = ti->rows ? ti->nrows : nrows, segs = s->segments_per_trace[tr];
        if (m == 0 || segs == 0 || segs % m) {
            s->row_aligned = 0;
            break;
        }
        if (s->segments_per_row == 0)
            s->segments_per_row = segs / m;
    }
    if (s->row_aligned)
        for (size_t c = 0; c < s->ncalls; c++) {
            const an_trace_in *ti = &traces[s->trace_index[s->calls[c].trace]];
            size_t m = ti->rows ? ti->nrows : nrows;
            size_t k = s->segments_per_trace[s->calls[c].trace] / m, i = s->calls[c].segment / k;
            s->calls[c].row = ti->rows ? ti->rows[i] : i;
        }
    /* Warm flags: the first skip_first calls of each row's block of calls
     * (calls are in trace, segment, index order, so a row's block is
     * contiguous within a trace), else of each segment. */
    free(s->rows_no_warm);
    s->rows_no_warm = NULL;
    s->nrows_no_warm = s->max_calls_per_row = s->rows_with_calls = 0;
    for (size_t c = 0; c < s->ncalls;) {
        size_t e = c;
        if (s->row_aligned)
            while (e < s->ncalls && s->calls[e].trace == s->calls[c].trace && s->calls[e].row == s->calls[c].row)
                e++;
        else
            while (e < s->ncalls && s->calls[e].trace == s->calls[c].trace &&
                   s->calls[e].segment == s->calls[c].segment)
                e++;
        for (size_t q = c; q < e; q++)
            s->calls[q].warm = q - c >= skip_first;
        if (s->row_aligned) {
            s->rows_with_calls++;
            if (e - c > s->max_calls_per_row)
                s->max_calls_per_row = e - c;
            if (e - c <= skip_first) {
                size_t *nv = realloc(s->rows_no_warm, (s->nrows_no_warm + 1) * sizeof *nv);
                if (!nv)
                    return KR_INTERNAL;
                s->rows_no_warm = nv;
                nv[s->nrows_no_warm++] = s->calls[c].row;
            }
        }
        c = e;
    }
    double *v = malloc((s->ncalls ? s->ncalls : 1) * sizeof *v), *ex = malloc((s->ncalls ? s->ncalls : 1) * sizeof *ex);
    double *cps = malloc((s->nsegments ? s->nsegments : 1) * sizeof *cps);
    if (!v || !ex || !cps) {
        free(v);
        free(ex);
        free(cps);
        return KR_INTERNAL;
    }
    for (size_t c = 0; c < s->ncalls; c++)
        v[c] = s->calls[c].ns;
    an_desc_compute(v, s->ncalls, &s->all);
    size_t nw = 0, nex = 0, ns = 0;
    for (size_t c = 0; c < s->ncalls; c++)
        if (s->calls[c].warm)
            v[nw++] = s->calls[c].ns;
    an_desc_compute(v, nw, &s->warm);
    /* Per segment: the first call against the segment's warm calls. */
    for (size_t c = 0; c < s->ncalls;) {
        size_t e = c;
        while (e < s->ncalls && s->calls[e].trace == s->calls[c].trace && s->calls[e].segment == s->calls[c].segment)
            e++;
        cps[ns++] = (double)(e - c);
        size_t w = 0;
        for (size_t q = c; q < e; q++)
            if (s->calls[q].warm)
                v[w++] = s->calls[q].ns;
        if (w && s->calls[c].index == 0 && !s->calls[c].warm) {
            an_desc d;
            an_desc_compute(v, w, &d);
            s->segments_with_warm++;
            if (cold_outlier(s->calls[c].ns, &d, theta))
                s->cold_segments++;
            if (d.median > 0)
                ex[nex++] = s->calls[c].ns / d.median - 1;
        }
        c = e;
    }
    if (nex) {
        qsort(ex, nex, sizeof *ex, cmp_d);
        s->cold_excess = an_median_sorted(ex, nex);
    }
    if (ns) {
        qsort(cps, ns, sizeof *cps, cmp_d);
        s->calls_per_segment = an_median_sorted(cps, ns);
    }
    free(v);
    free(ex);
    free(cps);
    return 0;
oom:
    free(r);
    return KR_INTERNAL;
}
