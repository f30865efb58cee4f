/* msprof_csv: the msprof-op-csv and msprof-reference-csv formats (see msprof_csv.c). */
#ifndef GOBLIN_MSPROF_CSV_H
#define GOBLIN_MSPROF_CSV_H

#include <stdbool.h>
#include <stddef.h>

#include "base/i128.h"
#include "parsers/artefact.h"

extern const artefact_parser msprof_op_csv_parser;
extern const artefact_parser msprof_reference_csv_parser;

/* Decimal microseconds text to integer nanoseconds, exactly (fixed point; digits past the
 * nanosecond round to nearest, ties away from zero). false: not a plain non-negative
 * decimal ("1e3", "-1", "", "12a"). */
bool msprof_us_to_ns(const char *p, size_t n, i128 *out);

#endif
