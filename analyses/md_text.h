/* md_text: small helpers for the report.md parts analyses render (render_md). */
#ifndef GOBLIN_MD_TEXT_H
#define GOBLIN_MD_TEXT_H

#include <stddef.h>

#include "base/strbuf.h"

/* Appends printf-formatted text to out (a failed allocation leaves out shorter). */
void md_printf(strbuf *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends s (n bytes; NULL: "—") as the text of one Markdown table cell: '|', '\\', '*' and
 * '`' escaped, line breaks and TABs as spaces, so a cell never breaks its row ('_' is left
 * as is: DT_BF16's intraword underscores are no emphasis in GitHub Markdown). */
void md_cell(strbuf *out, const char *s, size_t n);
/* Appends a number for a table cell: %.3f, or "—" when absent (has false). */
void md_num(strbuf *out, double v, int has);

#endif
