/* load_filenames.c — filenames.json (docs/formats.md#wave-index); see load_filenames.h. */
#include "bundle/load_filenames.h"

#include <stdlib.h>
#include <string.h>

#include "bundle/json_util.h"
#include "common/limits.h"

typedef struct ref_list {
    kr_wave_ref *v;
    size_t n, cap;
} ref_list;

static int ref_push(ref_list *l, const kr_wave_ref *r)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        kr_wave_ref *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = *r;
    return 0;
}

static int ref_cmp(const void *a, const void *b)
{
    const kr_wave_ref *x = a, *y = b;
    if (x->se != y->se) return x->se < y->se ? -1 : 1;
    if (x->simd != y->simd) return x->simd < y->simd ? -1 : 1;
    if (x->slot != y->slot) return x->slot < y->slot ? -1 : 1;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return 0;
}

/* Decimal key of one wave_filenames level into *out. */
static int level_key(bundle_jctx *j, const char *key, const char *level, uint64_t max, uint32_t *out)
{
    uint64_t v;
    if (!bundle_decimal_key(key, UINT32_MAX, &v))
        return bundle_jerr(j, "key \"%s\" is not a decimal %s number", key, level);
    if (v > max)
        return bundle_jerr(j, "%s number %llu exceeds KR_MAX_SE (%u)", level,
                           (unsigned long long)v, (unsigned)KR_MAX_SE);
    *out = (uint32_t)v;
    return 0;
}

/* [file, begin, end] at the current path. */
static int parse_leaf(bundle_jctx *j, kr_capture *c, const json_t *v, kr_wave_ref *r)
{
    int rc = bundle_jexpect_array_n(j, v, 3, "an array [file, begin, end]");
    if (rc)
        return rc;
    const char *file;
    size_t m = bundle_jpush_index(j, 0);
    if ((rc = bundle_jget_str(j, json_array_get(v, 0), &file, NULL)))
        return rc;
    if (!bundle_plain_file_name(file))
        return bundle_jerr(j, "wave file name \"%s\" is not a plain file name inside the capture folder", file);
    bundle_jpop(j, m);
    m = bundle_jpush_index(j, 1);
    if ((rc = bundle_jget_u64(j, json_array_get(v, 1), &r->begin)))
        return rc;
    bundle_jpop(j, m);
    m = bundle_jpush_index(j, 2);
    if ((rc = bundle_jget_u64(j, json_array_get(v, 2), &r->end)))
        return rc;
    bundle_jpop(j, m);
    r->file = kr_arena_strdup(&c->arena, file);
    if (!r->file)
        return kr_err_set(j->err, KR_INTERNAL, j->fname, NULL, "out of memory");
    return 0;
}

static int parse_waves(bundle_jctx *j, kr_capture *c, const json_t *wf, ref_list *out)
{
    static const char *const level[4] = {"SE", "SIMD", "slot", "wave sequence"};
    int rc;
    const char *k0, *k1, *k2, *k3;
    json_t *v0, *v1, *v2, *v3;
    kr_wave_ref r;
    if ((rc = bundle_jexpect_object(j, wf)))
        return rc;
    json_object_foreach((json_t *)wf, k0, v0) {
        memset(&r, 0, sizeof r);
        if ((rc = level_key(j, k0, level[0], KR_MAX_SE - 1, &r.se)))
            return rc;
        size_t m0 = bundle_jpush_key(j, k0);
        if ((rc = bundle_jexpect_object(j, v0)))
            return rc;
        json_object_foreach(v0, k1, v1) {
            if ((rc = level_key(j, k1, level[1], UINT32_MAX, &r.simd)))
                return rc;
            size_t m1 = bundle_jpush_key(j, k1);
            if ((rc = bundle_jexpect_object(j, v1)))
                return rc;
            json_object_foreach(v1, k2, v2) {
                if ((rc = level_key(j, k2, level[2], UINT32_MAX, &r.slot)))
                    return rc;
                size_t m2 = bundle_jpush_key(j, k2);
                if ((rc = bundle_jexpect_object(j, v2)))
                    return rc;
                json_object_foreach(v2, k3, v3) {
                    if ((rc = level_key(j, k3, level[3], UINT32_MAX, &r.id)))
                        return rc;
                    size_t m3 = bundle_jpush_key(j, k3);
                    if ((rc = parse_leaf(j, c, v3, &r)))
                        return rc;
                    bundle_jpop(j, m3);
                    if (out->n >= KR_MAX_WAVES)
                        return bundle_jerr(j, "more than KR_MAX_WAVES (%u) wave files", (unsigned)KR_MAX_WAVES);
                    if (ref_push(out, &r))
                        return kr_err_set(j->err, KR_INTERNAL, j->fname, NULL, "out of memory");
                }
                bundle_jpop(j, m2);
            }
            bundle_jpop(j, m1);
        }
        bundle_jpop(j, m0);
    }
    return 0;
}

/* other_simd_filenames / shaderdata_filenames: SE → array of [file, begin, end]
 * (newer writers); checked for shape only. */
static int check_se_lists(bundle_jctx *j, const json_t *root, const char *key)
{
    json_t *v;
    int rc = bundle_jmember(j, root, key, 0, &v);
    if (rc || !v || json_is_null(v))
        return rc;
    size_t m = bundle_jpush_key(j, key);
    if ((rc = bundle_jexpect_object(j, v)))
        return rc;
    const char *k;
    json_t *list;
    json_object_foreach(v, k, list) {
        size_t mk = bundle_jpush_key(j, k);
        if (!json_is_null(list) && (rc = bundle_jexpect_array(j, list)))
            return rc;
        bundle_jpop(j, mk);
    }
    bundle_jpop(j, m);
    return 0;
}

int bundle_parse_filenames(kr_capture *c, const char *data, size_t len, const char *fname, kr_err *err)
{
    json_t *root;
    int rc = bundle_json_parse(data, len, fname, &root, err);
    if (rc)
        return rc;
    bundle_jctx j;
    bundle_jctx_init(&j, fname, err);
    ref_list refs = {0};
    json_t *v;
    const char *s;

    if ((rc = bundle_jexpect_object(&j, root)))
        goto out;

    s = NULL;
    if ((rc = bundle_jkey_str(&j, root, "version", 0, &s)))
        goto out;
    c->version = s ? kr_arena_strdup(&c->arena, s) : NULL;
    c->gfxip = 9;                       /* the writer's default (docs/formats.md#wave-index) */
    if ((rc = bundle_jkey_i64(&j, root, "gfxip", 0, &c->gfxip)))
        goto out;
    s = NULL;
    if ((rc = bundle_jkey_str(&j, root, "gfxv", 0, &s)))
        goto out;
    c->gfxv = s ? kr_arena_strdup(&c->arena, s) : NULL;
    int64_t gbt;
    if ((rc = bundle_jkey_i64(&j, root, "global_begin_time", 0, &gbt)))
        goto out;

    if ((rc = bundle_jmember(&j, root, "counter_names", 0, &v)))
        goto out;
    if (v && !json_is_null(v)) {
        size_t m = bundle_jpush_key(&j, "counter_names");
        if ((rc = bundle_jexpect_array(&j, v)))
            goto out;
        size_t n = json_array_size(v);
        c->counter_names = kr_arena_array(&c->arena, n ? n : 1, sizeof *c->counter_names);
        if (!c->counter_names) {
            rc = kr_err_set(err, KR_INTERNAL, fname, NULL, "out of memory");
            goto out;
        }
        for (size_t i = 0; i < n; i++) {
            size_t mi = bundle_jpush_index(&j, i);
            if ((rc = bundle_jget_str(&j, json_array_get(v, i), &s, NULL)))
                goto out;
            c->counter_names[i] = kr_arena_strdup(&c->arena, s);
            bundle_jpop(&j, mi);
        }
        c->ncounter_names = n;
        bundle_jpop(&j, m);
    }

    static const char *const bools[] = {"thread_trace", "pc_sampling", "is_pcs_stochastic"};
    for (size_t i = 0; i < sizeof bools / sizeof bools[0]; i++) {
        if ((rc = bundle_jmember(&j, root, bools[i], 0, &v)))
            goto out;
        if (v) {
            int b;
            size_t m = bundle_jpush_key(&j, bools[i]);
            if ((rc = bundle_jget_bool(&j, v, &b)))
                goto out;
            bundle_jpop(&j, m);
        }
    }
    if ((rc = check_se_lists(&j, root, "other_simd_filenames")) ||
        (rc = check_se_lists(&j, root, "shaderdata_filenames")))
        goto out;

    if ((rc = bundle_jmember(&j, root, "wave_filenames", 1, &v)))
        goto out;
    if (json_is_null(v)) {
        c->wave_filenames_null = 1;
    } else {
        size_t m = bundle_jpush_key(&j, "wave_filenames");
        if ((rc = parse_waves(&j, c, v, &refs)))
            goto out;
        bundle_jpop(&j, m);
    }
    if (refs.n) {
        qsort(refs.v, refs.n, sizeof *refs.v, ref_cmp);
        c->wave_refs = kr_arena_array(&c->arena, refs.n, sizeof *c->wave_refs);
        if (!c->wave_refs) {
            rc = kr_err_set(err, KR_INTERNAL, fname, NULL, "out of memory");
            goto out;
        }
        memcpy(c->wave_refs, refs.v, refs.n * sizeof *refs.v);
    }
    c->nwave_refs = refs.n;
    rc = 0;
out:
    free(refs.v);
    json_decref(root);
    return rc;
}
