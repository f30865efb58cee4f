/* ingest_doc: what one parse of a run hands to the store, and nothing more.
 *
 * The store never sees parser or analysis structs: it takes the rendered RunMetrics
 * document, the headline numbers it keeps as columns, per-artefact facts (identity, how
 * the file was read, as JSON text) and the per-kernel rows through an iterator. Built from
 * a run_result by ingest_doc_build; valid while that result lives. */
#ifndef GOBLIN_INGEST_DOC_H
#define GOBLIN_INGEST_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "core/artefact_kind.h"

/* The waste budget's buckets in RunMetrics order: INGEST_WASTE_KEYS is core/waste_budget.h's
 * WASTE_BUCKETS (the same array), so storage and the API name them without that header. */
/* The longest series key a run can carry (the sidecar's labels.series; storage/run_series.h's
 * SERIES_KEY_MAX is the same length). */
#define INGEST_SERIES_KEY_MAX 128
#define INGEST_WASTE_BUCKETS 7
extern const char *const *const INGEST_WASTE_KEYS;

/* The name classes a kernel row's flags carry as stored (the bits of parsers/kernel_table.h's
 * KF_* with the same values, checked in ingest_doc.c), so storage can describe a row without
 * the parser header. */
enum { INGEST_KF_COLLECTIVE = 1 << 0, INGEST_KF_GEMM_WIDE = 1 << 2, INGEST_KF_GENERIC = 1 << 3 };

/* The numbers stored as columns for lists, Prometheus and /compare. step_seconds is the
 * step time the waste budget used (the one definition of it). hbm_avg_gb and the waste
 * buckets have flags of their own (a builder that does not set them stores them as unknown,
 * never as a 0 that looks measured); ingest_doc_build sets them with hbm_peak_gb and
 * step_seconds: the same samples, the split of that step time. */
typedef struct ingest_headline {
    double tokens_per_sec, mfu_pct, gpu_util_pct, hbm_peak_gb;
    bool has_hbm_avg_gb, has_waste;
    unsigned waste_unknown;               /* 1 << bucket: stored as unknown although has_waste */
    double hbm_avg_gb;
    double waste[INGEST_WASTE_BUCKETS];   /* seconds per step, INGEST_WASTE_KEYS order */
    bool has_step_seconds;
    double step_seconds;
    /* which numbers the parse measured (run_result_known): the others are stored as NULL,
     * so a measured 0 (an idle GPU) stays 0 and an unknown one is null */
    bool has_tokens_per_sec, has_mfu_pct, has_gpu_util_pct, has_hbm_peak_gb;
} ingest_headline;

typedef struct ingest_artefact {
    const char *kind;            /* artefact_kind_key() */
    const char *path;            /* the file, or the expected path when none was found */
    const char *format;          /* the format that read it, NULL when none did */
    const char *error;           /* its first warning, or NULL */
    const char *reading;         /* how it was read, JSON (core/read_facts_json), or NULL */
    bool present;
    uint64_t size, inode, bytes_parsed;
    int64_t mtime_ns;
    double parse_ms;
} ingest_artefact;

typedef struct ingest_kernel {
    const char *name;            /* valid UTF-8 */
    size_t name_len;
    int64_t calls, total_ns, min_ns, max_ns;   /* clamped to the int64 range */
    unsigned flags;              /* KF_* name classes */
    const char *kernel_class;    /* the classes section's key (analyses/kernel_class.h), NULL: none */
} ingest_kernel;

/* The analysis headline numbers stored per run (table run_gauges) for Prometheus and /compare:
 * a fixed set, each named by its dotted path in the analysis document ("timeline.run.busy_ns").
 * INGEST_GAUGE_NAMES[IG_*] is the name; the IG_CLASS_FIRST + k entries are the per-class
 * totals "classes.by_class.<INGEST_CLASS_KEYS[k]>.total_ns" in analyses/kernel_class.h's order
 * (checked by a unit test). A number the analysis does not know is absent, never 0. */
enum {
    IG_SPAN_NS, IG_BUSY_NS, IG_IDLE_NS, IG_COMPUTE_NS, IG_COMMUNICATION_NS, IG_EXPOSED_COMMUNICATION_NS,
    IG_OVERLAP_PCT, IG_STEP_MEAN_WALL_NS, IG_CLASSES_TOTAL_NS, IG_CLASS_FIRST,
    INGEST_KERNEL_CLASSES = 11,
    /* per GPU: the telemetry section's GPUs that have a device index, in its order (by device),
     * the first INGEST_GPU_SLOTS of them; slot k's field f is IG_GPU_FIRST + k * INGEST_GPU_FIELDS + f,
     * named "telemetry.gpus.<k>.<field>" (device, util_mean_pct, power_mean_w, vram_peak_bytes:
     * telemetry's section_number paths, INGEST_GAUGE_NAMES) */
    IG_GPU_FIRST = IG_CLASS_FIRST + INGEST_KERNEL_CLASSES,
    INGEST_GPU_SLOTS = 8,
    INGEST_GPU_FIELDS = 4,
    IG_COUNT = IG_GPU_FIRST + INGEST_GPU_SLOTS * INGEST_GPU_FIELDS
};
/* The per-GPU fields, in slot order: the device index, mean utilisation %, mean power W, peak
 * VRAM bytes. */
enum { IGF_DEVICE, IGF_UTIL_MEAN_PCT, IGF_POWER_MEAN_W, IGF_VRAM_PEAK_BYTES };
extern const char *const INGEST_GAUGE_NAMES[IG_COUNT];
extern const char *const INGEST_CLASS_KEYS[INGEST_KERNEL_CLASSES];
/* The IG_* index of a stored gauge name, -1 when it is not one of the fixed set. */
int ingest_gauge_index(const char *name);

typedef struct ingest_gauge {
    const char *name;            /* INGEST_GAUGE_NAMES[i] */
    double value;
} ingest_gauge;

typedef struct ingest_doc {
    const char *metrics_json;    /* the RunMetrics section, compact JSON (served by /metrics as stored) */
    const char *analysis_json;   /* the analysis document (GET /runs/<id>/analysis), compact JSON; NULL: none */
    const char *report_md;       /* the Markdown report (GET /runs/<id>/report.md); NULL: none */
    ingest_headline headline;
    ingest_artefact artefacts[ARTEFACT_KIND_COUNT];
    size_t n_artefacts;
    /* the per-kernel rows, in first-seen order: row i into *k, false past the last */
    bool (*kernel_at)(const struct ingest_doc *d, size_t i, ingest_kernel *k);
    /* where the kernel rows came from: "run_metrics" (RunMetrics' table: kernel trace CSV,
     * rocpd, or the torch fallback) or "analysis" (the kernels section, for a run whose kernels
     * only a format RunMetrics does not read carries); NULL when there are none. kernels_formats:
     * the formats that gave them, comma-separated, or NULL. */
    const char *kernels_source, *kernels_formats;
    /* the analysis headline numbers (known ones only; ingest_doc_attach_analysis) */
    const ingest_gauge *gauges;
    size_t n_gauges;
    /* private to the builder */
    const void *kernels;
    const void *analysis_kernels;
    size_t n_analysis_kernels;
    strbuf metrics, readings[ARTEFACT_KIND_COUNT];
} ingest_doc;

struct run_result;
/* The document of one parse (r must outlive it). false on allocation failure. */
bool ingest_doc_build(const struct run_result *r, ingest_doc *d);
void ingest_doc_free(ingest_doc *d);

/* About how many bytes d's rows take in the store: its texts (RunMetrics, the analysis document
 * and report, each artefact's facts) and its kernel rows, before SQLite's own overhead (pages,
 * indexes). For a refused ingest: how much room retention makes for it. */
uint64_t ingest_doc_bytes(const ingest_doc *d);

/* For a run whose verdict is failed: its numbers are not a measurement (a file a parse bound
 * cut short, an unreadable goblin file), so none is stored as if it were one: every headline
 * column and analysis gauge becomes unknown (null in /runs, /runs/<id>, absent from
 * Prometheus, '-' in the CLI and the dashboard). The documents themselves are kept. */
void ingest_doc_forget_numbers(ingest_doc *d);

struct run_analysis;
/* Adds the analysis document of the same run to d (core/ingest_analysis.c): its JSON and report,
 * its headline numbers, and its kernel rows when RunMetrics' kernel table is empty. a must
 * outlive d. */
void ingest_doc_attach_analysis(ingest_doc *d, const struct run_analysis *a);

#endif
