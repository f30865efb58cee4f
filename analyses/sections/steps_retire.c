/* steps_retire: retirement of the steps section's spans into running parts (see
 * steps_retire.h). */
#include "analyses/sections/steps_retire.h"

#include <string.h>

#include "base/i128.h"

void steps_note_reach(rank_data *d, int64_t a, int64_t b) {
    if (nsi_total_within(&d->retired, a, b) > 0) d->inexact++;
}

static size_t live_spans(const rank_data *d) {
    size_t n = 0;
    for (int p = 0; p < P_TIMED; p++) n += d->part[p].n;
    return n;
}

static bool retire(rank_data *d);

/* Adds the priority split of [a, b) over d's kept spans to acc. */
static bool add_split(const rank_data *d, int64_t a, int64_t b, int64_t *acc) {
    int64_t part[N_PARTS];
    if (!nsi_priority_split(d->part, P_TIMED, a, b, part)) return false;
    for (int p = 0; p < N_PARTS; p++) acc[p] += part[p];
    return true;
}

bool steps_retire_due(rank_data *d) {
    bool ok = retire(d);
    /* when little could be retired (no known step covers the older time), the next attempt
     * waits for another half bound of spans: the attempts stay O(spans / bound) */
    d->retire_next = live_spans(d) + STEPS_RETIRE_ABOVE / 2;
    return ok;
}

/* Splits and forgets the time of known steps below the watermark (steps_retire.h). */
static bool retire(rank_data *d) {
    int64_t oldest = INT64_MAX;
    for (int p = 0; p < P_TIMED; p++)
        if (d->part[p].n && d->part[p].v[0].start < oldest) oldest = d->part[p].v[0].start;
    if (oldest >= d->latest) return true;
    int64_t w = oldest + (d->latest - oldest) / 2;
    int64_t from = d->has_floor ? d->floor : INT64_MIN;
    if (w <= from) return true;
    ns_intervals win = {0};
    bool ok = true;
    i128 ranges_ns = 0;
    for (size_t i = 0; ok && i < d->nsteps; i++) {
        int64_t a = d->steps[i].start > from ? d->steps[i].start : from;
        int64_t b = d->steps[i].end < w ? d->steps[i].end : w;
        if (a < b) ok = nsi_add(&win, a, b), ranges_ns += b - a;
    }
    /* each step's part of the windows to the step, the windows' split to the run. When no
     * two steps' ranges overlap (they may touch: ProfilerStep#n+1 starts where #n ends),
     * which is when their lengths sum to the windows' total, the steps' ranges partition
     * the windows and the run's split is the sum of the steps' (the split is additive over
     * disjoint ranges): one sweep over the spans, not two. */
    bool disjoint = ranges_ns == (i128)nsi_total(&win);
    for (size_t i = 0; ok && i < d->nsteps; i++) {
        int64_t a = d->steps[i].start > from ? d->steps[i].start : from;
        int64_t b = d->steps[i].end < w ? d->steps[i].end : w;
        if (a >= b) continue;
        if (!disjoint) {
            ok = add_split(d, a, b, d->steps[i].parts);
            continue;
        }
        int64_t part[N_PARTS] = {0};
        ok = add_split(d, a, b, part);
        for (int p = 0; p < N_PARTS; p++) d->steps[i].parts[p] += part[p], d->retired_run[p] += part[p];
    }
    for (size_t k = 0; ok && !disjoint && k < win.n; k++)
        ok = add_split(d, win.v[k].start, win.v[k].end, d->retired_run);
    for (int p = 0; ok && p < P_TIMED; p++) ok = nsi_cut(&d->part[p], &win);
    if (ok) ok = nsi_merge(&d->retired, &win);
    nsi_free(&win);
    if (ok) d->floor = w, d->has_floor = true;
    return ok;
}

/* Whether any kept span of d meets a window of `win`. */
static bool live_meets(const rank_data *d, const ns_intervals *win) {
    for (int p = 0; p < P_TIMED; p++)
        if (nsi_meets(&d->part[p], win)) return true;
    return false;
}

bool steps_fold_retired(rank_data *dst, const rank_data *src) {
    dst->inexact += src->inexact;
    if (!src->retired.n && !dst->retired.n) return true;
    if (nsi_meets(&dst->retired, &src->retired) || live_meets(dst, &src->retired) || live_meets(src, &dst->retired))
        dst->inexact++;
    for (int p = 0; p < N_PARTS; p++) dst->retired_run[p] += src->retired_run[p];
    if (src->has_floor && (!dst->has_floor || src->floor > dst->floor)) dst->floor = src->floor, dst->has_floor = true;
    if (src->has_latest && (!dst->has_latest || src->latest > dst->latest))
        dst->latest = src->latest, dst->has_latest = true;
    return nsi_merge(&dst->retired, &src->retired);
}

bool steps_split_live(const rank_data *d, int64_t lo, int64_t hi, int64_t *part) {
    for (int p = 0; p < N_PARTS; p++) part[p] = 0;
    const ns_intervals *r = &d->retired;
    int64_t t = lo;
    size_t k0 = 0, k1 = r->n;   /* the first window ending after lo */
    while (k0 < k1) {
        size_t mid = k0 + (k1 - k0) / 2;
        if (r->v[mid].end <= lo) k0 = mid + 1;
        else k1 = mid;
    }
    for (size_t k = k0; t < hi && k < r->n; k++) {
        if (r->v[k].end <= t) continue;
        if (r->v[k].start >= hi) break;
        if (r->v[k].start > t && !add_split(d, t, r->v[k].start, part)) return false;
        t = r->v[k].end;
    }
    return t >= hi || add_split(d, t, hi, part);
}
