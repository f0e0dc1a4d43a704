/* source.h — where the bundle layer's bytes come from: the filesystem or an
 * archive held in memory (bundle/archive.h), behind one interface (the
 * kr_source of docs/architecture.md).
 *
 * Every function takes a `const bundle_source *`; NULL means the
 * filesystem, so code that never sees an archive passes NULL. An archive
 * source answers for paths below its archive's path as given: with
 * "runs/a.tar.zst" opened, "runs/a.tar.zst/x/code.json" is member
 * "x/code.json" and "runs/a.tar.zst" itself is the archive's root folder.
 * Paths are compared after lexical normalisation ("." and ".." resolved by
 * name); a path outside the archive does not exist for it, so nothing is
 * ever read beside an archive. Errors about a member therefore name the
 * archive and the member ("a.tar.zst/x/code.json:3:7: ...").
 *
 * Which folder of an archive is the input (bundle_input_open): the root
 * when it holds anything but a single directory, else that directory. So a
 * capture, example or run directory may be archived with its own folder at
 * the top (`tar -C parent -cf x.tar folder`) or with its contents at the
 * root (`tar -C folder -cf x.tar .`). A capture folder at the root takes
 * its name (agent handle, dispatch id, docs/formats.md#capture-folder) from the archive's
 * file name without the archive suffix. */
#ifndef KR_BUNDLE_SOURCE_H
#define KR_BUNDLE_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "bundle/archive.h"
#include "common/err.h"

typedef struct bundle_source bundle_source;

typedef enum bundle_source_kind {
    BUNDLE_SRC_NONE = 0,         /* absent (or a dangling link) */
    BUNDLE_SRC_FILE,             /* regular file */
    BUNDLE_SRC_DIR,
    BUNDLE_SRC_OTHER             /* named pipe, device, socket */
} bundle_source_kind;

typedef struct bundle_source_info {
    bundle_source_kind kind;
    uint64_t size;               /* bytes of a file */
    uint64_t dev, ino;           /* identity, for walks that must not loop */
} bundle_source_info;

/* follow = 1: symbolic links followed (stat); 0: the entry itself (lstat;
 * a link reads as BUNDLE_SRC_OTHER). Returns 0, or -1 when absent. */
int bundle_source_stat(const bundle_source *s, const char *path, int follow, bundle_source_info *st);
/* Kind with links followed; BUNDLE_SRC_NONE when absent. */
bundle_source_kind bundle_source_kind_of(const bundle_source *s, const char *path);

/* A file's bytes: borrowed from the archive or owned (malloc'd) when read
 * from disk. data[len] == '\0' either way. */
typedef struct bundle_blob {
    const char *data;
    size_t len;
    char *owned;
} bundle_blob;

/* Whole file, refused above limit (error naming the limit like
 * kr_file_read) or when not a regular file. */
int bundle_source_read(const bundle_source *s, const char *path, uint64_t limit, bundle_blob *b, kr_err *err);
void bundle_blob_free(bundle_blob *b);
/* Up to cap bytes from the start of a regular file; count, or -1. */
long bundle_source_read_prefix(const bundle_source *s, const char *path, char *buf, size_t cap);

typedef struct bundle_source_entry {
    char *name;
    bundle_source_kind kind;     /* links followed */
} bundle_source_entry;

/* Entries of dir except "." and "..", sorted bytewise by name. Returns 0,
 * or -1 when dir cannot be listed. Free with bundle_source_list_free. */
int bundle_source_list(const bundle_source *s, const char *dir, bundle_source_entry **out, size_t *n);
void bundle_source_list_free(bundle_source_entry *v, size_t n);

/* realpath(3): the path with links resolved (malloc'd), NULL when absent.
 * For an archive (which holds no links): the normalised path. */
char *bundle_source_realpath(const bundle_source *s, const char *path);
/* Absolute, lexically normalised path (malloc'd): relative paths are taken
 * from the working directory on disk; inside an archive only normalised. */
char *bundle_source_abspath(const bundle_source *s, const char *path);
/* The name a folder goes by (malloc'd): its last component, or for an
 * archive's root the archive's file name without its suffix. */
char *bundle_source_folder_name(const bundle_source *s, const char *dir);
/* The archive behind s, or NULL for the filesystem. */
const bundle_archive *bundle_source_archive(const bundle_source *s);

/* Takes ownership of a (freed by bundle_source_free, also on failure). */
int bundle_source_from_archive(bundle_archive *a, bundle_source **out, kr_err *err);
void bundle_source_free(bundle_source *s);

/* What a command was given: a folder on disk (src NULL, root = path) or an
 * archive (loaded whole, root = the folder inside it, see above). */
typedef struct bundle_input {
    bundle_source *src;
    char *root;
} bundle_input;

/* A path ending in an archive suffix (bundle_archive_has_suffix) that is a
 * regular file is loaded as an archive; anything else is taken as a
 * folder on disk, checked later by whoever reads it. */
int bundle_input_open(const char *path, bundle_input *in, kr_err *err);
void bundle_input_close(bundle_input *in);

#endif
