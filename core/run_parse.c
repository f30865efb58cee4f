/* run_parse: discovery, the three artefact reads (two threads), then the heuristics. */
#include "core/run_parse.h"

#include <pthread.h>
#include <string.h>

typedef struct torch_job {
    const char *path;
    const parse_options *opt;
    torch_summary *summary;
    diag_list diag;
    artefact_info *info;
} torch_job;

static void *torch_thread(void *arg) {
    torch_job *j = arg;
    artefact_read(j->path, ARTEFACT_TORCH_PROFILE, j->opt, j->summary, &j->diag, j->info);
    return NULL;
}

bool run_parse(const char *run_dir, const run_options *opt, run_result *out) {
    memset(out, 0, sizeof *out);
    if (!run_files_find(run_dir, &out->files)) return false;
    diag_list kdiag, sdiag;
    diag_init(&kdiag);
    diag_init(&sdiag);
    torch_job job = {.path = out->files.path[ARTEFACT_TORCH_PROFILE], .opt = &opt->parse,
                     .summary = &out->torch, .info = &out->info[ARTEFACT_TORCH_PROFILE]};
    diag_init(&job.diag);
    pthread_t th;
    bool threaded = pthread_create(&th, NULL, torch_thread, &job) == 0;
    artefact_read(out->files.path[ARTEFACT_KERNEL_TRACE], ARTEFACT_KERNEL_TRACE, &opt->parse, &out->kernels,
                  &kdiag, &out->info[ARTEFACT_KERNEL_TRACE]);
    artefact_read(out->files.path[ARTEFACT_TELEMETRY], ARTEFACT_TELEMETRY, &opt->parse, &out->telemetry,
                  &sdiag, &out->info[ARTEFACT_TELEMETRY]);
    if (threaded) pthread_join(th, NULL);
    else torch_thread(&job);

    /* each file's first warning, kept for the store (the strings move, they are not copied) */
    out->info[ARTEFACT_KERNEL_TRACE].error = kdiag.count ? kdiag.items[0] : NULL;
    out->info[ARTEFACT_TORCH_PROFILE].error = job.diag.count ? job.diag.items[0] : NULL;
    out->info[ARTEFACT_TELEMETRY].error = sdiag.count ? sdiag.items[0] : NULL;
    diag_init(&out->metrics.warnings);          /* the reference's order: kernels, torch, telemetry */
    diag_move(&out->metrics.warnings, &kdiag);
    diag_move(&out->metrics.warnings, &job.diag);
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
