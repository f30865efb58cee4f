/* series: the verdicts of a series of runs — GET /series, GET /series/<key>, the `regression`
 * event and the per-series gauges of /metrics.
 *
 * Each complete run with per-step wall times is compared (base/noise_stats' ns_median_diff:
 * difference of medians, 95 % bootstrap interval, fixed seed) with
 *  - the previous complete run of its series that has per-step times (`vs_previous`), and
 *  - its baseline: the last N such runs before it (N = series_baseline_runs), their per-step
 *    wall times pooled into one sample (`vs_baseline`).
 * A run is a regression when its verdict against the baseline is `slower`. A run being parsed
 * again (pending or running, its row from the last parse still stored) counts with that parse's
 * times, so a re-ingest of many runs judges each against the same runs whatever the order. The method is in
 * docs/ANALYSIS.md "Series and regressions"; the series membership is storage/run_series.h. Given
 * the API's series_cache, a verdict whose inputs (the per-step times of the run and of its
 * reference runs) were judged before is taken from it instead of tested again (series_cache.h). */
#ifndef GOBLIN_SERIES_H
#define GOBLIN_SERIES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "api/series_cache.h"
#include "base/noise_stats.h"
#include "base/strbuf.h"
#include "storage/run_series.h"

/* The default and largest series_baseline_runs. */
#define SERIES_BASELINE_DEFAULT 5
#define SERIES_BASELINE_MAX 100
/* The default and largest ?limit= of GET /series/<key>, and of the series GET /series lists. */
#define SERIES_LIMIT_DEFAULT 50
#define SERIES_LIMIT_MAX 1000
/* How many runs before the first one listed are read to find its previous run and baseline:
 * 4 N + 16 (runs that are not complete or have no per-step times are skipped). */
#define SERIES_LOOKBACK(n) (4 * (n) + 16)

typedef struct series_point {
    char *id;
    run_status status;
    int64_t created_at_ms;
    opt_num step_seconds, tokens_per_sec, busy_pct;
    double *walls;               /* per-step wall times, ns */
    size_t nwalls;
    bool has_digest;             /* digest: series_cache_walls_digest of walls (with a cache) */
    uint8_t digest[SERIES_CACHE_DIGEST];
    long prev;                   /* index of vs_previous's run, -1: none */
    size_t nbase;
    long base_idx[SERIES_BASELINE_MAX];   /* the baseline's runs, newest first */
    series_verdict vs_prev, vs_base;
} series_point;

typedef struct series_eval {
    char key[SERIES_KEY_MAX + 1];
    char key_source[16];
    int baseline_runs;
    series_cache *cache;         /* NULL: every verdict computed */
    series_point *p;
    size_t n, cap;
} series_eval;

/* Reads the newest `shown` runs of series key and the SERIES_LOOKBACK runs before them;
 * returns the runs read (0: no such series) or -1 on an error / out of memory. Free with
 * series_eval_free. With a cache (NULL: none), verdicts whose inputs were judged before are
 * taken from it and new ones stored in it: the same answers, without the bootstrap. */
int series_load(store_reader *rd, const char *key, int shown, int baseline_runs, series_cache *cache, series_eval *s);
void series_eval_free(series_eval *s);
/* Computes point i's vs_previous and vs_baseline (false: out of memory). */
bool series_evaluate(series_eval *s, size_t i);

/* GET /series/<key>'s body for the newest `shown` points (NULL: out of memory). */
json_t *series_body(series_eval *s, int shown);
/* GET /series's body, at most limit series (NULL: out of memory or an error). */
json_t *series_list_body(store_reader *rd, int limit, int baseline_runs, series_cache *cache);
/* The `regression` event's data for run_id when its latest parse makes it a regression (NULL
 * otherwise): {"series", "run", "baseline_median_ms", "candidate_median_ms", "delta_pct",
 * "ci95_pct"}. */
json_t *series_regression_of(store_reader *rd, const char *run_id, int baseline_runs, series_cache *cache);
/* The per-series gauges of /metrics into out (exposition text): goblind_series_regression and
 * goblind_series_step_time_delta_ratio of the newest max_series series (the latest complete run
 * against its baseline), and goblind_series_dropped, the series beyond that bound. false when
 * the series could not all be read or judged (memory, I/O): out is then not the whole answer. */
bool series_metrics(store_reader *rd, int max_series, int baseline_runs, series_cache *cache, strbuf *out);

#endif
