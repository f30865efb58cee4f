/* steps_ranks: the steps section's numbers over every rank (the run's step time is its slowest
 * rank's: core/run_headline) and the rule for ranges named like steps (rocTX / NVTX / user
 * annotations), which the section counts beside ProfilerStep#N. */
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "analyses/sections/steps_retire.h"

/* A range named like a training step, other than ProfilerStep#N: optionally "train" or
 * "training" and a separator, then "step" (any case), separators (' ', '_', '#', ':', '-'), and
 * digits only to the end ("step 3", "train_step_12", "Step#4"). Narrow on purpose: names such
 * as "Optimizer.step#SGD.step" are operators, not steps. */
bool steps_is_range_step(const char *s, size_t n) {
    if (!s) return false;
    size_t i = 0;
    if (n >= 5 && !strncasecmp(s, "train", 5)) {
        i = 5;
        if (n - i >= 3 && !strncasecmp(s + i, "ing", 3)) i += 3;
        while (i < n && (s[i] == '_' || s[i] == ' ' || s[i] == '-')) i++;
    }
    if (n - i < 4 || strncasecmp(s + i, "step", 4)) return false;
    i += 4;
    while (i < n && (s[i] == ' ' || s[i] == '_' || s[i] == '#' || s[i] == ':' || s[i] == '-')) i++;
    size_t digits = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++, digits++;
    return digits > 0 && i == n;
}

/* The rank with ProfilerStep ranges whose mean step is the longest (a synchronous job runs at
 * its slowest rank's pace), NULL when no rank has steps. */
static const rank_data *slowest_rank(const rank_data *ranks, size_t n) {
    const rank_data *best = NULL;
    for (size_t i = 0; i < n; i++)
        if (ranks[i].nsteps && (!best || ranks[i].mean_wall > best->mean_wall)) best = &ranks[i];
    return best;
}

bool steps_ranks_number(const rank_data *ranks, size_t n, const char *path, double *out) {
    if (!strncmp(path, "step_ranges.", 12)) {        /* the rank whose ranges' mean is the longest */
        const rank_data *s = NULL;
        for (size_t i = 0; i < n; i++) {
            const rank_data *x = &ranks[i];
            if (x->range_count && (!s || (double)x->range_sum_ns / (double)x->range_count >
                                             (double)s->range_sum_ns / (double)s->range_count))
                s = x;
        }
        if (!s) return false;
        if (!strcmp(path + 12, "mean.wall_ns")) return *out = (double)s->range_sum_ns / (double)s->range_count, true;
        if (!strcmp(path + 12, "count")) return *out = (double)s->range_count, true;
        return false;
    }
    if (!strncmp(path, "slowest_rank.", 13)) {
        const rank_data *s = slowest_rank(ranks, n);
        if (!s) return false;
        path += 13;
        if (!strcmp(path, "mean.wall_ns")) return *out = (double)s->mean_wall, true;
        if (!strcmp(path, "count")) return *out = (double)s->nsteps, true;
        if (!strcmp(path, "rank") && s->rank >= 0) return *out = (double)s->rank, true;
        return false;
    }
    return false;
}
