/* compare: GET /compare?base=<id>&candidate=<id> — two runs' RunMetrics side by side, the
 * delta of every headline number and waste bucket, the speed-up, and a one-line summary
 * such as "tokens/s 142 → 318 (2.24×)". */
#ifndef GOBLIN_COMPARE_H
#define GOBLIN_COMPARE_H

#include <jansson.h>

/* Builds the comparison body from two RunMetrics objects (borrowed). */
json_t *compare_runs(const char *base_id, json_t *base, const char *cand_id, json_t *cand);
/* "tokens/s 142 → 318 (2.24×)" into out. */
void compare_summary(double base_tps, double cand_tps, char *out, size_t n);

#endif
