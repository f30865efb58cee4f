/* check_noise_stats: the comparison's statistics (base/noise_stats.c) against independent
 * values: Student t quantiles from the printed tables, a Welch interval worked by hand, medians
 * of small arrays, and the bootstrap's behaviour (the same inputs give the same interval; a clear
 * shift is `slower` / `faster`; identical samples are `within_noise`; too few steps `unknown`). */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/noise_stats.h"

START_TEST(t_quantiles_match_the_tables) {
    /* two-sided 95 % (t_0.975) from any statistics table */
    const double df[] = {1, 2, 3, 4, 5, 10, 30, 120};
    const double t[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.228, 2.042, 1.980};
    for (size_t i = 0; i < sizeof df / sizeof *df; i++)
        ck_assert_double_eq_tol(ns_t_quantile(0.05, df[i]), t[i], 0.0011);
    ck_assert_double_eq_tol(ns_t_quantile(0.05, 1e7), 1.95996, 1e-4);   /* the normal's */
    ck_assert_double_eq_tol(ns_t_quantile(0.01, 10), 3.169, 0.0011);    /* t_0.995 */
}
END_TEST

START_TEST(welch_interval_by_hand) {
    /* a: n=10 mean 100 sd 10; b: n=12 mean 110 sd 12.
     * va = 10, vb = 12, se = sqrt(22) = 4.6904; df = 22^2 / (100/9 + 144/11) = 484 / 24.2020 = 19.998
     * t(0.975, 20) = 2.086 -> half = 9.784; interval 10 -+ 9.784 = [0.216, 19.784] -> slower */
    ns_result r;
    ns_welch(10, 100, 10, 12, 110, 12, 0.05, &r);
    ck_assert_int_eq(r.verdict, NS_SLOWER);
    ck_assert(r.has_ci);
    ck_assert_double_eq_tol(r.delta_pct, 10.0, 1e-9);
    ck_assert_double_eq_tol(r.ci_low_pct, 0.216, 0.002);
    ck_assert_double_eq_tol(r.ci_high_pct, 19.784, 0.002);
    ns_welch(10, 100, 10, 12, 105, 12, 0.05, &r);
    ck_assert_int_eq(r.verdict, NS_WITHIN_NOISE);
    ns_welch(10, 100, 10, 12, 80, 12, 0.05, &r);
    ck_assert_int_eq(r.verdict, NS_FASTER);
    ns_welch(4, 100, 10, 12, 80, 12, 0.05, &r);          /* too few calls on the base side */
    ck_assert_int_eq(r.verdict, NS_UNKNOWN);
    ck_assert(!r.has_ci);
    ns_welch(10, 100, 0, 10, 100, 0, 0.05, &r);          /* no spread, no change */
    ck_assert_int_eq(r.verdict, NS_WITHIN_NOISE);
    ns_welch(10, 100, 0, 10, 101, 0, 0.05, &r);          /* no spread: any change is real */
    ck_assert_int_eq(r.verdict, NS_SLOWER);
    ck_assert_str_eq(ns_verdict_name(NS_WITHIN_NOISE), "within_noise");
    ns_welch(10, 100, 1e300, 12, 110, 12, 0.05, &r);     /* a deviation whose square overflows: the NaN */
    ck_assert_int_eq(r.verdict, NS_UNKNOWN);              /* degrees of freedom aborted on an assert; now */
    ck_assert(!r.has_ci);                                 /* no interval, unknown (never [null, null]) */
    ns_welch(10, 100, 1e160, 12, 110, 12, 0.05, &r);     /* finite va, its square not */
    ck_assert_int_eq(r.verdict, NS_UNKNOWN);
    ns_welch(10, 1e-300, 1, 12, 1e300, 1, 0.05, &r);     /* a change past a double, in percent */
    ck_assert_int_eq(r.verdict, NS_UNKNOWN);
    ck_assert(!r.has_ci);
}
END_TEST

START_TEST(medians) {
    double a[] = {5, 1, 4, 2, 3};
    ck_assert_double_eq(ns_median(a, 5), 3);
    double b[] = {7, 1, 4, 2};
    ck_assert_double_eq(ns_median(b, 4), 3);
    double c[] = {2, 2, 2, 1, 2, 2};
    ck_assert_double_eq(ns_median(c, 6), 2);
    double d[] = {9};
    ck_assert_double_eq(ns_median(d, 1), 9);
    uint64_t s = 12345;
    for (int n = 1; n < 60; n++) {   /* against a sort */
        double v[60], w[60];
        for (int i = 0; i < n; i++) { s = s * 6364136223846793005ULL + 1; v[i] = w[i] = (double)(s >> 60); }
        for (int i = 1; i < n; i++)
            for (int j = i; j > 0 && w[j - 1] > w[j]; j--) { double t = w[j]; w[j] = w[j - 1]; w[j - 1] = t; }
        double want = n % 2 ? w[n / 2] : (w[n / 2 - 1] + w[n / 2]) / 2;
        ck_assert_double_eq(ns_median(v, (size_t)n), want);
    }
}
END_TEST

START_TEST(bootstrap_verdicts) {
    double a[40], b[40], c[40];
    for (int i = 0; i < 40; i++) {
        a[i] = 100 + (i * 37 % 11);        /* 100..110 */
        b[i] = a[i] + 20;                  /* clearly slower */
        c[i] = 100 + ((i * 53 + 5) % 11);  /* the same values, another order */
    }
    ns_result r, again;
    double ma = 0, mb = 0;
    bool has[2];
    ck_assert(ns_median_diff(a, 40, b, 40, &r, &ma, &mb, has));
    ck_assert_int_eq(r.verdict, NS_SLOWER);
    ck_assert_double_eq(mb - ma, 20);
    ck_assert(ns_median_diff(a, 40, b, 40, &again, &ma, &mb, has));
    ck_assert_double_eq(r.ci_low_pct, again.ci_low_pct);     /* fixed seed: deterministic */
    ck_assert_double_eq(r.ci_high_pct, again.ci_high_pct);
    ck_assert(ns_median_diff(b, 40, a, 40, &r, &ma, &mb, has));
    ck_assert_int_eq(r.verdict, NS_FASTER);
    ck_assert(ns_median_diff(a, 40, c, 40, &r, &ma, &mb, has));
    ck_assert_int_eq(r.verdict, NS_WITHIN_NOISE);
    ck_assert(r.ci_low_pct <= 0 && r.ci_high_pct >= 0);
    ck_assert(ns_median_diff(a, 4, b, 40, &r, &ma, &mb, has));
    ck_assert_int_eq(r.verdict, NS_UNKNOWN);
    ck_assert(has[0] && has[1]);
    ck_assert(ns_median_diff(a, 0, b, 40, &r, &ma, &mb, has));
    ck_assert(!has[0] && has[1]);
    ck_assert_int_eq(r.verdict, NS_UNKNOWN);
    /* an empty side given as NULL (a series run without per-step times): unknown, and no
     * memcpy from NULL (UBSan's nonnull check in the sanitizer build) */
    ck_assert(ns_median_diff(a, 40, NULL, 0, &r, &ma, &mb, has));
    ck_assert(has[0] && !has[1]);
    ck_assert_int_eq(r.verdict, NS_UNKNOWN);
    ck_assert(ns_median_diff(NULL, 0, b, 40, &r, &ma, &mb, has));
    ck_assert(!has[0] && has[1]);
    ck_assert_int_eq(r.verdict, NS_UNKNOWN);
}
END_TEST

int main(void) {
    Suite *s = suite_create("noise_stats");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, t_quantiles_match_the_tables);
    tcase_add_test(tc, welch_interval_by_hand);
    tcase_add_test(tc, medians);
    tcase_add_test(tc, bootstrap_verdicts);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
