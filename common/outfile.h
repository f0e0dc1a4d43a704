/* outfile.h — atomic output files.
 *
 * Output is written to a temporary file in the target directory and renamed
 * into place by kr_outset_commit, all files of a run together, so a failed run
 * leaves nothing behind. Without `force`, an existing target is refused. */
#ifndef KR_COMMON_OUTFILE_H
#define KR_COMMON_OUTFILE_H

#include <stddef.h>

#include "common/err.h"

typedef struct kr_outset kr_outset;

kr_outset *kr_outset_new(const char *dir, int force);
/* Writes data to a temp file for `name` inside dir (every write checked). */
int kr_outset_add(kr_outset *set, const char *name, const void *data, size_t len, kr_err *err);
/* Renames every temp file into place; on failure removes what it can. */
int kr_outset_commit(kr_outset *set, kr_err *err);
/* Removes temp files not yet committed and frees the set. */
void kr_outset_free(kr_outset *set);
/* Installs handlers for SIGINT, SIGTERM, SIGHUP and SIGQUIT that remove
 * the temp files of every open set before the signal ends the process, so
 * an interrupted run leaves no partial file. For programs (cli/), never
 * called by library code. */
void kr_outfile_signals(void);
/* Creates dir (one level, or with parents) if missing. */
int kr_mkdir_p(const char *dir, kr_err *err);

#endif
