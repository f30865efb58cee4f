/* json_writer: a minimal streaming JSON writer into a strbuf (jw_ prefix).
 *
 * Output is always valid UTF-8 and valid JSON: invalid bytes become U+FFFD, control
 * characters are escaped, and non-finite numbers are never written (jw_number writes
 * null for them: an overflowed sum or ratio is unknown, not a measured 0). Numbers use the shortest text that
 * reads back to the same double. */
#ifndef GOBLIN_JSON_OUT_H
#define GOBLIN_JSON_OUT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/i128.h"
#include "base/text_utf8.h"

typedef struct jw_out {
    strbuf *buf;
    int indent;          /* 0: compact */
    int depth;
    bool need_comma[64];
    bool after_key;
} jw_out;

/* Starts writing JSON text into buf, indented by `indent` spaces a level (0: compact). */
void jw_begin(jw_out *j, strbuf *buf, int indent);
/* A renderer that lost a part for lack of memory says so: the text is marked failed
 * (strbuf.failed), so whoever terminates it learns it is incomplete, never stores it. */
void jw_fail(jw_out *j);
void jw_object_open(jw_out *j);
void jw_object_close(jw_out *j);
void jw_array_open(jw_out *j);
void jw_array_close(jw_out *j);
void jw_key(jw_out *j, const char *key);
void jw_string(jw_out *j, const char *s);
void jw_string_n(jw_out *j, const char *s, size_t n);
/* v as the shortest JSON number that reads back to it; null when v is not finite. */
void jw_number(jw_out *j, double v);
void jw_int(jw_out *j, int64_t v);
void jw_bool(jw_out *j, bool v);
void jw_null(jw_out *j);
/* A value that is already JSON text (a stored document, served as stored), written as is: the
 * caller vouches that it is one valid JSON value. */
void jw_json(jw_out *j, const char *json, size_t len);
/* An i128 as a JSON number (exact up to 2^63). */
void jw_i128_value(jw_out *j, i128 v);
/* A count as a JSON integer (exact up to 2^63). */
void jw_u64(jw_out *j, uint64_t v);
/* A quantity integral by definition (bytes, a count) held in a double: a JSON integer when
 * it is a whole number within int64, else a number (so bytes never print as "933232640.0"). */
void jw_whole(jw_out *j, double v);
/* Shortest round-trip text of a finite double (at least one digit after a '.' or an exponent). */
void jw_format_double(double v, char out[32]);

#endif
