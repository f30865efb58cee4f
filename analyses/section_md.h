/* section_md: small text helpers for the report.md parts (render_md) of every section:
 * printf into a strbuf, the one escaping of every name a file gave (kernel, operator, step,
 * tile, file names: smd_cell, smd_text) so that it shows as the text it is and cannot start
 * a heading, break a table row, open a link or carry HTML, and optional numbers that print
 * "—" when unknown (never 0). A render_md never prints such a name with smd_printf's %s. */
#ifndef GOBLIN_SECTION_MD_H
#define GOBLIN_SECTION_MD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

#define SMD_NO_LIMIT ((size_t)-1)

/* Appends printf-formatted text, whatever its length (a failed allocation leaves it out). */
void smd_printf(strbuf *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends n bytes of s, a name from a file, as Markdown text that renders as exactly that
 * text, in a table cell or in running text: '<', '>' and '&' as HTML entities (no tag, no
 * entity trick), control characters (line breaks, tabs, terminal escapes, C1 controls such as
 * the 8-bit CSI, bidirectional overrides and isolates) as spaces (no new line, so no heading
 * or list; nothing a terminal printing `goblind report` obeys, no text shown reordered), a
 * byte that is not UTF-8 (a bare 0x9B, the 8-bit CSI, in a file name) as U+FFFD, '|' '\' '`'
 * '*' '_' '[' ']' '(' ')' '!' '~' and a leading '#' '-' '+' '=' backslash-escaped (no cell
 * break, code span, emphasis, link or image). Cut at `max` bytes (on a UTF-8 boundary) with "…" (SMD_NO_LIMIT: never cut); "—" when s is NULL. */
void smd_cell(strbuf *out, const char *s, size_t n, size_t max);
/* smd_cell of a NUL-terminated name, never cut. */
void smd_text(strbuf *out, const char *s);
/* Appends " v |" with `decimals` decimals, or " — |" when !has. */
void smd_num(strbuf *out, double v, int decimals, bool has);
/* Appends v with `decimals` decimals, or "—" when !has (no cell separators). */
void smd_value(strbuf *out, double v, int decimals, bool has);

#endif
