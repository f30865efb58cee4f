/* sqlite_guard: an untrusted SQLite database (a profiler's file in a run directory, written
 * by anyone) opened and read within bounds.
 *
 * The file is read only through the descriptor the reader opened and checked: a private
 * VFS serves the main database from that descriptor and refuses every other file (no
 * name is ever resolved, so a path swapped for a symlink after the check leads nowhere;
 * no journal, no -wal, no temporary file: SQLite's temp space is zero and a sort or
 * temporary table larger than the page cache fails instead of spilling). The connection
 * is read-only, query_only, DEFENSIVE, trusted_schema off, triggers, extension loading and
 * the two-argument fts3_tokenizer off, with small sqlite3_limit()s (value length, SQL
 * length, columns, expression depth, compound selects, function arguments, VDBE ops).
 * A progress handler stops every statement at the parse deadline (max_parse_s), on
 * cancel (shutdown), when the rows taken pass max_parse_mb, or when SQLite's heap grows
 * by more than SQLG_HEAP_MAX during the read; the caller then drops the file whole with
 * the warning sqlg_stop_warn() gives. */
#ifndef GOBLIN_SQLITE_GUARD_H
#define GOBLIN_SQLITE_GUARD_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/strbuf.h"
#include "parsers/artefact.h"

#define SQLG_VALUE_MAX (4 << 20)      /* SQLITE_LIMIT_LENGTH: one string, blob or row */
#define SQLG_NAME_MAX (64 << 10)      /* a name taken into a record (longer: cut, counted) */
#define SQLG_HEAP_MAX (256 << 20)     /* SQLite heap growth during one read */
#define SQLG_CACHE_KIB 8192           /* page cache (and so sorter / temp b-tree) per connection */

typedef enum { SQLG_RUNNING, SQLG_DEADLINE, SQLG_CANCELLED, SQLG_CONTENT, SQLG_HEAP } sqlg_stop;

typedef struct sqlg_db {
    sqlite3 *db;
    const parse_limits *lim;     /* NULL: no deadline, cancel or content bound (the heap bound holds) */
    sqlite3_int64 heap_base;     /* sqlite3_memory_used() when opened */
    uint64_t content;            /* bytes of text taken from rows (max_parse_mb) */
    uint64_t names_cut;          /* names longer than SQLG_NAME_MAX, cut */
    sqlg_stop stop;              /* why the progress handler stopped the read */
    bool nomem;                  /* a row's text was lost for lack of memory (sqlg_text): partial */
} sqlg_db;

/* Opens the database in fd (the reader's checked descriptor, left open; the caller closes
 * it after sqlg_close). path (may be NULL) only names the file for the write-ahead-log
 * warning: a database whose header says WAL and whose `<path>-wal` holds bytes gets a
 * warning that those rows are not read. false after the warning `<label>: not <what>: <why>`;
 * what = "sniffed" marks an open that only reads the schema (the inventory's peek). */
bool sqlg_open(sqlg_db *g, int fd, const char *path, const parse_limits *lim, const char *label, const char *what,
               diag_list *diag);
void sqlg_close(sqlg_db *g);
/* The warning for a read stopped by a bound (nothing when it was not); true when it was. */
bool sqlg_stop_warn(const sqlg_db *g, const char *label, diag_list *diag);
/* The connection's last error, said plainly: a refused temporary file (SQLITE_CANTOPEN during
 * a read) is "its query needs temporary space beyond the page cache ...". */
const char *sqlg_errmsg(const sqlg_db *g);
/* Whether db's last error is SQLite running out of memory (NULL db: sqlite3_open's own): not a
 * fault of the database, so the caller warns with diag_oom and the run is read again. */
bool sqlg_nomem(sqlite3 *db, int rc);
/* Column c of the current row as sanitized UTF-8 in buf, cut to SQLG_NAME_MAX (counted),
 * NUL-terminated, its bytes counted as content; NULL (len 0) when SQL NULL or empty. */
const char *sqlg_text(sqlg_db *g, sqlite3_stmt *q, int c, strbuf *buf, size_t *len);

#endif
