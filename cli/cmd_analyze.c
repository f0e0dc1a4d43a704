/* cmd_analyze.c — placeholder until the command lands; exits 5 (internal). */
#include <stdio.h>

#include "cli/commands.h"

const cli_opt cmd_analyze_options[] = {{0}};

int cmd_analyze(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "kreport analyze: not implemented yet\n");
    return 5;
}
