/* commands.h — one cmd_<name> per command file (cli/cmd_<name>.c), each with
 * its option table cmd_<name>_options; the table in commands.c lists them. */
#ifndef KR_CLI_COMMANDS_H
#define KR_CLI_COMMANDS_H

#include "cli/opts.h"

#define KR_DECLARE_CMD(name) \
    int cmd_##name(int argc, char **argv); \
    extern const cli_opt cmd_##name##_options[];

KR_DECLARE_CMD(info)
KR_DECLARE_CMD(validate)
KR_DECLARE_CMD(analyze)
KR_DECLARE_CMD(synth)
KR_DECLARE_CMD(compare)

#endif
