/* stalls.c — see stalls.h. */
#include "analyzer/stalls.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"

static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

static char lower(char ch) { return (ch >= 'A' && ch <= 'Z') ? (char)(ch - 'A' + 'a') : ch; }

/* Substring test on the ASCII-lower-cased text; needle is lower case. */
static int has(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = hay; *p; p++) {
        size_t i = 0;
        while (i < n && p[i] && lower(p[i]) == needle[i])
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

/* ---- (a) ---- */

/* Substring test on text already lower-cased. */
static int has_lower(const char *lowered, const char *needle)
{
    return strstr(lowered, needle) != NULL;
}

/* The rules of an_hub_bucket_of; contains(a, needle) tests a substring. */
static an_hub_bucket hub_bucket(const char *a, int (*contains)(const char *, const char *))
{
    if (contains(a, "s_waitcnt")) {
        if (contains(a, "vmcnt"))
            return AN_HUB_VMEM_WAIT;
        if (contains(a, "lgkmcnt"))
            return AN_HUB_LDS_SMEM_WAIT;
        if (contains(a, "expcnt"))
            return AN_HUB_EXP_WAIT;
        return AN_HUB_WAITCNT;
    }
    if (contains(a, "s_barrier") || contains(a, "s_wait_idle"))
        return AN_HUB_BARRIER;
    if (contains(a, "buffer_load") || contains(a, "global_load") || contains(a, "flat_load"))
        return AN_HUB_VMEM_LOAD;
    if (contains(a, "buffer_store") || contains(a, "global_store"))
        return AN_HUB_VMEM_STORE;
    if (contains(a, "ds_read") || contains(a, "ds_write"))
        return AN_HUB_LDS;
    if (contains(a, "s_load") || contains(a, "s_store"))
        return AN_HUB_SMEM;
    if (contains(a, "v_mfma") || contains(a, "v_fma"))
        return AN_HUB_MFMA_FMA;
    return AN_HUB_OTHER;
}

an_hub_bucket an_hub_bucket_of(const char *isa)
{
    const char *a = isa ? isa : "";
    /* Lower-case the text once and search it with strstr; the same tests
     * as has() on the text as written. */
    char lowered[512];
    size_t n = strlen(a);
    if (n >= sizeof lowered)
        return hub_bucket(a, has);
    for (size_t i = 0; i <= n; i++)
        lowered[i] = lower(a[i]);
    return hub_bucket(lowered, has_lower);
}

const char *an_hub_bucket_key(unsigned b)
{
    static const char *const k[AN_HUB_COUNT] = {"vmem_wait", "lds_smem_wait", "exp_wait",
        "waitcnt", "barrier", "vmem_load", "vmem_store", "lds", "smem", "mfma_fma", "other"};
    return b < AN_HUB_COUNT ? k[b] : "none";
}

const char *an_hub_bucket_display(unsigned b)
{
    static const char *const k[AN_HUB_COUNT] = {"VMEM-wait", "LDS/SMEM-wait", "EXP-wait",
        "waitcnt", "barrier", "VMEM-load", "VMEM-store", "LDS", "SMEM", "MFMA/FMA", "other"};
    return b < AN_HUB_COUNT ? k[b] : "-";
}

/* ---- (b) ---- */

const char *an_stall_kind_key(unsigned k)
{
    static const char *const n[AN_STALL_COUNT] = {"wait_vmcnt", "wait_lgkmcnt",
        "wait_vmcnt+lgkmcnt", "wait_expcnt", "wait_other", "barrier", "nop", "vmem_issue",
        "flat_issue", "lds_issue", "smem_issue", "matrix_dep", "valu_dep", "salu", "branch",
        "message", "other"};
    return k < AN_STALL_COUNT ? n[k] : "?";
}

const char *an_wait_counter_name(unsigned k)
{
    static const char *const n[AN_CNT_COUNT] = {"vmcnt", "lgkmcnt", "expcnt", "vscnt",
        "loadcnt", "storecnt", "samplecnt", "bvhcnt", "dscnt", "kmcnt"};
    return k < AN_CNT_COUNT ? n[k] : "?";
}

static int counter_of(const char *s, size_t n)
{
    for (unsigned k = 0; k < AN_CNT_COUNT; k++) {
        const char *name = an_wait_counter_name(k);
        if (strlen(name) == n && strncmp(s, name, n) == 0)
            return (int)k;
    }
    return -1;
}

static int is_ident(char ch)
{
    ch = lower(ch);
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_';
}

/* Integer at s: "0x..." hex or decimal; -1 if none. */
static int64_t parse_int(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    int base = 10;
    if (s[0] == '0' && lower(s[1]) == 'x') {
        base = 16;
        s += 2;
    }
    int64_t v = 0;
    int any = 0;
    for (;; s++) {
        char ch = lower(*s);
        int d = ch >= '0' && ch <= '9' ? ch - '0' : (base == 16 && ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1);
        if (d < 0)
            break;
        if (v > (INT64_MAX - d) / base)
            return -1;
        v = v * base + d;
        any = 1;
    }
    return any ? v : -1;
}

static void name_counter(an_wait_info *w, int k, int64_t v)
{
    if (k < 0)
        return;
    w->mask |= 1u << k;
    w->value[k] = v;
}

int an_wait_parse(const char *isa, an_wait_info *out)
{
    memset(out, 0, sizeof *out);
    for (unsigned k = 0; k < AN_CNT_COUNT; k++)
        out->value[k] = -1;
    if (!isa)
        return 0;
    char m[64];
    size_t n = 0;
    while (isa[n] && isa[n] != ' ' && isa[n] != '\t' && n + 1 < sizeof m) {
        m[n] = lower(isa[n]);
        n++;
    }
    m[n] = '\0';
    const char *ops = isa + n;               /* operands, possibly truncated mnemonic */
    while (*ops && *ops != ' ' && *ops != '\t')
        ops++;

    if (strcmp(m, "s_waitcnt") == 0) {
        /* name(N) operands; a bare 0 means every counter of the encoding. */
        int any = 0;
        for (const char *p = ops; *p; p++) {
            if (!is_ident(*p) || (p > ops && is_ident(p[-1])))
                continue;
            const char *e = p;
            while (is_ident(*e))
                e++;
            size_t len = (size_t)(e - p);
            if (len > 4 && strncmp(e - 4, "_sat", 4) == 0)
                len -= 4;
            char word[16];
            if (len >= sizeof word) {
                p = e - 1;
                continue;
            }
            for (size_t i = 0; i < len; i++)
                word[i] = lower(p[i]);
            int k = counter_of(word, len);
            if (k >= 0 && *e == '(') {
                name_counter(out, k, parse_int(e + 1));
                any = 1;
            }
            p = e - 1;
        }
        if (!any && parse_int(ops) == 0) {
            name_counter(out, AN_CNT_VMCNT, 0);
            name_counter(out, AN_CNT_EXPCNT, 0);
            name_counter(out, AN_CNT_LGKMCNT, 0);
        }
        return 1;
    }
    if (strncmp(m, "s_waitcnt_", 10) == 0) {
        /* s_waitcnt_vscnt null, 0x0: the counter is in the name, the
         * threshold is the last operand. */
        int k = counter_of(m + 10, strlen(m + 10));
        if (k == AN_CNT_VMCNT || k == AN_CNT_LGKMCNT || k == AN_CNT_EXPCNT || k == AN_CNT_VSCNT) {
            const char *last = strrchr(ops, ',');
            name_counter(out, k, parse_int(last ? last + 1 : ops));
        }
        return 1;
    }
    if (strncmp(m, "s_wait_", 7) == 0 && strcmp(m, "s_wait_alu") != 0) {
        const char *s = m + 7;
        if (strcmp(s, "idle") == 0) {
            out->idle = 1;
            return 1;
        }
        /* s_wait_loadcnt 0x0, s_wait_loadcnt_dscnt 0x...: counters are the
         * '_'-separated words of the name; a single counter's threshold is
         * the operand (combined encodings are left unparsed). */
        unsigned named = 0;
        int single = -1;
        while (*s) {
            const char *e = strchr(s, '_');
            size_t len = e ? (size_t)(e - s) : strlen(s);
            int k = counter_of(s, len);
            if (k >= AN_CNT_EXPCNT && k != AN_CNT_VSCNT) {
                name_counter(out, k, -1);
                named++;
                single = k;
            }
            s += len;
            if (*s == '_')
                s++;
        }
        if (named == 1)
            out->value[single] = parse_int(ops);
        return 1;
    }
    return 0;
}

an_stall_kind an_stall_kind_of(const kr_code_row *r)
{
    switch (r->cls) {
    case KR_CLASS_WAITCNT: {
        an_wait_info w;
        an_wait_parse(r->isa, &w);
        const unsigned vm = 1u << AN_CNT_VMCNT | 1u << AN_CNT_VSCNT | 1u << AN_CNT_LOADCNT |
                            1u << AN_CNT_STORECNT | 1u << AN_CNT_SAMPLECNT | 1u << AN_CNT_BVHCNT;
        const unsigned lgkm = 1u << AN_CNT_LGKMCNT | 1u << AN_CNT_DSCNT | 1u << AN_CNT_KMCNT;
        if (w.idle || ((w.mask & vm) && (w.mask & lgkm)))
            return AN_STALL_WAIT_VM_LGKM;
        if (w.mask & vm)
            return AN_STALL_WAIT_VMCNT;
        if (w.mask & lgkm)
            return AN_STALL_WAIT_LGKMCNT;
        if (w.mask & (1u << AN_CNT_EXPCNT))
            return AN_STALL_WAIT_EXPCNT;
        return AN_STALL_WAIT_OTHER;
    }
    case KR_CLASS_BARRIER: return AN_STALL_BARRIER;
    case KR_CLASS_NOP: return AN_STALL_NOP;
    case KR_CLASS_VMEM: return AN_STALL_VMEM_ISSUE;
    case KR_CLASS_FLAT: return AN_STALL_FLAT_ISSUE;
    case KR_CLASS_LDS: return AN_STALL_LDS_ISSUE;
    case KR_CLASS_SMEM: return AN_STALL_SMEM_ISSUE;
    case KR_CLASS_MATRIX: return AN_STALL_MATRIX_DEP;
    case KR_CLASS_VALU: return AN_STALL_VALU_DEP;
    case KR_CLASS_SALU: return AN_STALL_SALU;
    case KR_CLASS_BRANCH: return AN_STALL_BRANCH;
    case KR_CLASS_MESSAGE: return AN_STALL_MESSAGE;
    default: return AN_STALL_OTHER;
    }
}

/* ---- compute ---- */

/* Keeps b->top as the AN_STALL_TOP rows with the most stall (then lowest
 * vaddr, then lowest row index). */
static void top_insert(an_stall_bucket *b, const kr_code_row *rows, uint32_t idx)
{
    const kr_code_row *r = &rows[idx];
    size_t pos = b->ntop;
    while (pos > 0) {
        const kr_code_row *q = &rows[b->top[pos - 1]];
        int before = r->stall > q->stall ||
                     (r->stall == q->stall && (r->vaddr < q->vaddr ||
                                               (r->vaddr == q->vaddr && idx < b->top[pos - 1])));
        if (!before)
            break;
        pos--;
    }
    if (pos >= AN_STALL_TOP)
        return;
    size_t end = b->ntop < AN_STALL_TOP ? b->ntop : AN_STALL_TOP - 1;
    memmove(&b->top[pos + 1], &b->top[pos], (end - pos) * sizeof b->top[0]);
    b->top[pos] = idx;
    if (b->ntop < AN_STALL_TOP)
        b->ntop++;
}

static const char *source_key(const kr_code_row *r)
{
    return r->source && r->source[0] ? r->source : "<unknown>";
}

typedef struct src_ref {
    const char *key;
    uint32_t row;
} src_ref;

static int cmp_src(const void *a, const void *b)
{
    const src_ref *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c)
        return c;
    return x->row < y->row ? -1 : (x->row > y->row);
}

static int cmp_source_groups(const void *a, const void *b)
{
    const an_hub_source *x = a, *y = b;
    if (x->stall != y->stall)
        return x->stall > y->stall ? -1 : 1;
    return x->first_row < y->first_row ? -1 : (x->first_row > y->first_row);
}

typedef struct stall_ref {
    uint64_t stall;
    uint32_t row;
} stall_ref;

static int cmp_stall_desc(const void *a, const void *b)
{
    const stall_ref *x = a, *y = b;
    if (x->stall != y->stall)
        return x->stall > y->stall ? -1 : 1;
    return x->row < y->row ? -1 : (x->row > y->row);
}

/* bucket[i]: the hub bucket of row i, for rows with stall (computed once:
 * a row is looked at by its source group and by the totals). */
static int hub_sources(const kr_capture *c, const uint8_t *bucket, an_stalls *out)
{
    size_t n = 0;
    src_ref *refs = calloc(c->nrows ? c->nrows : 1, sizeof *refs);
    if (!refs)
        return KR_INTERNAL;
    for (size_t i = 0; i < c->nrows; i++)
        if (c->rows[i].line != 0)
            refs[n++] = (src_ref){source_key(&c->rows[i]), (uint32_t)i};
    qsort(refs, n, sizeof *refs, cmp_src);
    out->sources = calloc(n ? n : 1, sizeof *out->sources);
    if (!out->sources) {
        free(refs);
        return KR_INTERNAL;
    }
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        an_hub_source *g = &out->sources[out->nsources++];
        g->source = refs[i].key;
        g->first_row = refs[i].row;
        uint64_t by_bucket[AN_HUB_COUNT] = {0};
        an_hub_bucket seen[AN_HUB_COUNT];
        size_t nseen = 0;
        for (; j < n && strcmp(refs[j].key, g->source) == 0; j++) {
            const kr_code_row *r = &c->rows[refs[j].row];
            g->rows++;
            g->stall = sat_add(g->stall, r->stall);
            g->latency = sat_add(g->latency, r->latency);
            if (r->stall > 0) {
                an_hub_bucket b = (an_hub_bucket)bucket[refs[j].row];
                size_t s = 0;
                while (s < nseen && seen[s] != b)
                    s++;
                if (s == nseen)
                    seen[nseen++] = b;
                by_bucket[b] = sat_add(by_bucket[b], r->stall);
            }
        }
        g->dominant = AN_HUB_NONE;
        for (size_t s = 0; s < nseen; s++)
            if (g->dominant == AN_HUB_NONE || by_bucket[seen[s]] > by_bucket[g->dominant])
                g->dominant = seen[s];
        i = j;
    }
    free(refs);
    qsort(out->sources, out->nsources, sizeof *out->sources, cmp_source_groups);
    return 0;
}

int an_stalls_compute(const kr_capture *c, an_stalls *out)
{
    memset(out, 0, sizeof *out);
    out->rows = c->rows;
    out->nrows = c->nrows;

    an_hub_bucket seen[AN_HUB_COUNT];
    uint64_t hub_stall[AN_HUB_COUNT] = {0}, hub_rows[AN_HUB_COUNT] = {0};
    size_t nseen = 0;
    size_t nstalled = 0;
    uint8_t *bucket = calloc(c->nrows ? c->nrows : 1, 1);
    if (!bucket)
        return KR_INTERNAL;
    for (size_t i = 0; i < c->nrows; i++) {
        const kr_code_row *r = &c->rows[i];
        if (r->line == 0)
            continue;
        out->kept_rows++;
        out->total_cycles = sat_add(out->total_cycles, r->latency);
        out->total_stall = sat_add(out->total_stall, r->stall);
        if (r->stall == 0)
            continue;
        nstalled++;
        an_hub_bucket b = an_hub_bucket_of(r->isa);
        bucket[i] = (uint8_t)b;
        if (hub_rows[b] == 0)
            seen[nseen++] = b;
        hub_stall[b] = sat_add(hub_stall[b], r->stall);
        hub_rows[b]++;

        an_stall_bucket *k = &out->kinds[an_stall_kind_of(r)];
        k->stall = sat_add(k->stall, r->stall);
        k->rows++;
        k->hit = sat_add(k->hit, r->hit);
        top_insert(k, c->rows, (uint32_t)i);
    }

    /* Hub bucket order: first seen, then a stable sort by cycles. */
    for (size_t i = 0; i < nseen; i++)
        out->hub[i] = (an_hub_sum){seen[i], hub_stall[seen[i]], hub_rows[seen[i]]};
    for (size_t i = 1; i < nseen; i++) {
        an_hub_sum v = out->hub[i];
        size_t j = i;
        while (j > 0 && out->hub[j - 1].stall < v.stall) {
            out->hub[j] = out->hub[j - 1];
            j--;
        }
        out->hub[j] = v;
    }
    out->nhub_seen = nseen;
    size_t m = nseen;
    for (unsigned b = 0; b < AN_HUB_COUNT; b++)
        if (hub_rows[b] == 0)
            out->hub[m++] = (an_hub_sum){(an_hub_bucket)b, 0, 0};

    /* kreport buckets: cycles descending, then enum order. */
    for (unsigned k = 0; k < AN_STALL_COUNT; k++) {
        size_t j = k;
        while (j > 0 && out->kinds[out->kind_order[j - 1]].stall < out->kinds[k].stall) {
            out->kind_order[j] = out->kind_order[j - 1];
            j--;
        }
        out->kind_order[j] = (an_stall_kind)k;
    }

    /* Hub top instructions. */
    if (nstalled) {
        stall_ref *refs = calloc(nstalled, sizeof *refs);
        out->hub_top = calloc(nstalled, sizeof *out->hub_top);
        if (!refs || !out->hub_top) {
            free(refs);
            free(bucket);
            an_stalls_free(out);
            return KR_INTERNAL;
        }
        size_t n = 0;
        for (size_t i = 0; i < c->nrows; i++)
            if (c->rows[i].line != 0 && c->rows[i].stall > 0)
                refs[n++] = (stall_ref){c->rows[i].stall, (uint32_t)i};
        qsort(refs, n, sizeof *refs, cmp_stall_desc);
        for (size_t i = 0; i < n; i++)
            out->hub_top[i] = refs[i].row;
        out->nhub_top = n;
        free(refs);
    }

    int hs = hub_sources(c, bucket, out);
    free(bucket);
    if (hs != 0) {
        an_stalls_free(out);
        return KR_INTERNAL;
    }
    return 0;
}

void an_stalls_free(an_stalls *r)
{
    if (!r)
        return;
    free(r->sources);
    free(r->hub_top);
    memset(r, 0, sizeof *r);
}
