/* check_mem_tune: the process malloc settings (base/mem_tune.c) leave malloc correct.
 *
 * mem_tune_process moves the program break, changes glibc's thresholds and advises huge
 * pages on the heap; afterwards blocks on either side of the mmap threshold must allocate,
 * keep their bytes across realloc growth (heap blocks copy, mapped ones move) and free, and
 * calloc must still hand out zeroed memory from the reused heap. A second call must be
 * harmless. (Whether the kernel then gives huge pages is measured, not tested: a kernel
 * without THP only keeps the faults; docs/PERFORMANCE.md "malloc settings".) */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem_tune.h"

/* Fills n bytes with a pattern of seed. */
static void fill(unsigned char *p, size_t n, unsigned seed) {
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(i * 131u + seed);
}

static int same(const unsigned char *p, size_t n, unsigned seed) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(i * 131u + seed)) return 0;
    return 1;
}

START_TEST(malloc_still_works) {
    mem_tune_process();
    mem_tune_process();
    static const size_t sizes[] = {16, 4096, 200000, 3u << 20, 5u << 20, 40u << 20};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        unsigned char *p = malloc(sizes[k]);
        ck_assert_ptr_nonnull(p);
        fill(p, sizes[k], (unsigned)k);
        unsigned char *q = realloc(p, sizes[k] * 2 + 1);   /* grows across the threshold too */
        ck_assert_ptr_nonnull(q);
        ck_assert(same(q, sizes[k], (unsigned)k));
        free(q);
    }
    void *v[64];
    for (int i = 0; i < 64; i++) ck_assert_ptr_nonnull(v[i] = calloc(1, (size_t)(i + 1) * 65536));
    for (int i = 0; i < 64; i += 2) free(v[i]);
    for (int i = 1; i < 64; i += 2) {
        const unsigned char *z = v[i];
        for (size_t j = 0; j < (size_t)(i + 1) * 65536; j += 4096) ck_assert_uint_eq(z[j], 0);
        free(v[i]);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("mem_tune");
    TCase *tc = tcase_create("malloc");
    tcase_add_test(tc, malloc_still_works);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
