/* store: SQLite schema, migrations, ingests and queries. */
#include "storage/store.h"

#include "storage/kernel_cursor.h"
#include "storage/retention.h"
#include "storage/run_analysis.h"
#include "storage/run_gauges.h"
#include "storage/run_series.h"
#include "storage/schema.h"
#include "storage/sqlite_mem.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define READERS 4

static const char *const STATUS_NAMES[] = {"pending", "running", "complete", "failed", "gone", "empty"};
_Static_assert(sizeof STATUS_NAMES / sizeof *STATUS_NAMES == RUN_STATUS_COUNT, "STATUS_NAMES: one entry per value below RUN_STATUS_COUNT");

const char *store_run_status_name(run_status s) { return s < RUN_STATUS_COUNT ? STATUS_NAMES[s] : "unknown"; }

bool store_run_status_parse(const char *s, run_status *out) {
    for (int i = 0; i < RUN_STATUS_COUNT; i++)
        if (!strcmp(s, STATUS_NAMES[i])) { *out = (run_status)i; return true; }
    return false;
}


struct store_reader {
    sqlite3 *db;
    bool busy;
    bool failed;                 /* a read since acquire failed (store_reader_failed) */
    unsigned long mem_failures;  /* this thread's failed SQLite allocations at acquire (sqlite_mem.h) */
    struct store *owner;         /* for corruption reports */
};

struct store {
    sqlite3 *w;
    sqlite3_stmt *rollback;      /* ROLLBACK on w, prepared at open (write_rollback) */
    pthread_mutex_t wlock;
    store_reader readers[READERS];
    pthread_mutex_t rlock;
    pthread_cond_t rfree;
    char err[256];               /* the write side's last error, under wlock */
    pthread_mutex_t err_lock;    /* err_shown and the full-database record */
    char err_shown[256];         /* err as of the last write's end, for any thread (store_last_error) */
    store_refusal refused[STORE_REFUSALS];   /* refusals (and landings after one) since the last take */
    size_t n_refused;
    char was_refused[STORE_REFUSALS][256];   /* the last runs refused, until they land */
    size_t n_was_refused;
    atomic_bool corrupt;         /* set once, never cleared: every answer would be suspect */
    char corrupt_reason[400];    /* written before corrupt is set */
    pthread_mutex_t corrupt_lock;
};

/* A corruption report (SQLITE_CORRUPT / SQLITE_NOTADB from any statement, or a failed
 * quick_check) marks the whole store corrupt: its answers are no longer trusted. */
static bool is_corrupt_rc(int rc) { return (rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB; }

static void mark_corrupt(struct store *s, const char *what, const char *detail) {
    pthread_mutex_lock(&s->corrupt_lock);
    if (!atomic_load(&s->corrupt)) {
        snprintf(s->corrupt_reason, sizeof s->corrupt_reason,
                 "database is corrupt (%s: %.200s); restore a backup or move the file away to rebuild it "
                 "(docs/OPERATIONS.md, Backup)", what, detail);
        atomic_store(&s->corrupt, true);
    }
    pthread_mutex_unlock(&s->corrupt_lock);
}

static int note_rc(struct store *s, sqlite3 *db, int rc) {
    if (is_corrupt_rc(rc)) mark_corrupt(s, "SQLite", sqlite3_errmsg(db));
    return rc;
}

const char *store_corruption(store *s) { return atomic_load(&s->corrupt) ? s->corrupt_reason : NULL; }

/* PRAGMA quick_check: O(pages) but no index cross-checks; "ok" or the first problem. */
static void quick_check(store *s) {
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_prepare_v2(s->w, "PRAGMA quick_check(1)", -1, &q, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) {
        const char *r = (const char *)sqlite3_column_text(q, 0);
        if (!r || strcmp(r, "ok")) mark_corrupt(s, "quick_check at start", r ? r : "no result");
    } else if (is_corrupt_rc(rc)) {
        mark_corrupt(s, "quick_check at start", sqlite3_errmsg(s->w));
    }
    sqlite3_finalize(q);
}

static int exec(sqlite3 *db, const char *sql, char *err, size_t errlen) {
    char *msg = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK && err) snprintf(err, errlen, "%s", msg ? msg : sqlite3_errstr(rc));
    sqlite3_free(msg);
    return rc;
}

static sqlite3 *open_conn(const char *path, bool readonly, char *err, size_t errlen) {
    sqlite3 *db = NULL;
    int flags = (readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
                SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_busy_timeout(db, 5000);
    exec(db, "PRAGMA foreign_keys=ON;", NULL, 0);
    return db;
}

store *store_open(const char *path, int max_size_mb, char **errp) {
    char err[256] = "";
    store *s = calloc(1, sizeof *s);
    if (!s) { *errp = strdup("out of memory"); return NULL; }
    pthread_mutex_init(&s->wlock, NULL);
    pthread_mutex_init(&s->rlock, NULL);
    pthread_mutex_init(&s->corrupt_lock, NULL);
    pthread_mutex_init(&s->err_lock, NULL);
    pthread_cond_init(&s->rfree, NULL);
    s->w = open_conn(path, false, err, sizeof err);
    if (!s->w) goto fail;
    if (exec(s->w, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", err, sizeof err) != SQLITE_OK) goto fail;
    if (schema_migrate(s->w, err, sizeof err) != 0) goto fail;
    if (sqlite3_prepare_v2(s->w, "ROLLBACK", -1, &s->rollback, NULL) != SQLITE_OK) {
        snprintf(err, sizeof err, "%s: %s", path, sqlite3_errmsg(s->w));
        goto fail;
    }
    if (max_size_mb > 0) {
        char sql[96];
        snprintf(sql, sizeof sql, "PRAGMA max_page_count = %lld;", (long long)max_size_mb * 1024 * 1024 / 4096);
        exec(s->w, sql, NULL, 0);
    }
    exec(s->w, "PRAGMA cache_size = -1024;", NULL, 0);     /* 1 MiB: goblind's queries touch few pages */
    quick_check(s);
    for (int i = 0; i < READERS; i++) {
        s->readers[i].owner = s;
        s->readers[i].db = open_conn(path, true, err, sizeof err);
        if (!s->readers[i].db) goto fail;
        exec(s->readers[i].db, "PRAGMA cache_size = -512;", NULL, 0);
    }
    return s;
fail:
    *errp = strdup(err[0] ? err : "cannot open database");
    store_close(s);
    return NULL;
}

void store_close(store *s) {
    if (!s) return;
    for (int i = 0; i < READERS; i++) sqlite3_close(s->readers[i].db);
    sqlite3_finalize(s->rollback);
    if (s->w) {
        exec(s->w, "PRAGMA optimize;", NULL, 0);
        sqlite3_close(s->w);
    }
    pthread_mutex_destroy(&s->wlock);
    pthread_mutex_destroy(&s->rlock);
    pthread_mutex_destroy(&s->corrupt_lock);
    pthread_mutex_destroy(&s->err_lock);
    pthread_cond_destroy(&s->rfree);
    free(s);
}

const char *store_db_file(store *s) { return sqlite3_db_filename(s->w, "main"); }

const char *store_last_error(store *s, char *buf, size_t n) {
    pthread_mutex_lock(&s->err_lock);
    snprintf(buf, n, "%s", s->err_shown);
    pthread_mutex_unlock(&s->err_lock);
    return buf;
}

size_t store_take_refusals(store *s, store_refusal *out) {
    pthread_mutex_lock(&s->err_lock);
    size_t n = s->n_refused;
    memcpy(out, s->refused, n * sizeof *out);
    s->n_refused = 0;
    pthread_mutex_unlock(&s->err_lock);
    return n;
}

/* ---- writes ---- */

/* Caller holds wlock: about how many bytes run id's stored rows take, as ingest_doc_bytes
 * counts a document's (0 when it has none). */
static uint64_t stored_bytes(store *s, const char *id) {
    static const char SQL[] =
        "SELECT 1024 + coalesce((SELECT length(metrics_json) FROM runs WHERE id = ?1), 0)"
        " + coalesce((SELECT sum(coalesce(length(json), 0) + coalesce(length(report_md), 0)) FROM run_analysis"
        "             WHERE run_id = ?1), 0)"
        " + coalesce((SELECT sum(128 + length(path) + coalesce(length(reading), 0) + coalesce(length(error), 0))"
        "             FROM artefacts WHERE run_id = ?1), 0)"
        " + coalesce((SELECT sum(2 * (length(name) + 64) + 48) FROM kernels WHERE run_id = ?1), 0)"
        " + coalesce((SELECT count(*) * 48 FROM run_gauges WHERE run_id = ?1), 0)"
        " WHERE EXISTS (SELECT 1 FROM runs WHERE id = ?1)";
    sqlite3_stmt *q = NULL;
    uint64_t n = 0;
    if (sqlite3_prepare_v2(s->w, SQL, -1, &q, NULL) == SQLITE_OK) {
        sqlite3_bind_text(q, 1, id, -1, SQLITE_STATIC);
        if (sqlite3_step(q) == SQLITE_ROW) n = (uint64_t)sqlite3_column_int64(q, 0);
    }
    sqlite3_finalize(q);
    return n;
}

/* Ends a write (the caller holds wlock): its error, if any, becomes what store_last_error
 * shows; an ingest r (NULL: not an ingest) refused for lack of room is recorded with the room
 * it lacks: its rows' bytes less those of the version it replaces (freed in its transaction). */
static void write_unlock(store *s, int rc, const ingest_record *r) {
    bool refused = r && (rc & 0xff) == SQLITE_FULL;
    uint64_t need = refused && r->doc ? ingest_doc_bytes(r->doc) : 0, old = refused ? stored_bytes(s, r->id) : 0;
    need = need > old + 65536 ? need - old : 65536;
    pthread_mutex_lock(&s->err_lock);
    if (rc != SQLITE_OK) snprintf(s->err_shown, sizeof s->err_shown, "%s", s->err);
    size_t w = 0;                                   /* was it refused before? (then it landed now) */
    while (r && w < s->n_was_refused && strcmp(s->was_refused[w], r->id)) w++;
    bool landed = r && rc == SQLITE_OK && w < s->n_was_refused;
    if (landed) memmove(s->was_refused[w], s->was_refused[w + 1], (--s->n_was_refused - w) * sizeof s->was_refused[0]);
    if (refused && w == s->n_was_refused) {       /* remembered until it lands (the oldest makes way) */
        if (w == STORE_REFUSALS) memmove(s->was_refused[0], s->was_refused[1], --w * sizeof s->was_refused[0]);
        snprintf(s->was_refused[w], sizeof s->was_refused[w], "%s", r->id);
        s->n_was_refused = w + 1;
    }
    size_t i = 0;
    while ((refused || landed) && i < s->n_refused && strcmp(s->refused[i].run_id, r->id)) i++;
    if ((refused || landed) && i == STORE_REFUSALS) i = STORE_REFUSALS - 1;   /* full: the newest replaces the last */
    if (refused || landed) {
        snprintf(s->refused[i].run_id, sizeof s->refused[i].run_id, "%s", r->id);
        s->refused[i].need_bytes = need;
        s->refused[i].landed = landed;
        if (i == s->n_refused) s->n_refused++;
    }
    pthread_mutex_unlock(&s->err_lock);
    pthread_mutex_unlock(&s->wlock);
}

static void set_err(store *s) { snprintf(s->err, sizeof s->err, "%s", sqlite3_errmsg(s->w)); }

/* Caller holds wlock: rolls back the write connection's open transaction, if any. The
 * statement was prepared at open, so that a rollback after running out of memory needs no
 * parse (a ROLLBACK that fails leaves the transaction open, and every later BEGIN would fail
 * with "cannot start a transaction within a transaction"); if it still fails, the next write
 * calls it first, so the write is neither refused nor silently added to that uncommitted
 * transaction. A failed COMMIT (SQLITE_BUSY, out of memory) can also leave the transaction
 * open: it goes the same way. */
static void write_rollback(store *s) {
    if (sqlite3_get_autocommit(s->w)) return;
    sqlite3_step(s->rollback);
    sqlite3_reset(s->rollback);
    if (!sqlite3_get_autocommit(s->w)) exec(s->w, "ROLLBACK", NULL, 0);
}

static const char SET_STATUS_SQL[] =
    "INSERT INTO runs(id, root, path, status, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5) "
    "ON CONFLICT(id) DO UPDATE SET root = ?2, path = ?3, status = ?4, updated_at = ?5, "
    "completed_at = CASE WHEN ?4 IN ('complete', 'failed', 'empty') THEN ?5 ELSE completed_at END "
    "WHERE status <> ?4 OR root <> ?2 OR path <> ?3";

/* Caller holds wlock: one status row with q (SET_STATUS_SQL, prepared); SQLite result code. */
static int set_status_with(sqlite3_stmt *q, const store_status *st, int64_t now) {
    sqlite3_reset(q);
    sqlite3_bind_text(q, 1, st->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 2, st->root, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 3, st->path, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 4, store_run_status_name(st->status), -1, SQLITE_STATIC);
    sqlite3_bind_int64(q, 5, now);
    int rc = sqlite3_step(q);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int store_set_status(store *s, const char *id, const char *root, const char *path, run_status st, int64_t now) {
    store_status one = {id, root, path, st};
    return store_set_statuses(s, &one, 1, now);
}

int store_set_statuses(store *s, const store_status *items, size_t n, int64_t now) {
    pthread_mutex_lock(&s->wlock);
    write_rollback(s);                      /* one a failed rollback left open */
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_prepare_v2(s->w, SET_STATUS_SQL, -1, &q, NULL);
    bool tx = rc == SQLITE_OK && n > 1 && (rc = exec(s->w, "BEGIN IMMEDIATE", NULL, 0)) == SQLITE_OK;
    for (size_t i = 0; rc == SQLITE_OK && i < n; i++) rc = set_status_with(q, &items[i], now);
    if (rc != SQLITE_OK) set_err(s);
    sqlite3_finalize(q);
    if (tx && rc == SQLITE_OK && (rc = exec(s->w, "COMMIT", NULL, 0)) != SQLITE_OK) set_err(s);
    if (tx && rc != SQLITE_OK) write_rollback(s);
    note_rc(s, s->w, rc);
    write_unlock(s, rc, NULL);
    return rc == SQLITE_OK ? 0 : -1;
}

int store_write_tx(store *s, int (*fn)(sqlite3 *db, void *arg), void *arg) {
    pthread_mutex_lock(&s->wlock);
    write_rollback(s);                      /* one a failed rollback left open */
    unsigned long mem0 = sqlite_mem_failures();
    int rc = exec(s->w, "BEGIN IMMEDIATE", NULL, 0);
    if (rc == SQLITE_OK) {
        rc = fn(s->w, arg);
        /* memory ran out where SQLite answers with a quiet wrong value (sqlite_mem.h): fn's
         * reads may have taken a row for absent, so nothing it did is committed */
        bool quiet_oom = rc == SQLITE_OK && sqlite_mem_failures() != mem0;
        if (quiet_oom) rc = SQLITE_NOMEM;
        else if (rc == SQLITE_OK) rc = exec(s->w, "COMMIT", NULL, 0);
        if (rc != SQLITE_OK) {
            if (quiet_oom) snprintf(s->err, sizeof s->err, "out of memory (where SQLite gave no error)");
            else set_err(s);
            write_rollback(s);
        }
    } else {
        set_err(s);
    }
    write_unlock(s, rc, NULL);
    return rc == SQLITE_OK ? 0 : -1;
}

sqlite3 *store_reader_db(store_reader *r) { return r->db; }
int store_reader_note(store_reader *r, int rc) {
    if (rc != SQLITE_OK && rc != SQLITE_ROW && rc != SQLITE_DONE) r->failed = true;
    return note_rc(r->owner, r->db, rc);
}

int store_reader_prepare(store_reader *r, const char *sql, sqlite3_stmt **q) {
    return store_reader_note(r, sqlite3_prepare_v2(r->db, sql, -1, q, NULL));
}

void store_reader_fail(store_reader *r) { r->failed = true; }

bool store_reader_failed(const store_reader *r) { return r->failed || sqlite_mem_failures() != r->mem_failures; }

static int step_done(sqlite3_stmt *q) {
    int rc = sqlite3_step(q);
    sqlite3_reset(q);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* One statement with ?1 = a run id (and ?2 = text, when given). */
static int exec_for_run(sqlite3 *db, const char *sql, const char *id, const char *text) {
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &q, NULL);
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_text(q, 1, id, -1, SQLITE_STATIC);
    if (text) sqlite3_bind_text(q, 2, text, -1, SQLITE_STATIC);
    rc = step_done(q);
    sqlite3_finalize(q);
    return rc;
}

static int ingest_tx(store *s, const ingest_record *r) {
    static const ingest_doc none;
    const ingest_doc *doc = r->doc ? r->doc : &none;
    const ingest_headline *m = &doc->headline;
    sqlite3_stmt *q = NULL;
    int rc;
    rc = sqlite3_prepare_v2(s->w,
        "INSERT INTO runs(id, root, path, status, created_at, updated_at, completed_at, ingest_count, parse_ms, error,"
        " tokens_per_sec, mfu_pct, gpu_util_pct, step_seconds, hbm_peak_gb, " HEADLINE_MORE ", profile, headline_json)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, 1, ?7, ?8, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23,"
        " ?24, ?25)"
        " ON CONFLICT(id) DO UPDATE SET root = ?2, path = ?3, status = ?4, updated_at = ?5, completed_at = ?6,"
        " ingest_count = ingest_count + 1, parse_ms = ?7, error = ?8,"
        " tokens_per_sec = ?11, mfu_pct = ?12, gpu_util_pct = ?13, step_seconds = ?14, hbm_peak_gb = ?15,"
        " hbm_avg_gb = ?16, waste_useful_gpu = ?17, waste_data_wait = ?18, waste_host_gap = ?19, waste_comm_excess = ?20,"
        " waste_memory_headroom = ?21, waste_precision_path = ?22, waste_kernel_shape = ?23, profile = ?24,"
        " headline_json = ?25",
        -1, &q, NULL);
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_text(q, 1, r->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 2, r->root, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 3, r->path, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 4, store_run_status_name(r->status), -1, SQLITE_STATIC);
    sqlite3_bind_int64(q, 5, r->now_ms);
    if (r->status == RUN_COMPLETE || r->status == RUN_FAILED || r->status == RUN_EMPTY) sqlite3_bind_int64(q, 6, r->now_ms);
    sqlite3_bind_double(q, 7, r->parse_ms);
    if (r->error) sqlite3_bind_text(q, 8, r->error, -1, SQLITE_STATIC);
    /* A headline number is stored only when the parse measured it (its artefact gave it), so
     * a real 0 (an idle GPU) is listed as 0 and an unknown one as null (NULL here). */
    if (m->has_tokens_per_sec) sqlite3_bind_double(q, 11, m->tokens_per_sec);
    if (m->has_mfu_pct) sqlite3_bind_double(q, 12, m->mfu_pct);
    if (m->has_gpu_util_pct) sqlite3_bind_double(q, 13, m->gpu_util_pct);
    if (m->has_step_seconds) sqlite3_bind_double(q, 14, m->step_seconds);   /* the one the budget used */
    if (m->has_hbm_peak_gb) sqlite3_bind_double(q, 15, m->hbm_peak_gb);
    if (m->has_hbm_avg_gb) sqlite3_bind_double(q, 16, m->hbm_avg_gb);
    for (int b = 0; b < INGEST_WASTE_BUCKETS && m->has_waste; b++)      /* the split of the step time */
        if (!(m->waste_unknown & (1u << b))) sqlite3_bind_double(q, 17 + b, m->waste[b]);
    sqlite3_bind_text(q, 24, r->profile ? r->profile : "", -1, SQLITE_STATIC);
    if (r->headline_json) sqlite3_bind_text(q, 25, r->headline_json, -1, SQLITE_STATIC);
    rc = step_done(q);
    sqlite3_finalize(q);
    if (rc != SQLITE_OK) return rc;

    rc = r->metrics_json
        ? exec_for_run(s->w, "INSERT INTO run_metrics(run_id, json) VALUES (?1, ?2)"
                             " ON CONFLICT(run_id) DO UPDATE SET json = ?2", r->id, r->metrics_json)
        : exec_for_run(s->w, "DELETE FROM run_metrics WHERE run_id = ?1", r->id, NULL);
    if (rc == SQLITE_OK) rc = run_analysis_write(s->w, r->id, doc->analysis_json, doc->report_md);
    if (rc == SQLITE_OK) rc = run_gauges_write(s->w, r->id, doc);
    if (rc == SQLITE_OK) rc = run_series_write(s->w, r->id, r->headline_json, doc->analysis_json);
    if (rc != SQLITE_OK) return rc;

    rc = exec_for_run(s->w, "DELETE FROM artefacts WHERE run_id = ?1", r->id, NULL);
    if (rc != SQLITE_OK) return rc;
    rc = sqlite3_prepare_v2(s->w,
        "INSERT INTO artefacts(run_id, kind, path, present, size, mtime_ns, inode, bytes_parsed, parse_ms, format, error,"
        " reading) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)", -1, &q, NULL);
    if (rc != SQLITE_OK) return rc;
    for (size_t k = 0; k < doc->n_artefacts && rc == SQLITE_OK; k++) {
        const ingest_artefact *a = &doc->artefacts[k];
        sqlite3_bind_text(q, 1, r->id, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 2, a->kind, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 3, a->path ? a->path : "", -1, SQLITE_STATIC);
        sqlite3_bind_int(q, 4, a->present);
        sqlite3_bind_int64(q, 5, (int64_t)a->size);
        sqlite3_bind_int64(q, 6, a->mtime_ns);
        sqlite3_bind_int64(q, 7, (int64_t)a->inode);
        sqlite3_bind_int64(q, 8, (int64_t)a->bytes_parsed);
        sqlite3_bind_double(q, 9, a->parse_ms);
        if (a->format) sqlite3_bind_text(q, 10, a->format, -1, SQLITE_STATIC);
        else sqlite3_bind_null(q, 10);
        if (a->error) sqlite3_bind_text(q, 11, a->error, -1, SQLITE_STATIC);
        else sqlite3_bind_null(q, 11);
        if (a->reading) sqlite3_bind_text(q, 12, a->reading, -1, SQLITE_STATIC);
        else sqlite3_bind_null(q, 12);
        rc = step_done(q);
        sqlite3_clear_bindings(q);
    }
    sqlite3_finalize(q);
    if (rc != SQLITE_OK) return rc;

    rc = exec_for_run(s->w, "DELETE FROM kernels WHERE run_id = ?1", r->id, NULL);
    if (rc != SQLITE_OK) return rc;
    rc = sqlite3_prepare_v2(s->w,
        "INSERT INTO kernels(run_id, name, calls, total_ns, min_ns, max_ns, flags, class)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        -1, &q, NULL);
    if (rc != SQLITE_OK) return rc;
    ingest_kernel k;
    for (size_t i = 0; rc == SQLITE_OK && doc->kernel_at && doc->kernel_at(doc, i, &k); i++) {
        sqlite3_bind_text(q, 1, r->id, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 2, k.name, (int)k.name_len, SQLITE_STATIC);
        sqlite3_bind_int64(q, 3, k.calls);
        sqlite3_bind_int64(q, 4, k.total_ns);
        sqlite3_bind_int64(q, 5, k.min_ns);
        sqlite3_bind_int64(q, 6, k.max_ns);
        sqlite3_bind_int(q, 7, (int)k.flags);
        if (k.kernel_class) sqlite3_bind_text(q, 8, k.kernel_class, -1, SQLITE_STATIC);
        else sqlite3_bind_null(q, 8);
        rc = step_done(q);
    }
    sqlite3_finalize(q);
    return rc;
}

int store_ingest(store *s, const ingest_record *r) {
    bool dropped = false;
    pthread_mutex_lock(&s->wlock);
    write_rollback(s);                      /* one a failed rollback left open */
    unsigned long mem0 = sqlite_mem_failures();
    int rc = exec(s->w, "BEGIN IMMEDIATE", s->err, sizeof s->err);
    if (rc == SQLITE_OK) {
        /* the forgotten check in this transaction: a DELETE cannot land between it and the write */
        rc = r->read_began_ms > 0 ? retention_drop_if_forgotten(s->w, r->id, r->read_began_ms, r->doc, &dropped) : SQLITE_OK;
        if (rc == SQLITE_OK && !dropped) rc = ingest_tx(s, r);
        /* memory ran out where SQLite answers with a quiet wrong value (sqlite_mem.h): not committed */
        bool quiet_oom = rc == SQLITE_OK && sqlite_mem_failures() != mem0;
        if (quiet_oom) rc = SQLITE_NOMEM;
        if (rc == SQLITE_OK) rc = exec(s->w, "COMMIT", s->err, sizeof s->err);
        else if (quiet_oom) snprintf(s->err, sizeof s->err, "out of memory (where SQLite gave no error)");
        else set_err(s);
        if (rc != SQLITE_OK) {              /* the commit's failure too: nothing of the run stays */
            note_rc(s, s->w, rc);
            write_rollback(s);
        }
    }
    note_rc(s, s->w, rc);
    write_unlock(s, rc, r);
    return rc != SQLITE_OK ? -1 : dropped ? STORE_INGEST_FORGOTTEN : 0;
}

/* ---- reads ---- */

store_reader *store_reader_acquire(store *s) {
    pthread_mutex_lock(&s->rlock);
    for (;;) {
        for (int i = 0; i < READERS; i++)
            if (!s->readers[i].busy) {
                s->readers[i].busy = true;
                s->readers[i].failed = false;
                s->readers[i].mem_failures = sqlite_mem_failures();
                pthread_mutex_unlock(&s->rlock);
                return &s->readers[i];
            }
        pthread_cond_wait(&s->rfree, &s->rlock);
    }
}

void store_reader_release(store *s, store_reader *r) {
    pthread_mutex_lock(&s->rlock);
    r->busy = false;
    pthread_cond_signal(&s->rfree);
    pthread_mutex_unlock(&s->rlock);
}

static const char *col_text(sqlite3_stmt *q, int i) { return (const char *)sqlite3_column_text(q, i); }

bool store_run_state(store_reader *r, const char *id, run_status *st, run_sig *sig, bool *has_metrics) {
    sqlite3_stmt *q = NULL;
    bool found = false;
    memset(sig, 0, sizeof *sig);
    if (store_reader_prepare(r, "SELECT status, EXISTS (SELECT 1 FROM run_metrics WHERE run_id = ?1) FROM runs WHERE id = ?1",
                             &q) != SQLITE_OK)
        return false;
    sqlite3_bind_text(q, 1, id, -1, SQLITE_STATIC);
    int rc = store_reader_note(r, sqlite3_step(q));
    if (rc == SQLITE_ROW) {
        found = store_run_status_parse(col_text(q, 0), st);
        *has_metrics = sqlite3_column_int(q, 1) != 0;
    }
    sqlite3_finalize(q);
    if (!found) return false;
    store_read_sig(r, "SELECT kind, present, size, mtime_ns, inode FROM artefacts WHERE run_id = ?1", id, sig);
    return true;
}

void store_read_sig(store_reader *r, const char *sql, const char *id, run_sig *sig) {
    sqlite3_stmt *q = NULL;
    if (store_reader_prepare(r, sql, &q) != SQLITE_OK) return;
    sqlite3_bind_text(q, 1, id, -1, SQLITE_STATIC);
    while (store_reader_note(r, sqlite3_step(q)) == SQLITE_ROW) {
        const char *kind = col_text(q, 0);
        for (int k = 0; k < ARTEFACT_KIND_COUNT; k++) {
            if (!kind || strcmp(kind, artefact_kind_key((artefact_kind)k))) continue;
            sig->a[k].present = sqlite3_column_int(q, 1) != 0;
            sig->a[k].size = (uint64_t)sqlite3_column_int64(q, 2);
            sig->a[k].mtime_ns = sqlite3_column_int64(q, 3);
            sig->a[k].inode = (uint64_t)sqlite3_column_int64(q, 4);
        }
    }
    sqlite3_finalize(q);
}
