/* Tests: the device, kernels, memory_copies, api, allocations and telemetry section
 * analyses, fed hand-built records through the section_analysis contract (open, per-source
 * states, fold, finish, render, number), without any format or the run driver. The
 * allocations cases and the review fixes are in check_sections_edges.c. */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/structures/name_agg.h"
#include "analyses/section_registry.h"

typedef struct recs {
    const record *r;
    size_t n;
} recs;

static diag_list g_diag;

/* Runs the analysis `key` over the sources (each a record array, folded in order) and
 * returns its finished run state; *an is the analysis. */
static void *drive(const char *key, const recs *src, size_t n_src, const section_analysis **an) {
    const section_analysis *a = section_analysis_named(key);
    ck_assert_msg(a != NULL, "no section %s", key);
    /* the sections keep a pointer to their settings (read again at render): it outlives the run */
    static const analysis_config cfg = {.kernel_wait_threshold_ns = 50000, .short_kernel_ns = 10000, .run_dir = "."};
    diag_init(&g_diag);
    void *run = a->open(&cfg, &g_diag);
    ck_assert_ptr_nonnull(run);
    for (size_t i = 0; i < n_src; i++) {
        source_ref ref = {.index = i, .path = "x", .format = "test", .rank = -1, .kernels_chosen = true};
        void *s = a->open_source(run, &ref);
        ck_assert_ptr_nonnull(s);
        for (size_t j = 0; j < src[i].n; j++)
            if (a->wants & REC_BIT(src[i].r[j].type)) ck_assert(a->consume(s, &src[i].r[j]));
        ck_assert(a->end_source(run, s));
    }
    section_results none = {0};
    ck_assert(a->finish(run, &none));
    *an = a;
    return run;
}

static char *render(const section_analysis *a, const void *run) {
    strbuf b = {0};
    jw_out w;
    jw_begin(&w, &b, 0);
    a->render(run, &w);
    strbuf_terminate(&b);
    return b.data;
}

/* The section rendered as JSON (and the state closed). */
static json_t *section_json(const char *key, const recs *src, size_t n_src, char **text) {
    const section_analysis *a;
    void *run = drive(key, src, n_src, &a);
    char *t = render(a, run);
    a->close(run);
    diag_free(&g_diag);
    json_error_t err;
    json_t *j = json_loads(t, JSON_DECODE_ANY, &err);
    ck_assert_msg(j != NULL, "%s: bad JSON %s", key, t);
    if (text) *text = t; else free(t);
    return j;
}

static double num(json_t *o, const char *k) {
    json_t *v = json_object_get(o, k);
    ck_assert_msg(json_is_number(v), "%s is not a number", k);
    return json_number_value(v);
}

static bool is_null(json_t *o, const char *k) { return json_is_null(json_object_get(o, k)); }

static record kd(const char *name, int64_t dur) {
    return (record){.type = REC_KERNEL_DISPATCH, .has = RF_DURATION, .duration_ns = dur, .name = name,
                    .name_len = strlen(name)};
}

START_TEST(every_section_null_without_inputs) {
    static const char *const KEYS[] = {"device", "kernels", "memory_copies", "api", "allocations", "telemetry"};
    record other = {.type = REC_ANNOTATION, .name = "x", .name_len = 1};
    recs src = {&other, 1};
    for (size_t i = 0; i < 6; i++) {
        char *t;
        json_t *j = section_json(KEYS[i], &src, 1, &t);
        ck_assert_msg(json_is_null(j), "%s: %s", KEYS[i], t);
        free(t);
        json_decref(j);
        const section_analysis *a;
        void *run = drive(KEYS[i], NULL, 0, &a);
        double v;
        ck_assert(!a->number || !a->number(run, "total_ns", &v));
        a->close(run);
        diag_free(&g_diag);
    }
}
END_TEST

START_TEST(kernels_columns) {
    record r[] = {kd("b", 100), kd("a", 300), kd("a", 100), kd("a", 200), kd("c", 400), kd("b", 300)};
    /* end - start when the file gives no duration */
    r[5] = (record){.type = REC_KERNEL_DISPATCH, .has = RF_START | RF_END, .start_ns = 1000, .end_ns = 1300,
                    .name = "b", .name_len = 1};
    recs src = {r, 6};
    json_t *j = section_json("kernels", &src, 1, NULL);
    ck_assert_int_eq((int)num(j, "total_calls"), 6);
    ck_assert_int_eq((int)num(j, "total_ns"), 1400);
    json_t *by = json_object_get(j, "by_name");
    ck_assert_uint_eq(json_array_size(by), 3);
    /* sorted by total desc, ties by name: a (600), b (400), c (400) */
    json_t *a = json_array_get(by, 0), *b = json_array_get(by, 1), *c = json_array_get(by, 2);
    ck_assert_str_eq(json_string_value(json_object_get(a, "name")), "a");
    ck_assert_str_eq(json_string_value(json_object_get(b, "name")), "b");
    ck_assert_str_eq(json_string_value(json_object_get(c, "name")), "c");
    ck_assert(num(a, "calls") == 3 && num(a, "total_ns") == 600 && num(a, "avg_ns") == 200);
    ck_assert(num(a, "min_ns") == 100 && num(a, "max_ns") == 300);
    ck_assert_double_eq_tol(num(a, "stddev_ns"), 100.0, 1e-9);   /* sample stddev of 100,200,300 */
    ck_assert(num(a, "median_ns") == 200 && json_is_true(json_object_get(a, "median_exact")));
    ck_assert_double_eq_tol(num(a, "pct"), 600.0 / 14, 1e-9);
    ck_assert(num(b, "median_ns") == 200);                       /* even count: mean of the middle two */
    ck_assert_msg(is_null(c, "stddev_ns"), "one call: stddev null");
    ck_assert(num(c, "median_ns") == 400);
    ck_assert_str_eq(json_string_value(json_object_get(j, "from")), "dispatches");
    json_decref(j);
}
END_TEST

static uint64_t rng = 88172645463325252ULL;
static uint64_t next_rand(void) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

START_TEST(kernels_split_pieces_equal_one_pass) {
    enum { N = 20000 };
    static record r[N];
    static const char *const NAMES[] = {"gemm", "relu", "nccl_allreduce", "softmax", "tiny"};
    for (size_t i = 0; i < N; i++) {
        const char *n = NAMES[next_rand() % (i < 100 ? 5 : 4)];
        r[i] = kd(n, (int64_t)(next_rand() % 1000000) + 1);
    }
    recs one = {r, N};
    char *a, *b, *c;
    json_decref(section_json("kernels", &one, 1, &a));
    recs two[2] = {{r, 7777}, {r + 7777, N - 7777}};
    json_decref(section_json("kernels", two, 2, &b));
    ck_assert_str_eq(a, b);
    recs three[3] = {{r, 1}, {r + 1, 50}, {r + 51, N - 51}};
    json_decref(section_json("kernels", three, 3, &c));
    ck_assert_str_eq(a, c);
    free(a), free(b), free(c);
    /* past a bound of its name table a piece refuses the join (na_pair_split_exact) */
    ck_assert_ptr_nonnull(section_analysis_named("kernels")->split_exact);
    ck_assert_ptr_nonnull(section_analysis_named("api")->split_exact);
}
END_TEST

static int cmp_i64(const void *x, const void *y) {
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* The median of n durations, brute force. */
static double brute_median(const record *r, size_t n) {
    int64_t *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++) v[i] = (int64_t)r[i].duration_ns;
    qsort(v, n, sizeof *v, cmp_i64);
    double m = n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
    free(v);
    return m;
}

START_TEST(kernels_median_exact_then_bounded) {
    enum { N = 50001 };
    static record r[N];
    for (int trial = 0; trial < 4; trial++) {
        for (size_t i = 0; i < N; i++) {
            uint64_t x = next_rand();
            /* spread over six decades, some heavy tails */
            int64_t d = trial == 3 ? (int64_t)(x % 7) + 1 : (int64_t)pow(10.0, 1.0 + (double)(x % 1000000) / 200000.0);
            r[i] = kd("k", d);
        }
        size_t n = trial == 0 ? NA_EXACT_CAP : trial == 1 ? NA_EXACT_CAP + 1 : N;
        recs src = {r, n};
        json_t *j = section_json("kernels", &src, 1, NULL);
        json_t *row = json_array_get(json_object_get(j, "by_name"), 0);
        double want = brute_median(r, n), got = num(row, "median_ns");
        if (trial == 0) {
            ck_assert(json_is_true(json_object_get(row, "median_exact")));
            ck_assert(got == want);
        } else {
            ck_assert(json_is_false(json_object_get(row, "median_exact")));
            ck_assert_msg(fabs(got - want) <= 0.01 * want, "median %f vs %f", got, want);
        }
        json_decref(j);
    }
}
END_TEST

/* Past the table-wide budget of exact durations, further names fall back to the histogram:
 * every median still exact or within 1 % of a brute-force sort. */
START_TEST(kernels_median_global_budget) {
    enum { NAMES = 300, CALLS = 4000 };
    static int64_t dur[NAMES][CALLS];
    static record one[CALLS];
    char names[NAMES][16];
    const section_analysis *a = section_analysis_named("kernels");
    analysis_config cfg = {0};
    diag_init(&g_diag);
    void *run = a->open(&cfg, &g_diag);
    source_ref ref = {.path = "x", .format = "test", .rank = -1, .kernels_chosen = true};
    void *src = a->open_source(run, &ref);
    for (int c = 0; c < CALLS; c++)
        for (int n = 0; n < NAMES; n++) {
            snprintf(names[n], sizeof names[n], "k%03d", n);
            dur[n][c] = (int64_t)(next_rand() % 100000) + 1000 * n;
            record r = kd(names[n], dur[n][c]);
            ck_assert(a->consume(src, &r));
        }
    ck_assert(a->end_source(run, src));
    section_results none = {0};
    ck_assert(a->finish(run, &none));
    char *t = render(a, run);
    a->close(run);
    diag_free(&g_diag);
    json_t *j = json_loads(t, 0, NULL);
    json_t *by = json_object_get(j, "by_name");
    ck_assert_uint_eq(json_array_size(by), NAMES);
    int approx = 0;
    for (size_t i = 0; i < NAMES; i++) {
        json_t *row = json_array_get(by, i);
        int n = atoi(json_string_value(json_object_get(row, "name")) + 1);
        for (int c = 0; c < CALLS; c++) one[c] = kd("k", dur[n][c]);
        double want = brute_median(one, CALLS), got = num(row, "median_ns");
        if (json_is_true(json_object_get(row, "median_exact"))) ck_assert(got == want);
        else approx++, ck_assert_msg(fabs(got - want) <= 0.01 * want, "%f vs %f", got, want);
    }
    ck_assert_msg(approx > 0 && approx < NAMES, "%d approximate", approx);
    json_decref(j);
    free(t);
}
END_TEST

START_TEST(kernels_stats_rows_only_without_dispatches) {
    record st = {.type = REC_KERNEL_STATS, .has = RF_DURATION | RF_CALLS, .name = "gemm", .name_len = 4,
                 .category = "kernel", .category_len = 6, .calls = 10, .duration_ns = 5000, .min_ns = 100,
                 .max_ns = 900};
    recs only = {&st, 1};
    json_t *j = section_json("kernels", &only, 1, NULL);
    ck_assert_str_eq(json_string_value(json_object_get(j, "from")), "stats");
    json_t *row = json_array_get(json_object_get(j, "by_name"), 0);
    ck_assert(num(row, "calls") == 10 && num(row, "total_ns") == 5000 && num(row, "avg_ns") == 500);
    ck_assert(num(row, "min_ns") == 100 && num(row, "max_ns") == 900);
    ck_assert(is_null(row, "stddev_ns") && is_null(row, "median_ns"));
    json_decref(j);
    record both[] = {st, kd("relu", 7)};
    recs src = {both, 2};
    j = section_json("kernels", &src, 1, NULL);
    ck_assert(num(j, "total_ns") == 7 && num(j, "total_calls") == 1);
    json_decref(j);
}
END_TEST

static record copy(copy_kind k, uint64_t bytes, int64_t ns);

static record stats_row(const char *cat, const char *name, const record_field *f, size_t nf, int64_t total) {
    return (record){.type = REC_KERNEL_STATS, .has = RF_DURATION, .name = name, .name_len = strlen(name),
                    .category = cat, .category_len = strlen(cat), .duration_ns = total, .fields = f, .n_fields = nf};
}

START_TEST(stats_rows_legacy_and_nsys) {
    /* a legacy row: calls as a named field, no min/max; an nsys row: the file's median and stddev */
    record_field legacy[] = {{"calls", "4", 1}};
    record_field nsys[] = {{"median_ns", "250.5", 5}, {"stddev_ns", "12.25", 5}};
    record r[] = {stats_row("kernel", "old", legacy, 1, 1000), stats_row("kernel", "new", nsys, 2, 900),
                  stats_row("kernel", "twice", nsys, 2, 10), stats_row("kernel", "twice", nsys, 2, 10),
                  stats_row("api", "hipMalloc", legacy, 1, 40), stats_row("memory_copy", "MEMORY_COPY_HOST_TO_DEVICE", legacy, 1, 80),
                  stats_row("memory_copy", "[CUDA memcpy Device-to-Host]", legacy, 1, 8)};
    r[1].has |= RF_CALLS, r[1].calls = 3, r[1].min_ns = 100, r[1].max_ns = 500;
    r[2].has |= RF_CALLS, r[2].calls = 1, r[2].min_ns = r[2].max_ns = 10;
    r[3].has |= RF_CALLS, r[3].calls = 1, r[3].min_ns = r[3].max_ns = 10;
    recs src = {r, 7};
    json_t *j = section_json("kernels", &src, 1, NULL);
    ck_assert(num(j, "total_calls") == 9 && num(j, "total_ns") == 1920);
    json_t *by = json_object_get(j, "by_name");
    json_t *old = json_array_get(by, 0), *nw = json_array_get(by, 1), *tw = json_array_get(by, 2);
    ck_assert_str_eq(json_string_value(json_object_get(old, "name")), "old");
    ck_assert(num(old, "calls") == 4 && num(old, "avg_ns") == 250 && is_null(old, "min_ns") && is_null(old, "max_ns"));
    ck_assert(is_null(old, "median_ns") && is_null(old, "stddev_ns"));
    ck_assert(num(nw, "median_ns") == 250.5 && num(nw, "stddev_ns") == 12.25 && num(nw, "min_ns") == 100);
    ck_assert(num(tw, "calls") == 2 && is_null(tw, "median_ns") && is_null(tw, "stddev_ns"));  /* two rows: unknown */
    json_decref(j);
    j = section_json("api", &src, 1, NULL);
    json_t *row = json_array_get(json_object_get(j, "by_function"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(j, "from")), "stats");
    ck_assert_str_eq(json_string_value(json_object_get(row, "domain")), "hip");
    ck_assert(num(row, "calls") == 4 && num(row, "total_ns") == 40);
    json_decref(j);
    j = section_json("memory_copies", &src, 1, NULL);
    ck_assert_str_eq(json_string_value(json_object_get(j, "from")), "stats");
    json_t *h = json_object_get(json_object_get(j, "by_direction"), "HtoD"),
           *d = json_object_get(json_object_get(j, "by_direction"), "DtoH");
    ck_assert(num(h, "calls") == 4 && num(h, "time_ns") == 80 && is_null(h, "bytes") && is_null(h, "gbps"));
    ck_assert(num(d, "calls") == 4 && num(d, "time_ns") == 8);
    json_decref(j);
    /* a copy record present: the stats rows are not used */
    record both[] = {r[5], copy(COPY_DTOD, 10, 10)};
    recs src2 = {both, 2};
    j = section_json("memory_copies", &src2, 1, NULL);
    ck_assert_str_eq(json_string_value(json_object_get(j, "from")), "copies");
    ck_assert(json_object_get(json_object_get(j, "by_direction"), "HtoD") == NULL);
    json_decref(j);
}
END_TEST

START_TEST(kernels_numbers) {
    record r[] = {kd("x", 5), kd("y", 10)};
    recs src = {r, 2};
    const section_analysis *a;
    void *run = drive("kernels", &src, 1, &a);
    double v;
    ck_assert(a->number(run, "total_ns", &v) && v == 15);
    ck_assert(a->number(run, "total_calls", &v) && v == 2);
    ck_assert(a->number(run, "names", &v) && v == 2);
    ck_assert(!a->number(run, "nope", &v));
    a->close(run);
    diag_free(&g_diag);
}
END_TEST

static record copy(copy_kind k, uint64_t bytes, int64_t ns) {
    return (record){.type = REC_MEMORY_COPY, .has = RF_BYTES | RF_DURATION, .copy = k, .bytes = bytes,
                    .duration_ns = ns};
}

START_TEST(memory_copies_units) {
    record r[] = {copy(COPY_HTOD, 1000000000, 500000000), copy(COPY_HTOD, 1000000000, 500000000),
                  copy(COPY_DTOH, 4096, 0), copy(COPY_PTOP, 300, 100),
                  {.type = REC_MEMORY_COPY, .copy = COPY_DTOD}};
    recs two[2] = {{r, 3}, {r + 3, 2}};
    json_t *j = section_json("memory_copies", two, 2, NULL);
    json_t *by = json_object_get(j, "by_direction");
    json_t *h = json_object_get(by, "HtoD"), *d = json_object_get(by, "DtoH"), *p = json_object_get(by, "PtoP"),
           *dd = json_object_get(by, "DtoD");
    ck_assert(num(h, "calls") == 2 && num(h, "bytes") == 2e9 && num(h, "time_ns") == 1e9);
    ck_assert_double_eq_tol(num(h, "gbps"), 2.0, 1e-12);        /* 2e9 bytes in 1 s = 2 GB/s (decimal) */
    ck_assert(num(d, "bytes") == 4096 && num(d, "time_ns") == 0 && is_null(d, "gbps"));
    ck_assert_double_eq_tol(num(p, "gbps"), 3.0, 1e-12);
    ck_assert(num(dd, "calls") == 1 && is_null(dd, "bytes") && is_null(dd, "time_ns") && is_null(dd, "gbps"));
    ck_assert(json_object_get(by, "unknown") == NULL);
    json_t *t = json_object_get(j, "total");
    ck_assert(num(t, "calls") == 5 && num(t, "bytes") == 2e9 + 4096 + 300);
    json_decref(j);
    const section_analysis *a;
    void *run = drive("memory_copies", two, 2, &a);
    double v;
    ck_assert(a->number(run, "by_direction.HtoD.gbps", &v) && fabs(v - 2.0) < 1e-12);
    ck_assert(a->number(run, "total.bytes", &v) && v == 2e9 + 4396);
    ck_assert(!a->number(run, "by_direction.DtoH.gbps", &v));
    ck_assert(!a->number(run, "by_direction.HtoH.calls", &v));
    a->close(run);
    diag_free(&g_diag);
}
END_TEST

static record api(api_domain d, const char *name, int64_t ns) {
    return (record){.type = REC_API_CALL, .has = RF_DURATION, .domain = d, .name = name, .name_len = strlen(name),
                    .duration_ns = ns};
}

START_TEST(api_by_domain_and_function) {
    record r[] = {api(API_HIP, "hipMemcpy", 500), api(API_HIP, "hipLaunchKernel", 10), api(API_HIP, "hipMemcpy", 700),
                  api(API_HSA, "hipMemcpy", 1), api(API_HIP, "hipLaunchKernel", 31)};
    recs src = {r, 5};
    json_t *j = section_json("api", &src, 1, NULL);
    ck_assert(num(j, "total_calls") == 5 && num(j, "total_ns") == 1242);
    json_t *by = json_object_get(j, "by_function");
    ck_assert_uint_eq(json_array_size(by), 3);
    json_t *m = json_array_get(by, 0), *l = json_array_get(by, 1), *h = json_array_get(by, 2);
    ck_assert_str_eq(json_string_value(json_object_get(m, "name")), "hipMemcpy");
    ck_assert_str_eq(json_string_value(json_object_get(m, "domain")), "hip");
    ck_assert(num(m, "calls") == 2 && num(m, "avg_ns") == 600 && num(m, "min_ns") == 500 && num(m, "max_ns") == 700);
    ck_assert_str_eq(json_string_value(json_object_get(l, "name")), "hipLaunchKernel");
    ck_assert(num(l, "avg_ns") == 20.5);                              /* a float average, as --stats */
    ck_assert_str_eq(json_string_value(json_object_get(h, "domain")), "hsa");
    ck_assert(is_null(h, "stddev_ns"));
    json_decref(j);
}
END_TEST

static record sample(int64_t dev, bool has_dev, double vram_gib, double util, int64_t ts_ms) {
    record r = {.type = REC_TELEMETRY_SAMPLE, .has = RF_VRAM | RF_UTIL | RF_START | (has_dev ? RF_DEVICE : 0),
                .device = dev, .vram_gib = vram_gib, .util_pct = util, .start_ns = (i128)ts_ms * 1000000};
    return r;
}

START_TEST(telemetry_per_gpu_units) {
    record r[] = {sample(0, true, 1.0, 50, 0), sample(1, true, 2.0, 10, 0), sample(0, true, 3.0, 100, 100),
                  sample(0, true, 2.0, 30, 300), sample(0, true, 2.0, 30, 400)};
    r[1].has |= RF_POWER | RF_TEMP | RF_VRAM_TOTAL, r[1].power_w = 300.5, r[1].temp_c = 71, r[1].vram_total_bytes = 1ull << 36;
    r[2].has |= RF_VRAM_BYTES, r[2].vram_used_bytes = 123456789;     /* bytes win over GiB */
    recs src = {r, 5};
    json_t *j = section_json("telemetry", &src, 1, NULL);
    ck_assert(num(j, "samples") == 5 && num(j, "util_max_pct") == 100);
    ck_assert_double_eq_tol(num(j, "util_mean_pct"), 44.0, 1e-9);
    ck_assert(num(j, "vram_peak_bytes") == 2147483648.0 && num(j, "power_max_w") == 300.5 && num(j, "temp_max_c") == 71);
    json_t *g0 = json_array_get(json_object_get(j, "gpus"), 0), *g1 = json_array_get(json_object_get(j, "gpus"), 1);
    ck_assert(num(g0, "device") == 0 && num(g0, "samples") == 4);
    ck_assert(num(g0, "vram_peak_bytes") == 2147483648.0);
    ck_assert_double_eq_tol(num(g0, "vram_mean_bytes"), (1073741824.0 + 123456789 + 2 * 2147483648.0) / 4, 1e-3);
    ck_assert(num(g0, "cadence_ms") == 100);                  /* intervals 100, 200, 100 ms */
    ck_assert(is_null(g0, "power_max_w") && is_null(g0, "temp_max_c") && is_null(g0, "vram_total_bytes"));
    ck_assert(num(g1, "vram_total_bytes") == 68719476736.0 && is_null(g1, "cadence_ms"));
    ck_assert(num(g1, "power_mean_w") == 300.5);
    json_decref(j);
    const section_analysis *a;
    void *run = drive("telemetry", &src, 1, &a);
    double v;
    ck_assert(a->number(run, "vram_peak_bytes", &v) && v == 2147483648.0);
    ck_assert(!a->number(run, "nope", &v));
    a->close(run);
    diag_free(&g_diag);
}
END_TEST

static record meta(const char *key, const char *value, int64_t dev, bool has_dev) {
    return (record){.type = REC_METADATA, .has = has_dev ? RF_DEVICE : 0, .device = dev, .key = key, .value = value,
                    .value_len = strlen(value)};
}

START_TEST(device_facts) {
    record r[] = {meta("vendor", "AMD", 0, false), meta("rocm_version", "6.2.0", 0, false),
                  meta("device_name", "MI300X", 1, true), meta("memory_bytes", "206141652992", 1, true),
                  meta("compute_units", "304", 1, true), meta("wave_size", "64", 1, true),
                  meta("device_name", "MI250", 1, true), meta("memory_bytes", "lots", 2, true),
                  {.type = REC_TELEMETRY_SAMPLE, .has = RF_DEVICE | RF_VRAM_TOTAL, .device = 3,
                   .vram_total_bytes = 1ull << 34}};
    recs two[2] = {{r, 4}, {r + 4, 5}};
    char *t;
    json_t *j = section_json("device", two, 2, &t);
    ck_assert_str_eq(json_string_value(json_object_get(j, "vendor")), "AMD");
    ck_assert_str_eq(json_string_value(json_object_get(j, "name")), "MI300X");   /* first value wins */
    ck_assert(num(j, "memory_bytes") == 206141652992.0 && num(j, "compute_units") == 304 && num(j, "wave_size") == 64);
    ck_assert_str_eq(json_string_value(json_object_get(j, "rocm_version")), "6.2.0");
    ck_assert(is_null(j, "cuda_version"));
    ck_assert(num(j, "device_count") == 3);
    json_t *devs = json_object_get(j, "devices");
    ck_assert_uint_eq(json_array_size(devs), 3);     /* the run-wide vendor is no device of its own */
    ck_assert(json_is_false(json_object_get(j, "vendor_inferred")));
    ck_assert(num(json_array_get(devs, 0), "device") == 1);
    ck_assert(is_null(json_array_get(devs, 1), "memory_bytes"));                 /* "lots" is not a number */
    ck_assert(num(json_array_get(devs, 2), "memory_bytes") == 17179869184.0);    /* from telemetry */
    free(t);
    json_decref(j);
    const section_analysis *a;
    void *run = drive("device", two, 2, &a);
    double v;
    ck_assert(a->number(run, "memory_bytes", &v) && v == 206141652992.0);
    ck_assert(a->number(run, "wave_size", &v) && v == 64);
    a->close(run);
    diag_free(&g_diag);
}
END_TEST

/* The section's report.md part. */
static char *markdown(const char *key, const recs *src, size_t n_src) {
    const section_analysis *a;
    void *run = drive(key, src, n_src, &a);
    strbuf b = {0};
    ck_assert_ptr_nonnull(a->render_md);
    a->render_md(run, &b);
    strbuf_terminate(&b);
    a->close(run);
    diag_free(&g_diag);
    return b.data;
}

START_TEST(report_parts) {
    static const char *const KEYS[] = {"device", "kernels", "memory_copies", "api", "allocations", "telemetry"};
    for (size_t i = 0; i < 6; i++) {
        char *md = markdown(KEYS[i], NULL, 0);
        ck_assert_msg(!md || !*md, "%s: absent inputs, empty report part", KEYS[i]);
        free(md);
    }
    record r[] = {kd("a|b\nc", 1500), meta("device_name", "MI300X", 0, true), copy(COPY_HTOD, 2000000, 1000),
                  api(API_HIP, "hipMemcpy", 5),
                  (record){.type = REC_ALLOCATION, .has = RF_DEVICE | RF_START | RF_BYTES, .category = "alloc",
                           .category_len = 5, .bytes = 1048576, .start_ns = 1},
                  sample(0, true, 2.0, 50, 0)};
    recs src = {r, 6};
    for (size_t i = 0; i < 6; i++) {
        char *md = markdown(KEYS[i], &src, 1);
        ck_assert_msg(md && !strncmp(md, "## ", 3), "%s: %s", KEYS[i], md ? md : "(none)");
        ck_assert_msg(!strstr(md, "| 0.000 | 0.000 |") || i != 5, "telemetry: unknowns are dashes");
        if (i == 1) ck_assert_msg(strstr(md, "| a\\|b c |") && strstr(md, "| 1.500 |"), "%s", md);
        if (i == 2) ck_assert_msg(strstr(md, "| HtoD | 1 | 2.000 | 0.001 | 2000.00 |"), "%s", md);
        if (i == 5) ck_assert_msg(strstr(md, "| 0 | 1 | — | 50.0 | 50.0 | 2.00 | 2.00 | — | — | — |"), "%s", md);
        free(md);
    }
}
END_TEST

/* The other splittable sections: two pieces folded in order render what one pass renders. */
START_TEST(splittable_sections_fold_exactly) {
    enum { N = 3000 };
    static record r[N];
    static const char *const F[] = {"hipMemcpy", "hipLaunchKernel", "hsa_signal_wait", "cudaMalloc"};
    static const char *const K[] = {"vendor", "device_name", "memory_bytes", "rocm_version", "wave_size"};
    static char val[N][24];
    for (size_t i = 0; i < N; i++) {
        uint64_t x = next_rand();
        switch (i % 3) {
        case 0: r[i] = api((api_domain)(x % 4 + 1), F[x % 4], (int64_t)(x % 100000)); break;
        case 1: r[i] = copy((copy_kind)(x % 6), x % 1000000, (int64_t)(x % 5000)); if (x % 7 == 0) r[i].has = 0; break;
        default:
            snprintf(val[i], sizeof val[i], "%llu", (unsigned long long)(x % 1000));
            r[i] = meta(K[x % 5], val[i], (int64_t)(x % 3), x % 2);
        }
    }
    static const char *const KEYS[] = {"api", "memory_copies", "device"};
    for (size_t k = 0; k < 3; k++) {
        const section_analysis *a = section_analysis_named(KEYS[k]);
        ck_assert(a && a->splittable);
        recs one = {r, N}, two[2] = {{r, 1234}, {r + 1234, N - 1234}};
        char *x, *y;
        json_decref(section_json(KEYS[k], &one, 1, &x));
        json_decref(section_json(KEYS[k], two, 2, &y));
        ck_assert_msg(!strcmp(x, y), "%s: pieces differ", KEYS[k]);
        free(x), free(y);
    }
    ck_assert(!section_analysis_named("allocations")->splittable && !section_analysis_named("telemetry")->splittable);
}
END_TEST

static Suite *sections_suite(void) {
    Suite *s = suite_create("sections");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, every_section_null_without_inputs);
    tcase_add_test(t, kernels_columns);
    tcase_add_test(t, kernels_split_pieces_equal_one_pass);
    tcase_add_test(t, kernels_median_exact_then_bounded);
    tcase_add_test(t, kernels_median_global_budget);
    tcase_add_test(t, kernels_stats_rows_only_without_dispatches);
    tcase_add_test(t, kernels_numbers);
    tcase_add_test(t, stats_rows_legacy_and_nsys);
    tcase_add_test(t, memory_copies_units);
    tcase_add_test(t, api_by_domain_and_function);
    tcase_add_test(t, telemetry_per_gpu_units);
    tcase_add_test(t, device_facts);
    tcase_add_test(t, report_parts);
    tcase_add_test(t, splittable_sections_fold_exactly);
    suite_add_tcase(s, t);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(sections_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
