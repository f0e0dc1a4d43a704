/* cmd_index.c — `kreport index HUB_DIR`: the examples table of the hub's
 * README.md and HUB_DIR/kernels.json, from the analyses of every example
 * under HUB_DIR/examples/.
 *
 * The table replaces what lies between the lines CLI_INDEX_BEGIN and
 * CLI_INDEX_END of README.md; the rest of the file is kept byte for byte.
 * Without the markers nothing is written (exit 3, the message says where to
 * add them). Headline figures come from the primary capture of each example
 * (the first `big` capture with waves, else the capture with the most
 * waves; the rule of validate's V-20e): kernel, target, wave-state split
 * (§4.4 timeline cycles), top stall bucket (kreport's taxonomy,
 * analyzer/stalls.h), occupancy limiter (§12.2) and source mapping k/N.
 * Idempotent: when both outputs already hold these bytes nothing is
 * written and "no change" is reported. */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/analysis.h"
#include "bundle/capture.h"
#include "bundle/discover.h"
#include "cli/commands.h"
#include "cli/pack.h"
#include "common/buf.h"
#include "common/file.h"
#include "common/fmt.h"
#include "common/limits.h"
#include "common/outfile.h"
#include "common/pool.h"

#define CLI_INDEX_BEGIN "<!-- kreport:index:begin -->"
#define CLI_INDEX_END "<!-- kreport:index:end -->"
#define PATH_CAP 4096

static struct {
    int quiet, jobs, check;
} o;

const cli_opt cmd_index_options[] = {
    {"check", 0, OPT_FLAG, NULL, "write nothing; exit 1 when README.md or kernels.json is out of date", &o.check},
    {"jobs", 'j', OPT_INT, "N", "threads for parsing and analysis (default: online CPUs)", &o.jobs},
    {"quiet", 'q', OPT_FLAG, NULL, "print nothing but errors", &o.quiet},
    {0},
};

static int fail(const kr_err *err)
{
    char msg[2048];
    kr_err_format(err, msg, sizeof msg);
    fprintf(stderr, "kreport index: %s\n", msg);
    return err->code ? err->code : KR_INTERNAL;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static double share(uint64_t part, uint64_t total)
{
    return total ? 100.0 * (double)part / (double)total : 0.0;
}

/* One example: a table row and a kernels.json element. */
static int one_example(const char *dir, const char *name, kr_buf *row, kr_buf *json, size_t index,
                       kr_err *err)
{
    bundle_example *ex;
    int rc = bundle_example_scan(dir, &ex, err);
    if (rc)
        return rc;
    size_t n = ex->ncaptures, primary = n;
    uint64_t primary_waves = 0;
    /* Pick the primary without analysing every capture twice: load all. */
    kr_capture **caps = calloc(n ? n : 1, sizeof *caps);
    size_t loaded = 0;
    for (; loaded < n && caps && !rc; loaded++) {
        bundle_opts bo = {0};
        bo.threads = o.jobs > 0 ? o.jobs : kr_cpu_count();
        bo.label = ex->captures[loaded].label;
        bo.skip_wstates = 1;
        if ((rc = bundle_capture_load(ex->captures[loaded].dir, &bo, &caps[loaded], err)))
            break;
        const kr_capture *c = caps[loaded];
        if (c->nwaves == 0)
            continue;
        int big = strcmp(ex->captures[loaded].label, "big") == 0;
        int pbig = primary < n && strcmp(ex->captures[primary].label, "big") == 0;
        if (primary == n || (big && !pbig) || (!big && !pbig && c->nwaves > primary_waves)) {
            primary = loaded;
            primary_waves = c->nwaves;
        }
    }
    if (!caps && !rc)
        rc = kr_err_set(err, KR_INTERNAL, dir, NULL, "out of memory");
    an_analysis a;
    int analyzed = 0;
    if (!rc && primary < n) {
        an_analysis_opts ao = {0};
        ao.threads = o.jobs > 0 ? o.jobs : kr_cpu_count();
        if (an_analyze(caps[primary], &ao, &a))
            rc = kr_err_set(err, KR_INTERNAL, dir, NULL, "out of memory analyzing");
        else
            analyzed = 1;
    }
    if (!rc) {
        cli_capture_summary s;
        memset(&s, 0, sizeof s);
        s.kernel = s.target = "";
        if (analyzed)
            cli_capture_summarize(caps[primary], ex->captures[primary].label, &s);
        uint64_t st[AN_STATES_N] = {0}, total = 0;
        const char *stall_key = "", *limiter = "";
        double stall_share = 0;
        uint32_t waves_per_simd = 0;
        if (analyzed) {
            memcpy(st, a.states.all.raw, sizeof st);
            total = a.states.all.raw_total;
            if (a.stalls.total_stall) {
                an_stall_kind top = a.stalls.kind_order[0];
                stall_key = an_stall_kind_key(top);
                stall_share = share(a.stalls.kinds[top].stall, a.stalls.total_stall);
            }
            if (a.occupancy.nkernels && a.occupancy.modelled) {
                const an_occ_kernel *k = &a.occupancy.kernels[a.occupancy.primary];
                limiter = an_occ_lim_id(k->primary);
                waves_per_simd = k->waves_per_simd;
            }
        }
        /* table row */
        kr_buf_printf(row, "| [`examples/%s`](examples/%s) | `%s` | %s | %zu | ", name, name,
                      *s.kernel ? s.kernel : "?", *s.target ? s.target : "?", n);
        if (total)
            kr_buf_printf(row, "%.1f / %.1f / %.1f / %.1f %%", share(st[KR_STATE_EXEC], total),
                          share(st[KR_STATE_WAIT], total), share(st[KR_STATE_STALL], total),
                          share(st[KR_STATE_IDLE], total));
        else
            kr_buf_puts(row, "-");
        kr_buf_puts(row, " | ");
        if (*stall_key)
            kr_buf_printf(row, "`%s` %.1f %%", stall_key, stall_share);
        else
            kr_buf_puts(row, "-");
        kr_buf_puts(row, " | ");
        if (*limiter)
            kr_buf_printf(row, "%s, %" PRIu32 " waves/SIMD", limiter, waves_per_simd);
        else
            kr_buf_puts(row, "-");
        kr_buf_printf(row, " | %" PRIu64 "/%" PRIu64 " |\n", s.mapped_rows, s.instruction_rows);
        /* kernels.json element */
        kr_buf_puts(json, index ? ",\n    {\"example\": " : "\n    {\"example\": ");
        cli_json_str(json, name);
        kr_buf_puts(json, ", \"kernel\": ");
        cli_json_str(json, s.kernel);
        kr_buf_puts(json, ", \"target\": ");
        cli_json_str(json, s.target);
        kr_buf_printf(json, ", \"captures\": %zu, \"primary\": ", n);
        if (analyzed) {
            kr_buf_puts(json, "{\"label\": ");
            cli_json_str(json, ex->captures[primary].label);
            kr_buf_puts(json, ", \"folder\": ");
            cli_json_str(json, s.folder);
            kr_buf_puts(json, "}");
        } else {
            kr_buf_puts(json, "null");
        }
        kr_buf_printf(json, ",\n     \"wave_state_cycles\": {\"idle\": %" PRIu64 ", \"exec\": %" PRIu64
                            ", \"wait\": %" PRIu64 ", \"stall\": %" PRIu64 ", \"total\": %" PRIu64 "}",
                      st[KR_STATE_IDLE], st[KR_STATE_EXEC], st[KR_STATE_WAIT], st[KR_STATE_STALL], total);
        kr_buf_puts(json, ",\n     \"top_stall\": ");
        if (*stall_key) {
            kr_buf_puts(json, "{\"bucket\": ");
            cli_json_str(json, stall_key);
            kr_buf_printf(json, ", \"cycles\": %" PRIu64 ", \"total_stall\": %" PRIu64 "}",
                          a.stalls.kinds[a.stalls.kind_order[0]].stall, a.stalls.total_stall);
        } else {
            kr_buf_puts(json, "null");
        }
        kr_buf_puts(json, ", \"limiter\": ");
        if (*limiter) {
            kr_buf_puts(json, "{\"limiter\": ");
            cli_json_str(json, limiter);
            kr_buf_printf(json, ", \"waves_per_simd\": %" PRIu32 "}", waves_per_simd);
        } else {
            kr_buf_puts(json, "null");
        }
        kr_buf_printf(json, ",\n     \"source_mapping\": {\"mapped_rows\": %" PRIu64 ", \"instruction_rows\": %" PRIu64
                            "}}", s.mapped_rows, s.instruction_rows);
    }
    if (analyzed)
        an_analysis_free(&a);
    for (size_t i = 0; i < loaded && caps; i++)
        bundle_capture_free(caps[i]);
    free(caps);
    bundle_example_free(ex);
    return rc;
}

/* 1 when path holds exactly len bytes equal to data. */
static int same_bytes(const char *path, const char *data, size_t len)
{
    char *old = NULL;
    size_t olen = 0;
    kr_err e;
    kr_err_clear(&e);
    if (kr_file_read(path, KR_MAX_SMALL_FILE_BYTES, &old, &olen, &e))
        return 0;
    int same = olen == len && memcmp(old, data, len) == 0;
    free(old);
    return same;
}

int cmd_index(int argc, char **argv)
{
    memset(&o, 0, sizeof o);
    const cli_command *cmd = cli_find("index");
    char *pos[2];
    int npos, code;
    if (cli_parse(cmd, cmd_index_options, argc, argv, pos, &npos, 2, &code))
        return code;
    if (npos != 1) {
        cli_usage_error(cmd, npos ? "expects exactly one HUB_DIR" : "missing HUB_DIR");
        return KR_USAGE;
    }
    const char *hub = pos[0];
    kr_err err;
    kr_err_clear(&err);
    char readme_path[PATH_CAP], examples[PATH_CAP], kj[PATH_CAP];
    kr_path_join(readme_path, sizeof readme_path, hub, "README.md");
    kr_path_join(examples, sizeof examples, hub, "examples");
    kr_path_join(kj, sizeof kj, hub, "kernels.json");
    char *text = NULL;
    size_t tlen = 0;
    if (kr_file_read(readme_path, KR_MAX_SMALL_FILE_BYTES, &text, &tlen, &err))
        return fail(&err);
    char *begin = strstr(text, CLI_INDEX_BEGIN "\n");
    char *end = begin ? strstr(begin, "\n" CLI_INDEX_END) : NULL;
    if (!begin || !end) {
        free(text);
        kr_err_set(&err, KR_INPUT, readme_path, NULL,
                   "no examples-table markers: put a line `" CLI_INDEX_BEGIN "` and a line `" CLI_INDEX_END
                   "` where the examples table belongs (the table between them is regenerated; the rest of "
                   "README.md is kept), then run kreport index again");
        return fail(&err);
    }
    /* examples, sorted */
    char **names = NULL;
    size_t n = 0;
    DIR *d = opendir(examples);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            char p[PATH_CAP];
            if (e->d_name[0] == '.' || !bundle_is_example_dir(kr_path_join(p, sizeof p, examples, e->d_name)))
                continue;
            char **g = realloc(names, (n + 1) * sizeof *g);
            if (!g || !(g[n] = strdup(e->d_name))) {
                free(g ? g : names);
                closedir(d);
                free(text);
                return KR_INTERNAL;
            }
            names = g;
            n++;
        }
        closedir(d);
    }
    if (n)
        qsort(names, n, sizeof *names, name_cmp);
    kr_buf rows, json, readme;
    kr_buf_init(&rows);
    kr_buf_init(&json);
    kr_buf_init(&readme);
    kr_buf_puts(&rows, "| folder | kernel | target | captures | EXEC / WAIT / STALL / IDLE | top stall | limiter | "
                       "source mapping |\n|---|---|---|---|---|---|---|---|\n");
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        char p[PATH_CAP];
        rc = one_example(kr_path_join(p, sizeof p, examples, names[i]), names[i], &rows, &json, i, &err);
    }
    if (!rc) {
        size_t head = (size_t)(begin - text) + strlen(CLI_INDEX_BEGIN "\n");
        kr_buf_append(&readme, text, head);
        kr_buf_puts(&readme, kr_buf_cstr(&rows));
        kr_buf_puts(&readme, end + 1);
        kr_buf out;
        kr_buf_init(&out);
        kr_buf_puts(&out, "{\n  \"schema\": \"kreport.index\",\n  \"schema_version\": 1,\n  \"kreport_version\": \""
                          KREPORT_VERSION "\",\n  \"examples\": [");
        kr_buf_puts(&out, kr_buf_cstr(&json));
        kr_buf_puts(&out, n ? "\n  ]\n}\n" : "]\n}\n");
        if (readme.oom || out.oom || rows.oom || json.oom) {
            rc = kr_err_set(&err, KR_INTERNAL, NULL, NULL, "out of memory");
        } else {
            int same_readme = readme.len == tlen && memcmp(readme.data, text, tlen) == 0;
            int same_json = same_bytes(kj, out.data, out.len);
            if (same_readme && same_json) {
                if (!o.quiet)
                    fprintf(stderr, "kreport index: %s: no change (%zu example%s)\n", hub, n, n == 1 ? "" : "s");
            } else if (o.check) {
                fprintf(stderr, "kreport index: %s: out of date:%s%s; run kreport index %s\n", hub,
                        same_readme ? "" : " README.md", same_json ? "" : " kernels.json", hub);
                rc = KR_FINDING;
            } else {
                kr_outset *set = kr_outset_new(hub, 1);
                if (!set)
                    rc = kr_err_set(&err, KR_INTERNAL, NULL, NULL, "out of memory");
                else if (!(rc = same_readme ? 0 : kr_outset_add(set, "README.md", readme.data, readme.len, &err)) &&
                         !(rc = same_json ? 0 : kr_outset_add(set, "kernels.json", out.data, out.len, &err)))
                    rc = kr_outset_commit(set, &err);
                kr_outset_free(set);
                if (!rc && !o.quiet)
                    fprintf(stderr, "kreport index: %s: updated%s%s (%zu example%s)\n", hub,
                            same_readme ? "" : " README.md", same_json ? "" : " kernels.json", n, n == 1 ? "" : "s");
            }
        }
        kr_buf_free(&out);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(text);
    kr_buf_free(&rows);
    kr_buf_free(&json);
    kr_buf_free(&readme);
    if (rc && rc != KR_FINDING)
        return fail(&err);
    return rc;
}
