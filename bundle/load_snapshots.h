/* load_snapshots.h — snapshots.json and the source copies it names (docs/formats.md#source-snapshots).
 *
 * The tree maps path elements to sub-trees and, at the last element, to the
 * file name of a copy inside the capture folder. Each leaf becomes a
 * kr_snapshot whose `path` is rebuilt by joining the keys with '/' (the root
 * key "/" gives the leading slash), sorted by (path, leaf). Leaves are
 * untrusted (docs/formats.md#snapshot-safety): a leaf that is not a plain file name, or whose file
 * resolves (symlinks followed) outside the capture folder, is marked
 * safe = 0 with a problem and never opened; a missing file gets loaded = 0
 * and problem "missing". Neither is a load error. Safe copies up to
 * KR_MAX_SNAPSHOT_BYTES are read (bytes added to c->total_bytes) and indexed
 * by line (lines[i] = start of line i + 1). Structural errors in the JSON are
 * input errors. Allocates in c->arena. */
#ifndef KR_BUNDLE_LOAD_SNAPSHOTS_H
#define KR_BUNDLE_LOAD_SNAPSHOTS_H

#include <stddef.h>

#include "bundle/model.h"
#include "common/err.h"

/* Problem texts (kr_snapshot.problem). */
#define BUNDLE_SNAP_NOT_PLAIN  "unsafe: not a plain file name"
#define BUNDLE_SNAP_OUTSIDE    "unsafe: resolves outside the capture folder"
#define BUNDLE_SNAP_MISSING    "missing"
#define BUNDLE_SNAP_NOT_FILE   "not a regular file"
#define BUNDLE_SNAP_TOO_LARGE  "too large: exceeds KR_MAX_SNAPSHOT_BYTES"

/* folder: the capture folder the leaves are relative to. Sets
 * c->snapshots, c->nsnapshots, c->has_snapshots_json, then calls
 * bundle_snapshots_resolve. */
int bundle_parse_snapshots(kr_capture *c, const char *folder, const char *data, size_t len,
                           const char *fname, kr_err *err);

/* Sets every parsed frame's (line > 0) snapshot to the index of the loaded
 * snapshot whose path equals the frame's path exactly (docs/formats.md#resolving-frames), else -1.
 * Unparsed frames (line 0) stay -1. */
void bundle_snapshots_resolve(kr_capture *c);

#endif
