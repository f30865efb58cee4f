/* Tests of the ops section (analyses/sections/ops.c): kernel time attributed to CPU operators on a
 * hand-built chain (External id, correlation -> launch -> External id, a kernel before
 * its operator), union of intervals, shapes, Python frames, split pieces and files. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyses/sections/ops_state.h"
#include "tests/section_drive.h"

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

static record launch_call(uint64_t corr, uint64_t ext) {
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
        launch_call(1, 10),
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


/* Why kernels are unattributed, counted by hand: an operator (ext 1) with 2 kernels; 3 kernels
 * with neither External id nor correlation (no_id); then 70,000 kernels whose External ids name
 * no operator: the first 65,536 (MAX_PENDING) wait and find none at the end (no_operator), the
 * other 4,464 are past the pending bound (pending_bound). The four reasons sum to
 * unattributed_kernels. */
START_TEST(unattributed_reasons) {
    drive d;
    drive_open(&d, "ops");
    drive_source(&d, 0, -1, 0);
    record o = op("aten::mm", 1, 0, 100, NULL);
    drive_record(&d, &o);
    for (int i = 0; i < 2; i++) {
        record k = kernel("Cijk_mm", 10 + i, 20 + i, 1, 0);
        drive_record(&d, &k);
    }
    for (int i = 0; i < 3; i++) {
        record k = kernel("orphan", 30, 40, 0, 0);
        drive_record(&d, &k);
    }
    for (uint64_t i = 0; i < 70000; i++) {
        record k = kernel("elementwise", 50 + (int64_t)i, 51 + (int64_t)i, 1000000 + i, 0);
        drive_record(&d, &k);
    }
    drive_end_source(&d);
    json_t *j = drive_finish(&d);
    json_t *u = json_object_get(j, "unattributed");
    ck_assert_int_eq(geti(j, "kernels"), 70005);
    ck_assert_int_eq(geti(j, "attributed_kernels"), 2);
    ck_assert_int_eq(geti(j, "unattributed_kernels"), 70003);
    ck_assert_int_eq(geti(u, "no_id"), 3);
    ck_assert_int_eq(geti(u, "no_operator"), 65536);
    ck_assert_int_eq(geti(u, "pending_bound"), 70000 - 65536);
    ck_assert_int_eq(geti(u, "name_bound"), 0);
    ck_assert(json_is_false(json_object_get(j, "complete")));
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


/* A pseudo-random stream past the pending bound (65536 kernels waiting), the launch bound
 * (65536 correlation ids) and the operator bound (131072 External ids), with kernels before and after their operators and launches and
 * repeated ids: read as one source, then as two pieces cut at four places (the driver's
 * order: both pieces read, split_exact asked, then folded first to second), the rendered
 * section is the same text. */
static uint64_t lcg(uint64_t *x) { return (*x = *x * 6364136223846793005ull + 1442695040888963407ull) >> 33; }

static char *render_ops(const record *rs, size_t n, size_t cut, bool *exact) {
    drive d;
    drive_open(&d, "ops");
    source_ref r0 = {.index = 0, .piece = 0, .path = "t", .format = "t", .rank = -1, .kernels_chosen = true,
                     .host_kernels_chosen = true};
    source_ref r1 = r0;
    r1.piece = 1;
    void *a = d.an->open_source(d.run, &r0), *b = cut < n ? d.an->open_source(d.run, &r1) : NULL;
    for (size_t i = 0; i < n; i++) ck_assert(d.an->consume(i < cut ? a : b, &rs[i]));
    *exact = !b || !d.an->split_exact || d.an->split_exact(a, b);
    ck_assert(d.an->end_source(d.run, a));
    if (b) ck_assert(d.an->end_source(d.run, b));
    section_results none = {0};
    ck_assert(d.an->finish(d.run, &none));
    strbuf out = {0};
    jw_out w;
    jw_begin(&w, &out, 0);
    d.an->render(d.run, &w);
    strbuf_terminate(&out);
    for (size_t i = 0; i < d.diag.count; i++) {   /* the warnings are part of the answer */
        strbuf_append(&out, d.diag.items[i], strlen(d.diag.items[i]));
        strbuf_terminate(&out);
    }
    drive_close(&d);
    return out.data;
}

/* The innermost frame by the enclosing-frame chain equals a brute force over every frame
 * (the latest-sorted one on the thread that holds t) on random nested stacks of two threads,
 * thousands of siblings deep in time; frames that overlap without nesting cost at most
 * PY_FRAME_WALK_MAX steps a query and still answer with a frame that holds t, or none. */
START_TEST(innermost_frame_by_the_chain) {
    uint64_t x = 99;
    py_frames f = {0};
    for (int tid = 1; tid <= 2; tid++) {
        int64_t t = 0;
        for (int top = 0; top < 3000; top++) {          /* 3,000 sibling top frames, each a random stack */
            int64_t a = t + 1 + (int64_t)(lcg(&x) % 5), b = a + 50 + (int64_t)(lcg(&x) % 200);
            ck_assert(ops_frames_add(&f, (py_frame){a, b, 7, tid, (uint32_t)f.n}));
            int64_t lo = a, hi = b;
            for (int d = 0; d < 4 && hi - lo > 8; d++) {   /* nested children */
                int64_t ca = lo + 1 + (int64_t)(lcg(&x) % (uint64_t)((hi - lo) / 4)), cb = hi - 1 - (int64_t)(lcg(&x) % (uint64_t)((hi - lo) / 4));
                if (cb <= ca) break;
                ck_assert(ops_frames_add(&f, (py_frame){ca, cb, 7, tid, (uint32_t)f.n}));
                lo = ca, hi = cb;
            }
            t = b;
        }
    }
    for (int q = 0; q < 4000; q++) {
        int tid = 1 + (int)(lcg(&x) % 2);
        int64_t t = (int64_t)(lcg(&x) % 800000);
        uint32_t got = ops_frames_innermost(&f, 7, tid, t);
        /* brute force: of the frames on the thread that hold t, the latest start (at equal
         * starts the shorter, inner one) */
        const py_frame *best = NULL;
        for (size_t i = 0; i < f.n; i++) {
            const py_frame *p = &f.v[i];
            if (p->tid != tid || p->start > t || p->end < t) continue;
            if (!best || p->start > best->start || (p->start == best->start && p->end < best->end)) best = p;
        }
        ck_assert_uint_eq(got, best ? best->name : UINT32_MAX);
    }
    ops_frames_free(&f);
    /* overlapping, not nesting: [i, i + 100000) for i = 0..99,999, a query near the end */
    for (int64_t i = 0; i < 100000; i++) ck_assert(ops_frames_add(&f, (py_frame){i, i + 100000, 1, 1, (uint32_t)i}));
    uint32_t got = ops_frames_innermost(&f, 1, 1, 199990);
    ck_assert(got == UINT32_MAX || (int64_t)got + 100000 >= 199990);   /* a frame holding t, or none */
    ops_frames_free(&f);
}
END_TEST

START_TEST(split_past_bounds_is_exact) {
    static const char *const NAMES[] = {"aten::mm", "aten::add", "aten::conv", "aten::relu", "aten::bmm", "aten::cat"};
    static const char *const SHAPES[] = {"[[1]]", "[[2]]", "[[3]]", "[[4]]", "[[5]]", "[[6]]"};
    size_t n = 0, cap = 640000;
    record *rs = malloc(cap * sizeof *rs);
    ck_assert_ptr_nonnull(rs);
    uint64_t x = 12345;
    for (uint64_t i = 0; n + 4 < cap && i < 140000; i++) {
        uint64_t ext = 1 + i, corr = 1 + i;
        int64_t t = (int64_t)i * 100;
        uint64_t late = lcg(&x) % 4;   /* 0-2: kernel before its operator (waits), 3: after */
        record o = op(NAMES[lcg(&x) % 6], ext, t, t + 90, SHAPES[lcg(&x) % 6]);
        record l = launch_call(lcg(&x) % 7 ? corr : 1 + lcg(&x) % (i + 1), lcg(&x) % 5 ? ext : 1 + lcg(&x) % (i + 1));
        uint64_t kext = lcg(&x) % 3 ? ext : 0;   /* a third only through the launch */
        record k = kernel("Cijk", t + 10 + (int64_t)(lcg(&x) % 50), t + 70, kext, corr);
        if (late < 2) rs[n++] = k, rs[n++] = l, rs[n++] = o;
        else if (late == 2) rs[n++] = l, rs[n++] = k, rs[n++] = o;
        else rs[n++] = o, rs[n++] = l, rs[n++] = k;
        if (lcg(&x) % 11 == 0) rs[n++] = kernel("Cijk", t, t + 5, 1 + lcg(&x) % (i + 1), 0);   /* an older id */
    }
    bool exact;
    char *one = render_ops(rs, n, n, &exact);
    ck_assert_ptr_nonnull(strstr(one, "waited for their operator"));   /* the pending bound was hit */
    ck_assert_ptr_nonnull(strstr(one, "operator calls"));              /* and the operator bound */
    size_t cuts[] = {1, n / 3, n / 2 + 1, n / 5 * 3, n - 2};
    for (size_t c = 0; c < sizeof cuts / sizeof *cuts; c++) {
        char *two = render_ops(rs, n, cuts[c], &exact);
        /* the first three cuts leave more than 65,536 External ids (MAX_PIECE_OPS) to the
         * second piece, past its budget: the join is refused (the driver reads again); at
         * 3/5 the operator bound (2^17) is crossed at the join, 84,000 + 56,000 ids */
        ck_assert(exact == (c >= 3));
        if (exact) ck_assert_str_eq(two, one);
        free(two);
    }
    free(one);
    free(rs);
}
END_TEST

/* Small streams with ids reused across the cut (an operator's External id again later, a
 * correlation id launched twice, kernels long before their operator or launch): cut at
 * every few records, the split read's section is one pass's. The joined first piece looks
 * the second piece's operators and launches up in the piece's own maps (ops_op_by_ext), the
 * pending kernels at finish too: this checks "the piece's latest, else the first's". */
START_TEST(split_reused_ids_every_cut) {
    static const char *const NAMES[] = {"aten::mm", "aten::add", "aten::conv"};
    enum { OPS = 400 };
    record rs[OPS * 4];
    size_t n = 0;
    uint64_t x = 777;
    for (uint64_t i = 0; i < OPS; i++) {
        int64_t t = (int64_t)i * 100;
        uint64_t ext = 1 + lcg(&x) % 60, corr = 1 + lcg(&x) % 80;   /* ids repeat, both ways across a cut */
        record o = op(NAMES[lcg(&x) % 3], ext, t, t + 90, lcg(&x) % 2 ? "[[1]]" : "[[2]]");
        record l = launch_call(corr, lcg(&x) % 4 ? ext : 1 + lcg(&x) % 60);
        uint64_t kext = lcg(&x) % 3 ? 1 + lcg(&x) % 70 : 0;
        record k = kernel("Cijk", t + 10, t + 10 + (int64_t)(lcg(&x) % 80), kext, lcg(&x) % 4 ? corr : 1 + lcg(&x) % 90);
        switch (lcg(&x) % 3) {
        case 0: rs[n++] = k, rs[n++] = l, rs[n++] = o; break;
        case 1: rs[n++] = o, rs[n++] = k, rs[n++] = l; break;
        default: rs[n++] = o, rs[n++] = l, rs[n++] = k; break;
        }
        if (lcg(&x) % 5 == 0) rs[n++] = kernel("Cijk", t, t + 3, 0, 1 + lcg(&x) % 80);   /* through a launch only */
    }
    bool exact;
    char *one = render_ops(rs, n, n, &exact);
    ck_assert_ptr_nonnull(strstr(one, "aten::mm"));
    for (size_t cut = 0; cut < n; cut += 7) {
        char *two = render_ops(rs, n, cut, &exact);
        ck_assert(exact);
        ck_assert_str_eq(two, one);
        free(two);
    }
    free(one);
}
END_TEST

/* The second piece's kernels found through the first piece's launch (correlation 1 ->
 * External id E) whose operator E the piece shows only after them, behind 60,000 other
 * operators: the join finds "the piece's latest operator with E before the kernel" by a sweep
 * in file order, not a scan back per kernel (quadratic: 80,000 of each took 4.1 s), and the
 * section is one pass's. */
START_TEST(split_join_is_linear) {
    enum { N = 60000, M = 120000 };
    const uint64_t E = 999999999;
    size_t n = 0;
    record *rs = malloc((N + M + 2) * sizeof *rs);
    ck_assert_ptr_nonnull(rs);
    rs[n++] = launch_call(1, E);
    for (int i = 0; i < N; i++) rs[n++] = op("aten::x", 1000 + (uint64_t)i, 100 + i, 110 + i, NULL);
    for (int i = 0; i < M; i++) rs[n++] = kernel("Cijk", 200000 + i, 200005 + i, 0, 1);
    rs[n++] = op("aten::late", E, 5000000, 5000010, NULL);
    bool exact;
    char *one = render_ops(rs, n, n, &exact);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char *two = render_ops(rs, n, 1, &exact);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    ck_assert(exact);
    ck_assert_str_eq(two, one);
    /* ~0.1 s (~0.5 s under ASan, up to 2.6 s on a loaded machine); quadratic: minutes */
    ck_assert_msg(s < 15.0, "the split read and join took %.3f s", s);
    free(one);
    free(two);
    free(rs);
}
END_TEST

/* A second piece past its kernel budget (MAX_TAIL = 2^17 kept kernels) stops keeping them and
 * the join is refused; one under it joins. */
START_TEST(split_past_tail_budget_refused) {
    size_t n = 0, cap = 140002;
    record *rs = malloc(cap * sizeof *rs);
    ck_assert_ptr_nonnull(rs);
    rs[n++] = op("aten::mm", 7, 0, 10, NULL);
    for (size_t i = 0; i < 140000; i++) rs[n++] = kernel("Cijk", 20 + (int64_t)i, 25 + (int64_t)i, 7, 0);
    bool exact;
    char *two = render_ops(rs, n, 1, &exact);
    ck_assert(!exact);
    free(two);
    char *one = render_ops(rs, n, n, &exact);
    two = render_ops(rs, n, n - 100000, &exact);   /* 100,000 kernels in the second piece */
    ck_assert(exact);
    ck_assert_str_eq(two, one);
    free(one);
    free(two);
    free(rs);
}
END_TEST

/* Records repeating one id (a hostile trace: 100,000 cpu_ops with External id 7, as many launch
 * calls with correlation id 3 and graph launches with correlation id 9) keep one entry each
 * where every instance took one (the bound counts ids, so memory grew with the file); each
 * instance is still its own call: every 1,000th launches one kernel, so 100 calls of 1 kernel
 * and 10 ns each (counted by hand, not by the section). A second piece repeating one id past
 * its budget (MAX_PIECE_OPS instances) refuses the join, the driver then reads in one piece. */
START_TEST(repeated_ids_keep_one_entry) {
    enum { N = 100000 };
    drive d;
    drive_open(&d, "ops");
    drive_source(&d, 0, -1, 0);
    record g = launch_call(9, 0);
    g.has &= ~(uint64_t)RF_EXTERNAL, g.external_id = 0, g.has |= RF_PID_TID, g.pid = 1, g.tid = 7;
    for (int i = 0; i < N; i++) {
        record o = op("aten::mm", 7, 100 * (int64_t)i, 100 * (int64_t)i + 50, NULL);
        drive_record(&d, &o);
        record l = launch_call(3, 7);
        drive_record(&d, &l);
        drive_record(&d, &g);
        if (i % 1000 == 999) {
            record k = kernel("Cijk", 100 * (int64_t)i + 20, 100 * (int64_t)i + 30, 0, 3);
            drive_record(&d, &k);
        }
    }
    const ops_file *f = d.src;
    ck_assert_uint_le(f->capops, 256);
    ck_assert_uint_le(f->caplaunches, 256);
    ck_assert_uint_le(f->capreplays, 256);
    ck_assert_uint_eq(f->nops, 1);
    drive_end_source(&d);
    json_t *ops = drive_finish(&d);
    json_t *mm = by_name(ops, "aten::mm");
    ck_assert_ptr_nonnull(mm);
    ck_assert_int_eq(geti(mm, "calls"), N / 1000);
    ck_assert_int_eq(geti(mm, "kernels"), N / 1000);
    ck_assert_int_eq(geti(mm, "kernel_time_ns"), 10 * (N / 1000));
    ck_assert(json_number_value(json_object_get(mm, "call_mean_ns")) == 10.0);
    json_decref(ops);
    drive_close(&d);

    size_t n = 0, cap = 2 * 70000 + 2;
    record *rs = malloc(cap * sizeof *rs);
    ck_assert_ptr_nonnull(rs);
    for (int i = 0; i < 70000; i++) {
        rs[n++] = op("aten::mm", 7, 100 * (int64_t)i, 100 * (int64_t)i + 50, NULL);
        rs[n++] = kernel("Cijk", 100 * (int64_t)i + 20, 100 * (int64_t)i + 30, 7, 0);
    }
    bool exact;
    char *one = render_ops(rs, n, n, &exact);
    ck_assert_ptr_nonnull(strstr(one, "\"calls\":70000"));
    char *two = render_ops(rs, n, 2, &exact);        /* 69,999 instances in the second piece */
    ck_assert(!exact);
    free(two);
    two = render_ops(rs, n, n - 20000, &exact);      /* 10,000 of them */
    ck_assert(exact);
    ck_assert_str_eq(two, one);
    free(one);
    free(two);
    free(rs);
}
END_TEST

Suite *ops_suite(void) {
    Suite *s = suite_create("ops");
    TCase *tc = tcase_create("ops");
    tcase_add_test(tc, attribution_chain);
    tcase_add_test(tc, unattributed_reasons);
    tcase_add_test(tc, pieces_and_files);
    tcase_add_test(tc, split_past_bounds_is_exact);
    tcase_add_test(tc, split_reused_ids_every_cut);
    tcase_add_test(tc, split_join_is_linear);
    tcase_add_test(tc, split_past_tail_budget_refused);
    tcase_add_test(tc, repeated_ids_keep_one_entry);
    tcase_add_test(tc, innermost_frame_by_the_chain);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}
