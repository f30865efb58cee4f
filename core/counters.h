/* counters: the daemon's operational counters and histograms, written by the loop, the
 * worker pool and the HTTP thread, read by the Prometheus exporter. Lock-free (C11
 * atomics); durations are kept in microseconds so sums stay integral. */
#ifndef GOBLIN_COUNTERS_H
#define GOBLIN_COUNTERS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define HIST_MAX_BUCKETS 16

typedef struct histogram {
    const double *bounds;                 /* upper bounds in seconds, ascending */
    size_t n;
    atomic_uint_fast64_t buckets[HIST_MAX_BUCKETS];   /* per bucket, not cumulative */
    atomic_uint_fast64_t count, sum_us;
} histogram;

enum { INGEST_OK, INGEST_INCOMPLETE, INGEST_ERROR, INGEST_RESULTS };
#define HTTP_CODES 14

typedef struct goblind_counters {
    atomic_uint_fast64_t ingests[INGEST_RESULTS];     /* ok: artefacts parse; incomplete: not yet; error: not stored */
    atomic_uint_fast64_t parsed_bytes;
    atomic_int_fast64_t watched_dirs;
    atomic_uint_fast64_t http_requests[HTTP_CODES];   /* by code, see HTTP_CODE_VALUES */
    histogram parse_seconds, http_seconds;
} goblind_counters;

extern const char *const INGEST_RESULT_NAMES[INGEST_RESULTS];
extern const unsigned HTTP_CODE_VALUES[HTTP_CODES];   /* the last slot (0) counts any other code */

/* All counters at zero, the two histograms with their bucket bounds. */
void counters_init(goblind_counters *c);
/* Counts one observation of `seconds` in its bucket, the count and the sum. Lock-free. */
void counters_histogram_observe(histogram *h, double seconds);
/* Counts a request answered with `code` and times it. Lock-free. */
void counters_http(goblind_counters *c, unsigned code, double seconds);
/* Counts a request without timing it (long polls, whose duration is the client's choice). */
void counters_http_count(goblind_counters *c, unsigned code);

#endif
