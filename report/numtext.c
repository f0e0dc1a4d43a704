/* numtext.c — see numtext.h. */
#include "report/numtext.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { PRECISION = 10 };     /* significant digits of a real in analysis.json */

static const char digits2[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Decimal digits of m ending just before end; returns the first. */
char *rep_u64_digits(char *end, uint64_t m)
{
    char *p = end;
    while (m >= 100) {
        unsigned r = (unsigned)(m % 100);
        m /= 100;
        p -= 2;
        memcpy(p, digits2 + 2 * r, 2);
    }
    if (m >= 10) {
        p -= 2;
        memcpy(p, digits2 + 2 * m, 2);
    } else {
        *--p = (char)('0' + m);
    }
    return p;
}

/* Exact decimal rounding of a double without printf: unsigned integers of
 * 32-bit limbs, large enough for the exponents the fast path accepts. */
enum { LIMBS = 16, FAST_EXP = 30 };

typedef struct big {
    uint32_t d[LIMBS];
    int n;                   /* limbs in use; d[n-1] != 0 unless n == 0 */
} big;

static void big_set(big *b, uint64_t v)
{
    memset(b, 0, sizeof *b);
    while (v) {
        b->d[b->n++] = (uint32_t)v;
        v >>= 32;
    }
}

static void big_mul(big *b, uint32_t m)
{
    uint64_t carry = 0;
    for (int i = 0; i < b->n; i++) {
        uint64_t t = (uint64_t)b->d[i] * m + carry;
        b->d[i] = (uint32_t)t;
        carry = t >> 32;
    }
    if (carry)
        b->d[b->n++] = (uint32_t)carry;
}

static void big_mul_pow10(big *b, int k)
{
    static const uint32_t p10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
                                   1000000000};
    for (; k >= 9; k -= 9)
        big_mul(b, p10[9]);
    if (k)
        big_mul(b, p10[k]);
}

static void big_shl(big *b, int k)
{
    if (!b->n)
        return;
    int limbs = k / 32, bits = k % 32;
    if (bits) {
        uint32_t carry = 0;
        for (int i = 0; i < b->n; i++) {
            uint32_t x = b->d[i];
            b->d[i] = (x << bits) | carry;
            carry = x >> (32 - bits);
        }
        if (carry)
            b->d[b->n++] = carry;
    }
    if (limbs) {
        for (int i = b->n - 1; i >= 0; i--)
            b->d[i + limbs] = b->d[i];
        for (int i = 0; i < limbs; i++)
            b->d[i] = 0;
        b->n += limbs;
    }
}

/* b >>= k; 1 when a bit shifted out was set. */
static int big_shr(big *b, int k)
{
    int limbs = k / 32, bits = k % 32, lost = 0;
    for (int i = 0; i < limbs && i < b->n; i++)
        lost |= b->d[i] != 0;
    if (limbs >= b->n) {
        b->n = 0;
        return lost;
    }
    if (bits)
        lost |= (b->d[limbs] & ((1u << bits) - 1)) != 0;
    for (int i = 0; i + limbs < b->n; i++)
        b->d[i] = b->d[i + limbs];
    b->n -= limbs;
    if (bits) {
        for (int i = 0; i < b->n; i++)
            b->d[i] = (b->d[i] >> bits) | (i + 1 < b->n ? b->d[i + 1] << (32 - bits) : 0);
    }
    while (b->n && !b->d[b->n - 1])
        b->n--;
    return lost;
}

/* b /= m; 1 when the remainder is not 0. */
static int big_div(big *b, uint32_t m)
{
    uint64_t rem = 0;
    for (int i = b->n - 1; i >= 0; i--) {
        uint64_t t = (rem << 32) | b->d[i];
        b->d[i] = (uint32_t)(t / m);
        rem = t % m;
    }
    while (b->n && !b->d[b->n - 1])
        b->n--;
    return rem != 0;
}

/* b /= 10^k; 1 when the division was not exact. */
static int big_div_pow10(big *b, int k)
{
    static const uint32_t p10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
                                   1000000000};
    int lost = 0;
    for (; k >= 9; k -= 9)
        lost |= big_div(b, p10[9]);
    if (k)
        lost |= big_div(b, p10[k]);
    return lost;
}

static uint64_t big_u64(const big *b)
{
    return b->n == 0 ? 0 : b->n == 1 ? b->d[0] : ((uint64_t)b->d[1] << 32 | b->d[0]);
}

/* v > 0 (finite) times 10^s, rounded to an integer, to nearest with ties
 * to even (as glibc's printf under the default rounding mode), computed
 * exactly: from v = m 2^e2, floor(2 v 10^s) is the exact
 * 2 m 10^max(s,0) 2^max(e2,0) divided by 10^max(-s,0) 2^max(-e2,0), and
 * the dropped fraction is >= 1/2 when that is odd, exactly 1/2 when no
 * remainder was lost on the way. 0 when v or s is outside the range the
 * limbs hold or the result does not fit 63 bits. */
static int scaled_round(double v, int s, uint64_t *out, uint64_t *floor_out)
{
    if (s < -2 * FAST_EXP || s > 2 * FAST_EXP || !(v < 9.2e18))
        return 0;
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int be = (int)((bits >> 52) & 0x7FF);
    uint64_t m = bits & ((1ull << 52) - 1);
    int e2;
    if (be == 0) {
        e2 = -1074;                      /* subnormal */
    } else {
        m |= 1ull << 52;
        e2 = be - 1075;
    }
    big Q;
    big_set(&Q, m);
    if (s > 0)
        big_mul_pow10(&Q, s);
    big_shl(&Q, 1 + (e2 > 0 ? e2 : 0));
    int inexact = 0;
    if (e2 < 0)
        inexact |= big_shr(&Q, -e2);
    if (s < 0)
        inexact |= big_div_pow10(&Q, -s);
    if (Q.n > 2)
        return 0;
    uint64_t q2 = big_u64(&Q), q = q2 >> 1;
    if (q >= (1ull << 62))
        return 0;
    *floor_out = q;
    if ((q2 & 1) && (inexact || (q & 1)))
        q++;
    *out = q;
    return 1;
}

/* The 10 significant digits of v > 0 rounded as printf does: v ~ *digits *
 * 10^(*exp10 - 9) with 10^9 <= *digits < 10^10. 0 when v is outside the
 * fast range. */
static int round10(double v, uint64_t *digits, int *exp10)
{
    /* estimate of floor(log10(v)), corrected below */
    int k2;
    frexp(v, &k2);
    int E = (int)floor((double)(k2 - 1) * 0.30102999566398119521);
    for (int tries = 0; tries < 4; tries++) {
        if (E < -FAST_EXP || E > FAST_EXP)
            return 0;
        /* v * 10^s has 10 digits before the point when E is right */
        uint64_t q, below;
        if (!scaled_round(v, PRECISION - 1 - E, &q, &below))
            return 0;
        if (below >= 10000000000ull) {
            E++;
            continue;
        }
        if (below < 1000000000ull) {
            E--;
            continue;
        }
        if (q == 10000000000ull) {      /* 9.9999999995.. rounded up */
            q = 1000000000ull;
            E++;
        }
        *digits = q;
        *exp10 = E;
        return 1;
    }
    return 0;
}

size_t rep_fixed_text(char *buf, double v, int decimals)
{
    if (!isfinite(v) || decimals < 0 || decimals > 17)
        return 0;
    int neg = signbit(v) != 0;
    double a = neg ? -v : v;
    uint64_t q = 0, below;
    if (a != 0 && !scaled_round(a, decimals, &q, &below)) {
        int n = snprintf(buf, 32, "%.*f", decimals, v);
        return n > 0 && n < 32 ? (size_t)n : 0;
    }
    char dg[24], *end = dg + sizeof dg, *p = rep_u64_digits(end, q);
    while (end - p < decimals + 1)
        *--p = '0';
    char *o = buf;
    if (neg)
        *o++ = '-';
    size_t whole = (size_t)(end - p) - (size_t)decimals;
    memcpy(o, p, whole);
    o += whole;
    if (decimals) {
        *o++ = '.';
        memcpy(o, p + whole, (size_t)decimals);
        o += decimals;
    }
    *o = '\0';
    return (size_t)(o - buf);
}

static char locale_point(void)
{
    char probe[8];
    snprintf(probe, sizeof probe, "%#.0f", 1.0);       /* "1." in the current locale */
    return probe[1];
}

/* jsonp_dtostr through printf, for the values round10 leaves out. */
static size_t real_printf(char *out, double value)
{
    char point = locale_point();
    char buffer[100];
    int ret = snprintf(buffer, sizeof buffer, "%.*g", PRECISION, value);
    if (ret < 0 || (size_t)ret >= 30)
        return 0;
    size_t length = (size_t)ret;
    if (point != '.') {
        char *pos = strchr(buffer, point);
        if (pos)
            *pos = '.';
    }
    if (!strchr(buffer, '.') && !strchr(buffer, 'e')) {
        buffer[length] = '.';
        buffer[length + 1] = '0';
        buffer[length + 2] = '\0';
        length += 2;
    }
    /* no '+' and no leading zeros in the exponent */
    char *start = strchr(buffer, 'e');
    if (start) {
        start++;
        char *end = start + 1;
        if (*start == '-')
            start++;
        while (*end == '0')
            end++;
        if (end != start) {
            memmove(start, end, length - (size_t)(end - buffer));
            length -= (size_t)(end - start);
        }
    }
    memcpy(out, buffer, length);
    out[length] = '\0';
    return length;
}

/* The %g text of 10 rounded digits: style f for -4 <= exp10 < 10, else
 * style e; trailing zeros dropped; ".0" when nothing follows the digits. */
static size_t real_digits(char *out, int neg, uint64_t q, int E)
{
    char dg[10];
    rep_u64_digits(dg + 10, q);
    int nd = 10;
    while (nd > 1 && dg[nd - 1] == '0')
        nd--;
    char *p = out;
    if (neg)
        *p++ = '-';
    if (E < -4 || E >= PRECISION) {
        *p++ = dg[0];
        if (nd > 1) {
            *p++ = '.';
            memcpy(p, dg + 1, (size_t)nd - 1);
            p += nd - 1;
        }
        *p++ = 'e';
        unsigned x = E < 0 ? (unsigned)-E : (unsigned)E;
        if (E < 0)
            *p++ = '-';
        char xb[8], *xe = xb + sizeof xb, *xs = rep_u64_digits(xe, x);
        memcpy(p, xs, (size_t)(xe - xs));
        p += xe - xs;
    } else if (E >= 0) {
        int whole = E + 1;
        memcpy(p, dg, (size_t)whole);
        p += whole;
        *p++ = '.';
        if (nd > whole) {
            memcpy(p, dg + whole, (size_t)(nd - whole));
            p += nd - whole;
        } else {
            *p++ = '0';
        }
    } else {
        *p++ = '0';
        *p++ = '.';
        for (int z = -E - 1; z > 0; z--)
            *p++ = '0';
        memcpy(p, dg, (size_t)nd);
        p += nd;
    }
    *p = '\0';
    return (size_t)(p - out);
}

size_t rep_json_real_text(char *out, double v)
{
    if (!isfinite(v))
        return 0;
    int neg = signbit(v) != 0;
    double a = neg ? -v : v;
    if (a == 0) {
        memcpy(out, neg ? "-0.0" : "0.0", neg ? 5 : 4);
        return neg ? 4 : 3;
    }
    uint64_t q;
    int E;
    if (round10(a, &q, &E))
        return real_digits(out, neg, q, E);
    return real_printf(out, v);
}
