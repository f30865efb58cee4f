/* Tests of the phases and layers sections (analyses/sections/phases.c, analyses/sections/layers.c) on tiny
 * hand-built streams: vLLM step annotations in both spellings, kernels joined through
 * their launch call (a graph launch's kernels after the annotation ended), and layers as
 * launch groups holding attention and GEMM work, numbered in time order. */
#include <check.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "analyses/kernel_class.h"
#include "analyses/kernel_rows.h"
#include "tests/section_drive.h"

static record kern(const char *name, int64_t a, int64_t b, uint64_t ext, uint64_t corr) {
    record r = rec_span(REC_KERNEL_DISPATCH, name, a, b);
    if (ext) r.has |= RF_EXTERNAL, r.external_id = ext;
    if (corr) r.has |= RF_CORRELATION, r.correlation_id = corr;
    return r;
}

static record call(int64_t at, uint64_t corr) {
    record r = rec_span(REC_API_CALL, "hipGraphLaunch", at, at + 5);
    r.has |= RF_CORRELATION;
    r.correlation_id = corr;
    return r;
}

static int64_t geti(json_t *o, const char *k) { return json_integer_value(json_object_get(o, k)); }

START_TEST(phases_prefill_decode) {
    drive d;
    drive_open(&d, "phases");
    drive_source(&d, 0, -1, 0);
    record rs[] = {
        kern("k", 300, 340, 0, 1), kern("k", 340, 360, 0, 1),     /* a graph: both after its step ended */
        rec_span(REC_ANNOTATION, "execute_context_2(512)_generation_0(0)", 0, 100),
        rec_span(REC_ANNOTATION, "execute_4_context_0(sq0sk0sqsq0sqsk0)_generation_4(sq4sk900sqsq1sqsk225)", 100, 200),
        rec_span(REC_ANNOTATION, "execute_model", 0, 200),       /* not a step name */
        call(50, 1), call(150, 2), call(250, 4),
        kern("k", 400, 410, 0, 2),
        kern("k", 120, 125, 0, 3),                                  /* no launch: by its own start */
        kern("k", 500, 510, 0, 4),                                  /* launched outside every step */
    };
    for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++) drive_record(&d, &rs[i]);
    drive_end_source(&d);
    json_t *j = drive_finish(&d);
    json_t *pre = json_object_get(j, "prefill"), *dec = json_object_get(j, "decode");
    ck_assert_int_eq(geti(j, "steps"), 2);
    ck_assert_int_eq(geti(pre, "steps"), 1);
    ck_assert_int_eq(geti(pre, "tokens"), 512);
    ck_assert_int_eq(geti(pre, "kernels"), 2);
    ck_assert_int_eq(geti(pre, "kernel_time_ns"), 60);
    ck_assert_int_eq(geti(pre, "wall_ns"), 100);
    ck_assert_int_eq(geti(dec, "tokens"), 4);
    ck_assert_int_eq(geti(dec, "kernels"), 2);
    ck_assert_int_eq(geti(dec, "kernel_time_ns"), 15);
    ck_assert_int_eq(geti(json_object_get(j, "mixed"), "steps"), 0);
    ck_assert_int_eq(geti(j, "unattributed_kernels"), 1);
    double v;
    ck_assert(d.an->number(d.run, "decode.kernel_time_ns", &v) && v == 15);
    json_decref(j);
    drive_close(&d);

    drive_open(&d, "phases");  /* no step annotation: null */
    drive_source(&d, 0, -1, 0);
    drive_record(&d, &rs[0]);
    drive_end_source(&d);
    j = drive_finish(&d);
    ck_assert(json_is_null(j));
    json_decref(j);
    drive_close(&d);
}
END_TEST

START_TEST(layers_groups) {
    const char *attn = "fmha_fwd_hd128_bf16", *gemm = "Cijk_Alik_Bljk_BBS_BH_MT128x128x64";
    bool classes_known = kernel_class_of(attn, strlen(attn)) == KC_ATTENTION && kernel_class_of(gemm, strlen(gemm)) == KC_GEMM;
    drive d;
    drive_open(&d, "layers");
    drive_source(&d, 0, -1, 0);
    int64_t t = 1000;
    for (int i = 0; i < 8; i++, t += 10) {  /* graph launch 9 (no External id): a later layer */
        record r = kern(i ? gemm : attn, t + 1000, t + 1005, 0, 9);
        drive_record(&d, &r);
    }
    t = 0;
    for (int i = 0; i < 10; i++, t += 10) {  /* External id 5: the first layer */
        record r = kern(i < 4 ? attn : gemm, t, t + 7, 5, 100 + (uint64_t)i);
        drive_record(&d, &r);
    }
    for (int i = 0; i < 3; i++) {  /* too few kernels */
        record r = kern(i ? gemm : attn, 5000 + i, 5001 + i, 6, 200 + (uint64_t)i);
        drive_record(&d, &r);
    }
    for (int i = 0; i < 10; i++) {  /* GEMM only */
        record r = kern(gemm, 6000 + i, 6001 + i, 7, 300 + (uint64_t)i);
        drive_record(&d, &r);
    }
    drive_end_source(&d);
    json_t *j = drive_finish(&d);
    if (!classes_known) {
        fprintf(stderr, "layers_groups: kernel_class has no attention/GEMM rows yet (placeholder table): "
                        "only checking that no layer is claimed\n");
        ck_assert(json_is_null(j));
    } else {
        ck_assert_int_eq(geti(j, "count"), 2);
        json_t *l0 = json_array_get(json_object_get(j, "items"), 0), *l1 = json_array_get(json_object_get(j, "items"), 1);
        ck_assert_int_eq(geti(l0, "layer"), 0);
        ck_assert_int_eq(geti(l0, "kernels"), 10);
        ck_assert_int_eq(geti(l0, "kernel_time_ns"), 70);
        ck_assert_int_eq(geti(l0, "attention_ns"), 28);
        ck_assert_int_eq(geti(l0, "gemm_ns"), 42);
        ck_assert_int_eq(geti(l0, "span_ns"), 97);
        ck_assert_int_eq(geti(l1, "layer"), 1);
        ck_assert_int_eq(geti(l1, "kernels"), 8);
        ck_assert_int_eq(geti(l1, "start_ns"), 2000);
    }
    json_decref(j);
    drive_close(&d);
}
END_TEST

/* More one-kernel launches than the group table holds: finished small groups are dropped,
 * the layers before and after them are still found, nothing is reported lost. */
START_TEST(layers_compaction) {
    const char *attn = "fmha_fwd_hd128_bf16", *gemm = "Cijk_Alik_Bljk_BBS_BH_MT128x128x64";
    bool classes_known = kernel_class_of(attn, strlen(attn)) == KC_ATTENTION && kernel_class_of(gemm, strlen(gemm)) == KC_GEMM;
    drive d;
    drive_open(&d, "layers");
    drive_source(&d, 0, -1, 0);
    for (int i = 0; i < 8; i++) {
        record r = kern(i ? gemm : attn, i * 10, i * 10 + 5, 0, 1);
        drive_record(&d, &r);
    }
    for (uint64_t i = 0; i < 200000; i++) {  /* eager launches, 100 us apart: 20 s of them */
        record r = kern("elementwise", 1000 + (int64_t)i * 100000, 1000 + (int64_t)i * 100000 + 50, 0, 10 + i);
        drive_record(&d, &r);
    }
    for (int i = 0; i < 8; i++) {
        record r = kern(i ? gemm : attn, 30000000000 + i * 10, 30000000000 + i * 10 + 5, 0, 5);
        drive_record(&d, &r);
    }
    drive_end_source(&d);
    json_t *j = drive_finish(&d);
    ck_assert_int_eq(d.diag.count, 0);
    if (classes_known) {
        ck_assert_int_eq(geti(j, "count"), 2);
        ck_assert(json_is_true(json_object_get(j, "complete")));
    } else {
        ck_assert(json_is_null(j));
    }
    json_decref(j);
    drive_close(&d);
}
END_TEST

/* One graph launch of a three-layer model: cut at each attention after GEMM work; a
 * two-kernel attention (split-KV + combine) stays in one layer. */
START_TEST(layers_graph_cut) {
    const char *attn = "fmha_fwd_splitkv_hd128_bf16", *comb = "fmha_fwd_splitkv_combine", *gemm = "Cijk_Alik_Bljk_BBS_BH",
               *ew = "void at::native::vectorized_elementwise_kernel<4, at::native::add>";
    bool classes_known = kernel_class_of(attn, strlen(attn)) == KC_ATTENTION && kernel_class_of(comb, strlen(comb)) == KC_ATTENTION &&
                         kernel_class_of(gemm, strlen(gemm)) == KC_GEMM && kernel_class_of(ew, strlen(ew)) != KC_GEMM &&
                         kernel_class_of(ew, strlen(ew)) != KC_ATTENTION;
    drive d;
    drive_open(&d, "layers");
    drive_source(&d, 0, -1, 0);
    int64_t t = 0;
    const char *pre[] = {ew, gemm};
    for (int i = 0; i < 2; i++, t += 10) {
        record r = kern(pre[i], t, t + 5, 0, 42);
        drive_record(&d, &r);
    }
    const char *layer[] = {attn, comb, gemm, gemm, gemm, gemm, ew, ew, ew};
    for (int l = 0; l < 3; l++)
        for (int i = 0; i < 9; i++, t += 10) {
            record r = kern(layer[i], t, t + 5, 0, 42);
            drive_record(&d, &r);
        }
    drive_end_source(&d);
    json_t *j = drive_finish(&d);
    if (!classes_known) {
        ck_assert(json_is_null(j));
    } else {
        ck_assert_int_eq(geti(j, "count"), 3);
        json_t *items = json_object_get(j, "items");
        ck_assert_int_eq(geti(json_array_get(items, 0), "kernels"), 11);
        ck_assert_int_eq(geti(json_array_get(items, 0), "attention_kernels"), 2);
        ck_assert_int_eq(geti(json_array_get(items, 1), "kernels"), 9);
        ck_assert_int_eq(geti(json_array_get(items, 2), "layer"), 2);
        ck_assert_int_eq(geti(json_array_get(items, 2), "kernel_time_ns"), 45);
        ck_assert_int_eq(geti(j, "kernel_time_ns"), 29 * 5);
    }
    json_decref(j);
    drive_close(&d);
}
END_TEST

/* Layers of one graph launch smaller than min_kernels: the segments cut at attention are
 * layers whatever their size, and so is the rest after the last cut (also after compaction
 * swept the table). Eight layers of 9 kernels (GEMMs before and after the attention) and one
 * trailing kernel: 8 layers, the last 4 + 1 + 1 kernels; six layers of 5 kernels: 6. Counted
 * by hand from the streams below. */
START_TEST(layers_small_segments) {
    const char *attn = "fmha_fwd_hd128_bf16", *gemm = "Cijk_Alik_Bljk_BBS_BH",
               *ew = "void at::native::vectorized_elementwise_kernel<4, at::native::add>";
    bool classes_known = kernel_class_of(attn, strlen(attn)) == KC_ATTENTION && kernel_class_of(gemm, strlen(gemm)) == KC_GEMM &&
                         kernel_class_of(ew, strlen(ew)) != KC_GEMM && kernel_class_of(ew, strlen(ew)) != KC_ATTENTION;
    for (int sweep = 0; sweep < 2; sweep++) {
        drive d;
        drive_open(&d, "layers");
        drive_source(&d, 0, -1, 0);
        int64_t t = 0;
        const char *big[] = {gemm, gemm, gemm, gemm, attn, gemm, gemm, gemm, gemm};
        for (int l = 0; l < 8; l++)
            for (int i = 0; i < 9; i++, t += 10) {
                record r = kern(big[i], t, t + 5, 0, 7);
                drive_record(&d, &r);
            }
        record tr = kern(ew, t, t + 5, 0, 7);
        drive_record(&d, &tr);
        t += 10;
        const char *small[] = {attn, gemm, gemm, ew, ew};
        for (int l = 0; l < 6; l++)
            for (int i = 0; i < 5; i++, t += 10) {
                record r = kern(small[i], t, t + 5, 0, 8);
                drive_record(&d, &r);
            }
        if (sweep)   /* one-kernel launches 1 ms apart, past the group table: compaction runs */
            for (uint64_t i = 0; i < 40000; i++) {
                record r = kern(ew, 1000000 + (int64_t)i * 1000000, 1000000 + (int64_t)i * 1000000 + 50, 0, 100 + i);
                drive_record(&d, &r);
            }
        drive_end_source(&d);
        json_t *j = drive_finish(&d);
        if (!classes_known) {
            ck_assert(json_is_null(j));
        } else {
            ck_assert_int_eq(geti(j, "count"), 14);
            json_t *items = json_object_get(j, "items");
            ck_assert_int_eq(geti(json_array_get(items, 0), "kernels"), 13);   /* 4 before + 9 */
            ck_assert_int_eq(geti(json_array_get(items, 1), "kernels"), 9);
            ck_assert_int_eq(geti(json_array_get(items, 7), "kernels"), 6);    /* attn, 4 GEMMs, trailing */
            ck_assert_int_eq(geti(json_array_get(items, 8), "kernels"), 5);
            ck_assert_int_eq(geti(json_array_get(items, 13), "kernels"), 5);
            ck_assert_int_eq(geti(j, "kernel_time_ns"), (8 * 9 + 1 + 6 * 5) * 5);
        }
        json_decref(j);
        drive_close(&d);
    }
}
END_TEST

/* The heap in use (glibc's arenas and mappings; under a sanitizer, whose allocator glibc does
 * not see, it does not move and the bounds below hold trivially). */
static long long heap_in_use(void) {
    struct mallinfo2 m = mallinfo2();
    return (long long)(m.uordblks + m.hblkhd);
}

static bool no_row(void *user, const krow *row) { (void)user, (void)row; return true; }

/* Launch calls and operators repeating one id (a hostile trace: 1,000,000 launch calls with
 * correlation id 3, as many cpu_ops with External id 7) keep one entry per id in the phases
 * section and the kernel export's labelling tables, where each record took 8 to 40 bytes
 * (their bounds count distinct ids): the heap grows by less than 4 MB where it grew by 8-75 MB. */
START_TEST(repeated_ids_keep_one_entry) {
    enum { N = 1000000 };
    record l = call(10, 3);
    l.has |= RF_EXTERNAL, l.external_id = 7;
    record o = rec_span(REC_CPU_OP, "aten::mm", 0, 50);
    o.has |= RF_EXTERNAL | RF_PID_TID, o.external_id = 7, o.pid = 1, o.tid = 1;
    o.category = "cpu_op", o.category_len = 6;
    drive d;
    drive_open(&d, "phases");
    drive_source(&d, 0, -1, 0);
    record st = rec_span(REC_ANNOTATION, "execute_context_2(512)_generation_0(0)", 0, 100);
    drive_record(&d, &st);
    long long before = heap_in_use();
    for (int i = 0; i < N; i++) drive_record(&d, &l);
    ck_assert_int_lt(heap_in_use() - before, 4 << 20);
    record k = kern("k", 20, 60, 0, 3);
    drive_record(&d, &k);
    drive_end_source(&d);
    json_t *j = drive_finish(&d);
    ck_assert_int_eq(geti(json_object_get(j, "prefill"), "kernels"), 1);   /* through the latest call */
    json_decref(j);
    drive_close(&d);

    kernel_rows_ctx *ctx = kernel_rows_new(no_row, NULL);
    ck_assert_ptr_nonnull(ctx);
    analysis_config cfg = {.kernel_rows = ctx, .run_dir = "."};
    diag_list diag;
    diag_init(&diag);
    const section_analysis *an = &kernel_labels_analysis;
    void *run = an->open(&cfg, &diag);
    source_ref ref = {.index = 0, .path = "test", .format = "test", .rank = -1, .kernels_chosen = true};
    void *src = an->open_source(run, &ref);
    ck_assert_ptr_nonnull(src);
    before = heap_in_use();
    for (int i = 0; i < N; i++) ck_assert(an->consume(src, &l) && an->consume(src, &o));
    ck_assert_int_lt(heap_in_use() - before, 4 << 20);
    ck_assert(an->end_source(run, src));
    ck_assert_uint_eq(kernel_rows_dropped(ctx), 0);
    an->close(run);
    diag_free(&diag);
    kernel_rows_free(ctx);
}
END_TEST

Suite *phases_layers_suite(void) {
    Suite *s = suite_create("phases_layers");
    TCase *tc = tcase_create("phases_layers");
    tcase_add_test(tc, phases_prefill_decode);
    tcase_add_test(tc, layers_groups);
    tcase_add_test(tc, layers_compaction);
    tcase_add_test(tc, layers_graph_cut);
    tcase_add_test(tc, layers_small_segments);
    tcase_add_test(tc, repeated_ids_keep_one_entry);
    suite_add_tcase(s, tc);
    return s;
}
