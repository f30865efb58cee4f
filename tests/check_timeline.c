/* check_timeline: unit tests of the timeline analyses — the kernel class table on
 * every fixture kernel name (tests/kernel_classes_expected.tsv), interval unions against a
 * brute-force 1-ns bitmap over random interval sets in random order, the timeline section
 * on hand-built records (unions per lane/device/run, exposed communication and memcpy,
 * overlap in [0, 100], host_wait + kernel_wait + other = idle, launch delays), the classes
 * section (class totals sum to the total) and the recommendations rules. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/structures/corr_map.h"
#include "analyses/structures/interval_set.h"
#include "analyses/kernel_class.h"
#include "analyses/section.h"
#include "analyses/sections/timeline.h"

extern const section_analysis classes_section, timeline_section, recommendations_section;

#define T 4000   /* bitmap width (ns) */

START_TEST(class_table_on_fixture_names) {
    FILE *f = fopen(GOBLIN_SOURCE_DIR "/tests/kernel_classes_expected.tsv", "r");
    ck_assert_ptr_nonnull(f);
    static char line[70000];
    int rows = 0, bad = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        size_t n = strlen(line);
        if (n && line[n - 1] == '\n') line[--n] = 0;
        char *tab = strchr(line, '\t');
        ck_assert_ptr_nonnull(tab);
        *tab = 0;
        const char *name = tab + 1;
        const char *got = kernel_class_key(kernel_class_of(name, strlen(name)));
        if (strcmp(got, line)) { fprintf(stderr, "class of %s: %s, expected %s\n", name, got, line); bad++; }
        rows++;
    }
    fclose(f);
    ck_assert_int_ge(rows, 200);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* Patterns of the table that no fixture holds (both vendors). */
START_TEST(class_table_other_vendors) {
    static const struct { const char *name, *cls; } CASES[] = {
        {"nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NTN", "gemm"},
        {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute", "gemm"},
        {"wvSplitK_hf_sml_<__hip_bfloat16, 64, 2, 16, 8, 2, 1>", "gemm"},
        {"void cutlass::Kernel<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8>(Params)", "gemm"},
        {"ck::kernel_gemm_xdl_cshuffle_v3<...>", "gemm"},
        {"fmha_fwd_hd128_bf16_batch_b128x128x32", "attention"},
        {"void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>>", "attention"},
        {"void vllm::paged_attention_v2_kernel<...>", "attention"},
        {"miopenSp3AsmConv_v21_1_3_gfx9_fp32_stride1", "convolution"},
        {"igemm_fwd_gtcx3_nhwc_bf16_bx0_ex1_bt256x128x32_wt32x32x8", "convolution"},
        {"naive_conv_fwd_nchw_float", "convolution"},
        {"triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_0", "reduction"},
        {"triton_per_fused_native_layer_norm_0", "normalization"},
        {"triton_tem_fused_mm_0", "gemm"},
        {"ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", "communication"},
        {"cross_device_reduce_1stage<__hip_bfloat16, 8>", "communication"},
        {"__amd_rocclr_copyBufferRect", "memcpy"},
        {"__amd_rocclr_fillBuffer", "memset"},
        {"void at::native::(anonymous namespace)::layer_norm_grad_input_kernel<float>", "normalization"},
        {"void vllm::rms_norm_kernel<c10::BFloat16>", "normalization"},
        {"some_user_kernel", "other"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        ck_assert_str_eq(kernel_class_key(kernel_class_of(CASES[i].name, strlen(CASES[i].name))), CASES[i].cls);
    ck_assert_int_eq(kernel_class_of(NULL, 0), KC_OTHER);
}
END_TEST

static uint64_t rng_state = 12345;
static unsigned rnd(unsigned n) {
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((rng_state >> 33) % n);
}

START_TEST(union_matches_bitmap) {
    for (int round = 0; round < 200; round++) {
        static unsigned char a_bits[T], b_bits[T];
        memset(a_bits, 0, T), memset(b_bits, 0, T);
        interval_set a = {0}, b = {0};
        int n = 1 + (int)rnd(round < 100 ? 40 : 9000);   /* some rounds overflow the buffer */
        for (int i = 0; i < n; i++) {
            int s = (int)rnd(T - 1), len = (int)rnd(round % 3 ? 60 : 400), e = s + len > T ? T : s + len;
            bool to_a = rnd(2);
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
        uint64_t k = rnd(KEYS);
        corr_entry e;
        if (rnd(3)) {
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

/* Runs one analysis over records split into sources at the given cut points. */
typedef struct run_out { void *run; } run_out;
static const analysis_config CFG = {.kernel_wait_threshold_ns = 50, .short_kernel_ns = 100, .run_dir = "."};

static bool chosen_last = true;
static bool rank_per_source = false;  /* source i is rank i (multi-rank test) */   /* kernels_chosen of the last source (launch-space test) */
static void *run_analysis(const section_analysis *an, const record *recs, size_t n, size_t n_sources,
                          const section_results *earlier) {
    diag_list diag;
    diag_init(&diag);
    void *run = an->open(&CFG, &diag);
    ck_assert_ptr_nonnull(run);
    for (size_t s = 0; s < n_sources; s++) {
        source_ref ref = {.index = s, .path = "x", .format = "test", .rank = rank_per_source ? (int)s : -1,
                          .kernels_chosen = s + 1 < n_sources || chosen_last};
        void *src = an->open_source(run, &ref);
        for (size_t i = s * n / n_sources; i < (s + 1) * n / n_sources; i++)
            if (an->wants & REC_BIT(recs[i].type)) ck_assert(an->consume(src, &recs[i]));
        ck_assert(an->end_source(run, src));
    }
    section_results none = {0};
    ck_assert(an->finish(run, earlier ? earlier : &none));
    diag_free(&diag);
    return run;
}

static double num(const section_analysis *an, void *run, const char *path) {
    double v = -1;
    ck_assert_msg(an->number(run, path, &v), "no number %s", path);
    return v;
}

static record op(record_type t, const char *name, int64_t dev, int64_t stream, i128 s, i128 e) {
    record r = {.type = t, .has = RF_DEVICE | RF_STREAM | RF_START | RF_END, .device = dev, .stream = stream,
                .start_ns = s, .end_ns = e, .name = name, .name_len = name ? strlen(name) : 0};
    return r;
}

static const char *const NAMES[] = {"Cijk_Alik_Bljk_BBS", "ncclDevKernel_AllReduce_Sum_bf16", "__amd_rocclr_copyBuffer",
                                    "void at::native::vectorized_elementwise_kernel<4>", "flash_fwd_kernel"};

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
            int dev = (int)rnd(2), str = (int)rnd(2), s = (int)rnd(T - 1), len = 1 + (int)rnd(120);
            int e = s + len > T ? T : s + len, k = (int)rnd(6);
            record_type t = k == 5 ? REC_MEMORY_COPY : REC_KERNEL_DISPATCH;
            recs[i] = op(t, k == 5 ? NULL : NAMES[k], dev, str, s, e);
            int group = k == 5 || k == 2 ? 3 : k == 1 ? 2 : 1;
            for (int x = s; x < e; x++)
                bits[dev * 2 + str][0][x] = bits[dev * 2 + str][group][x] = bits[4][0][x] = bits[4][group][x] = 1;
        }
        void *one = run_analysis(&timeline_section, recs, N, 1, NULL);
        void *three = run_analysis(&timeline_section, recs, N, 3, NULL);
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
#define NUM(key) (snprintf(path, sizeof path, "%s.%s", scope, key), num(&timeline_section, run, path))
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
    record r = op(REC_KERNEL_DISPATCH, "Cijk_x", 0, 0, s, e);
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
        void *run = run_analysis(&timeline_section, cases[c], 8, c == 2 ? 2 : 1, NULL);
        ck_assert_int_eq((int64_t)num(&timeline_section, run, "run.host_wait_ns"), 100);
        ck_assert_int_eq((int64_t)num(&timeline_section, run, "run.kernel_wait_ns"), 10);
        ck_assert_int_eq((int64_t)num(&timeline_section, run, "run.other_ns"), 600);
        ck_assert_int_eq((int64_t)num(&timeline_section, run, "run.idle_ns"), 710);
        ck_assert_int_eq((int64_t)num(&timeline_section, run, "launch_delay.count"), 4);
        ck_assert_int_eq((int64_t)num(&timeline_section, run, "launch_delay.mean_ns"), 250);
        ck_assert_int_eq((int64_t)num(&timeline_section, run, "launch_delay.max_ns"), 740);
        ck_assert_int_eq((int64_t)num(&timeline_section, run, "launch_delay.p50_ns"), 40);
        ck_assert_int_eq((int64_t)num(&timeline_section, run, "launch_delay.p95_ns"), 740);
        ck_assert_int_eq((int64_t)num(&timeline_section, run, "short_kernels.count"), 1);   /* C: 90 ns < 100 */
        timeline_section.close(run);
    }
    /* launches from a source whose kernels are not chosen (another profiler's correlation
     * ids) are ignored: the split case then has no matched launch */
    chosen_last = false;
    void *run = run_analysis(&timeline_section, split, 8, 2, NULL);
    chosen_last = true;
    double v;
    ck_assert(!timeline_section.number(run, "run.host_wait_ns", &v));
    ck_assert_int_eq((int64_t)num(&timeline_section, run, "launch_delay.count"), 0);
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
        void *run = run_analysis(&timeline_section, orders[c], 8, c == 3 ? 2 : 1, NULL);
        ck_assert_int_eq((int64_t)num(&timeline_section, run, "launch_delay.count"), 3);
        ck_assert_int_eq((int64_t)num(&timeline_section, run, "launch_delay.max_ns"), 30);
        ck_assert_int_eq((int64_t)num(&timeline_section, run, "streams.1.host_wait_ns"), 50);
        double v = -1;
        ck_assert(!timeline_section.number(run, "streams.0.host_wait_ns", &v) || v == 0);
        timeline_section.close(run);
    }
    /* the tie: G1 on stream 1 and G2 on stream 0 both start at 100 */
    g2.start_ns = 100, g2.end_ns = 160;
    record tie[2][8] = {{x, y, g2, g1, g3, lx, ly, lg}, {lx, ly, lg, x, y, g2, g1, g3}};
    for (int c = 0; c < 2; c++) {
        void *run = run_analysis(&timeline_section, tie[c], 8, 1, NULL);
        ck_assert_int_eq((int64_t)num(&timeline_section, run, "launch_delay.count"), 3);
        ck_assert_int_eq((int64_t)num(&timeline_section, run, "streams.0.host_wait_ns"), 50);   /* G2, read first */
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
    record fwd[6] = {op(REC_KERNEL_DISPATCH, "Cijk_a", 0, 0, 0, 100), op(REC_KERNEL_DISPATCH, "Cijk_b", 0, 0, 200, 200),
                     op(REC_KERNEL_DISPATCH, "Cijk_c", 0, 0, 300, 400), op(REC_MEMSET, NULL, 0, 0, 400, 400),
                     launch(5, 450, 460), kernel_c(5, 500, 500)};
    record rev[6];
    for (int i = 0; i < 6; i++) rev[i] = fwd[5 - i];
    const record *cases[2] = {fwd, rev};
    for (int c = 0; c < 2; c++) {
        void *run = run_analysis(&timeline_section, cases[c], 6, 1, NULL);
        ck_assert_int_eq((int64_t)num(&timeline_section, run, "run.busy_ns"), 200);
        ck_assert_int_eq((int64_t)num(&timeline_section, run, "run.span_ns"), 500);
        ck_assert_int_eq((int64_t)num(&timeline_section, run, "run.idle_ns"), 300);
        ck_assert_int_eq((int64_t)num(&timeline_section, run, "run.host_wait_ns"), 100);
        ck_assert_int_eq((int64_t)num(&timeline_section, run, "run.operations"), 5);
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
            ks[i] = rnd(T - 200), ke[i] = ks[i] + 1 + rnd(60);
            ls[i] = rnd(3) ? (int64_t)rnd(T) - 100 : IV_NO_LAUNCH;
            for (int64_t x = ks[i]; x < ke[i]; x++) bits[x] = 1;
            recs[n++] = kernel_c((uint64_t)i + 1, ks[i], ke[i]);
            if (ls[i] != IV_NO_LAUNCH) recs[n++] = launch((uint64_t)i + 1, ls[i], ls[i] + 5);
        }
        for (size_t i = n - 1; i > 0; i--) {   /* shuffle */
            size_t j = rnd((unsigned)i + 1);
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
                    else if (gap < CFG.kernel_wait_threshold_ns) kw += gap;
                }
            }
            if (!on && was) prev_end = last = x;
        }
        void *run = run_analysis(&timeline_section, recs, n, 1 + rnd(3), NULL);
        double v;
        ck_assert_int_eq((int64_t)num(&timeline_section, run, "run.idle_ns"), idle);
        ck_assert_int_eq((int64_t)num(&timeline_section, run, "run.span_ns"), last - first);
        ck_assert_int_eq((int64_t)num(&timeline_section, run, "run.kernel_wait_ns"), kw);
        ck_assert_int_eq((int64_t)num(&timeline_section, run, "run.other_ns"), idle - hw - kw);
        if (any_launch || !gaps) ck_assert_int_eq((int64_t)num(&timeline_section, run, "run.host_wait_ns"), hw);
        else ck_assert(!timeline_section.number(run, "run.host_wait_ns", &v));
        timeline_section.close(run);
    }
}
END_TEST

/* The report.md parts of the three sections. */
START_TEST(report_md_parts) {
    record recs[4] = {kernel_c(1, 0, 100), launch(1, -20, -10), op(REC_KERNEL_DISPATCH, "ncclKernel", 0, 1, 50, 120),
                      op(REC_MEMORY_COPY, NULL, 0, 0, 200, 300)};
    void *tl = run_analysis(&timeline_section, recs, 4, 1, NULL);
    void *cl = run_analysis(&classes_section, recs, 4, 1, NULL);
    const section_analysis *ans[2] = {&classes_section, &timeline_section};
    void *states[2] = {cl, tl};
    section_results earlier = {ans, states, 2};
    void *rc = run_analysis(&recommendations_section, recs, 4, 1, &earlier);
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
    record recs[5] = {op(REC_KERNEL_DISPATCH, "k", 0, 0, -((i128)1 << 62), (i128)1 << 62),
                      op(REC_KERNEL_DISPATCH, "k", 0, 0, 500, 100),
                      op(REC_KERNEL_DISPATCH, "k", 0, 0, (i128)INT64_MAX * 4, (i128)INT64_MAX * 5),
                      op(REC_KERNEL_DISPATCH, "k", 0, 0, 10, 20), launch(9, -((i128)1 << 62), 0)};
    recs[1].has &= ~(unsigned)RF_DEVICE;
    recs[3].has |= RF_CORRELATION;
    recs[3].correlation_id = 9;
    recs[4].end_ns = (i128)1 << 70;
    void *run = run_analysis(&timeline_section, recs, 5, 1, NULL);
    ck_assert_int_eq((int64_t)num(&timeline_section, run, "run.busy_ns"), 10);
    ck_assert_int_eq((int64_t)num(&timeline_section, run, "run.span_ns"), 10);
    ck_assert_int_eq((int64_t)num(&timeline_section, run, "launch_delay.count"), 0);
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
    record recs[2] = {op(REC_KERNEL_DISPATCH, "Cijk_a", 0, 0, 0, 100), op(REC_KERNEL_DISPATCH, "Cijk_a", 0, 0, 50, 300)};
    rank_per_source = true;
    void *run = run_analysis(&timeline_section, recs, 2, 2, NULL);
    rank_per_source = false;
    ck_assert_int_eq((int64_t)num(&timeline_section, run, "streams.0.busy_ns"), 100);
    ck_assert_int_eq((int64_t)num(&timeline_section, run, "streams.1.busy_ns"), 250);
    ck_assert_int_eq((int64_t)num(&timeline_section, run, "devices.1.busy_ns"), 250);
    ck_assert_int_eq((int64_t)num(&timeline_section, run, "run.busy_ns"), 300);
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
            r.type = (record_type)rnd(REC_TYPE_COUNT);
            r.has = (unsigned)rnd(1u << 22);
            r.device = rnd(3), r.stream = rnd(3);
            int64_t s0 = rnd(4) ? (int64_t)rnd(100000) : VALS[rnd(9)];
            r.start_ns = s0;
            r.end_ns = rnd(5) ? (i128)s0 + rnd(5000) : (i128)VALS[rnd(9)] * (rnd(2) ? 1 : 3);
            r.duration_ns = rnd(4) ? (i128)rnd(5000) : VALS[rnd(9)];
            r.correlation_id = rnd(200);
            r.name = rnd(8) ? NAME + rnd(20) : NULL;
            r.name_len = r.name ? (size_t)rnd(30) : 0;
            if (r.type == REC_METADATA) { r.key = "device_name"; r.value = "MI300X"; r.value_len = 6; }
            recs[i] = r;
        }
        size_t sources = 1 + rnd(3);
        void *tl = run_analysis(&timeline_section, recs, N, sources, NULL);
        void *cl = run_analysis(&classes_section, recs, N, sources, NULL);
        const section_analysis *ans[2] = {&classes_section, &timeline_section};
        void *states[2] = {cl, tl};
        section_results earlier = {ans, states, 2};
        void *rc = run_analysis(&recommendations_section, recs, N, sources, &earlier);
        double idle, hw = 0, kw, other;
        if (timeline_section.number(tl, "run.idle_ns", &idle)) {
            timeline_section.number(tl, "run.host_wait_ns", &hw);
            kw = num(&timeline_section, tl, "run.kernel_wait_ns");
            other = num(&timeline_section, tl, "run.other_ns");
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

/* Class totals sum to the total, kernels' to the kernel total, whatever the split. */
/* Barrier packets are their own class, not kernels: kernel A [0,100), "<barrier packet>"
 * [100,300) on the same queue, kernel B [300,400). By hand: the timeline's busy and compute
 * are A and B (200 of a 400 span, idle 200); classes: barrier 1 call / 200 ns, kernels 2 /
 * 200 ns, total 400. */
START_TEST(barrier_packets_are_not_kernels) {
    ck_assert_str_eq(kernel_class_key(kernel_class_of("<barrier packet>", 16)), "barrier");
    ck_assert(kernel_is_barrier("<Barrier Packet>", 16) && !kernel_is_barrier("barrier_kernel", 14));
    record recs[3] = {op(REC_KERNEL_DISPATCH, "Cijk_x", 0, 0, 0, 100), op(REC_KERNEL_DISPATCH, "<barrier packet>", 0, 0, 100, 300),
                      op(REC_KERNEL_DISPATCH, "Cijk_y", 0, 0, 300, 400)};
    void *run = run_analysis(&timeline_section, recs, 3, 1, NULL);
    ck_assert_int_eq((int64_t)num(&timeline_section, run, "run.busy_ns"), 200);
    ck_assert_int_eq((int64_t)num(&timeline_section, run, "run.compute_ns"), 200);
    ck_assert_int_eq((int64_t)num(&timeline_section, run, "run.idle_ns"), 200);
    ck_assert_int_eq((int64_t)num(&timeline_section, run, "short_kernels.count"), 0);
    timeline_section.close(run);
    run = run_analysis(&classes_section, recs, 3, 1, NULL);
    ck_assert_int_eq((int64_t)num(&classes_section, run, "by_class.barrier.calls"), 1);
    ck_assert_int_eq((int64_t)num(&classes_section, run, "by_class.barrier.total_ns"), 200);
    ck_assert_int_eq((int64_t)num(&classes_section, run, "kernel_calls"), 2);
    ck_assert_int_eq((int64_t)num(&classes_section, run, "kernel_total_ns"), 200);
    ck_assert_int_eq((int64_t)num(&classes_section, run, "total_ns"), 400);
    classes_section.close(run);
}
END_TEST

START_TEST(classes_sum_to_total) {
    enum { N = 500 };
    static record recs[N];
    int64_t total = 0, kernels = 0;
    for (int i = 0; i < N; i++) {
        int k = (int)rnd(7), s = (int)rnd(100000), len = (int)rnd(5000);
        record_type t = k == 5 ? REC_MEMORY_COPY : k == 6 ? REC_MEMSET : REC_KERNEL_DISPATCH;
        recs[i] = op(t, k >= 5 ? NULL : NAMES[k], 0, 0, s, s + len);
        total += len;
        if (t == REC_KERNEL_DISPATCH) kernels += len;
    }
    for (size_t sources = 1; sources <= 4; sources++) {
        void *run = run_analysis(&classes_section, recs, N, sources, NULL);
        ck_assert_int_eq((int64_t)num(&classes_section, run, "total_ns"), total);
        ck_assert_int_eq((int64_t)num(&classes_section, run, "kernel_total_ns"), kernels);
        double sum = 0, pct = 0;
        for (int k = 0; k < KC_COUNT; k++) {
            char path[64];
            double v;
            snprintf(path, sizeof path, "by_class.%s.total_ns", kernel_class_key((kernel_class)k));
            if (classes_section.number(run, path, &v)) sum += v;
            snprintf(path, sizeof path, "by_class.%s.pct", kernel_class_key((kernel_class)k));
            if (classes_section.number(run, path, &v)) pct += v;
        }
        ck_assert_int_eq((int64_t)sum, total);
        ck_assert(pct > 99.999 && pct < 100.001);
        ck_assert_int_eq((int64_t)num(&classes_section, run, "by_class.memcpy.calls") > 0, 1);
        classes_section.close(run);
    }
}
END_TEST

/* The rules: one kernel with > 50 % of kernel time fires dominant_kernel; 1001 calls of a
 * 5-us kernel fire launch_bound; a generic GEMM fires generic_gemm; rules whose inputs are
 * absent (steps, telemetry, device) are skipped, not evaluated on zeros. */
START_TEST(recommendations_rules) {
    enum { N = 1100 };
    static record recs[N];
    int64_t t = 0;
    for (int i = 0; i < 1001; i++, t += 6000) recs[i] = op(REC_KERNEL_DISPATCH, "tiny_kernel", 0, 0, t, t + 5000);
    recs[1001] = op(REC_KERNEL_DISPATCH, "Cijk_big", 0, 0, t, t + 20000000);
    recs[1002] = op(REC_KERNEL_DISPATCH, "hipblaslt_generic_gemm_fallback", 0, 0, t + 20000000, t + 20001000);
    record meta = {.type = REC_METADATA, .key = "device_name", .value = "AMD Instinct MI300X", .value_len = 19};
    recs[1003] = meta;
    recs[1004] = op(REC_KERNEL_DISPATCH, "Cijk_fp16_HHS", 0, 0, t + 30000000, t + 31000000);
    size_t n = 1005;
    void *tl = run_analysis(&timeline_section, recs, n, 1, NULL);
    const section_analysis *ans[1] = {&timeline_section};
    void *states[1] = {tl};
    section_results earlier = {ans, states, 1};
    void *run = run_analysis(&recommendations_section, recs, n, 2, &earlier);
    ck_assert_int_eq((int)num(&recommendations_section, run, "dominant_kernel.fired"), 1);
    ck_assert_int_eq((int)num(&recommendations_section, run, "launch_bound.fired"), 1);
    ck_assert_int_eq((int)num(&recommendations_section, run, "generic_gemm.fired"), 1);
    ck_assert_int_eq((int)num(&recommendations_section, run, "fp16_on_bf16_device.fired"), 1);
    ck_assert_int_eq((int)num(&recommendations_section, run, "memcpy_heavy.fired"), 0);
    double v;
    ck_assert(!recommendations_section.number(run, "dataloader_share.fired", &v));   /* no steps section */
    ck_assert(!recommendations_section.number(run, "memory_peak.fired", &v));        /* no telemetry */
    strbuf b = {0};
    jw_out w;
    jw_begin(&w, &b, 0);
    recommendations_section.render(run, &w);
    strbuf_terminate(&b);
    ck_assert_ptr_nonnull(strstr(b.data, "\"skipped\":[{\"id\":\"dataloader_share\""));
    strbuf_free(&b);
    recommendations_section.close(run);
    timeline_section.close(tl);
}
END_TEST

int main(void) {
    Suite *s = suite_create("timeline");
    TCase *tc = tcase_create("classes_timeline_recommendations");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, class_table_on_fixture_names);
    tcase_add_test(tc, class_table_other_vendors);
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
    tcase_add_test(tc, classes_sum_to_total);
    tcase_add_test(tc, barrier_packets_are_not_kernels);
    tcase_add_test(tc, recommendations_rules);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
