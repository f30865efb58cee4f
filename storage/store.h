/* store: goblind's SQLite database. Only this directory speaks SQL.
 *
 * One write connection, serialised by a mutex (the loop thread writes small status
 * changes, worker threads write whole ingests), and a small pool of read connections
 * for the HTTP threads. WAL lets readers run while an ingest commits. Every ingest is
 * one transaction, so a crash leaves the previous state of a run, never half a run.
 * The schema is versioned with PRAGMA user_version (see MIGRATIONS in store.c). */
#ifndef GOBLIN_STORE_H
#define GOBLIN_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/opt_num.h"
#include "core/artefact_kind.h"
#include "core/ingest_doc.h"

/* RUN_EMPTY: a quiet directory with no recognised file (docs/API.md "Run states"). Appended last so
 * the stored names, not the numbers, are what the database keeps. */
typedef enum { RUN_PENDING, RUN_RUNNING, RUN_COMPLETE, RUN_FAILED, RUN_GONE, RUN_EMPTY, RUN_STATUS_COUNT } run_status;

/* The status's stored and served name ("pending", "running", ...). */
const char *store_run_status_name(run_status s);
/* The status named s; false when s names none. */
bool store_run_status_parse(const char *s, run_status *out);

typedef struct store store;
typedef struct store_reader store_reader;

/* Artefact identity: a run is re-parsed only when one of these changed. */
typedef struct artefact_sig {
    bool present;
    uint64_t size, inode;
    int64_t mtime_ns;
} artefact_sig;

typedef struct run_sig {
    artefact_sig a[ARTEFACT_KIND_COUNT];
} run_sig;

/* Opens (creating and migrating) the database; max_size_mb > 0 bounds its size
 * (PRAGMA max_page_count). On failure returns NULL and sets *err (caller frees). */
store *store_open(const char *path, int max_size_mb, char **err);
void store_close(store *s);
/* The database file's full path (for connections of its own, e.g. kernel_cursor.h). */
const char *store_db_file(store *s);
/* The last SQLite error of the write side (as of the last write that failed), copied into
 * buf for logs; returns buf. Thread-safe. */
const char *store_last_error(store *s, char *buf, size_t n);
/* An ingest refused for lack of room (SQLITE_FULL: db_max_size_mb or a full disk): its run and
 * about how many more bytes its rows take than the stored version they replace
 * (ingest_doc_bytes; at least 64 KiB). */
#define STORE_REFUSALS 8
typedef struct store_refusal {
    char run_id[256];
    uint64_t need_bytes;
    bool landed;                 /* not a refusal: a run refused before was stored since */
} store_refusal;
/* The runs refused since the last call (each once, the newest need; at most STORE_REFUSALS),
 * and those of the last runs refused that were stored since (landed), into out; the list is
 * then empty. Thread-safe. */
size_t store_take_refusals(store *s, store_refusal *out);
/* NULL, or why the database is corrupt: PRAGMA quick_check failed at open, or a statement
 * reported SQLITE_CORRUPT / SQLITE_NOTADB since. Once set it stays set (thread-safe): the
 * API answers 503 with this reason and the tracker stops writing. */
const char *store_corruption(store *s);

/* ---- writes (thread-safe) ---- */

/* Creates the run if needed and sets its status (and root/path); complete and failed
 * also stamp completed_at. updated_at moves only when something changed. 0 on success. */
int store_set_status(store *s, const char *id, const char *root, const char *path, run_status st, int64_t now_ms);

typedef struct store_status {
    const char *id, *root, *path;
    run_status status;
} store_status;

/* store_set_status for n runs in one transaction (one commit for a burst, e.g. thousands of
 * new directories at once); all or nothing. 0 on success. */
int store_set_statuses(store *s, const store_status *items, size_t n, int64_t now_ms);

typedef struct ingest_record {
    const char *id, *root, *path;
    run_status status;
    int64_t now_ms;
    const ingest_doc *doc;         /* headline numbers, per-artefact facts, kernel rows (NULL: none) */
    const char *metrics_json;      /* rendered RunMetrics, compact */
    const char *error;             /* NULL, or why the run is not parseable yet */
    double parse_ms;
    int64_t read_began_ms;         /* > 0: when the parse began reading (ms since the epoch), for
                                      the forgotten-run check below; 0: no check */
    const char *profile;           /* the source families, comma-separated ("" or NULL: none) */
    const char *headline_json;  /* JSON {"sources": {field: {"source", "rule"}}, "labels": {...} or null}, or NULL */
} ingest_record;

/* store_ingest's answer when the run was forgotten (DELETE /runs/<id>, retention) at or after
 * rec->read_began_ms: the parse read files the delete already covered, so nothing is stored. */
#define STORE_INGEST_FORGOTTEN 1

/* Stores one parse of a run (row, artefacts, kernels, metrics) in one transaction. 0 when
 * stored, STORE_INGEST_FORGOTTEN when dropped (checked inside the same transaction, so a
 * delete cannot slip in between; the forgotten signature then takes this parse's files, so
 * a restart does not ingest them either), -1 on a database error. */
int store_ingest(store *s, const ingest_record *rec);

/* For the other storage/ modules (retention.c): runs fn on the write connection inside one
 * BEGIN IMMEDIATE ... COMMIT (rolled back when fn returns non-zero, or when one of SQLite's
 * allocations failed meanwhile, as store_ingest does); 0 on success. */
typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
int store_write_tx(store *s, int (*fn)(sqlite3 *db, void *arg), void *arg);
/* The connection of a reader (storage/ modules only). */
sqlite3 *store_reader_db(store_reader *r);
/* Returns rc after noting it: a SQLITE_CORRUPT / SQLITE_NOTADB from a reader's statement
 * marks the store corrupt (store_corruption), as the store's own reads do, and any error
 * marks this use of the reader failed (store_reader_failed) (storage/ modules). */
int store_reader_note(store_reader *r, int rc);
/* sqlite3_prepare_v2 on the reader's connection, its result noted (store_reader_note). */
int store_reader_prepare(store_reader *r, const char *sql, sqlite3_stmt **q);
/* Marks this use of the reader failed: memory ran out outside SQLite (storage/ modules). */
void store_reader_fail(store_reader *r);

/* ---- reads ---- */

/* Whether a read since store_reader_acquire failed (memory, I/O, corruption; asked on the
 * thread that acquired the reader): an answer of "not found", "none" or a short list may then
 * be wrong, and the caller answers an error rather than it. Memory running out counts even
 * where SQLite answered with a quiet wrong value (storage/sqlite_mem.h). */
bool store_reader_failed(const store_reader *r);

/* A free read connection, waiting until one is; give it back with store_reader_release. */
store_reader *store_reader_acquire(store *s);
/* Gives r back to the pool (and wakes one waiter). */
void store_reader_release(store *s, store_reader *r);

/* Status and stored artefact signature of a run; false when unknown. */
bool store_run_state(store_reader *r, const char *id, run_status *st, run_sig *sig, bool *has_metrics);
/* Fills sig from `sql` (?1 = the run id), whose rows are (kind, present, size, mtime_ns,
 * inode): the artefact signature of a stored run, or of a forgotten one (storage/retention). */
void store_read_sig(store_reader *r, const char *sql, const char *id, run_sig *sig);

typedef struct run_row {
    const char *id, *root, *path;
    run_status status;
    int64_t created_at, updated_at, completed_at;   /* ms since the epoch; 0 = never */
    int64_t ingest_count;
    double parse_ms;
    const char *error;             /* may be NULL */
    const char *metrics_json;      /* may be NULL */
    /* headline numbers; has == false: not measured (artefact missing) or not parsed yet */
    opt_num tokens_per_sec, mfu_pct, gpu_util_pct, step_seconds, hbm_peak_gb;
    opt_num hbm_avg_gb;                        /* known with hbm_peak_gb */
    opt_num waste[INGEST_WASTE_BUCKETS];       /* seconds per step, INGEST_WASTE_KEYS order; known with step_seconds */
    const char *profile;           /* source families, comma-separated; NULL: not ingested yet */
    const char *headline_json;  /* as ingest_record.headline_json; NULL: none */
} run_row;

typedef struct run_artefact_row {
    const char *kind, *path, *format;
    const char *error;             /* first warning about the file, or NULL */
    const char *reading;           /* how it was read (core/read_facts_json), or NULL */
    bool present;
    int64_t size, mtime_ns, inode, bytes_parsed;
    double parse_ms;
} run_artefact_row;

typedef void (*run_row_fn)(void *user, const run_row *row);
typedef void (*artefact_row_fn)(void *user, const run_artefact_row *row);

/* Runs newest first (updated_at, then id, descending). status < 0: any. profile: NULL, or one
 * source family the run must hold (store_list_runs_profile). with_metrics: fill
 * row->metrics_json too (it costs a blob read per row). cursor: NULL
 * or a value from a previous call. Writes the next cursor ("" when done) into next
 * (at least 160 bytes). Returns the number of rows, STORE_BAD_CURSOR for a cursor this
 * store did not give out, or STORE_READ_FAILED when the database could not be read (memory,
 * I/O, corruption): rows handed to fn before that are only part of the list. */
#define STORE_BAD_CURSOR (-1)
#define STORE_READ_FAILED (-2)
int store_list_runs(store_reader *r, int status, int limit, const char *cursor, bool with_metrics, run_row_fn fn,
                    void *user, char *next, size_t next_len);
/* store_list_runs restricted to runs whose profile holds the family `profile` (NULL: any). */
int store_list_runs_profile(store_reader *r, int status, const char *profile, int limit, const char *cursor,
                            bool with_metrics, run_row_fn fn, void *user, char *next, size_t next_len);
/* One run; false when unknown. */
bool store_get_run(store_reader *r, const char *id, run_row_fn fn, void *user);

typedef struct kernel_row {
    const char *name;
    size_t name_len;               /* its bytes (a NUL from the trace is one of them) */
    int64_t calls, total_ns, min_ns, max_ns;
    double avg_ns, pct_time;
    unsigned flags;                /* the stored name classes (INGEST_KF_* bits) */
    const char *kernel_class;      /* the analysis's kernel class (INGEST_CLASS_KEYS), NULL: not stored */
    bool gemm, collective, generic_gemm;   /* what they say, decoded by store_kernel_classes */
} kernel_row;

/* Fills k's flags and the classes they stand for (a GEMM of the wide family, a collective, a
 * generic GEMM), so the API renders a kernel row without knowing how the bits are laid out. */
void store_kernel_classes(unsigned flags, kernel_row *k);

typedef enum { KSORT_TOTAL, KSORT_CALLS, KSORT_AVG, KSORT_MAX, KSORT_NAME } kernel_sort;
typedef void (*kernel_row_fn)(void *user, const kernel_row *row);
/* Kernels of a run; returns the number of rows or -1 on error. */
int store_run_kernels(store_reader *r, const char *id, kernel_sort sort, int limit, kernel_row_fn fn, void *user);

/* Number of runs per status (counts[RUN_STATUS_COUNT]). false when the database could not be
 * read (memory, I/O): the counts are then not known. */
bool store_count_by_status(store_reader *r, int64_t counts[RUN_STATUS_COUNT]);

#endif
