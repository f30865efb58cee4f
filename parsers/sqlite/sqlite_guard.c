/* sqlite_guard: an untrusted SQLite database opened through its checked descriptor and read
 * within bounds (see sqlite_guard.h). */
#include "parsers/sqlite/sqlite_guard.h"
#include "base/clock.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/text_utf8.h"

#define VFS_NAME "goblind-fd"
#define PROGRESS_OPS 1000             /* VDBE ops between two checks of the bounds */

/* ---------------------------------------------------------------- the descriptor VFS */

typedef struct fd_file {
    sqlite3_file base;
    int fd;                   /* the reader's; never closed here */
} fd_file;

static int fd_close(sqlite3_file *f) { (void)f; return SQLITE_OK; }

/* A WAL-mode header (bytes 18 and 19 = 2) is served as a rollback one (1): the -wal file is
 * never read here (sqlg_open warns when it holds bytes), so the main file is read as it is. */
static int fd_read(sqlite3_file *f, void *buf, int n, sqlite3_int64 off) {
    int fd = ((fd_file *)f)->fd;
    uint8_t *p = buf;
    int got = 0;
    while (got < n) {
        ssize_t r = pread(fd, p + got, (size_t)(n - got), (off_t)(off + got));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return SQLITE_IOERR_READ;
        if (r == 0) break;
        got += (int)r;
    }
    for (int i = 18; i <= 19; i++)
        if (off <= i && i < off + got && p[i - off] == 2) p[i - off] = 1;
    if (got < n) { memset(p + got, 0, (size_t)(n - got)); return SQLITE_IOERR_SHORT_READ; }
    return SQLITE_OK;
}

static int fd_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o) { (void)f, (void)b, (void)n, (void)o; return SQLITE_READONLY; }
static int fd_truncate(sqlite3_file *f, sqlite3_int64 n) { (void)f, (void)n; return SQLITE_READONLY; }
static int fd_sync(sqlite3_file *f, int flags) { (void)f, (void)flags; return SQLITE_OK; }
static int fd_size(sqlite3_file *f, sqlite3_int64 *out) {
    struct stat st;
    if (fstat(((fd_file *)f)->fd, &st) != 0) return SQLITE_IOERR_FSTAT;
    *out = st.st_size;
    return SQLITE_OK;
}
static int fd_lock(sqlite3_file *f, int level) { (void)f, (void)level; return SQLITE_OK; }
static int fd_reserved(sqlite3_file *f, int *out) { (void)f; *out = 0; return SQLITE_OK; }
static int fd_control(sqlite3_file *f, int op, void *arg) { (void)f, (void)op, (void)arg; return SQLITE_NOTFOUND; }
static int fd_sector(sqlite3_file *f) { (void)f; return 4096; }
/* immutable: no locks, no journal or hot-journal checks (the profiler has finished) */
static int fd_caps(sqlite3_file *f) { (void)f; return SQLITE_IOCAP_IMMUTABLE; }

static const sqlite3_io_methods FD_METHODS = {
    .iVersion = 1, .xClose = fd_close, .xRead = fd_read, .xWrite = fd_write, .xTruncate = fd_truncate,
    .xSync = fd_sync, .xFileSize = fd_size, .xLock = fd_lock, .xUnlock = fd_lock, .xCheckReservedLock = fd_reserved,
    .xFileControl = fd_control, .xSectorSize = fd_sector, .xDeviceCharacteristics = fd_caps,
};

/* The main database only, from the descriptor named by the URI parameter fd; every other
 * file (journal, -wal, temporary files of sorts and temp b-trees) is refused. */
static int vfs_open(sqlite3_vfs *v, const char *name, sqlite3_file *f, int flags, int *out) {
    (void)v;
    f->pMethods = NULL;
    if (!name || !(flags & SQLITE_OPEN_MAIN_DB) || (flags & (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)))
        return SQLITE_CANTOPEN;
    sqlite3_int64 fd = sqlite3_uri_int64(name, "fd", -1);
    if (fd < 0 || fd > INT_MAX) return SQLITE_CANTOPEN;
    ((fd_file *)f)->fd = (int)fd;
    f->pMethods = &FD_METHODS;
    if (out) *out = SQLITE_OPEN_READONLY;
    return SQLITE_OK;
}
static int vfs_delete(sqlite3_vfs *v, const char *n, int sync) { (void)v, (void)n, (void)sync; return SQLITE_OK; }
static int vfs_access(sqlite3_vfs *v, const char *n, int flags, int *out) { (void)v, (void)n, (void)flags; *out = 0; return SQLITE_OK; }
static int vfs_full(sqlite3_vfs *v, const char *n, int size, char *out) {
    (void)v;
    if ((int)strlen(n) >= size) return SQLITE_CANTOPEN;
    memcpy(out, n, strlen(n) + 1);
    return SQLITE_OK;
}
static void *vfs_dlopen(sqlite3_vfs *v, const char *n) { (void)v, (void)n; return NULL; }
static void vfs_dlerror(sqlite3_vfs *v, int n, char *out) { (void)v; if (n > 0) snprintf(out, (size_t)n, "no extensions"); }
static void (*vfs_dlsym(sqlite3_vfs *v, void *h, const char *s))(void) { (void)v, (void)h, (void)s; return NULL; }
static void vfs_dlclose(sqlite3_vfs *v, void *h) { (void)v, (void)h; }
static int vfs_random(sqlite3_vfs *v, int n, char *out) { (void)v; memset(out, 0, (size_t)n); return n; }
static int vfs_sleep(sqlite3_vfs *v, int us) { (void)v; return us; }   /* nothing to wait for: no locks */
static int vfs_time(sqlite3_vfs *v, double *out) {
    (void)v;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    *out = 2440587.5 + ((double)ts.tv_sec + ts.tv_nsec / 1e9) / 86400.0;
    return SQLITE_OK;
}
static int vfs_error(sqlite3_vfs *v, int n, char *out) { (void)v, (void)n, (void)out; return 0; }

/* Registered once (pthread_once) and never changed after: SQLite links it into its VFS list
 * (pNext), so it cannot be const; no ingest writes it. */
static sqlite3_vfs fd_vfs = {
    .iVersion = 1, .szOsFile = sizeof(fd_file), .mxPathname = 512, .zName = VFS_NAME, .xOpen = vfs_open,
    .xDelete = vfs_delete, .xAccess = vfs_access, .xFullPathname = vfs_full, .xDlOpen = vfs_dlopen,
    .xDlError = vfs_dlerror, .xDlSym = vfs_dlsym, .xDlClose = vfs_dlclose, .xRandomness = vfs_random,
    .xSleep = vfs_sleep, .xCurrentTime = vfs_time, .xGetLastError = vfs_error,
};
static pthread_once_t vfs_once = PTHREAD_ONCE_INIT;
static void vfs_register(void) { sqlite3_vfs_register(&fd_vfs, 0); }

/* ---------------------------------------------------------------- bounds */

/* Every PROGRESS_OPS VDBE ops: nonzero stops the statement (SQLITE_INTERRUPT). */
static int progress(void *user) {
    sqlg_db *g = user;
    const parse_limits *l = g->lim;
    if (l && l->cancel && atomic_load(l->cancel)) g->stop = SQLG_CANCELLED;
    else if (l && l->deadline_ms && clk_mono_ms() > l->deadline_ms) g->stop = SQLG_DEADLINE;
    else if (l && l->max_bytes && g->content > l->max_bytes) g->stop = SQLG_CONTENT;
    else if (sqlite3_memory_used() - g->heap_base > SQLG_HEAP_MAX) g->stop = SQLG_HEAP;
    return g->stop != SQLG_RUNNING;
}

bool sqlg_stop_warn(const sqlg_db *g, const char *label, diag_list *diag) {
    const parse_limits *l = g->lim;
    switch (g->stop) {
    case SQLG_RUNNING: return false;
    case SQLG_CANCELLED: diag_add(diag, "%s: parse cancelled (shutting down)", label); break;
    case SQLG_DEADLINE:
        diag_add(diag, "%s: not parsed: database still being read after %d s; max_parse_s bounds a parse", label,
                 l ? l->max_seconds : 0);
        break;
    case SQLG_CONTENT:
        diag_add(diag, "%s: not parsed: more than %llu MiB of row text; max_parse_mb bounds a parse", label,
                 (unsigned long long)(l ? l->max_bytes >> 20 : 0));
        break;
    case SQLG_HEAP:
        diag_add(diag, "%s: not parsed: its queries needed more than %d MiB of SQLite memory; the database reader "
                 "bounds a parse", label, SQLG_HEAP_MAX >> 20);
        break;
    }
    return true;
}

/* The limits: far above what rocprofv3's and rocprof's own schemas need (views of < 3 KiB,
 * < 200 columns, shallow expressions), far below what a hostile schema would use. */
static void set_limits(sqlite3 *db) {
    static const int LIMITS[][2] = {
        {SQLITE_LIMIT_LENGTH, SQLG_VALUE_MAX}, {SQLITE_LIMIT_SQL_LENGTH, 1 << 20}, {SQLITE_LIMIT_COLUMN, 1000},
        {SQLITE_LIMIT_EXPR_DEPTH, 100},       {SQLITE_LIMIT_COMPOUND_SELECT, 50}, {SQLITE_LIMIT_VDBE_OP, 100000},
        {SQLITE_LIMIT_FUNCTION_ARG, 32},      {SQLITE_LIMIT_ATTACHED, 0},         {SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 1000},
        {SQLITE_LIMIT_VARIABLE_NUMBER, 32},   {SQLITE_LIMIT_TRIGGER_DEPTH, 1},    {SQLITE_LIMIT_WORKER_THREADS, 0},
    };
    for (size_t i = 0; i < sizeof LIMITS / sizeof *LIMITS; i++) sqlite3_limit(db, LIMITS[i][0], LIMITS[i][1]);
}

static bool configure(sqlite3 *db) {
    static const int OFF[] = {SQLITE_DBCONFIG_TRUSTED_SCHEMA, SQLITE_DBCONFIG_ENABLE_TRIGGER,
                              SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER};
    for (size_t i = 0; i < sizeof OFF / sizeof *OFF; i++)
        if (sqlite3_db_config(db, OFF[i], 0, (int *)NULL) != SQLITE_OK) return false;
    if (sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL) != SQLITE_OK) return false;
    set_limits(db);
    /* (views stay on: rocprofv3 exposes its rows through them; the bounds hold inside views) */
    char sql[160];
    snprintf(sql, sizeof sql, "PRAGMA query_only = 1; PRAGMA trusted_schema = 0; PRAGMA temp_store = FILE; "
             "PRAGMA cache_size = -%d; PRAGMA mmap_size = 0;", SQLG_CACHE_KIB);
    return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK;
}

/* A WAL-mode header and a -wal beside the file holding bytes: those rows are not read. */
static void wal_warn(int fd, const char *path, const char *label, diag_list *diag) {
    uint8_t v[2];
    if (!path || pread(fd, v, 2, 18) != 2 || v[0] != 2 || v[1] != 2) return;
    char wal[PATH_MAX];
    struct stat st;
    if (snprintf(wal, sizeof wal, "%s-wal", path) >= (int)sizeof wal || lstat(wal, &st) != 0 || st.st_size == 0) return;
    diag_add(diag, "%s: database in WAL mode with %lld bytes in its -wal file: only the main file is read, rows not "
             "yet checkpointed are missing (checkpoint it: sqlite3 FILE 'PRAGMA wal_checkpoint')", label,
             (long long)st.st_size);
}

bool sqlg_open(sqlg_db *g, int fd, const char *path, const parse_limits *lim, const char *label, const char *what,
               diag_list *diag) {
    memset(g, 0, sizeof *g);
    g->lim = lim;
    pthread_once(&vfs_once, vfs_register);
    char uri[64];
    /* the URI's name is only a label (the VFS takes the descriptor): a schema sniff says so, so
     * that tests count the reads of a database's rows apart from the inventory's peeks */
    snprintf(uri, sizeof uri, "file:%s?fd=%d", strcmp(what, "sniffed") ? "database" : "schema", fd);
    int rc = sqlite3_open_v2(uri, &g->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, VFS_NAME);
    if (rc == SQLITE_OK && !configure(g->db)) rc = SQLITE_ERROR;
    if (rc != SQLITE_OK) {
        if (sqlg_nomem(g->db, rc)) diag_oom(diag, "%s: out of memory opening the database", label);
        else diag_add(diag, "%s: not %s: %s", label, what, g->db ? sqlite3_errmsg(g->db) : sqlite3_errstr(rc));
        sqlite3_close(g->db);
        g->db = NULL;
        return false;
    }
    g->heap_base = sqlite3_memory_used();
    sqlite3_progress_handler(g->db, PROGRESS_OPS, progress, g);
    wal_warn(fd, path, label, diag);
    return true;
}

void sqlg_close(sqlg_db *g) {
    sqlite3_close(g->db);
    g->db = NULL;
}

bool sqlg_nomem(sqlite3 *db, int rc) {
    return rc == SQLITE_NOMEM || (db && sqlite3_errcode(db) == SQLITE_NOMEM);
}

const char *sqlg_errmsg(const sqlg_db *g) {
    /* the two refusals of sqlite_guard's own bounds say so ("bounds a parse"), so that the run
     * is failed with that reason rather than complete with what came before them */
    if (sqlite3_errcode(g->db) == SQLITE_CANTOPEN)
        return "its query needs temporary space beyond the 8 MiB page cache (a sort or temporary table), "
               "which an untrusted database is not given; the page cache bounds a parse";
    if (sqlite3_errcode(g->db) == SQLITE_TOOBIG)
        return "string or blob too big (a value past 4 MiB; the value length bounds a parse)";
    return sqlite3_errmsg(g->db);
}

const char *sqlg_text(sqlg_db *g, sqlite3_stmt *q, int c, strbuf *buf, size_t *len) {
    const unsigned char *t = sqlite3_column_text(q, c);
    size_t n = (size_t)sqlite3_column_bytes(q, c);
    buf->len = 0;
    *len = 0;
    if (!t && sqlite3_column_type(q, c) != SQLITE_NULL) g->nomem = true;   /* SQLite's conversion failed */
    g->content += n;
    if (n > SQLG_NAME_MAX) n = SQLG_NAME_MAX, g->names_cut++;
    if (!t || !n) return NULL;
    if (!utf8_sanitize(t, n, buf) || !strbuf_terminate(buf)) { g->nomem = true; return NULL; }
    *len = buf->len;
    return buf->data;
}
