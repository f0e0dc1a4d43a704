/* load_realtime.c — realtime.json (docs/formats.md#realtime-samples); see load_realtime.h. */
#include "bundle/load_realtime.h"

#include <stdlib.h>
#include <string.h>

#include "bundle/json_util.h"
#include "common/limits.h"

typedef __int128 i128;

static int se_cmp(const void *a, const void *b)
{
    const kr_rt_se *x = a, *y = b;
    return x->se < y->se ? -1 : x->se > y->se;
}

/* 1 and the SE number if key matches ^SE[0-9]+$. */
static int se_key(const char *key, uint64_t *se)
{
    return key[0] == 'S' && key[1] == 'E' && bundle_decimal_key(key + 2, UINT32_MAX, se);
}

static void lo_hi(const kr_rt_se *s, kr_rt_sample *lo, kr_rt_sample *hi)
{
    *lo = *hi = s->samples[0];
    for (size_t i = 1; i < s->n; i++) {
        kr_rt_sample x = s->samples[i];
        if (x.shader < lo->shader || (x.shader == lo->shader && x.realtime < lo->realtime))
            *lo = x;
        if (x.shader > hi->shader || (x.shader == hi->shader && x.realtime > hi->realtime))
            *hi = x;
    }
}

/* (origin_i − origin_a) × S = (rc_i − rc_a)·S − (sc_i − sc_a)·R; 0 on overflow. */
static int origin_diff(const kr_rt_sample *i, const kr_rt_sample *a, i128 S, i128 R, i128 *out)
{
    i128 drc = (i128)i->realtime - (i128)a->realtime;
    i128 dsc = (i128)i->shader - (i128)a->shader;
    i128 x, y;
    if (__builtin_mul_overflow(drc, S, &x) || __builtin_mul_overflow(dsc, R, &y) ||
        __builtin_sub_overflow(x, y, out))
        return 0;
    return 1;
}

void bundle_realtime_derive(kr_realtime *rt)
{
    rt->clock_hz = 0;
    rt->aligned = 0;
    memset(rt->se_offset, 0, sizeof rt->se_offset);
    i128 S = 0, R = 0;
    size_t with_samples = 0;
    for (size_t i = 0; i < rt->nses; i++) {
        const kr_rt_se *s = &rt->ses[i];
        if (s->n == 0)
            continue;
        with_samples++;
        kr_rt_sample lo, hi;
        lo_hi(s, &lo, &hi);
        if (hi.shader > lo.shader && hi.realtime > lo.realtime) {
            S += (i128)(hi.shader - lo.shader);
            R += (i128)(hi.realtime - lo.realtime);
        }
    }
    if (S <= 0 || R <= 0)
        return;
    if (rt->frequency)
        rt->clock_hz = (double)S * (double)rt->frequency / (double)R;
    if (with_samples < 2)
        return;

    /* Anchor: smallest origin, ties to the lowest SE (ses are sorted). */
    const kr_rt_se *anchor = NULL;
    kr_rt_sample alo = {0, 0};
    for (size_t i = 0; i < rt->nses; i++) {
        const kr_rt_se *s = &rt->ses[i];
        if (s->n == 0)
            continue;
        kr_rt_sample lo, hi;
        lo_hi(s, &lo, &hi);
        i128 d;
        if (!anchor) {
            anchor = s;
            alo = lo;
            continue;
        }
        if (!origin_diff(&lo, &alo, S, R, &d))
            return;
        if (d < 0) {
            anchor = s;
            alo = lo;
        }
    }
    int64_t off[KR_MAX_SE] = {0};
    for (size_t i = 0; i < rt->nses; i++) {
        const kr_rt_se *s = &rt->ses[i];
        if (s->n == 0 || s->se >= KR_MAX_SE)
            continue;
        kr_rt_sample lo, hi;
        lo_hi(s, &lo, &hi);
        i128 n;
        if (!origin_diff(&lo, &alo, S, R, &n))
            return;
        /* offset = n / R, rounded half away from zero */
        i128 q = n / R, r = n % R;
        if (r < 0)
            r = -r;
        if (2 * r >= R)
            q += n < 0 ? -1 : 1;
        if (q > INT64_MAX || q < INT64_MIN)
            return;
        off[s->se] = (int64_t)q;
    }
    memcpy(rt->se_offset, off, sizeof off);
    rt->aligned = 1;
}

int bundle_parse_realtime(kr_capture *c, const char *data, size_t len, const char *fname, kr_err *err)
{
    json_t *root;
    int rc = bundle_json_parse(data, len, fname, &root, err);
    if (rc)
        return rc;
    bundle_jctx j;
    bundle_jctx_init(&j, fname, err);
    kr_realtime rt = {0};
    const char *key;
    json_t *v;

    if ((rc = bundle_jexpect_object(&j, root)))
        goto out;
    size_t nse = 0;
    json_object_foreach(root, key, v) {
        uint64_t se;
        if (!se_key(key, &se))
            continue;
        if (se >= KR_MAX_SE) {
            rc = bundle_jerr(&j, "key \"%s\": SE number exceeds KR_MAX_SE (%u)", key, (unsigned)KR_MAX_SE);
            goto out;
        }
        nse++;
    }
    rt.ses = kr_arena_array(&c->arena, nse ? nse : 1, sizeof *rt.ses);
    if (!rt.ses) {
        rc = kr_err_set(err, KR_INTERNAL, fname, NULL, "out of memory");
        goto out;
    }
    json_object_foreach(root, key, v) {
        uint64_t se;
        if (!se_key(key, &se))
            continue;
        size_t m = bundle_jpush_key(&j, key);
        kr_rt_se *s = &rt.ses[rt.nses++];
        s->se = (uint32_t)se;
        if (json_is_null(v)) {
            bundle_jpop(&j, m);
            continue;
        }
        if ((rc = bundle_jexpect_array(&j, v)))
            goto out;
        size_t n = json_array_size(v);
        if (n > KR_MAX_OCC_ROWS) {
            rc = bundle_jerr(&j, "%zu samples exceed KR_MAX_OCC_ROWS (%u)", n, (unsigned)KR_MAX_OCC_ROWS);
            goto out;
        }
        s->samples = kr_arena_array(&c->arena, n ? n : 1, sizeof *s->samples);
        if (!s->samples) {
            rc = kr_err_set(err, KR_INTERNAL, fname, NULL, "out of memory");
            goto out;
        }
        for (size_t i = 0; i < n; i++) {
            json_t *p = json_array_get(v, i);
            size_t mi = bundle_jpush_index(&j, i);
            if ((rc = bundle_jexpect_array_n(&j, p, 2, "a sample [shader_clock, realtime_clock]")))
                goto out;
            size_t me = bundle_jpush_index(&j, 0);
            if ((rc = bundle_jget_u64(&j, json_array_get(p, 0), &s->samples[i].shader)))
                goto out;
            bundle_jpop(&j, me);
            me = bundle_jpush_index(&j, 1);
            if ((rc = bundle_jget_u64(&j, json_array_get(p, 1), &s->samples[i].realtime)))
                goto out;
            bundle_jpop(&j, mi);
        }
        s->n = n;
        bundle_jpop(&j, m);
    }
    qsort(rt.ses, rt.nses, sizeof *rt.ses, se_cmp);
    for (size_t i = 1; i < rt.nses; i++)
        if (rt.ses[i].se == rt.ses[i - 1].se) {
            rc = bundle_jerr(&j, "SE%u appears twice (keys with leading zeros?)", rt.ses[i].se);
            goto out;
        }

    if ((rc = bundle_jmember(&j, root, "metadata", 0, &v)))
        goto out;
    if (v) {
        size_t m = bundle_jpush_key(&j, "metadata");
        const char *desc = NULL;
        if ((rc = bundle_jexpect_object(&j, v)) ||
            (rc = bundle_jkey_u64(&j, v, "frequency", 0, &rt.frequency)) ||
            (rc = bundle_jkey_str(&j, v, "descriptor", 0, &desc)))
            goto out;
        rt.descriptor = desc ? kr_arena_strdup(&c->arena, desc) : NULL;
        bundle_jpop(&j, m);
    }
    bundle_realtime_derive(&rt);
    rt.present = 1;
    c->realtime = rt;
    rc = 0;
out:
    json_decref(root);
    return rc;
}
