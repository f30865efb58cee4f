/* check_timeline_retire: the timeline's bounded memory (analyses/sections/timeline_retire.c) — the
 * interval_set prefix helpers against a 1-ns bitmap; the timeline section with retirement
 * (a bound of a few dozen islands) against the same records without it and against a
 * brute-force bitmap union: exact on time-ordered and locally disordered streams (every scope,
 * every number, bins within two fine bin widths and summing to busy), flagged (`exact`
 * false, numbers bounded by the late operations' length) when operations reach back into
 * retired time, and flagged when two overlapping ranks' retired sums join in the run. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/structures/interval_set.h"
#include "analyses/section.h"
#include "analyses/sections/timeline.h"

extern const section_analysis timeline_section;

static uint64_t rng_state = 777;
static unsigned rnd(unsigned n) {
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((rng_state >> 33) % n);
}

enum { W = 4000 };

/* iset_total_below, iset_overlap_below, iset_add_prefix and iset_drop_prefix against bitmaps. */
START_TEST(prefix_helpers_match_bitmap) {
    for (int round = 0; round < 300; round++) {
        static unsigned char a_bits[W], b_bits[W];
        memset(a_bits, 0, W), memset(b_bits, 0, W);
        interval_set a = {0}, b = {0};
        int n = 1 + (int)rnd(round < 150 ? 30 : 3000);
        for (int i = 0; i < n; i++) {
            int s = (int)rnd(W - 1), len = 1 + (int)rnd(80), e = s + len > W ? W : s + len;
            bool to_a = rnd(2);
            ck_assert(iset_add(to_a ? &a : &b, s, e, to_a && rnd(2) ? s - 5 : IV_NO_LAUNCH));
            for (int t = s; t < e; t++) (to_a ? a_bits : b_bits)[t] = 1;
        }
        ck_assert(iset_flush(&a) && iset_flush(&b));
        int64_t hi = (int64_t)rnd(W + 10);
        int64_t ta = 0, both = 0, rest = 0;
        for (int t = 0; t < W; t++) {
            if (t < hi) ta += a_bits[t], both += a_bits[t] && b_bits[t];
            else rest += a_bits[t];
        }
        ck_assert_int_eq(iset_total_below(&a, hi), ta);
        ck_assert_int_eq(iset_overlap_below(&a, &b, hi), both);
        interval_set p = {0};
        ck_assert(iset_add_prefix(&p, &a, hi) && iset_flush(&p));
        ck_assert_int_eq(iset_total(&p), ta);
        for (size_t i = 0; i < p.n; i++) ck_assert(p.v[i].end <= hi);
        size_t before = a.n;
        iset_drop_prefix(&a, hi);
        ck_assert_int_eq(iset_total(&a), rest);
        ck_assert(a.n <= before);
        for (size_t i = 0; i < a.n; i++) {
            ck_assert(a.v[i].start >= hi);
            for (int64_t t = a.v[i].start; t < a.v[i].end; t++) ck_assert(a_bits[t]);
            if (i) ck_assert_int_gt(a.v[i].start, a.v[i - 1].end);
        }
        iset_free(&a), iset_free(&b), iset_free(&p);
    }
}
END_TEST

static const analysis_config CFG = {.kernel_wait_threshold_ns = 50, .short_kernel_ns = 100, .run_dir = "."};
static const char *const NAMES[] = {"Cijk_Alik_Bljk_BBS", "ncclDevKernel_AllReduce_Sum_bf16", "__amd_rocclr_copyBuffer",
                                    "void at::native::vectorized_elementwise_kernel<4>"};

/* Runs the timeline over recs[0..n) split evenly into n_sources sources (source i is rank
 * i when ranks), with the given retirement bound (0: the default 2^18, never reached here). */
static tl_state *run_tl(const record *recs, size_t n, size_t n_sources, bool ranks, size_t retire_above) {
    diag_list diag;
    diag_init(&diag);
    tl_state *run = timeline_section.open(&CFG, &diag);
    ck_assert_ptr_nonnull(run);
    run->retire_above = retire_above;
    for (size_t s = 0; s < n_sources; s++) {
        source_ref ref = {.index = s, .path = "x", .format = "test", .rank = ranks ? (int)s : -1, .kernels_chosen = true};
        void *src = timeline_section.open_source(run, &ref);
        ck_assert_ptr_nonnull(src);
        for (size_t i = s * n / n_sources; i < (s + 1) * n / n_sources; i++) ck_assert(timeline_section.consume(src, &recs[i]));
        ck_assert(timeline_section.end_source(run, src));
    }
    section_results none = {0};
    ck_assert(timeline_section.finish(run, &none));
    run->diag = NULL;
    diag_free(&diag);
    return run;
}

static record op(int k, int64_t dev, int64_t stream, int64_t s, int64_t e, uint64_t corr) {
    record r = {.type = k == 4 ? REC_MEMORY_COPY : REC_KERNEL_DISPATCH, .has = RF_DEVICE | RF_STREAM | RF_START | RF_END,
                .device = dev, .stream = stream, .start_ns = s, .end_ns = e, .name = k == 4 ? NULL : NAMES[k]};
    r.name_len = r.name ? strlen(r.name) : 0;
    if (corr) r.has |= RF_CORRELATION, r.correlation_id = corr;
    return r;
}

static record launch(uint64_t corr, int64_t s) {
    record r = {.type = REC_API_CALL, .has = RF_CORRELATION | RF_START | RF_END, .correlation_id = corr,
                .start_ns = s, .end_ns = s + 3, .name = "hipLaunchKernel", .name_len = 15};
    return r;
}

enum { SPAN = 400000, OPS = 6000 };
static unsigned char bits[5][4][SPAN];   /* [lane 0-3 | run][busy, compute, comm, memcpy][t] */

/* A time-ordered stream of OPS operations on 2 devices x 2 streams (launch calls before most
 * kernels; one in 12 a zero-duration instant), into recs; fills `bits`. Returns the record count. */
static size_t gen_ordered(record *recs, int lanes) {
    memset(bits, 0, sizeof bits);
    size_t n = 0;
    int64_t t = 0;
    for (int i = 0; i < OPS; i++) {
        t += (int64_t)rnd(130);
        int lane = (int)rnd((unsigned)lanes), k = (int)rnd(5);
        int64_t s = t, e = s + 1 + (int64_t)rnd(rnd(10) ? 60 : 400);
        if (!rnd(12)) e = s;   /* an instant: splits a gap, no busy time */
        if (e > SPAN) break;
        uint64_t corr = (uint64_t)i + 1;
        if (rnd(3)) recs[n++] = launch(corr, s - (int64_t)rnd(120));
        recs[n++] = op(k, lane / 2, lane % 2, s, e, corr);
        int group = k == 4 || k == 2 ? 3 : k == 1 ? 2 : 1;
        for (int64_t x = s; x < e; x++) bits[lane][0][x] = bits[lane][group][x] = bits[4][0][x] = bits[4][group][x] = 1;
    }
    return n;
}


/* Two sources: recs[0..n0) is rank 0, recs[n0..n) rank 1. */
static tl_state *run_tl2(const record *recs, size_t n0, size_t n, size_t retire_above) {
    diag_list diag;
    diag_init(&diag);
    tl_state *run = timeline_section.open(&CFG, &diag);
    ck_assert_ptr_nonnull(run);
    run->retire_above = retire_above;
    for (size_t s = 0; s < 2; s++) {
        source_ref ref = {.index = s, .path = "x", .format = "test", .rank = (int)s, .kernels_chosen = true};
        void *src = timeline_section.open_source(run, &ref);
        ck_assert_ptr_nonnull(src);
        for (size_t i = s ? n0 : 0; i < (s ? n : n0); i++) ck_assert(timeline_section.consume(src, &recs[i]));
        ck_assert(timeline_section.end_source(run, src));
    }
    section_results none = {0};
    ck_assert(timeline_section.finish(run, &none));
    run->diag = NULL;
    diag_free(&diag);
    return run;
}

/* Every number of every scope equal in a and b. */
static void same_numbers(const tl_state *a, const tl_state *b) {
    ck_assert_uint_eq(a->n_scopes, b->n_scopes);
    ck_assert_int_eq(a->bin_ns, b->bin_ns);
    for (size_t i = 0; i < a->n_scopes; i++) {
        const tl_scope *x = &a->scopes[i], *y = &b->scopes[i];
        ck_assert_int_eq(x->span, y->span);
        ck_assert_int_eq(x->busy, y->busy);
        ck_assert_int_eq(x->compute, y->compute);
        ck_assert_int_eq(x->comm, y->comm);
        ck_assert_int_eq(x->memcpy, y->memcpy);
        ck_assert_int_eq(x->comm_overlapped, y->comm_overlapped);
        ck_assert_int_eq(x->exposed_memcpy, y->exposed_memcpy);
        ck_assert_int_eq(x->host_wait, y->host_wait);
        ck_assert_int_eq(x->kernel_wait, y->kernel_wait);
        ck_assert_int_eq(x->other, y->other);
        ck_assert_uint_eq(x->gaps, y->gaps);
        ck_assert_uint_eq(x->gaps_with_launch, y->gaps_with_launch);
    }
}

/* The bins of every scope: sum to busy; each within two fine bin widths of the exact ones. */
static void bins_close(const tl_state *exact, const tl_state *ret) {
    int64_t span = exact->scopes[exact->n_scopes - 1].span, fine = 1;
    while (fine * (int64_t)(TL_FINE_BINS - 1) < 2 * span) fine *= 2;   /* no grid is wider */
    for (size_t i = 0; i < ret->n_scopes; i++) {
        int64_t sum = 0;
        for (size_t k = 0; k < ret->n_bins; k++) {
            int64_t d = ret->scopes[i].bins[k] - exact->scopes[i].bins[k];
            ck_assert_msg(d <= 2 * fine && d >= -2 * fine, "bin %zu off by %lld (fine %lld)", k, (long long)d, (long long)fine);
            sum += ret->scopes[i].bins[k];
        }
        ck_assert_int_eq(sum, ret->scopes[i].busy);
    }
}

/* The run's numbers against the bitmap. */
static void run_matches_bitmap(const tl_state *s) {
    const tl_scope *o = &s->scopes[s->n_scopes - 1];
    int64_t busy = 0, comp = 0, comm = 0, mc = 0, comm_x = 0, mc_exposed = 0;
    for (int x = 0; x < SPAN; x++) {
        busy += bits[4][0][x], comp += bits[4][1][x], comm += bits[4][2][x], mc += bits[4][3][x];
        comm_x += bits[4][2][x] && bits[4][1][x];
        mc_exposed += bits[4][3][x] && !bits[4][1][x] && !bits[4][2][x];
    }
    ck_assert_int_eq(o->busy, busy);
    ck_assert_int_eq(o->compute, comp);
    ck_assert_int_eq(o->comm, comm);
    ck_assert_int_eq(o->memcpy, mc);
    ck_assert_int_eq(o->comm_overlapped, comm_x);
    ck_assert_int_eq(o->exposed_memcpy, mc_exposed);
}

static record recs[4 * OPS + 64];   /* launches and operations (up to 2 x OPS; OPS per rank in the ranks test) */

/* Time-ordered: retired (many times) == unbounded == bitmap, exact, one or four lanes. */
START_TEST(ordered_is_exact) {
    for (int round = 0; round < 6; round++) {
        size_t n = gen_ordered(recs, round % 2 ? 4 : 1);
        tl_state *full = run_tl(recs, n, 1, false, 0), *ret = run_tl(recs, n, 1, false, 32 + 16 * (size_t)round);
        ck_assert(!timeline_retired_any(full));
        ck_assert(timeline_retired_any(ret));
        ck_assert_uint_gt(ret->retire_times, 3);
        ck_assert_uint_eq(ret->inexact_total, 0);
        ck_assert_uint_eq(ret->late_launches, 0);
        same_numbers(full, ret);
        run_matches_bitmap(ret);
        bins_close(full, ret);
        strbuf b = {0};   /* `retired` only when it happened */
        jw_out w;
        jw_begin(&w, &b, 0);
        timeline_section.render(ret, &w);
        strbuf_terminate(&b);
        ck_assert_ptr_nonnull(strstr(b.data, "\"retired\":{\"times\":"));
        ck_assert_ptr_nonnull(strstr(b.data, "\"exact\":true"));
        strbuf_free(&b);
        jw_begin(&w, &b, 0);
        timeline_section.render(full, &w);
        strbuf_terminate(&b);
        ck_assert_ptr_null(strstr(b.data, "\"retired\""));
        strbuf_free(&b);
        timeline_section.close(full);
        timeline_section.close(ret);
    }
}
END_TEST

/* Locally disordered (records swapped within windows of 8): reach_back holds the cut back,
 * still exact. */
START_TEST(local_disorder_is_exact) {
    for (int round = 0; round < 4; round++) {
        size_t n = gen_ordered(recs, 4);
        for (size_t i = 0; i + 8 < n; i += 8)
            for (int j = 0; j < 6; j++) {
                size_t x = i + rnd(8), y = i + rnd(8);
                record t = recs[x]; recs[x] = recs[y]; recs[y] = t;
            }
        tl_state *full = run_tl(recs, n, 1, false, 0), *ret = run_tl(recs, n, 1, false, 48);
        ck_assert_uint_gt(ret->retire_times, 3);
        ck_assert_int_gt(ret->reach_back, 0);
        ck_assert_uint_eq(ret->inexact_total, 0);
        same_numbers(full, ret);
        run_matches_bitmap(ret);
        bins_close(full, ret);
        timeline_section.close(full);
        timeline_section.close(ret);
    }
}
END_TEST

/* Operations that reach far back into retired time: flagged (`exact` false, late_operations),
 * and busy stays between the exact value and the exact value plus the late operations' length. */
START_TEST(reach_back_is_flagged) {
    for (int round = 0; round < 4; round++) {
        size_t n = gen_ordered(recs, 1 + 3 * (round % 2));
        int64_t late_len = 0;
        for (int i = 0; i < 20; i++) {   /* appended at the end, early in time */
            int64_t s = (int64_t)rnd(SPAN / 4), e = s + 1 + (int64_t)rnd(50);
            int lane = (int)rnd(round % 2 ? 4 : 1);
            recs[n++] = op(0, lane / 2, lane % 2, s, e, 0);
            late_len += e - s;
            for (int64_t x = s; x < e; x++) bits[lane][0][x] = bits[lane][1][x] = bits[4][0][x] = bits[4][1][x] = 1;
        }
        tl_state *full = run_tl(recs, n, 1, false, 0), *ret = run_tl(recs, n, 1, false, 40);
        ck_assert_uint_gt(ret->late_ops, 0);
        ck_assert_uint_gt(ret->inexact_total, 0);
        const tl_scope *x = &full->scopes[full->n_scopes - 1], *y = &ret->scopes[ret->n_scopes - 1];
        ck_assert_int_ge(y->busy, x->busy);
        ck_assert_int_le(y->busy, x->busy + late_len);
        ck_assert_int_eq(y->span, x->span);
        ck_assert_int_eq(y->host_wait + y->kernel_wait + y->other, y->idle);
        strbuf b = {0};
        jw_out w;
        jw_begin(&w, &b, 0);
        timeline_section.render(ret, &w);
        strbuf_terminate(&b);
        ck_assert_ptr_nonnull(strstr(b.data, "\"exact\":false"));
        strbuf_free(&b);
        timeline_section.close(full);
        timeline_section.close(ret);
    }
}
END_TEST

/* Ranks over the same time (2 and 4), each retiring, and the run's state retiring the
 * ranks' remainders: every lane and device exact, the run's union joined from retired sums:
 * flagged, busy bounded. */
START_TEST(overlapping_ranks_join_flagged) {
    size_t n = gen_ordered(recs, 1), ranks = 2 + 2 * (size_t)_i;
    if (n > OPS) n = OPS;
    for (size_t r = 1; r < ranks; r++) memcpy(recs + r * n, recs, n * sizeof *recs);   /* the same operations */
    tl_state *full = run_tl(recs, ranks * n, ranks, true, 0), *ret = run_tl(recs, ranks * n, ranks, true, 40);
    ck_assert_uint_gt(ret->retire_times, 3);
    for (size_t i = 0; i + 1 < ret->n_scopes; i++) {   /* lanes and devices */
        ck_assert_int_eq(ret->scopes[i].busy, full->scopes[i].busy);
        ck_assert_int_eq(ret->scopes[i].kernel_wait, full->scopes[i].kernel_wait);
    }
    ck_assert_uint_gt(ret->inexact_total, 0);
    const tl_scope *x = &full->scopes[full->n_scopes - 1], *y = &ret->scopes[ret->n_scopes - 1];
    ck_assert_int_ge(y->busy, x->busy);   /* bounded: the retired sums' grid clamped per bin */
    ck_assert_int_le(y->busy, y->span);
    timeline_section.close(full);
    timeline_section.close(ret);
}
END_TEST


/* Review (s4-rev): rank 0 retires (bound 40), rank 1 has a few long operations over the same
 * time and never retires. The run's union would fold rank 1's kept islands below rank 0's cut
 * on top of rank 0's retired busy time (busy > span): the run scope is unknown instead (null
 * numbers, span kept, busy never above it), and every device and stream keeps its exact
 * numbers. */
START_TEST(small_rank_beside_retired_rank_bounded) {
    size_t n = gen_ordered(recs, 1);
    if (n > OPS) n = OPS;
    int64_t end = 0;
    for (size_t i = 0; i < n; i++) if (recs[i].type != REC_API_CALL && (int64_t)recs[i].end_ns > end) end = (int64_t)recs[i].end_ns;
    size_t m = n;
    for (int k = 0; k < 20; k++) recs[m++] = op(0, 0, 0, end * k / 20, end * (k + 1) / 20, 0);   /* rank 1: busy all along */
    tl_state *full = run_tl2(recs, n, m, 0), *ret = run_tl2(recs, n, m, 40);
    const tl_scope *x = &full->scopes[full->n_scopes - 1], *y = &ret->scopes[ret->n_scopes - 1];
    ck_assert_uint_gt(ret->retire_times, 0);
    ck_assert(!x->unknown);
    ck_assert_int_le(x->busy, x->span);
    ck_assert(y->unknown);                  /* the run's union is unknown: rendered null */
    ck_assert_int_eq(y->span, x->span);     /* the span and the counts stay */
    ck_assert_uint_eq(y->ops, x->ops);
    ck_assert_int_le(y->busy, y->span);     /* and nothing out of bounds even internally */
    ck_assert_int_ge(y->idle, 0);
    ck_assert_int_ge(y->other, 0);
    double v;
    ck_assert(!timeline_section.number(ret, "run.busy_ns", &v));
    ck_assert(!timeline_section.number(ret, "run.busy_pct", &v));
    ck_assert(timeline_section.number(ret, "run.span_ns", &v) && v == (double)x->span);
    ck_assert_uint_eq(ret->n_scopes, full->n_scopes);
    for (size_t i = 0; i + 1 < ret->n_scopes; i++) {   /* every stream and device: exact */
        const tl_scope *a = &full->scopes[i], *b = &ret->scopes[i];
        ck_assert(!b->unknown);
        ck_assert_int_eq(b->busy, a->busy);
        ck_assert_int_eq(b->idle, a->idle);
        ck_assert_int_eq(b->host_wait, a->host_wait);
        ck_assert_int_eq(b->kernel_wait, a->kernel_wait);
        ck_assert_int_eq(b->compute, a->compute);
    }
    jw_out w;
    strbuf sb = {0};
    jw_begin(&w, &sb, 0);
    timeline_section.render(ret, &w);
    strbuf_putc(&sb, '\0');
    ck_assert_ptr_nonnull(strstr(sb.data, "\"busy_ns\":null"));
    strbuf_free(&sb);
    timeline_section.close(full);
    timeline_section.close(ret);
}
END_TEST


/* A small rank wholly before a retired rank's time: the retired and kept time are disjoint, so
 * the run's busy and idle stay exact, but the gaps around the small rank's islands were split
 * without them: the idle split is unknown (split_unknown, rendered null), busy is not. */
START_TEST(small_rank_before_retired_rank_split_unknown) {
    size_t n = gen_ordered(recs, 1), m = n;
    for (int k = 0; k < 5; k++) recs[m++] = op(0, 0, 0, -100000 + 1000 * k, -99500 + 1000 * k, 0);
    tl_state *full = run_tl2(recs, n, m, 0), *ret = run_tl2(recs, n, m, 40);
    const tl_scope *x = &full->scopes[full->n_scopes - 1], *y = &ret->scopes[ret->n_scopes - 1];
    ck_assert_uint_gt(ret->retire_times, 0);
    ck_assert(!x->unknown && !x->split_unknown);
    ck_assert(!y->unknown && y->split_unknown);
    ck_assert_int_eq(y->span, x->span);
    ck_assert_int_eq(y->busy, x->busy);
    ck_assert_int_eq(y->idle, x->idle);
    ck_assert_int_eq(y->compute, x->compute);
    double v;
    ck_assert(timeline_section.number(ret, "run.busy_ns", &v) && v == (double)x->busy);
    ck_assert(!timeline_section.number(ret, "run.kernel_wait_ns", &v));
    ck_assert(!timeline_section.number(ret, "run.other_ns", &v));
    timeline_section.close(full);
    timeline_section.close(ret);
}
END_TEST

/* Every cut negative (a trace whose clock is below 0): the run's cut_ns is the sources' latest
 * cut, not the 0 it starts from (the test once came after retire_times was summed). */
START_TEST(negative_cuts_reported) {
    size_t n = gen_ordered(recs, 1);
    for (size_t i = 0; i < n; i++) recs[i].start_ns -= 1000000, recs[i].end_ns -= 1000000;
    tl_state *ret = run_tl2(recs, n, n, 40);
    ck_assert_uint_gt(ret->retire_times, 0);
    ck_assert_int_lt(ret->cut, 0);
    ck_assert_int_gt(ret->cut, -1000000);
    timeline_section.close(ret);
}
END_TEST

/* Review (s4-rev): a rocprofv3 run's launches in a file of their own (hip_api_trace.csv) and its
 * kernels in another (kernel_trace.csv), both time-ordered: every launch is matched when the
 * sources fold, after the kernel source retired its older islands, so those matches are
 * `late_launches` and the section says it is not exact (docs/ANALYSIS.md "timeline",
 * Retirement). Without retirement the numbers are exact; with it, everything but the idle
 * split (host_wait, kernel_wait, other) stays equal. */
START_TEST(separate_launch_source_time_ordered) {
    size_t n = gen_ordered(recs, 1), m = 0;
    static record sorted[4 * OPS + 64];
    for (size_t i = 0; i < n; i++) if (recs[i].type == REC_API_CALL) sorted[m++] = recs[i];
    size_t n0 = m;
    for (size_t i = 0; i < n; i++) if (recs[i].type != REC_API_CALL) sorted[m++] = recs[i];
    tl_state *full = run_tl2(sorted, n0, m, 0), *ret = run_tl2(sorted, n0, m, 40);
    ck_assert_uint_gt(ret->retire_times, 0);
    const tl_scope *x = &full->scopes[full->n_scopes - 1], *y = &ret->scopes[ret->n_scopes - 1];
    ck_assert_int_gt(x->host_wait, 0);
    ck_assert_uint_eq(full->late_launches, 0);
    ck_assert_uint_gt(ret->late_launches, 0);   /* documented: counted, `exact` false */
    ck_assert(!y->unknown);
    ck_assert_int_eq(y->busy, x->busy);
    ck_assert_int_eq(y->idle, x->idle);
    ck_assert_int_eq(y->compute, x->compute);
    ck_assert_uint_eq(y->gaps, x->gaps);
    ck_assert_int_le(y->host_wait, x->host_wait);
    ck_assert_int_eq(y->host_wait + y->kernel_wait + y->other, y->idle);
    timeline_section.close(full);
    timeline_section.close(ret);
}
END_TEST

/* Hostile times (up to +-2^61, reversed, far apart) and random lanes with a bound of 16:
 * no overflow (UBSan build); when exact, idle parts sum to idle and bins to busy in every scope. */
START_TEST(hostile_times_with_retirement) {
    static const int64_t VALS[] = {0, 1, -1, 1000, 123456789, (int64_t)1 << 61, -((int64_t)1 << 61), ((int64_t)1 << 61) - 7};
    for (int round = 0; round < 30; round++) {
        size_t n = 0;
        for (int i = 0; i < 3000; i++) {
            int64_t s0 = rnd(5) ? (int64_t)i * 50 + (int64_t)rnd(400) : VALS[rnd(8)];
            int64_t e0 = rnd(6) ? s0 + (int64_t)rnd(300) : VALS[rnd(8)];
            if (s0 > ((int64_t)1 << 61) - 400) s0 = ((int64_t)1 << 61) - 400;
            if (e0 > ((int64_t)1 << 61)) e0 = (int64_t)1 << 61;
            recs[n++] = op((int)rnd(5), rnd(3), rnd(2), s0, e0, rnd(3) ? (uint64_t)rnd(500) + 1 : 0);
            if (rnd(4) == 0) recs[n++] = launch((uint64_t)rnd(500) + 1, s0 - (int64_t)rnd(100));
        }
        tl_state *ret = run_tl(recs, n, 1 + rnd(3), rnd(2), 16);
        for (size_t i = 0; ret->finished && i < ret->n_scopes; i++) {
            const tl_scope *o = &ret->scopes[i];
            if (o->other != INT64_MAX && o->other != INT64_MIN)   /* approximate sums may saturate */
                ck_assert_int_eq(o->host_wait + o->kernel_wait + o->other, o->idle);
            if (ret->inexact_total) continue;
            int64_t sum = 0;
            for (size_t k = 0; k < ret->n_bins; k++) sum += o->bins[k];
            ck_assert_int_eq(sum, o->busy);
        }
        timeline_section.close(ret);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("timeline_retire");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, prefix_helpers_match_bitmap);
    tcase_add_test(tc, ordered_is_exact);
    tcase_add_test(tc, local_disorder_is_exact);
    tcase_add_test(tc, reach_back_is_flagged);
    tcase_add_loop_test(tc, overlapping_ranks_join_flagged, 0, 2);
    tcase_add_test(tc, hostile_times_with_retirement);
    tcase_add_test(tc, small_rank_beside_retired_rank_bounded);
    tcase_add_test(tc, small_rank_before_retired_rank_split_unknown);
    tcase_add_test(tc, negative_cuts_reported);
    tcase_add_test(tc, separate_launch_source_time_ordered);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
