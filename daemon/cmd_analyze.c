/* cmd_analyze: `goblind analyze RUN_DIR [--format json|table|markdown]` prints the analysis
 * document of one run directory (core/run_analysis): every file a format reads, every
 * registered section. json is the document as GET /runs/<id>/analysis serves it; table is
 * one block per section for people (an array of objects as rows, an object as dotted
 * key/value lines, null as "no data"); markdown is report.md. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/json_load.h"
#include "core/run_analysis.h"
#include "daemon/commands.h"
#include "base/text_utf8.h"

/* A scalar as table text. */
static void print_scalar(FILE *out, const json_t *v) {
    if (!v || json_is_null(v)) fputs("-", out);
    else if (json_is_string(v)) text_terminal_put(out, json_string_value(v));
    else if (json_is_integer(v)) fprintf(out, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v)) fprintf(out, "%.6g", json_real_value(v));
    else if (json_is_true(v)) fputs("yes", out);
    else if (json_is_false(v)) fputs("no", out);
    else {
        char *t = json_dumps_checked(v, JSON_COMPACT);
        fputs(t ? t : "?", out);
        free(t);
    }
}

/* An object as "path: value" lines, nested objects by dotted path. */
static void print_object(FILE *out, const json_t *o, const char *prefix) {
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)o, k, v) {
        char path[512], safe[512];       /* (keys may come from a file: msprof counter columns) */
        snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", k);
        if (json_is_object(v) && json_object_size(v)) { print_object(out, v, path); continue; }
        fprintf(out, "  %-40s ", text_terminal(path, safe, sizeof safe));
        print_scalar(out, v);
        fputc('\n', out);
    }
}

/* An array of objects as rows: the first object's keys are the columns. */
static void print_rows(FILE *out, const json_t *a) {
    const json_t *first = json_array_get(a, 0);
    if (!json_is_object(first)) {
        for (size_t i = 0; i < json_array_size(a); i++) { fputs("  ", out); print_scalar(out, json_array_get(a, i)); fputc('\n', out); }
        return;
    }
    const char *k;
    json_t *v;
    fputs(" ", out);
    json_object_foreach((json_t *)first, k, v) {
        fputc(' ', out);
        text_terminal_put(out, k);
    }
    fputc('\n', out);
    for (size_t i = 0; i < json_array_size(a); i++) {
        const json_t *row = json_array_get(a, i);
        fputs(" ", out);
        json_object_foreach((json_t *)first, k, v) {
            fputc(' ', out);
            print_scalar(out, json_object_get(row, k));
        }
        fputc('\n', out);
    }
}

static int print_table(FILE *out, const char *json) {
    json_error_t err;
    json_t *doc = json_load_checked(json, strlen(json), JSON_ALLOW_NUL, &err, NULL);
    if (!doc) { fprintf(stderr, "goblind analyze: internal error: %s\n", err.text); return 1; }
    const char *key;
    json_t *v;
    json_object_foreach(doc, key, v) {
        fprintf(out, "== %s ==\n", key);
        if (json_is_null(v)) fputs("  no data\n", out);
        else if (json_is_array(v)) { if (json_array_size(v)) print_rows(out, v); else fputs("  (none)\n", out); }
        else if (json_is_object(v)) print_object(out, v, "");
        else { fputs("  ", out); print_scalar(out, v); fputc('\n', out); }
        fputc('\n', out);
    }
    json_decref(doc);
    return 0;
}

int cmd_analyze(int argc, char **argv) {
    const char *dir = NULL, *format = "json", *npu_ref = NULL;
    run_analysis_options opt;
    run_analysis_defaults(&opt);
    opt.json_indent = 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--format")) {
            if (!val || (strcmp(val, "json") && strcmp(val, "table") && strcmp(val, "markdown"))) {
                fprintf(stderr, "goblind analyze: --format takes json, table or markdown\n");
                return EXIT_USAGE;
            }
            format = val;
            i++;
        } else if (!strcmp(a, "--npu-reference-dir")) {
            if (!val) { fprintf(stderr, "goblind analyze: --npu-reference-dir takes a directory\n"); return EXIT_USAGE; }
            npu_ref = val;
            i++;
        } else if (!strcmp(a, "--kernel-wait-threshold-ns") || !strcmp(a, "--short-kernel-ns")) {
            char *end = NULL;
            long long v = val ? strtoll(val, &end, 10) : -1;
            if (!val || *end || v < 0 || v > 1000000000) {
                fprintf(stderr, "goblind analyze: %s takes nanoseconds from 0 to 1000000000\n", a);
                return EXIT_USAGE;
            }
            if (!strcmp(a, "--short-kernel-ns")) opt.cfg.short_kernel_ns = v;
            else opt.cfg.kernel_wait_threshold_ns = v;
            i++;
        } else if (!strcmp(a, "--rows")) {
            char *end = NULL;
            long long v = val ? strtoll(val, &end, 10) : -1;
            if (!val || *end || v < 0 || v > 1000000) {
                fprintf(stderr, "goblind analyze: --rows takes a count from 0 (every row) to 1000000\n");
                return EXIT_USAGE;
            }
            opt.cfg.list_rows = (size_t)v;
            i++;
        } else if (!strcmp(a, "--threads")) {
            if (!val || (strcmp(val, "1") && strcmp(val, "2"))) {
                fprintf(stderr, "goblind analyze: --threads takes 1 or 2\n");
                return EXIT_USAGE;
            }
            opt.threads = atoi(val);
            i++;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "goblind analyze: unknown option '%s'\n", a);
            return EXIT_USAGE;
        } else if (dir) {
            fprintf(stderr, "goblind analyze: one RUN_DIR only\n");
            return EXIT_USAGE;
        } else {
            dir = a;
        }
    }
    if (!dir) { help_usage_command("analyze", stderr); return EXIT_USAGE; }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "goblind analyze: %s: %s\n", dir, errno ? strerror(errno) : "not a directory");
        return 1;
    }
    opt.cfg.npu_reference_dir = npu_ref;
    run_analysis r;
    if (!run_analyze(dir, &opt, &r)) { fprintf(stderr, "goblind analyze: out of memory\n"); return 1; }
    int rc = 0;
    if (!strcmp(format, "json")) { fwrite(r.json.data, 1, r.json.len, stdout); fputc('\n', stdout); }
    else if (!strcmp(format, "markdown")) fwrite(r.report_md.data, 1, r.report_md.len, stdout);
    else rc = print_table(stdout, r.json.data);
    for (size_t i = 0; i < r.diag.count; i++) {
        fputs("warning: ", stderr);
        text_terminal_put(stderr, r.diag.items[i]);
        fputc('\n', stderr);
    }
    int empty = r.inventory.n == 0;
    run_analysis_free(&r);
    if (rc) return rc;
    return empty ? EXIT_NO_ARTEFACTS : 0;
}
