/* timeline: the `timeline` section — when the GPU was busy, with what, and why it was idle
 * (docs/ANALYSIS.md "timeline").
 *
 * Kernel dispatches, memory copies and memsets with a start and an end go, per (device,
 * stream) lane, into interval unions that merge on insert (analyses/structures/interval_set): busy
 * (everything), compute, communication and memcpy (kernel class groups, HTA's: memsets count
 * as memcpy). Launch calls (REC_API_CALL whose name says launch/memcpy/memset, with a
 * correlation id) are matched to their operation by correlation id in bounded maps
 * (analyses/structures/corr_map): the launch's start marks the island the operation starts (for
 * host_wait) and kernel start - launch end is the launch delay. finish() turns the lanes
 * into the numbers of every lane, every device and the run (unions across lanes), which
 * timeline_render.c prints. Not splittable: a kernel in one piece and its launch in the
 * other would match in the fold, but a correlation id seen twice (graph launches) could
 * match differently than in one pass. */
#include "analyses/sections/timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *tl_open(const analysis_config *cfg, diag_list *diag) {
    tl_state *s = calloc(1, sizeof *s);
    if (s) { s->cfg = cfg; s->diag = diag; s->rank = -1; s->delay_min = INT64_MAX; s->delay_max = INT64_MIN; }
    return s;
}

static void *tl_open_source(void *run, const source_ref *src) {
    tl_state *s = tl_open(((tl_state *)run)->cfg, ((tl_state *)run)->diag);
    if (s) {
        s->ignore_launches = src && !src->kernels_chosen;
        s->retire_above = ((tl_state *)run)->retire_above;
        s->rank = src && src->rank >= 0 ? src->rank : -1;
    }
    return s;
}

/* Whether lane l is (rank, device, stream). */
static bool same_lane(const tl_lane *l, int rank, bool has_dev, int64_t dev, bool has_str, int64_t str) {
    return l->rank == rank && l->has_device == has_dev && l->has_stream == has_str && (!has_dev || l->device == dev) &&
           (!has_str || l->stream == str);
}

/* The lane of (rank, device, stream) as the source and record give them; creates it. -1
 * past TL_MAX_LANES or on OOM (*oom set). */
static long lane_of(tl_state *s, int rank, bool has_dev, int64_t dev, bool has_str, int64_t str, bool *oom) {
    if (s->last_lane < s->n_lanes && same_lane(&s->lanes[s->last_lane], rank, has_dev, dev, has_str, str))
        return (long)s->last_lane;
    for (size_t i = 0; i < s->n_lanes; i++)
        if (same_lane(&s->lanes[i], rank, has_dev, dev, has_str, str)) return (long)(s->last_lane = i);
    if (s->n_lanes >= TL_MAX_LANES) return -1;
    if (s->n_lanes == s->cap_lanes) {
        size_t nc = s->cap_lanes ? s->cap_lanes * 2 : 8;
        tl_lane *p = realloc(s->lanes, nc * sizeof *p);
        if (!p) { *oom = true; return -1; }
        s->lanes = p;
        s->cap_lanes = nc;
    }
    tl_lane *l = &s->lanes[s->n_lanes];
    memset(l, 0, sizeof *l);
    l->rank = rank;
    l->has_device = has_dev, l->device = has_dev ? dev : 0;
    l->has_stream = has_str, l->stream = has_str ? str : 0;
    l->first_start = INT64_MAX, l->last_end = INT64_MIN;
    return (long)(s->last_lane = s->n_lanes++);
}

static int delay_bucket(int64_t d) {
    if (d < 64) return (int)d;
    int e = 63 - __builtin_clzll((unsigned long long)d);
    return 64 + (e - 6) * 32 + (int)((d >> (e - 5)) & 31);
}

static void delay_sample(tl_state *s, int64_t kernel_start, int64_t launch_end) {
    int64_t d = kernel_start - launch_end;
    if (d < 0) { s->delay_negative++; d = 0; }     /* clock skew: counted, clamped as HTA does */
    s->delay_count++;
    s->delay_sum = i128_add(s->delay_sum, d);
    if (d < s->delay_min) s->delay_min = d;
    if (d > s->delay_max) s->delay_max = d;
    if (d > TL_DELAY_OUTLIER_NS) s->delay_outliers++;
    s->hist[delay_bucket(d)]++;
}

/* An operation (waiting entry: a = its start, b = 1 for a kernel, lane) meets its launch
 * call (start, end or IV_NO_LAUNCH). */
static bool match_late(tl_state *s, const corr_entry *op, int64_t launch_start, int64_t launch_end) {
    if (op->b && launch_end != IV_NO_LAUNCH) delay_sample(s, op->a, launch_end);
    const tl_acc *acc = &s->lanes[op->lane].acc;
    if (acc->on && op->a < acc->cut) {   /* its island was retired: its gap was split without it */
        if (launch_start != IV_NO_LAUNCH) s->late_launches++;
        return true;
    }
    return iset_set_launch(&s->lanes[op->lane].set[TL_BUSY], op->a, launch_start);
}

static bool is_launch_name(const char *n, size_t len) {
    static const char *const WORDS[] = {"launch", "memcpy", "memset"};
    for (size_t w = 0; w < 3; w++) {
        size_t m = strlen(WORDS[w]);
        for (size_t i = 0; i + m <= len; i++) {
            size_t j = 0;
            while (j < m && (n[i + j] | 0x20) == WORDS[w][j]) j++;
            if (j == m) return true;
        }
    }
    return false;
}

/* A time the timeline can subtract and sum without overflow: |t| <= 2^61 ns (73 years;
 * real profiler clocks are below 2^53). Others make the operation untimed. */
#define TL_TIME_LIMIT ((int64_t)1 << 61)
static bool to_i64(i128 v, int64_t *out) {
    if (v < -(i128)TL_TIME_LIMIT || v > (i128)TL_TIME_LIMIT) return false;
    *out = (int64_t)v;
    return true;
}

static bool consume_launch(tl_state *s, const record *r) {
    int64_t start, end = IV_NO_LAUNCH;
    if (!(r->has & RF_CORRELATION) || !(r->has & RF_START) || !r->name || !is_launch_name(r->name, r->name_len))
        return true;
    if (!to_i64(r->start_ns, &start)) return true;
    if (r->has & RF_END) { if (!to_i64(r->end_ns, &end)) end = IV_NO_LAUNCH; }
    else if ((r->has & RF_DURATION) && !to_i64(i128_add(r->start_ns, r->duration_ns), &end)) end = IV_NO_LAUNCH;
    corr_entry op;
    if (corr_take(&s->waiting_ops, r->correlation_id, &op)) return match_late(s, &op, start, end);
    if (!corr_put(&s->launches, r->correlation_id, start, end, 0)) s->unmatched_overflow++;
    return true;
}

static bool tl_consume(void *st, const record *r) {
    tl_state *s = st;
    if (r->type == REC_API_CALL) return s->ignore_launches || consume_launch(s, r);
    int64_t start, end;
    bool timed = (r->has & RF_START) && to_i64(r->start_ns, &start);
    if (timed && (r->has & RF_END)) timed = to_i64(r->end_ns, &end);
    else if (timed && (r->has & RF_DURATION)) timed = to_i64(i128_add(r->start_ns, r->duration_ns), &end);
    else timed = false;
    if (!timed || end < start) { s->untimed_ops++; return true; }
    kernel_class k = r->type == REC_MEMORY_COPY ? KC_MEMCPY : r->type == REC_MEMSET ? KC_MEMSET
                                                            : kcc_class_of(&s->cache, r->name, r->name_len);
    if (k == KC_BARRIER) { s->barrier_packets++; return true; }   /* a queue waiting, not GPU work */
    bool oom = false;
    long li = lane_of(s, s->rank, r->has & RF_DEVICE, r->device, r->has & RF_STREAM, r->stream, &oom);
    if (oom) return false;
    if (li < 0) { s->dropped_lane_ops++; return true; }
    tl_lane *l = &s->lanes[li];
    s->any = true;
    bool kernel = r->type == REC_KERNEL_DISPATCH;
    int64_t launch = IV_NO_LAUNCH;
    if (r->has & RF_CORRELATION) {
        corr_entry ln;
        if (corr_take(&s->launches, r->correlation_id, &ln)) {
            launch = ln.a;
            if (kernel && ln.b != IV_NO_LAUNCH) delay_sample(s, start, ln.b);
        } else if (!corr_put(&s->waiting_ops, r->correlation_id, start, kernel, (uint32_t)li)) {
            s->unmatched_overflow++;
        }
    }
    int group = k == KC_COMMUNICATION ? TL_COMM : (k == KC_MEMCPY || k == KC_MEMSET) ? TL_MEMCPY : TL_COMPUTE;
    bool late = s->retire_times && start < s->cut;                  /* reaches into retired time */
    int64_t kept = timeline_fold_late(s, (size_t)li, group, start, end);   /* start, or the cut when late */
    if (late) launch = IV_NO_LAUNCH;
    /* a late operation ending at or below the cut was folded whole (a late instant splits no
     * gap: the gaps below the cut are counted) */
    if ((!late || end > kept) &&
        (!iset_add(&l->set[TL_BUSY], kept, end, launch) || !iset_add(&l->set[group], kept, end, IV_NO_LAUNCH)))
        return false;
    timeline_note_start(s, start);
    if (start < l->first_start) l->first_start = start;
    if (end > l->last_end) l->last_end = end;
    l->ops++;
    if (kernel) {
        s->kernels++;
        s->kernel_ns = i128_add(s->kernel_ns, end - start);
        if (s->cfg && end - start < s->cfg->short_kernel_ns) {
            s->short_kernels++;
            s->short_ns = i128_add(s->short_ns, end - start);
        }
    }
    return timeline_maybe_retire(s);
}

static void lanes_free(tl_state *s) {
    for (size_t i = 0; i < s->n_lanes; i++) {
        for (int k = 0; k < TL_SETS; k++) iset_free(&s->lanes[i].set[k]);
        timeline_acc_free(&s->lanes[i].acc);
    }
    for (size_t i = 0; i < s->n_dev_acc; i++) timeline_acc_free(&s->dev_acc[i].acc);
    free(s->dev_acc);
    s->dev_acc = NULL;
    s->n_dev_acc = 0;
    timeline_acc_free(&s->run_acc);
    free(s->lanes);
    s->lanes = NULL;
    s->n_lanes = s->cap_lanes = 0;
}

static void tl_close(void *st) {
    tl_state *s = st;
    if (!s) return;
    lanes_free(s);
    corr_free(&s->launches);
    corr_free(&s->waiting_ops);
    kcc_free(&s->cache);
    free(s->scopes);
    free(s->bins);
    free(s);
}

/* Folds one source's lanes, statistics and unmatched correlations into the run. */
static bool tl_end_source(void *run, void *src) {
    tl_state *r = run, *s = src;
    bool ok = !s->launches.oom && !s->waiting_ops.oom;     /* (an insert lost for lack of memory) */
    uint32_t *map = calloc(s->n_lanes + 1, sizeof *map);
    if (!map) ok = false;
    for (size_t i = 0; ok && i < s->n_lanes; i++) {
        tl_lane *sl = &s->lanes[i];
        bool oom = false;
        long li = lane_of(r, sl->rank, sl->has_device, sl->device, sl->has_stream, sl->stream, &oom);
        if (oom) { ok = false; break; }
        if (li < 0) { r->dropped_lane_ops += sl->ops; map[i] = UINT32_MAX; continue; }
        map[i] = (uint32_t)li;
        tl_lane *rl = &r->lanes[li];
        for (int k = 0; ok && k < TL_SETS; k++) {
            if (!rl->set[k].n && !rl->set[k].nb) {   /* the run's lane is empty: move, not copy */
                interval_set t = rl->set[k];
                rl->set[k] = sl->set[k];
                sl->set[k] = t;
                continue;
            }
            ok = iset_flush(&sl->set[k]) && iset_add_all(&rl->set[k], &sl->set[k]);
        }
        if (rl->acc.on && sl->acc.on) r->run_joins++;
        if (ok) ok = timeline_acc_join(&rl->acc, &sl->acc);
        if (sl->first_start < rl->first_start) rl->first_start = sl->first_start;
        if (sl->last_end > rl->last_end) rl->last_end = sl->last_end;
        rl->ops += sl->ops;
    }
    /* operations still waiting for a launch: an earlier source may hold it, else they wait on.
     * When the run has no waiting correlations and its lanes are the source's (the first
     * source), the loop below would put every entry into an empty map: the map moves instead
     * (the same entries; a trace of kernels without launch calls fills it: 16384 puts). */
    bool same_lanes = ok && r->n_lanes == s->n_lanes;
    for (size_t i = 0; same_lanes && i < s->n_lanes; i++) same_lanes = map[i] == i;
    if (same_lanes && !r->waiting_ops.count && !r->launches.count) {
        corr_map t = r->waiting_ops;
        r->waiting_ops = s->waiting_ops;
        s->waiting_ops = t;
    }
    for (size_t i = 0; ok && s->waiting_ops.count && i < corr_slots(&s->waiting_ops); i++) {
        const corr_entry *e = corr_slot(&s->waiting_ops, i);
        if (!e || map[e->lane] == UINT32_MAX) continue;
        corr_entry op = *e, ln;
        op.lane = map[e->lane];
        if (corr_take(&r->launches, op.corr, &ln)) ok = match_late(r, &op, ln.a, ln.b);
        else if (!corr_put(&r->waiting_ops, op.corr, op.a, op.b, op.lane)) r->unmatched_overflow++;
    }
    for (size_t i = 0; ok && s->launches.count && i < corr_slots(&s->launches); i++) {
        const corr_entry *e = corr_slot(&s->launches, i);
        if (!e) continue;
        corr_entry op;
        if (corr_take(&r->waiting_ops, e->corr, &op)) ok = match_late(r, &op, e->a, e->b);
        else if (!corr_put(&r->launches, e->corr, e->a, e->b, 0)) r->unmatched_overflow++;
    }
    for (size_t i = 0; ok && i < s->n_dev_acc; i++) {   /* the retired sums of devices and of the run */
        tl_dev_acc *d = &s->dev_acc[i];
        tl_acc *rd = timeline_dev_acc_of(r, d->rank, d->has_device, d->device);
        if (!rd) { ok = false; break; }
        if (rd->on && d->acc.on) r->run_joins++;
        ok = timeline_acc_join(rd, &d->acc);
    }
    if (ok && r->run_acc.on && s->run_acc.on) r->run_joins++;
    if (ok) ok = timeline_acc_join(&r->run_acc, &s->run_acc);
    if (s->retire_times && (!r->retire_times || s->cut > r->cut)) r->cut = s->cut;   /* before the sum below */
    r->retire_times += s->retire_times;
    r->late_ops += s->late_ops;
    r->late_launches += s->late_launches;
    r->run_joins += s->run_joins;
    if (s->reach_back > r->reach_back) r->reach_back = s->reach_back;
    for (int b = 0; b < TL_HIST_BUCKETS; b++) r->hist[b] += s->hist[b];
    r->delay_count += s->delay_count;
    r->delay_outliers += s->delay_outliers;
    r->delay_negative += s->delay_negative;
    r->delay_sum = i128_add(r->delay_sum, s->delay_sum);
    if (s->delay_min < r->delay_min) r->delay_min = s->delay_min;
    if (s->delay_max > r->delay_max) r->delay_max = s->delay_max;
    r->unmatched_overflow += s->unmatched_overflow;
    r->kernels += s->kernels;
    r->short_kernels += s->short_kernels;
    r->kernel_ns = i128_add(r->kernel_ns, s->kernel_ns);
    r->short_ns = i128_add(r->short_ns, s->short_ns);
    r->dropped_lane_ops += s->dropped_lane_ops;
    r->untimed_ops += s->untimed_ops;
    r->barrier_packets += s->barrier_packets;
    r->any |= s->any;
    free(map);
    tl_close(s);
    return ok && timeline_retire_run(r);
}

/* Busy ns of each bin of s's grid from a flushed busy union: each island is cut at the bin
 * edges, so the bins sum exactly to the union's total and none exceeds bin_ns. O(islands +
 * bins). */
static void busy_bins(const tl_state *s, const interval_set *busy, const tl_acc *acc, int64_t *out) {
    if (!out || !s->n_bins) return;
    memset(out, 0, s->n_bins * sizeof *out);
    if (acc && acc->on) timeline_fgrid_resample(&acc->grid, s->bin_start, s->bin_ns, s->n_bins, out);
    size_t k = 0;   /* the bin of the island's start: islands are sorted, so it only moves on */
    int64_t edge = s->bin_start + s->bin_ns;   /* the end of bin k */
    for (size_t i = 0; i < busy->n && k < s->n_bins; i++) {
        int64_t a = busy->v[i].start, e = busy->v[i].end;
        if (a < s->bin_start) a = s->bin_start;   /* never: the grid covers every lane */
        while (k < s->n_bins && a >= edge) k++, edge += s->bin_ns;
        while (a < e && k < s->n_bins) {
            int64_t stop = e < edge ? e : edge;
            out[k] += stop - a;
            a = stop;
            if (a == edge) k++, edge += s->bin_ns;
        }
    }
}

/* v limited to [0, hi] (hi >= 0). */
static int64_t clamp0(int64_t v, int64_t hi) { return v < 0 ? 0 : v > hi ? hi : v; }

/* The numbers of one scope from its four flushed unions, its retired sums (acc, NULL: none)
 * and its time extent (o->bins, when set, gets the busy time series on the run's grid). The
 * kept islands are folded into a copy of acc (timeline_retire.c): with nothing retired, the
 * sums of the whole unions. Exposed memcpy is TraceLens's: memcpy not hidden under compute or
 * communication, by inclusion-exclusion |M| - |M&K| - |M&C| + |M&C&K|. An idle gap ending at
 * an island whose operation's launch call started after the gap began is host_wait, else one
 * shorter than the threshold is kernel_wait, else other. When the fold joined time folded
 * twice (sources whose retired times overlap: tl_acc.overlaps), the union is unknown and the
 * scope is marked so (rendered null). Approximate folds (late operations) are kept within
 * their bounds (busy <= span, no part negative nor above its whole); exact ones already are.
 * run: the run scope, whose inexact folds are the section's `inexact_folds`. */
static bool scope_numbers(tl_state *s, tl_scope *o, interval_set *set, const tl_acc *acc, int64_t first, int64_t last,
                          int64_t threshold, bool run) {
    o->first = first, o->last = last;
    busy_bins(s, &set[TL_BUSY], acc, o->bins);
    tl_acc a;
    if (acc) a = *acc;
    else memset(&a, 0, sizeof a);
    a.grid.b = NULL;   /* the copy does not own (nor add to) the grid */
    if (!timeline_acc_fold(&a, set, INT64_MAX, threshold)) return false;
    if (run) s->inexact_total = a.inexact;   /* late operation pieces, overlapping joins, kept islands below a joined cut */
    o->unknown = a.overlaps > 0;
    o->split_unknown = a.split_unknown > 0;
    o->span = last > first ? last - first : 0;
    o->busy = clamp0(a.busy, o->span);
    o->idle = o->span - o->busy;
    o->compute = clamp0(a.compute, o->busy);
    o->comm = clamp0(a.comm, o->busy);
    o->memcpy = clamp0(a.memcpy, o->busy);
    o->comm_overlapped = clamp0(a.comm_overlapped, o->comm < o->compute ? o->comm : o->compute);
    o->exposed_comm = o->comm - o->comm_overlapped;
    i128 em = (i128)a.memcpy - a.m_k - a.m_c + a.m_c_k;
    o->exposed_memcpy = em < 0 ? 0 : em > o->memcpy ? o->memcpy : (int64_t)em;
    o->host_wait = clamp0(a.host_wait, o->idle);
    o->kernel_wait = clamp0(a.kernel_wait, o->idle - o->host_wait);
    o->gaps = a.gaps, o->gaps_with_launch = a.gaps_with_launch;
    o->other = o->idle - o->host_wait - o->kernel_wait;
    return true;
}

static int cmp_scope(const void *a, const void *b) {
    const tl_scope *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->has_device != y->has_device) return x->has_device ? -1 : 1;
    if (x->device != y->device) return x->device < y->device ? -1 : 1;
    if (x->has_stream != y->has_stream) return x->has_stream ? -1 : 1;
    return x->stream < y->stream ? -1 : x->stream > y->stream;
}

/* Whether lane l belongs to the device (rank, has_dev, dev). */
static bool on_device(const tl_lane *l, int rank, bool has_dev, int64_t dev) {
    return l->rank == rank && l->has_device == has_dev && (!has_dev || l->device == dev);
}

/* The scope o of a device or of the run whose only lane has the finished scope `lane` and
 * nothing retired (neither the lane nor the scope): the same unions and extent, so the same
 * numbers (the fold is not run again, finish's main cost on a one-stream trace); the scope's
 * own identity, and a fold with nothing retired has no inexact pieces (inexact_total 0). */
static void reuse_scope(tl_state *s, tl_scope *o, const tl_scope *lane, int rank, bool has_dev, int64_t dev, bool all) {
    int64_t *bins = o->bins;
    *o = *lane;
    o->bins = bins;
    if (bins && lane->bins) memcpy(bins, lane->bins, s->n_bins * sizeof *bins);
    o->has_device = has_dev && !all, o->device = dev;
    o->rank = all ? -1 : rank;
    o->has_stream = false, o->stream = 0;
    if (all) s->inexact_total = 0;
}

/* Unions of the lanes of one device (rank, has_dev, dev), or of all lanes, into one scope.
 * lane_scope: the finished scope of the device's (or run's) only lane, NULL when unknown. */
static bool union_scope(tl_state *s, tl_scope *o, int rank, bool has_dev, int64_t dev, bool all, int64_t threshold,
                        const tl_scope *lane_scope) {
    const tl_acc *acc = NULL;   /* the scope's retired sums */
    if (all) acc = &s->run_acc;
    else
        for (size_t i = 0; !acc && i < s->n_dev_acc; i++)
            if (s->dev_acc[i].rank == rank && s->dev_acc[i].has_device == has_dev && (!has_dev || s->dev_acc[i].device == dev))
                acc = &s->dev_acc[i].acc;
    interval_set set[TL_SETS];
    memset(set, 0, sizeof set);
    int64_t first = INT64_MAX, last = INT64_MIN;
    uint64_t ops = 0;
    bool ok = true;
    size_t picked = 0, only = 0;
    for (size_t i = 0; i < s->n_lanes; i++)
        if (all || on_device(&s->lanes[i], rank, has_dev, dev)) picked++, only = i;
    if (picked == 1) {   /* one lane: its own unions, no copy (the common single-stream run) */
        tl_lane *l = &s->lanes[only];
        if (lane_scope && !l->acc.on && !(acc && acc->on)) {   /* nothing retired: the lane's numbers */
            reuse_scope(s, o, lane_scope, rank, has_dev, dev, all);
            return true;
        }
        int64_t *bins = o->bins;
        memset(o, 0, sizeof *o);
        o->bins = bins;
        o->has_device = has_dev && !all, o->device = dev;
        o->rank = all ? -1 : rank;
        o->ops = l->ops;
        return scope_numbers(s, o, l->set, acc, l->first_start, l->last_end, threshold, all);
    }
    for (size_t i = 0; ok && i < s->n_lanes; i++) {
        tl_lane *l = &s->lanes[i];
        if (!all && !on_device(l, rank, has_dev, dev)) continue;
        for (int k = 0; ok && k < TL_SETS; k++) ok = iset_add_all(&set[k], &l->set[k]);
        if (l->first_start < first) first = l->first_start;
        if (l->last_end > last) last = l->last_end;
        ops += l->ops;
    }
    for (int k = 0; ok && k < TL_SETS; k++) ok = iset_flush(&set[k]);
    int64_t *bins = o->bins;
    memset(o, 0, sizeof *o);
    o->bins = bins;
    o->has_device = has_dev && !all, o->device = dev;
    o->rank = all ? -1 : rank;
    o->ops = ops;
    if (ok) ok = scope_numbers(s, o, set, acc, first, last, threshold, all);
    for (int k = 0; k < TL_SETS; k++) iset_free(&set[k]);
    return ok;
}

/* The bins' grid over the run's span (every lane's first start to last end): bin_ns =
 * ceil(span / TL_BINS) (at least 1 ns), as many bins as cover the span; one row of bins per
 * scope (lanes, at most as many devices, the run). */
static bool make_grid(tl_state *s) {
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (size_t i = 0; i < s->n_lanes; i++) {
        if (s->lanes[i].first_start < first) first = s->lanes[i].first_start;
        if (s->lanes[i].last_end > last) last = s->lanes[i].last_end;
    }
    int64_t span = last > first ? last - first : 0;
    s->bin_start = first;
    s->bin_ns = span > 0 ? (span + (int64_t)TL_BINS - 1) / (int64_t)TL_BINS : 1;
    s->n_bins = (size_t)((span + s->bin_ns - 1) / s->bin_ns);
    if (!s->n_bins) return true;
    s->bins = calloc((2 * s->n_lanes + 1) * s->n_bins, sizeof *s->bins);
    if (!s->bins) return false;
    for (size_t i = 0; i < 2 * s->n_lanes + 1; i++) s->scopes[i].bins = s->bins + i * s->n_bins;
    return true;
}

static bool tl_finish(void *run, const section_results *earlier) {
    (void)earlier;
    tl_state *s = run;
    if (s->launches.oom || s->waiting_ops.oom) return false;   /* a fold's insert lost for lack of memory */
    if (!s->any) { s->finished = true; return true; }
    int64_t threshold = s->cfg ? s->cfg->kernel_wait_threshold_ns : 0;
    if (s->dropped_lane_ops && s->diag)
        diag_add(s->diag, "timeline: more than %u device/stream lanes; %llu operations left out", TL_MAX_LANES,
                 (unsigned long long)s->dropped_lane_ops);
    /* at most n_lanes devices: lanes + devices + run */
    s->scopes = calloc(2 * s->n_lanes + 1, sizeof *s->scopes);
    if (!s->scopes) return false;
    if (!make_grid(s)) return false;
    for (size_t i = 0; i < s->n_lanes; i++) {
        tl_lane *l = &s->lanes[i];
        for (int k = 0; k < TL_SETS; k++)
            if (!iset_flush(&l->set[k])) return false;
        tl_scope *o = &s->scopes[i];
        o->rank = l->rank;
        o->has_device = l->has_device, o->device = l->device;
        o->has_stream = l->has_stream, o->stream = l->stream;
        o->ops = l->ops;
        if (!scope_numbers(s, o, l->set, &l->acc, l->first_start, l->last_end, threshold, false)) return false;
    }
    qsort(s->scopes, s->n_lanes, sizeof *s->scopes, cmp_scope);
    size_t nd = 0;
    for (size_t i = 0; i < s->n_lanes; i++) {
        const tl_scope *l = &s->scopes[i];
        const tl_scope *p = i ? &s->scopes[i - 1] : NULL;
        if (p && l->rank == p->rank && l->has_device == p->has_device && l->device == p->device) continue;
        const tl_scope *nx = i + 1 < s->n_lanes ? &s->scopes[i + 1] : NULL;   /* sorted: a device's lanes are adjacent */
        bool one = !nx || nx->rank != l->rank || nx->has_device != l->has_device || nx->device != l->device;
        if (!union_scope(s, &s->scopes[s->n_lanes + nd], l->rank, l->has_device, l->device, false, threshold,
                         one ? l : NULL))
            return false;
        nd++;
    }
    if (!union_scope(s, &s->scopes[s->n_lanes + nd], -1, false, 0, true, threshold, s->n_lanes == 1 ? &s->scopes[0] : NULL))
        return false;
    s->n_devices = nd;
    s->n_lane_scopes = s->n_lanes;
    s->n_scopes = s->n_lanes + nd + 1;
    s->finished = true;
    if (timeline_retired_any(s) && s->diag && (s->inexact_total || s->late_launches))
        diag_add(s->diag, "timeline: %llu operations or joins reached into retired time, %llu launches matched after "
                 "their operation was retired: the timeline's numbers are approximate (timeline.retired)",
                 (unsigned long long)s->inexact_total, (unsigned long long)s->late_launches);
    if (s->scopes[s->n_scopes - 1].unknown && s->diag)
        diag_add(s->diag, "timeline: sources (ranks or files) overlapping in time retired part of their time: the union of "
                 "their retired time is not known, so the run's busy, idle and their parts are null (timeline.retired; "
                 "each device and stream keeps its numbers)");
    else if (s->scopes[s->n_scopes - 1].split_unknown && s->diag)
        diag_add(s->diag, "timeline: a source's operations lie before time another source retired: the run's idle split "
                 "(host_wait, kernel_wait, other) and gap counts are null; busy and idle stay exact (timeline.retired)");
    /* the unions are no longer needed: give their memory back before the next analysis */
    lanes_free(s);
    corr_free(&s->launches);
    corr_free(&s->waiting_ops);
    kcc_free(&s->cache);
    return true;
}

/* Two pieces of a source whose kernels are not chosen fold exactly: it gets no kernels and
 * ignores the launches (ignore_launches), so each piece's state stays empty. */
static bool tl_split_ok(const source_ref *src) { return !src->kernels_chosen; }

static void tl_render(const void *run, jw_out *w) { timeline_render_json(run, w); }
static void tl_render_md(const void *run, strbuf *out) { timeline_render_md(run, out); }
static bool tl_number(const void *run, const char *path, double *out) { return timeline_number(run, path, out); }

const section_analysis timeline_section = {
    .key = "timeline",
    .wants = REC_BIT(REC_KERNEL_DISPATCH) | REC_BIT(REC_MEMORY_COPY) | REC_BIT(REC_MEMSET) | REC_BIT(REC_API_CALL),
    .fields = RF_DEVICE | RF_STREAM | RF_START | RF_END | RF_DURATION | RF_CORRELATION,
    .splittable = false,
    .split_ok = tl_split_ok,
    .open = tl_open,
    .open_source = tl_open_source,
    .consume = tl_consume,
    .end_source = tl_end_source,
    .finish = tl_finish,
    .render = tl_render,
    .render_md = tl_render_md,
    .number = tl_number,
    .close = tl_close,
};
