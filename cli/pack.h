/* pack.h — reproducible example archives: the member list of an example
 * folder, the tar.zst writer of `kreport pack`, the capture summary of
 * MANIFEST.json, and the directory helpers pack, unpack, new-example and
 * index share.
 *
 * Archive layout (kreport's own, documented in README "Publishing"):
 *   <name>/                 the example's root directory
 *   <name>/MANIFEST.json    first file member
 *   <name>/...              every other member, sorted by path (bytewise)
 * Members are pax-restricted tar (ustar headers; a pax header only when a
 * path does not fit ustar), mtime 0, uid/gid 0, empty uname/gname, mode
 * 0755 for directories and files with an execute bit, 0644 otherwise; no
 * atime, ctime, xattrs or ACLs. The tar stream is compressed with zstd at
 * level CLI_PACK_ZSTD_LEVEL, single-threaded, with the frame checksum, so
 * the same folder always gives the same bytes. Only regular files and
 * directories are packed: a symbolic link or special file is refused.
 * Names starting with '.' are skipped, and so is a MANIFEST.json at the
 * example's root (pack writes a new one). */
#ifndef KR_CLI_PACK_H
#define KR_CLI_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "bundle/model.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/sha256.h"

#define CLI_PACK_ZSTD_LEVEL 19
#define CLI_MANIFEST_NAME "MANIFEST.json"
#define CLI_MANIFEST_FORMAT "kreport.manifest"
#define CLI_MANIFEST_VERSION 1

typedef struct cli_pack_entry {
    char *path;              /* archive path: "<name>" or "<name>/<relative path>" */
    char *src;               /* file or directory on disk */
    uint8_t is_dir;
    unsigned mode;           /* 0755 or 0644 */
    uint64_t size;           /* files */
    char sha256[KR_SHA256_HEX];
} cli_pack_entry;

typedef struct cli_pack_list {
    cli_pack_entry *v;
    size_t n, cap;
} cli_pack_list;

/* Lists root as archive members under `name` (root directory first, then
 * sorted), reading every file once for its size and SHA-256. KR_INPUT for
 * a symbolic link or special file (message names it and says what to do). */
int cli_pack_collect(const char *root, const char *name, cli_pack_list *out, kr_err *err);
/* The same through a source (bundle/source.h; NULL: the filesystem): for an
 * archive, src of each entry is its path inside the archive, files are
 * hashed from the member bytes and modes are 0755/0644 as stored on disk
 * (0644 for every archive member). */
struct bundle_source;
int cli_pack_collect_src(const struct bundle_source *src, const char *root, const char *name, cli_pack_list *out,
                         kr_err *err);
void cli_pack_list_free(cli_pack_list *l);

/* Writes the tar.zst of the members (manifest inserted after the root
 * directory as <name>/MANIFEST.json) into out. Each file is read again and
 * must still have the listed size and hash (KR_INPUT when it changed). */
int cli_pack_write(const cli_pack_list *l, const char *name, const char *manifest, size_t manifest_len,
                   kr_buf *out, kr_err *err);

/* MANIFEST.json of the example at root (archive folder `name`, members l)
 * appended to out: {"format", "format_version", "kreport_version",
 * "example", "captures": [cli_capture_summary_json...], "members":
 * [{"path", "size", "sha256"} for every file member, in archive order,
 * MANIFEST.json itself excluded]}. No timestamps, no absolute paths.
 * Loads every capture (jobs threads). */
int cli_manifest_build(const char *root, const char *name, const cli_pack_list *l, int jobs, kr_buf *out,
                       kr_err *err);

/* One capture's line in MANIFEST.json "captures" and in `kreport index`. */
typedef struct cli_capture_summary {
    const char *label, *folder;
    uint64_t agent, dispatch;
    uint8_t name_matched;
    const char *kernel;      /* first label row's symbol, "" unknown */
    const char *target;      /* "gfx950", "" unknown */
    uint64_t waves, records, instruction_rows, mapped_rows;
    uint8_t shell;           /* no waves */
} cli_capture_summary;

/* Fills s from a loaded capture (strings point into c or are static). */
void cli_capture_summarize(const kr_capture *c, const char *label, cli_capture_summary *s);

/* Appends `"key": value` pairs of s as one JSON object (2-space indent at
 * `indent` spaces) to b. */
void cli_capture_summary_json(kr_buf *b, const cli_capture_summary *s, int indent);

/* JSON string literal of s appended to b. */
void cli_json_str(kr_buf *b, const char *s);

/* Removes path and everything below it without following symbolic links.
 * 0 or KR_OUTPUT. */
int cli_remove_tree(const char *path, kr_err *err);

/* Creates a fresh directory "<parent>/.kreport-<tag>-XXXXXX" (mkdtemp) into
 * out[cap]. 0 or KR_OUTPUT. */
int cli_temp_dir(const char *parent, const char *tag, char *out, size_t cap, kr_err *err);

/* Moves the finished tree `staged` to `final`: refuses an existing final
 * without force (KR_OUTPUT, "exists; use --force"), otherwise renames the
 * old one aside, renames staged into place and removes the old one, so
 * final is never half-written. */
int cli_install_tree(const char *staged, const char *final, int force, kr_err *err);

/* Parent directory of path into out[cap] ("." when path has no '/'). */
void cli_path_parent(const char *path, char *out, size_t cap);

#endif
