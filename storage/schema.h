/* schema: the database schema as a list of migrations, and the function that applies them.
 *
 * Kept apart from store.c (which runs the queries) so a schema change is one entry here. The
 * version is PRAGMA user_version; each migration runs in its own BEGIN IMMEDIATE transaction. */
#ifndef GOBLIN_SCHEMA_H
#define GOBLIN_SCHEMA_H

#include <sqlite3.h>
#include <stddef.h>

/* The headline columns of schema 8 in the runs table: mean HBM, then the waste buckets in
 * INGEST_WASTE_KEYS order (each column is "waste_" and its key; check_store_doc checks the
 * names). */
#define HEADLINE_MORE "hbm_avg_gb, waste_useful_gpu, waste_data_wait, waste_host_gap, waste_comm_excess," \
                      " waste_memory_headroom, waste_precision_path, waste_kernel_shape"

/* Brings the database on db up to the current schema, one migration per transaction. -1 with
 * a message in err when a migration fails or the database is newer than this goblind. */
int schema_migrate(sqlite3 *db, char *err, size_t errlen);
/* The schema version this goblind writes (the number of migrations). */
int schema_version(void);

#endif
