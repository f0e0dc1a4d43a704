/* archive.h — an archive (.tar, .tar.gz/.tgz, .tar.xz, .tar.zst, .zip) read
 * whole into memory through libarchive, never extracted to disk.
 *
 * Loading applies every protection at once; hostile input fails with
 * KR_INPUT, the error's file is the archive and its message starts with
 * "member <path>: " when one member is at fault:
 *   - member paths are normalised ("./" and repeated '/' dropped, no
 *     trailing '/'); an absolute path or a ".." component is refused, as is
 *     a path longer than KR_MAX_ARCHIVE_PATH;
 *   - symbolic links are refused, whatever they point to: nothing in a
 *     capture, example or run directory needs one, and refusing them makes
 *     docs/formats.md#snapshot-safety snapshot safety hold by construction;
 *   - a hard link must name a regular file stored earlier in the archive and
 *     becomes a copy of it (its bytes count against the limits); any other
 *     hard link is refused;
 *   - device files, named pipes and sockets are refused;
 *   - the same path twice, or a path that is both a file and a directory
 *     (file "a" and member "a/b"), is refused;
 *   - more than KR_MAX_ARCHIVE_MEMBERS members, more than
 *     KR_MAX_ARCHIVE_BYTES decompressed bytes, a single member above
 *     KR_MAX_FILE_BYTES, or (past KR_ARCHIVE_RATIO_FLOOR bytes) more than
 *     KR_MAX_ARCHIVE_RATIO decompressed bytes per archive byte is refused
 *     while decompressing, before the memory is spent.
 * Directories implied by member paths need no member of their own.
 *
 * Cost: the decompressed bytes of every member, held until
 * bundle_archive_free, each copied once from libarchive's buffer. */
#ifndef KR_BUNDLE_ARCHIVE_H
#define KR_BUNDLE_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

typedef struct bundle_archive_member {
    char *path;          /* relative, '/'-separated, normalised, no trailing '/' */
    unsigned char *data; /* file contents (NULL for directories); data[len] == 0 */
    size_t len;
    unsigned mode;       /* permission bits as stored */
    int is_dir;
} bundle_archive_member;

typedef struct bundle_archive {
    bundle_archive_member *members;   /* sorted by path (bytewise) */
    size_t nmembers;
    char *name;                       /* the archive path as given */
} bundle_archive;

/* The limits a load enforces; bundle_archive_limits_default gives the
 * common/limits.h values. Tests pass small ones. */
typedef struct bundle_archive_limits {
    uint64_t max_members;
    uint64_t max_bytes;          /* all members together */
    uint64_t max_member_bytes;   /* one member */
    uint64_t max_ratio;          /* decompressed bytes per archive byte */
    uint64_t ratio_floor;        /* the ratio is checked above this many bytes */
    uint64_t max_path;           /* bytes of a member path */
} bundle_archive_limits;

void bundle_archive_limits_default(bundle_archive_limits *l);

/* 1 for a regular file named *.tar, *.tar.gz, *.tgz, *.tar.xz, *.tar.zst or
 * *.zip whose first bytes are those of that format; else 0. */
int bundle_archive_is_archive(const char *path);
/* 1 when the name alone ends with one of the suffixes above; *suffix_len
 * (may be NULL) receives the suffix length. */
int bundle_archive_has_suffix(const char *path, size_t *suffix_len);

int bundle_archive_load(const char *path, bundle_archive **out, kr_err *err);
/* The fuzzable core: data is not kept; name is used in errors and copied. */
int bundle_archive_load_mem(const void *data, size_t len, const char *name, bundle_archive **out, kr_err *err);
int bundle_archive_load_mem_limits(const void *data, size_t len, const char *name,
                                   const bundle_archive_limits *limits, bundle_archive **out, kr_err *err);

/* Lexically normalised path (malloc'd, NULL when out of memory): repeated
 * '/' and "." components dropped, ".." removes the component before it
 * (kept at the start of a relative path, dropped after "/"), no trailing
 * '/'; "" becomes ".". Member paths are this form of a path without "..". */
char *bundle_path_lexical(const char *path);

/* The member with exactly this (normalised) path, or NULL. */
const bundle_archive_member *bundle_archive_find(const bundle_archive *a, const char *path);
/* Index of the first member whose path is >= key (bytewise). */
size_t bundle_archive_lower_bound(const bundle_archive *a, const char *key);
void bundle_archive_free(bundle_archive *a);

#endif
