/* load_wstates.c — wstates<k>.json (docs/formats.md#wave-state-curves); see load_wstates.h.
 *
 * These files are long integer arrays (one entry per state change of every
 * wave), so they go through the streaming scanner (bundle/scan.h) like the
 * wave files: no DOM, no per-value allocation, the path formatted only when
 * an error is reported. */
#include "bundle/load_wstates.h"

#include <stdlib.h>
#include <string.h>

#include "bundle/scan.h"
#include "common/limits.h"

typedef struct { void *data; size_t n, cap; } grow_arr;

static int grow_push(grow_arr *g, const void *v, size_t size)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 1024;
        void *p = realloc(g->data, cap * size);
        if (!p)
            return -1;
        g->data = p;
        g->cap = cap;
    }
    memcpy((char *)g->data + g->n * size, v, size);
    g->n++;
    return 0;
}

static int read_array(bundle_scan *s, const char *key, int is_signed, grow_arr *out)
{
    bundle_scan_arr a;
    int rc = bundle_scan_array_open(s, &a, key);
    if (rc)
        return rc;
    for (;;) {
        int more = bundle_scan_array_next(s, &a);
        if (more < 0)
            return KR_INPUT;
        if (!more)
            return 0;
        if (out->n >= KR_MAX_RECORDS_PER_WAVE)
            return bundle_scan_fail(s, s->p, "more than KR_MAX_RECORDS_PER_WAVE (%u) entries in %s",
                                    (unsigned)KR_MAX_RECORDS_PER_WAVE, key);
        if (is_signed) {
            int64_t v;
            if ((rc = bundle_scan_sint(s, INT64_MIN, INT64_MAX, &v, "%s[%zu]", key, out->n)))
                return rc;
            if (grow_push(out, &v, sizeof v))
                return kr_err_set(s->err, KR_INTERNAL, s->fname, NULL, "out of memory");
        } else {
            uint64_t v;
            if ((rc = bundle_scan_uint(s, INT64_MAX, &v, "%s[%zu]", key, out->n)))
                return rc;
            if (grow_push(out, &v, sizeof v))
                return kr_err_set(s->err, KR_INTERNAL, s->fname, NULL, "out of memory");
        }
    }
}

int bundle_parse_wstates(kr_capture *c, unsigned k, const char *data, size_t len, const char *fname, kr_err *err)
{
    if (k >= KR_STATE_COUNT)
        return kr_err_set(err, KR_INTERNAL, fname, NULL, "wave state %u out of range", k);
    bundle_scan s;
    bundle_scan_init(&s, data, len, fname, err);
    grow_arr state = {0}, time = {0};
    char *name = NULL;
    int seen_name = 0, seen_state = 0, seen_time = 0;
    bundle_scan_obj o;
    int rc = bundle_scan_object_open(&s, &o, "the top level");
    while (!rc) {
        const char *key;
        size_t klen;
        const char *key_at = s.p;
        int more = bundle_scan_object_key(&s, &o, &key, &klen);
        if (more < 0) {
            rc = KR_INPUT;
            break;
        }
        if (!more)
            break;
        int *seen = NULL;
        if (klen == 4 && memcmp(key, "name", 4) == 0)
            seen = &seen_name;
        else if (klen == 5 && memcmp(key, "state", 5) == 0)
            seen = &seen_state;
        else if (klen == 4 && memcmp(key, "time", 4) == 0)
            seen = &seen_time;
        if (!seen) {
            if ((rc = bundle_scan_key_unique(&s, &o, key, klen)) || (rc = bundle_scan_skip(&s)))
                break;
            continue;
        }
        if (*seen) {
            rc = bundle_scan_fail(&s, key_at, "duplicate key \"%.*s\"", (int)klen, key);
            break;
        }
        *seen = 1;
        if (seen == &seen_name) {
            const char *str;
            size_t slen;
            if ((rc = bundle_scan_string(&s, &str, &slen, "name")))
                break;
            if (slen > KR_MAX_STRING_BYTES) {
                rc = bundle_scan_fail(&s, s.p, "\"name\" longer than KR_MAX_STRING_BYTES");
                break;
            }
            name = kr_arena_strndup(&c->arena, str, slen);
        } else if (seen == &seen_state) {
            rc = read_array(&s, "state", 1, &state);
        } else {
            rc = read_array(&s, "time", 0, &time);
        }
    }
    if (!rc)
        rc = bundle_scan_finish(&s);
    if (!rc && (!seen_name || !seen_state || !seen_time))
        rc = kr_err_set(err, KR_INPUT, fname, "$", "missing key \"%s\"",
                        !seen_name ? "name" : !seen_state ? "state" : "time");
    if (!rc && state.n != time.n)
        rc = kr_err_set(err, KR_INPUT, fname, "$", "\"state\" has %zu entries but \"time\" has %zu",
                        state.n, time.n);
    if (!rc) {
        kr_wstates ws = {0};
        ws.name = name;
        ws.count = kr_arena_array(&c->arena, state.n ? state.n : 1, sizeof *ws.count);
        ws.time = kr_arena_array(&c->arena, time.n ? time.n : 1, sizeof *ws.time);
        if (!ws.name || !ws.count || !ws.time) {
            rc = kr_err_set(err, KR_INTERNAL, fname, NULL, "out of memory");
        } else {
            if (state.n) {
                memcpy(ws.count, state.data, state.n * sizeof *ws.count);
                memcpy(ws.time, time.data, time.n * sizeof *ws.time);
            }
            ws.n = state.n;
            ws.present = 1;
            c->wstates[k] = ws;
        }
    }
    free(state.data);
    free(time.data);
    bundle_scan_free(&s);
    return rc;
}
