/* compare: GET /compare?base=<id>&candidate=<id> — two runs' RunMetrics side by side, the
 * delta of every headline number and waste bucket, the speed-up, and a one-line summary
 * such as "tokens/s 142 → 318 (2.24×)". */
#ifndef GOBLIN_COMPARE_H
#define GOBLIN_COMPARE_H

#include <jansson.h>

#include "core/run_parse.h"

/* Builds the comparison body from two RunMetrics objects (borrowed). known (NULL: every
 * number measured) says which headline numbers each run's parse measured: a number one side
 * did not measure is null on that side and its delta is null, never a delta against a 0
 * placeholder; without a step time the waste buckets are not known either. */
json_t *compare_runs(const char *base_id, json_t *base, const headline_known *base_known, const char *cand_id,
                     json_t *cand, const headline_known *cand_known);
/* "tokens/s 142 → 318 (2.24×)" into out. */
void compare_summary(double base_tps, double cand_tps, char *out, size_t n);

#endif
