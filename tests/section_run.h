/* section_run: runs one section analysis over an array of hand-built records split evenly
 * into sources, the way the run driver does (open; per source open_source, consume,
 * end_source; finish), for the timeline, classes and recommendations unit tests
 * (check_timeline.c, check_classes.c); a timed-record builder and a seeded random sequence. */
#ifndef GOBLIN_TESTS_SECTION_RUN_H
#define GOBLIN_TESTS_SECTION_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyses/section.h"

/* The configuration sr_run opens analyses with: kernel_wait_threshold_ns 50, short_kernel_ns 100. */
extern const analysis_config SR_CFG;
/* kernels_chosen of the last source (launch-space test); true unless a test sets it */
extern bool sr_chosen_last;
/* source i is rank i (multi-rank test); false unless a test sets it */
extern bool sr_rank_per_source;
/* Five kernel names of different classes: GEMM, communication, memcpy, elementwise, attention. */
extern const char *const SR_KERNEL_NAMES[5];

/* The next number of a fixed-seed sequence, in [0, n) (each Check test, forked, starts it afresh). */
unsigned sr_rnd(unsigned n);
/* Runs analysis an (with SR_CFG) over recs[0..n) cut
 * into n_sources equal sources; earlier: the sections it reads (NULL: none). The run is the
 * caller's to close. Fails the test on any refusal. */
void *sr_run(const section_analysis *an, const record *recs, size_t n, size_t n_sources,
             const section_results *earlier);
/* The number at path of a finished run (fails the test when absent). */
double sr_num(const section_analysis *an, void *run, const char *path);
/* A record of type t named name on (dev, stream) over [s, e) ns. */
record sr_op(record_type t, const char *name, int64_t dev, int64_t stream, i128 s, i128 e);

#endif
