/* occupancy.c — see occupancy.h. Section references are to docs/formats.md. */
#include "analyzer/occupancy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"

/* docs/occupancy.md#hardware-parameters (gfx90a, gfx942, gfx950 agree on everything but LDS). */
#define WAVE_SIZE        64
#define MAX_WAVES_SIMD   8
#define VGPR_FILE        512
#define VGPR_GRANULE     8
#define ARCH_GRANULE     4
#define LDS_GRANULE      512
#define SIMD_SLOTS       16      /* occupancy rows with simd >= this are ignored */

const char *an_occ_lim_name(an_occ_lim l)
{
    static const char *const n[AN_LIM_COUNT] = {"VGPR", "SGPR", "LDS", "workgroup slots"};
    return (unsigned)l < AN_LIM_COUNT ? n[l] : "?";
}

const char *an_occ_lim_id(an_occ_lim l)
{
    static const char *const n[AN_LIM_COUNT] = {"vgpr", "sgpr", "lds", "workgroup_slots"};
    return (unsigned)l < AN_LIM_COUNT ? n[l] : "?";
}

const char *an_occ_source_id(an_occ_source s)
{
    switch (s) {
    case AN_OCC_SRC_RESULTS: return "results.json";
    case AN_OCC_SRC_KERNEL_TRACE: return "kernel_trace.csv";
    case AN_OCC_SRC_ISA_ONLY: return "isa-only";
    }
    return "?";
}

static uint64_t align_to(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
static uint64_t align_down(uint64_t v, uint64_t a) { return v / a * a; }
static uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/* ---- docs/occupancy.md#register-counts ISA high-water marks ---- */

static int is_word(char ch)
{
    return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_';
}

static int is_digit(char ch) { return ch >= '0' && ch <= '9'; }

/* Decimal digits at p (saturating); *end past them. */
static uint64_t read_num(const char *p, const char **end)
{
    uint64_t v = 0;
    while (is_digit(*p)) {
        if (v < (1ull << 40))
            v = v * 10 + (uint64_t)(*p - '0');
        p++;
    }
    *end = p;
    return v;
}

void an_occ_isa_marks(const char *isa, uint32_t *v, uint32_t *a, uint32_t *s)
{
    if (!isa)
        return;
    for (const char *p = isa; *p; p++) {
        char ch = *p;
        if (ch != 'v' && ch != 'a' && ch != 's')
            continue;
        if (p > isa && is_word(p[-1]))
            continue;
        uint64_t idx;
        const char *q = p + 1, *end;
        if (is_digit(*q)) {                       /* v241 */
            idx = read_num(q, &end);
            if (is_word(*end))
                continue;
        } else if (*q == '[' && is_digit(q[1])) { /* v[4:7] → upper bound */
            read_num(q + 1, &end);
            if (*end != ':' || !is_digit(end[1]))
                continue;
            idx = read_num(end + 1, &end);
            if (*end != ']')
                continue;
        } else {
            continue;
        }
        uint64_t mark = idx + 1;
        if (mark > UINT32_MAX)
            mark = UINT32_MAX;
        uint32_t *dst = ch == 'v' ? v : ch == 'a' ? a : s;
        if (mark > *dst)
            *dst = (uint32_t)mark;
    }
}

/* ---- docs/occupancy.md#limits ---- */

uint32_t an_occ_w_vgpr(uint32_t v_total)
{
    if (v_total < 8)
        return 8;
    uint64_t w = VGPR_FILE / align_to(v_total, VGPR_GRANULE);
    if (w < 1)
        w = 1;
    return w > 8 ? 8 : (uint32_t)w;
}

uint32_t an_occ_w_sgpr(uint32_t s)
{
    uint32_t w = s <= 80 ? 10 : s <= 88 ? 9 : s <= 100 ? 8 : 7;
    return w > 8 ? 8 : w;
}

/* ---- target detection (docs/occupancy.md#target-detection) ---- */

static int starts(const char *s, const char *p) { return s && strncmp(s, p, strlen(p)) == 0; }

static const kr_agent *results_agent(const kr_capture *c, const kr_process **proc)
{
    if (!c->results)
        return NULL;
    for (size_t p = 0; p < c->results->nprocs; p++) {
        const kr_process *pr = &c->results->procs[p];
        for (size_t i = 0; i < pr->nagents; i++)
            if (pr->agents[i].handle == c->agent_handle && pr->agents[i].type == 2) {
                if (proc)
                    *proc = pr;
                return &pr->agents[i];
            }
    }
    return NULL;
}

static const kr_agent *csv_agent(const kr_capture *c)
{
    if (!c->agent_info)
        return NULL;
    for (size_t i = 0; i < c->agent_info->nagents; i++) {
        const kr_agent *a = &c->agent_info->agents[i];
        if (a->type == 2 || starts(a->name, "gfx"))
            return a;
    }
    return NULL;
}

static const char *target_of_version(int64_t v)
{
    switch (v) {
    case 90500: return "gfx950";
    case 90402: return "gfx942";
    case 90010: return "gfx90a";
    default: return NULL;
    }
}

static int isa_says_gfx950(const kr_capture *c)
{
    static const char *const marks[] = {"v_mfma_scale_", "v_mfma_f32_16x16x128", "v_mfma_f32_32x32x64",
                                        "ds_read_b64_tr_b", "v_permlane32_swap", NULL};
    for (size_t i = 0; i < c->nrows; i++) {
        const kr_code_row *r = &c->rows[i];
        if (r->is_label || !r->mnemonic)
            continue;
        for (const char *const *m = marks; *m; m++)
            if (starts(r->mnemonic, *m))
                return 1;
    }
    return 0;
}

static char *dupstr(const char *s)
{
    size_t n = strlen(s);
    char *d = malloc(n + 1);
    if (d)
        memcpy(d, s, n + 1);
    return d;
}

/* ---- kernel inputs ---- */

/* Label "; name" → "name" without a ".kd" suffix (malloc). */
static char *label_name(const char *isa)
{
    const char *p = isa ? isa : "";
    if (*p == ';')
        p++;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t n = strlen(p);
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    if (n >= 3 && memcmp(p + n - 3, ".kd", 3) == 0)
        n -= 3;
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, p, n);
        d[n] = '\0';
    }
    return d;
}

static int name_eq_kd(const char *csv_name, const char *name)
{
    if (!csv_name)
        return 0;
    size_t n = strlen(csv_name);
    if (n >= 3 && memcmp(csv_name + n - 3, ".kd", 3) == 0)
        n -= 3;
    return strlen(name) == n && memcmp(csv_name, name, n) == 0;
}

/* docs/formats.md#joining-a-capture step 2 in the process that holds the capture's agent. */
static const kr_kernel_symbol *join_symbol(const kr_capture *c, const kr_process *p,
                                           int64_t codeobj, uint64_t vaddr)
{
    if (!p || codeobj < 0)
        return NULL;
    for (size_t i = 0; i < p->nsymbols; i++) {
        const kr_kernel_symbol *s = &p->symbols[i];
        if (s->code_object_id != (uint64_t)codeobj)
            continue;
        const kr_code_object *co = NULL;
        for (size_t k = 0; k < p->ncode_objects && !co; k++)
            if (p->code_objects[k].id == s->code_object_id)
                co = &p->code_objects[k];
        if (!co)
            continue;
        if (co->agent_handle && co->agent_handle != c->agent_handle)
            continue;
        if (s->kernel_object - (uint64_t)co->load_delta + s->kernel_code_entry_byte_offset == vaddr)
            return s;
    }
    return NULL;
}

static const kr_dispatch *results_dispatch(const kr_capture *c, const kr_process *p, uint64_t kernel_id)
{
    if (!p || !c->name_matched)
        return NULL;
    for (size_t i = 0; i < p->ndispatches; i++) {
        const kr_dispatch *d = &p->dispatches[i];
        if (d->dispatch_id == c->dispatch_id && d->kernel_id == kernel_id)
            return d;
    }
    return NULL;
}

static const kr_dispatch *csv_dispatch(const kr_capture *c, const char *name)
{
    if (!c->kernel_trace || !name || !*name)
        return NULL;
    const kr_dispatch *first = NULL;
    for (size_t i = 0; i < c->kernel_trace->nrows; i++) {
        const kr_dispatch *d = &c->kernel_trace->rows[i];
        if (!name_eq_kd(d->kernel_name, name))
            continue;
        if (c->name_matched && !c->kernel_trace->no_dispatch_ids && d->dispatch_id == c->dispatch_id)
            return d;
        if (!first)
            first = d;
    }
    return first;
}

static int64_t product3(const uint32_t v[3])
{
    int64_t p = 1;
    for (int i = 0; i < 3; i++)
        p *= v[i] ? (int64_t)v[i] : 1;
    return p;
}

static void take_geometry(an_occ_kernel *k, const kr_dispatch *d)
{
    if (!d || d->wg[0] == 0)
        return;
    k->wg_size = product3(d->wg);
    if (d->grid[0] == 0)
        return;
    k->grid_size = product3(d->grid);
    int64_t wgs = 1;
    for (int i = 0; i < 3; i++) {
        uint64_t g = d->grid[i] ? d->grid[i] : 1, w = d->wg[i] ? d->wg[i] : 1;
        wgs *= (int64_t)ceil_div(g, w);
    }
    k->workgroups = wgs;
}

static void limits(an_occ_kernel *k, int gfx95, int64_t lds_cu, int64_t cu_count)
{
    uint64_t arch = k->reported_arch_vgpr >= 0 ? (uint64_t)k->reported_arch_vgpr : k->isa_v;
    uint64_t acc = k->reported_accum_vgpr >= 0 ? (uint64_t)k->reported_accum_vgpr : k->isa_a;
    uint64_t vt;
    if (gfx95 && k->source != AN_OCC_SRC_ISA_ONLY && k->reported_arch_vgpr >= 0 && acc == 0 &&
        k->isa_v > (uint64_t)k->reported_arch_vgpr) {
        k->under_report = 1;                       /* docs/occupancy.md#register-counts, PR #5862 */
        vt = 2 * arch;
    } else {
        vt = acc > 0 ? align_to(arch, ARCH_GRANULE) + acc : arch;
    }
    uint64_t need = k->isa_a > 0 ? align_to(k->isa_v, ARCH_GRANULE) + k->isa_a : k->isa_v;
    uint64_t floor_v = align_to(need, VGPR_GRANULE);
    if (floor_v > vt) {
        if (k->source != AN_OCC_SRC_ISA_ONLY)
            k->isa_above_reported = 1;
        vt = floor_v;
    }
    k->v_total = vt > UINT32_MAX ? UINT32_MAX : (uint32_t)vt;
    k->sgpr = k->reported_sgpr >= 0 ? (uint32_t)k->reported_sgpr : k->isa_s;

    k->w[AN_LIM_VGPR] = (int32_t)an_occ_w_vgpr(k->v_total);
    k->w_known[AN_LIM_VGPR] = 1;
    k->w[AN_LIM_SGPR] = (int32_t)an_occ_w_sgpr(k->sgpr);
    k->w_known[AN_LIM_SGPR] = 1;

    k->wg_lds = -1;
    k->wg_slots = -1;
    k->w[AN_LIM_LDS] = -1;
    k->w[AN_LIM_WG] = -1;
    if (k->wg_size > 0) {
        k->waves_per_wg = (uint32_t)ceil_div((uint64_t)k->wg_size, WAVE_SIZE);
        k->waves_per_simd_per_wg = (uint32_t)ceil_div(k->waves_per_wg, 4);
        k->wg_slots = k->waves_per_wg == 1 ? 32 : (32 / k->waves_per_wg < 16 ? 32 / k->waves_per_wg : 16);
        k->w[AN_LIM_WG] = (int32_t)(k->wg_slots * k->waves_per_simd_per_wg);
        k->w_known[AN_LIM_WG] = 1;
    }
    if (k->lds_bytes == 0) {
        k->w_known[AN_LIM_LDS] = 1;                /* no limit */
    } else if (k->lds_bytes > 0 && k->wg_size > 0) {
        k->wg_lds = lds_cu / (int64_t)align_to((uint64_t)k->lds_bytes, LDS_GRANULE);
        k->w[AN_LIM_LDS] = (int32_t)(k->wg_lds * k->waves_per_simd_per_wg);
        k->w_known[AN_LIM_LDS] = 1;
    }

    int64_t w = MAX_WAVES_SIMD;
    for (int l = 0; l < AN_LIM_COUNT; l++)
        if (k->w_known[l] && k->w[l] >= 0 && k->w[l] < w)
            w = k->w[l];
    k->waves_per_simd = (uint32_t)w;
    k->primary = AN_LIM_COUNT;
    for (int l = 0; l < AN_LIM_COUNT; l++)
        if (k->w_known[l] && k->w[l] >= 0 && k->w[l] == w) {
            k->limiter[l] = 1;
            if (k->primary == AN_LIM_COUNT)
                k->primary = (an_occ_lim)l;
        }
    if (k->primary == AN_LIM_COUNT)
        k->primary = AN_LIM_VGPR;   /* unreachable: W_vgpr is always known and ≤ 8 */

    k->next_vgpr_max = k->next_sgpr_max = k->next_lds_max = -1;
    /* The next step adds one whole workgroup per CU: waves per SIMD move in
     * steps of waves_per_simd_per_wg. */
    uint64_t step = k->waves_per_simd_per_wg > 0 ? k->waves_per_simd_per_wg : 1;
    if ((uint64_t)w / step * step + step <= MAX_WAVES_SIMD) {
        uint64_t n = (uint64_t)w / step * step + step;
        k->next_waves = (uint32_t)n;
        k->next_vgpr_max = (int64_t)align_down(VGPR_FILE / n, VGPR_GRANULE);
        if (n == 8)
            k->next_sgpr_max = 100;                /* W_sgpr = 8 needs S ≤ 100 */
        if (k->lds_bytes > 0 && k->waves_per_simd_per_wg > 0) {
            uint64_t wgs = ceil_div(n, k->waves_per_simd_per_wg);
            k->next_lds_max = (int64_t)align_down((uint64_t)lds_cu / wgs, LDS_GRANULE);
        }
    }

    k->cu_count = cu_count;
    k->wg_per_cu_limit = k->wg_per_cu_grid = k->grid_waves_per_simd = -1;
    if (k->waves_per_simd_per_wg > 0)
        k->wg_per_cu_limit = w / k->waves_per_simd_per_wg;
    if (k->workgroups > 0 && cu_count > 0 && k->waves_per_simd_per_wg > 0) {
        k->wg_per_cu_grid = (int64_t)ceil_div((uint64_t)k->workgroups, (uint64_t)cu_count);
        int64_t gw = k->wg_per_cu_grid * k->waves_per_simd_per_wg;
        k->grid_waves_per_simd = gw < w ? gw : w;
        k->grid_limited = k->wg_per_cu_grid < k->wg_per_cu_limit;
    }
}

/* k->isa_v/a/s are already set by the caller. */
static int kernel_inputs(const kr_capture *c, const kr_process *proc, int gfx95, int64_t lds_cu,
                         int64_t cu_count, uint32_t label, an_occ_kernel *k)
{
    k->label_row = label;
    k->kernel_id = k->csv_dispatch_id = -1;
    k->reported_arch_vgpr = k->reported_accum_vgpr = k->reported_sgpr = -1;
    k->lds_bytes = k->scratch_bytes = k->wg_size = k->grid_size = k->workgroups = -1;
    if (label != UINT32_MAX) {
        const kr_code_row *lr = &c->rows[label];
        k->name = label_name(lr->isa);
        k->codeobj = lr->codeobj;
        k->vaddr = lr->vaddr;
    } else {
        k->name = dupstr("(no kernel label)");
        k->codeobj = -1;
    }
    if (!k->name)
        return KR_INTERNAL;

    const kr_kernel_symbol *sym = label != UINT32_MAX ? join_symbol(c, proc, k->codeobj, k->vaddr) : NULL;
    const kr_dispatch *csv = csv_dispatch(c, k->name);
    if (sym) {
        k->source = AN_OCC_SRC_RESULTS;
        k->kernel_id = (int64_t)sym->kernel_id;
        k->reported_arch_vgpr = sym->arch_vgpr_count;
        k->reported_accum_vgpr = sym->accum_vgpr_count;
        k->reported_sgpr = sym->sgpr_count;
        k->lds_bytes = sym->group_segment_size;
        k->scratch_bytes = sym->private_segment_size;
        const kr_dispatch *d = results_dispatch(c, proc, sym->kernel_id);
        take_geometry(k, d ? d : csv);
        if (!d && csv)
            k->csv_dispatch_id = (int64_t)csv->dispatch_id;
    } else if (csv) {
        k->source = AN_OCC_SRC_KERNEL_TRACE;
        k->kernel_id = (int64_t)csv->kernel_id;
        k->csv_dispatch_id = (int64_t)csv->dispatch_id;
        k->reported_arch_vgpr = csv->vgpr;
        k->reported_accum_vgpr = csv->accum_vgpr;
        k->reported_sgpr = csv->sgpr;
        k->lds_bytes = csv->lds_bytes;
        k->scratch_bytes = csv->scratch_bytes;
        take_geometry(k, csv);
    } else {
        k->source = AN_OCC_SRC_ISA_ONLY;
    }
    limits(k, gfx95, lds_cu, cu_count);
    return 0;
}

/* ---- achieved occupancy (docs/occupancy.md#resident-waves) ---- */

typedef struct ev {
    uint64_t t;                 /* aligned time */
    uint32_t cu;
    uint8_t simd, slot, start;
    size_t idx;
} ev;

static int ev_cmp(const void *pa, const void *pb)
{
    const ev *a = pa, *b = pb;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    if (a->start != b->start)           /* ends before starts at equal times */
        return a->start < b->start ? -1 : 1;
    if (a->cu != b->cu)
        return a->cu < b->cu ? -1 : 1;
    if (a->simd != b->simd)
        return a->simd < b->simd ? -1 : 1;
    if (a->slot != b->slot)
        return a->slot < b->slot ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

typedef struct ctr {
    uint32_t n, max;
    uint64_t integral, last_t;
} ctr;

static void ctr_step(ctr *k, uint64_t t, int start)
{
    if (k->n)
        k->integral += (uint64_t)k->n * (t - k->last_t);
    k->last_t = t;
    if (start) {
        k->n++;
        if (k->n > k->max)
            k->max = k->n;
    } else if (k->n) {
        k->n--;
    }
}

static int u32_cmp(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return a < b ? -1 : a > b;
}

typedef struct cu_state {
    ctr cu;
    ctr simd[SIMD_SLOTS];
    uint64_t first, last, starts;
    uint8_t any;
    uint32_t low_n;             /* second pass */
    uint64_t low_prev, low;
} cu_state;

static int64_t se_offset(const kr_capture *c, uint32_t se)
{
    if (!c->realtime.aligned || se >= 64)
        return 0;
    return c->realtime.se_offset[se];
}

static uint64_t shift(uint64_t t, int64_t off)
{
    int64_t v = (int64_t)t + off;
    return v < 0 ? 0 : (uint64_t)v;
}

static int cu_cmp(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return a < b ? -1 : a > b;
}

/* Most frequent wave.cu (ties: lowest). Returns -1 when there is none, -2
 * when out of memory. */
static int64_t target_cu_id(const kr_capture *c)
{
    if (!c->nwaves)
        return -1;
    int64_t *v = malloc(c->nwaves * sizeof *v);
    if (!v)
        return -2;
    size_t n = 0;
    for (size_t i = 0; i < c->nwaves; i++)
        if (c->waves[i].cu >= 0 && c->waves[i].cu <= UINT32_MAX)
            v[n++] = c->waves[i].cu;
    qsort(v, n, sizeof *v, cu_cmp);
    int64_t best = -1;
    size_t best_n = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && v[j] == v[i])
            j++;
        if (j - i > best_n) {
            best_n = j - i;
            best = v[i];
        }
        i = j;
    }
    free(v);
    return best;
}

static int achieved(const kr_capture *c, uint32_t simds_per_cu, an_occ_achieved *a)
{
    memset(a, 0, sizeof *a);
    a->simds_per_cu = simds_per_cu;
    const kr_occupancy *o = &c->occupancy;
    size_t total = 0;
    for (size_t s = 0; s < o->nses; s++)
        total += o->ses[s].nrows;
    if (!o->present || total == 0)
        return 0;
    a->present = 1;
    a->aligned = c->realtime.aligned;
    int64_t target = target_cu_id(c);
    if (target == -2)
        return KR_INTERNAL;
    a->has_target = target >= 0;
    a->target_cu = target >= 0 ? (uint32_t)target : 0;

    a->ses = calloc(o->nses, sizeof *a->ses);
    a->nses = o->nses;
    /* Distinct (se, cu) pairs. */
    size_t ncu_max = total;
    uint32_t *ids = malloc(ncu_max * sizeof *ids);
    a->cus = calloc(ncu_max, sizeof *a->cus);
    cu_state *st = calloc(ncu_max, sizeof *st);
    if (!a->ses || !ids || !a->cus || !st) {
        free(ids);
        free(st);
        return KR_INTERNAL;
    }

    /* Per SE: sorted events, CU states, first/last. */
    uint64_t *se_first = calloc(o->nses, sizeof *se_first), *se_last = calloc(o->nses, sizeof *se_last);
    size_t *cu_base = calloc(o->nses + 1, sizeof *cu_base);
    ev **evs = calloc(o->nses, sizeof *evs);
    if (!se_first || !se_last || !cu_base || !evs) {
        free(se_first); free(se_last); free(cu_base); free(evs); free(ids); free(st);
        return KR_INTERNAL;
    }
    int rc = 0;
    size_t ncu = 0;
    int have_span = 0;
    for (size_t s = 0; s < o->nses && !rc; s++) {
        const kr_occ_se *se = &o->ses[s];
        int64_t off = se_offset(c, se->se);
        an_occ_se *out_se = &a->ses[s];
        out_se->se = se->se;
        out_se->rows = se->nrows;
        out_se->offset = off;
        cu_base[s] = ncu;
        if (!se->nrows) {
            cu_base[s + 1] = ncu;
            continue;
        }
        ev *e = malloc(se->nrows * sizeof *e);
        if (!e) {
            rc = KR_INTERNAL;
            break;
        }
        evs[s] = e;
        size_t nid = 0;
        for (size_t i = 0; i < se->nrows; i++) {
            const kr_occ_row *r = &se->rows[i];
            e[i].t = shift(r->time, off);
            e[i].cu = r->cu;
            e[i].simd = r->simd;
            e[i].slot = r->slot;
            e[i].start = r->start ? 1 : 0;
            e[i].idx = i;
            ids[nid++] = r->cu;
        }
        qsort(e, se->nrows, sizeof *e, ev_cmp);
        qsort(ids, nid, sizeof *ids, u32_cmp);
        size_t nu = 0;
        for (size_t i = 0; i < nid; i++)
            if (i == 0 || ids[i] != ids[i - 1])
                ids[nu++] = ids[i];
        for (size_t i = 0; i < nu; i++) {
            a->cus[ncu + i].se = se->se;
            a->cus[ncu + i].cu = ids[i];
            a->cus[ncu + i].target = a->has_target && ids[i] == a->target_cu;
        }
        ctr se_ctr = {0, 0, 0, 0};
        int first_set = 0;
        for (size_t i = 0; i < se->nrows; i++) {
            uint32_t *hit = bsearch(&e[i].cu, ids, nu, sizeof *ids, u32_cmp);
            cu_state *cs = &st[ncu + (size_t)(hit - ids)];
            ctr_step(&se_ctr, e[i].t, e[i].start);
            ctr_step(&cs->cu, e[i].t, e[i].start);
            if (e[i].simd < SIMD_SLOTS)
                ctr_step(&cs->simd[e[i].simd], e[i].t, e[i].start);
            if (e[i].start) {
                out_se->waves++;
                cs->starts++;
                if (!cs->any || e[i].t < cs->first)
                    cs->first = e[i].t;
                cs->any = 1;
                if (!first_set || e[i].t < se_first[s])
                    se_first[s] = e[i].t;
                first_set = 1;
            } else {
                if (e[i].t > cs->last)
                    cs->last = e[i].t;
                if (e[i].t > se_last[s])
                    se_last[s] = e[i].t;
            }
        }
        out_se->max_waves = se_ctr.max;
        if (se_ctr.max > a->max_per_se)
            a->max_per_se = se_ctr.max;
        if (first_set) {
            if (!have_span || se_first[s] < a->span_first)
                a->span_first = se_first[s];
            if (!have_span || se_last[s] > a->span_last)
                a->span_last = se_last[s];
            have_span = 1;
        }
        ncu += nu;
        cu_base[s + 1] = ncu;
    }

    /* Per CU results, then the low-occupancy pass over the same events. */
    int mean_set = 0;
    size_t ntarget = 0;
    for (size_t s = 0; s < o->nses && !rc; s++) {
        uint64_t s0 = a->aligned ? a->span_first : se_first[s];
        uint64_t s1 = a->aligned ? a->span_last : se_last[s];
        for (size_t k = cu_base[s]; k < cu_base[s + 1]; k++) {
            an_occ_cu *cu = &a->cus[k];
            cu_state *cs = &st[k];
            cu->waves = cs->starts;
            cu->max_waves = cs->cu.max;
            cu->first = cs->first;
            cu->last = cs->last;
            cu->wave_cycles = cs->cu.integral;
            for (int m = 0; m < SIMD_SLOTS; m++) {
                if (cs->simd[m].max > cu->max_per_simd)
                    cu->max_per_simd = cs->simd[m].max;
            }
            if (cu->max_per_simd > a->max_per_simd)
                a->max_per_simd = cu->max_per_simd;
            if (cu->max_waves > a->max_per_cu)
                a->max_per_cu = cu->max_waves;
            uint64_t span = s1 > s0 ? s1 - s0 : 0;
            uint64_t own = cu->last > cu->first ? cu->last - cu->first : 0;
            cu->mean_per_simd = own ? (double)cu->wave_cycles / ((double)own * simds_per_cu) : 0.0;
            cu->mean_per_simd_span = span ? (double)cu->wave_cycles / ((double)span * simds_per_cu) : 0.0;
            if (!mean_set || cu->mean_per_simd < a->cu_mean_min)
                a->cu_mean_min = cu->mean_per_simd;
            if (!mean_set || cu->mean_per_simd > a->cu_mean_max)
                a->cu_mean_max = cu->mean_per_simd;
            if (!mean_set || cu->mean_per_simd_span < a->cu_span_mean_min)
                a->cu_span_mean_min = cu->mean_per_simd_span;
            if (!mean_set || cu->mean_per_simd_span > a->cu_span_mean_max)
                a->cu_span_mean_max = cu->mean_per_simd_span;
            mean_set = 1;
            cs->low_prev = s0;
            if (cu->target)
                ntarget++;
        }
        const kr_occ_se *se = &o->ses[s];
        ev *e = evs[s];
        for (size_t i = 0; i < se->nrows; i++) {
            size_t nu = cu_base[s + 1] - cu_base[s];
            size_t k = cu_base[s];
            size_t lo = 0, hi = nu;          /* binary search over this SE's sorted CU ids */
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (a->cus[k + mid].cu < e[i].cu)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            cu_state *cs = &st[k + lo];
            uint64_t t = e[i].t < s0 ? s0 : e[i].t > s1 ? s1 : e[i].t;
            if (2ull * cs->low_n < cs->cu.max)
                cs->low += t - cs->low_prev;
            cs->low_prev = t;
            if (e[i].start)
                cs->low_n++;
            else if (cs->low_n)
                cs->low_n--;
        }
        for (size_t k = cu_base[s]; k < cu_base[s + 1]; k++) {
            cu_state *cs = &st[k];
            if (2ull * cs->low_n < cs->cu.max && s1 > cs->low_prev)
                cs->low += s1 - cs->low_prev;
            a->cus[k].low_cycles = cs->low;
            if (a->cus[k].target) {
                a->low_cycles += cs->low;
                a->low_total += s1 > s0 ? s1 - s0 : 0;
            }
        }
    }
    a->ncus = ncu;
    a->low_fraction = a->low_total ? (double)a->low_cycles / (double)a->low_total : 0.0;

    /* Target CU SIMDs. */
    if (!rc && ntarget) {
        a->simds = calloc(ntarget * simds_per_cu, sizeof *a->simds);
        if (!a->simds)
            rc = KR_INTERNAL;
        uint64_t cycles = 0, window = 0;
        for (size_t k = 0; k < ncu && !rc; k++) {
            if (!a->cus[k].target)
                continue;
            const an_occ_cu *cu = &a->cus[k];
            uint64_t w = cu->last > cu->first ? cu->last - cu->first : 0;
            cycles += cu->wave_cycles;
            window += w * simds_per_cu;
            for (uint32_t m = 0; m < simds_per_cu; m++) {
                an_occ_simd *sd = &a->simds[a->nsimds++];
                sd->se = cu->se;
                sd->cu = cu->cu;
                sd->simd = m;
                if (m < SIMD_SLOTS) {
                    sd->max_waves = st[k].simd[m].max;
                    sd->wave_cycles = st[k].simd[m].integral;
                }
                sd->mean_waves = w ? (double)sd->wave_cycles / (double)w : 0.0;
                if (sd->max_waves > a->target_max_per_simd)
                    a->target_max_per_simd = sd->max_waves;
            }
        }
        a->target_mean_per_simd = window ? (double)cycles / (double)window : 0.0;
    }

    for (size_t s = 0; s < o->nses; s++)
        free(evs[s]);
    free(evs);
    free(se_first);
    free(se_last);
    free(cu_base);
    free(ids);
    free(st);
    return rc;
}

/* LDS per CU (docs/occupancy.md#hardware-parameters) of a target; lds_kb: the agent's, -1 unknown. */
static int64_t lds_per_cu(const char *target, int64_t lds_kb)
{
    if (starts(target, "gfx95"))
        return 163840;
    if (starts(target, "gfx90a") || starts(target, "gfx94"))
        return 65536;
    return lds_kb > 0 ? lds_kb * 1024 : 65536;
}

void an_occ_limits_reported(an_occ_kernel *k, const char *target, int64_t cu_count)
{
    k->source = AN_OCC_SRC_KERNEL_TRACE;
    limits(k, starts(target, "gfx95"), lds_per_cu(target ? target : "", -1), cu_count);
}

int an_occupancy_compute(const kr_capture *c, const an_occupancy_opts *opts, an_occupancy *out)
{
    memset(out, 0, sizeof *out);
    const kr_process *proc = NULL;
    const kr_agent *ra = results_agent(c, &proc);
    const kr_agent *ca = csv_agent(c);
    const kr_agent *agent = ra ? ra : ca;
    out->agent_source = ra ? "results.json" : ca ? "agent_info.csv" : NULL;

    const char *target = NULL;
    if (opts && opts->target && opts->target[0]) {
        target = opts->target;
        out->target_source = "option";
    } else if (ra && ra->name && ra->name[0]) {
        target = ra->name;
        out->target_source = "results.json";
    } else if (ca && (starts(ca->name, "gfx") || target_of_version(ca->gfx_target_version))) {
        target = starts(ca->name, "gfx") ? ca->name : target_of_version(ca->gfx_target_version);
        out->target_source = "agent_info.csv";
    } else if (isa_says_gfx950(c)) {
        target = "gfx950";
        out->target_source = "isa-heuristic";
    } else {
        target = c->gfxip >= 10 ? "unknown" : "unknown gfx9";
        out->target_source = "none";
    }
    out->target = dupstr(target);
    if (!out->target)
        return KR_INTERNAL;
    out->modelled = starts(target, "gfx9") || strcmp(target, "unknown gfx9") == 0;
    int gfx95 = starts(target, "gfx95");

    out->lds_per_cu = lds_per_cu(target, agent ? agent->lds_size_in_kb : -1);
    out->cu_count = agent && agent->cu_count > 0 ? agent->cu_count : -1;
    uint32_t simds = agent && agent->simd_per_cu > 0 && agent->simd_per_cu <= SIMD_SLOTS
                         ? (uint32_t)agent->simd_per_cu : 4;

    /* One entry per label row (in row order), preceded by one for
     * instruction rows before any label; ISA marks in one pass over rows. */
    size_t nk = 0;
    int orphan = 0;
    for (size_t i = 0; i < c->nrows; i++) {
        if (c->rows[i].is_label)
            nk++;
        else if (c->rows[i].kernel == UINT32_MAX)
            orphan = 1;
    }
    nk += (size_t)orphan;
    out->kernels = calloc(nk ? nk : 1, sizeof *out->kernels);
    uint32_t *slot = calloc(c->nrows ? c->nrows : 1, sizeof *slot);   /* label row → kernel index */
    if (!out->kernels || !slot) {
        free(slot);
        an_occupancy_free(out);
        return KR_INTERNAL;
    }
    out->nkernels = nk;
    size_t next = 0;
    if (orphan)
        out->kernels[next++].label_row = UINT32_MAX;
    for (size_t i = 0; i < c->nrows; i++)
        if (c->rows[i].is_label) {
            slot[i] = (uint32_t)next;
            out->kernels[next++].label_row = (uint32_t)i;
        }
    for (size_t i = 0; i < c->nrows; i++) {
        const kr_code_row *r = &c->rows[i];
        if (r->is_label)
            continue;
        an_occ_kernel *k = r->kernel == UINT32_MAX || r->kernel >= c->nrows || !c->rows[r->kernel].is_label
                               ? (orphan ? &out->kernels[0] : NULL)
                               : &out->kernels[slot[r->kernel]];
        if (k)
            an_occ_isa_marks(r->isa, &k->isa_v, &k->isa_a, &k->isa_s);
    }
    free(slot);
    for (size_t i = 0; i < nk; i++)
        if (kernel_inputs(c, proc, gfx95, out->lds_per_cu, out->cu_count, out->kernels[i].label_row,
                          &out->kernels[i])) {
            an_occupancy_free(out);
            return KR_INTERNAL;
        }

    if (achieved(c, simds, &out->achieved)) {
        an_occupancy_free(out);
        return KR_INTERNAL;
    }

    /* Verdict (occupancy.h). */
    /* The first labelled kernel decides the grid part (the orphan entry, if
     * any, has no geometry). */
    out->primary = orphan && out->nkernels > 1 ? 1 : 0;
    const an_occ_kernel *k0 = out->nkernels ? &out->kernels[out->primary] : NULL;
    int grid_known = k0 && k0->wg_per_cu_grid >= 0 && k0->wg_per_cu_limit >= 0;
    int occ_known = out->achieved.present && out->achieved.has_target && out->achieved.low_total > 0;
    int grid = grid_known && k0->grid_limited;
    int tail = occ_known && out->achieved.low_fraction >= AN_OCC_TAIL_FRACTION;
    if (!grid_known && !occ_known)
        out->verdict = "unknown";
    else if (grid && tail)
        out->verdict = "grid-limited + tail";
    else if (grid)
        out->verdict = "grid-limited";
    else if (tail)
        out->verdict = "tail";
    else
        out->verdict = "full";
    return 0;
}

void an_occupancy_free(an_occupancy *r)
{
    if (!r)
        return;
    free(r->target);
    for (size_t i = 0; i < r->nkernels; i++)
        free(r->kernels[i].name);
    free(r->kernels);
    free(r->achieved.ses);
    free(r->achieved.cus);
    free(r->achieved.simds);
    memset(r, 0, sizeof *r);
}
