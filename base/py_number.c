/* py_number: Python float()/int() string grammar on UTF-8 text. */
#include "base/py_number.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/text_utf8.h"

#define I128_MAX ((i128)(((unsigned __int128)1 << 127) - 1))
#define I128_MIN (-I128_MAX - 1)
#define NUM_MAX 512 /* longer numeric text is not taken as a number (see HEURISTICS.md) */

static bool isdig(char c) { return c >= '0' && c <= '9'; }

/* Strips whitespace and removes '_' that sit between two digits; false when an '_'
 * is anywhere else (Python rejects those) or the text is too long. */
static bool clean(const char *s, size_t n, char *out, size_t *outn) {
    utf8_strip(&s, &n);
    if (n == 0 || n >= NUM_MAX) return false;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '_') {
            if (i == 0 || !isdig(s[i - 1]) || i + 1 >= n || !isdig(s[i + 1])) return false;
            continue;
        }
        if ((unsigned char)c >= 0x80 || c == '\0') return false;
        out[k++] = c;
    }
    out[k] = '\0';
    *outn = k;
    return true;
}

bool py_float(const char *s, size_t n, double *out) {
    char b[NUM_MAX];
    size_t k;
    if (!clean(s, n, b, &k)) return false;
    const char *p = b;
    bool neg = false;
    if (*p == '+' || *p == '-') { neg = *p == '-'; p++; }
    if (!strcasecmp(p, "inf") || !strcasecmp(p, "infinity")) { *out = neg ? -INFINITY : INFINITY; return true; }
    if (!strcasecmp(p, "nan")) { *out = NAN; return true; }
    const char *q = p;
    size_t digits = 0;
    while (isdig(*q)) { q++; digits++; }
    if (*q == '.') { q++; while (isdig(*q)) { q++; digits++; } }
    if (digits == 0) return false;
    if (*q == 'e' || *q == 'E') {
        q++;
        if (*q == '+' || *q == '-') q++;
        if (!isdig(*q)) return false;
        while (isdig(*q)) q++;
    }
    if (*q != '\0') return false;
    *out = strtod(b, NULL);
    return true;
}

bool py_number(const char *s, size_t n, double *out) {
    double v;
    if (!py_float(s, n, &v) || !isfinite(v)) return false;
    *out = v;
    return true;
}

i128 py_trunc(double x) {
    if (x >= 1.7e38) return I128_MAX;
    if (x <= -1.7e38) return I128_MIN;
    return (i128)x;
}

/* Whether s[0..8) are eight decimal digits; their value in *out. Eight at once (SWAR, as in
 * Lemire's fast_float; parsers/formats/torch_values.h's torch_digits): a trace's ns timestamps are
 * 16 digits, read once per row per column, where a byte at a time cost ~14 instructions a
 * digit. */
static inline bool eight_digits(const char *s, uint64_t *out) {
    uint64_t w;
    memcpy(&w, s, 8);
    if (((w & 0xF0F0F0F0F0F0F0F0u) | (((w + 0x0606060606060606u) & 0xF0F0F0F0F0F0F0F0u) >> 4)) != 0x3333333333333333u)
        return false;
    w -= 0x3030303030303030u;
    w = w * 10 + (w >> 8);
    w = ((w & 0x000000FF000000FFu) * (100 + (1000000ull << 32)) +
         ((w >> 16) & 0x000000FF000000FFu) * (1 + (10000ull << 32))) >> 32;
    *out = (uint32_t)w;
    return true;
}

bool py_integer(const char *s, size_t n, i128 *out) {
    if (n > 0 && n <= 18) {                 /* the usual cell, plain digits: no copy, no overflow */
        uint64_t v = 0, w;
        size_t i = 0;
        while (n - i >= 8 && eight_digits(s + i, &w)) v = v * 100000000u + w, i += 8;
        while (i < n && isdig(s[i])) v = v * 10 + (uint64_t)(s[i++] - '0');
        if (i == n) { *out = (i128)v; return true; }
    }
    char b[NUM_MAX];
    size_t k;
    if (clean(s, n, b, &k)) {
        const char *p = b;
        bool neg = false;
        if (*p == '+' || *p == '-') { neg = *p == '-'; p++; }
        if (*p) {
            i128 v = 0;
            bool sat = false;
            const char *q = p;
            for (; isdig(*q); q++) {
                if (v > (I128_MAX - 9) / 10) sat = true;
                else v = v * 10 + (*q - '0');
            }
            if (*q == '\0') {
                *out = sat ? (neg ? I128_MIN : I128_MAX) : (neg ? -v : v);
                return true;
            }
        }
    }
    double d;
    if (!py_number(s, n, &d)) return false;
    *out = py_trunc(d);
    return true;
}
