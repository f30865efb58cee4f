/* run_series: the series key of each run, written at ingest, and the reads of GET /series,
 * /series/<key>, the regression event and the per-series gauges (run_series.h). */
#include "storage/run_series.h"

#include <assert.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "base/str_hash.h"
#include "core/ingest_doc.h"

_Static_assert(SERIES_KEY_MAX == INGEST_SERIES_KEY_MAX, "the sidecar's warning and the series key agree on the length");

/* Appends "name=value\n" to buf when value is known; false when buf is full. */
static bool fact(char *buf, size_t cap, size_t *len, const char *name, const char *value) {
    if (!value) return true;
    int n = snprintf(buf + *len, cap - *len, "%s=%s\n", name, value);
    if (n < 0 || (size_t)n >= cap - *len) return false;
    *len += (size_t)n;
    return true;
}

const char *run_series_key_of(const series_facts *f, char *out, size_t n) {
    assert(n > SERIES_KEY_MAX);
    size_t ll = f->label ? strlen(f->label) : 0;
    if (ll > 0 && ll <= SERIES_KEY_MAX) {
        memcpy(out, f->label, ll + 1);
        return "label";
    }
    char text[4096], devices[32];
    size_t len = 0;
    text[0] = '\0';
    if (f->has_devices) snprintf(devices, sizeof devices, "%lld", (long long)f->devices);
    bool fits = fact(text, sizeof text, &len, "model", f->model) && fact(text, sizeof text, &len, "precision", f->precision) &&
                fact(text, sizeof text, &len, "gpu", f->gpu) &&
                fact(text, sizeof text, &len, "devices", f->has_devices ? devices : NULL) &&
                fact(text, sizeof text, &len, "pytorch", f->pytorch) && fact(text, sizeof text, &len, "rocm", f->rocm) &&
                fact(text, sizeof text, &len, "cuda", f->cuda) && fact(text, sizeof text, &len, "driver", f->driver) &&
                fact(text, sizeof text, &len, "runtime", f->runtime);
    (void)fits;                  /* a fact past 4 KiB of them is left out (every version string is short) */
    if (len == 0) return NULL;
    snprintf(out, n, "fp-%016llx", (unsigned long long)str_hash(text));
    return "fingerprint";
}

/* Column i as text when SQLite holds it as text (a label of another JSON type is not a
 * name), else NULL. */
static const char *text_col(sqlite3_stmt *q, int i) {
    return sqlite3_column_type(q, i) == SQLITE_TEXT ? (const char *)sqlite3_column_text(q, i) : NULL;
}

int run_series_write(sqlite3 *db, const char *run_id, const char *headline_json, const char *analysis_json) {
    static const char SQL[] =
        "WITH h(j) AS (SELECT CASE WHEN json_valid(?1) THEN ?1 END),"
        " a(j) AS (SELECT CASE WHEN json_valid(?2) THEN ?2 END),"
        " d(j) AS (SELECT json_extract(a.j, '$.device') FROM a)"
        " SELECT json_extract(h.j, '$.labels.series'), json_extract(h.j, '$.labels.model'),"
        "  json_extract(h.j, '$.precision'), json_extract(d.j, '$.name'), json_extract(d.j, '$.device_count'),"
        "  json_extract(d.j, '$.pytorch_version'), json_extract(d.j, '$.rocm_version'),"
        "  json_extract(d.j, '$.cuda_version'), json_extract(d.j, '$.driver_version'),"
        "  json_extract(d.j, '$.runtime_version'),"
        "  (SELECT json_group_array(json_extract(value, '$.wall_ns')) FROM json_each(a.j, '$.steps.items')"
        "   WHERE json_type(value, '$.wall_ns') IN ('integer', 'real'))"
        " FROM h, a, d";
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_prepare_v2(db, "DELETE FROM run_series WHERE run_id = ?1", -1, &q, NULL);
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_text(q, 1, run_id, -1, SQLITE_STATIC);
    rc = sqlite3_step(q) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
    sqlite3_finalize(q);
    if (rc != SQLITE_OK) return rc;
    if ((rc = sqlite3_prepare_v2(db, SQL, -1, &q, NULL)) != SQLITE_OK) return rc;
    if (headline_json) sqlite3_bind_text(q, 1, headline_json, -1, SQLITE_STATIC);
    if (analysis_json) sqlite3_bind_text(q, 2, analysis_json, -1, SQLITE_STATIC);
    rc = sqlite3_step(q);
    if (rc != SQLITE_ROW) {
        rc = rc == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
        sqlite3_finalize(q);
        return rc;
    }
    series_facts f = {.label = text_col(q, 0), .model = text_col(q, 1), .precision = text_col(q, 2), .gpu = text_col(q, 3),
                      .has_devices = sqlite3_column_type(q, 4) == SQLITE_INTEGER, .devices = sqlite3_column_int64(q, 4),
                      .pytorch = text_col(q, 5), .rocm = text_col(q, 6), .cuda = text_col(q, 7), .driver = text_col(q, 8),
                      .runtime = text_col(q, 9)};
    char key[SERIES_KEY_MAX + 1];
    const char *source = run_series_key_of(&f, key, sizeof key);
    sqlite3_stmt *ins = NULL;
    rc = SQLITE_OK;
    if (source && (rc = sqlite3_prepare_v2(db, "INSERT INTO run_series(run_id, series_key, key_source, step_walls)"
                                               " VALUES (?1, ?2, ?3, ?4)", -1, &ins, NULL)) == SQLITE_OK) {
        sqlite3_bind_text(ins, 1, run_id, -1, SQLITE_STATIC);
        sqlite3_bind_text(ins, 2, key, -1, SQLITE_STATIC);
        sqlite3_bind_text(ins, 3, source, -1, SQLITE_STATIC);
        const char *walls = text_col(q, 10);   /* valid until q is finalized, after this insert */
        if (walls && strcmp(walls, "[]")) rc = sqlite3_bind_text(ins, 4, walls, -1, SQLITE_STATIC);   /* NULL: no steps */
        if (rc == SQLITE_OK) rc = sqlite3_step(ins) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
        sqlite3_finalize(ins);
    }
    sqlite3_finalize(q);
    return rc;
}

int store_series_list(store_reader *r, int limit, series_row_fn fn, void *user) {
    static const char SQL[] =
        "SELECT s.series_key, min(s.key_source), count(*), max(r.created_at) AS newest,"
        "  (SELECT s2.run_id FROM run_series s2 JOIN runs r2 ON r2.id = s2.run_id WHERE s2.series_key = s.series_key"
        "   ORDER BY r2.created_at DESC, r2.id DESC LIMIT 1)"
        " FROM run_series s JOIN runs r ON r.id = s.run_id GROUP BY s.series_key ORDER BY newest DESC, s.series_key";
    sqlite3_stmt *q = NULL;
    if (store_reader_prepare(r, SQL, &q) != SQLITE_OK) return -1;
    int total = 0, rc;
    while ((rc = store_reader_note(r, sqlite3_step(q))) == SQLITE_ROW) {
        if (total++ >= limit) continue;
        series_row row = {(const char *)sqlite3_column_text(q, 0), (const char *)sqlite3_column_text(q, 1),
                          sqlite3_column_int64(q, 2), (const char *)sqlite3_column_text(q, 4)};
        if (row.key && row.key_source && row.latest_run) fn(user, &row);
    }
    sqlite3_finalize(q);
    return rc == SQLITE_DONE ? total : -1;
}

static opt_num num_col(sqlite3_stmt *q, int i) {
    if (sqlite3_column_type(q, i) == SQLITE_NULL) return (opt_num){false, 0.0};
    return (opt_num){true, sqlite3_column_double(q, i)};
}

int store_series_runs(store_reader *r, const char *key, int newest, series_run_fn fn, void *user, char *key_source,
                      size_t key_source_len) {
    static const char SQL[] =
        "SELECT * FROM (SELECT r.id, r.status, r.created_at, r.step_seconds, r.tokens_per_sec,"
        "  (SELECT b.value * 100.0 / NULLIF(sp.value, 0) FROM run_gauges b, run_gauges sp"
        "   WHERE b.run_id = r.id AND b.name = ?3 AND sp.run_id = r.id AND sp.name = ?4),"
        "  s.step_walls, s.key_source"
        "  FROM run_series s JOIN runs r ON r.id = s.run_id WHERE s.series_key = ?1"
        "  ORDER BY r.created_at DESC, r.id DESC LIMIT ?2) ORDER BY 3, 1";
    sqlite3_stmt *q = NULL;
    if (store_reader_prepare(r, SQL, &q) != SQLITE_OK) return -1;
    sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_int(q, 2, newest);
    sqlite3_bind_text(q, 3, INGEST_GAUGE_NAMES[IG_BUSY_NS], -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 4, INGEST_GAUGE_NAMES[IG_SPAN_NS], -1, SQLITE_STATIC);
    int n = 0, rc;
    while ((rc = store_reader_note(r, sqlite3_step(q))) == SQLITE_ROW) {
        series_run_row row = {(const char *)sqlite3_column_text(q, 0), RUN_PENDING, sqlite3_column_int64(q, 2),
                              num_col(q, 3), num_col(q, 4), num_col(q, 5), (const char *)sqlite3_column_text(q, 6)};
        const char *st = (const char *)sqlite3_column_text(q, 1);
        if (!row.id || !st || !store_run_status_parse(st, &row.status)) continue;
        if (n++ == 0 && key_source) snprintf(key_source, key_source_len, "%s", (const char *)sqlite3_column_text(q, 7));
        fn(user, &row);
    }
    sqlite3_finalize(q);
    return rc == SQLITE_DONE ? n : -1;
}

bool store_run_series_key(store_reader *r, const char *run_id, char *key, size_t n) {
    sqlite3_stmt *q = NULL;
    if (store_reader_prepare(r, "SELECT series_key FROM run_series WHERE run_id = ?1", &q) != SQLITE_OK)
        return false;
    sqlite3_bind_text(q, 1, run_id, -1, SQLITE_STATIC);
    bool found = store_reader_note(r, sqlite3_step(q)) == SQLITE_ROW && sqlite3_column_text(q, 0);
    if (found) snprintf(key, n, "%s", (const char *)sqlite3_column_text(q, 0));
    sqlite3_finalize(q);
    return found;
}
