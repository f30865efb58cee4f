/* run_rows: the queries that read runs back: one run's row, pages of rows (by status,
 * profile and cursor), the per-status counts and a run's kernel rows (store.h declares them;
 * store.c owns the connections and the writes). */
#include "storage/store.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/kernel_cursor.h"
#include "storage/schema.h"

static const char *col_text(sqlite3_stmt *q, int i) { return (const char *)sqlite3_column_text(q, i); }

/* The run row; the last column is the RunMetrics body when the query joins it, else NULL. */
#define RUN_COLUMNS "id, root, path, status, created_at, updated_at, completed_at, ingest_count, parse_ms, error," \
                    " tokens_per_sec, mfu_pct, gpu_util_pct, step_seconds, hbm_peak_gb, " HEADLINE_MORE ", profile, headline_json"
#define RUN_COLUMN_COUNT (18 + INGEST_WASTE_BUCKETS)   /* the metrics body is the column after them */

/* A headline column: NULL is a number the parse did not measure (or no parse yet). */
static opt_num col_opt(sqlite3_stmt *q, int i) {
    opt_num o = {sqlite3_column_type(q, i) != SQLITE_NULL, 0.0};
    if (o.has) o.v = sqlite3_column_double(q, i);
    return o;
}

static void read_run(sqlite3_stmt *q, run_row *row) {
    memset(row, 0, sizeof *row);
    row->id = col_text(q, 0);
    row->root = col_text(q, 1);
    row->path = col_text(q, 2);
    store_run_status_parse(col_text(q, 3), &row->status);
    row->created_at = sqlite3_column_int64(q, 4);
    row->updated_at = sqlite3_column_int64(q, 5);
    row->completed_at = sqlite3_column_int64(q, 6);
    row->ingest_count = sqlite3_column_int64(q, 7);
    row->parse_ms = sqlite3_column_double(q, 8);
    row->error = col_text(q, 9);
    row->tokens_per_sec = col_opt(q, 10);
    row->mfu_pct = col_opt(q, 11);
    row->gpu_util_pct = col_opt(q, 12);
    row->step_seconds = col_opt(q, 13);
    row->hbm_peak_gb = col_opt(q, 14);
    row->hbm_avg_gb = col_opt(q, 15);
    for (int b = 0; b < INGEST_WASTE_BUCKETS; b++) row->waste[b] = col_opt(q, 16 + b);
    row->profile = col_text(q, 16 + INGEST_WASTE_BUCKETS);
    row->headline_json = col_text(q, 17 + INGEST_WASTE_BUCKETS);
    row->metrics_json = col_text(q, RUN_COLUMN_COUNT);
}

int store_list_runs(store_reader *r, int status, int limit, const char *cursor, bool with_metrics, run_row_fn fn,
                    void *user, char *next, size_t next_len) {
    return store_list_runs_profile(r, status, NULL, limit, cursor, with_metrics, fn, user, next, next_len);
}

int store_list_runs_profile(store_reader *r, int status, const char *profile, int limit, const char *cursor,
                            bool with_metrics, run_row_fn fn, void *user, char *next, size_t next_len) {
    int64_t c_upd = INT64_MAX;
    const char *c_id = "\xff";
    next[0] = '\0';
    if (cursor && *cursor) {                 /* "<updated_at>:<id>" */
        char *end;
        long long v = strtoll(cursor, &end, 10);
        if (end == cursor || *end != ':' || !end[1]) return STORE_BAD_CURSOR;
        c_upd = v;
        c_id = end + 1;
    }
    sqlite3_stmt *q = NULL;
    /* row values let SQLite walk runs_by_update / runs_by_status from the cursor */
    char sql[768];
    snprintf(sql, sizeof sql, "SELECT " RUN_COLUMNS ", %s FROM runs WHERE %s %s (updated_at, id) < (?1, ?2)"
             " ORDER BY updated_at DESC, id DESC LIMIT ?4",
             with_metrics ? "(SELECT json FROM run_metrics WHERE run_id = id)" : "NULL",
             status >= 0 ? "status = ?3 AND" : "",
             profile ? "instr(',' || coalesce(profile, '') || ',', ',' || ?5 || ',') > 0 AND" : "");
    if (store_reader_prepare(r, sql, &q) != SQLITE_OK) return STORE_READ_FAILED;
    sqlite3_bind_int64(q, 1, c_upd);
    sqlite3_bind_text(q, 2, c_id, -1, SQLITE_STATIC);
    if (status >= 0) sqlite3_bind_text(q, 3, store_run_status_name((run_status)status), -1, SQLITE_STATIC);
    sqlite3_bind_int(q, 4, limit + 1);       /* one more tells whether there is a next page */
    if (profile) sqlite3_bind_text(q, 5, profile, -1, SQLITE_STATIC);
    int n = 0, rc;
    run_row row;
    while ((rc = store_reader_note(r, sqlite3_step(q))) == SQLITE_ROW) {
        read_run(q, &row);
        if (n == limit) break;
        fn(user, &row);
        snprintf(next, next_len, "%lld:%s", (long long)row.updated_at, row.id);
        n++;
    }
    if (rc != SQLITE_ROW) next[0] = '\0';    /* no row beyond this page */
    sqlite3_finalize(q);
    return (rc == SQLITE_ROW || rc == SQLITE_DONE) ? n : STORE_READ_FAILED;
}

bool store_get_run(store_reader *r, const char *id, run_row_fn fn, void *user) {
    sqlite3_stmt *q = NULL;
    if (store_reader_prepare(r, "SELECT " RUN_COLUMNS ", (SELECT json FROM run_metrics WHERE run_id = ?1)"
                           " FROM runs WHERE id = ?1", &q) != SQLITE_OK)
        return false;
    sqlite3_bind_text(q, 1, id, -1, SQLITE_STATIC);
    bool found = store_reader_note(r, sqlite3_step(q)) == SQLITE_ROW;
    if (found) {
        run_row row;
        read_run(q, &row);
        fn(user, &row);
    }
    sqlite3_finalize(q);
    return found;
}

void store_kernel_classes(unsigned flags, kernel_row *k) {
    k->flags = flags;
    k->gemm = (flags & INGEST_KF_GEMM_WIDE) != 0;
    k->collective = (flags & INGEST_KF_COLLECTIVE) != 0;
    k->generic_gemm = k->gemm && (flags & INGEST_KF_GENERIC);
}

/* The query is kernel_query_sql's (storage/kernel_cursor.c): its share uses TOTAL() (a double),
 * as SUM() of saturated int64 totals overflowed and failed the whole query. */
int store_run_kernels(store_reader *r, const char *id, kernel_sort sort, int limit, kernel_row_fn fn, void *user) {
    char sql[512];
    kernel_query_sql(sort, sql, sizeof sql);
    sqlite3_stmt *q = NULL;
    if (store_reader_prepare(r, sql, &q) != SQLITE_OK) return -1;
    sqlite3_bind_text(q, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_int(q, 2, limit);
    int n = 0, rc;
    while ((rc = store_reader_note(r, sqlite3_step(q))) == SQLITE_ROW) {
        kernel_row k = {
            .name = col_text(q, 0), .name_len = (size_t)sqlite3_column_bytes(q, 0),
            .calls = sqlite3_column_int64(q, 1), .total_ns = sqlite3_column_int64(q, 2),
            .min_ns = sqlite3_column_int64(q, 3), .max_ns = sqlite3_column_int64(q, 4),
            .avg_ns = sqlite3_column_double(q, 5), .pct_time = sqlite3_column_double(q, 6),
            .kernel_class = col_text(q, 8),
        };
        store_kernel_classes((unsigned)sqlite3_column_int(q, 7), &k);
        fn(user, &k);
        n++;
    }
    sqlite3_finalize(q);
    return rc == SQLITE_DONE ? n : -1;               /* an error part way is an error, not a short list */
}

bool store_count_by_status(store_reader *r, int64_t counts[RUN_STATUS_COUNT]) {
    memset(counts, 0, sizeof(int64_t) * RUN_STATUS_COUNT);
    sqlite3_stmt *q = NULL;
    if (store_reader_prepare(r, "SELECT status, COUNT(*) FROM runs GROUP BY status", &q) != SQLITE_OK)
        return false;
    int rc;
    while ((rc = store_reader_note(r, sqlite3_step(q))) == SQLITE_ROW) {
        run_status st;
        if (store_run_status_parse(col_text(q, 0), &st)) counts[st] = sqlite3_column_int64(q, 1);
    }
    sqlite3_finalize(q);
    return rc == SQLITE_DONE;
}
