/* sqlite_schema: the tables and views of an SQLite file (see sqlite_schema.h), read through the
 * descriptor the run inventory opened with artefact_open's checks (confined to the root,
 * O_NOFOLLOW, no FIFO), by parsers/sqlite/sqlite_guard with its bounds: never by name. */
#include "parsers/sqlite/sqlite_schema.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parsers/artefact.h"
#include "parsers/sqlite/sqlite_guard.h"

int sqlite_schema_match(int fd, const char *const *names, const char *prefix, int *prefixed) {
    *prefixed = 0;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
    sqlg_db g;
    diag_list quiet;                    /* a sniff says nothing: the reader warns when it reads */
    diag_init(&quiet);
    if (!sqlg_open(&g, fd, NULL, NULL, "sqlite file", "sniffed", &quiet)) {
        bool oom = quiet.out_of_memory;
        diag_free(&quiet);
        return oom ? SNIFF_OUT_OF_MEMORY : -1;
    }
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_prepare_v2(g.db, "SELECT name FROM sqlite_master WHERE type IN ('table','view') LIMIT 4096", -1,
                                &q, NULL);
    int found = 0;
    bool lost = false;                  /* a name lost for lack of memory */
    size_t pl = prefix ? strlen(prefix) : 0;
    while (rc == SQLITE_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
        const char *n = (const char *)sqlite3_column_text(q, 0);
        if (!n) { lost |= sqlite3_column_type(q, 0) != SQLITE_NULL; rc = SQLITE_OK; continue; }
        for (const char *const *w = names; w && *w; w++)
            if (!strcasecmp(n, *w)) { found++; break; }
        if (pl && !strncasecmp(n, prefix, pl)) (*prefixed)++;
        rc = SQLITE_OK;
    }
    bool oom = lost || sqlg_nomem(g.db, rc);
    sqlite3_finalize(q);
    sqlg_close(&g);
    diag_free(&quiet);
    return oom ? SNIFF_OUT_OF_MEMORY : rc == SQLITE_DONE ? found : -1;
}
