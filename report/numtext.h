/* numtext.h — numbers as text without printf, for the report writers.
 *
 * printf costs a few thousand instructions per number; analysis.json and
 * REPORT.md write thousands of numbers. These give printf's exact text:
 * decimal digits of integers, jansson's "%.10g" form of a real, and
 * "%.*f". Reals are rounded exactly as glibc's printf does (to nearest,
 * ties to even, on the exact binary value), using integer arithmetic on
 * 32-bit limbs; values outside the range those hold (exponents beyond
 * ±30, 63-bit results) go through printf itself. kreport never sets a
 * locale, so the decimal point is '.'.
 * tests/unit/test_rep_json_dump.c compares them with jansson and printf
 * over hand-checked values, ties and millions of generated ones. */
#ifndef KR_REPORT_NUMTEXT_H
#define KR_REPORT_NUMTEXT_H

#include <stddef.h>
#include <stdint.h>

/* The decimal digits of v written backwards ending just before end (at
 * most 20 bytes); returns the first. */
char *rep_u64_digits(char *end, uint64_t v);
/* The text of a real in analysis.json: jansson's "%.10g" with ".0"
 * appended to integral values and the exponent shortened ("1e20",
 * "-2.5e-7"), NUL-terminated; returns its length, 0 when v is not finite.
 * buf needs 32 bytes. */
size_t rep_json_real_text(char *buf, double v);
/* printf's "%.*f" of v with 0..17 decimals, NUL-terminated; returns the
 * length, 0 when v is not finite or the text needs more than 31 bytes.
 * buf needs 32 bytes. */
size_t rep_fixed_text(char *buf, double v, int decimals);

#endif
