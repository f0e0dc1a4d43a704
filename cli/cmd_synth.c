/* cmd_synth.c — placeholder until the command lands; exits 5 (internal). */
#include <stdio.h>

#include "cli/commands.h"

const cli_opt cmd_synth_options[] = {{0}};

int cmd_synth(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "kreport synth: not implemented yet\n");
    return 5;
}
