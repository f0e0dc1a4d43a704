/* fmt.h — the one place numbers become text.
 *
 * Exact integers for tables and JSON; human forms ("1.68 M", "36.7 %") for
 * prose. A share whose denominator is 0 prints "n/a" instead of a guess. */
#ifndef KR_COMMON_FMT_H
#define KR_COMMON_FMT_H

#include <stddef.h>
#include <stdint.h>

/* Exact decimal, e.g. "1482216". */
char *kr_fmt_u64(char *buf, size_t cap, uint64_t v);
char *kr_fmt_i64(char *buf, size_t cap, int64_t v);
/* Human: < 10 000 exact; then "12.3 K", "1.48 M", "2.10 G" (3 significant digits). */
char *kr_fmt_human(char *buf, size_t cap, uint64_t v);
/* Percentage of num/den with `decimals` digits and " %"; "n/a" when den == 0. */
char *kr_fmt_pct(char *buf, size_t cap, double num, double den, int decimals);
/* Fixed decimals, e.g. kr_fmt_fixed(b, n, 2213.2512, 2) = "2213.25". */
char *kr_fmt_fixed(char *buf, size_t cap, double v, int decimals);

#endif
