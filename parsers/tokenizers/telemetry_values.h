/* telemetry_values: the cell grammar the telemetry formats share (nvidia-smi, amd-smi,
 * rocm-smi, madengine): a number with an optional unit word, and a wall-clock timestamp. */
#ifndef GOBLIN_TELEMETRY_VALUES_H
#define GOBLIN_TELEMETRY_VALUES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/i128.h"

/* The number in a cell such as " 841 MiB", "22 %", "387.26", "65.0 W": blanks and one
 * trailing unit word (letters, '%', '[', ']') removed, then Python's float() grammar. The
 * unit word, when there is one, must be one of `units` (blank-separated, case ignored: "W",
 * "MB MiB"; "" accepts none): "65 mW" in a watts column is no number of watts. false for
 * "N/A", "[N/A]", "", "nan", a unit not listed and anything else that is not a finite number. */
bool telemetry_number(const char *s, size_t n, const char *units, double *out);

/* A sample's time in integer nanoseconds since the Unix epoch: "1786553852" or
 * "1786553852.25" (epoch seconds, amd-smi), "2024/10/30 18:42:33.189" (nvidia-smi),
 * "2025-09-24T03:48:33.493Z" / "2025-09-24 03:48:33.493000" (ISO 8601, madengine), with a
 * UTC offset ("2025-09-08T17:26:50+08:00", "+0800", "-05") converted to UTC; a day past
 * its month's end ("2025-02-31", "2023-02-29") is no time. A time
 * without zone is read as UTC (the tools write the node's local time and do not say which
 * zone: differences between samples, the cadence, are right either way). Up to 9
 * fraction digits are exact. false when the text is none of these. */
bool telemetry_time_ns(const char *s, size_t n, i128 *out);

/* A byte count from a number of MiB (nvidia-smi's and amd-smi's "MB" are 2^20 bytes),
 * rounded to the nearest byte. false when negative or too large. */
bool telemetry_mib_to_bytes(double mib, unsigned long long *out);

#endif
