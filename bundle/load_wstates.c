/* load_wstates.c — wstates<k>.json (FORMATS.md §5); see load_wstates.h. */
#include "bundle/load_wstates.h"

#include "bundle/json_util.h"
#include "common/limits.h"

int bundle_parse_wstates(kr_capture *c, unsigned k, const char *data, size_t len, const char *fname, kr_err *err)
{
    if (k >= KR_STATE_COUNT)
        return kr_err_set(err, KR_INTERNAL, fname, NULL, "wave state %u out of range", k);
    json_t *root;
    int rc = bundle_json_parse(data, len, fname, &root, err);
    if (rc)
        return rc;
    bundle_jctx j;
    bundle_jctx_init(&j, fname, err);
    kr_wstates ws = {0};
    json_t *state, *time;
    const char *name;

    if ((rc = bundle_jexpect_object(&j, root)) ||
        (rc = bundle_jkey_str(&j, root, "name", 1, &name)) ||
        (rc = bundle_jmember(&j, root, "state", 1, &state)) ||
        (rc = bundle_jmember(&j, root, "time", 1, &time)))
        goto out;
    size_t m = bundle_jpush_key(&j, "state");
    if ((rc = bundle_jexpect_array(&j, state)))
        goto out;
    bundle_jpop(&j, m);
    m = bundle_jpush_key(&j, "time");
    if ((rc = bundle_jexpect_array(&j, time)))
        goto out;
    bundle_jpop(&j, m);
    size_t n = json_array_size(state);
    if (json_array_size(time) != n) {
        rc = bundle_jerr(&j, "\"state\" has %zu entries but \"time\" has %zu", n, json_array_size(time));
        goto out;
    }
    if (n > KR_MAX_RECORDS_PER_WAVE) {
        rc = bundle_jerr(&j, "%zu entries exceed KR_MAX_RECORDS_PER_WAVE (%u)", n, (unsigned)KR_MAX_RECORDS_PER_WAVE);
        goto out;
    }
    ws.name = kr_arena_strdup(&c->arena, name);
    ws.count = kr_arena_array(&c->arena, n ? n : 1, sizeof *ws.count);
    ws.time = kr_arena_array(&c->arena, n ? n : 1, sizeof *ws.time);
    if (!ws.name || !ws.count || !ws.time) {
        rc = kr_err_set(err, KR_INTERNAL, fname, NULL, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        m = bundle_jpush_key(&j, "state");
        bundle_jpush_index(&j, i);
        if ((rc = bundle_jget_i64(&j, json_array_get(state, i), &ws.count[i])))
            goto out;
        bundle_jpop(&j, m);
        m = bundle_jpush_key(&j, "time");
        bundle_jpush_index(&j, i);
        if ((rc = bundle_jget_u64(&j, json_array_get(time, i), &ws.time[i])))
            goto out;
        bundle_jpop(&j, m);
    }
    ws.n = n;
    ws.present = 1;
    c->wstates[k] = ws;
    rc = 0;
out:
    json_decref(root);
    return rc;
}
