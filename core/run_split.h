/* run_split: a large file read in two pieces on two threads by the run driver, the cut chosen
 * while it is read, and the pieces joined as one sequential read (see run_split.c). Private to
 * the driver (core/run_analysis.c). */
#ifndef GOBLIN_RUN_SPLIT_H
#define GOBLIN_RUN_SPLIT_H

#include <stdbool.h>

#include "core/run_job.h"

/* May source j be read in two pieces: two threads, a plain file of 16-256 MiB, a format that
 * can resume and join, and every analysis that would receive records from it splittable or
 * saying split_ok for it (analyses/section.h). Decided with j's kernel choice as it stands:
 * the caller sets it first. */
bool run_split_possible(const job *j, int threads);

/* Reads job a's source (states open) in two pieces when that works (b: its second piece,
 * states opened here; pre: n_pre smaller files read whole first, in order, on the tail
 * piece's thread, states open), else in one, read again after a split whose join failed.
 * a->split says whether b holds the second piece to fold after a. false on allocation
 * failure. */
bool run_split_read(job *a, job *b, job *const *pre, size_t n_pre, void *const *run, const analysis_config *cfg);

#endif
