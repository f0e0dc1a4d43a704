/* opts.h — one option table per command feeds parsing, `--help`,
 * `kreport help CMD` and the README option list, so they cannot drift. */
#ifndef KR_CLI_OPTS_H
#define KR_CLI_OPTS_H

#include <stddef.h>
#include <stdio.h>

typedef enum { OPT_FLAG, OPT_STRING, OPT_INT } cli_opt_kind;

typedef struct cli_opt {
    const char *long_name;      /* "format" for --format */
    char short_name;            /* 'o' for -o, 0 when none */
    cli_opt_kind kind;
    const char *arg_name;       /* "DIR" shown in help, NULL for flags */
    const char *help;
    void *target;               /* int * for FLAG/INT, const char ** for STRING */
} cli_opt;

typedef struct cli_command {
    const char *name;
    const char *args;           /* "PATH [PATH...]" */
    const char *summary;        /* one line */
    const char *description;    /* paragraph(s) for --help */
    int (*run)(int argc, char **argv);
} cli_command;

/* Parses argv[1..] (argv[0] is the command name) against opts, moving
 * positional arguments to pos[0..*npos). Handles --help / -h (prints help,
 * returns -1 with *exit_code 0). On a usage error prints a short message and
 * returns -1 with *exit_code 2. Returns 0 on success. */
int cli_parse(const cli_command *cmd, const cli_opt *opts, int argc, char **argv,
              char **pos, int *npos, int max_pos, int *exit_code);
void cli_print_help(const cli_command *cmd, const cli_opt *opts, FILE *out);
/* Common options every command shares live in each table; this is the
 * usage-error printer (stderr, short). */
void cli_usage_error(const cli_command *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Every value of a repeatable option --name (cli_parse keeps only the
 * last), in order, up to cap; the values of opts' other options are
 * skipped. */
size_t cli_collect_repeated(const cli_opt *opts, int argc, char **argv, const char *name, const char **out, size_t cap);

/* s as one shell word (single-quoted unless it is plain), for re-run lines. */
struct kr_buf;
void cli_shell_quote(struct kr_buf *b, const char *s);

/* Today (UTC, or SOURCE_DATE_EPOCH when set) as YYYY-MM-DD in buf (16
 * bytes), for performance.md rows; NULL when the clock fails. */
const char *cli_today(char *buf, size_t cap);

extern const cli_command cli_commands[];
extern const size_t cli_ncommands;
const cli_command *cli_find(const char *name);
/* The option table of a command, for `help CMD` (NULL-terminated by long_name). */
const cli_opt *cli_options_of(const char *name);

extern const char *cli_progname;

#endif
