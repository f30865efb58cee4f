/* section_md: small text helpers for the report.md parts (render_md) of every section:
 * printf into a strbuf, a Markdown table cell that cannot break its row, and optional
 * numbers that print "—" when unknown (never 0). */
#ifndef GOBLIN_SECTION_MD_H
#define GOBLIN_SECTION_MD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

#define SMD_NO_LIMIT ((size_t)-1)

/* Appends printf-formatted text, whatever its length (a failed allocation leaves it out). */
void smd_printf(strbuf *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends n bytes of s as one table cell's text: '|', '\', '`' and '*' escaped, line breaks
 * and tabs as spaces, cut at `max` bytes (on a UTF-8 boundary) with "…" (SMD_NO_LIMIT: never
 * cut); "—" when s is NULL. */
void smd_cell(strbuf *out, const char *s, size_t n, size_t max);
/* Appends " v |" with `decimals` decimals, or " — |" when !has. */
void smd_num(strbuf *out, double v, int decimals, bool has);
/* Appends v with `decimals` decimals, or "—" when !has (no cell separators). */
void smd_value(strbuf *out, double v, int decimals, bool has);

#endif
