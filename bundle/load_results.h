/* load_results.h — rocprofv3 results.json (docs/formats.md#results-json).
 *
 * Recognition (docs/formats.md#results-json): an object with a "rocprofiler-sdk-tool" array, one
 * element per process (all are read). An object with "traceEvents" is the
 * rocprof v1/v2 Chrome-trace format and is rejected naming that format;
 * anything else is rejected as "not a rocprofv3 results.json".
 *
 * Integers are read as 64-bit integers, never through double. Unsigned
 * fields may exceed 2^63 (agents[].hive_id is a random 64-bit id): such
 * literals, which jansson refuses, are accepted for unsigned fields; an
 * integer above 2^64 - 1, or one above 2^63 - 1 in a signed field, is an
 * error naming its JSON path or line:col.
 *
 * Missing optional sections are fine; a present section or field of the wrong
 * type is an error naming the JSON path ("$.rocprofiler-sdk-tool[0].agents[2].cu_count").
 * Agent fields absent from the file read as -1, as do the count fields of a
 * kernel symbol; metadata.pid absent reads as -1. Dispatches from
 * buffer_records.kernel_dispatch carry agent = agent handle, lds_bytes =
 * dispatch group_segment_size (bytes, not rounded), and the kernel name and
 * register counts of the kernel symbol with their kernel_id (-1 / "" when no
 * symbol has it). Counter values from callback_records.counter_collection
 * take their name from the `counters` definitions by id, else "counter_<id>".
 * strings.code_object_snapshot_filenames is accepted as an array of strings or
 * of {key, value} objects and otherwise ignored.
 *
 * Everything is allocated in the caller's arena; the JSON tree is freed. */
#ifndef KR_BUNDLE_LOAD_RESULTS_H
#define KR_BUNDLE_LOAD_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "bundle/model.h"
#include "common/arena.h"
#include "common/err.h"

int bundle_parse_results(kr_arena *a, const char *data, size_t len, const char *fname,
                         kr_results **out, kr_err *err);
/* Reads the file (up to KR_MAX_SMALL_FILE_BYTES) and parses it. */
int bundle_load_results(kr_arena *a, const char *path, kr_results **out, kr_err *err);

/* Like bundle_parse_results, but the model is built in a only when some
 * process has a GPU agent (type 2) with id.handle == gpu_handle (docs/formats.md#joining-a-capture step 1);
 * otherwise returns 0 with *out = NULL and a untouched. The whole file is
 * validated either way. */
int bundle_parse_results_for_agent(kr_arena *a, const char *data, size_t len, const char *fname,
                                   uint64_t gpu_handle, kr_results **out, kr_err *err);

/* Cheap content test without parsing: 1 if the text contains the key
 * "rocprofiler-sdk-tool", 2 if it contains "traceEvents" (and not the
 * former), 0 otherwise. A positive answer still needs a full parse. */
int bundle_results_sniff(const char *data, size_t len);

/* First agent (in process order, then file order) with id.handle == handle. */
const kr_agent *bundle_results_find_agent(const kr_results *r, uint64_t handle);

/* Code object with code_object_id == id whose agent is agent_handle
 * (agent_handle 0 matches any agent), or NULL. */
const kr_code_object *bundle_results_find_code_object(const kr_results *r, uint64_t agent_handle, int64_t id);

/* Kernel symbol of a code.json label row (docs/formats.md#joining-a-capture step 2): code_object_id ==
 * codeobj and kernel_object - code_objects[codeobj].load_delta +
 * kernel_code_entry_byte_offset == vaddr, the code object belonging to
 * agent_handle (0 matches any agent). Looked up by id, never by position.
 * First match in process order, then file order; NULL when none. */
const kr_kernel_symbol *bundle_results_find_symbol(const kr_results *r, uint64_t agent_handle,
                                                   int64_t codeobj, uint64_t vaddr);

#endif
