/* sqlite_schema: the tables and views of an SQLite file (see sqlite_schema.h). The file is opened
 * once without blocking on a FIFO, checked to be a regular file, and read through that descriptor
 * by parsers/sqlite/sqlite_guard (never by name again, with its bounds). A link is followed as the
 * inventory's own checks allowed it (core/run_inventory confines the daemon's paths to the root
 * first; the reader opens the file again with artefact_open's checks before any row is read). */
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

/* A descriptor of path when it is a regular file (not a FIFO or device); -1 otherwise. */
static int open_regular(const char *path) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0) return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) { close(fd); return -1; }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

int sqlite_schema_match(const char *path, const char *const *names, const char *prefix, int *prefixed) {
    *prefixed = 0;
    int fd = open_regular(path);
    if (fd < 0) return -1;
    sqlg_db g;
    diag_list quiet;                    /* a sniff says nothing: the reader warns when it reads */
    diag_init(&quiet);
    if (!sqlg_open(&g, fd, NULL, NULL, path, "sniffed", &quiet)) {
        bool oom = quiet.out_of_memory;
        diag_free(&quiet);
        close(fd);
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
    close(fd);
    return oom ? SNIFF_OUT_OF_MEMORY : rc == SQLITE_DONE ? found : -1;
}
