/* json_tokenizer: resumable JSON state machine with fast paths for strings and blanks. */
#include "parsers/tokenizers/json_tokenizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

enum {
    S_VALUE, S_ARRAY_FIRST, S_OBJECT_FIRST, S_OBJECT_KEY, S_COLON, S_AFTER_VALUE,
    S_STRING, S_NUMBER, S_LITERAL, S_ERROR
};
enum { N_MINUS, N_ZERO, N_INT, N_DOT, N_FRAC, N_EXP, N_EXP_SIGN, N_EXP_DIGITS };
enum { STR_PLAIN, STR_ESCAPE, STR_HEX, STR_UTF8 };

static const bool is_ws[256] = {[' '] = true, ['\t'] = true, ['\n'] = true, ['\r'] = true};

bool jt_init(jt_tokenizer *t, unsigned emit_depth, size_t cap, jt_callback cb, void *user) {
    memset(t, 0, sizeof *t);
    t->text = malloc(cap + 1);
    t->state = S_VALUE;
    t->emit_depth = emit_depth;
    t->quiet_depth = emit_depth + 1;
    t->cap = cap;
    t->cb = cb;
    t->user = user;
    return t->text != NULL;
}

bool jt_init_resumed(jt_tokenizer *t, unsigned emit_depth, size_t cap, jt_callback cb, void *user,
                     const char *open, uint64_t offset) {
    if (!jt_init(t, emit_depth, cap, cb, user)) return false;
    size_t n = strlen(open);
    if (n == 0 || n > JT_MAX_DEPTH) return false;
    memcpy(t->stack, open, n);
    t->depth = (unsigned)n;
    t->offset = offset;
    t->bom = 3;                        /* a BOM only counts at the start of the document */
    return true;
}

bool jt_is_at(const jt_tokenizer *t, const char *open, uint64_t offset) {
    size_t n = strlen(open);
    return t->state == S_VALUE && t->depth == n && memcmp(t->stack, open, n) == 0 && t->offset == offset &&
           !t->skipping && t->quiet_depth == t->emit_depth + 1 && t->bom == 3;
}

void jt_free(jt_tokenizer *t) { free(t->text); t->text = NULL; }

double jt_strtod(const char *s, size_t n) {
    /* Clinger's fast path: a mantissa below 2^53 and a power of ten up to 10^22 are both
     * exact doubles, so one IEEE division or multiplication rounds correctly. */
    static const double P10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '-' || s[i] == '+')) { neg = s[i] == '-'; i++; }
    uint64_t m = 0;
    int digits = 0, frac = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) { m = m * 10 + (uint64_t)(s[i] - '0'); if (m) digits++; }
    if (i < n && s[i] == '.') {
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++) { m = m * 10 + (uint64_t)(s[i] - '0'); if (m) digits++; frac++; }
    }
    if (i == n && digits <= 15 && frac <= 22) {
        double v = (double)m / P10[frac];
        return neg ? -v : v;
    }
    char buf[64];
    if (n < sizeof buf) { memcpy(buf, s, n); buf[n] = '\0'; return strtod(buf, NULL); }
    char *tmp = strndup(s, n);
    double v = tmp ? strtod(tmp, NULL) : 0.0;
    free(tmp);
    return v;
}

const char *jt_error(const jt_tokenizer *t) { return t->error; }
uint64_t jt_error_offset(const jt_tokenizer *t) { return t->error_offset; }

static bool fail(jt_tokenizer *t, uint64_t off, const char *what) {
    if (t->state != S_ERROR) {
        snprintf(t->error, sizeof t->error, "%s", what);
        t->error_offset = off;
        t->state = S_ERROR;
    }
    return false;
}

static bool emit(jt_tokenizer *t, jt_kind k, unsigned depth, uint64_t off) {
    if (depth >= t->quiet_depth) return true;
    jt_token tok = {.kind = k, .depth = depth, .offset = off};
    if (k == JT_KEY || k == JT_STRING || k == JT_NUMBER) {
        t->text[t->text_len] = '\0';
        tok.text = t->text;
        tok.len = t->text_len;
        tok.truncated = t->truncated;
        tok.is_float = t->is_float;
    }
    return t->cb(t->user, &tok);
}

/* The value of a declined key is complete: report tokens again. */
static inline void skip_done(jt_tokenizer *t) {
    t->skipping = false;
    t->quiet_depth = t->emit_depth + 1;
}

static inline void capture(jt_tokenizer *t, const void *p, size_t n) {
    if (!t->capturing) return;
    size_t room = t->cap - t->text_len;
    if (n > room) { n = room; t->truncated = true; }
    memcpy(t->text + t->text_len, p, n);
    t->text_len += n;
}

static void capture_cp(jt_tokenizer *t, uint32_t cp) {
    if (!t->capturing) return;
    char b[4];
    capture(t, b, utf8_encode(cp, b));
}

/* A value is complete: the container (or the document) decides what comes next. */
static void value_done(jt_tokenizer *t) {
    t->state = S_AFTER_VALUE;
    if (t->depth == 0) t->root_done = true;
    if (t->skipping && t->depth == t->skip_at) skip_done(t);
}

static void begin_text(jt_tokenizer *t, unsigned depth, uint64_t off) {
    t->tok_offset = off;
    t->capturing = depth < t->quiet_depth;
    t->truncated = false;
    t->text_len = 0;
}

static bool open_container(jt_tokenizer *t, uint8_t c, uint64_t off) {
    if (t->depth >= JT_MAX_DEPTH) return fail(t, off, "nesting deeper than 992 levels");
    emit(t, c == '{' ? JT_OBJECT_BEGIN : JT_ARRAY_BEGIN, t->depth, off);
    t->stack[t->depth++] = c;
    t->state = c == '{' ? S_OBJECT_FIRST : S_ARRAY_FIRST;
    return true;
}

static void close_container(jt_tokenizer *t, uint64_t off) {
    uint8_t c = t->stack[--t->depth];
    emit(t, c == '{' ? JT_OBJECT_END : JT_ARRAY_END, t->depth, off);
    value_done(t);
}

/* Starts the value whose first byte is c. */
static bool start_value(jt_tokenizer *t, uint8_t c, uint64_t off) {
    switch (c) {
    case '{': case '[': return open_container(t, c, off);
    case '"':
        begin_text(t, t->depth, off);
        t->in_key = false;
        t->state = S_STRING;
        t->sub = STR_PLAIN;
        t->pending_high = 0;
        return true;
    case '-': case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
        begin_text(t, t->depth, off);
        t->is_float = false;
        t->int_digits = 0;
        t->state = S_NUMBER;
        t->sub = c == '-' ? N_MINUS : c == '0' ? N_ZERO : N_INT;
        if (c != '-') t->int_digits = 1;
        capture(t, &c, 1);
        return true;
    case 't': t->lit = "true"; t->lit_kind = JT_TRUE; break;
    case 'f': t->lit = "false"; t->lit_kind = JT_FALSE; break;
    case 'n': t->lit = "null"; t->lit_kind = JT_NULL; break;
    case 'N': t->lit = "NaN"; t->lit_kind = JT_NAN; break;
    case 'I': t->lit = "Infinity"; t->lit_kind = JT_INFINITY; break;
    default: return fail(t, off, "expecting a value");
    }
    t->tok_offset = off;
    t->lit_pos = 1;
    t->state = S_LITERAL;
    return true;
}

static inline const uint8_t *scan_plain(const uint8_t *p, const uint8_t *end) {
#ifdef __SSE2__
    const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), sp = _mm_set1_epi8(0x20);
    while (end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        /* signed < 0x20 also flags bytes >= 0x80, which need UTF-8 validation */
        __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)),
                                 _mm_cmplt_epi8(v, sp));
        int mask = _mm_movemask_epi8(m);
        if (mask) return p + __builtin_ctz((unsigned)mask);
        p += 16;
    }
#endif
    while (p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\') p++;
    return p;
}

static int hexval(uint8_t c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static void flush_high(jt_tokenizer *t) {
    if (t->pending_high) { capture_cp(t, 0xFFFD); t->pending_high = 0; }
}

static void string_done(jt_tokenizer *t) {
    flush_high(t);
    if (t->in_key) {
        t->state = S_COLON;
        if (!emit(t, JT_KEY, t->depth, t->tok_offset) && !t->skipping) {
            t->skipping = true;
            t->skip_at = t->depth;
            t->quiet_depth = t->depth;
        }
    } else {
        emit(t, JT_STRING, t->depth, t->tok_offset);
        value_done(t);
    }
}

static void number_done(jt_tokenizer *t) {
    emit(t, JT_NUMBER, t->depth, t->tok_offset);
    value_done(t);
}

/* A token that lies whole in the caller's buffer is reported from there, uncopied. */
static inline bool emit_span(jt_tokenizer *t, jt_kind k, unsigned depth, uint64_t off, const uint8_t *s,
                             size_t n, bool is_float) {
    jt_token tok = {.kind = k, .depth = depth, .offset = off, .text = (const char *)s, .len = n, .is_float = is_float};
    return t->cb(t->user, &tok);
}

/* The closing quote of the plain string whose opening quote is at p, or NULL when the state
 * machine must take it: an escape, non-ASCII text, the chunk's end, or (when it is
 * reported) text longer than the capture cap. */
static inline const uint8_t *plain_string(const jt_tokenizer *t, const uint8_t *p, const uint8_t *end, bool reported) {
    const uint8_t *q = scan_plain(p + 1, end);
    if (q == end || *q != '"' || (reported && (size_t)(q - p - 1) > t->cap)) return NULL;
    return q;
}

/* Fast path for every ordinary token inside the root container: one tight loop with the
 * position and depth in registers, reporting tokens above quiet_depth straight from the
 * buffer and only validating the rest. It only ever stops at a token boundary, leaving
 * t->state consistent, and it bails out (returning the token's start) on anything
 * unusual: a token cut by the end of the buffer, an escape, non-ASCII text, text longer
 * than the capture cap, NaN/Infinity, an error, or the bracket that closes the root.
 * The resumable state machine then handles that one token, so errors have one reporter
 * and reported tokens do not depend on where the chunks were cut. */
static const uint8_t *fast_path(jt_tokenizer *t, const uint8_t *buf, const uint8_t *p, const uint8_t *end) {
    int state = t->state;
    unsigned depth = t->depth, quiet = t->quiet_depth;
#define FOFF(ptr) (t->offset + (uint64_t)((ptr) - buf))
    for (;;) {
        if (p < end && *p <= ' ') while (p < end && is_ws[*p]) p++;   /* every blank is <= ' ' */
        if (p == end) break;
        const uint8_t *tok = p;
        uint8_t c = *p;
        if (state == S_AFTER_VALUE) {
            uint8_t open = t->stack[depth - 1];
            if (c == ',') {
                state = open == '{' ? S_OBJECT_KEY : S_VALUE;
                p++;
                if (p < end && *p == ' ') p++;     /* the usual ", " */
                continue;
            }
            if (c != (open == '{' ? '}' : ']') || depth == 1) break;
            goto close;
        }
        if (state == S_COLON) {
            if (c != ':') break;
            state = S_VALUE;
            p++;
            if (p < end && *p == ' ') p++;         /* the usual ": " */
            continue;
        }
        if (state == S_OBJECT_FIRST || state == S_OBJECT_KEY) {
            if (c == '}' && state == S_OBJECT_FIRST && depth > 1) goto close;
            if (c != '"') break;
            const uint8_t *q = plain_string(t, p, end, depth < quiet);
            if (!q) break;
            if (depth < quiet) {
                if (!emit_span(t, JT_KEY, depth, FOFF(tok), p + 1, (size_t)(q - p - 1), false) && !t->skipping) {
                    t->skipping = true;
                    t->skip_at = depth;
                    t->quiet_depth = quiet = depth;
                }
            }
            p = q + 1;
            state = S_COLON;
            continue;
        }
        /* S_VALUE or S_ARRAY_FIRST */
        if (c == ']' && state == S_ARRAY_FIRST && depth > 1) goto close;
        if (c == '{' || c == '[') {
            if (depth >= JT_MAX_DEPTH) break;
            if (depth < quiet) emit_span(t, c == '{' ? JT_OBJECT_BEGIN : JT_ARRAY_BEGIN, depth, FOFF(p), NULL, 0, false);
            t->stack[depth++] = c;
            state = c == '{' ? S_OBJECT_FIRST : S_ARRAY_FIRST;
            p++;
            continue;
        }
        if (c == '"') {
            const uint8_t *q = plain_string(t, p, end, depth < quiet);
            if (!q) break;
            if (depth < quiet) emit_span(t, JT_STRING, depth, FOFF(tok), p + 1, (size_t)(q - p - 1), false);
            p = q + 1;
            goto value_done;
        }
        if ((c >= '0' && c <= '9') || c == '-') {
            const uint8_t *q = p + (c == '-');
            bool is_float = false;
            if (q == end || *q < '0' || *q > '9') { p = tok; break; }
            if (*q == '0') q++;
            else { const uint8_t *d = q; while (q < end && *q >= '0' && *q <= '9') q++; if (q - d > 1000) { p = tok; break; } }
            if (q < end && *q == '.') {
                q++;
                is_float = true;
                if (q == end || *q < '0' || *q > '9') { p = tok; break; }
                while (q < end && *q >= '0' && *q <= '9') q++;
            }
            if (q < end && (*q == 'e' || *q == 'E')) {
                q++;
                is_float = true;
                if (q < end && (*q == '+' || *q == '-')) q++;
                if (q == end || *q < '0' || *q > '9') { p = tok; break; }
                while (q < end && *q >= '0' && *q <= '9') q++;
            }
            if (q == end) { p = tok; break; }      /* the number may go on in the next chunk */
            if (depth < quiet) {
                if ((size_t)(q - p) > t->cap) { p = tok; break; }
                emit_span(t, JT_NUMBER, depth, FOFF(tok), p, (size_t)(q - p), is_float);
            }
            p = q;
            goto value_done;
        }
        {
            jt_kind k = c == 't' ? JT_TRUE : c == 'f' ? JT_FALSE : JT_NULL;
            const char *lit = c == 't' ? "true" : c == 'f' ? "false" : c == 'n' ? "null" : NULL;
            if (!lit) break;
            size_t n = strlen(lit);
            if ((size_t)(end - p) < n || memcmp(p, lit, n) != 0) break;
            if (depth < quiet) emit_span(t, k, depth, FOFF(tok), NULL, 0, false);
            p += n;
            goto value_done;
        }
    close:                                 /* c closes the innermost container (not the root) */
        depth--;
        if (depth < quiet) emit_span(t, c == '}' ? JT_OBJECT_END : JT_ARRAY_END, depth, FOFF(p), NULL, 0, false);
        p++;
    value_done:
        state = S_AFTER_VALUE;
        if (t->skipping && depth == t->skip_at) { skip_done(t); quiet = t->quiet_depth; }
    }
#undef FOFF
    t->state = state;
    t->depth = depth;
    return p;
}

bool jt_feed(jt_tokenizer *t, const uint8_t *buf, size_t n) {
    const uint8_t *p = buf, *end = buf + n;
#define OFF(ptr) (t->offset + (uint64_t)((ptr) - buf))
    while (t->bom < 3 && p < end && t->state != S_ERROR) {   /* json.loads(bytes) drops a UTF-8 BOM */
        static const uint8_t bom[3] = {0xEF, 0xBB, 0xBF};
        if (*p == bom[t->bom]) { t->bom++; p++; continue; }
        if (t->bom > 0) fail(t, OFF(p), "invalid UTF-8 at the start of the document");
        t->bom = 3;
    }
    while (p < end) {
        if (t->depth >= 1 && t->state <= S_AFTER_VALUE) {
            p = fast_path(t, buf, p, end);
            if (p == end) break;
        }
        switch (t->state) {
        case S_ERROR:
            t->offset += n;
            return false;
        case S_VALUE:
        case S_ARRAY_FIRST:
            while (p < end && is_ws[*p]) p++;
            if (p == end) break;
            if (t->state == S_ARRAY_FIRST && *p == ']') { close_container(t, OFF(p)); p++; break; }
            if (!start_value(t, *p, OFF(p))) break;
            p++;
            break;
        case S_OBJECT_FIRST:
        case S_OBJECT_KEY:
            while (p < end && is_ws[*p]) p++;
            if (p == end) break;
            if (*p == '}' && t->state == S_OBJECT_FIRST) { close_container(t, OFF(p)); p++; break; }
            if (*p != '"') { fail(t, OFF(p), "expecting a property name in double quotes"); break; }
            begin_text(t, t->depth, OFF(p));
            t->in_key = true;
            t->state = S_STRING;
            t->sub = STR_PLAIN;
            t->pending_high = 0;
            p++;
            break;
        case S_COLON:
            while (p < end && is_ws[*p]) p++;
            if (p == end) break;
            if (*p != ':') { fail(t, OFF(p), "expecting ':' after a property name"); break; }
            t->state = S_VALUE;
            p++;
            break;
        case S_AFTER_VALUE:
            while (p < end && is_ws[*p]) p++;
            if (p == end) break;
            if (t->depth == 0) { fail(t, OFF(p), "extra data after the JSON document"); break; }
            if (*p == ',') {
                t->state = t->stack[t->depth - 1] == '{' ? S_OBJECT_KEY : S_VALUE;
                p++;
            } else if (*p == (t->stack[t->depth - 1] == '{' ? '}' : ']')) {
                close_container(t, OFF(p));
                p++;
            } else {
                fail(t, OFF(p), t->stack[t->depth - 1] == '{' ? "expecting ',' or '}'" : "expecting ',' or ']'");
            }
            break;
        case S_STRING:
            if (t->sub == STR_PLAIN) {
                const uint8_t *s = p;
                p = scan_plain(p, end);
                if (p > s) {
                    if (t->pending_high) flush_high(t);
                    capture(t, s, (size_t)(p - s));
                }
                if (p == end) break;
                uint8_t c = *p;
                if (c == '"') { p++; string_done(t); break; }
                if (c == '\\') { t->sub = STR_ESCAPE; p++; break; }
                if (c < 0x20) { fail(t, OFF(p), "invalid control character in a string"); break; }
                t->sub = STR_UTF8;               /* non-ASCII: validate the sequence */
                t->u8_len = 0;
                t->u8_need = 0;
            }
            if (t->sub == STR_UTF8) {
                uint8_t c = *p;
                if (t->u8_len == 0) {
                    t->u8_lo = 0x80; t->u8_hi = 0xBF;
                    if (c >= 0xC2 && c <= 0xDF) t->u8_need = 1;
                    else if (c >= 0xE0 && c <= 0xEF) { t->u8_need = 2; if (c == 0xE0) t->u8_lo = 0xA0; }
                    else if (c >= 0xF0 && c <= 0xF4) {
                        t->u8_need = 3;
                        if (c == 0xF0) t->u8_lo = 0x90; else if (c == 0xF4) t->u8_hi = 0x8F;
                    } else { fail(t, OFF(p), "invalid UTF-8"); break; }
                } else {
                    if (c < t->u8_lo || c > t->u8_hi) { fail(t, OFF(p), "invalid UTF-8"); break; }
                    t->u8_lo = 0x80; t->u8_hi = 0xBF;
                }
                t->u8[t->u8_len++] = c;
                p++;
                if (t->u8_len == t->u8_need + 1) {
                    if (t->pending_high) flush_high(t);
                    if (t->u8[0] == 0xED && t->u8[1] >= 0xA0) capture_cp(t, 0xFFFD);  /* surrogate */
                    else capture(t, t->u8, (size_t)t->u8_len);
                    t->sub = STR_PLAIN;
                }
                break;
            }
            if (t->sub == STR_ESCAPE) {
                uint8_t c = *p, d;
                switch (c) {
                case '"': d = '"'; break;
                case '\\': d = '\\'; break;
                case '/': d = '/'; break;
                case 'b': d = '\b'; break;
                case 'f': d = '\f'; break;
                case 'n': d = '\n'; break;
                case 'r': d = '\r'; break;
                case 't': d = '\t'; break;
                case 'u': t->sub = STR_HEX; t->esc_n = 0; t->esc_cp = 0; p++; continue;
                default: fail(t, OFF(p), "invalid escape in a string"); continue;
                }
                flush_high(t);
                capture(t, &d, 1);
                t->sub = STR_PLAIN;
                p++;
                break;
            }
            /* STR_HEX */
            {
                int h = hexval(*p);
                if (h < 0) { fail(t, OFF(p), "invalid \\uXXXX escape"); break; }
                t->esc_cp = (t->esc_cp << 4) | (uint32_t)h;
                p++;
                if (++t->esc_n < 4) break;
                uint32_t cp = t->esc_cp;
                t->sub = STR_PLAIN;
                if (t->pending_high && cp >= 0xDC00 && cp <= 0xDFFF) {
                    cp = 0x10000 + ((t->pending_high - 0xD800) << 10) + (cp - 0xDC00);
                    t->pending_high = 0;
                    capture_cp(t, cp);
                    break;
                }
                flush_high(t);
                if (cp >= 0xD800 && cp <= 0xDBFF) t->pending_high = cp;
                else capture_cp(t, cp);
            }
            break;
        case S_NUMBER: {
            uint8_t c = *p;
            bool digit = c >= '0' && c <= '9';
            switch (t->sub) {
            case N_MINUS:
                if (c == 'I') {                        /* -Infinity */
                    t->lit = "Infinity"; t->lit_pos = 1; t->lit_kind = JT_NEG_INFINITY;
                    t->state = S_LITERAL;
                    p++;
                    continue;
                }
                if (!digit) { fail(t, OFF(p), "expecting a digit after '-'"); continue; }
                t->sub = c == '0' ? N_ZERO : N_INT;
                t->int_digits = 1;
                break;
            case N_ZERO:
            case N_INT:
                if (digit && t->sub == N_INT) {
                    const uint8_t *s = p;
                    while (p < end && *p >= '0' && *p <= '9') p++;
                    t->int_digits += (size_t)(p - s);
                    capture(t, s, (size_t)(p - s));
                    continue;
                }
                if (c == '.') { t->sub = N_DOT; t->is_float = true; break; }
                if (c == 'e' || c == 'E') { t->sub = N_EXP; t->is_float = true; break; }
                goto number_end;
            case N_DOT:
                if (!digit) { fail(t, OFF(p), "expecting a digit after '.'"); continue; }
                t->sub = N_FRAC;
                break;
            case N_FRAC:
                if (digit) break;
                if (c == 'e' || c == 'E') { t->sub = N_EXP; break; }
                goto number_end;
            case N_EXP:
                if (c == '+' || c == '-') { t->sub = N_EXP_SIGN; break; }
                if (!digit) { fail(t, OFF(p), "expecting a digit in the exponent"); continue; }
                t->sub = N_EXP_DIGITS;
                break;
            case N_EXP_SIGN:
                if (!digit) { fail(t, OFF(p), "expecting a digit in the exponent"); continue; }
                t->sub = N_EXP_DIGITS;
                break;
            case N_EXP_DIGITS:
                if (digit) break;
                goto number_end;
            }
            capture(t, &c, 1);
            p++;
            continue;
        number_end:
            if (!t->is_float && t->int_digits > JT_MAX_INT_DIGITS) {
                fail(t, t->tok_offset, "integer with more than 4300 digits");
                continue;
            }
            number_done(t);                              /* c is re-read as what follows */
            continue;
        }
        case S_LITERAL:
            if (*p != (uint8_t)t->lit[t->lit_pos]) { fail(t, OFF(p), "invalid literal"); break; }
            p++;
            if (t->lit[++t->lit_pos] == '\0') {
                emit(t, t->lit_kind, t->depth, t->tok_offset);
                value_done(t);
            }
            break;
        }
    }
    t->offset += n;
    return t->state != S_ERROR;
#undef OFF
}

bool jt_finish(jt_tokenizer *t) {
    if (t->state == S_ERROR) return false;
    if (t->state == S_NUMBER && t->depth == 0) {
        bool terminal = t->sub == N_ZERO || t->sub == N_INT || t->sub == N_FRAC || t->sub == N_EXP_DIGITS;
        if (!terminal) return fail(t, t->offset, "truncated number at end of input");
        if (!t->is_float && t->int_digits > JT_MAX_INT_DIGITS)
            return fail(t, t->tok_offset, "integer with more than 4300 digits");
        number_done(t);
    }
    if (t->state == S_AFTER_VALUE && t->depth == 0 && t->root_done) return true;
    if (t->offset == 0) return fail(t, 0, "empty document");
    if (t->state == S_STRING) return fail(t, t->offset, "end of input inside a string (file truncated?)");
    return fail(t, t->offset, "unexpected end of input (file truncated?)");
}
