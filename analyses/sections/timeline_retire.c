/* timeline_retire: bounded memory for the `timeline` section (docs/ANALYSIS.md "timeline",
 * "Bounded memory").
 *
 * Every number of a timeline scope (busy, compute, communication, memcpy, their overlaps, the
 * idle gaps and their split, the busy bins) is a sum over time, so it is additive over any
 * partition of time into a prefix (-inf, T) and the rest. Once a source's lanes keep more
 * than retire_above busy islands, the state picks a cut T (the median island start of its
 * largest lane, but never later than latest_start - 2 * reach_back, where reach_back is the
 * largest distance an operation has arrived before the latest start seen), folds every
 * scope's part below T into running sums (tl_acc: one per lane, per device and for the run,
 * each device and the run from the union of the lanes' prefixes) and forgets those islands
 * (an island crossing T keeps [T, end)). The idle gap that spans T is counted when its end
 * is seen, from the last folded island's end (`tail_end`). Finish folds the kept islands into
 * a copy of the sums the same way, so a run whose operations arrive with no more disorder
 * than reach_back gets exactly the numbers of the unbounded computation.
 *
 * Not exact, counted and flagged (`timeline.retired.exact` false, with a warning): an
 * operation that starts below its state's cut (its part below the cut is added to the sums
 * as is, ignoring overlap); a launch call matched after its operation's island was retired
 * (that gap was split without it); two sources whose retired times overlap, or whose kept
 * islands reach below another source's cut, joined into one scope (tl_acc.overlaps: that scope's
 * numbers are then unknown and rendered null; kept islands wholly before the other's folded
 * time, tl_acc.split_unknown, leave busy exact and only the idle split null). The busy bins of retired
 * time go to a fixed TL_FINE_BINS power-of-two grid per scope, resampled proportionally onto
 * the TL_BINS output grid: each output bin is off by at most two fine bin widths. */
#include <stdlib.h>
#include <string.h>

#include "analyses/sections/timeline.h"

/* a + b, saturated: exact sums never come near 2^63 (a scope's time is below 2^62), but
 * approximate folds of hostile times could. */
static int64_t sat(int64_t a, int64_t b) {
    int64_t r;
    if (!__builtin_add_overflow(a, b, &r)) return r;
    return b > 0 ? INT64_MAX : INT64_MIN;
}
#define ADD(x, v) ((x) = sat((x), (v)))

/* ---- the fine grid ---- */

static int64_t fg_width(const tl_fgrid *g) { return (int64_t)1 << g->shift; }

/* x rounded down to a multiple of 2^shift (no shift of a negative value). */
static int64_t align_down(int64_t x, int shift) {
    int64_t w = (int64_t)1 << shift, r = x % w;
    return r < 0 ? x - r - w : x - r;
}

/* The start of bin k, and the bin holding time t (both in 128 bits: times are within +-2^61,
 * but 2048 bins of the widest grid reach 2^63). */
static i128 fg_pos(const tl_fgrid *g, size_t k) { return (i128)g->origin + (i128)k * fg_width(g); }
static size_t fg_bin(const tl_fgrid *g, i128 t) { return (size_t)((t - g->origin) / fg_width(g)); }

/* Halves the grid's resolution (bins summed in pairs onto the coarser aligned grid). */
static void fg_widen(tl_fgrid *g) {
    tl_fgrid old = *g;
    g->shift++;
    g->origin = align_down(old.origin, g->shift);
    int64_t tmp[TL_FINE_BINS];
    memcpy(tmp, g->b, sizeof tmp);
    memset(g->b, 0, sizeof tmp);
    for (size_t k = 0; k < TL_FINE_BINS; k++)
        if (tmp[k]) ADD(g->b[fg_bin(g, fg_pos(&old, k))], tmp[k]);
}

/* Whether [lo, hi) spans more than TL_FINE_BINS bins of width 2^shift (aligned). */
static bool too_wide(i128 lo, i128 hi, int shift) {
    i128 w = (i128)1 << shift;
    i128 a = lo >= 0 ? lo / w : -((-lo + w - 1) / w), b = (hi - 1) >= 0 ? (hi - 1) / w : -((-(hi - 1) + w - 1) / w);
    return b - a >= (i128)TL_FINE_BINS;
}

/* Makes the grid cover [lo, hi) (hi > lo) at a width of at least 2^min_shift. false: OOM. */
static bool fg_cover(tl_fgrid *g, int64_t lo, int64_t hi, int min_shift) {
    if (!g->b) {
        if (!(g->b = calloc(TL_FINE_BINS, sizeof *g->b))) return false;
        g->shift = min_shift;
        while (too_wide(lo, hi, g->shift)) g->shift++;
        g->origin = align_down(lo, g->shift);
        return true;
    }
    if (g->shift >= min_shift && lo >= g->origin && (i128)hi <= fg_pos(g, TL_FINE_BINS)) return true;
    while (g->shift < min_shift) fg_widen(g);
    for (;;) {
        size_t first = TL_FINE_BINS, last = 0;   /* the bins in use */
        for (size_t k = 0; k < TL_FINE_BINS; k++)
            if (g->b[k]) { if (first == TL_FINE_BINS) first = k; last = k; }
        i128 clo = first < TL_FINE_BINS && fg_pos(g, first) < lo ? fg_pos(g, first) : lo;
        i128 chi = first < TL_FINE_BINS && fg_pos(g, last + 1) > hi ? fg_pos(g, last + 1) : hi;
        if (too_wide(clo, chi, g->shift)) { fg_widen(g); continue; }
        int64_t norigin = align_down((int64_t)clo, g->shift);   /* clo: a time or a bin start below one */
        if (norigin != g->origin) {   /* re-base: move the used bins */
            tl_fgrid old = *g;
            int64_t tmp[TL_FINE_BINS];
            memcpy(tmp, g->b, sizeof tmp);
            memset(g->b, 0, sizeof tmp);
            g->origin = norigin;
            for (size_t k = 0; k < TL_FINE_BINS; k++)
                if (tmp[k]) ADD(g->b[fg_bin(g, fg_pos(&old, k))], tmp[k]);
        }
        return true;
    }
}

/* Adds the busy interval [a, e) to the grid, cut at its bin edges. false: OOM. */
static bool fg_add(tl_fgrid *g, int64_t a, int64_t e) {
    if (e <= a) return true;
    if (!fg_cover(g, a, e, 0)) return false;
    size_t k = fg_bin(g, a);
    while (a < e && k < TL_FINE_BINS) {
        i128 edge = fg_pos(g, k + 1);
        int64_t stop = (i128)e < edge ? e : (int64_t)edge;
        ADD(g->b[k], stop - a);
        k++;
        a = stop;
    }
    return true;
}

/* Adds src's bins into dst (src unchanged); with `clamp`, no bin above its width (two
 * overlapping unions: the busy time of a bin is at most the bin). false: OOM. */
static bool fg_merge(tl_fgrid *dst, const tl_fgrid *src, bool clamp) {
    if (!src->b) return true;
    size_t first = TL_FINE_BINS, last = 0;
    for (size_t k = 0; k < TL_FINE_BINS; k++)
        if (src->b[k]) { if (first == TL_FINE_BINS) first = k; last = k; }
    if (first == TL_FINE_BINS) return true;
    i128 top = fg_pos(src, last + 1);
    if (top > (i128)INT64_MAX) top = INT64_MAX;   /* only empty time lies above 2^61 */
    if (!fg_cover(dst, (int64_t)fg_pos(src, first), (int64_t)top, src->shift)) return false;
    for (size_t k = first; k <= last; k++) {   /* dst's bins are aligned and no narrower: one each */
        if (!src->b[k]) continue;
        int64_t *d = &dst->b[fg_bin(dst, fg_pos(src, k))];
        ADD(*d, src->b[k]);
        if (clamp && *d > fg_width(dst)) *d = fg_width(dst);
    }
    return true;
}

void timeline_fgrid_resample(const tl_fgrid *g, int64_t bin_start, int64_t bin_ns, size_t n, int64_t *out) {
    if (!g->b || !n || bin_ns <= 0) return;
    i128 grid_end = (i128)bin_start + (i128)n * bin_ns;
    for (size_t k = 0; k < TL_FINE_BINS; k++) {
        int64_t v = g->b[k];
        if (!v) continue;
        i128 p0 = fg_pos(g, k), q0 = fg_pos(g, k + 1);
        if (p0 < bin_start) p0 = bin_start;
        if (q0 > grid_end) q0 = grid_end;
        if (q0 <= p0) {   /* outside the output grid (only an approximate fold): the nearest bin */
            ADD(out[fg_pos(g, k) < bin_start ? 0 : n - 1], v);
            continue;
        }
        int64_t p = (int64_t)p0, q = (int64_t)q0;   /* inside the output grid: int64 times */
        int64_t len = q - p, given = 0;   /* split v over [p, q) in proportion, the rest to the last piece */
        size_t j = (size_t)((p - bin_start) / bin_ns);
        while (p < q && j < n) {
            int64_t edge = bin_start + (int64_t)(j + 1) * bin_ns;
            int64_t stop = q < edge ? q : edge;
            int64_t part = stop >= q ? v - given : (int64_t)((i128)v * (stop - p) / len);
            ADD(out[j], part);
            j++;
            given += part;
            p = stop;
        }
    }
}

/* ---- the retired sums ---- */


bool timeline_acc_fold(tl_acc *acc, const interval_set *set, int64_t hi, int64_t threshold) {
    const interval_set *b = &set[TL_BUSY];
    if (!b->n || b->v[0].start >= hi) return true;   /* every group's islands lie inside busy ones */
    bool retiring = hi != INT64_MAX;
    int64_t comm, compute, comm_overlapped;   /* one pass over both (finish's main cost) */
    iset_totals_below(&set[TL_COMM], &set[TL_COMPUTE], hi, &comm, &compute, &comm_overlapped);
    ADD(acc->compute, compute);
    ADD(acc->comm, comm);
    ADD(acc->memcpy, iset_total_below(&set[TL_MEMCPY], hi));
    ADD(acc->comm_overlapped, comm_overlapped);
    if (set[TL_MEMCPY].n && set[TL_MEMCPY].v[0].start < hi) {
        /* TraceLens's exposed memcpy by inclusion-exclusion (see scope_numbers in timeline.c) */
        interval_set mc = {0};
        if (!iset_intersect(&set[TL_MEMCPY], &set[TL_COMPUTE], &mc)) { iset_free(&mc); return false; }
        ADD(acc->m_k, iset_total_below(&mc, hi));
        ADD(acc->m_c, iset_overlap_below(&set[TL_MEMCPY], &set[TL_COMM], hi));
        ADD(acc->m_c_k, iset_overlap_below(&mc, &set[TL_COMM], hi));
        iset_free(&mc);
    }
    int64_t first = b->v[0].start, busy = 0;   /* busy: iset_total_below(b, hi), summed in this pass */
    for (size_t i = 0; i < b->n && b->v[i].start < hi; i++) {
        int64_t a = b->v[i].start, e = b->v[i].end < hi ? b->v[i].end : hi;
        busy += e - a;
        if (acc->on && a < acc->cut) {   /* reaches below time already folded: into it, or wholly before it */
            acc->inexact++;
            if (e > acc->lo) acc->overlaps++;
            else acc->split_unknown++;
        }
        if (acc->has_tail && a > acc->tail_end) {       /* an idle gap (a == tail_end: an island cut at a cut) */
            int64_t gap = a - acc->tail_end;
            int64_t launch = iset_launch(b, i);
            acc->gaps++;
            if (launch != IV_NO_LAUNCH) acc->gaps_with_launch++;
            if (launch != IV_NO_LAUNCH && launch > acc->tail_end) ADD(acc->host_wait, gap);
            else if (gap < threshold) ADD(acc->kernel_wait, gap);
        }
        if (!acc->has_tail || e > acc->tail_end) acc->tail_end = e;
        acc->has_tail = true;
        if (retiring && !fg_add(&acc->grid, a, e)) return false;
    }
    ADD(acc->busy, busy);
    if (retiring) {
        if (!acc->on || first < acc->lo) acc->lo = first;
        if (!acc->on || hi > acc->cut) acc->cut = hi;
        acc->on = true;
    }
    return true;
}

bool timeline_acc_join(tl_acc *dst, tl_acc *src) {
    if (!src->on) return true;
    if (!dst->on) {
        timeline_acc_free(dst);
        *dst = *src;
        memset(src, 0, sizeof *src);
        return true;
    }
    bool overlap = src->lo < dst->cut && dst->lo < src->cut;   /* both folded some common time */
    if (overlap) dst->inexact++, dst->overlaps++;
    if (!fg_merge(&dst->grid, &src->grid, overlap)) return false;
    ADD(dst->busy, src->busy), ADD(dst->compute, src->compute), ADD(dst->comm, src->comm), ADD(dst->memcpy, src->memcpy);
    if (overlap) {   /* the union is unknown: the merged grid, each bin clamped to its width, bounds it */
        int64_t busy = 0;
        for (size_t k = 0; dst->grid.b && k < TL_FINE_BINS; k++) ADD(busy, dst->grid.b[k]);
        dst->busy = busy;
        if (dst->compute > busy) dst->compute = busy;
        if (dst->comm > busy) dst->comm = busy;
        if (dst->memcpy > busy) dst->memcpy = busy;
    }
    ADD(dst->comm_overlapped, src->comm_overlapped);
    ADD(dst->m_k, src->m_k), ADD(dst->m_c, src->m_c), ADD(dst->m_c_k, src->m_c_k);
    ADD(dst->host_wait, src->host_wait), ADD(dst->kernel_wait, src->kernel_wait);
    dst->gaps += src->gaps, dst->gaps_with_launch += src->gaps_with_launch;
    if (src->has_tail && (!dst->has_tail || src->tail_end > dst->tail_end)) dst->tail_end = src->tail_end, dst->has_tail = true;
    if (src->lo < dst->lo) dst->lo = src->lo;
    if (src->cut > dst->cut) dst->cut = src->cut;
    dst->inexact += src->inexact;
    dst->overlaps += src->overlaps;
    dst->split_unknown += src->split_unknown;
    timeline_acc_free(src);
    return true;
}

void timeline_acc_free(tl_acc *acc) {
    free(acc->grid.b);
    memset(acc, 0, sizeof *acc);
}

tl_acc *timeline_dev_acc_of(tl_state *s, int rank, bool has_dev, int64_t dev) {
    for (size_t i = 0; i < s->n_dev_acc; i++) {
        tl_dev_acc *d = &s->dev_acc[i];
        if (d->rank == rank && d->has_device == has_dev && (!has_dev || d->device == dev)) return &d->acc;
    }
    tl_dev_acc *p = realloc(s->dev_acc, (s->n_dev_acc + 1) * sizeof *p);   /* few: at most one per lane */
    if (!p) return NULL;
    s->dev_acc = p;
    tl_dev_acc *d = &s->dev_acc[s->n_dev_acc++];
    memset(d, 0, sizeof *d);
    d->rank = rank, d->has_device = has_dev, d->device = has_dev ? dev : 0;
    return &d->acc;
}

/* Folds approximately the piece [a, e) of group `group` into acc (no overlap check). */
static bool acc_add_late(tl_acc *acc, int group, int64_t a, int64_t e, int64_t cut) {
    int64_t len = e - a;
    ADD(acc->busy, len);
    if (group == TL_COMPUTE) ADD(acc->compute, len);
    else if (group == TL_COMM) ADD(acc->comm, len);
    else ADD(acc->memcpy, len);
    acc->inexact++;
    if (!acc->on || a < acc->lo) acc->lo = a;
    if (!acc->on || cut > acc->cut) acc->cut = cut;
    acc->on = true;
    return fg_add(&acc->grid, a, e);
}

int64_t timeline_fold_late(tl_state *s, size_t li, int group, int64_t start, int64_t end) {
    if (!s->retire_times || start >= s->cut) return start;
    int64_t e = end < s->cut ? end : s->cut;
    tl_lane *l = &s->lanes[li];
    s->late_ops++;
    if (e > start) {   /* an OOM here only loses the bins of this piece */
        tl_acc *d = timeline_dev_acc_of(s, l->rank, l->has_device, l->device);
        (void)acc_add_late(&l->acc, group, start, e, s->cut);
        if (d) (void)acc_add_late(d, group, start, e, s->cut);
        (void)acc_add_late(&s->run_acc, group, start, e, s->cut);
    }
    return end > s->cut ? s->cut : end;
}

void timeline_note_start(tl_state *s, int64_t start) {
    if (!s->has_latest || start > s->latest_start) { s->latest_start = start, s->has_latest = true; return; }
    if (s->latest_start - start > s->reach_back) s->reach_back = s->latest_start - start;
}

/* Folds the union of the prefixes below hi of the lanes picked by `pick` (device of lane d,
 * or all lanes when d < 0) into acc. false: OOM. */
static bool fold_union(tl_state *s, tl_acc *acc, long d, int64_t hi, int64_t threshold) {
    size_t picked = 0, only = 0;
    const tl_lane *dl = d >= 0 ? &s->lanes[d] : NULL;
    for (size_t i = 0; i < s->n_lanes; i++) {
        const tl_lane *l = &s->lanes[i];
        if (!dl || (l->rank == dl->rank && l->has_device == dl->has_device && (!l->has_device || l->device == dl->device)))
            picked++, only = i;
    }
    if (picked == 1) return timeline_acc_fold(acc, s->lanes[only].set, hi, threshold);
    interval_set u[TL_SETS];
    memset(u, 0, sizeof u);
    bool ok = true;
    for (size_t i = 0; ok && i < s->n_lanes; i++) {
        const tl_lane *l = &s->lanes[i];
        if (dl && !(l->rank == dl->rank && l->has_device == dl->has_device && (!l->has_device || l->device == dl->device)))
            continue;
        for (int k = 0; ok && k < TL_SETS; k++) ok = iset_add_prefix(&u[k], &l->set[k], hi);
    }
    for (int k = 0; ok && k < TL_SETS; k++) ok = iset_flush(&u[k]);
    if (ok) ok = timeline_acc_fold(acc, u, hi, threshold);
    for (int k = 0; k < TL_SETS; k++) iset_free(&u[k]);
    return ok;
}

/* Retires everything below hi: every lane, every device, the run. false: OOM. */
static bool retire_below(tl_state *s, int64_t hi) {
    int64_t threshold = s->cfg ? s->cfg->kernel_wait_threshold_ns : 0;
    for (size_t i = 0; i < s->n_lanes; i++)
        if (!timeline_acc_fold(&s->lanes[i].acc, s->lanes[i].set, hi, threshold)) return false;
    for (size_t i = 0; i < s->n_lanes; i++) {
        const tl_lane *l = &s->lanes[i];
        bool seen = false;   /* the device's first lane folds it */
        for (size_t j = 0; !seen && j < i; j++)
            seen = s->lanes[j].rank == l->rank && s->lanes[j].has_device == l->has_device &&
                   (!l->has_device || s->lanes[j].device == l->device);
        if (seen) continue;
        tl_acc *d = timeline_dev_acc_of(s, l->rank, l->has_device, l->device);
        if (!d || !fold_union(s, d, (long)i, hi, threshold)) return false;
    }
    if (!fold_union(s, &s->run_acc, -1, hi, threshold)) return false;
    for (size_t i = 0; i < s->n_lanes; i++)
        for (int k = 0; k < TL_SETS; k++) iset_drop_prefix(&s->lanes[i].set[k], hi);
    if (!s->retire_times || hi > s->cut) s->cut = hi;
    s->retire_times++;
    return true;
}

/* The largest lane (busy islands, flushed or not) and the total over lanes. */
static size_t kept_islands(const tl_state *s, size_t *big) {
    size_t n = 0, most = 0;
    *big = 0;
    for (size_t i = 0; i < s->n_lanes; i++) {
        size_t m = s->lanes[i].set[TL_BUSY].n + s->lanes[i].set[TL_BUSY].nb;
        n += m;
        if (m > most) most = m, *big = i;
    }
    return n;
}

bool timeline_retire_run(tl_state *r) {
    size_t bound = 2 * (r->retire_above ? r->retire_above : TL_RETIRE_ABOVE), big;
    while (kept_islands(r, &big) > bound) {
        for (size_t i = 0; i < r->n_lanes; i++)
            for (int k = 0; k < TL_SETS; k++)
                if (!iset_flush(&r->lanes[i].set[k])) return false;
        const interval_set *b = &r->lanes[big].set[TL_BUSY];
        if (!b->n) return true;
        int64_t hi = b->v[b->n / 2].start;
        if (b->n / 2 == 0) hi = b->v[0].end;   /* one island left in the largest lane: all of it */
        if (!retire_below(r, hi)) return false;
    }
    return true;
}

bool timeline_maybe_retire(tl_state *s) {
    size_t bound = s->retire_above ? s->retire_above : TL_RETIRE_ABOVE;
    size_t every = bound / 4 < 1024 ? bound / 4 + 1 : 1024;
    if (++s->ops_since_check < every) return true;
    s->ops_since_check = 0;
    size_t big, n = kept_islands(s, &big);
    if (n <= (s->retire_next ? s->retire_next : bound)) return true;
    for (size_t i = 0; i < s->n_lanes; i++)
        for (int k = 0; k < TL_SETS; k++)
            if (!iset_flush(&s->lanes[i].set[k])) return false;
    const interval_set *b = &s->lanes[big].set[TL_BUSY];
    int64_t hi = b->v[b->n / 2].start;
    i128 safe = (i128)s->latest_start - 2 * (i128)s->reach_back;   /* twice the worst disorder seen so far */
    if (safe < (i128)hi) hi = (int64_t)safe;   /* below hi, so it fits */
    bool any = false;
    for (size_t i = 0; !any && i < s->n_lanes; i++)
        any = s->lanes[i].set[TL_BUSY].n && s->lanes[i].set[TL_BUSY].v[0].start < hi;
    if (!any || (s->retire_times && hi <= s->cut)) {   /* too much disorder: try again later */
        s->retire_next = n + n / 2;
        return true;
    }
    s->retire_next = 0;
    return retire_below(s, hi);
}

bool timeline_retired_any(const tl_state *s) { return s->retire_times > 0; }
