/* metrics_cache: the last /runs/<id>/metrics answer per run, in memory, so the agent's
 * polling and dashboards' scrapes cost a hash lookup instead of a SQLite query. Entries
 * are dropped by api_notify_run() whenever the tracker changes a run, so the cache is never
 * ahead of or behind the database by more than that notification. Bounded: a fixed table,
 * the oldest entry in a probe window is replaced when it is full. Thread-safe. */
#ifndef GOBLIN_METRICS_CACHE_H
#define GOBLIN_METRICS_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "storage/store.h"

typedef struct metrics_cache metrics_cache;

typedef struct cached_run {
    run_status status;
    int64_t ingest_count;
    char *body;                  /* RunMetrics JSON, or NULL when the run has none */
    size_t len;
} cached_run;

metrics_cache *metrics_cache_new(size_t capacity);
void metrics_cache_free(metrics_cache *c);
/* A copy of the entry (caller frees out->body); false on a miss. */
bool metrics_cache_get(metrics_cache *c, const char *id, cached_run *out);
void metrics_cache_put(metrics_cache *c, const char *id, const cached_run *run);
void metrics_cache_drop(metrics_cache *c, const char *id);

#endif
