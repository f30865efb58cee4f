/* run_analysis: the run driver of the analysis document.
 *
 * One run directory -> the analysis document (`goblind analyze`, stored at ingest and served
 * by GET /runs/<id>/analysis) and its Markdown report. The inventory (core/run_inventory)
 * lists every source; each is read once through its format, and a sink fans its records out
 * to every section analysis wanting their type (analyses/section.h), on the thread reading
 * that source; end_source folds the per-source states in source order, then finish, render
 * and render_md run in registry order. Two sources are read at a time on two threads when
 * the caller allows it. A large file whose format resumes and joins may be read in two pieces
 * on the two threads when every analysis that would receive its records (what it wants of
 * the format's `emits`, with the kernel choice) is splittable or says split_ok for it: alone,
 * or with a much smaller neighbour read whole on the tail piece's thread first; an analysis
 * may still refuse the join (split_exact), and the file is then read again in one piece.
 *
 * Kernel source choice: kernels, copies and memsets are delivered from one family only,
 * device timestamps first. Among the sources whose format may carry kernels, the ones with a
 * device clock (a kernel-trace kind: rocprofv3 CSV, rocpd) come first in the inventory;
 * the first such format in registry order is chosen (all its files: every pid and rank);
 * the torch traces' kernels are delivered only when that family gave no kernel dispatch
 * (or there is none). Formats that carry no kernels (telemetry, analysis-only formats) are
 * always delivered whole. The `sources` section says which were chosen. */
#ifndef GOBLIN_RUN_ANALYSIS_H
#define GOBLIN_RUN_ANALYSIS_H

#include <stdbool.h>

#include "analyses/section.h"
#include "base/diag.h"
#include "base/strbuf.h"
#include "core/analysis_headline.h"
#include "core/run_inventory.h"
#include "core/source_read.h"

/* Optional passengers on some sources' bytes (core/run_ingest: RunMetrics' summary reading
 * of the same file), so that a file is read once for both. Called on the driver thread. */
typedef struct source_tap {
    /* The passenger for source s's whole read (or its first piece), NULL for none. */
    const source_tee *(*tee_for)(void *user, const inventory_source *s);
    /* s will be read in two pieces split at offset (head: the file's first bytes): the
     * passenger's tee for the second piece, NULL when it cannot follow (s is then read whole). */
    const source_tee *(*split)(void *user, const inventory_source *s, uint64_t offset, const uint8_t *head, size_t n);
    /* Both pieces read: true when the passenger joined them too. */
    bool (*join)(void *user, const inventory_source *s);
    /* The passenger forgets what it was fed: every byte comes again, as one piece. */
    bool (*restart)(void *user, const inventory_source *s);
    void *user;
} source_tap;

typedef struct run_analysis_options {
    analysis_config cfg;                     /* run_dir is set by run_analyze */
    parse_options parse;                     /* confine_root and limits (the daemon's) */
    const section_analysis *const *sections; /* NULL: the registry (section_analyses()) */
    int threads;                             /* 1 or 2 sources read at a time (0: 2) */
    int json_indent;                         /* 0: compact (stored), 2: for people */
    const source_tap *tap;                   /* NULL: no passengers */
} run_analysis_options;

typedef struct run_analysis {
    strbuf json;                 /* the document, NUL-terminated */
    strbuf report_md;            /* the Markdown report, NUL-terminated */
    run_inventory inventory;
    diag_list diag;              /* every warning, each naming its file */
    size_t sources_read;
    size_t sources_with_records; /* sources read: a record, or rows used or skipped with a reason */
    strbuf unreadable;           /* "path: why; ..." of the others (bounded) */
    analysis_headline headline;  /* the numbers and kernel rows the store keeps (analysis_headline.h) */
} run_analysis;

/* Sensible defaults for analysis_config (documented in OPERATIONS.md):
 * kernel_wait_threshold_ns 50000, short_kernel_ns 10000, npu_reference_dir NULL. */
void run_analysis_defaults(run_analysis_options *o);
/* Analyses run_dir into out. false only on allocation failure, anywhere in the reading (out is
 * then freed: a document that memory made partial, out->diag marked out_of_memory, is never
 * returned); bad or missing files are warnings, in the `sources` section and in out->diag. */
bool run_analyze(const char *run_dir, const run_analysis_options *opt, run_analysis *out);
/* run_analyze over an inventory of run_dir already built (run_inventory_build with the same
 * npu_reference_dir and confine_root) and its warnings: both are taken over (left empty), so
 * the directory is not walked again. */
bool run_analyze_inventory(const char *run_dir, run_inventory *inventory, diag_list *inventory_diag,
                           const run_analysis_options *opt, run_analysis *out);
void run_analysis_free(run_analysis *a);

#endif
