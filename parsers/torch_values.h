/* torch_values: the small value readers of the torch profile's records state
 * (parsers/torch_trace_records.c): microseconds text to fixed-point nanoseconds, integer ids,
 * JSON string quoting for the operator shapes text. Pure functions, no state. */
#ifndef GOBLIN_TORCH_VALUES_H
#define GOBLIN_TORCH_VALUES_H

#include <stdbool.h>
#include <stdint.h>

#include "base/i128.h"
#include "base/strbuf.h"
#include "parsers/json_tokenizer.h"

/* An integer (ids, devices, streams): decimal digits, else strtoll's reading ("0x0"); false
 * when the token is not one. */
bool torch_token_i64(const jt_token *t, int64_t *out);
/* Appends s (valid UTF-8) as a JSON string: quotes, backslashes and control bytes escaped. */
void torch_json_string(strbuf *b, const char *s, size_t n);

#endif
