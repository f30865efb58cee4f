/* Tests: the allocations section (peak in time order, address matching, frees
 * without a device charged to their allocation's device), and the review fixes of the
 * section analyses: integer JSON for counts, a median inside [min, max] at the u64 edge,
 * the steps and ops warnings. Hand-built records through the section_analysis contract
 * (tests/section_drive.c), without any format or the run driver. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/section_drive.h"

typedef struct recs {
    const record *r;
    size_t n;
} recs;

/* The section `key` over the sources (each folded in order), rendered and parsed. */
static json_t *section_json(const char *key, const recs *src, size_t n_src) {
    drive d;
    drive_open(&d, key);
    for (size_t i = 0; i < n_src; i++) {
        drive_source(&d, i, -1, 0);
        for (size_t j = 0; j < src[i].n; j++) drive_record(&d, &src[i].r[j]);
        drive_end_source(&d);
    }
    json_t *j = drive_finish(&d);
    drive_close(&d);
    return j;
}

static double num(json_t *o, const char *k) {
    json_t *v = json_object_get(o, k);
    ck_assert_msg(json_is_number(v), "%s is not a number", k);
    return json_number_value(v);
}

/* An allocation event; addr 0 = none. */
static record alloc_ev(const char *cat, int64_t dev, uint64_t bytes, bool has_bytes, int64_t ts, uint64_t addr) {
    return (record){.type = REC_ALLOCATION,
                    .has = (dev >= 0 ? RF_DEVICE : 0) | RF_START | (has_bytes ? RF_BYTES : 0) | (addr ? RF_ADDRESS : 0),
                    .category = cat, .category_len = strlen(cat), .device = dev, .bytes = bytes, .start_ns = ts,
                    .address = addr};
}

START_TEST(allocations_peak_in_time_order) {
    /* file order is not time order: sorted, the running sum on device 0 is 100, 300, 100, 150 */
    record r[] = {alloc_ev("alloc", 0, 200, true, 20, 0x10), alloc_ev("alloc", 0, 100, true, 10, 0x20),
                  alloc_ev("free", 0, 0, false, 30, 0x10), alloc_ev("alloc", 0, 50, true, 40, 0),
                  alloc_ev("alloc", 1, 7, true, 5, 0)};
    recs src = {r, 5};
    json_t *j = section_json("allocations", &src, 1);
    ck_assert(num(j, "allocation_count") == 4 && num(j, "peak_bytes") == 300);
    ck_assert(json_is_true(json_object_get(j, "peak_exact")));
    json_t *d0 = json_array_get(json_object_get(j, "devices"), 0);
    ck_assert(num(d0, "device") == 0 && num(d0, "frees") == 1 && num(d0, "freed_bytes") == 200);
    ck_assert(num(d0, "allocated_bytes") == 350 && num(d0, "unmatched_frees") == 0);
    json_decref(j);
    /* a second file composes after the first: 150 + 200 */
    record more[] = {alloc_ev("alloc", 0, 200, true, 50, 0), alloc_ev("free", 0, 0, false, 60, 0x99)};
    recs two[2] = {{r, 5}, {more, 2}};
    j = section_json("allocations", two, 2);
    ck_assert_msg(num(j, "peak_bytes") == 350, "%f", num(j, "peak_bytes"));
    ck_assert(json_is_false(json_object_get(j, "peak_exact")));   /* an unmatched free */
    json_decref(j);
}
END_TEST

START_TEST(allocations_free_without_device_charged_to_its_allocation) {
    /* the review's repro: rocprofv3 writes frees with an empty Agent_Id and size 0; alloc 1 GiB
     * / free / alloc / free / alloc / free at one address on device 2 peaks at 1 GiB, not 3 */
    const uint64_t G = 1073741824, A = 0x7f0000000000;
    record r[] = {alloc_ev("alloc", 2, G, true, 100, A), alloc_ev("free", -1, 0, false, 200, A),
                  alloc_ev("alloc", 2, G, true, 300, A), alloc_ev("free", -1, 0, false, 400, A),
                  alloc_ev("alloc", 2, G, true, 500, A), alloc_ev("free", -1, 0, false, 600, A),
                  alloc_ev("free", -1, 0, false, 700, 0x1234)};   /* matches nothing: device unknown */
    recs src = {r, 7};
    json_t *j = section_json("allocations", &src, 1);
    ck_assert_msg(num(j, "peak_bytes") == (double)G, "%f", num(j, "peak_bytes"));
    json_t *devs = json_object_get(j, "devices");
    ck_assert_int_eq(json_array_size(devs), 2);
    json_t *d2 = json_array_get(devs, 1), *dn = json_array_get(devs, 0);   /* null sorts first (INT64_MIN) */
    ck_assert(json_is_null(json_object_get(dn, "device")) && num(dn, "frees") == 1 && num(dn, "unmatched_frees") == 1);
    ck_assert(num(d2, "device") == 2 && num(d2, "allocations") == 3 && num(d2, "frees") == 3);
    ck_assert(num(d2, "freed_bytes") == 3.0 * G && num(d2, "peak_bytes") == (double)G);
    ck_assert(json_is_false(json_object_get(j, "peak_exact")));
    json_decref(j);
}
END_TEST

START_TEST(allocations_churn_stays_matched) {
    /* endless alloc/free churn at recycled addresses: every free matched, probes stay short */
    enum { N = 300000 };
    static record r[2 * N];
    for (size_t i = 0; i < N; i++) {
        uint64_t a = 0x1000 * (i % 64 + 1);
        r[2 * i] = (record){.type = REC_ALLOCATION, .has = RF_BYTES | RF_START | RF_ADDRESS, .category = "alloc",
                            .category_len = 5, .bytes = 1000, .start_ns = (i128)(2 * i), .address = a};
        r[2 * i + 1] = (record){.type = REC_ALLOCATION, .has = RF_START | RF_ADDRESS, .category = "free",
                                .category_len = 4, .start_ns = (i128)(2 * i + 1), .address = a};
    }
    recs src = {r, 2 * N};
    json_t *j = section_json("allocations", &src, 1);
    json_t *d = json_array_get(json_object_get(j, "devices"), 0);
    ck_assert(num(j, "peak_bytes") == 1000 && json_is_true(json_object_get(j, "peak_exact")));
    ck_assert(num(d, "unmatched_frees") == 0 && num(d, "freed_bytes") == 1000.0 * N);
    json_decref(j);
}
END_TEST

START_TEST(memory_copies_stats_rows_every_spelling) {
    /* the stats fallback reads the direction with copy_kind_of_name: "HostToDevice" (legacy
     * rocprof) used to land in unknown */
    record_field calls[] = {{"calls", "2", 1}};
    static const char *const NAMES[] = {"CopyHostToDevice", "hipMemcpyDtoH", "[CUDA memcpy Peer-to-Peer]",
                                        "MEMORY_COPY_DEVICE_TO_DEVICE", "Host-to-Host"};
    static const char *const KEYS[] = {"HtoD", "DtoH", "PtoP", "DtoD", "HtoH"};
    record r[5];
    for (size_t i = 0; i < 5; i++)
        r[i] = (record){.type = REC_KERNEL_STATS, .has = RF_DURATION, .name = NAMES[i], .name_len = strlen(NAMES[i]),
                        .category = "memory_copy", .category_len = 11, .duration_ns = 100, .fields = calls,
                        .n_fields = 1};
    recs src = {r, 5};
    json_t *j = section_json("memory_copies", &src, 1);
    json_t *by = json_object_get(j, "by_direction");
    for (size_t i = 0; i < 5; i++) ck_assert_msg(json_object_get(by, KEYS[i]) != NULL, "%s", NAMES[i]);
    ck_assert(json_object_get(by, "unknown") == NULL);
    json_decref(j);
}
END_TEST

/* A duration of 2^64 - 1 ns (beyond int64, kept clamped for the median): the median stays
 * inside [min, max], here all three the same. */
START_TEST(kernels_median_inside_min_max_at_the_u64_edge) {
    i128 huge = (i128)UINT64_MAX;
    record r[3];
    for (int i = 0; i < 3; i++)
        r[i] = (record){.type = REC_KERNEL_DISPATCH, .has = RF_DURATION, .duration_ns = i == 2 ? 5 : huge,
                        .name = "k", .name_len = 1};
    for (size_t n = 1; n <= 3; n += 2) {   /* one huge call; two huge and one of 5 ns */
        recs src = {r, n};
        json_t *j = section_json("kernels", &src, 1);
        json_t *k = json_array_get(json_object_get(j, "by_name"), 0);
        double med = num(k, "median_ns"), lo = num(k, "min_ns"), hi = num(k, "max_ns");
        ck_assert_msg(med >= lo && med <= hi, "median %g outside [%g, %g]", med, lo, hi);
        ck_assert_msg(med == (double)huge, "median %g", med);
        ck_assert(json_is_true(json_object_get(k, "median_exact")));   /* every huge call alike: exact */
        json_decref(j);
    }
}
END_TEST

/* A warning about a trace without a rank says "unknown rank", never "rank -1". */
START_TEST(steps_warning_names_unknown_rank) {
    drive d;
    drive_open(&d, "steps");
    drive_source(&d, 0, -1, 0);
    record st = rec_span(REC_ANNOTATION, "ProfilerStep#1", 1000, 2000);
    record k = rec_span(REC_KERNEL_DISPATCH, "k", 5000000, 5000100);
    drive_record(&d, &st);
    drive_record(&d, &k);
    drive_end_source(&d);
    json_t *j = drive_finish(&d);
    ck_assert_int_eq(d.diag.count, 1);
    ck_assert_msg(strstr(d.diag.items[0], "steps: unknown rank:") && !strstr(d.diag.items[0], "-1"), "%s",
                  d.diag.items[0]);
    json_decref(j);
    drive_close(&d);
}
END_TEST

/* Kernels waiting for an operator before the file's first operator are bounded at 2^16, and
 * the warning says so (it used to name 2^18, the bound once an operator has been seen). */
START_TEST(ops_warning_names_the_limit_hit) {
    enum { N = (1 << 16) + 10 };
    drive d;
    drive_open(&d, "ops");
    drive_source(&d, 0, -1, 0);
    for (uint64_t i = 0; i < N; i++) {
        record k = rec_span(REC_KERNEL_DISPATCH, "k", (int64_t)(10 * i), (int64_t)(10 * i + 5));
        k.has |= RF_EXTERNAL, k.external_id = 1000000 + i;   /* no operator ever has these ids */
        drive_record(&d, &k);
    }
    record o = rec_span(REC_CPU_OP, "aten::mm", 0, 100);
    o.has |= RF_EXTERNAL | RF_PID_TID, o.external_id = 1, o.pid = 1, o.tid = 7;
    o.category = "cpu_op", o.category_len = 6;
    drive_record(&d, &o);
    drive_end_source(&d);
    json_t *j = drive_finish(&d);
    bool found = false;
    for (size_t i = 0; i < d.diag.count; i++) {
        ck_assert_msg(!strstr(d.diag.items[i], "262144"), "%s", d.diag.items[i]);
        if (strstr(d.diag.items[i], "more than 65536 kernels waited") && strstr(d.diag.items[i], "; 10 are counted"))
            found = true;
    }
    ck_assert_msg(found, "%zu warnings, first: %s", d.diag.count, d.diag.count ? d.diag.items[0] : "-");
    json_decref(j);
    drive_close(&d);
}
END_TEST

static Suite *sections_edges_suite(void) {
    Suite *s = suite_create("sections_edges");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, allocations_peak_in_time_order);
    tcase_add_test(t, allocations_free_without_device_charged_to_its_allocation);
    tcase_add_test(t, allocations_churn_stays_matched);
    tcase_add_test(t, memory_copies_stats_rows_every_spelling);
    tcase_add_test(t, kernels_median_inside_min_max_at_the_u64_edge);
    tcase_add_test(t, steps_warning_names_unknown_rank);
    tcase_add_test(t, ops_warning_names_the_limit_hit);
    suite_add_tcase(s, t);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(sections_edges_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
