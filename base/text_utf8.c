/* text_utf8: Python-compatible UTF-8 decoding, whitespace and case folds. */
#include "base/text_utf8.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Decodes one code point at s[0..n). Returns bytes consumed (>= 1 when n >= 1).
 * Invalid input yields U+FFFD and consumes the maximal ill-formed prefix.
 * allow_surrogates accepts ED A0..BF (Python's "surrogatepass", used by json.loads). */
static size_t utf8_decode(const uint8_t *s, size_t n, uint32_t *cp, bool allow_surrogates) {
    uint8_t c = s[0];
    if (c < 0x80) { *cp = c; return 1; }
    size_t need;
    uint8_t lo = 0x80, hi = 0xBF;
    uint32_t v;
    if (c >= 0xC2 && c <= 0xDF) { need = 1; v = c & 0x1F; }
    else if (c >= 0xE0 && c <= 0xEF) {
        need = 2; v = c & 0x0F;
        if (c == 0xE0) lo = 0xA0;
        else if (c == 0xED && !allow_surrogates) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3; v = c & 0x07;
        if (c == 0xF0) lo = 0x90;
        else if (c == 0xF4) hi = 0x8F;
    } else { *cp = 0xFFFD; return 1; }
    size_t i = 1;
    for (; i <= need; i++) {
        if (i >= n) { *cp = 0xFFFD; return i; }
        uint8_t b = s[i];
        if (i == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) { *cp = 0xFFFD; return i; }
        v = (v << 6) | (b & 0x3F);
    }
    *cp = v;
    return i;
}

size_t utf8_encode(uint32_t cp, char b[4]) {
    if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;
    if (cp < 0x80) { b[0] = (char)cp; return 1; }
    if (cp < 0x800) { b[0] = (char)(0xC0 | (cp >> 6)); b[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12)); b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    b[0] = (char)(0xF0 | (cp >> 18)); b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    b[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); b[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Appends the UTF-8 encoding of cp (surrogates become U+FFFD). */
static bool utf8_put(strbuf *out, uint32_t cp) {
    char b[4];
    return strbuf_append(out, b, utf8_encode(cp, b));
}

/* Length of the leading ASCII run: 16 bytes at a time (SSE2's byte sign mask), the last
 * 16 as one overlapping load (names are 20-400 bytes: no byte loop on their tail), a word at
 * a time below 16 bytes. */
static size_t ascii_prefix(const uint8_t *in, size_t n) {
    size_t i = 0;
#ifdef __SSE2__
    if (n >= 16) {
        for (; i + 16 <= n; i += 16) {
            unsigned m = (unsigned)_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(const void *)(in + i)));
            if (m) return i + (size_t)__builtin_ctz(m);
        }
        if (i == n) return n;
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(const void *)(in + n - 16)));
        return m ? n - 16 + (size_t)__builtin_ctz(m) : n;   /* (bytes before i are ASCII: no bit below i) */
    }
#endif
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, in + i, 8);
        if (w & 0x8080808080808080ULL) break;
    }
    while (i < n && in[i] < 0x80) i++;
    return i;
}

bool utf8_sanitize(const uint8_t *in, size_t n, strbuf *out) {
    size_t i = ascii_prefix(in, n), run = 0;
    while (i < n) {
        if (in[i] < 0x80) { i++; continue; }
        uint32_t cp;
        size_t k = utf8_decode(in + i, n - i, &cp, false);
        if (cp == 0xFFFD && !(k == 3 && in[i] == 0xEF && in[i + 1] == 0xBF && in[i + 2] == 0xBD)) {
            if (!strbuf_append(out, in + run, i - run) || !utf8_put(out, 0xFFFD)) return false;
            run = i + k;
        }
        i += k;
    }
    return strbuf_append(out, in + run, n - run);
}

bool utf8_valid(const uint8_t *in, size_t n) {
    for (size_t i = ascii_prefix(in, n); i < n;) {     /* (the ASCII start a word at a time) */
        if (in[i] < 0x80) { i++; continue; }
        uint32_t cp;
        size_t k = utf8_decode(in + i, n - i, &cp, false);
        if (cp == 0xFFFD && !(k == 3 && in[i] == 0xEF && in[i + 1] == 0xBF && in[i + 2] == 0xBD)) return false;
        i += k;
    }
    return true;
}

/* Python's str.isspace() for a code point (what str.strip() and float() strip). */
static bool py_isspace(uint32_t c) {
    return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
           c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
           c == 0x202F || c == 0x205F || c == 0x3000;
}

void utf8_strip(const char **sp, size_t *np) {
    const uint8_t *s = (const uint8_t *)*sp;
    size_t n = *np, i = 0;
    if (n && s[0] > 0x20 && s[0] < 0x80 && s[n - 1] > 0x20 && s[n - 1] < 0x80) return;   /* ASCII, no space at either end */
    while (i < n) {
        uint32_t cp;
        size_t k = utf8_decode(s + i, n - i, &cp, false);
        if (!py_isspace(cp)) break;
        i += k;
    }
    size_t end = n;
    while (end > i) {
        size_t j = end - 1;
        while (j > i && (s[j] & 0xC0) == 0x80 && end - j < 4) j--;
        uint32_t cp;
        size_t k = utf8_decode(s + j, end - j, &cp, false);
        if (j + k != end || !py_isspace(cp)) break;
        end = j;
    }
    *sp = (const char *)s + i;
    *np = end - i;
}

static bool fold(const char *s, size_t n, strbuf *out, bool regex) {
    const uint8_t *u = (const uint8_t *)s;
    out->len = 0;
    for (size_t i = 0; i < n;) {
        uint8_t c = u[i];
        if (c < 0x80) {
            if (!strbuf_putc(out, (char)(c >= 'A' && c <= 'Z' ? c + 32 : c))) return false;
            i++;
            continue;
        }
        uint32_t cp;
        i += utf8_decode(u + i, n - i, &cp, false);
        char f = (char)FOLD_OTHER;
        if (cp == 0x212A) f = 'k';                          /* KELVIN SIGN lowers to k */
        else if (cp == 0x130) {                             /* I WITH DOT: lower() is "i" + U+0307 */
            if (!strbuf_putc(out, 'i')) return false;
            if (regex) continue;                            /* re.I folds it onto a single i */
        } else if (regex && cp == 0x17F) f = 's';           /* LONG S ~ s under re.I */
        else if (regex && cp == 0x131) f = 'i';             /* DOTLESS I ~ i under re.I */
        if (!strbuf_putc(out, f)) return false;
    }
    return strbuf_terminate(out);
}

bool text_fold_lower(const char *s, size_t n, strbuf *out) { return fold(s, n, out, false); }
bool text_fold_regex(const char *s, size_t n, strbuf *out) { return fold(s, n, out, true); }

bool text_contains(const char *hay, size_t n, const char *needle) {
    return memmem(hay, n, needle, strlen(needle)) != NULL;
}

static bool is_alnum_folded(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

bool text_contains_word(const char *s, size_t n, const char *word) {
    size_t w = strlen(word);
    const char *p = s, *end = s + n;
    while ((p = memmem(p, (size_t)(end - p), word, w)) != NULL) {
        bool left = p == s || !is_alnum_folded(p[-1]);
        bool right = p + w == end || !is_alnum_folded(p[w]);
        if (left && right) return true;
        p++;
    }
    return false;
}

size_t utf8_cut(const char *s, size_t n, size_t max) {
    if (n <= max) return n;
    size_t cut = max;
    while (cut && ((unsigned char)s[cut] & 0xC0) == 0x80) cut--;
    return cut;
}

/* Whether code point cp is a control text_terminal and smd_cell print as a space: C0, DEL,
 * C1, bidirectional overrides and isolates. */
static bool control_cp(uint32_t cp) {
    return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) ||
           (cp >= 0x2066 && cp <= 0x2069);
}

size_t utf8_char_len(const char *s, size_t n) {
    const unsigned char *p = (const unsigned char *)s;
    if (!n) return 0;
    size_t len = p[0] < 0x80 ? 1 : (p[0] & 0xE0) == 0xC0 ? 2 : (p[0] & 0xF0) == 0xE0 ? 3 : (p[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (!len || len > n) return 0;
    return len == 1 || utf8_valid(p, len) ? len : 0;
}

size_t text_control_at(const char *s, size_t n) {
    const unsigned char *p = (const unsigned char *)s;
    if (!n) return 0;
    if (p[0] < 0x80) return control_cp(p[0]) ? 1 : 0;
    if (p[0] == 0xC2 && n >= 2 && p[1] >= 0x80 && p[1] <= 0x9F) return 2;              /* U+0080..U+009F */
    if (p[0] == 0xE2 && n >= 3 && ((p[1] == 0x80 && p[2] >= 0xAA && p[2] <= 0xAE) ||   /* U+202A..U+202E */
                                   (p[1] == 0x81 && p[2] >= 0xA6 && p[2] <= 0xA9)))    /* U+2066..U+2069 */
        return 3;
    return 0;
}

const char *text_terminal(const char *s, char *buf, size_t n) {
    assert(n > 0);
    if (!s) s = "-";
    size_t k = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned char c = *p;
        size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
        for (size_t i = 1; i < len; i++)
            if ((p[i] & 0xC0) != 0x80) len = 0;           /* (a NUL ends the run too) */
        if (len > 1 && !utf8_valid(p, len)) len = 0;       /* overlong, surrogate, past U+10FFFF: '?' */
        uint32_t cp = len == 1 ? c : len == 2 ? (uint32_t)(c & 0x1F) << 6 | (p[1] & 0x3F)
                    : len == 3 ? (uint32_t)(c & 0x0F) << 12 | (uint32_t)(p[1] & 0x3F) << 6 | (p[2] & 0x3F) : 0x10000;
        bool blank = len && control_cp(cp);
        size_t out = !len || blank ? 1 : len;
        if (k + out >= n) break;
        if (!len) buf[k++] = '?', p++;
        else if (blank) buf[k++] = ' ', p += len;
        else memcpy(buf + k, p, len), k += len, p += len;
    }
    buf[k] = '\0';
    return buf;
}

void text_terminal_put(FILE *out, const char *s) {
    char b[512], piece[512];
    if (!s) s = "-";
    for (size_t left = strlen(s); left;) {  /* piece by piece, each cut at a character boundary */
        size_t take = utf8_cut(s, left, sizeof piece - 1);
        if (!take) take = left < sizeof piece - 1 ? left : sizeof piece - 1;   /* (continuation bytes: '?' each) */
        memcpy(piece, s, take);
        piece[take] = '\0';
        fputs(text_terminal(piece, b, sizeof b), out);
        s += take, left -= take;
    }
}
