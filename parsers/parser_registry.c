/* parser_registry: the table of formats. */
#include "parsers/parser_registry.h"

#include <stdlib.h>

/* Every format, most preferred first (discovery tries their names in this order).
 * Adding a format is one entry here. */
#define FORMATS(X)               \
    X(kernel_trace_csv_parser)   \
    X(rocpd_sqlite_parser)       \
    X(torch_trace_json_parser)   \
    X(amd_smi_csv_parser)        \
    X(nvidia_smi_csv_parser)     \
    /* NPU traces: Ascend msprof and AMD AIE, analysis only */ \
    X(msprof_op_csv_parser)      \
    X(msprof_reference_csv_parser) \
    X(aie_trace_json_parser)     \
    X(aie_run_json_parser)       \
    /* rocprofv3 JSON, telemetry logs, legacy rocprof databases */ \
    X(rocprofv3_json_parser)     \
    X(rocm_smi_csv_parser)       \
    X(madengine_csv_parser)      \
    X(rocprof_v1_db_parser)      \
    X(rocprof_v1_json_parser)    \
    /* rocprof, nsys and nvprof CSV (analysis document only) */ \
    X(rocprof_copy_csv_parser)   \
    X(rocprof_hip_api_csv_parser) \
    X(rocprof_hsa_api_csv_parser) \
    X(rocprof_alloc_csv_parser)  \
    X(rocprof_counter_csv_parser) \
    X(rocprof_kernel_stats_csv_parser) \
    X(rocprof_api_stats_csv_parser) \
    X(rocprof_copy_stats_csv_parser) \
    X(rocprof_domain_stats_csv_parser) \
    X(nsys_kern_sum_csv_parser)  \
    X(nsys_mem_time_sum_csv_parser) \
    X(nsys_gpu_trace_csv_parser) \
    X(nvprof_gpu_trace_csv_parser) \
    X(legacy_rocprof_csv_parser)

#define DECLARE(p) extern const artefact_parser p;
FORMATS(DECLARE)
#define ENTRY(p) &p,
static const artefact_parser *const PARSERS[] = {FORMATS(ENTRY) NULL};

const artefact_parser *const *parser_list(void) { return PARSERS; }

const artefact_parser *parser_for(artefact_kind kind, const char *name, const uint8_t *head, size_t n) {
    const artefact_parser *best = NULL;
    int best_score = 0;
    for (size_t i = 0; PARSERS[i]; i++) {
        if (PARSERS[i]->kind != kind) continue;
        int score = PARSERS[i]->sniff(name, head, n);
        if (!best || score > best_score) { best = PARSERS[i]; best_score = score; }
    }
    return best;
}

void kernel_summary_free(kernel_summary *s) { kernel_table_free(&s->kernels); read_facts_free(&s->facts); }
void torch_summary_free(torch_summary *s) {
    free(s->pytorch_version);
    s->pytorch_version = NULL;
    kernel_table_free(&s->kernels);
    read_facts_free(&s->facts);
}
void telemetry_summary_free(telemetry_summary *s) {
    free(s->rocm_version);
    s->rocm_version = NULL;
    read_facts_free(&s->facts);
}
