/* load_code.c — code.json (FORMATS.md §2); see load_code.h. */
#include "bundle/load_code.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/isa.h"
#include "bundle/json_util.h"
#include "common/limits.h"

/* Column names of the three known layouts (§2.2). */
enum col {
    COL_ISA, COL_ZERO, COL_LINE, COL_SOURCE, COL_CODEOBJ, COL_VADDR,
    COL_HIT, COL_LATENCY, COL_STALL, COL_IDLE,
    COL_SERVICE, COL_ISSUED, COL_STALLED, COL_NOT_ISSUED,      /* 14-column layout */
    COL_PC_ISSUED, COL_PC_STALLED, COL_STALL_REASONS,          /* 13-column layout */
    COL_COUNT
};

static const char *const col_names[COL_COUNT] = {
    "ISA", "_", "LineNumber", "Source", "Codeobj", "Vaddr", "Hit", "Latency", "Stall", "Idle",
    "ServiceType", "Issued", "Stalled", "NotIssuedReasons",
    "PC_Issued", "PC_Stalled", "Stall_Reasons"};

static int col_required(int col)
{
    return col != COL_ZERO && col <= COL_IDLE;
}

typedef struct header_map {
    int pos[COL_COUNT];      /* column index of each name, -1 absent */
    int *kind;               /* kind[i] = name of column i */
    size_t ncols;
    char text[256];          /* the header as written, for messages */
} header_map;

static int oom(kr_err *err, const char *fname)
{
    return kr_err_set(err, KR_INTERNAL, fname, NULL, "out of memory");
}

/* Adds one column name; `name` has length n (not NUL-terminated). */
static int header_add(bundle_jctx *j, header_map *h, const char *name, size_t n)
{
    int kind = -1;
    for (int k = 0; k < COL_COUNT; k++)
        if (strlen(col_names[k]) == n && memcmp(col_names[k], name, n) == 0)
            kind = k;
    if (kind < 0)
        return bundle_jerr(j, "unknown column name \"%.*s\" in header \"%s\"", (int)n, name, h->text);
    if (h->pos[kind] >= 0)
        return bundle_jerr(j, "duplicate column name \"%s\" in header \"%s\"", col_names[kind], h->text);
    h->pos[kind] = (int)h->ncols;
    h->kind[h->ncols++] = kind;
    return 0;
}

static void header_text_append(header_map *h, const char *s, size_t n)
{
    size_t len = strlen(h->text);
    size_t room = sizeof h->text - 1 - len;
    if (n > room)
        n = room;
    memcpy(h->text + len, s, n);
    h->text[len + n] = '\0';
}

static int parse_header(bundle_jctx *j, const json_t *hv, header_map *h)
{
    int rc;
    for (int k = 0; k < COL_COUNT; k++)
        h->pos[k] = -1;
    h->ncols = 0;
    h->text[0] = '\0';
    size_t m = bundle_jpush_key(j, "header");
    if (json_is_string(hv)) {
        const char *s = json_string_value(hv);
        size_t len = json_string_length(hv);
        header_text_append(h, s, len);
        size_t parts = 1;
        for (size_t i = 0; i < len; i++)
            parts += s[i] == ',';
        h->kind = malloc(parts * sizeof *h->kind);
        if (!h->kind)
            return oom(j->err, j->fname);
        size_t start = 0;
        for (size_t i = 0; i <= len; i++) {
            if (i < len && s[i] != ',')
                continue;
            size_t b = start, e = i;
            while (b < e && (s[b] == ' ' || s[b] == '\t'))
                b++;
            while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t'))
                e--;
            if ((rc = header_add(j, h, s + b, e - b)))
                return rc;
            start = i + 1;
        }
    } else if (json_is_array(hv)) {
        size_t n = json_array_size(hv);
        for (size_t i = 0; i < n; i++) {
            const json_t *e = json_array_get(hv, i);
            if (i)
                header_text_append(h, ", ", 2);
            if (json_is_string(e))
                header_text_append(h, json_string_value(e), json_string_length(e));
        }
        h->kind = malloc((n ? n : 1) * sizeof *h->kind);
        if (!h->kind)
            return oom(j->err, j->fname);
        for (size_t i = 0; i < n; i++) {
            const char *s;
            size_t len;
            size_t mi = bundle_jpush_index(j, i);
            if ((rc = bundle_jget_str(j, json_array_get(hv, i), &s, &len)))
                return rc;
            bundle_jpop(j, mi);
            if ((rc = header_add(j, h, s, len)))
                return rc;
        }
    } else {
        return bundle_jerr(j, "expected a string or an array of column names, found %s",
                           bundle_json_kind(hv));
    }
    for (int k = 0; k < COL_COUNT; k++)
        if (col_required(k) && h->pos[k] < 0)
            return bundle_jerr(j, "missing required column \"%s\" in header \"%s\"", col_names[k], h->text);
    bundle_jpop(j, m);
    return 0;
}

int bundle_parse_frames(kr_arena *a, const char *source, kr_frame **frames, uint32_t *n)
{
    static const char sep[] = " -> ";
    const size_t seplen = sizeof sep - 1;
    *frames = NULL;
    *n = 0;
    size_t count = 0;
    for (const char *p = source;;) {
        const char *q = strstr(p, sep);
        size_t len = q ? (size_t)(q - p) : strlen(p);
        count += len > 0;
        if (!q)
            break;
        p = q + seplen;
    }
    if (!count)
        return 0;
    kr_frame *f = kr_arena_array(a, count, sizeof *f);
    if (!f)
        return -1;
    uint32_t k = 0;
    for (const char *p = source;;) {
        const char *q = strstr(p, sep);
        size_t len = q ? (size_t)(q - p) : strlen(p);
        if (len > 0) {
            /* line = digits after the last ':' (§2.3) */
            size_t colon = len;
            for (size_t i = len; i > 0; i--)
                if (p[i - 1] == ':') {
                    colon = i - 1;
                    break;
                }
            uint64_t line = 0;
            int ok = colon < len && colon + 1 < len;
            for (size_t i = colon + 1; ok && i < len; i++) {
                if (p[i] < '0' || p[i] > '9')
                    ok = 0;
                else if ((line = line * 10 + (uint64_t)(p[i] - '0')) > UINT32_MAX)
                    ok = 0;
            }
            if (ok && line == 0)
                ok = 0;
            f[k].path = kr_arena_strndup(a, p, ok ? colon : len);
            if (!f[k].path)
                return -1;
            f[k].line = ok ? (uint32_t)line : 0;
            f[k].snapshot = -1;
            k++;
        }
        if (!q)
            break;
        p = q + seplen;
    }
    *frames = f;
    *n = k;
    return 0;
}

/* Non-negative integer array (NotIssuedReasons, Stall_Reasons). */
static int check_counts(bundle_jctx *j, const json_t *v)
{
    int rc = bundle_jexpect_array(j, v);
    if (rc)
        return rc;
    for (size_t i = 0; i < json_array_size(v); i++) {
        uint64_t x;
        size_t m = bundle_jpush_index(j, i);
        if ((rc = bundle_jget_u64(j, json_array_get(v, i), &x)))
            return rc;
        bundle_jpop(j, m);
    }
    return 0;
}

static int parse_row(bundle_jctx *j, kr_capture *c, const header_map *h, const json_t *rv, kr_code_row *row)
{
    int rc;
    if ((rc = bundle_jexpect_array(j, rv)))
        return rc;
    if (json_array_size(rv) != h->ncols)
        return bundle_jerr(j, "row has %zu elements, the header \"%s\" names %zu columns",
                           json_array_size(rv), h->text, h->ncols);
    for (size_t i = 0; i < h->ncols; i++) {
        const json_t *v = json_array_get(rv, i);
        int kind = h->kind[i];
        size_t m = bundle_jpush_index(j, i);
        const char *s = NULL;
        size_t slen = 0;
        int64_t i64 = 0;
        uint64_t u64 = 0;
        switch (kind) {
        case COL_ISA:
        case COL_SOURCE:
            rc = bundle_jget_str(j, v, &s, &slen);
            break;
        case COL_ZERO:
        case COL_CODEOBJ:
        case COL_SERVICE:
            rc = bundle_jget_i64(j, v, &i64);
            break;
        case COL_LINE:
            rc = bundle_jget_range(j, v, 0, KR_MAX_LINE_NUMBER, &i64);
            break;
        case COL_NOT_ISSUED:
        case COL_STALL_REASONS:
            rc = check_counts(j, v);
            break;
        default:
            rc = bundle_jget_u64(j, v, &u64);
            break;
        }
        if (rc)
            return bundle_err_prefix(j->err, rc, col_names[kind]);
        bundle_jpop(j, m);
        switch (kind) {
        case COL_ISA:
            row->isa = kr_arena_strndup(&c->arena, s, slen);
            break;
        case COL_SOURCE:
            row->source = kr_arena_strndup(&c->arena, s, slen);
            break;
        case COL_LINE: row->line = (uint32_t)i64; break;
        case COL_ZERO: row->zero_col = i64; break;
        case COL_CODEOBJ: row->codeobj = i64; break;
        case COL_SERVICE: row->service_type = i64; break;
        case COL_VADDR: row->vaddr = u64; break;
        case COL_HIT: row->hit = u64; break;
        case COL_LATENCY: row->latency = u64; break;
        case COL_STALL: row->stall = u64; break;
        case COL_IDLE: row->idle = u64; break;
        case COL_ISSUED:
        case COL_PC_ISSUED: row->pc_issued = u64; break;
        case COL_STALLED:
        case COL_PC_STALLED: row->pc_stalled = u64; break;
        default: break;
        }
    }
    if (!row->isa || !row->source)
        return oom(j->err, j->fname);
    size_t mlen = strcspn(row->isa, " \t");
    char *mn = kr_arena_alloc(&c->arena, mlen + 1);
    if (!mn)
        return oom(j->err, j->fname);
    bundle_mnemonic(row->isa, mn, mlen + 1);
    row->mnemonic = mn;
    row->is_label = row->isa[0] == ';';
    row->cls = row->is_label ? KR_CLASS_LABEL : bundle_classify(mn);
    if (!row->is_label && bundle_parse_frames(&c->arena, row->source, &row->frames, &row->nframes))
        return oom(j->err, j->fname);
    return 0;
}

int bundle_parse_code(kr_capture *c, const char *data, size_t len, const char *fname, kr_err *err)
{
    json_t *root;
    int rc = bundle_json_parse(data, len, fname, &root, err);
    if (rc)
        return rc;
    bundle_jctx j;
    bundle_jctx_init(&j, fname, err);
    header_map h = {0};
    json_t *code, *hv;
    const char *s = NULL;

    if ((rc = bundle_jexpect_object(&j, root)))
        goto out;
    if (!json_object_get(root, "header")) {
        rc = bundle_jerr(&j, "missing key \"header\": not a rocprofv3 code.json (format 3.0.0); "
                             "a code.json without a header is the legacy rocprofv2 ATT plugin format");
        goto out;
    }
    if ((rc = bundle_jmember(&j, root, "code", 1, &code)))
        goto out;
    hv = json_object_get(root, "header");
    if ((rc = parse_header(&j, hv, &h)))
        goto out;
    if ((rc = bundle_jkey_str(&j, root, "version", 0, &s)))
        goto out;
    c->code_version = s ? kr_arena_strdup(&c->arena, s) : NULL;

    c->layout = KR_LAYOUT_NONE;
    c->rows = NULL;
    c->nrows = 0;
    c->line_to_row = NULL;
    c->nline_map = 0;
    if (json_is_null(code)) {
        rc = 0;
        goto out;
    }
    size_t mc = bundle_jpush_key(&j, "code");
    if ((rc = bundle_jexpect_array(&j, code)))
        goto out;
    size_t n = json_array_size(code);
    if (n > KR_MAX_CODE_ROWS) {
        rc = bundle_jerr(&j, "%zu rows exceed KR_MAX_CODE_ROWS (%u)", n, (unsigned)KR_MAX_CODE_ROWS);
        goto out;
    }
    if (h.pos[COL_SERVICE] >= 0 || h.pos[COL_ISSUED] >= 0 || h.pos[COL_STALLED] >= 0 || h.pos[COL_NOT_ISSUED] >= 0)
        c->layout = KR_LAYOUT_14;
    else if (h.pos[COL_PC_ISSUED] >= 0 || h.pos[COL_PC_STALLED] >= 0 || h.pos[COL_STALL_REASONS] >= 0)
        c->layout = KR_LAYOUT_13;
    else
        c->layout = KR_LAYOUT_10;
    if (n == 0) {
        rc = 0;
        goto out;
    }
    kr_code_row *rows = kr_arena_array(&c->arena, n, sizeof *rows);
    if (!rows) {
        rc = oom(err, fname);
        goto out;
    }
    uint32_t max_line = 0;
    for (size_t i = 0; i < n; i++) {
        size_t m = bundle_jpush_index(&j, i);
        if ((rc = parse_row(&j, c, &h, json_array_get(code, i), &rows[i])))
            goto out;
        bundle_jpop(&j, m);
        if (rows[i].line > max_line)
            max_line = rows[i].line;
    }
    size_t nmap = (size_t)max_line + 1;
    int32_t *map = kr_arena_array(&c->arena, nmap, sizeof *map);
    if (!map) {
        rc = oom(err, fname);
        goto out;
    }
    for (size_t l = 0; l < nmap; l++)
        map[l] = -1;
    for (size_t i = 0; i < n; i++) {
        uint32_t l = rows[i].line;
        if (map[l] >= 0) {
            size_t m = bundle_jpush_index(&j, i);
            bundle_jpush_index(&j, (size_t)h.pos[COL_LINE]);
            rc = bundle_jerr(&j, "duplicate LineNumber %u (already used by $.code[%d])", l, map[l]);
            bundle_jpop(&j, m);
            goto out;
        }
        map[l] = (int32_t)i;
    }
    /* Kernel of each row: the nearest label row at or before it in
     * LineNumber order (§2.4). */
    uint32_t kernel = UINT32_MAX;
    for (size_t l = 0; l < nmap; l++) {
        if (map[l] < 0)
            continue;
        kr_code_row *r = &rows[map[l]];
        if (r->is_label)
            kernel = (uint32_t)map[l];
        r->kernel = kernel;
    }
    bundle_jpop(&j, mc);
    c->rows = rows;
    c->nrows = n;
    c->line_to_row = map;
    c->nline_map = nmap;
    rc = 0;
out:
    free(h.kind);
    json_decref(root);
    return rc;
}
