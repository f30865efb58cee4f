/* run_series: which series each run belongs to, and what a series verdict reads.
 *
 * A series is the runs that share a key (docs/ANALYSIS.md "Series and regressions"): the
 * sidecar's `labels.series` when it is a non-empty string of at most SERIES_KEY_MAX bytes
 * (key_source "label"), else a fingerprint "fp-<16 hex>" of what the run knows of its setup
 * (key_source "fingerprint", run_series_key_of); a run knowing none of it is in no series.
 * Table run_series (schema 11): one row per run in a series, written in store_ingest's
 * transaction from the headline JSON and the analysis document being stored (the previous
 * parse's row replaced), with the run's per-step wall times (the analysis's steps.items[].wall_ns,
 * a JSON array), deleted with the run by cascade. A series is ordered by when goblind first
 * saw each run (runs.created_at), then by id. */
#ifndef GOBLIN_RUN_SERIES_H
#define GOBLIN_RUN_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/opt_num.h"
#include "storage/store.h"

#define SERIES_KEY_MAX 128

/* What the fingerprint is made of, each NULL (has_devices false) when the run does not know it. */
typedef struct series_facts {
    const char *label;           /* labels.series */
    const char *model;           /* labels.model */
    const char *precision;       /* the declared precision (sidecar or goblin metadata) */
    const char *gpu;             /* device.name */
    bool has_devices;
    int64_t devices;             /* device.device_count: the GPUs the run's traces show */
    const char *pytorch, *rocm, *cuda, *driver, *runtime;   /* device.*_version */
} series_facts;

/* The run's series key into out (at least SERIES_KEY_MAX + 1 bytes); returns its source
 * ("label" or "fingerprint"), or NULL when the run is in no series. The fingerprint is the
 * FNV-1a 64-bit hash (base/str_hash.h) of the lines "name=value\n" of the known facts in the
 * order model, precision, gpu, devices, pytorch, rocm, cuda, driver, runtime, as 16 lowercase
 * hex digits after "fp-". */
const char *run_series_key_of(const series_facts *f, char *out, size_t n);

/* Inside store_ingest's transaction: the run's series row from its headline JSON (labels,
 * precision) and analysis document (either may be NULL or not JSON: its facts are unknown).
 * An SQLite result code. (json_valid() answers 0 when memory runs out: store_ingest then
 * rolls the write back, seeing SQLite's failed allocation, storage/sqlite_mem.h.) */
int run_series_write(sqlite3 *db, const char *run_id, const char *headline_json, const char *analysis_json);

/* One series of GET /series. */
typedef struct series_row {
    const char *key, *key_source;
    int64_t runs;
    const char *latest_run;      /* the newest run of the series */
} series_row;
typedef void (*series_row_fn)(void *user, const series_row *row);
/* The series, the one with the newest run first, at most limit of them; returns how many
 * series there are in all (beyond limit too), or -1 on an error. */
int store_series_list(store_reader *r, int limit, series_row_fn fn, void *user);

/* One run of a series, for its verdicts. */
typedef struct series_run_row {
    const char *id;
    run_status status;
    int64_t created_at_ms;       /* when goblind first saw it: the series order */
    opt_num step_seconds, tokens_per_sec, busy_pct;   /* busy_pct: timeline busy / span x 100 */
    const char *walls_json;      /* per-step wall times in ns, a JSON array; NULL: none */
} series_run_row;
typedef void (*series_run_fn)(void *user, const series_run_row *row);
/* The newest `newest` runs of series `key`, oldest first, and the key's source into
 * key_source (at least 16 bytes); returns the rows, 0 when there is no such series, -1 on an
 * error. */
int store_series_runs(store_reader *r, const char *key, int newest, series_run_fn fn, void *user, char *key_source,
                      size_t key_source_len);
/* The series key of a run into key (SERIES_KEY_MAX + 1 bytes); false when it is in none. */
bool store_run_series_key(store_reader *r, const char *run_id, char *key, size_t n);

#endif
