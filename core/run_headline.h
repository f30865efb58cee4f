/* run_headline: what a run is, from whatever it holds — its status verdict, its profile (the
 * source families it holds), and its headline numbers, each from the best source the run has.
 *
 * RunMetrics (core/run_parse) reads goblin_runner's three files. A run made by any other
 * profiler (a Kineto trace under its own name, a rocprofv3 or rocpd output, nvidia-smi logs...)
 * gives RunMetrics nothing, although the analysis document (core/run_analysis) has read it all.
 * run_headline_apply fills each number RunMetrics does not know from the analysis's finished
 * numbers (analysis_headline's AH_* inputs and kernel rows; never a file read again) and from
 * the run's sidecar (goblind.json), then recomputes RunMetrics with the same formulas
 * (core/waste_budget). A number RunMetrics already knows is kept, and a goblin run (one of
 * goblin_runner's file names is there) takes nothing from the analysis: its RunMetrics is
 * `goblind parse`'s to the byte, a partial one included (only a sidecar adds to it). Each number says where it came from
 * (source, rule: docs/ANALYSIS.md "Headline numbers"). */
#ifndef GOBLIN_RUN_HEADLINE_H
#define GOBLIN_RUN_HEADLINE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/strbuf.h"
#include "core/ingest_doc.h"
#include "core/run_analysis.h"
#include "core/run_parse.h"

#define RUN_SIDECAR_NAME "goblind.json"
#define RUN_SIDECAR_MAX_BYTES (64u << 10)
/* The longest labels.series that names a series (core/ingest_doc.h, read by storage). */
#define RUN_SIDECAR_SERIES_MAX INGEST_SERIES_KEY_MAX

/* What a run directory's goblind.json declares (docs/API.md "The run sidecar"). */
typedef struct run_sidecar {
    bool present;
    bool has_tokens_per_step, has_flops_per_token, has_steps, has_peak_tflops;
    double tokens_per_step, flops_per_token, peak_tflops;
    int64_t steps;
    const char *precision;       /* static "fp16" | "bf16" | "fp32" | "fp8", NULL: not declared */
    char *labels_json;           /* the `labels` object, compact JSON, NULL: none */
} run_sidecar;

/* Reads run_dir/goblind.json when there is one. A bad file or key is a warning in warnings
 * naming the key (the key is then ignored), never an error: the run is read as if it were
 * not declared. */
void run_sidecar_read(const char *run_dir, run_sidecar *sc, diag_list *warnings);
void run_sidecar_free(run_sidecar *sc);

typedef enum { RUN_VERDICT_COMPLETE, RUN_VERDICT_FAILED, RUN_VERDICT_EMPTY } run_verdict;

typedef struct run_headline {
    run_verdict verdict;         /* what the run is once quiet (docs/API.md "Run states") */
    char *error;                 /* failed: why, naming the files; NULL otherwise */
    const char *limited;         /* a parse bound stopped a file (its warning), NULL: none */
    char profile[192];           /* the source families it holds, comma-separated, fixed order */
    strbuf json;                 /* {"sources": {field: {"source", "rule"} | null}, "precision", "labels": ...} */
    unsigned waste_unknown;      /* 1 << W_*: buckets whose input is unknown (stored as null) */
    bool filled;                 /* a number came from the analysis or the sidecar */
    bool kernels_from_analysis;  /* RunMetrics' kernel table was filled from the kernels section */
    diag_list aside;             /* RunMetrics' warnings taken out of its list (freed with h; an
                                  * artefact's first warning in res may point at one) */
} run_headline;

/* The source family of a format: the format's own `family` (parsers/artefact.h), NULL for no
 * format. The families: goblin (goblin_runner's file names), kineto, rocprofv3, rocpd, rocprof,
 * nsys, nvprof, smi, msprof, aie. */
const char *run_profile_family(const artefact_parser *format);

/* Fills h and completes res->metrics with the numbers RunMetrics did not know (see above).
 * res's artefact warnings may point into h: free h after the last use of res->info.
 * opt: the parse's options (steps, precision; the sidecar's count when the caller gave none).
 * false only on allocation failure. */
bool run_headline_apply(run_result *res, const run_options *opt, const run_analysis *an, const run_sidecar *sc,
                        run_headline *h);
void run_headline_free(run_headline *h);

/* Whether res read one of goblin_runner's file names (trace.csv, torch_profile.json[.gz],
 * amd_smi.csv): a goblin run, whose RunMetrics is goblin_runner's rules exactly. A run whose
 * only RunMetrics file is a rocprofv3 *kernel_trace.csv is not one. */
bool run_headline_goblin_named(const run_result *res);
/* The waste buckets (1 << W_*) whose formula has an input res does not know (no host busy
 * fraction, GPU utilisation, HBM peak or kernels); 0 without a step time (the whole budget is
 * then unknown). Stored as null (/runs, /compare, Prometheus, the CLI), for every run. */
unsigned run_headline_unknown_buckets(const run_result *res);
/* Names in res's warnings each number of the /metrics body that stands for something unknown
 * ("<field> unknown (why): reported as 0"), the buckets of waste_unknown included. The body of
 * a goblin run as goblin_runner's rules make it (reference_body) keeps goblin_ref.py's
 * buckets, whose formulas take an unknown input as 0 (its warning says so); any other body
 * reports an unknown bucket as 0. */
void run_headline_warn_unknown(run_result *res, unsigned waste_unknown, bool reference_body);

#endif
