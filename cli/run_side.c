/* run_side.c — see run_side.h. */
#include "cli/run_side.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

static const char *own(cli_run_side *s, char *str)
{
    char **n = realloc(s->strs, (s->nstrs + 1) * sizeof *n);
    if (!n) {
        free(str);
        return "";
    }
    s->strs = n;
    s->strs[s->nstrs++] = str;
    return str;
}

static int build(cli_run_side *s, const char *path, kr_err *err)
{
    bundle_run *r = s->run;
    s->csvs = calloc(r->ncsvs + 1, sizeof *s->csvs);
    s->traces = calloc(r->ntraces + 1, sizeof *s->traces);
    size_t nf = r->ncsvs + r->ntraces + r->nresults + r->nstats + r->nagent_infos + r->ncaptures + r->ndbs + r->nlogs;
    s->files = calloc(nf + 1, sizeof *s->files);
    s->meta = calloc(r->nmeta + 1, sizeof *s->meta);
    if (!s->csvs || !s->traces || !s->files || !s->meta)
        return kr_err_set(err, KR_INTERNAL, NULL, NULL, "out of memory");
    for (size_t i = 0; i < r->ncsvs; i++) {
        const bundle_run_csv *c = &r->csvs[i];
        an_bench_csv *b = &s->csvs[i];
        b->path = c->rel;
        b->profiled = c->profiled;
        b->ncols = c->table.ncols;
        b->nrows = c->table.nrows;
        b->header = c->table.header;
        b->cells = c->table.cells;
        b->lines = c->table.lines;
        s->files[s->nfiles++] = (rep_cmp_file){c->profiled ? "benchmark_csv_profiled" : "benchmark_csv", c->rel,
                                               own(s, kr_strdupf("%zu rows", c->table.nrows))};
    }
    for (size_t i = 0; i < r->ntraces; i++) {
        const bundle_run_trace *t = &r->traces[i];
        an_trace_in *x = &s->traces[i];
        x->path = t->rel;
        x->d = t->d;
        x->n = t->n;
        x->att_pass = t->att_pass;
        x->drop_ids = t->drop_ids;
        x->ndrop = t->ndrop;
        s->files[s->nfiles++] = (rep_cmp_file){t->att_pass ? "kernel_trace_att" : "kernel_trace", t->rel,
                                               own(s, kr_strdupf("%zu dispatches%s", t->n, t->from_results ? ", results.json records" : ""))};
    }
    for (size_t i = 0; i < r->nresults; i++)
        s->files[s->nfiles++] = (rep_cmp_file){"results_json", r->results[i].rel, NULL};
    for (size_t i = 0; i < r->nstats; i++)
        s->files[s->nfiles++] = (rep_cmp_file){"kernel_stats", r->stats[i].rel, NULL};
    for (size_t i = 0; i < r->nagent_infos; i++)
        s->files[s->nfiles++] = (rep_cmp_file){"agent_info", r->agent_infos[i].rel, NULL};
    for (size_t i = 0; i < r->ncaptures; i++) {
        const bundle_run_capture *c = &r->captures[i];
        s->files[s->nfiles++] = (rep_cmp_file){c->shell ? "capture_shell" : "capture", c->rel,
                                               *c->kernel ? c->kernel : NULL};
    }
    for (size_t i = 0; i < r->ndbs; i++)
        s->files[s->nfiles++] = (rep_cmp_file){"rocpd_db", r->dbs[i].rel, NULL};
    for (size_t i = 0; i < r->nlogs; i++)
        s->files[s->nfiles++] = (rep_cmp_file){"log", r->logs[i].rel, r->logs[i].detail};
    for (size_t i = 0; i < r->nmeta; i++)
        s->meta[i] = (rep_cmp_kv){r->meta_keys[i], r->meta_values[i]};
    an_cmp_side *in = &s->in;
    in->path = path;
    in->csvs = s->csvs;
    in->ncsvs = r->ncsvs;
    in->traces = s->traces;
    in->ntraces = r->ntraces;
    in->command = r->command;
    in->gpu_product = r->gpu_product;
    in->gpu_name = r->gpu_name;
    in->cu_count = r->cu_count;
    in->gpu_card = r->gpu_card;
    in->exit_code = r->exit_code;
    in->commit = bundle_run_meta(r, "commit");
    in->date = bundle_run_meta(r, "started");
    in->hypothesis = bundle_run_meta(r, "hypothesis");
    in->files = bundle_run_meta(r, "files");
    in->attempt = bundle_run_meta(r, "attempt");
    in->target_class = bundle_run_meta(r, "target_class");
    in->identity = r->identity[0] ? r->identity : NULL;
    in->ncaptures = r->ncaptures;
    return 0;
}

int cli_run_side_scan(cli_run_side *s, const bundle_source *src, const char *root, const char *path, kr_err *err)
{
    memset(s, 0, sizeof *s);
    int rc = bundle_run_scan_src(src, root, &s->run, err);
    return rc ? rc : build(s, path, err);
}

int cli_run_side_open(cli_run_side *s, const char *path, kr_err *err)
{
    memset(s, 0, sizeof *s);
    int rc = bundle_input_open(path, &s->input, err);
    if (rc || (rc = bundle_run_scan_src(s->input.src, s->input.root, &s->run, err)))
        return rc;
    return build(s, path, err);
}

void cli_run_side_free(cli_run_side *s)
{
    for (size_t i = 0; i < s->nstrs; i++)
        free(s->strs[i]);
    free(s->strs);
    free(s->csvs);
    free(s->traces);
    free(s->files);
    free(s->meta);
    bundle_run_free(s->run);
    bundle_input_close(&s->input);
    memset(s, 0, sizeof *s);
}
