/* fuzz_code_diff.c — libFuzzer target: code.json through the streaming
 * parser (bundle_parse_code) and the jansson reference
 * (bundle_parse_code_jansson) must accept the same inputs with the same
 * model, and reject the same inputs with the same error (load_code.h). */
#include "bundle/load_code.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static const char *model_diff(const kr_capture *a, const kr_capture *b)
{
    if (a->layout != b->layout || !same_str(a->code_version, b->code_version) || a->nrows != b->nrows)
        return "layout, version or row count";
    for (size_t i = 0; i < a->nrows; i++) {
        const kr_code_row *x = &a->rows[i], *y = &b->rows[i];
        if (!same_str(x->isa, y->isa) || !same_str(x->mnemonic, y->mnemonic) || !same_str(x->source, y->source))
            return "row text";
        if (x->line != y->line || x->kernel != y->kernel || x->codeobj != y->codeobj || x->vaddr != y->vaddr ||
            x->hit != y->hit || x->latency != y->latency || x->stall != y->stall || x->idle != y->idle ||
            x->pc_issued != y->pc_issued || x->pc_stalled != y->pc_stalled || x->service_type != y->service_type ||
            x->cls != y->cls || x->is_label != y->is_label || x->zero_col != y->zero_col || x->nframes != y->nframes)
            return "row numbers";
        for (uint32_t f = 0; f < x->nframes; f++)
            if (!same_str(x->frames[f].path, y->frames[f].path) || x->frames[f].line != y->frames[f].line)
                return "row frames";
    }
    if (a->nline_map != b->nline_map)
        return "line map size";
    for (size_t l = 0; l < a->nline_map; l++)
        if (a->line_to_row[l] != b->line_to_row[l])
            return "line map";
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = fz_copy(data, size);
    kr_capture *a = fz_capture_new(), *b = fz_capture_new();
    kr_err ea, eb;
    kr_err_clear(&ea);
    kr_err_clear(&eb);
    int ra = bundle_parse_code(a, buf, size, "code.json", &ea);
    int rb = bundle_parse_code_jansson(b, buf, size, "code.json", &eb);
    fz_check(ra, &ea);
    fz_check(rb, &eb);
    const char *why = NULL;
    if (ra != rb)
        why = "one parser accepts, the other rejects";
    else if (ra == 0)
        why = model_diff(a, b);
    else if (strcmp(ea.where, eb.where) != 0 || strcmp(ea.msg, eb.msg) != 0)
        why = "different errors";
    if (why) {
        fprintf(stderr, "fuzz: code.json parsers differ: %s\n  streaming %d: %s: %s\n  jansson   %d: %s: %s\n", why,
                ra, ea.where, ea.msg, rb, eb.where, eb.msg);
        abort();
    }
    fz_capture_free(a);
    fz_capture_free(b);
    free(buf);
    return 0;
}
