/* compare_harness.c — see compare_harness.h. */
#include "analyzer/compare_harness.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"

static int eq_ci(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

/* a (trimmed of spaces) equals b, case-insensitive. */
static int eq_trim_ci(const char *a, const char *b)
{
    while (*a == ' ' || *a == '\t')
        a++;
    size_t n = strlen(a);
    while (n && (a[n - 1] == ' ' || a[n - 1] == '\t' || a[n - 1] == '\r'))
        n--;
    if (strlen(b) != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i]))
            return 0;
    return 1;
}

int an_csv_col_ci(const an_bench_csv *t, const char *name)
{
    for (size_t i = 0; i < t->ncols; i++)
        if (eq_ci(t->header[i], name))
            return (int)i;
    return -1;
}

int an_csv_values(const an_bench_csv *const *csvs, size_t n, const char *col, const char ***out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    size_t cap = 0;
    for (size_t f = 0; f < n; f++) {
        int c = an_csv_col_ci(csvs[f], col);
        if (c < 0)
            continue;
        for (size_t r = 0; r < csvs[f]->nrows; r++) {
            const char *v = an_bench_cell(csvs[f], r, (size_t)c);
            int seen = 0;
            for (size_t i = 0; i < *nout && !seen; i++)
                seen = eq_trim_ci(v, (*out)[i]);
            if (seen || !*v)
                continue;
            if (*nout == cap) {
                cap = cap ? cap * 2 : 8;
                const char **nv = realloc(*out, cap * sizeof *nv);
                if (!nv)
                    return KR_INTERNAL;
                *out = nv;
            }
            (*out)[(*nout)++] = v;
        }
    }
    return 0;
}

int an_csv_view(const an_bench_csv *t, int col, const char *value, an_bench_csv *out)
{
    *out = *t;
    size_t n = 0;
    for (size_t r = 0; r < t->nrows; r++)
        n += col < 0 || eq_trim_ci(an_bench_cell(t, r, (size_t)col), value);
    const char **cells = malloc((n * t->ncols + 1) * sizeof *cells);
    size_t *lines = malloc((n + 1) * sizeof *lines);
    if (!cells || !lines) {
        free(cells);
        free(lines);
        return KR_INTERNAL;
    }
    size_t k = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        if (col >= 0 && !eq_trim_ci(an_bench_cell(t, r, (size_t)col), value))
            continue;
        memcpy(cells + k * t->ncols, t->cells + r * t->ncols, t->ncols * sizeof *cells);
        lines[k] = t->lines ? t->lines[r] : r + 2;
        k++;
    }
    out->cells = cells;
    out->lines = lines;
    out->nrows = n;
    return 0;
}

void an_csv_view_free(an_bench_csv *v)
{
    free((void *)v->cells);
    free((void *)v->lines);
    v->cells = NULL;
    v->lines = NULL;
}

int an_profile_path(const char *path, char *shape, size_t shape_cap, char *provider, size_t provider_cap)
{
    const char *p = path;
    while ((p = strstr(p, "profiles/")) != NULL) {
        if (p == path || p[-1] == '/') {
            const char *s = p + 9, *e = strchr(s, '/');
            if (!e || e == s)
                return 0;
            const char *q = e + 1, *qe = strchr(q, '/');
            if (!qe || qe == q)
                return 0;
            if ((size_t)(e - s) >= shape_cap || (size_t)(qe - q) >= provider_cap)
                return 0;
            memcpy(shape, s, (size_t)(e - s));
            shape[e - s] = '\0';
            memcpy(provider, q, (size_t)(qe - q));
            provider[qe - q] = '\0';
            return 1;
        }
        p += 9;
    }
    return 0;
}

int an_rows_of_shape(const an_bench_csv *t, const char *shape, size_t **rows, size_t *n)
{
    *rows = NULL;
    *n = 0;
    int c = an_csv_col_ci(t, "shape_id");
    if (c < 0)
        return 0;
    size_t *v = malloc((t->nrows + 1) * sizeof *v);
    if (!v)
        return KR_INTERNAL;
    for (size_t r = 0; r < t->nrows; r++) {
        const char *id = an_bench_cell(t, r, (size_t)c);
        while (*id == ' ')
            id++;
        const char *colon = strchr(id, ':');
        if (eq_trim_ci(id, shape) || (colon && eq_trim_ci(colon + 1, shape)))
            v[(*n)++] = r;
    }
    *rows = v;
    return 0;
}
