/* json_writer: JSON text writer. */
#include "base/json_writer.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void jw_fail(jw_out *j) { j->buf->failed = true; }

void jw_begin(jw_out *j, strbuf *buf, int indent) {
    memset(j, 0, sizeof *j);
    j->buf = buf;
    j->indent = indent;
}

static void newline(jw_out *j) {
    if (!j->indent) return;
    strbuf_putc(j->buf, '\n');
    for (int i = 0; i < j->depth * j->indent; i++) strbuf_putc(j->buf, ' ');
}

/* Separator and indentation before a value or key. */
static void before(jw_out *j) {
    if (j->after_key) { j->after_key = false; return; }
    if (j->depth > 0) {
        if (j->need_comma[j->depth]) strbuf_putc(j->buf, ',');
        j->need_comma[j->depth] = true;
        newline(j);
    }
}

static void open_c(jw_out *j, char c) {
    before(j);
    strbuf_putc(j->buf, c);
    if (j->depth < 63) j->depth++;
    j->need_comma[j->depth] = false;
}

static void close_c(jw_out *j, char c) {
    assert(j->depth > 0);   /* every close has its open */
    bool had = j->need_comma[j->depth];
    if (j->depth > 0) j->depth--;
    if (had) newline(j);
    strbuf_putc(j->buf, c);
}

void jw_object_open(jw_out *j) { open_c(j, '{'); }
void jw_object_close(jw_out *j) { close_c(j, '}'); }
void jw_array_open(jw_out *j) { open_c(j, '['); }
void jw_array_close(jw_out *j) { close_c(j, ']'); }

static void write_string(jw_out *j, const char *s, size_t n) {
    size_t plain = 0;                           /* fast path: printable ASCII needs no work */
    while (plain < n && (unsigned char)s[plain] >= 0x20 && (unsigned char)s[plain] < 0x7F && s[plain] != '"' &&
           s[plain] != '\\')
        plain++;
    if (plain == n) {
        strbuf_putc(j->buf, '"');
        strbuf_append(j->buf, s, n);
        strbuf_putc(j->buf, '"');
        return;
    }
    strbuf clean = {0};
    if (!utf8_sanitize((const uint8_t *)s, n, &clean)) jw_fail(j);   /* (the string would be cut) */
    strbuf_putc(j->buf, '"');
    for (size_t i = 0; i < clean.len; i++) {
        unsigned char c = (unsigned char)clean.data[i];
        char esc[8];
        switch (c) {
        case '"': strbuf_append(j->buf, "\\\"", 2); break;
        case '\\': strbuf_append(j->buf, "\\\\", 2); break;
        case '\n': strbuf_append(j->buf, "\\n", 2); break;
        case '\r': strbuf_append(j->buf, "\\r", 2); break;
        case '\t': strbuf_append(j->buf, "\\t", 2); break;
        default:
            if (c < 0x20 || c == 0x7F) {
                snprintf(esc, sizeof esc, "\\u%04x", c);
                strbuf_append(j->buf, esc, 6);
            } else {
                strbuf_putc(j->buf, (char)c);
            }
        }
    }
    strbuf_putc(j->buf, '"');
    strbuf_free(&clean);
}

void jw_key(jw_out *j, const char *key) {
    before(j);
    write_string(j, key, strlen(key));
    strbuf_append(j->buf, j->indent ? ": " : ":", j->indent ? 2 : 1);
    j->after_key = true;
}

void jw_string(jw_out *j, const char *s) { jw_string_n(j, s, strlen(s)); }

void jw_string_n(jw_out *j, const char *s, size_t n) {
    before(j);
    write_string(j, s, n);
}

/* Python's repr(float): the shortest digits that read back to v (a double is recovered from
 * any 15 significant digits, so the 15-digit rounding with its trailing zeros dropped is the
 * shortest whenever it round-trips; else 16, else 17), laid out as repr does — positional for
 * decimal exponents -4..15 with at least one digit after the point, else d.ddde±XX. */
void jw_format_double(double v, char out[32]) {
    if (!isfinite(v)) v = 0.0;
    if (v == 0.0) { strcpy(out, signbit(v) ? "-0.0" : "0.0"); return; }
    char e[40];
    /* subnormals carry fewer digits: search from one */
    for (int prec = fabs(v) < DBL_MIN ? 1 : 15; prec <= 17; prec++) {
        snprintf(e, sizeof e, "%.*e", prec - 1, v);
        if (strtod(e, NULL) == v) break;
    }
    const char *p = e;
    char *o = out;
    if (*p == '-') *o++ = *p++;
    char digits[24];
    int n = 0;
    for (; *p && *p != 'e'; p++)
        if (*p != '.') digits[n++] = *p;
    int x = atoi(p + 1);                               /* decimal exponent of the first digit */
    while (n > 1 && digits[n - 1] == '0') n--;
    if (x >= -4 && x < 16) {
        if (x < 0) {
            *o++ = '0'; *o++ = '.';
            for (int i = -1; i > x; i--) *o++ = '0';
            for (int i = 0; i < n; i++) *o++ = digits[i];
        } else {
            for (int i = 0; i <= x; i++) *o++ = i < n ? digits[i] : '0';
            *o++ = '.';
            if (n > x + 1) for (int i = x + 1; i < n; i++) *o++ = digits[i];
            else *o++ = '0';
        }
        *o = '\0';
    } else {
        *o++ = digits[0];
        if (n > 1) {
            *o++ = '.';
            for (int i = 1; i < n; i++) *o++ = digits[i];
        }
        int ax = x < 0 ? -x : x;                       /* |x| <= 324 */
        *o++ = 'e';
        *o++ = x < 0 ? '-' : '+';
        if (ax >= 100) *o++ = (char)('0' + ax / 100);
        *o++ = (char)('0' + ax / 10 % 10);
        *o++ = (char)('0' + ax % 10);
        *o = '\0';
    }
}

void jw_number(jw_out *j, double v) {
    char b[32];
    before(j);
    if (!isfinite(v)) {                /* no JSON number: unknown, never a 0 that looks measured */
        strbuf_append(j->buf, "null", 4);
        return;
    }
    jw_format_double(v, b);
    strbuf_append(j->buf, b, strlen(b));
}

void jw_int(jw_out *j, int64_t v) {
    char b[24];
    before(j);
    int n = snprintf(b, sizeof b, "%lld", (long long)v);
    strbuf_append(j->buf, b, (size_t)n);
}

void jw_bool(jw_out *j, bool v) {
    before(j);
    strbuf_append(j->buf, v ? "true" : "false", v ? 4 : 5);
}

void jw_null(jw_out *j) {
    before(j);
    strbuf_append(j->buf, "null", 4);
}

void jw_json(jw_out *j, const char *json, size_t len) {
    before(j);
    strbuf_append(j->buf, json, len);
}

void jw_i128_value(jw_out *w, i128 v) {
    if (v >= (i128)INT64_MIN && v <= (i128)INT64_MAX) jw_int(w, (int64_t)v);
    else jw_number(w, (double)v);
}

void jw_u64(jw_out *w, uint64_t v) {
    if (v <= (uint64_t)INT64_MAX) jw_int(w, (int64_t)v);
    else jw_number(w, (double)v);
}

void jw_whole(jw_out *w, double v) {
    if (v >= -9223372036854775808.0 && v < 9223372036854775808.0 && v == (double)(int64_t)v) jw_int(w, (int64_t)v);
    else jw_number(w, v);
}
