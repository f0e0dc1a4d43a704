/* roof.h — the roofline options shared by `analyze` and `compare`
 * (--flops, --bytes, --time-ns, --device, --ceiling, and work from a
 * benchmark CSV) and the per-capture choice of the device from the embedded
 * hardware table (report/hw.h).
 *
 * Benchmark CSV (--bench FILE, one data row: --bench-row N, 1-based,
 * required when the file has several rows): time = the first column whose
 * name starts with "us_" (microseconds); FLOPs = --flops-formula EXPR over
 * the row's columns, else the "tflops" column × 10^12 × time; bytes =
 * --bytes-formula EXPR, else the "gbps" column × 10^9 × time (column names
 * case-insensitive). EXPR: numbers, column names, + - * / and parentheses.
 * --flops, --bytes and --time-ns take precedence; every figure says where it
 * came from. */
#ifndef KR_CLI_ROOF_H
#define KR_CLI_ROOF_H

#include <stddef.h>

#include "analyzer/roofline.h"
#include <pthread.h>

#include "bundle/model.h"
#include "cli/opts.h"
#include "report/hw.h"

typedef struct cli_roof {
    const char *flops, *bytes, *time_ns, *device, *ceiling;   /* option text, NULL when absent */
    const char *bench, *bench_row, *flops_formula, *bytes_formula;
    char sources[3][160];        /* flops, bytes, time sources from the benchmark CSV */
    an_roofline_opts base;       /* parsed numbers and ceiling */
    rep_hw_table table;
    int table_state;             /* 0 not loaded, 1 loaded, -1 failed */
    int loading;                 /* the table loads on `loader` (cli_roof_init) */
    pthread_t loader;
    int loader_rc;
    kr_err loader_err;
    char **notes;                /* device notes, one per capture (malloc) */
    size_t nnotes;
} cli_roof;

/* Option rows for a command's table (r: a cli_roof lvalue). */
#define CLI_ROOF_OPTIONS(r)                                                                                    \
    {"flops", 0, OPT_STRING, "N", "FLOPs per dispatch, for the roofline when no counters give them", &(r).flops}, \
    {"bytes", 0, OPT_STRING, "N", "HBM bytes per dispatch, for the roofline when no counters give them", &(r).bytes}, \
    {"time-ns", 0, OPT_STRING, "N", "dispatch time in ns when no counters or kernel trace give it", &(r).time_ns}, \
    {"device", 0, OPT_STRING, "NAME", "device of the hardware table (MI355X, MI350X, MI325X, MI300X, ...) instead of the agent's", &(r).device}, \
    {"ceiling", 0, OPT_STRING, "KEY", "compute ceiling of the roofline, e.g. matrix_bf16 (default: from counters or the ISA)", &(r).ceiling}, \
    {"bench", 0, OPT_STRING, "CSV", "benchmark CSV giving the dispatch time (first us_* column) and work (tflops, gbps columns)", &(r).bench}, \
    {"bench-row", 0, OPT_STRING, "N", "data row of --bench to use (1-based; needed when it has several)", &(r).bench_row}, \
    {"flops-formula", 0, OPT_STRING, "EXPR", "FLOPs from the --bench row's columns, e.g. '4*B*H*S*S*D'", &(r).flops_formula}, \
    {"bytes-formula", 0, OPT_STRING, "EXPR", "HBM bytes from the --bench row's columns", &(r).bytes_formula}

/* Checks the option values and reads the benchmark CSV (keeps no
 * allocation). 0, or KR_USAGE / KR_INPUT after printing the message. */
int cli_roof_init(const cli_command *cmd, cli_roof *r);
/* Starts parsing the hardware table (a JSON template) on a thread of its
 * own, so it overlaps the loading of the captures; cli_roof_for and
 * cli_roof_free wait for it. Call it once the command will go on to load. */
void cli_roof_prefetch(cli_roof *r);
/* Fills *o for capture c: the parsed options plus the device and its note
 * (the embedded table is loaded on the first call unless prefetched; if it
 * cannot be, the device is unknown and the note says why). */
void cli_roof_for(cli_roof *r, const kr_capture *c, an_roofline_opts *o);
void cli_roof_free(cli_roof *r);

#endif
