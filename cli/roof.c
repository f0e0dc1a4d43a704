/* roof.c — see roof.h. */
#include "cli/roof.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/csv.h"
#include "common/arena.h"
#include "common/err.h"

/* A non-negative count, decimal or with an exponent ("1.2e15"). */
static int parse_count(const char *s, uint64_t *v)
{
    char *end = NULL;
    double x = strtod(s, &end);
    if (!*s || !end || *end || !isfinite(x) || x < 0 || x >= 18446744073709551615.0)
        return -1;
    *v = (uint64_t)(x + 0.5);
    return 0;
}

/* ---- benchmark CSV ---- */

typedef struct expr {
    const char *p;
    const bundle_csv *t;
    size_t row;
    char bad[160];               /* first error */
} expr;

static int ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

/* Numeric cell of the row's column (case-insensitive name); -1 absent, -2 not a number. */
static int cell_num(const bundle_csv *t, size_t row, const char *name, double *v)
{
    for (size_t c = 0; c < t->ncols; c++)
        if (ieq(t->header[c], name)) {
            const char *s = bundle_csv_cell(t, row, c);
            char *end = NULL;
            *v = strtod(s, &end);
            return *s && end && !*end && isfinite(*v) ? 0 : -2;
        }
    return -1;
}

static double e_sum(expr *e);

static void skip(expr *e)
{
    while (*e->p == ' ' || *e->p == '\t')
        e->p++;
}

static double e_atom(expr *e)
{
    skip(e);
    if (*e->p == '(') {
        e->p++;
        double v = e_sum(e);
        skip(e);
        if (*e->p == ')')
            e->p++;
        else if (!e->bad[0])
            snprintf(e->bad, sizeof e->bad, "missing ')'");
        return v;
    }
    if (*e->p == '-') {
        e->p++;
        return -e_atom(e);
    }
    if (isdigit((unsigned char)*e->p) || *e->p == '.') {
        char *end;
        double v = strtod(e->p, &end);
        e->p = end;
        return v;
    }
    if (isalpha((unsigned char)*e->p) || *e->p == '_') {
        char name[128];
        size_t n = 0;
        while ((isalnum((unsigned char)*e->p) || *e->p == '_') && n + 1 < sizeof name)
            name[n++] = *e->p++;
        name[n] = '\0';
        double v = 0;
        int rc = cell_num(e->t, e->row, name, &v);
        if (rc && !e->bad[0])
            snprintf(e->bad, sizeof e->bad, rc == -1 ? "no column '%s'" : "column '%s' is not a number", name);
        return v;
    }
    if (!e->bad[0])
        snprintf(e->bad, sizeof e->bad, "unexpected '%.20s'", *e->p ? e->p : "end of formula");
    return 0;
}

static double e_prod(expr *e)
{
    double v = e_atom(e);
    for (;;) {
        skip(e);
        if (*e->p == '*') {
            e->p++;
            v *= e_atom(e);
        } else if (*e->p == '/') {
            e->p++;
            v /= e_atom(e);
        } else {
            return v;
        }
    }
}

static double e_sum(expr *e)
{
    double v = e_prod(e);
    for (;;) {
        skip(e);
        if (*e->p == '+') {
            e->p++;
            v += e_prod(e);
        } else if (*e->p == '-') {
            e->p++;
            v -= e_prod(e);
        } else {
            return v;
        }
    }
}

/* Value of formula on the row, 0 with *msg empty, or -1 with *msg set. */
static int eval(const bundle_csv *t, size_t row, const char *formula, double *v, char *msg, size_t cap)
{
    expr e = {formula, t, row, ""};
    *v = e_sum(&e);
    skip(&e);
    if (!e.bad[0] && *e.p)
        snprintf(e.bad, sizeof e.bad, "unexpected '%.20s'", e.p);
    if (!e.bad[0] && (!isfinite(*v) || *v < 0))
        snprintf(e.bad, sizeof e.bad, "the value is not a non-negative number");
    snprintf(msg, cap, "%s", e.bad);
    return e.bad[0] ? -1 : 0;
}

static int bench_fail(const cli_command *cmd, const char *file, const char *where, const char *what)
{
    fprintf(stderr, "kreport %s: %s%s%s: %s\n", cmd->name, file, where ? ":" : "", where ? where : "", what);
    return KR_INPUT;
}

/* Time, FLOPs and bytes of one benchmark row into r->base (unless given). */
static int read_bench(const cli_command *cmd, cli_roof *r)
{
    kr_arena a;
    kr_arena_init(&a);
    kr_err err;
    kr_err_clear(&err);
    bundle_csv t;
    int rc = bundle_csv_load(&a, r->bench, &t, &err);
    if (rc) {
        char msg[1024];
        kr_err_format(&err, msg, sizeof msg);
        fprintf(stderr, "kreport %s: %s\n", cmd->name, msg);
        kr_arena_free(&a);
        return rc;
    }
    size_t row = 0;
    char where[64], msg[256];
    if (r->bench_row) {
        char *end = NULL;
        unsigned long n = strtoul(r->bench_row, &end, 10);
        if (!*r->bench_row || *end || n == 0 || n > t.nrows) {
            snprintf(msg, sizeof msg, "--bench-row %s: the file has %zu data rows", r->bench_row, t.nrows);
            rc = bench_fail(cmd, r->bench, NULL, msg);
            goto done;
        }
        row = n - 1;
    } else if (t.nrows != 1) {
        snprintf(msg, sizeof msg, "%zu data rows: choose one with --bench-row", t.nrows);
        rc = bench_fail(cmd, r->bench, NULL, msg);
        goto done;
    }
    snprintf(where, sizeof where, "%zu", t.lines[row]);
    const char *base = strrchr(r->bench, '/') ? strrchr(r->bench, '/') + 1 : r->bench;
    int tcol = -1;
    for (size_t c = 0; c < t.ncols && tcol < 0; c++)
        if (!strncmp(t.header[c], "us_", 3))
            tcol = (int)c;
    double us = 0;
    if (tcol >= 0 && cell_num(&t, row, t.header[tcol], &us) != 0) {
        snprintf(msg, sizeof msg, "column '%s' is not a number", t.header[tcol]);
        rc = bench_fail(cmd, r->bench, where, msg);
        goto done;
    }
    if (!r->base.has_time) {
        if (tcol < 0 || !(us > 0)) {
            rc = bench_fail(cmd, r->bench, where, "no positive us_* column for the dispatch time (give --time-ns)");
            goto done;
        }
        r->base.has_time = 1;
        r->base.time_ns = (uint64_t)(us * 1000.0 + 0.5);
        snprintf(r->sources[2], sizeof r->sources[2], "%s row %zu, %s", base, row + 1, t.header[tcol]);
        r->base.time_source = r->sources[2];
    }
    double secs = (double)r->base.time_ns * 1e-9, v;
    struct { const char *formula, *col; double scale; uint8_t *has; uint64_t *out; char *src; const char **srcp; } w[2] = {
        {r->flops_formula, "tflops", 1e12, &r->base.has_flops, &r->base.flops, r->sources[0], &r->base.flops_source},
        {r->bytes_formula, "gbps", 1e9, &r->base.has_bytes, &r->base.bytes, r->sources[1], &r->base.bytes_source},
    };
    for (int k = 0; k < 2; k++) {
        if (*w[k].has)
            continue;
        if (w[k].formula) {
            if (eval(&t, row, w[k].formula, &v, msg, sizeof msg) != 0) {
                char full[320];
                snprintf(full, sizeof full, "%s: %s", w[k].formula, msg);
                rc = bench_fail(cmd, r->bench, where, full);
                goto done;
            }
            snprintf(w[k].src, sizeof r->sources[0], "%s row %zu, %s", base, row + 1, w[k].formula);
        } else {
            int c = cell_num(&t, row, w[k].col, &v);
            if (c == -1)
                continue;
            if (c != 0 || v < 0) {
                snprintf(msg, sizeof msg, "column '%s' is not a non-negative number", w[k].col);
                rc = bench_fail(cmd, r->bench, where, msg);
                goto done;
            }
            v *= w[k].scale * secs;
            snprintf(w[k].src, sizeof r->sources[0], "%s row %zu, %s × time", base, row + 1, w[k].col);
        }
        *w[k].has = 1;
        *w[k].out = (uint64_t)(v + 0.5);
        *w[k].srcp = w[k].src;
    }
done:
    kr_arena_free(&a);
    return rc;
}

static void *load_table(void *arg)
{
    cli_roof *r = arg;
    kr_err_clear(&r->loader_err);
    r->loader_rc = rep_hw_load(&r->table, &r->loader_err);
    return NULL;
}

int cli_roof_init(const cli_command *cmd, cli_roof *r)
{
    struct { const char *text, *name; uint64_t *v; uint8_t *has; } nums[] = {
        {r->flops, "--flops", &r->base.flops, &r->base.has_flops},
        {r->bytes, "--bytes", &r->base.bytes, &r->base.has_bytes},
        {r->time_ns, "--time-ns", &r->base.time_ns, &r->base.has_time},
    };
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        if (!nums[i].text)
            continue;
        if (parse_count(nums[i].text, nums[i].v) != 0 || (nums[i].v == &r->base.time_ns && *nums[i].v == 0)) {
            cli_usage_error(cmd, "%s takes a non-negative number (e.g. 1.2e15), not '%s'", nums[i].name,
                            nums[i].text);
            return KR_USAGE;
        }
        *nums[i].has = 1;
    }
    an_unit u;
    an_dtype d;
    if (r->ceiling && an_ceiling_parse(r->ceiling, &u, &d) != 0) {
        cli_usage_error(cmd, "--ceiling takes vector_ or matrix_ followed by fp64, fp32, xf32, fp16, bf16, fp8, "
                             "fp6_fp4 or int8, not '%s'", r->ceiling);
        return KR_USAGE;
    }
    r->base.ceiling = r->ceiling;
    if ((r->bench_row || r->flops_formula || r->bytes_formula) && !r->bench) {
        cli_usage_error(cmd, "--bench-row, --flops-formula and --bytes-formula need --bench CSV");
        return KR_USAGE;
    }
    return r->bench ? read_bench(cmd, r) : 0;
}

void cli_roof_prefetch(cli_roof *r)
{
    if (r->table_state == 0 && !r->loading)
        r->loading = pthread_create(&r->loader, NULL, load_table, r) == 0;
}

static void join_table(cli_roof *r)
{
    if (!r->loading)
        return;
    pthread_join(r->loader, NULL);
    r->loading = 0;
    r->table_state = r->loader_rc == 0 ? 1 : -1;
}

void cli_roof_for(cli_roof *r, const kr_capture *c, an_roofline_opts *o)
{
    *o = r->base;
    char note[1024];
    kr_err err;
    kr_err_clear(&err);
    join_table(r);
    if (r->table_state == 0)
        r->table_state = rep_hw_load(&r->table, &err) == 0 ? 1 : -1;
    else if (r->table_state < 0)
        err = r->loader_err;
    if (r->table_state == 1) {
        o->hw = rep_hw_pick(&r->table, r->device, c, note, sizeof note);
    } else {
        char msg[768];
        kr_err_format(&err, msg, sizeof msg);
        snprintf(note, sizeof note, "hardware table unavailable: %s", msg);
        o->hw = NULL;
    }
    char **grown = realloc(r->notes, (r->nnotes + 1) * sizeof *grown);
    char *copy = strdup(note);
    if (grown)
        r->notes = grown;
    if (grown && copy)
        r->notes[r->nnotes++] = copy;
    else
        free(copy);
    o->device_note = grown && copy ? copy : "device note unavailable (out of memory)";
}

void cli_roof_free(cli_roof *r)
{
    join_table(r);
    for (size_t i = 0; i < r->nnotes; i++)
        free(r->notes[i]);
    free(r->notes);
    if (r->table_state == 1)
        rep_hw_free(&r->table);
    memset(r, 0, sizeof *r);
}
