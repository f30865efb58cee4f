/* rocpd_tables: agents, API regions, memory copies and allocations of a rocpd database.
 *
 * Columns are taken by name from the un-suffixed views rocprofv3 writes (schema version 3:
 * regions, memory_copies, memory_allocations, rocpd_info_agent), so the uuid suffix of the
 * physical tables and the inline-vs-rocpd_timestamp drift between versions do not matter.
 * Device numbers are absolute agent indices (agent_abs_index), as the kernels view and
 * rocprofv3's CSV Agent_Id give them. Times are the database's integer nanoseconds. The views
 * are read unsorted through parsers/sqlite/sqlite_guard's bounded connection and put in order by
 * parsers/formats/rocpd_order ((start, id); agents (absolute_index, id)). */
#include "parsers/formats/rocpd_tables.h"

#include <stdio.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/text_utf8.h"
#include "parsers/tokenizers/copy_kind.h"
#include "parsers/formats/rocpd_order.h"

#define AGENTS_RECHECKED 64      /* GPU agents whose JSON numbers are read twice (a node has <= 16) */

typedef struct reader {
    rocpd_order ord;              /* the records, put in key order */
    sqlg_db *g;
    rocpd_extra_counts *n;
    strbuf a, b;                  /* sanitized text columns */
    uint64_t row;
    i128 k1;                      /* the current row's key: start (agents: absolute index) */
    int64_t k2;                   /* and id (the query's last column) */
    size_t n_agents;              /* the agents' JSON numbers as read, for agents_recheck */
    struct { int64_t id; int type[3]; sqlite3_int64 v[3]; } agents[AGENTS_RECHECKED];
} reader;

/* Column c as sanitized, NUL-terminated UTF-8 in buf (NULL when SQL NULL or empty; cut and
 * counted past SQLG_NAME_MAX). */
static const char *text(reader *rd, sqlite3_stmt *q, int c, strbuf *buf, size_t *len) {
    return sqlg_text(rd->g, q, c, buf, len);
}

static bool emit(reader *rd, const record *r) { return rocpd_order_add(&rd->ord, rd->k1, rd->k2, r); }

static bool is_int(sqlite3_stmt *q, int c) { return sqlite3_column_type(q, c) == SQLITE_INTEGER; }

/* Start and end columns (integers, start <= end) into r; false (counted) otherwise. */
static bool times(reader *rd, sqlite3_stmt *q, int c, record *r) {
    if (!is_int(q, c) || !is_int(q, c + 1) || sqlite3_column_int64(q, c + 1) < sqlite3_column_int64(q, c)) {
        rd->n->bad_times++;
        return false;
    }
    r->start_ns = rd->k1 = sqlite3_column_int64(q, c);
    r->end_ns = sqlite3_column_int64(q, c + 1);
    r->duration_ns = r->end_ns - r->start_ns;
    r->has |= RF_START | RF_END | RF_DURATION;
    return true;
}

static void correlation(sqlite3_stmt *q, int c, record *r) {
    if (is_int(q, c) && sqlite3_column_int64(q, c) > 0)
        r->correlation_id = (uint64_t)sqlite3_column_int64(q, c), r->has |= RF_CORRELATION;
}

static bool emit_meta(reader *rd, int64_t dev, const char *key, const char *v, size_t n) {
    if (!v || !n) return true;
    record r = {.type = REC_METADATA, .has = RF_DEVICE, .line = rd->row, .device = dev, .key = key, .value = v,
                .value_len = n};
    return emit(rd, &r);
}

static bool emit_meta_int(reader *rd, sqlite3_stmt *q, int c, int64_t dev, const char *key) {
    if (!is_int(q, c) || sqlite3_column_int64(q, c) <= 0) return true;   /* 0: the agent does not say */
    char t[24];
    int n = snprintf(t, sizeof t, "%lld", (long long)sqlite3_column_int64(q, c));
    return emit_meta(rd, dev, key, t, (size_t)n);
}

/* Keeps an agent's three numbers from extdata (columns 4-6) for agents_recheck. */
static void agent_keep(reader *rd, sqlite3_stmt *q) {
    if (rd->n_agents == AGENTS_RECHECKED) return;
    rd->agents[rd->n_agents].id = rd->k2;
    for (int k = 0; k < 3; k++) {
        rd->agents[rd->n_agents].type[k] = sqlite3_column_type(q, 4 + k);
        rd->agents[rd->n_agents].v[k] = sqlite3_column_int64(q, 4 + k);
    }
    rd->n_agents++;
}

/* SQLite's JSON functions can answer NULL or 0, not an error, when they run out of memory
 * (SQLite 3.40): the agents' numbers from extdata are read a second time and must be the
 * same; another answer, or an error, means memory ran out (the read is then partial, never
 * silently without an agent's numbers). The agents query is the first of QUERIES. */
static void agents_recheck(reader *rd, const char *sql) {
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_prepare_v2(rd->g->db, sql, -1, &q, NULL);
    size_t i = 0;
    bool same = rc == SQLITE_OK;
    while (same && (rc = sqlite3_step(q)) == SQLITE_ROW && i < rd->n_agents) {
        if (!is_int(q, 0)) continue;
        same = sqlite3_column_int64(q, 7) == rd->agents[i].id;
        for (int k = 0; same && k < 3; k++)
            same = sqlite3_column_type(q, 4 + k) == rd->agents[i].type[k] &&
                   sqlite3_column_int64(q, 4 + k) == rd->agents[i].v[k];
        i++;
    }
    if (same && rc != SQLITE_ROW && rc != SQLITE_DONE) same = false;
    if (!same && !rd->g->stop) rd->g->nomem = true;
    sqlite3_finalize(q);
}

static bool agent_row(reader *rd, sqlite3_stmt *q) {
    if (!is_int(q, 0)) return true;
    agent_keep(rd, q);
    int64_t dev = rd->k1 = sqlite3_column_int64(q, 0);
    size_t n;
    const char *v;
    rd->n->agents++;
    if ((v = text(rd, q, 2, &rd->a, &n)) && !emit_meta(rd, dev, "vendor", v, n)) return false;
    if ((v = text(rd, q, 3, &rd->a, &n)) && !emit_meta(rd, dev, "device_name", v, n)) return false;
    if ((v = text(rd, q, 1, &rd->a, &n)) && !emit_meta(rd, dev, "arch", v, n)) return false;
    return emit_meta_int(rd, q, 4, dev, "compute_units") && emit_meta_int(rd, q, 5, dev, "wave_size") &&
           emit_meta_int(rd, q, 6, dev, "memory_bytes");
}

/* HIP_* / HSA_* regions are API calls; MARKER_* are user ranges (roctx); the rest (RCCL,
 * rocDecode, ...) are API calls of another domain. */
static bool region_row(reader *rd, sqlite3_stmt *q) {
    size_t cn, nn;
    const char *cat = text(rd, q, 0, &rd->a, &cn), *name = text(rd, q, 1, &rd->b, &nn);
    record r = {.type = REC_API_CALL, .line = rd->row, .name = name, .name_len = nn, .category = cat,
                .category_len = cn, .domain = API_OTHER};
    if (!times(rd, q, 2, &r)) return true;
    if (cat && !strncmp(cat, "HIP_", 4)) r.domain = API_HIP;
    else if (cat && !strncmp(cat, "HSA_", 4)) r.domain = API_HSA;
    else if (cat && !strncmp(cat, "MARKER_", 7)) r.type = REC_ANNOTATION;
    if (is_int(q, 4) && is_int(q, 6)) r.pid = sqlite3_column_int64(q, 6), r.tid = sqlite3_column_int64(q, 4), r.has |= RF_PID_TID;
    correlation(q, 5, &r);
    rd->n->regions++;
    return emit(rd, &r);
}

static bool copy_row(reader *rd, sqlite3_stmt *q) {
    size_t nn;
    const char *name = text(rd, q, 0, &rd->a, &nn);
    record r = {.type = REC_MEMORY_COPY, .line = rd->row, .name = name, .name_len = nn,
                .copy = copy_kind_of_name(name, nn)};
    if (!times(rd, q, 1, &r)) return true;
    if (is_int(q, 3) && sqlite3_column_int64(q, 3) >= 0) r.bytes = (uint64_t)sqlite3_column_int64(q, 3), r.has |= RF_BYTES;
    if (is_int(q, 4)) r.device = sqlite3_column_int64(q, 4), r.has |= RF_DEVICE;
    if (is_int(q, 5)) r.peer_device = sqlite3_column_int64(q, 5), r.has |= RF_PEER;
    if (is_int(q, 6)) r.stream = sqlite3_column_int64(q, 6), r.has |= RF_STREAM;
    correlation(q, 7, &r);
    rd->n->copies++;
    return emit(rd, &r);
}

/* type ALLOC / REALLOC -> "alloc", FREE / RECLAIM -> "free"; name = "<type> <level>"; the
 * address, so the allocations section can size a free by the allocation it releases. */
static bool alloc_row(reader *rd, sqlite3_stmt *q) {
    size_t tn, ln;
    const char *type = text(rd, q, 0, &rd->a, &tn), *level = text(rd, q, 1, &rd->b, &ln);
    record r = {.type = REC_ALLOCATION, .line = rd->row, .name = type, .name_len = tn};
    (void)level, (void)ln;
    if (!times(rd, q, 2, &r)) return true;
    if (type && (strstr(type, "FREE") || strstr(type, "RECLAIM"))) r.category = "free", r.category_len = 4;
    else if (type && strstr(type, "ALLOC")) r.category = "alloc", r.category_len = 5;
    bool is_free = r.category && r.category[0] == 'f';
    /* a free's size is written as 0 (unknown to the tracer): left out, never a real 0 */
    if (is_int(q, 4) && sqlite3_column_int64(q, 4) >= 0 && !(is_free && sqlite3_column_int64(q, 4) == 0))
        r.bytes = (uint64_t)sqlite3_column_int64(q, 4), r.has |= RF_BYTES;
    if (is_int(q, 5)) r.device = sqlite3_column_int64(q, 5), r.has |= RF_DEVICE;
    correlation(q, 6, &r);
    /* the pointer, stored as a signed 64-bit integer: its bits are the address */
    if (is_int(q, 7)) r.address = (uint64_t)sqlite3_column_int64(q, 7), r.has |= RF_ADDRESS;
    rd->n->allocations++;
    return emit(rd, &r);
}

typedef struct query {
    const char *what, *table, *sql;    /* table: the view or table the query reads */
    bool (*row)(reader *, sqlite3_stmt *);
} query;

static const query QUERIES[] = {
    {"agents", "rocpd_info_agent",
     "SELECT absolute_index, name, vendor_name, product_name, "
     "CASE WHEN json_valid(extdata) THEN json_extract(extdata, '$.cu_count') END, "
     "CASE WHEN json_valid(extdata) THEN json_extract(extdata, '$.wave_front_size') END, "
     "CASE WHEN json_valid(extdata) THEN (SELECT sum(json_extract(b.value, '$.size_in_bytes')) "
     "  FROM json_each(extdata, '$.mem_banks') b WHERE json_extract(b.value, '$.heap_type') IN (1, 2)) END "
     ", id FROM rocpd_info_agent WHERE type = 'GPU'",
     agent_row},
    {"regions", "regions", "SELECT category, name, start, \"end\", tid, corr_id, pid, id FROM regions", region_row},
    {"memory copies", "memory_copies",
     "SELECT name, start, \"end\", size, dst_agent_abs_index, src_agent_abs_index, COALESCE(stream_id, queue_id), "
     "corr_id, id FROM memory_copies",
     copy_row},
    {"memory allocations", "memory_allocations",
     "SELECT type, level, start, \"end\", size, agent_abs_index, corr_id, address, id FROM memory_allocations",
     alloc_row},
};

/* Whether the schema has a table or view named `name` (false also when that cannot be told). */
static bool object_exists(sqlite3 *db, const char *name) {
    sqlite3_stmt *q = NULL;
    bool found = false;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE name = ?1", -1, &q, NULL) == SQLITE_OK &&
        sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC) == SQLITE_OK)
        found = sqlite3_step(q) == SQLITE_ROW;
    sqlite3_finalize(q);
    return found;
}

bool rocpd_read_extras(sqlg_db *g, const record_sink *sink, const char *label, diag_list *diag,
                       rocpd_extra_counts *out) {
    reader rd = {.g = g, .n = out};
    bool ok = true;
    for (size_t i = 0; ok && i < sizeof QUERIES / sizeof *QUERIES; i++) {
        sqlite3_stmt *q = NULL;
        if (sqlite3_prepare_v2(g->db, QUERIES[i].sql, -1, &q, NULL) != SQLITE_OK) {
            if (g->stop) break;      /* a bound, not an absent view */
            if (sqlg_nomem(g->db, 0)) {
                diag_oom(diag, "%s: out of memory preparing the %s query; records are partial", label, QUERIES[i].what);
                ok = false;
                break;
            }
            out->missing_views++;
            /* absent: an older schema, nothing to read; present but not readable (its columns
             * renamed, a broken view): the records it holds are lost, and said */
            char why[160];
            snprintf(why, sizeof why, "%s", sqlg_errmsg(g));   /* (before the next statement replaces it) */
            if (object_exists(g->db, QUERIES[i].table))
                diag_add(diag, "%s: %s (%s) cannot be read: %s; not read", label, QUERIES[i].table, QUERIES[i].what,
                         why);
            continue;
        }
        int rc;
        rd.row = 0;
        rocpd_order_init(&rd.ord, sink);
        int id = sqlite3_column_count(q) - 1;
        while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
            rd.row++;
            rd.k2 = sqlite3_column_int64(q, id);
            if (!QUERIES[i].row(&rd, q)) break;
        }
        if (i == 0 && rc == SQLITE_DONE) agents_recheck(&rd, QUERIES[0].sql);
        if (g->nomem) rc = SQLITE_NOMEM;      /* a row's text was lost */
        if (rc == SQLITE_DONE && !rocpd_order_flush(&rd.ord)) rc = SQLITE_NOMEM;
        out->late += rd.ord.late;
        rocpd_order_free(&rd.ord);
        if (rc == SQLITE_ROW || sqlg_nomem(g->db, rc)) {
            diag_oom(diag, "%s: out of memory at %s row %llu; records are partial", label, QUERIES[i].what,
                     (unsigned long long)rd.row);
            ok = false;
        } else if (rc != SQLITE_DONE) {
            if (!g->stop)
                diag_add(diag, "%s: database error after %llu %s rows: %s", label, (unsigned long long)rd.row,
                         QUERIES[i].what, sqlg_errmsg(g));
            ok = false;
        }
        sqlite3_finalize(q);
    }
    strbuf_free(&rd.a);
    strbuf_free(&rd.b);
    return ok && !g->stop;
}
