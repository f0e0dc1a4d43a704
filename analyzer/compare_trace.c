/* compare_trace.c — see compare_trace.h. */
#include "analyzer/compare_trace.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"

const char *an_pair_kind_id(an_pair_kind k)
{
    static const char *ids[] = {"identical", "normalized", "mnemonic", "best_only", "candidate_only"};
    return (unsigned)k < AN_PAIR_KINDS ? ids[k] : "?";
}

void an_isa_normalize(const char *isa, char *buf, size_t cap)
{
    size_t o = 0;
#define PUT(c) do { if (o + 1 < cap) buf[o++] = (char)(c); } while (0)
    const char *s = isa ? isa : "";
    while (*s == ' ' || *s == '\t')
        s++;
    while (*s && *s != ' ' && *s != '\t') {
        PUT(tolower((unsigned char)*s));
        s++;
    }
    int space = 0;
    while (*s) {
        if (*s == ';' || (s[0] == '/' && s[1] == '/'))
            break;
        if (*s == ' ' || *s == '\t') {
            space = 1;
            s++;
            continue;
        }
        if (space && *s != ',' && o > 0)
            PUT(' ');
        space = 0;
        if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2])) {
            PUT('#');
            s += 2;
            while (isxdigit((unsigned char)*s))
                s++;
            continue;
        }
        if (isdigit((unsigned char)*s)) {
            PUT('#');
            while (isdigit((unsigned char)*s))
                s++;
            continue;
        }
        PUT(tolower((unsigned char)*s));
        s++;
    }
    if (cap)
        buf[o] = '\0';
#undef PUT
}

/* ---- alignment ---- */

typedef struct seq {
    const kr_code_row *rows;
    uint32_t *idx;                   /* instruction row indices */
    size_t n;
    char **norm;                     /* normalized text per instruction row */
    uint64_t *h;                     /* hash of norm */
    uint64_t *anchor;                /* hash of norm + innermost source line */
} seq;

static uint64_t fnv(const char *s, uint64_t h)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

static void seq_free(seq *q)
{
    if (q->norm)
        for (size_t i = 0; i < q->n; i++)
            free(q->norm[i]);
    free(q->norm);
    free(q->idx);
    free(q->h);
    free(q->anchor);
}

static int seq_make(const kr_code_row *rows, size_t n, int normalize, seq *q)
{
    memset(q, 0, sizeof *q);
    q->rows = rows;
    q->idx = malloc((n ? n : 1) * sizeof *q->idx);
    if (!q->idx)
        return KR_INTERNAL;
    for (size_t i = 0; i < n; i++)
        if (!rows[i].is_label)
            q->idx[q->n++] = (uint32_t)i;
    if (!normalize)
        return 0;
    q->norm = calloc(q->n + 1, sizeof *q->norm);
    q->h = malloc((q->n + 1) * sizeof *q->h);
    q->anchor = malloc((q->n + 1) * sizeof *q->anchor);
    if (!q->norm || !q->h || !q->anchor)
        return KR_INTERNAL;
    char buf[4096];
    for (size_t i = 0; i < q->n; i++) {
        const kr_code_row *r = &rows[q->idx[i]];
        an_isa_normalize(r->isa, buf, sizeof buf);
        if (!(q->norm[i] = strdup(buf)))
            return KR_INTERNAL;
        q->h[i] = fnv(buf, 1469598103934665603ull);
        char src[64];
        uint64_t a = fnv("\x1f", q->h[i]);
        if (r->nframes) {
            a = fnv(r->frames[0].path ? r->frames[0].path : "", a);
            snprintf(src, sizeof src, ":%u", r->frames[0].line);
            a = fnv(src, a);
        }
        q->anchor[i] = a;
    }
    return 0;
}

typedef struct matches {
    uint32_t *a, *b;                 /* positions in the sequences */
    uint8_t *kind;
    size_t n, cap;
} matches;

static int match_push(matches *m, size_t a, size_t b, uint8_t kind)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 256;
        uint32_t *na = realloc(m->a, cap * sizeof *na);
        if (!na)
            return KR_INTERNAL;
        m->a = na;
        uint32_t *nb = realloc(m->b, cap * sizeof *nb);
        if (!nb)
            return KR_INTERNAL;
        m->b = nb;
        uint8_t *nk = realloc(m->kind, cap);
        if (!nk)
            return KR_INTERNAL;
        m->kind = nk;
        m->cap = cap;
    }
    m->a[m->n] = (uint32_t)a;
    m->b[m->n] = (uint32_t)b;
    m->kind[m->n] = kind;
    m->n++;
    return 0;
}

typedef struct ctx {
    const seq *A, *B;
    int level;                       /* 1: normalized text, 2: mnemonic */
    int greedy;
} ctx;

static int eq_at(const ctx *c, size_t i, size_t j)
{
    if (c->level == 1)
        return c->A->h[i] == c->B->h[j] && strcmp(c->A->norm[i], c->B->norm[j]) == 0;
    const char *x = c->A->rows[c->A->idx[i]].mnemonic, *y = c->B->rows[c->B->idx[j]].mnemonic;
    return strcmp(x ? x : "", y ? y : "") == 0;
}

static uint8_t kind_of(const ctx *c, size_t i, size_t j)
{
    if (c->level == 2)
        return AN_PAIR_MNEMONIC;
    const char *x = c->A->rows[c->A->idx[i]].isa, *y = c->B->rows[c->B->idx[j]].isa;
    return strcmp(x ? x : "", y ? y : "") == 0 ? AN_PAIR_IDENTICAL : AN_PAIR_NORMALIZED;
}

/* Longest common subsequence of A[a0, a1) and B[b0, b1), appended in order. */
static int lcs(ctx *c, size_t a0, size_t a1, size_t b0, size_t b1, matches *out)
{
    size_t n = a1 - a0, m = b1 - b0;
    if (n == 0 || m == 0)
        return 0;
    if ((uint64_t)(n + 1) * (m + 1) > AN_ALIGN_MAX_CELLS) {
        c->greedy = 1;
        size_t i = a0, j = b0;
        while (i < a1 && j < b1) {
            if (eq_at(c, i, j)) {
                if (match_push(out, i, j, kind_of(c, i, j)))
                    return KR_INTERNAL;
                i++;
                j++;
                continue;
            }
            size_t di = 0, dj = 0;
            for (size_t d = 1; d <= AN_ALIGN_WINDOW && !di && !dj; d++) {
                if (j + d < b1 && eq_at(c, i, j + d))
                    dj = d;
                else if (i + d < a1 && eq_at(c, i + d, j))
                    di = d;
            }
            if (dj)
                j += dj;
            else if (di)
                i += di;
            else {
                i++;
                j++;
            }
        }
        return 0;
    }
    uint32_t *L = calloc((n + 1) * (m + 1), sizeof *L);
    if (!L)
        return KR_INTERNAL;
#define AT(i, j) L[(i) * (m + 1) + (j)]
    for (size_t i = n; i-- > 0;)
        for (size_t j = m; j-- > 0;) {
            if (eq_at(c, a0 + i, b0 + j))
                AT(i, j) = AT(i + 1, j + 1) + 1;
            else
                AT(i, j) = AT(i + 1, j) >= AT(i, j + 1) ? AT(i + 1, j) : AT(i, j + 1);
        }
    size_t i = 0, j = 0;
    int rc = 0;
    while (i < n && j < m) {
        if (eq_at(c, a0 + i, b0 + j) && AT(i, j) == AT(i + 1, j + 1) + 1) {
            if ((rc = match_push(out, a0 + i, b0 + j, kind_of(c, a0 + i, b0 + j))))
                break;
            i++;
            j++;
        } else if (AT(i + 1, j) >= AT(i, j + 1)) {
            i++;
        } else {
            j++;
        }
    }
#undef AT
    free(L);
    return rc;
}

/* Level 1 over [a0,a1)×[b0,b1), then level 2 in the stretches it leaves. */
static int align_gap(ctx *c, size_t a0, size_t a1, size_t b0, size_t b1, matches *out)
{
    matches m1 = {0};
    c->level = 1;
    int rc = lcs(c, a0, a1, b0, b1, &m1);
    size_t pa = a0, pb = b0;
    for (size_t k = 0; !rc && k <= m1.n; k++) {
        size_t ea = k < m1.n ? m1.a[k] : a1, eb = k < m1.n ? m1.b[k] : b1;
        c->level = 2;
        rc = lcs(c, pa, ea, pb, eb, out);
        if (!rc && k < m1.n) {
            rc = match_push(out, m1.a[k], m1.b[k], m1.kind[k]);
            pa = m1.a[k] + 1;
            pb = m1.b[k] + 1;
        }
    }
    free(m1.a);
    free(m1.b);
    free(m1.kind);
    return rc;
}

typedef struct hp { uint64_t h; uint32_t pos; } hp;

static int cmp_hp(const void *x, const void *y)
{
    const hp *a = x, *b = y;
    if (a->h != b->h)
        return a->h < b->h ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Unique tokens of s in [lo, hi): out gets (hash, pos) of tokens seen once. */
static size_t uniques(const uint64_t *tok, size_t lo, size_t hi, hp *tmp, hp *out)
{
    size_t n = hi - lo, k = 0;
    for (size_t i = 0; i < n; i++)
        tmp[i] = (hp){tok[lo + i], (uint32_t)(lo + i)};
    qsort(tmp, n, sizeof *tmp, cmp_hp);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && tmp[j].h == tmp[i].h)
            j++;
        if (j - i == 1)
            out[k++] = tmp[i];
        i = j;
    }
    return k;
}

/* Patience anchors in [a0,a1)×[b0,b1): pairs of unique equal tokens, the
 * longest chain increasing on both sides. */
static int anchors(const seq *A, const seq *B, size_t a0, size_t a1, size_t b0, size_t b1,
                   uint32_t **oa, uint32_t **ob, size_t *on)
{
    *oa = *ob = NULL;
    *on = 0;
    size_t na = a1 - a0, nb = b1 - b0;
    hp *ta = malloc((na + 1) * sizeof *ta), *ua = malloc((na + 1) * sizeof *ua);
    hp *tb = malloc((nb + 1) * sizeof *tb), *ub = malloc((nb + 1) * sizeof *ub);
    uint32_t *ca = NULL, *cb = NULL, *tail = NULL, *prev = NULL, *tailpos = NULL;
    int rc = KR_INTERNAL;
    if (!ta || !ua || !tb || !ub)
        goto out;
    size_t ka = uniques(A->anchor, a0, a1, ta, ua), kb = uniques(B->anchor, b0, b1, tb, ub);
    /* Candidates (posA, posB), sorted by posA. */
    size_t cap = ka < kb ? ka : kb, nc = 0;
    ca = malloc((cap + 1) * sizeof *ca);
    cb = malloc((cap + 1) * sizeof *cb);
    if (!ca || !cb)
        goto out;
    for (size_t i = 0, j = 0; i < ka && j < kb;) {
        if (ua[i].h < ub[j].h)
            i++;
        else if (ua[i].h > ub[j].h)
            j++;
        else {
            if (strcmp(A->norm[ua[i].pos], B->norm[ub[j].pos]) == 0) {
                ca[nc] = ua[i].pos;
                cb[nc] = ub[j].pos;
                nc++;
            }
            i++;
            j++;
        }
    }
    /* sort by posA (insertion into order via counting on positions) */
    for (size_t i = 1; i < nc; i++)
        for (size_t j = i; j > 0 && ca[j - 1] > ca[j]; j--) {
            uint32_t t = ca[j]; ca[j] = ca[j - 1]; ca[j - 1] = t;
            t = cb[j]; cb[j] = cb[j - 1]; cb[j - 1] = t;
        }
    /* Longest increasing subsequence of cb (O(n log n)). */
    tail = malloc((nc + 1) * sizeof *tail);       /* index into ca/cb of the chain end of length l+1 */
    prev = malloc((nc + 1) * sizeof *prev);
    if (!tail || !prev)
        goto out;
    size_t len = 0;
    for (size_t i = 0; i < nc; i++) {
        size_t lo = 0, hi = len;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (cb[tail[mid]] < cb[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        prev[i] = lo ? tail[lo - 1] : UINT32_MAX;
        tail[lo] = (uint32_t)i;
        if (lo == len)
            len++;
    }
    *oa = malloc((len + 1) * sizeof **oa);
    *ob = malloc((len + 1) * sizeof **ob);
    if (!*oa || !*ob)
        goto out;
    uint32_t k = len ? tail[len - 1] : UINT32_MAX;
    for (size_t p = len; p-- > 0;) {
        (*oa)[p] = ca[k];
        (*ob)[p] = cb[k];
        k = prev[k];
    }
    *on = len;
    rc = 0;
out:
    free(ta);
    free(ua);
    free(tb);
    free(ub);
    free(ca);
    free(cb);
    free(tail);
    free(prev);
    free(tailpos);
    return rc;
}

static int pairs_push(an_alignment *al, size_t *cap, uint32_t a, uint32_t b, uint8_t kind)
{
    if (al->npairs == *cap) {
        *cap = *cap ? *cap * 2 : 256;
        an_align_pair *n = realloc(al->pairs, *cap * sizeof *n);
        if (!n)
            return KR_INTERNAL;
        al->pairs = n;
    }
    al->pairs[al->npairs++] = (an_align_pair){a, b, kind};
    al->count[kind]++;
    return 0;
}

int an_align_isa(const kr_code_row *a, size_t na, const kr_code_row *b, size_t nb, an_alignment *out)
{
    memset(out, 0, sizeof *out);
    seq A = {0}, B = {0};
    int rc = KR_INTERNAL;
    matches m = {0};
    uint32_t *xa = NULL, *xb = NULL;
    size_t cap = 0;
    if (seq_make(a, na, 0, &A) || seq_make(b, nb, 0, &B))
        goto out;
    out->best_rows = A.n;
    out->cand_rows = B.n;
    int same = A.n == B.n;
    for (size_t i = 0; same && i < A.n; i++)
        same = strcmp(a[A.idx[i]].isa ? a[A.idx[i]].isa : "", b[B.idx[i]].isa ? b[B.idx[i]].isa : "") == 0;
    if (same) {
        out->method = "index";
        for (size_t i = 0; i < A.n; i++)
            if (pairs_push(out, &cap, A.idx[i], B.idx[i], AN_PAIR_IDENTICAL))
                goto out;
    } else {
        out->method = "sequence";
        seq_free(&A);
        seq_free(&B);
        if (seq_make(a, na, 1, &A) || seq_make(b, nb, 1, &B))
            goto out;
        ctx c = {&A, &B, 1, 0};
        /* Common prefix and suffix: same normalized text and same source line. */
        size_t pre = 0;
        while (pre < A.n && pre < B.n && A.anchor[pre] == B.anchor[pre] && !strcmp(A.norm[pre], B.norm[pre]))
            pre++;
        size_t suf = 0;
        while (suf < A.n - pre && suf < B.n - pre && A.anchor[A.n - 1 - suf] == B.anchor[B.n - 1 - suf] &&
               !strcmp(A.norm[A.n - 1 - suf], B.norm[B.n - 1 - suf]))
            suf++;
        for (size_t i = 0; i < pre; i++)
            if (match_push(&m, i, i, kind_of(&c, i, i)))
                goto out;
        size_t an;
        if (anchors(&A, &B, pre, A.n - suf, pre, B.n - suf, &xa, &xb, &an))
            goto out;
        out->anchors = an;
        size_t pa = pre, pb = pre;
        for (size_t k = 0; k <= an; k++) {
            size_t ea = k < an ? xa[k] : A.n - suf, eb = k < an ? xb[k] : B.n - suf;
            if (align_gap(&c, pa, ea, pb, eb, &m))
                goto out;
            if (k < an) {
                c.level = 1;
                if (match_push(&m, xa[k], xb[k], kind_of(&c, xa[k], xb[k])))
                    goto out;
                pa = xa[k] + 1;
                pb = xb[k] + 1;
            }
        }
        for (size_t i = 0; i < suf; i++) {
            size_t ia = A.n - suf + i, ib = B.n - suf + i;
            c.level = 1;
            if (match_push(&m, ia, ib, kind_of(&c, ia, ib)))
                goto out;
        }
        out->greedy = (uint8_t)c.greedy;
        /* Walk: one-sided rows between matches (BEST's first), then the match. */
        size_t ia = 0, ib = 0;
        for (size_t k = 0; k <= m.n; k++) {
            size_t ea = k < m.n ? m.a[k] : A.n, eb = k < m.n ? m.b[k] : B.n;
            for (; ia < ea; ia++)
                if (pairs_push(out, &cap, A.idx[ia], AN_ALIGN_NONE, AN_PAIR_BEST_ONLY))
                    goto out;
            for (; ib < eb; ib++)
                if (pairs_push(out, &cap, AN_ALIGN_NONE, B.idx[ib], AN_PAIR_CAND_ONLY))
                    goto out;
            if (k < m.n) {
                if (pairs_push(out, &cap, A.idx[m.a[k]], B.idx[m.b[k]], m.kind[k]))
                    goto out;
                ia = m.a[k] + 1;
                ib = m.b[k] + 1;
            }
        }
    }
    out->paired = out->count[AN_PAIR_IDENTICAL] + out->count[AN_PAIR_NORMALIZED] + out->count[AN_PAIR_MNEMONIC];
    size_t mx = A.n > B.n ? A.n : B.n;
    out->quality = mx ? (double)out->paired / (double)mx : 1.0;
    rc = 0;
out:
    seq_free(&A);
    seq_free(&B);
    free(m.a);
    free(m.b);
    free(m.kind);
    free(xa);
    free(xb);
    return rc;
}

void an_alignment_free(an_alignment *al)
{
    free(al->pairs);
    memset(al, 0, sizeof *al);
}

/* ---- deltas ---- */

static double share(uint64_t v, uint64_t total) { return total ? (double)v / (double)total : 0; }

static int cmp_moved(const void *x, const void *y)
{
    const an_moved_inst *a = x, *b = y;
    double da = fabs(a->delta), db = fabs(b->delta);
    if (da != db)
        return da > db ? -1 : 1;
    if (a->best_row != b->best_row)
        return a->best_row < b->best_row ? -1 : 1;
    return a->cand_row < b->cand_row ? -1 : a->cand_row > b->cand_row;
}

static int cmp_line_key(const an_src_line *a, const an_src_line *b)
{
    int c = strcmp(a->path ? a->path : "", b->path ? b->path : "");
    if (c)
        return c;
    return a->line < b->line ? -1 : a->line > b->line;
}

static int cmp_line_ptr(const void *x, const void *y)
{
    return cmp_line_key(*(const an_src_line *const *)x, *(const an_src_line *const *)y);
}

static int cmp_moved_line(const void *x, const void *y)
{
    const an_moved_line *a = x, *b = y;
    double da = fabs(a->delta), db = fabs(b->delta);
    if (da != db)
        return da > db ? -1 : 1;
    int c = strcmp(a->path ? a->path : "", b->path ? b->path : "");
    if (c)
        return c;
    return a->line < b->line ? -1 : a->line > b->line;
}

static an_pair_i64 pi(int64_t a, int64_t b) { return (an_pair_i64){a, b}; }

int an_cmp_trace_compute(const an_analysis *best, const an_analysis *cand, size_t top, an_cmp_trace *out)
{
    memset(out, 0, sizeof *out);
    if (top == 0)
        top = 10;
    out->best = best;
    out->cand = cand;
    const an_analysis *s[2] = {best, cand};
    uint64_t *dst;
#define BOTH(field, expr) do { for (int q = 0; q < 2; q++) { const an_analysis *x = s[q]; dst = q ? &out->field.cand : &out->field.best; *dst = (expr); } } while (0)
    BOTH(waves, x->totals.waves);
    BOTH(records, x->totals.records);
    BOTH(hit, x->totals.hit);
    BOTH(latency, x->totals.latency);
    BOTH(stall, x->totals.stall);
    BOTH(idle, x->totals.idle);
    BOTH(states_total, x->states.all.raw_total);
    for (unsigned st = 0; st < AN_STATES_N; st++)
        BOTH(states[st], x->states.all.raw[st]);
    for (unsigned k = 0; k < KR_CLASS_COUNT; k++) {
        BOTH(class_latency[k], x->classes.by_class[k].latency);
        BOTH(class_stall[k], x->classes.by_class[k].stall);
    }
    for (unsigned k = 0; k < AN_STALL_COUNT; k++)
        BOTH(kinds[k], x->stalls.kinds[k].stall);
    BOTH(stall_total, x->stalls.total_stall);
    BOTH(mapped, x->sources.mapped_rows);
    BOTH(rows, x->sources.instruction_rows);
    BOTH(distinct_lines, (uint64_t)x->sources.distinct_lines);
#undef BOTH
    out->has_effective_best = best->sources.has_effective;
    out->has_effective_cand = cand->sources.has_effective;
    out->effective_best = best->sources.effective_lines;
    out->effective_cand = cand->sources.effective_lines;
    out->has_top1_best = best->sources.has_top1;
    out->has_top1_cand = cand->sources.has_top1;
    out->top1_best = best->sources.top1_share;
    out->top1_cand = cand->sources.top1_share;

    /* Occupancy inputs of each side's primary kernel. */
    const an_occ_kernel *kb = best->occupancy.nkernels ? &best->occupancy.kernels[best->occupancy.primary] : NULL;
    const an_occ_kernel *kc = cand->occupancy.nkernels ? &cand->occupancy.kernels[cand->occupancy.primary] : NULL;
#define OCC(field, expr) out->field = pi(kb ? (int64_t)(kb->expr) : -1, kc ? (int64_t)(kc->expr) : -1)
    OCC(vgpr, v_total);
    OCC(arch_vgpr, reported_arch_vgpr);
    OCC(agpr, reported_accum_vgpr);
    OCC(sgpr, reported_sgpr);
    OCC(lds, lds_bytes);
    OCC(scratch, scratch_bytes);
    OCC(wg_size, wg_size);
    OCC(workgroups, workgroups);
    OCC(waves_per_simd, waves_per_simd);
#undef OCC
    if (!best->occupancy.modelled)
        out->waves_per_simd.best = -1;
    if (!cand->occupancy.modelled)
        out->waves_per_simd.cand = -1;
    out->limiter_best = kb && best->occupancy.modelled ? an_occ_lim_name(kb->primary) : NULL;
    out->limiter_cand = kc && cand->occupancy.modelled ? an_occ_lim_name(kc->primary) : NULL;
    const an_occ_achieved *ab = &best->occupancy.achieved, *ac = &cand->occupancy.achieved;
    out->has_achieved_best = ab->present && ab->has_target;
    out->has_achieved_cand = ac->present && ac->has_target;
    out->achieved_best = ab->target_mean_per_simd;
    out->achieved_cand = ac->target_mean_per_simd;

    /* Alignment and the instructions that moved most. */
    const kr_capture *cb = best->cap, *cc = cand->cap;
    if (an_align_isa(cb->rows, cb->nrows, cc->rows, cc->nrows, &out->align))
        return KR_INTERNAL;
    an_moved_inst *all = malloc((out->align.npairs + 1) * sizeof *all);
    if (!all)
        return KR_INTERNAL;
    uint64_t tb = best->totals.stall, tc = cand->totals.stall;
    size_t n = 0;
    for (size_t i = 0; i < out->align.npairs; i++) {
        const an_align_pair *p = &out->align.pairs[i];
        an_moved_inst m;
        memset(&m, 0, sizeof m);
        m.best_row = p->best;
        m.cand_row = p->cand;
        m.kind = p->kind;
        if (p->best != AN_ALIGN_NONE) {
            const kr_code_row *r = &cb->rows[p->best];
            m.best_stall = r->stall;
            m.best_latency = r->latency;
            m.best_hit = r->hit;
        }
        if (p->cand != AN_ALIGN_NONE) {
            const kr_code_row *r = &cc->rows[p->cand];
            m.cand_stall = r->stall;
            m.cand_latency = r->latency;
            m.cand_hit = r->hit;
        }
        m.best_share = share(m.best_stall, tb);
        m.cand_share = share(m.cand_stall, tc);
        m.delta = m.cand_share - m.best_share;
        if (m.delta == 0)
            continue;
        if (p->best != AN_ALIGN_NONE && p->cand != AN_ALIGN_NONE)
            out->insts_changed++;
        all[n++] = m;
    }
    qsort(all, n, sizeof *all, cmp_moved);
    out->ninsts = n < top ? n : top;
    out->insts = all;

    /* Source lines (innermost frame, exclusive stall). */
    const an_sources *sb = &best->sources, *sc = &cand->sources;
    const an_src_line **lb = malloc((sb->nlines + 1) * sizeof *lb), **lc = malloc((sc->nlines + 1) * sizeof *lc);
    an_moved_line *ml = malloc((sb->nlines + sc->nlines + 1) * sizeof *ml);
    if (!lb || !lc || !ml) {
        free(lb);
        free(lc);
        free(ml);
        return KR_INTERNAL;
    }
    size_t nb_ = 0, nc_ = 0;
    for (size_t i = 0; i < sb->nlines; i++)
        if (sb->lines[i].excl_rows)
            lb[nb_++] = &sb->lines[i];
    for (size_t i = 0; i < sc->nlines; i++)
        if (sc->lines[i].excl_rows)
            lc[nc_++] = &sc->lines[i];
    qsort(lb, nb_, sizeof *lb, cmp_line_ptr);
    qsort(lc, nc_, sizeof *lc, cmp_line_ptr);
    size_t nl = 0, i = 0, j = 0;
    while (i < nb_ || j < nc_) {
        int c = i >= nb_ ? 1 : j >= nc_ ? -1 : cmp_line_key(lb[i], lc[j]);
        an_moved_line m;
        memset(&m, 0, sizeof m);
        if (c <= 0) {
            m.path = lb[i]->path;
            m.line = lb[i]->line;
            m.on_best = 1;
            m.best_stall = lb[i]->excl.stall;
        }
        if (c >= 0) {
            m.path = lc[j]->path;
            m.line = lc[j]->line;
            m.on_cand = 1;
            m.cand_stall = lc[j]->excl.stall;
        }
        if (c <= 0)
            i++;
        if (c >= 0)
            j++;
        if (m.on_best && m.on_cand)
            out->lines_both++;
        else if (m.on_best)
            out->lines_best_only++;
        else
            out->lines_cand_only++;
        m.best_share = share(m.best_stall, tb);
        m.cand_share = share(m.cand_stall, tc);
        m.delta = m.cand_share - m.best_share;
        ml[nl++] = m;
    }
    qsort(ml, nl, sizeof *ml, cmp_moved_line);
    out->lines = ml;
    out->nlines = nl < top ? nl : top;
    free(lb);
    free(lc);
    return 0;
}

void an_cmp_trace_free(an_cmp_trace *t)
{
    an_alignment_free(&t->align);
    free(t->insts);
    free(t->lines);
    memset(t, 0, sizeof *t);
}
