/* commands.c — the one table of commands. */
#include "cli/commands.h"

#include <string.h>

const cli_command cli_commands[] = {
    {"analyze", "PATH", "analyze a capture or an example folder: REPORT.md, analysis.json, CSV, report.html",
     "PATH is a ui_output_agent_<H>_dispatch_<D> folder or an example folder\n"
     "(examples/<kernel>/ with att_viewer/<label>/ui_output_* captures).\n"
     "results.json and rocprofv3 CSVs found beside the capture are used.",
     cmd_analyze},
    {"compare", "BEST CANDIDATE", "keep/discard verdict of a candidate run against the best: COMPARE.md, compare.json, compare.html",
     "BEST and CANDIDATE are run directories (searched recursively by content:\n"
     "benchmark CSVs, rocprofv3 kernel traces, results.json, captures, run.meta)\n"
     "or single ui_output folders. The verdict (keep, tie, discard, inconclusive,\n"
     "split, fail) follows LOOP.md: gate, then the per-call GPU time of the target\n"
     "kernel, then config classes. With --exit-code the verdict is the exit status.",
     cmd_compare},
    {"info", "PATH [PATH...]", "summarize capture folders",
     "Prints kernel, target, SEs, waves, instructions, records, source mapping,\n"
     "time span and clock, and which files are present, missing or extra.",
     cmd_info},
    {"validate", "PATH [PATH...]", "check a capture against every offline invariant of FORMATS.md",
     "Each check is named (V-n), with severity error/warning/info and a location.\n"
     "Exit status 1 when any error is found, 3 when a file cannot be read at all.",
     cmd_validate},
    {"synth", "DIR", "write a synthetic capture bundle with known answers",
     "Deterministic: the same options always write the same bytes.",
     cmd_synth},
};
const size_t cli_ncommands = sizeof cli_commands / sizeof cli_commands[0];

const cli_command *cli_find(const char *name)
{
    for (size_t i = 0; i < cli_ncommands; i++)
        if (strcmp(cli_commands[i].name, name) == 0)
            return &cli_commands[i];
    return NULL;
}

const cli_opt *cli_options_of(const char *name)
{
    if (strcmp(name, "info") == 0) return cmd_info_options;
    if (strcmp(name, "validate") == 0) return cmd_validate_options;
    if (strcmp(name, "analyze") == 0) return cmd_analyze_options;
    if (strcmp(name, "synth") == 0) return cmd_synth_options;
    if (strcmp(name, "compare") == 0) return cmd_compare_options;
    return NULL;
}
