/* check_sidecar: a run directory's goblind.json (core/run_sidecar.c) on bytes written here: each
 * key's accepted values, every kind of bad value named in a warning and ignored (the others
 * still read), a file that is not JSON or not an object, a symlink, a file past 64 KiB, none at
 * all; and the profile family of every registered format (core/run_headline.c). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/artefact_kind.h"
#include "core/run_headline.h"
#include "parsers/parser_registry.h"

static char dir[] = "/tmp/check_sidecar.XXXXXX";

static void write_sidecar(const char *text) {
    char p[256];
    snprintf(p, sizeof p, "%s/goblind.json", dir);
    unlink(p);
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static bool warned(const diag_list *w, const char *needle) {
    for (size_t i = 0; i < w->count; i++)
        if (strstr(w->items[i], needle)) return true;
    return false;
}

START_TEST(every_key_read) {
    write_sidecar("{\"tokens_per_step\": 8192, \"model_flops_per_token\": 6.5e9, \"peak_tflops\": 1307,"
                  " \"precision\": \"bf16\", \"steps\": 12, \"labels\": {\"series\": \"s1\", \"bs\": 8, \"ok\": true}}");
    run_sidecar sc;
    diag_list w;
    diag_init(&w);
    run_sidecar_read(dir, &sc, &w);
    ck_assert(sc.present && w.count == 0);
    ck_assert(sc.has_tokens_per_step && sc.tokens_per_step == 8192);
    ck_assert(sc.has_flops_per_token && sc.flops_per_token == 6.5e9);
    ck_assert(sc.has_peak_tflops && sc.peak_tflops == 1307);
    ck_assert(sc.has_steps && sc.steps == 12);
    ck_assert_str_eq(sc.precision, "bf16");
    ck_assert_str_eq(sc.labels_json, "{\"bs\":8,\"ok\":true,\"series\":\"s1\"}");
    run_sidecar_free(&sc);
    diag_free(&w);
}
END_TEST

START_TEST(series_label_that_names_no_series_warned) {
    /* 129 bytes, an empty string, a number: kept as labels, but none names a series (the
     * fingerprint does), and each says so; 128 bytes is a series key without a word */
    char text[512], key[130];
    const char *cases[] = {NULL, "\"\"", "7"};
    for (int c = 0; c < 4; c++) {
        memset(key, 'k', sizeof key);
        key[c == 3 ? 128 : 129] = '\0';
        if (c == 0 || c == 3) snprintf(text, sizeof text, "{\"labels\": {\"series\": \"%s\"}}", key);
        else snprintf(text, sizeof text, "{\"labels\": {\"series\": %s}}", cases[c]);
        write_sidecar(text);
        run_sidecar sc;
        diag_list w;
        diag_init(&w);
        run_sidecar_read(dir, &sc, &w);
        ck_assert(sc.labels_json != NULL);
        ck_assert_int_eq(warned(&w, "'labels.series' must be a string of 1 to 128 bytes"), c != 3);
        ck_assert_int_eq((int)w.count, c != 3);
        run_sidecar_free(&sc);
        diag_free(&w);
    }
}
END_TEST

START_TEST(bad_values_named_and_ignored) {
    write_sidecar("{\"tokens_per_step\": -1, \"model_flops_per_token\": \"many\", \"peak_tflops\": 0,"
                  " \"precision\": \"fp64\", \"steps\": 2.5, \"labels\": {\"nested\": {}}, \"colour\": 1,"
                  " \"unused\": null}");
    run_sidecar sc;
    diag_list w;
    diag_init(&w);
    run_sidecar_read(dir, &sc, &w);
    ck_assert(sc.present && !sc.has_tokens_per_step && !sc.has_flops_per_token && !sc.has_peak_tflops);
    ck_assert(!sc.has_steps && !sc.precision && !sc.labels_json);
    const char *keys[] = {"'tokens_per_step'", "'model_flops_per_token'", "'peak_tflops'", "'precision'", "'steps'",
                          "'labels'", "'colour'", "'unused'"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) ck_assert_msg(warned(&w, keys[i]), "%s", keys[i]);
    ck_assert_int_eq(w.count, 8);
    run_sidecar_free(&sc);
    diag_free(&w);
}
END_TEST

START_TEST(bad_files_are_warnings) {
    static const struct { const char *text, *needle; } CASES[] = {
        {"{\"steps\": 3", "not JSON (line 1"}, {"[1, 2]", "not a JSON object"}, {"", "not JSON"},
        {"{\"steps\": 1, \"steps\": 2}", "not JSON"}};
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
        write_sidecar(CASES[i].text);
        run_sidecar sc;
        diag_list w;
        diag_init(&w);
        run_sidecar_read(dir, &sc, &w);
        ck_assert_msg(w.count == 1 && warned(&w, CASES[i].needle), "%s", CASES[i].text);
        ck_assert(!sc.has_steps);
        run_sidecar_free(&sc);
        diag_free(&w);
    }
    char *big = malloc(70000);
    memset(big, ' ', 69999);
    big[0] = '{';
    big[69998] = '}';
    big[69999] = 0;
    write_sidecar(big);
    free(big);
    run_sidecar sc;
    diag_list w;
    diag_init(&w);
    run_sidecar_read(dir, &sc, &w);
    ck_assert(warned(&w, "larger than 64 KiB"));
    diag_free(&w);
    char p[256], t[256];                         /* a symlink is not followed */
    snprintf(p, sizeof p, "%s/goblind.json", dir);
    snprintf(t, sizeof t, "%s/elsewhere.json", dir);
    unlink(p);
    FILE *f = fopen(t, "w");
    fputs("{\"steps\": 4}", f);
    fclose(f);
    ck_assert_int_eq(symlink(t, p), 0);
    diag_init(&w);
    run_sidecar_read(dir, &sc, &w);
    ck_assert(warned(&w, "symbolic link") && !sc.has_steps);
    diag_free(&w);
    unlink(p);                                   /* none at all: nothing, no warning */
    diag_init(&w);
    run_sidecar_read(dir, &sc, &w);
    ck_assert(!sc.present && w.count == 0);
    diag_free(&w);
    unlink(t);
}
END_TEST

/* Every registered format has a family, and it is one of the documented ones. */
START_TEST(every_format_has_a_family) {
    for (const artefact_parser *const *p = parser_list(); *p; p++) {
        const char *f = run_profile_family(*p);
        ck_assert_msg(f != NULL, "%s", (*p)->name);
        char list[128];
        snprintf(list, sizeof list, ",%s,", RUN_PROFILE_FAMILIES);
        char want[32];
        snprintf(want, sizeof want, ",%s,", f);
        ck_assert_msg(strstr(list, want) && strcmp(f, "goblin"), "%s -> %s", (*p)->name, f);
    }
    ck_assert_ptr_null(run_profile_family(NULL));
}
END_TEST

int main(void) {
    if (!mkdtemp(dir)) return EXIT_FAILURE;
    Suite *s = suite_create("sidecar");
    TCase *tc = tcase_create("sidecar");
    tcase_add_test(tc, every_key_read);
    tcase_add_test(tc, bad_values_named_and_ignored);
    tcase_add_test(tc, series_label_that_names_no_series_warned);
    tcase_add_test(tc, bad_files_are_warnings);
    tcase_add_test(tc, every_format_has_a_family);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_set_fork_status(r, CK_NOFORK);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    rmdir(dir);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
