/* cmd_synth.c — `kreport synth DIR`: write a synthetic bundle (synth/synth.h). */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "synth/synth.h"
#include "common/err.h"

static const char *opt_layout;
static const char *opt_gfx;
static const char *opt_counters;
static int opt_seed = -1, opt_waves = -1, opt_iterations = -1, opt_size_mb = -1;
static int opt_force, opt_quiet;

const cli_opt cmd_synth_options[] = {
    {"layout", 0, OPT_STRING, "KIND", "capture (default), example or run", &opt_layout},
    {"gfx", 0, OPT_STRING, "TARGET", "gfx950 (default) or gfx942", &opt_gfx},
    {"seed", 0, OPT_INT, "N", "0 (default): no jitter, figures follow the documented formulas", &opt_seed},
    {"waves", 0, OPT_INT, "N", "traced waves, 1..128 (default 8; 32 with --size-mb)", &opt_waves},
    {"iterations", 0, OPT_INT, "N", "loop trip count (default 3)", &opt_iterations},
    {"size-mb", 0, OPT_INT, "N", "choose iterations so the wave files total about N MiB", &opt_size_mb},
    {"counters", 0, OPT_STRING, "DIALECT", "also write counter_collection.csv: none (default), current, old, no-kernel-id or passes", &opt_counters},
    {"force", 'f', OPT_FLAG, NULL, "write into an existing non-empty DIR", &opt_force},
    {"quiet", 'q', OPT_FLAG, NULL, "print nothing on success", &opt_quiet},
    {0},
};

int cmd_synth(int argc, char **argv)
{
    const cli_command *cmd = cli_find("synth");
    char *pos[2];
    int npos = 0, code = 0;
    if (cli_parse(cmd, cmd_synth_options, argc, argv, pos, &npos, 1, &code))
        return code;
    if (npos != 1) {
        cli_usage_error(cmd, "expected one output directory");
        return KR_USAGE;
    }
    synth_opts o;
    synth_opts_default(&o);
    if (opt_layout) {
        if (strcmp(opt_layout, "capture") == 0)
            o.layout = SYNTH_LAYOUT_CAPTURE;
        else if (strcmp(opt_layout, "example") == 0)
            o.layout = SYNTH_LAYOUT_EXAMPLE;
        else if (strcmp(opt_layout, "run") == 0)
            o.layout = SYNTH_LAYOUT_RUN;
        else {
            cli_usage_error(cmd, "--layout must be capture, example or run, got '%s'", opt_layout);
            return KR_USAGE;
        }
    }
    if (opt_gfx) {
        if (strcmp(opt_gfx, "gfx950") == 0)
            o.gfx = SYNTH_GFX950;
        else if (strcmp(opt_gfx, "gfx942") == 0)
            o.gfx = SYNTH_GFX942;
        else {
            cli_usage_error(cmd, "--gfx must be gfx950 or gfx942, got '%s'", opt_gfx);
            return KR_USAGE;
        }
    }
    if (opt_counters) {
        int found = 0;
        for (int c = SYNTH_CTR_NONE; c <= SYNTH_CTR_PASSES && !found; c++)
            if (strcmp(opt_counters, synth_counters_name((synth_counters)c)) == 0) {
                o.counters = (synth_counters)c;
                found = 1;
            }
        if (!found) {
            cli_usage_error(cmd, "--counters must be none, current, old, no-kernel-id or passes, got '%s'",
                            opt_counters);
            return KR_USAGE;
        }
    }
    if (opt_size_mb >= 0 && opt_iterations >= 0) {
        cli_usage_error(cmd, "--size-mb chooses the iterations; do not give both");
        return KR_USAGE;
    }
    if (opt_seed >= 0)
        o.seed = (uint64_t)opt_seed;
    if (opt_size_mb > 0) {
        o.size_mb = (unsigned)opt_size_mb;
        if (opt_waves < 0)
            o.waves = 32;
    }
    if (opt_waves >= 0)
        o.waves = (unsigned)opt_waves;
    if (opt_iterations >= 0)
        o.iterations = (unsigned)opt_iterations;
    o.force = opt_force;

    kr_err err;
    kr_err_clear(&err);
    synth_plan plan;
    int rc = synth_plan_make(&o, &plan, &err);
    if (rc == KR_USAGE) {
        cli_usage_error(cmd, "%s", err.msg);
        return KR_USAGE;
    }
    if (!rc)
        rc = synth_write(&o, pos[0], &err);
    if (rc) {
        char msg[2048];
        kr_err_format(&err, msg, sizeof msg);
        fprintf(stderr, "%s synth: %s\n", cli_progname, msg);
        return rc;
    }
    if (!opt_quiet) {
        for (size_t i = 0; i < plan.ncaptures; i++) {
            const synth_capture_info *c = &plan.cap[i];
            printf("%s%s%s/%s: %u waves x %u iterations, %llu records\n", pos[0],
                   o.layout == SYNTH_LAYOUT_EXAMPLE ? "/att_viewer/" : "", c->label, c->folder, c->waves,
                   c->iterations, (unsigned long long)c->records);
        }
    }
    return 0;
}
