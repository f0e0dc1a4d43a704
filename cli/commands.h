/* commands.h — one cmd_<name> per command file (cli/cmd_<name>.c), each with
 * its option table cmd_<name>_options; the table in commands.c lists them. */
#ifndef KR_CLI_COMMANDS_H
#define KR_CLI_COMMANDS_H

#include <stdint.h>

#include "cli/opts.h"
#include "common/buf.h"
#include "common/err.h"

#define KR_DECLARE_CMD(name) \
    int cmd_##name(int argc, char **argv); \
    extern const cli_opt cmd_##name##_options[];

KR_DECLARE_CMD(info)
KR_DECLARE_CMD(validate)
KR_DECLARE_CMD(analyze)
KR_DECLARE_CMD(synth)
KR_DECLARE_CMD(compare)
KR_DECLARE_CMD(pack)
KR_DECLARE_CMD(new_example)
KR_DECLARE_CMD(index)
KR_DECLARE_CMD(unpack)

/* cmd_validate.c, for pack: validates an example folder (its own checks and
 * every capture) without printing; error findings are appended to lines as
 * text, their number to *errors. 0 or the load/internal error. */
int cmd_validate_example_errors(const char *root, int jobs, kr_buf *lines, uint64_t *errors, kr_err *err);

#endif
