/* commands.c — the one table of commands. */
#include "cli/commands.h"

#include <string.h>

const cli_command cli_commands[] = {
    {"analyze", "PATH", "analyze a capture, an example folder or a run directory: REPORT.md, analysis.json, CSV, report.html",
     "PATH is a ui_output_agent_<H>_dispatch_<D> folder or an example folder\n"
     "(examples/<kernel>/ with att_viewer/<label>/ui_output_* captures).\n"
     "results.json and rocprofv3 CSVs found beside the capture are used.\n"
     "Any other folder is a run directory, searched by content as compare\n"
     "searches it: every kernel of the trace, the target kernel set and its\n"
     "per-call GPU time, registers and occupancy limits, config classes, the\n"
     "gate, and the analysis of the captures of the target kernel (REPORT.md\n"
     "and analysis.json); --row prints the performance.md baseline row.\n"
     "PATH may also be an archive of either (.tar, .tar.gz, .tgz, .tar.xz,\n"
     ".tar.zst, .zip), read in memory, never extracted.",
     cmd_analyze},
    {"compare", "BEST CANDIDATE", "keep/discard verdict of a candidate run against the best: COMPARE.md, compare.json, compare.html",
     "BEST and CANDIDATE are run directories (searched recursively by content:\n"
     "benchmark CSVs, rocprofv3 kernel traces, results.json, captures, run.meta)\n"
     "or single ui_output folders. The verdict (keep, tie, discard, inconclusive,\n"
     "split, fail) follows the rules of 'kreport help compare': gate, then the\n"
     "per-call GPU time of the target kernel, then config classes. With\n"
     "--exit-code the verdict is the exit status.\n"
     "Either side may be an archive (.tar, .tar.gz, .tgz, .tar.xz, .tar.zst, .zip).",
     cmd_compare},
    {"index", "HUB_DIR", "regenerate the hub README's examples table and HUB_DIR/kernels.json, or index analysis.json files",
     "Analyzes the primary capture of every HUB_DIR/examples/<name>/ and writes\n"
     "the table between the lines <!-- kreport:index:begin --> and\n"
     "<!-- kreport:index:end --> of README.md (the rest is kept) and kernels.json\n"
     "(schema kreport.index). A second run changes nothing. Without the markers\n"
     "nothing is written (exit 3). With --analyses, HUB_DIR is any folder: every\n"
     "analysis.json under it (kreport analyze -o, run anywhere) gives one row of\n"
     "HUB_DIR/INDEX.md and kernels.json, with nothing analyzed again\n"
     "('kreport help sweep').",
     cmd_index},
    {"info", "PATH [PATH...]", "summarize capture folders and run directories",
     "Prints kernel, target, SEs, waves, instructions, records, source mapping,\n"
     "time span and clock, and which files are present, missing or extra.\n"
     "PATH is a capture folder, an example folder or an archive of one. Any\n"
     "other folder is a run directory: what it holds (found by content), the\n"
     "target kernel and its warm per-call time, the benchmark CSV and the gate.",
     cmd_info},
    {"unpack", "FILE -C DIR", "extract an archive written by kreport pack into DIR/<name>, verifying MANIFEST.json",
     "Every member must be listed in <name>/MANIFEST.json with its size and\n"
     "SHA-256, and every listed file must be present, before anything is\n"
     "written. Hostile members (absolute or .. paths, links, devices, oversized\n"
     "or over-compressed data) are refused. Written to a temporary folder in DIR\n"
     "and renamed into place.",
     cmd_unpack},
    {"validate", "PATH [PATH...]", "check a capture against every offline invariant of its file formats",
     "Each check is named (V-n, listed in 'kreport help validate'), with severity\n"
     "error/warning/info and a location.\n"
     "Exit status 1 when any error is found, 3 when a file cannot be read at all.\n"
     "PATH is a capture folder, an example folder or an archive of one.",
     cmd_validate},
    {"new-example", "RUN_DIR[=LABEL]... (-o EXAMPLE_DIR | --into EXAMPLE_DIR)", "lay rocprofv3 run directories out as a hub example folder, with README.md and REPORT.md",
     "One run directory per label (small=..., big=...; a run without captures,\n"
     "such as the discovery run, gives only its CSVs and results.json). Copies\n"
     "every capture with waves to att_viewer/<label>/ (empty shells are\n"
     "dropped and named), the results.json whose GPU agent has the captures'\n"
     "handle to compute_viewer/<label>_results.json, the rocprofv3 CSVs by\n"
     "content to compute_viewer/<label>_<kind>.csv (discover_*.csv keep their\n"
     "names), and writes README.md and REPORT.md (kreport analyze) for the\n"
     "whole example. --into adds labels to an existing example (a label it\n"
     "holds only with --force). Built in a temporary folder and renamed into\n"
     "place: a failure leaves nothing.",
     cmd_new_example},
    {"pack", "EXAMPLE_DIR -o FILE.tar.zst", "write a reproducible archive of an example folder with MANIFEST.json",
     "Validates the example first (exit 1 on an error finding unless --force).\n"
     "The archive holds <name>/MANIFEST.json (sizes, SHA-256 and a capture\n"
     "summary) and every file, sorted, with fixed mtime/uid/gid/modes, as\n"
     "tar + zstd: packing the same folder twice gives identical bytes.",
     cmd_pack},
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
    if (strcmp(name, "pack") == 0) return cmd_pack_options;
    if (strcmp(name, "unpack") == 0) return cmd_unpack_options;
    if (strcmp(name, "index") == 0) return cmd_index_options;
    if (strcmp(name, "new-example") == 0) return cmd_new_example_options;
    return NULL;
}
