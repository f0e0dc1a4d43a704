/* load_occupancy.c — occupancy.json (FORMATS.md §6.1); see load_occupancy.h. */
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

static int parse_row(bundle_jctx *j, const json_t *rv, kr_occ_row *row, uint8_t *width)
{
    int rc;
    if (!json_is_array(rv))
        return bundle_jerr(j, "expected an array of 6 or 11 integers, found %s", bundle_json_kind(rv));
    size_t n = json_array_size(rv);
    if (n != 6 && n != 11)
        return bundle_jerr(j, "expected an array of 6 or 11 integers, found an array of %zu elements", n);
    if (n > *width)
        *width = (uint8_t)n;
    static const int64_t hi[6] = {INT64_MAX, UINT32_MAX, UINT8_MAX, UINT8_MAX, 1, UINT32_MAX};
    static const char *const names[11] = {"time", "cu", "simd", "slot", "start", "kernel id",
        "me_id", "pipe_id", "is_ext", "workgroup_id", "cluster_id"};
    int64_t v[6];
    for (size_t i = 0; i < n; i++) {
        size_t m = bundle_jpush_index(j, i);
        int64_t x;
        if (i < 6)
            rc = bundle_jget_range(j, json_array_get(rv, i), 0, hi[i], &v[i]);
        else
            rc = bundle_jget_i64(j, json_array_get(rv, i), &x);
        if (rc)
            return bundle_err_prefix(j->err, rc, names[i]);
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

int bundle_parse_occupancy(kr_capture *c, const char *data, size_t len, const char *fname, kr_err *err)
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
