/* compare_diff: what moved between two runs, read from their stored analysis documents.
 *
 * /compare's document-based part: the step time (difference of the per-step wall-time medians
 * with a bootstrap interval), the per-kernel-name and per-CPU-operator diff (calls, total and
 * average on each side, Welch intervals with a Bonferroni-corrected level), the kernel classes,
 * the step breakdown's parts and the timeline's idle split, and the one-line summary that names
 * the step-time verdict and the top movers that are not noise. The method is in docs/ANALYSIS.md
 * "Comparing two runs"; the statistics are base/noise_stats. Nothing here reads a file or the
 * store: the caller hands over the two documents' text. */
#ifndef GOBLIN_COMPARE_DIFF_H
#define GOBLIN_COMPARE_DIFF_H

#include <stddef.h>

#include "base/json_writer.h"

/* The default and largest `rows` of the kernels and ops lists. */
#define COMPARE_DIFF_ROWS_DEFAULT 20
#define COMPARE_DIFF_ROWS_MAX 1000

typedef struct compare_diff compare_diff;

/* Parses both documents (either may be NULL or not JSON: its side is then unknown) and
 * computes every diff; `rows` bounds the kernels and ops lists. NULL only when out of memory
 * (json_load_checked tells it from a text that is not JSON). */
compare_diff *compare_diff_new(const char *base_doc, size_t base_len, const char *cand_doc,
                               size_t cand_len, size_t rows);
void compare_diff_free(compare_diff *d);

/* Writes the keys step_time, kernels, kernel_diff, ops, op_diff, classes and step_parts into the
 * open object of j. */
void compare_diff_write(const compare_diff *d, jw_out *j);
/* Writes the idle split (host_wait_seconds, kernel_wait_seconds, other_idle_seconds, memcpy and
 * exposed memcpy) as delta objects into the open `timeline` object of j. */
void compare_diff_timeline(const compare_diff *d, jw_out *j);
/* The one-line summary: "step 182 ms → 171 ms (−6.0 %, 95 % CI −7.1 … −4.8 %): faster; gemm
 * Cijk_… −9.1 ms/step, …" (at most three movers that are not noise). */
void compare_diff_summary(const compare_diff *d, char *out, size_t n);

#endif
