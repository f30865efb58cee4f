/* text_utf8: UTF-8 decoding with Python's "replace" semantics, and the two case folds
 * the reference heuristics rely on.
 *
 * The reference reads text with errors="replace": every maximal ill-formed subsequence
 * becomes one U+FFFD. Kernel names are compared and reported after that decoding, so we
 * decode the same way. Matching is done on a folded byte string: one byte per code point,
 * ASCII letters lower-cased, code points that Python folds onto an ASCII letter mapped to
 * it, every other non-ASCII code point mapped to FOLD_OTHER (which no ASCII needle matches). */
#ifndef GOBLIN_TEXT_UTF8_H
#define GOBLIN_TEXT_UTF8_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"

#define FOLD_OTHER 0x80u

/* Writes the UTF-8 encoding of cp (surrogates become U+FFFD); returns its length. */
size_t utf8_encode(uint32_t cp, char out[4]);
/* Appends in[0..n) with invalid sequences replaced by U+FFFD. */
bool utf8_sanitize(const uint8_t *in, size_t n, strbuf *out);
/* True when in[0..n) is entirely valid UTF-8 (no surrogates). */
bool utf8_valid(const uint8_t *in, size_t n);
/* The length of s[0..n) cut to at most max bytes without splitting a UTF-8 sequence (n when it
 * fits): the cut backs off over continuation bytes. */
size_t utf8_cut(const char *s, size_t n, size_t max);

/* s made safe to print on a terminal, into buf (n > 0 bytes, NUL-terminated): C0 controls, DEL,
 * C1 controls (U+0080..U+009F: an 8-bit CSI drives some terminals) and bidirectional overrides
 * and isolates (U+202A..U+202E, U+2066..U+2069) become a space, bytes that are not UTF-8 '?',
 * and the text is cut at a character boundary when it does not fit. For every untrusted string
 * the CLI prints (kernel names, paths, warnings, labels). NULL s: "-". Returns buf. */
const char *text_terminal(const char *s, char *buf, size_t n);
/* The length in bytes (1..4) of the valid UTF-8 character at s[0..n), 0 when s does not start
 * with one (a stray continuation byte, an overlong form, a surrogate, a sequence cut by n). */
size_t utf8_char_len(const char *s, size_t n);
/* The length in bytes of the control character at s[0..n) that text_terminal prints as a space
 * (C0, DEL, C1 as UTF-8, bidirectional overrides and isolates), 0 when s starts with none. */
size_t text_control_at(const char *s, size_t n);
/* Writes the whole of s to out as text_terminal makes it (no length limit). */
void text_terminal_put(FILE *out, const char *s);

/* Python str.strip(): trims Unicode whitespace (str.isspace(), what float() strips too) from
 * valid UTF-8 text, in place by pointers. */
void utf8_strip(const char **s, size_t *n);

/* Fold for str.lower()-then-substring tests (ASCII needles only). */
bool text_fold_lower(const char *s, size_t n, strbuf *out);
/* Fold for re.IGNORECASE matching of ASCII patterns (K->k, long s->s, dotless i->i, ...). */
bool text_fold_regex(const char *s, size_t n, strbuf *out);

/* memmem over folded strings. */
bool text_contains(const char *hay, size_t n, const char *needle);
/* True when the code-point-per-byte folded string has `word` at a position with no
 * [A-Za-z0-9] (folded) before or after it: the reference's (?<![A-Za-z0-9])..(?![A-Za-z0-9]). */
bool text_contains_word(const char *folded, size_t n, const char *word);

#endif
