/* load_occupancy.c — occupancy.json (docs/formats.md#occupancy-events); see load_occupancy.h.
 *
 * bundle_parse_occupancy streams the text with the scanner (pass 1 validates
 * it and lists the top-level members, bundle_jtop_read; pass 2 walks them in
 * the order the DOM walk of bundle_parse_occupancy_jansson does, with the
 * same checks and messages). */
#include "bundle/load_occupancy.h"

#include <stdlib.h>
#include <string.h>

#include "bundle/json_util.h"
#include "common/limits.h"

static int se_cmp(const void *a, const void *b)
{
    const kr_occ_se *x = a, *y = b;
    return x->se < y->se ? -1 : x->se > y->se;
}

static int disp_cmp(const void *a, const void *b)
{
    const kr_occ_dispatch *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Row cells (docs/formats.md#occupancy-events): upper bounds of the first six, names of all eleven. */
static const int64_t cell_hi[6] = {INT64_MAX, UINT32_MAX, UINT8_MAX, UINT8_MAX, 1, UINT32_MAX};
static const char *const cell_names[11] = {"time", "cu", "simd", "slot", "start", "kernel id",
    "me_id", "pipe_id", "is_ext", "workgroup_id", "cluster_id"};

static const char *const row_what = "an array of 6 or 11 integers";

static int parse_row(bundle_jctx *j, const json_t *rv, kr_occ_row *row, uint8_t *width)
{
    int rc;
    if (!json_is_array(rv))
        return bundle_jerr(j, "expected %s, found %s", row_what, bundle_json_kind(rv));
    size_t n = json_array_size(rv);
    if (n != 6 && n != 11)
        return bundle_jerr(j, "expected %s, found an array of %zu elements", row_what, n);
    if (n > *width)
        *width = (uint8_t)n;
    int64_t v[6];
    for (size_t i = 0; i < n; i++) {
        size_t m = bundle_jpush_index(j, i);
        int64_t x;
        if (i < 6)
            rc = bundle_jget_range(j, json_array_get(rv, i), 0, cell_hi[i], &v[i]);
        else
            rc = bundle_jget_i64(j, json_array_get(rv, i), &x);
        if (rc)
            return bundle_err_prefix(j->err, rc, cell_names[i]);
        bundle_jpop(j, m);
    }
    row->time = (uint64_t)v[0];
    row->cu = (uint32_t)v[1];
    row->simd = (uint8_t)v[2];
    row->slot = (uint8_t)v[3];
    row->start = (uint8_t)v[4];
    row->kernel_id = (uint32_t)v[5];
    return 0;
}

int bundle_parse_occupancy_jansson(kr_capture *c, const char *data, size_t len, const char *fname, kr_err *err)
{
    json_t *root;
    int rc = bundle_json_parse(data, len, fname, &root, err);
    if (rc)
        return rc;
    bundle_jctx j;
    bundle_jctx_init(&j, fname, err);
    kr_occupancy occ = {0};
    const char *key;
    json_t *v;

    if ((rc = bundle_jexpect_object(&j, root)))
        goto out;
    size_t nse = 0;
    json_object_foreach(root, key, v) {
        uint64_t se;
        if (bundle_decimal_key(key, UINT32_MAX, &se)) {
            if (se >= KR_MAX_SE) {
                rc = bundle_jerr(&j, "SE number %llu exceeds KR_MAX_SE (%u)", (unsigned long long)se, (unsigned)KR_MAX_SE);
                goto out;
            }
            nse++;
        } else if (strcmp(key, "dispatches") != 0 && strcmp(key, "version") != 0 && strcmp(key, "events") != 0) {
            rc = bundle_jerr(&j, "unknown key \"%s\" (expected a decimal SE number, \"dispatches\", \"version\" or \"events\")", key);
            goto out;
        }
    }
    occ.ses = kr_arena_array(&c->arena, nse ? nse : 1, sizeof *occ.ses);
    if (!occ.ses) {
        rc = kr_err_set(err, KR_INTERNAL, fname, NULL, "out of memory");
        goto out;
    }
    json_object_foreach(root, key, v) {
        uint64_t se;
        if (!bundle_decimal_key(key, UINT32_MAX, &se))
            continue;
        size_t m = bundle_jpush_key(&j, key);
        kr_occ_se *s = &occ.ses[occ.nses++];
        s->se = (uint32_t)se;
        if (json_is_null(v)) {
            bundle_jpop(&j, m);
            continue;
        }
        if ((rc = bundle_jexpect_array(&j, v)))
            goto out;
        size_t n = json_array_size(v);
        if (n > KR_MAX_OCC_ROWS) {
            rc = bundle_jerr(&j, "%zu rows exceed KR_MAX_OCC_ROWS (%u)", n, (unsigned)KR_MAX_OCC_ROWS);
            goto out;
        }
        s->rows = kr_arena_array(&c->arena, n ? n : 1, sizeof *s->rows);
        if (!s->rows) {
            rc = kr_err_set(err, KR_INTERNAL, fname, NULL, "out of memory");
            goto out;
        }
        for (size_t i = 0; i < n; i++) {
            size_t mi = bundle_jpush_index(&j, i);
            if ((rc = parse_row(&j, json_array_get(v, i), &s->rows[i], &occ.row_width)))
                goto out;
            bundle_jpop(&j, mi);
        }
        s->nrows = n;
        bundle_jpop(&j, m);
    }
    qsort(occ.ses, occ.nses, sizeof *occ.ses, se_cmp);
    for (size_t i = 1; i < occ.nses; i++)
        if (occ.ses[i].se == occ.ses[i - 1].se) {
            rc = bundle_jerr(&j, "SE %u appears twice (keys with leading zeros?)", occ.ses[i].se);
            goto out;
        }

    if ((rc = bundle_jmember(&j, root, "dispatches", 0, &v)))
        goto out;
    if (v) {
        size_t m = bundle_jpush_key(&j, "dispatches");
        if ((rc = bundle_jexpect_object(&j, v)))
            goto out;
        size_t n = json_object_size(v);
        occ.dispatches = kr_arena_array(&c->arena, n ? n : 1, sizeof *occ.dispatches);
        if (!occ.dispatches) {
            rc = kr_err_set(err, KR_INTERNAL, fname, NULL, "out of memory");
            goto out;
        }
        json_t *name;
        json_object_foreach(v, key, name) {
            uint64_t id;
            if (!bundle_decimal_key(key, UINT32_MAX, &id)) {
                rc = bundle_jerr(&j, "key \"%s\" is not a decimal kernel id", key);
                goto out;
            }
            size_t mk = bundle_jpush_key(&j, key);
            const char *s;
            if ((rc = bundle_jget_str(&j, name, &s, NULL)))
                goto out;
            bundle_jpop(&j, mk);
            kr_occ_dispatch *d = &occ.dispatches[occ.ndispatches++];
            d->id = (uint32_t)id;
            d->name = kr_arena_strdup(&c->arena, s);
        }
        qsort(occ.dispatches, occ.ndispatches, sizeof *occ.dispatches, disp_cmp);
        for (size_t i = 1; i < occ.ndispatches; i++)
            if (occ.dispatches[i].id == occ.dispatches[i - 1].id) {
                rc = bundle_jerr(&j, "kernel id %u appears twice (keys with leading zeros?)", occ.dispatches[i].id);
                goto out;
            }
        bundle_jpop(&j, m);
    }
    const char *version = NULL;
    if ((rc = bundle_jkey_str(&j, root, "version", 0, &version)))
        goto out;
    occ.version = version ? kr_arena_strdup(&c->arena, version) : NULL;
    occ.present = 1;
    c->occupancy = occ;
    rc = 0;
out:
    json_decref(root);
    return rc;
}

/* ---- the streaming parser ---- */

/* Cell k of a row failed `v`: the DOM walk's message at $.<key>[row][k]. */
static int cell_fail(bundle_jctx *j, size_t row, size_t k, const bundle_jv *v)
{
    bundle_jpush_index(j, row);
    bundle_jpush_index(j, k);
    int64_t x;
    int rc = k < 6 ? bundle_jv_range(j, v, 0, cell_hi[k], &x) : bundle_jv_i64(j, v, &x);
    if (!rc)        /* the inline test and the check disagree: cannot happen */
        rc = kr_err_set(j->err, KR_INTERNAL, j->fname, j->path, "internal: value check mismatch");
    return bundle_err_prefix(j->err, rc, cell_names[k]);
}

/* Row `i` of the SE whose path j holds; the scanner at it. Precedence as in
 * parse_row: not an array, the length, then the first bad cell. */
static int scan_row(bundle_scan *s, bundle_jctx *j, size_t i, kr_occ_row *row, uint8_t *width)
{
    bundle_jv v;
    if (bundle_scan_peek(s) != '[') {
        if (bundle_jv_scan(s, &v))
            return KR_INPUT;
        size_t m = bundle_jpush_index(j, i);
        int rc = bundle_jerr(j, "expected %s, found %s", row_what, bundle_jv_kind(&v));
        bundle_jpop(j, m);
        return rc;
    }
    bundle_scan_arr a;
    if (bundle_scan_array_open(s, &a, NULL))
        return KR_INPUT;
    int64_t cells[6];
    size_t n = 0, bad_at = 0;
    bundle_jv bad;                   /* the first bad cell */
    int have_bad = 0, more;
    while ((more = bundle_scan_array_next(s, &a)) == 1) {
        if (have_bad || n >= 11) {
            if (bundle_scan_skip(s))
                return KR_INPUT;
        } else {
            if (bundle_jv_scan(s, &v))
                return KR_INPUT;
            int ok = v.type == BUNDLE_JT_INTEGER && (n >= 6 || (v.i >= 0 && v.i <= cell_hi[n]));
            if (ok && n < 6)
                cells[n] = v.i;
            if (!ok) {
                have_bad = 1;
                bad = v;     /* a string cell is not kept: the message names only the kind */
                bad_at = n;
            }
        }
        n++;
    }
    if (more < 0)
        return KR_INPUT;
    if (n != 6 && n != 11) {
        size_t m = bundle_jpush_index(j, i);
        int rc = bundle_jerr(j, "expected %s, found an array of %zu elements", row_what, n);
        bundle_jpop(j, m);
        return rc;
    }
    if (have_bad) {
        size_t m = j->len;
        int rc = cell_fail(j, i, bad_at, &bad);
        bundle_jpop(j, m);
        return rc;
    }
    if (n > *width)
        *width = (uint8_t)n;
    row->time = (uint64_t)cells[0];
    row->cu = (uint32_t)cells[1];
    row->simd = (uint8_t)cells[2];
    row->slot = (uint8_t)cells[3];
    row->start = (uint8_t)cells[4];
    row->kernel_id = (uint32_t)cells[5];
    return 0;
}

/* "dispatches" (decimal kernel id -> name) at the scanner; j at $.dispatches. */
static int scan_dispatches(bundle_scan *s, bundle_jctx *j, kr_capture *c, kr_occupancy *occ, size_t count)
{
    occ->dispatches = kr_arena_array(&c->arena, count ? count : 1, sizeof *occ->dispatches);
    if (!occ->dispatches)
        return kr_err_set(j->err, KR_INTERNAL, j->fname, NULL, "out of memory");
    bundle_scan_obj o;
    if (bundle_scan_object_open(s, &o, NULL))
        return KR_INPUT;
    char small[64], *key = NULL;
    int rc = 0, more;
    const char *k;
    size_t klen;
    while (!rc && (more = bundle_scan_object_key(s, &o, &k, &klen)) == 1) {
        /* the key as a C string (decoded keys hold no NUL: "\u0000" is rejected) */
        char *kz = klen < sizeof small ? small : (key = realloc(key, klen + 1));
        if (!kz) {
            rc = kr_err_set(j->err, KR_INTERNAL, j->fname, NULL, "out of memory");
            break;
        }
        memcpy(kz, k, klen);
        kz[klen] = '\0';
        uint64_t id;
        if (!bundle_decimal_key(kz, UINT32_MAX, &id)) {
            rc = bundle_jerr(j, "key \"%s\" is not a decimal kernel id", kz);
            break;
        }
        bundle_jv v;
        const char *name;
        size_t nlen;
        if (bundle_jv_scan(s, &v)) {
            rc = KR_INPUT;
            break;
        }
        size_t mk = bundle_jpush_key(j, kz);
        if ((rc = bundle_jv_str(j, &v, &name, &nlen)))
            break;
        bundle_jpop(j, mk);
        kr_occ_dispatch *d = &occ->dispatches[occ->ndispatches++];
        d->id = (uint32_t)id;
        if (!(d->name = kr_arena_strndup(&c->arena, name, nlen)))
            rc = kr_err_set(j->err, KR_INTERNAL, j->fname, NULL, "out of memory");
    }
    free(key);
    if (rc)
        return rc;
    if (more < 0)
        return KR_INPUT;
    qsort(occ->dispatches, occ->ndispatches, sizeof *occ->dispatches, disp_cmp);
    for (size_t i = 1; i < occ->ndispatches; i++)
        if (occ->dispatches[i].id == occ->dispatches[i - 1].id)
            return bundle_jerr(j, "kernel id %u appears twice (keys with leading zeros?)", occ->dispatches[i].id);
    return 0;
}

/* Pass 2, in bundle_parse_occupancy_jansson's order. */
static int scan_occupancy(bundle_scan *s, const bundle_jtop *top, kr_capture *c, kr_err *err)
{
    bundle_jctx j;
    bundle_jctx_init(&j, s->fname, err);
    kr_occupancy occ = {0};
    int rc;
    if (!top->is_object)
        return bundle_jerr(&j, "expected an object, found an array");
    size_t nse = 0;
    for (size_t i = 0; i < top->n; i++) {
        const char *key = top->m[i].key;
        uint64_t se;
        if (bundle_decimal_key(key, UINT32_MAX, &se)) {
            if (se >= KR_MAX_SE)
                return bundle_jerr(&j, "SE number %llu exceeds KR_MAX_SE (%u)", (unsigned long long)se, (unsigned)KR_MAX_SE);
            nse++;
        } else if (strcmp(key, "dispatches") != 0 && strcmp(key, "version") != 0 && strcmp(key, "events") != 0) {
            return bundle_jerr(&j, "unknown key \"%s\" (expected a decimal SE number, \"dispatches\", \"version\" or \"events\")", key);
        }
    }
    occ.ses = kr_arena_array(&c->arena, nse ? nse : 1, sizeof *occ.ses);
    if (!occ.ses)
        return kr_err_set(err, KR_INTERNAL, s->fname, NULL, "out of memory");
    for (size_t i = 0; i < top->n; i++) {
        const bundle_jtop_member *m = &top->m[i];
        uint64_t se;
        if (!bundle_decimal_key(m->key, UINT32_MAX, &se))
            continue;
        size_t mark = bundle_jpush_key(&j, m->key);
        kr_occ_se *e = &occ.ses[occ.nses++];
        e->se = (uint32_t)se;
        bundle_jtop_seek(s, m);
        if (bundle_scan_null(s)) {
            bundle_jpop(&j, mark);
            continue;
        }
        if (*m->value != '[') {
            bundle_jv v;
            if (bundle_jv_scan(s, &v))
                return KR_INPUT;
            return bundle_jerr(&j, "expected an array, found %s", bundle_jv_kind(&v));
        }
        size_t n = m->count;
        if (n > KR_MAX_OCC_ROWS)
            return bundle_jerr(&j, "%zu rows exceed KR_MAX_OCC_ROWS (%u)", n, (unsigned)KR_MAX_OCC_ROWS);
        e->rows = kr_arena_array(&c->arena, n ? n : 1, sizeof *e->rows);
        if (!e->rows)
            return kr_err_set(err, KR_INTERNAL, s->fname, NULL, "out of memory");
        bundle_scan_arr a;
        if (bundle_scan_array_open(s, &a, NULL))
            return KR_INPUT;
        for (size_t r = 0; r < n; r++) {
            if (bundle_scan_array_next(s, &a) != 1)
                return KR_INPUT;
            if ((rc = scan_row(s, &j, r, &e->rows[r], &occ.row_width)))
                return rc;
        }
        e->nrows = n;
        bundle_jpop(&j, mark);
    }
    qsort(occ.ses, occ.nses, sizeof *occ.ses, se_cmp);
    for (size_t i = 1; i < occ.nses; i++)
        if (occ.ses[i].se == occ.ses[i - 1].se)
            return bundle_jerr(&j, "SE %u appears twice (keys with leading zeros?)", occ.ses[i].se);

    const bundle_jtop_member *dm = bundle_jtop_get(top, "dispatches");
    if (dm) {
        size_t mark = bundle_jpush_key(&j, "dispatches");
        bundle_jtop_seek(s, dm);
        if (*dm->value != '{') {
            bundle_jv v;
            if (bundle_jv_scan(s, &v))
                return KR_INPUT;
            return bundle_jerr(&j, "expected an object, found %s", bundle_jv_kind(&v));
        }
        /* count the members first: the table is allocated before the walk */
        const char *at = s->p;
        size_t count = 0;
        bundle_scan_obj o;
        const char *k;
        size_t klen;
        int more;
        if (bundle_scan_object_open(s, &o, NULL))
            return KR_INPUT;
        while ((more = bundle_scan_object_key(s, &o, &k, &klen)) == 1) {
            if (bundle_scan_skip(s))
                return KR_INPUT;
            count++;
        }
        if (more < 0)
            return KR_INPUT;
        s->p = at;
        if ((rc = scan_dispatches(s, &j, c, &occ, count)))
            return rc;
        bundle_jpop(&j, mark);
    }
    const bundle_jtop_member *vm = bundle_jtop_get(top, "version");
    if (vm) {
        bundle_jv v;
        const char *str;
        size_t len;
        bundle_jtop_seek(s, vm);
        if (bundle_jv_scan(s, &v))
            return KR_INPUT;
        size_t mark = bundle_jpush_key(&j, "version");
        if ((rc = bundle_jv_str(&j, &v, &str, &len)))
            return rc;
        bundle_jpop(&j, mark);
        if (!(occ.version = kr_arena_strndup(&c->arena, str, len)))
            return kr_err_set(err, KR_INTERNAL, s->fname, NULL, "out of memory");
    }
    occ.present = 1;
    c->occupancy = occ;
    return 0;
}

int bundle_parse_occupancy(kr_capture *c, const char *data, size_t len, const char *fname, kr_err *err)
{
    bundle_scan s;
    bundle_scan_init(&s, data, len, fname, err);
    bundle_jtop top;
    int rc = bundle_jtop_read(&s, &top);
    if (rc == 0) {
        rc = scan_occupancy(&s, &top, c, err);
        if (rc == KR_INPUT && !err->code)       /* a scanner failure on validated text */
            rc = kr_err_set(err, KR_INTERNAL, fname, NULL, "internal: rescan of validated JSON failed");
    }
    bundle_jtop_free(&top);
    bundle_scan_free(&s);
    if (rc == BUNDLE_JTOP_FALLBACK)
        return bundle_parse_occupancy_jansson(c, data, len, fname, err);
    return rc;
}
