/* run_analysis: writes and reads of the stored analysis document and report (run_analysis.h). */
#include "storage/run_analysis.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

int run_analysis_write(sqlite3 *db, const char *run_id, const char *analysis_json, const char *report_md) {
    bool any = analysis_json || report_md;
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_prepare_v2(db, any ? "INSERT INTO run_analysis(run_id, json, report_md) VALUES (?1, ?2, ?3)"
                                          " ON CONFLICT(run_id) DO UPDATE SET json = ?2, report_md = ?3"
                                        : "DELETE FROM run_analysis WHERE run_id = ?1", -1, &q, NULL);
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_text(q, 1, run_id, -1, SQLITE_STATIC);
    if (any) {
        if (analysis_json) sqlite3_bind_text(q, 2, analysis_json, -1, SQLITE_STATIC);
        if (report_md) sqlite3_bind_text(q, 3, report_md, -1, SQLITE_STATIC);
    }
    rc = sqlite3_step(q);
    sqlite3_finalize(q);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

bool store_get_doc(store_reader *r, const char *run_id, stored_doc_kind kind, stored_doc *out) {
    memset(out, 0, sizeof *out);
    sqlite3_stmt *q = NULL;
    const char *sql = kind == STORED_REPORT_MD
        ? "SELECT status, ingest_count, (SELECT report_md FROM run_analysis WHERE run_id = ?1) FROM runs WHERE id = ?1"
        : "SELECT status, ingest_count, (SELECT json FROM run_analysis WHERE run_id = ?1) FROM runs WHERE id = ?1";
    if (store_reader_prepare(r, sql, &q) != SQLITE_OK) return false;
    sqlite3_bind_text(q, 1, run_id, -1, SQLITE_STATIC);
    int rc = store_reader_note(r, sqlite3_step(q));
    if (rc == SQLITE_ROW) {
        out->found = store_run_status_parse((const char *)sqlite3_column_text(q, 0), &out->status);
        out->ingest_count = sqlite3_column_int64(q, 1);
        const char *text = (const char *)sqlite3_column_text(q, 2);
        if (text) {
            out->len = (size_t)sqlite3_column_bytes(q, 2);
            out->text = malloc(out->len + 1);
            if (out->text) memcpy(out->text, text, out->len + 1);
            else store_reader_fail(r);            /* out of memory: no answer rather than a wrong one */
        }
    }
    sqlite3_finalize(q);
    return out->found;
}
