/* sqlite_schema: the tables and views of an SQLite file (see sqlite_schema.h). */
#include "parsers/sqlite_schema.h"

#include <sqlite3.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

int sqlite_schema_match(const char *path, const char *const *names, const char *prefix, int *prefixed) {
    *prefixed = 0;
    char *uri = sqlite3_mprintf("file:%s?immutable=1", path);
    sqlite3 *db = NULL;
    int rc = uri ? sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL)
                 : SQLITE_NOMEM;
    sqlite3_free(uri);
    sqlite3_stmt *q = NULL;
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type IN ('table','view') LIMIT 4096", -1, &q,
                                NULL);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(q);
        sqlite3_close(db);
        return -1;
    }
    int found = 0;
    size_t pl = prefix ? strlen(prefix) : 0;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        const char *n = (const char *)sqlite3_column_text(q, 0);
        if (!n) continue;
        for (const char *const *w = names; w && *w; w++)
            if (!strcasecmp(n, *w)) { found++; break; }
        if (pl && !strncasecmp(n, prefix, pl)) (*prefixed)++;
    }
    sqlite3_finalize(q);
    sqlite3_close(db);
    return rc == SQLITE_DONE ? found : -1;
}
