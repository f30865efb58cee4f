/* torch_values: the small value readers of the torch profile's records state
 * (parsers/torch_trace_records.c): microseconds text to fixed-point nanoseconds, integer ids,
 * JSON string quoting for the operator shapes text. Pure functions, no state. */
#ifndef GOBLIN_TORCH_VALUES_H
#define GOBLIN_TORCH_VALUES_H

#include <stdbool.h>
#include <stdint.h>

#include "base/i128.h"
#include "base/strbuf.h"
#include "parsers/json_tokenizer.h"

/* An integer (ids, devices, streams): decimal digits, else strtoll's reading ("0x0"); false
 * when the token is not one. */
bool torch_token_i64(const jt_token *t, int64_t *out);

/* torch_token_i64 with its common cases inline (every event carries several ids): plain
 * decimal digits are read here, text strtoll cannot start reading ("stream 7", a kernel's
 * tid) is refused here, the rest goes to torch_token_i64. Same answers. */
static inline bool torch_i64(const jt_token *t, int64_t *out) {
    if ((t->kind != JT_NUMBER && t->kind != JT_STRING) || t->truncated || t->len == 0 || t->len > 20) return false;
    const char *p = t->text;
    size_t n = t->len, i = p[0] == '-';
    if (n <= 18 && n > i) {
        int64_t v = 0;
        for (; i < n && p[i] >= '0' && p[i] <= '9'; i++) v = v * 10 + (p[i] - '0');
        if (i == n) { *out = p[0] == '-' ? -v : v; return true; }
    }
    unsigned char c = (unsigned char)p[0];   /* strtoll skips blanks, then a sign, then digits */
    if (!(c >= '0' && c <= '9') && c != '-' && c != '+' && c != ' ' && !(c >= '\t' && c <= '\r') && c)
        return false;                        /* (a NUL: strtoll reads "", which torch_token_i64 takes as 0) */
    return torch_token_i64(t, out);
}

/* torch_us_text_ns's fast path, inline: [digits][.digits] with 1..15 integer digits and at
 * most 3 fraction digits (every Kineto timestamp), exact in int64. false: not that shape
 * (the caller then asks torch_us_text_ns, which answers every shape). */
static inline bool torch_us_short_ns(const char *s, size_t n, int64_t *out) {
    if (!n || n > 19) return false;
    int64_t v = 0;
    size_t k = 0;
    while (k < n && k < 16 && s[k] >= '0' && s[k] <= '9') v = v * 10 + (s[k++] - '0');   /* no overflow */
    if (!k || k > 15) return false;
    int frac = 0;
    if (k < n && s[k] == '.') {
        k++;
        while (k < n && frac < 3 && s[k] >= '0' && s[k] <= '9') { v = v * 10 + (s[k++] - '0'); frac++; }
    }
    if (k != n || (!frac && s[n - 1] == '.')) return false;
    static const int64_t SCALE[4] = {1000, 100, 10, 1};
    *out = v * SCALE[frac];
    return true;
}
/* Appends s (valid UTF-8) as a JSON string: quotes, backslashes and control bytes escaped. */
void torch_json_string(strbuf *b, const char *s, size_t n);

#endif
