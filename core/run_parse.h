/* run_parse: one run directory -> RunMetrics (plus the per-kernel table and file facts).
 *
 * The three artefacts are independent, so the torch profile (usually the largest file)
 * is parsed on a second thread while this one reads the kernel trace and telemetry. */
#ifndef GOBLIN_RUN_PARSE_H
#define GOBLIN_RUN_PARSE_H

#include "core/artefact_reader.h"
#include "core/run_files.h"
#include "core/waste_budget.h"

typedef struct run_options {
    parse_options parse;
    bool steps_given;
    int64_t steps;
    const char *precision;     /* NULL, "fp16", "bf16", "fp32", "fp8" */
} run_options;

typedef struct run_result {
    run_files files;
    artefact_info info[ARTEFACT_KIND_COUNT];
    kernel_summary kernels;
    torch_summary torch;
    telemetry_summary telemetry;
    run_metrics metrics;
} run_result;

/* false only on allocation failure, anywhere in the reading (a result that memory made partial,
 * its warnings marked out_of_memory, is freed, never returned); bad or missing artefacts are
 * warnings in metrics. */
bool run_parse(const char *run_dir, const run_options *opt, run_result *out);
void run_result_free(run_result *r);
/* The second half of run_parse, once out->files, out->info and the three summaries are read
 * (core/run_ingest reads them with the analysis document): kd, td, sd are each file's
 * warnings (moved into out->metrics.warnings in the reference's order, then empty); the
 * kernels' fallback to the torch profile's, the heuristics, the read facts' origins. */
void run_result_complete(run_result *out, const run_options *opt, diag_list *kd, diag_list *td, diag_list *sd);
/* The ingest's verdict on one parse: ok when the kernel trace was read with rows and to its
 * end and the torch profile parsed to its end (the run may then become final); else error
 * says what is missing. limited is the error of an artefact stopped by max_parse_mb /
 * max_parse_s (NULL when none), which is also the error then. Strings are static or inside
 * r (valid until run_result_free). One policy, so the daemon reads no format's summary. */
typedef struct run_outcome {
    bool ok;
    const char *error, *limited;
    uint64_t bytes_parsed;     /* every artefact's bytes read */
} run_outcome;
run_outcome run_result_outcome(const run_result *r);
/* Which headline numbers the parse measured; the others are RunMetrics' 0 placeholders and
 * are shown as unknown (null in /runs and /runs/<id>, absent from /metrics, "-" in tables). */
typedef struct headline_known {
    bool tokens_per_sec, mfu_pct, gpu_util_pct, step_time, hbm;
    bool hbm_avg;                /* the mean HBM: only with the peak's VRAM samples */
} headline_known;
headline_known run_result_known(const run_result *r);
/* How artefact `kind` was read (columns, rows, step sources): see parsers/artefact.h. */
const read_facts *run_result_facts(const run_result *r, artefact_kind kind);

#endif
