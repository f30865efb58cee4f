/* check_store_doc: the analysis document and report of a run, stored and served (store part).
 *
 * Storage and API in one process, without the run driver: runs are ingested with a hand-built
 * ingest_doc (so the test does not wait for the core engineer's analysis_json), then read back
 * through storage/run_analysis and fetched over HTTP from an api on 127.0.0.1 with libcurl:
 * as stored, ETag / If-None-Match, the status codes /metrics uses, ?wait= held until the run
 * completes, and gone with the run after DELETE / retention; and the series key of a run
 * (storage/run_series). */
#include <check.h>
#include <curl/curl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/http_api.h"
#include "storage/retention.h"
#include "storage/run_analysis.h"
#include "storage/run_detail.h"
#include "storage/run_series.h"
#include "storage/schema.h"
#include "storage/store.h"
#include "tests/test_api.h"

static const char DOC[] = "{\"sources\":[],\"kernels\":{\"total_ns\":12345},\"note\":\"caf\xc3\xa9\"}";
static const char REPORT[] = "# Run a\n\n| kernel | ns |\n|---|---|\n| gemm | 12345 |\n";

static char *temp_db(void) {
    char tmpl[] = "/tmp/check_store_doc.XXXXXX";
    char *d = mkdtemp(tmpl);
    ck_assert_ptr_nonnull(d);
    char *db = NULL;
    ck_assert(asprintf(&db, "%s/g.db", d) > 0);
    return db;
}

static void ingest(store *st, const char *id, run_status status, const char *json, const char *md) {
    ingest_doc doc = {.metrics_json = "{\"tokens_per_sec\": 5.0}", .analysis_json = json, .report_md = md};
    ingest_record rec = {.id = id, .root = "/r", .path = "/r/x", .status = status, .now_ms = 1000, .doc = &doc,
                         .metrics_json = doc.metrics_json, .parse_ms = 1.0};
    ck_assert_int_eq(store_ingest(st, &rec), 0);
}

static stored_doc read_doc(store *st, const char *id, stored_doc_kind kind) {
    stored_doc d;
    store_reader *rd = store_reader_acquire(st);
    store_get_doc(rd, id, kind, &d);
    store_reader_release(st, rd);
    return d;
}

static int count_rows(const char *db, const char *sql) {
    sqlite3 *h = NULL;
    ck_assert_int_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *q = NULL;
    ck_assert_int_eq(sqlite3_prepare_v2(h, sql, -1, &q, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
    int n = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
    sqlite3_close(h);
    return n;
}

/* Stored as given, NULL as absent, replaced by the next parse, removed with the run. */
START_TEST(stored_document_lifecycle) {
    char *db = temp_db(), *err = NULL;
    store *st = store_open(db, 0, &err);
    ck_assert_msg(st != NULL, "%s", err ? err : "");
    ck_assert_int_eq(retention_init(st), 0);
    ingest(st, "a", RUN_COMPLETE, DOC, REPORT);
    stored_doc d = read_doc(st, "a", STORED_ANALYSIS_JSON);
    ck_assert(d.found);
    ck_assert_int_eq(d.status, RUN_COMPLETE);
    ck_assert_int_eq(d.ingest_count, 1);
    ck_assert_str_eq(d.text, DOC);
    ck_assert_uint_eq(d.len, strlen(DOC));
    free(d.text);
    d = read_doc(st, "a", STORED_REPORT_MD);
    ck_assert_str_eq(d.text, REPORT);
    free(d.text);

    ingest(st, "a", RUN_COMPLETE, DOC, NULL);            /* a report not produced is absent */
    d = read_doc(st, "a", STORED_REPORT_MD);
    ck_assert(d.found);
    ck_assert_ptr_null(d.text);
    ck_assert_int_eq(d.ingest_count, 2);
    free(d.text);
    ingest(st, "a", RUN_COMPLETE, NULL, NULL);           /* a parse without one drops the old one */
    d = read_doc(st, "a", STORED_ANALYSIS_JSON);
    ck_assert(d.found);
    ck_assert_ptr_null(d.text);
    ck_assert_int_eq(count_rows(db, "SELECT COUNT(*) FROM run_analysis"), 0);

    ingest(st, "a", RUN_COMPLETE, DOC, REPORT);
    ingest(st, "b", RUN_COMPLETE, DOC, REPORT);
    ck_assert_int_eq(count_rows(db, "SELECT COUNT(*) FROM run_analysis"), 2);
    bool found = false;
    ck_assert_int_eq(retention_forget(st, "a", 2000, "test", &found), 0);
    ck_assert(found);
    d = read_doc(st, "a", STORED_ANALYSIS_JSON);
    ck_assert(!d.found);
    ck_assert_int_eq(count_rows(db, "SELECT COUNT(*) FROM run_analysis WHERE run_id = 'a'"), 0);
    ck_assert_int_eq(count_rows(db, "SELECT COUNT(*) FROM run_analysis WHERE run_id = 'b'"), 1);
    d = read_doc(st, "nope", STORED_ANALYSIS_JSON);
    ck_assert(!d.found);
    store_close(st);

    st = store_open(db, 0, &err);                        /* reopening keeps it, migrates nothing twice */
    ck_assert_ptr_nonnull(st);
    d = read_doc(st, "b", STORED_REPORT_MD);
    ck_assert_str_eq(d.text, REPORT);
    free(d.text);
    store_close(st);
    free(db);
}
END_TEST

static void exec_sql(const char *db, const char *sql) {
    sqlite3 *h = NULL;
    ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
    char *msg = NULL;
    ck_assert_msg(sqlite3_exec(h, sql, NULL, NULL, &msg) == SQLITE_OK, "%s: %s", sql, msg ? msg : "");
    sqlite3_close(h);
}

static double column_value(const char *db, const char *col, bool *null) {
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT %s FROM runs WHERE id = 'w'", col);
    sqlite3 *h = NULL;
    ck_assert_int_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *q = NULL;
    ck_assert_msg(sqlite3_prepare_v2(h, sql, -1, &q, NULL) == SQLITE_OK, "no column %s", col);
    ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
    *null = sqlite3_column_type(q, 0) == SQLITE_NULL;
    double v = sqlite3_column_double(q, 0);
    sqlite3_finalize(q);
    sqlite3_close(h);
    return v;
}

/* Schema 8: the mean HBM and the waste buckets are headline columns ("waste_" + each
 * INGEST_WASTE_KEYS key), read back into run_row; a database of schema 7 gets them from the
 * stored RunMetrics bodies when it is migrated. */
START_TEST(headline_columns_and_their_migration) {
    char *db = temp_db(), *err = NULL;
    store *st = store_open(db, 0, &err);
    ck_assert_msg(st != NULL, "%s", err ? err : "");
    ingest_doc doc = {.metrics_json = "{\"hbm_avg_gb\":2.5,\"waste_budget\":{\"useful_gpu\":0.25,\"data_wait\":0.0,"
                                      "\"host_gap\":0.125,\"comm_excess\":0.0,\"memory_headroom\":0.0,"
                                      "\"precision_path\":0.0625,\"kernel_shape\":0.0}}"};
    doc.headline = (ingest_headline){.hbm_peak_gb = 4.0, .hbm_avg_gb = 2.5, .has_hbm_peak_gb = true,
                                     .has_hbm_avg_gb = true, .has_waste = true,
                                     .has_step_seconds = true, .step_seconds = 0.4375,
                                     .waste = {0.25, 0.0, 0.125, 0.0, 0.0, 0.0625, 0.0}};
    ingest_record rec = {.id = "w", .root = "/r", .path = "/r/w", .status = RUN_COMPLETE, .now_ms = 1000, .doc = &doc,
                         .metrics_json = doc.metrics_json, .parse_ms = 1.0};
    ck_assert_int_eq(store_ingest(st, &rec), 0);
    store_close(st);
    bool null;
    for (int round = 0; round < 2; round++) {
        for (int b = 0; b < INGEST_WASTE_BUCKETS; b++) {
            char col[64];
            snprintf(col, sizeof col, "waste_%s", INGEST_WASTE_KEYS[b]);
            ck_assert_double_eq(column_value(db, col, &null), doc.headline.waste[b]);
            ck_assert(!null);
        }
        ck_assert_double_eq(column_value(db, "hbm_avg_gb", &null), 2.5);
        if (round == 1) break;
        /* back to schema 7 (no such columns), then migrated again: filled from the bodies */
        exec_sql(db, "ALTER TABLE runs DROP COLUMN hbm_avg_gb; ALTER TABLE runs DROP COLUMN waste_useful_gpu;"
                     "ALTER TABLE runs DROP COLUMN waste_data_wait; ALTER TABLE runs DROP COLUMN waste_host_gap;"
                     "ALTER TABLE runs DROP COLUMN waste_comm_excess; ALTER TABLE runs DROP COLUMN waste_memory_headroom;"
                     "ALTER TABLE runs DROP COLUMN waste_precision_path; ALTER TABLE runs DROP COLUMN waste_kernel_shape;"
                     /* and what schema 9 added (run_gauges, kernels.class, the kernel rows' source) */
                     "DROP TABLE run_gauges; ALTER TABLE kernels DROP COLUMN class;"
                     "ALTER TABLE runs DROP COLUMN kernels_source; ALTER TABLE runs DROP COLUMN kernels_formats;"
                     /* and what schema 10 added (the profile, the headline's sources and labels) */
                     "ALTER TABLE runs DROP COLUMN profile; ALTER TABLE runs DROP COLUMN headline_json;"
                     /* and what schema 11 added (the series of each run) */
                     "DROP TABLE run_series;"
                     "PRAGMA user_version = 7;");
        st = store_open(db, 0, &err);
        ck_assert_msg(st != NULL, "%s", err ? err : "");
        store_close(st);
    }
    ck_assert_int_eq(count_rows(db, "PRAGMA user_version"), schema_version());
    ck_assert_int_eq(schema_version(), 11);
    /* unknown stays unknown: without their flags the numbers are NULL, whatever the values */
    st = store_open(db, 0, &err);
    doc.headline.has_waste = false;
    doc.headline.has_hbm_avg_gb = false;
    ck_assert_int_eq(store_ingest(st, &rec), 0);
    store_close(st);
    column_value(db, "waste_host_gap", &null);
    ck_assert(null);
    column_value(db, "hbm_avg_gb", &null);
    ck_assert(null);
    free(db);
}
END_TEST

static void keep_facts(void *user, const run_artefact_row *a, const char *facts) {
    char **out = user;
    int i = !strcmp(a->kind, "kernel_trace") ? 0 : 1;
    out[i] = strdup(facts);
}

/* GET /runs/<id>'s parts inside stored JSON, taken out by SQL: the warnings array ("[]" without
 * a body), and each artefact's facts as exactly the seven keys (null when absent, all null for a
 * reading that is not JSON: the query still answers). */
START_TEST(detail_parts_by_sql) {
    char *db = temp_db(), *err = NULL;
    store *st = store_open(db, 0, &err);
    ck_assert_msg(st != NULL, "%s", err ? err : "");
    ingest_doc doc = {.metrics_json = "{\"steps\":3,\"warnings\":[\"trace.csv:4: bad row\",\"x \\\"y\\\"\"]}"};
    doc.artefacts[0] = (ingest_artefact){.kind = "kernel_trace", .path = "/r/w/trace.csv", .present = true,
                                         .reading = "{\"found_by\":\"trace.csv\",\"sniff_score\":90,"
                                                    "\"columns\":{\"name\":\"KernelName\"},\"rows_used\":7,\"extra\":1}"};
    doc.artefacts[1] = (ingest_artefact){.kind = "telemetry", .path = "/r/w/amd_smi.csv", .reading = "{not json"};
    doc.n_artefacts = 2;
    ingest_record rec = {.id = "w", .root = "/r", .path = "/r/w", .status = RUN_COMPLETE, .now_ms = 1000, .doc = &doc,
                         .metrics_json = doc.metrics_json, .parse_ms = 1.0};
    ck_assert_int_eq(store_ingest(st, &rec), 0);
    store_reader *rd = store_reader_acquire(st);
    char *w = store_run_warnings(rd, "w");
    ck_assert_str_eq(w, "[\"trace.csv:4: bad row\",\"x \\\"y\\\"\"]");
    free(w);
    char *facts[2] = {NULL, NULL};
    store_get_artefact_facts(rd, "w", keep_facts, facts);
    ck_assert_str_eq(facts[0], "{\"found_by\":\"trace.csv\",\"sniff_score\":90,\"columns\":{\"name\":\"KernelName\"},"
                               "\"rows_used\":7,\"rows_skipped\":null,\"steps_source\":null,\"step_time_source\":null}");
    ck_assert_str_eq(facts[1], "{\"found_by\":null,\"sniff_score\":null,\"columns\":null,\"rows_used\":null,"
                               "\"rows_skipped\":null,\"steps_source\":null,\"step_time_source\":null}");
    free(facts[0]);
    free(facts[1]);
    store_reader_release(st, rd);
    rec.metrics_json = NULL;                              /* no body: no warnings */
    doc.metrics_json = NULL;
    ck_assert_int_eq(store_ingest(st, &rec), 0);
    rd = store_reader_acquire(st);
    w = store_run_warnings(rd, "w");
    ck_assert_str_eq(w, "[]");
    free(w);
    store_reader_release(st, rd);
    store_close(st);
    free(db);
}
END_TEST

/* ---- over HTTP -------------------------------------------------------------------------- */

typedef struct reply {
    long code;
    char body[4096];
    size_t len;
    char etag[64], type[96], run_status[32];
} reply;

static size_t on_body(char *p, size_t sz, size_t n, void *u) {
    reply *r = u;
    size_t k = sz * n;
    if (r->len + k < sizeof r->body) { memcpy(r->body + r->len, p, k); r->len += k; r->body[r->len] = '\0'; }
    return k;
}

static void header_value(const char *line, size_t n, const char *name, char *out, size_t cap) {
    size_t ln = strlen(name);
    if (n <= ln || strncasecmp(line, name, ln)) return;
    const char *v = line + ln;
    size_t vn = n - ln;
    while (vn && (*v == ' ')) { v++; vn--; }
    while (vn && (v[vn - 1] == '\r' || v[vn - 1] == '\n')) vn--;
    snprintf(out, cap, "%.*s", (int)vn, v);
}

static size_t on_header(char *p, size_t sz, size_t n, void *u) {
    reply *r = u;
    size_t k = sz * n;
    header_value(p, k, "ETag:", r->etag, sizeof r->etag);
    header_value(p, k, "Content-Type:", r->type, sizeof r->type);
    header_value(p, k, "Goblind-Run-Status:", r->run_status, sizeof r->run_status);
    return k;
}

static reply get(int port, const char *path, const char *if_none_match) {
    reply r;
    memset(&r, 0, sizeof r);
    char url[256], inm[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d%s", port, path);
    CURL *c = curl_easy_init();
    ck_assert_ptr_nonnull(c);
    struct curl_slist *h = NULL;
    if (if_none_match) {
        snprintf(inm, sizeof inm, "If-None-Match: %s", if_none_match);
        h = curl_slist_append(h, inm);
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
    ck_assert_int_eq(curl_easy_perform(c), CURLE_OK);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.code);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return r;
}

typedef struct ticker { api *a; atomic_bool stop; pthread_t t; } ticker;
static void *tick_loop(void *u) {
    ticker *k = u;
    while (!atomic_load(&k->stop)) { api_tick(k->a); usleep(50000); }
    return NULL;
}

typedef struct later { store *st; api *a; } later;
static void *complete_later(void *u) {
    later *l = u;
    usleep(300000);
    ingest(l->st, "slow", RUN_COMPLETE, DOC, REPORT);
    api_notify_run(l->a, "slow");
    return NULL;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

START_TEST(served_as_stored) {
    char *db = temp_db(), *err = NULL;
    store *st = store_open(db, 0, &err);
    ck_assert_msg(st != NULL, "%s", err ? err : "");
    ck_assert_int_eq(retention_init(st), 0);
    goblind_counters counters;
    api *a = tu_api_start(st, &counters, 10);
    ticker tk = {.a = a};
    pthread_create(&tk.t, NULL, tick_loop, &tk);
    int port = api_port(a);

    ingest(st, "a", RUN_COMPLETE, DOC, REPORT);
    reply r = get(port, "/runs/a/analysis", NULL);
    ck_assert_int_eq(r.code, 200);
    ck_assert_str_eq(r.body, DOC);                       /* byte for byte as stored */
    ck_assert_str_eq(r.type, "application/json");
    ck_assert_str_eq(r.etag, "\"1-complete\"");
    ck_assert_str_eq(r.run_status, "complete");
    reply nm = get(port, "/runs/a/analysis", r.etag);
    ck_assert_int_eq(nm.code, 304);
    ck_assert_uint_eq(nm.len, 0);
    r = get(port, "/runs/a/report.md", NULL);
    ck_assert_int_eq(r.code, 200);
    ck_assert_str_eq(r.body, REPORT);
    ck_assert_str_eq(r.type, "text/markdown; charset=utf-8");
    ck_assert_str_eq(r.etag, "\"1-complete\"");
    ck_assert_int_eq(get(port, "/runs/a/report.md", "\"1-complete\"").code, 304);
    ck_assert_int_eq(get(port, "/runs/a/report.md", "\"0-running\"").code, 200);

    ingest(st, "f", RUN_FAILED, DOC, REPORT);            /* failed: sent, but not as 200 */
    r = get(port, "/runs/f/analysis", NULL);
    ck_assert_int_eq(r.code, 422);
    ck_assert_str_eq(r.run_status, "failed");
    ck_assert_str_eq(r.body, DOC);

    ingest(st, "old", RUN_COMPLETE, NULL, NULL);         /* parsed before the analysis driver */
    r = get(port, "/runs/old/analysis?wait=5", NULL);
    ck_assert_int_eq(r.code, 404);
    ck_assert_ptr_nonnull(strstr(r.body, "\"no_analysis\""));
    ck_assert_int_eq(get(port, "/runs/old/report.md", NULL).code, 404);
    r = get(port, "/runs/zzz/analysis", NULL);
    ck_assert_int_eq(r.code, 404);
    ck_assert_ptr_nonnull(strstr(r.body, "\"not_found\""));
    ck_assert_int_eq(get(port, "/runs/a/analysis?wait=x", NULL).code, 400);
    ck_assert_int_eq(get(port, "/runs/a/analysis?wait=61", NULL).code, 400);

    ck_assert_int_eq(store_set_status(st, "slow", "/r", "/r/slow", RUN_RUNNING, 1000), 0);
    r = get(port, "/runs/slow/report.md", NULL);
    ck_assert_int_eq(r.code, 202);
    ck_assert_ptr_nonnull(strstr(r.body, "\"running\""));
    double t0 = now_s();
    r = get(port, "/runs/slow/analysis?wait=1", NULL);  /* held to its deadline, then 202 */
    ck_assert_int_eq(r.code, 202);
    ck_assert(now_s() - t0 >= 0.9);
    later l = {st, a};
    pthread_t t;
    pthread_create(&t, NULL, complete_later, &l);
    t0 = now_s();
    r = get(port, "/runs/slow/analysis?wait=20", NULL);  /* answered when the run completes */
    pthread_join(t, NULL);
    ck_assert_int_eq(r.code, 200);
    ck_assert_str_eq(r.body, DOC);
    ck_assert(now_s() - t0 < 10);

    bool found = false;                                  /* DELETE: the document goes with the run */
    ck_assert_int_eq(retention_forget(st, "a", 2000, "test", &found), 0);
    ck_assert_int_eq(get(port, "/runs/a/analysis", NULL).code, 404);
    ck_assert_int_eq(get(port, "/runs/a/report.md", NULL).code, 404);

    atomic_store(&tk.stop, true);
    pthread_join(tk.t, NULL);
    api_stop(a);
    store_close(st);
    free(db);
}
END_TEST

/* The series key: a label as given, else the FNV-1a fingerprint of the known facts (hashes
 * computed by hand in Python: fnv1a64("model=llama-8b\nprecision=bf16\n...")), none without
 * facts; and run_series_write's row from a headline and an analysis document. */
START_TEST(series_key_fingerprint) {
    char key[SERIES_KEY_MAX + 1];
    series_facts f = {.model = "llama-8b", .precision = "bf16", .gpu = "AMD Instinct MI300X", .has_devices = true,
                      .devices = 8, .pytorch = "2.5.1+rocm6.2", .rocm = "6.2.0"};
    ck_assert_str_eq(run_series_key_of(&f, key, sizeof key), "fingerprint");
    ck_assert_str_eq(key, "fp-0f366a6d1cfdf60b");
    series_facts g = {.gpu = "NVIDIA H100"};
    ck_assert_str_eq(run_series_key_of(&g, key, sizeof key), "fingerprint");
    ck_assert_str_eq(key, "fp-35ceba2f387bad4a");
    series_facts none = {0};
    ck_assert_ptr_null(run_series_key_of(&none, key, sizeof key));
    f.label = "sweep-a";
    ck_assert_str_eq(run_series_key_of(&f, key, sizeof key), "label");
    ck_assert_str_eq(key, "sweep-a");
    char long_label[SERIES_KEY_MAX + 2];
    memset(long_label, 'x', sizeof long_label - 1);
    long_label[sizeof long_label - 1] = '\0';
    f.label = long_label;                        /* too long for a key: the fingerprint */
    ck_assert_str_eq(run_series_key_of(&f, key, sizeof key), "fingerprint");

    sqlite3 *db = NULL;
    char err[200];
    ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
    ck_assert_int_eq(schema_migrate(db, err, sizeof err), 0);
    ck_assert_int_eq(sqlite3_exec(db, "INSERT INTO runs(id, root, path, status, created_at, updated_at)"
                                      " VALUES ('r1', '/r', '/r/r1', 'complete', 1, 1), ('r2', '/r', '/r/r2', 'complete', 2, 2),"
                                      " ('r3', '/r', '/r/r3', 'complete', 3, 3)", NULL, NULL, NULL), SQLITE_OK);
    const char *doc = "{\"device\":{\"name\":\"NVIDIA H100\",\"device_count\":null},"
                      "\"steps\":{\"items\":[{\"wall_ns\":100},{\"wall_ns\":\"x\"},{\"wall_ns\":250.5}]}}";
    ck_assert_int_eq(run_series_write(db, "r1", "{\"labels\":{\"series\":\"s1\"}}", doc), SQLITE_OK);
    ck_assert_int_eq(run_series_write(db, "r2", "{\"labels\":{\"series\":7},\"precision\":null}", doc), SQLITE_OK);
    ck_assert_int_eq(run_series_write(db, "r3", "not json", "{}"), SQLITE_OK);   /* no facts: no series */
    sqlite3_stmt *q = NULL;
    ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT run_id, series_key, key_source, step_walls FROM run_series ORDER BY run_id",
                                        -1, &q, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
    ck_assert_str_eq((const char *)sqlite3_column_text(q, 1), "s1");
    ck_assert_str_eq((const char *)sqlite3_column_text(q, 2), "label");
    ck_assert_str_eq((const char *)sqlite3_column_text(q, 3), "[100,250.5]");
    ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);                /* a label that is not a string: fingerprint */
    ck_assert_str_eq((const char *)sqlite3_column_text(q, 0), "r2");
    ck_assert_str_eq((const char *)sqlite3_column_text(q, 1), "fp-35ceba2f387bad4a");
    ck_assert_str_eq((const char *)sqlite3_column_text(q, 2), "fingerprint");
    ck_assert_int_eq(sqlite3_step(q), SQLITE_DONE);
    sqlite3_finalize(q);
    ck_assert_int_eq(run_series_write(db, "r1", NULL, NULL), SQLITE_OK);   /* a parse with nothing: the row goes */
    ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT count(*) FROM run_series WHERE run_id = 'r1'", -1, &q, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
    ck_assert_int_eq(sqlite3_column_int(q, 0), 0);
    sqlite3_finalize(q);
    sqlite3_close(db);
}
END_TEST

int main(void) {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    Suite *s = suite_create("store_doc");
    TCase *tc = tcase_create("store_doc");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, stored_document_lifecycle);
    tcase_add_test(tc, served_as_stored);
    tcase_add_test(tc, headline_columns_and_their_migration);
    tcase_add_test(tc, detail_parts_by_sql);
    tcase_add_test(tc, series_key_fingerprint);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    curl_global_cleanup();
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
