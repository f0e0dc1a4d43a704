/* load_rocpd.h — rocpd SQLite databases, rocprofv3's default output since
 * ROCm 7.0 (`<host>/<pid>_results.db`, docs/formats.md#rocpd-databases).
 *
 * What is read: per run (a table suffix `_<uuid>`, or none), the tables
 * rocpd_metadata (schema_version), rocpd_info_agent, rocpd_info_kernel_symbol,
 * rocpd_kernel_dispatch and, when present, rocpd_track (schema 4: the
 * dispatch's agent), rocpd_timestamp (dispatches that name their start and
 * end by id), rocpd_event (correlation ids), rocpd_info_pmc and
 * rocpd_pmc_event (counters). The suffixed tables are read directly, never
 * the plain-named views: a view covers the first run of a merged file only,
 * and views run SQL written by whoever wrote the file. Every column is found
 * by name (ASCII case ignored), so schema 3.0.0 to 3.0.5 and 4.x read alike;
 * a schema_version whose major number is not 3 or 4 is an error.
 *
 * What it gives (kr_rocpd, bundle/model.h): a kernel trace like a
 * kernel_trace CSV (Agent_Id = the agent's logical_index; kernel name = the
 * symbol's display_name, else kernel_name without ".kd"; LDS = the
 * dispatch's group_segment_size rounded up to 512 bytes, rocprofv3's
 * LDS_Block_Size; registers from the kernel symbol), an agent table like
 * agent_info.csv (Node_Id = absolute_index, Logical_Node_Id =
 * logical_index, the counts from extdata, the JSON of the agent record,
 * keyed as in results.json docs/formats.md#results-json; the gfx target from whichever of name,
 * generic_name, user_name and extdata's name starts with "gfx"; an agent
 * repeated by merged runs kept once), and counter values summed per dispatch
 * and counter like rocpd's counters_collection view (rows with a sample_id
 * are SPM samples and are left out). Rows keep table order, runs follow in
 * suffix order.
 *
 * Safety: the file is opened read-only and immutable (never written,
 * locked or journalled); a database held in memory (an archive member) is
 * deserialized read-only. Defensive mode, no trusted schema, no views, no
 * triggers, no extension loading, tight sqlite3_limit values, a progress
 * handler that stops after KR_MAX_ROCPD_STEPS, a heap limit of
 * KR_MAX_ROCPD_HEAP, at most KR_MAX_ROCPD_ROWS rows per table. Every
 * failure is KR_INPUT naming the file and what is wrong or missing: not an
 * SQLite file, a corrupt one, an SQLite database of another tool (no
 * rocpd_metadata table), a missing table or column, a value of the wrong
 * type (with table and row id), a dispatch naming no agent or symbol. */
#ifndef KR_BUNDLE_LOAD_ROCPD_H
#define KR_BUNDLE_LOAD_ROCPD_H

#include <stddef.h>

#include "bundle/model.h"
#include "common/arena.h"
#include "common/err.h"

struct bundle_source;

/* 1 when data starts with the SQLite header ("SQLite format 3\0"). */
int bundle_rocpd_sniff(const char *data, size_t len);

/* Parse-from-memory core: data[0..len) is a whole database file (not
 * copied; it must outlive the call only). fname names it in errors. */
int bundle_parse_rocpd(kr_arena *a, const char *data, size_t len, const char *fname, kr_rocpd **out, kr_err *err);
/* File wrapper: opened in place, read-only and immutable. */
int bundle_load_rocpd(kr_arena *a, const char *path, kr_rocpd **out, kr_err *err);
/* From a source (bundle/source.h; NULL: the filesystem): an archive member
 * is read into memory (KR_MAX_FILE_BYTES) and parsed there. */
int bundle_load_rocpd_src(kr_arena *a, const struct bundle_source *src, const char *path, kr_rocpd **out,
                          kr_err *err);

/* Which GPU agent of db describes a capture with agent handle `handle`
 * (has_handle 0: the capture's folder name gave none), as docs/formats.md#rocpd-databases
 * asks: the agent whose extdata handle equals it; else the only GPU agent;
 * else none (ambiguous). Returns the agent or NULL and writes the reason
 * into note (for info and validate). */
const kr_agent *bundle_rocpd_agent(const kr_rocpd *db, int has_handle, uint64_t handle, char *note, size_t cap);

#endif
