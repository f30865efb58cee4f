/* ingest_analysis: the analysis document's part of the store's document (ingest_doc.h):
 * the fixed headline-number names, and ingest_doc_attach_analysis, which hands the store the
 * document, report, numbers and — when RunMetrics has no kernel table — the kernels
 * section's rows, so the store never sees an analysis struct. */
#include <string.h>

#include "core/ingest_doc.h"
#include "core/run_analysis.h"

const char *const INGEST_CLASS_KEYS[INGEST_KERNEL_CLASSES] = {
    "gemm", "attention", "communication", "memcpy", "memset", "elementwise", "reduction", "normalization",
    "convolution", "barrier", "other"};

#define CLASS_GAUGE(k) "classes.by_class." k ".total_ns"
const char *const INGEST_GAUGE_NAMES[IG_COUNT] = {
    [IG_SPAN_NS] = "timeline.run.span_ns",
    [IG_BUSY_NS] = "timeline.run.busy_ns",
    [IG_IDLE_NS] = "timeline.run.idle_ns",
    [IG_COMPUTE_NS] = "timeline.run.compute_ns",
    [IG_COMMUNICATION_NS] = "timeline.run.communication_ns",
    [IG_EXPOSED_COMMUNICATION_NS] = "timeline.run.exposed_communication_ns",
    [IG_OVERLAP_PCT] = "timeline.run.overlap_pct",
    [IG_STEP_MEAN_WALL_NS] = "steps.mean.wall_ns",
    [IG_CLASSES_TOTAL_NS] = "classes.total_ns",
    [IG_CLASS_FIRST + 0] = CLASS_GAUGE("gemm"),
    [IG_CLASS_FIRST + 1] = CLASS_GAUGE("attention"),
    [IG_CLASS_FIRST + 2] = CLASS_GAUGE("communication"),
    [IG_CLASS_FIRST + 3] = CLASS_GAUGE("memcpy"),
    [IG_CLASS_FIRST + 4] = CLASS_GAUGE("memset"),
    [IG_CLASS_FIRST + 5] = CLASS_GAUGE("elementwise"),
    [IG_CLASS_FIRST + 6] = CLASS_GAUGE("reduction"),
    [IG_CLASS_FIRST + 7] = CLASS_GAUGE("normalization"),
    [IG_CLASS_FIRST + 8] = CLASS_GAUGE("convolution"),
    [IG_CLASS_FIRST + 9] = CLASS_GAUGE("barrier"),
    [IG_CLASS_FIRST + 10] = CLASS_GAUGE("other"),
#define GPU_GAUGES(k) \
    [IG_GPU_FIRST + (k) * INGEST_GPU_FIELDS + IGF_DEVICE] = "telemetry.gpus." #k ".device", \
    [IG_GPU_FIRST + (k) * INGEST_GPU_FIELDS + IGF_UTIL_MEAN_PCT] = "telemetry.gpus." #k ".util_mean_pct", \
    [IG_GPU_FIRST + (k) * INGEST_GPU_FIELDS + IGF_POWER_MEAN_W] = "telemetry.gpus." #k ".power_mean_w", \
    [IG_GPU_FIRST + (k) * INGEST_GPU_FIELDS + IGF_VRAM_PEAK_BYTES] = "telemetry.gpus." #k ".vram_peak_bytes"
    GPU_GAUGES(0), GPU_GAUGES(1), GPU_GAUGES(2), GPU_GAUGES(3),
    GPU_GAUGES(4), GPU_GAUGES(5), GPU_GAUGES(6), GPU_GAUGES(7),
#undef GPU_GAUGES
};
_Static_assert(INGEST_GPU_SLOTS == 8, "GPU_GAUGES above names slots 0..7");

int ingest_gauge_index(const char *name) {
    for (int i = 0; name && i < IG_COUNT; i++)
        if (!strcmp(INGEST_GAUGE_NAMES[i], name)) return i;
    return -1;
}

/* Row i of the analysis's kernel rows. */
static bool analysis_kernel_at(const ingest_doc *d, size_t i, ingest_kernel *k) {
    if (i >= d->n_analysis_kernels) return false;
    *k = ((const ingest_kernel *)d->analysis_kernels)[i];
    return true;
}

void ingest_doc_attach_analysis(ingest_doc *d, const run_analysis *a) {
    d->analysis_json = a->json.data;
    d->report_md = a->report_md.data;
    d->gauges = a->headline.gauges;
    d->n_gauges = a->headline.n_gauges;
    ingest_kernel k;
    bool have_rows = d->kernel_at && d->kernel_at(d, 0, &k);
    if (!have_rows && a->headline.n_kernels) {   /* kernels only a format RunMetrics does not read carries */
        d->analysis_kernels = a->headline.kernels;
        d->n_analysis_kernels = a->headline.n_kernels;
        d->kernel_at = analysis_kernel_at;
        d->kernels_source = "analysis";
        d->kernels_formats = a->headline.kernel_formats.len ? a->headline.kernel_formats.data : NULL;
    }
}
