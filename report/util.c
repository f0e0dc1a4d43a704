/* util.c — see util.h. */
#include "report/util.h"

#include <stdlib.h>
#include <string.h>

#include "common/fmt.h"
#include "report/numtext.h"
#include "report/templates.h"

const char *rep_u64(rep_doc *d, uint64_t v)
{
    /* the digits of kr_fmt_u64, without a printf per number */
    char b[24], *end = b + sizeof b, *p = rep_u64_digits(end, v);
    return rep_strn(d, p, (size_t)(end - p));
}

const char *rep_pct(rep_doc *d, uint64_t part, uint64_t whole)
{
    /* kr_fmt_pct's "%.1f %%" of 100 part / whole, "n/a" for whole 0 */
    char b[48];
    if (whole == 0)
        return "n/a";
    size_t n = rep_fixed_text(b, 100.0 * (double)part / (double)whole, 1);
    if (n) {
        memcpy(b + n, " %", 2);
        n += 2;
    } else {
        n = strlen(kr_fmt_pct(b, sizeof b, (double)part, (double)whole, 1));
    }
    return rep_strn(d, b, n);
}

const char *rep_fixed(rep_doc *d, double v, int decimals)
{
    char b[48];
    size_t n = rep_fixed_text(b, v, decimals);
    if (!n)
        n = strlen(kr_fmt_fixed(b, sizeof b, v, decimals));
    return rep_strn(d, b, n);
}

const char *rep_label(rep_doc *d, const char *const *labels, size_t i)
{
    return labels && labels[i] ? rep_md_escape(d, labels[i]) : rep_fmt(d, "capture %zu", i + 1);
}

void rep_prose(rep_doc *d, const char *name)
{
    const char *t = rep_template(name, NULL);
    if (t)
        rep_raw(d, t);
}

json_t *rep_jint(uint64_t v) { return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v); }

json_t *rep_jstr(const char *s)
{
    json_t *j = json_string(s ? s : "");
    if (j)
        return j;
    size_t n = strlen(s);
    char *c = malloc(n + 1);
    if (!c)
        return json_null();
    for (size_t i = 0; i <= n; i++)
        c[i] = (unsigned char)s[i] >= 0x80 ? '?' : s[i];
    j = json_string(c);
    free(c);
    return j ? j : json_null();
}

json_t *rep_jshare(uint64_t part, uint64_t whole)
{
    return whole ? json_real((double)part / (double)whole) : json_null();
}
