/* run_ingest: one read of a run directory for both of its results — RunMetrics (the waste
 * budget, core/run_parse's run_result) and the analysis document (core/run_analysis).
 *
 * The daemon's ingest needs both. One inventory of the run directory (core/run_inventory, one
 * walk) lists the sources and, from the same walk's listings, the three files RunMetrics
 * chooses (core/run_files). The run driver reads every source once; RunMetrics' files ride
 * on those reads as passengers: the bytes the driver
 * reads and inflates also feed the RunMetrics summary reading of the same file
 * (artefact_passenger: the kind's format and its summary analysis), with artefact_read()'s
 * checks, warnings and failure rules, so the result is bit-identical to run_parse(). A
 * format that shares_records (the torch profile) and a database format give the passenger
 * the records of the driver's one format state instead of bytes: the torch trace is
 * tokenized once, its REC_TRACE_EVENT records going to analyses/summaries/torch_stats. Then RunMetrics is derived from the summaries
 * (run_result_complete). A RunMetrics file the driver does not read (missing, or not in the
 * inventory) is read by artefact_read() as run_parse() would; the one other second read is
 * the reference's rule that needs the torch profile's kernels after a kernel trace that
 * failed half-way (an I/O error). */
#ifndef GOBLIN_RUN_INGEST_H
#define GOBLIN_RUN_INGEST_H

#include "core/run_analysis.h"
#include "core/run_parse.h"

/* run_parse(run_dir, opt, res) and run_analyze(run_dir, aopt, an) in one read of each file.
 * false only on allocation failure, anywhere in the reading (both results are then freed: a
 * result that memory made partial is never returned; the daemon reads the run again). */
bool run_ingest(const char *run_dir, const run_options *opt, const run_analysis_options *aopt, run_result *res,
                run_analysis *an);
/* run_ingest over an inventory of run_dir already built (run_inventory_build with aopt's
 * npu_reference_dir and confine_root) and its warnings, both taken over (left empty): the
 * directory is walked once per ingest, and RunMetrics' files are the inventory's choice. */
bool run_ingest_inventory(const char *run_dir, run_inventory *inventory, diag_list *inventory_diag,
                          const run_options *opt, const run_analysis_options *aopt, run_result *res, run_analysis *an);

#endif
