/* check_classes: unit tests of the kernel classes and the rules built on them — the kernel
 * class table on every fixture kernel name (tests/kernel_classes_expected.tsv) and on
 * patterns no fixture holds, barrier packets as their own class (not kernels, in the timeline
 * too), the classes section (class totals sum to the total whatever the split into sources)
 * and the recommendations rules. Linked into check_timeline (its main runs classes_suite). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/kernel_class.h"
#include "analyses/section.h"
#include "base/json_writer.h"
#include "tests/section_run.h"

extern const section_analysis classes_section, timeline_section, recommendations_section;

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

/* Barrier packets are their own class, not kernels: kernel A [0,100), "<barrier packet>"
 * [100,300) on the same queue, kernel B [300,400). By hand: the timeline's busy and compute
 * are A and B (200 of a 400 span, idle 200); classes: barrier 1 call / 200 ns, kernels 2 /
 * 200 ns, total 400. */
START_TEST(barrier_packets_are_not_kernels) {
    ck_assert_str_eq(kernel_class_key(kernel_class_of("<barrier packet>", 16)), "barrier");
    ck_assert(kernel_is_barrier("<Barrier Packet>", 16) && !kernel_is_barrier("barrier_kernel", 14));
    record recs[3] = {sr_op(REC_KERNEL_DISPATCH, "Cijk_x", 0, 0, 0, 100), sr_op(REC_KERNEL_DISPATCH, "<barrier packet>", 0, 0, 100, 300),
                      sr_op(REC_KERNEL_DISPATCH, "Cijk_y", 0, 0, 300, 400)};
    void *run = sr_run(&timeline_section, recs, 3, 1, NULL);
    ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "run.busy_ns"), 200);
    ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "run.compute_ns"), 200);
    ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "run.idle_ns"), 200);
    ck_assert_int_eq((int64_t)sr_num(&timeline_section, run, "short_kernels.count"), 0);
    timeline_section.close(run);
    run = sr_run(&classes_section, recs, 3, 1, NULL);
    ck_assert_int_eq((int64_t)sr_num(&classes_section, run, "by_class.barrier.calls"), 1);
    ck_assert_int_eq((int64_t)sr_num(&classes_section, run, "by_class.barrier.total_ns"), 200);
    ck_assert_int_eq((int64_t)sr_num(&classes_section, run, "kernel_calls"), 2);
    ck_assert_int_eq((int64_t)sr_num(&classes_section, run, "kernel_total_ns"), 200);
    ck_assert_int_eq((int64_t)sr_num(&classes_section, run, "total_ns"), 400);
    classes_section.close(run);
}
END_TEST

/* Class totals sum to the total, kernels' to the kernel total, whatever the split. */
START_TEST(classes_sum_to_total) {
    enum { N = 500 };
    static record recs[N];
    int64_t total = 0, kernels = 0;
    for (int i = 0; i < N; i++) {
        int k = (int)sr_rnd(7), s = (int)sr_rnd(100000), len = (int)sr_rnd(5000);
        record_type t = k == 5 ? REC_MEMORY_COPY : k == 6 ? REC_MEMSET : REC_KERNEL_DISPATCH;
        recs[i] = sr_op(t, k >= 5 ? NULL : SR_KERNEL_NAMES[k], 0, 0, s, s + len);
        total += len;
        if (t == REC_KERNEL_DISPATCH) kernels += len;
    }
    for (size_t sources = 1; sources <= 4; sources++) {
        void *run = sr_run(&classes_section, recs, N, sources, NULL);
        ck_assert_int_eq((int64_t)sr_num(&classes_section, run, "total_ns"), total);
        ck_assert_int_eq((int64_t)sr_num(&classes_section, run, "kernel_total_ns"), kernels);
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
        ck_assert_int_eq((int64_t)sr_num(&classes_section, run, "by_class.memcpy.calls") > 0, 1);
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
    for (int i = 0; i < 1001; i++, t += 6000) recs[i] = sr_op(REC_KERNEL_DISPATCH, "tiny_kernel", 0, 0, t, t + 5000);
    recs[1001] = sr_op(REC_KERNEL_DISPATCH, "Cijk_big", 0, 0, t, t + 20000000);
    recs[1002] = sr_op(REC_KERNEL_DISPATCH, "hipblaslt_generic_gemm_fallback", 0, 0, t + 20000000, t + 20001000);
    record meta = {.type = REC_METADATA, .key = "device_name", .value = "AMD Instinct MI300X", .value_len = 19};
    recs[1003] = meta;
    recs[1004] = sr_op(REC_KERNEL_DISPATCH, "Cijk_fp16_HHS", 0, 0, t + 30000000, t + 31000000);
    size_t n = 1005;
    void *tl = sr_run(&timeline_section, recs, n, 1, NULL);
    const section_analysis *ans[1] = {&timeline_section};
    void *states[1] = {tl};
    section_results earlier = {ans, states, 1};
    void *run = sr_run(&recommendations_section, recs, n, 2, &earlier);
    ck_assert_int_eq((int)sr_num(&recommendations_section, run, "dominant_kernel.fired"), 1);
    ck_assert_int_eq((int)sr_num(&recommendations_section, run, "launch_bound.fired"), 1);
    ck_assert_int_eq((int)sr_num(&recommendations_section, run, "generic_gemm.fired"), 1);
    ck_assert_int_eq((int)sr_num(&recommendations_section, run, "fp16_on_bf16_device.fired"), 1);
    ck_assert_int_eq((int)sr_num(&recommendations_section, run, "memcpy_heavy.fired"), 0);
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

/* The suite check_timeline's main runs beside its own. */
Suite *classes_suite(void) {
    Suite *s = suite_create("classes");
    TCase *tc = tcase_create("classes_recommendations");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, class_table_on_fixture_names);
    tcase_add_test(tc, class_table_other_vendors);
    tcase_add_test(tc, classes_sum_to_total);
    tcase_add_test(tc, barrier_packets_are_not_kernels);
    tcase_add_test(tc, recommendations_rules);
    suite_add_tcase(s, tc);
    return s;
}
