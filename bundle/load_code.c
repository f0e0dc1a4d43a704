/* load_code.c — code.json (docs/formats.md#code-table); see load_code.h.
 *
 * Two parsers build the same model: bundle_parse_code streams the text with
 * the scanner (pass 1 validates it and lists the top-level members,
 * bundle_jtop_read; pass 2 walks header, version and code in the order the
 * DOM walk does), and bundle_parse_code_jansson, the reference, walks a
 * jansson DOM. Both share the header map, the per-row derivations and the
 * line map below, and report the same messages at the same JSON paths. */
#include "bundle/load_code.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/isa.h"
#include "bundle/json_util.h"
#include "common/limits.h"

/* Column names of the three known layouts (docs/formats.md#code-columns). */
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
            /* line = digits after the last ':' (docs/formats.md#source-chains) */
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

/* Classes of the mnemonics seen so far: a code table repeats a few dozen
 * mnemonics, and bundle_classify tries up to 16 rules on each. */
enum { CLASS_CACHE = 256 };
typedef struct class_cache {
    const char *mnemonic[CLASS_CACHE];   /* NULL: empty slot */
    kr_class cls[CLASS_CACHE];
} class_cache;

static kr_class classify_cached(class_cache *cc, const char *mn)
{
    uint32_t h = 2166136261u;
    for (const char *p = mn; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    for (unsigned probe = 0; probe < 8; probe++) {
        unsigned k = (h + probe) & (CLASS_CACHE - 1);
        if (!cc->mnemonic[k]) {
            cc->mnemonic[k] = mn;
            return cc->cls[k] = bundle_classify(mn);
        }
        if (strcmp(cc->mnemonic[k], mn) == 0)
            return cc->cls[k];
    }
    return bundle_classify(mn);
}

/* What every row derives from its cells: mnemonic, class, label flag and
 * frames (docs/formats.md#source-chains, docs/formats.md#label-rows, docs/instruction-classes.md). */
static int row_finish(kr_capture *c, class_cache *cc, kr_code_row *row, const char *fname, kr_err *err)
{
    if (!row->isa || !row->source)
        return oom(err, fname);
    size_t mlen = strcspn(row->isa, " \t");
    char *mn = kr_arena_alloc(&c->arena, mlen + 1);
    if (!mn)
        return oom(err, fname);
    bundle_mnemonic(row->isa, mn, mlen + 1);
    row->mnemonic = mn;
    row->is_label = row->isa[0] == ';';
    row->cls = row->is_label ? KR_CLASS_LABEL : classify_cached(cc, mn);
    if (!row->is_label && bundle_parse_frames(&c->arena, row->source, &row->frames, &row->nframes))
        return oom(err, fname);
    return 0;
}

/* The line map, duplicate LineNumbers (docs/formats.md#label-rows, V-6) and each row's kernel;
 * fills c->rows, c->line_to_row. line_col is the LineNumber column. */
static int rows_finish(kr_capture *c, kr_code_row *rows, size_t n, int line_col, const char *fname, kr_err *err)
{
    uint32_t max_line = 0;
    for (size_t i = 0; i < n; i++)
        if (rows[i].line > max_line)
            max_line = rows[i].line;
    size_t nmap = (size_t)max_line + 1;
    int32_t *map = kr_arena_array(&c->arena, nmap, sizeof *map);
    if (!map)
        return oom(err, fname);
    for (size_t l = 0; l < nmap; l++)
        map[l] = -1;
    for (size_t i = 0; i < n; i++) {
        uint32_t l = rows[i].line;
        if (map[l] >= 0) {
            bundle_jctx j;
            bundle_jctx_init(&j, fname, err);
            bundle_jpush_key(&j, "code");
            bundle_jpush_index(&j, i);
            bundle_jpush_index(&j, (size_t)line_col);
            return bundle_jerr(&j, "duplicate LineNumber %u (already used by $.code[%d])", l, map[l]);
        }
        map[l] = (int32_t)i;
    }
    /* Kernel of each row: the nearest label row at or before it in
     * LineNumber order (docs/formats.md#label-rows). */
    uint32_t kernel = UINT32_MAX;
    for (size_t l = 0; l < nmap; l++) {
        if (map[l] < 0)
            continue;
        kr_code_row *r = &rows[map[l]];
        if (r->is_label)
            kernel = (uint32_t)map[l];
        r->kernel = kernel;
    }
    c->rows = rows;
    c->nrows = n;
    c->line_to_row = map;
    c->nline_map = nmap;
    return 0;
}

/* Layout from the header's names (docs/formats.md#code-columns). */
static kr_code_layout layout_of(const header_map *h)
{
    if (h->pos[COL_SERVICE] >= 0 || h->pos[COL_ISSUED] >= 0 || h->pos[COL_STALLED] >= 0 || h->pos[COL_NOT_ISSUED] >= 0)
        return KR_LAYOUT_14;
    if (h->pos[COL_PC_ISSUED] >= 0 || h->pos[COL_PC_STALLED] >= 0 || h->pos[COL_STALL_REASONS] >= 0)
        return KR_LAYOUT_13;
    return KR_LAYOUT_10;
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

static int check_line(bundle_jctx *j, const bundle_jv *v);

static int parse_row(bundle_jctx *j, kr_capture *c, class_cache *cc, const header_map *h, const json_t *rv,
                     kr_code_row *row)
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
        case COL_LINE: {
            bundle_jv jv;
            bundle_jv_of(v, &jv);
            rc = check_line(j, &jv);
            i64 = jv.i;
            break;
        }
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
    return row_finish(c, cc, row, j->fname, j->err);
}

int bundle_parse_code_jansson(kr_capture *c, const char *data, size_t len, const char *fname, kr_err *err)
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
    class_cache *cache = NULL;

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
    c->layout = layout_of(&h);
    if (n == 0) {
        rc = 0;
        goto out;
    }
    kr_code_row *rows = kr_arena_array(&c->arena, n, sizeof *rows);
    if (!rows) {
        rc = oom(err, fname);
        goto out;
    }
    cache = calloc(1, sizeof *cache);
    if (!cache) {
        rc = oom(err, fname);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        size_t m = bundle_jpush_index(&j, i);
        if ((rc = parse_row(&j, c, cache, &h, json_array_get(code, i), &rows[i])))
            goto out;
        bundle_jpop(&j, m);
    }
    if ((rc = rows_finish(c, rows, n, h.pos[COL_LINE], fname, err)))
        goto out;
    bundle_jpop(&j, mc);
    rc = 0;
out:
    free(cache);
    free(h.kind);
    json_decref(root);
    return rc;
}

/* ---- the streaming parser ---- */

/* The shared value checks (json_util.h), as cell_fail calls them. */
typedef int (*cell_check)(bundle_jctx *j, const bundle_jv *v);

static int check_i64(bundle_jctx *j, const bundle_jv *v) { int64_t x; return bundle_jv_i64(j, v, &x); }
static int check_u64(bundle_jctx *j, const bundle_jv *v) { uint64_t x; return bundle_jv_u64(j, v, &x); }
static int check_str(bundle_jctx *j, const bundle_jv *v) { const char *x; return bundle_jv_str(j, v, &x, NULL); }
/* LineNumber: 0 .. KR_MAX_LINE_NUMBER (limits.h), the error names the limit. */
static int check_line(bundle_jctx *j, const bundle_jv *v)
{
    if (v->type != BUNDLE_JT_INTEGER)
        return bundle_jerr(j, "expected an integer in [0, KR_MAX_LINE_NUMBER = %u], found %s",
                           (unsigned)KR_MAX_LINE_NUMBER, bundle_jv_kind(v));
    if (v->i < 0 || v->i > KR_MAX_LINE_NUMBER)
        return bundle_jerr(j, "expected an integer in [0, KR_MAX_LINE_NUMBER = %u], found %lld",
                           (unsigned)KR_MAX_LINE_NUMBER, (long long)v->i);
    return 0;
}
static int check_array(bundle_jctx *j, const bundle_jv *v)
{
    return bundle_jerr(j, "expected an array, found %s", bundle_jv_kind(v));
}

/* An input error at $.code[row][col][sub] (col, sub < 0: omitted) from the
 * check `check`, prefixed with the column name (kind >= 0) like the DOM
 * walk's. Only called when the fast inline test failed. */
static int cell_fail(const char *fname, kr_err *err, size_t row, int col, long sub, int kind,
                     cell_check check, const bundle_jv *v)
{
    bundle_jctx j;
    bundle_jctx_init(&j, fname, err);
    bundle_jpush_key(&j, "code");
    bundle_jpush_index(&j, row);
    if (col >= 0)
        bundle_jpush_index(&j, (size_t)col);
    if (sub >= 0)
        bundle_jpush_index(&j, (size_t)sub);
    int rc = check(&j, v);
    if (!rc)        /* the inline test and the check disagree: cannot happen */
        rc = kr_err_set(err, KR_INTERNAL, fname, j.path, "internal: value check mismatch");
    return kind >= 0 ? bundle_err_prefix(err, rc, col_names[kind]) : rc;
}

/* The next value; plain non-negative integers of up to 18 digits (nearly
 * every cell) are read inline. The text is validated, so a number inside
 * the code array is always followed by a non-digit byte. */
static int cell_value(bundle_scan *s, bundle_jv *v)
{
    const char *p = s->p;
    unsigned d;
    if (p < s->end && (d = (unsigned)(unsigned char)*p - '0') < 10) {
        const char *q = p + 1;
        uint64_t x = d;
        while ((d = (unsigned)(unsigned char)*q - '0') < 10 && q - p < 18) {
            x = x * 10 + d;
            q++;
        }
        if (d >= 10 && *q != '.' && *q != 'e' && *q != 'E') {
            v->type = BUNDLE_JT_INTEGER;
            v->i = (int64_t)x;
            v->str = NULL;
            v->len = 0;
            s->p = q;
            return 0;
        }
    }
    return bundle_jv_scan(s, v);
}

/* One cell of row `row` (the scanner at its value); consumes the value even
 * when it is rejected (the row's length is checked before its cells). */
static int scan_cell(bundle_scan *s, kr_capture *c, int kind, size_t row, int col, kr_code_row *r, kr_err *err)
{
    bundle_jv v;
    if (kind == COL_NOT_ISSUED || kind == COL_STALL_REASONS) {
        if (bundle_scan_peek(s) != '[') {
            if (bundle_jv_scan(s, &v))
                return KR_INPUT;
            return cell_fail(s->fname, err, row, col, -1, kind, check_array, &v);
        }
        bundle_scan_arr a;
        if (bundle_scan_array_open(s, &a, NULL))
            return KR_INPUT;
        int rc = 0, more;
        long e = 0;
        while ((more = bundle_scan_array_next(s, &a)) == 1) {
            if (rc) {
                if (bundle_scan_skip(s))
                    return KR_INPUT;
                continue;
            }
            if (bundle_jv_scan(s, &v))
                return KR_INPUT;
            if (v.type != BUNDLE_JT_INTEGER || v.i < 0)
                rc = cell_fail(s->fname, err, row, col, e, kind, check_u64, &v);
            e++;
        }
        return more < 0 ? KR_INPUT : rc;
    }
    if (cell_value(s, &v))
        return KR_INPUT;
    switch (kind) {
    case COL_ISA:
    case COL_SOURCE: {
        if (v.type != BUNDLE_JT_STRING || v.len > KR_MAX_STRING_BYTES)
            return cell_fail(s->fname, err, row, col, -1, kind, check_str, &v);
        const char *t = kr_arena_strndup(&c->arena, v.str, v.len);
        if (!t)
            return oom(err, s->fname);
        if (kind == COL_ISA)
            r->isa = t;
        else
            r->source = t;
        return 0;
    }
    case COL_ZERO:
    case COL_CODEOBJ:
    case COL_SERVICE:
        if (v.type != BUNDLE_JT_INTEGER)
            return cell_fail(s->fname, err, row, col, -1, kind, check_i64, &v);
        if (kind == COL_ZERO)
            r->zero_col = v.i;
        else if (kind == COL_CODEOBJ)
            r->codeobj = v.i;
        else
            r->service_type = v.i;
        return 0;
    case COL_LINE:
        if (v.type != BUNDLE_JT_INTEGER || v.i < 0 || v.i > KR_MAX_LINE_NUMBER)
            return cell_fail(s->fname, err, row, col, -1, kind, check_line, &v);
        r->line = (uint32_t)v.i;
        return 0;
    default:
        break;
    }
    if (v.type != BUNDLE_JT_INTEGER || v.i < 0)
        return cell_fail(s->fname, err, row, col, -1, kind, check_u64, &v);
    uint64_t u = (uint64_t)v.i;
    switch (kind) {
    case COL_VADDR: r->vaddr = u; break;
    case COL_HIT: r->hit = u; break;
    case COL_LATENCY: r->latency = u; break;
    case COL_STALL: r->stall = u; break;
    case COL_IDLE: r->idle = u; break;
    case COL_ISSUED:
    case COL_PC_ISSUED: r->pc_issued = u; break;
    case COL_STALLED:
    case COL_PC_STALLED: r->pc_stalled = u; break;
    default: break;
    }
    return 0;
}

/* Row `i` at the scanner. Precedence as in the DOM walk: not an array, then
 * the length, then the first bad cell. */
static int scan_row(bundle_scan *s, kr_capture *c, class_cache *cc, const header_map *h, size_t i,
                    kr_code_row *row, kr_err *err)
{
    if (bundle_scan_peek(s) != '[') {
        bundle_jv v;
        if (bundle_jv_scan(s, &v))
            return KR_INPUT;
        return cell_fail(s->fname, err, i, -1, -1, -1, check_array, &v);
    }
    bundle_scan_arr a;
    if (bundle_scan_array_open(s, &a, NULL))
        return KR_INPUT;
    kr_err first;                /* the first bad cell, reported after the length */
    kr_err_clear(&first);
    int bad = 0, more;
    size_t k = 0;
    while ((more = bundle_scan_array_next(s, &a)) == 1) {
        if (bad || k >= h->ncols) {
            if (bundle_scan_skip(s))
                return KR_INPUT;
        } else {
            int rc = scan_cell(s, c, h->kind[k], i, (int)k, row, &first);
            if (rc == KR_INTERNAL) {
                *err = first;
                return rc;
            }
            bad = rc;
        }
        k++;
    }
    if (more < 0)
        return KR_INPUT;
    if (k != h->ncols) {
        bundle_jctx j;
        bundle_jctx_init(&j, s->fname, err);
        bundle_jpush_key(&j, "code");
        bundle_jpush_index(&j, i);
        return bundle_jerr(&j, "row has %zu elements, the header \"%s\" names %zu columns", k, h->text, h->ncols);
    }
    if (bad) {
        if (!first.code)         /* a scanner failure on validated text */
            return KR_INPUT;
        *err = first;
        return bad;
    }
    return row_finish(c, cc, row, s->fname, err);
}

/* The header (docs/formats.md#code-columns) at the scanner: a comma-separated string or an array of
 * names; messages as parse_header's. */
static int scan_header(bundle_scan *s, header_map *h, kr_err *err)
{
    int rc;
    bundle_jctx j;
    bundle_jctx_init(&j, s->fname, err);
    bundle_jpush_key(&j, "header");
    for (int k = 0; k < COL_COUNT; k++)
        h->pos[k] = -1;
    h->ncols = 0;
    h->text[0] = '\0';
    int c0 = bundle_scan_peek(s);
    if (c0 == '"') {
        const char *str;
        size_t len;
        if (bundle_scan_string(s, &str, &len, NULL))
            return KR_INPUT;
        header_text_append(h, str, len);
        size_t parts = 1;
        for (size_t i = 0; i < len; i++)
            parts += str[i] == ',';
        h->kind = malloc(parts * sizeof *h->kind);
        if (!h->kind)
            return oom(err, s->fname);
        size_t start = 0;
        for (size_t i = 0; i <= len; i++) {
            if (i < len && str[i] != ',')
                continue;
            size_t b = start, e = i;
            while (b < e && (str[b] == ' ' || str[b] == '\t'))
                b++;
            while (e > b && (str[e - 1] == ' ' || str[e - 1] == '\t'))
                e--;
            if ((rc = header_add(&j, h, str + b, e - b)))
                return rc;
            start = i + 1;
        }
    } else if (c0 == '[') {
        /* The text names every string element first, then the elements are
         * checked in order (parse_header does the same on the DOM). */
        const char *at = s->p;
        bundle_scan_arr a;
        bundle_jv v;
        int more;
        size_t n = 0;
        if (bundle_scan_array_open(s, &a, NULL))
            return KR_INPUT;
        while ((more = bundle_scan_array_next(s, &a)) == 1) {
            if (bundle_jv_scan(s, &v))
                return KR_INPUT;
            if (n++)
                header_text_append(h, ", ", 2);
            if (v.type == BUNDLE_JT_STRING)
                header_text_append(h, v.str, v.len);
        }
        if (more < 0)
            return KR_INPUT;
        h->kind = malloc((n ? n : 1) * sizeof *h->kind);
        if (!h->kind)
            return oom(err, s->fname);
        s->p = at;
        if (bundle_scan_array_open(s, &a, NULL))
            return KR_INPUT;
        for (size_t i = 0; (more = bundle_scan_array_next(s, &a)) == 1; i++) {
            const char *name;
            size_t len;
            if (bundle_jv_scan(s, &v))
                return KR_INPUT;
            size_t mi = bundle_jpush_index(&j, i);
            if ((rc = bundle_jv_str(&j, &v, &name, &len)))
                return rc;
            bundle_jpop(&j, mi);
            if ((rc = header_add(&j, h, name, len)))
                return rc;
        }
        if (more < 0)
            return KR_INPUT;
    } else {
        bundle_jv v;
        if (bundle_jv_scan(s, &v))
            return KR_INPUT;
        return bundle_jerr(&j, "expected a string or an array of column names, found %s", bundle_jv_kind(&v));
    }
    for (int k = 0; k < COL_COUNT; k++)
        if (col_required(k) && h->pos[k] < 0)
            return bundle_jerr(&j, "missing required column \"%s\" in header \"%s\"", col_names[k], h->text);
    return 0;
}

/* Pass 2: the model from validated text, in bundle_parse_code_jansson's order. */
static int scan_code(bundle_scan *s, const bundle_jtop *top, kr_capture *c, header_map *h, kr_err *err)
{
    const char *fname = s->fname;
    bundle_jctx j;
    bundle_jctx_init(&j, fname, err);
    int rc;
    if (!top->is_object)
        return bundle_jerr(&j, "expected an object, found an array");
    const bundle_jtop_member *hm = bundle_jtop_get(top, "header");
    const bundle_jtop_member *cm = bundle_jtop_get(top, "code");
    const bundle_jtop_member *vm = bundle_jtop_get(top, "version");
    if (!hm)
        return bundle_jerr(&j, "missing key \"header\": not a rocprofv3 code.json (format 3.0.0); "
                               "a code.json without a header is the legacy rocprofv2 ATT plugin format");
    if (!cm)
        return bundle_jerr(&j, "missing key \"code\"");
    bundle_jtop_seek(s, hm);
    if ((rc = scan_header(s, h, err)))
        return rc;
    c->code_version = NULL;
    if (vm) {
        bundle_jv v;
        const char *str;
        size_t len;
        bundle_jtop_seek(s, vm);
        if (bundle_jv_scan(s, &v))
            return KR_INPUT;
        size_t m = bundle_jpush_key(&j, "version");
        if ((rc = bundle_jv_str(&j, &v, &str, &len)))
            return rc;
        bundle_jpop(&j, m);
        if (!(c->code_version = kr_arena_strndup(&c->arena, str, len)))
            return oom(err, fname);
    }

    c->layout = KR_LAYOUT_NONE;
    c->rows = NULL;
    c->nrows = 0;
    c->line_to_row = NULL;
    c->nline_map = 0;
    bundle_jtop_seek(s, cm);
    if (bundle_scan_null(s))
        return 0;
    bundle_jpush_key(&j, "code");
    if (*cm->value != '[') {
        bundle_jv v;
        if (bundle_jv_scan(s, &v))
            return KR_INPUT;
        return bundle_jerr(&j, "expected an array, found %s", bundle_jv_kind(&v));
    }
    size_t n = cm->count;
    if (n > KR_MAX_CODE_ROWS)
        return bundle_jerr(&j, "%zu rows exceed KR_MAX_CODE_ROWS (%u)", n, (unsigned)KR_MAX_CODE_ROWS);
    c->layout = layout_of(h);
    if (n == 0)
        return 0;
    kr_code_row *rows = kr_arena_array(&c->arena, n, sizeof *rows);
    if (!rows)
        return oom(err, fname);
    class_cache *cache = calloc(1, sizeof *cache);
    bundle_scan_arr a;
    if (!cache)
        return oom(err, fname);
    rc = bundle_scan_array_open(s, &a, NULL);
    for (size_t i = 0; i < n && !rc; i++) {
        if (bundle_scan_array_next(s, &a) != 1)
            rc = KR_INPUT;
        else
            rc = scan_row(s, c, cache, h, i, &rows[i], err);
    }
    free(cache);
    return rc ? rc : rows_finish(c, rows, n, h->pos[COL_LINE], fname, err);
}

int bundle_parse_code(kr_capture *c, const char *data, size_t len, const char *fname, kr_err *err)
{
    bundle_scan s;
    bundle_scan_init(&s, data, len, fname, err);
    bundle_jtop top;
    header_map h = {0};
    int rc = bundle_jtop_read(&s, &top);
    if (rc == 0) {
        rc = scan_code(&s, &top, c, &h, err);
        if (rc == KR_INPUT && !err->code)       /* a scanner failure on validated text */
            rc = kr_err_set(err, KR_INTERNAL, fname, NULL, "internal: rescan of validated JSON failed");
    }
    free(h.kind);
    bundle_jtop_free(&top);
    bundle_scan_free(&s);
    if (rc == BUNDLE_JTOP_FALLBACK)
        return bundle_parse_code_jansson(c, data, len, fname, err);
    return rc;
}
