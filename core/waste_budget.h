/* waste_budget: the reference heuristics that turn artefact summaries into RunMetrics.
 * Every formula is documented in docs/HEURISTICS.md. Pure: no I/O. */
#ifndef GOBLIN_WASTE_BUDGET_H
#define GOBLIN_WASTE_BUDGET_H

#include "parsers/artefact.h"

#define TOP_KERNELS 5

enum { W_USEFUL_GPU, W_DATA_WAIT, W_HOST_GAP, W_COMM_EXCESS, W_MEMORY_HEADROOM, W_PRECISION_PATH,
       W_KERNEL_SHAPE, W_COUNT };
extern const char *const WASTE_BUCKETS[W_COUNT];

typedef struct top_kernel {
    const char *name;          /* points into the kernel table; name_len bytes (a NUL may be one) */
    size_t name_len;
    double pct_time;
} top_kernel;

typedef struct run_metrics {
    int64_t steps;
    double tokens_per_sec, mfu_pct, hbm_peak_gb, hbm_avg_gb, gpu_util_pct;
    top_kernel top[TOP_KERNELS];
    size_t n_top;
    const char *attention;     /* flash_rocm | flash | sdpa | eager | unknown */
    double waste[W_COUNT];     /* seconds per step */
    diag_list warnings;
    const char *rocm_version, *pytorch_version;   /* point into the summaries, or "unknown" */
    /* where steps and the step time came from (static strings, docs/API.md) */
    const char *steps_source;      /* flag | metadata | profiler_steps | default */
    const char *step_time_source;  /* metadata | profiler_steps | span | span_per_step | none */
    bool span_is_steps;            /* the trace span was divided by steps (warned by run_parse) */
    opt_num step_time;             /* the step time (s) the budget used; has == false: unknown */
    bool gpu_util_known;           /* gpu_util_pct was measured (telemetry) or estimated (kernels) */
} run_metrics;

typedef struct waste_inputs {
    const kernel_summary *kernels;
    const torch_summary *torch;
    const telemetry_summary *telemetry;
    bool seed_compat;
    bool steps_given;
    int64_t steps;
    const char *precision;
} waste_inputs;

/* Fills everything but warnings; the kernels it uses are in->kernels (run_parse puts the
 * torch profile's GPU kernel events there when the kernel trace has none). */
void waste_budget_compute(const waste_inputs *in, run_metrics *m);
/* Brings every number into the range the RunMetrics schema allows (a negative metadata
 * value, --steps -1, ...): out-of-range values are clamped and each clamp is warned about,
 * naming the field, so no body is ever invalid and no silent number looks real. */
void waste_budget_clamp(run_metrics *m);

#endif
