/* retention: forgetting runs and the retention policy (SQL). */
#include "storage/retention.h"

#include <assert.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#define FINAL "('complete', 'failed', 'empty', 'gone')"

static const char SCHEMA[] =
    "CREATE TABLE IF NOT EXISTS forgotten_runs ("
    "  id TEXT PRIMARY KEY, forgotten_at INTEGER NOT NULL, reason TEXT NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS forgotten_artefacts ("
    "  run_id TEXT NOT NULL REFERENCES forgotten_runs(id) ON DELETE CASCADE,"
    "  kind TEXT NOT NULL, present INTEGER NOT NULL, size INTEGER, mtime_ns INTEGER, inode INTEGER,"
    "  PRIMARY KEY (run_id, kind)) WITHOUT ROWID;"
    "CREATE TRIGGER IF NOT EXISTS forgotten_ignore_status BEFORE INSERT ON runs"
    "  WHEN NEW.ingest_count = 0 AND EXISTS (SELECT 1 FROM forgotten_runs WHERE id = NEW.id)"
    "  BEGIN SELECT RAISE(IGNORE); END;"
    "CREATE TRIGGER IF NOT EXISTS forgotten_back AFTER INSERT ON runs WHEN NEW.ingest_count > 0"
    "  BEGIN DELETE FROM forgotten_runs WHERE id = NEW.id; END;";

static int schema_tx(sqlite3 *db, void *arg) {
    (void)arg;
    return sqlite3_exec(db, SCHEMA, NULL, NULL, NULL);
}

int retention_init(store *s) { return store_write_tx(s, schema_tx, NULL); }

typedef struct forget_args {
    const char *id, *why;
    int64_t now_ms;
    bool found;
} forget_args;

static int run_sql(sqlite3 *db, const char *sql, const forget_args *f) {
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &q, NULL);
    if (rc != SQLITE_OK) return rc;
    for (int i = 1; i <= sqlite3_bind_parameter_count(q); i++) {
        if (i == 1) sqlite3_bind_text(q, 1, f->id, -1, SQLITE_STATIC);
        if (i == 2) sqlite3_bind_int64(q, 2, f->now_ms);
        if (i == 3) sqlite3_bind_text(q, 3, f->why, -1, SQLITE_STATIC);
    }
    rc = sqlite3_step(q);
    sqlite3_finalize(q);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

/* Inside a transaction: remember the signature, then delete the run (cascades). */
static int forget_tx(sqlite3 *db, void *arg) {
    forget_args *f = arg;
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT 1 FROM runs WHERE id = ?1", -1, &q, NULL);
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_text(q, 1, f->id, -1, SQLITE_STATIC);
    rc = sqlite3_step(q);
    sqlite3_finalize(q);
    f->found = rc == SQLITE_ROW;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return rc;   /* not "no such run": a failed read */
    if (!f->found) return SQLITE_OK;
    rc = SQLITE_OK;
    static const char *const STEPS[] = {
        "INSERT INTO forgotten_runs(id, forgotten_at, reason) VALUES (?1, ?2, ?3)"
        " ON CONFLICT(id) DO UPDATE SET forgotten_at = ?2, reason = ?3",
        "DELETE FROM forgotten_artefacts WHERE run_id = ?1",
        "INSERT INTO forgotten_artefacts(run_id, kind, present, size, mtime_ns, inode)"
        " SELECT run_id, kind, present, size, mtime_ns, inode FROM artefacts WHERE run_id = ?1",
        "DELETE FROM runs WHERE id = ?1",
    };
    for (size_t i = 0; i < sizeof STEPS / sizeof STEPS[0] && rc == SQLITE_OK; i++) rc = run_sql(db, STEPS[i], f);
    return rc;
}

int retention_forget(store *s, const char *id, int64_t now_ms, const char *why, bool *found) {
    forget_args f = {id, why, now_ms, false};
    int rc = store_write_tx(s, forget_tx, &f);
    *found = f.found;
    return rc;
}

bool retention_forgotten_sig(store_reader *r, const char *id, run_sig *sig) {
    sqlite3 *db = store_reader_db(r);
    sqlite3_stmt *q = NULL;
    memset(sig, 0, sizeof *sig);
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM forgotten_runs WHERE id = ?1", -1, &q, NULL) != SQLITE_OK) return false;
    sqlite3_bind_text(q, 1, id, -1, SQLITE_STATIC);
    bool found = sqlite3_step(q) == SQLITE_ROW;
    sqlite3_finalize(q);
    if (!found) return false;
    store_read_sig(r, "SELECT kind, present, size, mtime_ns, inode FROM forgotten_artefacts WHERE run_id = ?1",
                   id, sig);
    return true;
}

int retention_drop_if_forgotten(sqlite3 *db, const char *id, int64_t since_ms, const ingest_doc *doc, bool *dropped) {
    *dropped = false;
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT forgotten_at FROM forgotten_runs WHERE id = ?1", -1, &q, NULL);
    if (rc == SQLITE_ERROR) return SQLITE_OK;     /* no such table: retention_init never ran (tools, tests) */
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_text(q, 1, id, -1, SQLITE_STATIC);
    rc = sqlite3_step(q);
    *dropped = rc == SQLITE_ROW && sqlite3_column_int64(q, 0) >= since_ms;
    sqlite3_finalize(q);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return rc;
    if (!*dropped || !doc) return SQLITE_OK;
    forget_args f = {id, NULL, 0, true};
    rc = run_sql(db, "DELETE FROM forgotten_artefacts WHERE run_id = ?1", &f);
    if (rc != SQLITE_OK) return rc;
    rc = sqlite3_prepare_v2(db, "INSERT INTO forgotten_artefacts(run_id, kind, present, size, mtime_ns, inode)"
                                " VALUES (?1, ?2, ?3, ?4, ?5, ?6)", -1, &q, NULL);
    if (rc != SQLITE_OK) return rc;
    for (size_t k = 0; k < doc->n_artefacts && rc == SQLITE_OK; k++) {
        const ingest_artefact *a = &doc->artefacts[k];
        sqlite3_bind_text(q, 1, id, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 2, a->kind, -1, SQLITE_STATIC);
        sqlite3_bind_int(q, 3, a->present);
        sqlite3_bind_int64(q, 4, (int64_t)a->size);
        sqlite3_bind_int64(q, 5, a->mtime_ns);
        sqlite3_bind_int64(q, 6, (int64_t)a->inode);
        rc = sqlite3_step(q);
        rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
        sqlite3_reset(q);
        sqlite3_clear_bindings(q);
    }
    sqlite3_finalize(q);
    return rc;
}

/* ---- the policy ------------------------------------------------------------------- */

typedef struct evict_args {
    const retention_policy *p;
    int64_t now_ms;
    char id[160];
    const char *why;
} evict_args;

static int64_t pragma(sqlite3 *db, const char *sql) {
    sqlite3_stmt *q = NULL;
    int64_t v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW) v = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    return v;
}

/* The id of the first row of sql (?1 bound to arg), into out; false when none. */
static bool first_id(sqlite3 *db, const char *sql, int64_t arg, char *out, size_t n) {
    sqlite3_stmt *q = NULL;
    bool found = false;
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) return false;
    sqlite3_bind_int64(q, 1, arg);
    if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0)) {
        snprintf(out, n, "%s", (const char *)sqlite3_column_text(q, 0));
        found = true;
    }
    sqlite3_finalize(q);
    return found;
}

/* One eviction, in one transaction: the oldest finished run over any limit. */
static int evict_one_tx(sqlite3 *db, void *arg) {
    evict_args *e = arg;
    const retention_policy *p = e->p;
    e->id[0] = '\0';
    e->why = NULL;
    if (p->max_age_days > 0 &&
        first_id(db, "SELECT id FROM runs WHERE status IN " FINAL " AND updated_at < ?1 ORDER BY updated_at, id LIMIT 1",
                 e->now_ms - (int64_t)p->max_age_days * 86400000, e->id, sizeof e->id))
        e->why = "retention_max_age_days";
    if (!e->why && p->max_runs > 0 && pragma(db, "SELECT COUNT(*) FROM runs") > p->max_runs &&
        first_id(db, "SELECT id FROM runs WHERE status IN " FINAL " AND ?1 = ?1 ORDER BY updated_at, id LIMIT 1", 0, e->id,
                 sizeof e->id))
        e->why = "retention_max_runs";
    if (!e->why && p->max_size_mb > 0) {
        int64_t pages = pragma(db, "PRAGMA page_count"), free_pages = pragma(db, "PRAGMA freelist_count");
        int64_t page = pragma(db, "PRAGMA page_size");
        int64_t limit = (int64_t)p->max_size_mb * 1024 * 1024;
        if (pages > 0 && page > 0 && (pages - free_pages) * page * 10 > limit * 9 &&
            first_id(db, "SELECT id FROM runs WHERE status IN " FINAL " AND ?1 = ?1 ORDER BY updated_at, id LIMIT 1", 0,
                     e->id, sizeof e->id))
            e->why = "db_max_size_mb";
    }
    if (!e->why && p->max_size_mb > 0 && p->room_bytes > 0) {
        /* room for a refused ingest: until that much is free under the limit (its request is
         * what it lacks beyond the version it replaces: the store's refusal) */
        int64_t pages = pragma(db, "PRAGMA page_count"), free_pages = pragma(db, "PRAGMA freelist_count");
        int64_t page = pragma(db, "PRAGMA page_size");
        int64_t limit = (int64_t)p->max_size_mb * 1024 * 1024, used = (pages - free_pages) * page;
        if (pages > 0 && page > 0 && limit - used < p->room_bytes &&
            first_id(db, "SELECT id FROM runs WHERE status IN " FINAL " AND ?1 = ?1 ORDER BY updated_at, id LIMIT 1", 0,
                     e->id, sizeof e->id))
            e->why = "db_max_size_mb";
    }
    if (!e->why) return SQLITE_OK;
    forget_args f = {e->id, e->why, e->now_ms, false};
    return forget_tx(db, &f);
}

/* After a size eviction: still above 80% of the limit? Then the next run goes too. */
static int size_target_tx(sqlite3 *db, void *arg) {
    evict_args *e = arg;
    int64_t pages = pragma(db, "PRAGMA page_count"), free_pages = pragma(db, "PRAGMA freelist_count");
    int64_t page = pragma(db, "PRAGMA page_size");
    int64_t limit = (int64_t)e->p->max_size_mb * 1024 * 1024;
    e->why = (pages - free_pages) * page * 10 > limit * 8 ? "db_max_size_mb" : NULL;
    return SQLITE_OK;
}

static int evict_oldest_tx(sqlite3 *db, void *arg) {
    evict_args *e = arg;
    if (!first_id(db, "SELECT id FROM runs WHERE status IN " FINAL " AND ?1 = ?1 ORDER BY updated_at, id LIMIT 1", 0,
                  e->id, sizeof e->id)) {
        e->id[0] = '\0';
        return SQLITE_OK;
    }
    forget_args f = {e->id, "db_max_size_mb", e->now_ms, false};
    return forget_tx(db, &f);
}

int64_t retention_room_for(retention_room *r, const char *run_id, uint64_t need, int max_size_mb, int64_t now_ms,
                           retention_room_answer *why, bool *first_warning) {
    assert(max_size_mb > 0);
    size_t at = RETENTION_ROOM_RUNS, oldest = 0;
    for (size_t i = 0; i < RETENTION_ROOM_RUNS; i++) {
        if (r->run[i].id[0] && !strcmp(r->run[i].id, run_id)) at = i;
        if (r->run[i].last_ms < r->run[oldest].last_ms) oldest = i;
    }
    bool again = at < RETENTION_ROOM_RUNS && now_ms - r->run[at].last_ms <= RETENTION_ROOM_FORGET_MS;
    if (!again) {
        if (at == RETENTION_ROOM_RUNS) at = oldest;           /* the least recently refused makes way */
        snprintf(r->run[at].id, sizeof r->run[at].id, "%s", run_id);
        r->run[at].warned = false;
    }
    r->run[at].last_ms = now_ms;
    double room = (double)(need ? need : 65536);
    *why = again ? ROOM_AGAIN : room > (double)max_size_mb * 1024 * 1024 * 0.9 ? ROOM_TOO_LARGE : ROOM_MADE;
    *first_warning = *why != ROOM_MADE && !r->run[at].warned;
    if (*why != ROOM_MADE) r->run[at].warned = true;
    return *why == ROOM_MADE ? (int64_t)room : 0;
}

void retention_room_landed(retention_room *r, const char *run_id) {
    for (size_t i = 0; i < RETENTION_ROOM_RUNS; i++)
        if (r->run[i].id[0] && !strcmp(r->run[i].id, run_id)) memset(&r->run[i], 0, sizeof r->run[i]);
}

int retention_enforce(store *s, const retention_policy *p, int64_t now_ms, retention_evicted_fn evicted, void *user) {
    if (p->max_runs <= 0 && p->max_age_days <= 0 && p->max_size_mb <= 0) return 0;
    int n = 0;
    while (!(p->cancel && atomic_load(p->cancel))) {
        evict_args e = {p, now_ms, "", NULL};
        if (store_write_tx(s, evict_one_tx, &e) != 0) return -1;
        if (!e.why) break;
        n++;
        if (evicted) evicted(user, e.id, e.why);
        if (strcmp(e.why, "db_max_size_mb")) continue;
        while (!(p->cancel && atomic_load(p->cancel))) {   /* down to 80% so ingests do not hit the limit again soon */
            evict_args t = {p, now_ms, "", NULL};
            if (store_write_tx(s, size_target_tx, &t) != 0) return -1;
            if (!t.why) break;
            if (store_write_tx(s, evict_oldest_tx, &t) != 0) return -1;
            if (!t.id[0]) break;
            n++;
            if (evicted) evicted(user, t.id, "db_max_size_mb");
        }
    }
    return n;
}
