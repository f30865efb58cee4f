/* torch_values: value readers of the torch profile's records state (see torch_values.h). */
#include "parsers/formats/torch_values.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/formats/torch_trace_records.h"

/* Decimal microseconds text (a JSON number, or the same in a string) -> integer ns, rounded
 * half away from zero past the ns digit. false when it is not a number or out of range. */
bool torch_us_text_ns(const char *s, size_t n, i128 *out) {
    int64_t fast;
    if (torch_us_short_ns(s, n, &fast)) { *out = fast; return true; }
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
    i128 mant = 0;
    int digits = 0, frac = 0, dropped = 0;
    bool any = false, in_frac = false;
    for (; i < n; i++) {
        char c = s[i];
        if (c == '.' && !in_frac) { in_frac = true; continue; }
        if (c < '0' || c > '9') break;
        any = true;
        if (digits < 30) {
            if (digits || c != '0') digits++;
            mant = mant * 10 + (c - '0');
            if (in_frac) frac++;
        } else if (!in_frac) {
            dropped++;                     /* an integer digit past the precision: scale */
        }                                  /* (fraction digits past it are below any ns) */
    }
    if (!any) return false;
    long e = 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < n && (s[i] == '-' || s[i] == '+')) eneg = s[i++] == '-';
        if (i >= n) return false;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            if (e < 100000) e = e * 10 + (s[i] - '0');
        if (eneg) e = -e;
    }
    if (i != n) return false;
    if (mant == 0) { *out = 0; return true; }  /* 0e999999 is 0: no scaling loop for it */
    long scale = e + dropped - frac + 3;     /* mant * 10^scale ns (a non-zero mant passes 1e30
                                              * within ~31 steps: the loop below is short) */
    if (scale > 0) {
        for (long k = 0; k < scale; k++) {
            if (mant > (i128)1e30) return false;
            mant *= 10;
        }
    } else if (scale < 0) {
        i128 rem = 0, div = 1;
        for (long k = 0; k < -scale && k < 40; k++) div *= 10;
        if (-scale >= 40) { mant = 0; }
        else { rem = mant % div; mant /= div; if (rem * 2 >= div) mant++; }
    }
    *out = neg ? -mant : mant;
    return true;
}

/* An integer id or index: decimal digits (fast path), else strtoll's reading in base 10, or
 * 16 after "0x" ("0x0" streams). Unknown (false), never a wrong number, for text holding a NUL
 * ("\u0000"), out of int64's range, or with anything after the number; leading zeros are
 * decimal ("010" is 10, never octal 8). */
bool torch_token_i64(const jt_token *t, int64_t *out) {
    if (t->kind != JT_NUMBER && t->kind != JT_STRING) return false;
    if (t->truncated || t->len == 0 || t->len > 20) return false;
    if (t->len <= 18) {
        int64_t v = 0;
        size_t i = t->text[0] == '-' ? 1 : 0;
        for (; i < t->len && t->text[i] >= '0' && t->text[i] <= '9'; i++) v = v * 10 + (t->text[i] - '0');
        if (i == t->len && t->len > (t->text[0] == '-' ? 1u : 0u)) { *out = t->text[0] == '-' ? -v : v; return true; }
    }
    if (memchr(t->text, 0, t->len)) return false;
    char buf[24];
    memcpy(buf, t->text, t->len);
    buf[t->len] = 0;
    const char *p = buf;
    while (*p == ' ' || (*p >= '\t' && *p <= '\r')) p++;     /* strtoll's leading blanks */
    if (*p == '-' || *p == '+') p++;
    int base = p[0] == '0' && (p[1] == 'x' || p[1] == 'X') ? 16 : 10;
    char *end;
    errno = 0;
    long long v = strtoll(buf, &end, base);
    if (*end || end == buf || errno == ERANGE) return false;
    *out = v;
    return true;
}

/* The args text: a compact JSON object of the captured keys, numbers as the file writes them.
 * Runs of bytes that need no escape are appended whole (one append per run, not per byte). */
void torch_json_string(strbuf *b, const char *s, size_t n) {
    if (b->len + n + 2 < b->cap) {          /* room, and (the usual text) nothing to escape: */
        size_t i = 0;                        /* one copy, no call per piece */
        while (i < n && (unsigned char)s[i] >= 0x20 && s[i] != '"' && s[i] != '\\') i++;
        if (i == n) {
            char *d = b->data + b->len;
            d[0] = '"';
            memcpy(d + 1, s, n);
            d[n + 1] = '"';
            b->len += n + 2;
            return;
        }
    }
    strbuf_putc(b, '"');
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c != '"' && c != '\\' && c >= 0x20) continue;
        strbuf_append(b, s + run, i - run);
        run = i + 1;
        if (c == '"' || c == '\\') { char e[2] = {'\\', (char)c}; strbuf_append(b, e, 2); }
        else { char e[8]; static const char H[] = "0123456789abcdef";
            e[0] = '\\'; e[1] = 'u'; e[2] = '0'; e[3] = '0'; e[4] = H[c >> 4]; e[5] = H[c & 15];
            strbuf_append(b, e, 6); }
    }
    strbuf_append(b, s + run, n - run);
    strbuf_putc(b, '"');
}
