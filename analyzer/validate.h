/* validate.h — the offline invariants of docs/validate.md as named checks.
 *
 * an_validate runs every check the model supports over one loaded capture
 * and returns a list of findings {id "V-10", severity, location, message}.
 * It never prints. Problems that make a file unreadable are load errors
 * (bundle_capture_load, exit 3), not findings; everything well-typed but
 * inconsistent is a finding here.
 *
 * Findings are bounded: at most max_per_check occurrences are listed per
 * (check, severity) and capture, followed by one summary finding counting
 * the rest; the error/warning/info totals count every occurrence (listed or
 * not, summary findings excluded). Findings come in docs/validate.md order, then in
 * discovery order. The same file also holds the helpers info and validate
 * share: target detection (docs/occupancy.md#target-detection), the kernel-symbol join (docs/formats.md#joining-a-capture), ISA
 * register marks (docs/occupancy.md#register-counts) and the time span (docs/formats.md#clock, docs/formats.md#se-alignment). */
#ifndef KR_ANALYZER_VALIDATE_H
#define KR_ANALYZER_VALIDATE_H

#include <stddef.h>
#include <stdint.h>

#include "bundle/model.h"
#include "common/arena.h"

typedef enum an_severity { AN_SEV_ERROR = 0, AN_SEV_WARNING = 1, AN_SEV_INFO = 2 } an_severity;

typedef struct an_finding {
    const char *id;          /* "V-10" */
    an_severity severity;
    const char *location;    /* "code.json row 12 (LineNumber 12)", "se1_sm0_sl0_wv0.json $.wave.instructions[5]", ... */
    const char *message;
    uint8_t summary;         /* 1: the "N more" line of a bounded check */
} an_finding;

typedef struct an_validation {
    kr_arena arena;          /* owns the strings */
    an_finding *findings;    /* malloc'd */
    size_t nfindings, cap;
    uint64_t errors, warnings, infos;
    int oom;                 /* a finding could not be stored (lists are then incomplete) */
} an_validation;

typedef struct an_validate_opts {
    size_t max_per_check;    /* 0: 20 */
    const char *target;      /* --target override (docs/occupancy.md#target-detection step 1), NULL when none */
} an_validate_opts;

/* Runs all checks. Returns 0, or KR_INTERNAL when memory ran out. out must
 * be released with an_validation_free in every case. */
int an_validate(const kr_capture *c, const an_validate_opts *opts, an_validation *out);
void an_validation_free(an_validation *v);
const char *an_severity_name(an_severity s);   /* "error", "warning", "info" */

/* ---- example folders (docs/formats.md#example-folders): V-20, V-22 ----
 * The caller (cli) gathers the facts from the file system; the checks stay
 * pure. */
typedef struct an_example_label {
    const char *label;       /* att_viewer/<label>/ */
    size_t ncaptures;        /* capture folders inside it */
    uint8_t has_results;     /* compute_viewer/<label>_results.json or <label>_results.db (rocpd) exists */
} an_example_label;

typedef struct an_example_facts {
    const char *name;                    /* the example folder's name */
    uint8_t has_readme, has_report;
    const char *report_text;             /* REPORT.md, NULL when absent */
    const an_example_label *labels;
    size_t nlabels;
    const char *const *readme_missing;   /* names README.md mentions that exist nowhere in the example */
    size_t nreadme_missing;
    /* Publishing checks V-20a .. V-20f (docs/formats.md#example-folders and the hub's AGENTS.md). */
    const char *readme_text;             /* README.md, NULL when absent */
    const struct an_example_capture *captures;   /* in bundle_example_scan order */
    size_t ncaptures;
    const char *const *unlabelled;       /* capture folders directly under att_viewer/ */
    size_t nunlabelled;
} an_example_facts;

/* What the example checks need to know of one capture (the caller loads it).
 *
 * V-20a E  empty shell (no waves): delete or re-capture (AGENTS.md Gotcha 3)
 * V-20b E  two capture folders with the same files (equal content_digest)
 * V-20c W  a capture directly under att_viewer/ (no label); labels whose
 *          roles look swapped: the largest `small` capture has more
 *          records than the smallest `big` one
 * V-20d W  no instruction row source-mapped and no line of README.md or
 *          REPORT.md mentions "source mapping" (I when one does)
 * V-20e W  the primary capture (first `big` capture with waves, else the
 *          capture with the most waves) does not fill the GPU: fewer grid
 *          workgroups than CUs, or an achieved-occupancy tail (low-occupancy
 *          fraction >= AN_OCC_TAIL_FRACTION, analyzer/occupancy.h), and no
 *          line of README.md or REPORT.md names its label together with
 *          "underfilled" (I when one does)
 * V-20f W  compute_viewer/<label>_results.json has no GPU agent with the
 *          capture's handle (docs/formats.md#joining-a-capture: it comes from another run) */
typedef struct an_example_capture {
    const char *label, *folder;
    uint8_t shell;                       /* no waves */
    uint64_t waves, records;
    uint64_t instruction_rows, mapped_rows;
    uint8_t name_matched;
    uint64_t agent_handle;
    int64_t workgroups, cu_count;        /* -1 unknown */
    uint8_t has_occupancy;               /* occupancy.json with rows */
    double low_fraction;                 /* an_occ_achieved.low_fraction */
    const char *content_digest;          /* SHA-256 over the folder's files, NULL unknown */
    int8_t results_match;                /* -1 no <label>_results.json (nor a rocpd <label>_results.db
                                            with agent handles), 0 no agent with the handle, 1 match */
    const char *results_agents;          /* that file's GPU agent handles ("32235, 32236"), for messages */
    const char *results_file;            /* that file's name in compute_viewer/, NULL: <label>_results.json */
} an_example_capture;

int an_validate_example(const an_example_facts *f, const an_validate_opts *opts, an_validation *out);

/* Calls fn once per distinct plain file name README text mentions: a run of
 * [A-Za-z0-9_.-] ending in .json, .csv, .py, .yaml or .yml, not starting
 * with '.', not followed by '/' or '*' and not preceded by '*', '<' or '>'
 * (templates such as discover_*.csv are skipped). */
void an_readme_names(const char *text, void (*fn)(void *ctx, const char *name), void *ctx);

/* ---- helpers shared with info ---- */

/* GPU target (docs/occupancy.md#target-detection): override, the results.json GPU agent with the
 * capture's handle, the GPU rows of an agent_info CSV, then the ISA
 * heuristic. name NULL when unknown (then "unknown gfx9" etc. in source). */
typedef struct an_target {
    const char *name;        /* "gfx950" */
    char source[192];        /* "results.json agent 32235", "agent_info.csv (small_agent_info.csv)", ... */
    const kr_agent *agent;   /* the agent record when known (results or CSV) */
    uint8_t from_results;    /* agent comes from results.json */
} an_target;
void an_validate_target(const kr_capture *c, const char *override_name, an_target *out);

/* Symbol name of a label row ("; name" -> "name"). */
const char *an_label_name(const kr_code_row *label);

/* The results.json kernel symbol of a label row (docs/formats.md#joining-a-capture step 2), or NULL. */
const kr_kernel_symbol *an_validate_symbol(const kr_capture *c, const kr_code_row *label);

/* Register counts rocprofv3 reported for the kernel of a label row: the
 * joined kernel symbol, else the first kernel_trace CSV row with the same
 * kernel name. Returns 1 when found (fields -1 when a column is absent). */
typedef struct an_reg_counts {
    int64_t arch_vgpr, accum_vgpr, sgpr;
    const char *source;      /* "results.json kernel_symbols" or "kernel_trace.csv" */
} an_reg_counts;
int an_validate_reg_counts(const kr_capture *c, const kr_code_row *label, an_reg_counts *out);

/* ISA high-water marks (docs/occupancy.md#register-counts) over the instruction rows of the kernel of
 * label row index `label` (rows up to the next label). */
typedef struct an_isa_marks { uint32_t v, a, s; } an_isa_marks;
void an_validate_isa_marks(const kr_capture *c, size_t label, an_isa_marks *out);

/* Time span of the waves: raw = max(end) - min(begin) over per-SE clocks;
 * aligned = max(end + offset) - min(begin + offset) with the docs/formats.md#se-alignment SE offsets
 * (valid when has_aligned); clock_mhz = the measured shader clock (docs/formats.md#clock),
 * 0 when unknown; us = the aligned span (or the raw one when all waves share
 * one SE) at that clock, valid when has_us. No waves: everything 0. */
typedef struct an_span {
    uint64_t raw, aligned;
    uint8_t has_aligned, has_us;
    double us, clock_mhz;
} an_span;
void an_validate_span(const kr_capture *c, an_span *out);

#endif
