/* run_parse: discovery, the three artefact reads (two threads), then the heuristics. */
#include "core/run_parse.h"

#include <string.h>
#include <sys/stat.h>

/* Per byte, the kernel-trace CSV costs about this many times the torch JSON (measured on
 * the bench run: 1.7 vs 1.3 ns/byte). It sets how much of the torch profile's end this
 * thread takes after the kernel trace so that both threads finish together. */
#define CSV_COST_PER_JSON_BYTE 1.3

static uint64_t file_size(const char *path) {
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
}

/* The torch profile's tail this thread should read after the kernel trace and telemetry:
 * the second thread reads the head, json - tail = tail + csv * cost. */
static uint64_t torch_tail_bytes(const run_files *f) {
    double json = (double)file_size(f->path[ARTEFACT_TORCH_PROFILE]);
    double csv = (double)file_size(f->path[ARTEFACT_KERNEL_TRACE]) + (double)file_size(f->path[ARTEFACT_TELEMETRY]);
    double tail = (json - csv * CSV_COST_PER_JSON_BYTE) / 2;
    return tail > 0 ? (uint64_t)tail : 0;
}

bool run_parse(const char *run_dir, const run_options *opt, run_result *out) {
    memset(out, 0, sizeof *out);
    if (!run_files_find(run_dir, &out->files)) return false;
    diag_list kdiag, tdiag, sdiag;
    diag_init(&kdiag);
    diag_init(&tdiag);
    diag_init(&sdiag);
    /* the torch profile (usually the largest file) on a second thread, or its head there and
     * its tail here once the other two are read */
    artefact_reading *torch = artefact_read_begin(out->files.path[ARTEFACT_TORCH_PROFILE], ARTEFACT_TORCH_PROFILE,
                                                  &opt->parse, &out->torch, &tdiag, &out->info[ARTEFACT_TORCH_PROFILE],
                                                  torch_tail_bytes(&out->files));
    artefact_read(out->files.path[ARTEFACT_KERNEL_TRACE], ARTEFACT_KERNEL_TRACE, &opt->parse, &out->kernels,
                  &kdiag, &out->info[ARTEFACT_KERNEL_TRACE]);
    artefact_read(out->files.path[ARTEFACT_TELEMETRY], ARTEFACT_TELEMETRY, &opt->parse, &out->telemetry,
                  &sdiag, &out->info[ARTEFACT_TELEMETRY]);
    artefact_read_end(torch);

    /* each file's first warning, kept for the store (the strings move, they are not copied) */
    out->info[ARTEFACT_KERNEL_TRACE].error = kdiag.count ? kdiag.items[0] : NULL;
    out->info[ARTEFACT_TORCH_PROFILE].error = tdiag.count ? tdiag.items[0] : NULL;
    out->info[ARTEFACT_TELEMETRY].error = sdiag.count ? sdiag.items[0] : NULL;
    diag_init(&out->metrics.warnings);          /* the reference's order: kernels, torch, telemetry */
    diag_move(&out->metrics.warnings, &kdiag);
    diag_move(&out->metrics.warnings, &tdiag);
    diag_move(&out->metrics.warnings, &sdiag);
    waste_inputs in = {.kernels = &out->kernels, .torch = &out->torch, .telemetry = &out->telemetry,
                       .seed_compat = opt->parse.seed_compat, .steps_given = opt->steps_given,
                       .steps = opt->steps, .precision = opt->precision};
    run_metrics_compute(&in, &out->metrics);
    return true;
}

void run_result_free(run_result *r) {
    run_files_free(&r->files);
    kernel_summary_free(&r->kernels);
    torch_summary_free(&r->torch);
    telemetry_summary_free(&r->telemetry);
    diag_free(&r->metrics.warnings);
    memset(r, 0, sizeof *r);
}
