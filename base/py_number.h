/* py_number: text -> number exactly as the reference's Python does it.
 *
 * The reference converts cells and JSON strings with float(v) and int(v): both strip
 * Unicode whitespace, accept '_' between digits, and float() accepts inf/nan words.
 * Matching that grammar (and nothing more: no hex floats, no "nan(...)") keeps our
 * numbers identical to the reference on messy telemetry. Non-ASCII digits, which Python
 * also accepts, are not numbers here (see docs/HEURISTICS.md). */
#ifndef GOBLIN_PY_NUMBER_H
#define GOBLIN_PY_NUMBER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/i128.h"

/* float(text): true and *out set (possibly inf or nan) when Python would accept it. */
bool py_float(const char *s, size_t n, double *out);
/* The reference's number(): float(text) that is also finite. */
bool py_number(const char *s, size_t n, double *out);
/* The reference's integer(): int(text) exactly, else int(float(text)) when finite.
 * Results beyond the 128-bit range saturate. */
bool py_integer(const char *s, size_t n, i128 *out);
/* int(x) for a finite double, saturating to the 128-bit range. */
i128 py_trunc(double x);

#endif
