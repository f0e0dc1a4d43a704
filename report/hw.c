/* hw.c — see hw.h. */
#include "report/hw.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report/templates.h"

/* ---- parsing ---- */

typedef struct hw_ctx {
    const char *name;            /* file name for errors */
    json_t *sources;
    kr_err *err;
} hw_ctx;

static int bad(hw_ctx *x, const char *path, const char *msg)
{
    return kr_err_set(x->err, KR_INPUT, x->name, path, "%s", msg);
}

/* {"value": number, "source": key} or {"value": null, "reason": text}.
 * *v = value (0 for null), *src = key (NULL for null). */
static int entry(hw_ctx *x, json_t *e, const char *path, double *v, const char **src)
{
    *v = 0;
    *src = NULL;
    if (!json_is_object(e))
        return bad(x, path, "expected an object {\"value\": ..., \"source\": ...}");
    json_t *val = json_object_get(e, "value"), *s = json_object_get(e, "source"),
           *why = json_object_get(e, "reason"), *der = json_object_get(e, "derivation");
    if (der && !json_is_string(der))
        return bad(x, path, "\"derivation\" must be a string");
    if (json_is_null(val)) {
        if (!json_is_string(why) || !*json_string_value(why))
            return bad(x, path, "a null value needs a \"reason\"");
        return 0;
    }
    if (!json_is_number(val) || json_number_value(val) <= 0)
        return bad(x, path, "\"value\" must be a positive number or null");
    if (!json_is_string(s) || !json_object_get(x->sources, json_string_value(s)))
        return bad(x, path, "every value needs a \"source\" naming an entry of \"sources\"");
    *v = json_number_value(val);
    *src = json_string_value(s);
    return 0;
}

static int parse_device(hw_ctx *x, json_t *d, size_t i, an_hw *hw, const char *(*match)[REP_HW_MAX_MATCH])
{
    char path[160];
    snprintf(path, sizeof path, "$.devices[%zu]", i);
    if (!json_is_object(d))
        return bad(x, path, "expected a device object");
    json_t *name = json_object_get(d, "name"), *gfx = json_object_get(d, "gfx"), *m = json_object_get(d, "match");
    if (!json_is_string(name) || !json_is_string(gfx) || !json_is_array(m) ||
        json_array_size(m) >= REP_HW_MAX_MATCH)
        return bad(x, path, "a device needs \"name\", \"gfx\" and a \"match\" array of names");
    hw->name = json_string_value(name);
    hw->gfx = json_string_value(gfx);
    for (size_t k = 0; k < json_array_size(m); k++) {
        if (!json_is_string(json_array_get(m, k)))
            return bad(x, path, "\"match\" holds strings");
        (*match)[k] = json_string_value(json_array_get(m, k));
    }
    static const char *const scalars[] = {"cu_count", "engine_clock_mhz", "lds_kib_per_cu", "hbm_gbs"};
    double vals[4];
    const char *srcs[4];
    for (int k = 0; k < 4; k++) {
        char p[200];
        snprintf(p, sizeof p, "%s.%s", path, scalars[k]);
        json_t *e = json_object_get(d, scalars[k]);
        if (!e)
            return bad(x, p, "missing");
        int rc = entry(x, e, p, &vals[k], &srcs[k]);
        if (rc)
            return rc;
    }
    hw->cu_count = vals[0] > 0 ? (int64_t)vals[0] : -1;
    hw->clock_mhz = vals[1];
    hw->lds_kib = vals[2] > 0 ? (int64_t)vals[2] : -1;
    hw->hbm_gbs = vals[3];
    hw->hbm_source = srcs[3];
    json_t *peaks = json_object_get(d, "peak_tflops");
    if (!json_is_object(peaks))
        return bad(x, path, "a device needs a \"peak_tflops\" object");
    const char *key;
    json_t *e;
    json_object_foreach(peaks, key, e) {
        char p[240];
        snprintf(p, sizeof p, "%s.peak_tflops.%s", path, key);
        double v;
        const char *src;
        int rc = entry(x, e, p, &v, &src);
        if (rc)
            return rc;
        char base[64];
        snprintf(base, sizeof base, "%s", key);
        size_t bl = strlen(base);
        int sparse = bl > 7 && strcmp(base + bl - 7, "_sparse") == 0;
        if (sparse)
            base[bl - 7] = '\0';
        an_unit u;
        an_dtype dt;
        if (an_ceiling_parse(base, &u, &dt) != 0)
            return bad(x, p, "unknown peak key (expected vector_|matrix_ + fp64, fp32, xf32, fp16, bf16, fp8, "
                             "fp6_fp4, int8, optionally _sparse)");
        if (!sparse) {
            hw->peak_tflops[u][dt] = v;
            hw->peak_source[u][dt] = src;
        }
    }
    json_object_foreach(x->sources, key, e) {
        if (hw->nsources == AN_HW_MAX_SOURCES)
            return bad(x, "$.sources", "too many sources");
        an_hw_source *s = &hw->sources[hw->nsources++];
        s->key = key;
        s->title = json_string_value(json_object_get(e, "title"));
        s->url = json_string_value(json_object_get(e, "url"));
    }
    return 0;
}

int rep_hw_parse(const char *json, size_t len, const char *name, rep_hw_table *out, kr_err *err)
{
    memset(out, 0, sizeof *out);
    json_error_t je;
    json_t *root = json_loadb(json, len, 0, &je);
    if (!root) {
        char where[64];
        snprintf(where, sizeof where, "%d:%d", je.line, je.column);
        return kr_err_set(err, KR_INPUT, name, where, "%s", je.text);
    }
    hw_ctx x = {name, json_object_get(root, "sources"), err};
    json_t *devs = json_object_get(root, "devices");
    int rc = 0;
    if (!json_is_object(x.sources) || !json_is_array(devs)) {
        rc = bad(&x, "$", "expected \"sources\" (object) and \"devices\" (array)");
        goto fail;
    }
    const char *key;
    json_t *s;
    json_object_foreach(x.sources, key, s) {
        json_t *t = json_object_get(s, "title"), *u = json_object_get(s, "url");
        if (!json_is_string(t) || !*json_string_value(t) || !json_is_string(u) ||
            strncmp(json_string_value(u), "https://", 8) != 0) {
            char p[160];
            snprintf(p, sizeof p, "$.sources.%s", key);
            rc = bad(&x, p, "a source needs a \"title\" and an https \"url\"");
            goto fail;
        }
    }
    out->n = json_array_size(devs);
    out->dev = calloc(out->n ? out->n : 1, sizeof *out->dev);
    out->match = calloc(out->n ? out->n : 1, sizeof *out->match);
    if (!out->dev || !out->match) {
        rc = kr_err_set(err, KR_INTERNAL, name, NULL, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < out->n; i++)
        if ((rc = parse_device(&x, json_array_get(devs, i), i, &out->dev[i], &out->match[i])) != 0)
            goto fail;
    out->root = root;
    return 0;
fail:
    json_decref(root);
    free(out->dev);
    free(out->match);
    memset(out, 0, sizeof *out);
    return rc;
}

int rep_hw_load(rep_hw_table *out, kr_err *err)
{
    size_t len;
    const char *t = rep_template("hw.json", &len);
    if (!t) {
        memset(out, 0, sizeof *out);
        return kr_err_set(err, KR_INTERNAL, "templates/hw.json", NULL, "hardware table not embedded");
    }
    return rep_hw_parse(t, len, "templates/hw.json", out, err);
}

void rep_hw_free(rep_hw_table *t)
{
    if (!t)
        return;
    free(t->dev);
    free(t->match);
    json_decref((json_t *)t->root);
    memset(t, 0, sizeof *t);
}

/* ---- device choice ---- */

static int ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

/* token occurs in text as a whole word, case-insensitive. */
static int has_word(const char *text, const char *token)
{
    size_t n = strlen(token);
    if (!text || n == 0)
        return 0;
    for (const char *p = text; *p; p++) {
        if (p != text && isalnum((unsigned char)p[-1]))
            continue;
        size_t k = 0;
        while (k < n && p[k] && tolower((unsigned char)p[k]) == tolower((unsigned char)token[k]))
            k++;
        if (k == n && !isalnum((unsigned char)p[n]))
            return 1;
    }
    return 0;
}

/* The capture's GPU agent: results.json by handle, else the first GPU row
 * of agent_info. */
static const kr_agent *capture_agent(const kr_capture *c, const char **from)
{
    if (!c)
        return NULL;
    if (c->results && c->name_matched)
        for (size_t p = 0; p < c->results->nprocs; p++)
            for (size_t i = 0; i < c->results->procs[p].nagents; i++) {
                const kr_agent *a = &c->results->procs[p].agents[i];
                if (a->type == 2 && a->handle == c->agent_handle) {
                    *from = "results.json";
                    return a;
                }
            }
    if (c->agent_info)
        for (size_t i = 0; i < c->agent_info->nagents; i++)
            if (c->agent_info->agents[i].type == 2) {
                *from = "agent_info.csv";
                return &c->agent_info->agents[i];
            }
    return NULL;
}

static void known_list(const rep_hw_table *t, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < t->n && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%s", i ? ", " : "", t->match[i][0] ? t->match[i][0]
                                                                                                 : t->dev[i].name);
}

const an_hw *rep_hw_pick(const rep_hw_table *t, const char *device, const kr_capture *c, char *note, size_t cap)
{
    char known[256];
    known_list(t, known, sizeof known);
    if (device) {
        for (size_t i = 0; i < t->n; i++) {
            int hit = ieq(device, t->dev[i].name);
            for (size_t k = 0; !hit && k < REP_HW_MAX_MATCH && t->match[i][k]; k++)
                hit = ieq(device, t->match[i][k]);
            if (hit) {
                snprintf(note, cap, "%s, chosen with --device", t->dev[i].name);
                return &t->dev[i];
            }
        }
        snprintf(note, cap, "device '%s' (--device) is not in the hardware table (known: %s)", device, known);
        return NULL;
    }
    const char *from = NULL;
    const kr_agent *a = capture_agent(c, &from);
    if (!a) {
        snprintf(note, cap, "no GPU agent information (results.json or agent_info.csv) beside the capture; "
                            "give --device (known: %s)", known);
        return NULL;
    }
    for (size_t i = 0; i < t->n; i++)
        for (size_t k = 0; k < REP_HW_MAX_MATCH && t->match[i][k]; k++)
            if (has_word(a->product_name, t->match[i][k])) {
                snprintf(note, cap, "%s, from the product name \"%s\" in %s", t->dev[i].name, a->product_name, from);
                return &t->dev[i];
            }
    const an_hw *only = NULL;
    size_t nmatch = 0;
    for (size_t i = 0; i < t->n; i++)
        if (a->name && ieq(a->name, t->dev[i].gfx) && t->dev[i].cu_count > 0 && t->dev[i].cu_count == a->cu_count) {
            only = &t->dev[i];
            nmatch++;
        }
    if (nmatch == 1) {
        snprintf(note, cap, "%s, from %s with %lld CUs in %s", only->name, a->name, (long long)a->cu_count, from);
        return only;
    }
    snprintf(note, cap, "the agent in %s (%s, %s, %lld CUs) matches no entry of the hardware table%s; "
                        "give --device (known: %s)",
             from, a->product_name && *a->product_name ? a->product_name : "no product name",
             a->name && *a->name ? a->name : "no gfx name", (long long)a->cu_count,
             nmatch > 1 ? " unambiguously" : "", known);
    return NULL;
}
