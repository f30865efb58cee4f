/* artefact_kind: the kinds of artefact a run has, and their keys in storage and the API.
 *
 * A kind is what an artefact is for (kernels, the training step structure, telemetry),
 * not how it is written: several formats may supply one kind. Storage and the daemon key
 * per-artefact facts by kind, so they include this header and nothing of the formats. */
#ifndef GOBLIN_ARTEFACT_KIND_H
#define GOBLIN_ARTEFACT_KIND_H

typedef enum {
    ARTEFACT_KERNEL_TRACE,
    ARTEFACT_TORCH_PROFILE,
    ARTEFACT_TELEMETRY,
    ARTEFACT_KIND_COUNT
} artefact_kind;

/* The kind of a format whose files feed only the analysis document (API and copy traces,
 * counters, stats reports, NPU and AIE traces, ...), not one of RunMetrics' three
 * artefacts: it has no slot in tables sized by ARTEFACT_KIND_COUNT, and RunMetrics'
 * discovery (core/run_files) skips it. */
#define ARTEFACT_ANALYSIS_ONLY ((artefact_kind)ARTEFACT_KIND_COUNT)

/* The kind's key in the database and in GET /runs/<id>: "kernel_trace", "torch_profile",
 * "telemetry" ("artefact" out of range). */
static inline const char *artefact_kind_key(artefact_kind k) {
    static const char *const KEYS[ARTEFACT_KIND_COUNT] = {"kernel_trace", "torch_profile", "telemetry"};
    return (unsigned)k < ARTEFACT_KIND_COUNT ? KEYS[k] : "artefact";
}

/* The source families a run's `profile` lists (docs/API.md "Profiles"), in this order;
 * core/run_headline maps each format to one of them. */
#define RUN_PROFILE_FAMILIES "goblin,kineto,rocprofv3,rocpd,rocprof,nsys,nvprof,smi,msprof,aie"

#endif
