/* main.c — kreport <command> [options] [args]. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/help.h"
#include "common/err.h"
#include "common/outfile.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: kreport <command> [options] [args]\n\n"
                 "kreport turns decoded AMD GPU thread traces (rocprofv3 ATT) into answers.\n\ncommands:\n");
    for (size_t i = 0; i < cli_ncommands; i++)
        fprintf(out, "  %-10s %s\n", cli_commands[i].name, cli_commands[i].summary);
    fprintf(out, "\n'kreport help CMD' or 'kreport CMD --help' shows a command's options.\n"
                 "'kreport help TOPIC' shows how kreport reads its inputs and computes its figures:\n");
    cli_doc_list(out);
    fprintf(out, "\nexit status: 0 ok, 1 finding, 2 usage, 3 input missing or malformed,\n"
                 "4 output not writable, 5 internal error.\n");
}

/* `kreport help NAME`: a command's options, a topic's text, or both when
 * NAME is both (compare, validate). */
static int help(const char *name)
{
    const cli_command *c = cli_find(name);
    size_t len;
    const char *doc = cli_doc(name, &len);
    if (!c && !doc) {
        fprintf(stderr, "kreport: no command or help topic '%s'; topics:\n", name);
        cli_doc_list(stderr);
        return KR_USAGE;
    }
    if (c)
        cli_print_help(c, cli_options_of(c->name), stdout);
    if (c && doc)
        fputc('\n', stdout);
    if (doc)
        fwrite(doc, 1, len, stdout);
    return KR_OK;
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
        return help(argv[2]);
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
