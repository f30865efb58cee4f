/* The Check runner of the torch-trace sections: steps, ops, phases, layers and ranks. */
#include <check.h>
#include <stdlib.h>

Suite *steps_suite(void);
Suite *ops_suite(void);
Suite *phases_layers_suite(void);
Suite *ranks_suite(void);
Suite *torch_sections_random_suite(void);

int main(void) {
    SRunner *sr = srunner_create(steps_suite());
    srunner_add_suite(sr, ops_suite());
    srunner_add_suite(sr, phases_layers_suite());
    srunner_add_suite(sr, ranks_suite());
    srunner_add_suite(sr, torch_sections_random_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
