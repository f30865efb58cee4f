/* rocprof_v1_db: legacy rocprof's (ROCm <= 5, rocprofiler v1) results.db -> records.
 *
 * rocprof v1's tblextr.py writes an SQLite database beside results.csv: table `A` (one
 * row per kernel dispatch from results.txt: Index, KernelName, gpu-id, queue-id, pid,
 * tid, grd, wgr, lds, scr, vgpr, sgpr, DispatchNs, BeginNs, EndNs, CompleteNs, counters;
 * some tools name it KERN), `OPS` (HIP activity: BeginNs, EndNs, dev-id, queue-id, Name,
 * pid, tid, Index, proc-id), `COPY` (BeginNs, EndNs, Name, pid, tid, Index, proc-id),
 * `HIP` / `HSA` / `KFD` (BeginNs, EndNs, pid, tid, Name, args, Index) and `rocTX`
 * (BeginNs, EndNs, pid, tid, Name, Index). There is no fixture of a real file: the column
 * lists above are tblextr.py's and the tests build small databases from them.
 *
 * Columns are found by name (SELECT * and the result's column names), so added counter
 * columns and missing optional ones do not matter. A row is what its table says it is, never
 * what its kernel's name looks like (a `Kokkos::Impl::ViewFill<...>` kernel is a kernel):
 * kernels come from `A` (or KERN) when it has timed rows, else from `OPS` (tblextr puts
 * copies and fills in COPY, kernels in OPS), never both (the same dispatches); OPS's
 * `Unknown command type` rows (BeginNs == EndNs: a barrier or marker packet rocprof could
 * not name) are skipped under their own reason. A COPY row becomes REC_MEMORY_COPY
 * (direction from its command name; rocprof v1 records no byte count, so bytes are unknown),
 * except `FillBuffer`, a fill: REC_MEMSET. HIP/HSA/KFD rows are REC_API_CALL (correlation
 * id = Index, per process as tblextr numbers it), rocTX rows REC_ANNOTATION. Times are
 * integer ns.
 * The database is read through its descriptor with parsers/sqlite/sqlite_guard's bounds (a table
 * may be a hostile view: deadline, cancel, content and memory stop it, and the file is
 * then dropped whole). */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/text_utf8.h"
#include "parsers/artefact.h"
#include "parsers/tokenizers/copy_kind.h"
#include "parsers/sqlite/sqlite_schema.h"
#include "parsers/sqlite/sqlite_guard.h"

/* The columns read, by name (the first spelling present wins). */
enum { K_NAME, K_BEGIN, K_END, K_DEV, K_QUEUE, K_INDEX, K_PID, K_TID, K_GRD, K_WGR, K_LDS, K_SCR, K_VGPR, K_SGPR,
       K_COUNT };
static const char *const COLUMN_NAMES[][3] = {
    {"KernelName", "Name", NULL}, {"BeginNs", NULL, NULL}, {"EndNs", NULL, NULL}, {"gpu-id", "dev-id", NULL},
    {"queue-id", NULL, NULL},     {"Index", NULL, NULL},   {"pid", NULL, NULL},   {"tid", NULL, NULL},
    {"grd", NULL, NULL},          {"wgr", NULL, NULL},     {"lds", NULL, NULL},   {"scr", NULL, NULL},
    {"vgpr", "arch_vgpr", NULL},  {"sgpr", NULL, NULL},
};
_Static_assert(sizeof COLUMN_NAMES / sizeof *COLUMN_NAMES == K_COUNT, "COLUMN_NAMES: one entry per value below K_COUNT");

typedef enum { T_KERNELS, T_OPS_KERNELS, T_COPY, T_HIP, T_HSA, T_KFD, T_ROCTX } table_kind;

typedef struct state {
    record_sink sink;
    read_facts *facts;
    diag_list *diag;
    const parse_limits *lim;
    sqlg_db *g;                  /* the open database, while read_fd runs */
    const char *label;
    strbuf name;
    int col[K_COUNT];
    uint64_t used, bad_times, no_name, unknown_command, tables;
    uint64_t first_bad_row, names_cut;
    bool oom;
} state;

static void *v1_open(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
                     diag_list *diag) {
    state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->sink = *sink;
    s->facts = facts;
    s->diag = diag;
    s->label = label;
    s->lim = opt ? opt->limits : NULL;
    return s;
}

static void map_columns(state *s, sqlite3_stmt *q) {
    for (int k = 0; k < K_COUNT; k++) {
        s->col[k] = -1;
        for (int v = 0; v < 3 && COLUMN_NAMES[k][v] && s->col[k] < 0; v++)
            for (int c = 0; c < sqlite3_column_count(q); c++)
                if (!strcasecmp(sqlite3_column_name(q, c), COLUMN_NAMES[k][v])) { s->col[k] = c; break; }
    }
}

static bool int_at(const state *s, sqlite3_stmt *q, int k, int64_t *v) {
    if (s->col[k] < 0) return false;
    int c = s->col[k];
    if (sqlite3_column_type(q, c) == SQLITE_INTEGER) { *v = sqlite3_column_int64(q, c); return true; }
    if (sqlite3_column_type(q, c) != SQLITE_TEXT) return false;   /* tblextr stores some numbers as text */
    const char *t = (const char *)sqlite3_column_text(q, c);
    if (!t) s->g->nomem = true;                  /* (a TEXT cell: NULL is SQLite out of memory) */
    char *end;
    errno = 0;
    long long x = t ? strtoll(t, &end, 10) : 0;
    if (!t || end == t || *end || errno == ERANGE) return false;   /* (ERANGE: clamped, not the number) */
    *v = x;
    return true;
}

/* The command name rocprof v1 gives an OPS entry it could not identify (a barrier or
 * marker packet: BeginNs == EndNs in every file seen). */
static const char UNKNOWN_COMMAND[] = "Unknown command type";

static bool row(state *s, sqlite3_stmt *q, table_kind t, uint64_t rowno) {
    int64_t b, e, v;
    size_t n = 0;
    s->name.len = 0;
    const char *name = s->col[K_NAME] >= 0 ? sqlg_text(s->g, q, s->col[K_NAME], &s->name, &n) : NULL;
    if (name) {
        utf8_strip(&name, &n);
        if (n >= 2 && name[0] == '"' && name[n - 1] == '"') name++, n -= 2;   /* tblextr quotes kernel names */
    }
    if (t == T_OPS_KERNELS && name && n == sizeof UNKNOWN_COMMAND - 1 && !memcmp(name, UNKNOWN_COMMAND, n)) {
        s->unknown_command++;
        return true;
    }
    if (!int_at(s, q, K_BEGIN, &b) || !int_at(s, q, K_END, &e) || e < b || (t <= T_OPS_KERNELS && e == b)) {
        if (!s->bad_times++) s->first_bad_row = rowno;
        return true;
    }
    record r = {.line = rowno, .has = RF_START | RF_END | RF_DURATION, .start_ns = b, .end_ns = e,
                .duration_ns = (i128)e - b, .name = n ? name : NULL, .name_len = n};
    switch (t) {
    case T_KERNELS: case T_OPS_KERNELS: r.type = REC_KERNEL_DISPATCH; break;
    case T_COPY:                              /* the command name: CopyHostToDevice, FillBuffer, ... */
        if (name && n == 10 && !memcmp(name, "FillBuffer", 10)) { r.type = REC_MEMSET; break; }
        r.type = REC_MEMORY_COPY;
        r.copy = name ? copy_kind_of_name(name, n) : COPY_UNKNOWN;
        break;
    case T_HIP: r.type = REC_API_CALL; r.domain = API_HIP; break;
    case T_HSA: r.type = REC_API_CALL; r.domain = API_HSA; break;
    case T_KFD: r.type = REC_API_CALL; r.domain = API_OTHER; break;
    case T_ROCTX: r.type = REC_ANNOTATION; break;
    }
    if (r.type == REC_KERNEL_DISPATCH && !n) { s->no_name++; return true; }
    if (int_at(s, q, K_DEV, &v)) r.device = v, r.has |= RF_DEVICE;
    if (int_at(s, q, K_QUEUE, &v)) r.stream = v, r.has |= RF_STREAM;
    if (t >= T_HIP && t <= T_KFD && int_at(s, q, K_INDEX, &v) && v >= 0) r.correlation_id = (uint64_t)v, r.has |= RF_CORRELATION;
    int64_t pid, tid;
    if (t >= T_HIP && int_at(s, q, K_PID, &pid) && int_at(s, q, K_TID, &tid)) r.pid = pid, r.tid = tid, r.has |= RF_PID_TID;
    int64_t grd, wgr, lds, scr, vgpr, sgpr;
    if (t == T_KERNELS && int_at(s, q, K_GRD, &grd) && int_at(s, q, K_WGR, &wgr) && grd >= 0 && wgr >= 0 &&
        grd <= UINT32_MAX && wgr <= UINT32_MAX) {
        r.has |= RF_GRID;                     /* rocprof v1 gives total sizes: x only */
        r.grid[0] = (uint32_t)grd, r.grid[1] = r.grid[2] = 1;
        r.workgroup[0] = (uint32_t)wgr, r.workgroup[1] = r.workgroup[2] = 1;
    }
    if (t == T_KERNELS && int_at(s, q, K_LDS, &lds) && int_at(s, q, K_SCR, &scr) && int_at(s, q, K_VGPR, &vgpr) &&
        int_at(s, q, K_SGPR, &sgpr) && lds >= 0 && scr >= 0 && vgpr >= 0 && sgpr >= 0 && lds <= UINT32_MAX &&
        scr <= UINT32_MAX && vgpr <= UINT32_MAX && sgpr <= UINT32_MAX) {
        r.has |= RF_RESOURCES;
        r.lds_bytes = (uint32_t)lds, r.scratch_bytes = (uint32_t)scr, r.vgpr = (uint32_t)vgpr, r.sgpr = (uint32_t)sgpr;
    }
    s->used++;
    return record_emit(&s->sink, &r);
}

/* Reads one table; *rows gets how many records it gave. false: SQLite failed or OOM. */
static bool read_table(state *s, sqlite3 *db, const char *table, table_kind t, uint64_t *rows) {
    char sql[64];
    snprintf(sql, sizeof sql, "SELECT * FROM \"%s\"", table);
    sqlite3_stmt *q = NULL;
    *rows = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) {   /* absent: that trace was off */
        const char *e = sqlite3_errmsg(db);
        if (s->g->stop) return false;
        if (sqlg_nomem(db, 0)) {
            diag_oom(s->diag, "%s: out of memory preparing table %s; records are partial", s->label, table);
            return false;
        }
        if (strncmp(e, "no such table", 13)) diag_add(s->diag, "%s: table %s unreadable: %s", s->label, table, e);
        return true;
    }
    s->tables++;
    map_columns(s, q);
    uint64_t before = s->used, n = 0;
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW)
        if (!row(s, q, t, ++n)) { s->oom = true; break; }
    if (sqlg_nomem(db, rc) || s->g->nomem) s->oom = true;
    bool ok = rc == SQLITE_DONE || s->oom;
    if (!ok && !s->g->stop)
        diag_add(s->diag, "%s: database error in table %s after %llu rows: %s", s->label, table,
                 (unsigned long long)n, sqlg_errmsg(s->g));
    if (s->oom) diag_oom(s->diag, "%s: out of memory in table %s; records are partial", s->label, table);
    sqlite3_finalize(q);
    *rows = s->used - before;
    return ok && !s->oom;
}

static bool v1_read_fd(void *st, int fd, const char *path) {
    state *s = st;
    sqlg_db g;
    if (!sqlg_open(&g, fd, path, s->lim, s->label, "a rocprof v1 results.db", s->diag)) return false;
    s->g = &g;
    sqlite3 *db = g.db;
    uint64_t k = 0, rows;
    bool ok = read_table(s, db, "A", T_KERNELS, &k);
    if (ok && !k) ok = read_table(s, db, "KERN", T_KERNELS, &k);
    if (ok && !k) ok = read_table(s, db, "OPS", T_OPS_KERNELS, &k);
    read_facts_column(s->facts, "kernels", k ? "A/KERN, else OPS" : NULL);
    static const struct { const char *name; table_kind t; } REST[] = {
        {"COPY", T_COPY}, {"HIP", T_HIP}, {"HSA", T_HSA}, {"KFD", T_KFD}, {"rocTX", T_ROCTX}};
    for (size_t i = 0; ok && i < sizeof REST / sizeof *REST; i++) ok = read_table(s, db, REST[i].name, REST[i].t, &rows);
    if (sqlg_stop_warn(&g, s->label, s->diag)) ok = false;
    else if (ok && !s->tables) {
        diag_add(s->diag, "%s: not a rocprof v1 results.db (none of the tables A, KERN, OPS, COPY, HIP, HSA, KFD, "
                 "rocTX): %s", s->label, sqlite3_errmsg(db));
        ok = false;
    }
    s->names_cut = g.names_cut;
    sqlg_close(&g);
    s->g = NULL;
    return ok;
}

static void v1_finish(void *st) {
    state *s = st;
    if (s->bad_times)
        diag_add(s->diag, "%s: %llu rows without integer BeginNs <= EndNs ignored (first at row %llu of its table)",
                 s->label, (unsigned long long)s->bad_times, (unsigned long long)s->first_bad_row);
    if (s->names_cut) diag_add(s->diag, "%s: %llu names longer than %d KiB cut", s->label,
                               (unsigned long long)s->names_cut, SQLG_NAME_MAX >> 10);
    s->facts->rows_used = s->used;
    read_facts_skip(s->facts, "BeginNs or EndNs missing, or EndNs < BeginNs", s->bad_times);
    read_facts_skip(s->facts, "no kernel name", s->no_name);
    read_facts_skip(s->facts, "OPS 'Unknown command type' row (not a dispatch; BeginNs == EndNs)", s->unknown_command);
}

static void v1_close(void *st) {
    state *s = st;
    if (!s) return;
    strbuf_free(&s->name);
    free(s);
}

static const char *const V1_NAMES[] = {"results.db", "*/results.db", NULL};

/* SQLite named results.db (rocpd's are <pid>_results.db); the schema is not in the first
 * bytes: any SQLite file may be one (60) until v1_sniff_file has looked at its tables. */
static int v1_sniff(const char *name, const uint8_t *head, size_t n) {
    bool sqlite = n >= 16 && !memcmp(head, "SQLite format 3", 16);
    if (!sqlite) return 0;
    return !strcmp(name, "results.db") ? 90 : 60;
}

/* tblextr's tables, and no rocpd_ table or view (rocpd databases are SQLite too). */
static int v1_sniff_file(int fd) {
    static const char *const TABLES[] = {"A", "KERN", "OPS", "COPY", "HIP", "HSA", "KFD", "rocTX", NULL};
    int rocpd = 0, ours = sqlite_schema_match(fd, TABLES, "rocpd_", &rocpd);
    return ours < 0 ? ours : ours > 0 && !rocpd ? 95 : 0;
}

const artefact_parser rocprof_v1_db_parser = {
    .name = "rocprof-v1-db",
    .family = "rocprof",
    .kind = ARTEFACT_ANALYSIS_ONLY,
    .kernels = KERNELS_DEVICE_CLOCK,
    .names = V1_NAMES,
    .sniff = v1_sniff,
    .sniff_file = v1_sniff_file,
    .open_records = v1_open,
    .read_fd = v1_read_fd,
    .finish = v1_finish,
    .close = v1_close,
};
