/* schema: the database schema as a list of migrations, and the function that applies them.
 *
 * Kept apart from store.c (which runs the queries) so a schema change is one entry here. The
 * version is PRAGMA user_version; each migration runs in its own BEGIN IMMEDIATE transaction. */
#ifndef GOBLIN_SCHEMA_H
#define GOBLIN_SCHEMA_H

#include <sqlite3.h>
#include <stddef.h>

/* Brings the database on db up to the current schema, one migration per transaction. -1 with
 * a message in err when a migration fails or the database is newer than this goblind. */
int schema_migrate(sqlite3 *db, char *err, size_t errlen);
/* The schema version this goblind writes (the number of migrations). */
int schema_version(void);

#endif
