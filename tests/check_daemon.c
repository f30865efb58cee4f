/* Tests: the daemon's units on their own — config parsing, listen addresses, the JSON
 * writer, the metrics cache, /compare arithmetic, the store (migrations, ingests,
 * pagination, signatures) and the Prometheus rendering. */
#include <check.h>
#include <stdatomic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/json_text.h"
#include "storage/retention.h"
#include "api/compare.h"
#include "api/listen_addr.h"
#include "api/metrics_cache.h"
#include "api/prometheus.h"
#include "base/json_writer.h"
#include "daemon/config.h"
#include "storage/store.h"
#include "tests/test_util.h"

START_TEST(config_keys_and_errors) {
    goblind_config c;
    config_defaults(&c);
    char err[512];
    ck_assert(config_set(&c, "root", "/a", err, sizeof err));
    ck_assert(config_set(&c, "root", "/a", err, sizeof err));            /* a repeat is not a new root */
    ck_assert(config_set(&c, "root", "/b", err, sizeof err));
    ck_assert_uint_eq(c.n_roots, 2);
    ck_assert(config_set(&c, "settle_ms", "250", err, sizeof err) && c.settle_ms == 250);
    ck_assert(!config_set(&c, "settle_ms", "5", err, sizeof err));
    ck_assert(strstr(err, "from 10 to 600000") != NULL);
    ck_assert(!config_set(&c, "quiet_s", "1x", err, sizeof err));
    ck_assert_int_eq(c.quiet_ms, -1);                     /* unset: quiet_s counts */
    ck_assert(config_set(&c, "quiet_ms", "300", err, sizeof err) && c.quiet_ms == 300);
    ck_assert(!config_set(&c, "quiet_ms", "-1", err, sizeof err));
    ck_assert(c.settle_max_ms == 5000 && c.max_parse_mb == 8192 && c.max_parse_s == 120);
    ck_assert(config_set(&c, "settle_max_ms", "2000", err, sizeof err) && c.settle_max_ms == 2000);
    ck_assert(config_set(&c, "max_parse_mb", "0", err, sizeof err) && c.max_parse_mb == 0);
    ck_assert(!config_set(&c, "max_parse_s", "-1", err, sizeof err));
    ck_assert(!config_set(&c, "nope", "1", err, sizeof err) && strstr(err, "unknown setting"));
    /* core: the analysis document's settings, with their defaults */
    ck_assert_int_eq(c.kernel_wait_threshold_ns, 50000);
    ck_assert_int_eq(c.short_kernel_ns, 10000);
    ck_assert(config_set(&c, "kernel_wait_threshold_ns", "20000", err, sizeof err) && c.kernel_wait_threshold_ns == 20000);
    ck_assert(!config_set(&c, "short_kernel_ns", "-5", err, sizeof err));
    ck_assert(config_set(&c, "npu_reference_dir", "/srv/ref", err, sizeof err) && !strcmp(c.npu_reference_dir, "/srv/ref"));
    ck_assert(config_set(&c, "npu_reference_dir", "", err, sizeof err) && c.npu_reference_dir == NULL);
    ck_assert(!config_set(&c, "listen", "9477", err, sizeof err));
    ck_assert(config_set(&c, "listen", "[::1]:9477", err, sizeof err));
    ck_assert(!config_set(&c, "watch_mode", "magic", err, sizeof err));
    ck_assert(config_set(&c, "watch_mode", "scan", err, sizeof err) && c.scan_only);
    ck_assert(!config_set(&c, "log_level", "loud", err, sizeof err));
    ck_assert(config_set(&c, "auth_token_file", "/etc/t", err, sizeof err) && !strcmp(c.auth_token_file, "/etc/t"));
    char *d = tu_tempdir();
    tu_write_str(d, "a.conf", "# comment\n; other\n[goblind]\n  quiet_s = 7  \nroot=/c\n");
    char *path = NULL;
    ck_assert(asprintf(&path, "%s/a.conf", d) > 0);
    ck_assert(config_load(&c, path, err, sizeof err));
    ck_assert_int_eq(c.quiet_s, 7);
    ck_assert_uint_eq(c.n_roots, 3);
    tu_write_str(d, "a.conf", "quiet_s = 1\nno equals sign\n");
    ck_assert(!config_load(&c, path, err, sizeof err) && strstr(err, "a.conf:2: expected key = value"));
    tu_write_str(d, "a.conf", "[goblind\n");
    ck_assert(!config_load(&c, path, err, sizeof err) && strstr(err, "a.conf:1: malformed section header"));
    free(path);
    tu_rmrf(d);
    free(d);
    config_free(&c);
}
END_TEST

/* Configuration mistakes that used to be accepted or misreported. */
START_TEST(config_mistakes_named) {
    goblind_config c;
    config_defaults(&c);
    char err[512];
    char *d = tu_tempdir();
    char *path = NULL;
    ck_assert(asprintf(&path, "%s/b.conf", d) > 0);
    /* a misspelt section hid every key under it, even a bad value */
    tu_write_str(d, "b.conf", "[goblnd]\nquiet_s = banana\n");
    ck_assert(!config_load(&c, path, err, sizeof err));
    ck_assert_msg(strstr(err, "b.conf:1: unknown section [goblnd]"), "%s", err);
    /* inline comments after a blank are comments; a '#' inside a word is kept */
    tu_write_str(d, "b.conf", "[goblind]\nroot = /x # my runs\ndb = /data/run#3.db ; the db\nquiet_s = 3\t# s\n");
    ck_assert_msg(config_load(&c, path, err, sizeof err), "%s", err);
    ck_assert_str_eq(c.roots[c.n_roots - 1], "/x");
    ck_assert_str_eq(c.db, "/data/run#3.db");
    ck_assert_int_eq(c.quiet_s, 3);
    /* a NUL byte is named as such, not "line too long" */
    static const char nul[] = "quiet_s = 4\nsettle_ms = 1\0000\n";
    FILE *f = fopen(path, "wb");
    ck_assert(f && fwrite(nul, 1, sizeof nul - 1, f) == sizeof nul - 1 && fclose(f) == 0);
    ck_assert(!config_load(&c, path, err, sizeof err));
    ck_assert_msg(strstr(err, "b.conf:2: NUL byte at column 14"), "%s", err);
    /* a UTF-8 byte order mark is skipped, not "expected key = value" */
    tu_write_str(d, "b.conf", "\xEF\xBB\xBFquiet_s = 9\n");
    ck_assert_msg(config_load(&c, path, err, sizeof err), "%s", err);
    ck_assert_int_eq(c.quiet_s, 9);
    free(path);
    tu_rmrf(d);
    free(d);
    config_free(&c);
}
END_TEST

START_TEST(listen_addresses) {
    char h[256];
    int p;
    ck_assert(listen_addr_split("127.0.0.1:9477", h, &p) && !strcmp(h, "127.0.0.1") && p == 9477);
    ck_assert(listen_addr_split("[::1]:0", h, &p) && !strcmp(h, "::1") && p == 0);
    ck_assert(!listen_addr_split("localhost", h, &p));
    ck_assert(!listen_addr_split("host:70000", h, &p));
    ck_assert(!listen_addr_split(":80", h, &p));
    ck_assert(!listen_addr_split("[::1:80", h, &p));
    ck_assert(listen_addr_is_loopback("127.3.4.5") && listen_addr_is_loopback("::1") && listen_addr_is_loopback("localhost"));
    ck_assert(!listen_addr_is_loopback("0.0.0.0") && !listen_addr_is_loopback("10.1.2.3"));
}
END_TEST

START_TEST(json_writer_output) {
    strbuf b = {0};
    jw_out j;
    jw_begin(&j, &b, 0);
    jw_object_open(&j);
    jw_key(&j, "s");
    jw_string_n(&j, "a\"b\\c\n\x01\x7f\xff", 9);
    jw_key(&j, "n");
    jw_number(&j, 0.1);
    jw_key(&j, "i");
    jw_number(&j, 100.0);
    jw_key(&j, "inf");
    jw_number(&j, INFINITY);
    jw_key(&j, "a");
    jw_array_open(&j);
    jw_array_close(&j);
    jw_object_close(&j);
    strbuf_terminate(&b);
    ck_assert_str_eq(b.data, "{\"s\":\"a\\\"b\\\\c\\n\\u0001\\u007f\xef\xbf\xbd\",\"n\":0.1,\"i\":100.0,\"inf\":0.0,\"a\":[]}");
    char t[32];
    jw_format_double(1e300, t);
    ck_assert_double_eq(strtod(t, NULL), 1e300);
    jw_format_double(0.30000000000000004, t);
    ck_assert_str_eq(t, "0.30000000000000004");
    /* Python's repr: shortest digits, positional for exponents -4..15, else d.ddde±XX */
    static const struct { double v; const char *want; } REPR[] = {
        {25.328, "25.328"}, {1e15, "1000000000000000.0"}, {1e16, "1e+16"}, {1e-5, "1e-05"}, {0.0001, "0.0001"},
        {-0.0, "-0.0"}, {5e-324, "5e-324"}, {1.5e300, "1.5e+300"}, {123456789.125, "123456789.125"},
        {-2.5, "-2.5"}, {12345678901234568.0, "1.2345678901234568e+16"}, {0.1 + 0.2, "0.30000000000000004"}};
    for (size_t i = 0; i < sizeof REPR / sizeof REPR[0]; i++) {
        jw_format_double(REPR[i].v, t);
        ck_assert_str_eq(t, REPR[i].want);
    }
    /* jansson trees (every API body but RunMetrics) are written the same way, keys in order */
    json_t *tree = json_pack("{s:f, s:I, s:[f, b, n], s:s}", "x", 25.328, "n", (json_int_t)7, "a", 1e16, 1, "k", "\xc3\xa9");
    size_t tlen;
    char *text = json_text(tree, &tlen);
    ck_assert_str_eq(text, "{\"x\":25.328,\"n\":7,\"a\":[1e+16,true,null],\"k\":\"\xc3\xa9\"}");
    ck_assert_uint_eq(tlen, strlen(text));
    free(text);
    json_decref(tree);
    strbuf_free(&b);
}
END_TEST

START_TEST(metrics_cache_behaviour) {
    metrics_cache *c = metrics_cache_new(16);
    cached_run r = {RUN_COMPLETE, 3, "{\"steps\":1}", 11}, out;
    ck_assert(!metrics_cache_get(c, "a", &out));
    metrics_cache_put(c, "a", &r, metrics_cache_version(c, "a"));
    ck_assert(metrics_cache_get(c, "a", &out));
    ck_assert_str_eq(out.body, "{\"steps\":1}");
    ck_assert_int_eq(out.ingest_count, 3);
    free(out.body);
    cached_run none = {RUN_RUNNING, 0, NULL, 0};
    metrics_cache_put(c, "a", &none, metrics_cache_version(c, "a"));                             /* replaced, no body */
    ck_assert(metrics_cache_get(c, "a", &out) && out.body == NULL && out.status == RUN_RUNNING);
    metrics_cache_drop(c, "a");
    ck_assert(!metrics_cache_get(c, "a", &out));
    char id[32];
    for (int i = 0; i < 200; i++) {                              /* bounded: old entries are replaced */
        snprintf(id, sizeof id, "run-%d", i);
        metrics_cache_put(c, id, &r, metrics_cache_version(c, id));
    }
    int hits = 0;
    for (int i = 0; i < 200; i++) {
        snprintf(id, sizeof id, "run-%d", i);
        if (metrics_cache_get(c, id, &out)) { hits++; free(out.body); }
    }
    ck_assert_int_le(hits, 16);
    ck_assert(metrics_cache_get(c, "run-199", &out));
    free(out.body);
    metrics_cache_free(c);
}
END_TEST

START_TEST(compare_arithmetic) {
    char s[128];
    compare_summary(142.0, 318.0, s, sizeof s);
    ck_assert_str_eq(s, "tokens/s 142 \xe2\x86\x92 318 (2.24\xc3\x97)");
    compare_summary(0.0, 5.5, s, sizeof s);
    ck_assert_str_eq(s, "tokens/s 0 \xe2\x86\x92 5.5");
    /* two sides as the store gives them: headline columns, waste buckets, the stored text */
    compare_side a = {.id = "a", .metrics_json = "{\"tokens_per_sec\":100.0}", .tokens_per_sec = {true, 100.0},
                      .mfu_pct = {true, 0.0}, .step_seconds = {true, 1.5}};
    compare_side b = {.id = "b", .metrics_json = "{\"tokens_per_sec\":150.0}", .tokens_per_sec = {true, 150.0},
                      .mfu_pct = {true, 10.0}, .step_seconds = {true, 1.25}};
    a.waste[0] = b.waste[0] = (opt_num){true, 1.0};             /* useful_gpu */
    a.waste[2] = (opt_num){true, 0.5};                          /* host_gap */
    b.waste[2] = (opt_num){true, 0.25};
    ck_assert_str_eq(INGEST_WASTE_KEYS[2], "host_gap");
    strbuf out = {0};
    compare_runs(&a, &b, NULL, &out);
    ck_assert(strbuf_terminate(&out));
    json_t *c = json_loads(out.data, 0, NULL);
    ck_assert_ptr_nonnull(c);
    ck_assert_double_eq(json_real_value(json_object_get(c, "speedup")), 1.5);
    json_t *t = json_object_get(json_object_get(c, "headline"), "tokens_per_sec");
    ck_assert_double_eq(json_real_value(json_object_get(t, "delta_pct")), 50.0);
    json_t *m = json_object_get(json_object_get(c, "headline"), "mfu_pct");
    ck_assert(json_is_null(json_object_get(m, "delta_pct")));    /* base 0: no percentage */
    json_t *hg = json_object_get(json_object_get(c, "waste_budget"), "host_gap");
    ck_assert_double_eq(json_real_value(json_object_get(hg, "delta")), -0.25);
    ck_assert_double_eq(json_real_value(json_object_get(json_object_get(json_object_get(c, "headline"), "step_seconds"),
                                                        "base")), 1.5);
    json_t *hbm = json_object_get(json_object_get(c, "headline"), "hbm_peak_gb");   /* not measured: null */
    ck_assert(json_is_null(json_object_get(hbm, "base")) && json_is_null(json_object_get(hbm, "delta")));
    ck_assert_double_eq(json_real_value(json_object_get(json_object_get(json_object_get(c, "base"), "metrics"),
                                                        "tokens_per_sec")), 100.0);   /* embedded as stored */
    ck_assert_str_eq(json_string_value(json_object_get(c, "summary")), "tokens/s 100 \xe2\x86\x92 150 (1.50\xc3\x97)");
    json_decref(c);
    strbuf_free(&out);
    /* every bucket known, their sum (2.0 s: the waste exceeds the step, useful_gpu clamped to 0)
     * above the step time: the headline's step time is the stored one, /runs' step_time_seconds */
    for (int w = 0; w < INGEST_WASTE_BUCKETS; w++) a.waste[w] = (opt_num){true, w == 0 ? 0.0 : 2.0 / (INGEST_WASTE_BUCKETS - 1)};
    compare_runs(&a, &b, NULL, &out);
    ck_assert(strbuf_terminate(&out));
    c = json_loads(out.data, 0, NULL);
    ck_assert_ptr_nonnull(c);
    ck_assert_double_eq(json_real_value(json_object_get(json_object_get(json_object_get(c, "headline"), "step_seconds"),
                                                        "base")), 1.5);
    json_decref(c);
    strbuf_free(&out);
}
END_TEST

/* The room asked for refused ingests (limit 10 MB: 90 % is 9,437,184 bytes): the rows' bytes,
 * doubling per refusal of the same run, each run on its own, forgotten after
 * RETENTION_ROOM_FORGET_MS, and none once it passes 90 % of the limit (warned once). */
START_TEST(retention_room_per_refused_run) {
    retention_room r;
    memset(&r, 0, sizeof r);
    bool big, warn;
    int64_t t = 1000;
    ck_assert_int_eq(retention_room_for(&r, "a", 1000000, 10, t, &big, &warn), 1000000);
    ck_assert_int_eq(retention_room_for(&r, "b", 100000, 10, t + 1, &big, &warn), 100000);
    ck_assert_int_eq(retention_room_for(&r, "a", 1000000, 10, t + 2, &big, &warn), 2000000);   /* a again */
    ck_assert_int_eq(retention_room_for(&r, "b", 100000, 10, t + 3, &big, &warn), 200000);     /* b on its own */
    ck_assert_int_eq(retention_room_for(&r, "a", 1000000, 10, t + 4, &big, &warn), 4000000);
    ck_assert_int_eq(retention_room_for(&r, "a", 1000000, 10, t + 5, &big, &warn), 8000000);
    ck_assert(!big && !warn);
    ck_assert_int_eq(retention_room_for(&r, "a", 1000000, 10, t + 6, &big, &warn), 0);         /* 16 MB > 9 MB */
    ck_assert(big && warn);
    ck_assert_int_eq(retention_room_for(&r, "a", 1000000, 10, t + 7, &big, &warn), 0);
    ck_assert(big && !warn);                                                                    /* warned once */
    ck_assert_int_eq(retention_room_for(&r, "a", 1000000, 10, t + 7 + RETENTION_ROOM_FORGET_MS + 1, &big, &warn),
                     1000000);                                                                  /* forgotten: afresh */
    ck_assert_int_eq(retention_room_for(&r, "huge", 10000000, 10, t + 8, &big, &warn), 0);     /* never fits */
    ck_assert(big && warn);
    for (int i = 0; i < RETENTION_ROOM_RUNS + 2; i++) {                                         /* a bounded memory */
        char id[16];
        snprintf(id, sizeof id, "r%d", i);
        ck_assert_int_eq(retention_room_for(&r, id, 1000, 10, t + 10 + i, &big, &warn), 1000);
    }
    ck_assert_int_eq(retention_room_for(&r, "r9", 1000, 10, t + 30, &big, &warn), 2000);
}
END_TEST

/* An ingest of a small parsed run, with a chosen id and time. */
static void ingest(store *st, const char *id, int64_t now, run_status status, run_result *r) {
    ingest_doc doc;
    ck_assert(ingest_doc_build(r, &doc));
    ingest_record rec = {.id = id, .root = "/r", .path = "/r/x", .status = status, .now_ms = now, .doc = &doc,
                         .metrics_json = "{\"tokens_per_sec\": 5.0, \"waste_budget\": {\"useful_gpu\": 0.5}}",
                         .parse_ms = 1.0};
    ck_assert_int_eq(store_ingest(st, &rec), 0);
    ingest_doc_free(&doc);
}

typedef struct seen { char ids[64][16]; int n; } seen;
static void collect(void *user, const run_row *row) {
    seen *s = user;
    if (s->n < 64) snprintf(s->ids[s->n++], 16, "%s", row->id);
}

static int64_t count_runs(store *st) {
    int64_t counts[RUN_STATUS_COUNT], n = 0;
    store_reader *rd = store_reader_acquire(st);
    store_count_by_status(rd, counts);
    store_reader_release(st, rd);
    for (int i = 0; i < RUN_STATUS_COUNT; i++) n += counts[i];
    return n;
}

static int evictions;
static void count_eviction(void *user, const char *id, const char *why) {
    (void)id;
    ck_assert_str_eq(why, (const char *)user);
    evictions++;
}

/* An eviction that asks the pass to stop (as retention_timer_stop does at shutdown). */
static void cancel_on_eviction(void *user, const char *id, const char *why) {
    (void)id; (void)why;
    atomic_store((atomic_bool *)user, true);
}

/* A parse that began reading before its run was forgotten (DELETE during the parse) is dropped in
 * the ingest's transaction, and its files become the forgotten signature; one that began after
 * the delete (its files changed since) is stored. Batched status writes: one call, every row. */
START_TEST(ingest_after_forget_is_dropped) {
    char *d = tu_tempdir();
    tu_copy_fixture("rocprofv3/sdk_kernel_trace.csv", d, "trace.csv");
    run_result r;
    tu_parse(d, false, &r);
    char *db = NULL, *err = NULL;
    ck_assert(asprintf(&db, "%s/g.db", d) > 0);
    store *st = store_open(db, 0, &err);
    ck_assert_msg(st != NULL, "%s", err ? err : "");
    ck_assert_int_eq(retention_init(st), 0);
    ck_assert_int_eq(store_set_status(st, "a", "/r", "/r/x", RUN_RUNNING, 1000), 0);   /* never ingested yet */
    bool found = false;
    ck_assert_int_eq(retention_forget(st, "a", 5000, "test", &found), 0);
    ck_assert(found);
    ingest_doc doc;
    ck_assert(ingest_doc_build(&r, &doc));
    ingest_record rec = {.id = "a", .root = "/r", .path = "/r/x", .status = RUN_RUNNING, .now_ms = 6000, .doc = &doc,
                         .metrics_json = "{}", .parse_ms = 1.0, .read_began_ms = 4000};
    ck_assert_int_eq(store_ingest(st, &rec), STORE_INGEST_FORGOTTEN);
    rec.read_began_ms = 5000;                                       /* the same millisecond: the delete wins */
    ck_assert_int_eq(store_ingest(st, &rec), STORE_INGEST_FORGOTTEN);
    ck_assert_int_eq(count_runs(st), 0);
    store_reader *rd = store_reader_acquire(st);
    run_sig fsig;
    ck_assert(retention_forgotten_sig(rd, "a", &fsig));              /* the dropped parse's files */
    ck_assert(fsig.a[ARTEFACT_KERNEL_TRACE].present &&
              fsig.a[ARTEFACT_KERNEL_TRACE].size == r.info[ARTEFACT_KERNEL_TRACE].size &&
              fsig.a[ARTEFACT_KERNEL_TRACE].inode == r.info[ARTEFACT_KERNEL_TRACE].inode);
    store_reader_release(st, rd);
    rec.read_began_ms = 5001;                                       /* began after the delete: stored */
    ck_assert_int_eq(store_ingest(st, &rec), 0);
    ck_assert_int_eq(count_runs(st), 1);
    ingest_doc_free(&doc);
    store_status batch[3] = {{"b", "/r", "/r/b", RUN_PENDING}, {"c", "/r", "/r/c", RUN_PENDING},
                             {"a", "/r", "/r/x", RUN_COMPLETE}};
    ck_assert_int_eq(store_set_statuses(st, batch, 3, 9000), 0);
    ck_assert_int_eq(count_runs(st), 3);
    run_status status;
    run_sig sig;
    bool has;
    rd = store_reader_acquire(st);
    ck_assert(store_run_state(rd, "b", &status, &sig, &has) && status == RUN_PENDING);
    ck_assert(store_run_state(rd, "a", &status, &sig, &has) && status == RUN_COMPLETE);
    store_reader_release(st, rd);
    store_close(st);
    run_result_free(&r);
    free(db);
    tu_rmrf(d);
    free(d);
}
END_TEST

/* Forgetting a run: gone from every table, its signature kept; a status write does not bring
 * it back, an ingest does. The policy: max runs, max age, the size limit. */
START_TEST(retention_forget_and_policy) {
    char *d = tu_tempdir();
    tu_copy_fixture("rocprofv3/sdk_kernel_trace.csv", d, "trace.csv");
    run_result r;
    tu_parse(d, false, &r);
    char *db = NULL, *err = NULL;
    ck_assert(asprintf(&db, "%s/g.db", d) > 0);
    store *st = store_open(db, 2, &err);
    ck_assert_msg(st != NULL, "%s", err ? err : "");
    ck_assert_int_eq(retention_init(st), 0);
    ck_assert_int_eq(retention_init(st), 0);                       /* idempotent */
    ingest(st, "a", 1000, RUN_COMPLETE, &r);
    ck_assert_int_eq(store_set_status(st, "a", "/r", "/r/x", RUN_COMPLETE, 1001), 0);
    bool found = false;
    ck_assert_int_eq(retention_forget(st, "a", 5000, "test", &found), 0);
    ck_assert(found);
    ck_assert_int_eq(retention_forget(st, "a", 5000, "test", &found), 0);
    ck_assert(!found);
    store_reader *rd = store_reader_acquire(st);
    run_status status;
    run_sig sig, fsig;
    bool has;
    ck_assert(!store_run_state(rd, "a", &status, &sig, &has));
    ck_assert(retention_forgotten_sig(rd, "a", &fsig));
    ck_assert(fsig.a[ARTEFACT_KERNEL_TRACE].present && fsig.a[ARTEFACT_KERNEL_TRACE].size == r.info[ARTEFACT_KERNEL_TRACE].size);
    ck_assert(!retention_forgotten_sig(rd, "b", &fsig));
    store_reader_release(st, rd);
    ck_assert_int_eq(store_set_status(st, "a", "/r", "/r/x", RUN_GONE, 6000), 0);   /* ignored: forgotten */
    ck_assert_int_eq(count_runs(st), 0);
    ingest(st, "a", 7000, RUN_COMPLETE, &r);                        /* its files changed: back */
    ck_assert_int_eq(count_runs(st), 1);
    rd = store_reader_acquire(st);
    ck_assert(!retention_forgotten_sig(rd, "a", &fsig));
    store_reader_release(st, rd);
    /* max runs: the oldest finished go first; running runs stay */
    for (int i = 0; i < 6; i++) {
        char id[16];
        snprintf(id, sizeof id, "m-%d", i);
        ingest(st, id, 10000 + i, i == 0 ? RUN_RUNNING : RUN_COMPLETE, &r);
    }
    retention_policy p = {.max_runs = 4};
    evictions = 0;
    ck_assert_int_eq(retention_enforce(st, &p, 20000, count_eviction, "retention_max_runs"), 3);
    ck_assert_int_eq(evictions, 3);
    ck_assert_int_eq(count_runs(st), 4);
    rd = store_reader_acquire(st);
    ck_assert(store_run_state(rd, "m-0", &status, &sig, &has) && status == RUN_RUNNING);
    ck_assert(!store_run_state(rd, "a", &status, &sig, &has) && !store_run_state(rd, "m-1", &status, &sig, &has));
    ck_assert(store_run_state(rd, "m-5", &status, &sig, &has));
    store_reader_release(st, rd);
    /* max age: finished runs not updated for that long */
    p = (retention_policy){.max_age_days = 1};
    ck_assert_int_eq(retention_enforce(st, &p, 10005 + 86400000, count_eviction, "retention_max_age_days"), 2);
    ck_assert_int_eq(count_runs(st), 2);                            /* m-0 (running) and m-5 */
    /* size: fill past 90% of 2 MB, then evict down to 80% */
    char id[32];
    int n = 0;
    ingest_doc doc;
    ck_assert(ingest_doc_build(&r, &doc));
    for (; n < 5000; n++) {
        snprintf(id, sizeof id, "s-%04d", n);
        ingest_record rec = {.id = id, .root = "/r", .path = "/r/x", .status = RUN_COMPLETE, .now_ms = 30000 + n,
                             .doc = &doc, .metrics_json = "{\"pad\": \"................................................"
                             "......................................................................\"}", .parse_ms = 1.0};
        if (store_ingest(st, &rec) != 0) break;                      /* full */
    }
    ingest_doc_free(&doc);
    ck_assert_int_lt(n, 5000);
    p = (retention_policy){.max_size_mb = 2};
    evictions = 0;
    int ev = retention_enforce(st, &p, 40000, count_eviction, "db_max_size_mb");
    ck_assert_int_gt(ev, 0);
    snprintf(id, sizeof id, "s-new");
    ingest(st, id, 50000, RUN_COMPLETE, &r);                        /* room again */
    rd = store_reader_acquire(st);
    ck_assert(!store_run_state(rd, "s-0000", &status, &sig, &has));  /* the oldest went */
    ck_assert(store_run_state(rd, "s-new", &status, &sig, &has));
    store_reader_release(st, rd);
    char refused[64];                                               /* the refused ingest, by run */
    uint64_t need = 0;
    ck_assert_uint_eq(store_full_failures(st, refused, sizeof refused, &need), 1);
    snprintf(id, sizeof id, "s-%04d", n);
    ck_assert_str_eq(refused, id);
    ck_assert_uint_gt(need, 300);                                   /* its texts at least: the padded body */
    /* a pass ends after the eviction under way once cancelled (shutdown) */
    atomic_bool cancel;
    atomic_init(&cancel, false);
    p = (retention_policy){.max_runs = 1, .cancel = &cancel};
    ck_assert_int_gt(count_runs(st), 3);
    ck_assert_int_eq(retention_enforce(st, &p, 60000, cancel_on_eviction, &cancel), 1);
    store_close(st);
    run_result_free(&r);
    free(db);
    tu_rmrf(d);
    free(d);
}
END_TEST

START_TEST(store_ingest_list_and_state) {
    char *d = tu_tempdir();
    tu_copy_fixture("rocprofv3/sdk_kernel_trace.csv", d, "trace.csv");
    run_result r;
    tu_parse(d, false, &r);
    r.torch.tokens_per_sec = (opt_num){true, 5.0};              /* as if a profile had said so */
    char *db = NULL, *err = NULL;
    ck_assert(asprintf(&db, "%s/g.db", d) > 0);
    store *st = store_open(db, 0, &err);
    ck_assert_msg(st != NULL, "%s", err ? err : "");
    for (int i = 0; i < 25; i++) {                               /* many share one updated_at */
        char id[16];
        snprintf(id, sizeof id, "run-%02d", i);
        ingest(st, id, 1000 + i / 10, i % 5 == 0 ? RUN_FAILED : RUN_COMPLETE, &r);
    }
    ck_assert_int_eq(store_set_status(st, "run-03", "/r", "/r/x", RUN_GONE, 2000), 0);
    store_reader *rd = store_reader_acquire(st);
    /* pages of 7 walk every run exactly once, newest first */
    seen all = {0};
    char cursor[300] = "", next[300];
    int pages = 0;
    do {
        ck_assert_int_ge(store_list_runs(rd, -1, 7, cursor[0] ? cursor : NULL, false, collect, &all, next, sizeof next), 0);
        snprintf(cursor, sizeof cursor, "%s", next);
        pages++;
    } while (cursor[0]);
    ck_assert_int_eq(all.n, 25);
    ck_assert_int_eq(pages, 4);
    ck_assert_str_eq(all.ids[0], "run-03");                      /* updated last */
    for (int i = 0; i < all.n; i++)
        for (int k = i + 1; k < all.n; k++) ck_assert_str_ne(all.ids[i], all.ids[k]);
    seen failed = {0};
    ck_assert_int_eq(store_list_runs(rd, RUN_FAILED, 100, NULL, false, collect, &failed, next, sizeof next), 5);
    ck_assert_int_eq(store_list_runs(rd, -1, 5, "garbage", false, collect, &failed, next, sizeof next), -1);
    int64_t counts[RUN_STATUS_COUNT];
    store_count_by_status(rd, counts);
    ck_assert_int_eq(counts[RUN_COMPLETE], 19);
    ck_assert_int_eq(counts[RUN_FAILED], 5);
    ck_assert_int_eq(counts[RUN_GONE], 1);
    run_status status;
    run_sig sig;
    bool has;
    ck_assert(store_run_state(rd, "run-04", &status, &sig, &has));
    ck_assert(has && status == RUN_COMPLETE);
    ck_assert(sig.a[ARTEFACT_KERNEL_TRACE].present && sig.a[ARTEFACT_KERNEL_TRACE].size > 0);
    ck_assert(!sig.a[ARTEFACT_TORCH_PROFILE].present);
    ck_assert(!store_run_state(rd, "nope", &status, &sig, &has));
    store_reader_release(st, rd);
    /* the Prometheus body of this store: families once, label values escaped, per-run series bounded */
    goblind_counters ctr;
    counters_init(&ctr);
    counters_http(&ctr, 200, 0.002);
    counters_http(&ctr, 299, 0.5);
    prometheus_source src = {st, &ctr, 3, "9.9.9", NULL, NULL, 0, NULL};
    char err2[512];
    strbuf out = {0};
    ck_assert(prometheus_render(&src, false, &out));
    ck_assert(strstr(out.data, "goblind_build_info{version=\"9.9.9\"} 1\n"));
    ck_assert(strstr(out.data, "goblind_http_requests_total{code=\"other\"} 1\n"));
    ck_assert(strstr(out.data, "goblind_runs{status=\"failed\"} 5\n"));
    const char *p = out.data;
    int series = 0;
    while ((p = strstr(p, "goblind_run_tokens_per_second{")) != NULL) { series++; p++; }
    ck_assert_int_eq(series, 3);                                 /* metrics_max_runs */
    ck_assert(!strstr(out.data, "# EOF"));
    out.len = 0;
    ck_assert(prometheus_render(&src, true, &out));
    ck_assert(strstr(out.data, "# TYPE goblind_ingests counter\n") && strstr(out.data, "# EOF\n"));
    /* static labels from the config go on every sample, first */
    char *labels = NULL;
    ck_assert(prometheus_labels_render(" host = n\"1 ,cluster=c", &labels, err2, sizeof err2));
    ck_assert_str_eq(labels, "host=\"n\\\"1\",cluster=\"c\"");
    src.labels = labels;
    out.len = 0;
    ck_assert(prometheus_render(&src, false, &out));
    ck_assert(strstr(out.data, "\ngoblind_build_info{host=\"n\\\"1\",cluster=\"c\",version=\"9.9.9\"} 1\n"));
    ck_assert(strstr(out.data, "\nprocess_open_fds{host=\"n\\\"1\",cluster=\"c\"} "));
    ck_assert(strstr(out.data, "\n# TYPE goblind_runs gauge\n"));
    free(labels);
    ck_assert(!prometheus_labels_render("run=x", &labels, err2, sizeof err2));
    ck_assert(!prometheus_labels_render("__name__=x", &labels, err2, sizeof err2));
    ck_assert(!prometheus_labels_render("9a=x", &labels, err2, sizeof err2));
    ck_assert(!prometheus_labels_render("novalue", &labels, err2, sizeof err2));
    ck_assert(prometheus_labels_render("", &labels, err2, sizeof err2) && labels == NULL);
    strbuf_free(&out);
    store_close(st);
    st = store_open(db, 0, &err);                                /* reopening migrates nothing twice */
    ck_assert(st != NULL);
    store_close(st);
    run_result_free(&r);
    free(db);
    tu_rmrf(d);
    free(d);
}
END_TEST

static void count_kernel(void *user, const kernel_row *k) {
    int *n = user;
    ck_assert(k->calls > 0 && k->pct_time >= 0 && k->pct_time <= 100);
    (*n)++;
}

START_TEST(store_kernels_and_errors) {
    char *d = tu_tempdir();
    tu_copy_fixture("rocprofv3/rocprofv1_omniperf_Axes1_mi200_timestamps.csv", d, "trace.csv");
    run_result r;
    tu_parse(d, false, &r);
    char *db = NULL, *err = NULL;
    ck_assert(asprintf(&db, "%s/g.db", d) > 0);
    store *st = store_open(db, 0, &err);
    ingest(st, "k-1", 5, RUN_COMPLETE, &r);
    ingest(st, "k-1", 6, RUN_COMPLETE, &r);                      /* re-ingest replaces, never duplicates */
    store_reader *rd = store_reader_acquire(st);
    int n = 0;
    ck_assert_int_eq(store_run_kernels(rd, "k-1", KSORT_CALLS, 1000, count_kernel, &n), (int)r.kernels.kernels.count);
    ck_assert_int_eq(n, (int)r.kernels.kernels.count);
    store_reader_release(st, rd);
    store_close(st);
    /* a directory is not a database; a missing parent is an error with the path */
    st = store_open(d, 0, &err);
    ck_assert_ptr_null(st);
    ck_assert(err && strlen(err) > 0);
    free(err);
    err = NULL;
    char *bad = NULL;
    ck_assert(asprintf(&bad, "%s/no/such/dir/x.db", d) > 0);
    ck_assert_ptr_null(store_open(bad, 0, &err));
    ck_assert(err && strstr(err, "x.db"));
    free(err);
    free(bad);
    run_result_free(&r);
    free(db);
    tu_rmrf(d);
    free(d);
}
END_TEST

Suite *daemon_suite(void) {
    Suite *s = suite_create("daemon");
    TCase *tc = tcase_create("units");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, config_keys_and_errors);
    tcase_add_test(tc, config_mistakes_named);
    tcase_add_test(tc, listen_addresses);
    tcase_add_test(tc, json_writer_output);
    tcase_add_test(tc, metrics_cache_behaviour);
    tcase_add_test(tc, compare_arithmetic);
    tcase_add_test(tc, store_ingest_list_and_state);
    tcase_add_test(tc, store_kernels_and_errors);
    tcase_add_test(tc, retention_forget_and_policy);
    tcase_add_test(tc, retention_room_per_refused_run);
    tcase_add_test(tc, ingest_after_forget_is_dropped);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(daemon_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
