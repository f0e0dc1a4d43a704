/* main.c — kreport <command> [options] [args]. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "common/err.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: kreport <command> [options] [args]\n\n"
                 "kreport turns decoded AMD GPU thread traces (rocprofv3 ATT) into answers.\n\ncommands:\n");
    for (size_t i = 0; i < cli_ncommands; i++)
        fprintf(out, "  %-10s %s\n", cli_commands[i].name, cli_commands[i].summary);
    fprintf(out, "\n'kreport help CMD' or 'kreport CMD --help' shows a command's options.\n"
                 "exit status: 0 ok, 1 finding, 2 usage, 3 input missing or malformed,\n"
                 "4 output not writable, 5 internal error.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return KR_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        usage(stdout);
        return KR_OK;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        printf("kreport %s\n", KREPORT_VERSION);
        return KR_OK;
    }
    if (strcmp(name, "help") == 0) {
        if (argc < 3) {
            usage(stdout);
            return KR_OK;
        }
        const cli_command *c = cli_find(argv[2]);
        if (!c) {
            fprintf(stderr, "kreport: unknown command '%s'\n", argv[2]);
            return KR_USAGE;
        }
        cli_print_help(c, cli_options_of(c->name), stdout);
        return KR_OK;
    }
    const cli_command *c = cli_find(name);
    if (!c) {
        fprintf(stderr, "kreport: unknown command '%s'\n\n", name);
        usage(stderr);
        return KR_USAGE;
    }
    return c->run(argc - 1, argv + 1);
}
