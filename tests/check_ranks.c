/* Tests of the ranks section (analyses/sections/ranks.c): collectives matched by occurrence across
 * ranks, start skew, slowest/fastest/straggler ranks, per-rank totals, null for one rank. */
#include <check.h>
#include <string.h>

#include "tests/section_drive.h"

static int64_t geti(json_t *o, const char *k) { return json_integer_value(json_object_get(o, k)); }

static void coll(drive *d, const char *name, int64_t start, int64_t dur) {
    record r = rec_span(REC_KERNEL_DISPATCH, name, start, start + dur);
    drive_record(d, &r);
}

static json_t *named(json_t *list, const char *name) {
    for (size_t i = 0; i < json_array_size(list); i++)
        if (!strcmp(json_string_value(json_object_get(json_array_get(list, i), "name")), name)) return json_array_get(list, i);
    return NULL;
}

START_TEST(cross_rank_skew) {
    const char *ar = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", *ag = "ncclKernel_AllGather_RING_LL";
    drive d;
    drive_open(&d, "ranks");
    drive_source(&d, 0, 0, 0);
    coll(&d, ar, 1000, 10);  /* file order is not time order */
    coll(&d, ar, 100, 50);
    coll(&d, ag, 2000, 10);
    coll(&d, "Cijk_gemm", 0, 5000);
    drive_end_source(&d);
    drive_source(&d, 1, -1, 0);
    record m = rec_meta("rank", "1");
    drive_record(&d, &m);
    coll(&d, ar, 130, 20);
    drive_end_source(&d);
    drive_source(&d, 1, -1, 1);  /* the second piece of rank 1's file */
    coll(&d, ar, 1020, 30);
    coll(&d, ag, 2005, 20);
    drive_end_source(&d);
    drive_source(&d, 2, 2, 0);
    coll(&d, ar, 110, 40);
    coll(&d, ar, 1050, 5);
    drive_end_source(&d);
    json_t *j = drive_finish(&d);
    ck_assert(json_is_object(j));
    json_t *a = named(json_object_get(j, "collectives"), ar);
    ck_assert_ptr_nonnull(a);
    ck_assert_int_eq(geti(a, "ranks"), 3);
    ck_assert_int_eq(geti(a, "occurrences"), 2);
    ck_assert_int_eq(geti(a, "max_skew_ns"), 50);
    ck_assert_int_eq(geti(a, "mean_skew_ns"), 40);
    ck_assert_int_eq(geti(a, "slowest_rank"), 0);
    ck_assert_int_eq(geti(a, "fastest_rank"), 1);
    ck_assert_int_eq(geti(a, "straggler_rank"), 1);
    ck_assert(!json_is_true(json_object_get(a, "uneven_counts")));
    json_t *g = named(json_object_get(j, "collectives"), ag);
    ck_assert_int_eq(geti(g, "ranks"), 2);
    ck_assert_int_eq(geti(g, "max_skew_ns"), 5);
    ck_assert_int_eq(geti(g, "slowest_rank"), 1);
    ck_assert_int_eq(geti(j, "straggler_rank"), 1);
    json_t *per = json_object_get(j, "per_rank");
    ck_assert_int_eq(json_array_size(per), 3);
    ck_assert_int_eq(geti(json_array_get(per, 0), "rank"), 0);
    ck_assert_int_eq(geti(json_array_get(per, 0), "collectives"), 3);
    ck_assert_int_eq(geti(json_array_get(per, 0), "collective_time_ns"), 70);
    ck_assert_int_eq(geti(json_array_get(per, 2), "collectives"), 2);
    double v;
    ck_assert(d.an->number(d.run, "max_skew_ns", &v) && v == 50);
    json_decref(j);
    drive_close(&d);

    drive_open(&d, "ranks");  /* one rank (and a source of unknown rank, which is that rank): null */
    drive_source(&d, 0, 0, 0);
    coll(&d, ar, 100, 50);
    drive_end_source(&d);
    drive_source(&d, 1, -1, 0);
    coll(&d, ar, 120, 50);
    drive_end_source(&d);
    j = drive_finish(&d);
    ck_assert(json_is_null(j));
    json_decref(j);
    drive_close(&d);
}
END_TEST

Suite *ranks_suite(void) {
    Suite *s = suite_create("ranks");
    TCase *tc = tcase_create("ranks");
    tcase_add_test(tc, cross_rank_skew);
    suite_add_tcase(s, tc);
    return s;
}
