/* kernel_cursor: one prepared statement on a private read-only connection (kernel_cursor.h). */
#include "storage/kernel_cursor.h"
#include "storage/sqlite_mem.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

struct kernel_cursor {
    sqlite3 *db;
    sqlite3_stmt *q;
    const atomic_bool *cancel;
};

void kernel_query_sql(kernel_sort sort, char *out, size_t n) {
    static const char *const ORDER[] = {
        "total_ns DESC, name", "calls DESC, name", "avg_ns DESC, name", "max_ns DESC, name", "name"};
    snprintf(out, n,
             "SELECT name, calls, total_ns, min_ns, max_ns, CAST(total_ns AS REAL) / calls AS avg_ns,"
             " total_ns * 100.0 / (SELECT MAX(1, TOTAL(total_ns)) FROM kernels WHERE run_id = ?1), flags, class"
             " FROM kernels WHERE run_id = ?1 ORDER BY %s LIMIT ?2", ORDER[sort]);
}

/* SQLite calls this every few thousand instructions; non-zero abandons the statement. */
static int cancelled(void *arg) {
    const kernel_cursor *k = arg;
    return k->cancel && atomic_load(k->cancel);
}

kernel_cursor *kernel_cursor_open(store *s, const char *id, kernel_sort sort, int limit, const atomic_bool *cancel,
                                  char *err, size_t errlen) {
    kernel_cursor *k = calloc(1, sizeof *k);
    if (!k) { snprintf(err, errlen, "out of memory"); return NULL; }
    k->cancel = cancel;
    const char *file = store_db_file(s);
    if (!file || sqlite3_open_v2(file, &k->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "cannot open the database: %s", k->db ? sqlite3_errmsg(k->db) : "no file");
        goto fail;
    }
    sqlite3_busy_timeout(k->db, 5000);
    /* a small cache: the sort spills to a temporary file rather than grow the heap */
    sqlite3_exec(k->db, "PRAGMA cache_size = -512; PRAGMA temp_store = FILE;", NULL, NULL, NULL);
    sqlite3_progress_handler(k->db, 10000, cancelled, k);
    char sql[512];
    kernel_query_sql(sort, sql, sizeof sql);
    if (sqlite3_prepare_v2(k->db, sql, -1, &k->q, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(k->db));
        goto fail;
    }
    if (sqlite3_bind_text(k->q, 1, id, -1, SQLITE_TRANSIENT) != SQLITE_OK) {   /* a copy: memory may run out */
        snprintf(err, errlen, "%s", sqlite3_errmsg(k->db));
        goto fail;
    }
    sqlite3_bind_int(k->q, 2, limit);
    return k;
fail:
    kernel_cursor_close(k);
    return NULL;
}

int kernel_cursor_next(kernel_cursor *k, kernel_row *row) {
    unsigned long mem0 = sqlite_mem_failures();   /* a name read as NULL for lack of memory is an error */
    int rc = sqlite3_step(k->q);
    if (rc == SQLITE_DONE) return 0;
    if (rc != SQLITE_ROW) return -1;
    const unsigned char *name = sqlite3_column_text(k->q, 0);
    *row = (kernel_row){
        .name = name ? (const char *)name : "", .name_len = name ? (size_t)sqlite3_column_bytes(k->q, 0) : 0,
        .calls = sqlite3_column_int64(k->q, 1),
        .total_ns = sqlite3_column_int64(k->q, 2), .min_ns = sqlite3_column_int64(k->q, 3),
        .max_ns = sqlite3_column_int64(k->q, 4), .avg_ns = sqlite3_column_double(k->q, 5),
        .pct_time = sqlite3_column_double(k->q, 6), .kernel_class = (const char *)sqlite3_column_text(k->q, 8),
    };
    store_kernel_classes((unsigned)sqlite3_column_int(k->q, 7), row);
    return sqlite_mem_failures() == mem0 ? 1 : -1;
}

void kernel_cursor_close(kernel_cursor *k) {
    if (!k) return;
    sqlite3_finalize(k->q);
    sqlite3_close(k->db);
    free(k);
}
