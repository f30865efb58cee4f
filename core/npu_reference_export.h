/* npu_reference_export: a run's `npu_ops` in the msprof reference CSV layout, so that a
 * user's per-signature reference database can be refreshed from goblind's numbers.
 *
 * One CSV file per operator type (`<op type>.csv`), one row per signature: the base columns
 * `OP State, Accelerator Core, Input Shapes, Input Data Types, Input Formats, Output Shapes,
 * Output Data Types, Output Formats`, then `Average Duration(us)`, `Profiling Average
 * Duration(us)`, `Profiling Median Duration(us)`, `Profiling Std Duration(us)` and
 * `Profiling Average <counter>` per counter column the type's rows have. docs/ANALYSIS.md
 * "npu_ops: reference export" says what each cell holds. The files read back through the
 * msprof-reference-csv format as a reference (a round trip gives ratio 1.0 wherever the
 * run had no reference of its own). */
#ifndef GOBLIN_NPU_REFERENCE_EXPORT_H
#define GOBLIN_NPU_REFERENCE_EXPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "parsers/artefact.h"

/* What an export wrote. */
typedef struct npu_reference_summary {
    size_t files;            /* operator types written */
    size_t rows;             /* signatures written */
    size_t types_skipped;    /* operator types whose name is not a safe file name (warned) */
    size_t sources;          /* msprof files read (operator tables and references) */
    bool cut;                /* a read stopped at a parse bound or a cancel: the tables are not whole */
} npu_reference_summary;

/* Reads run_dir's msprof operator tables and references (reference_dir: the configured
 * npu_reference_dir, NULL for <run>/reference; parse: confine_root and limits, NULL for
 * none) through the npu_ops analysis and writes one CSV per operator type into out_dir
 * (created when missing; existing files of the same names are replaced). Warnings (each
 * naming its file) go to diag. false on an error writing out_dir or on allocation failure,
 * with the reason in diag; a run without any msprof operator writes no file and is true. */
bool npu_reference_export(const char *run_dir, const char *reference_dir, const parse_options *parse,
                          const char *out_dir, npu_reference_summary *sum, diag_list *diag);

/* `goblind export RUN_DIR --npu-reference DIR`: npu_reference_export with the defaults, its
 * warnings and errors on err. 0 when written, 1 on an error (a message on err). */
int npu_reference_export_dir(const char *run_dir, const char *out_dir, FILE *err);

#endif
