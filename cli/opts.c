/* opts.c — option parsing and help from the option tables (opts.h). */
#include "cli/opts.h"
#include "common/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *cli_progname = "kreport";

void cli_usage_error(const cli_command *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s %s: ", cli_progname, cmd->name);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nusage: %s %s [options] %s\nTry '%s %s --help'.\n",
            cli_progname, cmd->name, cmd->args, cli_progname, cmd->name);
    va_end(ap);
}

void cli_print_help(const cli_command *cmd, const cli_opt *opts, FILE *out)
{
    fprintf(out, "usage: %s %s [options] %s\n\n%s\n", cli_progname, cmd->name, cmd->args, cmd->summary);
    if (cmd->description && *cmd->description)
        fprintf(out, "\n%s\n", cmd->description);
    fprintf(out, "\noptions:\n");
    for (const cli_opt *o = opts; o && o->long_name; o++) {
        char left[96];
        if (o->short_name)
            snprintf(left, sizeof left, "-%c, --%s%s%s", o->short_name, o->long_name,
                     o->arg_name ? " " : "", o->arg_name ? o->arg_name : "");
        else
            snprintf(left, sizeof left, "    --%s%s%s", o->long_name,
                     o->arg_name ? " " : "", o->arg_name ? o->arg_name : "");
        fprintf(out, "  %-28s %s\n", left, o->help);
    }
    fprintf(out, "  %-28s %s\n", "-h, --help", "show this help");
}

static const cli_opt *find_long(const cli_opt *opts, const char *name, size_t n)
{
    for (const cli_opt *o = opts; o && o->long_name; o++)
        if (strlen(o->long_name) == n && strncmp(o->long_name, name, n) == 0)
            return o;
    return NULL;
}

static const cli_opt *find_short(const cli_opt *opts, char c)
{
    for (const cli_opt *o = opts; o && o->long_name; o++)
        if (o->short_name == c)
            return o;
    return NULL;
}

static int assign(const cli_command *cmd, const cli_opt *o, const char *value, int *exit_code)
{
    if (o->kind == OPT_FLAG) {
        *(int *)o->target = 1;
        return 0;
    }
    if (o->kind == OPT_STRING) {
        *(const char **)o->target = value;
        return 0;
    }
    char *end;
    long v = strtol(value, &end, 10);
    if (*value == '\0' || *end != '\0' || v < 0 || v > 1000000) {
        cli_usage_error(cmd, "--%s expects a whole number, got '%s'", o->long_name, value);
        *exit_code = 2;
        return -1;
    }
    *(int *)o->target = (int)v;
    return 0;
}

int cli_parse(const cli_command *cmd, const cli_opt *opts, int argc, char **argv,
              char **pos, int *npos, int max_pos, int *exit_code)
{
    *npos = 0;
    int only_pos = 0;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (!only_pos && strcmp(a, "--") == 0) {
            only_pos = 1;
            continue;
        }
        if (!only_pos && (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)) {
            cli_print_help(cmd, opts, stdout);
            *exit_code = 0;
            return -1;
        }
        if (!only_pos && a[0] == '-' && a[1] == '-') {
            const char *name = a + 2;
            const char *eq = strchr(name, '=');
            size_t n = eq ? (size_t)(eq - name) : strlen(name);
            const cli_opt *o = find_long(opts, name, n);
            if (!o) {
                cli_usage_error(cmd, "unknown option '--%.*s'", (int)n, name);
                *exit_code = 2;
                return -1;
            }
            const char *value = NULL;
            if (o->kind != OPT_FLAG) {
                if (eq)
                    value = eq + 1;
                else if (i + 1 < argc)
                    value = argv[++i];
                else {
                    cli_usage_error(cmd, "option '--%s' needs %s", o->long_name, o->arg_name);
                    *exit_code = 2;
                    return -1;
                }
            } else if (eq) {
                cli_usage_error(cmd, "option '--%s' takes no value", o->long_name);
                *exit_code = 2;
                return -1;
            }
            if (assign(cmd, o, value, exit_code))
                return -1;
            continue;
        }
        if (!only_pos && a[0] == '-' && a[1] != '\0') {
            const cli_opt *o = find_short(opts, a[1]);
            if (!o) {
                cli_usage_error(cmd, "unknown option '-%c'", a[1]);
                *exit_code = 2;
                return -1;
            }
            const char *value = NULL;
            if (o->kind != OPT_FLAG) {
                if (a[2])
                    value = a + 2;
                else if (i + 1 < argc)
                    value = argv[++i];
                else {
                    cli_usage_error(cmd, "option '-%c' needs %s", a[1], o->arg_name);
                    *exit_code = 2;
                    return -1;
                }
            } else if (a[2]) {
                cli_usage_error(cmd, "unknown option '%s'", a);
                *exit_code = 2;
                return -1;
            }
            if (assign(cmd, o, value, exit_code))
                return -1;
            continue;
        }
        if (*npos >= max_pos) {
            cli_usage_error(cmd, "too many arguments ('%s')", a);
            *exit_code = 2;
            return -1;
        }
        pos[(*npos)++] = a;
    }
    return 0;
}

size_t cli_collect_repeated(const cli_opt *opts, int argc, char **argv, const char *name, const char **out, size_t cap)
{
    size_t n = 0, len = strlen(name);
    for (int i = 1; i < argc && n < cap; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--"))
            break;
        if (a[0] != '-')
            continue;
        if (a[1] == '-' && !strncmp(a + 2, name, len) && a[2 + len] == '=') {
            out[n++] = a + 3 + len;
            continue;
        }
        if (a[1] == '-' && !strcmp(a + 2, name)) {
            if (i + 1 < argc)
                out[n++] = argv[++i];
            continue;
        }
        /* Skip the value of any other option that takes one. */
        for (const cli_opt *p = opts; p->long_name; p++) {
            int match = (a[1] == '-' && !strcmp(a + 2, p->long_name)) || (a[1] != '-' && a[1] == p->short_name && p->short_name && !a[2]);
            if (match) {
                if (p->kind != OPT_FLAG)
                    i++;
                break;
            }
        }
    }
    return n;
}

void cli_shell_quote(kr_buf *b, const char *s)
{
    int plain = *s != '\0';
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("_-./=,:+%@", *p)))
            plain = 0;
    if (plain) {
        kr_buf_puts(b, s);
        return;
    }
    kr_buf_putc(b, '\'');
    for (; *s; s++) {
        if (*s == '\'')
            kr_buf_puts(b, "'\\''");
        else
            kr_buf_putc(b, *s);
    }
    kr_buf_putc(b, '\'');
}

const char *cli_today(char *buf, size_t cap)
{
    time_t now = time(NULL);
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    if (sde && *sde)
        now = (time_t)strtoll(sde, NULL, 10);
    struct tm tmv;
    buf[0] = '\0';
    if (gmtime_r(&now, &tmv))
        strftime(buf, cap, "%Y-%m-%d", &tmv);
    return buf[0] ? buf : NULL;
}
