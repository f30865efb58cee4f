/* Tests of the ops section (analyses/ops.c): kernel time attributed to CPU operators on a
 * hand-built chain (External id, correlation -> launch -> External id, a kernel before
 * its operator), union of intervals, shapes, Python frames, split pieces and files. */
#include <check.h>
#include <string.h>

#include "tests/an12b_drive.h"

static record op(const char *name, uint64_t ext, int64_t a, int64_t b, const char *args) {
    record r = rec_span(REC_CPU_OP, name, a, b);
    r.has |= RF_EXTERNAL | RF_PID_TID;
    r.external_id = ext;
    r.pid = 1, r.tid = 7;
    r.category = "cpu_op", r.category_len = 6;
    if (args) r.args = args, r.args_len = strlen(args);
    return r;
}

static record pyframe(const char *name, int64_t a, int64_t b) {
    record r = rec_span(REC_CPU_OP, name, a, b);
    r.has |= RF_PID_TID;
    r.pid = 1, r.tid = 7;
    r.category = "python_function", r.category_len = 15;
    return r;
}

static record kernel(const char *name, int64_t a, int64_t b, uint64_t ext, uint64_t corr) {
    record r = rec_span(REC_KERNEL_DISPATCH, name, a, b);
    if (ext) r.has |= RF_EXTERNAL, r.external_id = ext;
    if (corr) r.has |= RF_CORRELATION, r.correlation_id = corr;
    return r;
}

static record launch(uint64_t corr, uint64_t ext) {
    record r = rec_span(REC_API_CALL, "hipLaunchKernel", 5, 6);
    r.has |= RF_CORRELATION | RF_EXTERNAL;
    r.correlation_id = corr, r.external_id = ext;
    return r;
}

static json_t *by_name(json_t *ops, const char *name) {
    json_t *list = json_object_get(ops, "by_op");
    for (size_t i = 0; i < json_array_size(list); i++)
        if (!strcmp(json_string_value(json_object_get(json_array_get(list, i), "name")), name))
            return json_array_get(list, i);
    return NULL;
}

static int64_t geti(json_t *o, const char *k) { return json_integer_value(json_object_get(o, k)); }

START_TEST(attribution_chain) {
    drive d;
    drive_open(&d, "ops");
    drive_source(&d, 0, -1, 0);
    record rs[] = {
        kernel("Cijk_mm", 210, 260, 11, 0),  /* before its operator: waits, then joins */
        pyframe("train.py(42): step", 0, 1000),
        pyframe("torch/nn/modules/module.py(1501): _call_impl", 0, 500),
        pyframe("model.py(7): forward", 0, 150),
        op("aten::mm", 10, 0, 100, "[[4, 8], [8, 16]]"),
        op("aten::mm", 11, 200, 300, "[[4, 8], [8, 16]]"),
        op("aten::add", 12, 400, 450, "[[4], [4]]"),
        op("aten::empty", 13, 460, 470, NULL),   /* no kernel: not listed */
        launch(1, 10),
        kernel("Cijk_mm", 10, 50, 0, 1),         /* correlation -> launch -> External id 10 */
        kernel("Cijk_mm_tail", 40, 80, 10, 0),   /* overlaps the previous: union */
        kernel("elementwise_add", 410, 420, 12, 0),
        kernel("orphan", 500, 510, 0, 99),       /* no launch known */
    };
    for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++) drive_record(&d, &rs[i]);
    drive_end_source(&d);
    json_t *j = drive_finish(&d);
    ck_assert_int_eq(geti(j, "kernels"), 5);
    ck_assert_int_eq(geti(j, "attributed_kernels"), 4);
    ck_assert_int_eq(geti(j, "unattributed_kernels"), 1);
    ck_assert_int_eq(geti(j, "operators"), 2);
    json_t *mm = by_name(j, "aten::mm");
    ck_assert_ptr_nonnull(mm);
    ck_assert_int_eq(geti(mm, "calls"), 2);
    ck_assert_int_eq(geti(mm, "kernels"), 3);
    ck_assert_int_eq(geti(mm, "kernel_time_ns"), 70 + 50);
    ck_assert(json_real_value(json_object_get(mm, "kernels_per_call")) == 1.5);
    json_t *shapes = json_object_get(mm, "input_shapes");
    ck_assert_int_eq(json_array_size(shapes), 1);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(shapes, 0), "shapes")), "[[4, 8], [8, 16]]");
    ck_assert_int_eq(geti(json_array_get(shapes, 0), "calls"), 2);
    ck_assert_str_eq(json_string_value(json_object_get(mm, "python_frame")), "model.py(7): forward");
    json_t *add = by_name(j, "aten::add");
    ck_assert_str_eq(json_string_value(json_object_get(add, "python_frame")), "train.py(42): step");
    ck_assert_int_eq(geti(add, "kernel_time_ns"), 10);
    /* sorted by kernel time */
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(j, "by_op"), 0), "name")), "aten::mm");
    double v;
    ck_assert(d.an->number(d.run, "top.kernel_time_ns", &v));
    ck_assert(v == 120);
    json_decref(j);
    drive_close(&d);
}
END_TEST

/* The second piece of one file joins the first; another file's ids do not. */
START_TEST(pieces_and_files) {
    drive d;
    drive_open(&d, "ops");
    drive_source(&d, 0, 0, 0);
    record o = op("aten::mm", 10, 0, 100, NULL);
    drive_record(&d, &o);
    drive_end_source(&d);
    drive_source(&d, 0, 0, 1);
    record k = kernel("Cijk", 10, 30, 10, 0);
    drive_record(&d, &k);
    drive_end_source(&d);
    drive_source(&d, 1, 1, 0);  /* another rank's file: External id 10 means nothing here */
    record k2 = kernel("Cijk", 10, 30, 10, 0);
    drive_record(&d, &k2);
    drive_end_source(&d);
    json_t *j = drive_finish(&d);
    ck_assert_int_eq(geti(j, "attributed_kernels"), 1);
    ck_assert_int_eq(geti(j, "unattributed_kernels"), 1);
    ck_assert_int_eq(geti(by_name(j, "aten::mm"), "kernel_time_ns"), 20);
    json_decref(j);
    drive_close(&d);

    drive_open(&d, "ops");  /* no operators at all: null */
    drive_source(&d, 0, -1, 0);
    drive_record(&d, &k);
    drive_end_source(&d);
    j = drive_finish(&d);
    ck_assert(json_is_null(j));
    json_decref(j);
    drive_close(&d);
}
END_TEST

Suite *ops_suite(void) {
    Suite *s = suite_create("ops");
    TCase *tc = tcase_create("ops");
    tcase_add_test(tc, attribution_chain);
    tcase_add_test(tc, pieces_and_files);
    suite_add_tcase(s, tc);
    return s;
}
