/* Tests: the HTTP layer's units under churn and hostile input (issue 15) — the metrics
 * cache never keeping a state older than the store's. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/metrics_cache.h"

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

static Suite *http_suite(void) {
    Suite *s = suite_create("http");
    TCase *tc = tcase_create("cache");
    tcase_add_test(tc, cache_put_after_drop_is_not_kept);
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
