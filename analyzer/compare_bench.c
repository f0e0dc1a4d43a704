/* compare_bench.c — see compare_bench.h (docs/compare.md#correctness-gate, docs/compare.md#script-metric, docs/compare.md#config-classes). */
#include "analyzer/compare_bench.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

static int lower_contains(const char *name, const char *needle)
{
    size_t n = strlen(name), m = strlen(needle);
    for (size_t i = 0; i + m <= n; i++) {
        size_t k = 0;
        while (k < m && tolower((unsigned char)name[i + k]) == needle[k])
            k++;
        if (k == m)
            return 1;
    }
    return 0;
}

static int lower_prefix(const char *name, const char *p)
{
    for (; *p; p++, name++)
        if (tolower((unsigned char)*name) != *p)
            return 0;
    return 1;
}

static int lower_suffix(const char *name, const char *s)
{
    size_t n = strlen(name), m = strlen(s);
    if (m > n)
        return 0;
    return lower_prefix(name + n - m, s);
}

static int lower_eq(const char *name, const char *s)
{
    return strlen(name) == strlen(s) && lower_prefix(name, s);
}

static int any_contains(const char *name, const char *const *list)
{
    for (; *list; list++)
        if (lower_contains(name, *list))
            return 1;
    return 0;
}

static int any_eq(const char *name, const char *const *list)
{
    for (; *list; list++)
        if (lower_eq(name, *list))
            return 1;
    return 0;
}

/* Error-size words: a column naming the size of an error is a result. */
static int is_error_size(const char *name)
{
    static const char *const size_words[] = {"max", "mean", "min", "avg", "rel", "abs", "rms", "l2", NULL};
    static const char *const other[] = {"diff", "atol", "rtol", "cos", "snr", "ulp", "tolerance", NULL};
    if (lower_eq(name, "correctness_error"))
        return 1;
    if (lower_contains(name, "err") && any_contains(name, size_words))
        return 1;
    return any_contains(name, other);
}

an_col_kind an_bench_column_kind(const char *name)
{
    static const char *const gate_text[] = {"check", "status", "result", "benchmark_status", NULL};
    static const char *const gate_bool[] = {"correct", "correctness", "passed", "valid", "is_correct", NULL};
    static const char *const higher[] = {"tflops", "gflops", "gbps", "gb/s", "tb/s", "bandwidth", "throughput",
                                         "speedup", "tokens/s", "items/s", "score", NULL};
    static const char *const lower_words[] = {"time", "latency", "duration", NULL};
    if (any_eq(name, gate_text))
        return AN_COL_GATE_TEXT;
    if (any_eq(name, gate_bool))
        return AN_COL_GATE_BOOL;
    if (is_error_size(name))
        return AN_COL_ERROR_SIZE;
    if (lower_prefix(name, "err_"))
        return AN_COL_GATE_NUMBER;
    if (lower_prefix(name, "us_") || lower_suffix(name, "_us") || lower_suffix(name, "_ms") ||
        lower_suffix(name, "_ns") || lower_eq(name, "us") || lower_eq(name, "ms") || lower_eq(name, "ns") ||
        lower_contains(name, "(us)") || lower_contains(name, "(ms)") || lower_contains(name, "(ns)") ||
        any_contains(name, lower_words))
        return AN_COL_METRIC_LOWER;
    if (any_contains(name, higher))
        return AN_COL_METRIC_HIGHER;
    if (lower_contains(name, "ratio") || lower_contains(name, "_thr"))
        return AN_COL_RESULT;
    return AN_COL_CONFIG;
}

int an_bench_is_result_column(const char *name)
{
    return an_bench_column_kind(name) != AN_COL_CONFIG;
}

int an_bench_is_gate_column(const char *name)
{
    an_col_kind k = an_bench_column_kind(name);
    return k == AN_COL_GATE_NUMBER || k == AN_COL_GATE_TEXT || k == AN_COL_GATE_BOOL;
}

/* Spread and side columns of a time metric (p10_us, std_us, min_us, ...),
 * never the default metric. */
static int is_spread_column(const char *name)
{
    static const char *const pre[] = {"p1", "p2", "p5", "p7", "p9", "std", "stdev", "min_", "max_", "mad_", "ci_",
                                      "eager_", "graph_", "host_", "iqr", NULL};
    for (const char *const *p = pre; *p; p++)
        if (lower_prefix(name, *p))
            return 1;
    return 0;
}
int an_bench_col(const an_bench_csv *t, const char *name)
{
    for (size_t i = 0; i < t->ncols; i++)
        if (strcmp(t->header[i], name) == 0)
            return (int)i;
    return -1;
}

static void trim_into(const char *s, char *buf, size_t cap)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
}

int an_bench_number(const char *text, double *v)
{
    char buf[128];
    if (strlen(text) >= sizeof buf)
        return 0;
    trim_into(text, buf, sizeof buf);
    if (!buf[0])
        return 0;
    char *end;
    double x = strtod(buf, &end);
    if (*end || !isfinite(x))
        return 0;
    *v = x;
    return 1;
}

void an_bench_norm(const char *raw, char *buf, size_t cap)
{
    trim_into(raw, buf, cap);
    if (!strcmp(buf, "True") || !strcmp(buf, "true") || !strcmp(buf, "TRUE") || !strcmp(buf, "1"))
        snprintf(buf, cap, "1");
    else if (!strcmp(buf, "False") || !strcmp(buf, "false") || !strcmp(buf, "FALSE") || !strcmp(buf, "0"))
        snprintf(buf, cap, "0");
}

/* ---- gate ---- */

const char *an_gate_op_text(an_gate_op op)
{
    static const char *t[] = {"==", "!=", "<", "<=", ">", ">=", "passes"};
    return (unsigned)op <= AN_GATE_OK ? t[op] : "?";
}

int an_gate_match(const char *p, const char *s)
{
    /* Iterative wildcard match with backtracking to the last star. */
    const char *star = NULL, *ss = NULL;
    while (*s) {
        if (*p == '*') {
            star = p++;
            ss = s;
        } else if (*p && *p == *s) {
            p++;
            s++;
        } else if (star) {
            p = star + 1;
            s = ++ss;
        } else {
            return 0;
        }
    }
    while (*p == '*')
        p++;
    return *p == '\0';
}

void an_gate_free(an_gate *g)
{
    for (size_t i = 0; i < g->n; i++) {
        free(g->terms[i].pattern);
        free(g->terms[i].value_text);
    }
    free(g->terms);
    free(g->text);
    memset(g, 0, sizeof *g);
}

static int pattern_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '*' || c == '.' || c == '-' || c == '/' || c == ':' ||
           c == '(' || c == ')' || c == '[' || c == ']';
}

int an_gate_parse(const char *expr, an_gate *out, kr_err *err)
{
    memset(out, 0, sizeof *out);
    const char *s = expr;
    size_t cap = 0;
    kr_buf text;
    kr_buf_init(&text);
    for (;;) {
        while (*s == ' ' || *s == '\t')
            s++;
        const char *p0 = s;
        while (*s && pattern_char(*s) && !(*s == '-' && s == p0))
            s++;
        if (s == p0) {
            kr_buf_free(&text);
            an_gate_free(out);
            return kr_err_set(err, KR_USAGE, NULL, NULL, "--gate: expected a column name or pattern at offset %zu of '%s'",
                              (size_t)(p0 - expr), expr);
        }
        an_gate_term t;
        memset(&t, 0, sizeof t);
        t.pattern = malloc((size_t)(s - p0) + 1);
        if (!t.pattern)
            return KR_INTERNAL;
        memcpy(t.pattern, p0, (size_t)(s - p0));
        t.pattern[s - p0] = '\0';
        while (*s == ' ' || *s == '\t')
            s++;
        an_gate_op op = AN_GATE_EQ;
        int has_op = 1;
        if (!strncmp(s, "==", 2)) { op = AN_GATE_EQ; s += 2; }
        else if (!strncmp(s, "!=", 2)) { op = AN_GATE_NE; s += 2; }
        else if (!strncmp(s, "<=", 2)) { op = AN_GATE_LE; s += 2; }
        else if (!strncmp(s, ">=", 2)) { op = AN_GATE_GE; s += 2; }
        else if (*s == '<') { op = AN_GATE_LT; s++; }
        else if (*s == '>') { op = AN_GATE_GT; s++; }
        else if (*s == '=') { op = AN_GATE_EQ; s++; }
        else has_op = 0;
        t.op = op;
        if (has_op) {
            while (*s == ' ' || *s == '\t')
                s++;
            char *end;
            double v = strtod(s, &end);
            if (end == s || !isfinite(v)) {
                free(t.pattern);
                kr_buf_free(&text);
                an_gate_free(out);
                return kr_err_set(err, KR_USAGE, NULL, NULL, "--gate: expected a number at offset %zu of '%s'",
                                  (size_t)(s - expr), expr);
            }
            t.value = v;
            t.value_text = malloc((size_t)(end - s) + 1);
            if (!t.value_text)
                return KR_INTERNAL;
            memcpy(t.value_text, s, (size_t)(end - s));
            t.value_text[end - s] = '\0';
            s = end;
        } else {
            t.value = 0;
            t.value_text = xstrdup("0");
            t.op = AN_GATE_OK;
        }
        if (out->n == cap) {
            cap = cap ? cap * 2 : 4;
            an_gate_term *nt = realloc(out->terms, cap * sizeof *nt);
            if (!nt)
                return KR_INTERNAL;
            out->terms = nt;
        }
        out->terms[out->n++] = t;
        an_col_kind kind = an_bench_column_kind(t.pattern);
        if (t.op == AN_GATE_OK && (kind == AN_COL_GATE_TEXT || kind == AN_COL_GATE_BOOL))
            kr_buf_printf(&text, "%s%s passes", out->n > 1 ? ", " : "", t.pattern);
        else
            kr_buf_printf(&text, "%s%s %s %s", out->n > 1 ? ", " : "", t.pattern,
                          an_gate_op_text(t.op == AN_GATE_OK ? AN_GATE_EQ : t.op), t.value_text);
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '\0')
            break;
        if (*s == ',')
            s++;
        else if (!strncmp(s, "&&", 2))
            s += 2;
        else {
            kr_buf_free(&text);
            an_gate_free(out);
            return kr_err_set(err, KR_USAGE, NULL, NULL,
                              "--gate: expected ',' or '&&' between terms at offset %zu of '%s'", (size_t)(s - expr), expr);
        }
    }
    out->text = xstrdup(kr_buf_cstr(&text));
    kr_buf_free(&text);
    return out->text ? 0 : KR_INTERNAL;
}

static int holds(an_gate_op op, double v, double ref)
{
    switch (op) {
    case AN_GATE_EQ: return v == ref;
    case AN_GATE_NE: return v != ref;
    case AN_GATE_LT: return v < ref;
    case AN_GATE_LE: return v <= ref;
    case AN_GATE_GT: return v > ref;
    case AN_GATE_GE: return v >= ref;
    case AN_GATE_OK: return v == ref;
    }
    return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int term_applies(const an_gate_term *t, const char *column)
{
    if (t->gate_columns_only && !an_bench_is_gate_column(column))
        return 0;
    return an_gate_match(t->pattern, column);
}

static int word_in(const char *v, const char *const *list)
{
    for (; *list; list++)
        if (lower_eq(v, *list))
            return 1;
    return 0;
}

int an_bench_gate_cell(const char *column, const char *cell)
{
    static const char *const text_pass[] = {"pass", "passed", "ok", "success", NULL};
    static const char *const bool_pass[] = {"true", "1", "yes", "pass", "1.0", NULL};
    char v[256];
    if (strlen(cell) >= sizeof v)
        return 0;
    trim_into(cell, v, sizeof v);
    switch (an_bench_column_kind(column)) {
    case AN_COL_GATE_TEXT:
        if (word_in(v, text_pass))
            return 1;
        if (!v[0] || lower_prefix(v, "skip"))
            return -1;
        return 0;
    case AN_COL_GATE_BOOL:
        return word_in(v, bool_pass) ? 1 : 0;
    default: {
        double x;
        return an_bench_number(v, &x) && x == 0 ? 1 : 0;
    }
    }
}

int an_gate_evaluate(const an_gate *g, const an_bench_csv *csvs, size_t n, an_gate_eval *out)
{
    memset(out, 0, sizeof *out);
    out->term_matched = calloc(g->n ? g->n : 1, 1);
    if (!out->term_matched)
        return KR_INTERNAL;
    size_t cap = 0, ccap = 0, scap = 0;
    for (size_t f = 0; f < n; f++) {
        const an_bench_csv *t = &csvs[f];
        for (size_t c = 0; c < t->ncols; c++) {
            int any = 0;
            for (size_t k = 0; k < g->n; k++)
                if (term_applies(&g->terms[k], t->header[c])) {
                    out->term_matched[k] = 1;
                    any = 1;
                }
            if (!any)
                continue;
            int seen = 0;
            for (size_t i = 0; i < out->ncolumns; i++)
                seen |= strcmp(out->columns[i], t->header[c]) == 0;
            if (!seen) {
                if (out->ncolumns == ccap) {
                    ccap = ccap ? ccap * 2 : 8;
                    char **nc = realloc(out->columns, ccap * sizeof *nc);
                    if (!nc)
                        return KR_INTERNAL;
                    out->columns = nc;
                }
                if (!(out->columns[out->ncolumns++] = xstrdup(t->header[c])))
                    return KR_INTERNAL;
            }
        }
        for (size_t r = 0; r < t->nrows; r++)
            for (size_t c = 0; c < t->ncols; c++)
                for (size_t k = 0; k < g->n; k++) {
                    if (!term_applies(&g->terms[k], t->header[c]))
                        continue;
                    out->cells++;
                    double v;
                    if (g->terms[k].op == AN_GATE_OK) {
                        int st = an_bench_gate_cell(t->header[c], an_bench_cell(t, r, c));
                        if (st > 0)
                            continue;
                        if (st < 0) {
                            if (out->nskips == scap) {
                                scap = scap ? scap * 2 : 16;
                                an_gate_fail *ns = realloc(out->skips, scap * sizeof *ns);
                                if (!ns)
                                    return KR_INTERNAL;
                                out->skips = ns;
                            }
                            out->skips[out->nskips++] = (an_gate_fail){f, r, c, k};
                            continue;
                        }
                    } else if (an_bench_number(an_bench_cell(t, r, c), &v) && holds(g->terms[k].op, v, g->terms[k].value)) {
                        continue;
                    }
                    if (out->nfails == cap) {
                        cap = cap ? cap * 2 : 16;
                        an_gate_fail *nf = realloc(out->fails, cap * sizeof *nf);
                        if (!nf)
                            return KR_INTERNAL;
                        out->fails = nf;
                    }
                    out->fails[out->nfails++] = (an_gate_fail){f, r, c, k};
                }
    }
    if (out->ncolumns)
        qsort(out->columns, out->ncolumns, sizeof *out->columns, cmp_str);
    return 0;
}

void an_gate_eval_free(an_gate_eval *e)
{
    for (size_t i = 0; i < e->ncolumns; i++)
        free(e->columns[i]);
    free(e->columns);
    free(e->fails);
    free(e->skips);
    free(e->term_matched);
    memset(e, 0, sizeof *e);
}

/* ---- pairing ---- */

static const char *const ref_tokens[] = {"gluon", "triton", "torch", "ref", "aiter", "ck", "baseline"};

static int has_ref_token(const char *name)
{
    const char *s = name;
    while (*s) {
        const char *e = s;
        while (*e && *e != '_')
            e++;
        for (size_t i = 0; i < sizeof ref_tokens / sizeof ref_tokens[0]; i++) {
            size_t m = strlen(ref_tokens[i]);
            if ((size_t)(e - s) == m) {
                size_t k = 0;
                while (k < m && tolower((unsigned char)s[k]) == ref_tokens[i][k])
                    k++;
                if (k == m)
                    return 1;
            }
        }
        s = *e ? e + 1 : e;
    }
    return 0;
}

typedef struct keyed { char *key; size_t row; } keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->row < y->row ? -1 : x->row > y->row);
}

static int is_config(const an_bench_cmp *b, const char *name)
{
    if (b->key_cols) {
        for (size_t i = 0; i < b->nkey_cols; i++)
            if (!strcmp(b->key_cols[i], name))
                return 1;
        return 0;
    }
    if (an_bench_is_result_column(name))
        return 0;
    for (size_t i = 0; i < b->nrelabelled; i++)
        if (!strcmp(b->relabelled[i], name))
            return 0;
    return 1;
}

static char *row_key(const an_bench_csv *t, size_t row, const int *cols, size_t n)
{
    kr_buf k;
    kr_buf_init(&k);
    char v[1024];
    for (size_t i = 0; i < n; i++) {
        an_bench_norm(an_bench_cell(t, row, (size_t)cols[i]), v, sizeof v);
        kr_buf_puts(&k, v);
        kr_buf_putc(&k, '\x1f');
    }
    char *s = xstrdup(kr_buf_cstr(&k));
    kr_buf_free(&k);
    return s;
}

static void free_config(an_bench_cmp *b)
{
    for (size_t i = 0; i < b->nconfig; i++)
        free(b->config[i]);
    free(b->config);
    free(b->config_best);
    free(b->config_cand);
    b->config = NULL;
    b->config_best = b->config_cand = NULL;
    b->nconfig = 0;
    free(b->config_diff);
    b->config_diff = NULL;
    b->config_differs = 0;
}

static void free_rows(an_bench_cmp *b)
{
    for (size_t i = 0; i < b->nrows; i++)
        free(b->rows[i].label);
    free(b->rows);
    free(b->unpaired_best);
    free(b->unpaired_cand);
    b->rows = NULL;
    b->nrows = 0;
    b->unpaired_best = b->unpaired_cand = NULL;
    b->nunpaired_best = b->nunpaired_cand = 0;
}

static int make_config(an_bench_cmp *b)
{
    const an_bench_csv *x = b->best, *y = b->cand;
    b->config = calloc(x->ncols + 1, sizeof *b->config);
    b->config_best = calloc(x->ncols + 1, sizeof *b->config_best);
    b->config_cand = calloc(x->ncols + 1, sizeof *b->config_cand);
    if (!b->config || !b->config_best || !b->config_cand)
        return KR_INTERNAL;
    kr_buf d;
    kr_buf_init(&d);
    for (size_t c = 0; c < x->ncols; c++) {
        if (!is_config(b, x->header[c]))
            continue;
        int cc = an_bench_col(y, x->header[c]);
        if (cc < 0) {
            kr_buf_printf(&d, "%sconfig column '%s' missing on CANDIDATE", d.len ? "; " : "", x->header[c]);
            continue;
        }
        b->config[b->nconfig] = xstrdup(x->header[c]);
        b->config_best[b->nconfig] = (int)c;
        b->config_cand[b->nconfig] = cc;
        b->nconfig++;
    }
    for (size_t c = 0; c < y->ncols; c++)
        if (is_config(b, y->header[c]) && an_bench_col(x, y->header[c]) < 0)
            kr_buf_printf(&d, "%sconfig column '%s' only on CANDIDATE", d.len ? "; " : "", y->header[c]);
    if (d.len) {
        b->config_differs = 1;
        b->config_diff = xstrdup(kr_buf_cstr(&d));
    }
    kr_buf_free(&d);
    return 0;
}

static int pair_rows(an_bench_cmp *b)
{
    const an_bench_csv *x = b->best, *y = b->cand;
    keyed *kx = calloc(x->nrows + 1, sizeof *kx), *ky = calloc(y->nrows + 1, sizeof *ky);
    size_t *partner = malloc((x->nrows + 1) * sizeof *partner);
    uint8_t *used = calloc(y->nrows + 1, 1);
    int rc = KR_INTERNAL;
    if (!kx || !ky || !partner || !used)
        goto out;
    for (size_t r = 0; r < x->nrows; r++) {
        kx[r].key = row_key(x, r, b->config_best, b->nconfig);
        kx[r].row = r;
        partner[r] = SIZE_MAX;
    }
    for (size_t r = 0; r < y->nrows; r++) {
        ky[r].key = row_key(y, r, b->config_cand, b->nconfig);
        ky[r].row = r;
    }
    qsort(kx, x->nrows, sizeof *kx, cmp_keyed);
    qsort(ky, y->nrows, sizeof *ky, cmp_keyed);
    /* Merge: equal keys pair in file order (both runs sorted by row). */
    size_t i = 0, j = 0;
    while (i < x->nrows && j < y->nrows) {
        int c = strcmp(kx[i].key, ky[j].key);
        if (c < 0)
            i++;
        else if (c > 0)
            j++;
        else {
            partner[kx[i].row] = ky[j].row;
            used[ky[j].row] = 1;
            i++;
            j++;
        }
    }
    b->rows = calloc(x->nrows + 1, sizeof *b->rows);
    b->unpaired_best = calloc(x->nrows + 1, sizeof *b->unpaired_best);
    b->unpaired_cand = calloc(y->nrows + 1, sizeof *b->unpaired_cand);
    if (!b->rows || !b->unpaired_best || !b->unpaired_cand)
        goto out;
    for (size_t r = 0; r < x->nrows; r++) {
        if (partner[r] == SIZE_MAX) {
            b->unpaired_best[b->nunpaired_best++] = r;
            continue;
        }
        an_bench_row *row = &b->rows[b->nrows++];
        row->best_row = r;
        row->cand_row = partner[r];
        row->cls = SIZE_MAX;
        kr_buf l;
        kr_buf_init(&l);
        char v[1024];
        for (size_t c = 0; c < b->nconfig; c++) {
            trim_into(an_bench_cell(x, r, (size_t)b->config_best[c]), v, sizeof v);
            kr_buf_printf(&l, "%s%s=%s", c ? ", " : "", b->config[c], v);
        }
        row->label = xstrdup(kr_buf_cstr(&l));
        kr_buf_free(&l);
    }
    for (size_t r = 0; r < y->nrows; r++)
        if (!used[r])
            b->unpaired_cand[b->nunpaired_cand++] = r;
    rc = 0;
out:
    for (size_t r = 0; kx && r < x->nrows; r++)
        free(kx[r].key);
    for (size_t r = 0; ky && r < y->nrows; r++)
        free(ky[r].key);
    free(kx);
    free(ky);
    free(partner);
    free(used);
    return rc;
}

/* A float column (a '.', 'e' or 'E' in some value, every value a number)
 * whose values never repeat within either side. */
static int unique_float_column(const an_bench_csv *t, int col)
{
    int has_point = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        const char *s = an_bench_cell(t, r, (size_t)col);
        double v;
        if (!an_bench_number(s, &v))
            return 0;
        has_point |= strpbrk(s, ".eE") != NULL;
        for (size_t q = 0; q < r; q++)
            if (!strcmp(an_bench_cell(t, q, (size_t)col), s))
                return 0;
    }
    return has_point;
}

int an_bench_pair(const an_bench_csv *best, const an_bench_csv *cand, const an_bench_opts *o,
                  an_bench_cmp *out, kr_err *err)
{
    memset(out, 0, sizeof *out);
    out->best = best;
    out->cand = cand;
    out->metric_best = out->metric_cand = -1;
    if (o && o->config_cols && *o->config_cols) {
        const char *q = o->config_cols;
        while (*q) {
            const char *e = strchr(q, ',');
            size_t n = e ? (size_t)(e - q) : strlen(q);
            char raw[256], name[256];
            if (n >= sizeof raw)
                n = sizeof raw - 1;
            memcpy(raw, q, n);
            raw[n] = '\0';
            trim_into(raw, name, sizeof name);
            if (name[0]) {
                if (an_bench_col(best, name) < 0 || an_bench_col(cand, name) < 0)
                    return kr_err_set(err, KR_USAGE, an_bench_col(best, name) < 0 ? best->path : cand->path, NULL,
                                      "--config: no column '%s'", name);
                char **nk = realloc(out->key_cols, (out->nkey_cols + 1) * sizeof *nk);
                if (!nk)
                    return KR_INTERNAL;
                out->key_cols = nk;
                if (!(nk[out->nkey_cols++] = xstrdup(name)))
                    return KR_INTERNAL;
            }
            q += n;
            if (*q == ',')
                q++;
        }
    }
    if (make_config(out) || pair_rows(out))
        return KR_INTERNAL;
    if ((out->nunpaired_best || out->nunpaired_cand) && !out->config_differs) {
        /* Retry without float columns whose values never repeat. */
        char *cands[64];
        size_t nc = 0;
        for (size_t c = 0; c < out->nconfig && nc < 64; c++)
            if (unique_float_column(best, out->config_best[c]) && unique_float_column(cand, out->config_cand[c]))
                cands[nc++] = out->config[c];
        if (nc) {
            out->relabelled = calloc(nc, sizeof *out->relabelled);
            if (!out->relabelled)
                return KR_INTERNAL;
            for (size_t i = 0; i < nc; i++)
                out->relabelled[out->nrelabelled++] = xstrdup(cands[i]);
            free_rows(out);
            free_config(out);
            if (make_config(out) || pair_rows(out))
                return KR_INTERNAL;
        }
    }
    /* Metric column and its direction (docs/compare.md "Metric direction"). */
    if (o && o->metric) {
        out->metric_best = an_bench_col(best, o->metric);
        out->metric_cand = an_bench_col(cand, o->metric);
        if (out->metric_best < 0 || out->metric_cand < 0)
            return kr_err_set(err, KR_USAGE, out->metric_best < 0 ? best->path : cand->path, NULL,
                              "--metric: no column '%s'", o->metric);
        out->metric = best->header[out->metric_best];
        out->metric_source = "option";
    } else {
        /* In order: us_* without a reference token, median_us, the first
         * us_*, another time column, a throughput column. */
        int pick[5] = {-1, -1, -1, -1, -1};
        for (size_t c = 0; c < best->ncols; c++) {
            const char *h = best->header[c];
            if (an_bench_col(cand, h) < 0 || is_spread_column(h) || lower_contains(h, "timestamp"))
                continue;
            an_col_kind k = an_bench_column_kind(h);
            if (lower_prefix(h, "us_")) {
                if (pick[0] < 0 && !has_ref_token(h + 3))
                    pick[0] = (int)c;
                if (pick[2] < 0)
                    pick[2] = (int)c;
            } else if (lower_eq(h, "median_us")) {
                pick[1] = (int)c;
            } else if (k == AN_COL_METRIC_LOWER && pick[3] < 0 && !has_ref_token(h)) {
                pick[3] = (int)c;
            } else if (k == AN_COL_METRIC_HIGHER && pick[4] < 0 && !has_ref_token(h) && !lower_contains(h, "speedup")) {
                pick[4] = (int)c;
            }
        }
        static const char *const why[] = {"default", "median_us", "first us_ column", "time column", "throughput column"};
        for (int i = 0; i < 5; i++)
            if (pick[i] >= 0) {
                out->metric_best = pick[i];
                out->metric_cand = an_bench_col(cand, best->header[pick[i]]);
                out->metric = best->header[pick[i]];
                out->metric_source = why[i];
                break;
            }
    }
    if (out->metric) {
        an_metric_dir dir = o ? o->direction : AN_DIR_AUTO;
        out->direction_source = "option";
        if (dir == AN_DIR_AUTO) {
            an_col_kind k = an_bench_column_kind(out->metric);
            out->direction_source = "name";
            if (k == AN_COL_METRIC_LOWER)
                dir = AN_DIR_LOWER;
            else if (k == AN_COL_METRIC_HIGHER)
                dir = AN_DIR_HIGHER;
            else
                return kr_err_set(err, KR_USAGE, best->path, NULL,
                                  "--metric %s: its direction is unknown from the name; add --lower-is-better "
                                  "(a time) or --higher-is-better (a throughput)", out->metric);
        }
        out->metric_higher = dir == AN_DIR_HIGHER;
    }
    double sb = 0, sc = 0;
    size_t nm = 0;
    for (size_t i = 0; i < out->nrows; i++) {
        an_bench_row *r = &out->rows[i];
        if (!out->metric)
            continue;
        double vb, vc;
        if (an_bench_number(an_bench_cell(best, r->best_row, (size_t)out->metric_best), &vb) &&
            an_bench_number(an_bench_cell(cand, r->cand_row, (size_t)out->metric_cand), &vc) && vb > 0 && vc > 0) {
            r->has_metric = 1;
            r->best_metric = vb;
            r->cand_metric = vc;
            r->ratio = out->metric_higher ? vb / vc : vc / vb;
            sb += vb;
            sc += vc;
            nm++;
        } else {
            out->metric_unusable++;
        }
    }
    if (nm) {
        out->best_mean = sb / (double)nm;
        out->cand_mean = sc / (double)nm;
    }
    return 0;
}

static const char *const alias_mtp[] = {"mtp", "query_length", "qlen", "max_seqlen_q", NULL};
static const char *const alias_head[] = {"head_size", "head_dim", "hdim", NULL};

int an_bench_config_index(const an_bench_cmp *b, const char *name)
{
    for (size_t c = 0; c < b->nconfig; c++)
        if (!strcmp(b->config[c], name))
            return (int)c;
    const char *const *groups[] = {alias_mtp, alias_head};
    for (size_t g = 0; g < 2; g++) {
        int in = 0;
        for (const char *const *a = groups[g]; *a; a++)
            in |= !strcmp(*a, name);
        if (!in)
            continue;
        for (const char *const *a = groups[g]; *a; a++)
            for (size_t c = 0; c < b->nconfig; c++)
                if (!strcmp(b->config[c], *a))
                    return (int)c;
    }
    return -1;
}

const char *an_bench_row_value(const an_bench_cmp *b, size_t row, size_t ci, char *buf, size_t cap)
{
    trim_into(an_bench_cell(b->best, b->rows[row].best_row, (size_t)b->config_best[ci]), buf, cap);
    return buf;
}

static void free_classes(an_bench_cmp *b)
{
    for (size_t i = 0; i < b->nclasses; i++) {
        for (size_t c = 0; c < b->nclass_cols; c++)
            free(b->classes[i].values[c]);
        free(b->classes[i].values);
        free(b->classes[i].rows);
        free(b->classes[i].label);
    }
    free(b->classes);
    for (size_t c = 0; c < b->nclass_cols; c++)
        free(b->class_cols[c]);
    free(b->class_cols);
    b->classes = NULL;
    b->class_cols = NULL;
    b->nclasses = b->nclass_cols = 0;
}

static int add_class_col(an_bench_cmp *b, const char *name)
{
    for (size_t i = 0; i < b->nclass_cols; i++)
        if (!strcmp(b->class_cols[i], name))
            return 0;
    char **n = realloc(b->class_cols, (b->nclass_cols + 1) * sizeof *n);
    if (!n)
        return KR_INTERNAL;
    b->class_cols = n;
    if (!(b->class_cols[b->nclass_cols] = xstrdup(name)))
        return KR_INTERNAL;
    b->nclass_cols++;
    return 0;
}

int an_bench_classes(an_bench_cmp *b, const char *class_by, const char *const *extra, size_t nextra, kr_err *err)
{
    free_classes(b);
    if (class_by && *class_by) {
        b->class_source = "option";
        const char *s = class_by;
        while (*s) {
            const char *e = strchr(s, ',');
            size_t n = e ? (size_t)(e - s) : strlen(s);
            char name[256];
            char raw[256];
            if (n >= sizeof raw)
                n = sizeof raw - 1;
            memcpy(raw, s, n);
            raw[n] = '\0';
            trim_into(raw, name, sizeof name);
            if (name[0]) {
                int ci = an_bench_config_index(b, name);
                if (ci < 0)
                    return kr_err_set(err, KR_USAGE, b->best->path, NULL,
                                      "--class-by: '%s' is not a config column of the benchmark CSV", name);
                if (add_class_col(b, b->config[ci]))
                    return KR_INTERNAL;
            }
            s += n;
            if (*s == ',')
                s++;
        }
    } else {
        b->class_source = "default";
        const char *defaults[] = {"block_size", "mtp", "head_size"};
        for (size_t i = 0; i < 3; i++) {
            int ci = an_bench_config_index(b, defaults[i]);
            if (ci >= 0 && add_class_col(b, b->config[ci]))
                return KR_INTERNAL;
        }
        if (b->nclass_cols == 0)
            b->class_source = "none";   /* one class: a class per row would test every row alone */
    }
    for (size_t i = 0; i < nextra; i++) {
        int ci = an_bench_config_index(b, extra[i]);
        if (ci >= 0 && add_class_col(b, b->config[ci]))
            return KR_INTERNAL;
    }
    int *cidx = calloc(b->nclass_cols + 1, sizeof *cidx);
    b->classes = calloc(b->nrows + 1, sizeof *b->classes);
    if (!cidx || !b->classes)
        return KR_INTERNAL;
    for (size_t c = 0; c < b->nclass_cols; c++)
        cidx[c] = an_bench_config_index(b, b->class_cols[c]);
    char v[1024], w[1024];
    for (size_t r = 0; r < b->nrows; r++) {
        size_t found = SIZE_MAX;
        for (size_t k = 0; k < b->nclasses && found == SIZE_MAX; k++) {
            int same = 1;
            for (size_t c = 0; c < b->nclass_cols && same; c++) {
                an_bench_norm(an_bench_cell(b->best, b->rows[r].best_row, (size_t)b->config_best[cidx[c]]), v, sizeof v);
                an_bench_norm(b->classes[k].values[c], w, sizeof w);
                same = !strcmp(v, w);
            }
            if (same)
                found = k;
        }
        if (found == SIZE_MAX) {
            an_bench_class *k = &b->classes[b->nclasses];
            k->values = calloc(b->nclass_cols + 1, sizeof *k->values);
            k->rows = calloc(b->nrows, sizeof *k->rows);
            if (!k->values || !k->rows) {
                free(cidx);
                return KR_INTERNAL;
            }
            kr_buf l;
            kr_buf_init(&l);
            for (size_t c = 0; c < b->nclass_cols; c++) {
                an_bench_row_value(b, r, (size_t)cidx[c], v, sizeof v);
                k->values[c] = xstrdup(v);
                kr_buf_printf(&l, "%s%s=%s", c ? ", " : "", b->class_cols[c], v);
            }
            k->label = xstrdup(b->nclass_cols ? kr_buf_cstr(&l) : "all rows");
            kr_buf_free(&l);
            found = b->nclasses++;
        }
        an_bench_class *k = &b->classes[found];
        k->rows[k->nrows++] = r;
        b->rows[r].cls = found;
    }
    free(cidx);
    /* Per-class geometric means of the script ratios. */
    for (size_t k = 0; k < b->nclasses; k++) {
        an_bench_class *c = &b->classes[k];
        double s = 0;
        size_t n = 0;
        for (size_t i = 0; i < c->nrows; i++) {
            const an_bench_row *r = &b->rows[c->rows[i]];
            if (!r->has_metric)
                continue;
            s += log(r->ratio);
            if (n == 0 || r->ratio < b->rows[c->rows[c->best_row]].ratio)
                c->best_row = i;
            if (n == 0 || r->ratio > b->rows[c->rows[c->worst_row]].ratio)
                c->worst_row = i;
            n++;
        }
        if (n) {
            c->has_ratio = 1;
            c->geomean_ratio = exp(s / (double)n);
        }
    }
    return 0;
}

/* xoshiro256** seeded through splitmix64 (docs/compare.md#statistic). */
static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t xoshiro(uint64_t s[4])
{
    uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int an_bench_geomean(const an_bench_cmp *b, const size_t *rows, size_t n, uint64_t seed, size_t resamples,
                     double *g, double *lo, double *hi, size_t *used)
{
    *g = *lo = *hi = 1;
    *used = 0;
    size_t cnt = rows ? n : b->nrows;
    double *lr = malloc((cnt ? cnt : 1) * sizeof *lr), *bs = malloc((resamples ? resamples : 1) * sizeof *bs);
    if (!lr || !bs) {
        free(lr);
        free(bs);
        return KR_INTERNAL;
    }
    size_t t = 0;
    double s = 0;
    for (size_t i = 0; i < cnt; i++) {
        const an_bench_row *r = &b->rows[rows ? rows[i] : i];
        if (r->has_metric) {
            lr[t] = log(r->ratio);
            s += lr[t++];
        }
    }
    *used = t;
    if (t) {
        *g = exp(s / (double)t);
        uint64_t st[4], x = seed;
        for (int i = 0; i < 4; i++)
            st[i] = splitmix64(&x);
        for (size_t q = 0; q < resamples; q++) {
            double a = 0;
            for (size_t i = 0; i < t; i++)
                a += lr[xoshiro(st) % t];
            bs[q] = a / (double)t;
        }
        if (resamples) {
            qsort(bs, resamples, sizeof *bs, cmp_d);
            size_t il = (size_t)floor(0.025 * (double)resamples);
            size_t ih = (size_t)ceil(0.975 * (double)resamples);
            if (ih > 0)
                ih--;
            *lo = exp(bs[il]);
            *hi = exp(bs[ih]);
        } else {
            *lo = *hi = *g;
        }
    }
    free(lr);
    free(bs);
    return 0;
}

int an_bench_script(an_bench_cmp *b, uint64_t seed, size_t resamples)
{
    size_t used;
    int rc = an_bench_geomean(b, NULL, 0, seed, resamples, &b->geomean_ratio, &b->boot_lo, &b->boot_hi, &used);
    b->has_ratio = used > 0;
    return rc;
}

void an_bench_free(an_bench_cmp *b)
{
    for (size_t i = 0; i < b->nkey_cols; i++)
        free(b->key_cols[i]);
    free(b->key_cols);
    free_classes(b);
    free_rows(b);
    free_config(b);
    for (size_t i = 0; i < b->nrelabelled; i++)
        free(b->relabelled[i]);
    free(b->relabelled);
    memset(b, 0, sizeof *b);
}

/* ---- target classes ---- */

void an_target_free(an_target_spec *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->keys[i]);
        free(t->values[i]);
    }
    free(t->keys);
    free(t->values);
    free(t->config);
    free(t->text);
    memset(t, 0, sizeof *t);
}

int an_target_parse(const an_bench_cmp *b, const char *spec, an_target_spec *out, kr_err *err)
{
    memset(out, 0, sizeof *out);
    char buf[1024];
    trim_into(spec ? spec : "", buf, sizeof buf);
    if (!buf[0] || !strcmp(buf, "global"))
        return 0;
    out->text = xstrdup(buf);
    size_t cap = 1;
    for (const char *p = buf; *p; p++)
        cap += *p == ',';
    out->keys = calloc(cap, sizeof *out->keys);
    out->values = calloc(cap, sizeof *out->values);
    out->config = calloc(cap, sizeof *out->config);
    if (!out->keys || !out->values || !out->config || !out->text)
        return KR_INTERNAL;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) {
            an_target_free(out);
            return kr_err_set(err, KR_USAGE, NULL, NULL, "--target-class: expected KEY=VALUE, got '%s'", tok);
        }
        *eq = '\0';
        char k[256], v[256];
        trim_into(tok, k, sizeof k);
        an_bench_norm(eq + 1, v, sizeof v);
        int ci = an_bench_config_index(b, k);
        if (ci < 0) {
            an_target_free(out);
            return kr_err_set(err, KR_USAGE, NULL, NULL,
                              "--target-class: '%s' is not a config column of the benchmark CSV", k);
        }
        out->keys[out->n] = xstrdup(k);
        out->values[out->n] = xstrdup(v);
        out->config[out->n] = ci;
        out->n++;
    }
    return 0;
}

int an_target_matches(const an_bench_cmp *b, const an_target_spec *t, size_t row)
{
    char v[1024];
    for (size_t i = 0; i < t->n; i++) {
        an_bench_norm(an_bench_cell(b->best, b->rows[row].best_row, (size_t)b->config_best[t->config[i]]), v, sizeof v);
        if (strcmp(v, t->values[i]))
            return 0;
    }
    return 1;
}

/* ---- split predicate ---- */

static int value_in(char **set, size_t n, const char *v)
{
    char a[1024], b[1024];
    an_bench_norm(v, a, sizeof a);
    for (size_t i = 0; i < n; i++) {
        an_bench_norm(set[i], b, sizeof b);
        if (!strcmp(a, b))
            return 1;
    }
    return 0;
}

char *an_bench_predicate(const an_bench_cmp *b, const uint8_t *sel, int eq_style)
{
    size_t nsel = 0;
    for (size_t k = 0; k < b->nclasses; k++)
        nsel += sel[k] != 0;
    if (!nsel)
        return NULL;
    size_t nc = b->nclass_cols, K = b->nclasses;
    char ***vs = calloc(nc + 1, sizeof *vs), ***all = calloc(nc + 1, sizeof *all);
    size_t *nvs = calloc(nc + 1, sizeof *nvs), *nall = calloc(nc + 1, sizeof *nall);
    kr_buf out;
    kr_buf_init(&out);
    char *res = NULL;
    if (!vs || !all || !nvs || !nall)
        goto done;
    for (size_t c = 0; c < nc; c++) {
        vs[c] = calloc(K, sizeof **vs);
        all[c] = calloc(K, sizeof **all);
        if (!vs[c] || !all[c])
            goto done;
        for (size_t k = 0; k < K; k++) {
            const char *v = b->classes[k].values[c];
            if (!value_in(all[c], nall[c], v))
                all[c][nall[c]++] = (char *)v;
            if (sel[k] && !value_in(vs[c], nvs[c], v))
                vs[c][nvs[c]++] = (char *)v;
        }
    }
    /* Does the product of the selected values pick exactly the selected classes? */
    int exact = 1;
    for (size_t k = 0; k < K && exact; k++) {
        int in = 1;
        for (size_t c = 0; c < nc && in; c++)
            in = value_in(vs[c], nvs[c], b->classes[k].values[c]);
        if (in && !sel[k])
            exact = 0;
    }
    const char *eq = eq_style ? "=" : " == ", *le = eq_style ? "<=" : " <= ", *ge = eq_style ? ">=" : " >= ";
    const char *and = eq_style ? ", " : " && ";
    if (exact) {
        size_t terms = 0;
        for (size_t c = 0; c < nc; c++) {
            if (nvs[c] == nall[c])
                continue;
            kr_buf_puts(&out, terms++ ? and : "");
            if (nvs[c] == 1) {
                kr_buf_printf(&out, "%s%s%s", b->class_cols[c], eq, vs[c][0]);
                continue;
            }
            int numeric = 1;
            double mx = -INFINITY, mn = INFINITY, v = 0;
            for (size_t i = 0; i < nall[c]; i++)
                numeric &= an_bench_number(all[c][i], &v);
            if (numeric) {
                for (size_t i = 0; i < nvs[c]; i++) {
                    an_bench_number(vs[c][i], &v);
                    if (v > mx) mx = v;
                    if (v < mn) mn = v;
                }
                int below = 1, above = 1;
                const char *mxs = NULL, *mns = NULL;
                for (size_t i = 0; i < nall[c]; i++) {
                    an_bench_number(all[c][i], &v);
                    int in = value_in(vs[c], nvs[c], all[c][i]);
                    below &= (v <= mx) == in;
                    above &= (v >= mn) == in;
                    if (v == mx) mxs = all[c][i];
                    if (v == mn) mns = all[c][i];
                }
                if (below && mxs) {
                    kr_buf_printf(&out, "%s%s%s", b->class_cols[c], le, mxs);
                    continue;
                }
                if (above && mns) {
                    kr_buf_printf(&out, "%s%s%s", b->class_cols[c], ge, mns);
                    continue;
                }
            }
            kr_buf_printf(&out, "%s in {", b->class_cols[c]);
            for (size_t i = 0; i < nvs[c]; i++)
                kr_buf_printf(&out, "%s%s", i ? ", " : "", vs[c][i]);
            kr_buf_puts(&out, "}");
        }
        if (!terms)
            kr_buf_puts(&out, "all classes");
    } else {
        size_t terms = 0;
        for (size_t k = 0; k < K; k++) {
            if (!sel[k])
                continue;
            kr_buf_puts(&out, terms++ ? (eq_style ? "; " : " || ") : "");
            if (!eq_style && nc > 1)
                kr_buf_putc(&out, '(');
            for (size_t c = 0; c < nc; c++)
                kr_buf_printf(&out, "%s%s%s%s", c ? and : "", b->class_cols[c], eq, b->classes[k].values[c]);
            if (!eq_style && nc > 1)
                kr_buf_putc(&out, ')');
        }
    }
    res = xstrdup(kr_buf_cstr(&out));
done:
    for (size_t c = 0; c < nc; c++) {
        if (vs)
            free(vs[c]);
        if (all)
            free(all[c]);
    }
    free(vs);
    free(all);
    free(nvs);
    free(nall);
    kr_buf_free(&out);
    return res;
}
