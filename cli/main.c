/* main.c — kreport <command> [options] [args]. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "common/err.h"
#include "common/outfile.h"

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

static int run(int argc, char **argv)
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

/* What a command printed must have reached standard output: a failed write
 * (`kreport info X > /dev/full`) is an output error, exit 4, not success.
 * A command that failed already keeps its own status and message. */
static int check_stdout(int rc)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return rc;
    if (rc != KR_OK && rc != KR_FINDING)
        return rc;
    fprintf(stderr, "kreport: cannot write to standard output%s%s\n", errno ? ": " : "", errno ? strerror(errno) : "");
    return KR_OUTPUT;
}

int main(int argc, char **argv)
{
    kr_outfile_signals();
    return check_stdout(run(argc, argv));
}
