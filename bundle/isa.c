/* isa.c — see isa.h. The rule numbers are those of docs/instruction-classes.md. */
#include "bundle/isa.h"

#include <ctype.h>
#include <string.h>

void bundle_mnemonic(const char *isa, char *buf, size_t cap)
{
    size_t n = 0;
    while (isa[n] && isa[n] != ' ' && isa[n] != '\t' && n + 1 < cap) {
        buf[n] = (char)tolower((unsigned char)isa[n]);
        n++;
    }
    buf[n] = '\0';
}

static int starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

static int starts_any(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (starts(s, *list))
            return 1;
    return 0;
}

static int equals_any(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return 1;
    return 0;
}

kr_class bundle_classify(const char *m)
{
    static const char *const message[] = {"s_sendmsg", "s_endpgm", "s_ttracedata", NULL};
    static const char *const branch_eq[] = {"s_branch", "s_setpc_b64", "s_swappc_b64", "s_call_b64", NULL};
    static const char *const smem[] = {"s_load", "s_store", "s_buffer_load", "s_buffer_store",
        "s_scratch_", "s_atomic", "s_buffer_atomic", "s_dcache", "s_memtime", "s_memrealtime",
        "s_prefetch", NULL};
    static const char *const immed_other[] = {"s_setprio", "s_sleep", "s_icache_inv",
        "s_set_inst_prefetch_distance", "s_wait_alu", "s_trap", "s_sethalt", "s_setkill",
        "s_code_end", NULL};
    static const char *const matrix[] = {"v_mfma", "v_smfmac", "v_wmma", "v_swmmac", NULL};
    static const char *const vmem[] = {"buffer_", "tbuffer_", "global_", "scratch_", NULL};

    if (m[0] == ';')                                                     /* 1 */
        return KR_CLASS_LABEL;
    if (starts(m, "s_waitcnt") || (starts(m, "s_wait_") && strcmp(m, "s_wait_alu") != 0))
        return KR_CLASS_WAITCNT;                                         /* 2 */
    if (starts(m, "s_barrier"))                                          /* 3 */
        return KR_CLASS_BARRIER;
    if (strcmp(m, "s_nop") == 0)                                         /* 4 */
        return KR_CLASS_NOP;
    if (starts_any(m, message))                                          /* 5 */
        return KR_CLASS_MESSAGE;
    if (equals_any(m, branch_eq) || starts(m, "s_cbranch"))              /* 6 */
        return KR_CLASS_BRANCH;
    if (starts_any(m, smem))                                             /* 7 */
        return KR_CLASS_SMEM;
    if (equals_any(m, immed_other))                                      /* 8 */
        return KR_CLASS_IMMED_OTHER;
    if (starts(m, "s_"))                                                 /* 9 */
        return KR_CLASS_SALU;
    if (starts_any(m, matrix))                                           /* 10 */
        return KR_CLASS_MATRIX;
    if (starts(m, "ds_"))                                                /* 11 */
        return KR_CLASS_LDS;
    if (starts_any(m, vmem))                                             /* 12 */
        return KR_CLASS_VMEM;
    if (starts(m, "flat_"))                                              /* 13 */
        return KR_CLASS_FLAT;
    if (starts(m, "image_"))                                             /* 14 */
        return KR_CLASS_VMEM;
    if (starts(m, "v_"))                                                 /* 15 */
        return KR_CLASS_VALU;
    return KR_CLASS_OTHER;                                               /* 16 */
}

int bundle_class_allows_cat(kr_class cls, unsigned cat)
{
    if (cat == KR_CAT_CONTEXT)
        return 1;
    switch (cls) {
    case KR_CLASS_SMEM: return cat == KR_CAT_SMEM;
    case KR_CLASS_SALU: return cat == KR_CAT_SALU;
    case KR_CLASS_VMEM: return cat == KR_CAT_VMEM || cat == KR_CAT_FLAT;
    case KR_CLASS_FLAT: return cat == KR_CAT_FLAT;
    case KR_CLASS_LDS: return cat == KR_CAT_LDS;
    case KR_CLASS_VALU:
    case KR_CLASS_MATRIX: return cat == KR_CAT_VALU;
    case KR_CLASS_BRANCH: return cat == KR_CAT_JUMP || cat == KR_CAT_NEXT;
    case KR_CLASS_WAITCNT:
    case KR_CLASS_BARRIER:
    case KR_CLASS_NOP:
    case KR_CLASS_IMMED_OTHER: return cat == KR_CAT_IMMED;
    case KR_CLASS_MESSAGE: return cat == KR_CAT_MESSAGE;
    default: return 0;
    }
}
