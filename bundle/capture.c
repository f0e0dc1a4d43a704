/* capture.c — assembling a capture folder into the model (FORMATS.md §1);
 * see capture.h.
 *
 * Order: filenames.json (§1.3), code.json (§2), the optional small files
 * (wstates §5, occupancy §6, realtime §7, snapshots §3), then the wave files
 * (§4) in parallel, then the inventory of unnamed files and the results found
 * beside the folder. Each small file goes through its parse-from-memory core
 * (bundle/load_*.h); this file only reads bytes and wires the pieces. */
#include "bundle/capture.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/discover.h"
#include "bundle/load_code.h"
#include "bundle/load_filenames.h"
#include "bundle/load_occupancy.h"
#include "bundle/load_realtime.h"
#include "bundle/load_snapshots.h"
#include "bundle/load_wave.h"
#include "bundle/load_wstates.h"
#include "common/file.h"
#include "common/limits.h"
#include "common/pool.h"

int bundle_is_capture_dir(const char *dir)
{
    char path[PATH_MAX];
    return kr_is_dir(dir) && kr_is_regular(kr_path_join(path, sizeof path, dir, "filenames.json"));
}

static int oom(kr_err *err, const char *file)
{
    return kr_err_set(err, KR_INTERNAL, file, NULL, "out of memory");
}

/* Copy of dir without trailing slashes (keeps a lone "/"). */
static char *strip_slashes(kr_arena *a, const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    return kr_arena_strndup(a, dir, n);
}

/* Digits at *p into *v (fits uint64); advances *p. 0 when none or overflow. */
static int take_u64(const char **p, uint64_t *v)
{
    const char *s = *p;
    uint64_t x = 0;
    if (*s < '0' || *s > '9')
        return 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (x > (UINT64_MAX - d) / 10)
            return 0;
        x = x * 10 + d;
    }
    *v = x;
    *p = s;
    return 1;
}

/* ^ui_output_agent_([0-9]+)_dispatch_([0-9]+)(.*)$ (§1.1). The dispatch
 * digits are greedy, so the suffix never starts with a digit. */
static void parse_folder_name(kr_capture *c)
{
    static const char pre[] = "ui_output_agent_", mid[] = "_dispatch_";
    const char *p = c->folder;
    uint64_t h, d;
    if (strncmp(p, pre, sizeof pre - 1) != 0)
        return;
    p += sizeof pre - 1;
    if (!take_u64(&p, &h) || strncmp(p, mid, sizeof mid - 1) != 0)
        return;
    p += sizeof mid - 1;
    if (!take_u64(&p, &d))
        return;
    c->name_matched = 1;
    c->agent_handle = h;
    c->dispatch_id = d;
    c->suffix = p;               /* points into c->folder */
}

/* The example label from <example>/att_viewer/<label>/<capture> (§11), or NULL. */
static const char *label_from_path(kr_arena *a, const char *path)
{
    const char *comp[3] = {NULL, NULL, NULL};    /* last three components */
    size_t clen[3] = {0, 0, 0};
    for (const char *p = path; *p;) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        const char *e = p;
        while (*e && *e != '/')
            e++;
        comp[0] = comp[1], clen[0] = clen[1];
        comp[1] = comp[2], clen[1] = clen[2];
        comp[2] = p, clen[2] = (size_t)(e - p);
        p = e;
    }
    if (comp[0] && clen[0] == 10 && strncmp(comp[0], "att_viewer", 10) == 0)
        return kr_arena_strndup(a, comp[1], clen[1]);
    return NULL;
}

/* Reads dir/name (limit KR_MAX_SMALL_FILE_BYTES) into *data (malloc'd), or
 * leaves *data NULL when the file is absent and not required. path receives
 * the file's path, which errors name. */
static int read_member(kr_capture *c, const char *name, int required, char *path, size_t cap,
                       char **data, size_t *len, kr_err *err)
{
    *data = NULL;
    *len = 0;
    kr_path_join(path, cap, c->dir, name);
    if (!kr_file_exists(path))
        return required ? kr_err_set(err, KR_INPUT, path, NULL, "missing %s (required in a capture folder)", name) : 0;
    return kr_file_read(path, KR_MAX_SMALL_FILE_BYTES, data, len, err);
}

typedef int (*parse_fn)(kr_capture *c, const char *data, size_t len, const char *fname, kr_err *err);

static int load_small(kr_capture *c, const char *name, int required, parse_fn parse, kr_err *err)
{
    char path[PATH_MAX], *data;
    size_t len;
    int rc = read_member(c, name, required, path, sizeof path, &data, &len, err);
    if (rc || !data)
        return rc;
    rc = parse(c, data, len, path, err);
    free(data);
    c->total_bytes += len;
    return rc;
}

static int load_wstates_k(kr_capture *c, unsigned k, kr_err *err)
{
    char name[32], path[PATH_MAX], *data;
    size_t len;
    snprintf(name, sizeof name, "wstates%u.json", k);
    int rc = read_member(c, name, 0, path, sizeof path, &data, &len, err);
    if (rc || !data)
        return rc;
    rc = bundle_parse_wstates(c, k, data, len, path, err);
    free(data);
    c->total_bytes += len;
    return rc;
}

static int load_snapshots(kr_capture *c, kr_err *err)
{
    char path[PATH_MAX], *data;
    size_t len;
    int rc = read_member(c, "snapshots.json", 0, path, sizeof path, &data, &len, err);
    if (rc || !data)
        return rc;
    rc = bundle_parse_snapshots(c, c->dir, data, len, path, err);
    free(data);
    c->total_bytes += len;
    return rc;
}

/* ---- wave files, in parallel (§4) ---- */

typedef struct wave_job {
    kr_capture *c;
    int jansson;
    kr_err *errs;            /* one per wave: results never depend on timing */
} wave_job;

static void wave_task(void *ctx, size_t i, int worker)
{
    (void)worker;
    wave_job *job = ctx;
    kr_capture *c = job->c;
    const kr_wave_ref *ref = &c->wave_refs[i];
    kr_wave *w = &c->waves[i];
    kr_err *err = &job->errs[i];
    char path[PATH_MAX];
    kr_path_join(path, sizeof path, c->dir, ref->file);
    if (!kr_file_exists(path)) {
        kr_err_set(err, KR_INPUT, path, NULL, "wave file listed in filenames.json does not exist");
        return;
    }
    char *data;
    size_t len;
    if (kr_file_read(path, KR_MAX_FILE_BYTES, &data, &len, err))
        return;
    int rc = job->jansson ? bundle_parse_wave_jansson(data, len, path, w, err)
                          : bundle_parse_wave(data, len, path, w, err);
    free(data);
    if (rc)
        return;
    w->file = ref->file;
    w->bytes = len;
    /* Record → row (§4.1): line 0, unknown lines and label rows → none. */
    for (size_t k = 0; k < w->ninsts; k++) {
        const kr_code_row *row = kr_capture_row(c, w->insts[k].line);
        w->insts[k].row = row && !row->is_label ? (uint32_t)(row - c->rows) : KR_ROW_NONE;
    }
}

static int load_waves(kr_capture *c, const bundle_opts *opts, kr_err *err)
{
    size_t n = c->nwave_refs;
    if (!n)
        return 0;
    c->waves = kr_arena_array(&c->arena, n, sizeof *c->waves);
    kr_err *errs = calloc(n, sizeof *errs);
    if (!c->waves || !errs) {
        free(errs);
        return oom(err, c->dir);
    }
    c->nwaves = n;               /* every slot is released by bundle_capture_free */
    wave_job job = {c, opts->jansson_waves, errs};
    kr_parallel_for(n, opts->threads, wave_task, &job);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (errs[i].code) {
            *err = errs[i];
            rc = errs[i].code;
            break;
        }
        c->total_bytes += c->waves[i].bytes;
    }
    free(errs);
    return rc;
}

/* ---- the inventory of files no rule names (§1.2) ---- */

static int match_se_pattern(const char *name, const char *prefix, const char *mid, const char *suffix)
{
    size_t pl = strlen(prefix);
    if (strncmp(name, prefix, pl) != 0)
        return 0;
    const char *p = name + pl;
    if (*p < '0' || *p > '9')
        return 0;
    while (*p >= '0' && *p <= '9')
        p++;
    if (mid) {
        size_t ml = strlen(mid);
        if (strncmp(p, mid, ml) != 0)
            return 0;
        p += ml;
        if (*p < '0' || *p > '9')
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return strcmp(p, suffix) == 0;
}

static int named_by_rules(const kr_capture *c, const char *name)
{
    static const char *const fixed[] = {"filenames.json", "code.json", "occupancy.json",
        "realtime.json", "snapshots.json", "wstates0.json", "wstates1.json", "wstates2.json",
        "wstates3.json", "wstates4.json", NULL};
    for (const char *const *f = fixed; *f; f++)
        if (strcmp(name, *f) == 0)
            return 1;
    for (size_t i = 0; i < c->nwave_refs; i++)
        if (strcmp(name, c->wave_refs[i].file) == 0)
            return 1;
    for (size_t i = 0; i < c->nsnapshots; i++)
        if (strcmp(name, c->snapshots[i].leaf) == 0)
            return 1;
    return match_se_pattern(name, "se", NULL, "_perfcounter.json") ||
           match_se_pattern(name, "other_simd_se", "_", ".json") ||
           match_se_pattern(name, "shaderdata_", "_", ".json");
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int list_extra_files(kr_capture *c, kr_err *err)
{
    DIR *d = opendir(c->dir);
    if (!d)
        return kr_err_set(err, KR_INPUT, c->dir, NULL, "cannot list the capture folder");
    size_t cap = 16, n = 0;
    const char **v = malloc(cap * sizeof *v);
    int rc = 0;
    struct dirent *e;
    while (v && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 || named_by_rules(c, e->d_name))
            continue;
        if (n == cap) {
            const char **nv = realloc(v, cap * 2 * sizeof *v);
            if (!nv) {
                free(v);
                v = NULL;
                break;
            }
            v = nv;
            cap *= 2;
        }
        v[n] = kr_arena_strdup(&c->arena, e->d_name);
        if (!v[n]) {
            free(v);
            v = NULL;
            break;
        }
        n++;
    }
    closedir(d);
    if (!v)
        return oom(err, c->dir);
    qsort(v, n, sizeof *v, str_cmp);
    if (n) {
        c->extra_files = kr_arena_array(&c->arena, n, sizeof *c->extra_files);
        if (!c->extra_files)
            rc = oom(err, c->dir);
        else
            memcpy(c->extra_files, v, n * sizeof *v);
    }
    c->nextra_files = rc ? 0 : n;
    free(v);
    return rc;
}

/* §7.4, V-16a: alignment needs realtime samples for every SE that has waves
 * or occupancy rows. */
static void check_alignment_coverage(kr_capture *c)
{
    kr_realtime *rt = &c->realtime;
    if (!rt->aligned)
        return;
    uint8_t has_rt[KR_MAX_SE] = {0};
    for (size_t i = 0; i < rt->nses; i++)
        if (rt->ses[i].n > 0 && rt->ses[i].se < KR_MAX_SE)
            has_rt[rt->ses[i].se] = 1;
    int covered = 1;
    for (size_t i = 0; i < c->nwave_refs; i++)
        if (c->wave_refs[i].se >= KR_MAX_SE || !has_rt[c->wave_refs[i].se])
            covered = 0;
    for (size_t i = 0; i < c->occupancy.nses; i++)
        if (c->occupancy.ses[i].nrows > 0 &&
            (c->occupancy.ses[i].se >= KR_MAX_SE || !has_rt[c->occupancy.ses[i].se]))
            covered = 0;
    if (!covered) {
        rt->aligned = 0;
        memset(rt->se_offset, 0, sizeof rt->se_offset);
    }
}

int bundle_capture_load(const char *dir, const bundle_opts *opts, kr_capture **out, kr_err *err)
{
    *out = NULL;
    bundle_opts defaults = {.threads = 1};
    if (!opts)
        opts = &defaults;
    if (!kr_is_dir(dir))
        return kr_err_set(err, KR_INPUT, dir, NULL, "not a directory");
    if (!bundle_is_capture_dir(dir))
        return kr_err_set(err, KR_INPUT, dir, NULL, "not a capture folder (no filenames.json)");

    kr_capture *c = calloc(1, sizeof *c);
    if (!c)
        return oom(err, dir);
    kr_arena_init(&c->arena);
    int rc;
    char *stripped = strip_slashes(&c->arena, dir);
    c->dir = kr_arena_strdup(&c->arena, dir);
    if (!stripped || !c->dir) {
        rc = oom(err, dir);
        goto fail;
    }
    c->folder = kr_path_base(stripped);
    parse_folder_name(c);
    c->label = opts->label ? kr_arena_strdup(&c->arena, opts->label) : label_from_path(&c->arena, stripped);

    if ((rc = load_small(c, "filenames.json", 1, bundle_parse_filenames, err)) ||
        (rc = load_small(c, "code.json", 1, bundle_parse_code, err)))
        goto fail;
    for (unsigned k = 0; k < KR_STATE_COUNT && !opts->skip_wstates; k++)
        if ((rc = load_wstates_k(c, k, err)))
            goto fail;
    if ((rc = load_small(c, "occupancy.json", 0, bundle_parse_occupancy, err)) ||
        (rc = load_small(c, "realtime.json", 0, bundle_parse_realtime, err)) ||
        (rc = load_snapshots(c, err)))
        goto fail;
    if ((rc = load_waves(c, opts, err)))
        goto fail;
    check_alignment_coverage(c);
    if ((rc = list_extra_files(c, err)))
        goto fail;
    if ((!opts->no_discover || opts->results_path) &&
        (rc = bundle_attach_results(c, opts->results_path, err)))
        goto fail;
    *out = c;
    return 0;
fail:
    bundle_capture_free(c);
    return rc;
}

void bundle_capture_free(kr_capture *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nwaves; i++)
        bundle_wave_release(&c->waves[i]);
    kr_arena_free(&c->arena);
    free(c);
}
