/* section_registry: the table of section analyses (see section_registry.h). */
#include "analyses/section_registry.h"

#include <string.h>

/* One line per analysis, in document order; derived analyses after their inputs. */
#define SECTIONS(X)                \
    /* an11: issue 11's analyses */ \
    X(device_section)              \
    X(kernels_section)             \
    X(memory_copies_section)       \
    X(api_section)                 \
    X(allocations_section)         \
    X(telemetry_section)           \
    X(counters_section)            \
    /* npu (issue 13) */           \
    X(npu_ops_analysis)            \
    X(npu_hotspots_analysis)       \
    X(aie_cores_analysis)          \
    X(aie_aggregate_analysis)      \
    /* an12a (issue 12): classes, timeline, then the derived recommendations */ \
    X(classes_section)             \
    X(timeline_section)            \
    /* an12b: steps, ops, phases, layers, ranks (issue 12) */ \
    X(steps_analysis)              \
    X(ops_analysis)                \
    X(phases_analysis)             \
    X(layers_analysis)             \
    X(ranks_analysis)              \
    X(recommendations_section)

#define DECLARE(a) extern const section_analysis a;
SECTIONS(DECLARE)
#define ENTRY(a) &a,
static const section_analysis *const SECTION_LIST[] = {SECTIONS(ENTRY) NULL};

const section_analysis *const *section_analyses(void) { return SECTION_LIST; }

const section_analysis *section_analysis_named(const char *key) {
    for (size_t i = 0; SECTION_LIST[i]; i++)
        if (!strcmp(SECTION_LIST[i]->key, key)) return SECTION_LIST[i];
    return NULL;
}

const void *section_result(const section_results *r, const char *key) {
    for (size_t i = 0; r && i < r->n; i++)
        if (r->analyses[i] && !strcmp(r->analyses[i]->key, key)) return r->states[i];
    return NULL;
}

bool section_number(const section_results *r, const char *key, const char *path, double *out) {
    for (size_t i = 0; r && i < r->n; i++)
        if (r->analyses[i] && !strcmp(r->analyses[i]->key, key))
            return r->states[i] && r->analyses[i]->number && r->analyses[i]->number(r->states[i], path, out);
    return false;
}
