/* section: the contract of an analysis that renders one section of the analysis document.
 *
 * The analysis document (`goblind analyze`, GET /runs/<id>/analysis) is one JSON object
 * whose keys are sections ("sources", "device", "kernels", "timeline", "npu_ops", ...).
 * Each section is one section_analysis, listed once in analyses/section_registry.c: adding
 * an analysis is one file plus one registry line (and the file's line in CMakeLists.txt's
 * source list; analyses/sections/counters_section.c is an example), and nothing in core/, storage/,
 * api/ or daemon/ changes.
 *
 * The driver (core/run_analysis) reads every source of a run (one file read by one
 * format; a run may hold several files of one kind, one per rank) and hands each source's
 * records to every analysis that wants their type:
 *
 *   run   = open(cfg)                                  once per run, driver thread
 *   src   = open_source(run, source)                   per source (or per piece of a
 *                                                      split read), driver thread
 *   consume(src, record) ...                           the source's records in file order,
 *                                                      on the thread reading that source:
 *                                                      touch only src, never run
 *   end_source(run, src)                               driver thread, in source order
 *                                                      (pieces in file order): folds src
 *                                                      into run and frees src
 *   finish(run, earlier)                               driver thread, registry order; a
 *                                                      derived analysis reads the finished
 *                                                      results of earlier ones here
 *   render(run, w)                                     the section's JSON value
 *   render_md(run, out)                                optional: its part of report.md
 *   close(run)
 *
 * A section whose inputs are absent renders null. Sources whose kernels repeat another's
 * (a rocprofv3 trace and the torch profile of one run) are chosen by the driver before
 * the analyses see them (source_ref.kernels_chosen): an analysis never counts one kernel
 * twice as long as it takes kernel dispatches only from chosen sources, which the driver
 * guarantees by not delivering the others' REC_KERNEL_DISPATCH, REC_MEMORY_COPY and
 * REC_MEMSET records. An analysis that joins kernels to the host trace's operators and steps
 * (section_analysis.host_clock) gets the host trace's instead, when the run has one.
 *
 * Split reads: the driver may read one large file as two pieces on two threads; the
 * pieces are two sources with the same source_ref (piece 0 then 1) folded by end_source in
 * file order. An analysis sets `splittable` only when folding the pieces in order gives
 * exactly what one sequential pass gives (integer sums, sets, unions). The driver reads a
 * file in one piece when an analysis that would receive records from it is neither
 * splittable nor says split_ok for it. "Would receive": a type it wants that the file's
 * format emits (artefact_parser.emits, 0: any), kernel dispatches, copies and memsets only
 * when delivered to it (kernels_chosen, or host_kernels_chosen with host_clock), exactly
 * as the driver delivers them. After both pieces are read and before either is folded,
 * split_exact (when set) may still refuse: the driver then forgets both pieces and reads
 * the file again in one piece (for bounds that one piece may hit where one pass would not).
 *
 * Memory: a state keeps only what its answer needs (per-name aggregates, per-stream
 * interval unions, bounded samples); never the records themselves. */
#ifndef GOBLIN_SECTION_H
#define GOBLIN_SECTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/i128.h"
#include "base/json_writer.h"
#include "base/strbuf.h"
#include "parsers/record.h"

#ifndef REC_BIT
#define REC_BIT(t) (1u << (t))
#endif

/* One source of a run, as the analyses see it. Strings live for the whole run. */
typedef struct source_ref {
    size_t index;            /* position in the run's source list (the inventory's order) */
    unsigned piece;          /* 0, or 1 for the second piece of a split read */
    const char *path;        /* relative to the run directory */
    const char *format;      /* the format that reads it (artefact_parser.name) */
    int rank;                /* the distributed rank the file belongs to, -1 when unknown */
    bool device_clock;       /* its kernel times come from the device (rocprofv3, rocpd, nsys),
                              * not from a host-side profiler */
    bool kernels_chosen;     /* its kernel dispatches / copies / memsets are delivered */
    bool host_kernels_chosen;/* the same for the analyses with host_clock set: a host trace's
                              * always, a device-clock source's only when the run has no host
                              * trace */
} source_ref;

/* Settings an analysis may read (config file keys, documented in OPERATIONS.md). */
typedef struct analysis_config {
    int64_t kernel_wait_threshold_ns;  /* timeline: an idle gap shorter than this is kernel_wait */
    int64_t short_kernel_ns;           /* timeline: a kernel shorter than this is short (10 us) */
    const char *npu_reference_dir;     /* msprof reference durations; NULL: <run>/reference */
    const char *run_dir;               /* the run directory being analysed */
    size_t list_rows;                  /* every list of the document (kernels.by_name,
                                        * api.by_function, npu_ops.items, steps.items, ...) shows
                                        * at most this many rows (section_listed); the others are
                                        * counted (and summed) beside it. 0: every row */
    struct kernel_rows_ctx *kernel_rows; /* the per-kernel export's labels and row writer
                                          * (analyses/kernel_rows.h); NULL in every other read */
} analysis_config;

/* How many of a list's n rows the document (and report.md) shows: at most cfg->list_rows,
 * all n when that is 0 or cfg is NULL. Every section cuts every list it renders by this, and
 * says beside the list how many rows (and what totals) were left out. */
size_t section_listed(const analysis_config *cfg, size_t n);
/* Beside a list cut by section_listed: listed_key: listed and, when some of the n rows were
 * left out, unlisted_key: {unit: how many}. */
void section_render_cut(jw_out *w, const char *listed_key, const char *unlisted_key, const char *unit, size_t listed,
                        size_t n);

/* The finished results of the analyses registered before the one asking: analysis i's run
 * state is states[i] (NULL when it did not run). */
typedef struct section_results {
    const struct section_analysis *const *analyses;
    void *const *states;
    size_t n;
} section_results;
/* The run state of the analysis whose section is `key`, after its finish(), or NULL when
 * no such analysis ran before the caller. Its layout is that analysis's own header. */
const void *section_result(const section_results *r, const char *key);

/* The number `path` of the finished section `key` (section_analysis.number), false when
 * that section did not run, has no number hook, or does not know the value. */
bool section_number(const section_results *r, const char *key, const char *path, double *out);

/* One per-name row of a kernel table, as the store keeps it (section_analysis.kernel_rows):
 * the row the section renders, handed over as it is, not as text. */
typedef struct section_kernel_row {
    const char *name;            /* its bytes as read (not sanitised), len of them */
    size_t len;
    uint64_t calls;
    i128 total_ns, min_ns, max_ns;
    bool minmax_known;           /* false: min and max are unknown (null in the section) */
    const char *kernel_class;    /* kernel_class_key() of the name */
} section_kernel_row;
/* Called with each row in the section's order; false stops (allocation failure). */
typedef bool (*section_kernel_row_fn)(void *user, const section_kernel_row *row);

typedef struct section_analysis {
    const char *key;         /* the section's key in the analysis document */
    unsigned wants;          /* REC_BIT()s of the record types consumed; 0 for a derived analysis */
    unsigned fields;         /* RF_* optional fields it reads (a format may skip parsing others) */
    bool splittable;         /* see the top of the file */
    /* Optional (NULL: `splittable` decides): true when folding two pieces of this source in
     * order gives exactly one pass's result even though the analysis is not splittable in
     * general (it ignores what it gets from this source, or keeps only the first value).
     * Asked only when the analysis would receive records from the source (see the top). */
    bool (*split_ok)(const source_ref *src);
    /* Optional (NULL: always): whether the second piece's state folded after the first's
     * (both read, neither folded) gives exactly one pass's result; false: the driver reads
     * the file again in one piece. For a splittable analysis whose bounds (pending lists,
     * map limits) may be hit differently by a piece than by one pass. */
    bool (*split_exact)(const void *first, const void *second);
    /* Takes kernel dispatches, copies and memsets from the run's host trace (torch.profiler)
     * whenever it has one, whatever the run's kernel source choice: the analysis joins them
     * to CPU operators, launch calls and profiler steps recorded on that trace's clock and
     * ids (steps, ops, phases, layers, ranks). Without a host trace it gets the chosen
     * device-clock family's, like every other analysis. */
    bool host_clock;
    /* NULL on allocation failure. cfg and diag live until close, and the driver may change
     * cfg->list_rows between two renders (the kernel rows the store keeps are rendered whole). */
    void *(*open)(const analysis_config *cfg, diag_list *diag);
    void *(*open_source)(void *run, const source_ref *src);     /* NULL on allocation failure */
    bool (*consume)(void *src, const record *r);                 /* false: out of memory */
    bool (*end_source)(void *run, void *src);                    /* folds and frees src; false: OOM */
    bool (*finish)(void *run, const section_results *earlier);   /* false: OOM */
    void (*render)(const void *run, jw_out *w);                  /* exactly one JSON value */
    void (*render_md)(const void *run, strbuf *out);             /* optional (NULL) */
    /* Optional (NULL): one number of its finished result by name, the dotted path of the
     * value in its rendered section ("run.busy_ns", "by_class.gemm.total_ns"), for derived
     * analyses that must not depend on its state's layout. false: unknown / absent. */
    bool (*number)(const void *run, const char *path, double *out);
    /* Optional (NULL): the rows the store keeps for GET /runs/<id>/kernels (the kernels
     * section): every row of its by_name table, in its order, when that table came from
     * dispatches (none from stats rows). false only when fn returned false or on allocation
     * failure. */
    bool (*kernel_rows)(const void *run, section_kernel_row_fn fn, void *user);
    void (*close)(void *run);
} section_analysis;

#endif
