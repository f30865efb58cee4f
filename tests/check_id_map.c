/* check_id_map: the id map and the kernel-class cache the section analyses join and classify
 * with (analyses/id_map.c, analyses/kernel_class_cache.c).
 *
 * id_map_get_or_put (one probe for kernel groups) must agree with id_map_get/id_map_put on
 * dense, strided and random ids across many growths; the class cache, which now grows from a
 * small table, must answer what kernel_class_of answers for every name, before and after it
 * grows and once it is full (KCC_MAX_NAMES). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyses/id_map.h"
#include "analyses/kernel_class_cache.h"

/* The id of the i-th key of pattern p: dense, strided by 4096, or scrambled. */
static uint64_t key_of(int p, uint64_t i) {
    if (p == 0) return i + 1;
    if (p == 1) return i << 12;
    uint64_t x = i * 0x9E3779B97F4A7C15ULL;
    return x ^ (x >> 29);
}

START_TEST(get_or_put_agrees_with_get_and_put) {
    for (int p = 0; p < 3; p++) {
        id_map m = {0};
        const uint32_t n = 200000;
        for (uint32_t i = 0; i < n; i++) ck_assert_uint_eq(id_map_get_or_put(&m, key_of(p, i), i), i);
        ck_assert_uint_eq(m.n, n);
        for (uint32_t i = 0; i < n; i++) {
            ck_assert_uint_eq(id_map_get_or_put(&m, key_of(p, i), 7), i);   /* present: kept */
            ck_assert_uint_eq(id_map_get(&m, key_of(p, i)), i);
        }
        ck_assert_uint_eq(m.n, n);
        ck_assert_uint_eq(id_map_get(&m, key_of(p, n)), ID_MAP_NONE);
        ck_assert_uint_eq(id_map_put(&m, key_of(p, 3), 99), 99);           /* put still replaces */
        ck_assert_uint_eq(id_map_get_or_put(&m, key_of(p, 3), 5), 99);
        id_map_free(&m);
    }
}
END_TEST

START_TEST(get_or_put_respects_the_limit) {
    id_map m = {.max_entries = 3};
    for (uint32_t i = 0; i < 3; i++) ck_assert_uint_eq(id_map_get_or_put(&m, 100 + i, i), i);
    ck_assert_uint_eq(id_map_get_or_put(&m, 200, 3), ID_MAP_FULL);
    ck_assert_uint_eq(id_map_get_or_put(&m, 101, 3), 1);                  /* present: found */
    id_map_free(&m);
}
END_TEST

START_TEST(class_cache_answers_like_the_table) {
    static const char *const stems[] = {"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32", "ncclDevKernel_AllReduce_Sum_f16_RING_LL",
                                        "flash_fwd_kernel", "void at::native::vectorized_elementwise_kernel",
                                        "triton_poi_fused_add_0", "__amd_rocclr_copyBuffer", "fmha_fwd_d128"};
    kernel_class_cache c = {0};
    char name[160];
    /* more names than the bound: the cache grows, fills, then classifies directly */
    for (int pass = 0; pass < 2; pass++)
        for (unsigned i = 0; i < KCC_MAX_NAMES + 500; i++) {
            int len = snprintf(name, sizeof name, "%s_%u", stems[i % 7], i);
            ck_assert_int_eq(kcc_class_of(&c, name, (size_t)len), kernel_class_of(name, (size_t)len));
        }
    ck_assert_uint_eq(c.used, KCC_MAX_NAMES);
    ck_assert_int_eq(kcc_class_of(&c, NULL, 0), KC_OTHER);
    kcc_free(&c);
    ck_assert_int_eq(kcc_class_of(&c, "flash_fwd_kernel", 16), kernel_class_of("flash_fwd_kernel", 16));   /* usable again */
    kcc_free(&c);
}
END_TEST

int main(void) {
    Suite *s = suite_create("id_map");
    TCase *t = tcase_create("id_map");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, get_or_put_agrees_with_get_and_put);
    tcase_add_test(t, get_or_put_respects_the_limit);
    tcase_add_test(t, class_cache_answers_like_the_table);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
