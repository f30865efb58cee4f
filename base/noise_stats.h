/* noise_stats: is a difference between two runs larger than their noise? (ns_ prefix)
 *
 * Two tests, both deterministic and documented in docs/ANALYSIS.md "Comparing two runs":
 *  - ns_median_diff: per-step wall times of two runs; the difference of medians with a 95 %
 *    percentile-bootstrap interval (a fixed-seed generator, so the same inputs always give the
 *    same interval; each resample's median found from per-position counts over the sorted
 *    values, O(n));
 *  - ns_welch: two samples known only by count, mean and standard deviation (a kernel's calls);
 *    a Welch interval for the difference of means, at a confidence the caller chooses (the
 *    comparison divides 5 % by the number of names it tests, Bonferroni).
 * Both give the interval as a percentage of the base side's value and a verdict word.
 * Pure arithmetic: no I/O, no allocation beyond the bootstrap's scratch arrays. */
#ifndef GOBLIN_NOISE_STATS_H
#define GOBLIN_NOISE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The verdict words of /compare: `unknown` when a side has too few samples to say. */
typedef enum ns_verdict { NS_UNKNOWN, NS_FASTER, NS_SLOWER, NS_WITHIN_NOISE } ns_verdict;

/* Fewest per-step samples on each side before a step-time verdict is given. */
#define NS_MIN_STEPS 5
/* Fewest calls on each side before a per-name (Welch) verdict is given. */
#define NS_MIN_CALLS 5
/* Bootstrap resamples of ns_median_diff, and its generator's fixed seed. */
#define NS_BOOTSTRAP_ROUNDS 1000
#define NS_BOOTSTRAP_SEED 0x9e3779b97f4a7c15ULL

/* One comparison's outcome. Durations: lower is better, so a candidate whose interval lies
 * wholly below 0 is `faster`, wholly above 0 `slower`, and one that holds 0 `within_noise`. */
typedef struct ns_result {
    ns_verdict verdict;
    bool has_ci;                 /* false with NS_UNKNOWN, or a base value of 0 */
    double delta;                /* candidate - base (median or mean), in the inputs' unit */
    double delta_pct;            /* delta / base * 100 (has_ci) */
    double ci_low_pct, ci_high_pct;  /* the interval of delta, as % of the base value */
} ns_result;

/* The verdict's name: "faster", "slower", "within_noise", "unknown". */
const char *ns_verdict_name(ns_verdict v);

/* The median of v[0..n) (n > 0); v is reordered. */
double ns_median(double *v, size_t n);

/* Difference of medians of two samples (b - a) with a 95 % percentile-bootstrap interval:
 * NS_BOOTSTRAP_ROUNDS resamples of each side with replacement, from a generator seeded with
 * NS_BOOTSTRAP_SEED. Fewer than NS_MIN_STEPS values on a side: NS_UNKNOWN (the medians still set
 * *med_a / *med_b when the side has any value; has_med tells). false: out of memory. */
bool ns_median_diff(const double *a, size_t na, const double *b, size_t nb, ns_result *out,
                    double *med_a, double *med_b, bool *has_med);

/* Welch interval for mean_b - mean_a at two-sided level alpha (0.05: a 95 % interval), from
 * counts, means and sample standard deviations. Fewer than NS_MIN_CALLS on a side, or a base mean
 * of 0: NS_UNKNOWN. Both deviations 0 with different means: the interval is the point itself. */
void ns_welch(uint64_t na, double mean_a, double sd_a, uint64_t nb, double mean_b, double sd_b,
              double alpha, ns_result *out);

/* The two-sided Student t quantile t(1 - alpha/2, df) for real df > 0 and alpha in (0, 1): the
 * t distribution function (a regularized incomplete beta by its continued fraction) inverted by
 * bisection, to about 1e-9. */
double ns_t_quantile(double alpha, double df);

#endif
