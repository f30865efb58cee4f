/* cmd_parse: `goblind parse RUN_DIR ...` prints one RunMetrics JSON object. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/metrics_json.h"
#include "core/run_parse.h"
#include "daemon/commands.h"
#include "daemon/report.h"

static bool parse_i64(const char *s, int64_t *out) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end) return false;
    *out = v;
    return true;
}

int cmd_parse(int argc, char **argv) {
    run_options opt = {0};
    const char *dir = NULL;
    int64_t indent = 2;
    bool table = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--precision")) {
            if (!val || (strcmp(val, "fp16") && strcmp(val, "bf16") && strcmp(val, "fp32") && strcmp(val, "fp8"))) {
                fprintf(stderr, "goblind parse: --precision takes fp16, bf16, fp32 or fp8\n");
                return EXIT_USAGE;
            }
            opt.precision = val;
            i++;
        } else if (!strcmp(a, "--steps")) {
            if (!val || !parse_i64(val, &opt.steps)) {
                fprintf(stderr, "goblind parse: --steps takes an integer\n");
                return EXIT_USAGE;
            }
            opt.steps_given = true;
            i++;
        } else if (!strcmp(a, "--compat")) {
            if (!val || strcmp(val, "seed")) {
                fprintf(stderr, "goblind parse: --compat takes 'seed'\n");
                return EXIT_USAGE;
            }
            opt.parse.seed_compat = true;
            i++;
        } else if (!strcmp(a, "--indent")) {
            if (!val || !parse_i64(val, &indent) || indent < 0 || indent > 16) {
                fprintf(stderr, "goblind parse: --indent takes 0..16\n");
                return EXIT_USAGE;
            }
            i++;
        } else if (!strcmp(a, "--format")) {
            if (!val || (strcmp(val, "json") && strcmp(val, "table"))) {
                fprintf(stderr, "goblind parse: --format takes json or table\n");
                return EXIT_USAGE;
            }
            table = !strcmp(val, "table");
            i++;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "goblind parse: unknown option '%s'\n", a);
            return EXIT_USAGE;
        } else if (!dir) {
            dir = a;
        } else {
            fprintf(stderr, "goblind parse: one RUN_DIR only\n");
            return EXIT_USAGE;
        }
    }
    if (!dir) {
        fprintf(stderr, "goblind parse: RUN_DIR is required\n");
        usage(stderr);
        return EXIT_USAGE;
    }
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "goblind parse: %s: %s\n", dir, strerror(errno));
        return 1;
    }
    closedir(d);
    run_result r;
    if (!run_parse(dir, &opt, &r)) {
        fprintf(stderr, "goblind parse: out of memory\n");
        return 1;
    }
    bool any = false;
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++) any |= r.info[k].present;
    if (!any) {                            /* zeros and default steps would look like a measurement */
        fprintf(stderr, "goblind parse: %s: no artefacts found (looked for trace.csv or *kernel_trace.csv, "
                        "torch_profile.json[.gz], amd_smi.csv); nothing to measure\n", dir);
        run_result_free(&r);
        return EXIT_NO_ARTEFACTS;
    }
    strbuf out = {0};
    metrics_json_render(&r.metrics, table ? 0 : (int)indent, &out);
    if (table) {                           /* one rendering path: the table reads the JSON */
        json_t *doc = json_loadb(out.data, out.len, 0, NULL);
        char title[4200];
        snprintf(title, sizeof title, "run directory %s", dir);
        report_metrics(stdout, title, doc, report_use_unicode());
        json_decref(doc);
    } else {
        fwrite(out.data, 1, out.len, stdout);
        fputc('\n', stdout);
    }
    strbuf_free(&out);
    run_result_free(&r);
    return fflush(stdout) == 0 ? 0 : 1;
}
