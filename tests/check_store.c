/* Tests: the store and retention on their own: ingests, pagination, signatures, kernel rows
 * and errors, the Prometheus rendering of stored runs; forgetting runs (DELETE, a parse that
 * began before it), the retention policy (count, age, size, a pass cancelled at shutdown)
 * and the room asked for refused ingests. */
#include <check.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/text_utf8.h"
#include "api/prometheus.h"
#include "core/ingest_doc.h"
#include "storage/retention.h"
#include "storage/store.h"
#include "tests/test_util.h"

/* The room asked for refused ingests (limit 10 MB: 90 % is 9,437,184 bytes): what the run
 * lacks, once per run (each run on its own); refused again within RETENTION_ROOM_FORGET_MS, or
 * asking beyond 90 % of the limit, none (warned once); room again once it was stored, or
 * forgotten; a bounded memory. */
START_TEST(retention_room_per_refused_run) {
    retention_room r;
    memset(&r, 0, sizeof r);
    retention_room_answer why;
    bool warn;
    int64_t t = 1000;
    ck_assert_int_eq(retention_room_for(&r, "a", 1000000, 10, t, &why, &warn), 1000000);
    ck_assert(why == ROOM_MADE && !warn);
    ck_assert_int_eq(retention_room_for(&r, "b", 100000, 10, t + 1, &why, &warn), 100000);   /* b on its own */
    ck_assert_int_eq(retention_room_for(&r, "a", 1000000, 10, t + 2, &why, &warn), 0);       /* a again: none */
    ck_assert(why == ROOM_AGAIN && warn);
    ck_assert_int_eq(retention_room_for(&r, "b", 100000, 10, t + 3, &why, &warn), 0);
    ck_assert(why == ROOM_AGAIN && warn);
    ck_assert_int_eq(retention_room_for(&r, "a", 1000000, 10, t + 300000, &why, &warn), 0); /* retried 5 min on */
    ck_assert(why == ROOM_AGAIN && !warn);                                                   /* warned once */
    retention_room_landed(&r, "b");                                                          /* b stored after all */
    ck_assert_int_eq(retention_room_for(&r, "b", 150000, 10, t + 300001, &why, &warn), 150000);   /* room again */
    ck_assert_int_eq(retention_room_for(&r, "a", 1000000, 10, t + 300000 + RETENTION_ROOM_FORGET_MS + 1, &why, &warn),
                     1000000);                                                               /* forgotten: afresh */
    ck_assert_int_eq(retention_room_for(&r, "huge", 9500000, 10, t + 8, &why, &warn), 0);   /* > 90 %: never fits */
    ck_assert(why == ROOM_TOO_LARGE && warn);
    ck_assert_int_eq(retention_room_for(&r, "huge", 9500000, 10, t + 9, &why, &warn), 0);
    ck_assert(!warn);
    for (int i = 0; i < RETENTION_ROOM_RUNS + 2; i++) {                                      /* a bounded memory */
        char id[16];
        snprintf(id, sizeof id, "r%d", i);
        ck_assert_int_eq(retention_room_for(&r, id, 1000, 10, t + 10 + i, &why, &warn), 1000);
    }
    ck_assert_int_eq(retention_room_for(&r, "r9", 1000, 10, t + 30, &why, &warn), 0);
    ck_assert_int_eq(retention_room_for(&r, "r0", 1000, 10, t + 31, &why, &warn), 1000);     /* r0 made way */
}
END_TEST

/* A temporary directory holding `fixture` as trace.csv, parsed into *r, and a store at
 * <dir>/g.db (max_mb as store_open's); *dir and *db are the caller's to free (fixture_done). */
static store *fixture_store(const char *fixture, int max_mb, char **dir, char **db, run_result *r) {
    *dir = tu_tempdir();
    tu_copy_fixture(fixture, *dir, "trace.csv");
    tu_parse(*dir, false, r);
    char *err = NULL;
    ck_assert(asprintf(db, "%s/g.db", *dir) > 0);
    store *st = store_open(*db, max_mb, &err);
    ck_assert_msg(st != NULL, "%s", err ? err : "");
    return st;
}

/* Closes st (NULL: closed already) and frees what fixture_store made. */
static void fixture_done(store *st, run_result *r, char *dir, char *db) {
    if (st) store_close(st);
    run_result_free(r);
    free(db);
    tu_rmrf(dir);
    free(dir);
}

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
    char *d, *db;
    run_result r;
    store *st = fixture_store("rocprofv3/sdk_kernel_trace.csv", 0, &d, &db, &r);
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
    fixture_done(st, &r, d, db);
}
END_TEST

/* Forgetting a run: gone from every table, its signature kept; a status write does not bring
 * it back, an ingest does. The policy: max runs, max age, the size limit. */
START_TEST(retention_forget_and_policy) {
    char *d, *db;
    run_result r;
    store *st = fixture_store("rocprofv3/sdk_kernel_trace.csv", 2, &d, &db, &r);
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
    store_refusal refused[STORE_REFUSALS];                          /* the refused ingest, by run, once */
    ck_assert_uint_eq(store_take_refusals(st, refused), 1);
    snprintf(id, sizeof id, "s-%04d", n);
    ck_assert_str_eq(refused[0].run_id, id);
    ck_assert_uint_ge(refused[0].need_bytes, 65536);                 /* at least the slack */
    ck_assert(!refused[0].landed);
    ck_assert_uint_eq(store_take_refusals(st, refused), 0);         /* taken */
    ingest(st, id, 52000, RUN_COMPLETE, &r);                        /* the refused run lands */
    ck_assert_uint_eq(store_take_refusals(st, refused), 1);
    ck_assert(refused[0].landed && !strcmp(refused[0].run_id, id));
    ingest(st, id, 52001, RUN_COMPLETE, &r);                        /* (once: it is not remembered since) */
    ck_assert_uint_eq(store_take_refusals(st, refused), 0);
    /* room for a refused ingest: the oldest finished runs go until that much is free, no more */
    ck_assert_int_gt(count_runs(st), 5);
    p = (retention_policy){.max_size_mb = 2, .room_bytes = 1};
    evictions = 0;
    ck_assert_int_eq(retention_enforce(st, &p, 55000, count_eviction, "db_max_size_mb"), 0);   /* free already */
    p.room_bytes = 2 * 1024 * 1024;                                  /* all of it: every finished run */
    int64_t before = count_runs(st);
    ck_assert_int_eq(retention_enforce(st, &p, 55000, count_eviction, "db_max_size_mb"), before - 1);
    ck_assert_int_eq(count_runs(st), 1);                             /* m-0, running, stays */
    for (int i = 0; i < 4; i++) {
        snprintf(id, sizeof id, "c-%d", i);
        ingest(st, id, 56000 + i, RUN_COMPLETE, &r);
    }
    /* a pass ends after the eviction under way once cancelled (shutdown) */
    atomic_bool cancel;
    atomic_init(&cancel, false);
    p = (retention_policy){.max_runs = 1, .cancel = &cancel};
    ck_assert_int_gt(count_runs(st), 3);
    ck_assert_int_eq(retention_enforce(st, &p, 60000, cancel_on_eviction, &cancel), 1);
    fixture_done(st, &r, d, db);
}
END_TEST

START_TEST(store_ingest_list_and_state) {
    char *d, *db, *err = NULL;
    run_result r;
    store *st = fixture_store("rocprofv3/sdk_kernel_trace.csv", 0, &d, &db, &r);
    r.torch.tokens_per_sec = (opt_num){true, 5.0};              /* as if a profile had said so */
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
    ck_assert(!prometheus_labels_render("host=n\xff" "1", &labels, err2, sizeof err2));   /* not UTF-8 */
    ck_assert(strstr(err2, "not UTF-8"));
    char longv[400] = "host=";                                   /* a 300-byte value of 2-byte characters */
    for (int i = 0; i < 150; i++) strcat(longv, "\xc3\xa9");
    ck_assert(prometheus_labels_render(longv, &labels, err2, sizeof err2) && labels);
    ck_assert(utf8_valid((const uint8_t *)labels, strlen(labels)));   /* cut at 254 bytes, never in a character */
    free(labels);
    labels = NULL;
    ck_assert(prometheus_labels_render("", &labels, err2, sizeof err2) && labels == NULL);
    strbuf_free(&out);
    store_close(st);
    st = store_open(db, 0, &err);                                /* reopening migrates nothing twice */
    ck_assert(st != NULL);
    fixture_done(st, &r, d, db);
}
END_TEST

static void count_kernel(void *user, const kernel_row *k) {
    int *n = user;
    ck_assert(k->calls > 0 && k->pct_time >= 0 && k->pct_time <= 100);
    (*n)++;
}

START_TEST(store_kernels_and_errors) {
    char *d, *db, *err = NULL;
    run_result r;
    store *st = fixture_store("rocprofv3/rocprofv1_omniperf_Axes1_mi200_timestamps.csv", 0, &d, &db, &r);
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
    fixture_done(NULL, &r, d, db);
}
END_TEST

static Suite *store_suite(void) {
    Suite *s = suite_create("store");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, store_ingest_list_and_state);
    tcase_add_test(tc, store_kernels_and_errors);
    tcase_add_test(tc, retention_forget_and_policy);
    tcase_add_test(tc, retention_room_per_refused_run);
    tcase_add_test(tc, ingest_after_forget_is_dropped);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(store_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
