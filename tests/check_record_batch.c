/* check_record_batch: records kept past their emit call (core/record_batch).
 *
 * Every string a record points to (name, key, value, category, track, args, the extra
 * fields' keys and values) is copied, so the copy stays right after the emitter's buffers
 * are overwritten; names without a NUL terminator, a name larger than an arena block,
 * thousands of records across blocks, and a cleared batch reused. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/record_batch.h"

START_TEST(copies_every_string) {
    char name[] = "kernel_AXXX", key[] = "rank", value[] = "3", cat[] = "kernel", track[] = "GPU 0",
         args[] = "[[1,2]]", fkey[] = "Input Shapes", fval[] = "[4, 5]";
    record_field f[2] = {{fkey, fval, 6}, {NULL, NULL, 0}};
    record r = {.type = REC_METADATA, .has = RF_DEVICE, .device = 7, .name = name, .name_len = 8,
                .key = key, .value = value, .value_len = 1, .category = cat, .category_len = 6,
                .track = track, .track_len = 5, .args = args, .args_len = 7, .fields = f, .n_fields = 2};
    record_batch b;
    record_batch_init(&b);
    ck_assert(record_batch_add(&b, &r));
    memset(name, 'z', sizeof name - 1);      /* the emitter's buffers reused */
    memset(key, 'z', sizeof key - 1);
    memset(value, 'z', sizeof value - 1);
    memset(cat, 'z', sizeof cat - 1);
    memset(track, 'z', sizeof track - 1);
    memset(args, 'z', sizeof args - 1);
    memset(fkey, 'z', sizeof fkey - 1);
    memset(fval, 'z', sizeof fval - 1);
    f[0].value_len = 0;
    ck_assert_uint_eq(b.n, 1);
    const record *c = b.recs[0];
    ck_assert_int_eq(c->device, 7);
    ck_assert_uint_eq(c->name_len, 8);
    ck_assert(!memcmp(c->name, "kernel_A", 8) && c->name[8] == '\0');
    ck_assert_str_eq(c->key, "rank");
    ck_assert(c->value_len == 1 && c->value[0] == '3');
    ck_assert(!memcmp(c->category, "kernel", 6) && !memcmp(c->track, "GPU 0", 5) && !memcmp(c->args, "[[1,2]]", 7));
    ck_assert_uint_eq(c->n_fields, 2);
    ck_assert_str_eq(c->fields[0].key, "Input Shapes");
    ck_assert(c->fields[0].value_len == 6 && !memcmp(c->fields[0].value, "[4, 5]", 6));
    ck_assert(c->fields[1].key == NULL && c->fields[1].value == NULL);
    ck_assert(b.bytes >= sizeof(record));
    record_batch_free(&b);
}
END_TEST

START_TEST(null_strings_stay_null) {
    record r = {.type = REC_KERNEL_DISPATCH, .has = RF_START, .start_ns = 5};
    record_batch b;
    record_batch_init(&b);
    ck_assert(record_batch_add(&b, &r));
    const record *c = b.recs[0];
    ck_assert(!c->name && !c->key && !c->value && !c->category && !c->track && !c->args && !c->fields);
    ck_assert(c->start_ns == 5);
    record_batch_free(&b);
}
END_TEST

START_TEST(many_records_large_names_reuse) {
    size_t big = 600u << 10;                  /* larger than an arena block */
    char *huge = malloc(big);
    ck_assert_ptr_nonnull(huge);
    memset(huge, 'h', big);
    record_batch b;
    record_batch_init(&b);
    for (int round = 0; round < 3; round++) {
        char nm[32];
        for (int i = 0; i < 5000; i++) {
            int n = snprintf(nm, sizeof nm, "k%d_%d", round, i);
            record r = {.type = REC_KERNEL_DISPATCH, .name = nm, .name_len = (size_t)n, .correlation_id = (uint64_t)i};
            if (i == 2500) { r.name = huge; r.name_len = big; }
            ck_assert(record_batch_add(&b, &r));
        }
        ck_assert_uint_eq(b.n, 5000);
        for (int i = 0; i < 5000; i++) {
            const record *c = b.recs[i];
            ck_assert_uint_eq(c->correlation_id, (uint64_t)i);
            if (i == 2500) { ck_assert(c->name_len == big && c->name[0] == 'h' && c->name[big - 1] == 'h'); continue; }
            int n = snprintf(nm, sizeof nm, "k%d_%d", round, i);
            ck_assert(c->name_len == (size_t)n && !strcmp(c->name, nm));
        }
        record_batch_clear(&b);
        ck_assert(b.n == 0 && b.bytes == 0);
    }
    record_batch_free(&b);
    free(huge);
}
END_TEST

static Suite *record_batch_suite(void) {
    Suite *s = suite_create("record_batch");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, copies_every_string);
    tcase_add_test(tc, null_strings_stay_null);
    tcase_add_test(tc, many_records_large_names_reuse);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(record_batch_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
