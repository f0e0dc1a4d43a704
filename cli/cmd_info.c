/* cmd_info.c — placeholder until the command lands; exits 5 (internal). */
#include <stdio.h>

#include "cli/commands.h"

const cli_opt cmd_info_options[] = {{0}};

int cmd_info(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "kreport info: not implemented yet\n");
    return 5;
}
