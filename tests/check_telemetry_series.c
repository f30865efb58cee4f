/* check_telemetry_series: analyses/sections/telemetry_series against a brute-force bucketing, on random
 * sample sets (negative and huge times included) added in random order, and split into two
 * series merged afterwards: the same width, buckets, counts and maxima; sums equal within
 * float rounding. tests/telemetry_oracle.py does the same end to end on real files. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/sections/telemetry_series.h"

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(uint64_t n) {
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return n ? rng_state % n : 0;
}

typedef struct sample {
    int64_t t;
    double v[TS_QUANTITIES];
    bool has[TS_QUANTITIES];
} sample;

static int64_t floor_div_pow2(int64_t t, int k) {
    int64_t w = (int64_t)1 << k, q = t / w;
    return (t % w != 0 && t < 0) ? q - 1 : q;
}

/* Compares s with the brute force over samples[0..n). */
static void check_against_brute(const telemetry_series *s, const sample *x, size_t n) {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        if (x[i].t < lo) lo = x[i].t;
        if (x[i].t > hi) hi = x[i].t;
    }
    int k = 0;
    while (floor_div_pow2(hi, k) - floor_div_pow2(lo, k) + 1 > TS_MAX_POINTS) k++;
    ck_assert_int_eq(s->shift, k);
    ck_assert(s->any);
    static ts_bucket want[TS_MAX_POINTS];
    memset(want, 0, sizeof want);
    int64_t base = floor_div_pow2(lo, k);
    for (size_t i = 0; i < n; i++) {
        ts_bucket *b = &want[floor_div_pow2(x[i].t, k) - base];
        b->samples++;
        for (int q = 0; q < TS_QUANTITIES; q++) {
            if (!x[i].has[q]) continue;
            if (!b->q[q].n || x[i].v[q] > b->q[q].max) b->q[q].max = x[i].v[q];
            b->q[q].n++;
            b->q[q].sum += x[i].v[q];
        }
    }
    for (int64_t j = 0; j < TS_MAX_POINTS; j++) {
        int64_t at = base + j - s->base;
        const ts_bucket *got = at >= 0 && at < TS_MAX_POINTS ? &s->b[at] : NULL;
        ck_assert_uint_eq(got ? got->samples : 0, want[j].samples);
        for (int q = 0; got && q < TS_QUANTITIES; q++) {
            ck_assert_uint_eq(got->q[q].n, want[j].q[q].n);
            if (!want[j].q[q].n) continue;
            ck_assert(got->q[q].max == want[j].q[q].max);
            ck_assert(fabs(got->q[q].sum - want[j].q[q].sum) <= 1e-9 * fabs(want[j].q[q].sum) + 1e-9);
        }
    }
}

START_TEST(series_matches_brute_force) {
    enum { N = 3000 };
    static sample x[N];
    for (int round = 0; round < 60; round++) {
        int64_t origin = (int64_t)rnd(2000000) - 1000000;
        int64_t scale = (int64_t)1 << rnd(56);            /* from 1 ns to ~2 years apart */
        if (round % 10 == 9) origin = -((int64_t)1 << 61), scale = (int64_t)1 << 53;   /* near the limits */
        size_t n = 1 + rnd(N);
        for (size_t i = 0; i < n; i++) {
            x[i].t = origin + (int64_t)rnd(1000) * (scale / 16 + 1) - (int64_t)rnd(3) * scale;
            for (int q = 0; q < TS_QUANTITIES; q++) {
                x[i].has[q] = rnd(10) != 0;
                x[i].v[q] = (double)rnd(100000) / 7.0;
            }
        }
        telemetry_series one = {0}, a = {0}, b = {0};
        size_t cut = rnd(n + 1);
        for (size_t i = 0; i < n; i++) {
            ck_assert(ts_add(&one, x[i].t, x[i].v, x[i].has));
            ck_assert(ts_add(i < cut ? &a : &b, x[i].t, x[i].v, x[i].has));
        }
        check_against_brute(&one, x, n);
        ck_assert(ts_merge(&a, &b));
        check_against_brute(&a, x, n);
        ts_free(&one);
        ts_free(&a);
        ts_free(&b);
    }
}
END_TEST

/* Times past +-2^62 ns are left out; NaN values are not counted. */
START_TEST(series_ignores_hostile_values) {
    telemetry_series s = {0};
    const double v[TS_QUANTITIES] = {NAN, 1.0, INFINITY};
    const bool has[TS_QUANTITIES] = {true, true, true};
    ck_assert(ts_add(&s, INT64_MAX, v, has));
    ck_assert(ts_add(&s, INT64_MIN, v, has));
    ck_assert(!s.any);
    ck_assert(ts_add(&s, 5, v, has));
    ck_assert_uint_eq(s.b[5 - s.base].q[TS_UTIL].n, 0);
    ck_assert_uint_eq(s.b[5 - s.base].q[TS_VRAM].n, 1);
    ck_assert_uint_eq(s.b[5 - s.base].q[TS_POWER].n, 0);
    ts_free(&s);
}
END_TEST

int main(void) {
    Suite *s = suite_create("telemetry_series");
    TCase *tc = tcase_create("series");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, series_matches_brute_force);
    tcase_add_test(tc, series_ignores_hostile_values);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
