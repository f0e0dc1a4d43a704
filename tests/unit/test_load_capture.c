/* test_load_capture.c — bundle_capture_load on the four hub captures
 * (docs/formats.md, docs/formats.md#label-rows, docs/instruction-classes.md) and on scratch folders built
 * here: record → row mapping, the inventory of unnamed files, folder names,
 * and the load errors. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/capture.h"
#include "bundle/model.h"
#include "common/file.h"
#include "tests/unit/t.h"

/* ---- hub captures ---- */

typedef struct hub_case {
    const char *dir;
    const char *label;
    uint64_t handle, dispatch;
    const char *suffix;
    size_t waves, statics, mapped;
    uint64_t hit, latency, stall, idle;       /* Σ over code.json rows */
    uint64_t waitcnt_entries;
    size_t occ_rows;
    const char *kernel;
    int64_t codeobj;
    uint64_t vaddr;
    int flash;
} hub_case;

static const hub_case HUB[] = {
    {"pa_mqa_logits_fp4/att_viewer/small/ui_output_agent_32435_dispatch_197", "small", 32435, 197, "",
     4, 726, 0, 1576, 19088, 11820, 1220, 84, 72, "; pa_mqa_logits_fp4_kernel_0", 22, 6400, 0},
    {"pa_mqa_logits_fp4/att_viewer/big/ui_output_agent_55351_dispatch_426", "big", 55351, 426, "",
     32, 726, 0, 165632, 1482216, 791816, 119980, 7808, 512, "; pa_mqa_logits_fp4_kernel_0", 22, 6400, 0},
    {"flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44", "small", 32235, 44, "",
     4, 2069, 2069, 26412, 208060, 107884, 12312, 1404, 128, "; flash_attn_func_kernel_0", 4, 5888, 1},
    {"flash_attn_func/att_viewer/small/ui_output_agent_58550_dispatch_44_after_loc_fix", "small", 58550, 44,
     "_after_loc_fix", 8, 2069, 2069, 43360, 342176, 176060, 25964, 2264, 128, "; flash_attn_func_kernel_0",
     4, 5888, 1},
};

/* docs/instruction-classes.md static counts, in the order SMEM SALU WAITCNT BARRIER NOP MESSAGE
 * BRANCH MATRIX LDS VMEM VALU. */
static const kr_class CLASS_ORDER[11] = {KR_CLASS_SMEM, KR_CLASS_SALU, KR_CLASS_WAITCNT, KR_CLASS_BARRIER,
    KR_CLASS_NOP, KR_CLASS_MESSAGE, KR_CLASS_BRANCH, KR_CLASS_MATRIX, KR_CLASS_LDS, KR_CLASS_VMEM, KR_CLASS_VALU};
static const size_t CLASS_PA[11] = {15, 67, 35, 0, 5, 1, 4, 32, 16, 31, 520};
static const size_t CLASS_FLASH[11] = {5, 204, 84, 4, 186, 1, 11, 64, 96, 44, 1370};

/* Σ sizes of the regular files in dir (every file of a hub capture is read). */
static uint64_t folder_bytes(const char *dir)
{
    uint64_t total = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        char p[4096];
        struct stat st;
        if (stat(kr_path_join(p, sizeof p, dir, e->d_name), &st) == 0 && S_ISREG(st.st_mode))
            total += (uint64_t)st.st_size;
    }
    if (d)
        closedir(d);
    return total;
}

static void check_hub_capture(const char *hub, const hub_case *hc, int threads, int jansson)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/examples/%s", hub, hc->dir);
    bundle_opts opts = {.threads = threads, .no_discover = 1, .jansson_waves = jansson};
    kr_capture *c = NULL;
    kr_err err;
    kr_err_clear(&err);
    int rc = bundle_capture_load(dir, &opts, &c, &err);
    T_EQ_I64(rc, 0);
    if (rc) {
        char msg[2048];
        kr_err_format(&err, msg, sizeof msg);
        fprintf(stderr, "  %s\n", msg);
        return;
    }
    T_EQ_U64(c->name_matched, 1);
    T_EQ_U64(c->agent_handle, hc->handle);
    T_EQ_U64(c->dispatch_id, hc->dispatch);
    T_EQ_STR(c->suffix, hc->suffix);
    T_EQ_STR(c->label, hc->label);
    T_EQ_STR(c->folder, kr_path_base(dir));
    T_EQ_STR(c->version, "3.0.0");
    T_EQ_I64(c->gfxip, 9);
    T_EQ_STR(c->gfxv, "vega");
    T_EQ_I64(c->layout, KR_LAYOUT_10);
    T_EQ_STR(c->code_version, "3.0.0");

    /* waves = entries of wave_filenames = wave files, same order */
    T_EQ_U64(c->nwave_refs, hc->waves);
    T_EQ_U64(c->nwaves, hc->waves);
    size_t same_file = 0;
    for (size_t i = 0; i < c->nwaves; i++)
        same_file += strcmp(c->waves[i].file, c->wave_refs[i].file) == 0;
    T_EQ_U64(same_file, hc->waves);

    /* label row (docs/formats.md#label-rows) */
    T_CHECK(c->nrows > 0);
    T_EQ_STR(c->rows[0].isa, hc->kernel);
    T_EQ_U64(c->rows[0].is_label, 1);
    T_EQ_U64(c->rows[0].line, 0);
    T_EQ_I64(c->rows[0].codeobj, hc->codeobj);
    T_EQ_U64(c->rows[0].vaddr, hc->vaddr);

    size_t statics = 0, mapped = 0, labels = 0, kernel0 = 0, mapped_back = 0, by_class[KR_CLASS_COUNT] = {0};
    uint64_t hit = 0, lat = 0, stall = 0, idle = 0;
    for (size_t r = 0; r < c->nrows; r++) {
        const kr_code_row *row = &c->rows[r];
        hit += row->hit;
        lat += row->latency;
        stall += row->stall;
        idle += row->idle;
        by_class[row->cls]++;
        if (row->is_label) {
            labels++;
            continue;
        }
        statics++;
        mapped += row->source[0] != '\0';
        kernel0 += row->kernel == 0;
        mapped_back += c->line_to_row[row->line] == (int32_t)r;
    }
    T_EQ_U64(labels, 1);
    T_EQ_U64(kernel0, statics);              /* every instruction follows the one label */
    T_EQ_U64(mapped_back, statics);
    T_EQ_U64(statics, hc->statics);
    T_EQ_U64(mapped, hc->mapped);
    T_EQ_U64(hit, hc->hit);
    T_EQ_U64(lat, hc->latency);
    T_EQ_U64(stall, hc->stall);
    T_EQ_U64(idle, hc->idle);
    const size_t *want = hc->flash ? CLASS_FLASH : CLASS_PA;
    for (int k = 0; k < 11; k++)
        T_EQ_U64(by_class[CLASS_ORDER[k]], want[k]);

    /* Records → rows: recompute Hit/Latency/Stall/Idle per row with the rule
     * of docs/formats.md#per-row-sums and compare with code.json (verified equal on all captures). */
    uint64_t *rh = calloc(c->nrows, sizeof *rh), *rl = calloc(c->nrows, sizeof *rl);
    uint64_t *rs = calloc(c->nrows, sizeof *rs), *ri = calloc(c->nrows, sizeof *ri);
    size_t records = 0, unmapped = 0, waits = 0, same_line = 0;
    for (size_t w = 0; w < c->nwaves; w++) {
        const kr_wave *wv = &c->waves[w];
        uint64_t prev_done = wv->begin;
        waits += wv->nwaits;
        for (size_t i = 0; i < wv->ninsts; i++) {
            const kr_inst *in = &wv->insts[i];
            records++;
            if (in->row == KR_ROW_NONE) {
                unmapped++;
                continue;
            }
            same_line += c->rows[in->row].line == in->line;
            rh[in->row]++;
            rl[in->row] += in->dur;
            rs[in->row] += in->stall;
            ri[in->row] += in->time > prev_done ? in->time - prev_done : 0;
            if (in->time + in->dur > prev_done)
                prev_done = in->time + in->dur;
        }
    }
    T_EQ_U64(records, hc->hit);
    T_EQ_U64(unmapped, 0);
    T_EQ_U64(same_line, records);
    T_EQ_U64(waits, hc->waitcnt_entries);
    size_t rows_equal = 0;
    for (size_t r = 0; r < c->nrows; r++)
        rows_equal += rh[r] == c->rows[r].hit && rl[r] == c->rows[r].latency &&
                      rs[r] == c->rows[r].stall && ri[r] == c->rows[r].idle;
    T_EQ_U64(rows_equal, c->nrows);
    free(rh);
    free(rl);
    free(rs);
    free(ri);

    /* optional files */
    T_EQ_U64(c->wstates[0].present, 0);
    for (int k = 1; k < KR_STATE_COUNT; k++)
        T_EQ_U64(c->wstates[k].present, 1);
    T_EQ_U64(c->occupancy.present, 1);
    size_t occ = 0;
    for (size_t s = 0; s < c->occupancy.nses; s++)
        occ += c->occupancy.ses[s].nrows;
    T_EQ_U64(occ, hc->occ_rows);
    T_EQ_U64(c->occupancy.row_width, 6);
    T_EQ_U64(c->realtime.present, 1);
    T_EQ_U64(c->realtime.aligned, 1);
    T_EQ_I64(c->realtime.se_offset[1], 756);
    T_EQ_I64(c->realtime.se_offset[3], 2212);
    T_EQ_U64(c->has_snapshots_json, (uint64_t)hc->flash);
    T_EQ_U64(c->nsnapshots, hc->flash ? 2u : 0u);
    if (hc->flash) {
        size_t frames = 0, resolved = 0;
        for (size_t r = 0; r < c->nrows; r++)
            for (uint32_t f = 0; f < c->rows[r].nframes; f++) {
                frames++;
                resolved += c->rows[r].frames[f].snapshot >= 0;
            }
        T_EQ_U64(frames, 2069);
        T_EQ_U64(resolved, 2069);
    }
    /* every file of a hub capture is named by a rule and read */
    T_EQ_U64(c->nextra_files, 0);
    T_EQ_U64(c->total_bytes, folder_bytes(dir));
    T_CHECK(c->results == NULL);
    bundle_capture_free(c);
}

static void test_hub(void)
{
    const char *hub = t_hub();
    if (!hub) {
        printf("test_load_capture: hub fixtures absent, skipping the hub part\n");
        return;
    }
    for (size_t i = 0; i < sizeof HUB / sizeof HUB[0]; i++)
        check_hub_capture(hub, &HUB[i], 2, 0);
    /* the jansson reference parser and one thread give the same model */
    check_hub_capture(hub, &HUB[1], 1, 1);
    check_hub_capture(hub, &HUB[3], 2, 1);

    /* pa_mqa big: the waves are SE0-SE3, 8 per SE, sorted by (se, simd, slot) */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/examples/%s", hub, HUB[1].dir);
    bundle_opts opts = {.threads = 2, .no_discover = 1};
    kr_capture *c = NULL;
    kr_err err;
    T_EQ_I64(bundle_capture_load(dir, &opts, &c, &err), 0);
    if (c) {
        T_EQ_U64(c->nwaves, 32);
        for (size_t i = 0; i < c->nwaves && c->nwaves == 32; i++) {
            T_EQ_U64(c->wave_refs[i].se, i / 8);
            T_EQ_U64(c->wave_refs[i].simd, (i / 2) % 4);
            T_EQ_U64(c->wave_refs[i].slot, i % 2);
            char name[64];
            snprintf(name, sizeof name, "se%zu_sm%zu_sl%zu_wv0.json", i / 8, (i / 2) % 4, i % 2);
            T_EQ_STR(c->waves[i].file, name);
        }
        bundle_capture_free(c);
    }

    /* Discovery on: flash 32235 has a results.json with agent 32235 beside it. */
    snprintf(dir, sizeof dir, "%s/examples/%s", hub, HUB[2].dir);
    bundle_opts disc = {.threads = 2};
    c = NULL;
    int rc = bundle_capture_load(dir, &disc, &c, &err);
    T_EQ_I64(rc, 0);
    if (rc) {
        char msg[2048];
        kr_err_format(&err, msg, sizeof msg);
        fprintf(stderr, "  %s\n", msg);
    }
    if (c) {
        T_CHECK(c->results != NULL);
        bundle_capture_free(c);
    }
}

/* ---- scratch folders ---- */

static void put(const char *dir, const char *name, const char *text)
{
    char path[4096];
    FILE *f = fopen(kr_path_join(path, sizeof path, dir, name), "wb");
    T_CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static uint64_t fsize(const char *dir, const char *name)
{
    char path[4096];
    struct stat st;
    return stat(kr_path_join(path, sizeof path, dir, name), &st) == 0 ? (uint64_t)st.st_size : 0;
}

static void rm_tree(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char p[4096];
        kr_path_join(p, sizeof p, dir, e->d_name);
        if (kr_is_dir(p))
            rm_tree(p);
        else
            unlink(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

static const char *const FILENAMES =
    "{\"counter_names\":[],\"gfxip\":9,\"gfxv\":\"vega\",\"global_begin_time\":0,\"version\":\"3.0.0\","
    "\"wave_filenames\":{\"0\":{\"1\":{\"0\":{\"0\":[\"se0_sm1_sl0_wv0.json\",100,180]}},"
    "\"0\":{\"0\":{\"0\":[\"se0_sm0_sl0_wv0.json\",100,200]}}}}}";

static const char *const CODE =
    "{\"code\":[[\"; k1\",0,0,\"\",1,0,0,0,0,0],[\"s_nop 0\",0,1,\"\",1,0,2,12,8,20],"
    "[\"s_endpgm\",0,2,\"\",1,4,2,80,0,10],[\"; k2\",0,3,\"\",1,64,0,0,0,0]],"
    "\"header\":\"ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle\",\"version\":\"3.0.0\"}";

/* Records with line 1 and 2 map to rows 1 and 2; line 0 (unknown PC), a label
 * line (3) and an unknown line (99) map to none (docs/formats.md#instruction-records). */
static const char *const WAVE0 =
    "{\"duration\":100,\"name\":\"SE0\",\"num_insts\":5,\"num_stitched\":5,\"wave\":{\"begin\":100,\"cu\":1,"
    "\"end\":200,\"id\":0,\"simd\":0,\"slot\":0,\"instructions\":[[120,9,4,8,1],[130,11,0,70,2],"
    "[140,9,0,4,0],[150,9,0,4,3],[160,9,0,4,99]],\"timeline\":[[1,20],[2,80]],\"waitcnt\":null}}";

static const char *const WAVE1 =
    "{\"duration\":80,\"name\":\"SE0\",\"num_insts\":2,\"num_stitched\":2,\"wave\":{\"begin\":100,\"cu\":1,"
    "\"end\":180,\"id\":0,\"simd\":1,\"slot\":0,\"instructions\":[[110,9,4,4,1],[120,11,0,10,2]],"
    "\"timeline\":[[1,10],[3,70]],\"waitcnt\":[]}}";

static void make_capture(const char *dir)
{
    T_EQ_I64(mkdir(dir, 0755), 0);
    put(dir, "filenames.json", FILENAMES);
    put(dir, "code.json", CODE);
    put(dir, "se0_sm0_sl0_wv0.json", WAVE0);
    put(dir, "se0_sm1_sl0_wv0.json", WAVE1);
}

static void test_scratch(const char *root)
{
    char dir[4096], slash[4200];
    kr_path_join(dir, sizeof dir, root, "ui_output_agent_7_dispatch_9_mylabel");
    make_capture(dir);
    /* files no rule names, and files rules name but kreport does not read */
    put(dir, "zz", "z");
    put(dir, "notes.md", "n");
    put(dir, "stats.csv", "s");
    put(dir, "se0_sm0_sl0_wv9.json", "{}");           /* a wave file not listed: extra */
    put(dir, "se0_perfcounter.json", "{}");
    put(dir, "other_simd_se0_1.json", "{}");
    put(dir, "shaderdata_0_2.json", "{}");
    char sub[4096];
    T_EQ_I64(mkdir(kr_path_join(sub, sizeof sub, dir, "sub"), 0755), 0);

    T_EQ_I64(bundle_is_capture_dir(dir), 1);
    T_EQ_I64(bundle_is_capture_dir(root), 0);

    snprintf(slash, sizeof slash, "%s//", dir);      /* trailing slashes are fine */
    bundle_opts opts = {.threads = 2, .no_discover = 1};
    kr_capture *c = NULL;
    kr_err err;
    kr_err_clear(&err);
    T_EQ_I64(bundle_capture_load(slash, &opts, &c, &err), 0);
    if (!c)
        return;
    T_EQ_STR(c->dir, slash);
    T_EQ_STR(c->folder, "ui_output_agent_7_dispatch_9_mylabel");
    T_EQ_U64(c->name_matched, 1);
    T_EQ_U64(c->agent_handle, 7);
    T_EQ_U64(c->dispatch_id, 9);
    T_EQ_STR(c->suffix, "_mylabel");
    T_CHECK(c->label == NULL);
    T_EQ_U64(c->nwaves, 2);
    if (c->nwaves == 2) {
        const kr_wave *w = &c->waves[0];
        T_EQ_STR(w->file, "se0_sm0_sl0_wv0.json");
        T_EQ_U64(w->simd, 0);
        T_EQ_U64(w->ninsts, 5);
        static const uint32_t rows[5] = {1, 2, KR_ROW_NONE, KR_ROW_NONE, KR_ROW_NONE};
        for (size_t i = 0; i < 5 && w->ninsts == 5; i++)
            T_EQ_U64(w->insts[i].row, rows[i]);
        T_EQ_STR(c->waves[1].file, "se0_sm1_sl0_wv0.json");
        T_EQ_U64(c->waves[1].simd, 1);
        T_EQ_U64(c->waves[1].insts[1].row, 2);
        T_EQ_U64(c->waves[0].bytes, strlen(WAVE0));
    }
    T_EQ_U64(c->rows[3].kernel, 3);
    T_EQ_U64(c->realtime.present, 0);
    T_EQ_U64(c->occupancy.present, 0);
    T_EQ_U64(c->has_snapshots_json, 0);
    static const char *const extra[5] = {"notes.md", "se0_sm0_sl0_wv9.json", "stats.csv", "sub", "zz"};
    T_EQ_U64(c->nextra_files, 5);
    for (size_t i = 0; i < 5 && c->nextra_files == 5; i++)
        T_EQ_STR(c->extra_files[i], extra[i]);
    T_EQ_U64(c->total_bytes, strlen(FILENAMES) + strlen(CODE) + strlen(WAVE0) + strlen(WAVE1));
    bundle_capture_free(c);

    /* opts->label wins; a realtime.json not covering SE0 (which has waves)
     * gives no alignment (docs/formats.md#se-alignment, V-16a). */
    put(dir, "realtime.json", "{\"SE1\":[[10,100],[20,120]],\"SE2\":[[10,100],[20,120]]}");
    bundle_opts lab = {.threads = 1, .no_discover = 1, .label = "mine"};
    c = NULL;
    T_EQ_I64(bundle_capture_load(dir, &lab, &c, &err), 0);
    if (c) {
        T_EQ_STR(c->label, "mine");
        T_EQ_U64(c->realtime.present, 1);
        T_EQ_U64(c->realtime.aligned, 0);
        T_EQ_U64(c->total_bytes, strlen(FILENAMES) + strlen(CODE) + strlen(WAVE0) + strlen(WAVE1) +
                                     fsize(dir, "realtime.json"));
        bundle_capture_free(c);
    }
    put(dir, "realtime.json", "{\"SE0\":[[10,100],[20,120]],\"SE2\":[[12,100],[22,120]]}");
    c = NULL;
    T_EQ_I64(bundle_capture_load(dir, &lab, &c, &err), 0);
    if (c) {
        T_EQ_U64(c->realtime.aligned, 1);
        T_EQ_I64(c->realtime.se_offset[0], 2);       /* lo.sc(SE2) - lo.sc(SE0), equal lo.rc */
        bundle_capture_free(c);
    }

    /* A folder under att_viewer/<label>/ gets that label; a name that does
     * not match the pattern is still a capture (docs/formats.md#capture-folder). */
    char av[4096], lbl[4096], other[4096];
    kr_path_join(av, sizeof av, root, "att_viewer");
    kr_path_join(lbl, sizeof lbl, av, "tiny");
    kr_path_join(other, sizeof other, lbl, "renamed_capture");
    T_EQ_I64(mkdir(av, 0755), 0);
    T_EQ_I64(mkdir(lbl, 0755), 0);
    make_capture(other);
    c = NULL;
    T_EQ_I64(bundle_capture_load(other, &opts, &c, &err), 0);
    if (c) {
        T_EQ_STR(c->label, "tiny");
        T_EQ_U64(c->name_matched, 0);
        T_CHECK(c->suffix == NULL);
        T_EQ_U64(c->agent_handle, 0);
        bundle_capture_free(c);
    }
}

static void expect_fail(const char *dir, int threads, int code, const char *file, const char *where, const char *msg)
{
    bundle_opts opts = {.threads = threads, .no_discover = 1};
    kr_capture *c = (kr_capture *)&opts;      /* must be reset to NULL */
    kr_err err;
    kr_err_clear(&err);
    T_EQ_I64(bundle_capture_load(dir, &opts, &c, &err), code);
    T_CHECK(c == NULL);
    T_EQ_STR(err.file, file);
    T_EQ_STR(err.where, where);
    T_EQ_STR(err.msg, msg);
}

static void test_errors(const char *root)
{
    char dir[4096], path[4096], path2[4096];
    kr_path_join(dir, sizeof dir, root, "ui_output_agent_1_dispatch_2");
    T_EQ_I64(mkdir(dir, 0755), 0);
    expect_fail(dir, 1, KR_INPUT, dir, "", "not a capture folder (no filenames.json)");
    kr_path_join(path, sizeof path, root, "nope");
    expect_fail(path, 1, KR_INPUT, path, "", "not a directory");

    put(dir, "filenames.json", FILENAMES);
    expect_fail(dir, 1, KR_INPUT, kr_path_join(path, sizeof path, dir, "code.json"), "",
                "missing code.json (required in a capture folder)");

    put(dir, "code.json", "{\"code\":[[\"s_nop 0\",0,1,\"\",1,0,2,12,8]],"
                          "\"header\":\"ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle\"}");
    expect_fail(dir, 1, KR_INPUT, path, "$.code[0]",
                "row has 9 elements, the header \"ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, "
                "Stall, Idle\" names 10 columns");

    put(dir, "code.json", CODE);
    put(dir, "se0_sm1_sl0_wv0.json", WAVE1);
    expect_fail(dir, 2, KR_INPUT, kr_path_join(path, sizeof path, dir, "se0_sm0_sl0_wv0.json"), "",
                "wave file listed in filenames.json does not exist");

    /* Both wave files broken: the error is the first in wave_refs order,
     * whatever the thread timing. */
    put(dir, "se0_sm0_sl0_wv0.json", "{\"wave\":{}}");
    put(dir, "se0_sm1_sl0_wv0.json", "[");
    for (int i = 0; i < 5; i++) {
        bundle_opts opts = {.threads = 2, .no_discover = 1};
        kr_capture *c = NULL;
        kr_err err;
        T_EQ_I64(bundle_capture_load(dir, &opts, &c, &err), KR_INPUT);
        T_CHECK(c == NULL);
        T_EQ_STR(err.file, path);
    }
    put(dir, "se0_sm0_sl0_wv0.json", WAVE0);
    kr_path_join(path2, sizeof path2, dir, "se0_sm1_sl0_wv0.json");
    bundle_opts opts = {.threads = 2, .no_discover = 1};
    kr_capture *c = NULL;
    kr_err err;
    T_EQ_I64(bundle_capture_load(dir, &opts, &c, &err), KR_INPUT);
    T_EQ_STR(err.file, path2);
    put(dir, "se0_sm1_sl0_wv0.json", WAVE1);

    /* optional files are parsed when present, and their errors fail the load */
    put(dir, "occupancy.json", "{\"0\":[[1,2,3,0,1,1,0]]}");
    expect_fail(dir, 1, KR_INPUT, kr_path_join(path, sizeof path, dir, "occupancy.json"), "$.0[0]",
                "expected an array of 6 or 11 integers, found an array of 7 elements");
    unlink(path);
    put(dir, "wstates3.json", "{\"name\":\"wstates3.json\",\"state\":[1],\"time\":[]}");
    expect_fail(dir, 1, KR_INPUT, kr_path_join(path, sizeof path, dir, "wstates3.json"), "$",
                "\"state\" has 1 entries but \"time\" has 0");
    unlink(path);
    put(dir, "snapshots.json", "{\"/\":[]}");
    expect_fail(dir, 1, KR_INPUT, kr_path_join(path, sizeof path, dir, "snapshots.json"), "$[\"/\"]",
                "expected an object or a copy file name string, found an array");
    unlink(path);
    c = NULL;
    T_EQ_I64(bundle_capture_load(dir, &opts, &c, &err), 0);
    bundle_capture_free(c);
}

/* Every file broken at once, then repaired one by one: the error reported is
 * always the first broken file in capture.h's order (code.json, wstates,
 * occupancy, realtime, snapshots, the waves by index, the results), with
 * any thread count; nothing depends on which task finished first. */
static void test_error_order(const char *root)
{
    char dir[4096], bad_csv[4096];
    kr_path_join(dir, sizeof dir, root, "ui_output_agent_3_dispatch_4");
    T_EQ_I64(mkdir(dir, 0755), 0);
    kr_path_join(bad_csv, sizeof bad_csv, root, "bad_kernel_stats.csv");
    FILE *f = fopen(bad_csv, "wb");
    T_CHECK(f != NULL);
    if (f) {
        fputs("\"Name\",\"Calls\"\n\"k\"\n", f);     /* a row short of the header */
        fclose(f);
    }
    static const struct { const char *name, *bad, *good; } files[] = {
        {"code.json", "{\"code\":7,\"header\":\"ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle\"}",
         NULL},
        {"wstates1.json", "{\"name\":\"w\",\"state\":[1],\"time\":[]}", "{\"name\":\"w\",\"state\":[1],\"time\":[5]}"},
        {"occupancy.json", "{\"0\":[[1,2,3,0,1,1,0]]}", "{\"0\":[[1,2,3,0,1,1]]}"},
        {"realtime.json", "{\"SE0\":[[-5,1]]}", "{\"SE0\":[[5,1]]}"},
        {"snapshots.json", "{\"/\":[]}", "{}"},
        {"se0_sm0_sl0_wv0.json", "[", NULL},
        {"se0_sm1_sl0_wv0.json", "{\"wave\":{}}", NULL},
    };
    const size_t n = sizeof files / sizeof files[0];
    put(dir, "filenames.json", FILENAMES);
    for (size_t i = 0; i < n; i++)
        put(dir, files[i].name, files[i].bad);
    for (size_t fixed = 0; fixed <= n; fixed++) {
        char want[4096];
        if (fixed < n)
            kr_path_join(want, sizeof want, dir, files[fixed].name);
        else
            snprintf(want, sizeof want, "%s", bad_csv);
        for (int threads = 1; threads <= 3; threads++)
            for (int rep = 0; rep < (threads > 1 ? 4 : 1); rep++) {
                bundle_opts opts = {.threads = threads, .results_path = bad_csv};
                kr_capture *c = NULL;
                kr_err err;
                kr_err_clear(&err);
                T_EQ_I64(bundle_capture_load(dir, &opts, &c, &err), KR_INPUT);
                T_CHECK(c == NULL);
                T_EQ_STR(err.file, want);
            }
        if (fixed < n) {
            const char *good = files[fixed].good;
            if (!good)
                good = strcmp(files[fixed].name, "code.json") == 0 ? CODE
                     : strcmp(files[fixed].name, "se0_sm0_sl0_wv0.json") == 0 ? WAVE0 : WAVE1;
            put(dir, files[fixed].name, good);
        }
    }
    /* all repaired, the results too: the same model with 1 and 3 threads */
    kr_capture *one = NULL, *three = NULL;
    kr_err err;
    bundle_opts o1 = {.threads = 1, .no_discover = 1}, o3 = {.threads = 3, .no_discover = 1};
    T_EQ_I64(bundle_capture_load(dir, &o1, &one, &err), 0);
    T_EQ_I64(bundle_capture_load(dir, &o3, &three, &err), 0);
    if (one && three) {
        T_EQ_U64(one->total_bytes, three->total_bytes);
        T_EQ_U64(one->nrows, 4);
        T_EQ_U64(one->occupancy.nses, 1);
        T_EQ_U64(one->realtime.nses, 1);
        T_EQ_U64(one->wstates[1].n, 1);
        T_EQ_U64(one->has_snapshots_json, 1);
        T_EQ_U64(one->nwaves, three->nwaves);
        for (size_t w = 0; w < one->nwaves && w < three->nwaves; w++) {
            T_EQ_U64(one->waves[w].ninsts, three->waves[w].ninsts);
            for (size_t k = 0; k < one->waves[w].ninsts && k < three->waves[w].ninsts; k++)
                T_EQ_U64(one->waves[w].insts[k].row, three->waves[w].insts[k].row);
        }
    }
    bundle_capture_free(one);
    bundle_capture_free(three);
    unlink(bad_csv);
}

int main(void)
{
    test_hub();
    char root[] = "/tmp/kr_capture_XXXXXX";
    if (mkdtemp(root)) {
        test_scratch(root);
        test_errors(root);
        test_error_order(root);
        rm_tree(root);
    } else {
        T_CHECK(0);
    }
    return t_done("test_load_capture");
}
