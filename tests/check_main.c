/* The Check runner for every unit suite. */
#include <check.h>
#include <stdlib.h>

Suite *text_suite(void);
Suite *csv_suite(void);
Suite *json_suite(void);
Suite *artefacts_suite(void);
Suite *regressions_suite(void);
Suite *gunzip_suite(void);
Suite *split_suite(void);
Suite *formats_suite(void);
Suite *split_csv_suite(void);

int main(void) {
    SRunner *sr = srunner_create(text_suite());
    srunner_add_suite(sr, csv_suite());
    srunner_add_suite(sr, json_suite());
    srunner_add_suite(sr, artefacts_suite());
    srunner_add_suite(sr, regressions_suite());
    srunner_add_suite(sr, gunzip_suite());
    srunner_add_suite(sr, split_suite());
    srunner_add_suite(sr, formats_suite());
    srunner_add_suite(sr, split_csv_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
