/* archive_api.h — libarchive's functions, loaded on first use (common/dl.h).
 *
 * Code that reads or writes archives calls bundle_archive_api(err) at its
 * entry and then the library through bundle_archive_table
 * (.archive_read_new() ...); the types are the library's own headers'. */
#ifndef KR_BUNDLE_ARCHIVE_API_H
#define KR_BUNDLE_ARCHIVE_API_H

#include <archive.h>
#include <archive_entry.h>

#include "common/err.h"

#define BUNDLE_ARCHIVE_FUNCTIONS(X) \
    X(archive_entry_filetype) X(archive_entry_free) X(archive_entry_hardlink) X(archive_entry_new) \
    X(archive_entry_pathname) X(archive_entry_pathname_utf8) X(archive_entry_perm) X(archive_entry_set_filetype) \
    X(archive_entry_set_gid) X(archive_entry_set_mtime) X(archive_entry_set_pathname) \
    X(archive_entry_set_perm) X(archive_entry_set_size) X(archive_entry_set_uid) \
    X(archive_entry_size) X(archive_entry_size_is_set) X(archive_error_string) X(archive_read_data) \
    X(archive_read_free) X(archive_read_new) X(archive_read_next_header) X(archive_read_open_memory) \
    X(archive_read_support_filter_gzip) X(archive_read_support_filter_xz) \
    X(archive_read_support_filter_zstd) X(archive_read_support_format_tar) \
    X(archive_read_support_format_zip) X(archive_write_close) X(archive_write_data) \
    X(archive_write_free) X(archive_write_header) X(archive_write_new) X(archive_write_open) \
    X(archive_write_set_format_pax_restricted)

typedef struct bundle_archive_fns {
#define BUNDLE_ARCHIVE_FIELD(f) __typeof__(f) *f;
    BUNDLE_ARCHIVE_FUNCTIONS(BUNDLE_ARCHIVE_FIELD)
#undef BUNDLE_ARCHIVE_FIELD
} bundle_archive_fns;

/* Loads the library once (thread-safe): 0, after which bundle_archive_table
 * is filled, or KR_INTERNAL with err filled when it cannot be loaded. */
int bundle_archive_api(kr_err *err);
extern bundle_archive_fns bundle_archive_table;

#endif
