/* check_timeline: unit tests of the timeline section — interval unions against a brute-force
 * 1-ns bitmap over random interval sets in random order, the bounded correlation map against
 * a plain array, the timeline section on hand-built records (unions per lane/device/run,
 * exposed communication and memcpy, overlap in [0, 100], host_wait + kernel_wait + other =
 * idle, launch delays), the report.md parts of the timeline, classes and recommendations
 * sections. The class table, the classes section and the recommendations rules are
 * check_classes.c's (the same executable). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/structures/corr_map.h"
#include "analyses/structures/interval_set.h"
#include "analyses/kernel_class.h"
#include "analyses/section.h"
#include "analyses/sections/timeline.h"
#include "tests/section_run.h"

extern const section_analysis classes_section, timeline_section, recommendations_section;

Suite *classes_suite(void);

#define T 4000   /* bitmap width (ns) */

START_TEST(union_matches_bitmap) {
    for (int round = 0; round < 200; round++) {
        static unsigned char a_bits[T], b_bits[T];
        memset(a_bits, 0, T), memset(b_bits, 0, T);
        interval_set a = {0}, b = {0};
        int n = 1 + (int)sr_rnd(round < 100 ? 40 : 9000);   /* some rounds overflow the buffer */
        for (int i = 0; i < n; i++) {
            int s = (int)sr_rnd(T - 1), len = (int)sr_rnd(round % 3 ? 60 : 400), e = s + len > T ? T : s + len;
            bool to_a = sr_rnd(2);
            ck_assert(iset_add(to_a ? &a : &b, s, e, IV_NO_LAUNCH));
            for (int t = s; t < e; t++) (to_a ? a_bits : b_bits)[t] = 1;
        }
        ck_assert(iset_flush(&a) && iset_flush(&b));
        int64_t ta = 0, tb = 0, both = 0;
        for (int t = 0; t < T; t++) ta += a_bits[t], tb += b_bits[t], both += a_bits[t] && b_bits[t];
        ck_assert_int_eq(iset_total(&a), ta);
        ck_assert_int_eq(iset_total(&b), tb);
        ck_assert_int_eq(iset_overlap(&a, &b), both);
        for (size_t i = 1; i < a.n; i++) ck_assert_int_gt(a.v[i].start, a.v[i - 1].end);   /* disjoint, not touching */
        iset_free(&a), iset_free(&b);
    }
}
END_TEST

/* The bounded correlation map against a plain array: random puts and takes (colliding
 * probe runs, backward-shift deletion), and the cap refusing inserts when full. */
START_TEST(corr_map_matches_reference) {
    enum { KEYS = 40000 };
    static int64_t ref[KEYS];      /* -1: absent */
    for (int i = 0; i < KEYS; i++) ref[i] = -1;
    corr_map m = {0};
    size_t count = 0;
    for (int step = 0; step < 400000; step++) {
        uint64_t k = sr_rnd(KEYS);
        corr_entry e;
        if (sr_rnd(3)) {
            bool ok = corr_put(&m, k * 131072u, (int64_t)step, 0, 0);   /* keys sharing low bits */
            if (ref[k] >= 0 || count < CORR_MAP_MAX) {
                ck_assert(ok);
                if (ref[k] < 0) count++, ref[k] = step;   /* the earlier entry stays */
            } else {
                ck_assert(!ok);
            }
        } else {
            bool got = corr_take(&m, k * 131072u, &e);
            ck_assert_int_eq(got, ref[k] >= 0);
            if (got) { ck_assert_int_eq(e.a, ref[k]); ref[k] = -1; count--; }
        }
        ck_assert_uint_eq(m.count, count);
    }
    corr_free(&m);
}
END_TEST

/* Random kernels/copies on 2 devices x 2 streams, in random order: every lane's and the
 * run's unions against bitmaps; idle parts sum to idle; overlap in [0, 100]; any split of
 * the records into sources gives the same numbers. */
START_TEST(timeline_matches_bitmaps) {
    for (int round = 0; round < 60; round++) {
        enum { N = 300 };
        static record recs[N];
        static unsigned char bits[5][4][T];   /* [lane 0-3 | run][busy, compute, comm, memcpy][t] */
        memset(bits, 0, sizeof bits);
        for (int i = 0; i < N; i++) {
            int dev = (int)sr_rnd(2), str = (int)sr_rnd(2), s = (int)sr_rnd(T - 1), len = 1 + (int)sr_rnd(120);
            int e = s + len > T ? T : s + len, k = (int)sr_rnd(6);
            record_type t = k == 5 ? REC_MEMORY_COPY : REC_KERNEL_DISPATCH;
            recs[i] = sr_op(t, k == 5 ? NULL : SR_KERNEL_NAMES[k], dev, str, s, e);
            int group = k == 5 || k == 2 ? 3 : k == 1 ? 2 : 1;
            for (int x = s; x < e; x++)
                bits[dev * 2 + str][0][x] = bits[dev * 2 + str][group][x] = bits[4][0][x] = bits[4][group][x] = 1;
        }
        void *one = sr_run(&timeline_section, recs, N, 1, NULL);
        void *three = sr_run(&timeline_section, recs, N, 3, NULL);
        for (int lane = 0; lane <= 4; lane++) {
            int64_t busy = 0, comp = 0, comm = 0, mc = 0, comm_x = 0, mc_exposed = 0, first = -1, last = -1;
            for (int x = 0; x < T; x++) {
                unsigned char *b = &bits[lane][0][0];
                busy += b[x], comp += b[T + x], comm += b[2 * T + x], mc += b[3 * T + x];
                comm_x += b[2 * T + x] && b[T + x];
                mc_exposed += b[3 * T + x] && !b[T + x] && !b[2 * T + x];
                if (b[x]) { if (first < 0) first = x; last = x + 1; }
            }
            if (lane < 4 && !busy) continue;    /* a lane without records is absent: skip */
            char p[64];
            const char *scope = lane == 4 ? "run" : p;
            if (lane < 4) {
                /* lanes are listed sorted by (device, stream); count present lanes before */
                int idx = 0;
                for (int l = 0; l < lane; l++) {
                    int64_t any = 0;
                    for (int x = 0; x < T && !any; x++) any = bits[l][0][x];
                    idx += any != 0;
                }
                snprintf(p, sizeof p, "streams.%d", idx);
            }
            for (int v = 0; v < 2; v++) {
                void *run = v ? three : one;
                char path[96];
#define NUM(key) (snprintf(path, sizeof path, "%s.%s", scope, key), sr_num(&timeline_section, run, path))
                ck_assert_int_eq((int64_t)NUM("busy_ns"), busy);
                ck_assert_int_eq((int64_t)NUM("span_ns"), last - first);
                ck_assert_int_eq((int64_t)NUM("idle_ns"), last - first - busy);
                ck_assert_int_eq((int64_t)NUM("compute_ns"), comp);
                ck_assert_int_eq((int64_t)NUM("communication_ns"), comm);
                ck_assert_int_eq((int64_t)NUM("memcpy_ns"), mc);
                ck_assert_int_eq((int64_t)NUM("exposed_communication_ns"), comm - comm_x);
                ck_assert_int_eq((int64_t)NUM("exposed_memcpy_ns"), mc_exposed);
                double hw = 0, ov;
                snprintf(path, sizeof path, "%s.host_wait_ns", scope);
                timeline_section.number(run, path, &hw);   /* unknown without launches: 0 in the sum */
                int64_t kw = (int64_t)NUM("kernel_wait_ns"), other = (int64_t)NUM("other_ns");
                ck_assert_int_eq((int64_t)hw + kw + other, last - first - busy);
                snprintf(path, sizeof path, "%s.overlap_pct", scope);
                if (comm) {
                    ck_assert(timeline_section.number(run, path, &ov));
                    ck_assert(ov >= 0 && ov <= 100);
                } else {
                    ck_assert(!timeline_section.number(run, path, &ov));
                }
#undef NUM
            }
        }
        timeline_section.close(one);
        timeline_section.close(three);
    }
}
END_TEST

static record launch(uint64_t corr, int64_t s, int64_t e) {
    record r = {.type = REC_API_CALL, .has = RF_CORRELATION | RF_START | RF_END, .correlation_id = corr,
                .start_ns = s, .end_ns = e, .name = "hipLaunchKernel", .name_len = 15};
    return r;
}

static record kernel_c(uint64_t corr, int64_t s, int64_t e) {
    record r = sr_op(REC_KERNEL_DISPATCH, "Cijk_x", 0, 0, s, e);
    r.has |= RF_CORRELATION;
    r.correlation_id = corr;
    return r;
}

/* The idle split on a hand-made case (threshold 50 ns): A [0,100) launched at -50; B
 * [200,300) launched at 150, after A ended: host_wait 100; C [310,400) launched at 120:
 * gap 10 < 50: kernel_wait; D [1000,1100) launched at 250: gap 600: other. In file order,
 * reversed, and with kernels and launches in separate sources. */
START_TEST(timeline_idle_split_and_launch_delay) {
    record fwd[8] = {launch(1, -50, -40), kernel_c(1, 0, 100), launch(2, 150, 160), kernel_c(2, 200, 300),
                     launch(3, 120, 130), kernel_c(3, 310, 400), launch(4, 250, 260), kernel_c(4, 1000, 1100)};
    record rev[8], split[8];
    for (int i = 0; i < 8; i++) rev[i] = fwd[7 - i];
    for (int i = 0; i < 4; i++) split[i] = fwd[2 * i + 1], split[4 + i] = fwd[2 * i];   /* kernels, then launches */
    const record *cases[3] = {fwd, rev, split};
    for (int c = 0; c < 3; c++) {
        void *run = sr_run(&timeline_section, cases[c], 8, c == 2 ? 2 : 1, NULL);
        ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "run.host_wait_ns"), 100);
        ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "run.kernel_wait_ns"), 10);
        ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "run.other_ns"), 600);
        ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "run.idle_ns"), 710);
        ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "launch_delay.count"), 4);
        ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "launch_delay.mean_ns"), 250);
        ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "launch_delay.max_ns"), 740);
        ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "launch_delay.p50_ns"), 40);
        ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "launch_delay.p95_ns"), 740);
        ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "short_kernels.count"), 1);   /* C: 90 ns < 100 */
        timeline_section.close(run);
    }
    /* launches from a source whose kernels are not chosen (another profiler's correlation
     * ids) are ignored: the split case then has no matched launch */
    sr_chosen_last = false;
    void *run = sr_run(&timeline_section, split, 8, 2, NULL);
    sr_chosen_last = true;
    double v;
    ck_assert(!timeline_section.number(run, "run.host_wait_ns", &v));
    ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "launch_delay.count"), 0);
    timeline_section.close(run);
}
END_TEST

/* A graph launch (one correlation id, kernels on two streams) matches its first kernel, in
 * whichever order kernels and launch are read: stream 0 X [0,50), stream 1 Y [0,50), each with
 * its own launch; the graph launch [60,70) runs G1 [100,150) on stream 1, G2 [200,260) on
 * stream 0 and G3 [300,320) on stream 1. Expected by hand: delays 0 - (-10) = 10 twice and
 * 100 - 70 = 30 (count 3, max 30); stream 1's gap [50,100) is host_wait (its next island was
 * launched at 60, after 50), stream 0's gap [50,200) is not (no launch known for G2). A tie
 * (G1 and G2 both starting at 100) goes to the kernel read first. */
START_TEST(timeline_graph_launch_first_kernel) {
    record x = kernel_c(1, 0, 50), y = kernel_c(2, 0, 50), g1 = kernel_c(9, 100, 150), g2 = kernel_c(9, 200, 260),
           g3 = kernel_c(9, 300, 320);
    y.stream = g1.stream = g3.stream = 1;
    record lx = launch(1, -20, -10), ly = launch(2, -20, -10), lg = launch(9, 60, 70);
    record orders[4][8] = {
        {lx, ly, lg, x, y, g1, g2, g3},   /* launches first, kernels in time order */
        {x, y, g1, g2, g3, lx, ly, lg},   /* kernels first (one source), time order */
        {x, y, g3, g2, g1, lx, ly, lg},   /* kernels first, reversed */
        {x, y, g3, g2, g1, lx, ly, lg},   /* the same, kernels and launches in two sources */
    };
    for (int c = 0; c < 4; c++) {
        void *run = sr_run(&timeline_section, orders[c], 8, c == 3 ? 2 : 1, NULL);
        ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "launch_delay.count"), 3);
        ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "launch_delay.max_ns"), 30);
        ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "streams.1.host_wait_ns"), 50);
        double v = -1;
        ck_assert(!timeline_section.number(run, "streams.0.host_wait_ns", &v) || v == 0);
        timeline_section.close(run);
    }
    /* the tie: G1 on stream 1 and G2 on stream 0 both start at 100 */
    g2.start_ns = 100, g2.end_ns = 160;
    record tie[2][8] = {{x, y, g2, g1, g3, lx, ly, lg}, {lx, ly, lg, x, y, g2, g1, g3}};
    for (int c = 0; c < 2; c++) {
        void *run = sr_run(&timeline_section, tie[c], 8, 1, NULL);
        ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "launch_delay.count"), 3);
        ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "streams.0.host_wait_ns"), 50);   /* G2, read first */
        double v = -1;
        ck_assert(!timeline_section.number(run, "streams.1.host_wait_ns", &v) || v == 0);
        timeline_section.close(run);
    }
}
END_TEST

/* Zero-duration operations split idle gaps (HTA's rule): [0,100), an instant at 200, [300,400),
 * an instant at 400 (touching: no gap) and one at 500 with a launch at 450 (after the gap began
 * at 400: host_wait). By hand: busy 200, span 500, idle 300, gaps 3 (100-200, 200-300,
 * 400-500), host_wait 100, operations 5; the same with the records reversed. */
START_TEST(timeline_instants_split_gaps) {
    record fwd[6] = {sr_op(REC_KERNEL_DISPATCH, "Cijk_a", 0, 0, 0, 100), sr_op(REC_KERNEL_DISPATCH, "Cijk_b", 0, 0, 200, 200),
                     sr_op(REC_KERNEL_DISPATCH, "Cijk_c", 0, 0, 300, 400), sr_op(REC_MEMSET, NULL, 0, 0, 400, 400),
                     launch(5, 450, 460), kernel_c(5, 500, 500)};
    record rev[6];
    for (int i = 0; i < 6; i++) rev[i] = fwd[5 - i];
    const record *cases[2] = {fwd, rev};
    for (int c = 0; c < 2; c++) {
        void *run = sr_run(&timeline_section, cases[c], 6, 1, NULL);
        ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "run.busy_ns"), 200);
        ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "run.span_ns"), 500);
        ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "run.idle_ns"), 300);
        ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "run.host_wait_ns"), 100);
        ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "run.operations"), 5);
        strbuf b = {0};
        jw_out w;
        jw_begin(&w, &b, 0);
        timeline_section.render(run, &w);
        ck_assert_ptr_nonnull(strstr(b.data, "\"idle_gaps\":3,"));
        strbuf_free(&b);
        timeline_section.close(run);
    }
}
END_TEST

/* host_wait / kernel_wait against brute force: random kernels on one lane, half with a
 * launch call (random times), kernels and launches in random order and split into 1-3
 * sources. Expected: islands from a bitmap; an island's launch is the earliest known launch
 * of the operations starting exactly at its start. */
START_TEST(idle_split_matches_brute_force) {
    for (int round = 0; round < 150; round++) {
        enum { K = 60 };
        static record recs[2 * K];
        static unsigned char bits[T];
        int64_t ks[K], ke[K], ls[K];
        memset(bits, 0, sizeof bits);
        size_t n = 0;
        for (int i = 0; i < K; i++) {
            ks[i] = sr_rnd(T - 200), ke[i] = ks[i] + 1 + sr_rnd(60);
            ls[i] = sr_rnd(3) ? (int64_t)sr_rnd(T) - 100 : IV_NO_LAUNCH;
            for (int64_t x = ks[i]; x < ke[i]; x++) bits[x] = 1;
            recs[n++] = kernel_c((uint64_t)i + 1, ks[i], ke[i]);
            if (ls[i] != IV_NO_LAUNCH) recs[n++] = launch((uint64_t)i + 1, ls[i], ls[i] + 5);
        }
        for (size_t i = n - 1; i > 0; i--) {   /* shuffle */
            size_t j = sr_rnd((unsigned)i + 1);
            record t = recs[i]; recs[i] = recs[j]; recs[j] = t;
        }
        int64_t hw = 0, kw = 0, idle = 0, prev_end = -1, first = -1, last = -1;
        bool any_launch = false;
        uint64_t gaps = 0;
        for (int64_t x = 0; x <= T; x++) {
            bool on = x < T && bits[x], was = x > 0 && bits[x - 1];
            if (on && !was) {                    /* an island starts at x */
                if (first < 0) first = x;
                if (prev_end >= 0) {
                    int64_t gap = x - prev_end, l = IV_NO_LAUNCH;
                    for (int i = 0; i < K; i++)
                        if (ks[i] == x && ls[i] != IV_NO_LAUNCH && (l == IV_NO_LAUNCH || ls[i] < l)) l = ls[i];
                    gaps++;
                    idle += gap;
                    if (l != IV_NO_LAUNCH) any_launch = true;
                    if (l != IV_NO_LAUNCH && l > prev_end) hw += gap;
                    else if (gap < SR_CFG.kernel_wait_threshold_ns) kw += gap;
                }
            }
            if (!on && was) prev_end = last = x;
        }
        void *run = sr_run(&timeline_section, recs, n, 1 + sr_rnd(3), NULL);
        double v;
        ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "run.idle_ns"), idle);
        ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "run.span_ns"), last - first);
        ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "run.kernel_wait_ns"), kw);
        ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "run.other_ns"), idle - hw - kw);
        if (any_launch || !gaps) ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "run.host_wait_ns"), hw);
        else ck_assert(!timeline_section.number(run, "run.host_wait_ns", &v));
        timeline_section.close(run);
    }
}
END_TEST

/* The report.md parts of the three sections. */
START_TEST(report_md_parts) {
    record recs[4] = {kernel_c(1, 0, 100), launch(1, -20, -10), sr_op(REC_KERNEL_DISPATCH, "ncclKernel", 0, 1, 50, 120),
                      sr_op(REC_MEMORY_COPY, NULL, 0, 0, 200, 300)};
    void *tl = sr_run(&timeline_section, recs, 4, 1, NULL);
    void *cl = sr_run(&classes_section, recs, 4, 1, NULL);
    const section_analysis *ans[2] = {&classes_section, &timeline_section};
    void *states[2] = {cl, tl};
    section_results earlier = {ans, states, 2};
    void *rc = sr_run(&recommendations_section, recs, 4, 1, &earlier);
    strbuf b = {0};
    timeline_section.render_md(tl, &b);
    classes_section.render_md(cl, &b);
    recommendations_section.render_md(rc, &b);
    strbuf_terminate(&b);
    ck_assert_ptr_nonnull(strstr(b.data, "## Timeline"));
    ck_assert_ptr_nonnull(strstr(b.data, "| busy | 0.000 | 73.3% |"));       /* ms under an ms header, no _ns */
    ck_assert_ptr_null(strstr(b.data, "_ns |"));
    ck_assert_ptr_nonnull(strstr(b.data, "Communication overlapped by compute: 71.4%"));
    ck_assert_ptr_nonnull(strstr(b.data, "## Kernel classes"));
    ck_assert_ptr_nonnull(strstr(b.data, "| communication | 1 |"));
    ck_assert_ptr_nonnull(strstr(b.data, "## Recommendations"));
    ck_assert_ptr_nonnull(strstr(b.data, "**dominant_kernel** (high)"));
    strbuf_free(&b);
    recommendations_section.close(rc);
    classes_section.close(cl);
    timeline_section.close(tl);
}
END_TEST

/* Hostile times: huge, reversed, missing — untimed, never overflowing (UBSan build). */
START_TEST(timeline_hostile_times) {
    record recs[5] = {sr_op(REC_KERNEL_DISPATCH, "k", 0, 0, -((i128)1 << 62), (i128)1 << 62),
                      sr_op(REC_KERNEL_DISPATCH, "k", 0, 0, 500, 100),
                      sr_op(REC_KERNEL_DISPATCH, "k", 0, 0, (i128)INT64_MAX * 4, (i128)INT64_MAX * 5),
                      sr_op(REC_KERNEL_DISPATCH, "k", 0, 0, 10, 20), launch(9, -((i128)1 << 62), 0)};
    recs[1].has &= ~(unsigned)RF_DEVICE;
    recs[3].has |= RF_CORRELATION;
    recs[3].correlation_id = 9;
    recs[4].end_ns = (i128)1 << 70;
    void *run = sr_run(&timeline_section, recs, 5, 1, NULL);
    ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "run.busy_ns"), 10);
    ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "run.span_ns"), 10);
    ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "launch_delay.count"), 0);
    strbuf b = {0};
    jw_out w;
    jw_begin(&w, &b, 0);
    timeline_section.render(run, &w);
    strbuf_terminate(&b);
    ck_assert_ptr_nonnull(strstr(b.data, "\"untimed_operations\":3"));
    strbuf_free(&b);
    timeline_section.close(run);
}
END_TEST

/* One trace per rank: the same device and stream numbers in two ranks are two lanes and
 * two devices; the run is the union of both. */
START_TEST(timeline_ranks_are_lanes) {
    record recs[2] = {sr_op(REC_KERNEL_DISPATCH, "Cijk_a", 0, 0, 0, 100), sr_op(REC_KERNEL_DISPATCH, "Cijk_a", 0, 0, 50, 300)};
    sr_rank_per_source = true;
    void *run = sr_run(&timeline_section, recs, 2, 2, NULL);
    sr_rank_per_source = false;
    ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "streams.0.busy_ns"), 100);
    ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "streams.1.busy_ns"), 250);
    ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "devices.1.busy_ns"), 250);
    ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "run.busy_ns"), 300);
    strbuf b = {0};
    jw_out w;
    jw_begin(&w, &b, 0);
    timeline_section.render(run, &w);
    strbuf_terminate(&b);
    ck_assert_ptr_nonnull(strstr(b.data, "\"streams\":[{\"rank\":0,\"device\":0,\"stream\":0,"));
    ck_assert_ptr_nonnull(strstr(b.data, "{\"rank\":1,\"device\":0,\"stream\":0,"));
    strbuf_free(&b);
    timeline_section.close(run);
}
END_TEST

/* Random records (any type, any mix of fields, hostile values, names with NUL bytes) into
 * all three sections over 1-3 sources: no crash, no sanitizer report, and the idle parts
 * still sum to idle. */
START_TEST(random_records_hold_invariants) {
    static const char NAME[] = "nccl\0Cijk_fp16_generic_gemm__amd_rocclr_copyBuffer_launch";
    enum { N = 3000 };
    static record recs[N];
    static const int64_t VALS[] = {0, 1, -1, 1000, 123456789, INT64_MAX, INT64_MIN, (int64_t)1 << 61, -((int64_t)1 << 61)};
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < N; i++) {
            record r = {0};
            r.type = (record_type)sr_rnd(REC_TYPE_COUNT);
            r.has = (unsigned)sr_rnd(1u << 22);
            r.device = sr_rnd(3), r.stream = sr_rnd(3);
            int64_t s0 = sr_rnd(4) ? (int64_t)sr_rnd(100000) : VALS[sr_rnd(9)];
            r.start_ns = s0;
            r.end_ns = sr_rnd(5) ? (i128)s0 + sr_rnd(5000) : (i128)VALS[sr_rnd(9)] * (sr_rnd(2) ? 1 : 3);
            r.duration_ns = sr_rnd(4) ? (i128)sr_rnd(5000) : VALS[sr_rnd(9)];
            r.correlation_id = sr_rnd(200);
            r.name = sr_rnd(8) ? NAME + sr_rnd(20) : NULL;
            r.name_len = r.name ? (size_t)sr_rnd(30) : 0;
            if (r.type == REC_METADATA) { r.key = "device_name"; r.value = "MI300X"; r.value_len = 6; }
            recs[i] = r;
        }
        size_t sources = 1 + sr_rnd(3);
        void *tl = sr_run(&timeline_section, recs, N, sources, NULL);
        void *cl = sr_run(&classes_section, recs, N, sources, NULL);
        const section_analysis *ans[2] = {&classes_section, &timeline_section};
        void *states[2] = {cl, tl};
        section_results earlier = {ans, states, 2};
        void *rc = sr_run(&recommendations_section, recs, N, sources, &earlier);
        double idle, hw = 0, kw, other;
        if (timeline_section.number(tl, "run.idle_ns", &idle)) {
            timeline_section.number(tl, "run.host_wait_ns", &hw);
            kw = sr_num(&timeline_section, tl, "run.kernel_wait_ns");
            other = sr_num(&timeline_section, tl, "run.other_ns");
            ck_assert_int_eq((int64_t)(hw + kw + other), (int64_t)idle);
            ck_assert(idle >= 0 && kw >= 0 && other >= 0);
        }
        /* the busy time series: every scope's bins sum to its busy time, each within a bin */
        const tl_state *ts = tl;
        for (size_t i = 0; ts->finished && i < ts->n_scopes; i++) {
            int64_t sum = 0;
            for (size_t k = 0; k < ts->n_bins; k++) {
                ck_assert(ts->scopes[i].bins[k] >= 0 && ts->scopes[i].bins[k] <= ts->bin_ns);
                sum += ts->scopes[i].bins[k];
            }
            ck_assert_int_eq(sum, ts->scopes[i].busy);
            ck_assert(ts->n_bins <= TL_BINS);
        }
        strbuf b = {0};
        jw_out w;
        jw_begin(&w, &b, 0);
        jw_array_open(&w);
        timeline_section.render(tl, &w);
        classes_section.render(cl, &w);
        recommendations_section.render(rc, &w);
        jw_array_close(&w);
        timeline_section.render_md(tl, &b);
        classes_section.render_md(cl, &b);
        recommendations_section.render_md(rc, &b);
        strbuf_free(&b);
        recommendations_section.close(rc);
        classes_section.close(cl);
        timeline_section.close(tl);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("timeline");
    TCase *tc = tcase_create("timeline");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, union_matches_bitmap);
    tcase_add_test(tc, corr_map_matches_reference);
    tcase_add_test(tc, timeline_matches_bitmaps);
    tcase_add_test(tc, report_md_parts);
    tcase_add_test(tc, idle_split_matches_brute_force);
    tcase_add_test(tc, timeline_idle_split_and_launch_delay);
    tcase_add_test(tc, timeline_graph_launch_first_kernel);
    tcase_add_test(tc, timeline_instants_split_gaps);
    tcase_add_test(tc, timeline_hostile_times);
    tcase_add_test(tc, timeline_ranks_are_lanes);
    tcase_add_test(tc, random_records_hold_invariants);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_add_suite(sr, classes_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
