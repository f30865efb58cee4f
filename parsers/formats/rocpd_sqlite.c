/* rocpd_sqlite: rocprofv3's rocpd SQLite database (<host>/<pid>_results.db) -> kernel
 * dispatch records, then (rocpd_tables.c) agents, API regions, memory copies and allocations.
 *
 * Not a byte stream: the reader hands this format the opened file's descriptor
 * (artefact_parser.read_fd) and it reads it with SQLite through parsers/sqlite/sqlite_guard
 * (read-only, immutable, never by name, every statement bounded by the parse deadline,
 * cancel, content and memory). Tables carry a per-file uuid suffix and their columns drift
 * between rocprofiler-sdk versions, so the rows come from the un-suffixed `kernels` view by
 * column name, else from rocpd_kernel_dispatch joined to rocpd_info_kernel_symbol
 * (timestamps inline, as real databases store them; joined on id and guid and named by
 * display_name, as the view).
 * Each dispatch with a name and end > start becomes one REC_KERNEL_DISPATCH (start, end and
 * end - start in integer ns; agent, stream or queue, correlation id), in start order: the views are read unsorted (no
 * SQL sort of a view of unknown size) and put in (start, id) order in bounded memory by
 * parsers/formats/rocpd_order. A file that is not such a database gets a warning, never a crash.
 * This is the one place outside storage/ that speaks SQL, and it only reads the profiler's
 * own file. */
#include <assert.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text_utf8.h"
#include "parsers/artefact.h"
#include "parsers/formats/rocpd_order.h"
#include "parsers/formats/rocpd_tables.h"
#include "parsers/sqlite/sqlite_schema.h"
#include "parsers/sqlite/sqlite_guard.h"

/* The first query adds grid, workgroup and resource columns (the kernels view of real
 * schema-3 databases); the second is the same view without them (rows identical). No ORDER
 * BY: rows are put in (start, id) order by rocpd_order; id is the last column. */
static const char *const VIEW_QUERIES[] = {
    "SELECT name, start, \"end\", agent_abs_index, COALESCE(stream_id, queue_id), corr_id, grid_x, grid_y, grid_z, "
    "workgroup_x, workgroup_y, workgroup_z, lds_size, scratch_size, vgpr_count, sgpr_count, id FROM kernels",
    "SELECT name, start, \"end\", agent_abs_index, COALESCE(stream_id, queue_id), corr_id, id FROM kernels",
};
/* Without the view: the tables, each template tried with each of SYMBOL_NAMES for its %s.
 * agent_id is rocpd_info_agent's row id: the device is that agent's absolute index, as the
 * view's agent_abs_index and the CSV's Agent_Id; no such agent: unknown. Row ids are per
 * process: a database merging several has the same ids under different guids, so the joins
 * match the guid too, as the view does; tables without a guid column, by id alone. The last
 * two: no agent table at all (the kernels still, on no known device). */
static const char *const TABLE_QUERIES[] = {
    "SELECT ks.%s, kd.start, kd.\"end\", a.absolute_index, COALESCE(kd.stream_id, kd.queue_id), NULL, kd.id "
    "FROM rocpd_kernel_dispatch kd JOIN rocpd_info_kernel_symbol ks ON ks.id = kd.kernel_id AND ks.guid = kd.guid "
    "LEFT JOIN rocpd_info_agent a ON a.id = kd.agent_id AND a.guid = kd.guid",
    "SELECT ks.%s, kd.start, kd.\"end\", a.absolute_index, COALESCE(kd.stream_id, kd.queue_id), NULL, kd.id "
    "FROM rocpd_kernel_dispatch kd JOIN rocpd_info_kernel_symbol ks ON ks.id = kd.kernel_id "
    "LEFT JOIN rocpd_info_agent a ON a.id = kd.agent_id",
    "SELECT ks.%s, kd.start, kd.\"end\", NULL, COALESCE(kd.stream_id, kd.queue_id), NULL, kd.id "
    "FROM rocpd_kernel_dispatch kd JOIN rocpd_info_kernel_symbol ks ON ks.id = kd.kernel_id AND ks.guid = kd.guid",
    "SELECT ks.%s, kd.start, kd.\"end\", NULL, COALESCE(kd.stream_id, kd.queue_id), NULL, kd.id "
    "FROM rocpd_kernel_dispatch kd JOIN rocpd_info_kernel_symbol ks ON ks.id = kd.kernel_id",
};
/* The symbol's name column: the view's (display_name: "__amd_rocclr_initHeap"), else the
 * older schemas' kernel_name ("__amd_rocclr_initHeap.kd"). */
static const char *const SYMBOL_NAMES[] = {"display_name", "kernel_name"};
#define N_VIEW_QUERIES (sizeof VIEW_QUERIES / sizeof *VIEW_QUERIES)
#define N_QUERIES (N_VIEW_QUERIES + sizeof TABLE_QUERIES / sizeof *TABLE_QUERIES * 2)
_Static_assert(sizeof SYMBOL_NAMES / sizeof *SYMBOL_NAMES == 2, "N_QUERIES counts two symbol names");

/* Query `which` (< N_QUERIES) as text, in SQLite's memory (sqlite3_free); NULL on OOM. */
static char *query_text(size_t which) {
    assert(which < N_QUERIES);
    if (which < N_VIEW_QUERIES) return sqlite3_mprintf("%s", VIEW_QUERIES[which]);
    which -= N_VIEW_QUERIES;
    return sqlite3_mprintf(TABLE_QUERIES[which / 2], SYMBOL_NAMES[which % 2]);
}

typedef struct state {
    record_sink sink;
    read_facts *facts;
    diag_list *diag;
    const parse_limits *lim;
    bool extended;               /* the query has grid and resource columns (6..15) */
    const char *label;
    strbuf name;
    uint64_t rows, no_name, nonpositive, first_nonpositive;
    rocpd_extra_counts extra;
    uint64_t names_cut, late;
    bool oom;
} state;

static void *rp_open(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
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

/* One result row -> one record (or a skip count). false: out of memory. */
static bool row(state *s, sqlg_db *g, rocpd_order *ord, sqlite3_stmt *q) {
    s->rows++;
    size_t n;
    const char *name = sqlg_text(g, q, 0, &s->name, &n);
    if (!name) { s->no_name++; return true; }
    utf8_strip(&name, &n);
    if (!n) { s->no_name++; return true; }
    i128 start = sqlite3_column_int64(q, 1), end = sqlite3_column_int64(q, 2);
    if (sqlite3_column_type(q, 1) != SQLITE_INTEGER || sqlite3_column_type(q, 2) != SQLITE_INTEGER || end <= start) {
        if (!s->nonpositive++) s->first_nonpositive = s->rows;
        return true;
    }
    record r = {.type = REC_KERNEL_DISPATCH, .has = RF_START | RF_END | RF_DURATION, .line = s->rows,
                .start_ns = start, .end_ns = end, .duration_ns = end - start, .name = name, .name_len = n};
    if (sqlite3_column_type(q, 3) == SQLITE_INTEGER) r.device = sqlite3_column_int64(q, 3), r.has |= RF_DEVICE;
    if (sqlite3_column_type(q, 4) == SQLITE_INTEGER) r.stream = sqlite3_column_int64(q, 4), r.has |= RF_STREAM;
    if (sqlite3_column_type(q, 5) == SQLITE_INTEGER && sqlite3_column_int64(q, 5) >= 0)
        r.correlation_id = (uint64_t)sqlite3_column_int64(q, 5), r.has |= RF_CORRELATION;
    if (s->extended) {
        bool grid = true, res = true;
        for (int c = 6; c < 12; c++) grid &= sqlite3_column_type(q, c) == SQLITE_INTEGER;
        for (int c = 12; c < 16; c++) res &= sqlite3_column_type(q, c) == SQLITE_INTEGER;
        for (int c = 6; c < 16; c++) grid &= c >= 12 || (uint64_t)sqlite3_column_int64(q, c) <= UINT32_MAX;
        for (int c = 12; c < 16; c++) res &= (uint64_t)sqlite3_column_int64(q, c) <= UINT32_MAX;
        if (grid) {
            r.has |= RF_GRID;
            for (int i = 0; i < 3; i++)
                r.grid[i] = (uint32_t)sqlite3_column_int64(q, 6 + i), r.workgroup[i] = (uint32_t)sqlite3_column_int64(q, 9 + i);
        }
        if (res) {
            r.has |= RF_RESOURCES;
            r.lds_bytes = (uint32_t)sqlite3_column_int64(q, 12), r.scratch_bytes = (uint32_t)sqlite3_column_int64(q, 13);
            r.vgpr = (uint32_t)sqlite3_column_int64(q, 14), r.sgpr = (uint32_t)sqlite3_column_int64(q, 15);
        }
    }
    return rocpd_order_add(ord, start, sqlite3_column_int64(q, sqlite3_column_count(q) - 1), &r);
}

/* The kernels, in (start, id) order. false: the read failed (warned) or a bound stopped it. */
static bool read_kernels(state *s, sqlg_db *g) {
    sqlite3_stmt *q = NULL;
    size_t which = 0;
    char *first_error = NULL;        /* the kernels view's own error, not the last fallback's */
    for (; which < N_QUERIES; which++) {
        char *sql = query_text(which);
        if (!sql) { s->oom = true; break; }
        int rc = sqlite3_prepare_v2(g->db, sql, -1, &q, NULL);
        sqlite3_free(sql);
        if (rc == SQLITE_OK) break;
        q = NULL;
        if (sqlg_nomem(g->db, 0)) { s->oom = true; break; }
        if (!which) first_error = sqlite3_mprintf("%s", sqlite3_errmsg(g->db));
    }
    if (!q) {
        if (s->oom) {}               /* (warned at the end, as any out of memory) */
        else if (!sqlg_stop_warn(g, s->label, s->diag))
            diag_add(s->diag, "%s: not a rocpd database (no usable kernels view or rocpd_kernel_dispatch table): "
                     "kernels: %s; rocpd_kernel_dispatch: %s", s->label, first_error ? first_error : "?",
                     sqlite3_errmsg(g->db));
        sqlite3_free(first_error);
        return false;
    }
    sqlite3_free(first_error);
    s->extended = which == 0;
    bool view = which < N_VIEW_QUERIES;
    read_facts_column(s->facts, "name", view ? "kernels.name"
                                        : (which - N_VIEW_QUERIES) % 2 == 0 ? "rocpd_info_kernel_symbol.display_name"
                                                                             : "rocpd_info_kernel_symbol.kernel_name");
    read_facts_column(s->facts, "start", view ? "kernels.start" : "rocpd_kernel_dispatch.start");
    read_facts_column(s->facts, "end", view ? "kernels.end" : "rocpd_kernel_dispatch.end");
    read_facts_column(s->facts, "duration", NULL);
    rocpd_order ord;
    rocpd_order_init(&ord, &s->sink);
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW)
        if (!row(s, g, &ord, q)) { s->oom = true; break; }
    if (sqlg_nomem(g->db, rc) || g->nomem) s->oom = true;
    bool ok = rc == SQLITE_DONE || s->oom;
    if (ok && !s->oom && !rocpd_order_flush(&ord)) s->oom = true;
    s->late += ord.late;
    rocpd_order_free(&ord);
    if (!ok && !sqlg_stop_warn(g, s->label, s->diag))
        diag_add(s->diag, "%s: database error after %llu kernel rows: %s", s->label, (unsigned long long)s->rows,
                 sqlg_errmsg(g));
    sqlite3_finalize(q);
    return ok;
}

static bool rp_read_fd(void *st, int fd, const char *path) {
    state *s = st;
    sqlg_db g;
    if (!sqlg_open(&g, fd, path, s->lim, s->label, "a rocpd database", s->diag)) return false;
    bool ok = read_kernels(s, &g);
    /* The other tables only feed the analysis document: an SQL failure there warns but keeps
     * the kernels (RunMetrics reads them); a bound stopping the read drops the file whole. */
    if (ok && !s->oom) {
        (void)rocpd_read_extras(&g, &s->sink, s->label, s->diag, &s->extra);
        s->late += s->extra.late;
        if (sqlg_stop_warn(&g, s->label, s->diag)) ok = false;
    }
    s->names_cut = g.names_cut;
    sqlg_close(&g);
    return ok;
}

static void rp_finish(void *st) {
    state *s = st;
    if (s->oom) diag_oom(s->diag, "%s: out of memory; kernel statistics are partial", s->label);
    if (s->names_cut) diag_add(s->diag, "%s: %llu names longer than %d KiB cut", s->label,
                               (unsigned long long)s->names_cut, SQLG_NAME_MAX >> 10);
    if (s->late) diag_add(s->diag, "%s: %llu rows too far out of start order for the %d-row window, passed on late",
                          s->label, (unsigned long long)s->late, ROCPD_ORDER_ROWS);
    if (s->nonpositive)
        diag_add(s->diag, "%s: %llu kernel rows without end > start ignored (first at row %llu)", s->label,
                 (unsigned long long)s->nonpositive, (unsigned long long)s->first_nonpositive);
    s->facts->rows_used = s->rows - s->no_name - s->nonpositive;
    read_facts_skip(s->facts, "no kernel name", s->no_name);
    read_facts_skip(s->facts, "zero or negative duration", s->nonpositive);
    read_facts_skip(s->facts, "region, copy or allocation without start <= end", s->extra.bad_times);
}

static void rp_close(void *st) {
    state *s = st;
    if (!s) return;
    strbuf_free(&s->name);
    free(s);
}

static const char *const RP_NAMES[] = {"*_results.db", "*/*_results.db", NULL};

/* An SQLite file; rocprof v1's results.db is SQLite too, but has no kernels view (the
 * query then fails with a clear warning). */
static int rp_sniff(const char *name, const uint8_t *head, size_t n) {
    (void)name;
    return n >= 16 && !memcmp(head, "SQLite format 3", 16) ? 95 : 0;
}

/* rocpd's schema: rocpd_ tables and views (rocprof v1's results.db is SQLite too). */
static int rp_sniff_file(int fd) {
    static const char *const VIEWS[] = {"kernels", "rocpd_kernel_dispatch", NULL};
    int rocpd = 0, views = sqlite_schema_match(fd, VIEWS, "rocpd_", &rocpd);
    return views < 0 ? views : views > 0 || rocpd > 0 ? 95 : 0;
}

const artefact_parser rocpd_sqlite_parser = {
    .name = "rocpd-sqlite",
    .family = "rocpd",
    .kind = ARTEFACT_KERNEL_TRACE,
    .names = RP_NAMES,
    .sniff = rp_sniff,
    .sniff_file = rp_sniff_file,
    .open_records = rp_open,
    .read_fd = rp_read_fd,
    .finish = rp_finish,
    .close = rp_close,
};
