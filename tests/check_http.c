/* Tests: the HTTP layer's units under churn and hostile input — the metrics
 * cache never keeping a state older than the store's. */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <string.h>

#include "api/body_budget.h"
#include "api/compare.h"
#include "api/compare_diff.h"
#include "api/log_rate.h"
#include "api/metrics_cache.h"
#include "api/prometheus.h"
#include "api/webhooks.h"
#include "base/json_writer.h"
#include "base/url_redact.h"
#include "storage/store.h"

/* A reader missed the cache and read the run from the store (running); the ingest and the
 * status commit then landed and dropped the entry; only then does the reader put what it read.
 * That put must not be kept: /metrics would answer 202 "running" forever. */
START_TEST(cache_put_after_drop_is_not_kept) {
    metrics_cache *c = metrics_cache_new(16);
    cached_run stale = {RUN_RUNNING, 17, NULL, 0}, out;
    ck_assert(!metrics_cache_get(c, "r1", &out));
    uint64_t v = metrics_cache_version(c, "r1");      /* taken before the store read */
    metrics_cache_drop(c, "r1");                      /* the commit's invalidation */
    metrics_cache_put(c, "r1", &stale, v);            /* the late put of the older read */
    ck_assert_msg(!metrics_cache_get(c, "r1", &out), "a state older than the store's was cached");
    /* a read that began after the drop is kept, and a drop of another run does not refuse it */
    v = metrics_cache_version(c, "r1");
    metrics_cache_drop(c, "r2");
    cached_run fresh = {RUN_COMPLETE, 18, "{}", 2};
    metrics_cache_put(c, "r1", &fresh, v);
    ck_assert(metrics_cache_get(c, "r1", &out) && out.status == RUN_COMPLETE && out.ingest_count == 18);
    free(out.body);
    metrics_cache_free(c);
}
END_TEST

/* Kernel names holding a NUL (written "\u0000") are names like any other: both documents load,
 * "add" and "mul" after the NUL are two rows (not one name cut at the NUL), each with its own
 * totals; a document that is not JSON is an unknown side, not a failure. */
START_TEST(compare_diff_reads_names_holding_a_nul) {
    static const char BASE[] = "{\"kernels\":{\"by_name\":[{\"name\":\"elementwise\\u0000add\",\"calls\":1,"
                               "\"total_ns\":5},{\"name\":\"elementwise\\u0000mul\",\"calls\":1,\"total_ns\":7}]}}";
    static const char CAND[] = "{\"kernels\":{\"by_name\":[{\"name\":\"elementwise\\u0000add\",\"calls\":1,"
                               "\"total_ns\":9},{\"name\":\"elementwise\\u0000mul\",\"calls\":1,\"total_ns\":7}]}}";
    compare_diff *d = compare_diff_new(BASE, strlen(BASE), CAND, strlen(CAND), 20);
    ck_assert_ptr_nonnull(d);
    strbuf out = {0};
    jw_out j;
    jw_begin(&j, &out, 0);
    jw_object_open(&j);
    compare_diff_write(d, &j);
    jw_object_close(&j);
    ck_assert(strbuf_terminate(&out));
    json_t *doc = json_loads(out.data, JSON_ALLOW_NUL, NULL);
    ck_assert_msg(doc != NULL, "%s", out.data);
    json_t *rows = json_object_get(doc, "kernels");
    ck_assert_msg(json_is_array(rows) && json_array_size(rows) == 2, "%s", out.data);
    json_t *first = json_array_get(rows, 0);           /* the larger change first */
    ck_assert_uint_eq(json_string_length(json_object_get(first, "name")), 15);
    ck_assert(!memcmp(json_string_value(json_object_get(first, "name")), "elementwise\0add", 15));
    ck_assert_str_eq(json_string_value(json_object_get(first, "change")), "changed");
    ck_assert(json_number_value(json_object_get(first, "delta_total_ns")) == 4.0);
    json_decref(doc);
    strbuf_free(&out);
    compare_diff_free(d);
    d = compare_diff_new("not json", 8, NULL, 0, 20);
    ck_assert_ptr_nonnull(d);
    compare_diff_free(d);
}
END_TEST

/* /compare of extreme finite values (1e-300 against 1e300, -1e308 against 1e308): every key is
 * there, every number is finite (saturated to +-DBL_MAX), and the body serialises. */
START_TEST(compare_saturates_extreme_values) {
    compare_side a = {.id = "a", .metrics_json = "{}", .tokens_per_sec = {true, 1e-300}, .hbm_peak_gb = {true, -1e308},
                      .mfu_pct = {true, 1e-300}, .hbm_avg_gb = {true, 0}, .gpu_util_pct = {true, 0},
                      .step_seconds = {true, 0}};
    compare_side b = {.id = "b", .metrics_json = "{}", .tokens_per_sec = {true, 1e300}, .hbm_peak_gb = {true, 1e308},
                      .mfu_pct = {true, -1e300}, .hbm_avg_gb = {true, 0}, .gpu_util_pct = {true, 0},
                      .step_seconds = {true, 0}};
    a.waste[0] = b.waste[0] = (opt_num){true, 1e308};          /* useful_gpu */
    a.waste[2] = (opt_num){true, -1e308};                      /* host_gap */
    b.waste[2] = (opt_num){true, 1e308};
    strbuf out = {0};
    compare_runs(&a, &b, NULL, &out);
    ck_assert(strbuf_terminate(&out));
    json_t *c = json_loads(out.data, 0, NULL);
    ck_assert_msg(c != NULL, "compare_runs gave no body");
    const char *top[] = {"base", "candidate", "headline", "waste_budget", "speedup", "summary"};
    for (size_t i = 0; i < sizeof top / sizeof top[0]; i++) ck_assert_msg(json_object_get(c, top[i]), "%s", top[i]);
    ck_assert_int_eq(json_object_size(json_object_get(c, "headline")), 6);
    const char *k;
    json_t *d;
    json_object_foreach(json_object_get(c, "headline"), k, d) {
        ck_assert_msg(json_object_size(d) == 4, "headline.%s lost keys", k);
        json_t *v;
        const char *f;
        json_object_foreach(d, f, v) ck_assert_msg(json_is_null(v) || isfinite(json_number_value(v)), "%s.%s", k, f);
    }
    json_t *t = json_object_get(json_object_get(c, "headline"), "hbm_peak_gb");
    ck_assert(json_real_value(json_object_get(t, "delta")) == DBL_MAX);          /* 1e308 - -1e308 saturates */
    ck_assert(json_real_value(json_object_get(json_object_get(json_object_get(c, "headline"), "tokens_per_sec"),
                                              "delta_pct")) == DBL_MAX);
    ck_assert(json_real_value(json_object_get(c, "speedup")) == DBL_MAX);
    ck_assert_str_eq(json_string_value(json_object_get(c, "summary")), "tokens/s 1e-300 \xe2\x86\x92 1e+300");
    char *text = json_dumps(c, JSON_COMPACT);
    ck_assert(text != NULL);
    free(text);
    json_decref(c);
    strbuf_free(&out);
}
END_TEST

/* Prometheus: a stored hbm_peak_gb of 1.66e305 is 1.8e314 bytes, past a double; the series says
 * +Inf, never 0.0. */
START_TEST(prometheus_huge_values_are_not_zero) {
    char dir[] = "/tmp/goblind-check-http-XXXXXX";
    ck_assert(mkdtemp(dir) != NULL);
    char db[128];
    snprintf(db, sizeof db, "%s/g.db", dir);
    char *err = NULL;
    store *st = store_open(db, 0, &err);
    ck_assert_msg(st != NULL, "%s", err ? err : "");
    ingest_doc doc = {0};                                                  /* measured */
    doc.headline = (ingest_headline){.tokens_per_sec = 1e300, .hbm_peak_gb = 1.66e305, .hbm_avg_gb = -1.66e305,
                                     .has_hbm_avg_gb = true,
                                     .has_tokens_per_sec = true, .has_hbm_peak_gb = true};
    ingest_record rec = {.id = "huge", .root = "/r", .path = "/r/huge", .status = RUN_COMPLETE, .now_ms = 1000,
                         .doc = &doc, .parse_ms = 1.0,
                         .metrics_json = "{\"tokens_per_sec\": 1e300, \"hbm_peak_gb\": 1.66e305, \"hbm_avg_gb\": -1.66e305,"
                                         " \"waste_budget\": {\"useful_gpu\": 0.5}}"};
    ck_assert_int_eq(store_ingest(st, &rec), 0);
    goblind_counters ctr;
    counters_init(&ctr);
    prometheus_source src = {st, &ctr, 10, "t", NULL, NULL, 0, NULL};
    strbuf out = {0};
    ck_assert(prometheus_render(&src, false, &out));
    ck_assert_msg(strstr(out.data, "goblind_run_hbm_peak_bytes{run=\"huge\"} +Inf\n"), "%s",
                  strstr(out.data, "goblind_run_hbm_peak_bytes{"));
    /* a negative mean is not a measurement: absent (unknown is absent, never 0) */
    ck_assert(!strstr(out.data, "goblind_run_hbm_avg_bytes{run=\"huge\"}"));
    ck_assert(strstr(out.data, "goblind_run_tokens_per_second{run=\"huge\"} 1e+300\n"));
    strbuf_free(&out);
    store_close(st);
    unlink(db);
    char side[160];
    snprintf(side, sizeof side, "%s-wal", db);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", db);
    unlink(side);
    rmdir(dir);
}
END_TEST

/* One line of a kind per window; the rest are counted and reported with the next line. */
START_TEST(log_rate_one_line_per_window) {
    log_rate r;
    log_rate_init(&r, 60.0);
    static const char k1[] = "a", k2[] = "b";
    uint64_t n;
    ck_assert(log_rate_admit(&r, k1, 100.0, &n) && n == 0);
    for (int i = 0; i < 500; i++) ck_assert(!log_rate_admit(&r, k1, 100.0 + i * 0.1, &n));
    ck_assert(log_rate_admit(&r, k2, 101.0, &n) && n == 0);        /* another kind is not held back */
    ck_assert(log_rate_admit(&r, k1, 161.0, &n));
    ck_assert_uint_eq(n, 500);
    ck_assert(!log_rate_admit(&r, k1, 162.0, &n));
    ck_assert_uint_eq(log_rate_take_suppressed(&r), 1);
    ck_assert_uint_eq(log_rate_take_suppressed(&r), 0);
    log_rate_destroy(&r);
}
END_TEST

/* In-memory bodies are counted until their response is freed; past the cap, bodies of at least
 * `small` bytes are refused, smaller ones never. */
START_TEST(body_budget_caps_held_bytes) {
    body_budget b;
    body_budget_init(&b, 1000, 100);
    struct MHD_Response *r1 = body_budget_response(&b, calloc(1, 600), 600);
    ck_assert_ptr_nonnull(r1);
    ck_assert_uint_eq(body_budget_used(&b), 600);
    ck_assert_ptr_null(body_budget_response(&b, calloc(1, 600), 600));     /* would pass the cap */
    ck_assert_uint_eq(body_budget_used(&b), 600);
    struct MHD_Response *r2 = body_budget_response(&b, calloc(1, 399), 399);
    ck_assert_ptr_nonnull(r2);
    struct MHD_Response *r3 = body_budget_response(&b, calloc(1, 50), 50);  /* small: always */
    ck_assert_ptr_nonnull(r3);
    ck_assert_uint_eq(body_budget_used(&b), 1049);
    MHD_destroy_response(r1);                                             /* sent: out of the budget */
    ck_assert_uint_eq(body_budget_used(&b), 449);
    struct MHD_Response *r4 = body_budget_response(&b, calloc(1, 500), 500);
    ck_assert_ptr_nonnull(r4);
    MHD_destroy_response(r2);
    MHD_destroy_response(r3);
    MHD_destroy_response(r4);
    ck_assert_uint_eq(body_budget_used(&b), 0);
}
END_TEST

/* Events dropped so far from full queues, over every receiver. */
static unsigned long dropped_total(webhooks *w) {
    unsigned long total = 0;
    for (size_t i = 0; i < webhooks_receivers(w); i++) {
        unsigned long dropped, failed, delivered;
        webhooks_receiver_counts(w, i, &dropped, &failed, &delivered);
        total += dropped;
    }
    return total;
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A receiver that takes connections into its backlog and never answers: posting never blocks
 * the caller, the queue stays bounded (the oldest dropped and counted), and stopping with a
 * full queue ends within the documented bound: the 1 s grace, then the POST in flight aborted
 * within about a second (1.2 s measured; 5 s leaves room for a loaded sanitizer build, and
 * fails a stop that waits out the 5 s POST timeout). */
START_TEST(webhooks_bounded_queue_never_blocks) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(listen(fd, 64), 0);
    socklen_t len = sizeof a;
    getsockname(fd, (struct sockaddr *)&a, &len);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/hook", ntohs(a.sin_port));
    const char *urls[] = {url};
    webhooks *w = webhooks_start(urls, 1);
    ck_assert_ptr_nonnull(w);
    double t0 = now_s();
    for (int i = 0; i < 3 * WEBHOOK_QUEUE; i++) webhooks_post(w, "{\"event\":\"complete\",\"run\":\"r\"}");
    ck_assert_msg(now_s() - t0 < 1.0, "posting %d events took %.2f s", 3 * WEBHOOK_QUEUE, now_s() - t0);
    unsigned long dropped = dropped_total(w);
    ck_assert_msg(dropped >= 2 * WEBHOOK_QUEUE - 1 && dropped <= 2 * WEBHOOK_QUEUE, "dropped %lu", dropped);
    t0 = now_s();
    webhooks_stop(w);
    ck_assert_msg(now_s() - t0 < 5.0, "stop took %.2f s", now_s() - t0);
    close(fd);
}
END_TEST

/* A loopback receiver that answers every request 204 at once (one connection at a time). */
typedef struct quick_receiver {
    int fd;
    atomic_int stop;                 /* set by the test thread, read by the receiver's */
} quick_receiver;

static void *answer_204(void *arg) {
    quick_receiver *q = arg;
    while (!atomic_load(&q->stop)) {
        int c = accept(q->fd, NULL, NULL);
        if (c < 0) continue;
        char buf[4096];
        size_t got = 0;
        for (;;) {                                    /* headers, then Content-Length bytes */
            ssize_t n = recv(c, buf + got, sizeof buf - 1 - got, 0);
            if (n <= 0) break;
            got += (size_t)n;
            buf[got] = '\0';
            char *end = strstr(buf, "\r\n\r\n");
            const char *cl = strcasestr(buf, "Content-Length:");
            if (end && cl && got >= (size_t)(end + 4 - buf) + strtoul(cl + 15, NULL, 10)) break;
            if (got == sizeof buf - 1) break;
        }
        static const char OK[] = "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n";
        if (send(c, OK, sizeof OK - 1, MSG_NOSIGNAL) < 0) {}
        close(c);
    }
    return NULL;
}

static int listen_loopback(char *url, size_t n) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(listen(fd, 256), 0);
    socklen_t len = sizeof a;
    getsockname(fd, (struct sockaddr *)&a, &len);
    snprintf(url, n, "http://127.0.0.1:%d/hook", ntohs(a.sin_port));
    return fd;
}

/* A dead receiver (accepts, never answers) listed first and a healthy one: 1,500 events paced
 * at one per ms. The dead one's own queue fills and drops its oldest (1,500 - 1,024 - the one
 * in flight); the healthy one drops none and gets every event, counted as delivered. */
START_TEST(webhooks_drop_per_receiver) {
    char dead_url[64], good_url[64];
    int dead = listen_loopback(dead_url, sizeof dead_url);
    quick_receiver q = {.fd = listen_loopback(good_url, sizeof good_url)};
    struct timeval tv = {0, 200000};
    setsockopt(q.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);     /* accept wakes to see stop */
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, answer_204, &q), 0);
    const char *urls[] = {dead_url, good_url};
    webhooks *w = webhooks_start(urls, 2);
    ck_assert_uint_eq(webhooks_receivers(w), 2);
    for (int i = 0; i < 1500; i++) {
        webhooks_post(w, "{\"event\":\"complete\",\"run\":\"r\"}");
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    unsigned long dropped, failed, delivered;
    double t0 = now_s();
    do {
        struct timespec ms = {0, 20000000};
        nanosleep(&ms, NULL);
        webhooks_receiver_counts(w, 1, &dropped, &failed, &delivered);
    } while (delivered + failed < 1500 && now_s() - t0 < 20);
    ck_assert_uint_eq(dropped, 0);
    ck_assert_uint_eq(failed, 0);
    ck_assert_uint_eq(delivered, 1500);
    webhooks_receiver_counts(w, 0, &dropped, &failed, &delivered);
    ck_assert_msg(dropped >= 1500 - WEBHOOK_QUEUE - 1 && dropped <= 1500 - WEBHOOK_QUEUE, "dead receiver dropped %lu", dropped);
    ck_assert_uint_eq(delivered, 0);
    ck_assert_uint_eq(dropped_total(w), dropped);
    webhooks_stop(w);
    atomic_store(&q.stop, 1);
    pthread_join(th, NULL);
    close(q.fd);
    close(dead);
}
END_TEST

/* URLs as logged: userinfo, query values, bare query items and fragments never appear;
 * scheme, host, port and path do (hand-written expectations). */
START_TEST(url_redact_hides_credentials) {
    static const char *const CASES[][2] = {
        {"http://user:S3cret@127.0.0.1:8080/hook?token=abc&x=1", "http://***@127.0.0.1:8080/hook?token=***&x=***"},
        {"https://hooks.example/p/a?S3cret#frag", "https://hooks.example/p/a?***#***"},
        {"http://h/p", "http://h/p"},
        {"http://a@b@h/?=v&&k=", "http://***@h/?=***&&k=***"},
        {"http://h?k=v/x@y", "http://h?k=***"},
        {"localhost:8080", "localhost:8080"},
        {"u:p@localhost:8080/x?t=1", "***@localhost:8080/x?t=***"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        char out[256];
        ck_assert_str_eq(url_redact(CASES[i][0], out, sizeof out), CASES[i][1]);
    }
    char small[12];                               /* cut, never past the buffer */
    ck_assert_str_eq(url_redact("http://u:secret@host/x", small, sizeof small), "http://***@");
}
END_TEST

static Suite *http_suite(void) {
    Suite *s = suite_create("http");
    TCase *tc = tcase_create("cache");
    tcase_add_test(tc, cache_put_after_drop_is_not_kept);
    suite_add_tcase(s, tc);
    tc = tcase_create("overflow");
    tcase_add_test(tc, compare_saturates_extreme_values);
    tcase_add_test(tc, compare_diff_reads_names_holding_a_nul);
    tcase_add_test(tc, prometheus_huge_values_are_not_zero);
    tcase_add_test(tc, log_rate_one_line_per_window);
    tcase_add_test(tc, body_budget_caps_held_bytes);
    suite_add_tcase(s, tc);
    tc = tcase_create("webhooks");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, webhooks_bounded_queue_never_blocks);
    tcase_add_test(tc, url_redact_hides_credentials);
    tcase_add_test(tc, webhooks_drop_per_receiver);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(http_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
