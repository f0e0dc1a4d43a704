/* hw.h — the hardware table (templates/hw.json, embedded) as plain an_hw
 * structs for the roofline analysis, and the choice of the device a capture
 * ran on.
 *
 * Table rules (checked when parsing; a violation is KR_INPUT naming the JSON
 * path): every numeric entry is an object {"value": number, "source": key}
 * with key in "sources" (each with a non-empty "title" and "url"), or
 * {"value": null, "reason": text}; "derivation" is optional text. Peak keys
 * are an_ceiling_id names; a "_sparse" suffix marks sparsity figures, which
 * are checked but not used.
 *
 * Device choice (rep_hw_pick), first that applies:
 *   1. --device NAME: the entry whose name or one of whose "match" tokens
 *      equals NAME (case-insensitive); none = unknown device.
 *   2. The capture's GPU agent (results.json agent with the capture's handle,
 *      else the first GPU row of the agent_info CSV): the first entry (table
 *      order) one of whose "match" tokens occurs in the agent's product name
 *      as a whole word (case-insensitive).
 *   3. The agent's gfx name and CU count equal exactly one entry's.
 *   Otherwise unknown: note says why; no peak-relative figure is printed. */
#ifndef KR_REPORT_HW_H
#define KR_REPORT_HW_H

#include <stddef.h>

#include "analyzer/roofline.h"
#include "bundle/model.h"
#include "common/err.h"

#define REP_HW_MAX_MATCH 8

typedef struct rep_hw_table {
    an_hw *dev;
    size_t n;
    const char *(*match)[REP_HW_MAX_MATCH];   /* per device, NULL-terminated tokens */
    void *root;                  /* the parsed JSON every string points into */
} rep_hw_table;

/* Parses a table from memory (name labels errors). 0 or KR_INPUT / KR_INTERNAL. */
int rep_hw_parse(const char *json, size_t len, const char *name, rep_hw_table *out, kr_err *err);
/* The embedded templates/hw.json. */
int rep_hw_load(rep_hw_table *out, kr_err *err);
void rep_hw_free(rep_hw_table *t);

/* The device for capture c (may be NULL) and the --device option (may be
 * NULL); NULL = unknown. note (cap bytes) always receives one sentence
 * saying how the device was chosen or why it is unknown. */
const an_hw *rep_hw_pick(const rep_hw_table *t, const char *device, const kr_capture *c, char *note,
                         size_t cap);

#endif
