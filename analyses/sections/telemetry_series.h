/* telemetry_series: one GPU's telemetry over time in bounded memory — at most TS_MAX_POINTS
 * time buckets, each with the count, mean and max of utilisation, VRAM and power — for the
 * dashboard's line charts (the `series` of each GPU of the telemetry section,
 * docs/ANALYSIS.md "telemetry").
 *
 * Buckets are aligned to multiples of their width, a power of two nanoseconds: bucket i holds
 * the samples with floor(t / 2^shift) == i. The width is the smallest power of two for which
 * the samples' time range [t_min, t_max] falls in at most TS_MAX_POINTS buckets; when a sample
 * widens the range past that, the width doubles (pairs of buckets merge exactly: the grids
 * nest) until it fits. The width therefore depends only on the earliest and latest sample,
 * not on their order, and two series of the same GPU (two files) merge into the one a single
 * pass would give (up to the order of the float sums). */
#ifndef GOBLIN_TELEMETRY_SERIES_H
#define GOBLIN_TELEMETRY_SERIES_H

#include <stdbool.h>
#include <stdint.h>

#include "base/json_writer.h"

#define TS_MAX_POINTS 240

enum { TS_UTIL, TS_VRAM, TS_POWER, TS_QUANTITIES };

typedef struct ts_acc {          /* count, sum and max of one quantity in one bucket */
    uint64_t n;
    double sum, max;
} ts_acc;

typedef struct ts_bucket {
    uint64_t samples;
    ts_acc q[TS_QUANTITIES];
} ts_bucket;

typedef struct telemetry_series {
    ts_bucket *b;                /* TS_MAX_POINTS buckets, allocated on the first timed sample */
    int shift;                   /* bucket width 2^shift ns */
    int64_t base;                /* the index of b[0] (t >> shift, rounded down) */
    int64_t t_min, t_max;        /* the earliest and latest sample time */
    bool any;
} telemetry_series;

/* Adds a sample at time t (ns); v[q] is used when has[q] and finite. Times beyond +-2^62 ns are
 * ignored (true). false on OOM. */
bool ts_add(telemetry_series *s, int64_t t, const double v[TS_QUANTITIES], const bool has[TS_QUANTITIES]);
/* Adds every bucket of src into dst (re-binning either as needed). false on OOM. */
bool ts_merge(telemetry_series *dst, const telemetry_series *src);
/* Writes the series as an object of parallel arrays (non-empty buckets only), or null. */
void ts_render(const telemetry_series *s, jw_out *w);
/* Frees the buckets; s is then an empty series. */
void ts_free(telemetry_series *s);

#endif
