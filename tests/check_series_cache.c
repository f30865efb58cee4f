/* check_series_cache: the series verdict cache (api/series_cache.c) and its use by the series
 * verdicts (api/series.c).
 *  - a run's digest is SHA-256 of its per-step times' bytes (values from Python's hashlib);
 *  - a verdict's key changes with the candidate, with any reference run and with their order;
 *  - get/put against a model LRU on random operations (hits, misses, evictions, the bound);
 *  - threads sharing one cache never read a verdict stored under another key;
 *  - series_evaluate with a cache gives bit for bit the verdicts computed without one, on a first
 *    request (misses), a second (hits), after a baseline run's times change (a re-ingest) and
 *    after a baseline run is removed (a DELETE): the changed verdicts are computed again. */
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/series.h"
#include "api/series_cache.h"

static void hex(const uint8_t *d, char out[2 * SERIES_CACHE_DIGEST + 1]) {
    for (int i = 0; i < SERIES_CACHE_DIGEST; i++) snprintf(out + 2 * i, 3, "%02x", d[i]);
}

START_TEST(digest_is_sha256_of_the_times) {
    /* python3: hashlib.sha256(struct.pack('<3d', 1.0, 2.5, 3e7)).hexdigest(); of b'' */
    const double w[] = {1.0, 2.5, 3e7};
    uint8_t d[SERIES_CACHE_DIGEST];
    char h[2 * SERIES_CACHE_DIGEST + 1];
    ck_assert(series_cache_walls_digest(w, 3, d));
    hex(d, h);
    ck_assert_str_eq(h, "9f22d1a11b58258a3ffb2b6ca450d3cf72aad131233aef7c481fa5f25f8eff18");
    ck_assert(series_cache_walls_digest(NULL, 0, d));
    hex(d, h);
    ck_assert_str_eq(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}
END_TEST

START_TEST(key_depends_on_every_input_and_its_order) {
    uint8_t a[SERIES_CACHE_DIGEST] = {1}, b[SERIES_CACHE_DIGEST] = {2}, c[SERIES_CACHE_DIGEST] = {3};
    const uint8_t *ab[] = {a, b}, *ba[] = {b, a}, *ac[] = {a, c}, *abc[] = {a, b, c};
    series_cache_key k1, k2;
    ck_assert(series_cache_key_of(c, ab, 2, &k1));
    ck_assert(series_cache_key_of(c, ab, 2, &k2));
    ck_assert_mem_eq(k1.b, k2.b, sizeof k1.b);                       /* the same inputs */
    ck_assert(series_cache_key_of(c, ba, 2, &k2));
    ck_assert(memcmp(k1.b, k2.b, sizeof k1.b));                     /* another order */
    ck_assert(series_cache_key_of(c, ac, 2, &k2));
    ck_assert(memcmp(k1.b, k2.b, sizeof k1.b));                     /* another reference run */
    ck_assert(series_cache_key_of(c, abc, 3, &k2));
    ck_assert(memcmp(k1.b, k2.b, sizeof k1.b));                     /* one more */
    ck_assert(series_cache_key_of(a, ab, 1, &k2));
    ck_assert(series_cache_key_of(b, ab, 1, &k1));
    ck_assert(memcmp(k1.b, k2.b, sizeof k1.b));                     /* another candidate */
}
END_TEST

static series_cache_key key_n(unsigned n) {
    series_cache_key k;
    uint8_t d[SERIES_CACHE_DIGEST] = {0};
    memcpy(d, &n, sizeof n);
    const uint8_t *refs[] = {d};
    ck_assert(series_cache_key_of(d, refs, 1, &k));
    return k;
}

static series_verdict verdict_n(unsigned n) {
    series_verdict v = {.present = true, .base_median_ns = n, .cand_median_ns = 2.0 * n, .has_median = {true, true}};
    v.test.verdict = (ns_verdict)(n % 4), v.test.delta_pct = n / 7.0, v.test.has_ci = true;
    return v;
}

START_TEST(lru_against_a_model) {
    enum { CAP = 16, KEYS = 48, OPS = 20000 };
    series_cache *c = series_cache_new(CAP);
    ck_assert_ptr_nonnull(c);
    long used[KEYS];                               /* the model: last use, -1 when not held */
    for (int i = 0; i < KEYS; i++) used[i] = -1;
    uint64_t hits = 0, misses = 0, evictions = 0;
    srand(7);
    for (long t = 0; t < OPS; t++) {
        unsigned k = (unsigned)rand() % KEYS;
        series_cache_key key = key_n(k);
        if (rand() % 2) {
            series_verdict v;
            bool hit = series_cache_get(c, &key, &v);
            ck_assert_int_eq(hit, used[k] >= 0);
            if (hit) {
                series_verdict want = verdict_n(k);
                ck_assert_mem_eq(&v, &want, sizeof v);
                used[k] = t, hits++;
            } else {
                misses++;
            }
        } else {
            series_verdict v = verdict_n(k);
            series_cache_put(c, &key, &v);
            if (used[k] < 0) {
                int held = 0, oldest = -1;
                for (int i = 0; i < KEYS; i++)
                    if (used[i] >= 0 && (held++, oldest < 0 || used[i] < used[oldest])) oldest = i;
                if (held == CAP) used[oldest] = -1, evictions++;
            }
            used[k] = t;
        }
    }
    series_cache_stats st;
    series_cache_stats_get(c, &st);
    ck_assert_uint_eq(st.hits, hits);
    ck_assert_uint_eq(st.misses, misses);
    ck_assert_uint_eq(st.evictions, evictions);
    ck_assert_uint_eq(st.entries, CAP);
    ck_assert_uint_eq(st.capacity, CAP);
    ck_assert(evictions > 0 && hits > 0 && misses > 0);
    ck_assert(st.bytes > CAP * sizeof(series_verdict) && st.bytes < 4096 + CAP * 256);
    series_cache_free(c);
}
END_TEST

static void *hammer(void *arg) {
    series_cache *c = arg;
    unsigned seed = (unsigned)(uintptr_t)pthread_self();
    for (int i = 0; i < 20000; i++) {
        unsigned k = (unsigned)rand_r(&seed) % 200;
        series_cache_key key = key_n(k);
        series_verdict v;
        if (series_cache_get(c, &key, &v)) {
            series_verdict want = verdict_n(k);
            if (memcmp(&v, &want, sizeof v)) return (void *)1;
        } else {
            v = verdict_n(k);
            series_cache_put(c, &key, &v);
        }
    }
    return NULL;
}

START_TEST(threads_share_one_cache) {
    series_cache *c = series_cache_new(64);
    pthread_t t[4];
    for (int i = 0; i < 4; i++) ck_assert_int_eq(pthread_create(&t[i], NULL, hammer, c), 0);
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(t[i], &r);
        ck_assert_ptr_null(r);
    }
    series_cache_stats st;
    series_cache_stats_get(c, &st);
    ck_assert_uint_eq(st.hits + st.misses, 4 * 20000);
    ck_assert_uint_eq(st.entries, 64);
    series_cache_free(c);
}
END_TEST

/* A series of n complete runs of 30 steps, each around 100 + run-dependent shift. */
static void make_series(series_eval *s, size_t n, series_cache *cache, unsigned seed) {
    memset(s, 0, sizeof *s);
    snprintf(s->key, sizeof s->key, "k");
    snprintf(s->key_source, sizeof s->key_source, "label");
    s->baseline_runs = 5;
    s->cache = cache;
    s->p = calloc(n, sizeof *s->p);
    s->n = s->cap = n;
    for (size_t i = 0; i < n; i++) {
        series_point *p = &s->p[i];
        char id[32];
        snprintf(id, sizeof id, "r%zu", i);
        p->id = strdup(id);
        p->status = RUN_COMPLETE;
        p->nwalls = 30;
        p->walls = malloc(p->nwalls * sizeof *p->walls);
        for (size_t j = 0; j < p->nwalls; j++)
            p->walls[j] = 1e8 + (i == n - 1 ? 3e6 : 0) + (double)(rand_r(&seed) % 1000000);
        p->has_digest = cache && series_cache_walls_digest(p->walls, p->nwalls, p->digest);
        p->prev = -1;
    }
}

/* Evaluates every run of a and b (the same times; a with a cache, b without) and compares. */
static void same_verdicts(series_eval *a, series_eval *b) {
    ck_assert_uint_eq(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        ck_assert(series_evaluate(a, i));
        ck_assert(series_evaluate(b, i));
        ck_assert_int_eq(a->p[i].prev, b->p[i].prev);
        ck_assert_uint_eq(a->p[i].nbase, b->p[i].nbase);
        ck_assert_mem_eq(&a->p[i].vs_prev, &b->p[i].vs_prev, sizeof a->p[i].vs_prev);
        ck_assert_mem_eq(&a->p[i].vs_base, &b->p[i].vs_base, sizeof a->p[i].vs_base);
    }
}

static void stats(series_cache *c, uint64_t *hits, uint64_t *misses) {
    series_cache_stats st;
    series_cache_stats_get(c, &st);
    *hits = st.hits, *misses = st.misses;
}

/* Changes run i's times in both series (as a re-ingest would) and its digest in a. */
static void reingest(series_eval *a, series_eval *b, size_t i) {
    for (size_t j = 0; j < a->p[i].nwalls; j++) a->p[i].walls[j] = b->p[i].walls[j] = b->p[i].walls[j] * 1.5 + 1.0;
    ck_assert(series_cache_walls_digest(a->p[i].walls, a->p[i].nwalls, a->p[i].digest));
}

/* Removes run i from both series (a DELETE). */
static void remove_run(series_eval *s, size_t i) {
    free(s->p[i].id), free(s->p[i].walls);
    memmove(&s->p[i], &s->p[i + 1], (s->n - i - 1) * sizeof *s->p);
    s->n--;
}

START_TEST(cached_verdicts_equal_computed_ones) {
    enum { N = 12 };
    series_cache *c = series_cache_new(1024);
    series_eval a, b;
    make_series(&a, N, c, 11);
    make_series(&b, N, NULL, 11);
    uint64_t h, m;
    /* a first request: every verdict computed (the first run has no reference), but run 1's
     * baseline is run 0 alone, its previous run: the same inputs, so one hit */
    same_verdicts(&a, &b);
    stats(c, &h, &m);
    ck_assert_uint_eq(h, 1);
    ck_assert_uint_eq(m, 2 * (N - 1) - 1);
    ck_assert_int_eq(a.p[N - 1].vs_base.test.verdict, NS_SLOWER);
    same_verdicts(&a, &b);                       /* again: every verdict from the cache */
    uint64_t h1, m1;
    stats(c, &h1, &m1);
    ck_assert_uint_eq(h1 - h, 2 * (N - 1));
    ck_assert_uint_eq(m1, m);
    h = h1;

    /* run 8 parsed again with other times: its own verdicts, the next run's vs_previous and
     * the baselines of runs 9..11 (5 runs back) are computed again, the others hit */
    reingest(&a, &b, 8);
    same_verdicts(&a, &b);
    uint64_t h2, m2;
    stats(c, &h2, &m2);
    ck_assert_uint_eq(m2 - m, 2 + 1 + 3);
    ck_assert_uint_eq(h2 - h, 2 * (N - 1) - 6);

    /* run 6 deleted: it was in the baselines of runs 7..11 and run 7's previous run; those
     * verdicts have new inputs now and are computed again, the others hit */
    remove_run(&a, 6), remove_run(&b, 6);
    stats(c, &h, &m);
    same_verdicts(&a, &b);
    stats(c, &h2, &m2);
    ck_assert_uint_eq(m2 - m, 1 + 5);            /* run 7's vs_previous; the baselines of runs 7..11 */
    ck_assert_uint_eq(h2 - h, 2 * (N - 2) - 6);
    ck_assert_int_eq(a.p[a.n - 1].vs_base.test.verdict, NS_SLOWER);
    series_eval_free(&a);
    series_eval_free(&b);
    series_cache_free(c);
}
END_TEST

int main(void) {
    Suite *s = suite_create("series_cache");
    TCase *tc = tcase_create("cache");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, digest_is_sha256_of_the_times);
    tcase_add_test(tc, key_depends_on_every_input_and_its_order);
    tcase_add_test(tc, lru_against_a_model);
    tcase_add_test(tc, threads_share_one_cache);
    tcase_add_test(tc, cached_verdicts_equal_computed_ones);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
