/* torch_values: the small value readers of the torch profile's records state
 * (parsers/formats/torch_trace_records.c): microseconds text to fixed-point nanoseconds, integer ids,
 * JSON string quoting for the operator shapes text. Pure functions, no state. */
#ifndef GOBLIN_TORCH_VALUES_H
#define GOBLIN_TORCH_VALUES_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/i128.h"
#include "base/strbuf.h"
#include "parsers/tokenizers/json_tokenizer.h"

/* An integer (ids, devices, streams): decimal digits, else strtoll's reading in base 10 (16
 * after "0x": "0x0"); false when the token is not one (a NUL in it, out of int64's range). */
bool torch_token_i64(const jt_token *t, int64_t *out);

/* The leading decimal digits of s[0..n), at most max of them: their count, and *v (which
 * they extend) times ten per digit plus each. Eight at a time while eight bytes of s remain
 * (SWAR, as in Lemire's fast_float): timestamps run to 8 and more integer digits. */
static inline __attribute__((always_inline)) size_t torch_digits(const char *s, size_t n, size_t max, uint64_t *v) {
    size_t k = 0, lim = n < max ? n : max;
    uint64_t x = *v;
    while (lim - k >= 8) {
        uint64_t w;
        memcpy(&w, s + k, 8);
        if (((w & 0xF0F0F0F0F0F0F0F0u) | (((w + 0x0606060606060606u) & 0xF0F0F0F0F0F0F0F0u) >> 4)) != 0x3333333333333333u)
            break;                                       /* not eight digits */
        w -= 0x3030303030303030u;
        w = w * 10 + (w >> 8);
        w = ((w & 0x000000FF000000FFu) * (100 + (1000000ull << 32)) +
             ((w >> 16) & 0x000000FF000000FFu) * (1 + (10000ull << 32))) >> 32;
        x = x * 100000000u + (uint32_t)w;
        k += 8;
    }
    for (; k < lim; k++) {
        unsigned d = (unsigned)(unsigned char)s[k] - '0';
        if (d > 9) break;
        x = x * 10 + d;
    }
    *v = x;
    return k;
}

/* torch_token_i64 with its common cases inline (every event carries several ids): plain
 * decimal digits are read here, text strtoll cannot start reading ("stream 7", a kernel's
 * tid) is refused here, the rest goes to torch_token_i64. Same answers. */
static inline bool torch_i64(const jt_token *t, int64_t *out) {
    if ((t->kind != JT_NUMBER && t->kind != JT_STRING) || t->truncated || t->len == 0 || t->len > 20) return false;
    const char *p = t->text;
    size_t n = t->len, i = p[0] == '-';
    if (n <= 18 && n > i) {
        uint64_t v = 0;                      /* (at most 18 digits: no overflow; ids are short: */
        for (; i < n; i++) {                 /*  a byte at a time, no SWAR set-up) */
            unsigned d = (unsigned)(unsigned char)p[i] - '0';
            if (d > 9) break;
            v = v * 10 + d;
        }
        if (i == n) { *out = p[0] == '-' ? -(int64_t)v : (int64_t)v; return true; }
    }
    unsigned char c = (unsigned char)p[0];   /* strtoll skips blanks, then a sign, then digits */
    if (!(c >= '0' && c <= '9') && c != '-' && c != '+' && c != ' ' && !(c >= '\t' && c <= '\r') && c)
        return false;                        /* (a NUL: torch_token_i64 refuses it) */
    return torch_token_i64(t, out);
}

/* torch_us_text_ns's fast path, inline: [digits][.digits] with 1..15 integer digits and at
 * most 3 fraction digits (every Kineto timestamp), exact in int64. false: not that shape
 * (the caller then asks torch_us_text_ns, which answers every shape). */
static inline __attribute__((always_inline)) bool torch_us_short_ns(const char *s, size_t n, int64_t *out) {
    if (!n || n > 19) return false;
    uint64_t v = 0;
    if (n >= 5 && s[n - 4] == '.') {         /* Kineto's "%.3f" (most ts and dur): the three */
        unsigned a = (unsigned)(unsigned char)s[n - 3] - '0', b = (unsigned)(unsigned char)s[n - 2] - '0',
                 c = (unsigned)(unsigned char)s[n - 1] - '0';          /* fraction digits at once, */
        if (a <= 9 && b <= 9 && c <= 9 && torch_digits(s, n - 4, 16, &v) == n - 4 && n - 4 <= 15) {
            *out = (int64_t)(v * 1000 + a * 100 + b * 10 + c);          /* the integer digits without */
            return true;                                                /* a SWAR try across the '.' */
        }
        v = 0;
    }
    size_t k = torch_digits(s, n, 16, &v);   /* (16 digits fit; a 16th refuses the fast path) */
    if (!k || k > 15) return false;
    int frac = 0;
    if (k < n && s[k] == '.') {
        k++;
        while (k < n && frac < 3 && s[k] >= '0' && s[k] <= '9') { v = v * 10 + (unsigned)(s[k++] - '0'); frac++; }
    }
    if (k != n || (!frac && s[n - 1] == '.')) return false;
    static const int64_t SCALE[4] = {1000, 100, 10, 1};
    *out = (int64_t)v * SCALE[frac];
    return true;
}

/* Appends s (valid UTF-8) as a JSON string: quotes, backslashes and control bytes escaped. */
void torch_json_string(strbuf *b, const char *s, size_t n);

#endif
