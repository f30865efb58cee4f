/* schema: the migrations that build and upgrade goblind's database (schema.h). */
#include "storage/schema.h"

#include <stdio.h>

/* Each entry moves the schema from version i to i + 1. Never edit a shipped entry: add one. */
static const char *const MIGRATIONS[] = {
    "CREATE TABLE runs ("
    "  id TEXT PRIMARY KEY,"
    "  root TEXT NOT NULL,"
    "  path TEXT NOT NULL,"
    "  status TEXT NOT NULL,"
    "  created_at INTEGER NOT NULL,"
    "  updated_at INTEGER NOT NULL,"
    "  completed_at INTEGER,"
    "  ingest_count INTEGER NOT NULL DEFAULT 0,"
    "  parse_ms REAL,"
    "  error TEXT,"
    "  metrics_json TEXT,"
    "  tokens_per_sec REAL, mfu_pct REAL, gpu_util_pct REAL, step_seconds REAL, hbm_peak_gb REAL"
    ") WITHOUT ROWID;"
    "CREATE INDEX runs_by_update ON runs(updated_at DESC, id DESC);"
    "CREATE TABLE artefacts ("
    "  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  kind TEXT NOT NULL,"
    "  path TEXT NOT NULL,"
    "  present INTEGER NOT NULL,"
    "  size INTEGER, mtime_ns INTEGER, inode INTEGER, bytes_parsed INTEGER,"
    "  parse_ms REAL, format TEXT,"
    "  PRIMARY KEY (run_id, kind)"
    ") WITHOUT ROWID;"
    "CREATE TABLE kernels ("
    "  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  name TEXT NOT NULL,"
    "  calls INTEGER NOT NULL, total_ns INTEGER NOT NULL, min_ns INTEGER NOT NULL, max_ns INTEGER NOT NULL,"
    "  flags INTEGER NOT NULL,"
    "  PRIMARY KEY (run_id, name)"
    ");",
    /* 2: why an artefact did not parse (its first warning) */
    "ALTER TABLE artefacts ADD COLUMN error TEXT;",
    /* 3: listing by status, newest first, from the index */
    "CREATE INDEX runs_by_status ON runs(status, updated_at DESC, id DESC);",
    /* 4: the RunMetrics body in its own table: run rows stay small, so listing reads no blobs */
    "CREATE TABLE run_metrics ("
    "  run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
    "  json TEXT NOT NULL"
    ") WITHOUT ROWID;"
    "INSERT INTO run_metrics(run_id, json) SELECT id, metrics_json FROM runs WHERE metrics_json IS NOT NULL;"
    "ALTER TABLE runs DROP COLUMN metrics_json;",
    /* 5: how each artefact was read (core/read_facts_json: columns, rows, step sources); the
     * heuristics changed (the seven real-file rules), so every stored signature is voided and
     * each run is parsed again on start rather than keep numbers the new rules would not give */
    "ALTER TABLE artefacts ADD COLUMN reading TEXT;"
    "UPDATE artefacts SET mtime_ns = -1;",
    /* 6: a headline column is NULL when not measured; before, 0 stood for unknown, so a
     * stored 0 becomes NULL (what it was listed as) until the run's next parse */
    "UPDATE runs SET tokens_per_sec = NULLIF(tokens_per_sec, 0), mfu_pct = NULLIF(mfu_pct, 0),"
    " gpu_util_pct = NULLIF(gpu_util_pct, 0), step_seconds = NULLIF(step_seconds, 0),"
    " hbm_peak_gb = NULLIF(hbm_peak_gb, 0);",
    /* 7: the analysis document and the Markdown report of each run's last parse, in
     * a table of their own like the RunMetrics body; a NULL column is "not produced" (no driver
     * yet, or the parse gave none), never an empty document. Deleting the run deletes them. */
    "CREATE TABLE run_analysis ("
    "  run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
    "  json TEXT,"
    "  report_md TEXT"
    ") WITHOUT ROWID;",
    /* 8: the rest of what /compare and Prometheus read as columns (the API reads no
     * stored JSON for numbers): the mean HBM (known with the peak) and the waste budget's buckets
     * (known with the step time), filled for stored runs from their RunMetrics body (a body that
     * is not JSON leaves them NULL: unknown, and the migration still runs) */
    "ALTER TABLE runs ADD COLUMN hbm_avg_gb REAL;"
    "ALTER TABLE runs ADD COLUMN waste_useful_gpu REAL;"
    "ALTER TABLE runs ADD COLUMN waste_data_wait REAL;"
    "ALTER TABLE runs ADD COLUMN waste_host_gap REAL;"
    "ALTER TABLE runs ADD COLUMN waste_comm_excess REAL;"
    "ALTER TABLE runs ADD COLUMN waste_memory_headroom REAL;"
    "ALTER TABLE runs ADD COLUMN waste_precision_path REAL;"
    "ALTER TABLE runs ADD COLUMN waste_kernel_shape REAL;"
    "UPDATE runs SET hbm_avg_gb = (SELECT json_extract(json, '$.hbm_avg_gb') FROM run_metrics"
    "  WHERE run_id = id AND json_valid(json)) WHERE hbm_peak_gb IS NOT NULL;"
    "UPDATE runs SET (waste_useful_gpu, waste_data_wait, waste_host_gap, waste_comm_excess, waste_memory_headroom,"
    "  waste_precision_path, waste_kernel_shape) = (SELECT json_extract(json, '$.waste_budget.useful_gpu'),"
    "  json_extract(json, '$.waste_budget.data_wait'), json_extract(json, '$.waste_budget.host_gap'),"
    "  json_extract(json, '$.waste_budget.comm_excess'), json_extract(json, '$.waste_budget.memory_headroom'),"
    "  json_extract(json, '$.waste_budget.precision_path'), json_extract(json, '$.waste_budget.kernel_shape')"
    "  FROM run_metrics WHERE run_id = id AND json_valid(json))"
    " WHERE step_seconds IS NOT NULL;",
    /* 9: the analysis headline numbers per run (Prometheus and /compare read them as
     * rows, never the stored document), each kernel row's class, and where a run's kernel rows
     * came from (RunMetrics' table, or the analysis's kernels section for a run whose kernels
     * only another format carries). Stored signatures are voided so every run is
     * parsed again on start and gets its numbers. */
    "CREATE TABLE run_gauges ("
    "  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  name TEXT NOT NULL,"
    "  value REAL NOT NULL,"
    "  PRIMARY KEY (run_id, name)"
    ") WITHOUT ROWID;"
    "ALTER TABLE kernels ADD COLUMN class TEXT;"
    "ALTER TABLE runs ADD COLUMN kernels_source TEXT;"
    "ALTER TABLE runs ADD COLUMN kernels_formats TEXT;"
    "UPDATE artefacts SET mtime_ns = -1;",
    /* 10: what kind of profile each run is (the source families it holds, comma-separated,
     * docs/API.md) and where each headline number came from with the run's labels (JSON: {"sources": {field:
     * {source, rule}}, "labels": {...}}).
     * A run is complete when a source was read, not when goblin's files are there, so
     * stored signatures are voided and every run is ingested again on start. */
    "ALTER TABLE runs ADD COLUMN profile TEXT;"
    "ALTER TABLE runs ADD COLUMN headline_json TEXT;"
    "UPDATE artefacts SET mtime_ns = -1;",
    /* 11: the series each run belongs to (storage/run_series.h: the sidecar's labels.series or a
     * fingerprint of the run's setup) with its per-step wall times, for GET /series and the
     * regression verdicts. Stored signatures are voided so every run is ingested again on start
     * and gets its series. */
    "CREATE TABLE run_series ("
    "  run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
    "  series_key TEXT NOT NULL,"
    "  key_source TEXT NOT NULL,"
    "  step_walls TEXT"
    ") WITHOUT ROWID;"
    "CREATE INDEX run_series_by_key ON run_series(series_key);"
    "UPDATE artefacts SET mtime_ns = -1;",
};
#define SCHEMA_VERSION ((int)(sizeof MIGRATIONS / sizeof MIGRATIONS[0]))

int schema_version(void) { return SCHEMA_VERSION; }

static int exec(sqlite3 *db, const char *sql, char *err, size_t errlen) {
    char *msg = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK && err) snprintf(err, errlen, "%s", msg ? msg : sqlite3_errstr(rc));
    sqlite3_free(msg);
    return rc;
}

int schema_migrate(sqlite3 *db, char *err, size_t errlen) {
    sqlite3_stmt *st;
    int version = 0;
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) version = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    if (version > SCHEMA_VERSION) {
        snprintf(err, errlen, "database schema version %d is newer than this goblind (%d)", version, SCHEMA_VERSION);
        return -1;
    }
    for (int v = version; v < SCHEMA_VERSION; v++) {
        char sql[64];
        if (exec(db, "BEGIN IMMEDIATE", err, errlen) != SQLITE_OK) return -1;
        snprintf(sql, sizeof sql, "PRAGMA user_version=%d", v + 1);
        if (exec(db, MIGRATIONS[v], err, errlen) != SQLITE_OK || exec(db, sql, err, errlen) != SQLITE_OK) {
            exec(db, "ROLLBACK", NULL, 0);
            return -1;
        }
        if (exec(db, "COMMIT", err, errlen) != SQLITE_OK) return -1;
    }
    return 0;
}

