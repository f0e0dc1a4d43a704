/* model.h — the plain-data model of one capture and what lies beside it.
 *
 * Loaders (bundle/) fill it; analyzers read it; nothing here points into a
 * file buffer after loading. Everything hangs off one arena per capture and is
 * released by bundle_capture_free. Section references are to docs/formats.md.
 *
 * This is the only bundle/ header analyzer/ and report/ may include. */
#ifndef KR_BUNDLE_MODEL_H
#define KR_BUNDLE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"

/* ---- instruction classes (docs/instruction-classes.md), computed once per code row at load ---- */
typedef enum kr_class {
    KR_CLASS_LABEL = 0,
    KR_CLASS_WAITCNT,
    KR_CLASS_BARRIER,
    KR_CLASS_NOP,
    KR_CLASS_MESSAGE,
    KR_CLASS_BRANCH,
    KR_CLASS_SMEM,
    KR_CLASS_IMMED_OTHER,
    KR_CLASS_SALU,
    KR_CLASS_MATRIX,
    KR_CLASS_LDS,
    KR_CLASS_VMEM,
    KR_CLASS_FLAT,
    KR_CLASS_VALU,
    KR_CLASS_OTHER,
    KR_CLASS_COUNT
} kr_class;

/* Trace instruction categories (docs/formats.md#instruction-records). */
typedef enum kr_cat {
    KR_CAT_NONE = 0, KR_CAT_SMEM = 1, KR_CAT_SALU = 2, KR_CAT_VMEM = 3,
    KR_CAT_FLAT = 4, KR_CAT_LDS = 5, KR_CAT_VALU = 6, KR_CAT_JUMP = 7,
    KR_CAT_NEXT = 8, KR_CAT_IMMED = 9, KR_CAT_CONTEXT = 10,
    KR_CAT_MESSAGE = 11, KR_CAT_BVH = 12, KR_CAT_COUNT = 13
} kr_cat;

/* Wave states (docs/formats.md#timeline). The hub's hand reports label these off by one. */
typedef enum kr_state {
    KR_STATE_EMPTY = 0, KR_STATE_IDLE = 1, KR_STATE_EXEC = 2,
    KR_STATE_WAIT = 3, KR_STATE_STALL = 4, KR_STATE_COUNT = 5
} kr_state;

/* ---- code.json (docs/formats.md#code-table) ---- */

/* One frame of a Source chain (docs/formats.md#source-chains). line == 0: unparsed frame (no
 * ":digits"), path then holds the whole frame text. */
typedef struct kr_frame {
    const char *path;
    uint32_t line;
    int32_t snapshot;        /* index into kr_capture.snapshots, -1 unresolved */
} kr_frame;

typedef struct kr_code_row {
    const char *isa;         /* disassembly text as written */
    const char *mnemonic;    /* lower-cased text up to the first space */
    const char *source;      /* Source column as written ("" when none) */
    uint32_t line;           /* LineNumber: the id records refer to */
    uint32_t kernel;         /* index of the label row this row follows, or UINT32_MAX */
    int64_t codeobj;
    uint64_t vaddr;
    uint64_t hit, latency, stall, idle;   /* columns 6-9; column 9 is Idle */
    /* PC-sampling columns (14- and 13-column layouts), 0 when absent. */
    uint64_t pc_issued, pc_stalled;
    int64_t service_type;
    kr_class cls;
    uint8_t is_label;
    kr_frame *frames;        /* parsed Source chain, innermost first */
    uint32_t nframes;
    int64_t zero_col;        /* column "_" as written (always 0, docs/formats.md#code-columns; validate V-4) */
} kr_code_row;

typedef enum kr_code_layout {
    KR_LAYOUT_NONE = 0,      /* no code.json or "code": null */
    KR_LAYOUT_10 = 10,       /* ATT (all fixtures) */
    KR_LAYOUT_13 = 13,       /* PC sampling only (array header) */
    KR_LAYOUT_14 = 14        /* ATT + PC sampling */
} kr_code_layout;

/* ---- wave files (docs/formats.md#wave-files) ---- */

/* One instruction record [time, category, stall, duration, line] (docs/formats.md#instruction-records). */
typedef struct kr_inst {
    uint64_t time;
    uint32_t line;           /* LineNumber as written; 0 = unknown PC */
    uint32_t row;            /* index into kr_capture.rows, KR_ROW_NONE if none */
    uint32_t dur;
    uint32_t stall;
    uint8_t cat;
} kr_inst;
#define KR_ROW_NONE UINT32_MAX

typedef struct kr_tl {
    uint64_t cycles;
    uint8_t state;
} kr_tl;

/* One waitcnt entry (docs/formats.md#waitcnt-arrays): the s_waitcnt row and producers[first .. first+n). */
typedef struct kr_wait_entry {
    uint32_t wait_line;
    uint32_t first;
    uint32_t n;
} kr_wait_entry;

typedef struct kr_wave {
    const char *file;        /* file name inside the capture folder */
    const char *name;        /* "SE<n>" as written */
    uint32_t se, simd, slot, id;
    int64_t cu;
    uint64_t begin, end;     /* this SE's clock */
    uint64_t duration;       /* as written */
    uint64_t num_insts, num_stitched;
    kr_inst *insts;          /* NULL with ninsts == 0 when null/absent */
    size_t ninsts;
    kr_tl *timeline;
    size_t ntimeline;
    kr_wait_entry *waits;
    size_t nwaits;
    uint32_t *producers;     /* producer LineNumbers of all entries */
    size_t nproducers;
    uint8_t has_waitcnt;     /* the file had a non-null waitcnt array */
    uint64_t bytes;          /* size of the wave file */
    size_t waitcnt_nonzero_lanes;  /* producer pairs whose second element is not 0 (docs/formats.md#waitcnt-arrays; validate V-12) */
} kr_wave;

/* wave_filenames entry (docs/formats.md#wave-index). */
typedef struct kr_wave_ref {
    uint32_t se, simd, slot, id;
    const char *file;
    uint64_t begin, end;
} kr_wave_ref;

/* ---- wstates (docs/formats.md#wave-state-curves) ---- */
typedef struct kr_wstates {
    uint8_t present;
    const char *name;
    uint64_t *time;
    int64_t *count;
    size_t n;
} kr_wstates;

/* ---- occupancy (docs/formats.md#occupancy-events) ---- */
typedef struct kr_occ_row {
    uint64_t time;
    uint32_t cu;
    uint8_t simd, slot, start;
    uint32_t kernel_id;
} kr_occ_row;

typedef struct kr_occ_se {
    uint32_t se;
    kr_occ_row *rows;
    size_t nrows;
} kr_occ_se;

typedef struct kr_occ_dispatch {
    uint32_t id;
    const char *name;
} kr_occ_dispatch;

typedef struct kr_occupancy {
    uint8_t present;
    const char *version;
    uint8_t row_width;       /* 6 or 11 (0 when no rows) */
    kr_occ_se *ses;          /* sorted by se */
    size_t nses;
    kr_occ_dispatch *dispatches;
    size_t ndispatches;
} kr_occupancy;

/* ---- realtime (docs/formats.md#realtime-samples) ---- */
typedef struct kr_rt_sample { uint64_t shader, realtime; } kr_rt_sample;

typedef struct kr_rt_se {
    uint32_t se;
    kr_rt_sample *samples;
    size_t n;
} kr_rt_se;

typedef struct kr_realtime {
    uint8_t present;
    kr_rt_se *ses;           /* sorted by se */
    size_t nses;
    uint64_t frequency;      /* Hz of the realtime clock, 0 when unknown */
    const char *descriptor;
    /* Derived at load (docs/formats.md#clock, docs/formats.md#se-alignment). */
    double clock_hz;         /* measured shader clock, 0 when unknown */
    uint8_t aligned;         /* offsets below are valid */
    int64_t se_offset[64];   /* add to a time of SE s to align (kreport canonical) */
} kr_realtime;

/* ---- snapshots (docs/formats.md#source-snapshots) ---- */
typedef struct kr_snapshot {
    const char *path;        /* original path rebuilt from the tree */
    const char *leaf;        /* copy's file name as written */
    uint8_t safe;            /* leaf is a plain name inside the folder */
    uint8_t loaded;          /* the copy was read */
    const char *text;        /* contents (NUL-terminated) when loaded */
    size_t len;
    const char **lines;      /* lines[i] = start of line i+1 (1-based lines) */
    size_t nlines;
    const char *problem;     /* why not loaded/unsafe, NULL when fine */
} kr_snapshot;

/* ---- results.json (docs/formats.md#results-json) ---- */
typedef struct kr_agent {
    uint64_t handle;
    int64_t type;            /* 1 CPU, 2 GPU */
    const char *name;        /* "gfx950" */
    const char *product_name;
    int64_t gfx_target_version;
    int64_t node_id, logical_node_id;
    int64_t cu_count, simd_per_cu, max_waves_per_simd, max_waves_per_cu;
    int64_t wave_front_size, lds_size_in_kb, max_engine_clk_fcompute;
    int64_t num_xcc, array_count;
    int64_t gpu_id, location_id, drm_render_minor;  /* the card (rocpd extdata), -1 unknown */
} kr_agent;

typedef struct kr_kernel_symbol {
    uint64_t kernel_id, code_object_id;
    const char *kernel_name, *formatted_name, *demangled_name;
    uint64_t kernel_object, kernel_code_entry_byte_offset;
    int64_t group_segment_size, private_segment_size;
    int64_t sgpr_count, arch_vgpr_count, accum_vgpr_count;  /* -1 when absent */
} kr_kernel_symbol;

typedef struct kr_code_object {
    uint64_t id, agent_handle;
    const char *uri;
    uint64_t load_base, load_size;
    int64_t load_delta;
} kr_code_object;

/* One kernel dispatch with timestamps, from results.json kernel_dispatch
 * records or a kernel_trace CSV. */
typedef struct kr_dispatch {
    uint64_t dispatch_id, kernel_id, correlation_id;
    int64_t agent;           /* handle (results.json) or index (CSV) */
    const char *kernel_name;
    uint64_t start_ns, end_ns;
    int64_t lds_bytes, scratch_bytes, vgpr, accum_vgpr, sgpr;  /* -1 unknown */
    uint32_t wg[3], grid[3];
} kr_dispatch;

typedef struct kr_counter_value {
    uint64_t dispatch_id;
    const char *kernel_name;
    const char *counter;
    double value;
    uint64_t start_ns, end_ns;   /* counter_collection.csv timestamps, 0 when absent (docs/formats.md#counter-collection-csv) */
} kr_counter_value;

typedef struct kr_process {
    int64_t pid;
    kr_agent *agents; size_t nagents;
    kr_kernel_symbol *symbols; size_t nsymbols;
    kr_code_object *code_objects; size_t ncode_objects;
    kr_dispatch *dispatches; size_t ndispatches;
    kr_counter_value *counters; size_t ncounters;
    const char **att_filenames; size_t natt_filenames;
} kr_process;

typedef struct kr_results {
    const char *path;
    kr_process *procs;
    size_t nprocs;
} kr_results;

/* ---- rocprofv3 CSVs (docs/formats.md#rocprofv3-csvs) ---- */
typedef enum kr_agent_index { KR_AGENT_NUMERIC = 0, KR_AGENT_RELATIVE, KR_AGENT_TYPED } kr_agent_index;

typedef struct kr_kernel_trace {
    const char *path;
    uint8_t old_dialect;     /* numeric Agent_Id, Private/Group_Segment_Size */
    kr_agent_index agent_index;
    kr_dispatch *rows;
    size_t nrows;
    uint8_t no_dispatch_ids; /* no Dispatch_Id column (before rocprofv3 1.1): dispatch_id holds
                                the row's 1-based ordinal in file order and joins no capture */
} kr_kernel_trace;

typedef struct kr_agent_info {
    const char *path;
    kr_agent *agents;        /* handle = 0 (not in the CSV) */
    size_t nagents;
} kr_agent_info;

typedef struct kr_kernel_stat {
    const char *name;
    uint64_t calls, total_ns, min_ns, max_ns;
    double average_ns, percentage, stddev;
} kr_kernel_stat;

typedef struct kr_kernel_stats {
    const char *path;
    kr_kernel_stat *rows;
    size_t nrows;
} kr_kernel_stats;

/* ---- rocpd database (docs/formats.md#rocpd-databases) ----
 * What a `<pid>_results.db` holds, read into the structures the CSVs fill:
 * a kernel trace and an agent table whose path is the database, and the
 * counter values per dispatch and counter. */
typedef struct kr_rocpd {
    const char *path;
    const char *schema_version;  /* rocpd_metadata "schema_version" of the first run ("3", "3.0.3", "4.1.0") */
    int schema_major;            /* 3 or 4 */
    size_t nruns;                /* uuids (table suffixes): runs written or merged into the file */
    size_t nsymbols, npmc;       /* kernel symbols, counter names (distinct over the runs) */
    uint8_t symbol_registers;    /* the kernel symbol table has sgpr/arch_vgpr/accum_vgpr columns */
    uint8_t agent_handles;       /* some GPU agent's extdata carried id.handle (kr_agent.handle; 0 absent) */
    kr_kernel_trace *trace;      /* every kernel dispatch, Agent_Id as a logical index like the CSV */
    kr_agent_info *agents;       /* every agent */
    kr_counter_value *counters;  /* summed per dispatch and counter, dispatches in trace order */
    size_t ncounters;
} kr_rocpd;

/* ---- the capture ---- */
typedef struct kr_capture {
    kr_arena arena;
    const char *dir;         /* the folder path as given */
    const char *folder;      /* last path component */
    const char *label;       /* example label (att_viewer/<label>/) or NULL */
    uint8_t name_matched;    /* folder name matches ui_output_agent_<H>_dispatch_<D> */
    uint64_t agent_handle, dispatch_id;
    const char *suffix;      /* free-form suffix after the dispatch id */

    /* filenames.json (docs/formats.md#wave-index) */
    const char *version;
    int64_t gfxip;
    const char *gfxv;
    const char **counter_names; size_t ncounter_names;
    kr_wave_ref *wave_refs; size_t nwave_refs;
    uint8_t wave_filenames_null;

    /* code.json (docs/formats.md#code-table) */
    kr_code_layout layout;
    const char *code_version;
    kr_code_row *rows; size_t nrows;
    int32_t *line_to_row;    /* LineNumber -> row index, -1 none; size nline_map */
    size_t nline_map;

    kr_wave *waves; size_t nwaves;          /* same order as wave_refs */
    kr_wstates wstates[KR_STATE_COUNT];
    kr_occupancy occupancy;
    kr_realtime realtime;
    kr_snapshot *snapshots; size_t nsnapshots;
    uint8_t has_snapshots_json;

    /* Found beside the capture or given with --results; NULL when absent. */
    kr_results *results;
    kr_kernel_trace *kernel_trace;
    kr_agent_info *agent_info;
    kr_kernel_stats *kernel_stats;
    /* A rocpd database found beside the capture (it may also be the
     * kernel_trace, agent_info and counter source above), its path in
     * counter_paths when it gave counters; NULL when none. rocpd_agent says
     * which of its GPU agents describes the capture and why (docs/formats.md#rocpd-databases). */
    kr_rocpd *rocpd;
    const char *rocpd_agent;
    const kr_agent *rocpd_gpu;   /* the GPU agent chosen, NULL when ambiguous or none */

    /* Files in the folder that no rule names (for info/validate). */
    const char **extra_files; size_t nextra_files;
    uint64_t total_bytes;    /* bytes of all files read */

    /* counter_collection.csv rows found beside the capture (its run
     * directory, pass_N/ and pmc_N/ below it, compute_viewer/), all files
     * appended in discovery order; NULL / 0 when none (docs/formats.md#counter-collection-csv). */
    kr_counter_value *counters; size_t ncounters;
    const char **counter_paths; size_t ncounter_paths;

    /* Where the files are read from (bundle/source.h; NULL: the
     * filesystem). Set by the loader; must outlive loading, not the model. */
    const struct bundle_source *source;
} kr_capture;

/* Row of a LineNumber, or NULL (line 0 is "unknown PC", docs/formats.md#instruction-records). */
static inline const kr_code_row *kr_capture_row(const kr_capture *c, uint32_t line)
{
    if (line == 0 || line >= c->nline_map || c->line_to_row[line] < 0)
        return NULL;
    return &c->rows[c->line_to_row[line]];
}

/* Names used in every output. */
static inline const char *kr_class_name(kr_class c)
{
    static const char *const names[KR_CLASS_COUNT] = {
        "LABEL", "WAITCNT", "BARRIER", "NOP", "MESSAGE", "BRANCH", "SMEM",
        "IMMED_OTHER", "SALU", "MATRIX", "LDS", "VMEM", "FLAT", "VALU", "OTHER"};
    return (unsigned)c < KR_CLASS_COUNT ? names[c] : "?";
}

static inline const char *kr_state_name(unsigned s)
{
    static const char *const names[KR_STATE_COUNT] = {"EMPTY", "IDLE", "EXEC", "WAIT", "STALL"};
    return s < KR_STATE_COUNT ? names[s] : "?";
}

static inline const char *kr_cat_name(unsigned c)
{
    static const char *const names[KR_CAT_COUNT] = {
        "NONE", "SMEM", "SALU", "VMEM", "FLAT", "LDS", "VALU", "JUMP", "NEXT",
        "IMMED", "CONTEXT", "MESSAGE", "BVH"};
    return c < KR_CAT_COUNT ? names[c] : "?";
}

/* ---- wave sinks (docs/architecture.md#streaming) ----
 *
 * A loader given a sink hands it the parsed waves group by group instead of
 * keeping them all: a group is every wave of one (SE, SIMD) pair (the scope
 * hidden latency needs together, docs/hidden-latency.md), as indices into c->waves in
 * ascending order, with records mapped to rows and everything but the wave
 * files already in the model. Groups run on the loader's threads; `worker`
 * (0 .. workers-1) indexes per-thread accumulators, which the sink merges
 * in a fixed order afterwards, so results never depend on thread timing.
 * After a group, the loader drops the waves' records, waitcnt arrays and
 * timelines unless begin asked to keep them (KR_SINK_KEEP_*); the rest of
 * each kr_wave (identity, begin/end, bytes, counts) stays. Callbacks return
 * 0 or an error code (common/err.h); the first error in group order fails
 * the load. */
#define KR_SINK_KEEP_RECORDS 1u      /* keep insts, waits and producers */
#define KR_SINK_KEEP_TIMELINES 2u    /* keep timelines */

typedef struct kr_wave_sink {
    /* Once, before the first wave; *keep receives KR_SINK_KEEP_* flags. c
     * then holds code.json's rows and the list of waves; the other files may
     * still be loading. */
    int (*begin)(void *acc, const kr_capture *c, int workers, unsigned *keep);
    int (*group)(void *acc, const kr_capture *c, const size_t *waves, size_t n, int worker);
    void *acc;
    /* Optional: each wave alone as soon as it is loaded (waves of one group
     * may load on different threads), before its group's call. */
    int (*wave)(void *acc, const kr_capture *c, size_t wave, int worker);
} kr_wave_sink;

#endif
