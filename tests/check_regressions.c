/* Tests: every input the fuzzers ever found a problem with (tests/regressions/<harness>/)
 * replayed through the harness's own code path. Run in the ASan+UBSan build, a return of
 * the bug fails here. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz_common.h"
#include "parsers/formats/amd_smi_csv.h"
#include "parsers/formats/kernel_trace_csv.h"
#include "parsers/formats/torch_trace_json.h"
#include "tests/test_util.h"

static int replay(const char *harness, const artefact_parser *p, bool gz) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/regressions/%s", GOBLIN_SOURCE_DIR, harness);
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len;
        char *data = tu_read(path, &len);
        ck_assert_msg(data != NULL, "cannot read %s", path);
        for (int first = 0; first < 16; first++) {          /* every chunking and both modes */
            data[0] = (char)first;
            fuzz_one(p, (const uint8_t *)data, len, gz);
        }
        free(data);
        n++;
    }
    closedir(d);
    return n;
}

START_TEST(fuzz_findings_stay_fixed) {
    int n = replay("kernel_trace", &kernel_trace_csv_parser, false);
    n += replay("torch_json", &torch_trace_json_parser, false);
    n += replay("torch_gzip", &torch_trace_json_parser, true);
    n += replay("amd_smi", &amd_smi_csv_parser, false);
    ck_assert_int_ge(n, 1);
}
END_TEST

Suite *regressions_suite(void) {
    Suite *s = suite_create("regressions");
    TCase *tc = tcase_create("fuzz");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, fuzz_findings_stay_fixed);
    suite_add_tcase(s, tc);
    return s;
}
