/* section_registry: the table of section analyses (see section_registry.h). */
#include "analyses/section_registry.h"

#include <assert.h>
#include <string.h>

/* One line per analysis, in document order; derived analyses after their inputs. */
#define SECTIONS(X)                \
    /* device, kernels, copies, API, allocations, telemetry */ \
    X(device_section)              \
    X(kernels_section)             \
    X(memory_copies_section)       \
    X(api_section)                 \
    X(allocations_section)         \
    X(telemetry_section)           \
    X(counters_section)            \
    /* NPU operators and AIE cores */ \
    X(npu_ops_analysis)            \
    X(npu_hotspots_analysis)       \
    X(aie_cores_analysis)          \
    X(aie_aggregate_analysis)      \
    /* kernel classes, timeline (recommendations, derived, come last) */ \
    X(classes_section)             \
    X(timeline_section)            \
    /* torch trace: steps, ops, phases, layers, ranks */ \
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

size_t section_listed(const analysis_config *cfg, size_t n) {
    if (!cfg || !cfg->list_rows || cfg->list_rows >= n) return n;
    return cfg->list_rows;
}

void section_render_cut(jw_out *w, const char *listed_key, const char *unlisted_key, const char *unit, size_t listed,
                        size_t n) {
    assert(listed <= n);
    jw_key(w, listed_key);
    jw_int(w, (int64_t)listed);
    if (listed == n) return;
    jw_key(w, unlisted_key);
    jw_object_open(w);
    jw_key(w, unit);
    jw_int(w, (int64_t)(n - listed));
    jw_object_close(w);
}
