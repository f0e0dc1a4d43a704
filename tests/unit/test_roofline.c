/* test_roofline.c — counters, roofline, saturation and the hardware table
 * (analyzer/counters.h, roofline.h, saturation.h, report/hw.h,
 * templates/hw.json, the --counters dialects of synth/synth.c).
 *
 * Expected figures are derived by hand in the comments from the counter
 * construction documented at the top of synth/synth.c (W = 1024 waves per
 * dispatch, I = 3 iterations) and from the peaks of templates/hw.json; the
 * dispatch durations are recomputed here from the CSV text. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/analysis.h"
#include "bundle/capture.h"
#include "cli/commands.h"
#include "cli/roof.h"
#include "synth/synth.h"
#include "common/buf.h"
#include "report/hw.h"
#include "report/report.h"
#include "report/sections.h"
#include "report/templates.h"
#include "tests/unit/t.h"

/* ---- hand-derived constants (synth/synth.c, CONSTRUCTION) ---- */
#define W 1024.0
#define I 3.0
static const double FLOPS_BF16 = 512.0 * 64 * W * I;     /* 100663296 */
static const double FLOPS_FP8 = 512.0 * 128 * W * I;     /* 201326592 */
static const double FLOPS_FP32 = 64.0 * (W * I + W * I); /* 393216: one ADD and one MUL per wave-iteration */
static const double READ_BYTES = 262144.0 * I + 229376;  /* 128·1024I + 64·(4096+3072I−1024I−1024) + 32·1024 */
static const double WRITE_BYTES = 98304.0;               /* 64·1024 + 32·(2048−1024) */

/* ---- the hardware table ---- */

/* Every numeric entry of the embedded table carries a source that exists
 * (title, https URL) or is null with a reason; walked here with jansson,
 * independently of report/hw.c. */
static void test_table_sources(void)
{
    size_t len;
    const char *text = rep_template("hw.json", &len);
    T_CHECK(text != NULL);
    if (!text)
        return;
    json_error_t je;
    json_t *root = json_loadb(text, len, 0, &je);
    T_CHECK(root != NULL);
    if (!root)
        return;
    json_t *sources = json_object_get(root, "sources"), *devs = json_object_get(root, "devices");
    T_CHECK(json_is_object(sources) && json_object_size(sources) > 0);
    const char *key;
    json_t *s;
    json_object_foreach(sources, key, s) {
        const char *t = json_string_value(json_object_get(s, "title"));
        const char *u = json_string_value(json_object_get(s, "url"));
        T_CHECK(t && strlen(t) > 10);
        T_CHECK(u && strncmp(u, "https://", 8) == 0);
    }
    size_t entries = 0, sourced = 0, nulls = 0;
    int gfx90a = 0, gfx942 = 0, gfx950 = 0;
    for (size_t i = 0; i < json_array_size(devs); i++) {
        json_t *d = json_array_get(devs, i);
        const char *g = json_string_value(json_object_get(d, "gfx"));
        gfx90a += g && !strcmp(g, "gfx90a");
        gfx942 += g && !strcmp(g, "gfx942");
        gfx950 += g && !strcmp(g, "gfx950");
        json_t *vals[64];
        size_t nv = 0;
        static const char *const scalars[] = {"cu_count", "engine_clock_mhz", "lds_kib_per_cu", "hbm_gbs"};
        for (int k = 0; k < 4; k++)
            vals[nv++] = json_object_get(d, scalars[k]);
        json_t *e;
        json_object_foreach(json_object_get(d, "peak_tflops"), key, e)
            if (nv < 64)
                vals[nv++] = e;
        for (size_t k = 0; k < nv; k++) {
            entries++;
            json_t *v = json_object_get(vals[k], "value");
            if (json_is_null(v)) {
                const char *why = json_string_value(json_object_get(vals[k], "reason"));
                T_CHECK(why && *why);
                nulls++;
            } else {
                const char *src = json_string_value(json_object_get(vals[k], "source"));
                T_CHECK(json_is_number(v) && src && json_object_get(sources, src));
                sourced++;
            }
        }
    }
    T_CHECK(gfx90a >= 2 && gfx942 >= 2 && gfx950 >= 2);   /* MI210/MI250X, MI300X/MI325X, MI350X/MI355X */
    T_EQ_U64(entries, sourced + nulls);
    T_CHECK(sourced > 40);
    json_decref(root);

    /* The parser enforces the same rules. */
    rep_hw_table t;
    kr_err err;
    T_EQ_I64(rep_hw_load(&t, &err), 0);
    T_CHECK(t.n >= 6);
    rep_hw_free(&t);
    static const char no_source[] =
        "{\"sources\":{\"a\":{\"title\":\"A doc\",\"url\":\"https://x\"}},\"devices\":[{\"name\":\"X\",\"gfx\":\"gfx950\","
        "\"match\":[\"X\"],\"cu_count\":{\"value\":4},\"engine_clock_mhz\":{\"value\":null,\"reason\":\"r\"},"
        "\"lds_kib_per_cu\":{\"value\":null,\"reason\":\"r\"},\"hbm_gbs\":{\"value\":null,\"reason\":\"r\"},"
        "\"peak_tflops\":{}}]}";
    T_EQ_I64(rep_hw_parse(no_source, strlen(no_source), "t.json", &t, &err), KR_INPUT);
    T_EQ_STR(err.where, "$.devices[0].cu_count");
    static const char no_reason[] =
        "{\"sources\":{\"a\":{\"title\":\"A doc\",\"url\":\"https://x\"}},\"devices\":[{\"name\":\"X\",\"gfx\":\"gfx950\","
        "\"match\":[\"X\"],\"cu_count\":{\"value\":4,\"source\":\"a\"},\"engine_clock_mhz\":{\"value\":null},"
        "\"lds_kib_per_cu\":{\"value\":null,\"reason\":\"r\"},\"hbm_gbs\":{\"value\":null,\"reason\":\"r\"},"
        "\"peak_tflops\":{}}]}";
    T_EQ_I64(rep_hw_parse(no_reason, strlen(no_reason), "t.json", &t, &err), KR_INPUT);
    T_EQ_STR(err.where, "$.devices[0].engine_clock_mhz");
}

/* The embedded table; a failed load fails the test. */
static int load_table(rep_hw_table *t)
{
    kr_err err;
    int rc = rep_hw_load(t, &err);
    T_EQ_I64(rc, 0);
    return rc;
}

/* The table's values against the documents it cites (numbers typed from
 * them: ROCm MI350 Series page, CDNA 3 white paper Table 2, CDNA 2 white
 * paper product table) and against the per-CU rates the derivations use
 * (MFMA M×N×K and cycles of the ROCm matrix-core blog, 4 matrix cores per
 * CU). Every source is an AMD or ROCm document. */
static const an_hw *dev(const rep_hw_table *t, const char *name)
{
    char note[512];
    return rep_hw_pick(t, name, NULL, note, sizeof note);
}

static void test_table_values(void)
{
    rep_hw_table t;
    if (load_table(&t) != 0)
        return;
    static const char *const hosts[] = {"https://www.amd.com/", "https://rocm.docs.amd.com/",
                                        "https://rocm.blogs.amd.com/"};
    for (size_t i = 0; i < t.n; i++)
        for (size_t k = 0; k < t.dev[i].nsources; k++) {
            int ok = 0;
            for (size_t h = 0; h < sizeof hosts / sizeof hosts[0]; h++)
                ok |= strncmp(t.dev[i].sources[k].url, hosts[h], strlen(hosts[h])) == 0;
            T_CHECK(ok);
        }
    /* FLOP per clock per CU: 4 matrix cores × 2·M·N·K / cycles. */
    const double fp64 = 4 * 2.0 * 16 * 16 * 4 / 64, fp32 = 4 * 2.0 * 32 * 32 * 2 / 64;
    const double fp16 = 4 * 2.0 * 16 * 16 * 32 / 16, fp8 = 4 * 2.0 * 16 * 16 * 128 / 32,
                 fp4 = 4 * 2.0 * 16 * 16 * 128 / 16;
    T_NEAR(fp64, 128, 0);
    T_NEAR(fp8, 8192, 0);
    const an_hw *h = dev(&t, "MI355X");
    T_CHECK(h != NULL);
    if (h) {
        /* Printed: 78.6 / 157.3 TF vector and matrix, 157.3 TF vector FP16, 8 TB/s, 256 CUs, 160 KB LDS. */
        T_NEAR(h->peak_tflops[AN_UNIT_VECTOR][AN_DT_FP64], 78.6, 1e-9);
        T_NEAR(h->peak_tflops[AN_UNIT_MATRIX][AN_DT_FP32], 157.3, 1e-9);
        T_NEAR(h->peak_tflops[AN_UNIT_VECTOR][AN_DT_FP16], 157.3, 1e-9);
        T_NEAR(h->hbm_gbs, 8000, 1e-9);
        T_EQ_I64(h->cu_count, 256);
        T_EQ_I64(h->lds_kib, 160);
        /* The clock follows from the printed FP64 and FP32 peaks. */
        T_NEAR(78.6e6 / (fp64 * 256), h->clock_mhz, 2);
        T_NEAR(157.3e6 / (fp32 * 256), h->clock_mhz, 1);
        /* Derived peaks, printed rounded as 2.5 PF, 5.0 PF, 10 PF. */
        T_NEAR(h->peak_tflops[AN_UNIT_MATRIX][AN_DT_FP16], fp16 * 256 * 2400 / 1e6, 0.05);
        T_NEAR(h->peak_tflops[AN_UNIT_MATRIX][AN_DT_FP8], fp8 * 256 * 2400 / 1e6, 0.05);
        T_NEAR(h->peak_tflops[AN_UNIT_MATRIX][AN_DT_FP6_FP4], fp4 * 256 * 2400 / 1e6, 0.05);
        T_NEAR(h->peak_tflops[AN_UNIT_MATRIX][AN_DT_FP8], 5000, 50);
        T_NEAR(h->peak_tflops[AN_UNIT_MATRIX][AN_DT_XF32], 0, 0);   /* no CDNA4 TF32 figure: null */
    }
    h = dev(&t, "MI350X");
    T_CHECK(h != NULL);
    if (h) {
        /* Printed: 72.1 / 144.2 TF, 2.3 PF FP16, 4.6 PF FP8, 9.2 PF MXFP6/MXFP4. */
        T_NEAR(h->peak_tflops[AN_UNIT_MATRIX][AN_DT_FP64], 72.1, 1e-9);
        T_NEAR(h->peak_tflops[AN_UNIT_VECTOR][AN_DT_FP32], 144.2, 1e-9);
        T_NEAR(72.1e6 / (fp64 * 256), h->clock_mhz, 1);
        T_NEAR(h->peak_tflops[AN_UNIT_MATRIX][AN_DT_BF16], fp16 * 256 * 2200 / 1e6, 0.05);
        T_NEAR(h->peak_tflops[AN_UNIT_MATRIX][AN_DT_FP8], fp8 * 256 * 2200 / 1e6, 0.05);
        T_NEAR(h->peak_tflops[AN_UNIT_MATRIX][AN_DT_FP6_FP4], fp4 * 256 * 2200 / 1e6, 0.05);
        T_NEAR(h->peak_tflops[AN_UNIT_MATRIX][AN_DT_FP8], 4600, 50);
    }
    /* CDNA 3 white paper Table 2: MI325X 2,100 MHz, 6.0 TB/s, TF32 653.7, FP8 2,614.9;
     * FP16 = 2048 FLOP/clock/CU (ROCm MI300 table) × 304 × 2100. */
    h = dev(&t, "MI325X");
    T_CHECK(h != NULL);
    if (h) {
        T_NEAR(h->clock_mhz, 2100, 0);
        T_NEAR(h->hbm_gbs, 6000, 0);
        T_NEAR(h->peak_tflops[AN_UNIT_MATRIX][AN_DT_XF32], 653.7, 1e-9);
        T_NEAR(h->peak_tflops[AN_UNIT_MATRIX][AN_DT_FP8], 2614.9, 1e-9);
        T_NEAR(h->peak_tflops[AN_UNIT_MATRIX][AN_DT_FP16], 2048.0 * 304 * 2100 / 1e6, 0.05);
        T_NEAR(h->peak_tflops[AN_UNIT_MATRIX][AN_DT_FP6_FP4], 0, 0);   /* no CDNA3 FP6/FP4 */
    }
    /* CDNA 2 white paper: MI210 104 CUs, 22.6 / 45.3 / 181.0 TF, 1.6384 TB/s (endnote 10). */
    h = dev(&t, "MI210");
    T_CHECK(h != NULL);
    if (h) {
        T_EQ_I64(h->cu_count, 104);
        T_NEAR(h->peak_tflops[AN_UNIT_VECTOR][AN_DT_FP64], 22.6, 1e-9);
        T_NEAR(h->peak_tflops[AN_UNIT_MATRIX][AN_DT_FP64], 45.3, 1e-9);
        T_NEAR(h->peak_tflops[AN_UNIT_MATRIX][AN_DT_BF16], 181.0, 1e-9);
        T_NEAR(h->hbm_gbs, 1638.4, 1e-9);
        T_NEAR(h->peak_tflops[AN_UNIT_MATRIX][AN_DT_FP8], 0, 0);       /* no CDNA2 FP8 */
        /* 128 FLOP/clock/CU (ROCm MI250 table) × 104 CUs at the table's clock gives the printed 22.6. */
        T_NEAR(128.0 * 104 * h->clock_mhz / 1e6, 22.6, 0.05);
    }
    rep_hw_free(&t);

    /* Sparsity and the nulls, read from the JSON text. */
    size_t len;
    const char *text = rep_template("hw.json", &len);
    json_error_t je;
    json_t *root = text ? json_loadb(text, len, 0, &je) : NULL;
    T_CHECK(root != NULL);
    json_t *devs = json_object_get(root, "devices");
    for (size_t i = 0; i < json_array_size(devs); i++) {
        json_t *d = json_array_get(devs, i);
        const char *name = json_string_value(json_object_get(d, "name"));
        json_t *pk = json_object_get(d, "peak_tflops");
        double dense = json_number_value(json_object_get(json_object_get(pk, "matrix_fp8"), "value"));
        json_t *sparse = json_object_get(json_object_get(pk, "matrix_fp8_sparse"), "value");
        if (name && (!strcmp(name, "MI300X") || !strcmp(name, "MI325X")))
            T_NEAR(json_number_value(sparse), 5229.8, 1e-9);   /* CDNA 3 white paper */
        if (json_is_number(sparse))
            T_NEAR(json_number_value(sparse), 2 * dense, 0.15);
        if (name && !strcmp(name, "MI355X"))
            T_CHECK(json_is_null(json_object_get(json_object_get(pk, "matrix_fp6_fp4_sparse"), "value")));
    }
    json_decref(root);
}

static void test_pick(void)
{
    rep_hw_table t;
    if (load_table(&t) != 0)
        return;
    char note[512];
    const an_hw *h = rep_hw_pick(&t, "mi300x", NULL, note, sizeof note);
    T_CHECK(h && !strcmp(h->name, "MI300X"));
    /* MI300X, ROCm documentation table: 163.4 matrix FP64, 1307.4 FP16, 5.3 TB/s, 304 CUs */
    T_NEAR(h ? h->peak_tflops[AN_UNIT_MATRIX][AN_DT_FP16] : 0, 1307.4, 1e-9);
    T_NEAR(h ? h->hbm_gbs : 0, 5300, 1e-9);
    T_EQ_I64(h ? h->cu_count : 0, 304);
    T_CHECK(rep_hw_pick(&t, "H100", NULL, note, sizeof note) == NULL);
    T_CHECK(strstr(note, "not in the hardware table") != NULL);

    /* Agent product names: whole-word match, MI250X is not MI250. */
    kr_capture c;
    memset(&c, 0, sizeof c);
    kr_agent ag[2];
    memset(ag, 0, sizeof ag);
    ag[0].type = 1;
    ag[1].type = 2;
    ag[1].name = "gfx950";
    ag[1].product_name = "AMD Instinct MI350X";
    ag[1].cu_count = 256;
    kr_agent_info ai = {"agent_info.csv", ag, 2};
    c.agent_info = &ai;
    h = rep_hw_pick(&t, NULL, &c, note, sizeof note);
    T_CHECK(h && !strcmp(h->name, "MI350X"));
    T_NEAR(h ? h->clock_mhz : 0, 2200, 1e-9);
    ag[1].name = "gfx90a";
    ag[1].product_name = "AMD Instinct MI250X";
    ag[1].cu_count = 110;
    h = rep_hw_pick(&t, NULL, &c, note, sizeof note);
    T_CHECK(h && !strcmp(h->name, "MI250X (one GCD)"));
    /* One GCD of the package: CDNA 2 white paper endnote 5, 3.20 Gbps × 4096
     * bits / 8 = 1638.4 GB/s; 383.0 TF FP16 / 2 GCDs. */
    T_NEAR(h ? h->hbm_gbs : 0, 3.20 * 4096 / 8, 1e-9);
    T_NEAR(h ? h->peak_tflops[AN_UNIT_MATRIX][AN_DT_FP16] : 0, 383.0 / 2, 1e-9);
    T_EQ_I64(h ? h->cu_count : 0, 110);
    ag[1].product_name = "AMD Instinct MI100";
    ag[1].name = "gfx908";
    ag[1].cu_count = 120;
    T_CHECK(rep_hw_pick(&t, NULL, &c, note, sizeof note) == NULL);
    T_CHECK(strstr(note, "matches no entry") != NULL);
    /* No product name: gfx + CU count, when unique (gfx950 with 256 CUs is
     * MI350X and MI355X: ambiguous). */
    ag[1].product_name = "";
    ag[1].name = "gfx90a";
    ag[1].cu_count = 110;
    h = rep_hw_pick(&t, NULL, &c, note, sizeof note);
    T_CHECK(h && !strcmp(h->name, "MI250X (one GCD)"));
    /* gfx90a with 104 CUs is an MI210 or one GCD of an MI250: ambiguous. */
    ag[1].cu_count = 104;
    T_CHECK(rep_hw_pick(&t, NULL, &c, note, sizeof note) == NULL);
    T_CHECK(strstr(note, "unambiguously") != NULL);
    ag[1].name = "gfx950";
    ag[1].cu_count = 256;
    T_CHECK(rep_hw_pick(&t, NULL, &c, note, sizeof note) == NULL);
    c.agent_info = NULL;
    T_CHECK(rep_hw_pick(&t, NULL, &c, note, sizeof note) == NULL);
    T_CHECK(strstr(note, "no GPU agent information") != NULL);
    rep_hw_free(&t);
}

static void test_mfma_dtype(void)
{
    T_EQ_I64(an_roof_mfma_dtype("v_mfma_f32_32x32x16_bf16", "v_mfma_f32_32x32x16_bf16 v[0:15], v[16:19], v[20:23], 0"),
             AN_DT_BF16);
    T_EQ_I64(an_roof_mfma_dtype("v_mfma_f32_32x32x8f16", NULL), AN_DT_FP16);        /* gfx90a spelling */
    T_EQ_I64(an_roof_mfma_dtype("v_mfma_f32_32x32x8bf16_1k", NULL), AN_DT_BF16);
    T_EQ_I64(an_roof_mfma_dtype("v_mfma_f64_16x16x4_f64", NULL), AN_DT_FP64);
    T_EQ_I64(an_roof_mfma_dtype("v_mfma_f32_16x16x4_f32", NULL), AN_DT_FP32);
    T_EQ_I64(an_roof_mfma_dtype("v_mfma_f32_16x16x8_xf32", NULL), AN_DT_XF32);
    T_EQ_I64(an_roof_mfma_dtype("v_mfma_i32_32x32x16_i8", NULL), AN_DT_INT8);
    T_EQ_I64(an_roof_mfma_dtype("v_mfma_f32_16x16x32_fp8_bf8", NULL), AN_DT_FP8);
    /* f8f6f4: FP8 unless both operands are FP6/FP4 (cbsz, blgp >= 2) */
    T_EQ_I64(an_roof_mfma_dtype("v_mfma_scale_f32_16x16x128_f8f6f4", "v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], "
                                "v[4:11], v[12:19], v[0:3], v20, v21"), AN_DT_FP8);
    T_EQ_I64(an_roof_mfma_dtype("v_mfma_scale_f32_16x16x128_f8f6f4", "v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], "
                                "v[4:7], v[12:15], v[0:3], v20, v21 cbsz:4 blgp:4"), AN_DT_FP6_FP4);
    T_EQ_I64(an_roof_mfma_dtype("v_mfma_scale_f32_16x16x128_f8f6f4", "... cbsz:4 blgp:0"), AN_DT_FP8);
    T_EQ_I64(an_roof_mfma_dtype("v_add_f32", "v_add_f32 v1, v2, v3"), -1);
    an_unit u;
    an_dtype d;
    T_EQ_I64(an_ceiling_parse("matrix_fp6_fp4", &u, &d), 0);
    T_CHECK(u == AN_UNIT_MATRIX && d == AN_DT_FP6_FP4);
    T_EQ_I64(an_ceiling_parse("matrix_fp4", &u, &d), -1);
}

/* ---- counters from each CSV dialect ---- */

/* Mean End − Start over the synth_kernel_0 rows' dispatches, from the CSV
 * text (last two columns); 0 when the file has no timestamps. */
static uint64_t csv_mean_duration(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[4096];
    uint64_t ids[8], start[8], end[8];
    size_t n = 0;
    int has_ts = fgets(line, sizeof line, f) && strstr(line, "End_Timestamp") != NULL;
    while (has_ts && fgets(line, sizeof line, f)) {
        if (!strstr(line, "\"synth_kernel_0\""))
            continue;
        unsigned long long id = strtoull(line, NULL, 10);
        char *last = strrchr(line, ','), *prev;
        *last = '\0';
        prev = strrchr(line, ',');
        size_t k = 0;
        while (k < n && ids[k] != id)
            k++;
        if (k == n && n < 8) {
            ids[n] = id;
            start[n] = strtoull(prev + 1, NULL, 10);
            end[n] = strtoull(last + 1, NULL, 10);
            n++;
        }
    }
    fclose(f);
    uint64_t total = 0;
    for (size_t k = 0; k < n; k++)
        total += end[k] - start[k];
    return n ? total / n : 0;
}

static kr_capture *synth_capture(const char *dir, synth_counters dialect)
{
    synth_opts o;
    synth_opts_default(&o);
    o.counters = dialect;
    o.force = 1;
    kr_err err;
    if (synth_write(&o, dir, &err) != 0) {
        fprintf(stderr, "synth: %s\n", err.msg);
        return NULL;
    }
    char cap[4096];
    snprintf(cap, sizeof cap, "%s/ui_output_agent_24601_dispatch_14", dir);
    bundle_opts bo = {0};
    bo.threads = 1;
    bo.skip_wstates = 1;
    kr_capture *c = NULL;
    if (bundle_capture_load(cap, &bo, &c, &err) != 0) {
        fprintf(stderr, "load: %s\n", err.msg);
        return NULL;
    }
    return c;
}

static void check_counters(const an_counters *k, int old)
{
    T_CHECK(k->present);
    T_EQ_STR(k->match, "kernel");             /* counter run ids 1-3, capture dispatch 14 */
    T_EQ_U64(k->ndispatches, 2);
    T_NEAR(k->flops[AN_UNIT_MATRIX][AN_DT_BF16], FLOPS_BF16, 0);
    T_NEAR(k->flops[AN_UNIT_MATRIX][AN_DT_FP8], FLOPS_FP8, 0);
    T_NEAR(k->flops[AN_UNIT_VECTOR][AN_DT_FP32], FLOPS_FP32, 0);
    T_NEAR(k->flops_total, 302383104.0, 0);   /* 98432 · W · I */
    T_NEAR(k->flops_total, FLOPS_BF16 + FLOPS_FP8 + FLOPS_FP32, 0);
    T_NEAR(k->read_bytes, READ_BYTES, 0);
    T_NEAR(k->write_bytes, WRITE_BYTES, 0);
    T_EQ_STR(k->read_formula, old ? "FETCH_SIZE" : "TCC_EA0_RDREQ");
    T_NEAR(k->l2_hit_rate, 0.75, 1e-12);      /* 3072 / 4096 */
    T_NEAR(k->lds_conflict_rate, 0.125, 1e-12);   /* 128 I / 1024 I */
    T_NEAR(k->waves, W, 0);
    T_NEAR(k->mfma_insts, 2 * W * I, 0);
    T_NEAR(k->busy_cycles, 50000, 0);
}

static void test_dialects(void)
{
    static const struct { synth_counters d; const char *file; size_t files; } cases[] = {
        {SYNTH_CTR_CURRENT, "counter_collection.csv", 1},
        {SYNTH_CTR_OLD, "counter_collection.csv", 1},
        {SYNTH_CTR_NO_KERNEL_ID, "counter_collection.csv", 1},
        {SYNTH_CTR_PASSES, "pass_1/counter_collection.csv", 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char tmpl[] = "/tmp/test_roofline_XXXXXX";
        char *dir = mkdtemp(tmpl);
        T_CHECK(dir != NULL);
        if (!dir)
            continue;
        kr_capture *c = synth_capture(dir, cases[i].d);
        T_CHECK(c != NULL);
        if (c) {
            T_EQ_U64(c->ncounter_paths, cases[i].files);
            an_counters k;
            an_counters_compute(c, "synth_kernel_0", &k);
            check_counters(&k, cases[i].d == SYNTH_CTR_OLD);
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dir, cases[i].file);
            uint64_t want = csv_mean_duration(path);
            if (cases[i].d == SYNTH_CTR_OLD) {
                T_EQ_U64(want, 0);
                T_EQ_U64(k.duration_ns, 0);    /* no timestamps, no kernel trace in this layout */
            } else {
                T_CHECK(want > 20000);         /* 23800 + rnd(1600) ns */
                T_EQ_U64(k.duration_ns, want);
                T_EQ_STR(k.duration_source, "counter timestamps");
            }
            /* Another kernel name matches nothing. */
            an_counters none;
            an_counters_compute(c, "synth_kernel", &none);
            T_CHECK(!none.present);
            bundle_capture_free(c);
        }
        t_rm_rf(dir);
    }
}

/* results.json counter records (docs/formats.md#results-json) join the CSV rows; rows of the
 * capture's own dispatch id, when present, are the only ones used. */
static void test_results_records(void)
{
    kr_capture c;
    memset(&c, 0, sizeof c);
    c.name_matched = 1;
    c.dispatch_id = 44;
    kr_counter_value csv[3] = {
        {7, "k0", "SQ_WAVES", 100, 0, 0},
        {7, "k0", "SQ_INSTS_VALU_MFMA_MOPS_F16", 10, 0, 0},
        {44, "k0", "SQ_WAVES", 200, 0, 0},
    };
    kr_counter_value rec[3] = {
        {44, "k0.kd", "SQ_INSTS_VALU_MFMA_MOPS_F16", 30, 0, 0},   /* ".kd" ignored */
        {44, "k0", "TCC_HIT[0]", 3, 0, 0},                         /* instances summed */
        {44, "k0", "TCC_HIT[1]", 5, 0, 0},
    };
    kr_counter_value miss = {44, "k0", "TCC_MISS_sum", 8, 0, 0};
    kr_counter_value recs[4] = {rec[0], rec[1], rec[2], miss};
    kr_process proc;
    memset(&proc, 0, sizeof proc);
    proc.counters = recs;
    proc.ncounters = 4;
    kr_results res = {"r.json", &proc, 1};
    c.counters = csv;
    c.ncounters = 3;
    c.results = &res;
    an_counters k;
    an_counters_compute(&c, "k0", &k);
    T_CHECK(k.present);
    T_EQ_STR(k.match, "dispatch");
    T_EQ_U64(k.ndispatches, 1);
    T_EQ_U64(k.nrows, 5);                       /* dispatch 7 left out */
    T_NEAR(k.waves, 200, 0);
    T_NEAR(k.flops[AN_UNIT_MATRIX][AN_DT_FP16], 512.0 * 30, 0);
    T_NEAR(k.l2_hit_rate, 8.0 / 16.0, 1e-12);   /* (3 + 5) / (8 + 8) */
    /* Without the capture's dispatch: every dispatch of the kernel, mean per dispatch. */
    c.dispatch_id = 99;
    an_counters_compute(&c, "k0", &k);
    T_EQ_STR(k.match, "kernel");
    T_EQ_U64(k.ndispatches, 2);
    T_NEAR(k.waves, (100.0 + 200.0) / 2, 0);
    T_NEAR(k.flops[AN_UNIT_MATRIX][AN_DT_FP16], 512.0 * (10 + 30) / 2, 0);
}

/* The formulas on hand-made rows: a VALU FMA counts two FLOPs per lane, the
 * gfx90a TCC_EA_ spelling has no 128-byte (TCC_BUBBLE) term, the gfx942 /
 * gfx950 TCC_EA0_ spelling has; and every formula names the public file it
 * was checked against. */
static void test_formulas(void)
{
    for (size_t i = 0; i < an_counter_nformulas; i++) {
        T_CHECK(an_counter_formulas[i].metric && an_counter_formulas[i].formula);
        T_CHECK(an_counter_formulas[i].source && strstr(an_counter_formulas[i].source, "ROCm/") &&
                (strstr(an_counter_formulas[i].source, ".yaml") || strstr(an_counter_formulas[i].source, ".py")));
    }
    kr_capture c;
    memset(&c, 0, sizeof c);
    c.dispatch_id = 5;
    kr_counter_value gfx90a[] = {
        {5, "k", "SQ_INSTS_VALU_ADD_F64", 3, 0, 0},     {5, "k", "SQ_INSTS_VALU_FMA_F64", 10, 0, 0},
        {5, "k", "SQ_INSTS_VALU_TRANS_F16", 1, 0, 0},   {5, "k", "TCC_EA_RDREQ", 100, 0, 0},
        {5, "k", "TCC_EA_RDREQ_32B", 40, 0, 0},         {5, "k", "TCC_BUBBLE", 7, 0, 0},
        {5, "k", "TCC_EA_WRREQ", 50, 0, 0},             {5, "k", "TCC_EA_WRREQ_64B", 20, 0, 0},
        {5, "k", "SQ_LDS_BANK_CONFLICT", 30, 0, 0},     {5, "k", "SQ_LDS_IDX_ACTIVE", 120, 0, 0},
    };
    c.counters = gfx90a;
    c.ncounters = sizeof gfx90a / sizeof gfx90a[0];
    an_counters k;
    an_counters_compute(&c, "k", &k);
    T_CHECK(k.present);
    T_NEAR(k.flops[AN_UNIT_VECTOR][AN_DT_FP64], 64.0 * (3 + 2 * 10), 0);   /* 1472 */
    T_NEAR(k.flops[AN_UNIT_VECTOR][AN_DT_FP16], 64.0 * 1, 0);
    T_NEAR(k.read_bytes, 64.0 * (100 - 40) + 32.0 * 40, 0);               /* 5120: TCC_BUBBLE ignored */
    T_EQ_STR(k.read_formula, "TCC_EA_RDREQ");
    T_NEAR(k.write_bytes, 64.0 * 20 + 32.0 * (50 - 20), 0);                /* 2240 */
    T_NEAR(k.lds_conflict_rate, 30.0 / 120, 1e-15);
    /* The same numbers in the TCC_EA0_ spelling: 7 of the 60 non-32-byte reads are 128-byte. */
    kr_counter_value gfx950[] = {
        {5, "k", "TCC_EA0_RDREQ", 100, 0, 0}, {5, "k", "TCC_EA0_RDREQ_32B", 40, 0, 0},
        {5, "k", "TCC_BUBBLE", 7, 0, 0},
    };
    c.counters = gfx950;
    c.ncounters = sizeof gfx950 / sizeof gfx950[0];
    an_counters_compute(&c, "k", &k);
    T_NEAR(k.read_bytes, 128.0 * 7 + 64.0 * (100 - 7 - 40) + 32.0 * 40, 0);   /* 5568 */
    T_EQ_STR(k.read_formula, "TCC_EA0_RDREQ");
}

/* ---- roofline figures and the golden section ---- */

static void test_roofline(void)
{
    char tmpl[] = "/tmp/test_roofline_XXXXXX";
    char *dir = mkdtemp(tmpl);
    kr_capture *c = dir ? synth_capture(dir, SYNTH_CTR_CURRENT) : NULL;
    T_CHECK(c != NULL);
    if (!c) {
        if (dir)
            t_rm_rf(dir);
        return;
    }
    rep_hw_table t;
    kr_err err;
    T_EQ_I64(rep_hw_load(&t, &err), 0);
    char note[512];
    an_analysis_opts ao = {0};
    ao.threads = 1;
    ao.roof.hw = rep_hw_pick(&t, "MI355X", c, note, sizeof note);
    ao.roof.device_note = note;
    ao.roof.has_time = 1;
    ao.roof.time_ns = 30000;
    an_analysis a;
    T_EQ_I64(an_analyze(c, &ao, &a), 0);
    const an_roofline *r = &a.roofline;
    /* FLOPs 302383104, bytes 1015808 + 98304 = 1114112, 30 µs. */
    double flops = 302383104.0, bytes = READ_BYTES + WRITE_BYTES, secs = 30e-6;
    T_NEAR(r->flops, flops, 0);
    T_NEAR(r->bytes, 1114112.0, 0);
    T_EQ_STR(r->ceiling_source, "counters");
    T_CHECK(r->unit == AN_UNIT_MATRIX && r->dtype == AN_DT_FP8);   /* fp8 holds most FLOPs */
    T_NEAR(r->achieved_flops_s, flops / secs, 1);
    T_NEAR(r->achieved_bytes_s, bytes / secs, 1e-3);
    T_NEAR(r->intensity, flops / bytes, 1e-9);                     /* 271.41 */
    /* MI355X: matrix FP8 5033.2 TFLOP/s, HBM 8000 GB/s → ridge 629.15 */
    T_NEAR(r->peak_flops_s, 5033.2e12, 1);
    T_NEAR(r->peak_bytes_s, 8000e9, 1);
    T_NEAR(r->ridge, 5033.2e12 / 8000e9, 1e-9);
    T_CHECK(r->bound == AN_BOUND_MEMORY);
    T_NEAR(r->margin, (flops / bytes) / (5033.2e12 / 8000e9), 1e-12);
    T_NEAR(r->pct_bytes, bytes / secs / 8000e9, 1e-15);
    T_NEAR(r->pct_flops, flops / secs / 5033.2e12, 1e-15);
    /* Target: 1114112 B / (0.9 × 8e12 B/s) = 154.74 ns → 155 ns. */
    T_CHECK(r->has_target && r->target_ceiling == AN_BOUND_MEMORY);
    T_EQ_U64(r->target_time_ns, 155);
    T_NEAR(r->target_speedup, 30000.0 / (bytes / (0.9 * 8000e9) * 1e9), 1e-9);
    /* The recommendation comes first. */
    T_CHECK(a.advice.n > 0 && !strcmp(a.advice.items[0].id, "roofline"));
    T_CHECK(a.advice.n > 0 && strstr(a.advice.items[0].title, "Memory-bound at 0.5 % of peak HBM bandwidth on MI355X"));

    /* Golden lines of the REPORT.md section. */
    rep_doc *d = rep_doc_new();
    const an_analysis *ap = &a;
    const char *label = "small";
    rep_md_roofline(d, &ap, &label, 1);
    kr_buf md;
    kr_buf_init(&md);
    rep_doc_markdown(d, &md);
    const char *s = kr_buf_cstr(&md);
    static const char *const golden[] = {
        "## Speed of light",
        "Device: **MI355X** (MI355X, chosen with --device).",
        "| FLOPs per dispatch | 302 M | counters |",
        "| HBM bytes per dispatch | 1.11 M | counters |",
        "| Dispatch time | 30.00 µs | --time-ns |",
        "| Achieved FLOP/s | 10.08 TFLOP/s | FLOPs / time |",
        "| Achieved HBM bandwidth | 37.1 GB/s | bytes / time |",
        "| Arithmetic intensity | 271.41 FLOP/byte | FLOPs / bytes |",
        "| Ridge point | 629.1 FLOP/byte | peak FLOP/s / peak bytes/s |",
        "| Bound | **memory-bound** (intensity 0.43× the ridge) | intensity vs ridge |",
        "| % of peak HBM bandwidth | 0.5 % |  |",
        "| Target: 90.0 % of the HBM peak | 0.15 µs per dispatch (193.88× faster) | work / (target × peak) |",
        "| `matrix_fp8` | 5033.2 | 0.1 % |",
        "| HBM read bytes (TCC_EA0_RDREQ) | 1.02 M |",
        "| L2 hit rate | 75.0 % |",
        "| LDS bank-conflict rate | 12.5 % |",
    };
    for (size_t i = 0; i < sizeof golden / sizeof golden[0]; i++) {
        int found = s && strstr(s, golden[i]) != NULL;
        T_CHECK(found);
        if (!found)
            fprintf(stderr, "missing golden line: %s\n", golden[i]);
    }
    kr_buf_free(&md);
    rep_doc_free(d);
    an_analysis_free(&a);

    /* Unknown device: figures without peaks, no peak-relative number. */
    ao.roof.hw = rep_hw_pick(&t, "H100", c, note, sizeof note);
    T_EQ_I64(an_analyze(c, &ao, &a), 0);
    r = &a.roofline;
    T_CHECK(r->has_achieved_flops && r->has_intensity);
    T_CHECK(!r->has_peak_flops && !r->has_peak_bytes && !r->has_pct_flops && !r->has_pct_bytes);
    T_CHECK(r->bound == AN_BOUND_UNKNOWN && !r->has_target && r->nceilings == 0);
    T_CHECK(a.advice.n == 0 || strcmp(a.advice.items[0].id, "roofline") != 0);
    d = rep_doc_new();
    rep_md_roofline(d, &ap, &label, 1);
    kr_buf_init(&md);
    rep_doc_markdown(d, &md);
    s = kr_buf_cstr(&md);
    T_CHECK(strstr(s, "Device: **unknown** — device 'H100' (--device) is not in the hardware table") != NULL);
    T_CHECK(strstr(s, "No peak-relative figure is printed.") != NULL);
    T_CHECK(strstr(s, "| % of peak FLOP/s | unknown |") != NULL);
    T_CHECK(strstr(s, "| Ridge point | unknown |") != NULL);
    T_CHECK(strstr(s, "TFLOP/s |") == NULL || strstr(s, "Peak TFLOP/s") == NULL);
    kr_buf_free(&md);
    rep_doc_free(d);
    an_analysis_free(&a);

    /* --flops / --bytes override the counters and say so. */
    ao.roof.hw = rep_hw_pick(&t, "MI300X", c, note, sizeof note);
    ao.roof.has_flops = ao.roof.has_bytes = 1;
    ao.roof.flops = 1307400000000ull;   /* 1307.4 GFLOP in 1 ms = 1307.4 TFLOP/s: 100 % of MI300X matrix fp16 */
    ao.roof.bytes = 1000000000ull;
    ao.roof.time_ns = 1000000;
    ao.roof.ceiling = "matrix_fp16";
    T_EQ_I64(an_analyze(c, &ao, &a), 0);
    r = &a.roofline;
    T_EQ_STR(r->flops_source, "--flops");
    T_EQ_STR(r->bytes_source, "--bytes");
    T_EQ_STR(r->ceiling_source, "option");
    T_NEAR(r->pct_flops, 1.0, 1e-12);
    T_CHECK(r->bound == AN_BOUND_COMPUTE);          /* 1307.4 FLOP/byte > ridge 1307.4/5.3 = 246.7 */
    T_CHECK(r->at_target);
    an_analysis_free(&a);

    rep_hw_free(&t);
    bundle_capture_free(c);
    t_rm_rf(dir);
}

/* ---- work from a benchmark CSV (cli/roof.h) ---- */

static void test_bench(void)
{
    char tmpl[] = "/tmp/test_roofline_XXXXXX";
    char *dir = mkdtemp(tmpl);
    T_CHECK(dir != NULL);
    if (!dir)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/bench.csv", dir);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("B,S,H,D,us_flydsl,us_ref,tflops,err_flydsl\n1,4096,16,128,100.0,120.0,,0\n"
              "2,8192,16,128,250.5,300,1100.5,0\n", f);
        fclose(f);
    }
    const cli_command *cmd = cli_find("analyze");
    cli_roof r;
    memset(&r, 0, sizeof r);
    r.bench = path;
    r.bench_row = "2";
    r.flops_formula = "4*B*H*S*S*D";       /* attention forward: 4·B·H·S²·D */
    r.bytes_formula = "4*B*S*H*D*2";
    T_EQ_I64(cli_roof_init(cmd, &r), 0);
    T_EQ_U64(r.base.time_ns, 250500);        /* us_flydsl, the first us_* column */
    T_EQ_U64(r.base.flops, 4ull * 2 * 16 * 8192 * 8192 * 128);   /* 1099511627776 */
    T_EQ_U64(r.base.bytes, 4ull * 2 * 8192 * 16 * 128 * 2);      /* 268435456 */
    T_EQ_STR(r.base.flops_source, "bench.csv row 2, 4*B*H*S*S*D");
    T_EQ_STR(r.base.time_source, "bench.csv row 2, us_flydsl");
    cli_roof_free(&r);
    /* tflops column × time: 1100.5e12 × 250.5e-6 = 275675250000; no gbps column. */
    memset(&r, 0, sizeof r);
    r.bench = path;
    r.bench_row = "2";
    T_EQ_I64(cli_roof_init(cmd, &r), 0);
    T_EQ_U64(r.base.flops, 275675250000ull);
    T_CHECK(r.base.has_flops && !r.base.has_bytes);
    cli_roof_free(&r);
    /* --time-ns wins over the us_* column. */
    memset(&r, 0, sizeof r);
    r.bench = path;
    r.bench_row = "2";
    r.time_ns = "1000000";
    T_EQ_I64(cli_roof_init(cmd, &r), 0);
    T_EQ_U64(r.base.time_ns, 1000000);
    T_EQ_U64(r.base.flops, 1100500000000ull);   /* 1100.5e12 × 1 ms */
    cli_roof_free(&r);
    /* Errors: several rows without --bench-row; an unknown column; a formula without --bench. */
    fprintf(stderr, "(three expected error messages follow)\n");
    memset(&r, 0, sizeof r);
    r.bench = path;
    T_EQ_I64(cli_roof_init(cmd, &r), KR_INPUT);
    memset(&r, 0, sizeof r);
    r.bench = path;
    r.bench_row = "1";
    r.flops_formula = "2*B*X";
    T_EQ_I64(cli_roof_init(cmd, &r), KR_INPUT);
    memset(&r, 0, sizeof r);
    r.flops_formula = "2*B";
    T_EQ_I64(cli_roof_init(cmd, &r), KR_USAGE);
    t_rm_rf(dir);
}

/* ---- saturation ---- */

static void test_saturation(void)
{
    an_occ_kernel k;
    memset(&k, 0, sizeof k);
    an_occupancy occ;
    memset(&occ, 0, sizeof occ);
    occ.kernels = &k;
    occ.nkernels = 1;
    occ.cu_count = -1;
    /* pa_mqa_logits_fp4 (docs/occupancy.md#worked-examples): 507 workgroups of 256, 256 CUs,
     * 5 waves/SIMD = 5 workgroups/CU → 1280 slots, one round, 773 idle. */
    k.workgroups = 507;
    k.wg_size = 256;
    k.waves_per_wg = 4;
    k.waves_per_simd = 5;
    k.cu_count = 256;
    k.wg_per_cu_limit = 5;
    an_saturation s;
    an_saturation_compute(&occ, -1, &s);
    T_CHECK(s.known);
    T_NEAR(s.wg_per_cu, 507.0 / 256, 1e-12);
    T_NEAR(s.grid_waves_per_simd, 507.0 * 4 / (256 * 4), 1e-12);
    T_EQ_I64(s.slots, 1280);
    T_EQ_I64(s.rounds, 1);
    T_NEAR(s.tail_fraction, 1.0 - 507.0 / 1280, 1e-12);
    T_EQ_STR(s.verdict, "underfilled");
    /* flash_attn_func (docs/occupancy.md#worked-examples): 512 workgroups, 2 per CU → exactly one full round. */
    k.workgroups = 512;
    k.waves_per_simd = 2;
    k.wg_per_cu_limit = 2;
    an_saturation_compute(&occ, -1, &s);
    T_EQ_I64(s.rounds, 1);
    T_NEAR(s.tail_fraction, 0, 0);
    T_EQ_STR(s.verdict, "fills");
    /* 600 workgroups: 2 rounds, the second holds 88 of 512 → 83 % idle. */
    k.workgroups = 600;
    an_saturation_compute(&occ, -1, &s);
    T_EQ_I64(s.rounds, 2);
    T_NEAR(s.tail_fraction, 1.0 - 88.0 / 512, 1e-12);
    T_EQ_STR(s.verdict, "tail");
    /* No CU count from the agent: the hardware table's. */
    k.cu_count = -1;
    an_saturation_compute(&occ, 304, &s);
    T_EQ_STR(s.cu_source, "hardware table");
    T_EQ_I64(s.slots, 608);
    an_saturation_compute(&occ, -1, &s);
    T_CHECK(!s.known);
    T_EQ_STR(s.verdict, "unknown");
}

/* ---- the real captures (docs/occupancy.md#worked-examples) ---- */

static void test_hub(void)
{
    const char *hub = t_hub();
    if (!hub) {
        printf("test_roofline: hub fixtures absent, real-capture checks skipped\n");
        return;
    }
    static const struct { const char *cap, *kernel, *verdict, *ceiling; int64_t wgs; } cases[] = {
        /* flash: 512 workgroups, VGPR-limited at 2 waves/SIMD = 2 per CU on 256 CUs */
        {"flash_attn_func/att_viewer/small/ui_output_agent_32235_dispatch_44", "flash_attn_func_kernel_0", "fills",
         "matrix_bf16", 512},
        /* pa_mqa: 507 workgroups, 5 per CU allowed → grid-limited */
        {"pa_mqa_logits_fp4/att_viewer/small/ui_output_agent_32435_dispatch_197", "pa_mqa_logits_fp4_kernel_0",
         "underfilled", NULL, 507},
    };
    rep_hw_table t;
    kr_err err;
    if (rep_hw_load(&t, &err) != 0) {
        T_CHECK(0);
        return;
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/examples/%s", hub, cases[i].cap);
        bundle_opts bo = {0};
        bo.threads = 2;
        bo.skip_wstates = 1;
        kr_capture *c = NULL;
        if (bundle_capture_load(path, &bo, &c, &err) != 0) {
            T_CHECK(0);
            continue;
        }
        char note[512];
        an_analysis_opts ao = {0};
        ao.threads = 1;
        ao.roof.hw = rep_hw_pick(&t, NULL, c, note, sizeof note);
        ao.roof.device_note = note;
        /* The agent tables say "AMD Instinct MI350X" (docs/formats.md#results-json, docs/formats.md#agent-info-csv). */
        T_CHECK(ao.roof.hw && !strcmp(ao.roof.hw->name, "MI350X"));
        an_analysis a;
        T_EQ_I64(an_analyze(c, &ao, &a), 0);
        T_CHECK(!a.counters.present);          /* the hub has no counter collection (docs/formats.md#rocprofv3-csvs) */
        T_CHECK(!a.roofline.has_flops && !a.roofline.has_bytes && a.roofline.bound == AN_BOUND_UNKNOWN);
        T_EQ_STR(a.saturation.verdict, cases[i].verdict);
        T_EQ_I64(a.saturation.workgroups, cases[i].wgs);
        T_EQ_I64(a.saturation.cu_count, 256);
        if (cases[i].ceiling)
            T_EQ_STR(an_ceiling_id(a.roofline.unit, a.roofline.dtype), cases[i].ceiling);
        T_NEAR(a.roofline.peak_bytes_s, 8000e9, 1);
        an_analysis_free(&a);
        bundle_capture_free(c);
    }
    rep_hw_free(&t);
}

int main(void)
{
    test_table_sources();
    test_table_values();
    test_pick();
    test_mfma_dtype();
    test_dialects();
    test_results_records();
    test_formulas();
    test_roofline();
    test_saturation();
    test_bench();
    test_hub();
    return t_done("test_roofline");
}
