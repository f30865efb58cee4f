/* json_out: a minimal streaming JSON writer into a strbuf.
 *
 * Output is always valid UTF-8 and valid JSON: invalid bytes become U+FFFD, control
 * characters are escaped, and non-finite numbers are never written (callers decide
 * what they mean; json_number writes 0 for them). Numbers use the shortest text that
 * reads back to the same double. */
#ifndef GOBLIN_JSON_OUT_H
#define GOBLIN_JSON_OUT_H

#include <stdbool.h>
#include <stdint.h>

#include "parsers/text_utf8.h"

typedef struct json_out {
    strbuf *buf;
    int indent;          /* 0: compact */
    int depth;
    bool need_comma[64];
    bool after_key;
} json_out;

void json_begin(json_out *j, strbuf *buf, int indent);
void json_object_open(json_out *j);
void json_object_close(json_out *j);
void json_array_open(json_out *j);
void json_array_close(json_out *j);
void json_key(json_out *j, const char *key);
void json_string(json_out *j, const char *s);
void json_string_n(json_out *j, const char *s, size_t n);
void json_number(json_out *j, double v);
void json_int(json_out *j, int64_t v);
void json_bool(json_out *j, bool v);
void json_null(json_out *j);
/* Appends pre-rendered JSON text as one value. */
void json_raw(json_out *j, const char *text);
/* Shortest round-trip text of a finite double (at least one digit after a '.' or an exponent). */
void json_format_double(double v, char out[32]);

#endif
