/* analysis_headline: what the store keeps of a finished analysis besides its text.
 *
 * After the run driver's finish (core/run_analysis), the fixed set of headline numbers
 * (INGEST_GAUGE_NAMES: timeline busy/idle/span/communication, mean step wall time, per-class
 * kernel time) is read through section_number — never through a section's state layout — and
 * the kernels section's per-name rows through its kernel_rows hook (the rows as structs, the
 * values its by_name table shows, docs/ANALYSIS.md). The daemon hands both to the store through
 * ingest_doc (core/ingest_analysis.c): Prometheus and /compare read the numbers as rows,
 * GET /runs/<id>/kernels serves the rows when RunMetrics has no kernel table. */
#ifndef GOBLIN_ANALYSIS_HEADLINE_H
#define GOBLIN_ANALYSIS_HEADLINE_H

#include <stdbool.h>
#include <stddef.h>

#include "analyses/section.h"
#include "base/strbuf.h"
#include "core/ingest_doc.h"

/* The analysis numbers core/run_headline takes a run's headline numbers from when RunMetrics'
 * own files do not give them (AH_NAMES: "<section>.<path>" read with section_number). */
enum { AH_STEP_MEAN_NS, AH_STEP_COUNT, AH_RANGE_MEAN_NS, AH_RANGE_COUNT, AH_SPAN_NS, AH_BUSY_NS, AH_UTIL_MEAN_PCT, AH_VRAM_PEAK_BYTES,
       AH_VRAM_MEAN_BYTES, AH_ALLOC_PEAK_BYTES, AH_ALLOC_REPORTED_PEAK_BYTES, AH_COUNT };

typedef struct analysis_headline {
    double in[AH_COUNT];             /* AH_* values, known when has_in[i] */
    bool has_in[AH_COUNT];
    ingest_gauge gauges[IG_COUNT];   /* the known numbers only, in IG_* order */
    size_t n_gauges;
    ingest_kernel *kernels;          /* the kernels section's rows (names owned), sorted by total time */
    size_t n_kernels;
    size_t kernels_skipped;          /* rows without min/max (stats-only rows): not stored */
    strbuf kernel_formats;           /* formats whose kernel dispatches were delivered, comma-separated */
} analysis_headline;

/* Fills h's numbers from the finished analyses (all of them: r->n is the registry's length).
 * false only on allocation failure. */
bool analysis_headline_collect(analysis_headline *h, const section_results *r);
/* Fills h's kernel rows from the kernels section's finished run state (an: that section, its
 * kernel_rows hook): every by_name row when its table came from dispatches, skipping
 * (counting) rows without min/max — the structs handed over, no text in between. false only
 * on allocation failure. */
bool analysis_headline_kernel_rows(analysis_headline *h, const section_analysis *an, const void *run);
/* Adds a format's name to h->kernel_formats once. false on allocation failure. */
bool analysis_headline_add_format(analysis_headline *h, const char *format);
void analysis_headline_free(analysis_headline *h);

#endif
