/* check_counters: the counters section (analyses/sections/counters_section.c) on hand-built REC_COUNTER
 * streams, against numbers worked out by hand: per kernel and counter dispatches, sum, mean,
 * min, max; a value naming no kernel; non-finite values; the list bounded by list_rows with
 * the rest in `unlisted`; two sources folded; the report.md part; a split read exact only
 * when one piece holds no value. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/section_drive.h"

static record counter(const char *kernel_key, const char *kernel, const char *name, double v, record_field *f) {
    record r = {.type = REC_COUNTER, .has = RF_VALUE, .name = name, .name_len = strlen(name), .number = v};
    if (kernel) {
        *f = (record_field){kernel_key, kernel, strlen(kernel)};
        r.fields = f;
        r.n_fields = 1;
    }
    return r;
}

static double getn(json_t *o, const char *k) { return json_number_value(json_object_get(o, k)); }

/* gemm: SQ_WAVES 10, 30, 20 (CSV's kernel_name) and GRBM 5; copy: SQ_WAVES 7 (JSON's kernel);
 * one SQ_WAVES 1 naming no kernel; one NaN. By hand: gemm/SQ_WAVES 3 dispatches, sum 60,
 * mean 20, min 10, max 30, listed first (most dispatches). */
START_TEST(counters_per_kernel_and_counter) {
    drive d;
    drive_open(&d, "counters");
    record_field f;
    drive_source(&d, 0, -1, 0);
    record r[] = {counter("kernel_name", "gemm", "SQ_WAVES", 10, &f)};
    drive_record(&d, &r[0]);
    r[0] = counter("kernel_name", "gemm", "GRBM", 5, &f);
    drive_record(&d, &r[0]);
    r[0] = counter("kernel_name", "gemm", "SQ_WAVES", 30, &f);
    drive_record(&d, &r[0]);
    r[0] = counter("kernel", "copy", "SQ_WAVES", 7, &f);
    drive_record(&d, &r[0]);
    r[0] = counter(NULL, NULL, "SQ_WAVES", 1, &f);
    drive_record(&d, &r[0]);
    r[0] = counter(NULL, NULL, "SQ_WAVES", NAN, &f);
    drive_record(&d, &r[0]);
    drive_end_source(&d);
    drive_source(&d, 1, -1, 0);   /* a second file: folded into the same pair */
    r[0] = counter("kernel_name", "gemm", "SQ_WAVES", 20, &f);
    drive_record(&d, &r[0]);
    drive_end_source(&d);
    json_t *j = drive_finish(&d);
    ck_assert_int_eq((int)getn(j, "values"), 6);
    ck_assert_int_eq((int)getn(j, "pairs"), 4);
    ck_assert_int_eq((int)getn(j, "non_finite"), 1);
    json_t *rows = json_object_get(j, "by_kernel_counter"), *g = json_array_get(rows, 0);
    ck_assert_uint_eq(json_array_size(rows), 4);
    ck_assert_str_eq(json_string_value(json_object_get(g, "kernel")), "gemm");
    ck_assert_str_eq(json_string_value(json_object_get(g, "counter")), "SQ_WAVES");
    ck_assert_int_eq((int)getn(g, "dispatches"), 3);
    ck_assert(getn(g, "sum") == 60 && getn(g, "mean") == 20 && getn(g, "min") == 10 && getn(g, "max") == 30);
    json_t *last = json_array_get(rows, 3);   /* one dispatch each: copy, gemm/GRBM, then no kernel */
    ck_assert(json_is_null(json_object_get(last, "kernel")));
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(rows, 1), "kernel")), "copy");
    ck_assert(json_object_get(j, "unlisted") == NULL);
    ck_assert_int_eq(d.diag.count, 1);   /* the non-finite value */
    json_decref(j);
    /* the list bounded by list_rows: 2 listed, 2 pairs / 2 dispatches unlisted */
    d.cfg.list_rows = 2;
    strbuf b = {0};
    jw_out w;
    jw_begin(&w, &b, 0);
    d.an->render(d.run, &w);
    json_t *k = json_loadb(b.data, b.len, 0, NULL);
    ck_assert_ptr_nonnull(k);
    ck_assert_uint_eq(json_array_size(json_object_get(k, "by_kernel_counter")), 2);
    ck_assert_int_eq((int)getn(k, "listed"), 2);
    json_t *u = json_object_get(k, "unlisted");
    ck_assert_int_eq((int)getn(u, "pairs"), 2);
    ck_assert_int_eq((int)getn(u, "dispatches"), 2);
    json_decref(k);
    strbuf_free(&b);
    d.an->render_md(d.run, &b);
    ck_assert(strbuf_terminate(&b));
    ck_assert_ptr_nonnull(strstr(b.data, "| gemm | SQ\\_WAVES | 3 | 60.000 | 20.000 | 10.000 | 30.000 |"));   /* names escaped for Markdown */
    ck_assert_ptr_nonnull(strstr(b.data, "2 more dispatches"));
    ck_assert_ptr_null(strstr(b.data, "GRBM"));
    strbuf_free(&b);
    drive_close(&d);
}
END_TEST

/* No counter value: the section is null. A split read folds exactly only when one piece has
 * no value. */
START_TEST(counters_null_and_split) {
    drive d;
    drive_open(&d, "counters");
    drive_source(&d, 0, -1, 0);
    drive_end_source(&d);
    json_t *j = drive_finish(&d);
    ck_assert(json_is_null(j));
    json_decref(j);
    ck_assert(d.an->split_exact && d.an->split_ok);
    source_ref ref = {.path = "x", .format = "test"};
    void *a = d.an->open_source(d.run, &ref), *b = d.an->open_source(d.run, &ref);
    record_field f;
    record r = counter("kernel", "k", "C", 1, &f);
    ck_assert(d.an->split_exact(a, b));
    ck_assert(d.an->consume(a, &r));
    ck_assert(d.an->split_exact(a, b));
    ck_assert(d.an->consume(b, &r));
    ck_assert(!d.an->split_exact(a, b));
    ck_assert(d.an->end_source(d.run, a) && d.an->end_source(d.run, b));
    drive_close(&d);
}
END_TEST

/* The pairs' names are bounded in bytes (32 MiB), not only in number (65,536 pairs of two 1 MiB
 * cells were 128 GiB): 600 kernels with 60 KiB names keep the first 546 (32 MiB / the 61,440 +
 * 8 + 2 bytes of a pair), the rest count in the values as unlisted, warned. */
START_TEST(counter_names_are_bounded) {
    enum { LEN = 60 * 1024, N = 600 };
    char *kernel = malloc(LEN + 1);
    ck_assert_ptr_nonnull(kernel);
    memset(kernel, 'k', LEN);
    kernel[LEN] = 0;
    drive d;
    drive_open(&d, "counters");
    drive_source(&d, 0, -1, 0);
    record_field f;
    for (int i = 0; i < N; i++) {
        int n = snprintf(kernel, 16, "%05d", i);
        kernel[n] = 'k';
        record r = counter("kernel_name", kernel, "SQ_WAVES", 1.0, &f);
        drive_record(&d, &r);
    }
    drive_end_source(&d);
    json_t *j = drive_finish(&d);
    ck_assert_int_eq((int)getn(j, "values"), N);
    ck_assert_int_eq((int)getn(j, "pairs"), (32 << 20) / (LEN + 8 + 2));
    bool warned = false;
    for (size_t i = 0; i < d.diag.count; i++) warned |= strstr(d.diag.items[i], "32 MiB of their names") != NULL;
    ck_assert(warned);
    json_decref(j);
    drive_close(&d);
    free(kernel);
}
END_TEST

int main(void) {
    Suite *s = suite_create("counters");
    TCase *tc = tcase_create("counters");
    tcase_add_test(tc, counters_per_kernel_and_counter);
    tcase_add_test(tc, counters_null_and_split);
    tcase_add_test(tc, counter_names_are_bounded);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
