/* analysis_registry: which analysis fills each artefact kind's summary. */
#include "analyses/analysis.h"

#include <stddef.h>

static const analysis *const ANALYSES[] = {
    &kernel_stats_analysis,
    &telemetry_stats_analysis,
    &torch_stats_analysis,
    NULL,
};

const analysis *analysis_for_kind(artefact_kind kind) {
    for (size_t i = 0; ANALYSES[i]; i++)
        if (ANALYSES[i]->kind == kind) return ANALYSES[i];
    return NULL;
}
