/* fmt.c — see fmt.h. */
#include "common/fmt.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

char *kr_fmt_u64(char *buf, size_t cap, uint64_t v) { snprintf(buf, cap, "%" PRIu64, v); return buf; }
char *kr_fmt_i64(char *buf, size_t cap, int64_t v) { snprintf(buf, cap, "%" PRId64, v); return buf; }

char *kr_fmt_human(char *buf, size_t cap, uint64_t v)
{
    static const char *unit[] = {"K", "M", "G", "T", "P"};
    if (v < 10000) {
        snprintf(buf, cap, "%" PRIu64, v);
        return buf;
    }
    double x = (double)v;
    int u = -1;
    while (x >= 1000.0 && u < 4) {
        x /= 1000.0;
        u++;
    }
    if (x >= 999.5 && u < 4) {   /* rounding would print "1000 K" */
        x /= 1000.0;
        u++;
    }
    if (x >= 99.95)
        snprintf(buf, cap, "%.0f %s", x, unit[u]);
    else if (x >= 9.995)
        snprintf(buf, cap, "%.1f %s", x, unit[u]);
    else
        snprintf(buf, cap, "%.2f %s", x, unit[u]);
    return buf;
}

char *kr_fmt_pct(char *buf, size_t cap, double num, double den, int decimals)
{
    if (den == 0 || !isfinite(num) || !isfinite(den)) {
        snprintf(buf, cap, "n/a");
        return buf;
    }
    snprintf(buf, cap, "%.*f %%", decimals, 100.0 * num / den);
    return buf;
}

char *kr_fmt_fixed(char *buf, size_t cap, double v, int decimals)
{
    if (!isfinite(v))
        snprintf(buf, cap, "n/a");
    else
        snprintf(buf, cap, "%.*f", decimals, v);
    return buf;
}
