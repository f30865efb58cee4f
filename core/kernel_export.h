/* kernel_export: the per-kernel export of one run directory (`goblind export RUN_DIR --kernels`,
 * GET /runs/<id>/kernels.csv and kernels.jsonl): one row per kernel dispatch the kernels section
 * counts, with its labels (analyses/kernel_rows.h), written as CSV or JSON lines through a
 * caller's byte sink as the rows are read.
 *
 * Two reads of the run's sources through core/run_analysis: the first keeps the labelling
 * tables (steps, launches, operators, Python frames, layers), the second streams the rows in
 * file order (one source at a time). Memory: the tables and one read's buffers, never the
 * rows (docs/PERFORMANCE.md "Per-kernel export"). */
#ifndef GOBLIN_KERNEL_EXPORT_H
#define GOBLIN_KERNEL_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "core/run_analysis.h"

/* The CSV header (its first line, without the newline). The first eleven columns are fixed;
 * duration_ns (the kernels section's duration: the file's own, else end - start) and owner
 * ("operator", "python_frame" for a graph replay owned by its launch's Python frame, empty)
 * follow. */
#define KERNEL_EXPORT_HEADER \
    "start_ns,end_ns,device,stream,rank,name,class,phase,layer,cpu_op,python_frame,duration_ns,owner"

typedef enum { KEXPORT_CSV, KEXPORT_JSONL } kexport_format;

/* Takes the next bytes of the output; false: stop (the reader went away, a write failed). */
typedef bool (*kexport_write_fn)(void *user, const char *data, size_t len);

typedef struct kexport_result {
    uint64_t rows;           /* rows written */
    uint64_t labels_dropped; /* labelling-table entries past their bounds (labels absent) */
    bool write_failed;       /* the sink refused bytes: the output is cut short */
    bool cut;                /* a read stopped at a parse bound or a cancel: the rows are not all */
} kexport_result;

/* Writes the export of run_dir to w in fmt: the kernels of the kernels section, or with host the
 * host trace's (those the ops, phases and layers sections label, when the run has a host trace
 * beside a device-clock kernel source). opt: the parse options and analysis settings of an
 * analysis read (sections and threads are the export's own). Warnings go to diag. false on
 * allocation failure or when the sink refused bytes (res says which). */
bool kernel_export(const char *run_dir, const run_analysis_options *opt, kexport_format fmt, bool host,
                   kexport_write_fn w, void *user, kexport_result *res, diag_list *diag);

#endif
