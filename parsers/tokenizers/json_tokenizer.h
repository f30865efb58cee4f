/* json_tokenizer: a push-style (SAX) JSON tokenizer that validates exactly what
 * Python's json.loads accepts and never builds a tree.
 *
 * Torch traces reach gigabytes, so the document is fed in chunks and forgotten as it
 * goes; memory is the container stack plus one capture buffer. Tokens are reported
 * only down to `emit_depth` (deeper values are validated, not copied), which is what
 * keeps the per-byte cost low. Python's dialect is followed on purpose: NaN, Infinity
 * and -Infinity are values, integers longer than 4300 digits and nesting deeper than
 * the reference's recursion limit are errors, invalid UTF-8 anywhere is an error, and
 * UTF-8-encoded surrogates are accepted (json.loads decodes bytes with surrogatepass). */
#ifndef GOBLIN_JSON_TOKENIZER_H
#define GOBLIN_JSON_TOKENIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/text_utf8.h"

#define JT_MAX_DEPTH 992      /* containers the reference's json.loads nests before RecursionError */
#define JT_MAX_INT_DIGITS 4300 /* Python's int() digit limit */

typedef enum {
    JT_OBJECT_BEGIN, JT_OBJECT_END, JT_ARRAY_BEGIN, JT_ARRAY_END,
    JT_KEY, JT_STRING, JT_NUMBER, JT_TRUE, JT_FALSE, JT_NULL,
    JT_NAN, JT_INFINITY, JT_NEG_INFINITY
} jt_kind;

typedef struct jt_token {
    jt_kind kind;
    unsigned depth;          /* open containers around the token (root value: 0) */
    const char *text;        /* KEY/STRING: decoded UTF-8 (lone surrogates as U+FFFD); NUMBER: literal */
    size_t len;
    bool truncated;          /* text was longer than the capture cap */
    bool is_float;           /* NUMBER has a fraction or exponent */
    uint64_t offset;         /* byte offset of the token's first byte */
} jt_token;

/* For a JT_KEY, returning false means "do not report this key's value": it is then
 * only validated, on the fast path. The return value is ignored for other tokens. */
typedef bool (*jt_callback)(void *user, const jt_token *tok);

typedef struct jt_tokenizer {
    int state, sub;
    unsigned depth, emit_depth;
    unsigned quiet_depth;              /* tokens at this depth or deeper are not reported */
    bool skipping;                     /* a declined key's value is being skipped */
    unsigned skip_at;                  /* ... at this depth */
    uint8_t stack[JT_MAX_DEPTH + 1];   /* '{' or '[' per open container */
    uint64_t offset;                   /* bytes consumed before the current chunk */
    uint64_t tok_offset;
    bool in_key, capturing, truncated, is_float, root_done;
    size_t cap, int_digits;
    char *text;                        /* capture buffer, cap + 1 bytes */
    size_t text_len;
    uint32_t esc_cp, pending_high;
    int esc_n;
    uint8_t u8[4];
    int u8_len, u8_need;
    uint8_t u8_lo, u8_hi;
    const char *lit;
    int lit_pos;
    jt_kind lit_kind;
    int bom;
    jt_callback cb;
    void *user;
    char error[160];
    uint64_t error_offset;
} jt_tokenizer;

/* false on allocation failure. */
bool jt_init(jt_tokenizer *t, unsigned emit_depth, size_t capture_cap, jt_callback cb, void *user);
/* Frees the capture buffer. */
void jt_free(jt_tokenizer *t);
/* Starts in the middle of a document, `offset` bytes in, before a value inside the
 * containers `open` ("{[": an array that is a member of the root object); how a file
 * is parsed in pieces on several threads. false on allocation failure. */
bool jt_init_resumed(jt_tokenizer *t, unsigned emit_depth, size_t capture_cap, jt_callback cb, void *user,
                     const char *open, uint64_t offset);
/* Is t exactly where jt_init_resumed(open, offset) starts: after `offset` bytes, before a
 * value inside `open`, every key value reported, no error? */
bool jt_is_at(const jt_tokenizer *t, const char *open, uint64_t offset);
/* false once the input is known to be invalid (see jt_error). */
bool jt_feed(jt_tokenizer *t, const uint8_t *buf, size_t n);
/* Decimal text (a valid JSON number or Python float literal, ASCII) to double, correctly
 * rounded: exact fast path for short decimals, strtod otherwise. */
double jt_strtod(const char *s, size_t n);
/* End of input: false when the document is incomplete or invalid. */
bool jt_finish(jt_tokenizer *t);
/* The first error and its byte offset, for a warning naming the file and offset. */
const char *jt_error(const jt_tokenizer *t);   /* "" when there is none */
uint64_t jt_error_offset(const jt_tokenizer *t);

#endif
