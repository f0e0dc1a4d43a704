/* test_compare_runs.c — run-directory discovery for `kreport compare`
 * (bundle/runs.h, docs/compare.md#discovery): files classified by content, profiled CSVs,
 * ATT-pass traces with the captured dispatch ids, shells, logs, run.meta,
 * a symbolic-link loop, a rocpd database (read) and a corrupt one (refused),
 * a capture folder as a side, archives inside a run directory read in place. */
#include <sqlite3.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/runs.h"
#include "bundle/source.h"

#include "tests/unit/t.h"

static char root[256];

static void put(const char *rel, const char *text)
{
    char path[512], dir[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + strlen(root) + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0755);
            *p = '/';
        }
    FILE *f = fopen(path, "wb");
    fwrite(text, 1, strlen(text), f);
    fclose(f);
}

#define TRACE_HEADER "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\"," \
    "\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\"," \
    "\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\"," \
    "\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n"
#define TRACE_ROW(id, start) "\"KERNEL_DISPATCH\",\"Agent 2\",1,0,7," #id ",3,\"k_0\"," #id "," #start "," \
    #start "00,0,0,8,0,16,256,1,1,256,1,1\n"

static void build(void)
{
    put("run.meta", "# written by the agent\ncommit = abc123\nexit_code=0\ncommand=python t.py --fast\n\nnot a pair\n");
    put("bench/b.csv", "block_size,us_x,err_x\n16,1.0,0\n");
    put("prof/k_kernel_trace.csv", TRACE_HEADER TRACE_ROW(1, 100) TRACE_ROW(2, 200));
    put("prof/run_b.csv", "block_size,us_x,err_x\n16,1.5,0\n");
    put("prof/k_agent_info.csv", "Node_Id,Logical_Node_Id,Agent_Type,Cu_Count,Gpu_Id,Location_Id,Drm_Render_Minor,Name,Product_Name\n"
                                 "0,0,CPU,0,0,0,0,cpu,EPYC\n2,2,GPU,256,77,1024,128,gfx950,AMD Instinct MI350X\n");
    put("prof/k_kernel_stats.csv", "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\",\"MinNs\",\"MaxNs\",\"StdDev\"\n"
                                   "\"k_0\",2,200,100.0,100.0,100,100,0.0\n");
    put("att/ui_output_agent_5_dispatch_7/filenames.json", "{}");
    put("att/ui_output_agent_5_dispatch_7/code.json", "{\"code\":null,\"header\":\"ISA\"}");
    put("att/ui_output_agent_5_dispatch_9/filenames.json", "{}");
    put("att/ui_output_agent_5_dispatch_9/code.json", "{\"code\": [[\"; my_kernel_0\",0,0,\"\",1,0,0,0,0,0]]}");
    put("att/out_kernel_trace.csv", TRACE_HEADER TRACE_ROW(7, 300) TRACE_ROW(8, 400) TRACE_ROW(9, 500));
    put("logs/bench.log", "starting\nTraceback (most recent call last):\n  File x\n");
    put("notes/other.txt", "nothing to see");
    /* A rocpd database without dispatches: listed, read, no trace. */
    char db[512];
    snprintf(db, sizeof db, "%s/notes/old_results.db", root);
    sqlite3 *sq;
    if (sqlite3_open(db, &sq) == SQLITE_OK)
        sqlite3_exec(sq,
                     "CREATE TABLE rocpd_metadata (id INTEGER PRIMARY KEY, tag TEXT, value TEXT);"
                     "INSERT INTO rocpd_metadata (tag, value) VALUES ('schema_version', '3');"
                     "CREATE TABLE rocpd_info_agent (id INTEGER PRIMARY KEY, type TEXT, name TEXT);"
                     "CREATE TABLE rocpd_info_kernel_symbol (id INTEGER PRIMARY KEY, kernel_name TEXT);"
                     "CREATE TABLE rocpd_kernel_dispatch (id INTEGER PRIMARY KEY, agent_id, kernel_id, dispatch_id,"
                     " start, end, workgroup_size_x, workgroup_size_y, workgroup_size_z, grid_size_x, grid_size_y,"
                     " grid_size_z);",
                     NULL, NULL, NULL);
    sqlite3_close(sq);
    char loop[512];
    snprintf(loop, sizeof loop, "%s/notes/loop", root);
    if (symlink(root, loop) != 0)
        perror("symlink");
}

static void test_scan(void)
{
    bundle_run *r;
    kr_err err;
    T_EQ_I64(bundle_run_scan(root, &r, &err), 0);
    if (!r)
        return;
    T_CHECK(!r->is_capture);
    /* Walk order is byte order: att/, bench/, logs/, notes/, prof/. */
    T_EQ_U64(r->ncsvs, 2);
    T_EQ_STR(r->csvs[0].rel, "bench/b.csv");
    T_EQ_I64(r->csvs[0].profiled, 0);
    T_EQ_STR(r->csvs[1].rel, "prof/run_b.csv");
    T_EQ_I64(r->csvs[1].profiled, 1);
    T_EQ_U64(r->csvs[1].table.nrows, 1);
    T_EQ_U64(r->ntraces, 2);
    T_EQ_STR(r->traces[0].rel, "att/out_kernel_trace.csv");
    T_EQ_I64(r->traces[0].att_pass, 1);
    T_EQ_U64(r->traces[0].n, 3);
    T_EQ_U64(r->traces[0].ndrop, 2);
    T_EQ_U64(r->traces[0].drop_ids[0], 7);
    T_EQ_U64(r->traces[0].drop_ids[1], 9);
    T_EQ_STR(r->traces[1].rel, "prof/k_kernel_trace.csv");
    T_EQ_I64(r->traces[1].att_pass, 0);
    T_EQ_U64(r->traces[1].d[1].start_ns, 200);
    T_EQ_U64(r->ncaptures, 2);
    T_EQ_STR(r->captures[0].label, "att");
    T_EQ_I64(r->captures[0].shell, 1);
    T_EQ_U64(r->captures[0].dispatch_id, 7);
    T_EQ_I64(r->captures[1].shell, 0);
    T_EQ_STR(r->captures[1].kernel, "my_kernel_0");
    T_EQ_U64(r->nstats, 1);
    T_EQ_U64(r->nagent_infos, 1);
    T_EQ_U64(r->nlogs, 1);
    T_EQ_STR(r->logs[0].detail, "Traceback (most recent call last):");
    T_EQ_U64(r->ndbs, 1);
    T_EQ_U64(r->other_files, 1);          /* notes/other.txt; the loop is not entered twice */
    T_EQ_STR(bundle_run_meta(r, "commit"), "abc123");
    T_CHECK(bundle_run_meta(r, "not a pair") == NULL);
    T_EQ_I64(r->exit_code, 0);
    T_EQ_STR(r->command, "python t.py --fast");
    T_EQ_STR(r->gpu_product, "AMD Instinct MI350X");
    T_EQ_STR(r->gpu_name, "gfx950");
    T_EQ_I64(r->cu_count, 256);
    T_EQ_STR(r->gpu_card, "Gpu_Id=77, Location_Id=1024, Drm_Render_Minor=128");
    T_EQ_U64(strlen(r->identity), 16);
    char id[17];
    memcpy(id, r->identity, 17);
    bundle_run_free(r);
    /* The identity depends on the bytes: same scan, same value; one byte changed, another. */
    T_EQ_I64(bundle_run_scan(root, &r, &err), 0);
    T_EQ_STR(r->identity, id);
    bundle_run_free(r);
    put("bench/b.csv", "block_size,us_x,err_x\n16,1.1,0\n");
    T_EQ_I64(bundle_run_scan(root, &r, &err), 0);
    T_CHECK(strcmp(r->identity, id) != 0);
    bundle_run_free(r);
}

static void test_capture_side_and_errors(void)
{
    char cap[512];
    snprintf(cap, sizeof cap, "%s/att/ui_output_agent_5_dispatch_9/", root);
    bundle_run *r;
    kr_err err;
    T_EQ_I64(bundle_run_scan(cap, &r, &err), 0);
    T_CHECK(r->is_capture);
    T_EQ_U64(r->ncaptures, 1);
    T_EQ_STR(r->captures[0].rel, "ui_output_agent_5_dispatch_9");
    T_EQ_U64(r->ntraces + r->ncsvs, 0);
    T_EQ_STR(r->identity, "");
    bundle_run_free(r);

    char notes[512];
    snprintf(notes, sizeof notes, "%s/notes", root);
    unlink(strcat(strcpy(cap, notes), "/loop"));
    /* A file with the SQLite header and nothing behind it is corrupt: exit 3 naming it. */
    char bad[600];
    FILE *f = fopen(strcat(strcpy(bad, notes), "/old_results.db"), "wb");
    fwrite("SQLite format 3\0pages", 1, 21, f);
    fclose(f);
    T_EQ_I64(bundle_run_scan(notes, &r, &err), KR_INPUT);
    T_CHECK(strstr(err.msg, "SQLite") != NULL);
    T_CHECK(strstr(err.file, "old_results.db") != NULL);

    snprintf(cap, sizeof cap, "%s/does-not-exist", root);
    T_EQ_I64(bundle_run_scan(cap, &r, &err), KR_INPUT);
    put("broken/x.csv", "a,\"b\nc\n");
    snprintf(cap, sizeof cap, "%s/broken", root);
    T_EQ_I64(bundle_run_scan(cap, &r, &err), KR_INPUT);
    T_CHECK(strstr(err.file, "x.csv") != NULL);
}

/* Archives inside a run directory are read in place (docs/compare.md#discovery): the
 * captures and traces in them are found, with the archive's source, paths
 * through the archive and labels from the folder holding them; an archive
 * inside such an archive is listed, not opened; a hostile one fails. The
 * same walk from a side that is itself an archive. */
static void test_nested_archives(void)
{
    put("nest/src/caps/ui_output_agent_5_dispatch_9/filenames.json", "{}");
    put("nest/src/caps/ui_output_agent_5_dispatch_9/code.json",
        "{\"code\": [[\"; my_kernel_0\",0,0,\"\",1,0,0,0,0,0]]}");
    put("nest/src/caps/k_kernel_trace.csv", TRACE_HEADER TRACE_ROW(9, 300) TRACE_ROW(10, 400));
    put("nest/src/deeper/x.txt", "x");
    char cmd[1400];
    snprintf(cmd, sizeof cmd,
             "cd '%s/nest/src' && tar -C deeper -cf caps/inner.tar x.txt && mkdir -p ../run && tar -cf ../run/att.tar caps "
             "&& tar -C caps/ui_output_agent_5_dispatch_9 -cf ../run/ui_output_agent_5_dispatch_11.tar.gz -z . "
             "&& cd .. && tar -cf side.tar run",
             root);
    T_EQ_I64(system(cmd), 0);
    char run[512];
    snprintf(run, sizeof run, "%s/nest/run", root);
    bundle_run *r;
    kr_err err;
    kr_err_clear(&err);
    T_EQ_I64(bundle_run_scan(run, &r, &err), 0);
    if (r) {
        T_EQ_U64(r->ncaptures, 2);
        T_EQ_U64(r->ntraces, 1);
        T_EQ_U64(r->narchives, 3);
        T_EQ_U64(r->nnested, 2);
        if (r->ncaptures == 2 && r->nnested == 2) {
            const bundle_run_capture *c = &r->captures[0];
            T_EQ_STR(c->rel, "att.tar/caps/ui_output_agent_5_dispatch_9");
            T_CHECK(strstr(c->dir, "/nest/run/att.tar/caps/ui_output_agent_5_dispatch_9") != NULL);
            T_EQ_STR(c->label, "caps");
            T_EQ_STR(c->kernel, "my_kernel_0");
            T_EQ_U64(c->dispatch_id, 9);
            T_CHECK(c->src == r->nested[0]);
            /* A capture archived with its files at the root: named by the
             * archive, labelled by the folder holding the archive (the
             * side's root: ""). */
            c = &r->captures[1];
            T_EQ_STR(c->rel, "ui_output_agent_5_dispatch_11.tar.gz");
            T_EQ_STR(c->label, "");
            T_EQ_U64(c->dispatch_id, 11);
            T_EQ_STR(c->kernel, "my_kernel_0");
            T_CHECK(c->src == r->nested[1]);
        }
        if (r->ntraces == 1) {
            T_EQ_STR(r->traces[0].rel, "att.tar/caps/k_kernel_trace.csv");
            T_EQ_U64(r->traces[0].n, 2);
            T_CHECK(r->traces[0].att_pass);
            T_CHECK(r->traces[0].ndrop == 1 && r->traces[0].drop_ids[0] == 9);
        }
        if (r->narchives == 3) {
            T_EQ_STR(r->archives[0].rel, "att.tar");
            T_CHECK(r->archives[0].detail == NULL);
            T_EQ_STR(r->archives[1].rel, "att.tar/caps/inner.tar");
            T_CHECK(r->archives[1].detail && strstr(r->archives[1].detail, "not opened"));
            T_EQ_STR(r->archives[2].rel, "ui_output_agent_5_dispatch_11.tar.gz");
            T_CHECK(r->archives[2].detail == NULL);
        }
        bundle_run_free(r);
    }
    /* The side is an archive holding the run directory. */
    char side[512];
    snprintf(side, sizeof side, "%s/nest/side.tar", root);
    bundle_input in;
    T_EQ_I64(bundle_input_open(side, &in, &err), 0);
    T_EQ_I64(bundle_run_scan_src(in.src, in.root, &r, &err), 0);
    if (r) {
        T_EQ_U64(r->ncaptures, 2);
        T_CHECK(r->ncaptures == 2 && r->nnested == 2 && r->captures[0].src == r->nested[0] &&
                r->captures[0].src != in.src);
        T_CHECK(r->ncaptures == 2 && strstr(r->captures[0].dir, "side.tar/run/att.tar/caps/") != NULL);
        T_CHECK(r->ncaptures == 2 && r->captures[1].dispatch_id == 11);
        bundle_run_free(r);
    }
    bundle_input_close(&in);
    /* A hostile archive fails the scan, naming it and the member. */
    snprintf(cmd, sizeof cmd,
             "cd '%s/nest' && python3 -c \"import io,tarfile;t=tarfile.open('run/evil.tar','w');"
             "i=tarfile.TarInfo('../up.txt');i.size=1;t.addfile(i,io.BytesIO(b'x'));t.close()\"",
             root);
    T_EQ_I64(system(cmd), 0);
    kr_err_clear(&err);
    T_EQ_I64(bundle_run_scan(run, &r, &err), KR_INPUT);
    T_CHECK(strstr(err.file, "evil.tar") != NULL && strstr(err.msg, "../up.txt") != NULL);
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/kreport-test-runs-XXXXXX");
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    build();
    test_scan();
    test_capture_side_and_errors();
    test_nested_archives();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", root);
    return t_done("test_compare_runs");
}
