/* metrics_cache: the last final /runs/<id>/metrics answer per run (complete, failed, empty or
 * gone with RunMetrics; a pending or running run is always read from the store), in memory, so
 * the agent's polling and dashboards' scrapes cost a hash lookup instead of a SQLite query. Entries
 * are dropped by api_notify_run() whenever the tracker changes a run, so the cache is never
 * ahead of or behind the database by more than that notification. Entries are versioned: a
 * reader takes metrics_cache_version() before it reads the store, and its put is dropped when
 * a drop of that run came in between (the read may predate the last commit), so the cache
 * never holds a state older than the store's. Bounded: a fixed table, the oldest entry in a
 * probe window is replaced when it is full. Thread-safe. */
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

/* An empty cache of about `capacity` runs' bodies; NULL on OOM. */
metrics_cache *metrics_cache_new(size_t capacity);
/* Frees the cache and every body in it (NULL: nothing). */
void metrics_cache_free(metrics_cache *c);
/* A copy of the entry (caller frees out->body); false on a miss. */
bool metrics_cache_get(metrics_cache *c, const char *id, cached_run *out);
/* The version to pass to metrics_cache_put(): take it before reading the store. */
uint64_t metrics_cache_version(metrics_cache *c, const char *id);
/* Keeps a copy of run, unless the run was dropped since `version` was taken (then the
 * read that produced it may be older than the store, and it is not kept). */
void metrics_cache_put(metrics_cache *c, const char *id, const cached_run *run, uint64_t version);
/* Forgets the run and moves its version on, so puts of reads begun before are refused. */
void metrics_cache_drop(metrics_cache *c, const char *id);

#endif
