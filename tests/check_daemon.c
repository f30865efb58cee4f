/* Tests: the daemon's units on their own — config parsing, listen addresses, the JSON
 * writer, the metrics cache and /compare arithmetic (the store and retention:
 * check_store.c). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/json_text.h"
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
    ck_assert_str_eq(b.data, "{\"s\":\"a\\\"b\\\\c\\n\\u0001\\u007f\xef\xbf\xbd\",\"n\":0.1,\"i\":100.0,\"inf\":null,\"a\":[]}");
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
