/* test_load_rocpd.c — bundle/load_rocpd.c on databases built by
 * tests/tools/mkrocpd.py from the hub's CSVs with the schema SQL of
 * tests/rocpd/ (every schema version), checked row by row against the CSV
 * loaders on the same files; and the refusals: not SQLite, corrupt, another
 * tool's database, missing table or column, unknown schema version, rows that
 * name nothing; and that the file is never written. */
#include <sqlite3.h>
#include <sys/stat.h>

#include "bundle/load_csv.h"
#include "bundle/load_rocpd.h"
#include "common/file.h"
#include "tests/unit/t.h"

static char tmp[256];
static const char *src_dir;

/* Runs mkrocpd.py; 0 on success. */
static int mkdb(const char *out, const char *schema, const char *trace, const char *agents, const char *counters,
                const char *extra)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "python3 %s/tests/tools/mkrocpd.py %s --schema %s --trace %s --agents %s%s%s %s",
             src_dir, out, schema, trace, agents, counters ? " --counters " : "", counters ? counters : "",
             extra ? extra : "");
    return system(cmd);
}

/* A counter_collection CSV for the first three dispatches of the trace's
 * kernel `kernel`: two counters each, values from the dispatch id. */
static void write_counters(const char *path, const kr_kernel_trace *kt, const char *kernel)
{
    FILE *f = fopen(path, "w");
    fprintf(f, "\"Correlation_Id\",\"Dispatch_Id\",\"Agent_Id\",\"Kernel_Name\",\"Counter_Name\",\"Counter_Value\","
               "\"Start_Timestamp\",\"End_Timestamp\"\n");
    int n = 0;
    for (size_t i = 0; i < kt->nrows && n < 3; i++) {
        const kr_dispatch *d = &kt->rows[i];
        if (strcmp(d->kernel_name, kernel) != 0)
            continue;
        n++;
        fprintf(f, "%" PRIu64 ",%" PRIu64 ",\"Agent %" PRId64 "\",\"%s\",\"SQ_WAVES\",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
                d->correlation_id, d->dispatch_id, d->agent, d->kernel_name, d->dispatch_id * 4, d->start_ns, d->end_ns);
        fprintf(f, "%" PRIu64 ",%" PRIu64 ",\"Agent %" PRId64 "\",\"%s\",\"FETCH_SIZE\",%.3f,%" PRIu64 ",%" PRIu64 "\n",
                d->correlation_id, d->dispatch_id, d->agent, d->kernel_name, 1024.5 + (double)d->dispatch_id,
                d->start_ns, d->end_ns);
    }
    fclose(f);
}

static void same_dispatch(const kr_dispatch *a, const kr_dispatch *b)
{
    T_EQ_U64(a->dispatch_id, b->dispatch_id);
    T_EQ_U64(a->kernel_id, b->kernel_id);
    T_EQ_U64(a->correlation_id, b->correlation_id);
    T_EQ_I64(a->agent, b->agent);
    T_EQ_STR(a->kernel_name, b->kernel_name);
    T_EQ_U64(a->start_ns, b->start_ns);
    T_EQ_U64(a->end_ns, b->end_ns);
    T_EQ_I64(a->lds_bytes, b->lds_bytes);
    T_EQ_I64(a->scratch_bytes, b->scratch_bytes);
    T_EQ_I64(a->vgpr, b->vgpr);
    T_EQ_I64(a->accum_vgpr, b->accum_vgpr);
    T_EQ_I64(a->sgpr, b->sgpr);
    for (int k = 0; k < 3; k++) {
        T_EQ_U64(a->wg[k], b->wg[k]);
        T_EQ_U64(a->grid[k], b->grid[k]);
    }
}

static void same_agent(const kr_agent *a, const kr_agent *b)
{
    T_EQ_I64(a->type, b->type);
    T_EQ_STR(a->name, b->name);
    T_EQ_STR(a->product_name, b->product_name);
    T_EQ_I64(a->gfx_target_version, b->gfx_target_version);
    T_EQ_I64(a->node_id, b->node_id);
    T_EQ_I64(a->logical_node_id, b->logical_node_id);
    T_EQ_I64(a->cu_count, b->cu_count);
    T_EQ_I64(a->simd_per_cu, b->simd_per_cu);
    T_EQ_I64(a->max_waves_per_simd, b->max_waves_per_simd);
    T_EQ_I64(a->max_waves_per_cu, b->max_waves_per_cu);
    T_EQ_I64(a->wave_front_size, b->wave_front_size);
    T_EQ_I64(a->lds_size_in_kb, b->lds_size_in_kb);
    T_EQ_I64(a->max_engine_clk_fcompute, b->max_engine_clk_fcompute);
    T_EQ_I64(a->num_xcc, b->num_xcc);
    T_EQ_I64(a->array_count, b->array_count);
    T_EQ_I64(a->gpu_id, b->gpu_id);
    T_EQ_I64(a->location_id, b->location_id);
    T_EQ_I64(a->drm_render_minor, b->drm_render_minor);
}

/* The database equals the CSVs it was built from, row by row. */
static void check_equal(const kr_rocpd *db, const kr_kernel_trace *kt, const kr_agent_info *ai,
                        const bundle_counter_csv *cc)
{
    T_EQ_U64(db->trace->nrows, kt->nrows);
    for (size_t i = 0; i < kt->nrows && i < db->trace->nrows; i++)
        same_dispatch(&db->trace->rows[i], &kt->rows[i]);
    T_EQ_U64(db->agents->nagents, ai->nagents);
    for (size_t i = 0; i < ai->nagents && i < db->agents->nagents; i++)
        same_agent(&db->agents->agents[i], &ai->agents[i]);
    /* Counters: one value per (dispatch, counter); the CSV has one row each. */
    T_EQ_U64(db->ncounters, cc->nrows);
    for (size_t i = 0; i < cc->nrows; i++) {
        const kr_counter_value *want = &cc->rows[i];
        size_t hits = 0;
        for (size_t k = 0; k < db->ncounters; k++) {
            const kr_counter_value *got = &db->counters[k];
            if (got->dispatch_id != want->dispatch_id || strcmp(got->counter, want->counter) != 0)
                continue;
            hits++;
            T_CHECK(got->value == want->value);
            T_EQ_STR(got->kernel_name, want->kernel_name);
            T_EQ_U64(got->start_ns, want->start_ns);
            T_EQ_U64(got->end_ns, want->end_ns);
        }
        T_EQ_U64(hits, 1);
    }
}

static void test_versions(const char *hub)
{
    char trace[1024], agents[1024], counters[512], db[512];
    snprintf(trace, sizeof trace, "%s/examples/pa_mqa_logits_fp4/compute_viewer/discover_kernel_trace.csv", hub);
    snprintf(agents, sizeof agents, "%s/examples/pa_mqa_logits_fp4/compute_viewer/small_agent_info.csv", hub);
    snprintf(counters, sizeof counters, "%s/counters.csv", tmp);
    kr_arena a;
    kr_arena_init(&a);
    kr_err err;
    kr_kernel_trace *kt;
    kr_agent_info *ai;
    bundle_counter_csv *cc;
    T_EQ_U64(bundle_load_kernel_trace(&a, trace, &kt, &err), 0);
    T_EQ_U64(bundle_load_agent_info(&a, agents, &ai, &err), 0);
    write_counters(counters, kt, "pa_mqa_logits_fp4_kernel_0");
    T_EQ_U64(bundle_load_counter_csv(&a, counters, &cc, &err), 0);
    T_EQ_U64(cc->nrows, 6);

    static const struct { const char *schema, *extra, *version; size_t runs; } cases[] = {
        {"3", "", "3", 1},
        {"3.0.3", " --spm --halves", "3.0.3", 1},
        {"4.1.0", "", "4.1.0", 1},
        {"3", " --runs 3", "3", 3},
        {"4.1.0", " --runs 2 --halves", "4.1.0", 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(db, sizeof db, "%s/v%zu.db", tmp, i);
        T_EQ_U64(mkdb(db, cases[i].schema, trace, agents, counters, cases[i].extra), 0);
        kr_rocpd *r = NULL;
        int rc = bundle_load_rocpd(&a, db, &r, &err);
        T_EQ_U64(rc, 0);
        if (rc) {
            fprintf(stderr, "%s: %s\n", db, err.msg);
            continue;
        }
        T_EQ_STR(r->schema_version, cases[i].version);
        T_EQ_U64(r->schema_major, cases[i].version[0] - '0');
        T_EQ_U64(r->nruns, cases[i].runs);
        T_CHECK(r->symbol_registers);
        T_EQ_STR(r->trace->path, db);
        check_equal(r, kt, ai, cc);
        /* The same bytes from memory (the archive path) give the same rows. */
        char *data;
        size_t len;
        T_EQ_U64(kr_file_read(db, 1u << 30, &data, &len, &err), 0);
        kr_rocpd *m = NULL;
        T_EQ_U64(bundle_parse_rocpd(&a, data, len, "mem.db", &m, &err), 0);
        if (m)
            check_equal(m, kt, ai, cc);
        free(data);
    }
    /* 532 dispatches in the hub's trace; the pa_mqa kernel's LDS is 0. */
    T_EQ_U64(kt->nrows, 532);
    kr_arena_free(&a);
}

/* Agent handles in extdata: the capture's agent is the one with its handle;
 * with several GPU agents and no handle the agent is ambiguous. */
static void test_agent_choice(const char *hub)
{
    char trace[1024], agents[1024], db[512], note[300];
    snprintf(trace, sizeof trace, "%s/examples/pa_mqa_logits_fp4/compute_viewer/discover_kernel_trace.csv", hub);
    snprintf(agents, sizeof agents, "%s/examples/pa_mqa_logits_fp4/compute_viewer/small_agent_info.csv", hub);
    kr_arena a;
    kr_arena_init(&a);
    kr_err err;
    snprintf(db, sizeof db, "%s/handles.db", tmp);
    T_EQ_U64(mkdb(db, "3", trace, agents, NULL, " --handle 2=100 --handle 3=32435 --handle 4=7 --handle 5=8 "
                                                "--handle 6=9 --handle 7=10 --handle 8=11 --handle 9=12 --handle 0=1 "
                                                "--handle 1=2"), 0);
    kr_rocpd *r = NULL;
    T_EQ_U64(bundle_load_rocpd(&a, db, &r, &err), 0);
    if (r) {
        T_CHECK(r->agent_handles);
        const kr_agent *g = bundle_rocpd_agent(r, 1, 32435, note, sizeof note);
        T_CHECK(g && g->logical_node_id == 3);
        T_CHECK(strstr(note, "has the capture's handle 32435") != NULL);
        T_CHECK(bundle_rocpd_agent(r, 1, 55351, note, sizeof note) == NULL);
        T_CHECK(strstr(note, "8 GPU agents and none has the capture's handle") != NULL);
    }
    snprintf(db, sizeof db, "%s/nohandles.db", tmp);
    T_EQ_U64(mkdb(db, "3", trace, agents, NULL, ""), 0);
    r = NULL;
    T_EQ_U64(bundle_load_rocpd(&a, db, &r, &err), 0);
    if (r) {
        T_CHECK(!r->agent_handles);
        T_CHECK(bundle_rocpd_agent(r, 1, 32435, note, sizeof note) == NULL);
        T_CHECK(strstr(note, "no agent handles in the database") != NULL);
    }
    kr_arena_free(&a);
}

/* Runs SQL on a copy of a good database, then expects the loader to fail
 * with KR_INPUT and a message holding `want`. */
static void expect_refusal(const char *good, const char *sql, const char *want)
{
    char path[512], cmd[1200];
    snprintf(path, sizeof path, "%s/bad.db", tmp);
    snprintf(cmd, sizeof cmd, "cp %s %s", good, path);
    T_EQ_U64(system(cmd), 0);
    if (sql) {
        sqlite3 *db;
        T_EQ_U64(sqlite3_open(path, &db), SQLITE_OK);
        char *msg = NULL;
        int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
        if (rc != SQLITE_OK)
            fprintf(stderr, "setup SQL failed: %s\n", msg ? msg : "?");
        T_EQ_U64(rc, SQLITE_OK);
        sqlite3_free(msg);
        sqlite3_close(db);
    }
    kr_arena a;
    kr_arena_init(&a);
    kr_err err;
    kr_err_clear(&err);
    kr_rocpd *r = NULL;
    int rc = bundle_load_rocpd(&a, path, &r, &err);
    T_EQ_U64(rc, KR_INPUT);
    T_CHECK(r == NULL);
    T_EQ_STR(err.file, path);
    char line[2000];
    kr_err_format(&err, line, sizeof line);
    if (!strstr(line, want)) {
        fprintf(stderr, "expected \"%s\" in: %s\n", want, line);
        t_failed++;
    } else {
        t_passed++;
    }
    kr_arena_free(&a);
}

static void test_refusals(const char *hub)
{
    char trace[1024], agents[1024], good[512], path[512];
    snprintf(trace, sizeof trace, "%s/examples/flash_attn_func/compute_viewer/discover_kernel_trace.csv", hub);
    snprintf(agents, sizeof agents, "%s/examples/flash_attn_func/compute_viewer/small_agent_info.csv", hub);
    snprintf(good, sizeof good, "%s/good.db", tmp);
    T_EQ_U64(mkdb(good, "3", trace, agents, NULL, ""), 0);
    const char *S = "_0198a1b2_c3d4_7e5f_8a9b_000000000001";
    char sql[600];

    expect_refusal(good, "DROP VIEW rocpd_kernel_dispatch; DROP TABLE rocpd_kernel_dispatch_0198a1b2_c3d4_7e5f_8a9b_000000000001",
                   "rocpd database without table rocpd_kernel_dispatch_0198a1b2_c3d4_7e5f_8a9b_000000000001");
    expect_refusal(good, "DROP VIEW rocpd_info_agent; DROP TABLE rocpd_info_agent_0198a1b2_c3d4_7e5f_8a9b_000000000001",
                   "without table rocpd_info_agent_");
    snprintf(sql, sizeof sql, "UPDATE rocpd_metadata%s SET value = '9.1.0' WHERE tag = 'schema_version'", S);
    expect_refusal(good, sql, "rocpd schema version \"9.1.0\"");
    snprintf(sql, sizeof sql, "DELETE FROM rocpd_metadata%s WHERE tag = 'schema_version'", S);
    expect_refusal(good, sql, "no schema_version row");
    snprintf(sql, sizeof sql, "ALTER TABLE rocpd_kernel_dispatch%s DROP COLUMN grid_size_y", S);
    expect_refusal(good, sql, "has no column grid_size_y");
    snprintf(sql, sizeof sql, "UPDATE rocpd_kernel_dispatch%s SET agent_id = 99 WHERE id = 3", S);
    expect_refusal(good, sql, "rocpd_kernel_dispatch_0198a1b2_c3d4_7e5f_8a9b_000000000001 id 3: column agent_id: names no agent");
    snprintf(sql, sizeof sql, "UPDATE rocpd_kernel_dispatch%s SET kernel_id = 123456 WHERE id = 5", S);
    expect_refusal(good, sql, "id 5: column kernel_id: names no kernel symbol");
    snprintf(sql, sizeof sql, "UPDATE rocpd_kernel_dispatch%s SET start = 'soon' WHERE id = 2", S);
    expect_refusal(good, sql, "id 2: column start: expected an integer, found text");
    snprintf(sql, sizeof sql, "UPDATE rocpd_kernel_dispatch%s SET grid_size_x = -5 WHERE id = 2", S);
    expect_refusal(good, sql, "column grid_size_x: expected a non-negative integer");
    snprintf(sql, sizeof sql, "UPDATE rocpd_info_agent%s SET extdata = '{not json' WHERE id = 1", S);
    expect_refusal(good, sql, "column extdata: not a JSON object");
    /* Another tool's database. */
    snprintf(sql, sizeof sql, "DROP VIEW rocpd_metadata; DROP TABLE rocpd_metadata%s; CREATE TABLE moz_places (id)", S);
    expect_refusal(good, sql, "an SQLite database but not a rocpd database: no table rocpd_metadata");
    /* Not SQLite at all, though named .db. */
    snprintf(path, sizeof path, "%s/text.db", tmp);
    FILE *f = fopen(path, "w");
    fputs("\"Kind\",\"Agent_Id\"\n", f);
    fclose(f);
    kr_arena a;
    kr_arena_init(&a);
    kr_err err;
    kr_rocpd *r = NULL;
    T_EQ_U64(bundle_load_rocpd(&a, path, &r, &err), KR_INPUT);
    T_CHECK(strstr(err.msg, "not an SQLite database") != NULL);
    T_EQ_U64(bundle_parse_rocpd(&a, "SQLite", 6, "short.db", &r, &err), KR_INPUT);
    /* Corrupt: the header survives, the pages do not. */
    char *data;
    size_t len;
    T_EQ_U64(kr_file_read(good, 1u << 30, &data, &len, &err), 0);
    for (size_t i = 100; i < len; i += 7)
        data[i] = (char)(data[i] ^ 0x5a);
    int rc = bundle_parse_rocpd(&a, data, len, "mangled.db", &r, &err);
    T_EQ_U64(rc, KR_INPUT);
    T_CHECK(strstr(err.msg, "corrupt") != NULL || strstr(err.msg, "SQLite") != NULL);
    /* Truncated to its first page. */
    rc = bundle_parse_rocpd(&a, data, 4096, "truncated.db", &r, &err);
    T_EQ_U64(rc, KR_INPUT);
    free(data);
    kr_arena_free(&a);
}

/* Read-only: a file in a read-only folder loads, and nothing beside it or in
 * it changes (no journal, no WAL, same bytes and time). */
static void test_read_only(const char *hub)
{
    char trace[1024], agents[1024], dir[512], db[600];
    snprintf(trace, sizeof trace, "%s/examples/flash_attn_func/compute_viewer/discover_kernel_trace.csv", hub);
    snprintf(agents, sizeof agents, "%s/examples/flash_attn_func/compute_viewer/small_agent_info.csv", hub);
    snprintf(dir, sizeof dir, "%s/ro dir %%?#", tmp);
    mkdir(dir, 0755);
    snprintf(db, sizeof db, "%s/1_results.db", dir);
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "python3 %s/tests/tools/mkrocpd.py '%s' --schema 3 --trace %s --agents %s", src_dir, db,
             trace, agents);
    T_EQ_U64(system(cmd), 0);
    struct stat before, after;
    T_EQ_U64(stat(db, &before), 0);
    chmod(db, 0444);
    chmod(dir, 0555);
    kr_arena a;
    kr_arena_init(&a);
    kr_err err;
    kr_rocpd *r = NULL;
    T_EQ_U64(bundle_load_rocpd(&a, db, &r, &err), 0);
    T_CHECK(r && r->trace->nrows == 45);
    T_EQ_U64(stat(db, &after), 0);
    T_EQ_U64(after.st_size, before.st_size);
    T_EQ_U64(after.st_mtime, before.st_mtime);
    DIR *d = opendir(dir);
    size_t entries = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        entries += e->d_name[0] != '.';
    if (d)
        closedir(d);
    T_EQ_U64(entries, 1);
    chmod(dir, 0755);
    kr_arena_free(&a);
}

int main(void)
{
    const char *hub = t_hub();
    src_dir = getenv("KR_SRC");
    if (!hub || !src_dir) {
        fprintf(stderr, "test_load_rocpd: skipped (hub fixture or KR_SRC absent)\n");
        return 77;
    }
    if (system("python3 -c 'import sqlite3'") != 0) {
        fprintf(stderr, "test_load_rocpd: skipped (python3 without sqlite3)\n");
        return 77;
    }
    snprintf(tmp, sizeof tmp, "/tmp/kr_rocpd_XXXXXX");
    if (!mkdtemp(tmp))
        return 1;
    test_versions(hub);
    test_agent_choice(hub);
    test_refusals(hub);
    test_read_only(hub);
    char ro[600];
    snprintf(ro, sizeof ro, "%s/ro dir %%?#", tmp);
    chmod(ro, 0755);
    t_rm_rf(tmp);
    printf("test_load_rocpd: %d passed, %d failed\n", t_passed, t_failed);
    return t_failed ? 1 : 0;
}
