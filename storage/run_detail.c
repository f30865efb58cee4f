/* run_detail: warnings, artefact facts and the file inventory out of the stored JSON, by SQL
 * (run_detail.h).
 *
 * A stored text that is not JSON counts as none (json_valid). SQLite 3.40's json_valid()
 * also answers 0 when memory runs out, and sqlite3_column_text() NULL: the reader then says
 * the read failed (store_reader_failed counts SQLite's failed allocations, sqlite_mem.h), so
 * the caller answers an error rather than "no warnings". */
#include "storage/run_detail.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

char *store_run_warnings(store_reader *r, const char *run_id) {
    sqlite3_stmt *q = NULL;
    if (store_reader_prepare(r,
                           "SELECT json_extract(json, '$.warnings') FROM run_metrics WHERE run_id = ?1"
                           " AND json_valid(json) AND json_type(json, '$.warnings') = 'array'", &q) != SQLITE_OK)
        return NULL;
    sqlite3_bind_text(q, 1, run_id, -1, SQLITE_STATIC);
    int rc = store_reader_note(r, sqlite3_step(q));
    const char *text = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(q, 0) : NULL;
    char *out = rc == SQLITE_ROW || rc == SQLITE_DONE ? strdup(text ? text : "[]") : NULL;
    if ((rc == SQLITE_ROW || rc == SQLITE_DONE) && !out) store_reader_fail(r);
    sqlite3_finalize(q);
    return out;
}

void store_get_artefact_facts(store_reader *r, const char *run_id, artefact_facts_fn fn, void *user) {
    /* a reading that is not JSON counts as none (its -> would fail the whole query) */
    static const char SQL[] =
        "SELECT kind, path, format, present, size, mtime_ns, inode, bytes_parsed, parse_ms, error,"
        " json_object('found_by', rd -> '$.found_by', 'sniff_score', rd -> '$.sniff_score',"
        "  'columns', rd -> '$.columns', 'rows_used', rd -> '$.rows_used', 'rows_skipped', rd -> '$.rows_skipped',"
        "  'steps_source', rd -> '$.steps_source', 'step_time_source', rd -> '$.step_time_source')"
        " FROM (SELECT *, CASE WHEN json_valid(reading) THEN reading END AS rd FROM artefacts WHERE run_id = ?1)"
        " ORDER BY kind";
    sqlite3_stmt *q = NULL;
    if (store_reader_prepare(r, SQL, &q) != SQLITE_OK) return;
    sqlite3_bind_text(q, 1, run_id, -1, SQLITE_STATIC);
    while (store_reader_note(r, sqlite3_step(q)) == SQLITE_ROW) {
        run_artefact_row a = {
            .kind = (const char *)sqlite3_column_text(q, 0), .path = (const char *)sqlite3_column_text(q, 1),
            .format = (const char *)sqlite3_column_text(q, 2), .present = sqlite3_column_int(q, 3) != 0,
            .size = sqlite3_column_int64(q, 4), .mtime_ns = sqlite3_column_int64(q, 5),
            .inode = sqlite3_column_int64(q, 6), .bytes_parsed = sqlite3_column_int64(q, 7),
            .parse_ms = sqlite3_column_double(q, 8), .error = (const char *)sqlite3_column_text(q, 9),
        };
        fn(user, &a, (const char *)sqlite3_column_text(q, 10));
    }
    sqlite3_finalize(q);
}

char *store_run_sources(store_reader *r, const char *run_id) {
    /* one object per source of the stored analysis document: which file, which format read it,
     * and why that format (the name pattern, the sniff score); NULL (null) with no document */
    static const char SQL[] =
        "SELECT (SELECT json_group_array(json_object('path', s.value -> '$.path', 'format', s.value -> '$.format',"
        "  'found_by', s.value -> '$.found_by', 'sniff_score', s.value -> '$.sniff_score',"
        "  'rank', s.value -> '$.rank', 'read', s.value -> '$.read'))"
        " FROM json_each(ra.json, '$.sources') AS s)"   /* ra.: json_each has a hidden column "json" too */
        " FROM run_analysis AS ra WHERE run_id = ?1 AND json_valid(ra.json) AND json_type(ra.json, '$.sources') = 'array'";
    sqlite3_stmt *q = NULL;
    if (store_reader_prepare(r, SQL, &q) != SQLITE_OK) return NULL;
    sqlite3_bind_text(q, 1, run_id, -1, SQLITE_STATIC);
    int rc = store_reader_note(r, sqlite3_step(q));
    const char *text = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(q, 0) : NULL;
    char *out = text ? strdup(text) : NULL;
    if (text && !out) store_reader_fail(r);
    sqlite3_finalize(q);
    return out;
}
