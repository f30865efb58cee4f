/* section_md: report.md text helpers (section_md.h). */
#include "analyses/section_md.h"
#include "base/text_utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void smd_printf(strbuf *out, const char *fmt, ...) {
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n <= 0) return;
    if ((size_t)n < sizeof line) { strbuf_append(out, line, (size_t)n); return; }
    char *big = malloc((size_t)n + 1);          /* a long line: format it again, whole */
    if (!big) return;
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    strbuf_append(out, big, (size_t)n);
    free(big);
}

void smd_cell(strbuf *out, const char *s, size_t n, size_t max) {
    if (!s) { strbuf_append(out, "—", 3); return; }
    bool cut = n > max;
    if (cut) n = utf8_cut(s, n, max);                          /* not inside a UTF-8 sequence */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        size_t control = text_control_at(s + i, n - i);
        if (control) strbuf_putc(out, ' '), i += control - 1;   /* line breaks, tabs, escapes, C1, bidi */
        else if (c >= 0x80) {                                     /* a file name need not be UTF-8 */
            size_t len = utf8_char_len(s + i, n - i);
            if (len) strbuf_append(out, s + i, len), i += len - 1;
            else strbuf_append(out, "\xef\xbf\xbd", 3);           /* U+FFFD, as the JSON shows the byte */
        }
        else if (c == '<') strbuf_append(out, "&lt;", 4);
        else if (c == '>') strbuf_append(out, "&gt;", 4);
        else if (c == '&') strbuf_append(out, "&amp;", 5);
        else if (strchr("|\\`*_[]()!~", c) || (i == 0 && strchr("#-+=", c))) {
            strbuf_putc(out, '\\');
            strbuf_putc(out, (char)c);
        } else strbuf_putc(out, (char)c);
    }
    if (cut) strbuf_append(out, "…", 3);
}

void smd_text(strbuf *out, const char *s) { smd_cell(out, s, s ? strlen(s) : 0, SMD_NO_LIMIT); }

void smd_num(strbuf *out, double v, int decimals, bool has) {
    if (has) smd_printf(out, " %.*f |", decimals, v);
    else strbuf_append(out, " — |", 6);
}

void smd_value(strbuf *out, double v, int decimals, bool has) {
    if (has) smd_printf(out, "%.*f", decimals, v);
    else strbuf_append(out, "—", 3);
}
