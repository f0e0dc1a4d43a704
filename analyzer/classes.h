/* classes.h — per instruction class (docs/instruction-classes.md) sums of the code table
 * and a record-level check of the trace categories.
 *
 * Static figures use the mnemonic class of each row (kr_code_row.cls; label
 * rows excluded): row count, Σ Hit, Σ Latency, Σ Stall, Σ Idle. Shares of the
 * capture's Σ Latency / Σ Stall are left to the renderer (ratios of these
 * integers).
 *
 * Record check: every wave record whose LineNumber maps to a row is counted
 * under the row's class and its own category; a record whose category is not
 * allowed for the class by the docs/instruction-classes.md compatibility table is "incompatible"
 * (validate reports it as [V-17]; the mnemonic class stays authoritative).
 * The table is repeated here (an_class_allows_cat) because analyzer/ sees
 * only the model. When the loader did not keep the record streams, the
 * record counts are 0 and records_kept says so. */
#ifndef KR_ANALYZER_CLASSES_H
#define KR_ANALYZER_CLASSES_H

#include <stddef.h>
#include <stdint.h>

#include "bundle/model.h"

typedef struct an_class_sums {
    uint64_t rows, hit, latency, stall, idle;
    uint64_t records;                        /* records of rows of this class */
    uint64_t records_by_cat[KR_CAT_COUNT];   /* ... by their trace category */
    uint64_t records_other_cat;              /* category value >= KR_CAT_COUNT */
    uint64_t records_incompatible;           /* category not allowed (docs/instruction-classes.md) */
} an_class_sums;

typedef struct an_classes {
    an_class_sums by_class[KR_CLASS_COUNT];  /* indexed by kr_class */
    /* Totals over instruction rows (labels excluded). */
    uint64_t rows, hit, latency, stall, idle;
    /* Records over all waves. */
    uint8_t records_kept;                    /* the model held the record streams */
    uint64_t records;                        /* all records */
    uint64_t records_unknown;                /* line 0 or no code row (docs/formats.md#instruction-records) */
    uint64_t records_incompatible;
} an_classes;

/* Display order of the classes: docs/instruction-classes.md's per-class table, then the
 * classes it does not list (FLAT, IMMED_OTHER, OTHER). LABEL is not listed. */
extern const kr_class an_class_order[];
extern const size_t an_class_norder;

/* Always 0 (nothing is allocated; no free function). */
int an_classes_compute(const kr_capture *c, an_classes *out);

/* The same in steps, for waves that are streamed (analysis.h): records are
 * counted per (class of their row, category) into an accumulator, one per
 * thread, merged by addition (the order does not matter), then folded into
 * the sums with the code-row figures. */
typedef struct an_classes_acc {
    uint8_t *line_class;                     /* LineNumber -> class, KR_CLASS_COUNT: no row */
    size_t nmap;
    uint64_t (*count)[256];                  /* [class or KR_CLASS_COUNT][category] */
    uint64_t records, written;               /* records held / announced by num_insts */
    uint64_t row_none;                       /* records without a row (KR_ROW_NONE: an_totals' records_unknown) */
} an_classes_acc;

/* 0 or KR_INTERNAL. */
int an_classes_acc_init(const kr_capture *c, an_classes_acc *a);
void an_classes_acc_wave(an_classes_acc *a, const kr_wave *w);
void an_classes_acc_merge(an_classes_acc *into, const an_classes_acc *from);
void an_classes_finish(const kr_capture *c, const an_classes_acc *a, an_classes *out);
void an_classes_acc_free(an_classes_acc *a);

/* 1 if a record of category cat is allowed on a row of class cls (docs/instruction-classes.md). */
int an_class_allows_cat(kr_class cls, unsigned cat);

#endif
