/* cmd_export: `goblind export RUN_DIR [--kernels FILE|-] [--npu-reference DIR]` writes what the analysis document keeps
 * only in aggregate, row by row: the per-kernel export (core/kernel_export: one labelled row per
 * kernel dispatch, CSV or JSON lines), read from the run directory itself as it is written.
 * Each kind of export is one option of the loop below and one step after it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/kernel_export.h"
#include "core/npu_reference_export.h"
#include "daemon/commands.h"

/* A stdio stream and the errno of its first failed write. */
typedef struct out_stream {
    FILE *f;
    int err;
} out_stream;

/* kexport_write_fn into an out_stream. */
static bool to_stream(void *user, const char *data, size_t len) {
    out_stream *o = user;
    if (fwrite(data, 1, len, o->f) == len) return true;
    if (!o->err) o->err = errno ? errno : EIO;
    return false;
}

/* Whether path ends in suffix. */
static bool ends_with(const char *path, const char *suffix) {
    size_t n = strlen(path), k = strlen(suffix);
    return n >= k && !strcmp(path + n - k, suffix);
}

/* Writes the per-kernel export of dir to path ("-": stdout) in fmt. The exit status. */
static int export_kernels(const char *dir, const char *path, kexport_format fmt, bool host,
                          const run_analysis_options *opt) {
    bool to_stdout = !strcmp(path, "-");
    FILE *out = to_stdout ? stdout : fopen(path, "wb");
    if (!out) {
        fprintf(stderr, "goblind export: %s: %s\n", path, strerror(errno));
        return 1;
    }
    diag_list diag;
    diag_init(&diag);
    kexport_result res;
    out_stream o = {out, 0};
    bool ok = kernel_export(dir, opt, fmt, host, to_stream, &o, &res, &diag);
    for (size_t i = 0; i < diag.count; i++) fprintf(stderr, "warning: %s\n", diag.items[i]);
    diag_free(&diag);
    errno = 0;
    bool closed = to_stdout ? fflush(out) == 0 : fclose(out) == 0;
    if (!closed && !o.err) o.err = errno ? errno : EIO;
    if (res.write_failed || !closed) {
        fprintf(stderr, "goblind export: %s: write failed: %s\n", to_stdout ? "stdout" : path, strerror(o.err ? o.err : EIO));
        return 1;
    }
    if (!ok) {
        fprintf(stderr, "goblind export: out of memory\n");
        return 1;
    }
    fprintf(stderr, "goblind export: %llu kernel rows\n", (unsigned long long)res.rows);
    return 0;
}

int cmd_export(int argc, char **argv) {
    const char *dir = NULL, *kernels = NULL, *format = NULL, *npu_reference = NULL;
    bool host = false;
    run_analysis_options opt;
    run_analysis_defaults(&opt);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--kernels")) {
            if (!val) { fprintf(stderr, "goblind export: --kernels takes a file (- for stdout)\n"); return EXIT_USAGE; }
            kernels = val;
            i++;
        } else if (!strcmp(a, "--npu-reference")) {
            if (!val) { fprintf(stderr, "goblind export: --npu-reference takes a directory\n"); return EXIT_USAGE; }
            npu_reference = val;
            i++;
        } else if (!strcmp(a, "--format")) {
            if (!val || (strcmp(val, "csv") && strcmp(val, "jsonl"))) {
                fprintf(stderr, "goblind export: --format takes csv or jsonl\n");
                return EXIT_USAGE;
            }
            format = val;
            i++;
        } else if (!strcmp(a, "--host-trace")) {
            host = true;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "goblind export: unknown option '%s'\n", a);
            return EXIT_USAGE;
        } else if (dir) {
            fprintf(stderr, "goblind export: one RUN_DIR only\n");
            return EXIT_USAGE;
        } else {
            dir = a;
        }
    }
    if (!dir || (!kernels && !npu_reference)) {   /* (each kind of export: one more condition here) */
        if (dir) fprintf(stderr, "goblind export: nothing to export: give --kernels FILE|- or --npu-reference DIR\n");
        help_usage_command("export", stderr);
        return EXIT_USAGE;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "goblind export: %s: %s\n", dir, errno ? strerror(errno) : "not a directory");
        return 1;
    }
    int rc = 0;
    if (kernels) {
        kexport_format fmt = format ? (!strcmp(format, "jsonl") ? KEXPORT_JSONL : KEXPORT_CSV)
                                    : ends_with(kernels, ".jsonl") ? KEXPORT_JSONL : KEXPORT_CSV;
        rc = export_kernels(dir, kernels, fmt, host, &opt);
    }
    if (!rc && npu_reference) rc = npu_reference_export_dir(dir, npu_reference, stderr);
    return rc;
}
