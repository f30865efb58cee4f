/* md_text: small helpers for the report.md parts analyses render (see md_text.h). */
#include "analyses/md_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void md_printf(strbuf *out, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof buf) { strbuf_append(out, buf, (size_t)n); return; }
    char big[4096];
    va_start(ap, fmt);
    n = vsnprintf(big, sizeof big, fmt, ap);
    va_end(ap);
    if (n > 0) strbuf_append(out, big, (size_t)n < sizeof big ? (size_t)n : sizeof big - 1);
}

void md_cell(strbuf *out, const char *s, size_t n) {
    if (!s) { strbuf_append(out, "—", strlen("—")); return; }
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '|' || c == '\\' || c == '`' || c == '*') { strbuf_putc(out, '\\'); strbuf_putc(out, c); }
        else if (c == '\n' || c == '\r' || c == '\t') strbuf_putc(out, ' ');
        else strbuf_putc(out, c);
    }
}

void md_num(strbuf *out, double v, int has) {
    if (!has) { strbuf_append(out, "—", strlen("—")); return; }
    md_printf(out, "%.3f", v);
}
