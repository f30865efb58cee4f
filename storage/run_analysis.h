/* run_analysis: the analysis document and the Markdown report of a run's last parse.
 *
 * Stored beside the run (table run_analysis, schema.c) in the same transaction as the rest of
 * an ingest, so a reader never sees a document of one parse with the status of another. A
 * document the parse did not produce (NULL in the ingest_doc) is absent, never an empty one;
 * deleting the run (DELETE /runs/<id>, retention) deletes both by cascade. */
#ifndef GOBLIN_RUN_ANALYSIS_H
#define GOBLIN_RUN_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>

#include "storage/store.h"

/* Inside store_ingest's transaction: replaces the run's stored document and report with these
 * (either may be NULL: not produced); both NULL removes the row. An SQLite result code. */
int run_analysis_write(sqlite3 *db, const char *run_id, const char *analysis_json, const char *report_md);

typedef enum { STORED_ANALYSIS_JSON, STORED_REPORT_MD } stored_doc_kind;

/* One stored document with the run state that versions it (the ETag of its answer). */
typedef struct stored_doc {
    bool found;                    /* the run exists */
    run_status status;
    int64_t ingest_count;
    char *text;                    /* malloc'd copy, or NULL when the last parse stored none */
    size_t len;
} stored_doc;

/* Reads the run's state and the wanted document into *out (caller frees out->text). false
 * when the run is unknown or on an error (store_reader_failed and store_corruption tell
 * which). */
bool store_get_doc(store_reader *r, const char *run_id, stored_doc_kind kind, stored_doc *out);

#endif
