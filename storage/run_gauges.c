/* run_gauges: writes and reads of the analysis headline numbers (run_gauges.h). */
#include "storage/run_gauges.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

int run_gauges_write(sqlite3 *db, const char *run_id, const ingest_doc *doc) {
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_prepare_v2(db, "DELETE FROM run_gauges WHERE run_id = ?1", -1, &q, NULL);
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_text(q, 1, run_id, -1, SQLITE_STATIC);
    rc = sqlite3_step(q) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
    sqlite3_finalize(q);
    if (rc != SQLITE_OK) return rc;
    rc = sqlite3_prepare_v2(db, "INSERT INTO run_gauges(run_id, name, value) VALUES (?1, ?2, ?3)"
                                " ON CONFLICT(run_id, name) DO UPDATE SET value = ?3", -1, &q, NULL);
    if (rc != SQLITE_OK) return rc;
    for (size_t i = 0; i < doc->n_gauges && rc == SQLITE_OK; i++) {
        const ingest_gauge *g = &doc->gauges[i];
        if (ingest_gauge_index(g->name) < 0 || g->value != g->value) continue;   /* not of the fixed set */
        sqlite3_bind_text(q, 1, run_id, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 2, g->name, -1, SQLITE_STATIC);
        sqlite3_bind_double(q, 3, g->value);
        rc = sqlite3_step(q) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
        sqlite3_reset(q);
    }
    sqlite3_finalize(q);
    if (rc != SQLITE_OK) return rc;
    rc = sqlite3_prepare_v2(db, "UPDATE runs SET kernels_source = ?2, kernels_formats = ?3 WHERE id = ?1", -1, &q, NULL);
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_text(q, 1, run_id, -1, SQLITE_STATIC);
    if (doc->kernels_source) sqlite3_bind_text(q, 2, doc->kernels_source, -1, SQLITE_STATIC);
    if (doc->kernels_formats) sqlite3_bind_text(q, 3, doc->kernels_formats, -1, SQLITE_STATIC);
    rc = sqlite3_step(q) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
    sqlite3_finalize(q);
    return rc;
}

int store_newest_gauges(store_reader *r, int max_runs, gauge_row_fn fn, void *user) {
    sqlite3_stmt *q = NULL;
    if (store_reader_prepare(r, "SELECT run_id, name, value FROM run_gauges WHERE run_id IN"
                                " (SELECT id FROM runs ORDER BY updated_at DESC, id DESC LIMIT ?1) ORDER BY run_id",
                             &q) != SQLITE_OK)
        return -1;
    sqlite3_bind_int(q, 1, max_runs);
    int n = 0, rc;
    while ((rc = store_reader_note(r, sqlite3_step(q))) == SQLITE_ROW) {
        int g = ingest_gauge_index((const char *)sqlite3_column_text(q, 1));
        const char *id = (const char *)sqlite3_column_text(q, 0);
        if (g >= 0 && id) fn(user, id, g, sqlite3_column_double(q, 2));
        n++;
    }
    sqlite3_finalize(q);
    return rc == SQLITE_DONE ? n : -1;
}

bool store_run_gauges(store_reader *r, const char *run_id, opt_num out[IG_COUNT]) {
    memset(out, 0, sizeof(opt_num) * IG_COUNT);
    sqlite3_stmt *q = NULL;
    if (store_reader_prepare(r, "SELECT name, value FROM run_gauges WHERE run_id = ?1", &q) !=
        SQLITE_OK)
        return false;
    sqlite3_bind_text(q, 1, run_id, -1, SQLITE_STATIC);
    int rc;
    while ((rc = store_reader_note(r, sqlite3_step(q))) == SQLITE_ROW) {
        int g = ingest_gauge_index((const char *)sqlite3_column_text(q, 0));
        if (g >= 0) out[g] = (opt_num){true, sqlite3_column_double(q, 1)};
    }
    sqlite3_finalize(q);
    return rc == SQLITE_DONE;
}

bool store_kernels_source(store_reader *r, const char *run_id, char *source, size_t source_len, char *formats,
                          size_t formats_len) {
    source[0] = formats[0] = 0;
    sqlite3_stmt *q = NULL;
    if (store_reader_prepare(r, "SELECT kernels_source, kernels_formats FROM runs WHERE id = ?1", &q) != SQLITE_OK)
        return false;
    sqlite3_bind_text(q, 1, run_id, -1, SQLITE_STATIC);
    bool found = store_reader_note(r, sqlite3_step(q)) == SQLITE_ROW;
    if (found) {
        const unsigned char *s = sqlite3_column_text(q, 0), *f = sqlite3_column_text(q, 1);
        snprintf(source, source_len, "%s", s ? (const char *)s : "");
        snprintf(formats, formats_len, "%s", f ? (const char *)f : "");
    }
    sqlite3_finalize(q);
    return found;
}
