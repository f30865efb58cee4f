/* series_cache: the series verdicts already computed, in memory, so GET /series/<key>, GET
 * /series and the per-series gauges of /metrics do not redo two bootstrap tests per listed run
 * on every request (docs/ANALYSIS.md "Series and regressions", docs/OPERATIONS.md).
 *
 * A verdict (base/noise_stats' ns_median_diff) is a pure function of the candidate's per-step
 * wall times and of the reference sample's (the previous run's, or the pooled baseline's). The
 * key is a SHA-256 digest of exactly those inputs: each run's digest is SHA-256 of its parsed
 * per-step times as stored now (series_cache_walls_digest), and a verdict's key is SHA-256 of
 * the candidate's digest and the digests of the reference runs in pooling order
 * (series_cache_key_of). A re-ingest that changes a run's times, a DELETE that changes a
 * baseline, a different series_baseline_runs: each gives other inputs, so another key, never a
 * stale verdict. The key carries no run id: the same inputs are the same verdict.
 *
 * Bounded: at most SERIES_CACHE_ENTRIES entries of fixed size (series_cache_bytes() in all),
 * the least recently used one replaced when full. Hits, misses and evictions are counted for
 * /metrics (goblind_series_verdict_cache_*). Thread-safe (one mutex; the tests themselves run
 * outside it). */
#ifndef GOBLIN_SERIES_CACHE_H
#define GOBLIN_SERIES_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/noise_stats.h"

/* The default bound on entries (each sizeof one entry: series_cache_bytes() in all). */
#define SERIES_CACHE_ENTRIES 32768
#define SERIES_CACHE_DIGEST 32   /* SHA-256 */

/* One comparison of a run with a reference sample. */
typedef struct series_verdict {
    bool present;                /* there is a reference */
    ns_result test;
    double base_median_ns, cand_median_ns;
    bool has_median[2];
} series_verdict;

typedef struct series_cache_key {
    uint8_t b[SERIES_CACHE_DIGEST];
} series_cache_key;

typedef struct series_cache_stats {
    uint64_t hits, misses, evictions;
    size_t entries, capacity, bytes;   /* bytes: the table's whole allocation (the bound) */
} series_cache_stats;

typedef struct series_cache series_cache;

/* A cache of at most capacity (>= 1) verdicts; NULL when out of memory. */
series_cache *series_cache_new(size_t capacity);
void series_cache_free(series_cache *c);

/* The digest of a run's per-step wall times (n may be 0); false when the hash is unavailable
 * (then the run's verdicts are computed without the cache). */
bool series_cache_walls_digest(const double *walls, size_t n, uint8_t out[SERIES_CACHE_DIGEST]);
/* The key of the verdict of the candidate against the pooled reference runs (refs[i] their
 * digests, in pooling order); false when the hash is unavailable. */
bool series_cache_key_of(const uint8_t cand[SERIES_CACHE_DIGEST], const uint8_t *const *refs, size_t nrefs,
                         series_cache_key *key);

/* The verdict stored under key into *out: true on a hit. Counts a hit or a miss. */
bool series_cache_get(series_cache *c, const series_cache_key *key, series_verdict *out);
/* Stores v under key (replacing the least recently used entry when full). */
void series_cache_put(series_cache *c, const series_cache_key *key, const series_verdict *v);
/* The counters and the size. */
void series_cache_stats_get(series_cache *c, series_cache_stats *out);

#endif
