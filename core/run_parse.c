/* run_parse: discovery, the three artefact reads (two threads), then the heuristics. */
#include "core/run_parse.h"

#include <string.h>
#include <sys/stat.h>

/* Per byte, the kernel-trace CSV costs about this many times the torch JSON (measured on
 * the bench run, each file alone: 1.1 vs 1.5 ns/byte of CPU; 0.8 gave the best wall time of
 * 0.6-1.3 tried, docs/PERFORMANCE.md). It sets how much of the torch profile's end this
 * thread takes after the kernel trace so that both threads finish together. */
#define CSV_COST_PER_JSON_BYTE 0.8

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

/* When the kernel trace is the critical file (the torch profile is absent or much smaller,
 * as when rocprofv3 ran alone), the tail of it this thread should read after the telemetry
 * while a second thread reads its head: csv - tail = tail + telemetry. 0: read it whole
 * here, as when the torch profile keeps the second thread busy. */
static uint64_t kernel_tail_bytes(const run_files *f) {
    uint64_t json = file_size(f->path[ARTEFACT_TORCH_PROFILE]), csv = file_size(f->path[ARTEFACT_KERNEL_TRACE]);
    uint64_t smi = file_size(f->path[ARTEFACT_TELEMETRY]);
    if (json * 4 >= csv || smi >= csv) return 0;
    return (csv - smi) / 2;
}

/* Default mode, when the kernel trace yields no kernel: the torch profile's GPU kernel events
 * become the kernels (the reference's rule), with a warning giving their count. */
static void kernels_from_torch(run_result *out) {
    kernel_table *k = &out->kernels.kernels, *t = &out->torch.kernels;
    if (k->dispatches || !t->dispatches) return;
    kernel_table_free(k);
    *k = *t;
    kernel_table_init(t);
    diag_add(&out->metrics.warnings, "kernels taken from the torch profile: %llu GPU kernel events",
             (unsigned long long)k->dispatches);
}

/* The read facts of artefact `kind` (each summary struct carries its own). */
static read_facts *facts_of(run_result *r, artefact_kind kind) {
    return kind == ARTEFACT_KERNEL_TRACE ? &r->kernels.facts : kind == ARTEFACT_TORCH_PROFILE ? &r->torch.facts
                                                                                         : &r->telemetry.facts;
}

/* After the three reads: the warnings in the reference's order, the kernels' fallback to the
 * torch profile, the heuristics, and how each file was chosen (shared with core/run_ingest). */
void run_result_complete(run_result *out, const run_options *opt, diag_list *kd, diag_list *td, diag_list *sd) {
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++) {      /* facts cut short for lack of memory */
        const read_facts *f = run_result_facts(out, (artefact_kind)k);
        const char *path = out->files.path[k] ? out->files.path[k] : artefact_kind_name((artefact_kind)k);
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        if (f && f->out_of_memory)
            diag_oom(k == ARTEFACT_KERNEL_TRACE ? kd : k == ARTEFACT_TORCH_PROFILE ? td : sd,
                     "%s: out of memory recording how it was read", base);
    }
    diag_list kdiag = *kd, tdiag = *td, sdiag = *sd;
    diag_init(kd);
    diag_init(td);
    diag_init(sd);
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
    if (!opt->parse.seed_compat) kernels_from_torch(out);
    waste_budget_compute(&in, &out->metrics);
    if (out->metrics.span_is_steps)
        diag_add(&out->metrics.warnings, "no ProfilerStep events: the trace span counts as %lld step(s)",
                 (long long)out->metrics.steps);
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++) {        /* how each file was chosen */
        read_facts *f = facts_of(out, (artefact_kind)k);
        f->found_by = out->files.found_by[k];
        f->sniff_score = out->info[k].sniff_score;
    }
    out->torch.facts.steps_source = out->metrics.steps_source;
    out->torch.facts.step_time_source = out->metrics.step_time_source;
    waste_budget_clamp(&out->metrics);
}

bool run_parse(const char *run_dir, const run_options *opt, run_result *out) {
    memset(out, 0, sizeof *out);
    if (!run_files_find(run_dir, &out->files)) return false;
    /* the torch parser stops collecting GPU kernel events once the kernel trace has a row */
    _Atomic bool kernel_rows_seen = false;
    parse_options popt = opt->parse;
    popt.kernel_rows_seen = &kernel_rows_seen;
    diag_list kdiag, tdiag, sdiag;
    diag_init(&kdiag);
    diag_init(&tdiag);
    diag_init(&sdiag);
    /* the torch profile (usually the largest file) on a second thread, or its head there and
     * its tail here once the other two are read */
    artefact_reading *torch = artefact_read_begin(out->files.path[ARTEFACT_TORCH_PROFILE], ARTEFACT_TORCH_PROFILE,
                                                  &popt, &out->torch, &tdiag, &out->info[ARTEFACT_TORCH_PROFILE],
                                                  torch_tail_bytes(&out->files));
    uint64_t kernel_tail = kernel_tail_bytes(&out->files);
    artefact_reading *kernels = NULL;
    if (kernel_tail)                    /* its head on a third thread, its tail here after the telemetry */
        kernels = artefact_read_begin(out->files.path[ARTEFACT_KERNEL_TRACE], ARTEFACT_KERNEL_TRACE, &popt,
                                      &out->kernels, &kdiag, &out->info[ARTEFACT_KERNEL_TRACE], kernel_tail);
    else
        artefact_read(out->files.path[ARTEFACT_KERNEL_TRACE], ARTEFACT_KERNEL_TRACE, &popt, &out->kernels,
                      &kdiag, &out->info[ARTEFACT_KERNEL_TRACE]);
    artefact_read(out->files.path[ARTEFACT_TELEMETRY], ARTEFACT_TELEMETRY, &popt, &out->telemetry,
                  &sdiag, &out->info[ARTEFACT_TELEMETRY]);
    artefact_read_end(kernels);
    artefact_read_end(torch);
    if (!popt.seed_compat && kernel_rows_seen && !out->kernels.kernels.dispatches) {
        /* the kernel trace had rows but its read then failed (nothing kept, like the
         * reference): the torch profile's kernels are needed after all, so read it again
         * collecting them all (rare: only after an I/O error) */
        diag_free(&tdiag);
        diag_init(&tdiag);
        torch_summary_free(&out->torch);
        popt.kernel_rows_seen = NULL;
        artefact_read(out->files.path[ARTEFACT_TORCH_PROFILE], ARTEFACT_TORCH_PROFILE, &popt, &out->torch, &tdiag,
                      &out->info[ARTEFACT_TORCH_PROFILE]);
    }

    run_result_complete(out, opt, &kdiag, &tdiag, &sdiag);
    if (out->metrics.warnings.out_of_memory) {         /* partial for lack of memory: not returned */
        run_result_free(out);
        return false;
    }
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

run_outcome run_result_outcome(const run_result *r) {
    run_outcome o = {0};
    const artefact_info *ki = &r->info[ARTEFACT_KERNEL_TRACE];
    bool kernels_ok = ki->present && ki->bytes_parsed > 0 && r->kernels.complete;
    o.ok = kernels_ok && r->torch.complete;
    for (int k = 0; k < ARTEFACT_KIND_COUNT; k++) {
        o.bytes_parsed += r->info[k].bytes_parsed;
        if (!o.limited && r->info[k].error && strstr(r->info[k].error, "bounds a parse")) o.limited = r->info[k].error;
    }
    o.error = o.ok ? NULL
        : o.limited ? o.limited
        : !ki->present ? "kernel trace not found"
        : !kernels_ok ? "kernel trace empty or truncated"
        : !r->info[ARTEFACT_TORCH_PROFILE].present ? "torch profile not found"
        : "torch profile not parseable (yet)";
    return o;
}

const read_facts *run_result_facts(const run_result *r, artefact_kind kind) { return facts_of((run_result *)r, kind); }

headline_known run_result_known(const run_result *r) {
    return (headline_known){.tokens_per_sec = r->torch.tokens_per_sec.has, .mfu_pct = r->torch.mfu_pct.has,
                            .gpu_util_pct = r->metrics.gpu_util_known, .step_time = r->metrics.step_time.has,
                            .hbm = r->telemetry.hbm_peak_gb.has,
                            .hbm_avg = r->telemetry.hbm_peak_gb.has && r->telemetry.hbm_avg_gb.has};
}
