/* run_gauges: the analysis headline numbers of each run and where its kernel rows came from.
 *
 * Table run_gauges (schema 9): one row (run_id, name, value) per number the run's analysis
 * knew, names from the fixed set INGEST_GAUGE_NAMES (core/ingest_doc.h); a number the
 * analysis did not know has no row (unknown, never 0). Written in store_ingest's transaction
 * (the previous parse's rows replaced), deleted with the run by cascade (DELETE /runs/<id>,
 * retention). Prometheus and /compare read these rows, never the stored document. The runs
 * columns kernels_source / kernels_formats say which table GET /runs/<id>/kernels serves. */
#ifndef GOBLIN_RUN_GAUGES_H
#define GOBLIN_RUN_GAUGES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/opt_num.h"
#include "storage/store.h"

/* Inside store_ingest's transaction: replaces the run's numbers with doc's and records the
 * kernel rows' source. An SQLite result code. */
int run_gauges_write(sqlite3 *db, const char *run_id, const ingest_doc *doc);

/* One stored number: gauge is its IG_* index. */
typedef void (*gauge_row_fn)(void *user, const char *run_id, int gauge, double value);
/* The numbers of the newest max_runs runs (the runs Prometheus lists, same order of
 * newness), ordered by run. Returns the rows read, or -1 on an error. */
int store_newest_gauges(store_reader *r, int max_runs, gauge_row_fn fn, void *user);
/* The numbers of one run into out[IG_COUNT] (has == false: not known). false on an error. */
bool store_run_gauges(store_reader *r, const char *run_id, opt_num out[IG_COUNT]);
/* The source of the run's kernel rows ("run_metrics" | "analysis") and the formats that gave
 * them, copied into the buffers ("" when none is stored). false when the run is unknown. */
bool store_kernels_source(store_reader *r, const char *run_id, char *source, size_t source_len, char *formats,
                          size_t formats_len);

#endif
