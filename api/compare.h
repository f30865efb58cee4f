/* compare: GET /compare?base=<id>&candidate=<id> — two runs' RunMetrics side by side, the
 * delta of every headline number and waste bucket, the speed-up, the document-based diff
 * (api/compare_diff: step-time verdict, kernels, operators, classes, step parts) and a one-line
 * summary such as "step 182 ms → 171 ms (−6.0 %, 95 % CI −7.1 … −4.8 %): faster; …; tokens/s
 * 142 → 318 (2.24×)". */
#ifndef GOBLIN_COMPARE_H
#define GOBLIN_COMPARE_H

#include <stddef.h>

#include "base/json_writer.h"
#include "base/strbuf.h"
#include "storage/store.h"

/* One side: the run's stored headline columns (has == false: not measured) and its stored
 * RunMetrics text, embedded in the body as stored. */
typedef struct compare_side {
    char *id;
    char *metrics_json;
    opt_num tokens_per_sec, mfu_pct, hbm_peak_gb, hbm_avg_gb, gpu_util_pct, step_seconds;
    opt_num waste[INGEST_WASTE_BUCKETS];
    opt_num gauge[IG_COUNT];      /* the stored analysis numbers (storage/run_gauges.h), IG_* order */
} compare_side;

/* Copies what /compare needs from a stored run row into side (free with compare_side_free);
 * false when out of memory. */
bool compare_side_from_row(compare_side *side, const run_row *row);
/* Frees what compare_side_from_row copied (the id and the RunMetrics text). */
void compare_side_free(compare_side *side);

/* Writes the comparison body into out (the analysis numbers are the side's gauge[], read by
 * the caller with store_run_gauges: `timeline` in seconds and `kernel_classes` per class with
 * a ratio): a number one side did not measure is null on that side
 * and its delta is null, never a delta against a 0 placeholder; without a step time the waste
 * buckets are not known either. Both sides need their RunMetrics text. */
struct compare_diff;
/* diff (NULL: no documents) adds its keys and leads the summary. */
void compare_runs(const compare_side *base, const compare_side *cand, const struct compare_diff *diff, strbuf *out);
/* key: {base, candidate, delta, delta_pct}; a side not measured is null, and so is the delta. */
void compare_delta_object(jw_out *j, const char *key, opt_num base, opt_num cand);
/* "tokens/s 142 → 318 (2.24×)" into out. */
void compare_summary(double base_tps, double cand_tps, char *out, size_t n);

#endif
