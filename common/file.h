/* file.h — reading whole files with limits, and small path helpers.
 *
 * kr_file_read reads a regular file into a malloc'd buffer (NUL-terminated,
 * the NUL not counted). It refuses directories and files above `limit` with an
 * error naming the file. The caller frees *data. */
#ifndef KR_COMMON_FILE_H
#define KR_COMMON_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

int kr_file_read(const char *path, uint64_t limit, char **data, size_t *len, kr_err *err);
/* The same checks and bytes as kr_file_read, into a caller-kept buffer
 * *buf of *cap bytes (NULL/0 at first) that grows (to the file and its
 * NUL, or by half, whichever is more) when the file does not fit and is
 * reused otherwise, so a loop over many files touches its memory once. The caller frees *buf after the last file; on error *buf
 * stays valid (or NULL). */
int kr_file_read_reuse(const char *path, uint64_t limit, char **buf, size_t *cap, size_t *len, kr_err *err);
int kr_file_exists(const char *path);         /* any kind */
int kr_is_dir(const char *path);
int kr_is_regular(const char *path);
/* "dir/name" into buf; returns buf. */
char *kr_path_join(char *buf, size_t cap, const char *dir, const char *name);
/* Pointer to the last path component of path (no allocation). */
const char *kr_path_base(const char *path);

#endif
