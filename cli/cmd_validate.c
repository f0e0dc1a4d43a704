/* cmd_validate.c — placeholder until the command lands; exits 5 (internal). */
#include <stdio.h>

#include "cli/commands.h"

const cli_opt cmd_validate_options[] = {{0}};

int cmd_validate(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "kreport validate: not implemented yet\n");
    return 5;
}
